"""The tournament's pages on the floor display, in a real browser (Debian's headless Chromium),
with the real tournament service, real tables and the real broker: the floor registers players
and draws the seats from the page, the printable seat list shows everyone, a bust appears in the
standings and is taken back from the page (journaled with who), the chip count's alert shows,
the standings download as CSV and JSON, an add-on is sold at its break, and a screen without a
login can only watch."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Dialog, expect

from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import ClockState, encode
from controller.mqtt.topics import Topics
from controller.room.clock.structure import Structure
from controller.room.tournament.ledger import Settings, TableSpec
from controller.room.tournament.store import TournamentStore
from controller.session import SessionConfig
from tests.mqtt.helpers import LinkedTable, linked_table
from tests.room.floor.floor_helpers import floor_server, get, log_in, new_page, post
from tests.room.tournament.tournament_service_helpers import (
    SETTINGS,
    counts,
    knock_out,
    players,
    start_service,
)
from tests.venue import VenueClient
from tests.waiting import wait_until

SETTINGS_WITH_BREAK = Settings(
    name="add-on test", seats=4, tables=[TableSpec(table="1", seats=4)],
    structure=Structure.model_validate({
        "name": "with an add-on", "chips": [25, 100], "late_registration_ends": 1,
        "levels": [{"sb": 25, "bb": 50, "minutes": 60}, {"sb": 100, "bb": 200, "minutes": 60}],
        "breaks": [{"after_level": 1, "minutes": 15, "colour_up": [25]}],
        "entry": {"stack": 5_000, "buy_in": 10, "add_on": {"chips": 5_000, "price": 10}},
        "prizes": {"payouts": [{"percent": [100]}]}}))

SETTINGS_WITH_REBUYS = Settings(
    name="rebuy test", seats=4, tables=[TableSpec(table="1", seats=4)],
    structure=Structure.model_validate({
        "name": "with rebuys", "chips": [25, 100], "late_registration_ends": 1,
        "levels": [{"sb": 25, "bb": 50, "minutes": 60}, {"sb": 100, "bb": 200, "minutes": 60}],
        "entry": {"stack": 5_000, "buy_in": 10,
                  "rebuy": {"chips": 5_000, "price": 10, "below": 12_000, "at_most": 1}},
        "prizes": {"payouts": [{"percent": [100]}]}}))


def room_on_the_page(stack: contextlib.ExitStack, broker: LocalBroker, browser: Browser,
                     tmp_path: Path, settings: Settings
                     ) -> tuple[dict[str, LinkedTable], Any, TournamentStore, Any, Any]:
    """The room (its tables, the tournament, the floor) and a floor login on the tournament
    page: the tables, the tournament service, its store, the server and the page."""
    tables = {t.table: stack.enter_context(linked_table(
        broker, tmp_path / f"t{t.table}", table=t.table,
        config=SessionConfig(table_id=t.table, seats=t.seats))) for t in settings.tables}
    service, store = start_service(broker, tmp_path, settings)
    stack.callback(store.close)
    stack.callback(service.close)
    server = stack.enter_context(floor_server(broker, tmp_path / "floor"))
    staff = new_page(browser)
    log_in(staff, server.url)
    staff.goto(f"{server.url}/tournament")
    return tables, service, store, server, staff


def drawn_on_the_page(stack: contextlib.ExitStack, broker: LocalBroker, browser: Browser,
                      tmp_path: Path, settings: Settings, players: int
                      ) -> tuple[dict[str, LinkedTable], TournamentStore, Any, Any]:
    """`room_on_the_page` with ``players`` registered and drawn from the page."""
    tables, _, store, server, staff = room_on_the_page(stack, broker, browser, tmp_path,
                                                       settings)
    for k in range(players):
        staff.fill("#t-register input[name=name]", f"Player {k}")
        staff.click("#t-register button[type=submit]")
        expect(staff.locator("#t-reply")).to_contain_text(f"done: Player {k}")
    staff.click("#t-draw")
    expect(staff.locator("#t-reply")).to_contain_text("done: the draw")
    assert wait_until(lambda: sum(counts(tables).values()) == players)
    return tables, store, server, staff


def test_the_floor_runs_the_tournament_from_its_pages(broker: LocalBroker, browser: Browser,
                                                      tmp_path: Path,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    with contextlib.ExitStack() as stack:
        tables, service, store, server, staff = room_on_the_page(stack, broker, browser,
                                                                 tmp_path, SETTINGS)
        expect(staff.locator("#t-name")).to_have_text("service test")
        for k, club in enumerate(["Asse", "Asse", "Bluff", "", "Bluff", ""]):
            staff.fill("#t-register input[name=name]", f"Player {k}")
            staff.fill("#t-register input[name=club]", club)
            staff.click("#t-register button[type=submit]")
            expect(staff.locator("#t-reply")).to_contain_text(f"done: Player {k}")
        staff.fill("#t-register input[name=name]", "player 0")
        staff.click("#t-register button[type=submit]")
        expect(staff.locator("#t-reply")).to_contain_text(
            "refused: Player 0 is registered already")
        # Only what can be done: no re-entry where the structure offers none (it was refused
        # from the page, APSA 3.1.2.7), no draw once drawn (a disabled one looked live)
        expect(staff.locator("#t-reenter")).to_be_hidden()
        staff.click("#t-draw")
        expect(staff.locator("#t-reply")).to_contain_text("done: the draw (seed")
        expect(staff.locator("#t-draw")).to_be_hidden()
        assert wait_until(lambda: sum(counts(tables).values()) == 6)
        expect(staff.locator("#t-summary")).to_contain_text("players left 6 of 6 entries")

        # The seat list, for the wall: everyone by table and seat, and by name
        wall = new_page(browser)
        wall.goto(f"{server.url}/seats")
        for k in range(6):
            expect(wall.locator(f"#s-by-name tr[data-player='Player {k}']")).to_be_visible()
        seated = {p: (t, s) for t, table in tables.items() for s, p in players(table).items()}
        first = wall.locator("#s-by-name tr[data-player='Player 0'] td")
        table, seat = seated["Player 0"]
        expect(first.nth(1)).to_have_text(table)
        expect(first.nth(2)).to_have_text(str(seat))
        assert not wall.is_visible("#t-register")  # a screen without a login only watches
        status, answer = post(f"{server.url}/api/tournament/command",
                              {"name": "draw", "args": {}})
        assert status == 403 and "log in" in answer["reason"]

        # A bust at a table: the standings show it; the floor takes it back from the page
        where, busted = next((n, t) for n, t in tables.items() if len(players(t)) >= 2)
        loser_seat = min(players(busted))
        loser = players(busted)[loser_seat]
        knock_out(busted, [loser_seat])
        row = staff.locator(f"#t-standings tr[data-player='{loser}']")
        expect(row).to_contain_text("6")
        # The draw's seats are no moves to make (the seat list's): nothing for the floor there,
        # and a busted player's move least of all
        expect(staff.locator("#t-moves")).to_have_text("no move to make")
        state = json.loads(get(f"{server.url}/api/tournament")[1])
        assert any(m["reason"] == "draw" and m["status"] == "seated" for m in state["moves"])
        unread = [s["player"] for s in state["seats"] if not s["chips_read"]]
        assert unread  # (the simulated tables read no chips at a new seat)
        expect(wall.locator(f"#s-by-name tr[data-player='{unread[0]}']")).to_contain_text(
            "chips not read yet")
        # He lost his seat: taken back without the chips he gets back, it is refused
        asked: list[str] = []
        staff.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept("")))
        row.locator("button.undo").click()
        expect(staff.locator("#t-reply")).to_contain_text("has no seat")
        assert asked == [f"Take back {loser}'s elimination? The chips {loser} gets back (leave "
                         "empty if they still sit at their table with their chips):"]
        # "4,5" is no whole number of chips: the page says so and sends nothing (it does not
        # guess 45); "4,500" grouped by thousands is 4,500
        seen: list[str] = []

        def comma(dialog: Dialog) -> None:
            seen.append(dialog.message)
            if dialog.type == "prompt":
                dialog.accept("4,5")
            else:
                dialog.accept()

        staff.on("dialog", comma)
        row.locator("button.undo").click()
        assert wait_until(lambda: len(seen) == 2)
        staff.remove_listener("dialog", comma)
        assert seen[1] == (f'"4,5" is not a whole number of chips: write the chips {loser} gets '
                           "back as 1500, or with thousands grouped by three as 1,500 or 1.500; "
                           "nothing was sent")
        assert [c for c in store.commands() if c["args"].get("stack")] == []
        staff.once("dialog", lambda dialog: dialog.accept("4,500"))
        row.locator("button.undo").click()
        expect(staff.locator("#t-reply")).to_contain_text("taken back by floor:anna")
        expect(staff.locator("#t-reply")).to_contain_text("4,500 chips the floor gives back")
        expect(staff.locator("#t-summary")).to_contain_text("players left 6 of 6 entries")
        expect(staff.locator("#t-summary")).to_contain_text("4,500 given back")
        audit = [(c["name"], c["by"], c["args"]) for c in store.commands()]
        assert ("undo_bust", "floor:anna", {"player": loser, "stack": 4_500}) in audit
        assert wait_until(lambda: loser in {p for t in tables.values()
                                            for p in players(t).values()})

        # The chip count: a player the floor seats by hand with chips of his own
        other = tables[where]
        free = min(set(range(1, 5)) - set(players(other)))
        other.feed([{"type": "seat", "seat": free, "player": "Ghost", "stack": 700}])
        other.settle()
        expect(staff.locator("#t-alerts")).to_contain_text("700 chips more")
        expect(staff.locator("#t-alerts")).to_contain_text("Ghost is not in the tournament")

        status, body, headers = get(f"{server.url}/api/tournament/standings.csv")
        assert status == 200 and body.decode().startswith("place,last,player,club")
        assert "attachment" in headers.get("content-disposition", "")
        status, body, _ = get(f"{server.url}/api/tournament/standings.json")
        assert status == 200 and json.loads(body)["tournament"] == "service test"

        # Restarted while a table's state is gone (its Pi off for good: no retained state):
        # the page says the tournament waits for it, and the director goes on without it
        service.close()
        store.close()
        gone = next(n for n, t in tables.items() if players(t))
        tables[gone].link.close()  # (one connection per login: the Pi goes first)
        pi = VenueClient(broker, f"table-{gone}", ())
        stack.callback(pi.close)
        assert pi.publish(Topics(broker.plan.venue).table(gone, "state"), b"", retain=True) == 0
        service, store = start_service(broker, tmp_path, SETTINGS)
        stack.callback(store.close)
        stack.callback(service.close)
        line = staff.locator(f"#t-tables tr[data-table='{gone}']")
        expect(line).to_contain_text("its state has not come", timeout=10_000)
        expect(staff.locator("#t-summary")).to_contain_text(f"waits for table {gone}'s state")
        staff.once("dialog", lambda dialog: dialog.accept())
        line.locator("button.go-on").click()
        expect(staff.locator("#t-reply")).to_contain_text(f"goes on without table {gone}")
        expect(line).to_contain_text("gone on without it")
        expect(staff.locator("#t-summary")).not_to_contain_text("waits for")
        # Gone for good: the director would break it, its players drawn seats at the other
        # tables (RULES T3); here they do not fit in the seats left there, and the page says so
        # (the break itself: test_tournament_restart.py)
        leaving = set(players(tables[gone]).values()) - {"Ghost"}
        in_play = {t["table"] for t in json.loads(get(f"{server.url}/api/tournament")[1])[
            "tables"] if t["status"] == "open"}
        free = sum(4 - len(players(t)) for n, t in tables.items() if n != gone and n in in_play)
        assert len(leaving) > free
        staff.once("dialog", lambda dialog: dialog.accept())
        line.locator("button.break-gone").click()
        expect(staff.locator("#t-reply")).to_contain_text(
            f"refused: table {gone}'s {len(leaving)} players do not fit in the {free} free seats")
        expect(line).to_contain_text("gone on without it")
        # A cleared retained state is nothing said: no warning from the floor or the tournament
        assert not [r for r in caplog.records if "cleared" not in r.getMessage()
                    and "table/" + gone + "/state" in r.getMessage()], caplog.text[-2000:]
        assert staff.errors == [] and wall.errors == []  # type: ignore[attr-defined]


def test_the_floor_sells_an_add_on_from_the_page_at_the_break(broker: LocalBroker,
                                                              browser: Browser,
                                                              tmp_path: Path) -> None:
    """At the break that offers it the standings offer each player still in an add-on (behind
    the login); the page shows the chips on their way and the break's colour-up table by
    table (RULES T5)."""
    settings = SETTINGS_WITH_BREAK
    with contextlib.ExitStack() as stack:
        _tables, store, server, staff = drawn_on_the_page(stack, broker, browser, tmp_path,
                                                          settings, 4)
        row = staff.locator("#t-standings tr[data-player='Player 0']")
        expect(row).to_be_visible()
        expect(row.locator("button.add-on")).to_have_count(0)  # not before its break
        clock = VenueClient(broker, "clock", ())
        stack.callback(clock.close)
        clock.publish(Topics(broker.plan.venue).clock("state"), encode(ClockState(
            level=2, sb=100, bb=200, status="on_break", on_break=True, colour_up=[25])),
            retain=True)
        expect(staff.locator("#t-summary")).to_contain_text("add-on open")
        expect(staff.locator("#t-colour-up")).to_contain_text("the 25 chips leave play")
        expect(staff.locator("#t-colour-up")).to_contain_text("table 1: racing")
        row.locator("button.add-on").click()
        expect(staff.locator("#t-reply")).to_contain_text("done: Player 0 takes the add-on: "
                                                          "5,000 chips to their stack")
        purchase = staff.locator("#t-purchases tr[data-purchase='1']")
        expect(purchase).to_contain_text("on their stack")
        expect(staff.locator("#t-summary")).to_contain_text("prize pool 50 EUR")
        # He has taken the structure's one add-on: the page offers him none (the others still)
        expect(row.locator("button.add-on")).to_have_count(0)
        expect(staff.locator("#t-standings tr[data-player='Player 1'] button.add-on")
               ).to_have_count(1)
        answer = staff.evaluate("() => window.floorApp.post('/api/tournament/command', "
                                "{name: 'add_on', args: {player: 'Player 0'}})")
        assert answer["status"] == "error" and "has taken their add-on" in answer["reason"]
        audit = [(c["name"], c["by"], c["args"]) for c in store.commands()]
        assert ("add_on", "floor:anna", {"player": "Player 0"}) in audit

        wall = new_page(browser)  # without a login: it only watches
        wall.goto(f"{server.url}/tournament")
        expect(wall.locator("#t-purchases")).to_contain_text("Player 0")
        assert not wall.locator("#t-standings button.add-on").first.is_visible()
        status, answer = post(f"{server.url}/api/tournament/command",
                              {"name": "add_on", "args": {"player": "Player 1"}})
        assert status == 403 and "log in" in answer["reason"]
        assert staff.errors == [] and wall.errors == []  # type: ignore[attr-defined]


def test_the_page_offers_a_rebuy_only_to_a_player_the_tournament_sells_one_to(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """The Rebuy button follows the tournament's own checks (its state's ``can_rebuy``, RULES
    T6): gone for a player who has taken the structure's ``at_most``, and for everyone after
    the rebuy level."""
    settings = SETTINGS_WITH_REBUYS
    with contextlib.ExitStack() as stack:
        clock = VenueClient(broker, "clock", ())
        stack.callback(clock.close)
        clock_state = Topics(broker.plan.venue).clock("state")
        # (the module's broker: an earlier test left its clock at a later level)
        assert not clock.publish(clock_state, b"", retain=True).is_failure
        _tables, _store, _server, staff = drawn_on_the_page(stack, broker, browser, tmp_path,
                                                            settings, 3)
        expect(staff.locator("#t-summary")).to_contain_text("rebuys open")
        rebuy = staff.locator("#t-standings button.rebuy")
        expect(rebuy).to_have_count(3)
        row = staff.locator("#t-standings tr[data-player='Player 0']")
        row.locator("button.rebuy").click()
        expect(staff.locator("#t-reply")).to_contain_text("done: Player 0 takes the rebuy")
        expect(staff.locator("#t-purchases tr[data-purchase='1']")).to_contain_text(
            "on their stack")  # (the player's words: neutral)
        # 10,000 chips, under the limit of 12,000, but the one rebuy the structure allows
        expect(row.locator("button.rebuy")).to_have_count(0)
        expect(rebuy).to_have_count(2)
        answer = staff.evaluate("() => window.floorApp.post('/api/tournament/command', "
                                "{name: 'rebuy', args: {player: 'Player 0'}})")
        assert answer["status"] == "error" and "has taken 1 rebuy" in answer["reason"]
        clock.publish(clock_state, encode(ClockState(level=2, sb=100, bb=200,
                                                     status="running")), retain=True)
        expect(staff.locator("#t-summary")).not_to_contain_text("rebuys open")
        expect(rebuy).to_have_count(0)
        assert staff.errors == []  # type: ignore[attr-defined]
