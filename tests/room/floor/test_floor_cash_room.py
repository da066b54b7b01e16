"""Cash tables on the room screen and the waiting lists on the room's TV, in a real browser
(Debian's headless Chromium), with the real cash floor (`pokertable cash`'s service), real
table services and the floor server on the test broker (CG "Tischwechsel", "Must Move": the
room screen shows each cash table's game and limit, its seats open and its list's length; the
TV shows the lists). A tournament's table beside them keeps its card as it was."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.demo.script import card as card_read
from controller.demo.script import seat
from controller.engine.table_play import Level
from controller.mqtt.local_broker import LocalBroker
from controller.session import SessionConfig
from tests.mqtt.helpers import linked_table
from tests.room.cash.cash_helpers import NLH, PLO, Room
from tests.room.floor.floor_helpers import floor_server, log_in, new_page, texts
from tests.room.tournament import tournament_helpers as hands

TV = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}
ROOM_CAPITAL = 22  # px: 14 mm on a 55-inch 1080p screen, 16' of arc from 3 m (docs/floor.md)


def cash_command(page: Page, command: str, /, **args: Any) -> dict[str, Any]:
    """A floor decision sent as the cash page sends it (the login's session and token)."""
    answer: dict[str, Any] = page.evaluate("""async ([name, args]) => {
        const me = await (await fetch('/api/me')).json();
        const r = await fetch('/api/cash/command', {method: 'POST',
          body: JSON.stringify({name, args}),
          headers: {'content-type': 'application/json', 'x-csrf-token': me.csrf}});
        return await r.json();
    }""", [command, args])
    assert answer.get("status") == "ok", answer
    return answer


@contextlib.contextmanager
def cash_floor_and_login(broker: LocalBroker, browser: Browser, tmp_path: Path
                         ) -> Iterator[tuple[Room, Any, Page]]:
    """The cash floor (tables 1-3 of six seats; NLH 2/5 and PLO 5/5), the floor server and a
    floor login's page, table 1 opened with NLH 2/5 (its answer comes after the cash floor's
    retained online status: the floor has heard it)."""
    room = Room(broker, tmp_path / "cash.db")
    try:
        with floor_server(broker, tmp_path / "floor") as server:
            staff = new_page(browser)
            log_in(staff, server.url)
            cash_command(staff, "open_table", table="1", game=NLH)
            yield room, server, staff
            assert staff.errors == []  # type: ignore[attr-defined]
    finally:
        room.close()


@pytest.fixture
def cash_room(broker: LocalBroker, browser: Browser, tmp_path: Path
              ) -> Iterator[tuple[Any, Page]]:
    """`cash_floor_and_login`; table 1 deals NLH 2/5 to ana and ben, three wait for it and
    one for PLO; table 2 is a tournament's table, table 3 a cash table the cash floor has not
    opened."""
    with cash_floor_and_login(broker, browser, tmp_path) as (_, server, staff):
        for name in ("ana", "ben"):  # walk-ins: nobody waits yet
            cash_command(staff, "seat", table="1", name=name)
        for name, initials in (("Cleo Dorn", "CD"), ("Dan", ""), ("Eva Fink", "EF")):
            cash_command(staff, "sign_up", game=NLH, name=name, initials=initials)
        cash_command(staff, "sign_up", game=PLO, name="Gus Hahn", initials="GH")
        yield server, staff


def test_the_room_screen_shows_each_cash_tables_game_seats_open_and_list(
        broker: LocalBroker, browser: Browser, cash_room: tuple[Any, Page],
        tmp_path: Path) -> None:
    server, staff = cash_room
    config = SessionConfig(table_id="1", profile="cg-cash", level=Level(sb=2, bb=5))
    # Table 3 deals split-limit Omaha (CG "Limits") without the cash floor's word on it
    builtin = resources.files("controller.engine").joinpath("profiles/cg-cash.toml")
    split = tmp_path / "split-limit-omaha.toml"
    split.write_text(builtin.read_text(encoding="utf-8").replace('game = "NT"', 'game = "PO"')
                     .replace('# betting = "split-limit"', 'betting = "split-limit"'))
    omaha = SessionConfig(table_id="3", profile=str(split), level=Level(sb=5, bb=10))
    with linked_table(broker, tmp_path / "t1", "1", config) as one, \
            linked_table(broker, tmp_path / "t2", "2") as two, \
            linked_table(broker, tmp_path / "t3", "3", omaha) as three:
        one.feed([seat(1, "ana", 500), seat(2, "ben", 500)])
        two.feed([seat(k, f"p{k}", 10_000) for k in (1, 2, 3)])
        three.feed([seat(k, f"o{k}", 1_000) for k in (1, 2, 3, 4)])
        tv = new_page(browser)
        tv.set_viewport_size(TV)
        tv.goto(f"{server.url}/?tv=1")
        card = tv.locator("#table-1")
        expect(card.locator(".game")).to_have_text("NLH 2/5")  # the cash floor's game
        expect(card.locator(".seats")).to_have_text("4 open")  # of its six seats
        expect(card.locator(".average")).to_have_text("3 wait")  # NLH 2/5's list
        expect(card).to_have_class("card online cash")
        tournament = tv.locator("#table-2")
        expect(tournament.locator(".seats")).to_have_text("3/10")
        expect(tournament.locator(".average")).to_have_text("⌀10k")
        expect(tournament.locator(".game")).to_be_hidden()
        expect(tv.locator("#clockstrip")).to_contain_text("cash: game, seats open, waiting")
        omaha_card = tv.locator("#table-3")
        expect(omaha_card.locator(".game")).to_have_text("LO 5/10")  # from its own state
        expect(omaha_card.locator(".seats")).to_have_text("6 open")  # of its 10 seats
        expect(omaha_card.locator(".average")).to_have_text("")  # no list without the floor
        # Legible from 3 m, nothing cut off: every text of the cards
        shown = [t for t in texts(tv, "#tables") if t["text"]]
        assert {"NLH 2/5", "4 open", "3 wait"} <= {t["text"] for t in shown}
        assert min(t["cap"] for t in shown) >= ROOM_CAPITAL, shown
        assert not [t for t in shown if t["cut"]], shown

        # The floor seats the first of the list: the card follows without a reload
        tv.evaluate("window.sameDocument = 'yes'")
        cash_command(staff, "call", game=NLH, table="1")
        cash_command(staff, "seat", table="1", name="Cleo Dorn")
        expect(card.locator(".seats")).to_have_text("3 open")
        expect(card.locator(".average")).to_have_text("2 wait")
        assert tv.evaluate("window.sameDocument") == "yes"

        # On a phone: the cards scroll, two a row, nothing cut and no sideways scroll
        phone = new_page(browser)
        phone.set_viewport_size(PHONE)
        phone.goto(f"{server.url}/")
        expect(phone.locator("#table-1 .average")).to_have_text("2 wait")
        rows = phone.eval_on_selector_all(
            ".card .row", "rows => rows.filter(r => r.offsetParent)"
            ".map(r => [r.textContent, r.scrollWidth, r.clientWidth])")
        assert rows and all(inside <= width for _, inside, width in rows), rows
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        # The table screen says the limit: split limit's two bets and its raises (CG Raise)
        table = new_page(browser)
        table.goto(f"{server.url}/table/3")
        expect(table.locator("#hand-game")).to_have_text(
            "split-limit Omaha 5/10 · bets 10 and 20, a bet and three raises a round")
        # Ben loses his whole stake: he keeps his seat with no chips, and the cash page marks
        # him so (CG Table Stake: dealt out until he buys chips or goes)
        def feed(raws: list[dict[str, Any]]) -> None:
            one.feed(raws)
            one.settle()
        feed([card_read("seat:1", "As"), card_read("seat:2", "2c")])  # the button (high card)
        feed([{"type": "shuffle"}])
        hands.bust(feed, lambda: one.memory.last, winner=1, losers=[2])
        assert one.memory.last.seats[2].stack == 0
        staff.goto(f"{server.url}/cash")
        ben = staff.locator("#c-tables tr[data-table='1'] .c-player[data-player='ben']")
        expect(ben.locator(".c-no-chips")).to_have_text("no chips")
        expect(staff.locator("#c-tables .c-no-chips")).to_have_count(1)  # (ana has hers)
        for page in (tv, phone, table):
            assert page.errors == []  # type: ignore[attr-defined]


def test_the_tv_shows_the_waiting_lists(browser: Browser, cash_room: tuple[Any, Page]) -> None:
    server, staff = cash_room
    tv = new_page(browser)
    tv.set_viewport_size(TV)
    tv.goto(f"{server.url}/cash?tv=1")
    nlh = tv.locator(".cl-game[data-game='NLH 2/5']")
    expect(nlh.locator(".cl-list li")).to_have_text(["CD", "Dan", "EF"])  # initials, in order
    expect(tv.locator(".cl-game[data-game='PLO 5/5'] .cl-list li")).to_have_text(["GH"])
    expect(nlh.locator(".cl-figures")).to_have_text("table 1 · 4 seats open · 3 waiting")
    expect(tv.locator(".c-floor").first).to_be_hidden()  # the floor's tables are not the TV's
    assert tv.locator("a, button, input, select, nav, [onclick]").count() == 0
    assert "Cleo Dorn" not in tv.content()
    legible(tv, TV)
    # The call shows on the TV, with the time to come counted down
    cash_command(staff, "call", game=NLH, table="1")
    first = nlh.locator(".cl-list li").first
    expect(first).to_contain_text("CD called to table 1 ")
    left = first.locator("[data-until]")
    expect(left).to_have_text(re.compile(r"^00:[0-5]\d$"))  # a minute to come (SETTINGS)
    # A long list flows into columns within its game's, as large as fits, all of it shown
    for k in range(40):
        cash_command(staff, "sign_up", game=NLH, name=f"Player {k:02}")
    expect(nlh.locator(".cl-figures")).to_have_text("table 1 · 4 seats open · 43 waiting")
    expect(nlh.locator(".cl-list li")).to_have_count(43)
    expect(nlh.locator(".cl-list li").last).to_have_text("Player 39")
    legible(tv, TV)
    # On a smaller screen no smaller than legible: as many as fit, the rest counted
    small = {"width": 960, "height": 540}
    tv.set_viewport_size(small)
    expect(nlh.locator(".cl-more")).to_have_text(re.compile(r"^\+\d+ more$"))
    shown = nlh.locator(".cl-list li:not(.cl-more)").count()
    more = int(nlh.locator(".cl-more").inner_text().split()[0])
    assert shown + more == 43 and shown >= 10, (shown, more)
    legible(tv, small)
    assert tv.errors == []  # type: ignore[attr-defined]


def legible(page: Page, screen: dict[str, int]) -> None:
    """Every text of the TV's lists legible from 3 m, inside the screen, none cut off."""
    shown = texts(page, "#c-tv")
    assert shown and min(t["cap"] for t in shown) >= ROOM_CAPITAL, shown
    assert max(t["bottom"] for t in shown) <= screen["height"], shown
    assert max(t["right"] for t in shown) <= screen["width"], shown
    assert page.evaluate("document.documentElement.scrollHeight") <= screen["height"]


def test_the_floor_is_told_when_the_cash_floor_goes_offline_and_back(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """The cash service stopped (its Last Will says the same): the floor worked on from stale
    lists with no word of it. An urgent alert now says so, and passes when it is back."""
    with cash_floor_and_login(broker, browser, tmp_path) as (room, server, staff):
        room.service.close()
        staff.goto(f"{server.url}/alerts")
        alert = staff.locator("#alerts li.alert", has_text="the cash floor is offline")
        expect(alert).to_contain_text("systemctl restart pokertable-cash")
        expect(staff.locator("#alerts-cash")).to_contain_text("The cash floor")
        staff.goto(f"{server.url}/")  # the room screen's strip names it and links its page
        expect(staff.locator("#need-cash a")).to_have_text(re.compile(
            r"^the cash floor the cash floor is offline"))
        room.service = room._start()
        cash_command(staff, "sign_up", game=NLH, name="Dan", initials="")  # back: it answers
        (gone,) = [a for a in server.hub.room.alerts.values() if a.table == "cash"]
        assert gone.kind == "offline" and gone.severity == "notice" and gone.passed_at
