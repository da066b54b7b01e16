// The floor display's pages: what they show arrives as JSON (a snapshot, then pushes over
// Server-Sent Events); nothing is ever inserted as HTML, every text goes in as text.
"use strict";

const floor = {
  user: null,
  csrf: null,
  tv: document.body.classList.contains("tv"),  // a room's TV: nothing to click, no login
  offset: 0,        // the clock's time minus this browser's, ms (synced with the server)
  bestRtt: Infinity,
  clock: null,
  clockOnline: null,  // false: the clock's Last Will (levels stop changing at the tables)
  tournament: null,   // the tournament's latest state, when there is a tournament
  tables: new Map(),
  stories: new Map(),
  alerts: new Map(),
  broker: true,
  brokerProblem: null,  // what the floor server's log says is wrong with its broker connection
  live: false,
  // A floor following several venues (a league's host): their names, each one's clock,
  // tournament and link to the league, and the venue this page is about (if one).
  venues: (document.body.dataset.venues || "").split(" ").filter(Boolean),
  venueStates: new Map(),
  focus: null,
  readOnly: document.body.classList.contains("read-only"),  // no decisions from this floor
  heard: false,      // the first snapshot came: what the room has (a tournament, ...) is known
  cashFloor: false,  // the cash floor's state is heard (`pokertable cash` runs in this room)
};
floor.league = floor.venues.length > 1;

// A table's key in ``floor.tables``: its id, or on a floor following several venues its
// venue's name and its id (two venues' table 1 are two tables).
function keyOf(venue, table) { return venue ? `${venue}/${table}` : table; }
const domKey = (venue, table) => (venue ? `${venue}_${table}` : table);  // for element ids

// The page of one venue (a table's, ``/clock?venue=``) shows that venue's clock as its own.
function applyFocus() {
  if (!floor.league || !floor.focus) return;
  const v = floor.venueStates.get(floor.focus) || {};
  floor.clock = v.clock || null;
  floor.clockOnline = v.clock_online === undefined ? null : v.clock_online;
  floor.tournament = v.tournament || null;
}

function venueState(venue) {
  if (!floor.venueStates.has(venue)) floor.venueStates.set(venue, { venue });
  return floor.venueStates.get(venue);
}

// ------------------------------------------------------------------ small helpers

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// Set a node's text only when it changes: a redraw never blanks what the eye reads.
function setText(node, text) {
  if (node && node.textContent !== text) node.textContent = text;
}

const chips = (n) => (n === null || n === undefined ? "" : Number(n).toLocaleString("en"));

// Chips as a floor says them across a room: 950, 9,850, 12.4k, 124k, 1.24M; with ``digits``
// (an average) no more than that many significant digits above 10,000: 25k, 130k, 1.2M.
function short(n, digits) {
  if (n === null || n === undefined) return "";
  const a = Math.abs(n);
  const fixed = (x) => {
    let text = x >= 100 ? String(Math.round(x)) : x.toFixed(x >= 10 ? 1 : 2);
    if (digits) text = String(Number(x.toPrecision(digits)));
    return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
  };
  if (a < 10000) return chips(n);
  if (a < 1e6) return `${fixed(n / 1e3)}k`;
  return `${fixed(n / 1e6)}M`;
}

// Players left, of the entries (re-entries counted: a TD's clock counts the field so): the
// same words on the TV and the tournament page. The players registered are another figure.
function playersLeft(t) {
  return { left: chips(t.players_left), of: t.entries ? `of ${chips(t.entries)} entries` : "" };
}

const CURRENCIES = { EUR: "€", USD: "$", GBP: "£", CHF: "CHF" };
function money(amount, currency) {
  const sign = CURRENCIES[currency] || currency || "";
  return sign === "$" || sign === "£" ? `${sign}${chips(amount)}` : `${chips(amount)} ${sign}`.trim();
}

function clockNow() { return (Date.now() + floor.offset) / 1000; }

