"""The floor display in a real browser (issue 18): a real Mosquitto from `broker init`, real
table services publishing over MQTT, the clock, the floor server (uvicorn) and Debian's headless
Chromium driven by Playwright. Pages change without a reload; decisions need a floor login."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from controller.demo.script import key
from controller.mqtt.local_broker import LocalBroker
from controller.room.clock_service import ClockService, ClockStore
from controller.room.floor.store import HandQuery
from controller.room.structure import load_structure
from tests.mqtt.helpers import linked_table, wait_until
from tests.room.floor_helpers import floor_server, get, log_in, new_page, post
from tests.session.helpers import HOLE, deal, declare, three_players
from tests.venue import address, login

ROOT = Path(__file__).resolve().parents[2]
TURBO = load_structure(ROOT / "deploy" / "structures" / "turbo.toml")


@pytest.fixture
def clock(broker: LocalBroker, tmp_path: Path) -> Iterator[ClockService]:
    store = ClockStore(tmp_path / "clock.db")
    service = ClockService(address(broker), login(broker, "clock"), TURBO, store).start()
    assert service.connected.wait(5)
    yield service
    service.close()
    store.close()


def test_the_room_screen_follows_a_hand_without_a_reload(broker: LocalBroker, browser: Browser,
                                                         tmp_path: Path) -> None:
    with floor_server(broker, tmp_path / "floor") as server, \
            linked_table(broker, tmp_path / "one", table="1") as table:
        table.feed(three_players())
        table.settle()
        page = new_page(browser)
        page.goto(f"{server.url}/")
        page.wait_for_selector("#table-1[data-hand='0']")
        page.evaluate("window.sameDocument = 'yes'")  # gone if the page reloads
        table.feed([{"type": "shuffle"}, *deal(HOLE)])
        page.wait_for_selector("#table-1[data-hand='1'][data-stage='betting']")
        assert "to act: seat 1 (ana)" in page.inner_text("#table-1")
        table.feed([declare(1, "raise", 300), declare(2, "fold")])
        expect(page.locator("#table-1")).to_contain_text("to act: seat 3 (cem)")
        assert "pot 450" in page.inner_text("#table-1")
        table.feed([declare(3, "fold")])
        page.wait_for_selector("#table-1[data-stage='over']")
        assert page.evaluate("window.sameDocument") == "yes"
        # The table screen: the seat map, the story in the floor's words with its rule tags.
        page.goto(f"{server.url}/table/1")
        page.wait_for_selector("#seat-1")
        assert "ana" in page.inner_text("#seat-1")
        assert "PVB 14(3)" in page.inner_text("#story")
        assert page.errors == []  # type: ignore[attr-defined]


def test_a_floor_login_pauses_the_clock_and_the_tv_screen_stops(
        broker: LocalBroker, browser: Browser, clock: ClockService, tmp_path: Path) -> None:
    with floor_server(broker, tmp_path / "floor") as server:
        tv = new_page(browser)  # the room's TV: no login
        tv.goto(f"{server.url}/clock")
        assert not tv.is_visible("#clock-pause")  # a screen can only watch
        staff = new_page(browser)
        log_in(staff, server.url)
        staff.goto(f"{server.url}/clock")
        staff.click("#clock-start")
        expect(staff.locator("#clock-reply")).to_contain_text("done: the clock runs")
        expect(tv.locator("#tv-left")).to_have_text(re.compile(r"^14:"))
        staff.click("#clock-pause")
        expect(staff.locator("#clock-reply")).to_contain_text("done")
        expect(tv.locator("#tv-status")).to_have_text("paused")
        frozen = tv.inner_text("#tv-left")
        time.sleep(1.5)
        assert tv.inner_text("#tv-left") == frozen  # stopped: counted from the paused time
        assert clock.clock.position.status == "paused"
        # The decision is journaled by the clock with who took it.
        said = [row for row in clock.store._db.execute("SELECT name, by FROM commands")]
        assert ("pause", "floor:anna") in said


def test_an_alert_stays_until_a_floor_login_acknowledges_it(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    with floor_server(broker, tmp_path / "floor") as server, \
            linked_table(broker, tmp_path / "one", table="1") as table:
        table.feed([*three_players(), {"type": "shuffle"}, *deal(HOLE), key("floor")])
        tv = new_page(browser)
        tv.goto(f"{server.url}/alerts")
        tv.wait_for_selector("li.alert.floor")
        assert "the dealer calls the floor" in tv.inner_text("#alerts")
        assert not tv.is_visible("li.alert.floor button.ack")
        staff = new_page(browser)
        log_in(staff, server.url)
        staff.goto(f"{server.url}/alerts")
        staff.click("li.alert.floor button.ack")
        tv.wait_for_selector("li.alert.floor", state="detached")  # gone on every screen
        (acknowledged,) = server.store.acknowledged()
        assert acknowledged[1] == "floor:anna"
        # A restarted floor server does not raise it again.
        assert server.store.open_alerts() == []


def test_a_screen_without_a_login_cannot_decide(broker: LocalBroker, browser: Browser,
                                                 clock: ClockService, tmp_path: Path) -> None:
    with floor_server(broker, tmp_path / "floor") as server:
        tv = new_page(browser)
        tv.goto(f"{server.url}/clock")
        status = tv.evaluate("""async () => (await fetch('/api/command', {method: 'POST',
            headers: {'content-type': 'application/json'},
            body: JSON.stringify({target: 'clock', name: 'start', args: {}})})).status""")
        assert status == 403
        code, answer = post(f"{server.url}/api/command",
                            {"target": "clock", "name": "start", "args": {}})
        assert code == 403 and "log in" in answer["reason"]
        # Logged in, but without the page's token (a forged form from elsewhere): refused.
        staff = new_page(browser)
        log_in(staff, server.url)
        status = staff.evaluate("""async () => (await fetch('/api/command', {method: 'POST',
            headers: {'content-type': 'application/json'},
            body: JSON.stringify({target: 'clock', name: 'start', args: {}})})).status""")
        assert status == 403
        time.sleep(0.3)
        assert clock.clock.position.status == "not_started"
        # Wrong passwords: refused, and the sixth try within a minute waits.
        codes = [post(f"{server.url}/api/login", {"user": "anna", "password": "guess"})[0]
                 for _ in range(6)]
        assert codes == [401] * 5 + [429]


def test_every_response_carries_the_security_headers(broker: LocalBroker,
                                                     tmp_path: Path) -> None:
    with floor_server(broker, tmp_path / "floor") as server:
        for path in ("/", "/clock", "/api/snapshot", "/static/app.js"):
            code, _, headers = get(f"{server.url}{path}")
            assert code == 200
            assert "frame-ancestors 'none'" in headers["content-security-policy"]
            assert headers["x-content-type-options"] == "nosniff"
        code, body, _ = get(f"{server.url}/api/hands?hand=-3")
        assert code == 400 and json.loads(body)["reason"].startswith("bad search")


def test_hands_are_searchable_and_download_as_phh(broker: LocalBroker, browser: Browser,
                                                  tmp_path: Path) -> None:
    with floor_server(broker, tmp_path / "floor") as server, \
            linked_table(broker, tmp_path / "one", table="1") as table:
        hand = [{"type": "shuffle"}, *deal(HOLE), declare(1, "raise", 300), declare(2, "fold"),
                declare(3, "fold")]
        table.feed(three_players() + hand + [{"type": "shuffle"}])  # the press seals hand 1
        assert wait_until(lambda: len(server.store.find(HandQuery())) == 1, 10)
        page = new_page(browser)
        page.goto(f"{server.url}/hands")
        page.fill("input[name=player]", "cem")
        page.click("#search button[type=submit]")
        page.wait_for_selector("tr.hand-row")
        page.click("tr.hand-row")
        page.wait_for_selector("#phh")
        assert "seat 1 ana: 10,000 → 10,150" in page.inner_text("#hand")
        page.fill("input[name=player]", "nobody")
        page.click("#search button[type=submit]")
        page.wait_for_selector("tr.hand-row", state="detached")
        hand_id = server.store.find(HandQuery())[0].id
        code, phh, headers = get(f"{server.url}/api/hands/{hand_id}/phh")
        assert code == 200 and "attachment" in headers["content-disposition"]
        text = phh.decode()
        assert '"ana"' in text and '"cem"' in text
        assert "d dh p1 ????" in text and "7c2d" not in text  # folded: never shown
