// The seat list, for the wall and the printer: every player still in by table and seat, and by
// name (PVB 08a: the draw shown; PVB 13: each player finds their seat by their name).
"use strict";
(() => {
  const { floor, el, chips, start, labelCells } = window.floorApp;

  function rows(seats, first) {
    return [el("tr", {}, ...(first === "table" ? ["table", "seat", "player", "club", "chips"]
      : ["player", "table", "seat", "club", "chips"]).map((h) => el("th", {}, h)),
      el("th", { class: "no-print" })),
      ...seats.map((s) => {
        const where = s.table === null ? ["—", ""] : [s.table, s.seat];
        const cells = first === "table" ? [...where, s.player] : [s.player, ...where];
        return el("tr", { "data-player": s.player },
          ...cells.map((c) => el("td", {}, c)), el("td", {}, s.club || ""),
          el("td", { class: "num" }, chips(s.stack) + (s.moving ? " (moving)"
            : s.chips_read === false ? " (chips not read yet)" : "")),
          el("td", { class: "no-print" }, el("button", {  // player-links.js: his phone's QR
            class: "staff-only player-link-issue", "data-player": s.player }, "phone link")));
      })];
  }

  async function refresh() {
    let t = null;
    // Asked only while the room has a tournament (the push stream says when one comes): a room
    // without one answered 404 each time
    if (floor.tournament) {
      try {
        const response = await fetch("/api/tournament", { cache: "no-store" });
        t = response.status === 200 ? await response.json() : null;  // 204: none
      } catch (e) { /* try again */ }
    }
    document.getElementById("s-none").hidden = !!t;
    if (!t) return;
    document.getElementById("s-name").textContent = `${t.name}: seats`;
    const byName = t.seats.slice().sort((a, b) => a.player.localeCompare(b.player));
    document.getElementById("s-by-table").replaceChildren(...rows(t.seats, "table"));
    document.getElementById("s-by-name").replaceChildren(...rows(byName, "name"));
    for (const id of ["s-by-table", "s-by-name"]) labelCells(document.getElementById(id));
  }

  document.getElementById("s-print").addEventListener("click", () => window.print());
  let had = null;  // whether the room had a tournament when the page last looked
  start(["tournament", "broker"], null, () => {
    if (floor.heard && !!floor.tournament !== had) {  // one came or went: at once
      had = !!floor.tournament;
      refresh();
    }
  });
  setInterval(refresh, 5000);
})();
