// What a persona remembers about me: search, filters, provenance and why it
// was recalled, edit, delete, pin, never recall, export; and my old
// mistakes kept as puzzles, which I may dismiss.

import { api, el, me } from "./api.js";
import { puzzleList } from "./puzzles.js";

const TYPES = ["player_behavior", "player_observation", "game_context", "personal_note", "streak", "pattern", "emotional"];

export async function memories(view) {
  const player = me();
  const personas = await api("GET", "/api/personas");
  const persona = el("select", { name: "persona", "aria-label": "Persona" }, el("option", { value: "" }, "Every persona"),
    ...personas.map((p) => el("option", { value: p.id }, p.name)));
  const type = el("select", { name: "type", "aria-label": "Type" }, el("option", { value: "" }, "Every type"),
    ...TYPES.map((t) => el("option", { value: t }, t.replaceAll("_", " "))));
  const q = el("input", { type: "search", name: "q", placeholder: "Search by meaning…", "aria-label": "Search memories" });
  const list = el("ul", { class: "memory-list" });
  const base = `/api/players/${player.id}/memories`;

  async function load() {
    let items;
    if (q.value.trim()) {
      const found = await api("GET", `${base}/search?q=${encodeURIComponent(q.value.trim())}&limit=50`);
      items = found.map((r) => r.memory);
    } else {
      const params = new URLSearchParams();
      if (persona.value) params.set("persona", persona.value);
      if (type.value) params.set("type", type.value);
      items = await api("GET", `${base}?${params}`);
    }
    items = items.filter((m) => (!persona.value || m.persona_id === persona.value) && (!type.value || m.memory_type === type.value));
    list.replaceChildren(...(items.length ? items.map((m) => item(m, load)) : [el("li", { class: "empty" }, "Nothing remembered here.")]));
    await loadPuzzles();
  }

  // Their old mistakes, kept as puzzles; one dismissed is never offered again.
  const puzzles = el("div", { class: "memory-puzzles" });
  const personaName = (id) => personas.find((p) => p.id === id)?.name || id;
  async function loadPuzzles() {
    const query = persona.value ? `?persona=${encodeURIComponent(persona.value)}` : "";
    const all = await api("GET", `/api/players/${player.id}/puzzles${query}`);
    puzzles.replaceChildren(puzzleList(all, loadPuzzles, personaName));
  }

  const exportButton = el("button", { type: "button", onclick: async () => {
    const data = await api("GET", `${base}/export`);
    const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: "application/json" }));
    Object.assign(el("a", { href: url, download: `kibitz-memories-${player.id}.json` })).click();
    URL.revokeObjectURL(url);
  } }, "Export all");
  const filters = el("form", { class: "filters", onsubmit: (e) => { e.preventDefault(); load(); } },
    q, persona, type, el("button", { type: "submit" }, "Show"), exportButton);
  persona.onchange = load;
  type.onchange = load;
  view.replaceChildren(el("section", { class: "memories" }, el("h1", {}, "What the club remembers about you"), filters, list,
    el("h2", {}, "Your mistakes, kept as puzzles"), puzzles));
  await load();
}

function item(m, reload) {
  const why = el("div", { class: "provenance", hidden: true });
  const patch = async (body) => {
    await api("PATCH", `/api/memories/${m.id}`, body);
    reload();
  };
  const details = async () => {
    if (!why.hidden) return (why.hidden = true);
    const p = await api("GET", `/api/memories/${m.id}`);
    const made = `Made by ${p.memory.created_by.replaceAll("_", " ")} on ${p.memory.created_at.slice(0, 10)}`;
    // Earlier texts, kept when it was edited; deleting forgets them too.
    const versions = (p.versions || []).map((v) => el("li", { class: "version" }, `until ${v.replaced_at.slice(0, 16).replace("T", " ")}: ${v.content}`));
    why.replaceChildren(el("p", {}, made),
      ...(versions.length ? [el("p", {}, "Earlier versions:"), el("ul", { class: "versions" }, ...versions), el("p", {}, "Recalled:")] : []),
      el("ul", {}, ...(p.recalls.length ? p.recalls.map((r) => el("li", {}, `${r.recalled_at?.slice(0, 16) || ""} ${r.trigger}: ${r.reason}`))
        : [el("li", {}, "Never recalled yet.")])));
    why.hidden = false;
  };
  const actions = el("div", { class: "actions" },
    el("button", { type: "button", onclick: details }, "Why?"),
    el("button", { type: "button", onclick: () => {
      const text = prompt("Edit this memory", m.content);
      if (text && text.trim() && text !== m.content) patch({ content: text.trim() });
    } }, "Edit"),
    el("button", { type: "button", "aria-pressed": String(m.pinned), onclick: () => patch({ pinned: !m.pinned }) }, m.pinned ? "Unpin" : "Pin"),
    el("button", { type: "button", "aria-pressed": String(m.never_recall), onclick: () => patch({ never_recall: !m.never_recall }) },
      m.never_recall ? "Allow recall" : "Never recall"),
    el("button", { type: "button", class: "delete", onclick: async () => {
      if (!confirm("Forget this for good?")) return;
      await api("DELETE", `/api/memories/${m.id}`);
      reload();
    } }, "Delete"));
  return el("li", { class: "memory", "data-id": m.id },
    el("p", { class: "content" }, m.content),
    el("p", { class: "meta" }, `${m.memory_type.replaceAll("_", " ")} · ${m.persona_id} · ${m.created_at.slice(0, 10)}`,
      m.pinned ? " · pinned" : "", m.never_recall ? " · never recalled" : ""),
    tagLine(m.tags || []), actions, why);
}

// The concepts a memory is recalled by ("fork", "rook endgame", "Italian Game").
function tagLine(tags) {
  if (!tags.length) return el("p", { class: "tags", hidden: true });
  const label = (t) => t.replace(/^opening:/, "").replaceAll(/[-_]/g, " ");
  return el("p", { class: "tags", "aria-label": "recalled by" }, ...tags.map((t) => el("span", { class: "tag" }, label(t))));
}
