"""Shuffle button, dealer keys and LEDs on gpiozero's MockFactory pins: presses, bounce, hold."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from gpiozero.pins.mock import MockFactory

from controller.events import KeyEvent, ShuffleEvent
from drivers.buttons import ButtonPanel, PanelConfig
from tests.waiting import wait_for

CONFIG = PanelConfig(shuffle=17, confirm=27, undo=22, floor=23, led_hand_for_hand=5,
                     led_clock=6, led_irregularity=13, hold_time=0.15, shuffle_guard=0.5)


@pytest.fixture
def factory() -> Iterator[MockFactory]:
    pins = MockFactory()
    yield pins
    pins.reset()


def press(factory: MockFactory, pin: int, seconds: float = 0.0) -> None:
    factory.pin(pin).drive_low()  # pulled up: pressed is low
    if seconds:
        time.sleep(seconds)
    factory.pin(pin).drive_high()


def test_h1_shuffle_press_is_a_shuffle_event(factory: MockFactory) -> None:
    """The press's time is the wall clock's: it becomes the hand's start in its record and
    its id (a monotonic clock starts again at every boot)."""
    events: list[ShuffleEvent] = []
    before = time.time()
    with ButtonPanel(CONFIG, events.append, pin_factory=factory):  # type: ignore[arg-type]
        press(factory, 17)
    assert [type(e) for e in events] == [ShuffleEvent]
    assert events[0].ts is not None and before <= events[0].ts <= time.time()


def test_a_bouncing_shuffle_contact_starts_one_hand(factory: MockFactory) -> None:
    events: list[object] = []
    with ButtonPanel(CONFIG, events.append, pin_factory=factory) as panel:
        for _ in range(8):  # contact chatter: eight edges within a few milliseconds
            press(factory, 17)
        assert len(events) == 1 and panel.ignored == 7
        time.sleep(0.55)  # after the guard a new press is a new hand
        press(factory, 17)
    assert [type(e) for e in events] == [ShuffleEvent, ShuffleEvent]


def test_confirm_is_a_key_and_bounces_are_dropped(factory: MockFactory) -> None:
    events: list[object] = []
    with ButtonPanel(CONFIG, events.append, pin_factory=factory):
        press(factory, 27)
        press(factory, 27)  # a bounce within 50 ms
    assert [e.key for e in events if isinstance(e, KeyEvent)] == ["confirm"]


def test_undo_and_floor_need_a_hold(factory: MockFactory) -> None:
    events: list[object] = []
    with ButtonPanel(CONFIG, events.append, pin_factory=factory):
        press(factory, 22)  # brushed: nothing
        press(factory, 23, seconds=0.3)  # held: the floor is called
        press(factory, 22, seconds=0.3)
        wait_for(lambda: len(events) == 2)
    assert [e.key for e in events if isinstance(e, KeyEvent)] == ["floor", "undo"]


def test_leds_show_table_state(factory: MockFactory) -> None:
    events: list[object] = []
    with ButtonPanel(CONFIG, events.append, pin_factory=factory) as panel:
        panel.show(hand_for_hand=True)
        assert factory.pin(5).state and not factory.pin(6).state
        panel.show(clock=True)
        time.sleep(0.3)
        assert not factory.pin(5).state
        assert len({s.state for s in factory.pin(6).states}) == 2  # it blinks


def test_pin_factory_from_configuration() -> None:
    events: list[object] = []
    with ButtonPanel(CONFIG.model_copy(update={"pin_factory": "mock"}), events.append) as panel:
        assert isinstance(panel.pin_factory, MockFactory)
        press(panel.pin_factory, 17)
    assert [type(e) for e in events] == [ShuffleEvent]


def test_one_pin_per_button_and_close_is_idempotent(factory: MockFactory) -> None:
    with pytest.raises(ValueError, match="its own pin"):
        ButtonPanel(PanelConfig.model_validate(CONFIG.model_dump() | {"undo": 17}), print,
                    pin_factory=factory)
    panel = ButtonPanel(CONFIG, print, pin_factory=factory)
    panel.close()
    panel.close()
