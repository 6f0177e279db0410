// senet-pi status page: draws the state the server sends, live over server-sent events.
// No framework, no CDN: this file and style.css are all the page loads.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const csrf = document.querySelector('meta[name="csrf-token"]').content;
let current = null;
let operatorStatus = { enabled: false, signed_in: false };
let rulings = {};  // ruling id -> one plain sentence (GET /api/rulings, fetched once)
let refusal = "";  // the last refused throw or move, until the game goes on
let animated = -1;  // the history length whose last move was last animated
let saidFix = "";  // the fix last announced: each is said once, not at every state update
let thrown = null;  // the throw whose sticks last fell: they fall once per throw
let sideLater = true;  // the page's first draw: the board first, the side panel a moment later
const prefs = { hints: localStorage.getItem("senet-hints") !== "off", theme: localStorage.getItem("senet-theme") || "",
  speak: localStorage.getItem("senet-speak") === "on" };  // Web Speech on this phone: off unless asked

// The page's language: its catalogue is embedded in the page (<script id="texts">, from the server's
// .po files); `_("{player} to move", { player: p })` says a sentence in it, English where it has none.
// Babel's JavaScript extractor finds every `_("...")` (scripts/translations).
const LANG = document.documentElement.lang || "en";  // the server chose it: ?lang=, cookie, config
const TEXTS = JSON.parse((document.getElementById("texts") || {}).textContent || "{}");
function _(msgid, params) {
  const template = TEXTS[msgid] || msgid;
  return template.replace(/\{(\w+)\}/g, (whole, key) => (params && key in params ? String(params[key]) : whole));
}

// Every visitor-facing sentence the script writes, in one place.
// The sticks' counted side, whole sentences each (a side's word changes with its sentence in German).
const COUNTED = {
  dark: [_("{n} dark side up"), _("{n} dark sides up"), _("no dark side up counts {value}")],
  white: [_("{n} white side up"), _("{n} white sides up"), _("no white side up counts {value}")],
};
const TEXT = {
  turnThrow: (p) => _("{player} to throw", { player: p }), turnMove: (p) => _("{player} to move", { player: p }),
  won: (p) => _("{player} has won", { player: p }),
  wins: (p) => _("{player} wins", { player: p }), inProgress: _("move in progress"),
  moveTo: (p, sq) => _("{player}: move a piece to {square}", { player: p, square: sq }),
  moveBy: (p, n) => _("{player}: move a piece by {n}", { player: p, n }),
  stuck: (sq, fault) => _("the switch under {square} seems {fault}", { square: sq, fault }),  // fault: said by the server
  fix: _("to put it right: "), noThrow: _("no throw yet"), lastThrow: _("last throw: "), throwNow: _("throw: "),
  counted: (n, side) => _((COUNTED[side] || COUNTED.dark)[n === 1 ? 0 : 1], { n }),
  noneCounted: (side, v) => _((COUNTED[side] || COUNTED.dark)[2], { value: v }),
  off: (p, n) => _("{player}: {n} off", { player: p, n }),
  inHand: (p, sq) => _("{player}'s piece from {square} is in the hand", { player: p, square: sq }),
  mayGo: (list) => _(" — it may go to {squares}", { squares: list }), nowhere: _(" — it cannot move with this throw: put it back"),
  movable: _("pieces that may move"), hintsOn: _("hide the hints"), hintsOff: _("show the hints"),
  speakOn: _("stop speaking"), speakOff: _("speak aloud"),
  refused: _("not taken: "), themeDark: _("dark theme"), themeLight: _("light theme"),
  signedIn: _("Signed in as operator."), signIn: _("Sign in with the operator PIN."),
  boardRefused: _("the board did not take that"), noPieces: _("no pieces"),
  sticksLabel: (v, extra) => (extra ? _("the last throw: {value} ({extra})", { value: v, extra }) : _("the last throw: {value}", { value: v })),
  pieceLabel: (p, sq) => _("square {square}: {player}'s piece", { square: sq, player: p }),
  squareLabel: (sq, special) => (special ? _("square {square}: {special}", { square: sq, special }) : _("square {square}", { square: sq })),
  cast: (p, pieces) => _("{player} plays {pieces}", { player: p, pieces }),
  why: _("why?"), playAgain: _("To play again, set the pieces out as at the start."),
  score: (list) => _("Score: {score}.", { score: list }), winBanner: (p) => _("{player} has won!", { player: p }),
  setupTitle: _("set the board for the next game"),
  throws: (p, v) => _("{player} throws {value}", { player: p, value: v }),
  stack: (n) => _("stack: {n}", { n }), discard: _("discarded"), dead: (n) => _("out of the game: {n}", { n }),
  cardsHeld: (p, n) => _("{player}: {n} cards", { player: p, n }), yourPieces: (pieces) => _("you play {pieces}", { pieces }),
  live: _("live"), reconnecting: _("reconnecting..."),
  notThisGame: _("this link is not for the game on the board"),
  handWon: (p) => _("{player} has won", { player: p }), yourTurn: _("your turn: play a card or exchange"),
  residue: _("move another pawn with the rest, or say no more moves"), moving: _("now move your pawn on the board"),
  toPlay: (p) => _("{player} to play", { player: p }),
  history: { new_game: _("new game"), undone: _("move taken back:"), resync: _("the board as it is was taken") },
  setupLeft: (n) => _("({n} to fix before playing)", { n }),
  throwsAgain: (p) => _("{player} throws again", { player: p }), bonusWhy: (n) => _("a {n} throws again", { n }),
  bonusSquare: (sq) => _("square {square} throws again", { square: sq }),
  moveByDice: (p, dice) => _("{player}: move by {dice}, one die at a time", { player: p, dice }),
  pressThrow: _("throw"), pressButton: _("the thrower's button"),
  cardSquare: (sq) => _("square {square}", { square: sq }), cardNile: _("the Nile"), cardHand: _("the hand"),
  answerTurn: _("answer the question below"), fixTurn: _("put the board right first"),
  promptTurn: (p) => _("{player}: finish the move the rules make", { player: p }),
  answers: _("the answers"), answersAre: (list) => _("Tap an answer: {answers}.", { answers: list }),
  willTake: (n, option) => _("If nobody answers in {seconds} s, the referee takes “{answer}”.", { seconds: n, answer: option }),
  assumed: (n, option) => _("Nobody answered in {seconds} s, so the referee took “{answer}”.", { seconds: n, answer: option }),
  changeIt: _("Not so? Tap the right answer now, before anything else is done."),
  historyOut: (n) => _("History out of service: the damaged journal {name} is set aside and its games are not back yet; the statistics leave them out until they are (senet-pi status says more).", { name: n }),
};

// A phone held upright draws the board standing: its three rows as columns, so every square is a
// finger's size (44 px and more) where ten across a phone's width would be 35 px. Set while a board
// is drawn or its keys are read; every other board (the small ones, the demo) lies as on the table.
let upright = false;
const UPRIGHT = "(max-width: 560px) and (orientation: portrait)";

function cell(sq) {  // P1: row 2 runs right to left, so 11 sits under 10 (beside it, standing)
  const row = Math.floor((sq - 1) / 10);
  let col = (sq - 1) % 10;
  if (row === 1) col = 9 - col;
  return upright ? { x: 10 + row * 60, y: 10 + col * 60 } : { x: 10 + col * 60, y: 10 + row * 60 };
}

function centre(sq) {
  if (sq === "off" || sq === 31) return upright ? { x: 160, y: 615 } : { x: 615, y: 160 };  // just past 30
  const { x, y } = cell(sq);
  return { x: x + 29, y: y + 29 };
}

