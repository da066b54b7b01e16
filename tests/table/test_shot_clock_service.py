"""The shot clock at a running table (docs/shot-clock.md): the service dates each event with the
table's clock (here one the test sets), sends a tick only when a player's time ends, journals
it, resumes the same clock after a restart, and lights the shot clock's LED on gpiozero's
MockFactory pins. The table's configuration turns it on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.engine.table_play import Level
from controller.errors import ConfigError
from controller.events import TickEvent, parse_event
from controller.session import SessionConfig
from controller.session.outputs import Leds
from controller.session.shot_settings import ShotClockConfig
from controller.table.config import load_table_config
from controller.table.journal import Journal
from controller.table.service import TableService
from controller.table.sinks import MemorySink
from drivers.buttons import ButtonPanel, PanelConfig
from tests.session.helpers import chips, deal, declare, seat, shuffle
from tests.waiting import wait_for

CONFIG = SessionConfig(level=Level(sb=50, bb=100),
                       shot_clock=ShotClockConfig(seconds=30, extensions=1,
                                                  extension_seconds=20))
START = 1_795_000_000.0


class Clock:
    """The table's wall clock, as the test sets it."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    pins = MockFactory()
    yield pins
    pins.reset()


def play_to_seat_1(service: TableService, clock: Clock) -> None:
    """Three players; the cards are read at START + 5: seat 1's clock runs from then. Each
    event carries a time of its own sender's (a reader's monotonic one): the table dates it."""
    for raw in [seat(1, "ana"), seat(2, "ben"), seat(3, "cem"), shuffle()]:
        service.process(parse_event(raw | {"ts": 12.0}))
    clock.now = START + 1
    for raw in [chips("seat:2", 50), chips("seat:3", 100)]:
        service.process(parse_event(raw | {"ts": 13.0}))
    clock.now = START + 5
    for raw in deal({2: "AsAh", 3: "KdKh", 1: "7c2d"}, [2, 3, 1]):
        service.process(parse_event(raw | {"ts": 17.0}))


def test_the_table_ticks_at_the_deadline_only_and_a_restart_resumes_the_clock(
        tmp_path: Path) -> None:
    clock = Clock()
    sink = MemorySink()
    service = TableService(CONFIG, Journal(tmp_path / "j.db"), sink, clock=clock,
                           tick_seconds=0.02)
    play_to_seat_1(service, clock)
    shot = service.session.state().shot_clock
    assert shot is not None and (shot.seat, shot.started, shot.remaining) == (1, START + 5, 30)
    service.start()
    clock.now = START + 20  # inside his time: the loop goes round, nothing is due
    assert service.drain()
    clock.now = START + 36  # his 30 seconds ended at START + 35
    wait_for(lambda: (sink.states[-1].shot_clock or CONFIG).extension,  # type: ignore[union-attr]
             what="the extension")
    service.stop()
    ticks = [e for _, e in service.journal.events() if isinstance(e, TickEvent)]
    assert len(ticks) == 1 and ticks[0].now >= START + 35  # one tick, journaled, none idle
    assert [e.text for e in sink.events if e.kind == "clock"] == [
        "seat 1: time extension 1 (20 seconds); 0 left"]
    before = service.session.state()
    assert before.shot_clock is not None and before.shot_clock.since == START + 35
    service.journal.close()  # as if the power went

    clock.now = START + 60  # back after his extension ended at START + 55
    sink = MemorySink()
    again = TableService(CONFIG, Journal(tmp_path / "j.db"), sink, clock=clock,
                         tick_seconds=0.02)
    assert again.session.state() == before  # the same clock, from the journal
    with again:
        wait_for(lambda: any(e.kind == "alert" for e in sink.events), what="the run-out alert")
        (alert,) = [e for e in sink.events if e.kind == "alert"]
        assert alert.rule == "PVB 21(1)" and alert.id is not None  # durable: the outbox keeps it
        assert "nothing is folded" in alert.text
        state = again.session.state()
        assert state.actor == 1 and not state.seats[1].folded and state.shot_clock is not None
        assert state.shot_clock.out and state.shot_clock.extensions[1] == 0
        clock.now = START + 70
        again.submit(parse_event(declare(1, "call") | {"ts": 99.0}))
        wait_for(lambda: (sink.states[-1].shot_clock or CONFIG).seat == 2,  # type: ignore[union-attr]
                 what="seat 2's clock")
        assert sink.states[-1].shot_clock.started == START + 70  # type: ignore[union-attr]


def test_the_shot_clock_led_on_the_dealer_panel(tmp_path: Path, factory: MockFactory) -> None:
    """The service's LED output drives the panel as `pokertable table` wires it: steady while
    his time runs, blinking in an extension, fast once it ran out, dark after his action."""
    panel_config = PanelConfig(shuffle=17, confirm=27, undo=22, floor=23, led_shot_clock=12)
    with ButtonPanel(panel_config, lambda e: None, pin_factory=factory) as panel:
        shown: list[Leds] = []

        def show(leds: Leds) -> None:
            shown.append(leds)
            panel.show(**leds.model_dump())

        clock = Clock()
        service = TableService(CONFIG, Journal(tmp_path / "j.db"), MemorySink(), leds=show,
                               clock=clock)
        pin = factory.pin(12)
        play_to_seat_1(service, clock)
        assert shown[-1].shot_clock == "running" and pin.state
        service.process(TickEvent(now=START + 35))
        assert shown[-1].shot_clock == "extension"
        wait_for(lambda: len({s.state for s in pin.states[-6:]}) == 2, what="blinking")
        service.process(TickEvent(now=START + 55))
        assert shown[-1].shot_clock == "out"
        clock.now = START + 56
        service.process(parse_event(declare(1, "fold")))
        assert shown[-1].shot_clock == "running"  # seat 2's time
        service.journal.close()


def test_table_toml_turns_it_on(tmp_path: Path) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[table]\nid = "7"\n\n[table.shot_clock]\nseconds = 25\nextensions = 3\n'
                    'extension_seconds = 30\nper_level = "add"\nmax_extensions = 5\n')
    session = load_table_config(path).session()
    assert session.shot_clock == ShotClockConfig(seconds=25, extensions=3, per_level="add",
                                                 max_extensions=5)
    path.write_text('[table]\nid = "7"\n')
    assert load_table_config(path).session().shot_clock is None  # off by default
    path.write_text('[table.shot_clock]\nseconds = 2\n')
    with pytest.raises(ConfigError, match="seconds"):
        load_table_config(path)
    path.write_text('[table.shot_clock]\nextensions = 3\nmax_extensions = 2\n')
    with pytest.raises(ConfigError, match="max_extensions"):
        load_table_config(path)