function mmss(seconds) {
  if (seconds === null || seconds === undefined) return "--:--";
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  const two = (x) => String(x).padStart(2, "0");
  return h ? `${h}:${two(m)}:${two(r)}` : `${two(m)}:${two(r)}`;
}

// The time left in the level from the clock's end instant and the synced time, never from
// this browser's own clock alone.
function levelLeft(clock) {
  if (!clock) return null;
  if (clock.ends_at !== null && clock.ends_at !== undefined) return clock.ends_at - clockNow();
  return clock.remaining;
}

function blindsText(c) {
  let text = `${chips(c.sb)} / ${chips(c.bb)}`;
  if (c.ante) text += ` · ante ${chips(c.ante)}`;
  if (c.bb_ante) text += ` · BB ante ${chips(c.bb_ante)}`;
  return text;
}

// The next level's blinds, when the clock says them.
function nextBlindsText(c) {
  if (!c || c.next_bb === null || c.next_bb === undefined) return "";
  return blindsText({ sb: c.next_sb, bb: c.next_bb, ante: c.next_ante, bb_ante: c.next_bb_ante });
}

// ------------------------------------------------------------------ time sync (NTP-style)

async function syncOnce() {
  const t0 = Date.now();
  const response = await fetch("/api/time", { cache: "no-store" });
  const t1 = Date.now();
  const { now } = await response.json();
  const rtt = t1 - t0;
  // The least delayed exchange of the recent ones wins; an old best ages out slowly.
  floor.bestRtt = Math.min(floor.bestRtt * 1.05, floor.bestRtt + 5);
  if (rtt <= floor.bestRtt) {
    floor.bestRtt = rtt;
    floor.offset = now * 1000 - (t0 + t1) / 2;
  }
}

async function syncTime() {
  for (let k = 0; k < 5; k++) {
    try { await syncOnce(); } catch (e) { /* the server is away: try later */ }
  }
  setTimeout(syncTime, 60000);
}

// ------------------------------------------------------------------ login and commands

async function whoAmI() {
  if (floor.tv) return;  // a TV never decides
  try {
    const me = await (await fetch("/api/me", { cache: "no-store" })).json();
    floor.user = me.user;
    floor.csrf = me.csrf;
    floor.login = me.login;  // any login: a broadcast login too (it may only log out here)
  } catch (e) { floor.user = null; floor.login = null; }
  const who = document.getElementById("who");
  if (who) {
    const out = () => el("button", { class: "link", id: "logout", onclick: logout }, "log out");
    who.replaceChildren(floor.user
      ? el("span", {}, `floor: ${floor.user} `, out())
      : floor.login
        ? el("span", {}, `${floor.login} (not floor staff) `, out())
        : el("a", { href: "/login" }, "floor login"));
  }
  document.body.classList.toggle("staff", !!floor.user);
}

async function logout() {
  await post("/api/logout", {});
  location.reload();
}

async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": floor.csrf || "" },
    body: JSON.stringify(body),
  });
  let answer = {};
  try { answer = await response.json(); } catch (e) { /* no body */ }
  if (!response.ok && !answer.reason) answer.reason = `refused (${response.status})`;
  if (!response.ok) answer.status = "error";
  return answer;
}

// Send a floor decision; the answer (done, or refused with the reason) shows at ``where``.
async function decide(target, name, args, where) {
  if (where) where.textContent = "…";
  const reply = await post("/api/command", { target, name, args });
  if (where) {
    where.textContent = reply.status === "ok"
      ? `done: ${reply.reason || name}`
      : `refused: ${reply.reason || "no answer"}${reply.rule ? ` (${reply.rule})` : ""}`;
    where.className = `reply ${reply.status === "ok" ? "ok" : "error"}`;
  }
  return reply;
}

// ------------------------------------------------------------------ the push stream