function el(name, attrs, parent) {
  const node = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// The light under a square, as the strip shows it (senet_pi/service/lights.py): its kind's colour
// and pattern, a "from" square also dashed, so neither colour nor motion is the only cue.
function glow(layer, kind, sq, x, y, looks) {
  const look = (looks || {})[kind] || {};
  const r = el("rect", { x: x + 4, y: y + 4, width: 50, height: 50, rx: 6, class: `glow pattern-${look.pattern || "steady"}`,
    stroke: look.colour || "#0072B2", "data-light": kind, "data-square": sq }, layer);
  if (kind.endsWith("_from")) r.classList.add("from");
  r.style.animationDelay = look.pattern === "alternate" ? `${(sq % 2) * -0.4}s` : look.pattern === "wave" ? `${(sq - 1) * 0.15}s`
    : look.pattern === "chase" ? `${(sq - 1) * 0.125}s` : "0s";
  return r;
}

function symbol(g, key, x, y) {  // the traditional signs, drawn with a few strokes each
  const s = { class: "glyph" };
  const cx = x + 29;
  if (key === "ankh") {
    el("ellipse", { cx, cy: y + 22, rx: 6, ry: 8, ...s }, g);
    el("path", { d: `M${cx} ${y + 30} v22 M${cx - 10} ${y + 34} h20`, ...s }, g);
  } else if (key === "water") {
    for (const dy of [24, 34, 44]) el("path", { d: `M${x + 12} ${y + dy} l6 -5 l6 5 l6 -5 l6 5 l6 -5 l6 5`, ...s }, g);
  } else if (key === "bird") {  // a ba-bird: body, head, tail
    el("path", { d: `M${x + 14} ${y + 44} q10 -16 26 -12 q6 -8 10 -2 l-6 4 q-2 14 -18 14 z`, ...s }, g);
  } else if (key === "eye") {  // the eye of Ra
    el("path", { d: `M${x + 12} ${y + 32} q17 -16 34 0 q-17 12 -34 0 z`, ...s }, g);
    el("circle", { cx, cy: y + 31, r: 4, class: "glyph fill" }, g);
    el("path", { d: `M${cx - 4} ${y + 38} l-4 12 M${cx + 6} ${y + 38} q6 10 12 6`, ...s }, g);
  } else if (key === "three" || key === "two" || key === "one") {
    const n = { three: 3, two: 2, one: 1 }[key];
    for (let i = 0; i < n; i++) {
      const lx = cx + (i - (n - 1) / 2) * 10;
      el("line", { x1: lx, y1: y + 22, x2: lx, y2: y + 46, ...s }, g);
    }
  } else if (key === "sun") {
    el("circle", { cx, cy: y + 33, r: 8, ...s }, g);
    for (let a = 0; a < 8; a++) {
      const r = (a * Math.PI) / 4;
      el("line", { x1: cx + 12 * Math.cos(r), y1: y + 33 + 12 * Math.sin(r), x2: cx + 17 * Math.cos(r), y2: y + 33 + 17 * Math.sin(r), ...s }, g);
    }
  } else if (key === "moon") {
    el("path", { d: `M${cx + 4} ${y + 20} a13 13 0 1 0 0 26 a10 10 0 1 1 0 -26 z`, ...s }, g);
  } else if (key === "safe") {  // a safe tile: a square within the square
    el("rect", { x: x + 17, y: y + 21, width: 26, height: 26, rx: 4, ...s }, g);
    el("rect", { x: x + 23, y: y + 27, width: 14, height: 14, rx: 2, ...s }, g);
  } else {  // "nefer" and anything new: the nefer sign, "good, beautiful"
    el("circle", { cx, cy: y + 38, r: 8, ...s }, g);
    el("path", { d: `M${cx} ${y + 30} v-14 M${cx - 6} ${y + 22} h12`, ...s }, g);
  }
}

function piece(g, owner, x, y, cls) {  // A: a cone, B: a spool, as on the old boards; C and D likewise
  const cx = x + 31, base = y + 52;
  const p = el("g", { class: `piece owner-${owner}${cls ? " " + cls : ""}` }, g);
  if (owner === "A" || owner === "C") {
    el("path", { d: `M${cx - 15} ${base} L${cx - 5} ${base - 36} Q${cx} ${base - 42} ${cx + 5} ${base - 36} L${cx + 15} ${base} Q${cx} ${base + 5} ${cx - 15} ${base} z`, class: "body" }, p);
  } else {
    el("path", { d: `M${cx - 15} ${base - 38} h30 v6 q-9 4 -9 13 q0 9 9 13 v6 h-30 v-6 q9 -4 9 -13 q0 -9 -9 -13 z`, class: "body" }, p);
  }
  return p;
}

function defs(svg) {
  const d = el("defs", {}, svg);
  for (const kind of ["move", "rule", "path"]) {
    const m = el("marker", { id: `${svg.id}-arrow-${kind}`, viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 5, markerHeight: 5, orient: "auto-start-reverse" }, d);
    el("path", { d: "M0 0 L10 5 L0 10 z", class: `arrowhead ${kind}` }, m);
  }
}

function pathLine(svg) {  // P1: the S-path the pieces follow, through the squares' middles, under the pieces
  const pts = [];
  for (let sq = 1; sq <= 30; sq++) { const c = centre(sq); pts.push(`${c.x},${c.y + 14}`); }
  el("polyline", { points: pts.join(" "), class: "s-path", "marker-end": `url(#${svg.ownerSVGElement.id}-arrow-path)` }, svg);
}

function arrow(svg, from, to, kind) {  // bent to its left, so a move and the exchange it caused never overlap
  const a = centre(from), b = centre(to);
  const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
  const mx = (a.x + b.x) / 2 + (dy / len) * 16, my = (a.y + b.y) / 2 - (dx / len) * 16;
  el("path", { d: `M${a.x} ${a.y} Q${mx} ${my} ${b.x} ${b.y}`, class: `arrow ${kind}`, "marker-end": `url(#${svg.ownerSVGElement.id}-arrow-${kind})`, "data-from": from, "data-to": to }, svg);
}

function lastMove(state) {  // the last move of the history and what the rules did by themselves
  const h = state.history;
  return h.length && h[h.length - 1].v === "move" ? h[h.length - 1] : null;
}

function squaresLayer(svg) {
  // The squares, made once per board drawing and kept: from one piece of markup (30 squares by hand
  // were a fifth of the first draw on a slow CPU), with one set of listeners for them all. The
  // board the server drew in the page (painted before this script ran) is replaced by them.
  let under = svg.querySelector(":scope > g.squares");
  if (under) return under;
  svg.textContent = "";
  defs(svg);
  let markup = "";
  for (let sq = 1; sq <= 30; sq++) {
    const { x, y } = cell(sq);
    markup += `<g class="square" data-square="${sq}"><rect x="${x}" y="${y}" width="58" height="58" rx="5" class="cell"/><title></title><g class="sym"></g></g>`;
  }
  under = el("g", { class: "squares" }, svg);
  under.innerHTML = markup;  // parsed as SVG: the markup's context is an SVG element
  // The square numbers never change: one layer on top of everything (the layers between are redrawn)
  el("g", { class: "numbers" }, svg).innerHTML = Array.from({ length: 30 }, (_x, i) => {
    const { x, y } = cell(i + 1);
    return `<text x="${x + 4}" y="${y + 17}" class="num">${i + 1}</text>`;
  }).join("");
  const squareOf = (e) => { const g = e.target.closest("g.square"); return g ? Number(g.dataset.square) : 0; };
  // No focus listener: Chromium makes an SVG group with one focusable itself (a Tab stop on nothing)
  under.addEventListener("click", (e) => { const sq = squareOf(e); if (sq) svg.dataset.focus = sq; if (sq && svg.onSquare) svg.onSquare(sq); });
  under.addEventListener("keydown", (e) => {
    const sq = squareOf(e);
    if (!sq) return;
    if (svg.onSquare && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); svg.onSquare(sq); }
    upright = svg.dataset.upright === "1";
    const next = neighbour(sq, e.key);
    upright = false;
    if (next) { e.preventDefault(); focusSquare(svg, next); }
  });
  return under;
}

