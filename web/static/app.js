// senet-pi status page: draws the state the server sends, live over server-sent events.
// No framework, no CDN: this file and style.css are all the page loads.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const COLOURS = { A: "#f4efe1", B: "#2e7d4f", C: "#b03a2a", D: "#2a6fb0" };
const csrf = document.querySelector('meta[name="csrf-token"]').content;
let current = null;
let operatorStatus = { enabled: false, signed_in: false };

function cell(sq) {  // P1: row 2 runs right to left, so 11 sits under 10
  const row = Math.floor((sq - 1) / 10);
  let col = (sq - 1) % 10;
  if (row === 1) col = 9 - col;
  return { x: 10 + col * 60, y: 10 + row * 60 };
}

function el(name, attrs, parent) {
  const node = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

function symbol(g, sq, x, y) {  // small drawings for the special squares
  const s = { stroke: "#8a6d3b", "stroke-width": 2, fill: "none" };
  if (sq === 15) {  // ankh
    el("ellipse", { cx: x + 30, cy: y + 20, rx: 6, ry: 8, ...s }, g);
    el("path", { d: `M${x + 30} ${y + 28} v20 M${x + 20} ${y + 32} h20`, ...s }, g);
  } else if (sq === 26) {
    el("path", { d: `M${x + 18} ${y + 45} v-18 l12 -10 l12 10 v18 z`, ...s }, g);
  } else if (sq === 27) {  // water
    for (const dy of [22, 32, 42]) el("path", { d: `M${x + 14} ${y + dy} q8 -6 16 0 t16 0`, ...s }, g);
  } else if (sq >= 28 && sq <= 30) {
    const n = { 28: 3, 29: 2, 30: 1 }[sq];
    for (let i = 0; i < n; i++) el("line", { x1: x + 30 + (i - (n - 1) / 2) * 9, y1: y + 22, x2: x + 30 + (i - (n - 1) / 2) * 9, y2: y + 44, ...s }, g);
  } else if (sq === 1) {  // the sun (modern)
    el("circle", { cx: x + 30, cy: y + 32, r: 9, ...s }, g);
  }
}

function drawBoard(svg, state, opts) {
  opts = opts || {};
  svg.textContent = "";
  const occupied = opts.occupied;  // when set: draw switches, not pieces
  const warning = state.warning || {};
  const missing = new Set(warning.missing || []), extra = new Set(warning.extra || []);
  for (let sq = 1; sq <= 30; sq++) {
    const { x, y } = cell(sq);
    const g = el("g", { class: "square", "data-square": sq }, svg);
    const special = state.special[String(sq)];
    let cls = "cell" + (special ? " special" : "");
    if (!opts.plain && state.prompt && state.prompt.to === sq) cls += " prompt-to";
    if (!opts.plain && state.prompt && state.prompt.from === sq) cls += " prompt-from";
    if (!opts.plain && missing.has(sq)) cls += " missing";
    if (!opts.plain && extra.has(sq)) cls += " extra";
    el("rect", { x, y, width: 58, height: 58, rx: 4, class: cls }, g);
    if (special) { el("title", {}, g).textContent = `${sq}: ${special}`; if (!occupied) symbol(g, sq, x, y); }
    el("text", { x: x + 4, y: y + 13, class: "num" }, g).textContent = sq;
    if (occupied) {
      if (occupied.includes(sq)) el("circle", { cx: x + 29, cy: y + 32, r: 16, class: "switch-on" }, g);
      continue;
    }
    const piece = state.squares[String(sq)];
    if (piece) {
      el("circle", { cx: x + 29, cy: y + 32, r: 19, fill: COLOURS[piece.owner], class: "piece owner-" + piece.owner }, g);
      const label = piece.dots ? String(piece.dots) : piece.owner;
      el("text", { x: x + 29, y: y + 38, class: "piece-label" + (piece.owner === "A" ? " dark" : "") }, g).textContent = label;
    }
    if (opts.onclick) g.addEventListener("click", () => opts.onclick(sq));
  }
}

function drawSticks(svg, state, lit) {
  svg.textContent = "";
  const value = state ? state.throw ?? state.last_throw : null;
  if (Array.isArray(value)) {  // dice
    value.forEach((d, i) => {
      el("rect", { x: 10 + i * 55, y: 15, width: 45, height: 45, rx: 8, class: "die" }, svg);
      el("text", { x: 32 + i * 55, y: 47, class: "die-text" }, svg).textContent = d;
    });
    return;
  }
  let on = lit;
  if (!on) {
    const zero = state && state.throws.zero;
    const n = value == null ? 0 : (value === zero ? 0 : value);
    on = [0, 1, 2, 3].map((i) => i < n);
  }
  on.forEach((v, i) => el("rect", { x: 8 + i * 28, y: 8, width: 20, height: 64, rx: 6, class: v ? "stick lit" : "stick" }, svg));
}

function text(id, value) { document.getElementById(id).textContent = value; }

function render(state) {
  current = state;
  if (state.sim && !state.in_progress) pieces = state.backend.switches;
  if (!document.getElementById("board")) return renderHardware(state);
  const name = (p) => `${p} (${state.names[p]})`;
  let turn = `${state.variant}: ${name(state.to_move)} to ` + (state.throw == null ? "throw" : "move");
  if (state.winner) turn = `${state.variant}: ${name(state.winner)} has won`;
  text("turn", turn);
  let message = "", kind = "info";
  if (state.question) { message = state.question.text; kind = "question"; }
  else if (state.warning) { message = state.warning.reason; kind = "warning"; }
  else if (state.prompt) { message = state.prompt.text; kind = "prompt"; }
  else if (state.winner) { message = `${name(state.winner)} wins` + (state.scores ? ` ${JSON.stringify(state.scores)}` : ""); kind = "win"; }
  else if (state.in_progress) { message = "move in progress"; }
  else if (typeof state.throw === "string") { message = `${name(state.to_move)}: move a piece to ${state.throw.slice(1)}`; }
  else if (state.throw != null) { message = `${name(state.to_move)}: move a piece by ${state.throw}`; }
  else if (state.cards) { message = `${name(state.to_move)}: play a card`; }
  else { message = `${name(state.to_move)}: throw the sticks`; }
  const stuck = Object.entries(state.switch_faults || {});
  if (stuck.length) {
    message = stuck.map(([sq, fault]) => `the switch under ${sq} seems ${fault}`).join("; ") + ` | ${message}`;
  }
  if (state.journal) { message = `${state.journal} | ${message}`; kind = "warning"; }
  const box = document.getElementById("message");
  box.textContent = message;
  box.className = "message " + kind;
  const fixes = document.getElementById("fixes");
  fixes.textContent = state.warning && state.warning.fix ? "to put it right: " + state.warning.fix.join("; ") : "";
  const q = document.getElementById("question");
  q.textContent = "";
  if (state.question) {
    state.question.options.forEach((opt, i) => {
      const b = document.createElement("button");
      b.textContent = opt;
      b.addEventListener("click", () => op("answer", { answer: i }));
      q.appendChild(b);
    });
  }
  drawBoard(document.getElementById("board"), state, { onclick: state.sim ? simClick : null });
  const compare = document.getElementById("compare");
  compare.hidden = !state.warning;
  if (state.warning) {
    drawBoard(document.getElementById("sensed"), state, { occupied: state.sensed });
    drawBoard(document.getElementById("expected"), state, { occupied: state.expected });
  }
  drawSticks(document.getElementById("sticks"), state);
  const shown = state.throw ?? state.last_throw;
  text("throw-text", shown == null ? "no throw yet" : (state.throw == null ? "last throw: " : "throw: ") + shown);
  document.getElementById("press").hidden = !state.sim;
  text("offboard", state.players.map((p) => `${name(p)}: ${state.off[p]} off`).join(" · "));
  const history = document.getElementById("history");
  history.textContent = "";
  for (const v of state.history) {
    const li = document.createElement("li");
    if (v.v === "move") li.textContent = `${v.player} ${v.from}-${v.to}` + (v.effects ? " (" + v.effects.map((e) => e.kind).join(", ") + ")" : "");
    else if (v.v === "forfeit") li.textContent = v.reason;
    else li.textContent = v.v.replace("_", " ") + (v.player ? " " + v.player : "");
    history.appendChild(li);
  }
  const table = document.getElementById("card-table");
  table.hidden = !state.cards;
  if (state.cards) {
    const c = state.cards;
    const hands = c.hands ? state.players.map((p) => `${p}: ${c.hands[p].join(" ")}`).join(" | ")
      : state.players.map((p) => `${p}: ${c.counts[p]} cards`).join(" | ");
    table.textContent = `stack ${c.stack} · discard ${c.discard.join(" ") || "-"} · out ${c.dead} · ${hands}`;
  }
  text("rules", state.rules.summary);
  if (state.operator) operatorStatus = state.operator;  // the live stream leaves it out: keep ours
  const opState = operatorStatus;
  text("op-state", !opState.enabled ? "Operator actions are disabled: set a PIN with senet-pi set-pin."
    : opState.signed_in ? "Signed in as operator." : "Sign in with the operator PIN.");
  document.getElementById("login").hidden = !opState.enabled || opState.signed_in;
  document.getElementById("op-actions").hidden = !opState.signed_in;
}

function renderHardware(state) {
  if (!document.getElementById("switches")) return;  // a page without a board (/hands): only the live link
  drawBoard(document.getElementById("switches"), state, { occupied: state.backend.switches || [], plain: true });
  drawSticks(document.getElementById("leds"), null, state.backend.leds && state.backend.leds.length ? state.backend.leds : [false, false, false, false]);
  const faults = document.getElementById("faults");
  faults.textContent = "";
  const list = state.backend.faults && state.backend.faults.length ? state.backend.faults : ["none"];
  for (const f of list) { const li = document.createElement("li"); li.textContent = f; faults.appendChild(li); }
  const b = state.backend;
  let about = `backend: ${b.backend}`;
  if (b.connected !== undefined) {  // the USB bridge's link health
    about += b.connected ? ` · connected, firmware ${b.firmware}, board ${b.board}` : " · not connected";
    about += ` · frames dropped ${b.dropped} · reconnects ${b.reconnects}`;
  }
  text("backend", about);
}

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST", headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body || {}), credentials: "same-origin",
  });
  let data = {};
  try { data = await response.json(); } catch (e) { /* not JSON */ }
  return { ok: response.ok, status: response.status, data };
}

