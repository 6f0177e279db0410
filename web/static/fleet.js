// The fleet dashboard: sign in with the operator PIN, then one row per board, kept live by
// server-sent events. Text only through textContent (no HTML from the boards). No sound.
"use strict";
(function () {
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const boards = new Map();
  let canCommand = false;
  let source = null;

  const $ = (id) => document.getElementById(id);
  // The page's language: its catalogue is in the page (<script id="texts">), English where it has none.
  const TEXTS = JSON.parse(($("texts") || {}).textContent || "{}");
  const _ = (msgid, params) => (TEXTS[msgid] || msgid).replace(/\{(\w+)\}/g, (whole, key) => (params && key in params ? String(params[key]) : whole));
  const clock = (t) => (t ? new Date(t * 1000).toLocaleTimeString() : "?");
  // The players by their pieces, as the boards' own pages name them (A, B... stay internal).
  const PLAYERS = { A: _("White"), B: _("Green"), C: _("Red"), D: _("Blue") };
  const PIECES = { A: _("the white cones"), B: _("the green spools"), C: _("the red cones"), D: _("the blue spools") };
  const who = (p) => PLAYERS[p] || p || "";
  const whoFull = (p) => (PIECES[p] ? _("{player} ({pieces})", { player: who(p), pieces: PIECES[p] }) : who(p));
  // Each verdict in words, never its code; a sentence the board said keeps its words, its ruling ids dropped.
  const SAID = {
    new_game: () => _("a new game"), move: (v) => _("{player} moved {from} to {to}", { player: who(v.player), from: v.from, to: v.to }),
    throw: (v) => _("{player} threw {value}", { player: who(v.player), value: Array.isArray(v.value) ? v.value.join(" + ") : v.value }),
    win: (v) => _("{player} won", { player: who(v.player) }), bonus: (v) => _("{player} throws again", { player: who(v.player) }),
    turn: (v) => _("{player} to throw", { player: who(v.player) }), undone: () => _("a move taken back"),
    resync: () => _("the board as it is was taken"), card: (v) => _("{player} played a card", { player: who(v.player) }),
    answered: (v) => _("answered: {answer}", { answer: v.answer }), withdrawn: () => _("a question withdrawn"),
    settled: () => _("the board is as the game expects"), cleared: () => _("the board is right again"),
  };

  async function post(url, body) {
    const answer = await fetch(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body || {}),
      credentials: "same-origin",
    });
    let data = {};
    try { data = await answer.json(); } catch (e) { data = {}; }
    return { ok: answer.ok, status: answer.status, data };
  }

  function cell(row, text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    row.appendChild(td);
    return td;
  }

  function gameText(b) {
    if (!b.variant) return _("no state heard");
    const what = b.winner ? _("won by {player}", { player: who(b.winner) }) : b.touched ? _("in play") : _("waiting for players");
    return b.variant + (b.game ? " #" + b.game : "") + ": " + what;
  }

  function verdictText(v) {
    if (!v) return "";
    const words = SAID[v.v] ? SAID[v.v](v) : v.reason || v.text || v.question || "";
    return String(words).replace(/\(([^()]*?),\s*[PSHKM]\d{1,2}\)/g, "($1)").replace(/\s*\([PSHKM]\d{1,2}\)/g, "");
  }

  function statusText(b) {
    if (b.online === null) return _("not heard");
    const since = { time: clock(b.since) };
    if (b.online) return b.since_known ? _("online since {time}", since) : _("online (before {time})", since);
    return b.since_known ? _("offline since {time}", since) : _("offline (before {time})", since);
  }

  function render() {
    const body = $("boards");
    body.replaceChildren();
    const alerts = [];
    for (const name of [...boards.keys()].sort()) {
      const b = boards.get(name);
      const row = document.createElement("tr");
      row.id = "board-" + name;
      if (!b.online) row.className = "offline";
      cell(row, name);
      cell(row, statusText(b), b.online ? "online" : "offline-word");
      cell(row, gameText(b));
      cell(row, b.winner ? "" : whoFull(b.to_move));
      cell(row, verdictText(b.last_verdict));
      cell(row, (b.faults || []).join("; ") || _("none"), b.faults && b.faults.length ? "trouble" : "");
      cell(row, b.journal || _("ok"), b.journal ? "trouble" : "");
      const actions = cell(row, "");
      if (canCommand && b.commands && b.online) {
        for (const [action, label] of [["new_game", _("New game")], ["resync", _("Resync")]]) {
          const button = document.createElement("button");
          button.type = "button";
          button.textContent = label;
          button.dataset.board = name;
          button.dataset.action = action;
          actions.appendChild(button);
        }
      }
      if (b.last_command) actions.append(" " + (b.last_command.ok ? _("done") : _("refused: {why}", { why: b.last_command.error || "" })));
      if (b.alert) alerts.push(b.alert);
      body.appendChild(row);
    }
    $("count").textContent = String(boards.size);
    const line = $("alerts");
    line.textContent = alerts.join(" | ");
    line.hidden = alerts.length === 0;
  }

  function showLink(link) {
    const el = $("link");
    el.textContent = link.connected ? _("broker {broker} connected", { broker: link.broker })
      : _("broker {broker}: {problem}", { broker: link.broker, problem: link.problem || _("not connected") });
    el.className = "link " + (link.connected ? "ok" : "down");
  }

  function listen() {
    if (source) source.close();
    source = new EventSource("/fleet/api/events");
    source.addEventListener("boards", (e) => {
      const data = JSON.parse(e.data);
      boards.clear();
      for (const b of data.boards) boards.set(b.name, b);
      showLink(data.link);
      render();
    });
    source.addEventListener("board", (e) => {
      const b = JSON.parse(e.data);
      if (b) { boards.set(b.name, b); render(); }
    });
    source.addEventListener("link", (e) => showLink(JSON.parse(e.data)));
  }

  async function start() {
    const answer = await fetch("/fleet/api/boards", { credentials: "same-origin" });
    if (answer.status === 401) {
      $("signin").hidden = false;
      $("fleet").hidden = true;
      return;
    }
    if (!answer.ok) return;
    const data = await answer.json();
    canCommand = data.can_command;
    $("signin").hidden = true;
    $("fleet").hidden = false;
    listen();
  }

  const form = $("signin");
  if (!form) return;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const result = await post("/api/op/login", { pin: $("pin").value });
    $("pin").value = "";
    $("signin-error").textContent = result.ok ? "" : result.data.error || _("sign-in failed");
    if (result.ok) start();
  });
  $("signout").addEventListener("click", async () => {
    await post("/api/op/logout");
    if (source) source.close();
    start();
  });
  $("boards").addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-action]");
    if (!button) return;
    const result = await post("/fleet/api/boards/" + encodeURIComponent(button.dataset.board) + "/" + button.dataset.action);
    $("action-result").textContent = result.ok
      ? _("{action} sent to {board}", { action: button.textContent, board: button.dataset.board })
      : result.data.error || _("refused");
  });
  start();
})();
