// The table screen: the seat map, the board and pots, the hand's story with its rule tags,
// and (for a floor login) the decisions the table takes. On a floor following several venues
// (``?venue=``) the page names the table's venue and offers no decision.
"use strict";
(() => {
  const { floor, el, chips, cards, renderClockStrip, decide, start, keyOf, clockNow } = window.floorApp;
  const $ = (id) => document.getElementById(id);
  const table = decodeURIComponent(location.pathname.split("/").pop());
  const venue = floor.league ? new URLSearchParams(location.search).get("venue") : null;
  floor.focus = venue;  // its venue's clock on the strip
  const key = keyOf(venue, table);
  const name = venue ? `Table ${table} · ${venue}` : `Table ${table}`;
  document.title = `${name} · pokertable floor`;
  $("table-title").textContent = name;

  // Seats round the oval, seat 1 at the bottom, then clockwise (as the dealer sees them),
  // spread over the seats the table has (a six-seat table fills the oval, not half of it).
  function place(node, number, count) {
    const angle = Math.PI / 2 + (number - 1) * (2 * Math.PI / Math.max(count, number));
    node.style.left = `${50 + 43 * Math.cos(angle)}%`;
    node.style.top = `${50 + 40 * Math.sin(angle)}%`;
    return node;
  }

  function seatBox(number, seat, state) {
    const marks = [];
    if (state.button === number) marks.push(el("span", { class: "mark button" }, "D"));
    if (state.sb === number) marks.push(el("span", { class: "mark" }, "SB"));
    if (state.bb === number) marks.push(el("span", { class: "mark" }, "BB"));
    if (state.straddles && state.straddles[number]) {  // CG Straddle: who posted one
      marks.push(el("span", { class: "mark straddle" }, "STR"));
    }
    const flags = [seat.folded && "folded", seat.all_in && "all-in", seat.absent && "absent",
      seat.sits_out && `sits out this hand (${seat.sits_out})`,
      seat.penalty ? `penalty ${seat.penalty}` : null].filter(Boolean);
    return el("div", {
      class: `seat seat-${number} ${state.actor === number ? "acting" : ""} ${seat.folded ? "folded" : ""}`,
      id: `seat-${number}`,
    },
    el("div", { class: "name" }, `${number} · ${seat.player}`, marks),
    el("div", {}, `stack ${chips(seat.stack)}`),
    shotLine(number, state),
    seat.bet ? el("div", { class: "bet" }, `bet ${chips(seat.bet)}`) : null,
    seat.shown ? el("div", { class: "shown" }, cards(seat.shown))
      : seat.cards ? el("div", { class: "held" }, `${seat.cards} card${seat.cards > 1 ? "s" : ""}`) : null,
    flags.length ? el("div", { class: "flags" }, flags.join(" · ")) : null);
  }

  // The table's shot clock (docs/shot-clock.md): the seat to act's time, counted down here
  // between pushes from the table's instant (on the clock's time: the table's offset), and
  // the time extensions each player has left.
  function shotLine(number, s) {
    const shot = s.shot_clock;
    if (!shot) return null;
    const left = shot.extensions ? shot.extensions[number] : undefined;
    const ext = left === undefined ? "" : `${left} ext.`;
    if (shot.seat !== number) return ext ? el("div", { class: "shot" }, ext) : null;
    const view = floor.tables.get(key);
    const from = (shot.since || 0) + ((view && view.clock_offset) || 0);
    const now = Math.max(0, Math.ceil(shot.remaining - (shot.running ? clockNow() - from : 0)));
    const time = shot.out ? el("span", { class: "shot-out" }, "time is up: the floor rules")
      : shot.running ? el("span", { "data-left": shot.remaining, "data-from": from }, `${now} s`)
        : el("span", {}, `${now} s, held`);
    return el("div", { class: `shot running${shot.extension ? " extension" : ""}`, id: `shot-${number}` },
      "time ", time, shot.extension ? ` (extension ${shot.extensions_used})` : "", ext ? ` · ${ext}` : "");
  }

  function render(changed, kind) {
    renderClockStrip();
    if (kind === "tournament") return;  // (only the strip shows it)
    const view = floor.tables.get(key);
    const felt = $("felt");
    if (!view || !view.state) {
      $("table-status").textContent = view && view.online === false ? "offline" : "no state yet";
      felt.replaceChildren();
      return;
    }
    const s = view.state;
    $("table-status").replaceChildren(
      el("span", { class: `dot ${view.online === false ? "offline" : "online"}` },
        view.online === false ? "offline" : "online"),
      // (a cash table has no levels: its game and blinds are on the felt)
      ` hand ${s.hand} · ${s.street || s.stage}${s.game ? "" : ` · level ${s.level}`} · ${s.waiting_for}`,
      ` · ${view.players} of ${s.seat_count} seats`,
      view.average_stack ? ` · average stack ${chips(view.average_stack)}` : "",
      view.hands_per_hour ? ` · ${Math.round(view.hands_per_hour)} hands an hour` : "",
      ...view.attention.map((a) => el("span", { class: `badge ${a.severity}` }, a.text)));
    // Side pots only mean something once a player is all-in; before that, one total.
    const allIn = Object.values(s.seats).some((seat) => seat.all_in);
    const total = (s.pots || []).reduce((sum, p) => sum + p.amount, 0);
    const pots = s.results && s.results.length ? []  // settled: each board says what it paid
      : allIn
      ? (s.pots || []).map((p, k) => el("div", { class: "pot" }, `${k ? `side pot ${k}` : "main pot"} ${chips(p.amount)}`))
      : [el("div", { class: "pot" }, `pot ${chips(total)}`)];
    const boards = s.boards && s.boards.length > 1 ? s.boards : [s.board];
    felt.classList.toggle("two-boards", boards.length > 1);
    felt.replaceChildren(
      el("div", { class: "middle" }, cashLines(s), boards.map((b, k) => boardLine(s, boards, k)),
        pots, straddleLine(s)),
      ...Object.entries(s.seats).map(([n, seat]) => place(seatBox(Number(n), seat, s), Number(n),
        s.seat_count || 10)));
    renderRace(s);
    const story = floor.stories.get(key) || [];
    $("story").replaceChildren(...story.map((e) => el("li", { class: `ev ev-${e.kind}` },
      e.data && e.data.player ? [el("span", { class: "who" }, e.data.player), " "] : null,
      e.text, e.rule ? el("span", { class: "rule" }, e.rule) : null)));
  }

  // ---------------------------------------------------------------- a cash table (the CG)

  const GAMES = { NT: "hold'em", PO: "Omaha" };
  const LIMITS = { "no-limit": "no-limit", "pot-limit": "pot-limit", "split-limit": "split-limit" };
  const VARIANTS = { "bomb-pot": "bomb pot", flip: "flip" };
  const potName = (k) => (k ? `side pot ${k}` : "main pot");
  const who = (s, seat) => (s.seats[seat] ? `seat ${seat} (${s.seats[seat].player})` : `seat ${seat}`);

  // What a cash table deals (absent at a tournament's): its game and limit (CG Limits; split
  // limit's two bet sizes, APSA 5.2, and its three raises, CG Raise), and how this hand is
  // dealt: a bomb pot, a flip, a double board (CG Spielvarianten), run it twice and for which
  // pots (CG Run It Twice: agreed pot by pot).
  function cashLines(s) {
    const lines = [];
    if (s.game) {
      const b = s.blinds;
      let text = `${LIMITS[s.betting] || s.betting} ${GAMES[s.game] || s.game} ${chips(b.sb)}/${chips(b.bb)}`;
      if (s.betting === "split-limit") {
        text += ` · bets ${chips(b.bb)} and ${chips(2 * b.bb)}, a bet and three raises a round`;
      }
      lines.push(el("div", { class: "hand-game", id: "hand-game" }, text));
    }
    const v = s.variant;
    const how = [];
    if (v) {
      how.push(v.variant ? `${VARIANTS[v.variant] || v.variant} of ${chips(v.amount)}` +
        (v.boards > 1 ? " on two boards" : "") : "double board");
    }
    if (s.run_twice && s.run_twice.length) {
      const count = Math.max((s.pots || []).length, (s.results || []).length, 1);
      const which = s.run_twice.length >= count ? "every pot"
        : `${s.run_twice.map((k) => potName(k - 1)).join(", ")} only; the rest on run 1 alone`;
      how.push(`run it twice: ${which}`);
    }
    if (how.length) lines.push(el("div", { class: "hand-variant", id: "hand-variant" }, how.join(" · ")));
    return lines;
  }

  // One board with its label when there are two (a double board's "board 1", run it twice's
  // "run 1"), and once the hand is settled what each pot paid on it.
  function boardLine(s, boards, k) {
    const two = boards.length > 1;
    const label = two ? el("span", { class: "board-label" },
      `${s.run_twice && s.run_twice.length ? "run" : "board"} ${k + 1}`) : null;
    const paid = [];
    (s.results || []).forEach((pot, p) => {
      const parts = pot.boards && pot.boards.length ? pot.boards
        : [{ board: 1, shares: pot.shares, winning_hand: pot.winning_hand }];
      for (const part of parts.filter((x) => x.board === k + 1)) {
        const shares = Object.entries(part.shares).filter(([, c]) => c)
          .map(([seat, c]) => `${who(s, seat)} ${chips(c)}`).join(", ");
        paid.push(el("div", { class: "board-result" }, `${potName(p)}: ${shares}` +
          (part.winning_hand ? ` with ${part.winning_hand}` : "")));
      }
    });
    return el("div", { class: "board-line", "data-board": k + 1 },
      el("div", { class: "board-cards" }, label,
        el("div", { class: "board", id: k ? `board-${k + 1}` : "board" }, cards(boards[k]))),
      paid);
  }

  // CG Straddle: the straddles posted in this hand, whose, and how much.
  function straddleLine(s) {
    const posted = Object.entries(s.straddles || {});
    if (!posted.length) return null;
    return el("div", { class: "straddles", id: "straddles" }, `straddle${posted.length > 1 ? "s" : ""}: ` +
      posted.map(([seat, amount]) => `${who(s, seat)} ${chips(amount)}`).join(" · "));
  }

  // A colour-up's chip race (RULES T5, APSA 2.1.18) at a table whose readers cannot read the
  // stacks: the floor gives the race's chips, one button a racer (between hands, until the
  // next hand begins). A racer already read or entered has none.
  function renderRace(s) {
    const box = $("race-controls");
    if (!box) return;
    const up = s.colour_up;
    const racers = up && up.open && up.method === "race"
      ? Object.entries(up.race).filter(([n, r]) => !r.sure && !r.won && !r.counted
        && s.seats[n] && s.seats[n].player === r.player) : [];
    const shown = racers.map(([n]) => n).join(",");
    if (box.dataset.shown === shown) return;  // (a render per push: keep the buttons still)
    box.dataset.shown = shown;
    if (!racers.length) { box.replaceChildren(); return; }
    box.replaceChildren(el("span", {}, `Chip race for ${up.race_chips} chip(s) of ${chips(up.unit)}:`),
      ...racers.map(([n, r]) => {
        const stack = r.keeps + up.unit;
        const button = el("button", { class: "race-chip", id: `race-chip-${n}` },
          `Seat ${n} won a race chip (${chips(stack)})`);
        button.addEventListener("click", () => {
          if (confirm(`Seat ${n} (${r.player}) won a chip of ${chips(up.unit)} in the chip race: stack ${chips(stack)}?`)) {
            decide(table, "stack", { seat: Number(n), player: r.player, stack,
              rule: "APSA 2.1.18", reason: "won a chip in the chip race" }, $("table-reply"));
          }
        });
        return button;
      }));
  }

  if ($("table-controls")) {  // a floor's page that decides: never a TV's, never a league's
    const seat = () => Number($("seat").value);
    const reply = () => $("table-reply");
    $("call-time").addEventListener("click", () => decide(table, "time", { seat: seat() }, reply()));
    // The decisions that move chips or the button say what they will do first (one tap on a
    // phone is easy to make by mistake); a time call is undone by the dealer's keys.
    $("move-button").addEventListener("click", () => {
      if (confirm(`Move the button to seat ${seat()}?`)) decide(table, "move_button", { seat: seat() }, reply());
    });
    $("penalty").addEventListener("click", () => {
      const hands = Number($("penalty-hands").value);
      if (confirm(`Penalty: seat ${seat()} sits out ${hands} hands?`)) {
        decide(table, "penalty", { seat: seat(), hands }, reply());
      }
    });
    $("award").addEventListener("click", () => {
      const pot = Number($("pot").value);
      if (confirm(`Award pot ${pot} to seat ${seat()}?`)) decide(table, "award", { pot, seats: [seat()] }, reply());
    });
    $("misdeal").addEventListener("click", () => {
      if (confirm("Declare a misdeal? Every bet goes back.")) decide(table, "misdeal", {}, reply());
    });
    // The stack as the floor counted it (a table without chip readers: a race's winner, a
    // count), for the player the table shows at the seat; between hands only (the table says so).
    $("set-stack").addEventListener("click", () => {
      const view = floor.tables.get(key);
      const at = view && view.state ? view.state.seats[seat()] : null;
      const stack = Number($("stack-chips").value);
      if (!at) { reply().textContent = `refused: nobody sits at seat ${seat()}`; return; }
      if (!Number.isInteger(stack) || stack < 1) { reply().textContent = "refused: the stack is a whole number of chips from 1"; return; }
      if (confirm(`Set seat ${seat()}'s stack (${at.player}) to ${chips(stack)}? It is ${chips(at.stack)}.`)) {
        decide(table, "stack", { seat: seat(), player: at.player, stack, reason: "the floor's count" }, reply());
      }
    });
    $("void").addEventListener("click", () => {
      if (confirm("Void this hand? Every bet goes back.")) decide(table, "void", {}, reply());
    });
  }

  start(["table", "event", "clock", "broker", "tournament"], table, render);
})();
