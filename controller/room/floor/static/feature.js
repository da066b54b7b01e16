// The floor's feature-table switch: which table /broadcast follows (a floor decision).
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  let csrf = null;

  async function load() {
    const me = await (await fetch("/api/me", { cache: "no-store" })).json();
    csrf = me.csrf;
    $("f-login").hidden = !!me.user;
    const state = await (await fetch("/api/broadcast-feature", { cache: "no-store" })).json();
    $("f-now").textContent = state.table ? `table ${state.table}` : "none";
    const choices = [...state.tables, null].map((table) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = table ? `Table ${table}` : "None";
      button.dataset.table = table || "";
      button.disabled = !csrf || table === state.table;
      button.addEventListener("click", () => choose(table));
      return button;
    });
    $("f-tables").replaceChildren(...choices);
  }

  async function choose(table) {
    const answer = await fetch("/api/broadcast-feature", {
      method: "POST", headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify({ table }),
    });
    const body = await answer.json();
    $("f-reply").textContent = answer.ok ? `/broadcast now shows ${table ? `table ${table}` : "no table"}`
                                         : body.reason || "refused";
    await load();
  }

  load();
})();
