// The club room: a hash router over the lobby, a match, the memories page
// and the history page.

import { me } from "./api.js";
import { history } from "./history.js";
import { LICHESS_SIGN_IN, lobby, signedIn } from "./lobby.js";
import { memories } from "./memories.js";
import { play } from "./play.js";

const view = document.getElementById("view");
let leave = null;

async function route() {
  if (leave) {
    leave();
    leave = null;
  }
  const player = me();
  document.getElementById("who").textContent = player ? player.name : "";
  const [, page, arg, more] = location.hash.split("/");
  try {
    if (page === "signed-in" && arg && more) await signedIn(view, arg, more);
    else if (page === "lichess") await lobby(view, LICHESS_SIGN_IN[arg] || "");
    else if (page === "play" && arg) leave = await play(view, arg);
    else if (page === "memories" && player) await memories(view);
    else if (page === "history" && player) leave = (await history(view, arg)) || null;
    else await lobby(view);
  } catch (e) {
    view.replaceChildren(Object.assign(document.createElement("p"), { className: "error", textContent: e.message }));
  }
  view.focus();
}

window.addEventListener("hashchange", route);
route();
