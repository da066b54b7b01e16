// The tournament page: what the tournament service publishes (fetched every two seconds), and
// the floor's tournament decisions behind the floor login. Every text goes in as text.
"use strict";
(() => {
  const { floor, el, chips, playersLeft, post, renderClockStrip, start, when, labelCells } = window.floorApp;
  let latest = null;
  let had = null;  // whether the room had a tournament when the page last looked

  async function send(name, args) {
    const where = document.getElementById("t-reply");
    where.textContent = "…";
    const reply = await post("/api/tournament/command", { name, args });
    where.textContent = reply.status === "ok"
      ? `done: ${reply.reason || name}`
      : `refused: ${reply.reason || "no answer"}${reply.rule ? ` (${reply.rule})` : ""}`;
    where.className = `reply ${reply.status === "ok" ? "ok" : "error"}`;
    await refresh();
    return reply;
  }

  const spot = (s) => (s ? `table ${s.table}, seat ${s.seat}` : "—");

  function summary(t) {
    const figure = (label, value) => el("span", { class: "figure" }, `${label} `, el("b", {}, value));
    const players = playersLeft(t);
    return [
      figure("players left", `${players.left} ${players.of}`.trim()),
      figure("registered", `${chips(t.players)} players`),
      figure("average stack", chips(t.average_stack)),
      figure("chip leader", t.chip_leader  // none while the top stack is shared
        ? `${t.chip_leader.player} ${chips(t.chip_leader.stack)}` : "—"),
      figure("prize pool", `${chips(t.prize_pool)} ${t.currency}`),
      figure("status", t.status + (t.registration_open ? " · registration open" : "")
        + (t.add_on_open ? " · add-on open" : "") + (t.rebuy_open ? " · rebuys open" : "")),
      (t.waiting_for || []).length ? figure("waits for", t.waiting_for.join(", ")) : null,
      (t.waiting_for || []).includes("the clock's state") ? el("button", { class: "staff-only go-on",
        onclick: () => goOnWithout({ clock: true }, "the clock") }, "Go on without the clock") : null,
      t.chips ? figure("chips", (t.chips.difference === 0 ? `${chips(t.chips.in_play)} ✓`
        : `${chips(t.chips.counted)} of ${chips(t.chips.in_play)}`)
        + (t.chips.given_back ? ` (${chips(t.chips.given_back)} given back with busts taken back)` : "")) : null,
    ];
  }

  function standingsRows(t) {
    const head = el("tr", {}, ...["place", "player", "club", "out in", "prize", "points", ""]
      .map((h) => el("th", {}, h)));
    const rows = t.standings.map((s) => {
      const place = s.place === null ? "in" : s.place === s.last ? String(s.place)
        : `${s.place}–${s.last}`;
      return el("tr", { class: s.place === null ? "in" : s.pending ? "pending" : "",
        "data-player": s.player },
        el("td", { class: "num" }, place + (s.pending ? " (waits for the round)" : "")),
        el("td", {}, s.player, s.shared_with.length ? ` (shared with ${s.shared_with.join(", ")})` : ""),
        el("td", {}, s.club || ""), el("td", {}, s.out_in || ""),
        el("td", { class: "num" }, s.prize ? `${chips(s.prize)} ${t.currency}` : ""),
        el("td", { class: "num" }, s.points ? s.points.toFixed(2) : ""),
        el("td", {}, s.place !== null && s.place > 1 || (s.place === 1 && t.players_left > 1)
          ? el("button", { class: "staff-only undo", onclick: () => undoBust(s.player) },
            "Undo bust") : null,
          s.place === null && t.add_on_open && addOnsLeft(t, s.player) ? el("button", { class: "staff-only add-on",
            onclick: () => send("add_on", { player: s.player }) }, "Add-on") : null,
          s.place === null && t.rebuy_open && (t.can_rebuy || []).includes(s.player) ? el("button", { class: "staff-only rebuy",
            onclick: () => send("rebuy", { player: s.player }) }, "Rebuy") : null));
    });
    return [head, ...rows];
  }

  // The structure's add-ons per player (by default one): none offered once the player has them all
  function addOnsLeft(t, player) {
    const limit = t.add_on_per_player === undefined ? 1 : t.add_on_per_player;
    return limit !== null && ((t.add_ons || {})[player] || 0) < limit;
  }

  // A wrong bust taken back: a player who lost their seat needs the chips they get back (the
  // tournament draws them a free seat); one still seated with their chips needs none
  function undoBust(player) {
    const answer = prompt(`Take back ${player}'s elimination? The chips ${player} gets back `
      + "(leave empty if they still sit at their table with their chips):", "");
    if (answer === null) return;
    const text = answer.trim();
    const stack = text === "" ? null : wholeChips(text);
    if (stack === undefined) {
      alert(`"${text}" is not a whole number of chips: write the chips ${player} gets back as `
        + "1500, or with thousands grouped by three as 1,500 or 1.500; nothing was sent");
      return;
    }
    send("undo_bust", stack === null ? { player } : { player, stack });
  }

  // A number of chips as the floor types it: digits, or thousands grouped by three with one
  // separator throughout ("1,500", "1.500", "1 500", "12,500,000"). Anything else ("1,5",
  // "1.5k", "1,50") is no whole number of chips: undefined, never a guess.
  function wholeChips(text) {
    const grouped = /^[1-9][0-9]{0,2}(([,. \u00a0\u202f])[0-9]{3})(\2[0-9]{3})*$/;
    if (!/^[0-9]+$/.test(text) && !grouped.test(text)) return undefined;
    return Number(text.replace(/[,. \u00a0\u202f]/g, ""));
  }

  // Whether a moved player sits out a hand is the new table's to say once they are there (its
  // state's seat, PVB 10(1) or PVB 33); before that only that they may: who joins which hand
  // depends on how many hands the table plays until they sit.
  function sitsOut(m) {
    const table = m.to ? window.floorApp.floor.tables.get(m.to.table) : null;
    const at = table && table.state && table.state.seats ? table.state.seats[m.to.seat] : null;
    if (at && at.player === m.player) return at.sits_out ? ` · sits out this hand (${at.sits_out})` : "";
    return m.sits_out ? " · may sit out one hand (PVB 10(1))" : "";
  }

  // A move's status in the floor's words: what happens next, and who does it. Seated, the
  // move ends when the table reads the player's chips at the new seat (the dealer lays them on
  // its zone); at a table without chip readers the floor counts them and says so.
  const MOVE_STATUS = {
    leaving: "leaves the old table between hands",
    arriving: "on the way to the new seat",
    seated: "seated, chips not read yet: the dealer lays them on the seat's zone",
  };

  function moveRows(t) {
    // Moves to make: those the floor makes (a balancing move, a broken table's players) and
    // only while they are under way or their chips wait to be counted; never the draw's (its
    // seats are the seat list's), a player's who is out, or any once the tournament is over.
    // One a player: his latest (a newer move supersedes an older one, whose seat he left).
    const playing = new Set(t.status === "finished" ? [] : t.seats.map((s) => s.player));
    const latest = new Map();
    for (const m of t.moves) {
      if (["leaving", "arriving", "seated"].includes(m.status) && playing.has(m.player)
        && (!latest.has(m.player) || latest.get(m.player).id < m.id)) latest.set(m.player, m);
    }
    const moves = [...latest.values()].filter((m) => m.reason !== "draw").sort((a, b) => a.id - b.id);
    if (!moves.length) return [el("tr", {}, el("td", { class: "muted" }, "no move to make"))];
    return [el("tr", {}, ...["player", "from", "to", "chips", "why", "state", ""].map((h) => el("th", {}, h))),
      ...moves.map((m) => el("tr", { "data-move": m.id },
        el("td", {}, m.player), el("td", {}, spot(m.source)), el("td", {}, spot(m.to)),
        el("td", { class: "num" }, chips(m.stack)),
        el("td", {}, m.reason, el("span", { class: "rule" }, m.rule), sitsOut(m)),
        el("td", {}, MOVE_STATUS[m.status] || m.status),
        el("td", {}, m.status === "seated" ? el("button", { class: "staff-only",
          title: "a table without chip readers: the floor counted the player's chips at the new seat",
          onclick: () => send("move_done", { player: m.player }) }, "Counted by hand") : null)))];
  }

  // Chips bought (add-ons, rebuys): on their way to a stack, then the latest given
  function purchaseRows(t) {
    const bought = t.purchases || [];
    if (!bought.length) return [el("tr", {}, el("td", { class: "muted" }, "none"))];
    const words = { add_on: "add-on", rebuy: "rebuy" };
    const state = { owed: "to their stack between hands", given: "on their stack", void: "void (out first)" };
    return [el("tr", {}, ...["player", "", "chips", "price", ""].map((h) => el("th", {}, h))),
      ...bought.slice().reverse().map((p) => el("tr", { "data-purchase": p.id },
        el("td", {}, p.player), el("td", {}, words[p.kind] || p.kind),
        el("td", { class: "num" }, chips(p.chips)),
        el("td", { class: "num" }, `${chips(p.price)} ${t.currency}`),
        el("td", {}, (state[p.status] || p.status) + (p.table ? ` (table ${p.table})` : ""))))];
  }

  // The latest break's colour-up, table by table (RULES T5)
  function colourUp(t) {
    const up = t.colour_up;
    if (!up) return [el("span", { class: "muted" }, "none yet")];
    const how = up.method === "race" ? "chip race (APSA 2.1.18)" : "chip-up (PVB 15b(1))";
    const words = { due: "to be made", racing: "racing until its next hand", done: "done" };
    return [el("p", {}, `Break after level ${up.after_level}: the ${up.chips.map(chips).join(", ")} `
      + `chips leave play, the smallest left is ${chips(up.unit)}; ${how}.`),
      el("ul", {}, ...Object.entries(up.tables).map(([table, status]) =>
        el("li", { "data-table": table }, `table ${table}: ${words[status] || status}`)))];
  }

  function tableRows(t) {
    return [el("tr", {}, ...["table", "players", "", ""].map((h) => el("th", {}, h))),
      ...t.tables.map((x) => el("tr", { "data-table": x.table },
        el("td", {}, el("a", { href: `/table/${encodeURIComponent(x.table)}` }, `table ${x.table}`)),
        el("td", { class: "num" }, `${x.players} / ${x.seats}`), el("td", {}, x.status),
        el("td", {}, x.gone ? "gone on without it: nobody moves to or from it"
          : x.missing ? "its state has not come: the tournament waits"
          : x.held ? "held for its newcomers (PVB 09(3))" : x.online ? "" : "offline",
          (x.missing || (!x.online && x.status === "open")) && !x.gone ? el("button", { class: "staff-only go-on", onclick: () => goOnWithout(
            { table: x.table }, `table ${x.table}`) }, "Go on without it") : null,
          x.gone ? el("button", { class: "staff-only break-gone", onclick: () => breakGone(x.table) },
            "Break it") : null)))];
  }

  // A table gone for good (its Pi will not come back): the director breaks it, and its
  // players are drawn seats elsewhere with the stacks it last showed (RULES T3, PVB 10(1))
  function breakGone(table) {
    if (!confirm(`Break table ${table}? Its players are drawn seats at the other tables, each `
      + "with the stack it last showed between hands, counted again at the new seat. Only for "
      + "a table that will not come back.")) return;
    send("break_table", { table });
  }

  // After a restart the tournament decides nothing until every table's state and the clock's
  // are in; a table (or clock) that is off for good is the director's call to go on without
  function goOnWithout(args, what) {
    if (!confirm(`Go on without ${what}? Its players stay where they were last seen; nobody `
      + "moves to or from it until its state comes back.")) return;
    send("go_on_without", args);
  }

  function render(changed, kind) {
    renderClockStrip();
    // A tournament come or gone (the push stream says so): fetched, or forgotten, at once
    if (floor.heard && !!floor.tournament !== had) {
      had = !!floor.tournament;
      refresh();
      return;
    }
    if (kind === "tournament") return;  // (the page's own comes every two seconds)
    const t = latest;
    document.getElementById("t-none").hidden = !!t;
    if (!t) return;
    document.getElementById("t-name").textContent = t.name;
    document.getElementById("t-summary").replaceChildren(...summary(t).filter(Boolean));
    // Each alert is the floor's too (/alerts): open until a floor login acknowledges it there
    document.getElementById("t-alerts").replaceChildren(...(t.alerts.length
      ? t.alerts.slice().reverse().map((a) => {
        const open = floor.alerts.has(`tournament:${Math.trunc(a.at * 1000)}:${a.id}`);
        return el("li", { class: `alert${open ? " open" : " done"}`, "data-alert": a.id },
          when(a.at), " · ", a.text,
          a.rule ? el("span", { class: "rule" }, a.rule) : null,
          !floor.alertsKnown ? null : open ? el("a", { class: "floor-alert", href: "/alerts" },
            "open: acknowledge it on Alerts") : el("span", { class: "muted floor-alert" }, "acknowledged"));
      })
      : [el("li", { class: "muted" }, "none")]));
    document.getElementById("t-moves").replaceChildren(...moveRows(t));
    document.getElementById("t-tables").replaceChildren(...tableRows(t));
    document.getElementById("t-purchases").replaceChildren(...purchaseRows(t));
    document.getElementById("t-colour-up").replaceChildren(...colourUp(t));
    document.getElementById("t-standings").replaceChildren(...standingsRows(t));
    document.getElementById("t-payouts").replaceChildren(
      el("tr", {}, el("th", {}, "place"), el("th", {}, "prize")),
      ...t.payouts.map((p) => el("tr", {}, el("td", { class: "num" }, p.place),
        el("td", { class: "num" }, `${chips(p.amount)} ${t.currency}`))));
    for (const table of document.querySelectorAll("main .t-table")) labelCells(table);
    // Only what can be done now: no re-entry where the structure offers none, the draw
    // before it (a disabled button looked like one that works), nothing once it is over
    document.getElementById("t-draw").hidden = t.status !== "registration";
    document.getElementById("t-reenter").hidden = !t.reentry;
    document.getElementById("t-register").hidden = t.status === "finished";
  }

  async function refresh() {
    // Asked only while the room has a tournament: a room without one (cash games) answered
    // 404 every two seconds, an error in the console each time
    if (!floor.tournament) {
      latest = null;
      if (floor.heard) render();
      return;
    }
    try {
      const response = await fetch("/api/tournament", { cache: "no-store" });
      latest = response.status === 200 ? await response.json() : null;  // 204: none
    } catch (e) { /* the server is away: the banner says so */ }
    render();
  }

  document.getElementById("t-register").addEventListener("submit", (e) => {
    e.preventDefault();
    const form = e.target;
    const args = { name: form.name.value };
    if (form.club.value) args.club = form.club.value;
    // Cleared for the next player, unless the floor has begun typing him meanwhile (the
    // answer waits for the page's refresh: a quick hand's next name was wiped out).
    send("register", args).then((r) => {
      if (r.status === "ok" && form.name.value === args.name) form.reset();
    });
  });
  document.getElementById("t-reenter").addEventListener("click", () => {
    const form = document.getElementById("t-register");
    send("reenter", { name: form.name.value });
  });
  document.getElementById("t-draw").addEventListener("click", () => send("draw", {}));
  start(["clock", "table", "broker", "alert", "tournament"], null, render);  // (tables: a mover's seat, sitsOut)
  refresh();
  setInterval(refresh, 2000);
})();
