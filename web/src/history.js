// Past matches: result, PGN download, streaks, the rating and familiarity;
// each finished match opens its review (review.js).

import { api, download, el, me } from "./api.js";
import { familiarityList } from "./familiarity.js";
import { ratingChart, ratingLine } from "./rating.js";
import { review } from "./review.js";

export async function history(view, matchId) {
  if (matchId) return review(view, matchId);
  const player = me();
  const [matches, personas, rating, profile] = await Promise.all([
    api("GET", `/api/players/${player.id}/matches`),
    api("GET", "/api/personas"),
    api("GET", `/api/players/${player.id}/rating`),
    api("GET", `/api/players/${player.id}`),
  ]);
  const name = (id) => personas.find((p) => p.id === id)?.name || id;
  const left = (m) => m.termination === "abandoned";
  const outcome = (m) => {
    if (left(m)) return "left unfinished";
    if (m.adapted && m.status === "finished") return `${m.result} (${(m.termination || "").replaceAll("_", " ")}; not rated, adapted to ${m.persona_elo})`;
    return m.status === "finished" ? `${m.result} (${(m.termination || "").replaceAll("_", " ")})` : "in progress";
  };
  // A finished match opens its review; an unfinished one is resumed here,
  // unless it is played on Lichess.
  const next = (m) => m.status === "finished"
    ? el("a", { href: `#/history/${m.id}` }, "Review")
    : m.lichess_url ? null : el("a", { href: `#/play/${m.id}` }, "Resume");
  const rows = matches.map((m) =>
    el("li", { class: "past-match", "data-match": m.id },
      el("strong", {}, name(m.persona_id)), ` · you played ${m.user_color} · ${m.created_at.slice(0, 10)} · `,
      outcome(m),
      " · ", el("button", { type: "button", class: "link", "data-pgn": m.id,
        onclick: () => download(`/api/matches/${m.id}/pgn`, `kibitz-${m.id}.pgn`) }, "PGN"),
      ...(left(m) || !next(m) ? [] : [" · ", next(m)]),
      // A game played on Lichess links to it there.
      ...(m.lichess_url ? [" · ", el("a", { href: m.lichess_url, class: "on-lichess", rel: "noopener" }, "on Lichess")] : [])));
  const streaks = personas.map((p) => streak(matches.filter((m) => m.persona_id === p.id)))
    .map((s, i) => s && el("li", { class: "streak" }, `${personas[i].name}: ${s}`)).filter(Boolean);
  const chart = ratingChart(rating.history);
  view.replaceChildren(el("section", { class: "history" }, el("h1", {}, "Your matches"),
    el("section", { class: "rating", "aria-label": "Your rating" }, el("p", { class: "rating-line" }, ratingLine(rating)),
      chart || ""),
    familiarityList(profile) || "",
    streaks.length ? el("ul", { class: "streaks", "aria-label": "Streaks" }, ...streaks) : "",
    el("ul", {}, ...(rows.length ? rows : [el("li", {}, "No matches yet.")]))));
}

/// "won 3 in a row" from the newest finished matches against one persona.
function streak(matches) {
  // A game left unfinished counts for neither side.
  const played = matches.filter((m) => m.status === "finished" && m.termination !== "abandoned");
  const outcomes = played.map((m) => {
    if (m.result === "1/2-1/2") return "drew";
    const whiteWon = m.result === "1-0";
    return whiteWon === (m.user_color === "white") ? "won" : "lost";
  });
  if (!outcomes.length) return null;
  const run = outcomes.findIndex((o) => o !== outcomes[0]);
  const n = run === -1 ? outcomes.length : run;
  // One game is a result, not a streak.
  return n >= 2 ? `you ${outcomes[0]} ${n} in a row` : null;
}
