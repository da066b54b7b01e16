// A player's own page (docs/players.md): what the server builds for him alone arrives as one
// "player" event on its stream, first at once and then whenever it changes. Texts are set as
// text, never as HTML. The secret is the last part of this page's path.
"use strict";
(() => {
  const token = location.pathname.split("/").pop();
  const $ = (id) => document.getElementById(id);
  let page = null;
  let offset = 0;  // the clock's time minus this phone's (one exchange with the floor)
  let source = null;

  const chips = (n) => (n === null || n === undefined ? "—" : Number(n).toLocaleString("en-US"));
  // Cards as the broadcast shows them to viewers: "Th" as 10♥, hearts and diamonds red; each
  // keeps its code in data-card (what the tests of secrecy look for in the page).
  const SUITS = { s: "♠", h: "♥", d: "♦", c: "♣" };
  const cards = (s, cls) => {
    const box = el("span", cls);
    for (const code of (s || "").match(/.{2}/g) || []) {
      const face = el("span", code[1] === "h" || code[1] === "d" ? "face red" : "face",
        (code[0] === "T" ? "10" : code[0]) + (SUITS[code[1]] || code[1]));
      face.dataset.card = code;
      if (box.childNodes.length) box.append(" ");
      box.append(face);
    }
    return box;
  };
  const mmss = (seconds) => {
    const s = Math.max(0, Math.round(seconds));
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    const rest = String(s % 60).padStart(2, "0");
    return h ? `${h}:${String(m).padStart(2, "0")}:${rest}` : `${m}:${rest}`;
  };
  const el = (tag, cls, text) => {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const now = () => Date.now() / 1000 + offset;

  function render(p) {
    page = p;
    $("p-name").textContent = p.player;
    $("p-tournament").textContent = p.tournament || "";
    $("p-table").textContent = p.table ?? "—";
    $("p-seat").textContent = p.seat ?? "—";
    const move = $("p-move");
    move.hidden = !p.moving;
    move.textContent = p.moving
      ? `Move${p.moving_from ? ` from table ${p.moving_from}` : ""}: go to table ${p.table}, seat ${p.seat}`
      : "";
    const place = $("p-place");
    place.hidden = p.place === null || p.place === undefined;
    if (!place.hidden) {
      const shared = p.last && p.last !== p.place ? `${p.place}–${p.last}` : `${p.place}`;
      place.textContent = `Out in place ${shared}` +
        (p.prize ? `: ${chips(p.prize)} ${p.currency || ""}` : "");
    }
    // His place stays once there is a winner: both show (docs/players.md)
    $("p-winner").hidden = !p.winner;
    $("p-winner").textContent = p.winner ? `Winner: ${p.winner}` : "";
    $("p-stack").textContent = chips(p.stack);
    $("p-stack-note").textContent = p.stack === null || p.stack === undefined ? ""
      : p.stack_read ? "as your table reads it" : "the tournament's last count";
    $("p-left-players").textContent = p.players_left === null || p.players_left === undefined
      ? "—" : `${p.players_left} of ${p.entries}`;
    $("p-pool").textContent = p.prize_pool ? `${chips(p.prize_pool)} ${p.currency || ""}` : "—";
    $("p-payouts").replaceChildren(...(p.payouts || []).map((pay) => {
      const row = el("tr");
      row.append(el("td", "", `${pay.place}.`), el("td", "num", `${chips(pay.amount)} ${p.currency || ""}`));
      return row;
    }));
    $("p-cards-note").textContent = p.own_cards
      ? "Your cards show once each hand is over and sealed."
      : "Tabled cards only: this floor does not show your own.";
    $("p-hands").replaceChildren(...(p.hands || []).map((h) => {
      const item = el("li");
      item.dataset.hand = h.id;
      item.append(el("div", "", `Table ${h.table}, hand ${h.hand}` +
        (h.status !== "complete" ? ` (${h.status})` : "")));
      const line = el("div");
      line.append("You: ", h.cards ? cards(h.cards, "cards mine") : el("span", "cards mine", "—"));
      if (h.board) line.append("  Board: ", cards(h.board, "cards"));
      item.append(line);
      for (const shown of h.shown || []) {
        const other = el("div", "small");
        other.append(`${shown.player} showed `, cards(shown.cards, "cards"));
        item.append(other);
      }
      if (h.result !== null && h.result !== undefined) {
        item.append(el("div", h.result > 0 ? "won" : h.result < 0 ? "lost" : "",
          h.result > 0 ? `won ${chips(h.result)}` : h.result < 0 ? `lost ${chips(-h.result)}` : "even"));
      }
      return item;
    }));
    tick();
  }

  // His table's shot clock (docs/shot-clock.md): his own turn's time, counted down here
  // between pushes from the instant it was sent for, and his time extensions left.
  function shotTick() {
    const shot = page && page.shot_clock;
    $("p-shot").hidden = !shot;
    if (!shot) return;
    const ext = shot.extensions === null || shot.extensions === undefined ? ""
      : ` · ${shot.extensions} extension${shot.extensions === 1 ? "" : "s"} left`;
    if (!shot.his_turn) { $("p-shot-left").textContent = `not your turn${ext}`; return; }
    const left = Math.max(0, Math.ceil(shot.remaining - (shot.running ? now() - (shot.since || now()) : 0)));
    $("p-shot-left").textContent = shot.out ? `time is up: the floor rules${ext}`
      : `${left} s${shot.extension ? " (extension)" : ""}${shot.running ? "" : " (held)"}${ext}`;
  }

  function tick() {
    shotTick();
    // Over: no level, blinds or time left to count (the clock pauses on its last level)
    const over = !!page && (!!page.winner || page.status === "finished");
    $("p-clock").classList.toggle("over", over);
    $("p-over").hidden = !over;
    if (over) return;
    const c = page && page.clock;
    if (!c) {
      for (const id of ["p-level", "p-blinds", "p-left", "p-break"]) $(id).textContent = "—";
      return;
    }
    $("p-level").textContent = c.on_break ? "break" : `${c.level}`;
    const ante = c.bb_ante ? ` (big blind ante ${chips(c.bb_ante)})` : c.ante ? ` ante ${chips(c.ante)}` : "";
    $("p-blinds").textContent = `${chips(c.sb)}/${chips(c.bb)}${ante}`;
    // (a break counts down too: when play resumes; it showed "—" all break long)
    let left = c.remaining;
    if (c.ends_at && (c.status === "running" || c.status === "on_break")) left = c.ends_at - now();
    $("p-left").textContent = page.clock_online === false ? "clock offline"
      : c.status === "paused" ? `${left === null ? "—" : mmss(left)} (paused)`
      : left === null || left === undefined ? "—" : mmss(left);
    $("p-break").textContent = c.on_break ? "now"
      : c.next_break_at ? `in ${mmss(c.next_break_at - now())}` : "—";
  }

  function banner(text) {
    const b = $("p-banner");
    b.hidden = !text;
    b.textContent = text || "";
  }

  async function syncTime() {
    try {
      const sent = Date.now() / 1000;
      const answer = await (await fetch("/api/time", { cache: "no-store" })).json();
      const back = Date.now() / 1000;
      offset = answer.now - (sent + back) / 2;
    } catch (e) { /* the phone's own time meanwhile */ }
  }

  function connect() {
    source = new EventSource(`/api/p/${token}/stream`);
    source.addEventListener("player", (m) => { banner(""); render(JSON.parse(m.data)); });
    source.addEventListener("error", async () => {
      if (source.readyState !== EventSource.CLOSED) return;  // it reconnects by itself
      let why = "";
      let status = 0;
      try {
        const response = await fetch(`/api/p/${token}`, { cache: "no-store" });
        status = response.status;
        if (!response.ok) why = (await response.json()).reason || "";
      } catch (e) { why = "the floor cannot be reached"; }
      if (status === 401 || status === 403 || status === 404) {
        document.body.classList.add("refused");
        banner(`This link no longer works: ${why}`);
        return;  // for good: only a new link opens a page
      }
      banner(why || "connection lost: trying again");
      setTimeout(connect, status === 429 ? 15000 : 3000);
    });
  }

  syncTime();
  connect();
  setInterval(tick, 1000);
})();
