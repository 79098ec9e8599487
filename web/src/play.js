// A match: the board (chessground), the move list, the odds bar, the chat
// with the persona's mood, and a WebSocket that reconnects by itself and
// catches up from the last event it saw (`?since=`), never twice.

import { Chessground } from "chessground";
import { api, el, me } from "./api.js";
import { emblem, showFace } from "./faces.js";
import { puzzleBoard } from "./puzzles.js";
import { ratingEvent } from "./rating.js";

// Match events the room shows nothing of (the memories page and History
// show what they leave behind). Every kind the server sends is handled in
// `event` or named here: a Rust test (src/events/tests.rs) holds this file
// to the server's event types.
const QUIET_EVENTS = ["memory_saved", "trigger", "reflection"];

export async function play(view, matchId) {
  const state0 = await api("GET", `/api/matches/${matchId}`);
  const personas = await api("GET", "/api/personas");
  const persona = personas.find((p) => p.id === state0.persona_id) || { name: state0.persona_id, id: state0.persona_id };
  const ui = layout(persona);
  view.replaceChildren(ui.root);
  const game = new Match(matchId, persona, ui, state0);
  game.render(state0);
  game.connect();
  return () => game.close();
}

function layout(persona) {
  const boardEl = el("div", { class: "board", "aria-label": "Chess board" });
  const ui = {
    boardEl,
    oddsFill: el("div", { class: "odds-fill" }),
    oddsText: el("span", { class: "odds-text" }),
    moves: el("ol", { class: "moves", "aria-label": "Moves" }),
    status: el("p", { class: "status", role: "status", "aria-live": "polite" }),
    chat: el("ol", { class: "chat", "aria-live": "polite", "aria-label": "Chat" }),
    thinking: el("p", { class: "thinking", hidden: true }, `${persona.name.split(" ")[0]} is thinking…`),
    face: el("span", { class: "face", role: "img" }),
    mood: el("span", { class: "mood" }),
    promotion: el("div", { class: "promotion", hidden: true, role: "dialog", "aria-label": "Promote to" }),
    puzzle: el("div", { class: "puzzle-slot" }),
  };
  ui.chatInput = el("input", { name: "chat", placeholder: "Say something…", maxlength: 1000, "aria-label": "Chat message" });
  ui.moveInput = el("input", { name: "move", placeholder: "e4, Nf3, O-O", maxlength: 12, "aria-label": "Type a move" });
  ui.sendChat = el("button", { type: "submit" }, "Send");
  ui.sendMove = el("button", { type: "submit" }, "Move");
  ui.chatForm = el("form", { class: "say" }, ui.chatInput, ui.sendChat);
  ui.moveForm = el("form", { class: "type-move" }, ui.moveInput, ui.sendMove);
  ui.flip = el("button", { type: "button", class: "flip" }, "Flip board");
  ui.resign = el("button", { type: "button", class: "resign" }, "Resign");
  ui.draw = el("button", { type: "button", class: "draw" }, "Offer draw");
  ui.hint = el("button", { type: "button", class: "hint", title: "The engine's move for you, given by your opponent (counted, and noted in the PGN)" }, "Hint");
  ui.explain = el("button", { type: "button", class: "explain", title: "Why did it play its last move?" }, "Why that move?");
  ui.takeback = el("button", { type: "button", class: "takeback", title: "Ask to take back your last move; your opponent may refuse" }, "Take back");
  ui.quiet = el("button", { type: "button", class: "quiet", "aria-pressed": "false", title: "It only speaks when spoken to, in this game and the next, until you lift it" }, "Quiet");
  ui.chatty = el("button", { type: "button", class: "chatty", "aria-pressed": "false", title: "A remark on every move" }, "Chatty");
  ui.root = el("section", { class: "play" },
    el("div", { class: "board-side" },
      el("div", { class: "odds", "aria-label": "Winning chances" }, ui.oddsFill, ui.oddsText),
      boardEl, ui.promotion,
      el("div", { class: "controls" }, ui.moveForm, ui.flip, ui.draw, ui.resign),
      ui.status),
    el("aside", { class: "side" },
      el("div", { class: "opponent" }, emblem(persona),
        el("div", {}, el("strong", {}, persona.name), el("div", { class: "emotion" }, ui.face, " ", ui.mood))),
      ui.chat, ui.thinking, ui.chatForm, ui.puzzle,
      el("div", { class: "talk-controls", role: "group", "aria-label": "Ask your opponent" }, ui.hint, ui.explain, ui.takeback, ui.quiet, ui.chatty),
      ui.moves));
  return ui;
}