function drawBoard(svg, state, opts) {
  // Layers, bottom to top: the squares (they take the clicks), the S-path and the arrows, then the
  // pieces and the numbers, which never take a click (a click on a piece is a click on its square).
  // The squares are made once and kept: a live update arriving between a visitor's mousedown and
  // mouseup must not replace the square under the pointer (the click would be lost).
  opts = opts || {};
  const standing = svg.id === "board" && matchMedia(UPRIGHT).matches;
  if ((svg.dataset.upright === "1") !== standing) {  // turned: the squares are made again, the other way
    svg.textContent = "";
    svg.dataset.upright = standing ? "1" : "";
    svg.setAttribute("viewBox", standing ? "0 0 200 620" : "0 0 620 200");
  }
  upright = standing;
  try { drawSquares(svg, state, opts); } finally { upright = false; }
}

function drawSquares(svg, state, opts) {
  const occupied = opts.occupied;  // when set: draw switches, not pieces
  const warning = state.warning || {};
  // After an idle reset the set-the-board card marks its one next square: no other square is marked
  const missing = new Set(state.setup ? [] : warning.missing || []), extra = new Set(state.setup ? [] : warning.extra || []);
  // A piece in the hand and where it may go; not under a warning, whose fix alone says where it goes
  // While the rules' own steps are owed (an exchange, a piece sent back or taken off, a throw's moves
  // played in parts), a board is put right or set up, the game already stands as after them and the
  // wood not yet: the server says what stands on the wood (whose piece, as the referee's evidence
  // tells; a faded one lifted) and where the game puts a piece (a ghost). No guessing here.
  const wood = !occupied && (!opts.plain || opts.setup) && state.wood ? state.wood : null;
  const lifted = new Map((opts.plain || occupied || state.warning || wood ? [] : state.lifted || []).map((l) => [l.square, l]));
  const targets = new Set([...lifted.values()].flatMap((l) => l.targets));
  const sensed = new Set(state.sensed || []);  // a piece of the game whose square senses nothing is in a hand
  const movable = new Set(prefs.hints && !opts.plain && !occupied && !lifted.size ? state.movable || [] : []);
  const symbols = state.symbols || {};  // the rule set's own: {square: "ankh"}
  const under = squaresLayer(svg);
  svg.onSquare = opts.onclick || null;
  svg.querySelectorAll(":scope > g.overlay").forEach((layer) => layer.remove());
  const numbers = svg.querySelector(":scope > g.numbers");  // last: legible over a piece
  const overlay = svg.insertBefore(el("g", { class: "overlay" }), numbers);
  const top = svg.insertBefore(el("g", { class: "overlay pieces" }), numbers);
  const pieceAt = {};
  const stray = wood ? new Map() : strays(state, opts);
  const roving = Number(svg.dataset.focus) || (state.movable && state.movable[0]) || 1;  // the square Tab lands on
  for (let sq = 1; sq <= 30; sq++) {
    const { x, y } = cell(sq);
    const g = under.children[sq - 1];
    const special = state.special[String(sq)];
    let cls = "cell" + (special ? " special" : "");
    if (!opts.plain && state.prompt && state.prompt.to === sq) cls += " prompt-to";
    if (!opts.plain && state.prompt && state.prompt.from === sq) cls += " prompt-from";
    if (!opts.plain && missing.has(sq)) cls += " missing";
    if (!opts.plain && extra.has(sq)) cls += " extra";
    if ((!opts.plain || opts.setup) && !occupied && state.setup && state.setup.square === sq) cls += " setup";
    if (targets.has(sq)) cls += " target";
    if (movable.has(sq)) cls += " movable";
    const [rect, title, sym] = g.children;
    rect.setAttribute("class", cls);
    title.textContent = special ? `${sq}: ${special}` : `${sq}`;
    const sign = symbols[sq] && !occupied ? symbols[sq] : "";
    if (sym.dataset.sign !== sign) {  // the signs change with the rule set only: not redrawn at every update
      sym.textContent = "";
      if (sign) symbol(sym, sign, x, y);
      sym.dataset.sign = sign;
    }
    const p = occupied ? null : wood ? woodPiece(state, wood, sq) : state.squares[String(sq)];
    if (occupied && occupied.includes(sq)) el("circle", { cx: x + 29, cy: y + 32, r: 16, class: "switch-on" }, top);
    if (!p && stray.has(sq)) piece(top, stray.get(sq), x, y, "stray").setAttribute("data-on", sq);  // the board as it really is
    if (p) {
      const off = wood ? p.lifted : lifted.has(sq) || !sensed.has(sq);
      const strange = wood && !off && (!state.squares[String(sq)] || state.squares[String(sq)].owner !== p.owner);
      pieceAt[sq] = piece(top, p.owner, x, y, off ? "lifted" : strange ? "stray" : "");
      pieceAt[sq].setAttribute("data-on", sq);
      if (p.dots) el("text", { x: x + 31, y: y + 46, class: "piece-label owner-" + p.owner }, pieceAt[sq]).textContent = p.dots;
    }
    if (wood && !p && wood.ghosts[sq]) piece(top, wood.ghosts[sq], x, y, "ghost").setAttribute("data-goes", sq);  // where the game puts it
    const light = svg.id === "board" && !opts.plain && !occupied ? (state.lights || {})[String(sq)] : null;
    if (light) glow(overlay, light, sq, x, y, state.light_looks);  // what the wooden board's light under sq shows
    if (targets.has(sq)) el("circle", { cx: x + 29, cy: y + 32, r: 7, class: "target-dot" }, top);
    if (targets.has(sq) && !p && !stray.has(sq)) {  // a ghost of the piece in the hand, where it may go
      const from = [...lifted.values()].find((l) => l.targets.includes(sq));
      if (from) piece(top, from.owner, x, y, "ghost");
    }
    if (opts.plain || occupied) continue;
    g.setAttribute("aria-label", p ? TEXT.pieceLabel(name(p.owner), sq) : stray.has(sq) ? TEXT.pieceLabel(name(stray.get(sq)), sq) : TEXT.squareLabel(sq, special));
    if (opts.onclick) { g.setAttribute("tabindex", sq === roving ? "0" : "-1"); g.setAttribute("role", "button"); }
    else { g.removeAttribute("tabindex"); g.removeAttribute("role"); }
  }
  if (opts.plain || occupied) return;
  pathLine(overlay);
  const move = lastMove(state);
  if (move && !state.in_progress && !lifted.size) {
    arrow(overlay, move.from, move.to, "move");
    for (const e of move.effects || []) if (e.from != null && e.to != null) arrow(overlay, e.from, e.to, "rule");
    if (state.history.length !== animated) { animated = state.history.length; animate(top, pieceAt[move.to], move); }
  }
}

function woodPiece(state, wood, sq) {  // the piece on the wood at `sq`, with the game's dots if it is the game's piece
  const p = wood.pieces[String(sq)];
  if (!p) return null;
  const game = state.squares[String(sq)];
  return { owner: p.owner, lifted: p.lifted, dots: game && game.owner === p.owner ? game.dots : null };
}

function strays(state, opts) {  // squares whose switch senses a piece the game does not place there: drawn, not left empty
  const out = new Map();
  if ((opts.plain && !opts.setup) || opts.occupied || !state.sensed) return out;  // the set-the-board card too: the board as it stands
  const missing = [...new Set((state.expected || []).filter((sq) => !state.sensed.includes(sq)))];
  const owners = new Set(missing.map((sq) => (state.squares[String(sq)] || {}).owner).filter(Boolean));
  const owner = owners.size === 1 ? [...owners][0] : "X";  // whose it must be when only one player's piece is off its square
  for (const sq of state.sensed) if (!state.squares[String(sq)]) out.set(sq, owner);
  return out;
}

