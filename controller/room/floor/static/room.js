// The room screen: one card per table, the tables needing the floor first.
"use strict";
(() => {
  const { floor, el, chips, renderClockStrip, decide, start } = window.floorApp;

  function pot(state) {  // the table's pots already hold this round's bets
    return (state.pots || []).reduce((sum, p) => sum + p.amount, 0);
  }

  // The clock's answers to decisions taken on a card, shown on it for a while: the card is
  // drawn again at every change, so they live here.
  const answers = new Map();

  async function release(table) {
    const reply = await decide("clock", "release_table", { table }, null);
    const ok = reply.status === "ok";
    answers.set(table, { ok, at: Date.now(),
      text: ok ? `done: ${reply.reason}` : `refused: ${reply.reason || "no answer"}` });
    render();
  }

  function card(view) {
    const s = view.state;
    const c = floor.clock;
    const waitingH4h = c && c.hand_for_hand && (c.waiting || []).includes(view.table);
    const online = view.online === false ? "offline" : "online";
    const lines = [];
    if (s) {
      lines.push(el("div", { class: "line" }, `hand ${s.hand} · `,
        s.stage === "betting" || s.stage === "dealing" ? (s.street || s.stage) : s.stage));
      lines.push(el("div", { class: "line" }, `pot ${chips(pot(s))}`,
        s.board ? ` · board ${s.board}` : ""));
      if (s.actor !== null && s.actor !== undefined) {
        const who = (s.seats[s.actor] || {}).player || `seat ${s.actor}`;
        lines.push(el("div", { class: "line" }, `to act: seat ${s.actor} (${who}) `,
          view.actor_since ? el("span", { class: "since", "data-since": view.actor_since }, "") : ""));
      } else {
        lines.push(el("div", { class: "line muted" }, s.waiting_for));
      }
      if (s.clock) {
        // Counted down here between the table's states: from when the table sent it, on the
        // clock's time (the table's offset to the clock is in its state message).
        const sentAt = view.sent + (view.clock_offset || 0);
        lines.push(el("div", { class: "line warn" }, `time called on seat ${s.clock.seat}: `,
          el("span", { class: "countdown", "data-left": s.clock.remaining, "data-from": sentAt },
            `${Math.ceil(s.clock.remaining)} s`)));
      }
      if (s.hold) lines.push(el("div", { class: "line warn" }, `holds: ${s.hold}`));
      const devices = Object.entries(s.devices || {});
      if (devices.length) lines.push(el("div", { class: "line devices" }, devices.map(([d, st]) =>
        el("span", { class: `device ${st === "ok" ? "ok" : "bad"}` }, `${d} ${st}`))));
    } else {
      lines.push(el("div", { class: "line muted" }, "no state yet"));
    }
    if (waitingH4h) {
      // PVB 35a: a table that cannot finish (offline, stuck) must not hold the room for ever.
      lines.push(el("div", { class: "line warn" }, "hand-for-hand: the round waits for it ",
        el("button", { class: "staff-only release", onclick: (e) => {
          e.preventDefault();
          release(view.table);
        } }, "go on without it")));
    }
    const answer = answers.get(view.table);
    if (answer && Date.now() - answer.at < 15000) {
      lines.push(el("div", { class: `line reply ${answer.ok ? "ok" : "error"}` }, answer.text));
    }
    for (const reason of view.attention) lines.push(el("div", { class: "line alert" }, reason.text));
    return el("a", {
      class: `card ${online} ${view.attention.length ? "needs" : ""}`,
      href: `/table/${encodeURIComponent(view.table)}`, id: `table-${view.table}`,
      "data-hand": s ? s.hand : "", "data-stage": s ? s.stage : "",
    }, el("h2", {}, `Table ${view.table}`, el("span", { class: `dot ${online}` }, online)), lines);
  }

  function render() {
    renderClockStrip();
    const ordered = [...floor.tables.values()].sort((a, b) =>
      (b.attention.length > 0) - (a.attention.length > 0) || b.attention.length - a.attention.length ||
      (Number(a.table) || 1e9) - (Number(b.table) || 1e9) || a.table.localeCompare(b.table));
    document.getElementById("tables").replaceChildren(...ordered.map(card));
    const count = document.getElementById("alert-count");
    if (count) count.textContent = floor.alerts.size ? String(floor.alerts.size) : "";
  }

  start(["table", "clock", "alert", "broker"], null, render);
})();