class Match {
  constructor(id, persona, ui, first) {
    this.id = id;
    this.persona = persona;
    this.ui = ui;
    this.lastSeq = 0;
    this.closed = false;
    this.retry = 500;
    this.state = null;
    this.online = false;
    // Start from the match's own position and side, so nothing animates in from the opening.
    this.cg = Chessground(ui.boardEl, {
      fen: first.fen,
      orientation: first.user_color,
      movable: { free: false, showDests: true },
      highlight: { lastMove: true, check: true },
    });
    ui.flip.onclick = () => this.cg.toggleOrientation();
    ui.resign.onclick = () => this.send({ type: "resign" });
    ui.draw.onclick = () => this.send({ type: "draw", action: "offer" });
    ui.hint.onclick = () => { this.send({ type: "hint" }); this.thinking(true); };
    ui.explain.onclick = () => { this.send({ type: "explain" }); this.thinking(true); };
    ui.takeback.onclick = () => { this.send({ type: "takeback" }); this.thinking(true); };
    // Pressed again, a mode is lifted.
    const toggle = (mode) => this.send({ type: "talk", mode: this.state?.talk === mode ? "normal" : mode });
    ui.quiet.onclick = () => toggle("quiet");
    ui.chatty.onclick = () => toggle("chatty");
    ui.chatForm.onsubmit = (e) => {
      e.preventDefault();
      const text = ui.chatInput.value.trim();
      if (!text) return;
      this.send({ type: "chat", text });
      ui.chatInput.value = "";
      this.thinking(true);
    };
    ui.moveForm.onsubmit = (e) => {
      e.preventDefault();
      const mv = ui.moveInput.value.trim();
      if (mv) this.move(mv);
      ui.moveInput.value = "";
    };
    this.connected(false);
  }

