// How a persona looks: an emblem with its initials, and a face per emotion
// (from its card's `expressions`, else a default for common moods).

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

export function emblem(persona) {
  const initials = persona.name.split(/\s+/).map((w) => w[0]).join("").slice(0, 2);
  const hue = [...persona.id].reduce((h, c) => (h * 31 + c.charCodeAt(0)) % 360, 7);
  return el("div", { class: "emblem", style: `--hue:${hue}`, "aria-hidden": "true" }, initials);
}