function neighbour(sq, key) {  // the square drawn to the left, right, above or below (the board as drawn, not the S)
  const { x, y } = cell(sq);
  const [dx, dy] = { ArrowLeft: [-60, 0], ArrowRight: [60, 0], ArrowUp: [0, -60], ArrowDown: [0, 60] }[key] || [0, 0];
  if (!dx && !dy) return null;
  for (let n = 1; n <= 30; n++) { const c = cell(n); if (c.x === x + dx && c.y === y + dy) return n; }
  return null;
}

function focusSquare(svg, sq) {
  const squares = svg.querySelectorAll(":scope > g.squares > g.square");
  squares.forEach((g) => g.setAttribute("tabindex", Number(g.dataset.square) === sq ? "0" : "-1"));
  svg.dataset.focus = sq;  // where Tab comes back to
  squares[sq - 1].focus();
}

function animate(layer, dest, move) {  // a calm glide of the piece that moved, from where it was to where it is
  if (!dest || matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  const a = centre(move.from), b = centre(move.to);
  layer.ownerSVGElement.dataset.animated = `${move.from}-${move.to}`;  // what glided last (the tests read it)
  const ghost = dest.cloneNode(true);
  ghost.classList.add("gliding");
  ghost.removeAttribute("data-on");
  layer.appendChild(ghost);
  dest.classList.add("arriving");
  ghost.style.transform = `translate(${a.x - b.x}px, ${a.y - b.y}px)`;
  requestAnimationFrame(() => requestAnimationFrame(() => { ghost.style.transform = "translate(0px, 0px)"; }));
  ghost.addEventListener("transitionend", () => { ghost.remove(); dest.classList.remove("arriving"); });
}

function drawSticks(svg, state, lit) {
  svg.textContent = "";
  const value = state ? state.throw ?? state.last_throw : null;
  if (Array.isArray(value)) {  // dice
    value.forEach((d, i) => {
      el("rect", { x: 10 + i * 55, y: 15, width: 45, height: 45, rx: 8, class: "die" }, svg);
      el("text", { x: 32 + i * 55, y: 47, class: "die-text" }, svg).textContent = d;
    });
    svg.setAttribute("aria-label", TEXT.sticksLabel(value.join(_(" and "))));
    return;
  }
  let on = lit, faces = null;
  if (!on) {  // S1 counts dark sides, H1 white ones: draw the faces the rule set counts
    const zero = state && state.throws.zero;
    const n = value == null ? 0 : (value === zero ? 0 : value);
    const counted = state && state.throws.counted;
    on = [0, 1, 2, 3].map((i) => i < n);
    faces = on.map((c) => (counted === "dark" ? (c ? "dark" : "pale") : (c ? "pale" : "dark")));
    if (value != null && counted) {
      svg.setAttribute("aria-label", TEXT.sticksLabel(value, n ? TEXT.counted(n, counted) : TEXT.noneCounted(counted, value)));
    }
  }
  on.forEach((v, i) => {
    const face = faces ? faces[i] : (v ? "pale" : "dark");
    el("rect", { x: 8 + i * 28, y: 8, width: 20, height: 64, rx: 6, class: `stick ${face}${v ? " lit" : ""}${faces && v ? " counted" : ""}` }, svg);
  });
}

function text(id, value) { document.getElementById(id).textContent = value; }

function tipped(node, value) {  // "(P3)" in a text becomes a button that explains ruling P3 on hover, focus or tap
  node.textContent = "";
  // "(exchange, P4)": the word stays, the id goes behind the "why?" like a bare "(P4)"
  const parts = String(value || "").replace(/\(([^()]*?),\s*([PSHKM]\d{1,2})\)/g, "($1) ($2)").split(/\(([PSHKM]\d{1,2})\)/);
  parts.forEach((part, i) => {
    if (i % 2 === 0) { if (part) node.appendChild(document.createTextNode(part)); return; }
    const b = document.createElement("button");
    b.type = "button";
    b.className = "ruling-id";
    b.dataset.ruling = part;  // the id stays behind the "why?", so a visitor reads words first: the tip says the rule
    b.textContent = TEXT.why;
    if (rulings[part]) b.setAttribute("aria-describedby", `ruling-${part}`);
    b.addEventListener("mouseenter", () => showTip(b));
    b.addEventListener("focus", () => showTip(b));
    b.addEventListener("click", () => showTip(b));
    b.addEventListener("mouseleave", hideTip);
    b.addEventListener("blur", hideTip);
    node.append(b);
  });
}

function showTip(button) {  // one tooltip for the page, under the ruling id it explains
  const tip = document.getElementById("tip");
  const id = button.dataset.ruling;
  const said = rulings[id];
  if (!tip || !said) return;
  tip.textContent = `${id}: ${said}`;
  tip.hidden = false;
  const r = button.getBoundingClientRect();
  tip.style.left = `${Math.max(4, Math.min(r.left + scrollX, scrollX + innerWidth - tip.offsetWidth - 4))}px`;
  tip.style.top = `${r.bottom + scrollY + 6}px`;
}

function hideTip() { const tip = document.getElementById("tip"); if (tip) tip.hidden = true; }

function describeRulings() {  // hidden texts the ruling buttons point to with aria-describedby
  const box = document.getElementById("ruling-texts");
  if (!box) return;
  box.textContent = "";
  for (const [id, said] of Object.entries(rulings)) {
    const span = document.createElement("span");
    span.id = `ruling-${id}`;
    span.textContent = said;
    box.appendChild(span);
  }
}

function name(p) { return (current && current.player_names && current.player_names[p]) || p; }  // A, B stay internal

function render(state) {
  current = state;
  if (state.sim && !state.in_progress && simAnswered === simAsked) heard(state.backend);  // none on its way
  if (!document.getElementById("board")) return renderHardware(state);
  // The banner: whose turn, in the mover's own colour, big enough to read from two metres.
  const mover = state.winner || state.to_move;
  const turn = document.getElementById("turn");
  turn.textContent = state.winner ? TEXT.winBanner(name(state.winner))
    : state.throw == null && state.turn_starts_with === "card" ? TEXT.toPlay(name(mover))
    : state.throw == null ? TEXT.turnThrow(name(mover)) : TEXT.turnMove(name(mover));
  turn.className = `turn owner-${mover}${state.winner ? " won" : ""}`;
  // The step owed now, not the turn's usual one: a question, a board to put right, the rules' own move
  // (what to do is then the card's words, the largest on the screen: the banner steps down a size).
  const last = state.history[state.history.length - 1];
  const again = !state.winner && state.throw == null && last && last.v === "move" && last.player === state.to_move
    && state.players.length > 1;  // the mover moved and throws again: a bonus
  let step = true;
  if (!state.winner && (state.question || state.assumed)) turn.textContent = TEXT.answerTurn;
  else if (!state.winner && state.warning) turn.textContent = TEXT.fixTurn;
  else if (!state.winner && state.prompt) turn.textContent = TEXT.promptTurn(name(mover));
  else { step = !state.winner && state.throw != null; if (again) turn.textContent = TEXT.throwsAgain(name(mover)); }
  turn.classList.toggle("step", step);
  if (state.setup) { turn.textContent = TEXT.setupTitle; turn.className = "turn setup"; }  // nobody's turn yet: the board first
  drawBoard(document.getElementById("board"), state, { onclick: state.sim ? simClick : null });  // the board first
  text("cast", state.players.map((p) => TEXT.cast(name(p), state.pieces[p])).join(" · "));
  // The referee's card: one thing at a time, what happened and what to do.
  let message = "", kind = "info", fix = "";
  const stuck = Object.entries(state.switch_faults || {});
  if (state.setup) { message = ""; kind = "setup"; }  // the calm set-the-board mode says only the next square
  else if (state.question) { message = state.question.text; kind = "question"; }
  else if (state.assumed) { message = TEXT.assumed(state.assumed.seconds, state.assumed.options[state.assumed.chosen]); kind = "question"; }
  else if (state.warning) { message = state.warning.reason; kind = "warning"; fix = state.warning.fix ? TEXT.fix + state.warning.fix.join("; ") : ""; }
  else if (state.prompt) { message = state.prompt.text; kind = "prompt"; }
  else if (state.winner) { message = `${TEXT.score(state.players.map((p) => TEXT.off(name(p), state.off[p])).join(" · "))} ${TEXT.playAgain}`; kind = "win"; }
  else if ((state.lifted || []).length) { message = ""; kind = "hand"; }
  else if (state.in_progress) { message = TEXT.inProgress; }
  else if (typeof state.throw === "string") { message = TEXT.moveTo(name(state.to_move), state.throw.slice(1)); kind = "move"; }
  else if (Array.isArray(state.throw)) { message = TEXT.moveByDice(name(state.to_move), state.throw.join(_(" and "))); kind = "move"; }
  else if (state.throw != null) { message = TEXT.moveBy(name(state.to_move), state.throw); kind = "move"; }
  else if (again) { message = bonusWhy(state, last); kind = "info"; }  // a bonus throw is never silent
  // A plain throw (or card) to make: the banner already says it ("White to throw"); the card says
  // nothing rather than the same sentence again, and keeps its place so the board does not jump.
  else { message = ""; kind = "quiet"; }
  const joined = (...parts) => parts.filter(Boolean).join(" | ");
  if (stuck.length && !state.setup) message = joined(stuck.map(([sq, fault]) => TEXT.stuck(sq, fault)).join("; "), message);
  if (state.journal) { message = joined(state.journal, message); kind = "warning"; }
  const resumeNotes = state.journal_notes || [];  // the resume found the record short or changed
  if (resumeNotes.length) { message = joined(...resumeNotes, message); kind = "warning"; }
  if (stuck.length && kind === "quiet") kind = "info";
  const box = document.getElementById("message");
  tipped(box, message);
  box.hidden = !message;
  box.className = "message " + kind;
  document.getElementById("card").className = "referee-card " + kind;
  tipped(document.getElementById("fixes"), fix);
  if (fix && fix !== saidFix) { saidFix = fix; say(fix); }  // the fix is announced, once
  if (!fix) saidFix = "";
  showRefusal();
  const setup = document.getElementById("setup");  // after an idle reset: the next square only, one fix at a time
  setup.hidden = !state.setup;
  setup.textContent = "";
  if (state.setup) {
    setup.textContent = state.setup.text + " " + TEXT.setupLeft(state.setup.left);
  }
  const hand = document.getElementById("in-hand");
  hand.textContent = kind !== "hand" ? "" : (state.lifted || []).map((l) => TEXT.inHand(name(l.owner), l.square)
    + (state.throw == null ? "" : l.targets.length ? TEXT.mayGo(l.targets.join(", ")) : TEXT.nowhere)).join("; ");
  renderQuestion(state);
  askJoin(state);
  const compare = document.getElementById("compare");
  // Both boards only for a warning, and only while they differ (a piece in the hand is no news)
  const differ = Boolean(state.warning) && !state.setup && String(state.sensed) !== String(state.expected);
  compare.hidden = !differ;
  if (differ) {
    drawBoard(document.getElementById("sensed"), state, { occupied: state.sensed });
    drawBoard(document.getElementById("expected"), state, { occupied: state.expected });
  }
  const sticks = document.getElementById("sticks");
  drawSticks(sticks, state);
  const lights = state.lights || {};  // the stick LEDs' and the button ring's light (a bonus throw owed)
  sticks.dataset.light = lights.sticks || "";
  document.getElementById("press").dataset.light = lights.button || "";
  sticks.classList.toggle("unseen", state.turn_starts_with === "card" && state.throw == null);  // cards, not sticks, until one is played
  const throwKey = state.throw == null ? null : `${state.game}:${state.history.length}:${state.throw}`;
  if (throwKey !== null && throwKey !== thrown && thrown !== null) {  // a new throw: the sticks fall and land (not at page load)
    sticks.classList.remove("falling");
    void sticks.getBoundingClientRect();  // restarts the animation
    sticks.classList.add("falling");
  }
  thrown = throwKey ?? thrown ?? "";
  const shown = state.throw ?? state.last_throw;
  const shownText = Array.isArray(shown) ? shown.join(" + ") : typeof shown === "string" ? shown.slice(1) : shown;
  text("throw-text", shown == null ? (state.turn_starts_with === "card" ? "" : TEXT.noThrow) : state.throw == null ? TEXT.lastThrow + shownText : `= ${shownText}`);
  const zero = state.throws.zero, counted = state.throws.counted;
  text("throw-note", shown != null && shown === zero && counted ? TEXT.noneCounted(counted, zero) : "");
  const press = document.getElementById("press");
  press.hidden = !state.sim || Boolean(state.winner) || state.turn_starts_with === "card";  // only a throw it can make
  document.querySelector(".throw-box").hidden = state.turn_starts_with === "card";  // the card game: cards, no sticks
  press.textContent = state.throw == null && !state.winner ? TEXT.pressThrow : TEXT.pressButton;  // no "throw" while a move is awaited
  press.classList.toggle("again", Boolean(state.winner));
  for (const [i, p] of state.players.slice(0, 2).entries()) {  // borne-off pieces wait beside the board
    const side = document.getElementById(i === 0 ? "off-A" : "off-B");
    side.textContent = "";
    side.className = `borne-off ${i === 0 ? "start" : "end"} owner-${p}`;
    side.setAttribute("aria-label", TEXT.off(name(p), state.off[p]));
    side.setAttribute("role", "img");
    const svg = el("svg", { viewBox: `0 0 62 ${Math.max(1, state.off[p]) * 50 + 4}`, "aria-hidden": "true" }, side);
    for (let n = 0; n < state.off[p]; n++) piece(svg, p, 0, n * 50 - 6, "");
  }
  if (sideLater) { sideLater = false; afterFirstFrame(() => renderSide(current)); } else renderSide(state);
  document.dispatchEvent(new CustomEvent("senet:state", { detail: state }));  // for attract.js
}

function afterFirstFrame(work) {  // once the board is on the screen: the frame after the next paint
  // A hidden page gets no frames (a background tab, a kiosk's screen off): it does the work at once,
  // or as it is hidden. No timer: on a slow CPU one would fire before the first frame and push the
  // board's paint back by the very work this waits with.
  // Once a frame has shown the board (the server's drawing of it), later work waits for no other.
  if (framed) { setTimeout(work, 0); return; }
  let done = false;
  const once = () => { if (done) return; done = true; document.removeEventListener("visibilitychange", hidden); work(); };
  const hidden = () => { if (document.hidden) setTimeout(once, 0); };
  document.addEventListener("visibilitychange", hidden);
  hidden();
  requestAnimationFrame(() => { framed = true; setTimeout(once, 0); });
}
let framed = window.senetFramed === true;  // a frame has been painted since the page loaded (the loader waits for one)

function renderSide(state) {  // the move list, the rules, the cards, the staff panel: after the board at the first draw
  text("offboard", state.players.map((p) => TEXT.off(name(p), state.off[p])).join(" · "));
  const history = document.getElementById("history");
  history.textContent = "";
  history.start = state.history_from || 1;  // the list shows the last moves only: they keep their numbers
  const words = state.kind_words || {};
  for (const v of state.history) {
    const li = document.createElement("li");
    if (v.v === "move") li.textContent = `${name(v.player)} ${v.from}-${v.to}` + (v.effects ? " (" + v.effects.map((e) => words[e.kind] || String(e.kind).replace(/_/g, " ")).join(", ") + ")" : "");
    else if (v.v === "forfeit") tipped(li, v.reason);
    else if (v.v === "win") li.textContent = TEXT.wins(name(v.player));
    else li.textContent = (TEXT.history[v.v] || v.v) + (v.player ? " " + name(v.player) : "");
    history.appendChild(li);
  }
  drawCardTable(state);
  text("rules", state.rules.summary);
  const how = document.getElementById("how-list");
  how.textContent = "";
  const sentences = state.rules.how_to_play || [];
  for (const s of sentences) { const li = document.createElement("li"); tipped(li, s); how.appendChild(li); }
  if (state.operator) operatorStatus = state.operator;  // the live stream leaves it out: keep ours
  const opState = operatorStatus;
  document.getElementById("op-help").hidden = opState.enabled;
  if (!opState.enabled) askForThePinLater();
  text("op-state", !opState.enabled ? "" : opState.signed_in ? TEXT.signedIn : TEXT.signIn);
  document.getElementById("login").hidden = !opState.enabled || opState.signed_in;
  document.getElementById("op-actions").hidden = !opState.signed_in;
  const outOfService = document.getElementById("op-history");  // a damaged journal set aside, its games not back yet
  outOfService.replaceChildren(...(state.set_aside || []).map((n) => { const p = document.createElement("p"); p.textContent = TEXT.historyOut(n); return p; }));
  outOfService.hidden = !outOfService.childElementCount;
  document.getElementById("side").hidden = false;  // the page's first paint was the board's alone
}

// The help says a PIN set with `senet-pi set-pin` is taken at once: the live stream is the same for
// every page and leaves out the operator's part, so while none is set the page asks now and then.
let pinAsked = null;
function askForThePinLater() {
  if (pinAsked) return;
  pinAsked = setTimeout(async () => {
    let st = null;
    try { const r = await fetch("/api/state", { credentials: "same-origin" }); if (r.ok) st = await r.json(); } catch (e) { /* the link is down: ask again */ }
    pinAsked = null;
    if (st && st.operator && st.operator.enabled) render(st);
    else askForThePinLater();
  }, 3000);
}

function drawCardTable(state) {  // the card game (K10): the stack, the discards, each hand, as cards
  const table = document.getElementById("card-table");
  table.hidden = !state.cards;
  table.textContent = "";
  if (!state.cards) return;
  const c = state.cards;
  const pile = (label, cards, cls) => {
    const g = document.createElement("div");
    g.className = `pile ${cls}`;
    const h = document.createElement("div");
    h.className = "pile-label";
    h.textContent = label;
    g.appendChild(h);
    const row = document.createElement("div");
    row.className = "pile-cards";
    for (const card of cards) row.appendChild(cardFace(card, state.symbols));
    g.appendChild(row);
    table.appendChild(g);
  };
  pile(TEXT.stack(c.stack), c.stack ? ["back"] : [], "stack");
  pile(TEXT.discard, c.discard, "discard");
  for (const p of state.players) {
    const held = c.hands ? c.hands[p] : Array(c.counts[p]).fill("back");
    pile(TEXT.cardsHeld(name(p), c.counts[p]), held, `hand owner-${p}`);
  }
  if (c.dead) { const d = document.createElement("div"); d.className = "pile-label"; d.textContent = TEXT.dead(c.dead); table.appendChild(d); }
}

function cardFace(card, symbols) {  // a card drawn as a card: its number as sticks, or its sign (the hieroglyph, the Nile, the hand)
  const face = document.createElement("span");
  const c = String(card);
  face.className = `card-face${c === "back" ? " back" : ""}`;
  face.dataset.card = c;
  const svg = el("svg", { viewBox: "0 0 58 62", class: "card-art", "aria-hidden": "true" }, face);
  if (/^\d$/.test(c)) {  // the sticks' count: that many dark sticks
    const n = Number(c);
    for (let k = 0; k < n; k++) el("rect", { x: 29 - n * 5.5 + k * 11 + 1.5, y: 10, width: 8, height: 42, rx: 3, class: "card-stick" }, svg);
  } else if (/^H\d+$/.test(c)) symbol(svg, (symbols || {})[c.slice(1)] || "nefer", 0, 0);  // the square's hieroglyph
  else if (/^N[A-D]$/.test(c)) symbol(svg, "water", 0, 0);  // the Nile (K7)
  else if (c === "HAND") el("path", { d: "M20 54 v-22 q0-4 4-4 v-12 q0-4 4-4 q4 0 4 4 v10 q0-4 4-4 q4 0 4 4 v6 q0-4 4-4 q4 0 4 4 v10 q0 12 -14 12 z", class: "glyph" }, svg);
  const label = document.createElement("span");
  label.className = "card-name";
  label.textContent = c === "back" ? "" : /^H\d+$/.test(c) ? TEXT.cardSquare(c.slice(1)) : /^N[A-D]$/.test(c) ? TEXT.cardNile
    : c === "HAND" ? TEXT.cardHand : c;  // the card's words, never its code ("H26", "NB")
  face.appendChild(label);
  return face;
}

// A question is answered where people stand: a tap, a click or the keyboard, no sign-in. Nobody
// answering is no dead end: after the stated wait the referee takes the likelier answer and says
// so, and the people can give another until the next input.
let saidQuestion = "";  // the question (or taken answer) last announced: each is said once
function renderQuestion(state) {
  const q = document.getElementById("question");
  q.textContent = "";
  const open = state.setup ? null : state.question || state.assumed;
  if (!open) { saidQuestion = ""; return; }
  const row = document.createElement("div");
  row.className = "answers";
  row.setAttribute("role", "group");
  row.setAttribute("aria-label", TEXT.answers);
  open.options.forEach((opt, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "answer";
    b.textContent = opt;
    if (state.assumed) b.setAttribute("aria-pressed", String(i === state.assumed.chosen));
    b.addEventListener("click", () => answer(open.id, i));
    row.appendChild(b);
  });
  q.appendChild(row);
  const note = document.createElement("p");
  note.className = "question-note";
  note.textContent = state.question
    ? (state.question.wait ? TEXT.willTake(Math.round(state.question.wait), state.question.options[state.question.likelier]) : "")
    : TEXT.changeIt;
  q.appendChild(note);
  if (tableCode) {  // the exhibit's own screen: how a phone joins to answer
    const code = document.createElement("p");
    code.id = "table-code";
    code.className = "table-code";
    code.textContent = _("Phones join this table with the code {code}", { code: tableCode });
    q.appendChild(code);
  }
  const key = state.question ? `q${open.id}:${open.text}` : `a${open.id}:${open.chosen}`;
  if (key !== saidQuestion) {
    saidQuestion = key;
    say(state.question ? `${open.text} ${TEXT.answersAre(open.options.join(", "))}` : `${TEXT.assumed(open.seconds, open.options[open.chosen])} ${TEXT.changeIt}`);
  }
}

async function answer(id, i) {  // a visitor's answer: the question's id keeps a late tap off a newer question
  const result = await post("/api/answer", { question: id, answer: i });
  if (!result.ok) { refusal = result.data.error || (result.data.verdicts || []).filter((v) => v.v === "illegal").map((v) => v.reason).join("; "); showRefusal(); }
  if (result.data.join) showJoin(true);  // a phone that has not joined the table: its code field
  if (result.data.state) render(result.data.state);
}

// Who answers: the table's own screen shows the join code (new with every game); a phone types it
// in once a game. The code is never in the state everyone hears, only in /api/join's answer to the screen.
let joinedGame = null;  // the game the join status was last asked for (null: ask at the next state)
let tableCode = "";  // the join code, on the exhibit's own screen only: shown with a question
async function askJoin(state) {
  if (!document.getElementById("join") || state.game === joinedGame) return;
  joinedGame = state.game;
  let data = {};
  try { data = await (await fetch("/api/join", { credentials: "same-origin" })).json(); } catch (e) { return; }
  tableCode = data.code || "";
  showJoin(!data.may_answer && Boolean(state.question || state.assumed));
  if (current) renderQuestion(current);  // the code under the question's answers
}

function showJoin(shown) { document.getElementById("join").hidden = !shown; }

function setUpJoin() {
  const form = document.getElementById("join");
  if (!form) return;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const result = await post("/api/join", { code: document.getElementById("join-code").value.trim() });
    refusal = result.ok ? "" : result.data.error || "";
    showRefusal();
    if (result.ok) showJoin(false);
  });
}

