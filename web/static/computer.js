// Playing against the computer and hints, beside app.js: it draws the computer's move
// (an arrow and its words), the hint the visitor asks for, and what their last move cost, from
// the state app.js renders ("senet:state"); its buttons post through app.js's post().
"use strict";

(function () {
  const box = document.getElementById("play");
  if (!box) return;
  const exhibit = box.dataset.exhibit === "on";
  const WORDS = {
    hintBest: (move, pct) => _("best: {move}, your chance to win {percent} %", { move, percent: pct }),
    hintExact: _("(exact: the game is solved here)"),
    hintChance: (pct) => _("your chance to win: {percent} %", { percent: pct }),
    thinking: _("thinking..."), noHint: _("no hint now"),
    fromTo: (from, to) => _("{from_sq} → {to}", { from_sq: from, to }),  // the arrow points the reading way (ar: ←)
    alone: _("play alone against the computer"), together: _("play with two people again"),
  };
  let hint = null;  // {position, data}: the hint for the position it was asked in
  let asked = null;  // the position a hint request is out for
  let last = null;

  function position(state) { return `${state.game}:${state.history.length}:${state.to_move}:${JSON.stringify(state.throw)}`; }
  function pct(win) { return Math.round(win * 100); }
  function arrows() { return document.getElementById("board"); }

  function markers(svg) {  // arrowheads for the computer's and the hint's arrows, beside app.js's own
    const d = svg.querySelector("defs");
    if (!d) return;
    for (const kind of ["computer", "hint", "better"]) {
      if (svg.querySelector(`#${svg.id}-arrow-${kind}`)) continue;
      const m = el("marker", { id: `${svg.id}-arrow-${kind}`, viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 4, markerHeight: 4, orient: "auto-start-reverse" }, d);
      el("path", { d: "M0 0 L10 5 L0 10 z", class: `arrowhead ${kind}` }, m);
    }
  }

  function drawArrows(state) {
    const svg = arrows();
    if (!svg) return;
    svg.querySelectorAll(":scope > g.play-layer").forEach((g) => g.remove());
    markers(svg);
    const layer = el("g", { class: "overlay play-layer" }, svg);
    const move = state.computer && state.computer.move;
    if (move) arrow(layer, move.from, move.to, "computer");
    const lost = state.coach && state.coach.lost;
    if (lost && !move) arrow(layer, lost.best.from, lost.best.to, "better");
    if (hint && hint.position === position(state) && hint.data.moves && hint.data.moves.length) {
      const best = hint.data.moves[0];
      arrow(layer, best.from, best.to, "hint");
    }
  }

  function show(id, words) {
    const node = document.getElementById(id);
    node.hidden = !words;
    node.textContent = words || "";
  }

  function draw(state) {
    last = state;
    const seats = (state.computer && state.computer.seats) || {};
    const mover = state.winner ? null : state.to_move;
    const computerMoves = mover && mover in seats;
    const move = state.computer && state.computer.move;
    show("computer-move", move ? move.text : "");
    const lost = state.coach && state.coach.lost;
    show("coach-lost", lost ? lost.text : "");
    if (hint && hint.position !== position(state)) hint = null;  // the position moved on: the hint is stale
    if (!hint && asked !== position(state)) show("hint-text", "");
    const button = document.getElementById("hint-button");
    button.hidden = !state.coach || Boolean(state.winner) || Boolean(computerMoves) || Boolean(state.setup);
    const alone = document.getElementById("alone");
    const on = Object.keys(seats).length > 0;
    alone.hidden = !state.computer || !(exhibit || on) || state.turn_starts_with === "card";
    alone.textContent = on ? WORDS.together : WORDS.alone;
    alone.setAttribute("aria-pressed", String(on));
    drawArrows(state);
  }

  function said(data) {
    if (data.moves && data.moves.length) {
      const best = data.moves[0];
      return WORDS.hintBest(WORDS.fromTo(best.from, best.to), pct(best.win)) + (data.exact === false ? "" : " " + WORDS.hintExact);
    }
    return data.win == null ? WORDS.noHint : WORDS.hintChance(pct(data.win)) + (data.exact === false ? "" : " " + WORDS.hintExact);
  }

  async function askHint(tries) {
    if (!last) return;
    const where = position(last);
    asked = where;
    show("hint-text", WORDS.thinking);
    const response = await fetch(`/api/hint?lang=${LANG}`, { credentials: "same-origin" });
    if (asked !== where || !last || position(last) !== where) return;  // the game moved on meanwhile
    if (response.status === 202 && tries > 0) { setTimeout(() => askHint(tries - 1), 700); return; }
    const data = response.ok && response.status === 200 ? await response.json() : null;
    asked = null;
    if (!data || data.over || data.error) { show("hint-text", WORDS.noHint); return; }
    hint = { position: where, data };
    show("hint-text", said(data));
    say(said(data));
    drawArrows(last);
  }

  document.getElementById("hint-button").addEventListener("click", () => askHint(20));
  document.getElementById("alone").addEventListener("click", async () => {
    const on = !(last && last.computer && Object.keys(last.computer.seats).length);
    const result = await post("/api/computer/alone", { on });
    if (result.ok && result.data.state) render(result.data.state);
    else text("op-error", result.data.error || TEXT.boardRefused);
  });
  const form = document.getElementById("op-computer");
  if (form) form.addEventListener("submit", (e) => {
    e.preventDefault();
    const seat = e.target.seat.value;
    op("computer", { seats: seat ? { [seat]: Number(e.target.level.value) } : {} });
  });
  document.addEventListener("senet:state", (e) => draw(e.detail));
  if (current) draw(current);  // app.js drew the first state before this script ran
})();
