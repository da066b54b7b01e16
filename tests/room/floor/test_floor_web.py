"""The floor display in a real browser: a real Mosquitto from `broker init`, real
table services publishing over MQTT, the clock, the floor server (uvicorn) and Debian's headless
Chromium driven by Playwright. Pages change without a reload; decisions need a floor login."""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Dialog, expect

from controller.demo.script import board, key
from controller.mqtt.local_broker import LocalBroker, free_port
from controller.room.clock.service import ClockService
from controller.room.floor.store import HandQuery
from controller.session import SessionConfig
from tests.mqtt.helpers import linked_table
from tests.room.floor.floor_helpers import (
    HIDDEN_HANDS,
    cards_in,
    floor_server,
    get,
    log_in,
    new_page,
    post,
    watched_page,
)
from tests.session.helpers import HOLE, deal, declare, seat, three_players
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[3]


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
        expect(page.locator("#table-1 .act")).to_have_text(re.compile(r"^S1 00:0\d$"))
        table.feed([declare(1, "raise", 300), declare(2, "fold")])
        expect(page.locator("#table-1 .act")).to_have_text(re.compile(r"^S3 00:0\d$"))
        # 300 and the blinds: the table's own (50/100), or a clock's (25/50) that an earlier
        # test left retained on this module's broker
        expect(page.locator("#table-1 .pot")).to_have_text(re.compile(r"^(450|375)$"))
        expect(page.locator("#table-1 .street")).to_have_text("preflop")
        expect(page.locator("#table-1 .seats")).to_have_text("3/10")  # of the table's 10 seats
        table.feed([declare(3, "fold")])
        page.wait_for_selector("#table-1[data-stage='over']")
        assert page.evaluate("window.sameDocument") == "yes"
        # The table screen: the seat map, the story in the floor's words with its rule tags.
        page.goto(f"{server.url}/table/1")
        page.wait_for_selector("#seat-1")
        assert "ana" in page.inner_text("#seat-1")
        expect(page.locator("#table-status")).to_contain_text("3 of 10 seats")
        assert "PVB 14(3)" in page.inner_text("#story")
        # A player's line names him (seat 1 is ana's, seat 2 ben's): the floor reads names.
        expect(page.locator("#story li", has_text="seat 1 raises to 300")).to_contain_text(
            "ana seat 1 raises to 300")
        expect(page.locator("#story li", has_text="seat 2 folds").locator(".who")).to_have_text(
            "ben")
        # Every line of the story lies in the list, whatever its kind: a line's kind is never
        # a class the seat map uses (a "seat" line drawn as a seat box lay over the others).
        positions = page.eval_on_selector_all(
            "#story li", "lines => lines.map(l => [l.className, getComputedStyle(l).position])")
        assert positions and all(re.fullmatch(r"ev ev-[a-z_]+", name) and where == "static"
                                 for name, where in positions), positions
        assert page.errors == []  # type: ignore[attr-defined]


def test_a_six_seat_tables_seats_go_round_the_whole_oval(broker: LocalBroker, browser: Browser,
                                                        tmp_path: Path) -> None:
    """The seat map spread every table over ten places: a six-seat table sat on the left half
    of the oval, the right half empty. Seat 1 is at the bottom, then clockwise round the
    table's own number of seats: seat 4 of six sits opposite seat 1, at the top."""
    config = SessionConfig(table_id="1", seats=6)
    with floor_server(broker, tmp_path / "floor") as server, \
            linked_table(broker, tmp_path / "one", table="1", config=config) as table:
        table.feed([seat(k, name, 10_000) for k, name in
                    enumerate(("ana", "ben", "cem", "dan", "eva", "fay"), start=1)])
        page = new_page(browser)
        page.goto(f"{server.url}/table/1")
        expect(page.locator("#table-status")).to_contain_text("6 of 6 seats")
        felt = page.locator("#felt").bounding_box()
        assert felt is not None
        middle = felt["x"] + felt["width"] / 2
        centres = {}
        for k in range(1, 7):
            box = page.locator(f"#seat-{k}").bounding_box()
            assert box is not None
            centres[k] = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        assert abs(centres[1][0] - middle) < 5 and abs(centres[4][0] - middle) < 5
        assert centres[4][1] < centres[1][1]  # opposite: at the top
        assert sum(x > middle + 50 for x, _ in centres.values()) == 2  # seats 5 and 6: right
        assert page.errors == []  # type: ignore[attr-defined]