function showRefusal() {
  const box = document.getElementById("refusal");
  box.hidden = !refusal;
  tipped(box, refusal ? TEXT.refused + refusal : "");
  document.getElementById("card").classList.toggle("said", Boolean(refusal));  // a quiet card shows a refusal
}

function onVerdicts(verdicts) {  // a refused throw or move is said where the visitor looks, until the game goes on
  if (verdicts.some((v) => v.v === "new_game")) { joinedGame = null; if (current) askJoin(current); }  // a new code
  const said = verdicts.filter((v) => v.v === "refused" || (v.v === "illegal" && !v.missing)).map((v) => v.text || v.reason);
  if (said.length) refusal = said.join("; ");
  for (const v of verdicts) if (v.fix && v.fix.length) saidFix = TEXT.fix + v.fix.join("; ");  // said with its verdict
  else if (verdicts.some((v) => ["throw", "move", "forfeit", "new_game", "undone", "resync", "win"].includes(v.v))) refusal = "";
  if (document.getElementById("refusal")) showRefusal();
  heardMove = [...verdicts].reverse().find((v) => v.v === "move") || heardMove;
  say(verdicts.map(spoken).filter(Boolean).join(". "));
  speakAloud(verdicts);
}

// What the board's voice says (SPEAK, senet_pi/service/speech.py), said by this phone's browser when
// its visitor asked ("speak aloud"): a throw, a bonus, an illegal move with its first fix, a question,
// a move to carry out, a win. The newest line cuts off an older one: never two at once.
const ALOUD = new Set(["throw", "bonus", "illegal", "question", "prompt", "win"]);
function speakAloud(verdicts) {
  if (!prefs.speak || !window.speechSynthesis) return;
  const line = (v) => (v.v === "question" ? v.text : v.v === "illegal" ? unruled(v.reason + (v.fix && v.fix.length ? ". " + v.fix[0] : "")) : spoken(v));
  const words = verdicts.filter((v) => ALOUD.has(v.v)).map(line).filter(Boolean).join(". ");
  if (!words) return;
  speechSynthesis.cancel();
  const utterance = new SpeechSynthesisUtterance(words);
  utterance.lang = LANG;
  speechSynthesis.speak(utterance);
}

