"""The tournament's alerts are the floor's (real broker, real floor server, Debian's headless
Chromium): published in ``tournament/state`` by the tournament's own login, they show on
/alerts under their table (or "the tournament") with severity, rule and what to do, in the room
screen's attention strip and in /api/health's count; the floor acknowledges all of a table's
with one click and one alone with another; acknowledged, none comes back when the state comes
again, nor after the floor restarts; the tournament page says which are still open."""

from __future__ import annotations

import json
from pathlib import Path

from playwright.sync_api import Browser, expect

from controller.demo.room_states import publish
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import StateMessage, encode
from controller.mqtt.topics import Topics
from controller.room.tournament.ledger import Alert
from controller.room.tournament.view import PublishedState
from controller.session import SessionConfig, TableSession
from tests.room.floor.floor_helpers import floor_server, get, log_in, new_page, publish_tables
from tests.waiting import wait_until

AT = 1_770_000_000.0
ALERTS = [
    # chip_count.Difference.words() after a colour-up (RULES T5): the floor counts the table
    Alert(id=7, at=AT, rule="RULES T5", table="2", hand=41,
          text="table 2, hand 41: the stacks add up to 59,900, 100 chips fewer than the table "
               "should hold after the colour-up (60,000); count the table"),
    Alert(id=8, at=AT + 5, rule="PVB 13", table="2",
          text="table 2, seat 3: Ghost is not in the tournament; the floor checks the table"),
    Alert(id=9, at=AT + 9, rule="RULES T6",
          text="Player 7 went out before the chips of his rebuy reached his table: it is void; "
               "20 EUR back"),
]


def _health(url: str) -> int:
    status, body, _ = get(f"{url}/api/health")
    assert status == 200
    return int(json.loads(body)["open_alerts"])


def _publish_tournament(broker: LocalBroker) -> None:
    state = PublishedState(name="Spring Cup", entries=12, players_left=9, alerts=ALERTS,
                           status="running")
    publish(broker.address(), broker.login("tournament"),
            [(Topics(broker.plan.venue).service("tournament", "state"), encode(state))])


def test_the_tournaments_alerts_are_shown_counted_and_acknowledged_on_the_floor(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    table = TableSession(SessionConfig(table_id="2")).state()
    publish_tables(broker, [StateMessage(table="2", seq=1, sent=AT, state=table)])
    with floor_server(broker, tmp_path / "floor") as server:
        _publish_tournament(broker)
        assert wait_until(lambda: _health(server.url) == 3)

        staff = new_page(browser)
        log_in(staff, server.url)
        # The room screen: table 2 first in the strip with its chip count; the tournament's own
        strip = staff.locator("#attention")
        expect(strip.locator("#need-2")).to_contain_text("59,900")
        expect(strip.locator("#need-2 .need")).to_have_class("need urgent")
        expect(strip.locator("#need-tournament")).to_contain_text("the tournament")
        expect(strip.locator("#need-tournament")).to_contain_text("void; 20 EUR back")
        expect(strip.locator(".need-item").first).to_have_id("need-2")  # the worst first

        staff.goto(f"{server.url}/alerts")
        two = staff.locator("#alerts-2")
        expect(two.locator("h2")).to_have_text("Table 2")
        expect(two.locator("li.alert")).to_have_count(2)
        chips = two.locator("li.alert.chips")
        expect(chips).to_have_class("alert chips urgent")
        expect(chips).to_contain_text("hand 41 · the stacks add up to 59,900")  # said once
        expect(chips).not_to_contain_text("table 2,")
        expect(chips.locator(".rule")).to_have_text("RULES T5")
        expect(chips.locator(".todo")).to_contain_text("count every stack")
        expect(two.locator("li.alert").first).to_contain_text("seat 3: Ghost")  # newest first
        tournament = staff.locator("#alerts-tournament")
        expect(tournament.locator("h2")).to_have_text("The tournament")
        expect(tournament.locator("li.alert")).to_have_class("alert tournament warning")
        expect(tournament.locator(".todo")).to_contain_text("money back")
        expect(staff.locator("#alerts > li").first).to_have_id("alerts-2")  # urgent first

        two.locator("button.ack-all").click()  # all of table 2's with one click
        expect(staff.locator("#alert-reply")).to_have_text("acknowledged 2 alerts")
        expect(two).to_have_count(0)
        assert wait_until(lambda: _health(server.url) == 1)
        _publish_tournament(broker)  # said again by the tournament: not raised again
        staff.goto(f"{server.url}/tournament")
        alerts = staff.locator("#t-alerts")
        expect(alerts.locator("li[data-alert='7']")).to_contain_text("acknowledged")
        expect(alerts.locator("li[data-alert='9'] a")).to_have_text(
            "open: acknowledge it on Alerts")
        assert _health(server.url) == 1
        assert staff.errors == []  # type: ignore[attr-defined]

    # The floor restarted: its journal knows what was acknowledged, by whom
    with floor_server(broker, tmp_path / "floor") as server:
        assert wait_until(lambda: server.hub.room.tournament is not None)
        assert _health(server.url) == 1
        done = server.hub.store.acknowledged()
        assert {(a, by) for a, by, _ in done} == {
            (f"tournament:{int(AT * 1000)}:7", "floor:anna"),
            (f"tournament:{int((AT + 5) * 1000)}:8", "floor:anna")}
        staff = new_page(browser)
        log_in(staff, server.url)
        staff.goto(f"{server.url}/alerts")
        tournament = staff.locator("#alerts-tournament")
        tournament.locator("button.ack").click()  # one alone
        expect(staff.locator("#alert-reply")).to_have_text("acknowledged 1 alert")
        expect(staff.locator("#alerts")).to_have_text("no open alert")
        assert wait_until(lambda: _health(server.url) == 0)
        staff.goto(f"{server.url}/")
        expect(staff.locator("#attention")).to_have_text(
            "every table plays: nothing needs the floor")
        assert staff.errors == []  # type: ignore[attr-defined]
