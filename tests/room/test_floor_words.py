"""What the floor's pages say, the same on every page (real broker, real floor server, Debian's
headless Chromium): an alert whose cause has passed, the tournament over, players and entries,
the time of day, the chip leader, a broken table."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, expect

from controller.demo.room_states import publish
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import ServiceStatus, StateMessage, StatusMessage, encode
from controller.mqtt.topics import Topics
from controller.session import SessionConfig, TableSession
from tests.mqtt.helpers import wait_until
from tests.room.floor_helpers import floor_server, log_in, new_page, publish_tables

AT = 1_770_000_000.0
TIME = re.compile(r"^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$")  # the floor's 24-hour time of day


def _table_status(broker: LocalBroker, table: str, status: str) -> None:
    publish(broker.address(), broker.login(f"table-{table}"), [
        (Topics(broker.plan.venue).table(table, "status"),
         encode(StatusMessage(table=table, status=status)))])  # type: ignore[arg-type]


def _clock_status(broker: LocalBroker, status: str) -> None:
    publish(broker.address(), broker.login("clock"), [
        (Topics(broker.plan.venue).service("clock", "status"),
         encode(ServiceStatus(service="clock", status=status)))])  # type: ignore[arg-type]


def test_an_alert_whose_cause_has_passed_is_a_notice_on_the_alerts_page(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """An outside check saw "URGENT · the table is offline" and "the tournament clock is
    offline" on /alerts long after both were back, while the room screen's card said "was: ...":
    now /alerts says the same, a notice with the time it came back, until acknowledged; and so
    after the floor restarts."""
    state = TableSession(SessionConfig(table_id="3")).state()
    publish_tables(broker, [StateMessage(table="3", seq=1, sent=AT, state=state)])
    _clock_status(broker, "online")
    with floor_server(broker, tmp_path / "floor") as server:
        assert wait_until(lambda: server.hub.room.clock_online is True and
                          "3" in server.hub.room.tables)
        page = new_page(browser)
        page.goto(f"{server.url}/alerts")
        _table_status(broker, "3", "offline")
        _clock_status(broker, "offline")
        three, clock = page.locator("#alerts-3 li.alert"), page.locator("#alerts-clock li.alert")
        expect(three).to_have_class("alert offline urgent")
        expect(three.locator(".sev")).to_have_text("urgent")
        expect(three.locator(".text")).to_have_text("the table is offline")
        expect(clock).to_have_class("alert offline urgent")

        _table_status(broker, "3", "online")  # back: the alert waits only for a click
        _clock_status(broker, "online")
        for alert in (three, clock):
            expect(alert).to_have_class(re.compile(r"\bnotice passed$"))
            expect(alert.locator(".sev")).to_have_text("notice")
            expect(alert.locator(".text")).to_have_text(re.compile("^was: the "))
            expect(alert.locator(".back")).to_have_text(
                re.compile(r"^back at \d\d:\d\d:\d\d: acknowledge it$"))
            expect(alert.locator(".todo")).to_have_count(0)
        expect(three.locator(".text")).to_have_text("was: the table is offline")
        page.goto(f"{server.url}/")  # the room screen's card says it alike
        expect(page.locator("#need-3 .need")).to_have_class("need notice")
        expect(page.locator("#need-3")).to_contain_text("was: the table is offline")
        assert page.errors == []  # type: ignore[attr-defined]

    with floor_server(broker, tmp_path / "floor") as server:  # restarted: still passed
        page = new_page(browser)
        log_in(page, server.url)
        page.goto(f"{server.url}/alerts")
        three = page.locator("#alerts-3 li.alert")
        expect(three).to_have_class("alert offline notice passed")
        page.locator("#alerts-3 button.ack").click()
        expect(page.locator("#alerts-3")).to_have_count(0)
        expect(page.locator("#alerts-clock li.alert")).to_have_class(
            "alert offline notice passed")
        assert page.errors == []  # type: ignore[attr-defined]
