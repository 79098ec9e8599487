// A finished game to look back at, in lichess's analysis conventions: the
// board to step through, the move list with its glyphs and win chances, the
// win-chance chart (click it, or use the arrow keys), the key moments with
// the persona's comment and the better move as an arrow, the puzzles the
// game's mistakes became, the reflection, and the persona's reasoning.

import { Chessground } from "chessground";
import { api, download, el, me } from "./api.js";
import { puzzleList } from "./puzzles.js";
import { stepFor, winChart } from "./winchart.js";

export async function review(view, matchId) {
  const r = await api("GET", `/api/matches/${matchId}/review`);
  const name = () => r.persona_name;
  const moments = new Map(r.key_moments.map((k) => [k.ply, k]));
  const boardEl = el("div", { class: "board", "aria-label": "Review board" });
  const caption = el("p", { class: "caption", role: "status" });
  const comment = el("div", { class: "comment", "aria-live": "polite" });
  const list = moveList(r.moves, (ply) => go(ply));
  const chart = winChart(r.moves, r.key_moments, (ply) => go(ply));
  const nav = el("div", { class: "review-nav", role: "group", "aria-label": "Step through the game" },
    ...[["«", "First position", () => 0], ["‹", "Previous move", () => at - 1], ["›", "Next move", () => at + 1],
      ["»", "Last position", () => r.moves.length]].map(([label, title, to]) =>
      el("button", { type: "button", title, "aria-label": title, onclick: () => go(to()) }, label)));
  const puzzles = el("div", { class: "game-puzzles" });
  // After a dismissal only the list is read again, not the whole review.
  const showPuzzles = async () => {
    const all = await api("GET", `/api/players/${me().id}/puzzles?persona=${encodeURIComponent(r.persona_id)}`);
    puzzles.replaceChildren(puzzleList(all.filter((p) => p.match_id === matchId), showPuzzles, name));
  };
  puzzles.replaceChildren(puzzleList(r.puzzles, showPuzzles, name));
  const reasoning = el("ol", { class: "reasoning" });
  view.replaceChildren(el("section", { class: "review", "data-match": matchId },
    el("h1", {}, `${r.white} – ${r.black}: ${r.result || "*"}`, r.termination ? ` (${r.termination.replaceAll("_", " ")})` : ""),
    el("p", { class: "downloads" }, "PGN: ",
      el("button", { type: "button", class: "link", onclick: () => download(`/api/matches/${matchId}/pgn?analysis=true`, `kibitz-${matchId}-analysis.pgn`) }, "with the analysis"),
      " · ", el("button", { type: "button", class: "link", onclick: () => download(`/api/matches/${matchId}/pgn`, `kibitz-${matchId}.pgn`) }, "plain")),
    el("div", { class: "review-main" },
      el("div", { class: "review-board" }, boardEl, nav, caption),
      el("div", { class: "review-side" }, chart.node, comment, list.node)),
    el("h2", {}, "Key moments"), keyMoments(r.key_moments, go),
    el("h2", {}, "Puzzles from this game"), puzzles,
    ...reflection(r.reflection),
    el("h2", {}, "What it was thinking"), reasoning));
  const cg = Chessground(boardEl, { viewOnly: true, orientation: r.user_color, coordinates: true });
  let at = -1;

  function go(ply) {
    ply = Math.max(0, Math.min(r.moves.length, ply));
    if (ply === at) return;
    at = ply;
    const m = r.moves[ply - 1];
    const k = moments.get(ply);
    const fen = m ? m.fen : r.start_fen;
    cg.set({ fen, lastMove: m ? [m.uci.slice(0, 2), m.uci.slice(2, 4)] : undefined });
    // At a key moment: what was played in red, the better move in green.
    cg.setAutoShapes(k?.better && m ? [arrow(m.uci, "red"), arrow(k.better.uci, "green")] : []);
    boardEl.dataset.fen = fen;
    boardEl.dataset.ply = String(ply);
    caption.textContent = m ? `After ${m.label}${m.glyph || ""}${m.white_win != null ? ` · White ${Math.round(m.white_win)}%` : ""}` : "The start";
    comment.replaceChildren(...commentOn(m, k, r.persona_name));
    list.show(ply);
    chart.show(ply);
  }

  // Arrow keys step through the game anywhere on the page but in a field.
  const onKey = (e) => {
    if (e.target.closest?.("input, textarea, select, [role=slider]")) return;
    const to = stepFor(e.key, at, r.moves.length);
    if (to === null) return;
    e.preventDefault();
    go(to);
  };
  document.addEventListener("keydown", onKey);
  const first = r.key_moments[0]?.ply ?? r.moves.length;
  go(first);
  api("GET", `/api/matches/${matchId}/reasoning`).then((turns) => reasoning.replaceChildren(...turns.filter((t) => t.thinking)
    .map((t) => el("li", {}, el("b", {}, `${t.trigger.replaceAll("_", " ")}: `), t.thinking)))).catch(() => {});
  return () => {
    document.removeEventListener("keydown", onKey);
    cg.destroy();
  };
}

