// How a persona looks: its portrait (an imported card's), else an emblem
// with its initials; and a face per emotion: the card's image for it, else
// its glyph (`expressions`), else a default for common moods.

import { el } from "./api.js";

const DEFAULT_FACES = {
  calm: "😌", pleased: "😊", annoyed: "😒", amused: "😄", focused: "🧐", triumphant: "😤",
  gracious: "🙂", bored: "🥱", excited: "🤩", nervous: "😬", giddy: "😆", pouty: "😠",
  curious: "🤔", proud: "😎", cocky: "😏", fired_up: "🔥", irritated: "😤", impressed: "😮",
  impatient: "⏳", sulky: "😾",
};

export function face(persona, emotion) {
  return persona?.expressions?.[emotion] || DEFAULT_FACES[emotion] || "🙂";
}

// Shows the persona's face for `emotion` in `slot`.
export function showFace(slot, persona, emotion) {
  const image = persona?.expression_images?.[emotion];
  if (image) slot.replaceChildren(el("img", { class: "face-image", src: image, alt: "" }));
  else slot.replaceChildren(face(persona, emotion));
}

export function emblem(persona) {
  if (persona.avatar_url) return el("img", { class: "emblem portrait", src: persona.avatar_url, alt: "", "aria-hidden": "true" });
  const initials = persona.name.split(/\s+/).map((w) => w[0]).join("").slice(0, 2);
  const hue = [...persona.id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 360, 7);
  return el("div", { class: "emblem", style: `--hue:${hue}`, "aria-hidden": "true" }, initials);
}
