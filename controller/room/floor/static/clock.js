// The clock screen for the room's TVs (`/clock?tv=1`: nothing to click): the tournament's name,
// the level and its blinds, the time left (the biggest thing on the screen, counted from the
// clock's end instant), the next level and the time to the break; from the tournament, when
// there is one, players left, the average stack, the chip leader, the prize pool and payouts.
// On a floor following several venues, ``?venue=hall-a`` shows that venue's clock so, and
// without it every venue's clock side by side (a league's screen).
"use strict";
(() => {
  const { floor, el, setText, chips, money, playersLeft, mmss, levelLeft, blindsText, nextBlindsText,
    clockNow, decide, start, roundWords, venueState, venueWords, cashOnly } = window.floorApp;
  const $ = (id) => document.getElementById(id);
  const PAYOUT_LINES = 10;  // what fits beside the clock at a legible size; then "+N more"
  const asked = new URLSearchParams(location.search).get("venue");
  floor.focus = floor.league && floor.venues.includes(asked) ? asked : null;
  const everyVenue = floor.league && !floor.focus;
  document.body.classList.toggle("every-venue", everyVenue);

  // ---------------------------------------------------------------- every venue's clock

  const panels = new Map();  // venue -> its panel's nodes
  function renderVenues() {
    const box = $("tv-venues");
    if (!panels.size) {
      for (const venue of floor.venues) {
        const parts = { level: el("div", { class: "tv-level" }), blinds: el("div", { class: "tv-venue-blinds" }),
          status: el("div", { class: "tv-status" }), next: el("div", { class: "tv-next" }) };
        const node = el(floor.tv ? "div" : "a", { class: "tv-venue", id: `tv-venue-${venue}`,
          href: floor.tv ? null : `/clock?venue=${encodeURIComponent(venue)}` },
        el("div", { class: "tv-venue-name" }, venue), parts.level, parts.blinds,
        el("div", { class: "tv-venue-left", "data-clock-of": venue }, "--:--"), parts.status, parts.next);
        panels.set(venue, { node, parts });
      }
      box.replaceChildren(...[...panels.values()].map((p) => p.node));
      box.style.setProperty("--venues", String(panels.size));
      // two venues a row: three or four take two rows, each at half the size, and so on
      box.style.setProperty("--scale", String(1 / Math.ceil(panels.size / 2)));
    }
    for (const [venue, { node, parts }] of panels) {
      const v = venueState(venue), c = v.clock, words = venueWords(v);
      const name = v.tournament && v.tournament.name ? v.tournament.name : c && c.name ? c.name : "";
      node.title = name;
      const winner = v.tournament && v.tournament.winner;
      setText(parts.level, winner ? "Winner" : c ? (c.on_break ? "Break" : `Level ${c.level}`) : "waiting for the clock");
      setText(parts.blinds, winner || (c ? (c.on_break ? `next: level ${c.level}` : blindsText(c)) : ""));
      setText(parts.status, words.status || (c && c.hand_for_hand && !winner ? "hand-for-hand" : ""));
      setText(parts.next, !winner && c && c.next_break_at && c.status === "running"
        ? `break in ${mmss(c.next_break_at - clockNow())}` : "");
      node.classList.toggle("paused", !!c && c.status === "paused");
      node.classList.toggle("down", v.bridge === false || v.clock_online === false);
    }
  }

  const STATUS = { not_started: "not started", running: "", paused: "paused",
    on_break: "", finished: "finished" };

  // ---------------------------------------------------------------- the chimes
  // As the best clocks do, the room hears what changed: a new level, a break, its end, a minute
  // left, the winner. On a TV by default (``?sound=0`` mutes it), elsewhere with ``?sound=1``.
  // Notes from the browser's own synthesizer: no sound file to serve. A TV browser must be let
  // play without a click (Chromium: --autoplay-policy=no-user-gesture-required, docs/floor.md).
  // The page says what it chimed (body's data-chimes, data-last-chime) whether or not it
  // could be heard.
  const soundAsked = new URLSearchParams(location.search).get("sound");
  const sound = soundAsked === null ? floor.tv : soundAsked === "1";
  const NOTES = { level: [660, 880], break: [880, 660, 440], resume: [440, 660, 880],
    minute: [880], winner: [523, 659, 784, 1047] };
  let audio = null;
  let heard = null;  // what the last render showed: "level 3", "break 3", "winner ana"
  let leftBefore = null;

  function chime(kind) {
    document.body.dataset.chimes = String(Number(document.body.dataset.chimes || 0) + 1);
    document.body.dataset.lastChime = kind;
    if (!sound || !window.AudioContext) return;
    try {
      audio = audio || new AudioContext();
      if (audio.state === "suspended") audio.resume();
      NOTES[kind].forEach((frequency, k) => {
        const tone = audio.createOscillator(), gain = audio.createGain();
        const at = audio.currentTime + 0.35 * k;
        tone.frequency.value = frequency;
        gain.gain.setValueAtTime(0.0001, at);
        gain.gain.exponentialRampToValueAtTime(0.5, at + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.32);
        tone.connect(gain).connect(audio.destination);
        tone.start(at);
        tone.stop(at + 0.34);
      });
    } catch (e) {
      // a screen without sound still shows it all
    }
  }

  function listen(c, winner) {
    const now = winner ? `winner ${winner}` : c ? `${c.on_break ? "break" : "level"} ${c.level}` : null;
    if (heard !== null && now !== null && now !== heard) {
      chime(winner ? "winner" : c.on_break ? "break" : heard.startsWith("break") ? "resume" : "level");
    }
    if (now !== null) heard = now;
  }

  function renderTournament() {
    const t = floor.tournament;
    document.body.classList.toggle("with-tournament", !!t);
    if (!t) return;
    const players = playersLeft(t);
    setText($("tv-players"), players.left);
    setText($("tv-entries"), players.of);
    setText($("tv-average"), chips(t.average_stack));
    setText($("tv-leader"), t.chip_leader ? t.chip_leader.player : "—");  // none, or shared
    setText($("tv-leader-stack"), t.chip_leader ? chips(t.chip_leader.stack) : "");
    setText($("tv-pool"), money(t.prize_pool, t.currency));
    const payouts = t.payouts || [];
    const shown = payouts.length > PAYOUT_LINES ? payouts.slice(0, PAYOUT_LINES - 1) : payouts;
    const lines = shown.map((p) => el("li", { class: "tv-payout" },
      el("span", { class: "place" }, `${p.place}.`), el("span", { class: "amount" }, money(p.amount, t.currency))));
    if (shown.length < payouts.length) {
      lines.push(el("li", { class: "tv-payout more" }, `+${payouts.length - shown.length} more places`));
    }
    $("tv-payouts").replaceChildren(...lines);
  }

  function render() {
    if (everyVenue) { renderVenues(); return; }
    const c = floor.clock;
    renderTournament();
    const name = (floor.tournament && floor.tournament.name) || (c && c.name) || "";
    setText($("tv-name"), floor.focus ? [floor.focus, name].filter(Boolean).join(" · ") : name);
    // The tournament is over: the winner, where the level and blinds were (the clock pauses).
    const winner = floor.tournament && floor.tournament.winner;
    listen(c, winner);
    document.body.classList.toggle("tournament-over", !!winner);
    if (winner) {
      setText($("tv-level"), "Winner");
      setText($("tv-blinds"), winner);
      setText($("tv-ante"), "");
      setText($("tv-next"), "the tournament is over");
      setText($("tv-status"), "");
      setText($("tv-h4h"), "");
      setText($("tv-left"), "");
      setText($("tv-break"), "");
      return;
    }
    // A cash room has no clock (each table's blinds are its own): nothing to wait for
    const cash = !c && cashOnly();
    document.body.classList.toggle("cash-only", cash);
    if (cash) {
      setText($("tv-level"), "Cash games");
      setText($("tv-status"), "");
      setText($("tv-next"), "no tournament clock: each table deals at its own blinds");
      return;
    }
    if (!c) { setText($("tv-status"), "waiting for the clock"); return; }
    // The level field shows the clock's level until the director types another (it said 1
    // whatever the level, and "Go to this level" took the blinds back to level 1)
    const field = $("clock-level");
    if (field && !field.dataset.edited) field.value = c.level;
    if ($("clock-controls")) {  // only what the clock can do now (Start while it ran: refused)
      $("clock-start").hidden = c.status !== "not_started";
      $("clock-pause").hidden = c.status !== "running" && c.status !== "on_break";
      $("clock-resume").hidden = c.status !== "paused";
    }
    document.body.classList.toggle("on-break", !!c.on_break);
    document.body.classList.toggle("paused", c.status === "paused");
    if (c.on_break) {
      // A break shows as a break: the chips that colour up, then the level that follows.
      setText($("tv-level"), "Break");
      setText($("tv-blinds"), "");
      setText($("tv-ante"), c.colour_up && c.colour_up.length
        ? `colour up the ${c.colour_up.map(chips).join(" and ")} chips` : "");
      setText($("tv-next"), `next: level ${c.level} · ${blindsText(c)}`);
    } else {
      setText($("tv-level"), `Level ${c.level}`);
      setText($("tv-blinds"), `${chips(c.sb)} / ${chips(c.bb)}`);
      setText($("tv-ante"), c.ante ? `ante ${chips(c.ante)}` : c.bb_ante ? `big blind ante ${chips(c.bb_ante)}` : "");
      const next = nextBlindsText(c);
      setText($("tv-next"), c.next_level ? `next: ${next || `level ${c.next_level}`}` : "last level");
    }
    const link = floor.focus && venueState(floor.focus).bridge === false ? "link to the league down" : "";
    setText($("tv-status"), link || (floor.clockOnline === false ? "clock offline" : STATUS[c.status] ?? ""));
    setText($("tv-h4h"), c.hand_for_hand
      ? `hand-for-hand · ${roundWords(c)}` + (c.waiting.length ? ` · waiting for table ${c.waiting.join(", ")}` : "")
      : "");
    onTick();
  }

  function onTick() {
    if (everyVenue) { renderVenues(); return; }
    const c = floor.clock;
    if (!c || (floor.tournament && floor.tournament.winner)) return;
    const seconds = levelLeft(c);
    if (c.status === "running" || c.status === "on_break") {  // a minute left: once
      if (leftBefore !== null && leftBefore > 60 && seconds !== null && seconds <= 60 && seconds > 55) {
        chime("minute");
      }
      leftBefore = seconds;
    } else {
      leftBefore = null;
    }
    const left = mmss(seconds);
    setText($("tv-left"), left);
    $("tv-left").classList.toggle("hours", left.length > 5);
    setText($("tv-break"), c.next_break_at && c.status === "running"
      ? `break in ${mmss(c.next_break_at - clockNow())}` : "");
  }
  window.onTick = onTick;

  if ($("clock-controls")) {  // a floor login's page, never a TV's
    const reply = () => $("clock-reply");
    $("clock-start").addEventListener("click", () => decide("clock", "start", {}, reply()));
    $("clock-pause").addEventListener("click", () => decide("clock", "pause", {}, reply()));
    $("clock-resume").addEventListener("click", () => decide("clock", "resume", {}, reply()));
    $("clock-add").addEventListener("click", () => decide("clock", "add_time", { seconds: 60 }, reply()));
    $("clock-remove").addEventListener("click", () => decide("clock", "remove_time", { seconds: 60 }, reply()));
    $("clock-h4h-on").addEventListener("click", () => decide("clock", "hand_for_hand", { on: true }, reply()));
    $("clock-h4h-off").addEventListener("click", () => decide("clock", "hand_for_hand", { on: false }, reply()));
    $("clock-level").addEventListener("input", (e) => { e.target.dataset.edited = "1"; });
    $("clock-set-level").addEventListener("click", () => {
      const field = $("clock-level"), level = Number(field.value), c = floor.clock;
      const now = c ? c.level : null;
      // Asked first: a level is for every table from its next hand (PVB 14(2))
      if (!confirm(`Go to level ${level} from every table's next hand?` + (now === null ? ""
        : level < now ? ` The clock is at level ${now}: the blinds go down.`
          : ` The clock is at level ${now}.`))) return;
      delete field.dataset.edited;
      decide("clock", "set_level", { level }, reply());
    });
  }

  start(["clock", "tournament", "broker"], null, render);
})();