function connect(kinds, table, render) {
  const query = new URLSearchParams({ kinds: kinds.join(",") });
  if (table) query.set("table", table);
  if (table && floor.focus) query.set("venue", floor.focus);
  const source = new EventSource(`/api/stream?${query}`);
  const banner = document.getElementById("connection");
  const show = (text) => {
    if (!banner) return;
    banner.textContent = text;
    banner.hidden = !text;
  };
  source.addEventListener("open", () => { floor.live = true; });
  source.addEventListener("error", () => {
    floor.live = false;
    show("connection to the floor server lost: reconnecting…");
  });
  source.addEventListener("snapshot", (m) => {
    const snap = JSON.parse(m.data);
    floor.tables = new Map(snap.tables.map((t) => [keyOf(t.venue, t.table), t]));
    floor.stories = new Map(Object.entries(snap.stories));
    floor.alerts = new Map(snap.alerts.map((a) => [a.id, a]));
    floor.alertsKnown = true;  // (before the first snapshot no alert is known open or not)
    floor.heard = true;
    floor.cashFloor = !!snap.cash;
    floor.clock = snap.clock;
    floor.clockOnline = snap.clock_online;
    floor.tournament = snap.tournament || null;
    floor.venueStates = new Map((snap.venues || []).map((v) => [v.venue, v]));
    applyFocus();
    floor.broker = snap.broker;
    floor.brokerProblem = snap.broker_problem || null;
    show(brokerNote());
    render();
  });
  source.addEventListener("table", (m) => {
    const u = JSON.parse(m.data);
    const key = keyOf(u.table.venue, u.table.table);
    floor.tables.set(key, u.table);
    render(key);
  });
  source.addEventListener("event", (m) => {
    const u = JSON.parse(m.data);
    const key = keyOf(u.venue, u.event_table);
    const story = floor.stories.get(key) || [];
    if (u.event.kind === "hand_started") story.length = 0;
    story.push(u.event);
    floor.stories.set(key, story.slice(-200));
    render(key);
  });
  source.addEventListener("clock", (m) => {
    const u = JSON.parse(m.data);
    if (u.venue) {  // one venue's clock, on a floor following several
      const v = venueState(u.venue);
      v.clock = u.clock || null;
      if ("clock_online" in u) v.clock_online = u.clock_online;
      applyFocus();
    } else {
      floor.clock = u.clock || null;  // (every clock push carries it; absent: cleared)
      if ("clock_online" in u) floor.clockOnline = u.clock_online;
    }
    render();
  });
  source.addEventListener("tournament", (m) => {
    const u = JSON.parse(m.data);
    if (u.venue) venueState(u.venue).tournament = u.tournament || null;
    else floor.tournament = u.tournament || null;  // absent: it is gone
    applyFocus();
    render(undefined, "tournament");  // (a page that shows it only in its strip redraws that)
  });
  source.addEventListener("alert", (m) => {
    const alert = JSON.parse(m.data).alert;
    if (alert.acknowledged_by) floor.alerts.delete(alert.id);
    else floor.alerts.set(alert.id, alert);
    render();
  });
  source.addEventListener("broker", (m) => {
    const u = JSON.parse(m.data);
    if (u.venue) {  // a venue's link to the league (its bridge), not this server's broker
      venueState(u.venue).bridge = u.bridge;
      render();
      return;
    }
    floor.broker = u.broker;
    floor.brokerProblem = u.broker_problem || null;
    show(brokerNote());
    render();
  });
  return source;
}

// The banner about the floor server's own broker: lost, and why if its log knows.
function brokerNote() {
  if (!floor.broker) {
    return "the floor server has lost the broker: " +
      (floor.brokerProblem || "what you see may be old");
  }
  return floor.brokerProblem || "";
}

// ------------------------------------------------------------------ the clock strip

function clockParts(c) {
  if (!c) return { status: "no clock yet", level: "", blinds: "", left: null };
  const status = floor.clockOnline === false ? "clock offline"
    : c.status === "on_break" ? "break" : c.status === "running" ? "" : (c.status || "").replace("_", " ");
  return {
    status,
    level: c.on_break ? `break, then level ${c.level}` : `level ${c.level}`,
    blinds: blindsText(c),
    left: levelLeft(c),
  };
}

