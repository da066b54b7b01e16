// The room screen: every table on one screen, in its number's order, whatever their count (1
// to 60 fill a 1080p TV legibly from 3 m); the tables needing the floor, worst first, in the
// attention strip. A card is built once and only its texts change: the time to act counts on
// between pushes, never blanked by a redraw. A floor following several venues groups the
// tables by venue, each group after a tile of its venue's clock (its level and time left).
"use strict";
(() => {
  const { floor, el, setText, chips, short, mmss, clockNow, renderClockStrip, decide,
    start, domKey, keyOf, venueState, venueWords, over, hasCash } = window.floorApp;
  const LEGEND = "seats · ⌀ average stack · hands/h";
  const CASH_LEGEND = "seats · ⌀ average stack · hands/h · cash: game, seats open, waiting";
  const grid = document.getElementById("tables");
  const strip = document.getElementById("attention");
  const cards = new Map();  // table's key -> its card's nodes
  const heads = new Map();  // venue -> its tile (a floor following several venues)
  const RANK = { urgent: 3, warning: 2, notice: 1 };
  // A card is four lines; its widest ("preflop 23.6k", "10/10 ⌀25k") about 4.8 em of a narrow
  // face. The grid's fitting below solves for the largest font, then measures what overflows.
  const CARD_LINES = 4, LINE = 1.05, CARD_EMS = 4.9, PAD_X = 0.65, PAD_Y = 0.35;
  // A cash table's card has a fifth line, its game ("NLH 2/5"), and says the seats open and
  // how many wait for its game ("2 open", "3 wait": about 6.3 em) where a tournament's says
  // the seats and the average stack.
  const CASH_LINES = 5, CASH_EMS = 6.4;
  const GAP = 4;  // px, as floor.css has it

  // The clock's answers to decisions taken on the room screen, shown for a while.
  const answers = new Map();

  async function release(table) {
    // Asked first (a click on the strip let a round go on without a table that was only
    // playing its hand): PVB 35a's decision is for a table that is offline or does not answer
    const c = floor.clock;
    const late = c && (c.late || []).includes(table);
    if (!confirm(late
      ? `Table ${table} does not answer. Let the hand-for-hand round go on without it? It joins `
        + "a later round (PVB 35a)."
      : `Table ${table} is playing its hand and answers. Go on without it anyway? The round `
        + "would not wait for its hand (PVB 35a: for a table offline or stuck).")) return;
    const reply = await decide("clock", "release_table", { table }, null);
    const ok = reply.status === "ok";
    answers.set(table, { ok, at: Date.now(),
      text: ok ? `done: ${reply.reason}` : `refused: ${reply.reason || "no answer"}` });
    renderStrip();
  }

  const byNumber = (a, b) => (Number(a) || 1e9) - (Number(b) || 1e9) || String(a).localeCompare(String(b));
  // The cards' order: by number; on a floor following several venues, venue by venue first.
  const venueRank = (venue) => floor.venues.indexOf(venue);
  const byPlace = (x, y) => {
    const a = floor.tables.get(x), b = floor.tables.get(y);
    return (a && b && a.venue ? venueRank(a.venue) - venueRank(b.venue) : 0) ||
      byNumber(a ? a.table : x, b ? b.table : y);
  };
  const tableLink = (venue, table) =>
    `/table/${encodeURIComponent(table)}${venue ? `?venue=${encodeURIComponent(venue)}` : ""}`;

  function pot(state) {  // the table's pots already hold this round's bets
    return (state.pots || []).reduce((sum, p) => sum + p.amount, 0);
  }

  // What the table is doing when nobody is to act, in a word or two.
  function waiting(view) {
    const s = view.state;
    if (view.out_of_play) return view.out_of_play;  // "broken", "not in use": switched off or not
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

  function build(key) {
    const view = floor.tables.get(key);
    const table = view ? view.table : key, venue = view ? view.venue : null;
    const tag = floor.tv ? "div" : "a";
    const parts = {
      number: el("span", { class: "number" }, table),
      rate: el("span", { class: "rate" }),
      act: el("span", { class: "act" }),
      street: el("span", { class: "street" }),
      pot: el("span", { class: "pot" }),
      seats: el("span", { class: "seats" }),
      average: el("span", { class: "average" }),
      game: el("span", { class: "game" }),
    };
    const node = el(tag, { class: "card", id: `table-${domKey(venue, table)}`,
      "data-venue": venue, href: floor.tv ? null : tableLink(venue, table) },
    el("div", { class: "body" },
      el("div", { class: "row" }, parts.number, parts.rate),
      el("div", { class: "row cash-row" }, parts.game),
      el("div", { class: "row" }, parts.act),
      el("div", { class: "row" }, parts.street, parts.pot),
      el("div", { class: "row" }, parts.seats, parts.average)));
    return { node, parts, timer: null };
  }

  // A venue's tile, first of its group: its name, its clock's level, the time left, and what
  // stops it (paused, clock offline, its link to the league down).
  function buildHead(venue) {
    const parts = { level: el("span", { class: "level" }), status: el("span", { class: "status" }) };
    const node = el("div", { class: "card venue-head", id: `venue-${venue}` },
      el("div", { class: "body" },
        el("div", { class: "row" }, el("span", { class: "number" }, venue)),
        el("div", { class: "row" }, parts.level),
        el("div", { class: "row" }, el("span", { class: "left", "data-clock-of": venue }, "--:--")),
        el("div", { class: "row" }, parts.status)));
    return { node, parts };
  }

  function updateHead(head, venue) {
    const words = venueWords(venueState(venue));
    setText(head.parts.level, words.level);
    setText(head.parts.status, words.status || words.blinds);
    head.node.classList.toggle("stopped", !!words.status);
    head.node.classList.toggle("down", words.status === "link down" || words.status === "clock offline");
  }

  function update(card, view) {
    const s = view.state;
    const { node, parts } = card;
    const classes = ["card", view.online === false ? "offline" : "online"];
    if (view.out_of_play) classes.push("out");
    if (view.severity) classes.push(`needs ${view.severity}`);
    if (view.stalled) classes.push("stalled");
    if (s && s.actor !== null && s.actor !== undefined) classes.push("acting");
    const cash = cashOf(view);
    if (cash) classes.push("cash");
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
    } else if (s && s.shot_clock && s.shot_clock.seat && view.online !== false) {
      const shot = s.shot_clock;  // the table's shot clock (docs/shot-clock.md)
      if (shot.running) {
        actNode(card, `S${shot.seat} `, "countdown", { left: shot.remaining,
          from: shot.since + (view.clock_offset || 0) }, `${Math.ceil(shot.remaining)} s`);
      } else actNode(card, `S${shot.seat} ${shot.out ? "time up" : "held"}`, null, null, "");
    } else if (s && s.actor !== null && s.actor !== undefined && view.online !== false) {
      actNode(card, `S${s.actor} `, "since", { since: view.actor_since },
        view.actor_since ? mmss(clockNow() - view.actor_since) : "");
    } else {
      actNode(card, waiting(view), null, null, "");
    }
    const playing = s && ["betting", "dealing", "showdown"].includes(s.stage);
    setText(parts.street, playing ? (s.street || s.stage) : s && !view.out_of_play ? `hand ${s.hand}` : "");
    setText(parts.pot, playing ? short(pot(s)) : "");
    setText(parts.game, cash ? cash.game : "");
    if (cash) {  // CG Tischwechsel: the seats the floor may give, the players its list holds
      setText(parts.seats, `${cash.open} open`);
      parts.seats.classList.toggle("free", cash.open > 0);
      setText(parts.average, cash.waiting === null ? "" : `${cash.waiting} wait`);
      return;
    }
    setText(parts.seats, s ? `${view.players}/${s.seat_count || view.players + view.free_seats}` : "");
    // (a broken table's empty seats are no seats to fill: "0/6" showed in the free-seat green)
    parts.seats.classList.toggle("free", !!view.free_seats && !view.out_of_play);
    setText(parts.average, view.average_stack ? `⌀${short(view.average_stack, 2)}` : "");
  }

  // ---------------------------------------------------------------- cash tables (the CG)

  // The cash floor's state (`pokertable cash`: /api/cash), fetched every two seconds as the
  // cash page does; null while there is no cash floor.
  let cashState = null, cashText = null;
  const SHORT_GAMES = { NT: { "no-limit": "NLH", "pot-limit": "PLH", "split-limit": "LHE" },
    PO: { "no-limit": "NLO", "pot-limit": "PLO", "split-limit": "LO" } };

  // A cash table's game and limit, seats open and the length of its game's waiting list: as
  // the cash floor has them (its game's name, "NLH 2/5"), else from the table's own state
  // (a cash table dealing without the cash floor: its game, limit and blinds, its free seats).
  // Null for a tournament's table. A venue's own cash floor only: a league's floor has none.
  function cashOf(view) {
    const s = view.state;
    const line = !view.venue && cashState
      ? cashState.tables.find((t) => t.table === view.table && t.game) : null;
    if (line) {
      const game = cashState.games.find((g) => g.game === line.game);
      return { game: line.game, open: line.seats_open, waiting: game ? game.waiting : null };
    }
    if (!s || !s.game) return null;
    const name = (SHORT_GAMES[s.game] || {})[s.betting] || s.game;
    return { game: `${name} ${chips(s.blinds.sb)}/${chips(s.blinds.bb)}`, open: view.free_seats,
      waiting: null };
  }

  // Asked only in a room with cash games (`hasCash`). A tournament's room has no cash floor:
  // it answered 404 every two seconds, an error in the console each time, on every TV. (A
  // room dealing cash without the cash floor is answered 204: none, no error.)
  let cashAsked = false;

  async function refreshCash() {
    if (!hasCash()) return;
    cashAsked = true;
    let text = null;
    try {
      const response = await fetch("/api/cash", { cache: "no-store" });
      text = response.ok ? await response.text() : null;
    } catch (e) { return; /* the server is away: the banner says so */ }
    if (text === cashText) return;
    cashText = text;
    try { cashState = text ? JSON.parse(text) : null; } catch (e) { cashState = null; }
    render();
  }

  // A card is five lines where one is a cash table's (every card the same height)
  const cashRoom = () => [...floor.tables.values()].some((v) => cashOf(v));

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

  // Each group of cards starts a row (its venue's tile first): the rows that ``cols`` take.
  function rowsFor(cols) {
    if (!floor.league) return Math.ceil(Math.max(1, floor.tables.size) / cols);
    return floor.venues.reduce((rows, venue) => rows +
      Math.ceil((1 + [...floor.tables.values()].filter((v) => v.venue === venue).length) / cols), 0);
  }

  function fit() {
    const count = Math.max(1, floor.tables.size + (floor.league ? floor.venues.length : 0));
    if (window.innerWidth < 700) {  // a phone: one or two columns, scrolled
      grid.classList.remove("fit");
      return;
    }
    grid.classList.add("fit");
    const width = grid.clientWidth, height = grid.clientHeight;
    let best = null;
    const cash = cashRoom();
    grid.classList.toggle("cash", cash);
    const lines = cash ? CASH_LINES : CARD_LINES, ems = cash ? CASH_EMS : CARD_EMS;
    for (let cols = 1; cols <= count; cols++) {
      const rows = rowsFor(cols);
      const w = (width - GAP * (cols + 1)) / cols, h = (height - GAP * (rows + 1)) / rows;
      const font = Math.min(h / (lines * LINE + PAD_Y), w / (ems + PAD_X));
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
      b.attention.length - a.attention.length ||
      (a.venue ? venueRank(a.venue) - venueRank(b.venue) : 0) || byNumber(a.table, b.table));
    const items = views.map((v) => ({ table: v.table, venue: v.venue, severity: v.severity,
      text: v.attention[0].text }));
    if (floor.clockOnline === false && !floor.league) {  // no level or break changes at the tables
      items.unshift({ table: "clock", severity: "urgent", text: "is offline: announce the levels" });
    }
    for (const venue of floor.league ? [...floor.venues].reverse() : []) {  // each venue's
      const v = venueState(venue);
      if (v.clock_online === false) {
        items.unshift({ table: "clock", venue, severity: "urgent", text: "is offline: its floor announces the levels" });
      }
      if (v.bridge === false) {
        items.unshift({ table: "bridge", venue, severity: "warning", text: "down: what shows of it may be old" });
      }
    }
    // The recorder's and the tournament's own, and those of a table without a card (one the
    // tournament names that never said a word), until acknowledged: the worst, the newest first
    const loose = new Map();
    for (const a of floor.alerts.values()) {
      const known = floor.tables.has(keyOf(a.venue, a.table));
      if (!["recorder", "tournament", "cash"].includes(a.table) && (known || ["clock", "bridge"].includes(a.table))) continue;
      const key = domKey(a.venue, a.table);
      const was = loose.get(key);
      if (!was || RANK[a.severity] > RANK[was.top.severity] ||
          (RANK[a.severity] === RANK[was.top.severity] && a.at > was.top.at)) {
        loose.set(key, { top: a, count: (was ? was.count : 0) + 1 });
      } else was.count += 1;
    }
    const looseItems = [...loose.values()].map(({ top, count }) => ({ table: top.table,
      venue: top.venue, severity: top.severity,
      text: top.text + (count > 1 ? ` (+${count - 1} more)` : "") }));
    looseItems.sort((a, b) => RANK[b.severity] - RANK[a.severity]);
    for (const item of looseItems) {  // urgent ones with the worst tables, the rest after them
      const at = items.findIndex((i) => RANK[i.severity] < RANK[item.severity]);
      if (at < 0) items.push(item); else items.splice(at, 0, item);
    }
    const c = floor.clock;
    if (!floor.tv && floor.user && !floor.readOnly && c && c.hand_for_hand && !over()) {  // PVB 35a: the floor may go on
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
    const waits = new Set(c && c.hand_for_hand && !over() ? c.waiting || [] : []);
    const staff = !floor.tv && !!floor.user && !floor.readOnly;
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
      const service = ["clock", "recorder", "bridge", "tournament", "cash"].includes(item.table);
      const label = (item.venue ? `${item.venue} ` : "") + (item.table === "bridge"
        ? "link to the league" : item.table === "cash" ? "the cash floor"
        : service ? `the ${item.table}` : `table ${item.table}`);
      const href = floor.tv ? null : item.table === "tournament" && !item.venue ? "/tournament"
        : item.table === "cash" && !item.venue ? "/cash"
        : service ? null : tableLink(item.venue, item.table);
      const answer = item.venue ? null : said(item.table);
      return el("span", { class: "need-item", id: `need-${domKey(item.venue, item.table)}` },
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

  let wasCash = false;
  function render(changed, kind) {
    if (!cashAsked && hasCash()) refreshCash();  // (the first cash table, at once)
    const cash = cashRoom();
    renderClockStrip(cash ? CASH_LEGEND : LEGEND);
    if (kind === "tournament") {  // its end: the tiles and the strip say so; no card changes
      for (const [venue, head] of heads) updateHead(head, venue);
      renderStrip();
      return;
    }
    const tables = [...floor.tables.keys()].sort(byPlace);
    const same = tables.length === cards.size && tables.every((t) => cards.has(t));
    if (!same) {
      for (const table of [...cards.keys()]) if (!floor.tables.has(table)) cards.delete(table);
      for (const table of tables) if (!cards.has(table)) cards.set(table, build(table));
      const nodes = [];
      for (const venue of floor.league ? floor.venues : [null]) {
        if (venue) {
          if (!heads.has(venue)) heads.set(venue, buildHead(venue));
          nodes.push(heads.get(venue).node);
        }
        for (const t of tables) if (!venue || floor.tables.get(t).venue === venue) nodes.push(cards.get(t).node);
      }
      grid.replaceChildren(...nodes);
      fit();
    } else if (cash !== wasCash) fit();  // a fifth line, or no longer
    wasCash = cash;
    for (const [venue, head] of heads) updateHead(head, venue);
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
  start(["table", "clock", "alert", "broker", "tournament"], null, render);
  setInterval(refreshCash, 2000);
})();
