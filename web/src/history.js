// Past matches: result, PGN download, streaks; each match's reflection with
// its key moments (click one to see the position) and, after the match, the
// persona's per-turn reasoning.

import { Chessground } from "chessground";
import { api, download, el, me } from "./api.js";
import { familiarityList } from "./familiarity.js";
import { ratingChart, ratingLine } from "./rating.js";

export async function history(view, matchId) {
  if (matchId) return reflection(view, matchId);
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
  const rows = matches.map((m) =>
    el("li", { class: "past-match", "data-match": m.id },
      el("strong", {}, name(m.persona_id)), ` · you played ${m.user_color} · ${m.created_at.slice(0, 10)} · `,
      outcome(m),
      " · ", el("button", { type: "button", class: "link", "data-pgn": m.id,
        onclick: () => download(`/api/matches/${m.id}/pgn`, `kibitz-${m.id}.pgn`) }, "PGN"),
      ...(left(m) ? [] : [" · ", m.status === "finished"
        ? el("a", { href: `#/history/${m.id}` }, "Reflection")
        : el("a", { href: `#/play/${m.id}` }, "Resume")])));
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

async function reflection(view, matchId) {
  const r = await api("GET", `/api/matches/${matchId}/reflection`);
  const boardEl = el("div", { class: "board small", "aria-label": "Key moment position" });
  const caption = el("p", { class: "caption", role: "status" });
  const moments = r.key_moments.map((k) =>
    el("li", {}, el("button", { type: "button", class: "moment", onclick: () => show(k) },
      `${k.move_label} by the ${k.by}: ${k.class} (${k.delta > 0 ? "+" : ""}${k.delta})`)));
  const h = r.head_to_head;
  const reasoning = el("ol", { class: "reasoning" });
  view.replaceChildren(el("section", { class: "reflection" },
    el("h1", {}, `Reflection: ${r.result} (${r.termination.replaceAll("_", " ")})`),
    el("blockquote", { class: "summary" }, r.summary),
    el("p", { class: "by" }, `written by ${r.written_by} · mood: ${r.mood}`),
    el("h2", {}, "Key moments"),
    el("ul", { class: "moments" }, ...(moments.length ? moments : [el("li", {}, "No move lost five points: a clean game.")])),
    boardEl, caption,
    el("h2", {}, "Learned"),
    el("ul", {}, ...(r.learned.length ? r.learned.map((l) => el("li", {}, l.content)) : [el("li", {}, "Nothing new.")])),
    el("p", { class: "h2h" }, `Head to head: ${h.played} played, you won ${h.player_wins}, lost ${h.player_losses}, drew ${h.draws}`,
      h.streak ? ` (streak: ${h.streak.replaceAll("_", " ")})` : ""),
    el("h2", {}, "What it was thinking"), reasoning));
  const cg = Chessground(boardEl, { viewOnly: true, coordinates: false });
  function show(k) {
    cg.set({ fen: k.fen_after });
    caption.textContent = `After ${k.move_label}`;
    boardEl.setAttribute("data-fen", k.fen_after);
  }
  if (r.key_moments.length) show(r.key_moments[0]);
  else boardEl.hidden = true;
  const turns = await api("GET", `/api/matches/${matchId}/reasoning`);
  reasoning.replaceChildren(...turns.filter((t) => t.thinking).map((t) =>
    el("li", {}, el("b", {}, `${t.trigger.replaceAll("_", " ")}: `), t.thinking)));
}