// Before its first round, hand-for-hand waits for the hands in play (no round released yet).
function roundWords(c) {
  return c.playing && c.playing.length ? `round ${c.round}` : "the hands in play finish";
}

// A venue's clock in a few words, on a floor following several: its level (or break), and
// what stops it (paused, clock offline, the link to the league down).
function venueWords(v) {
  const c = v.clock;
  const winner = v.tournament && v.tournament.winner;
  if (winner) return { level: "over", status: "", blinds: `winner ${winner}` };
  const level = !c ? "no clock yet" : c.on_break ? "break" : `level ${c.level}`;
  const status = v.bridge === false ? "link down"
    : v.clock_online === false ? "clock offline"
    : c && c.status !== "running" && c.status !== "on_break" ? (c.status || "").replace("_", " ") : "";
  return { level, status, blinds: c && !c.on_break ? `${short(c.sb)}/${short(c.bb)}` : "" };
}

// Every venue's clock in one line (a league's pages about no one venue): name, level, the
// time left (counted on by the tick), what stops it.
function renderVenuesStrip(strip, extra) {
  const key = floor.venues.join(" ");
  if (strip.dataset.venues !== key) {
    strip.dataset.venues = key;
    strip.replaceChildren(...floor.venues.map((venue) => el("span", { class: "venue-clock", id: `strip-${venue}` },
      el("b", {}, venue), " ", el("span", { class: "level" }), " ",
      el("span", { class: "left", "data-clock-of": venue }), " ", el("span", { class: "status" }))),
    el("span", { class: "extra" }));
  }
  for (const venue of floor.venues) {
    const node = document.getElementById(`strip-${venue}`);
    const words = venueWords(venueState(venue));
    setText(node.querySelector(".level"), words.level);
    setText(node.querySelector(".status"), words.status);
  }
  setText(strip.lastChild, extra || "");
}

// A room with cash games: the cash floor heard, or a table of its own dealing a cash game.
const hasCash = () => floor.cashFloor
  || [...floor.tables.values()].some((v) => !v.venue && v.state && v.state.game);

// A room dealing cash games and nothing else: no clock heard, no tournament, and cash games
// (each table's blinds are its own: docs/cash.md). Its pages wait for no clock: the strip and
// /clock say "cash games", never "no clock yet".
function cashOnly() {
  return !(floor.clock || floor.tournament || floor.league) && hasCash();
}

// The strip is built once; a render sets its texts, the tick its time left.
function renderClockStrip(extra) {
  const strip = document.getElementById("clockstrip");
  if (!strip) return;
  if (floor.league && !floor.focus) { renderVenuesStrip(strip, extra); return; }
  if (!strip.firstChild) {
    strip.append(el("span", { class: "level" }), el("span", { class: "blinds" }),
      el("span", { class: "left", id: "strip-left" }), el("span", { class: "status" }),
      el("span", { class: "h4h" }), el("span", { class: "extra" }));
  }
  const c = floor.clock;
  const p = clockParts(c);
  const [level, blinds, left, status, h4h, more] = strip.children;
  setText(more, extra || "");
  const winner = over();
  if (winner) {  // the clock pauses on its last level: the strip says who won, not the round
    setText(level, "the tournament is over");
    setText(blinds, `winner: ${winner}`);
    for (const node of [left, status, h4h]) setText(node, "");
    return;
  }
  strip.classList.toggle("cash-only", cashOnly());
  if (cashOnly()) {
    setText(level, "cash games");
    for (const node of [blinds, left, status, h4h]) setText(node, "");
    return;
  }
  setText(level, p.level);
  setText(blinds, p.blinds);
  setText(left, mmss(p.left));
  setText(status, p.status);
  setText(h4h, c && c.hand_for_hand ? `hand-for-hand, ${roundWords(c)}` +
    (c.waiting && c.waiting.length ? ` · waiting for ${c.waiting.join(", ")}` : "") : "");
}

