// The alerts list: each alert stays until a floor login acknowledges it (journaled, with who).
"use strict";
(() => {
  const { floor, el, renderClockStrip, post, start } = window.floorApp;

  function when(at) {
    return new Date(at * 1000).toLocaleTimeString();
  }

  async function acknowledge(id) {
    const answer = await post(`/api/alerts/${encodeURIComponent(id)}/ack`, {});
    const reply = document.getElementById("alert-reply");
    reply.textContent = answer.ok ? "acknowledged" : `refused: ${answer.reason}`;
    reply.className = `reply ${answer.ok ? "ok" : "error"}`;
  }

  function render() {
    renderClockStrip();
    const alerts = [...floor.alerts.values()].sort((a, b) => a.at - b.at);
    const list = document.getElementById("alerts");
    list.replaceChildren(...alerts.map((a) => el("li", { class: `alert ${a.kind}`, "data-id": a.id },
      el("span", { class: "at" }, when(a.at)), " ",
      a.table === "clock" ? el("a", { href: "/clock" }, "the clock")
        : a.table === "recorder" ? "the recorder"
        : el("a", { href: `/table/${encodeURIComponent(a.table)}` }, `table ${a.table}`),
      ["clock", "recorder"].includes(a.table) ? " · " : ` · hand ${a.hand} · `,
      el("span", { class: "text" }, a.text), a.rule ? el("span", { class: "rule" }, a.rule) : null,
      el("button", { class: "staff-only ack", onclick: () => acknowledge(a.id) }, "Acknowledge"))));
    if (!alerts.length) list.replaceChildren(el("li", { class: "muted" }, "no open alert"));
    const count = document.getElementById("alert-count");
    if (count) count.textContent = alerts.length ? String(alerts.length) : "";
  }

  start(["table", "clock", "alert", "broker"], null, render);
})();
