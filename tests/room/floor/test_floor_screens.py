"""The floor's screens as a floor manager reads them, in Chromium on a 1920x1080 viewport: the TV
clock (from the real clock service and the tournament's state), the room screen with 1 to 60
tables' states, the time to act counting between pushes, a player who has not acted for longer
than the time rules allow, the alerts grouped by table, a chosen hand on a laptop and a phone.

Legibility is measured, not judged: a capital letter at least 16 minutes of arc high at the
viewing distance (ISO 9241-3's minimum) on a 55-inch 1080p screen (0.634 mm a pixel) is 22 CSS
pixels from 3 m (the room screen) and 37 from 5 m (the TV clock); docs/floor.md says why.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.demo.room_states import room_states
from controller.demo.script import played_session
from controller.events import parse_event
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import (
    ChipLeader,
    EventMessage,
    Payout,
    RecordMessage,
    StateMessage,
    TournamentState,
    encode,
)
from controller.mqtt.topics import Topics
from controller.room.clock.service import ClockService
from controller.room.clock.store import ClockStore
from controller.room.floor.store import HandQuery
from controller.session import SessionConfig, TableSession
from controller.session.outputs import PublicEvent, hand_id
from tests.room.conftest import TURBO
from tests.room.floor.floor_helpers import (
    clear_tables,
    floor_server,
    log_in,
    publish_tables,
    texts,
)
from tests.venue import VenueClient, address, login
from tests.waiting import wait_until

TV = {"width": 1920, "height": 1080}
FROM_3_M = 22.0  # px of capital letter height: 16' at 3 m on a 55-inch 1080p screen
FROM_5_M = 37.0  # ... at 5 m


@pytest.fixture(scope="module")
def broker() -> Iterator[LocalBroker]:
    """This module's broker has a login for each of 60 tables."""
    with LocalBroker("screens", tables=60) as running:
        yield running


def tv(browser: Browser, url: str, viewport: dict[str, int] = TV) -> Page:
    page = browser.new_context(viewport=viewport).new_page()  # type: ignore[arg-type]
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    return page


def publish(broker: LocalBroker, who: str, topic: str, payload: bytes, *, retain: bool = True
            ) -> None:
    client = VenueClient(broker, who, topics=())
    try:
        assert not client.publish(topic, payload, retain=retain).is_failure
    finally:
        client.close()


def states(count: int, now: float, **sent: float) -> list[StateMessage]:
    """``count`` tables' states; ``sent``: when table N's was sent (default: now)."""
    return [StateMessage(table=s.table, seq=1, sent=sent.get(f"t{s.table}", now), state=s,
                         clock_offset=0.0) for s in room_states(count)]


def no_clock(broker: LocalBroker) -> None:
    """No clock's state or status left retained by an earlier test (a clock offline is an
    urgent line of its own; a clock on a break stops the time rules)."""
    topics = Topics(broker.plan.venue)
    for leaf in ("state", "status"):
        publish(broker, "clock", topics.clock(leaf) if leaf == "state"
                else topics.service("clock", "status"), b"")


def no_page_scroll(page: Page) -> None:
    size = page.evaluate("[document.scrollingElement.scrollWidth, "
                         "document.scrollingElement.scrollHeight, innerWidth, innerHeight]")
    assert size[0] <= size[2] and size[1] <= size[3], size


# ---------------------------------------------------------------- the TV clock

TOURNAMENT = TournamentState(
    name="Berlin Open 2026", entries=412, players_left=87, average_stack=94_713,
    chip_leader=ChipLeader(player="Hanna Lindqvist", stack=311_400, table="7"),
    prize_pool=41_200, currency="EUR",
    payouts=[Payout(place=k, amount=a) for k, a in enumerate(
        [9_890, 6_180, 4_530, 3_380, 2_640, 2_060, 1_650, 1_320, 1_030, 820, 820, 620, 620],
        start=1)])


