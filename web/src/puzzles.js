// The player's old mistakes as puzzles: a list (on the review and memories
// pages) with where each came from and how it went, which the player may
// dismiss; and the puzzle board of a match, where the offered one is
// answered with a move.

import { Chessground } from "chessground";
import { api, el } from "./api.js";

const STATUS = { open: "open", retired: "solved twice: retired", dismissed: "dismissed" };

/// A list of puzzles; `reload()` is called after one is dismissed.
export function puzzleList(puzzles, reload, personaName = (id) => id) {
  if (!puzzles.length) return el("p", { class: "no-puzzles" }, "No puzzles: no mistake clear enough to come back.");
  return el("ul", { class: "puzzle-list" }, ...puzzles.map((p) => {
    const tries = p.solved + p.failed ? ` · solved ${p.solved}, missed ${p.failed}` : " · not tried yet";
    const dismiss = p.status === "open"
      ? el("button", { type: "button", class: "dismiss", onclick: async () => {
        await api("POST", `/api/puzzles/${p.id}/dismiss`);
        reload();
      } }, "Dismiss")
      : "";
    return el("li", { class: "puzzle", "data-id": p.id, "data-status": p.status },
      el("a", { href: `#/history/${p.match_id}` }, `You played ${p.played_san} (${p.class})`),
      ` against ${personaName(p.persona_id)} on ${p.created_at.slice(0, 10)} · ${STATUS[p.status] || p.status}${tries} `,
      dismiss);
  }));
}

/// The offered puzzle on a board of its own: the player moves on it, and
/// `answer(uci)` sends the move. Returns { node, verdict(data), close() }.
export function puzzleBoard(offer, answer) {
  const boardEl = el("div", { class: "board puzzle-board", "aria-label": "Puzzle board" });
  const caption = el("p", { class: "puzzle-caption", role: "status" },
    `From your game on ${offer.played_at.slice(0, 10)}: you played ${offer.played_san}. Find better.`);
  const turn = offer.fen.split(" ")[1] === "b" ? "black" : "white";
  const cg = Chessground(boardEl, {
    fen: offer.fen,
    orientation: turn,
    turnColor: turn,
    coordinates: false,
    movable: { free: false, color: turn, showDests: true, dests: dests(offer.legal_moves || []),
      events: { after: (o, d) => {
        cg.set({ movable: { color: undefined } });
        answer(promotion(offer.legal_moves || [], o, d));
      } } },
  });
  const node = el("section", { class: "puzzle-offer", "aria-label": "Puzzle" }, el("h2", {}, "Puzzle"), boardEl, caption);
  return {
    node,
    verdict(d) {
      cg.set({ movable: { color: undefined } });
      node.dataset.verdict = d.correct ? "solved" : "missed";
      caption.textContent = d.correct
        ? `Solved: ${d.answered_san}.${d.status === "retired" ? " Twice now: retired." : ""}`
        : `Not ${d.answered_san}: ${d.solution_san} was it.`;
    },
    close: () => cg.destroy(),
  };
}

/// A pawn reaching the last rank becomes a queen on the puzzle board.
function promotion(legal, orig, dest) {
  const queen = `${orig}${dest}q`;
  return legal.includes(queen) ? queen : `${orig}${dest}`;
}

function dests(legal) {
  const map = new Map();
  for (const uci of legal) {
    const [from, to] = [uci.slice(0, 2), uci.slice(2, 4)];
    if (!map.has(from)) map.set(from, []);
    if (!map.get(from).includes(to)) map.get(from).push(to);
  }
  return map;
}
