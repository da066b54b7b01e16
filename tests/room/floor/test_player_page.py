"""A player's own page on his phone, in the real Chromium at 360x740, with the real tables, the
tournament service, the recorder and the floor on the test broker: the floor gives him his link
from the seat list (a QR code), his page shows his table, seat, stack and the clock, his own
cards once the hand is sealed and never before, nobody else's hidden card ever, and his new
seat within a second of the tournament's move. A player registered before the draw has his
page and sees his seat once drawn; the next break shows; a player out sees his place."""

from __future__ import annotations

import contextlib
import json
import re
import time
from pathlib import Path

from playwright.sync_api import Browser, expect

from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import ClockState, encode
from controller.mqtt.topics import Topics
from controller.room.recorder import Recorder, open_record_store
from controller.room.tournament.service import TournamentService
from controller.room.tournament.store import TournamentStore
from controller.room.tournament.view import PublishedState
from controller.session import SessionConfig
from tests.mqtt.helpers import linked_table
from tests.room.floor.floor_helpers import cards_in, log_in, new_page, published_tournament
from tests.room.floor.player_page_helpers import (
    NO_SIDEWAYS_SCROLL,
    PHONE,
    all_in,
    floor_with_records,
    fold_to_the_big_blind,
    issued_link,
    phone,
    pushed,
)
from tests.room.tournament import tournament_helpers as hands
from tests.room.tournament.tournament_service_helpers import SETTINGS, counts, players, shuffle
from tests.venue import VenueClient, address, login
from tests.waiting import wait_until

HAND_1 = ["7c2d", "Tc3h"]  # the other two players' cards in hand 1: never tabled
MINE_1 = "Jc6h"  # his own in hand 1: on his page once the hand is sealed
HAND_2 = {"winner": "AsAh", "losers": ["2c3d", "4h5h"]}  # hand 2, live when the test looks:
# aces win on hands.BOARD
TABLE_2 = ["Kh9d", "Qc8h", "Jh7s"]  # table 2's hand while he moves there: never tabled