def test_the_tv_clock_shows_the_tournament_legibly_from_5_m_and_nothing_to_click(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    store = ClockStore(tmp_path / "clock.db")
    shift = [0.0]  # the clock's own time, moved on an hour to reach the break
    clock = ClockService(address(broker), login(broker, "clock"), TURBO, store,
                         now=lambda: time.time() + shift[0]).start()
    topic = Topics(broker.plan.venue).service("tournament", "state")
    try:
        with floor_server(broker, tmp_path / "floor") as server:
            assert server.send("clock", "start", {}, by="floor:anna").status == "ok"
            page = tv(browser, f"{server.url}/clock?tv=1")
            expect(page.locator("#tv-level")).to_have_text("Level 1")
            # From the clock: the structure's name, the blinds, the next level's, the break.
            expect(page.locator("#tv-name")).to_have_text("Turbo (15-minute levels)")
            expect(page.locator("#tv-blinds")).to_have_text("25 / 50")
            expect(page.locator("#tv-next")).to_have_text("next: 50 / 100")
            expect(page.locator("#tv-break")).to_have_text(re.compile(r"^break in 59:\d\d$"))
            expect(page.locator("#tv-left")).to_have_text(re.compile(r"^1[45]:\d\d$"))
            assert not page.is_visible("#tv-stats") and not page.is_visible("#tv-payouts")
            # The tournament's state, published with its own login.
            publish(broker, "tournament", topic, encode(TOURNAMENT))
            expect(page.locator("#tv-name")).to_have_text("Berlin Open 2026")
            expect(page.locator("#tv-players")).to_have_text("87")  # left, of the entries
            expect(page.locator("#tv-entries")).to_have_text("of 412 entries")
            expect(page.locator("#tv-average")).to_have_text("94,713")
            expect(page.locator("#tv-leader")).to_have_text("Hanna Lindqvist")
            expect(page.locator("#tv-leader-stack")).to_have_text("311,400")
            expect(page.locator("#tv-pool")).to_have_text("41,200 €")
            payouts = page.locator("#tv-payouts li")
            expect(payouts).to_have_count(10)  # nine places and the rest counted
            expect(payouts.first).to_have_text("1.9,890 €")
            expect(payouts.last).to_have_text("+4 more places")
            # Nothing to click, no menu, no login link on a TV.
            assert page.locator("a, button, input, nav, [onclick]").count() == 0
            assert "login" not in page.content().lower()
            measured = texts(page)
            no_page_scroll(page)
            left = next(t for t in measured if t["id"] == "tv-left")
            others = [t for t in measured if t["id"] != "tv-left"]
            smallest = min(others, key=lambda t: t["cap"])
            assert smallest["cap"] >= FROM_5_M, smallest
            assert left["cap"] >= 0.18 * TV["height"], left  # the biggest thing by far
            assert left["cap"] >= 2.5 * max(t["cap"] for t in others)
            assert not [t for t in measured if t["cut"] or t["right"] > TV["width"]]
            # The break: a break, with its colour-up, and the level after it.
            shift[0] = 3_600.0
            expect(page.locator("#tv-level")).to_have_text("Break", timeout=15_000)
            expect(page.locator("#tv-ante")).to_have_text("colour up the 25 chips")
            expect(page.locator("#tv-next")).to_have_text(
                "next: level 5 · 200 / 400 · BB ante 400")
            assert min(t["cap"] for t in texts(page)) >= FROM_5_M
            # The room hears it (the page says what it chimed, heard or not): the break, ...
            body = page.locator("body")
            expect(body).to_have_attribute("data-last-chime", "break")
            # ... a minute left of it (the floor takes the rest off), ...
            # (a page syncs its time once a minute, with the server's, which hears the clock's
            # every 5 s: this test moved the clock's time on)
            assert wait_until(lambda: abs(server.hub.clock_now() - time.time() - shift[0]) < 1)
            page.reload()
            assert wait_until(lambda: abs(page.evaluate("window.floorApp.clockNow()")
                                          - time.time() - shift[0]) < 1.0)
            expect(page.locator("#tv-level")).to_have_text("Break")
            ends = clock.state().ends_at
            assert ends is not None
            removed = round(ends - (time.time() + shift[0]) - 58)
            assert server.send("clock", "remove_time", {"seconds": removed},
                               by="floor:anna").status == "ok"
            expect(body).to_have_attribute("data-last-chime", "minute")
            chimes = int(body.get_attribute("data-chimes") or 0)
            # The tournament over: its winner where the level was; the clock pauses itself.
            publish(broker, "tournament", topic, encode(TOURNAMENT.model_copy(update={
                "players_left": 1, "winner": "Hanna Lindqvist"})))
            expect(page.locator("#tv-level")).to_have_text("Winner")
            expect(page.locator("#tv-blinds")).to_have_text("Hanna Lindqvist")
            expect(page.locator("#tv-next")).to_have_text("the tournament is over")
            expect(page.locator("#tv-left")).to_be_hidden()
            expect(body).to_have_attribute("data-last-chime", "winner")
            assert int(body.get_attribute("data-chimes") or 0) == chimes + 1
            assert wait_until(lambda: clock.state().status == "paused")
            assert page.locator("#tv-status").inner_text() == ""  # over, not "paused"
            assert min(t["cap"] for t in texts(page)) >= FROM_5_M
            assert not [t for t in texts(page) if t["cut"] or t["right"] > TV["width"]]
            # The tournament gone (its retained state cleared): its lines are gone too.
            publish(broker, "tournament", topic, b"")
            expect(page.locator("#tv-stats")).to_be_hidden()
            expect(page.locator("#tv-name")).to_have_text("Turbo (15-minute levels)")
            assert page.errors == []  # type: ignore[attr-defined]
    finally:
        clock.close()
        store.close()


# ---------------------------------------------------------------- the room screen

@pytest.mark.parametrize("count", [1, 12, 60])
def test_every_table_fills_the_room_screen_legibly_from_3_m_in_its_order(
        broker: LocalBroker, browser: Browser, tmp_path: Path, count: int) -> None:
    """1, 12 and 60 tables' states, and no other table."""
    now = time.time()
    clear_tables(broker, [str(k) for k in range(count + 1, 61)])
    publish_tables(broker, states(count, now))
    with floor_server(broker, tmp_path / "floor") as server:
        assert wait_until(lambda: len(server.hub.room.tables) == count)
        page = tv(browser, f"{server.url}/?tv=1")
        cards = page.locator(".card")
        expect(cards).to_have_count(count)
        page.evaluate("""() => new Promise((done) =>  // the grid's fitting: two frames on
            requestAnimationFrame(() => requestAnimationFrame(done)))""")
        boxes = [cards.nth(k).bounding_box() for k in range(count)]
        ids = [cards.nth(k).get_attribute("id") for k in range(count)]
        assert ids == [f"table-{k}" for k in range(1, count + 1)]  # by number
        for box in boxes:
            assert box is not None and box["x"] >= 0 and box["y"] >= 0
            assert box["x"] + box["width"] <= TV["width"] + 0.5
            assert box["y"] + box["height"] <= TV["height"] + 0.5
        positions = [(round(b["y"]), round(b["x"])) for b in boxes if b]
        assert positions == sorted(positions)  # row by row, left to right
        no_page_scroll(page)
        measured = texts(page, ".card, #clockstrip, #attention")
        smallest = min(measured, key=lambda t: t["cap"])
        assert smallest["cap"] >= FROM_3_M, smallest
        assert not [t for t in measured if t["cut"]], [t for t in measured if t["cut"]][:3]
        cut = page.evaluate("""[...document.querySelectorAll('.card .row')]
            .filter(r => r.scrollWidth > r.clientWidth).map(r => r.textContent)""")
        assert cut == []
        # Every card says its seats, its pot and its average stack.
        first = room_states(count)[0]
        card = page.locator("#table-1")
        expect(card.locator(".seats")).to_have_text(f"{len(first.seats)}/{first.seat_count}")
        assert page.errors == []  # type: ignore[attr-defined]


def test_the_worst_table_leads_the_attention_strip_and_no_card_moves(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    now = time.time()
    topics = Topics(broker.plan.venue)
    publish_tables(broker, states(60, now))  # every turn just began: nobody is slow
    no_clock(broker)
    with floor_server(broker, tmp_path / "floor") as server:
        assert wait_until(lambda: len(server.hub.room.tables) == 60)
        page = tv(browser, f"{server.url}/?tv=1")
        expect(page.locator(".card")).to_have_count(len(server.hub.room.tables))
        before = page.locator("#table-9").bounding_box()
        for table, text, rule in (
                ("3", "the pot zone holds 900, the pots make 800: 100 more; count the pot",
                 "APSA 5.4.25"),
                ("9", "a card seen on seat:2 came up again on board: fouled deck, the hand is "
                 "void and every bet goes back", "PVB 33")):
            event = PublicEvent(kind="alert", text=text, hand=2, rule=rule)
            publish(broker, f"table-{table}", topics.table(table, "event"), encode(
                EventMessage(table=table, id=f"{table}:2:0:7", sent=now, event=event)),
                retain=False)
        strip = page.locator("#attention .need-item")
        expect(strip).to_have_count(2)
        expect(strip.first).to_have_attribute("id", "need-9")  # urgent before a warning
        expect(strip.nth(1)).to_have_attribute("id", "need-3")
        expect(page.locator("#table-9")).to_have_class(re.compile(r"\bneeds urgent\b"))
        expect(page.locator("#table-3")).to_have_class(re.compile(r"\bneeds warning\b"))
        assert page.locator("#table-9").bounding_box() == before  # its place stays
        assert page.locator("#attention a, #attention button").count() == 0  # a TV's


def test_the_time_to_act_counts_on_between_pushes_and_is_never_blank(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """Every push redrew every card and left the time blank until a timer refilled it (5-16% of
    samples); a frozen table showed '' '' '06:09' ''. Now the card's counter stays."""
    now = time.time()
    (first,) = [m for m in states(12, now) if m.state.actor is not None][:1]
    table = first.table
    topics = Topics(broker.plan.venue)
    publish_tables(broker, [first.model_copy(update={"sent": now - 5})])
    with floor_server(broker, tmp_path / "floor") as server:
        page = tv(browser, f"{server.url}/?tv=1")
        since = page.locator(f"#table-{table} .since")
        # the turn began 5 s before the page was asked for (a loaded machine takes seconds
        # more to show it): counted from then, never from the page's own start
        expect(since).to_have_text(re.compile(r"^00:(0[5-9]|[1-5]\d)$"))
        page.evaluate("""(selector) => {
            window.samples = [];
            window.sampler = setInterval(() => window.samples.push(
                document.querySelector(selector).textContent), 20);
        }""", f"#table-{table} .since")
        client = VenueClient(broker, f"table-{table}", topics=())
        try:  # the same turn, pushed again and again (a table republishes on every change)
            for seq in range(2, 32):
                client.publish(topics.table(table, "state"), encode(first.model_copy(
                    update={"seq": seq, "sent": now - 5})), retain=True)
                time.sleep(0.1)
        finally:
            client.close()
        samples: list[str] = page.evaluate("clearInterval(window.sampler); window.samples")
        assert len(samples) > 100 and all(re.fullmatch(r"00:\d\d", s) for s in samples), (
            [s for s in samples if not re.fullmatch(r"00:\d\d", s)][:5])
        seconds = [int(s[3:]) for s in samples]
        assert seconds == sorted(seconds) and seconds[-1] - seconds[0] >= 2


def test_c1_a_player_who_has_not_acted_for_a_minute_raises_its_own_alert(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    now = time.time()
    messages = states(60, now)  # every table's turn just began ...
    acting = next(m for m in messages if m.state.actor is not None
                  and not any(s.all_in for s in m.state.seats.values()))
    between = next(m for m in messages if m.state.actor is None)
    old = now - 65  # ... but this one's, 65 s ago, as the table's own state says
    no_clock(broker)
    publish_tables(broker, [m.model_copy(update={"sent": old}) if m is acting else
                            m.model_copy(update={"sent": now - 600}) if m is between else m
                            for m in messages])
    with floor_server(broker, tmp_path / "floor") as server:
        staff = browser.new_context(viewport=TV).new_page()  # type: ignore[arg-type]
        log_in(staff, server.url)
        need = staff.locator(f"#need-{acting.table}")
        expect(need).to_contain_text(f"seat {acting.state.actor} has not acted: time may be "
                                     "called")
        expect(staff.locator(f"#table-{acting.table}")).to_have_class(re.compile(r"\bstalled\b"))
        stalls = [a for a in server.hub.room.open_alerts() if a.kind == "stalled"]
        assert [a.table for a in stalls] == [acting.table]  # never the table between hands
        assert stalls[0].rule == "PVB 21(1)"
        staff.goto(f"{server.url}/alerts")
        item = staff.locator(f"#alerts-{acting.table} li.stalled")
        expect(item).to_contain_text("has not acted for more than a minute: time may be called")
        expect(item).to_contain_text("PVB 21(1)")
        expect(item).to_contain_text("what to do: ask the dealer")


# ---------------------------------------------------------------- alerts

def test_alerts_newest_first_by_table_and_a_tables_all_acknowledged_with_one_click(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    now = time.time()
    topics = Topics(broker.plan.venue)
    publish_tables(broker, states(60, now))  # every turn just began: nobody is slow
    with floor_server(broker, tmp_path / "floor") as server:
        assert wait_until(lambda: len(server.hub.room.tables) == 60)
        said = [("2", "seat 3 took chips back: chips put in stay in", "PVB 36(3)"),
                ("5", "the dealer calls the floor", "DFO"),
                ("2", "the pot zone holds 900, the pots make 800: 100 more; count the pot",
                 "APSA 5.4.25")]
        for k, (table, text, rule) in enumerate(said):
            event = PublicEvent(kind="alert", text=text, hand=3, rule=rule)
            publish(broker, f"table-{table}", topics.table(table, "event"), encode(
                EventMessage(table=table, id=f"{table}:3:0:{k}", sent=now, event=event)),
                retain=False)
            assert wait_until(lambda k=k: len(server.hub.room.alerts) == k + 1)
            time.sleep(0.05)  # each its own time
        watcher = tv(browser, f"{server.url}/alerts")
        staff = browser.new_context(viewport=TV).new_page()  # type: ignore[arg-type]
        log_in(staff, server.url)
        staff.goto(f"{server.url}/alerts")
        groups = staff.locator("li.group")
        expect(groups).to_have_count(2)
        expect(groups.first).to_have_attribute("id", "alerts-5")  # urgent: the floor is called
        two = staff.locator("#alerts-2 li.alert .text")
        expect(two).to_have_text([said[2][1], said[0][1]])  # newest first
        assert staff.locator("#alerts-2 h2").inner_text() == "Table 2"
        assert "table 2" not in staff.locator("#alerts-2 ul").inner_text().lower()
        expect(staff.locator("#alerts-2 li.alert .rule").first).to_have_text("APSA 5.4.25")
        expect(staff.locator("#alerts-2 li.alert").first).to_contain_text("what to do:")
        staff.locator("#alerts-2 button.ack-all").click()
        expect(staff.locator("#alert-reply")).to_have_text("acknowledged 2 alerts")
        expect(watcher.locator("li.group")).to_have_count(1)  # on every screen at once
        done = {alert: who for alert, who, _ in server.store.acknowledged()}
        assert done == {"2:3:0:0": "floor:anna", "2:3:0:2": "floor:anna"}
        assert [a.table for a in server.hub.room.open_alerts()] == ["5"]


# ---------------------------------------------------------------- hands

def _records(count: int) -> list[RecordMessage]:
    session = TableSession(SessionConfig(table_id="4"))
    records = []
    start = time.time() - 3600
    for raw in played_session(hands=count + 3, seed=17, players=5):
        if raw["type"] == "shuffle":
            raw["ts"] = start + 60 * len(records)
        records += session.handle(parse_event(raw)).sealed
    return [RecordMessage(id=hand_id("4", r.hand, r.started), table="4", hand=r.hand,
                          sent=time.time(), record=r.public()) for r in records[:count]]


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 720},
                                      {"width": 390, "height": 844}], ids=["laptop", "phone"])
def test_a_chosen_hand_opens_where_the_eye_is_in_the_floors_words(
        broker: LocalBroker, browser: Browser, tmp_path: Path, viewport: dict[str, Any]) -> None:
    """It opened 3,500 px below the list, said deal_board and return, and the list was cut off
    on a phone."""
    records = _records(20)
    topic = Topics(broker.plan.venue).table("4", "record")
    with floor_server(broker, tmp_path / "floor") as server:
        client = VenueClient(broker, "table-4", topics=())
        try:
            for record in records:
                client.publish(topic, encode(record))
        finally:
            client.close()
        assert wait_until(lambda: len(server.store.find(HandQuery())) == len(records))
        page = tv(browser, f"{server.url}/hands", viewport)
        rows = page.locator("tr.hand-row")
        expect(rows).to_have_count(len(records))
        expect(page.locator("#more")).to_be_hidden()  # every hand found is shown
        with_board = next(k for k, r in enumerate(reversed(records)) if r.record.board)
        assert re.fullmatch(r"([2-9TJQKA][♠♥♦♣])+", rows.nth(with_board).locator(
            "td.board-cards").inner_text().replace("\n", "").replace(" ", ""))
        no_page_scroll_x = page.evaluate("document.scrollingElement.scrollWidth <= innerWidth")
        assert no_page_scroll_x  # nothing cut off sideways, even on a phone
        rows.last.scroll_into_view_if_needed()
        rows.last.click()
        panel = page.locator("dialog#hand[open]")
        expect(panel).to_be_visible()
        box = panel.bounding_box()
        assert box is not None and box["y"] >= 0
        assert box["y"] + min(box["height"], 200) <= viewport["height"]
        story = panel.locator("ol.story").inner_text()
        assert re.search(r"hand \d+: button seat \d", story) and "posts the big blind" in story
        assert re.search(r"seat \d (checks|calls [\d,]+|folds|raises to [\d,]+)", story)
        assert not re.search(r"deal_board|deal_hole|\breturn\b|bb_ante", story)
        # Each player's line names him, as the seats above do.
        seat_of = dict(re.match(r"seat (\d+) (.+?): ", line).group(2, 1)  # type: ignore[union-attr]
                       for line in panel.locator("ul.players li").all_inner_texts())
        named = panel.locator("ol.story li:has(.who)").all()
        assert len(named) >= 3
        for item in named:
            seat = seat_of[item.locator(".who").inner_text()]
            assert re.search(rf"\bseat {seat}\b", item.inner_text()), item.inner_text()
        href = panel.locator("#phh").get_attribute("href")
        assert href is not None and href.endswith("/phh")
        assert panel.locator("#stars").get_attribute("href", timeout=1000) is not None
        page.keyboard.press("Escape")
        expect(page.locator("dialog#hand[open]")).to_have_count(0)
        assert page.errors == []  # type: ignore[attr-defined]
