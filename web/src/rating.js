// The player's rating as the page shows it: a line of figures, a chart of
// the rating after each rated game with its deviation as a band, and what a
// game did to it (the `rating` event).

import { el, svg } from "./api.js";

export function figure(n) {
  return Math.round(n).toLocaleString("en-US");
}

export function signed(n) {
  const r = Math.round(n);
  return r > 0 ? `+${figure(r)}` : r < 0 ? `-${figure(-r)}` : "±0";
}

/// "Your rating: 1,340 ± 80 after 12 rated games; +110 since 2026-10-01".
export function ratingLine(r) {
  if (!r.rated_games) return "No rated games yet: everyone starts at 1,500 ± 350.";
  const p = r.progress;
  let text = `Your rating: ${figure(r.rating)} ± ${Math.round(r.deviation)} after ${r.rated_games} rated game${r.rated_games === 1 ? "" : "s"}`;
  if (r.provisional) text += " (provisional)";
  if (p?.change) text += `; ${signed(p.change.points)} since ${p.change.since}`;
  if (p?.personal_best) text += "; a personal best";
  return text;
}

/// What a finished game did, from its `rating` event.
export function ratingEvent(d) {
  if (!d.rated) return `Not rated: ${d.why}.`;
  return `Your rating: ${figure(d.rating)} ± ${Math.round(d.deviation)} (${signed(d.change)}).`;
}

/// The rating after each rated game (a line from the start at 1,500), the
/// deviation as a band around it; null before the first rated game.
export function ratingChart(history) {
  if (!history.length) return null;
  const points = [{ rating: 1500, deviation: 350, played_at: null }, ...history];
  const [w, h, pad] = [600, 200, 36];
  const lows = points.map((p) => p.rating - p.deviation);
  const highs = points.map((p) => p.rating + p.deviation);
  const min = Math.floor(Math.min(...lows) / 100) * 100;
  const max = Math.ceil(Math.max(...highs) / 100) * 100;
  const x = (i) => pad + (i * (w - 2 * pad)) / Math.max(1, points.length - 1);
  const y = (v) => h - pad / 2 - ((v - min) * (h - pad)) / Math.max(1, max - min);
  const band = [...points.map((p, i) => `${x(i)},${y(p.rating + p.deviation)}`),
    ...points.map((p, i) => `${x(i)},${y(p.rating - p.deviation)}`).reverse()].join(" ");
  const line = points.map((p, i) => `${x(i)},${y(p.rating)}`).join(" ");
  const chart = svg("svg", { class: "rating-chart", viewBox: `0 0 ${w} ${h}`, role: "img",
    "aria-label": `Rating after each of ${history.length} rated games, now ${figure(history.at(-1).rating)}` });
  chart.append(svg("polygon", { class: "band", points: band }));
  chart.append(svg("polyline", { class: "line", points: line }));
  for (const v of [min, Math.round((min + max) / 200) * 100, max]) {
    const label = svg("text", { x: 2, y: y(v) + 4, class: "axis" });
    label.textContent = figure(v);
    chart.append(label);
  }
  points.slice(1).forEach((p, i) => {
    const dot = svg("circle", { cx: x(i + 1), cy: y(p.rating), r: 3, class: `dot score-${p.score * 2}` });
    const title = svg("title");
    title.textContent = `${p.played_at.slice(0, 10)} vs ${p.persona_id}: ${figure(p.rating)} ± ${Math.round(p.deviation)}`;
    dot.append(title);
    chart.append(dot);
  });
  return chart;
}

/// The lobby's mark on a persona: a fair game or not, and why.
export function pairingNote(pairing) {
  if (!pairing) return "";
  return el("p", { class: `pairing ${pairing.fair ? "fair" : "unfair"}` },
    el("strong", {}, pairing.fair ? "Fair game" : "Uneven game"), ` · ${pairing.why}`);
}
