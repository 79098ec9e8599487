// White's win chance over a whole game, drawn as lichess draws its
// advantage chart: White's share in light from the bottom, Black's in dark
// above it, the even line across, the key moments as marks, the position
// shown as a cursor. A click goes to that move; so do the arrow keys while
// the chart has the focus (the review page also listens on the page).

import { svg } from "./api.js";

const [W, H] = [600, 120];

/// `moves`: the review's moves; `moments`: its key moments; `go(ply)` shows
/// a position (0: the start). Returns { node, show(ply) }.
export function winChart(moves, moments, go) {
  const n = moves.length;
  const values = chances(moves);
  const x = (ply) => (n ? (ply * W) / n : 0);
  const y = (white) => H - (white * H) / 100;
  const curve = values.map((v, ply) => `${x(ply)},${y(v)}`).join(" ");
  const chart = svg("svg", { class: "win-chart", viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: "none",
    role: "slider", tabindex: "0", "aria-label": "White's winning chances over the game: click a move, or use the arrow keys",
    "aria-valuemin": "0", "aria-valuemax": String(n) });
  chart.append(svg("rect", { class: "black-share", x: 0, y: 0, width: W, height: H }));
  chart.append(svg("polygon", { class: "white-share", points: `0,${H} ${curve} ${x(n)},${H}` }));
  chart.append(svg("line", { class: "even", x1: 0, x2: W, y1: H / 2, y2: H / 2 }));
  for (const k of moments) {
    const mark = svg("circle", { class: `mark ${k.class}`, cx: x(k.ply), cy: y(values[k.ply]), r: 4, "data-ply": k.ply });
    const title = svg("title");
    title.textContent = `${k.label}: ${k.class} (${k.delta})`;
    mark.append(title);
    chart.append(mark);
  }
  const cursor = svg("line", { class: "cursor", x1: 0, x2: 0, y1: 0, y2: H });
  chart.append(cursor);
  chart.addEventListener("click", (e) => {
    const box = chart.getBoundingClientRect();
    const at = Math.round(((e.clientX - box.left) / box.width) * n);
    go(Math.max(0, Math.min(n, at)));
  });
  chart.addEventListener("keydown", (e) => {
    const step = stepFor(e.key, Number(chart.getAttribute("aria-valuenow") || 0), n);
    if (step === null) return;
    e.preventDefault();
    e.stopPropagation();
    go(step);
  });
  return {
    node: chart,
    show(ply) {
      cursor.setAttribute("x1", x(ply));
      cursor.setAttribute("x2", x(ply));
      chart.setAttribute("aria-valuenow", String(ply));
      chart.setAttribute("aria-valuetext", ply ? `${moves[ply - 1].label}, White ${Math.round(values[ply])}%` : "the start");
    },
  };
}

/// The ply an arrow key (or Home, End) goes to from `at`; null for others.
export function stepFor(key, at, n) {
  switch (key) {
    case "ArrowLeft":
    case "ArrowDown":
      return Math.max(0, at - 1);
    case "ArrowRight":
    case "ArrowUp":
      return Math.min(n, at + 1);
    case "Home":
      return 0;
    case "End":
      return n;
    default:
      return null;
  }
}

/// White's chance at every ply from the start; a move not scored keeps the
/// one before it, and the start is even unless the first score says else.
function chances(moves) {
  const first = moves.find((m) => m.white_win != null)?.white_win ?? 50;
  const out = [moves.length && moves[0].white_win == null ? first : 50];
  for (const m of moves) out.push(m.white_win ?? out[out.length - 1]);
  return out;
}
