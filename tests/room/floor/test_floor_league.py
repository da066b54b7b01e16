"""One floor following two venues on a league's host (docs/league.md): three real Mosquittos
(the league's and two venues' bridged to it, tests/league.py), a real table at each venue, both
table 1, the venues' clocks' states, and the floor server on the league's broker with its
read-only ``floor`` login, in headless Chromium. The two tables stay apart, each venue shows
its own clock, alerts and hands name their venue, no decision is offered or accepted, and no
hole card nobody tabled reaches a page, a push or the log."""

from __future__ import annotations

import contextlib
import json
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from controller.demo.room_states import publish
from controller.demo.script import board, key
from controller.mqtt.local_broker import free_port
from controller.mqtt.messages import ClockState, encode
from controller.mqtt.topics import Topics
from controller.room.floor.accounts import Accounts, save_accounts, set_password
from controller.room.floor.server import FloorServer
from controller.room.floor.store import HandQuery
from tests.league import VENUES, League
from tests.mqtt.helpers import LinkedTable, linked_table
from tests.room.floor.floor_helpers import (
    HIDDEN_HANDS,
    PASSWORD,
    cards_in,
    get,
    log_in,
    new_page,
    post,
    watched_page,
)
from tests.session.helpers import HOLE, deal, declare, seat, three_players
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[3]


def clocks() -> dict[str, ClockState]:
    """Each venue's clock as its clock service publishes it (retained): hall-a's level ends ten
    minutes from now, hall-b's is paused with five minutes left."""
    return {
        "hall-a": ClockState(name="Hall A Open", level=3, sb=100, bb=200, status="running",
                             ends_at=time.time() + 600, next_level=4, next_sb=150, next_bb=300),
        "hall-b": ClockState(name="Hall B Cup", level=5, sb=300, bb=600, status="paused",
                             running=False, remaining=300),
    }


# Hall A's hand goes to a showdown (seats 2 and 3 table AsAh and KdKh; seat 1 folded 7c2d);
# hall B's ends preflop (nobody shows: 6d4c, 9s8s, Tc3h stay hidden), its dealer calls the
# floor on the way. The second shuffle press at each seals its hand 1 (the record).
HALL_A = [*three_players(), {"type": "shuffle"}, *deal(HOLE), declare(1, "fold"),
          declare(2, "call"), key("confirm"), *board("QsJd4h"), key("confirm"), key("confirm"),
          *board("5s"), key("confirm"), key("confirm"), *board("9c"), key("confirm"),
          key("confirm"), key("confirm"), key("confirm"), {"type": "shuffle"}]
HALL_B = [seat(1, "dora", 10_000), seat(2, "emil", 10_000), seat(3, "finn", 10_000),
          {"type": "shuffle"}, *deal({2: "6d4c", 3: "9s8s", 1: "Tc3h"}), key("floor"),
          declare(1, "fold"), declare(2, "fold"), {"type": "shuffle"}]


@contextlib.contextmanager
def league_floor(league: League, directory: Path) -> Iterator[FloorServer]:
    """The floor server on the league's broker, following both venues, with a floor login."""
    directory.mkdir(parents=True, exist_ok=True)
    accounts = directory / "floor-users.json"
    save_accounts(accounts, set_password(Accounts(), "anna", PASSWORD))
    server = FloorServer(league.broker.address(), league.broker.login("floor"),
                         db=directory / "floor.db", accounts=accounts,
                         secret=directory / "floor-secret", follow=VENUES).start()
    try:
        assert server.hub.subscribed.wait(10)
        yield server
    finally:
        server.close()


@contextlib.contextmanager
def venues_playing(league: League, directory: Path) -> Iterator[dict[str, LinkedTable]]:
    """Each venue's clock state published, and a table 1 at each venue."""
    for venue, state in clocks().items():
        broker = league.venues[venue]
        publish(broker.address(), broker.login("clock"),
                [(Topics(venue).clock("state"), encode(state))])
    with linked_table(league.venues["hall-a"], directory / "a") as a, \
            linked_table(league.venues["hall-b"], directory / "b") as b:
        yield {"hall-a": a, "hall-b": b}


