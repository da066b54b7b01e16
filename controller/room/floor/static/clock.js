// The clock screen for the room's TVs: big, legible, counted from the clock's end instant.
"use strict";
(() => {
  const { floor, mmss, levelLeft, blindsText, clockNow, decide, start } = window.floorApp;
  const $ = (id) => document.getElementById(id);

  function render() {
    const c = floor.clock;
    if (!c) { $("tv-status").textContent = "waiting for the clock"; return; }
    $("tv-level").textContent = c.on_break ? "Break" : `Level ${c.level}`;
    $("tv-blinds").textContent = c.on_break ? `next: level ${c.level} · ${blindsText(c)}` : blindsText(c);
    const status = { not_started: "not started", running: "", paused: "paused",
      on_break: "break", finished: "finished" }[c.status] ?? "";
    $("tv-status").textContent = floor.clockOnline === false ? "clock offline" : status;
    document.body.classList.toggle("paused", c.status === "paused");
    $("tv-next").textContent = c.next_level ? `next: level ${c.next_level}` : "";
    $("tv-h4h").textContent = c.hand_for_hand
      ? `hand-for-hand · ${window.floorApp.roundWords(c)}` + (c.waiting.length ? ` · waiting for table ${c.waiting.join(", ")}` : "")
      : "";
    onTick();
  }

  function onTick() {
    const c = floor.clock;
    if (!c) return;
    $("tv-left").textContent = mmss(levelLeft(c));
    $("tv-break").textContent = c.next_break_at && c.status === "running"
      ? `break in ${mmss(c.next_break_at - clockNow())}` : "";
  }
  window.onTick = onTick;

  const reply = () => $("clock-reply");
  $("clock-start").addEventListener("click", () => decide("clock", "start", {}, reply()));
  $("clock-pause").addEventListener("click", () => decide("clock", "pause", {}, reply()));
  $("clock-resume").addEventListener("click", () => decide("clock", "resume", {}, reply()));
  $("clock-add").addEventListener("click", () => decide("clock", "add_time", { seconds: 60 }, reply()));
  $("clock-remove").addEventListener("click", () => decide("clock", "remove_time", { seconds: 60 }, reply()));
  $("clock-h4h-on").addEventListener("click", () => decide("clock", "hand_for_hand", { on: true }, reply()));
  $("clock-h4h-off").addEventListener("click", () => decide("clock", "hand_for_hand", { on: false }, reply()));
  $("clock-set-level").addEventListener("click", () =>
    decide("clock", "set_level", { level: Number($("clock-level").value) }, reply()));

  start(["clock", "broker"], null, render);
})();