let pieces = null;  // the simulated board's magnets as the server last said: the next click lifts or places

async function simClick(sq) {
  const known = pieces || (current && current.backend.switches) || [];
  const action = known.includes(sq) ? "lift" : "place";
  const result = await post(`/api/sim/${action}`, { square: sq });
  if (result.ok) pieces = result.data.pieces;
  else { pieces = null; text("op-error", result.data.error || "the board did not take that"); }
}

async function op(action, body) {
  const result = await post(`/api/op/${action}`, body);
  text("op-error", result.ok ? "" : (result.data.error || (result.data.verdicts || []).filter((v) => v.v === "illegal").map((v) => v.reason).join("; ")));
  if (result.data.state) render(result.data.state);
}

function wire() {
  const press = document.getElementById("press");
  if (press) press.addEventListener("click", () => post("/api/sim/press"));
  const login = document.getElementById("login");
  if (!login) return;
  login.addEventListener("submit", async (e) => {
    e.preventDefault();
    const result = await post("/api/op/login", { pin: document.getElementById("pin").value });
    text("op-error", result.ok ? "" : result.data.error || `the server answered ${result.status}`);
    document.getElementById("pin").value = "";
    refresh();
  });
  document.querySelectorAll("[data-op]").forEach((b) => b.addEventListener("click", () => op(b.dataset.op)));
  document.getElementById("op-throw").addEventListener("submit", (e) => {
    e.preventDefault();
    const parts = e.target.value.value.trim().split(/[\s,]+/).map(Number);
    op("throw", { value: parts.length > 1 || (current && current.variant === "modern") ? parts : parts[0] });
  });
  document.getElementById("op-move").addEventListener("submit", (e) => {
    e.preventDefault();
    const to = e.target.to.value.trim().toLowerCase();
    op("move", { from: Number(e.target.from.value), to: to === "off" ? "off" : Number(to) });
  });
  document.getElementById("op-new").addEventListener("submit", (e) => {
    e.preventDefault();
    op("new_game", { variant: e.target.variant.value, players: Number(e.target.players.value) });
  });
}

