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
      milestones(f.history, f.now))));
}

function summary(now) {
  const parts = [`${now.games} game${now.games === 1 ? "" : "s"} together`];
  if (now.days_away != null) parts.push(now.days_away === 0 ? "last played today" : `last played ${now.days_away} day${now.days_away === 1 ? "" : "s"} ago`);
  // Never "0.0 points": what is missing, rounded up to a tenth.
  if (now.next) parts.push(`${(Math.ceil(Math.max(now.points_to_next, 0) * 10) / 10 || 0.1).toFixed(1)} points to ${STAGES[now.next]}`);
  return parts.join(" · ");
}

const ORDER = ["stranger", "acquaintance", "regular", "old_friend"];

/// "acquaintance after game 1 (26 Nov), regular after game 4 (...)": each
/// stage the first time it was reached; a stage reached and since faded by
/// time apart says so, so the line never says two things.
function milestones(history, now) {
  const seen = new Set(["stranger"]);
  const reached = [];
  history.forEach((h, i) => {
    if (seen.has(h.stage)) return;
    seen.add(h.stage);
    const faded = ORDER.indexOf(h.stage) > ORDER.indexOf(now.stage) ? ", faded since" : "";
    reached.push(`${h.stage.replace("_", " ")} after game ${i + 1} (${h.played_at.slice(0, 10)}${faded})`);
  });
  return reached.length ? el("span", { class: "milestones" }, ` · ${reached.join(", ")}`) : "";
}