  connect() {
    if (this.closed) return;
    const proto = location.protocol === "https:" ? "wss" : "ws";
    // Browsers cannot set headers on a WebSocket: the token rides as a subprotocol.
    const ws = new WebSocket(`${proto}://${location.host}/api/matches/${this.id}/ws?since=${this.lastSeq}`,
      ["kibitz", `bearer.${me().token}`]);
    this.ws = ws;
    ws.onopen = () => {
      this.retry = 500;
      this.connected(true);
    };
    ws.onmessage = (m) => this.frame(JSON.parse(m.data));
    ws.onclose = () => {
      if (this.closed) return;
      this.connected(false);
      this.ui.status.textContent = "Connection lost; reconnecting…";
      setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 8000);
    };
  }

  /** What is sent goes by the socket: until it is open the buttons wait
   *  (a click before then would be lost). */
  connected(on) {
    this.online = on;
    const ui = this.ui;
    for (const b of [ui.sendChat, ui.sendMove, ui.resign, ui.draw, ui.explain, ui.quiet, ui.chatty]) b.disabled = !on;
    if (this.state) this.turnControls(this.state);
  }

  /** The controls that need the player's turn (and a connection). */
  turnControls(s) {
    const ui = this.ui;
    ui.hint.disabled = !this.online || !s.your_turn;
    ui.takeback.disabled = !this.online || !s.your_turn || !s.moves.some((m) => m.side === "user");
  }

  close() {
    this.closed = true;
    this.ws?.close();
    this.cg.destroy();
    this.puzzle?.close();
  }

  /** One of the player's old mistakes, on a board of its own beside the game. */
  offerPuzzle(offer) {
    this.puzzle?.close();
    this.puzzle = puzzleBoard(offer, (move) => {
      this.send({ type: "puzzle", move });
      this.thinking(true);
    });
    this.ui.puzzle.replaceChildren(this.puzzle.node);
  }

  send(cmd) {
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(cmd));
    else this.ui.status.textContent = "Not connected yet; try again in a moment.";
  }

  move(mv) {
    this.thinking(true);
    this.send({ type: "move", move: mv });
  }

  frame(f) {
    if (f.type === "state") return this.render(f.data);
    if (f.type === "error") {
      this.thinking(false);
      this.ui.status.textContent = f.data.message;
      return this.refresh();
    }
    // Passing (seq 0, never stored): the persona's words as the model writes them.
    if (f.type === "draft") return this.draft(f.data || {});
    if (typeof f.seq === "number") {
      if (f.seq <= this.lastSeq) return; // already shown
      this.lastSeq = f.seq;
    }
    this.event(f);
  }

  event(e) {
    if (QUIET_EVENTS.includes(e.type)) return;
    const d = e.data || {};
    switch (e.type) {
      case "message":
        if (d.sender === "persona") this.endDraft();
        this.say(d.sender, d.content, d.tone);
        if (d.sender === "persona") this.thinking(false);
        break;
      case "emotion":
        this.mood(d.emotion);
        break;
      case "rating":
        this.notice(ratingEvent(d));
        break;
      case "familiarity":
        this.notice(d.text);
        break;
      case "talk":
        this.notice(d.text);
        this.refresh();
        break;
      case "hint":
        this.refresh();
        break;
      case "takeback":
        if (d.granted) this.notice(`Taken back: ${d.moves}.`);
        this.refresh();
        break;
      case "puzzle":
        this.offerPuzzle(d);
        break;
      case "puzzle_answer":
        this.puzzle?.verdict(d);
        break;
      case "move":
      case "game_over":
      case "draw_offer":
      case "odds":
        if (e.type === "move" && d.side === "persona") this.thinking(false);
        this.refresh();
        break;
      default:
        break;
    }
  }

  async refresh() {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(async () => this.render(await api("GET", `/api/matches/${this.id}`)), 30);
  }

  render(s) {
    this.state = s;
    const ui = this.ui;
    const last = s.moves[s.moves.length - 1];
    const check = last && /[+#]$/.test(last.san);
    this.cg.set({
      fen: s.fen,
      turnColor: s.turn,
      lastMove: last ? [last.uci.slice(0, 2), last.uci.slice(2, 4)] : undefined,
      check: check ? s.turn : false,
      movable: { color: s.your_turn ? s.user_color : undefined, dests: dests(s), events: { after: (o, d) => this.dropped(o, d) } },
    });
    ui.moves.replaceChildren(...s.moves.map((m, i) => el("li", { class: m.side, "data-ply": i + 1 }, m.san)));
    const odds = [...s.moves].reverse().find((m) => m.odds)?.odds;
    const white = odds ? odds.white : 50;
    ui.oddsFill.style.height = `${white}%`;
    ui.oddsText.textContent = odds ? `White ${white.toFixed(0)}%` : "";
    this.mood(s.emotion);
    ui.quiet.setAttribute("aria-pressed", String(s.talk === "quiet"));
    ui.chatty.setAttribute("aria-pressed", String(s.talk === "chatty"));
    this.turnControls(s);
    ui.hint.textContent = s.hints ? `Hint (${s.hints} used)` : "Hint";
    if (s.termination === "abandoned") {
      ui.status.textContent = "This game was left unfinished: no result, and nothing to reflect on.";
      this.thinking(false);
    } else if (s.status === "finished") {
      ui.status.replaceChildren(`Game over: ${s.result} (${s.termination.replaceAll("_", " ")}). `,
        el("a", { href: `#/history/${s.id}` }, "Review the game"));
      this.thinking(false);
    } else if (s.draw_offer === "persona") {
      ui.status.replaceChildren(`${this.persona.name} offers a draw. `,
        el("button", { type: "button", onclick: () => this.send({ type: "draw", action: "accept" }) }, "Accept"),
        el("button", { type: "button", onclick: () => this.send({ type: "draw", action: "decline" }) }, "Decline"));
    } else {
      ui.status.textContent = s.your_turn ? "Your move." : `${this.persona.name} to move.`;
    }
  }

  dropped(orig, dest) {
    const promo = this.state.legal_moves.filter((m) => m.uci.startsWith(orig + dest) && m.uci.length === 5);
    if (!promo.length) return this.move(orig + dest);
    const ui = this.ui;
    ui.promotion.replaceChildren(el("span", {}, "Promote to:"), ...["q", "r", "b", "n"].map((p) =>
      el("button", { type: "button", "data-piece": p, onclick: () => {
        ui.promotion.hidden = true;
        this.move(orig + dest + p);
      } }, { q: "Queen", r: "Rook", b: "Bishop", n: "Knight" }[p])));
    ui.promotion.hidden = false;
  }

  // A line of the club's own (a rating), not anyone's words.
  notice(text) {
    this.ui.chat.append(el("li", { class: "msg club" }, text));
    this.ui.chat.scrollTop = this.ui.chat.scrollHeight;
  }

  say(sender, content, tone) {
    const who = sender === "persona" ? this.persona.name.split(" ")[0] : "You";
    const item = el("li", { class: `msg ${sender}`, "data-tone": tone || "" }, el("b", {}, `${who}: `), content,
      tone && sender === "persona" ? el("em", { class: "tone" }, ` (${tone})`) : "");
    this.ui.chat.append(item);
    this.ui.chat.scrollTop = this.ui.chat.scrollHeight;
  }

  // The words so far grow in a line of their own; the checked message
  // replaces it, or it goes if nothing was said after all.
  draft(d) {
    if (typeof d.text !== "string") {
      if (!d.spoke) this.endDraft();
      return;
    }
    if (!this.draftText) {
      this.draftText = el("span", {});
      this.draftEl = el("li", { class: "msg persona draft", "aria-busy": "true" },
        el("b", {}, `${this.persona.name.split(" ")[0]}: `), this.draftText);
      this.ui.chat.append(this.draftEl);
      this.thinking(false);
    }
    this.draftText.textContent = `${d.text}…`;
    this.ui.chat.scrollTop = this.ui.chat.scrollHeight;
  }

  endDraft() {
    this.draftEl?.remove();
    this.draftEl = this.draftText = null;
  }

  mood(emotion) {
    if (!emotion) return;
    showFace(this.ui.face, this.persona, emotion);
    this.ui.face.setAttribute("aria-label", emotion);
    this.ui.mood.textContent = emotion.replaceAll("_", " ");
    this.ui.root.setAttribute("data-emotion", emotion);
  }

  thinking(on) {
    this.ui.thinking.hidden = !on;
  }
}

/// Chessground's destinations from the state's legal moves (UCI).
function dests(s) {
  const map = new Map();
  if (!s.your_turn) return map;
  for (const { uci } of s.legal_moves) {
    const from = uci.slice(0, 2);
    const to = uci.slice(2, 4);
    if (!map.has(from)) map.set(from, []);
    if (!map.get(from).includes(to)) map.get(from).push(to);
  }
  return map;
}