async function refresh() {
  const response = await fetch("/api/state", { credentials: "same-origin" });
  if (response.ok) render(await response.json());
}

function connect() {  // EventSource reconnects by itself; the server sends the state on every (re)connect
  const link = document.getElementById("link");
  const source = new EventSource("/api/events");
  source.addEventListener("state", (e) => { link.textContent = "live"; link.className = "link live"; render(JSON.parse(e.data)); });
  source.onerror = () => { link.textContent = "reconnecting..."; link.className = "link down"; };
}

// ---------------------------------------------------------------- a player's hand (the card game)
const handBox = document.getElementById("hand");
let chosen = [];
let handAsked = 0;  // refreshes overlap (a live event, a click): only the latest asked may draw the hand

async function refreshHand() {
  const base = `/api/hand/${handBox.dataset.player}/${handBox.dataset.token}`;
  const asked = ++handAsked;
  const response = await fetch(base);
  // An older answer arriving last would draw a stale hand (no playable card on your turn) that
  // nothing redraws until the next event: drop every answer but the latest asked.
  if (asked !== handAsked) return;
  if (!response.ok) { text("hand-error", "this link is not for the game on the board"); return; }
  const hand = await response.json();
  if (asked !== handAsked) return;
  text("hand-turn", hand.winner ? `${hand.winner} has won` : hand.your_turn ? "your turn: play a card or exchange"
    : hand.residue ? "move another pawn with the rest, or say no more moves"
    : hand.moving ? "now move your pawn on the board" : `${hand.to_move} to play`);
  const box = document.getElementById("cards");
  box.textContent = "";
  chosen = chosen.filter((i) => i < hand.cards.length);
  hand.cards.forEach((card, i) => {
    const b = document.createElement("button");
    b.className = "card" + (hand.playable.includes(card) ? " playable" : "") + (chosen.includes(i) ? " chosen" : "");
    b.textContent = card;
    b.dataset.card = card;
    b.addEventListener("click", () => { chosen = chosen.includes(i) ? chosen.filter((x) => x !== i) : [...chosen, i].slice(-2); refreshHand(); });
    box.appendChild(b);
  });
  document.getElementById("play").disabled = !(hand.your_turn && chosen.length === 1 && hand.playable.includes(hand.cards[chosen[0]]));
  document.getElementById("exchange").disabled = !(hand.your_turn && chosen.length >= 1);
  document.getElementById("pass").hidden = !hand.residue;
  box.dataset.cards = JSON.stringify(hand.cards);
}

async function handAction(action, body) {
  const base = `/api/hand/${handBox.dataset.player}/${handBox.dataset.token}`;
  const result = await post(`${base}/${action}`, body);
  text("hand-error", result.ok ? "" : (result.data.error || (result.data.verdicts || []).filter((v) => v.v === "illegal").map((v) => v.reason).join("; ")));
  chosen = [];
  refreshHand();
}

if (handBox) {
  const cardsOf = () => JSON.parse(document.getElementById("cards").dataset.cards || "[]");
  document.getElementById("play").addEventListener("click", () => handAction("play", { card: cardsOf()[chosen[0]] }));
  document.getElementById("exchange").addEventListener("click", () => handAction("exchange", { cards: chosen.map((i) => cardsOf()[i]) }));
  document.getElementById("pass").addEventListener("click", () => handAction("pass"));
  refreshHand();
  const source = new EventSource("/api/events");
  source.addEventListener("state", () => { document.getElementById("link").textContent = "live"; refreshHand(); });
} else {
  wire();
  refresh();
  connect();
}
