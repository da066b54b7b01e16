"""The cash floor's page on the floor display, in a real browser (Debian's headless Chromium),
with the real cash service, the real floor server and the real broker: the floor signs players
up, calls the first and seats him from the page (CG "Tischwechsel": the list's order); a seat
opening at a main table is offered down its must-move order and answered from the page, all
saying no making the first move (CG "Must Move"); the room's TV shows the lists by the initials
the players gave, with nothing to click and no telephone number; a screen without a login can
only watch."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect

from controller.mqtt.local_broker import LocalBroker
from tests.room.cash.cash_helpers import NLH, PLO, Floor, Room
from tests.room.floor.floor_helpers import (
    PHONE_390,
    after_ticks,
    fits_the_phone,
    floor_server,
    get,
    log_in,
    new_page,
    post,
    ticks_counted,
)
from tests.waiting import wait_until


@contextlib.contextmanager
def cash_on_the_page(broker: LocalBroker, browser: Browser, tmp_path: Path,
                     set_up: Callable[[Floor], None] | None = None
                     ) -> Iterator[tuple[Room, Any, Page]]:
    """The cash service, the floor server, and a floor login on the cash page; ``set_up`` first
    sets the room up over MQTT, as the floor (before the floor server connects: the broker knows
    a client by its login, and two clients as "floor" would take the connection from each
    other)."""
    with contextlib.ExitStack() as stack:
        room = Room(broker, tmp_path / "cash.db")
        stack.callback(room.close)
        if set_up is not None:
            floor = Floor(broker)
            try:
                set_up(floor)
            finally:
                floor.client.close()
        server = stack.enter_context(floor_server(broker, tmp_path / "floor"))
        staff = new_page(browser)
        log_in(staff, server.url)
        staff.goto(f"{server.url}/cash")
        expect(staff.locator(".c-game[data-game='NLH 2/5']")).to_be_visible()
        yield room, server, staff
        assert staff.errors == []  # type: ignore[attr-defined]


def done(page: Page, text: str) -> None:
    expect(page.locator("#c-reply")).to_contain_text(f"done: {text}")


def test_cg_tischwechsel_sign_up_call_and_seat_from_the_page(
        cash_broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    with cash_on_the_page(cash_broker, browser, tmp_path) as (room, server, staff):
        table = staff.locator("#c-tables tr[data-table='1']")
        table.locator("select").select_option(NLH)
        table.locator("button.c-open").click()
        done(staff, "table 1 opens with NLH 2/5")
        for name, initials, phone in [("Anna Berger", "AB", "+43 660 1234"), ("Ben", "", "")]:
            staff.select_option("#c-sign-up select[name=game]", NLH)
            staff.fill("#c-sign-up input[name=name]", name)
            staff.fill("#c-sign-up input[name=initials]", initials)
            staff.fill("#c-sign-up input[name=phone]", phone)
            staff.click("#c-sign-up button[type=submit]")
            done(staff, f"{name} is")
        nlh = staff.locator(".c-game[data-game='NLH 2/5']")
        expect(nlh.locator(".c-list li")).to_have_count(2)
        expect(nlh.locator(".c-list li").first).to_contain_text("Anna Berger+43 660 1234")
        expect(nlh.locator("h3")).to_contain_text("tables 1 · 6 seats open · 2 waiting")

        # Ben is not called: the list goes in order
        staff.fill("#c-sign-up input[name=name]", "Anna Berger")
        staff.click("#c-sign-up button[type=submit]")
        expect(staff.locator("#c-reply")).to_have_text(
            'refused: Anna Berger is on the NLH 2/5 list already (1st) (CG "Tischwechsel")')
        # A name too long is refused in words, not cut short unsaid by the form (it signed up
        # "Maximilian-Alexander von Hohenzollern-Si")
        staff.fill("#c-sign-up input[name=name]", "Maximilian-Alexander von Hohenzollern-"
                   "Sigmaringen der Dritte")
        staff.click("#c-sign-up button[type=submit]")
        expect(staff.locator("#c-reply")).to_have_text(
            'refused: args.name: a name is 1 to 40 printable characters (CG "Tischwechsel")')
        expect(nlh.locator(".c-list li")).to_have_count(2)
        nlh.locator("h3 select").select_option("1")
        nlh.locator("button.c-call").click()
        done(staff, "Anna Berger is called to table 1 for NLH 2/5: 1 minute to sit down")
        anna = nlh.locator(".c-list li[data-player='Anna Berger']")
        expect(anna).to_contain_text("called")
        expect(anna).to_contain_text("to table 1")
        anna.locator("button.c-seat").click()
        done(staff, "Anna Berger sits down at table 1 (NLH 2/5)")
        expect(nlh.locator(".c-list li")).to_have_count(1)
        expect(table).to_contain_text("Anna Berger")
        expect(table).to_contain_text("5 open of 6")
        audit = [(c["name"], c["by"]) for c in room.store.commands()]
        assert audit[-1] == ("seat", "floor:anna")

        # The TV: the lists by initials, nothing to click, no phone; a screen cannot decide
        staff.select_option("#c-sign-up select[name=game]", PLO)
        staff.fill("#c-sign-up input[name=name]", "Cleo Dorn")
        staff.fill("#c-sign-up input[name=initials]", "CD")
        staff.fill("#c-sign-up input[name=phone]", "0660 999")
        staff.click("#c-sign-up button[type=submit]")
        done(staff, "Cleo Dorn is 1st on the PLO 5/5 list")
        tv = new_page(browser)
        tv.goto(f"{server.url}/cash?tv=1")
        expect(tv.locator(".c-game[data-game='PLO 5/5'] .c-list li")).to_have_text("CD")
        expect(tv.locator(".c-game[data-game='NLH 2/5'] .c-list li")).to_have_text("Ben")
        assert tv.locator("a, button, input, select, nav, [onclick]").count() == 0
        assert "0660" not in tv.content() and "Cleo Dorn" not in tv.content()
        status, _, _ = get(f"{server.url}/api/cash/contacts")
        assert status == 403
        status, answer = post(f"{server.url}/api/cash/command",
                              {"name": "call", "args": {"game": NLH}})
        assert status == 403 and "log in" in answer["reason"]
        status, body, _ = get(f"{server.url}/api/cash")
        assert status == 200 and [e["name"] for e in json.loads(body)["games"][0]["entries"]] \
            == ["Ben"]


def test_cg_must_move_the_seat_is_offered_down_the_order_from_the_page(
        cash_broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    def set_up(floor: Floor) -> None:  # the room set up quickly over MQTT, decided on the page
        floor.ok("open_table", table="1", game=NLH)
        floor.ok("open_table", table="2", game=NLH)
        for k in range(1, 7):
            floor.ok("seat", table="1", name=f"Main {k}")
        for name in ("Anna", "Ben", "Cleo"):
            floor.ok("seat", table="2", name=name)

    with cash_on_the_page(cash_broker, browser, tmp_path, set_up) as (room, _, staff):
        must = staff.locator("#c-tables tr[data-table='2']")
        must.locator("select").select_option("1")
        must.locator("button.c-must-move").click()
        done(staff, "table 2 is a must-move table for main table 1; the order (in the order "
                    "they came): Anna, Ben, Cleo")
        main = staff.locator("#c-tables tr[data-table='1']")
        expect(main).to_contain_text("main table · order: Anna, Ben, Cleo")
        staff.once("dialog", lambda dialog: dialog.accept())  # (it asks first)
        main.locator(".c-player[data-player='Main 3'] button.c-leave").click()
        offer = staff.locator("#c-offers li[data-main='1']")
        expect(offer).to_contain_text("Table 1: a seat is open, Anna is asked whether to move")
        offer.locator("button.c-decline").click()
        expect(offer).to_contain_text("Ben is asked")
        offer.locator("button.c-decline").click()
        expect(offer).to_contain_text("Cleo is asked")
        expect(offer).to_contain_text("(said no: Anna, Ben)")
        offer.locator("button.c-decline").click()
        done(staff, "Cleo stays at the must-move table; everyone in the must-move order "
                    "said no: Anna, the first, must move: Anna moves from table 2 to main "
                    "table 1")
        expect(main).to_contain_text("Anna")
        expect(main).to_contain_text("main table · order: Ben, Cleo")
        expect(staff.locator("#c-offers")).to_have_text("no seat offered")
        expect(staff.locator("#c-recent")).to_contain_text('CG "Must Move"')
        assert wait_until(lambda: "Anna" in [p.name for p in room.service.state().tables[0]
                                             .players])
        answers = [c["args"] for c in room.store.commands() if c["name"] == "answer"]
        assert answers == [{"table": "1", "name": n, "accept": False}
                           for n in ("Anna", "Ben", "Cleo")]



def test_the_cash_page_fits_a_phone_with_every_control_in_reach(
        cash_broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """At 390 px the tables needed sideways scrolling (597 px with a login, 421 without), the
    must-move column and its buttons past the edge. On a laptop they stay a table."""
    def set_up(floor: Floor) -> None:
        for table in ("1", "2", "3"):
            floor.ok("open_table", table=table, game=NLH)
        for k in range(1, 7):
            floor.ok("seat", table="1", name=f"Alexandra Papadopoulou {k}")
        for name in ("Bartholomew Featherstonehaugh", "Cleo"):
            floor.ok("seat", table="2", name=name)
        floor.ok("seat", table="3", name="Dan")
        floor.ok("must_move", table="2", main="1")
        for name in ("Evangelina Rodríguez-Montenegro", "Fritz"):
            floor.ok("sign_up", game=NLH, name=name, initials="", phone="+43 660 123 4567")
        floor.ok("sign_up", game=PLO, name="Gus", initials="G")
        floor.ok("call", game=NLH)
        floor.ok("request_change", name="Cleo", table="3")

    with cash_on_the_page(cash_broker, browser, tmp_path, set_up) as (_, server, staff):
        for page in (staff, new_page(browser)):
            page.set_viewport_size(PHONE_390)  # type: ignore[arg-type]
            page.goto(f"{server.url}/cash")
            expect(page.locator("#c-tables tr[data-table='2']")).to_contain_text(
                "must-move table for table 1")
            if page is staff:
                expect(page.locator("#c-tables button.c-must-move")).to_be_visible()
                expect(page.locator("#c-tables button", has_text="End must-move")).to_be_visible()
                expect(page.locator(".c-game[data-game='NLH 2/5'] button.c-seat")).to_be_visible()
            fits_the_phone(page)
            assert page.errors == []  # type: ignore[attr-defined]
        staff.set_viewport_size({"width": 1366, "height": 768})
        row = staff.locator("#c-tables tr[data-table='2']")
        assert row.evaluate("row => getComputedStyle(row).display") == "table-row"
        expect(staff.locator("#c-tables th").first).to_be_visible()


def test_the_page_says_when_the_cash_floor_is_offline_and_its_lists_stale(
        cash_broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """The cash service gone (it says offline, and its Last Will would): the page went on
    showing its lists and counting its calls down with no word of it."""
    def set_up(floor: Floor) -> None:
        floor.ok("open_table", table="1", game=NLH)
        floor.ok("sign_up", game=NLH, name="Anna", initials="AB")
        floor.ok("call", game=NLH)

    with cash_on_the_page(cash_broker, browser, tmp_path, set_up) as (room, server, staff):
        for page in (staff, new_page(browser)):  # the floor's page and the room's TV
            if page is not staff:
                ticks_counted(page)
                page.goto(f"{server.url}/cash?tv=1")
            banner = page.locator("#c-offline")
            expect(banner).to_be_hidden()
        tv = page
        left = tv.locator(".cl-list li[data-player='AB'] [data-until]")
        expect(left).to_have_text(re.compile(r"^00:[0-5]\d$"))
        room.service.close()
        for page in (staff, tv):
            expect(page.locator("#c-offline")).to_be_visible()
            expect(page.locator("#c-offline")).to_contain_text(
                "The cash floor is offline: these lists may be stale")
        stopped = left.inner_text()
        tv.evaluate("window.pageTicks = 0")
        after_ticks(tv, 2)  # (a countdown would have moved on two seconds meanwhile)
        assert left.inner_text() == stopped
        room.service = room._start()  # back: the banner goes, the countdown goes on
        for page in (staff, tv):
            expect(page.locator("#c-offline")).to_be_hidden()
        expect(left).not_to_have_text(stopped)
        assert tv.errors == []  # type: ignore[attr-defined]


def test_a_button_sends_once_and_remove_and_leaves_ask_first(
        cash_broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """A double click on "Call next" called two players, the reply showing the second only;
    "Remove" and "leaves" acted at once, with no question."""
    def set_up(floor: Floor) -> None:
        floor.ok("open_table", table="1", game=NLH)
        floor.ok("seat", table="1", name="Ben")
        for name in ("Anna", "Cleo", "Dan"):
            floor.ok("sign_up", game=NLH, name=name, initials="")

    with cash_on_the_page(cash_broker, browser, tmp_path, set_up) as (room, _, staff):
        nlh = staff.locator(".c-game[data-game='NLH 2/5']")
        nlh.locator("button.c-call").dblclick()
        done(staff, "Anna is called for NLH 2/5")
        expect(nlh.locator("button.c-call")).to_be_enabled()
        calls = [c["args"] for c in room.store.commands() if c["name"] == "call"]
        assert [c["game"] for c in calls] == [NLH], calls
        expect(nlh.locator(".c-list li.called")).to_have_count(1)

        asked: list[str] = []

        def answer(accept: bool) -> None:
            staff.once("dialog", lambda d: (asked.append(d.message),
                                            d.accept() if accept else d.dismiss()))

        cleo = nlh.locator(".c-list li[data-player='Cleo'] button.c-remove")
        answer(False)
        cleo.click()
        assert asked == ["Take Cleo off the NLH 2/5 list?"]
        answer(True)
        cleo.click()
        done(staff, "Cleo")
        expect(nlh.locator(".c-list li[data-player='Cleo']")).to_have_count(0)
        ben = staff.locator("#c-tables .c-player[data-player='Ben'] button.c-leave")
        answer(False)
        ben.click()
        assert asked[-1] == "Ben leaves table 1? The table is asked to unseat him now."
        answer(True)
        ben.click()
        expect(staff.locator("#c-tables .c-player[data-player='Ben']")).to_have_count(0)
        sent = [c["name"] for c in room.store.commands() if c["name"] in ("remove", "leave")]
        assert sent == ["remove", "leave"], sent  # each once, after its question


def test_a_walk_in_is_seated_from_the_page_while_nobody_waits(
        cash_broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """A player who walks in at an empty list sits down at once (CG "Poker Manager": the seat
    command allows it); the page had no way to, short of signing him up, calling him and
    seating him. Once someone waits, the cash floor refuses a walk-in and says who waits."""
    def set_up(floor: Floor) -> None:
        floor.ok("open_table", table="1", game=NLH)

    with cash_on_the_page(cash_broker, browser, tmp_path, set_up) as (_, _server, staff):
        staff.fill("#c-walk-in input[name=name]", "Zed Roth")
        staff.select_option("#c-walk-in select[name=table]", "1")
        staff.click("#c-walk-in button[type=submit]")
        done(staff, "Zed Roth sits down at table 1 (NLH 2/5)")
        expect(staff.locator("#c-tables tr[data-table='1']")).to_contain_text("Zed Roth")
        expect(staff.locator("#c-walk-in input[name=name]")).to_have_value("")
        staff.fill("#c-sign-up input[name=name]", "Ben")
        staff.click("#c-sign-up button[type=submit]")
        done(staff, "Ben is 1st on the NLH 2/5 list")
        staff.fill("#c-walk-in input[name=name]", "Yan")
        staff.click("#c-walk-in button[type=submit]")
        expect(staff.locator("#c-reply")).to_contain_text("refused: ")
        expect(staff.locator("#c-reply")).to_contain_text("Ben")