def test_a_floor_login_pauses_the_clock_and_the_tv_screen_stops(
        broker: LocalBroker, browser: Browser, clock: ClockService, tmp_path: Path) -> None:
    with floor_server(broker, tmp_path / "floor") as server:
        tv = new_page(browser)  # the room's TV: no login
        tv.clock.install()  # its timers and time the test's to move on (they run on meanwhile)
        tv.goto(f"{server.url}/clock")
        assert not tv.is_visible("#clock-pause")  # a screen can only watch
        staff = new_page(browser)
        log_in(staff, server.url)
        staff.goto(f"{server.url}/clock")
        staff.click("#clock-start")
        expect(staff.locator("#clock-reply")).to_contain_text("done: the clock runs")
        expect(tv.locator("#tv-left")).to_have_text(re.compile(r"^14:"))
        expect(staff.locator("#clock-start")).to_be_hidden()  # (only what it can do now)
        staff.click("#clock-pause")
        expect(staff.locator("#clock-reply")).to_contain_text("done")
        expect(staff.locator("#clock-resume")).to_be_visible()
        expect(staff.locator("#clock-pause")).to_be_hidden()
        expect(tv.locator("#tv-status")).to_have_text("paused")
        frozen = tv.inner_text("#tv-left")
        tv.clock.run_for(2000)  # two seconds of the page's time, its ticks with them
        assert tv.inner_text("#tv-left") == frozen  # stopped: counted from the paused time
        assert clock.clock.position.status == "paused"
        asked: list[str] = []
        staff.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
        staff.fill("#clock-level", "3")  # the director jumps a level (PVB 14(2): next hands)
        staff.click("#clock-set-level")
        expect(staff.locator("#clock-reply")).to_contain_text("done: level 3")
        assert asked == ["Go to level 3 from every table's next hand? The clock is at level 1."]
        expect(tv.locator("#tv-level")).to_have_text("Level 3")
        # The field follows the clock's level (it said 1 at any level, and a click took the
        # blinds back to level 1): another login's jump shows in it
        assert server.send("clock", "set_level", {"level": 5}, by="floor:bea").status == "ok"
        expect(staff.locator("#clock-level")).to_have_value("5")
        staff.fill("#clock-level", "99")
        staff.click("#clock-set-level")
        expect(staff.locator("#clock-reply")).to_contain_text("refused:")
        # The decision is journaled by the clock with who took it.
        said = [row for row in clock.store._db.execute("SELECT name, by FROM commands")]
        assert ("pause", "floor:anna") in said and ("set_level", "floor:anna") in said


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
        # With the token: an unknown command, a table command sent to the clock, garbage.
        answers = staff.evaluate("""async () => {
            const me = await (await fetch('/api/me')).json();
            const send = async (body) => {
              const r = await fetch('/api/command', {method: 'POST', body,
                headers: {'content-type': 'application/json', 'x-csrf-token': me.csrf}});
              return [r.status, (await r.json()).reason];
            };
            return [await send(JSON.stringify({target: 'clock', name: 'explode', args: {}})),
                    await send(JSON.stringify({target: 'clock', name: 'void', args: {}})),
                    await send('{"target": "clock", "name": ')];
        }""")
        assert [code for code, _ in answers] == [400, 400, 400]
        assert "no command the clock takes" in answers[0][1]
        # The floor's next command to the clock (its one connection, one subscription at the
        # clock) is answered after any it sent before: none started the clock.
        after = staff.evaluate("""async () => {
            const me = await (await fetch('/api/me')).json();
            const r = await fetch('/api/command', {method: 'POST',
              headers: {'content-type': 'application/json', 'x-csrf-token': me.csrf},
              body: JSON.stringify({target: 'clock', name: 'resume', args: {}})});
            return await r.json();
        }""")
        assert after["status"] == "error" and "not paused (not started)" in after["reason"], after
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
        hand = [{"type": "shuffle", "ts": time.time()}, *deal(HOLE), declare(1, "raise", 300),
                declare(2, "fold"), declare(3, "fold")]  # a press's ts: the wall clock's
        table.feed(three_players() + hand + [{"type": "shuffle"}])  # the press seals hand 1
        assert wait_until(lambda: len(server.store.find(HandQuery())) == 1, 10)
        page = new_page(browser)
        page.goto(f"{server.url}/hands")
        page.fill("input[name=player]", "cem")
        page.click("#search button[type=submit]")
        page.wait_for_selector("tr.hand-row")
        page.click("tr.hand-row")
        page.wait_for_selector("#phh")
        # (the blinds are those of a clock an earlier test left retained on this broker, or
        # the table's own: ana raised and both blinds folded, she won them)
        assert re.search(r"seat 1 ana: 10,000 → 10,(075|150)\b", page.inner_text("#hand"))
        assert "seat 1 raises to 300" in page.inner_text("#hand .story")
        page.click("#hand button.close")
        page.fill("input[name=player]", "nobody")
        page.click("#search button[type=submit]")
        page.wait_for_selector("tr.hand-row", state="detached")
        hand_id = server.store.find(HandQuery())[0].id
        now = time.time()  # the search by time: the hand started moments ago
        for query, found in ((f"since={now - 600}&until={now + 1}", 1), (f"since={now + 60}", 0),
                             ("table=1&hand=1", 1), ("table=2", 0), ("player=CEM", 1)):
            _, body, _ = get(f"{server.url}/api/hands?{query}")
            assert len(json.loads(body)) == found, query
        code, phh, headers = get(f"{server.url}/api/hands/{hand_id}/phh")
        assert code == 200 and "attachment" in headers["content-disposition"]
        text = phh.decode()
        assert '"ana"' in text and '"cem"' in text
        assert "d dh p1 ????" in text and "7c2d" not in text  # folded: never shown


