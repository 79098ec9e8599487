// How well each persona knows the player (GET /api/players/{id}): the stage,
// the games together, the time away, what the next stage needs, and when
// each stage was reached.

import { el } from "./api.js";

const STAGES = { stranger: "a stranger", acquaintance: "an acquaintance", regular: "a regular", old_friend: "an old friend" };

export function familiarityList(profile) {
  const known = (profile.familiarity || []).filter((f) => f.history.length);
  if (!known.length) return null;
  return el("ul", { class: "familiarity", "aria-label": "How well they know you" },
    ...known.map((f) => el("li", { "data-persona": f.persona_id, "data-stage": f.now.stage },
      el("strong", {}, f.persona_name), ` counts you as ${STAGES[f.now.stage]} · ${summary(f.now)}`,
      milestones(f.history))));
}

function summary(now) {
  const parts = [`${now.games} game${now.games === 1 ? "" : "s"} together`];
  if (now.days_away != null) parts.push(now.days_away === 0 ? "last played today" : `last played ${now.days_away} day${now.days_away === 1 ? "" : "s"} ago`);
  if (now.next) parts.push(`${Math.max(now.points_to_next, 0).toFixed(1)} points to ${STAGES[now.next]}`);
  return parts.join(" · ");
}

/// "acquaintance after game 1 (26 Nov), regular after game 4 (...)": each
/// stage the first time it was reached.
function milestones(history) {
  const seen = new Set(["stranger"]);
  const reached = [];
  history.forEach((h, i) => {
    if (seen.has(h.stage)) return;
    seen.add(h.stage);
    reached.push(`${h.stage.replace("_", " ")} after game ${i + 1} (${h.played_at.slice(0, 10)})`);
  });
  return reached.length ? el("span", { class: "milestones" }, ` · ${reached.join(", ")}`) : "";
}
