// The alerts, grouped by table: the worst table first, each table's alerts newest first, each
// with its severity, its rule and what to do; a floor login acknowledges one, or every alert
// of a table it sees, with one click (journaled, with who). On a floor following several
// venues each group names its venue.
"use strict";
(() => {
  const { floor, el, renderClockStrip, post, start, domKey, when } = window.floorApp;
  const RANK = { urgent: 3, warning: 2, notice: 1 };
  const SERVICES = ["clock", "recorder", "bridge", "tournament", "cash"];  // no hand of their own

  // Only the alerts this page shows: one that arrives a moment later is not acknowledged unseen.
  async function acknowledge(ids) {
    const answer = await post("/api/alerts/ack", { ids });
    const reply = document.getElementById("alert-reply");
    reply.textContent = answer.status === "error" ? `refused: ${answer.reason}`
      : `acknowledged ${answer.acknowledged} alert${answer.acknowledged === 1 ? "" : "s"}`;
    reply.className = `reply ${answer.status === "error" ? "error" : "ok"}`;
  }

  function where(venue, table) {
    const at = venue ? `?venue=${encodeURIComponent(venue)}` : "";
    const named = (text) => (venue ? `${venue} · ${text}` : text.charAt(0).toUpperCase() + text.slice(1));
    if (table === "clock") return el("a", { href: `/clock${at}` }, named("the clock"));
    if (table === "recorder") return named("the recorder");
    if (table === "bridge") return named("the link to the league");
    if (table === "cash") return venue ? named("the cash floor") : el("a", { href: "/cash" }, named("the cash floor"));
    if (table === "tournament") {
      return venue ? named("the tournament") : el("a", { href: "/tournament" }, named("the tournament"));
    }
    return el("a", { href: `/table/${encodeURIComponent(table)}${at}` }, named(`Table ${table}`));
  }

  // One whose cause has passed (the table, the clock, the reader back) is a notice as the
  // room screen's card says it: "was: ..." and when it came back; it waits only for a click.
  function item(a) {
    const passed = a.passed_at !== null && a.passed_at !== undefined;
    return el("li", { class: `alert ${a.kind} ${a.severity}${passed ? " passed" : ""}`, "data-id": a.id },
      el("span", { class: `sev ${a.severity}` }, a.severity),
      el("span", {},
        el("span", { class: "at" }, when(a.at)),
        SERVICES.includes(a.table) || !a.hand ? " · " : ` · hand ${a.hand} · `,
        el("span", { class: "text" }, passed ? `was: ${a.text}` : a.text),
        a.rule ? el("span", { class: "rule" }, a.rule) : null),
      el("button", { class: "staff-only ack", onclick: () => acknowledge([a.id]) }, "Acknowledge"),
      passed ? el("span", { class: "back" }, `back at ${when(a.passed_at)}: acknowledge it`)
        : a.todo ? el("span", { class: "todo" }, `what to do: ${a.todo}`) : null);
  }

  function render(changed, kind) {
    renderClockStrip();
    if (kind === "tournament") return;  // (only the strip shows it: the buttons stay still)
    const groups = new Map();
    for (const a of floor.alerts.values()) {  // by table: on a league's floor, by venue and table
      const group = domKey(a.venue, a.table);
      if (!groups.has(group)) groups.set(group, []);
      groups.get(group).push(a);
    }
    for (const alerts of groups.values()) alerts.sort((x, y) => y.at - x.at);
    const worst = (alerts) => Math.max(...alerts.map((a) => RANK[a.severity] || 2));
    const ordered = [...groups.entries()].sort(([, x], [, y]) =>
      worst(y) - worst(x) || y[0].at - x[0].at);
    const list = document.getElementById("alerts");
    list.replaceChildren(...ordered.map(([group, alerts]) => {
      const severity = Object.keys(RANK).find((s) => RANK[s] === worst(alerts));
      return el("li", { class: `group ${severity}`, id: `alerts-${group}`, "data-venue": alerts[0].venue },
        el("header", {}, el("h2", {}, where(alerts[0].venue, alerts[0].table)),
          el("span", { class: "muted" }, `${alerts.length} open`),
          alerts.length > 1 ? el("button", { class: "staff-only ack-all",
            onclick: () => acknowledge(alerts.map((a) => a.id)) }, `Acknowledge all ${alerts.length}`) : null),
        el("ul", { class: "alerts" }, alerts.map(item)));
    }));
    if (!ordered.length) list.replaceChildren(el("li", { class: "muted" }, "no open alert"));
    const count = document.getElementById("alert-count");
    if (count) count.textContent = floor.alerts.size ? String(floor.alerts.size) : "";
  }

  start(["clock", "alert", "broker", "tournament"], null, render);
})();
