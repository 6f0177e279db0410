// senet-pi attract loop (exhibit mode): while a new game waits untouched, an overlay tells
// the story (what Senet is, whose pieces are whose), cycles the rule set's how-to-play sentences, a
// short demo game on a board drawing with its throws, then the invitation to play; a board that is
// not set up is shown first, one square to fix at a time. It goes at once when the state says the
// game was touched (a switch changed, the button was pressed), or when a visitor taps it; it can be
// paused (WCAG 2.2.2), and it never covers the staff's controls.
// Uses app.js's drawBoard, drawSticks, el, arrow and name (loaded before this file); one timeout.
"use strict";

// Every visitor-facing string goes through app.js's _() (the page's catalogue, {name} placeholders).

(() => {
  const box = document.getElementById("attract");
  if (!box || box.dataset.exhibit !== "on") return;
  // Every frame's time on screen, in one constant; ?attract_ms=200 shortens it for a look or a test.
  const FRAME_MS = Number(new URLSearchParams(location.search).get("attract_ms")) || 5000;
  const textBox = document.getElementById("attract-text");
  const setupBox = document.getElementById("attract-setup");
  const svg = document.getElementById("attract-board");
  const sticks = document.getElementById("attract-sticks");
  const pause = document.getElementById("attract-pause");
  let state = null;
  let frame = 0;
  let timer = null;
  let paused = false;
  let dismissed = null;  // the game whose loop a visitor closed: it stays closed until the next game

  function frames() {  // what one turn of the loop shows, from the latest state: the story first
    const out = [{ text: _("Senet, the game of passing: played in Egypt for some three thousand years.") }];
    out.push({ text: state.players.map((p) => _("{player} plays {pieces}", { player: name(p), pieces: state.pieces[p] })).join(" · ") });
    for (const sentence of state.rules.how_to_play || []) out.push({ text: sentence });
    (state.demo || []).forEach((step, i) => out.push({ demo: i }));
    out.push({ text: _("touch a piece or press the button to play") });
    return out;
  }

  function boardState(squares) {  // a state drawBoard takes, with the demo's pieces instead of the game's
    const drawn = {};
    for (const [sq, owner] of Object.entries(squares)) drawn[sq] = { owner, dots: null };
    return { ...state, squares: drawn, setup: null, sensed: Object.keys(squares).map(Number) };
  }

  function show() {
    if (state.setup) {  // the board first: the one next fix, big, its square marked on the drawing
      setupBox.hidden = false;
      setupBox.textContent = _("before playing: {fix} ({left} to fix)", { fix: state.setup.text, left: state.setup.left });
      textBox.textContent = "";
      svg.removeAttribute("hidden");  // an svg has no .hidden property: the attribute itself
      sticks.setAttribute("hidden", "");
      drawBoard(svg, state, { plain: true, setup: true });
      return;
    }
    setupBox.hidden = true;
    const all = frames();
    const now = all[frame % all.length];
    svg.toggleAttribute("hidden", now.demo === undefined);
    sticks.toggleAttribute("hidden", now.demo === undefined);
    if (now.demo === undefined) { textBox.textContent = now.text; return; }
    const step = state.demo[now.demo];
    const owner = step.board[String(step.to)] || "";
    const said = step.to > 30
      ? _("a demo game: {player} bears a piece off from {from}", { player: name(owner), from: step.from })
      : _("a demo game: {player} moves from {from} to {to}", { player: name(owner), from: step.from, to: step.to });
    textBox.textContent = step.throw == null ? said : `${_("{player} throws {value}", { player: name(owner), value: step.throw })} · ${said}`;
    drawBoard(svg, boardState(step.board), { plain: true });
    if (step.to <= 30) arrow(el("g", { class: "overlay" }, svg), step.from, step.to, "move");
    drawSticks(sticks, step.throw == null ? null : { ...state, throw: step.throw });
  }

  function next() {
    frame += 1;
    show();
    timer = setTimeout(next, FRAME_MS);
  }

  function start() {
    box.hidden = false;
    document.body.classList.add("attract-on");
    frame = 0;
    show();
    timer = paused ? -1 : setTimeout(next, FRAME_MS);  // -1: showing, but held still
  }

  function stop() {
    if (timer > 0) clearTimeout(timer);
    timer = null;
    box.hidden = true;
    document.body.classList.remove("attract-on");
  }

  pause.addEventListener("click", (e) => {  // WCAG 2.2.2: moving content can be paused
    e.stopPropagation();
    paused = !paused;
    pause.setAttribute("aria-pressed", String(paused));
    pause.textContent = paused ? _("play") : _("pause");
    if (timer === null) return;
    if (paused) { clearTimeout(timer); timer = -1; } else { timer = setTimeout(next, FRAME_MS); }
  });
  const dismiss = () => { if (state) dismissed = state.game; stop(); };
  document.getElementById("attract-close").addEventListener("click", (e) => { e.stopPropagation(); dismiss(); });
  box.addEventListener("click", (e) => {  // a tap anywhere but the language links and the buttons closes it
    if (!e.target.closest("a, button")) dismiss();
  });

  function onState(latest) {
    const previous = state;
    state = latest;
    if (state.touched || state.game === dismissed) { if (timer !== null) stop(); return; }
    if (timer === null) { start(); return; }
    if (previous && previous.game !== state.game) frame = 0;  // a new game began: the loop from its start
    show();  // the same loop, with the latest board (a fix done, the next one shown)
  }

  document.addEventListener("senet:state", (e) => onState(e.detail));
  if (current) onState(current);  // app.js drew the page's embedded state before this file loaded
})();
