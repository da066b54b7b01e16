// The room screen: every table on one screen, in its number's order, whatever their count (1
// to 60 fill a 1080p TV legibly from 3 m); the tables needing the floor, worst first, in the
// attention strip. A card is built once and only its texts change: the time to act counts on
// between pushes, never blanked by a redraw.
"use strict";
(() => {
  const { floor, el, setText, chips, short, mmss, clockNow, renderClockStrip, decide,
    start } = window.floorApp;
  const grid = document.getElementById("tables");
  const strip = document.getElementById("attention");
  const cards = new Map();  // table -> its card's nodes
  const RANK = { urgent: 3, warning: 2, notice: 1 };
  // A card is four lines; its widest ("preflop 23.6k", "10/10 ⌀25k") about 4.8 em of a narrow
  // face. The grid's fitting below solves for the largest font, then measures what overflows.
  const CARD_LINES = 4, LINE = 1.05, CARD_EMS = 4.9, PAD_X = 0.65, PAD_Y = 0.35;
  const GAP = 4;  // px, as floor.css has it

  // The clock's answers to decisions taken on the room screen, shown for a while.
  const answers = new Map();

  async function release(table) {
    const reply = await decide("clock", "release_table", { table }, null);
    const ok = reply.status === "ok";
    answers.set(table, { ok, at: Date.now(),
      text: ok ? `done: ${reply.reason}` : `refused: ${reply.reason || "no answer"}` });
    renderStrip();
  }

  const byNumber = (a, b) => (Number(a) || 1e9) - (Number(b) || 1e9) || String(a).localeCompare(String(b));

  function pot(state) {  // the table's pots already hold this round's bets
    return (state.pots || []).reduce((sum, p) => sum + p.amount, 0);
  }

  // What the table is doing when nobody is to act, in a word or two.
  function waiting(view) {
    const s = view.state;
    if (view.online === false) return "OFFLINE";
    if (!s) return "no state";
    const holds = s.holds || {};
    if (s.stage === "waiting") {
      if (holds.break) return "break";
      if (holds.hand_for_hand) return "h4h: held";
      if (holds.floor) return "held";
      return "shuffle";
    }
    return { dealing: "dealing", showdown: "showdown", over: "pots" }[s.stage] || s.stage;
  }

  // ---------------------------------------------------------------- a card

  function build(table) {
    const tag = floor.tv ? "div" : "a";
    const parts = {
      number: el("span", { class: "number" }, table),
      rate: el("span", { class: "rate" }),
      act: el("span", { class: "act" }),
      street: el("span", { class: "street" }),
      pot: el("span", { class: "pot" }),
      seats: el("span", { class: "seats" }),
      average: el("span", { class: "average" }),
    };
    const node = el(tag, { class: "card", id: `table-${table}`,
      href: floor.tv ? null : `/table/${encodeURIComponent(table)}` },
    el("div", { class: "body" },
      el("div", { class: "row" }, parts.number, parts.rate),
      el("div", { class: "row" }, parts.act),
      el("div", { class: "row" }, parts.street, parts.pot),
      el("div", { class: "row" }, parts.seats, parts.average)));
    return { node, parts, timer: null };
  }

  function update(card, view) {
    const s = view.state;
    const { node, parts } = card;
    const classes = ["card", view.online === false ? "offline" : "online"];
    if (view.severity) classes.push(`needs ${view.severity}`);
    if (view.stalled) classes.push("stalled");
    if (s && s.actor !== null && s.actor !== undefined) classes.push("acting");
    const name = classes.join(" ");
    if (node.className !== name) node.className = name;
    node.dataset.hand = s ? s.hand : "";
    node.dataset.stage = s ? s.stage : "";
    setText(parts.rate, view.hands_per_hour !== null && view.hands_per_hour !== undefined
      ? `${Math.round(view.hands_per_hour)}/h` : "");
    // The seat to act and for how long: its node stays, the tick counts it on.
    if (s && s.clock) {
      const sentAt = view.sent + (view.clock_offset || 0);
      actNode(card, `time S${s.clock.seat} `, "countdown",
        { left: s.clock.remaining, from: sentAt }, `${Math.ceil(s.clock.remaining || 0)} s`);
    } else if (s && s.actor !== null && s.actor !== undefined && view.online !== false) {
      actNode(card, `S${s.actor} `, "since", { since: view.actor_since },
        view.actor_since ? mmss(clockNow() - view.actor_since) : "");
    } else {
      actNode(card, waiting(view), null, null, "");
    }
    const playing = s && ["betting", "dealing", "showdown"].includes(s.stage);
    setText(parts.street, playing ? (s.street || s.stage) : s ? `hand ${s.hand}` : "");
    setText(parts.pot, playing ? short(pot(s)) : "");
    setText(parts.seats, s ? `${view.players}/${s.seat_count || view.players + view.free_seats}` : "");
    parts.seats.classList.toggle("free", !!view.free_seats);
    setText(parts.average, view.average_stack ? `⌀${short(view.average_stack, 2)}` : "");
  }

  // Row 2: a fixed text, or a fixed text and a counter the tick keeps counting.
  function actNode(card, text, kind, data, first) {
    const act = card.parts.act;
    const key = `${text}|${kind}|${JSON.stringify(data)}`;
    if (act.dataset.key === key) return;  // the same turn: the counter goes on untouched
    act.dataset.key = key;
    if (!kind) { act.replaceChildren(text); return; }
    const counter = kind === "since"
      ? el("span", { class: "since", "data-since": data.since }, first)
      : el("span", { class: "countdown", "data-left": data.left, "data-from": data.from }, first);
    act.replaceChildren(text, counter);
  }

  // ---------------------------------------------------------------- the grid fills the screen

  function fit() {
    const count = Math.max(1, floor.tables.size);
    if (window.innerWidth < 700) {  // a phone: one or two columns, scrolled
      grid.classList.remove("fit");
      return;
    }
    grid.classList.add("fit");
    const width = grid.clientWidth, height = grid.clientHeight;
    let best = null;
    for (let cols = 1; cols <= count; cols++) {
      const rows = Math.ceil(count / cols);
      const w = (width - GAP * (cols + 1)) / cols, h = (height - GAP * (rows + 1)) / rows;
      const font = Math.min(h / (CARD_LINES * LINE + PAD_Y), w / (CARD_EMS + PAD_X));
      if (!best || font > best.font) best = { cols, rows, font };
    }
    grid.style.setProperty("--cols", best.cols);
    grid.style.setProperty("--rows", best.rows);
    font = Math.floor(Math.min(best.font, height / 7));
    grid.style.setProperty("--card-font", `${font}px`);
    shrink();
  }

  // A line wider than its card (a long pot, a wide font on this screen) makes every card's
  // font smaller, never cut: measured, at most once a second.
  let font = 0, measured = 0;
  function shrink() {
    if (!grid.classList.contains("fit")) return;
    measured = Date.now();
    let ratio = 1;
    for (const row of grid.querySelectorAll(".card .row")) {
      if (row.scrollWidth > row.clientWidth) ratio = Math.min(ratio, row.clientWidth / row.scrollWidth);
    }
    if (ratio < 1) {
      font = Math.floor(font * ratio);
      grid.style.setProperty("--card-font", `${font}px`);
    }
  }

  // ---------------------------------------------------------------- the attention strip

  function needing() {
    const views = [...floor.tables.values()].filter((v) => v.attention.length);
    views.sort((a, b) => RANK[b.severity] - RANK[a.severity] ||
      b.attention.length - a.attention.length || byNumber(a.table, b.table));
    const items = views.map((v) => ({ table: v.table, severity: v.severity, text: v.attention[0].text }));
    if (floor.clockOnline === false) {  // no level or break changes at the tables
      items.unshift({ table: "clock", severity: "urgent", text: "is offline: announce the levels" });
    }
    for (const a of floor.alerts.values()) {  // the recorder's, until acknowledged
      if (a.table === "recorder") items.push({ table: a.table, severity: a.severity, text: a.text });
    }
    const c = floor.clock;
    if (!floor.tv && floor.user && c && c.hand_for_hand) {  // PVB 35a: the floor may go on
      for (const table of c.waiting || []) {
        if (!items.some((i) => i.table === table)) {
          items.push({ table, severity: "notice", text: "the hand-for-hand round waits for it" });
        }
      }
    }
    for (const [table, answer] of answers) {  // the floor's answer, said a while
      if (Date.now() - answer.at < 15000 && !items.some((i) => i.table === table)) {
        items.push({ table, severity: "notice", text: "" });
      }
    }
    return items;
  }

  let stripKey = "";
  function renderStrip() {
    const items = needing();
    const c = floor.clock;
    const waits = new Set(c && c.hand_for_hand ? c.waiting || [] : []);
    const staff = !floor.tv && !!floor.user;
    const said = (table) => {
      const answer = answers.get(table);
      return answer && Date.now() - answer.at < 15000 ? answer : null;
    };
    // Drawn again only when what it says changes: a button is not replaced under a click.
    const key = JSON.stringify([items, [...waits], staff, items.map((i) => said(i.table)),
      strip.clientWidth]);
    if (key === stripKey) return;
    stripKey = key;
    const nodes = items.map((item) => {
      const service = item.table === "clock" || item.table === "recorder";
      const label = service ? `the ${item.table}` : `table ${item.table}`;
      const href = floor.tv || service ? null : `/table/${encodeURIComponent(item.table)}`;
      const answer = said(item.table);
      return el("span", { class: "need-item", id: `need-${item.table}` },
        el(href ? "a" : "span", { class: `need ${item.severity}`, href },
          el("b", {}, label), ` ${item.text}`),
        staff && waits.has(item.table)
          ? el("button", { class: "release", onclick: () => release(item.table) }, "go on without it")
          : null,
        answer ? el("span", { class: `reply ${answer.ok ? "ok" : "error"}` }, ` ${answer.text}`) : null);
    });
    if (!nodes.length) nodes.push(el("span", { class: "all-well" }, "every table plays: nothing needs the floor"));
    strip.replaceChildren(...nodes);
    if (!grid.classList.contains("fit")) return;  // a phone: the strip wraps, all of it shows
    // What does not fit on the strip's one line is counted, never cut in half.
    let hidden = 0;
    const room = strip.clientWidth;
    const more = el("span", { class: "more" });
    strip.append(more);
    for (const node of [...strip.children].reverse()) {
      if (node === more) continue;
      if (more.offsetLeft + more.offsetWidth <= room && node.offsetLeft + node.offsetWidth <= room) break;
      node.hidden = true;
      hidden += 1;
      more.textContent = `+${hidden} more`;
    }
    if (!hidden) more.remove();
  }

  // ---------------------------------------------------------------- render

  function render(changed) {
    renderClockStrip("seats · ⌀ average stack · hands/h");
    const tables = [...floor.tables.keys()].sort(byNumber);
    const same = tables.length === cards.size && tables.every((t) => cards.has(t));
    if (!same) {
      for (const table of [...cards.keys()]) if (!floor.tables.has(table)) cards.delete(table);
      for (const table of tables) if (!cards.has(table)) cards.set(table, build(table));
      grid.replaceChildren(...tables.map((t) => cards.get(t).node));
      fit();
    }
    for (const table of changed && same ? [changed] : tables) {
      const view = floor.tables.get(table);
      if (view && cards.has(table)) update(cards.get(table), view);
    }
    renderStrip();
    if (Date.now() - measured > 1000) shrink();
    const count = document.getElementById("alert-count");
    if (count) setText(count, floor.alerts.size ? String(floor.alerts.size) : "");
  }

  new ResizeObserver(() => { fit(); renderStrip(); }).observe(grid);
  start(["table", "clock", "alert", "broker"], null, render);
})();
