// The lobby: who you are, which persona to play, which colour.

import { api, el, me, remember } from "./api.js";
import { emblem } from "./faces.js";
import { pairingNote, ratingLine } from "./rating.js";

export async function lobby(view, said = "") {
  const player = me();
  if (!player) return signIn(view, said);
  const [personas, rating] = await Promise.all([
    api("GET", "/api/personas"),
    api("GET", `/api/players/${player.id}/rating`).catch(() => null),
  ]);
  const pairing = (id) => rating?.pairings.find((p) => p.persona_id === id);
  let color = "white";
  const adaptive = el("input", { type: "checkbox", id: "adaptive", name: "adaptive" });
  const adapt = el("p", { class: "adapt" }, el("label", { for: "adaptive" }, adaptive,
    " Play at my strength: the persona plays at your rating, within 200 of its own; such a game is not rated."));
  const colours = el("fieldset", { class: "colours" }, el("legend", {}, "Your colour"),
    ...["white", "black", "random"].map((c) =>
      el("label", {}, el("input", { type: "radio", name: "colour", value: c, checked: c === color, onchange: () => (color = c) }), ` ${c}`)));
  const cards = personas.map((p) =>
    el("article", { class: "persona", "data-persona": p.id },
      emblem(p),
      el("div", {},
        el("h2", {}, p.name),
        el("p", { class: "strength" }, `${p.elo} Elo, ${p.style}`),
        pairingNote(pairing(p.id)),
        el("p", {}, short(p.biography)),
        el("button", { type: "button", onclick: () => start(p.id, color, adaptive.checked) }, `Play ${p.name.split(" ")[0]}`))));
  view.replaceChildren(el("section", { class: "lobby" }, el("h1", {}, `Welcome, ${player.name}`),
    rating ? el("p", { class: "rating-line" }, ratingLine(rating)) : "",
    el("p", { class: "notice", role: "alert" }), colours, adapt, ...cards));
}

// An imported card's biography can run to pages: the lobby shows its start.
function short(text) {
  return text.length <= 320 ? text : `${text.slice(0, 320).replace(/\s+\S*$/, "")}…`;
}

async function start(personaId, color, adaptive) {
  const player = me();
  const body = { player_id: player.id, persona_id: personaId, color, adaptive,
    utc_offset_minutes: -new Date().getTimezoneOffset() };
  try {
    // An unfinished match against this persona comes back resumed.
    const out = await api("POST", "/api/matches", body);
    location.hash = `#/play/${out.state.id}`;
  } catch (e) {
    // too_many_matches names the cap; busy and rate limits say when to retry.
    document.querySelector(".lobby .notice")?.replaceChildren(e.message);
  }
}

// Who may join is the club's choice (`limits.registration`): anyone, with
// an invite code, or only through the admin, who hands out id and token.
async function signIn(view, said) {
  const { registration = "open", lichess = false } = await api("GET", "/api/health").catch(() => ({}));
  const notice = el("p", { class: "notice", role: "alert" }, said);
  const name = el("input", { id: "name", name: "name", required: true, maxlength: 64, autocomplete: "nickname" });
  const invite = el("input", { id: "invite", name: "invite", required: true, maxlength: 128, autocomplete: "off" });
  const join = async (e) => {
    e.preventDefault();
    try {
      const body = { name: name.value, ...(registration === "invite" ? { invite: invite.value.trim() } : {}) };
      const out = await api("POST", "/api/players", body);
      enter(view, { id: out.id, name: out.name, token: out.token });
    } catch (err) {
      notice.replaceChildren(err.message);
    }
  };
  const fields = [el("label", { for: "name" }, "Your name at the club"), name];
  if (registration === "invite") fields.push(el("label", { for: "invite" }, "Invite code"), invite);
  const forms = registration === "admin"
    ? [el("p", {}, "Players here are created by the club's admin: ask them for your player id and token.")]
    : [el("form", { class: "sign-in", onsubmit: join }, ...fields, el("button", { type: "submit" }, "Come in"))];
  // A persona's opponents on Lichess see what it remembers of them here.
  const viaLichess = lichess
    ? [el("p", { class: "lichess-sign-in" }, "Played one of our personas on Lichess? ",
      el("a", { href: "/api/auth/lichess", onclick: () => sessionStorage.setItem(LICHESS_STARTED, "1") },
        "Sign in with Lichess"), " to see what it remembers of you.")]
    : [];
  view.replaceChildren(el("section", { class: "lobby" }, el("h1", {}, "The club room"), ...forms, ...viaLichess,
    tokenForm(view, notice, registration === "admin"), notice));
}

/// Set when this tab follows "Sign in with Lichess": only a sign-in this tab
/// started is taken, never one from a link someone sent.
const LICHESS_STARTED = "kibitz.lichess-sign-in";

/// Back from Lichess with a club token for the player it vouched for:
/// kept, and the address with the token in it replaced.
export async function signedIn(view, id, token) {
  const started = sessionStorage.getItem(LICHESS_STARTED) === "1";
  sessionStorage.removeItem(LICHESS_STARTED);
  if (!started || me()) {
    // The token leaves the address bar (without a second route of the page).
    history.replaceState(null, "", "#/");
    return lobby(view, "That sign-in was not started here: use Sign in with Lichess.");
  }
  const res = await fetch(`/api/players/${encodeURIComponent(id)}`, { headers: { Authorization: `Bearer ${token}` } });
  if (!res.ok) return lobby(view, "That sign-in did not work: try again.");
  const player = await res.json();
  remember({ id: player.id, name: player.name, token });
  location.replace("#/memories");
}

/// Why a sign-in with Lichess found nobody.
export const LICHESS_SIGN_IN = {
  refused: "You did not let the club see your Lichess name, so it cannot tell who you are.",
  unknown: "No persona here has played you on Lichess yet, so none remembers anything of you.",
};

/// Signing in with a player id and token the admin (or another device) gave.
function tokenForm(view, notice, open) {
  const id = el("input", { id: "player-id", name: "player-id", required: true, autocomplete: "username" });
  const token = el("input", { id: "token", name: "token", type: "password", required: true, autocomplete: "current-password" });
  const form = el("form", { class: "token-sign-in", onsubmit: async (e) => {
    e.preventDefault();
    try {
      const res = await fetch(`/api/players/${encodeURIComponent(id.value.trim())}`,
        { headers: { Authorization: `Bearer ${token.value.trim()}` } });
      if (!res.ok) throw new Error("That player id and token do not match.");
      const player = await res.json();
      enter(view, { id: player.id, name: player.name, token: token.value.trim() });
    } catch (err) {
      notice.replaceChildren(err.message);
    }
  } }, el("label", { for: "player-id" }, "Player id"), id, el("label", { for: "token" }, "Token"), token,
  el("button", { type: "submit" }, "Sign in"));
  return el("details", { class: "have-token", open }, el("summary", {}, "I have a token"), form);
}

function enter(view, player) {
  remember(player);
  location.hash = "#/";
  lobby(view);
}
