// The lobby: who you are, which persona to play, which colour.

import { api, el, me, remember } from "./api.js";
import { emblem } from "./faces.js";

export async function lobby(view) {
  const player = me();
  if (!player) return signIn(view);
  const personas = await api("GET", "/api/personas");
  let color = "white";
  const colours = el("fieldset", { class: "colours" }, el("legend", {}, "Your colour"),
    ...["white", "black", "random"].map((c) =>
      el("label", {}, el("input", { type: "radio", name: "colour", value: c, checked: c === color, onchange: () => (color = c) }), ` ${c}`)));
  const cards = personas.map((p) =>
    el("article", { class: "persona", "data-persona": p.id },
      emblem(p),
      el("div", {},
        el("h2", {}, p.name),
        el("p", { class: "strength" }, `${p.elo} Elo, ${p.style}`),
        el("p", {}, p.biography),
        el("button", { type: "button", onclick: () => start(p.id, color) }, `Play ${p.name.split(" ")[0]}`))));
  view.replaceChildren(el("section", { class: "lobby" }, el("h1", {}, `Welcome, ${player.name}`), colours, ...cards));
}

async function start(personaId, color) {
  const player = me();
  const body = { player_id: player.id, persona_id: personaId, color, utc_offset_minutes: -new Date().getTimezoneOffset() };
  const out = await api("POST", "/api/matches", body);
  location.hash = `#/play/${out.state.id}`;
}

function signIn(view) {
  const name = el("input", { id: "name", name: "name", required: true, maxlength: 64, autocomplete: "nickname" });
  const form = el("form", { class: "sign-in", onsubmit: async (e) => {
    e.preventDefault();
    const out = await api("POST", "/api/players", { name: name.value });
    remember({ id: out.id, name: out.name, token: out.token });
    location.hash = "#/";
    lobby(view);
  } }, el("label", { for: "name" }, "Your name at the club"), name, el("button", { type: "submit" }, "Come in"));
  view.replaceChildren(el("section", { class: "lobby" }, el("h1", {}, "The club room"), form));
}
