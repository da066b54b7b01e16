// The broadcast feed (docs/broadcast.md): a sealed hand, step by step, as the server releases
// it after the table's delay. The page only draws what arrives: the delay is the server's.
"use strict";
(() => {
  const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
  const $ = (id) => document.getElementById(id);
  const path = location.pathname.split("/").filter(Boolean);
  const table = path.length > 1 ? decodeURIComponent(path[1]) : null;
  let delay = 0;
  let current = table; // the table shown (/broadcast: the feature table, as the server says)

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function cards(text) {
    const box = el("div", "cards");
    for (let i = 0; i + 1 < text.length; i += 2) {
      const rank = text[i] === "T" ? "10" : text[i];
      const suit = text[i + 1];
      const card = el("span", suit === "h" || suit === "d" ? "card red" : "card",
                      rank + (SUITS[suit] || "?"));
      card.dataset.card = text.slice(i, i + 2);
      box.append(card);
    }
    return box;
  }

  const chips = (n) => n.toLocaleString("en-US");
  const minutes = (s) => (s >= 60 ? `${+(s / 60).toFixed(1)} min` : `${Math.round(s)} s`);

  function draw(step, tableName) {
    $("b-table").textContent = tableName ? `Table ${tableName}` : "No feature table";
    $("b-waiting").hidden = !!step;
    $("b-waiting").textContent = tableName ? "The next hand shows after the delay"
                                           : "The floor has chosen no feature table";
    if (!step) {
      for (const id of ["b-hand", "b-level", "b-pot", "b-equity-note"]) $(id).textContent = "";
      for (const id of ["b-board", "b-actions", "b-results", "b-seats"]) $(id).replaceChildren();
      return;
    }
    $("b-hand").textContent = `hand ${step.hand}`;
    $("b-level").textContent = `level ${step.level} · ${step.blinds}`;
    const boards = step.boards.length ? step.boards : [step.board];
    $("b-boards").replaceChildren(...boards.map((b, k) => {
      const box = cards(b);
      box.id = k === 0 ? "b-board" : `b-board-${k + 1}`;
      return box;
    }));
    $("b-pot").textContent = chips(step.pot);
    const eq = step.equity;
    $("b-equity-note").textContent = !eq ? "" : eq.method === "exact"
      ? `equity: exact, every one of ${chips(eq.boards)} boards`
      : `equity: Monte Carlo, ${chips(eq.boards)} random boards`;
    $("b-actions").replaceChildren(...step.actions.map((a) => el("li", "", a)));
    $("b-results").replaceChildren(...step.results.map((r) => el("li", "", r)));
    $("b-seats").replaceChildren(...step.seats.map((s) => {
      const li = el("li", "seat");
      li.dataset.seat = s.seat;
      if (s.folded) li.classList.add("folded");
      if (s.won) li.classList.add("winner");
      if (step.game === "PO") li.classList.add("omaha");
      const name = el("div", "name", s.player);
      if (s.seat === step.button) name.append(el("span", "button", "D"));
      li.append(name, el("div", "stack", chips(s.stack) + (s.bet ? ` · bet ${chips(s.bet)}` : "")),
                cards(s.cards));
      const equity = el("div", "equity", s.equity === null || s.equity === undefined
        ? "" : `${(s.equity * 100).toFixed(1)}%`);
      const bar = el("div", "bar");
      const fill = el("span");
      fill.style.width = `${Math.round((s.equity || 0) * 100)}%`;
      bar.append(fill);
      li.append(equity, bar, el("div", "last", s.won ? `wins ${chips(s.won)}` : s.last));
      return li;
    }));
  }

  function asOf(now) {
    const at = new Date((now - delay) * 1000);
    $("b-delay").textContent = `delayed ${minutes(delay)} · as of ${at.toLocaleTimeString("en-GB")}`;
  }

  const url = "/api/broadcast/stream" + (table ? `?table=${encodeURIComponent(table)}` : "");
  const source = new EventSource(url);
  source.addEventListener("snapshot", (m) => {
    const snap = JSON.parse(m.data);
    delay = snap.delay;
    current = snap.table;
    draw(snap.step, current);
    asOf(snap.now);
  });
  source.addEventListener("step", (m) => draw(JSON.parse(m.data), current));
  source.addEventListener("clock", (m) => {
    const mark = JSON.parse(m.data);
    delay = mark.delay;
    asOf(mark.now);
  });
})();