def _snapshot(server: FloorServer) -> dict[str, Any]:
    snapshot: dict[str, Any] = json.loads(get(f"{server.url}/api/snapshot")[1])
    return snapshot


def test_one_floor_shows_two_venues_apart_and_never_a_hidden_card(
        league: League, browser: Browser, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("DEBUG")
    with league_floor(league, tmp_path / "floor") as server, \
            venues_playing(league, tmp_path) as tables:
        bodies: list[str] = []
        pages = [watched_page(browser, f"{server.url}{path}", bodies) for path in (
            "/", "/table/1?venue=hall-a", "/table/1?venue=hall-b", "/alerts")]
        room, table_a, table_b, alerts = pages
        tables["hall-a"].feed(HALL_A)
        tables["hall-b"].feed(HALL_B)
        assert wait_until(lambda: len(server.store.find(HandQuery())) == 2, 20)

        # The snapshot: two tables 1, each its venue's players; each venue's own clock.
        snap = _snapshot(server)
        assert [(t["venue"], t["table"]) for t in snap["tables"]] == [
            ("hall-a", "1"), ("hall-b", "1")]
        players = {t["venue"]: {s["player"] for s in t["state"]["seats"].values()}
                   for t in snap["tables"]}
        assert players == {"hall-a": {"ana", "ben", "cem"}, "hall-b": {"dora", "emil", "finn"}}
        assert snap["clock"] is None
        assert [(v["venue"], v["clock"]["level"], v["clock"]["status"])
                for v in snap["venues"]] == [("hall-a", 3, "running"), ("hall-b", 5, "paused")]
        (called,) = [a for a in snap["alerts"] if a["kind"] == "floor"]
        assert called["venue"] == "hall-b" and called["id"].startswith("hall-b/1:")

        # The room screen: each venue's tile (its level, time left, what stops it), then its
        # tables; the attention strip names the venue.
        expect(room.locator("#venue-hall-a")).to_contain_text("level 3")
        expect(room.locator("#venue-hall-a .left")).to_have_text(re.compile(r"^(09|10):\d\d$"))
        expect(room.locator("#venue-hall-b")).to_contain_text("level 5")
        expect(room.locator("#venue-hall-b")).to_contain_text("paused")
        expect(room.locator("#venue-hall-b .left")).to_have_text("05:00")
        order = room.eval_on_selector_all("#tables > *", "nodes => nodes.map(n => n.id)")
        assert order == ["venue-hall-a", "table-hall-a_1", "venue-hall-b", "table-hall-b_1"]
        assert room.get_attribute("#table-hall-b_1", "href") == "/table/1?venue=hall-b"
        expect(room.locator("#need-hall-b_1")).to_contain_text(
            "hall-b table 1 the dealer calls the floor")
        expect(room.locator("#clockstrip")).to_contain_text("hall-a level 3")
        # A table's page: its venue's table, its venue's clock, and no decision to take.
        expect(table_b.locator("#table-title")).to_have_text("Table 1 · hall-b")
        expect(table_b.locator("#seat-1")).to_contain_text("dora")
        expect(table_b.locator("#clockstrip")).to_contain_text("level 5")
        expect(table_a.locator("#table-status")).to_contain_text("hand 2")
        expect(table_a.locator("#seat-1")).to_contain_text("ana")
        # ... and only its venue's table 1: nothing of hall-b's table 1 was pushed to it
        pushed_a = table_a.evaluate("window.pushed")
        assert any("seat 2 shows As Ah" in m for m in pushed_a)  # tabled: public
        assert not any(name in m for m in pushed_a for name in ("dora", "emil", "finn"))
        # The alerts, by venue and table.
        expect(alerts.locator("#alerts-hall-b_1 h2")).to_have_text("hall-b · Table 1")
        expect(alerts.locator("#alerts-hall-b_1")).to_contain_text("the dealer calls the floor")

        # The hands of both venues, searched across them or in one; each names its venue.
        hands = watched_page(browser, f"{server.url}/hands", bodies)
        expect(hands.locator("tr.hand-row")).to_have_count(2)
        assert sorted(hands.locator("td[data-label=Venue]").all_inner_texts()) == VENUES
        hands.select_option("select[name=venue]", "hall-b")
        hands.click("#search button[type=submit]")
        expect(hands.locator("tr.hand-row")).to_have_count(1)
        hands.click("tr.hand-row")
        expect(hands.locator("#hand h2")).to_contain_text("hall-b · Table 1, hand 1")
        expect(hands.locator("#hand .players")).to_contain_text("dora")
        href = hands.get_attribute("#phh", "href")
        assert href is not None and href.endswith("/phh?venue=hall-b")
        code, phh, headers = get(f"{server.url}{href}")
        assert code == 200 and "hall-b-table-1-hand-1.phh" in headers["content-disposition"]
        assert '"dora"' in phh.decode() and '"ana"' not in phh.decode()
        for venue in VENUES:
            _, found, _ = get(f"{server.url}/api/hands?venue={venue}")
            assert [h["venue"] for h in json.loads(found)] == [venue]
        for hand in server.store.find(HandQuery()):
            for form in ("phh", "stars"):
                bodies.append(get(f"{server.url}/api/hands/{hand.id}/{form}?venue="
                                  f"{hand.venue}")[1].decode())
        pages.append(hands)

        # No hole card nobody tabled, anywhere (the test can see the tabled ones).
        for venue in VENUES:
            bodies.append(get(f"{server.url}/api/snapshot?table=1&venue={venue}")[1].decode())
        pushed = [m for page in pages for m in page.evaluate("window.pushed")]
        shown = [page.content() for page in pages]
        assert any("KdKh" in m for m in pushed) and any("dora" in m for m in pushed)
        for text in [*bodies, *pushed, *shown, caplog.text]:
            assert cards_in(text, HIDDEN_HANDS) == [], text[:300]
        assert all(page.errors == [] for page in pages)  # type: ignore[attr-defined]


def test_a_floor_following_several_venues_offers_no_decision_and_sends_none(
        league: League, browser: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The league's ACL lets its floor login command nothing; the floor neither offers a
    decision nor sends one, and says why. A venue's link to the league going down is said on
    its tile, its clock screen and as an alert, and clears when it is back."""
    with league_floor(league, tmp_path / "floor") as server, \
            venues_playing(league, tmp_path) as tables:
        # What the floor's client publishes: a command would be published before the floor's
        # answer to it (which waits for the table's), so the list is complete at each answer.
        published: list[str] = []
        publish = server.hub._client.publish

        def recording(topic: str, *args: Any, **kw: Any) -> Any:
            published.append(topic)
            return publish(topic, *args, **kw)
        monkeypatch.setattr(server.hub._client, "publish", recording)
        tables["hall-a"].feed([*three_players(), {"type": "shuffle"}, *deal(HOLE)])
        staff = new_page(browser)
        log_in(staff, server.url)  # a floor login (it may acknowledge the league's alerts)
        staff.goto(f"{server.url}/table/1?venue=hall-a")
        expect(staff.locator("#seat-1")).to_contain_text("ana")
        assert staff.locator("#table-controls, #call-time, #void").count() == 0
        staff.goto(f"{server.url}/clock?venue=hall-a")
        expect(staff.locator("#tv-level")).to_have_text("Level 3")
        expect(staff.locator("#tv-name")).to_have_text("hall-a · Hall A Open")
        assert staff.locator("#clock-controls, #clock-start").count() == 0
        answer = staff.evaluate("""async () => {
            const me = await (await fetch('/api/me')).json();
            const r = await fetch('/api/command', {method: 'POST',
              headers: {'content-type': 'application/json', 'x-csrf-token': me.csrf},
              body: JSON.stringify({target: '1', name: 'time', args: {seat: 1}})});
            return [r.status, (await r.json()).reason];
        }""")
        assert answer[0] == 403 and "only watches" in answer[1]
        code, refused = post(f"{server.url}/api/command",
                             {"target": "clock", "name": "pause", "args": {}})
        assert code == 403 and "each venue's own floor" in refused["reason"]
        reply = server.send("1", "time", {"seat": 1}, by="floor:anna")  # the demo's way
        assert reply.status == "error" and "only watches" in (reply.reason or "")
        assert not [topic for topic in published if "/cmd/" in topic], published  # none sent
        tables["hall-a"].settle()
        assert tables["hall-a"].service.session.state().clock is None  # no time was called

        # The league's TV: every venue's clock side by side.
        tv = new_page(browser)
        tv.goto(f"{server.url}/clock?tv=1")
        expect(tv.locator("#tv-venue-hall-a")).to_contain_text("Level 3")
        expect(tv.locator("#tv-venue-hall-b")).to_contain_text("paused")
        expect(tv.locator("#tv-venue-hall-b .tv-venue-left")).to_have_text("05:00")
        assert tv.is_hidden("#tvclock")

        league.venues["hall-b"].stop()  # hall-b's broker, and its bridge with it
        expect(tv.locator("#tv-venue-hall-b")).to_contain_text("link down")
        staff.goto(f"{server.url}/")
        expect(staff.locator("#venue-hall-b")).to_contain_text("link down")
        expect(staff.locator("#need-hall-b_bridge")).to_contain_text("hall-b link to the league")
        assert wait_until(lambda: any(
            a.venue == "hall-b" and a.table == "bridge" for a in server.hub.room.open_alerts()))
        # The league's floor keeps its own list: a login acknowledges what it has seen.
        staff.goto(f"{server.url}/alerts")
        expect(staff.locator("#alerts-hall-b_bridge h2")).to_have_text(
            "hall-b · the link to the league")
        staff.click("#alerts-hall-b_bridge button.ack")
        expect(staff.locator("#alerts-hall-b_bridge")).to_have_count(0)
        assert [who for _, who, _ in server.store.acknowledged()] == ["floor:anna"]
        league.venues["hall-b"].start()
        expect(tv.locator("#tv-venue-hall-b")).not_to_contain_text("link down", timeout=20_000)
        assert tv.errors == [] and staff.errors == []  # type: ignore[attr-defined]


def test_pokertable_floor_follows_the_venues_it_is_told(league: League, tmp_path: Path) -> None:
    """`pokertable floor --config floor.toml --follow hall-a --follow hall-b` on the league's
    host, with league init's credentials; a venue misspelt is one line (exit 2)."""
    credentials = tmp_path / "credentials.json"
    credentials.write_text(json.dumps(
        {"floor": league.broker.credentials["floor"].model_dump()}))
    port = free_port()
    config = tmp_path / "floor.toml"
    config.write_text(f'[floor]\nport = {port}\n\n[mqtt]\nport = {league.broker.port}\n'
                      'venue = "league"\ncredentials = "credentials.json"\n')
    cli = [sys.executable, "-m", "controller.cli", "floor", "--config", str(config)]
    process = subprocess.Popen([*cli, "--follow", "hall-a", "--follow", "hall-b"], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        assert wait_until(lambda: _health(url).get("broker") is True, 20)
        assert _health(url)["venues"] == VENUES
        code, page, _ = get(f"{url}/")
        assert code == 200 and b'data-venues="hall-a hall-b"' in page
        code, refused = post(f"{url}/api/command", {"target": "1", "name": "void", "args": {}})
        assert code == 403 and "follows hall-a, hall-b" in refused["reason"]
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    assert process.returncode == 0, stderr[-2000:]
    assert "following hall-a, hall-b, read-only" in stderr
    wrong = subprocess.run([*cli, "--follow", "Hall A"], capture_output=True, text=True,
                           cwd=ROOT, timeout=60)
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1
    assert "venue 'Hall A'" in wrong.stderr


def _health(url: str) -> dict[str, Any]:
    try:
        found: dict[str, Any] = json.loads(get(f"{url}/api/health")[1])
        return found
    except OSError:
        return {}
