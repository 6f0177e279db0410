// senet-pi attract loop (issue 15, exhibit mode): while a new game waits untouched, an overlay cycles
// the rule set's how-to-play sentences, a short demo game on a board drawing, then the invitation to
// play; a board that is not set up is shown first, one square to fix at a time. It goes at once when
// the state says the game was touched (a switch changed, the button was pressed).
// Uses app.js's drawBoard, el and arrow (loaded before this file); no timers beyond one timeout.
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
  let state = null;
  let frame = 0;
  let timer = null;

  function frames() {  // what one turn of the loop shows, from the latest state
    const out = (state.rules.how_to_play || []).map((sentence) => ({ text: sentence }));
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
      drawBoard(svg, state, { plain: true, setup: true });
      return;
    }
    setupBox.hidden = true;
    const all = frames();
    const now = all[frame % all.length];
    svg.toggleAttribute("hidden", now.demo === undefined);
    if (now.demo === undefined) { textBox.textContent = now.text; return; }
    const step = state.demo[now.demo];
    const owner = step.board[String(step.to)] || "";
    textBox.textContent = step.to > 30
      ? _("a demo game: {player} bears a piece off from {from}", { player: state.names[owner] || owner, from: step.from })
      : _("a demo game: {player} moves from {from} to {to}", { player: state.names[owner] || owner, from: step.from, to: step.to });
    drawBoard(svg, boardState(step.board), { plain: true });
    if (step.to <= 30) arrow(el("g", { class: "overlay" }, svg), step.from, step.to, "move");
  }

  function next() {
    frame += 1;
    show();
    timer = setTimeout(next, FRAME_MS);
  }

  function start() {
    box.hidden = false;
    frame = 0;
    show();
    timer = setTimeout(next, FRAME_MS);
  }

  function stop() {
    clearTimeout(timer);
    timer = null;
    box.hidden = true;
  }

  document.addEventListener("senet:state", (e) => {
    const previous = state;
    state = e.detail;
    if (state.touched) { if (timer !== null) stop(); return; }
    if (timer === null) { start(); return; }
    if (previous && previous.game !== state.game) frame = 0;  // a new game began: the loop from its start
    show();  // the same loop, with the latest board (a fix done, the next one shown)
  });
})();