function wireSpeak() {  // the "speak aloud" toggle, on the board's page and on a hand's
  const aloud = document.getElementById("speak");
  if (!aloud) return;
  aloud.hidden = !window.speechSynthesis;
  aloud.addEventListener("click", () => {
    prefs.speak = !prefs.speak;
    localStorage.setItem("senet-speak", prefs.speak ? "on" : "off");
    if (!prefs.speak && window.speechSynthesis) speechSynthesis.cancel();
    applyPrefs();
  });
}

// Verdicts a screen reader need not hear: the board's own bookkeeping, said again by the next verdict.
let heardMove = null;  // the last move heard: a bonus verdict after it says why it throws again
const UNSAID = new Set(["progress", "sensor", "settled", "link", "answered", "withdrawn", "question"]);  // a question: with its answers

function spoken(v) {  // a verdict in one sentence for the live region: its own words, whatever its kind
  if (UNSAID.has(v.v)) return "";
  if (v.v === "throw") return TEXT.throws(name(v.player), Array.isArray(v.value) ? v.value.join(" + ") : v.value);
  if (v.v === "turn") return TEXT.turnThrow(name(v.player));
  if (v.v === "win") return TEXT.winBanner(name(v.player));
  if (v.v === "move") return `${name(v.player)} ${v.from}-${v.to}`;
  if (v.v === "bonus") { const m = heardMove; return TEXT.throwsAgain(name(v.player)) + (m && current ? ": " + bonusWhy(current, m) : ""); }
  const words = (v.text || v.reason || "") + (v.fix && v.fix.length ? ". " + TEXT.fix + v.fix.join("; ") : "");
  return unruled(words);
}

