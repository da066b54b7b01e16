// The hands: the public records the floor server keeps, searchable. A chosen hand opens in a
// panel over the list, where the eye is (on a phone the whole screen), told in the floor's
// words (the lines the table's story said), with its downloads (PHH; every format the server
// offers gets its link here). On a floor following several venues the search takes a venue,
// and every hand names its own.
"use strict";
(() => {
  const { floor, el, chips, cards, when, whoAmI } = window.floorApp;
  const $ = (id) => document.getElementById(id);
  const FORMATS = { phh: "PHH", stars: "tracker text (PokerStars)" };  // a format's name for people; else its own name, upper-case

  const MOST = 500;  // what the server gives at most
  let limit = 100;

  function seconds(local) {
    return local ? String(new Date(local).getTime() / 1000) : "";
  }

  async function search(e) {
    if (e) e.preventDefault();
    const form = new FormData($("search"));
    const query = new URLSearchParams();
    for (const name of ["venue", "table", "hand", "player"]) if (form.get(name)) query.set(name, form.get(name));
    if (form.get("since")) query.set("since", seconds(form.get("since")));
    if (form.get("until")) query.set("until", seconds(form.get("until")));
    query.set("limit", String(limit));
    const response = await fetch(`/api/hands?${query}`, { cache: "no-store" });
    const hands = response.ok ? await response.json() : [];
    // The newest first, at most `limit`: say so when there may be more than are shown.
    const more = $("more");
    more.hidden = hands.length < limit;
    more.replaceChildren(`The newest ${hands.length} hands found are shown: narrow the search ` +
      "(table, player, time) to find older ones", limit < MOST ? el("button", {
      type: "button", onclick: () => { limit = MOST; search(); } }, `show ${MOST}`) : "");
    const cell = (label, text) => el("td", { "data-label": label }, text);
    const venue = (h) => (floor.league ? h.venue : null);  // a venue's own floor: its hands
    $("results").replaceChildren(...hands.map((h) => el("tr", {
      class: "hand-row", "data-id": h.id, "data-venue": venue(h), tabindex: 0,
      onclick: () => show(h.id, venue(h)),
      onkeydown: (k) => { if (k.key === "Enter") show(h.id, venue(h)); },
    },
    floor.league ? cell("Venue", h.venue) : null, cell("Table", h.table), cell("Hand", h.hand),
    cell("Started", h.started ? when(h.started, true) : ""),
    cell("Players", h.players.join(", ")), el("td", { "data-label": "Board", class: "board-cards" },
      cards(h.board)), cell("Pot", chips(h.pot)),
    cell("Won by", h.winners.join(", ")))));
  }

  async function show(id, venue) {
    const at = venue ? `?venue=${encodeURIComponent(venue)}` : "";
    const response = await fetch(`/api/hands/${encodeURIComponent(id)}${at}`, { cache: "no-store" });
    if (!response.ok) return;
    const r = await response.json();
    for (const row of document.querySelectorAll("tr.hand-row")) {
      row.classList.toggle("chosen", row.dataset.id === id && (row.dataset.venue || null) === (venue || null));
    }
    const seats = Object.keys(r.players);
    const panel = $("hand");
    panel.replaceChildren(
      el("header", {},
        el("h2", {}, `${venue ? `${venue} · ` : ""}Table ${r.table}, hand ${r.hand} · level ${r.level} · ${chips(r.blinds.sb)}/${chips(r.blinds.bb)}`),
        el("span", { class: "downloads" }, (r.downloads || []).map((form) => el("a", {
          href: `/api/hands/${encodeURIComponent(id)}/${form}${at}`, id: form, download: "",
        }, `download as ${FORMATS[form] || form.toUpperCase()}`))),
        el("button", { class: "close", onclick: () => panel.close() }, "Close")),
      el("ul", { class: "players" }, seats.map((s) => el("li", {},
        `seat ${s} ${r.players[s]}: ${chips(r.starting_stacks[s])} → ${chips(r.finishing_stacks[s])}`,
        r.hole_cards[s] ? [" · showed ", ...cards(r.hole_cards[s])] : ""))),
      el("p", {}, "board ", ...(r.board ? cards(r.board) : ["none"])),
      el("ol", { class: "story" }, r.story.map((line) => el("li", { class: `ev ev-${line.kind}` },
        line.player ? [el("span", { class: "who" }, line.player), " "] : null,
        line.text, line.rule ? el("span", { class: "rule" }, line.rule) : null))));
    if (!panel.open) panel.showModal();
    panel.scrollTop = 0;
  }

  $("hand").addEventListener("click", (e) => {  // a click beside the panel closes it
    const box = e.currentTarget.getBoundingClientRect();
    if (e.clientX < box.left || e.clientX > box.right || e.clientY < box.top || e.clientY > box.bottom) {
      e.currentTarget.close();
    }
  });
  const venues = document.querySelector("#search select[name=venue]");
  if (venues) {  // a floor following several venues: search one, or every one
    venues.replaceChildren(el("option", { value: "" }, "every venue"),
      ...floor.venues.map((v) => el("option", { value: v }, v)));
  }
  $("search").addEventListener("submit", (e) => { limit = 100; search(e); });
  whoAmI();
  search();
})();