def test_no_hidden_hole_card_reaches_a_page_a_push_or_the_servers_log(
        broker: LocalBroker, browser: Browser, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    """Hand 1 goes to a showdown (seats 2 and 3 table their cards, seat 1 folded 7c2d); hand 2
    ends preflop, nobody shows. Every response, every pushed message, every page's text and
    the server's log are searched for the cards nobody tabled."""
    caplog.set_level("DEBUG")
    assert cards_in('{"cards": "Tc"}', HIDDEN_HANDS) == ["Tc"]
    assert cards_in("shows 9s 8s", HIDDEN_HANDS) == ["9s", "8s"]
    assert cards_in('{"id": "6d4c-a91f"}', HIDDEN_HANDS) == ["6d4c"]
    assert cards_in("uuid 0a4c7e", HIDDEN_HANDS) == []
    with floor_server(broker, tmp_path / "floor") as server, \
            linked_table(broker, tmp_path / "one", table="1") as table:
        pages = []
        bodies: list[str] = []
        for path in ("/", "/table/1", "/alerts", "/hands"):
            pages.append(watched_page(browser, f"{server.url}{path}", bodies))
        showdown = [*deal(HOLE), declare(1, "fold"), declare(2, "call"), key("confirm"),
                    *board("QsJd4h"), key("confirm"), key("confirm"), *board("5s"),
                    key("confirm"), key("confirm"), *board("9c"), key("confirm"), key("confirm"),
                    key("confirm"), key("confirm")]
        table.feed([*three_players(), {"type": "shuffle"}, *showdown])
        expect(pages[1].locator("#story")).to_contain_text("seat 2 shows As Ah")  # tabled: public
        table.feed([{"type": "shuffle"}, *deal({3: "9s8s", 1: "Tc3h", 2: "6d4c"}),
                    declare(2, "raise", 300), declare(3, "fold"), declare(1, "fold"),
                    {"type": "shuffle"}])  # the third press seals hand 2
        assert wait_until(lambda: len(server.store.find(HandQuery())) == 2, 10)
        pages[3].reload()
        pages[3].wait_for_selector("tr.hand-row")
        for row in range(2):
            pages[3].locator("tr.hand-row").nth(row).click()
            pages[3].wait_for_selector("#phh")
            pages[3].keyboard.press("Escape")
        for hand in server.store.find(HandQuery()):
            _, phh, _ = get(f"{server.url}/api/hands/{hand.id}/phh")
            bodies.append(phh.decode())
        _, snapshot, _ = get(f"{server.url}/api/snapshot?table=1")
        bodies.append(snapshot.decode())
        pushed = [m for page in pages for m in page.evaluate("window.pushed")]
        shown = [page.content() for page in pages]
        assert len(pushed) > 20 and any("KdKh" in m for m in pushed)  # the test can see cards
        for text in [*bodies, *pushed, *shown, caplog.text]:
            assert cards_in(text, HIDDEN_HANDS) == [], text[:300]


def test_the_pages_say_when_the_broker_is_gone_and_catch_up_when_it_is_back(
        browser: Browser, tmp_path: Path) -> None:
    with LocalBroker("away", tables=1) as own, floor_server(own, tmp_path / "floor") as server, \
            linked_table(own, tmp_path / "one", table="1") as table:
        table.feed(three_players())
        page = new_page(browser)
        page.goto(f"{server.url}/")
        page.wait_for_selector("#table-1[data-hand='0']")
        expect(page.locator("#connection")).to_be_hidden()
        assert wait_until(lambda: get(f"{server.url}/api/health")[0] == 200)
        own.kill()  # the broker dies: no goodbye to anyone
        expect(page.locator("#connection")).to_contain_text("lost the broker", timeout=20_000)
        # and why, as the floor server's log says it (controller/mqtt/diagnosis.py)
        expect(page.locator("#connection")).to_contain_text(
            f"floor: cannot reach the broker at 127.0.0.1:{own.port}: nothing listens there",
            timeout=20_000)
        code, body, _ = get(f"{server.url}/api/health")  # what an installer's monitor sees
        assert code == 503 and json.loads(body)["broker"] is False
        table.feed([{"type": "shuffle"}, *deal(HOLE)])  # the table plays on meanwhile
        table.settle()
        own.start()
        page.wait_for_selector("#table-1[data-hand='1'][data-stage='betting']", timeout=30_000)
        expect(page.locator("#connection")).to_be_hidden()
        code, body, _ = get(f"{server.url}/api/health")
        assert code == 200 and json.loads(body)["online"] == 1
        assert page.errors == []  # type: ignore[attr-defined]


def test_pokertable_floor_runs_from_its_configuration_and_its_users_from_the_cli(
        broker: LocalBroker, tmp_path: Path) -> None:
    """The operator's path: `floor-user add` (password on stdin, only a hash kept, 0600), then
    `pokertable floor --config`, which serves the pages and takes that login; SIGTERM stops it
    cleanly. A mistake in either is one line naming the file or the field."""
    accounts = tmp_path / "floor-users.json"
    cli = [sys.executable, "-m", "controller.cli"]
    added = subprocess.run([*cli, "floor-user", "add", "ben", "--accounts", str(accounts),
                            "--password-stdin"], input="river card 9\n", capture_output=True,
                           text=True, cwd=ROOT, timeout=60)
    assert added.returncode == 0, added.stderr
    assert accounts.stat().st_mode & 0o777 == 0o600 and "river card 9" not in accounts.read_text()
    short = subprocess.run([*cli, "floor-user", "add", "cem", "--accounts", str(accounts),
                            "--password-stdin"], input="short\n", capture_output=True,
                           text=True, cwd=ROOT, timeout=60)
    assert short.returncode == 2 and short.stderr.count("\n") == 1 and "8 characters" in (
        short.stderr)
    credentials = tmp_path / "credentials.json"
    credentials.write_text(json.dumps({"floor": broker.credentials["floor"].model_dump()}))
    port = free_port()
    config = tmp_path / "floor.toml"
    config.write_text(f'[floor]\nlisten = "127.0.0.1"\nport = {port}\n\n[mqtt]\n'
                      f'port = {broker.port}\nvenue = "{broker.plan.venue}"\n'
                      'credentials = "credentials.json"\n')
    process = subprocess.Popen([*cli, "floor", "--config", str(config)], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        assert wait_until(lambda: _serves(f"{url}/clock"), 20)
        code, answer = post(f"{url}/api/login", {"user": "ben", "password": "river card 9"})
        assert code == 200 and answer["user"] == "ben"
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    assert process.returncode == 0, stderr[-2000:]
    assert (tmp_path / "floor-secret").stat().st_mode & 0o777 == 0o600
    config.write_text('[floor]\nport = 99999\n\n[mqtt]\nvenue = "hall"\n'
                      'credentials = "credentials.json"\n')
    wrong = subprocess.run([*cli, "floor", "--config", str(config)], capture_output=True,
                           text=True, cwd=ROOT, timeout=60)
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1
    assert "floor.port" in wrong.stderr and "floor.toml" in wrong.stderr


def _serves(url: str) -> bool:
    try:
        return get(url)[0] == 200
    except OSError:
        return False


def test_floor_decisions_at_a_table_from_its_screen(broker: LocalBroker, browser: Browser,
                                                    tmp_path: Path) -> None:
    """Time called on the seat to act from the table screen: done, and the time call is an
    alert on every screen; a decision the table refuses shows its reason and rule there."""
    with floor_server(broker, tmp_path / "floor") as server, \
            linked_table(broker, tmp_path / "one", table="1") as table:
        table.feed([*three_players(), {"type": "shuffle"}, *deal(HOLE)])
        staff = new_page(browser)
        log_in(staff, server.url)
        staff.goto(f"{server.url}/table/1")
        staff.wait_for_selector("#seat-1.acting")
        staff.fill("#seat", "1")
        staff.click("#call-time")
        expect(staff.locator("#table-reply")).to_contain_text("done: time on seat 1")
        expect(staff.locator("#table-status")).to_contain_text("time called on seat 1")
        staff.fill("#pot", "3")
        asked: list[str] = []
        staff.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
        staff.click("#award")  # said first, and nothing sent when the floor thinks again
        assert wait_until(lambda: asked == ["Award pot 3 to seat 1?"], 5), asked
        staff.once("dialog", lambda d: d.accept())
        staff.click("#award")
        expect(staff.locator("#table-reply")).to_contain_text("refused:")
        expect(staff.locator("#table-reply")).to_contain_text("(PVB 63)")
        assert any(a.kind == "time" for a in server.hub.room.open_alerts())
        staff.goto(f"{server.url}/")  # the room card counts the call down
        countdown = staff.locator("#table-1 .countdown")
        first = int(countdown.inner_text().split()[0])
        assert wait_until(lambda: int(countdown.inner_text().split()[0]) < first, 5)


def test_pushes_leave_without_nagles_delay(broker: LocalBroker, tmp_path: Path) -> None:
    """asyncio turns Nagle's algorithm off only on sockets whose protocol says TCP: a listening
    socket made with protocol 0 held pushes up to 45 ms behind the browser's delayed ACK
    (bench/floor.py: p99 45 ms, 2.9 ms after)."""
    with floor_server(broker, tmp_path / "floor") as server:
        assert server.socket.proto == socket.IPPROTO_TCP
        with socket.create_connection(("127.0.0.1", server.port)) as client:
            client.sendall(b"GET /api/stream?kinds=clock HTTP/1.1\r\nHost: x\r\n\r\n")
            assert client.recv(100).startswith(b"HTTP/1.1 200")


def test_hostile_requests_change_nothing_and_crash_nothing(broker: LocalBroker,
                                                           clock: ClockService,
                                                           tmp_path: Path) -> None:
    """Garbage, a huge body, an unknown command, too many push streams: each refused with a
    clear answer; the server goes on serving and the clock is untouched."""
    with floor_server(broker, tmp_path / "floor") as server:
        url = server.url
        for body in (b"not json", b"[1, 2]", b'{"user": "anna"}', b"x" * 100_000,
                     b"[" * 15_000, b'{"a":' * 3000):  # nested: a 500 and a traceback once
            request = urllib.request.Request(f"{url}/api/login", data=body, method="POST",
                                             headers={"content-type": "application/json"})
            try:
                urllib.request.urlopen(request, timeout=10)
                raise AssertionError("accepted")
            except urllib.error.HTTPError as exc:
                assert exc.code == (413 if len(body) > 16_384 else 400)
                if body.startswith((b"[[", b'{"a":{')):
                    assert b"levels deep" in exc.read()
        for body in (b"[" * 15_000, b'{"a":' * 3000):  # a command, without a login
            request = urllib.request.Request(f"{url}/api/command", data=body, method="POST",
                                             headers={"content-type": "application/json"})
            try:
                urllib.request.urlopen(request, timeout=10)
                raise AssertionError("accepted")
            except urllib.error.HTTPError as exc:
                assert exc.code in (400, 401, 403), exc.code
        server.hub.max_screens = 1
        with socket.create_connection(("127.0.0.1", server.port)) as first:
            first.sendall(b"GET /api/stream HTTP/1.1\r\nHost: x\r\n\r\n")
            assert first.recv(100).startswith(b"HTTP/1.1 200")
            code, body, _ = get(f"{url}/api/stream")
            assert code == 503 and b"too many screens" in body
        code, _, _ = get(f"{url}/clock")
        assert code == 200 and clock.clock.position.status == "not_started"


def test_the_tv_says_when_the_clock_is_gone(broker: LocalBroker, browser: Browser,
                                            clock: ClockService, tmp_path: Path) -> None:
    """The clock stops (its Last Will would say the same): the TV keeps the level's end instant
    but says the clock is offline, and the floor gets an alert (no level will change)."""
    with floor_server(broker, tmp_path / "floor") as server:
        tv = new_page(browser)
        tv.goto(f"{server.url}/clock")
        expect(tv.locator("#tv-status")).to_have_text("not started")
        clock.close()
        expect(tv.locator("#tv-status")).to_have_text("clock offline")
        tv.goto(f"{server.url}/alerts")
        expect(tv.locator("#alerts")).to_contain_text("the tournament clock is offline")


def test_the_floor_lets_a_hand_for_hand_round_go_on_without_a_table_from_its_card(
        broker: LocalBroker, browser: Browser, clock: ClockService, tmp_path: Path) -> None:
    """PVB 35a: the round waits for a table in the middle of its hand; a floor login lets it go
    on from the room screen; the next round takes the tables between hands (this one, once its
    hand is over)."""
    with floor_server(broker, tmp_path / "floor") as server, \
            linked_table(broker, tmp_path / "one", table="1") as table:
        table.feed([*three_players(), {"type": "shuffle"}, *deal(HOLE)])
        assert wait_until(lambda: "1" in clock.online)
        staff = new_page(browser)
        log_in(staff, server.url)
        assert server.send("clock", "hand_for_hand", {"on": True}, by="floor:anna").status == "ok"
        waits = staff.locator("#need-1")  # the room screen's attention strip
        expect(waits).to_contain_text("the hand-for-hand round waits for it")
        asked: list[str] = []

        def answer(dialog: Dialog) -> None:  # (the floor is asked first: a click went on)
            asked.append(dialog.message)
            (dialog.dismiss if len(asked) == 1 else dialog.accept)()

        staff.on("dialog", answer)
        waits.locator("button.release").click()  # dismissed: nothing done
        assert wait_until(lambda: len(asked) == 1)
        assert "Table 1 is playing its hand and answers" in asked[0], asked
        waits.locator("button.release").click()
        expect(waits).to_contain_text("done: hand-for-hand goes on without table 1")
        assert len(asked) == 2
        assert clock.clock.position.waiting == [] and clock.clock.position.round == 0
        table.feed([declare(1, "raise", 300), declare(2, "fold"), declare(3, "fold")])
        assert wait_until(lambda: clock.clock.position.round == 1)
        assert clock.clock.position.playing == ["1"]
        assert staff.url == f"{server.url}/"  # the button did not follow the strip's link
