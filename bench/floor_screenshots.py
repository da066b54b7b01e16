"""The floor display's screenshots in docs/screenshots/, taken from a real floor server in a real
headless Chromium: a broker configured by `broker init`, simulated tables' states (real
sessions stopped mid-hand, `controller/demo/room_states.py`) published with each table's own
login, the clock's and the tournament's states published with theirs, a few irregularities,
a table offline, and hands played to the end for the hands screen.

    .venv/bin/python bench/floor_screenshots.py [--out docs/screenshots]

Not a test (it writes files and takes about half a minute); tests/room/floor/test_floor_screens.py
checks the same screens.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from controller.demo.room_states import publish, room_states
from controller.demo.script import played_session
from controller.events import parse_event
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import (
    ChipLeader,
    ClockState,
    EventMessage,
    Payout,
    RecordMessage,
    StateMessage,
    StatusMessage,
    TournamentState,
    encode,
)
from controller.mqtt.topics import Topics
from controller.room.floor.accounts import Accounts, save_accounts, set_password
from controller.room.floor.server import FloorServer
from controller.session import SessionConfig, TableSession
from controller.session.outputs import PublicEvent, hand_id
from harness.chromium import CHROMIUM, CHROMIUM_FLAGS

ROOT = Path(__file__).resolve().parents[1]
TV = {"width": 1920, "height": 1080}
LAPTOP = {"width": 1280, "height": 720}
PHONE = {"width": 390, "height": 844}


def clock_state(now: float, **changes: object) -> ClockState:
    running = ClockState(name="Berlin Open 2026 · Main Event", level=9, sb=400, bb=800,
                         bb_ante=800, status="running", ends_at=now + 14 * 60 + 32,
                         next_level=10, next_sb=500, next_bb=1_000, next_bb_ante=1_000,
                         next_break_at=now + 42 * 60 + 10, smallest_chip=100)
    return running.model_copy(update=changes)


TOURNAMENT = TournamentState(
    name="Berlin Open 2026 · Main Event", entries=412, players_left=87, average_stack=94_713,
    chip_leader=ChipLeader(player="Hanna Lindqvist", stack=311_400, table="7"),
    prize_pool=41_200, currency="EUR",
    payouts=[Payout(place=k, amount=a) for k, a in enumerate(
        [9_890, 6_180, 4_530, 3_380, 2_640, 2_060, 1_650, 1_320, 1_030, 820, 820, 820, 620,
         620, 620, 500, 500, 500, 410, 410, 410, 410, 410, 410, 410], start=1)])


def publish_room(broker: LocalBroker, tables: int, now: float) -> None:
    address = broker.address()
    topics = Topics(broker.plan.venue)
    for k, state in enumerate(room_states(tables), start=1):
        table = state.table
        # Each table's turn began a few seconds ago; table 5's player has waited over a minute.
        waited = 75.0 if table == "5" else (k * 7) % 40
        message = StateMessage(table=table, seq=1, sent=now - waited, state=state,
                               clock_offset=0.0, clock_rtt=0.002)
        publish(address, broker.login(f"table-{table}"), [
            (topics.table(table, "status"), encode(StatusMessage(table=table, status="online"))),
            (topics.table(table, "state"), encode(message))])


def irregularities(broker: LocalBroker, now: float) -> None:
    address = broker.address()
    topics = Topics(broker.plan.venue)
    said = {
        "3": ("alert", "the pot zone holds 12,900, the pots make 12,800: 100 more; count the pot",
              "APSA 5.4.25"),
        "8": ("alert", "a card seen on seat:4 came up again on board: fouled deck, the hand is "
              "void and every bet goes back", "PVB 33"),
        "2": ("alert", "the dealer calls the floor", "DFO"),
    }
    for table, (kind, text, rule) in said.items():
        event = PublicEvent(kind=kind, text=text, hand=4, rule=rule)  # type: ignore[arg-type]
        message = EventMessage(table=table, id=f"{table}:4:0:1", sent=now, event=event)
        publish(address, broker.login(f"table-{table}"),
                [(topics.table(table, "event"), encode(message))], retain=False)
    publish(address, broker.login("table-11"), [(
        topics.table("11", "status"), encode(StatusMessage(table="11", status="offline")))])


def hands(broker: LocalBroker, now: float) -> None:
    """Three hands of table 4 played to the end, as its records."""
    session = TableSession(SessionConfig(table_id="4"))
    records = []
    for raw in played_session(hands=4, seed=11, players=4):
        if raw["type"] == "shuffle":
            raw["ts"] = now - 600 + 90 * len(records)
        records += session.handle(parse_event(raw)).sealed
    topics = Topics(broker.plan.venue)
    messages = []
    for record in records:
        public = record.public()
        messages.append((topics.table("4", "record"), encode(RecordMessage(
            id=hand_id("4", public.hand, public.started), table="4", hand=public.hand,
            sent=now, record=public))))
    publish(broker.address(), broker.login("table-4"), messages, retain=False)


def settle(page: Page) -> None:
    page.wait_for_timeout(700)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch, LocalBroker("hall", tables=60) as broker:
        directory = Path(scratch)
        accounts = directory / "floor-users.json"
        save_accounts(accounts, set_password(Accounts(), "anna", "felt and chips"))
        now = time.time()
        topics = Topics(broker.plan.venue)
        publish(broker.address(), broker.login("clock"),
                [(topics.clock("state"), encode(clock_state(now)))])
        publish(broker.address(), broker.login("tournament"),
                [(topics.service("tournament", "state"), encode(TOURNAMENT))])
        publish_room(broker, 12, now)
        server = FloorServer(broker.address(), broker.login("floor"), db=directory / "floor.db",
                             accounts=accounts, secret=directory / "secret").start()
        try:
            time.sleep(1.0)
            irregularities(broker, now)
            hands(broker, now)
            time.sleep(1.5)  # a tick: table 5's player is slow
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
                shots(browser, server.url, args.out, broker, now)
                browser.close()
        finally:
            server.close()
    print(f"screenshots in {args.out}")


def shots(browser: object, url: str, out: Path, broker: LocalBroker, now: float) -> None:
    from playwright.sync_api import Browser
    assert isinstance(browser, Browser)

    def page(viewport: dict[str, int], path: str) -> Page:
        p = browser.new_context(viewport=viewport).new_page()  # type: ignore[arg-type]
        p.goto(f"{url}{path}")
        settle(p)
        return p

    page(TV, "/clock?tv=1").screenshot(path=str(out / "clock.png"))
    page(TV, "/?tv=1").screenshot(path=str(out / "room.png"))
    page(PHONE, "/").screenshot(path=str(out / "room-phone.png"))
    staff = browser.new_context(viewport=LAPTOP).new_page()  # type: ignore[arg-type]
    staff.goto(f"{url}/login")
    staff.fill("input[name=user]", "anna")
    staff.fill("input[name=password]", "felt and chips")
    staff.click("button[type=submit]")
    staff.wait_for_url(f"{url}/")
    staff.goto(f"{url}/alerts")
    settle(staff)
    staff.screenshot(path=str(out / "alerts.png"))
    staff.goto(f"{url}/table/1")
    settle(staff)
    staff.screenshot(path=str(out / "table.png"))
    staff.goto(f"{url}/hands")
    staff.wait_for_selector("tr.hand-row")
    staff.locator("tr.hand-row").nth(1).click()
    staff.wait_for_selector("dialog[open]")
    settle(staff)
    staff.screenshot(path=str(out / "hands.png"))
    phone = page(PHONE, "/hands")
    phone.wait_for_selector("tr.hand-row")
    phone.screenshot(path=str(out / "hands-phone.png"))
    topics = Topics(broker.plan.venue)
    publish(broker.address(), broker.login("clock"), [(topics.clock("state"), encode(
        clock_state(now, level=10, sb=500, bb=1_000, bb_ante=1_000, status="on_break",
                    on_break=True, colour_up=[25], ends_at=now + 9 * 60 + 12, next_level=11,
                    next_sb=600, next_bb=1_200, next_bb_ante=1_200, next_break_at=None)))])
    page(TV, "/clock?tv=1").screenshot(path=str(out / "clock-break.png"))
    publish_room(broker, 60, now)
    time.sleep(1.0)
    page(TV, "/?tv=1").screenshot(path=str(out / "room-60.png"))


if __name__ == "__main__":
    main()
