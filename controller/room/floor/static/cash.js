// The cash floor's page: what the cash service publishes (fetched every two seconds), and the
// floor's cash decisions behind the floor login. A TV (?tv=1) shows the lists by the initials
// players gave; the telephone numbers come only to a floor login. Every text goes in as text.
"use strict";
(() => {
  const { floor, el, post, start, when, clockNow, mmss, labelCells, busy } = window.floorApp;
  let latest = null;
  let shownText = null;  // re-drawn only when it changed: a select the floor is using stays put
  let phones = new Map();
  // The cash floor's status as the server heard it (X-Cash-Status): false once it is offline
  // (stopped, or its Last Will): its lists are stale, nobody's call runs out meanwhile
  let online = null;
  const inFlight = new Set();  // the commands sent and not yet answered (their buttons' keys)

  async function send(name, args) {
    const where = document.getElementById("c-reply");
    if (where) where.textContent = "…";
    const reply = await post("/api/cash/command", { name, args });
    await refresh(true);  // first: the answer shows once the page shows what it did
    if (where) {
      where.textContent = reply.status === "ok"
        ? `done: ${reply.reason || name}`
        : `refused: ${reply.reason || "no answer"}${reply.rule ? ` (${reply.rule})` : ""}`;
      where.className = `reply ${reply.status === "ok" ? "ok" : "error"}`;
    }
    return reply;
  }

  // The floor's controls: only for a floor login (a TV or a screen gets none at all)
  const staff = (...children) => (floor.user && !floor.readOnly
    ? el("span", { class: "staff-only c-controls" }, ...children) : null);
  // A command's button, disabled while its request is under way: a second click sends nothing,
  // nor does the same button drawn again meanwhile (a double click on "Call next" called two
  // players). ``args``: the command's, or a function giving them at the click (a picker's
  // choice; then ``key`` names the button). ``ask``: a question the floor confirms first, for
  // what acts on a player at once (table.js asks so before what moves chips).
  function button(text, name, args, attrs = {}, { key = null, ask = null } = {}) {
    const id = key || JSON.stringify([name, args]);
    const node = el("button", { ...attrs, "data-command": id, disabled: inFlight.has(id) }, text);
    node.addEventListener("click", () => {
      if (inFlight.has(id) || (ask && !window.confirm(ask))) return;
      inFlight.add(id);
      busy(node, () => send(name, typeof args === "function" ? args() : args)).finally(() => {
        inFlight.delete(id);
        for (const drawn of document.querySelectorAll("button[data-command]")) {
          if (drawn.dataset.command === id) drawn.disabled = false;  // (drawn again meanwhile)
        }
      }).catch(() => { /* the server is away: the banner says so */ });
    });
    return node;
  }

  // A table picker: ``tables`` (ids), with "any table" first when ``any`` says so
  function picker(tables, chosen, any, label) {
    return el("select", { "aria-label": label },
      any ? el("option", { value: "" }, "any table") : null,
      ...tables.map((t) => el("option", { value: t, selected: t === chosen }, `table ${t}`)));
  }

  function gameBlock(g, state) {
    const open = state.tables.filter((t) => t.game === g.game);
    const callTo = picker(open.map((t) => t.table), null, true, `call for ${g.game} to`);
    const seats = `${g.seats_open} seat${g.seats_open === 1 ? "" : "s"} open`;
    const figures = `tables ${g.tables.join(", ") || "none open"} · ${seats} · `
      + `${g.waiting} waiting${g.called ? `, ${g.called} called` : ""}`;
    return el("div", { class: "c-game", "data-game": g.game },
      el("h3", {}, g.game, el("span", { class: "c-figures" }, figures),
        staff(callTo, button("Call next", "call", () => (callTo.value
          ? { game: g.game, table: callTo.value } : { game: g.game }), { class: "c-call" },
        { key: JSON.stringify(["call", g.game]) }))),
      el("ol", { class: "c-list" }, ...g.entries.map((e) => entryLine(e, g, open))),
      g.entries.length ? null : el("p", { class: "muted" }, "nobody waiting"));
  }

  function entryLine(e, g, open) {
    const phone = phones.get(`${g.game}\n${e.name}`);
    const seatAt = picker(open.filter((t) => t.seats_open > 0).map((t) => t.table), e.table,
      false, `seat ${e.name} at`);
    const shown = floor.user ? e.name : e.shown;  // a screen shows the initials given
    return el("li", { class: e.called ? "called" : "", "data-player": shown },
      el("span", { class: "c-name" }, shown),
      floor.user && phone ? el("span", { class: "c-phone" }, phone) : null,
      e.called ? el("span", { class: "c-called" }, `called ${when(e.called)}`
        + (e.table ? ` to table ${e.table}` : ""), " · ",
        el("span", { "data-until": e.until }, mmss(e.until - clockNow())), " left") : null,
      staff(e.called ? seatAt : null,
        e.called ? button("Seat", "seat", () => ({ table: seatAt.value, name: e.name }),
          { class: "c-seat" }, { key: JSON.stringify(["seat", e.name]) }) : null,
        button("Remove", "remove", { game: g.game, name: e.name }, { class: "c-remove" },
          { ask: `Take ${e.name} off the ${g.game} list?` })));
  }

  function offerLine(o) {
    return el("li", { "data-main": o.main },
      `Table ${o.main}: a seat is open, ${o.asking} is asked whether to move`,
      o.declined.length ? el("span", { class: "c-order" }, `(said no: ${o.declined.join(", ")})`)
        : null,
      staff(button(`${o.asking} moves`, "answer",
        { table: o.main, name: o.asking, accept: true }, { class: "c-accept" }),
      button(`${o.asking} stays`, "answer",
        { table: o.main, name: o.asking, accept: false }, { class: "c-decline" })));
  }

  function tableRows(state) {
    const games = state.games.map((g) => g.game);
    return [el("tr", {}, ...["table", "game", "seats", "players", "must move", ""]
      .map((h) => el("th", {}, h))),
    ...state.tables.map((t) => {
      const game = el("select", { "aria-label": `game for table ${t.table}` },
        ...games.map((g) => el("option", { value: g }, g)));
      const mains = state.tables.filter((m) => m.game === t.game && m.table !== t.table
        && !m.feeds).map((m) => m.table);
      const main = picker(mains, null, false, `main table for ${t.table}`);
      return el("tr", { "data-table": t.table },
        el("td", {}, `table ${t.table}`), el("td", {}, t.game || "closed"),
        el("td", { class: "num" }, t.game ? `${t.seats_open} open of ${t.seats}` : ""),
        el("td", {}, ...t.players.map((p) => el("span", { class: "c-player", "data-player": p.name },
          p.name + (p.seat ? ` (${p.seat})` : ""),
          p.no_chips ? el("span", { class: "c-no-chips", title: "dealt out until he buys chips "
            + "(CG Table Stake)" }, " no chips") : null,
          staff(button("leaves", "leave", { table: t.table, name: p.name }, { class: "c-leave" },
            { ask: `${p.name} leaves table ${t.table}? The table is asked to unseat him now.` })),
          " "))),
        el("td", {}, t.feeds ? `must-move table for table ${t.feeds}`
          : t.must_move.length ? `main table · order: ${t.must_move.join(", ")}` : ""),
        el("td", {}, !t.game ? staff(game, button("Open", "open_table",
          () => ({ table: t.table, game: game.value }), { class: "c-open" },
          { key: JSON.stringify(["open_table", t.table]) }))
          : staff(!t.players.length ? button("Close", "close_table", { table: t.table },
            { class: "c-close" }) : null,
          t.feeds ? button("End must-move", "end_must_move", { table: t.table },
            { class: "c-end-must-move" })
            : mains.length && !t.must_move.length ? [main, button("Make must-move", "must_move",
              () => ({ table: t.table, main: main.value }), { class: "c-must-move" },
              { key: JSON.stringify(["must_move", t.table]) })]
              : null)));
    })];
  }

  function changeRows(state) {
    if (!state.changes.length) return [el("tr", {}, el("td", { class: "muted" }, "none"))];
    return [el("tr", {}, ...["player", "from", "to", "", ""].map((h) => el("th", {}, h))),
      ...state.changes.map((c) => el("tr", { "data-player": c.player },
        el("td", {}, c.player), el("td", {}, `table ${c.source}`), el("td", {}, `table ${c.to}`),
        el("td", {}, c.approved ? "approved: moves when a seat opens" : "asked: the floor decides"),
        el("td", {}, staff(c.approved ? null : button("Approve", "approve_change",
          { name: c.player }, { class: "c-approve" }),
        button("Cancel", "cancel_change", { name: c.player }, { class: "c-cancel" })))))];
  }

  // ---------------------------------------------------------------- the room's TV

  // The TV (?tv=1) shows the lists alone, for the players waiting (CG "Tischwechsel": the
  // room sees who is next): a column a game, its seats open and how many wait, each name as
  // the player gave it (initials), who is called to which table and for how long; a seat a
  // main table offers down its must-move order (CG "Must Move"). As large as the screen
  // allows, never below what reads from 3 m (docs/floor.md); what still does not fit is
  // counted ("+3 more"), never cut in half.
  const TV_FONT_MIN = 31;  // px: capitals of 22 px in the page's face

  function tvColumn(g, shown) {
    const entries = g.entries.slice(0, shown);
    const open = `${g.seats_open} seat${g.seats_open === 1 ? "" : "s"} open`;
    return el("div", { class: "c-game cl-game", "data-game": g.game },
      el("div", { class: "cl-game-name" }, g.game),
      el("div", { class: "cl-figures" }, `${g.tables.length ? `table${g.tables.length > 1 ? "s" : ""} `
        + `${g.tables.join(", ")} · ${open}` : "no table open"} · ${g.waiting} waiting`),
      el("ol", { class: "c-list cl-list" }, ...entries.map((e) => el("li", {
        class: e.called ? "called" : "", "data-player": e.shown },
      el("span", { class: "cl-name" }, e.shown),
      e.called ? el("span", { class: "cl-called" }, ` called${e.table ? ` to table ${e.table}` : ""} `,
        el("span", { "data-until": e.until }, mmss(e.until - clockNow()))) : null)),
      g.entries.length > shown ? el("li", { class: "cl-more" }, `+${g.entries.length - shown} more`) : null),
      g.entries.length ? null : el("p", { class: "cl-none" }, "nobody waiting"));
  }

  function renderTv(state) {
    const box = document.getElementById("c-tv");
    box.hidden = false;
    const longest = Math.max(0, ...state.games.map((g) => g.entries.length));
    // (a column a game, four a row at most; set through the CSSOM: the page's policy allows
    // no style attribute)
    box.style.setProperty("--games", String(Math.min(4, Math.max(1, state.games.length))));
    const draw = (shown) => box.replaceChildren(
      el("div", { class: "cl-games" }, ...state.games.map((g) => tvColumn(g, shown))),
      ...state.offers.map((o) => el("p", { class: "cl-offer", "data-main": o.main },
        `Table ${o.main}: a seat is open; ${o.asking} is asked whether to move (must move)`)));
    const fits = () => box.scrollHeight <= box.clientHeight + 1 &&
      [...box.querySelectorAll(".cl-game")].every((c) => c.scrollWidth <= c.clientWidth + 1);
    const fit = () => {  // the largest font that shows it all, down to the legible least
      let font = Math.max(TV_FONT_MIN, Math.round(window.innerHeight * 0.055));
      box.style.setProperty("--tv-font", `${font}px`);
      while (!fits() && font > TV_FONT_MIN) {
        font = Math.max(TV_FONT_MIN, Math.floor(font * 0.9));
        box.style.setProperty("--tv-font", `${font}px`);
      }
    };
    box.classList.remove("columns", "smallest");
    draw(longest);
    fit();
    if (!fits()) {  // a long list flows into columns side by side within its game's
      box.classList.add("columns");
      fit();
    }
    box.classList.toggle("smallest", !fits());  // a name too long for its column wraps
    for (let shown = longest - 1; !fits() && shown >= 0; shown--) draw(shown);
  }

  function render() {
    const state = latest;
    document.getElementById("c-none").hidden = !!state;
    const offline = document.getElementById("c-offline");
    offline.hidden = online !== false;
    document.querySelector("main.cash").classList.toggle("stale", online === false);
    if (!state) return;
    if (floor.tv) { renderTv(state); return; }
    const signUp = document.getElementById("c-sign-up");
    if (signUp && signUp.game.options.length !== state.games.length) {
      signUp.game.replaceChildren(...state.games.map((g) => el("option", { value: g.game }, g.game)));
    }
    // A walk-in sits down at an open table with a seat while nobody waits for its game (CG
    // "Poker Manager"; the cash floor refuses him otherwise and says who waits)
    const walkIn = document.getElementById("c-walk-in");
    if (walkIn) {
      const open = state.tables.filter((t) => t.game && t.seats_open > 0).map((t) => t.table);
      const had = walkIn.table.value;
      if ([...walkIn.table.options].map((o) => o.value).join() !== open.join()) {
        walkIn.table.replaceChildren(...open.map((t) => el("option", { value: t }, `table ${t}`)));
        if (open.includes(had)) walkIn.table.value = had;
      }
      const button = walkIn.querySelector("button");
      if (!button.hasAttribute("aria-busy")) button.disabled = !open.length;  // (no open seat)
    }
    document.getElementById("c-games").replaceChildren(...state.games.map((g) => gameBlock(g, state)));
    document.getElementById("c-offers").replaceChildren(...(state.offers.length
      ? state.offers.map(offerLine) : [el("li", { class: "muted" }, "no seat offered")]));
    document.getElementById("c-tables").replaceChildren(...tableRows(state));
    document.getElementById("c-changes").replaceChildren(...changeRows(state));
    for (const id of ["c-tables", "c-changes"]) labelCells(document.getElementById(id));
    const recent = document.getElementById("c-recent");
    if (recent) {
      recent.replaceChildren(...state.recent.slice().reverse().map((h) => el("li", {},
        `${when(h.at)} · ${h.text}`, h.rule ? el("span", { class: "rule" }, h.rule) : null)));
    }
  }

  async function refresh(force) {
    let text = null;
    try {
      const response = await fetch("/api/cash", { cache: "no-store" });
      text = response.ok ? await response.text() : null;
      const status = response.headers.get("x-cash-status");
      const now = status === null ? null : status === "online";
      if (now !== online) force = true;  // the banner shows, or goes
      online = now;
      if (floor.user) {
        const answer = await fetch("/api/cash/contacts", { cache: "no-store" });
        const found = answer.ok ? (await answer.json()).contacts : [];
        const next = new Map(found.map((c) => [`${c.game}\n${c.name}`, c.phone]));
        if (JSON.stringify([...next]) !== JSON.stringify([...phones])) force = true;
        phones = next;
      }
    } catch (e) { return; /* the server is away: the banner says so */ }
    if (text === shownText && !force) return;
    shownText = text;
    latest = text ? JSON.parse(text) : null;
    render();
  }

  // Each called player's time left, counted down between refreshes
  window.onTick = () => {
    if (online === false) return;  // stale: no call runs out while the cash floor is away
    for (const node of document.querySelectorAll("[data-until]")) {
      node.textContent = mmss(Math.max(0, Number(node.dataset.until) - clockNow()));
    }
  };

  const signUp = document.getElementById("c-sign-up");
  if (signUp) {
    signUp.addEventListener("submit", (e) => {
      e.preventDefault();
      const args = { game: signUp.game.value, name: signUp.name.value };
      if (signUp.initials.value) args.initials = signUp.initials.value;
      if (signUp.phone.value) args.phone = signUp.phone.value;
      busy(signUp.querySelector("button[type=submit]"), () => send("sign_up", args)).then((r) => {
        if (r && r.status === "ok" && signUp.name.value === args.name) {
          for (const field of ["name", "initials", "phone"]) signUp[field].value = "";
        }
      });
    });
  }
  const walkIn = document.getElementById("c-walk-in");
  if (walkIn) {
    walkIn.addEventListener("submit", (e) => {
      e.preventDefault();
      const args = { table: walkIn.table.value, name: walkIn.name.value };
      busy(walkIn.querySelector("button[type=submit]"), () => send("seat", args)).then((r) => {
        if (r && r.status === "ok" && walkIn.name.value === args.name) walkIn.name.value = "";
      });
    });
  }
  const change = document.getElementById("c-change");
  if (change) {
    change.addEventListener("submit", (e) => {
      e.preventDefault();
      busy(change.querySelector("button[type=submit]"),
        () => send("request_change", { name: change.name.value, table: change.table.value }));
    });
  }
  window.addEventListener("resize", () => { if (floor.tv && latest) render(); });  // fitted again
  start(["broker"], null, () => refresh(true));
  setInterval(refresh, 2000);
})();
