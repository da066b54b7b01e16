// The seat list's player links (docs/players.md), for a floor login: "phone link" gives the
// player a new link (the old one stops working) and shows it as a QR code to scan or print;
// "withdraw" revokes it. Only the link's hash stays on the server: a link is shown once.
"use strict";
(() => {
  const { el, post } = window.floorApp;

  function panel() {
    let box = document.getElementById("s-link");
    if (!box) {
      box = el("section", { id: "s-link", class: "player-link" });
      document.querySelector("main").prepend(box);
    }
    return box;
  }

  async function issue(player) {
    if (!window.confirm(`Give ${player} a new phone link? Any link ${player} had stops working.`)) return;
    const box = panel();
    box.replaceChildren(el("p", {}, "…"));
    const answer = await post("/api/players/link", { player, action: "issue" });
    if (answer.status !== "ok") {
      box.replaceChildren(el("p", { class: "reply error" }, `refused: ${answer.reason}`));
      return;
    }
    const close = el("button", { class: "no-print" }, "Close");
    close.addEventListener("click", () => box.replaceChildren());
    const withdraw = el("button", { class: "no-print" }, "Withdraw this link");
    withdraw.addEventListener("click", () => revoke(player));
    box.replaceChildren(
      el("h2", {}, `${player}: scan for your seat, stack and clock`),
      el("img", { id: "s-link-qr", src: answer.qr, alt: `QR code of ${player}'s link`, width: "240", height: "240" }),
      el("p", { id: "s-link-url", class: "link-url" }, answer.url),
      el("p", { class: "no-print" }, close, " ", withdraw));
  }

  async function revoke(player) {
    const box = panel();
    const answer = await post("/api/players/link", { player, action: "revoke" });
    box.replaceChildren(el("p", { class: `reply ${answer.status === "ok" ? "ok" : "error"}` },
      answer.status === "ok" ? `done: ${answer.reason}` : `refused: ${answer.reason}`));
  }

  document.addEventListener("click", (event) => {
    const button = event.target.closest("button.player-link-issue");
    if (button) issue(button.dataset.player);
  });
})();