function unruled(words) {  // the ruling ids are for the eye's "why?", never read aloud: "(exchange, P4)" is "(exchange)"
  return String(words).replace(/\(([^()]*?),\s*[PSHKM]\d{1,2}\)/g, "($1)").replace(/\s*\([PSHKM]\d{1,2}\)/g, "");
}

function bonusWhy(state, move) {  // why a move throws again: its throw's value, or the square it reached
  const b = state.bonus || { throws: [], squares: [] };
  if (b.squares.includes(move.to)) return TEXT.bonusSquare(move.to);
  return b.throws.includes(move.by) ? TEXT.bonusWhy(move.by) : "";
}

function say(sentence) {  // the one live region: written only when something new happened, so each is said once
  const box = document.getElementById("announce");
  if (!box || !sentence) return;
  box.textContent = sentence;
}

function renderHardware(state) {
  if (!document.getElementById("switches")) return;  // a page without a board (/hands): only the live link
  drawBoard(document.getElementById("switches"), state, { occupied: state.backend.switches || [], plain: true });
  drawSticks(document.getElementById("leds"), null, state.backend.leds && state.backend.leds.length ? state.backend.leds : [false, false, false, false]);
  const faults = document.getElementById("faults");
  faults.textContent = "";
  const list = state.backend.faults && state.backend.faults.length ? state.backend.faults : [_("none")];
  for (const f of list) { const li = document.createElement("li"); li.textContent = f; faults.appendChild(li); }
  const b = state.backend;
  let about = _("backend: {name}", { name: b.backend });
  if (b.connected !== undefined) {  // the USB bridge's link health
    about += " · " + (b.connected ? _("connected, firmware {firmware}, board {board}", { firmware: b.firmware, board: b.board }) : _("not connected"));
    about += " · " + _("frames dropped {dropped} · reconnects {reconnects}", { dropped: b.dropped, reconnects: b.reconnects });
  }
  const m = state.mqtt;
  if (m) {  // the board on a fleet's broker
    about += " · " + (m.connected ? _("board {board} on {broker}: connected", { board: m.board, broker: m.broker })
      : _("board {board} on {broker}: not connected ({problem})", { board: m.board, broker: m.broker, problem: m.problem || _("no answer") }));
  }
  const refused = (state.computer && state.computer.tables) || [];  // an endgame table that failed a check
  if (refused.length) about += " · " + refused.join("; ");
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
let piecesAt = -1;  // how many moves of the magnets that was (the server counts them): older news is not taken
let simAsked = 0, simAnswered = 0;  // clicks on the simulated board sent, and answered
let simSent = Promise.resolve();  // the last click's request: the next one waits for its answer

// A state and a click's answer come on different connections: on a loaded machine a state sent
// before the last click was answered can arrive after it. Only the newer reading is taken, or the
// next click would lift a piece already lifted (refused) instead of putting it back.
function heard(reading) {
  if (reading && Array.isArray(reading.pieces) && reading.moves >= piecesAt) { pieces = reading.pieces; piecesAt = reading.moves; }
}

async function simClick(sq) {
  const known = pieces || (current && (current.backend.pieces || current.backend.switches)) || [];
  const action = known.includes(sq) ? "lift" : "place";
  // The board as this click leaves it, before the answer: a quick second click on the same square
  // (put down, then lifted again) does the opposite, not the same again (refused as impossible).
  pieces = action === "lift" ? known.filter((s) => s !== sq) : [...known, sq];
  const asked = ++simAsked;
  // Sent in the order clicked, each after the last was answered: two requests in flight at once may
  // reach the server in either order (a piece put on 14 before the one on 10 was lifted).
  const sent = simSent.then(() => post(`/api/sim/${action}`, { square: sq }));
  simSent = sent.catch(() => null);
  const result = await sent;
  simAnswered++;
  if (asked !== simAsked) return;  // a later click is on its way: its answer says how the board stands
  if (result.ok) heard(result.data);
  else { pieces = null; piecesAt = -1; text("op-error", result.data.error || TEXT.boardRefused); }
}

async function op(action, body) {
  const result = await post(`/api/op/${action}`, body);
  tipped(document.getElementById("op-error"), result.ok ? "" : (result.data.error || (result.data.verdicts || []).filter((v) => v.v === "illegal").map((v) => v.reason).join("; ")));
  if (result.data.state) render(result.data.state);
}

function applyPrefs() {
  document.documentElement.dataset.theme = prefs.theme;
  // the theme chosen, for the server too: the page is painted in it before this script runs
  document.cookie = `senet-theme=${prefs.theme}; max-age=31536000; path=/; samesite=strict`;
  const hints = document.getElementById("hints");
  if (hints) { hints.textContent = prefs.hints ? TEXT.hintsOn : TEXT.hintsOff; hints.setAttribute("aria-pressed", String(!prefs.hints)); }
  const aloud = document.getElementById("speak");
  if (aloud) { aloud.textContent = prefs.speak ? TEXT.speakOn : TEXT.speakOff; aloud.setAttribute("aria-pressed", String(prefs.speak)); }
  const theme = document.getElementById("theme");
  const dark = prefs.theme ? prefs.theme === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
  if (theme) theme.textContent = dark ? TEXT.themeLight : TEXT.themeDark;
}

function wire() {
  applyPrefs();
  // a short screen (the kiosk's 800 x 480): the board takes the height the banner and the step leave
  // it, however many lines they need in the language on show (style.css reads --now-bottom)
  const now = document.getElementById("now");
  if (now && window.ResizeObserver) {
    new ResizeObserver(() => {
      document.documentElement.style.setProperty("--now-bottom", `${now.offsetTop + now.offsetHeight}px`);
    }).observe(now);
  }
  matchMedia(UPRIGHT).addEventListener("change", () => { if (current) render(current); });  // a phone turned
  document.getElementById("theme").addEventListener("click", () => {
    const dark = prefs.theme ? prefs.theme === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
    prefs.theme = dark ? "light" : "dark";
    localStorage.setItem("senet-theme", prefs.theme);
    applyPrefs();
  });
  wireSpeak();
  const hints = document.getElementById("hints");
  if (hints) hints.addEventListener("click", () => {
    prefs.hints = !prefs.hints;
    localStorage.setItem("senet-hints", prefs.hints ? "on" : "off");
    applyPrefs();
    if (current) render(current);
  });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") hideTip(); });
  const press = document.getElementById("press");
  if (press) press.addEventListener("click", () => post("/api/sim/press"));
  setUpJoin();
  const login = document.getElementById("login");
  if (!login) return;
  // the on-screen keypad: a digit appends to the PIN, the last key takes one off
  document.querySelectorAll("#pin-pad [data-digit]").forEach((b) => b.addEventListener("click", () => {
    const pin = document.getElementById("pin");
    pin.value = b.dataset.digit ? pin.value + b.dataset.digit : pin.value.slice(0, -1);
  }));
  login.addEventListener("submit", async (e) => {
    e.preventDefault();
    const result = await post("/api/op/login", { pin: document.getElementById("pin").value });
    text("op-error", result.ok ? "" : result.data.error || _("the server answered {status}", { status: result.status }));
    document.getElementById("pin").value = "";
    refresh();
  });
  document.querySelectorAll("[data-op]").forEach((b) => b.addEventListener("click", () => op(b.dataset.op)));
  // a kiosk's browser is shared with the visitors: staff sign out when done (a sign-in lasts 12 hours)
  document.getElementById("op-logout").addEventListener("click", async () => { await post("/api/op/logout"); refresh(); });
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
  const response = await fetch(`/api/state?lang=${LANG}`, { credentials: "same-origin" });
  if (response.ok) render(await response.json());
}

function connect() {  // EventSource reconnects by itself; the server sends the state on every (re)connect
  const link = document.getElementById("link");
  const source = new EventSource(`/api/events?lang=${LANG}`);
  source.addEventListener("verdicts", (e) => onVerdicts(JSON.parse(e.data)));
  source.addEventListener("state", (e) => { link.textContent = TEXT.live; link.className = "link live"; render(JSON.parse(e.data)); });
  source.onerror = () => { link.textContent = TEXT.reconnecting; link.className = "link down"; };
  source.onopen = () => { piecesAt = -1; };  // a restarted service counts its moves from 0 again
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
  if (!response.ok) { text("hand-error", TEXT.notThisGame); return; }
  const hand = await response.json();
  if (asked !== handAsked) return;
  text("hand-turn", hand.winner ? TEXT.handWon(handBox.dataset[`name${hand.winner}`] || hand.winner) : hand.your_turn ? TEXT.yourTurn
    : hand.residue ? TEXT.residue
    : hand.moving ? TEXT.moving : TEXT.toPlay(handBox.dataset[`name${hand.to_move}`] || hand.to_move));
  const box = document.getElementById("cards");
  box.textContent = "";
  chosen = chosen.filter((i) => i < hand.cards.length);
  hand.cards.forEach((card, i) => {
    const b = document.createElement("button");
    b.className = "card" + (hand.playable.includes(card) ? " playable" : "") + (chosen.includes(i) ? " chosen" : "");
    b.appendChild(cardFace(card, {}));  // drawn as a card: its sticks, its sign; its text is the card's name
    b.setAttribute("aria-pressed", String(chosen.includes(i)));
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
  applyPrefs();
  wireSpeak();
  const source = new EventSource(`/api/events?lang=${LANG}`);
  source.addEventListener("state", () => { document.getElementById("link").textContent = TEXT.live; refreshHand(); });
  source.addEventListener("verdicts", (e) => speakAloud(JSON.parse(e.data)));
} else {
  // The state and the rulings' sentences come in the page itself: the board is drawn at once, with
  // no request to wait for; the live stream then keeps it up to date. The board before
  // anything else (the theme first, or a dark kiosk would flash light): the buttons' wiring, the
  // rulings' hidden texts and the live stream come after.
  applyPrefs();
  const embedded = (id) => { const node = document.getElementById(id); return node ? JSON.parse(node.textContent) : null; };
  const start = () => {
    rulings = embedded("rulings") || {};
    const first = embedded("first-state");
    if (first) render(first); else refresh();
    wire();
    afterFirstFrame(describeRulings);  // the hidden texts the "why?" buttons point to: not needed to draw
    afterFirstFrame(connect);  // its first message is the whole state again: drawn after the board, not before
  };
  // The server drew the board in the page: that is painted first, then drawn again here with its
  // marks, signs and listeners (on a slow CPU this script would otherwise hold the first paint back)
  if (document.querySelector("#board > g.first")) afterFirstFrame(start); else start();
}
