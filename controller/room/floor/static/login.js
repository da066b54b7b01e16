// The floor login: a session cookie and a CSRF token for the pages that decide.
"use strict";
(() => {
  const { post, whoAmI } = window.floorApp;
  whoAmI();
  document.getElementById("login").addEventListener("submit", async (e) => {
    e.preventDefault();
    const form = new FormData(e.target);
    const answer = await post("/api/login", { user: form.get("user"), password: form.get("password") });
    const reply = document.getElementById("login-reply");
    if (answer.user) {
      reply.textContent = `logged in as ${answer.user}`;
      const next = new URLSearchParams(location.search).get("next") || "/";
      location.href = next.startsWith("/") && !next.startsWith("//") ? next : "/";
    } else {
      reply.textContent = answer.reason || "refused";
      reply.className = "reply error";
    }
  });
})();