// The tournament's winner once it names one (the page's tournament): it is over.
function over() {
  return (floor.tournament && floor.tournament.winner) || null;
}

// ------------------------------------------------------------------ time passing

// Every element with data-since shows the time since that instant (the clock's time), every
// element with data-left (and data-from) the seconds still left: counted here, between pushes.
function tick() {
  const left = document.getElementById("strip-left");
  if (left && floor.clock && !over()) setText(left, mmss(levelLeft(floor.clock)));
  for (const node of document.querySelectorAll("[data-clock-of]")) {  // each venue's time left
    const v = floor.venueStates.get(node.dataset.clockOf);
    const done = v && v.tournament && v.tournament.winner;  // that venue's tournament is over
    setText(node, done ? "" : mmss(v && v.clock ? levelLeft(v.clock) : null));
  }
  for (const node of document.querySelectorAll("[data-since]")) {
    setText(node, mmss(clockNow() - Number(node.dataset.since)));
  }
  for (const node of document.querySelectorAll("[data-left]")) {
    const rest = Number(node.dataset.left) - (clockNow() - Number(node.dataset.from));
    setText(node, `${Math.max(0, Math.ceil(rest))} s`);
  }
  if (window.onTick) window.onTick();
}

function start(kinds, table, render) {
  syncTime();
  whoAmI().then(() => render());
  connect(kinds, table, render);
  setInterval(tick, 250);
}

// Each cell of a table named by its column (``data-label``, from the header row), for a phone
// that shows each row as a card (tournament.css); a cell that says its name already ("table 3"
// under "table") is left as it is.
function labelCells(table) {
  const rows = [...table.rows];
  const head = rows.find((r) => r.cells.length && [...r.cells].every((c) => c.tagName === "TH"));
  if (!head) return table;
  const names = [...head.cells].map((c) => c.textContent.trim());
  for (const row of rows) {
    if (row === head) continue;
    [...row.cells].forEach((cell, k) => {
      const name = names[k];
      if (name && cell.tagName === "TD" && !cell.textContent.trim().toLowerCase().startsWith(name.toLowerCase())) {
        cell.dataset.label = name;
      }
    });
  }
  return table;
}

// A command button is busy while its request is under way: a second click sends nothing (a
// double click on "Call next" called two players). ``send`` returns the request's promise.
function busy(button, send) {
  if (button.disabled) return Promise.resolve(null);
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  return Promise.resolve().then(send).finally(() => {
    button.disabled = false;
    button.removeAttribute("aria-busy");
  });
}

// Cards as the floor reads them: "Ah" as A♥ in red, "????" (not shown) as it is.
function cards(text) {
  const out = [];
  for (let k = 0; k + 1 < (text || "").length; k += 2) {
    const suit = { s: "♠", h: "♥", d: "♦", c: "♣" }[text[k + 1]];
    out.push(el("span", { class: `cardface ${"hd".includes(text[k + 1]) ? "red" : ""}` },
      suit ? text[k] + suit : text.slice(k, k + 2)));
  }
  return out;
}

// A moment as the room's clocks show it: 24-hour, the browser's own date order; every page's
// times of day come from here (an alert's time reads the same on /alerts and /tournament).
const when = (seconds, withDate = false) => new Date(seconds * 1000)[
  withDate ? "toLocaleString" : "toLocaleTimeString"](undefined, { hourCycle: "h23" });

window.floorApp = { floor, el, setText, chips, cards, when, short, money, playersLeft, mmss, levelLeft, blindsText,
  nextBlindsText, clockParts, decide, post, start, whoAmI, renderClockStrip, clockNow,
  roundWords, over, keyOf, domKey, venueState, venueWords, hasCash, cashOnly, labelCells, busy };
