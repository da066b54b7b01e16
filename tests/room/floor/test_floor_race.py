"""The floor's table page sets a stack and gives a chip race's chips (RULES T5, APSA 2.1.18) at
a table whose readers cannot read the stacks (docs/table.md: the floor enters a winner's stack
with `stack`): a real table service on a real Mosquitto, the floor server and headless Chromium.
Each asks first, as the other decisions that move chips do; the table's end of the race counts
the floor's entry."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from controller.mqtt.local_broker import LocalBroker
from tests.mqtt.helpers import linked_table
from tests.room.floor.floor_helpers import floor_server, log_in, new_page
from tests.session.helpers import command, seat
from tests.waiting import wait_until


def test_the_floor_sets_a_stack_and_gives_the_race_chip_from_the_table_page(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    with floor_server(broker, tmp_path / "floor") as server, \
            linked_table(broker, tmp_path / "one", table="1") as table:
        table.feed([seat(1, "ana", 1_275), seat(2, "ben", 9_950), seat(3, "cem", 10_000)])
        staff = new_page(browser)
        log_in(staff, server.url)
        staff.goto(f"{server.url}/table/1")
        staff.wait_for_selector("#seat-3")

        # A stack the floor counted, between hands: asked first, nothing sent on "no"
        staff.fill("#seat", "3")
        staff.fill("#stack-chips", "9850")
        asked: list[str] = []
        staff.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
        staff.click("#set-stack")
        assert wait_until(lambda: asked == [
            "Set seat 3's stack (cem) to 9,850? It is 10,000."], 5), asked
        assert table.memory.last.seats[3].stack == 10_000
        staff.once("dialog", lambda d: d.accept())
        staff.click("#set-stack")
        expect(staff.locator("#table-reply")).to_contain_text(
            "done: seat 3: cem's stack is 9,850 as counted")
        assert wait_until(lambda: table.memory.last.seats[3].stack == 9_850)

        # The colour-up: a button for each racer still without his race chip (75, 50 and 50
        # left over: two chips raced among three)
        table.feed([command("colour_up", by="tournament", chips=[25], unit=100,
                            ref="colour-up:1")])
        expect(staff.locator("#race-controls button")).to_have_count(3)
        expect(staff.locator("#race-chip-1")).to_contain_text("Seat 1 won a race chip (1,300)")
        staff.once("dialog", lambda d: (asked.append(d.message), d.accept()))
        staff.click("#race-chip-2")
        assert asked[-1] == ("Seat 2 (ben) won a chip of 100 in the chip race: stack 10,000?")
        expect(staff.locator("#table-reply")).to_contain_text("done: seat 2: ben's stack is "
                                                              "10,000 as counted")
        assert wait_until(lambda: table.memory.last.seats[2].stack == 10_000)
        expect(staff.locator("#race-controls button")).to_have_count(2)  # ben has his chip

        # The next hand ends the race, counting the floor's entry
        table.feed([{"type": "shuffle"}])
        expect(staff.locator("#race-controls button")).to_have_count(0)
        # (the page and the memory sink are two observers of the table: the link is fed first)
        over = ("the chip race is over: seat(s) 2 with a chip of 100 (2 raced; the floor "
                "entered seat(s) 2)")
        assert wait_until(lambda: over in [e.text for e in table.memory.events]), \
            [e.text for e in table.memory.events]
