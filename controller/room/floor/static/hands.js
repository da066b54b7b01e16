// The hands: the public records the floor server keeps, searchable; a hand shown as played
// (only tabled cards exist in a public record) and downloadable as PHH.
"use strict";
(() => {
  const { el, chips, whoAmI } = window.floorApp;
  const $ = (id) => document.getElementById(id);

  function seconds(local) {
    return local ? String(new Date(local).getTime() / 1000) : "";
  }

  async function search(e) {
    if (e) e.preventDefault();
    const form = new FormData($("search"));
    const query = new URLSearchParams();
    for (const name of ["table", "hand", "player"]) if (form.get(name)) query.set(name, form.get(name));
    if (form.get("since")) query.set("since", seconds(form.get("since")));
    if (form.get("until")) query.set("until", seconds(form.get("until")));
    const response = await fetch(`/api/hands?${query}`, { cache: "no-store" });
    const hands = response.ok ? await response.json() : [];
    $("results").replaceChildren(...hands.map((h) => el("tr", { class: "hand-row", "data-id": h.id, onclick: () => show(h.id) },
      el("td", {}, h.table), el("td", {}, h.hand),
      el("td", {}, h.started ? new Date(h.started * 1000).toLocaleString() : ""),
      el("td", {}, h.players.join(", ")), el("td", {}, h.board), el("td", {}, chips(h.pot)),
      el("td", {}, h.winners.join(", ")))));
  }

  async function show(id) {
    const response = await fetch(`/api/hands/${encodeURIComponent(id)}`, { cache: "no-store" });
    if (!response.ok) return;
    const r = await response.json();
    const seats = Object.keys(r.players);
    $("hand").replaceChildren(
      el("h2", {}, `Table ${r.table}, hand ${r.hand} · level ${r.level} · ${chips(r.blinds.sb)}/${chips(r.blinds.bb)}`),
      el("a", { href: `/api/hands/${encodeURIComponent(id)}/phh`, id: "phh", download: "" }, "download as PHH"),
      el("ul", { class: "players" }, seats.map((s) => el("li", {},
        `seat ${s} ${r.players[s]}: ${chips(r.starting_stacks[s])} → ${chips(r.finishing_stacks[s])}`,
        r.hole_cards[s] ? ` · showed ${r.hole_cards[s]}` : ""))),
      el("p", {}, `board ${r.board || "none"}`),
      el("ol", { class: "story" }, r.actions.filter((a) => a.action !== "deal_hole").map((a) => el("li", {},
        `${a.street}: ${a.seat ? `seat ${a.seat} ` : ""}${a.action}${a.amount ? ` ${chips(a.amount)}` : ""}${a.cards ? ` ${a.cards}` : ""}`))),
      el("ul", {}, r.pots.map((p, k) => el("li", {}, `${k ? `side pot ${k}` : "pot"} ${chips(p.amount)} to ` +
        Object.entries(p.shares).map(([s, c]) => `seat ${s} (${chips(c)})`).join(", ") +
        (p.winning_hand ? ` with ${p.winning_hand}` : "")))));
  }

  $("search").addEventListener("submit", search);
  whoAmI();
  search();
})();