def test_a_player_follows_his_seat_stack_clock_and_hands_on_his_phone(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    settings = SETTINGS.model_copy(update={"tables": SETTINGS.tables[:2],
                                           "break_order": ["1", "2"]})
    topics = Topics(broker.plan.venue)
    with contextlib.ExitStack() as stack:
        clock = VenueClient(broker, "clock", ())
        stack.callback(clock.close)
        state_topic = topics.clock("state")
        # (the module's broker: what a test before left retained, cleared)
        clock.publish(state_topic, encode(ClockState(
            level=1, sb=25, bb=50, status="running", ends_at=time.time() + 600,
            next_break_at=time.time() + 1800)), retain=True)
        stack.callback(lambda: clock.publish(state_topic, b"", retain=True))
        tables = {t.table: stack.enter_context(linked_table(
            broker, tmp_path / f"t{t.table}", table=t.table,
            config=SessionConfig(table_id=t.table, seats=t.seats))) for t in settings.tables}
        records = open_record_store(tmp_path / "records.db")
        stack.callback(records.close)
        recorder = Recorder(address(broker), login(broker, "recorder"), records,
                            client_id="recorder-player-page").start()
        stack.callback(recorder.close)
        assert recorder.connected.wait(5)
        tournament = TournamentStore(tmp_path / "tournament.db")
        stack.callback(tournament.close)
        service = TournamentService(address(broker), login(broker, "tournament"), settings,
                                    tournament, export=tmp_path / "standings").start()
        stack.callback(service.close)
        assert service.connected.wait(5)
        watcher = VenueClient(broker, "display", ("tournament/state",))
        stack.callback(watcher.close)
        server = stack.enter_context(floor_with_records(broker, tmp_path / "floor",
                                                        tmp_path / "records.db"))
        for k in range(6):
            assert server.send("tournament", "register", {"name": f"Player {k}"},
                               by="floor:anna").status == "ok"
        staff = new_page(browser)
        log_in(staff, server.url)

        # A registered player gets his link before the draw: his seat arrives on his page
        waiting = phone(browser)
        waiting.goto(issued_link(staff, "Player 0"))
        expect(waiting.locator("#p-name")).to_have_text("Player 0")
        expect(waiting.locator("#p-left-players")).to_have_text("6 of 6")
        assert waiting.locator("#p-table").inner_text() == "—"
        assert server.send("tournament", "draw", {"seed": 5}, by="floor:anna").status == "ok"
        assert wait_until(lambda: counts(tables) == {"1": 3, "2": 3})
        assert wait_until(lambda: all(not t.memory.last.holds for t in tables.values()))
        drawn = next((t, s) for t, table in tables.items()
                     for s, p in players(table).items() if p == "Player 0")
        expect(waiting.locator("#p-table")).to_have_text(drawn[0])
        expect(waiting.locator("#p-seat")).to_have_text(str(drawn[1]))
        assert waiting.errors == []  # type: ignore[attr-defined]
        waiting.context.close()
        one = tables["1"]
        seated = players(one)
        losers = sorted(seated)[:2]
        seat, mover = next((s, p) for s, p in seated.items() if s not in losers)

        # The floor gives him his link at the seat list: a QR code and the URL, once
        staff.goto(f"{server.url}/seats")
        staff.on("dialog", lambda dialog: dialog.accept())
        staff.locator(f"#s-by-name tr[data-player='{mover}'] button.player-link-issue").click()
        expect(staff.locator("#s-link-url")).to_contain_text("/p/")
        url = staff.locator("#s-link-url").inner_text()
        assert staff.locator("#s-link-qr").get_attribute("src").startswith(  # type: ignore[union-attr]
            "data:image/svg+xml")
        wall = new_page(browser)  # the seat list without a login: no link to be had
        wall.goto(f"{server.url}/seats")
        expect(wall.locator(f"#s-by-name tr[data-player='{mover}']")).to_be_visible()
        assert not wall.locator("button.player-link-issue").first.is_visible()

        page = phone(browser)
        page.goto(url)
        expect(page.locator("#p-name")).to_have_text(mover)
        expect(page.locator("#p-table")).to_have_text("1")
        expect(page.locator("#p-seat")).to_have_text(str(seat))
        expect(page.locator("#p-stack")).to_have_text("5,000")
        expect(page.locator("#p-level")).to_have_text("1")
        expect(page.locator("#p-blinds")).to_have_text("25/50")
        expect(page.locator("#p-left")).to_contain_text(":")
        # the clock's state above puts the break 30 minutes away: however slow the machine,
        # it is shown between 20 and 30 minutes away
        expect(page.locator("#p-break")).to_have_text(re.compile(r"^in (2\d:[0-5]\d|30:00)$"))
        expect(page.locator("#p-left-players")).to_have_text("6 of 6")
        expect(page.locator("#p-payouts tr")).to_have_count(2)

        # Hand 1: everyone folds to the big blind; nobody tables a card
        assert shuffle(one)
        others = [s for s in seated if s != seat]
        fold_to_the_big_blind(one, {seat: MINE_1, others[0]: HAND_1[0], others[1]: HAND_1[1]})
        before_seal = len(pushed(page))
        assert shuffle(one)  # hand 1 sealed (RULES H3); hand 2 in play
        mine = page.locator("#p-hands li .mine").first
        expect(mine).to_have_text("J♣ 6♥")  # from the recorder's sealed record
        assert all(MINE_1 not in p["data"] for p in pushed(page)[:before_seal])

        # Hand 2, live: cards dealt; a clock push after them, and not one card on the phone
        dealt = {seat: HAND_2["winner"], losers[0]: HAND_2["losers"][0],
                 losers[1]: HAND_2["losers"][1]}
        hands.deal_in_order(lambda raws: (one.feed(raws), one.settle()),
                            lambda: one.memory.last, dealt)
        assert wait_until(lambda: (v := server.hub.room.tables["1"]).state is not None
                          and all(v.state.seats[s].cards == 2 for s in dealt))
        clock.publish(state_topic, encode(ClockState(
            level=1, sb=25, bb=50, status="running", ends_at=time.time() + 1234,
            next_break_at=time.time() + 1800)), retain=True)
        expect(page.locator("#p-left")).to_contain_text("20:")
        # A break: its time left is when play resumes (it said "—" all break long)
        clock.publish(state_topic, encode(ClockState(
            level=2, sb=50, bb=100, status="on_break", on_break=True,
            ends_at=time.time() + 600)), retain=True)
        expect(page.locator("#p-level")).to_have_text("break")
        expect(page.locator("#p-left")).to_have_text(re.compile(r"^(0?9:[0-5]\d|10:00)$"))
        clock.publish(state_topic, encode(ClockState(
            level=1, sb=25, bb=50, status="running", ends_at=time.time() + 1234,
            next_break_at=time.time() + 1800)), retain=True)
        expect(page.locator("#p-level")).to_have_text("1")
        live = [HAND_2["winner"], *HAND_2["losers"]]
        for text in [p["data"] for p in pushed(page)] + page.bodies:  # type: ignore[attr-defined]
            assert cards_in(text, live) == [], text[:300]

        # The losers go all-in, he wins: table 1 breaks, and he moves to table 2 (PVB 10),
        # which is in a hand: he arrives when it is over
        two = tables["2"]
        assert shuffle(two)
        table_2 = dict(zip(sorted(players(two)), TABLE_2, strict=False))
        all_in(one, seat, losers)

        def moving(payload: bytes) -> bool:
            state = PublishedState.model_validate_json(payload)
            return any(s.player == mover and s.moving and s.table == "2" for s in state.seats)

        assert watcher.wait(lambda ms: any(moving(m.payload) for m in ms), 20)
        heard = next(m.at for m in watcher.on("state") if moving(m.payload))
        expect(page.locator("#p-move")).to_contain_text("Move from table 1: go to table 2, "
                                                        "seat")
        expect(page.locator("#p-table")).to_have_text("2")
        shown = next(p["at"] for p in pushed(page)
                     if json.loads(p["data"])["moving"] and json.loads(p["data"])["table"] == "2")
        assert shown - heard < 1.0, f"the move reached his phone {shown - heard:.2f} s later"
        fold_to_the_big_blind(two, table_2)
        assert wait_until(lambda: mover in players(two).values(), 15)
        expect(page.locator("#p-move")).to_be_hidden()
        expect(page.locator("#p-stack-note")).to_have_text("as your table reads it")
        expect(page.locator("#p-left-players")).to_have_text("4 of 6")
        # His hand 2 is sealed when table 1 closes; the losers' tabled cards are public
        expect(page.locator("#p-hands li").first).to_contain_text("You: A♠ A♥")
        expect(page.locator("#p-hands li").first).to_contain_text("showed 2♣ 3♦")
        # (as the broadcast shows cards to viewers, each with its code for the secrecy checks)
        expect(page.locator("#p-hands li").first.locator(".mine .face.red")).to_have_attribute(
            "data-card", "Ah")

        # A player out sees his place (two paid: no prize), and no table or seat
        out = phone(browser)
        out.goto(issued_link(staff, seated[losers[0]]))
        expect(out.locator("#p-place")).to_have_text(re.compile(r"^Out in place [56](–6)?$"))
        expect(out.locator("#p-table")).to_have_text("—")
        expect(out.locator("#p-left-players")).to_have_text("4 of 6")
        assert out.evaluate(NO_SIDEWAYS_SCROLL) <= PHONE["width"]
        assert out.errors == []  # type: ignore[attr-defined]

        # No other player's hidden card in anything his page ever received
        texts = [p["data"] for p in pushed(page)] + page.bodies  # type: ignore[attr-defined]
        texts.append(page.content())
        for text in texts:
            assert cards_in(text, [*HAND_1, *TABLE_2]) == [], text[:300]
        assert page.evaluate(NO_SIDEWAYS_SCROLL) <= PHONE["width"]
        assert page.errors == [] and staff.errors == []  # type: ignore[attr-defined]


BUSTED = "Maximilian Oberhuber"


def test_a_busted_player_keeps_his_place_beside_the_winner_and_the_labels_stay_whole(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """At 390 px "Blinds" broke into "Blind"/"s" beside a long value; at the end his "Out in
    place 23" gave way to the winner, and the clock still said "0:14 (paused)"."""
    topics = Topics(broker.plan.venue)
    with contextlib.ExitStack() as stack:
        clock = VenueClient(broker, "clock", ())
        stack.callback(clock.close)
        clock.publish(topics.clock("state"), encode(ClockState(
            level=14, sb=5_000, bb=10_000, bb_ante=10_000, status="paused", remaining=14,
            next_break_at=None)), retain=True)
        stack.callback(lambda: clock.publish(topics.clock("state"), b"", retain=True))
        tournament = VenueClient(broker, "tournament", ())
        stack.callback(tournament.close)
        state = topics.service("tournament", "state")

        def standings(winner: str | None) -> None:
            players = [("Kai", "", 300_000)] if winner else [("Kai", "", 150_000),
                                                            ("Lu", "", 150_000)]
            out = [(BUSTED, 23, 150), *([("Lu", 2, 600)] if winner else [])]
            tournament.publish(state, published_tournament(winner=winner, players=players,
                                                           out=out), retain=True)

        standings(None)
        stack.callback(lambda: tournament.publish(state, b"", retain=True))
        server = stack.enter_context(floor_with_records(broker, tmp_path / "floor", None))
        staff = new_page(browser)
        log_in(staff, server.url)
        page = phone(browser)
        page.set_viewport_size({"width": 390, "height": 844})
        page.goto(issued_link(staff, BUSTED))
        expect(page.locator("#p-place")).to_have_text("Out in place 23: 150 EUR")
        expect(page.locator("#p-blinds")).to_have_text("5,000/10,000 (big blind ante 10,000)")
        expect(page.locator("#p-left")).to_have_text("0:14 (paused)")
        # Every label on one line, whole, however long its value
        lines = page.eval_on_selector_all(".row .label", """labels => labels
            .filter((l) => l.offsetParent).map((l) => {
              const range = document.createRange();
              range.selectNodeContents(l);
              return [l.textContent, range.getClientRects().length];
            })""")
        assert lines and all(count == 1 for _, count in lines), lines
        assert page.evaluate(NO_SIDEWAYS_SCROLL) <= 390

        # The winner: his place and prize stay, the winner beside them; the clock is over
        standings("Kai")
        expect(page.locator("#p-winner")).to_have_text("Winner: Kai")
        expect(page.locator("#p-place")).to_have_text("Out in place 23: 150 EUR")
        expect(page.locator("#p-over")).to_have_text("The tournament is over")
        expect(page.locator("#p-left")).to_be_hidden()
        assert "paused" not in page.locator("#p-clock").inner_text()
        assert page.evaluate(NO_SIDEWAYS_SCROLL) <= 390
        assert page.errors == [] and staff.errors == []  # type: ignore[attr-defined]