function arrow(uci, brush) {
  return { orig: uci.slice(0, 2), dest: uci.slice(2, 4), brush };
}

/// The move list, two moves a row; each move a button with its glyph and
/// White's chance after it.
function moveList(moves, go) {
  const buttons = moves.map((m) => el("button", { type: "button", class: `mv ${m.class || ""}`, "data-ply": m.ply, onclick: () => go(m.ply) },
    m.san, m.glyph ? el("span", { class: "glyph" }, m.glyph) : "",
    m.white_win != null ? el("small", { class: "win" }, ` ${Math.round(m.white_win)}%`) : ""));
  const rows = [];
  for (let i = 0; i < moves.length; i++) {
    const m = moves[i];
    const number = m.label.split(/\.+/)[0];
    const blackFirst = i === 0 && m.label.includes("...");
    if (m.label.includes("...") && !blackFirst) rows.at(-1)?.append(buttons[i]);
    else rows.push(el("li", { value: number }, ...(blackFirst ? [el("span", { class: "mv empty" }, "…")] : []), buttons[i]));
  }
  const node = el("ol", { class: "review-moves", "aria-label": "Moves" }, ...rows);
  return {
    node,
    show(ply) {
      for (const b of buttons) b.removeAttribute("aria-current");
      const current = buttons[ply - 1];
      if (!current) return;
      current.setAttribute("aria-current", "true");
      current.scrollIntoView({ block: "nearest" });
    },
  };
}

function commentOn(m, k, persona) {
  if (!m) return [];
  const out = [];
  if (k) {
    out.push(el("p", { class: `moment-comment ${k.class}` }, el("b", {}, `${persona}: `), k.comment));
    if (k.better) out.push(el("p", { class: "better" }, `Better: ${k.better.san}`));
  }
  for (const line of m.said) out.push(el("p", { class: "said" }, `At the board, ${persona} said: “${line}”`));
  return out;
}

function keyMoments(moments, go) {
  if (!moments.length) return el("p", {}, "No move lost five points: a clean game.");
  return el("ul", { class: "moments" }, ...moments.map((k) =>
    el("li", {}, el("button", { type: "button", class: `moment ${k.class}`, "data-ply": k.ply, onclick: () => go(k.ply) },
      `${k.label} by the ${k.by}: ${k.class} (${k.delta > 0 ? "+" : ""}${k.delta})`))));
}

/// The reflection's parts, or a word on why there is none.
function reflection(r) {
  if (!r) return [el("h2", {}, "Reflection"), el("p", { class: "summary" }, "No reflection was written for this game (the club stopped before it); the moves and their figures are here all the same.")];
  const h = r.head_to_head;
  return [el("h2", {}, "Reflection"),
    el("blockquote", { class: "summary" }, r.summary),
    el("p", { class: "by" }, `written by ${r.written_by} · mood: ${r.mood}`),
    el("h3", {}, "Learned"),
    el("ul", {}, ...(r.learned.length ? r.learned.map((l) => el("li", {}, l.content)) : [el("li", {}, "Nothing new.")])),
    el("p", { class: "h2h" }, `Head to head: ${h.played} played, you won ${h.player_wins}, lost ${h.player_losses}, drew ${h.draws}`,
      h.streak ? ` (streak: ${h.streak.replaceAll("_", " ")})` : "")];
}
