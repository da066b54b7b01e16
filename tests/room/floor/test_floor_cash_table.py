"""A cash table on the floor display's table screen, in a real browser (Debian's headless
Chromium), from real table services publishing over the test broker: the game and its limit
(CG "Limits"), a double board's two boards and what each pot paid on each (CG
"Spielvarianten"), run it twice's two runs as they are dealt and settled (CG "Run It Twice"),
a straddle and who posted it (CG "Straddle"); and no card nobody tabled in anything the pages
receive, the new fields included."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.demo.script import Ev, board, card, chips, command, deal, declare, key, seat
from controller.demo.script import shuffle as press_shuffle
from controller.engine.table_play import Level
from controller.mqtt.local_broker import LocalBroker
from controller.session import SessionConfig
from tests.mqtt.helpers import linked_table
from tests.room.floor.floor_helpers import cards_in, floor_server, get, watched_page

NAMES = ["ana", "ben", "cem", "dora", "emil", "fay"]
DRAW = ["As", "2c", "3c", "4c", "5c", "6c"]  # the high-card draw: the button on seat 1
# Dealt and never tabled: table 1's first hand (everyone folds to the big blind), table 2's
# seat 3 (folds on the flop); checked for in every payload
HIDDEN_1 = {2: "6h5d", 3: "Jc8c", 4: "Tc4d", 1: "Kc5s"}
HIDDEN_2 = "Jd6d"
HIDDEN = [*HIDDEN_1.values(), HIDDEN_2]


def cash(table: str, players: int, stack: int, straddles: list[str] | None = None
         ) -> tuple[SessionConfig, list[Ev]]:
    """A cg-cash table, blinds 50/100, its players seated and the button drawn to seat 1."""
    config = SessionConfig(table_id=table, profile="cg-cash", level=Level(sb=50, bb=100),
                           straddles=straddles or [])
    return config, [*[seat(k + 1, NAMES[k], stack) for k in range(players)],
                    *[card(f"seat:{k + 1}", DRAW[k]) for k in range(players)]]


def double_board() -> list[Ev]:
    """Hand 1 folds to the big blind (its cards never shown); hand 2 is a double board
    (the floor's), checked down, each board won by another seat (CG Spielvarianten)."""
    first = [2, 3, 4, 1]
    hand_1 = [press_shuffle(), chips("seat:2", 50), chips("seat:3", 100), *deal(HIDDEN_1, first),
              declare(4, "fold"), declare(1, "fold"), declare(2, "fold"),
              *[chips(f"seat:{s}") for s in first]]
    seats = [3, 4, 1, 2]
    holes = {1: "AsAh", 2: "KdKh", 3: "QcQs", 4: "7c7d"}
    hand_2 = [command("variant", kind="double-board"), press_shuffle(), chips("seat:3", 50),
              chips("seat:4", 100), *deal({s: holes[s] for s in seats}, seats),
              *[declare(s, "call") for s in (1, 2, 3)], declare(4, "check"),
              *[chips(f"seat:{s}") for s in seats],
              *board("Ad2c3d", burn="9d"), *board("7h8s9c", burn="9h")]
    for first_board, second_board in ((("4s", "2h"), ("Ts", "3h")), (("Jh", "2s"), ("2d", "3s"))):
        hand_2 += [*[declare(s, "check") for s in seats], *board(*first_board),
                   *board(*second_board)]
    hand_2 += [*[declare(s, "check") for s in seats], *[key("confirm") for _ in seats]]
    return hand_1 + hand_2


def all_in_on_the_flop() -> list[Ev]:
    """Three players see a flop; seat 2 is all-in, seat 3 folds, seat 1 calls: heads-up, a pot
    of 2,100 (at least the table's 500, CG Run It Twice c), the two hands turned up."""
    return [press_shuffle(), *deal({2: "AsAh", 3: HIDDEN_2, 1: "KsKh"}, [2, 3, 1]),
            declare(1, "call"), declare(2, "call"), declare(3, "check"),
            *board("2c7d9h", burn="Qd"), declare(2, "allin"), declare(3, "fold"),
            declare(1, "call")]


@contextlib.contextmanager
def watched(browser: Browser, url: str, bodies: list[str]) -> Iterator[Page]:
    """A `watched_page`, with no script error on it by the end of the block."""
    page = watched_page(browser, url, bodies)
    yield page
    assert page.errors == []  # type: ignore[attr-defined]


def test_a_cash_tables_variants_boards_and_straddles_on_the_table_screen(
        broker: LocalBroker, browser: Browser, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("DEBUG")
    assert cards_in("shows Jd 6d", HIDDEN) == ["Jd", "6d"]
    assert cards_in('{"id": "a6d4"}', HIDDEN) == []
    bodies: list[str] = []
    one_config, one_seats = cash("1", 4, 20_000)
    two_config, two_seats = cash("2", 3, 1_000)
    three_config, three_seats = cash("3", 6, 20_000, straddles=["live", "button"])
    with floor_server(broker, tmp_path / "floor") as server, \
            linked_table(broker, tmp_path / "t1", "1", one_config) as one, \
            linked_table(broker, tmp_path / "t2", "2", two_config) as two, \
            linked_table(broker, tmp_path / "t3", "3", three_config) as three, \
            watched(browser, f"{server.url}/table/1", bodies) as page_1, \
            watched(browser, f"{server.url}/table/2", bodies) as page_2, \
            watched(browser, f"{server.url}/table/3", bodies) as page_3, \
            watched(browser, f"{server.url}/", bodies) as room:
        # A double board: both boards, and each board's half of the pot (CG Spielvarianten)
        one.feed([*one_seats, *double_board()])
        expect(page_1.locator("#hand-game")).to_have_text("no-limit hold'em 50/100")
        expect(page_1.locator("#hand-variant")).to_have_text("double board")
        # A cash table has no levels: its game and blinds say it (the status line said "level 1")
        expect(page_1.locator("#table-status")).to_contain_text("hand ")
        assert "level" not in page_1.inner_text("#table-status")
        lines = page_1.locator(".board-line")
        expect(lines).to_have_count(2)
        expect(page_1.locator("#board")).to_have_text("A♦2♣3♦4♠J♥")
        expect(page_1.locator("#board-2")).to_have_text("7♥8♠9♣T♠2♦")
        expect(lines.nth(0).locator(".board-label")).to_have_text("board 1")
        expect(lines.nth(0).locator(".board-result")).to_have_text(
            "main pot: seat 1 (ana) 200 with three of a kind")
        expect(lines.nth(1).locator(".board-result")).to_have_text(
            "main pot: seat 4 (dora) 200 with three of a kind")

        # Run it twice: run 2 shows as it is dealt, then each run's share (CG Run It Twice)
        two.feed([*two_seats, *all_in_on_the_flop(), key("confirm"), *board("Kd", burn="2h"),
                  *board("3s", burn="2s"), *board("4s", burn="3h")])
        expect(page_2.locator("#hand-variant")).to_have_text("run it twice: every pot")
        expect(page_2.locator("#board-2")).to_have_text("2♣7♦9♥4♠")
        expect(page_2.locator("#board")).to_have_text("2♣7♦9♥K♦3♠")
        expect(page_2.locator(".board-label")).to_have_text(["run 1", "run 2"])
        expect(page_2.locator(".board-result")).to_have_count(0)  # nothing settled yet
        two.feed([*board("5c", burn="3d")])
        runs = page_2.locator(".board-line")
        expect(runs.nth(1).locator(".board-result")).to_have_text(
            "main pot: seat 2 (ben) 1,050 with one pair")
        expect(runs.nth(0).locator(".board-result")).to_have_text(
            "main pot: seat 1 (ana) 1,050 with three of a kind")
        expect(page_2.locator("#board-2")).to_have_text("2♣7♦9♥4♠5♣")
        # On a phone: the two runs and their results above the seats, nothing off the screen
        with watched(browser, f"{server.url}/table/2", bodies) as phone:
            phone.set_viewport_size({"width": 390, "height": 844})
            expect(phone.locator(".board-result")).to_have_count(2)
            boxes = phone.eval_on_selector_all(
                ".board-line, .seat", "nodes => nodes.map(n => [n.className, "
                "n.getBoundingClientRect().left, n.getBoundingClientRect().right, "
                "n.getBoundingClientRect().top, n.scrollWidth, n.clientWidth])")
            assert all(left >= 0 and right <= 390 and inside <= width
                       for _, left, right, _, inside, width in boxes), boxes
            boards = [top for name, _, _, top, _, _ in boxes if name.startswith("board-line")]
            seats = [top for name, _, _, top, _, _ in boxes if name.startswith("seat")]
            assert len(boards) == 2 and seats and max(boards) < min(seats), boxes
            assert phone.evaluate("document.documentElement.scrollWidth") <= 390

        # A live straddle: the seat that posted it, on the seat map and under the board
        three.feed([*three_seats, press_shuffle(), chips("seat:2", 50), chips("seat:3", 100),
                    chips("seat:4", 200)])
        expect(page_3.locator("#straddles")).to_have_text("straddle: seat 4 (dora) 200")
        expect(page_3.locator("#seat-4 .mark.straddle")).to_have_text("STR")
        expect(page_3.locator(".mark.straddle")).to_have_count(1)
        expect(page_3.locator("#hand-variant")).to_have_count(0)  # a regular hand
        expect(page_3.locator(".board-line")).to_have_count(1)
        expect(room.locator("#table-3[data-hand='1']")).to_be_visible()

        # Nothing anywhere of the cards nobody tabled
        for table in ("1", "2", "3"):
            bodies.append(get(f"{server.url}/api/snapshot?table={table}")[1].decode())
        pages = [page_1, page_2, page_3, room]
        pushed = [m for page in pages for m in page.evaluate("window.pushed")]
        assert any('"results"' in m and '"boards"' in m for m in pushed)  # the new fields
        assert any('"run_twice":[1]' in m for m in pushed)
        assert any("AsAh" in m for m in pushed)  # tabled cards are there to be seen
        for text in [*bodies, *pushed, *[page.content() for page in pages], caplog.text]:
            assert cards_in(text, HIDDEN) == [], text[:300]
