"""The shuffle button, the dealer keys and the status LEDs, on GPIO through gpiozero.

Pins and the pin factory come from configuration (lgpio on a Pi 5, ``MockFactory`` in tests), as
gpiozero intends. Debouncing happens twice on purpose: gpiozero's ``bounce_time`` where the pin
backend supports it, and our own guard, because a chattering shuffle contact must never start two
hands and not every backend (the mock among them) filters bounces.

- shuffle: a press is a ``shuffle`` event (RULES H1); presses within ``shuffle_guard`` seconds of
  the last one are ignored.
- confirm: a press is ``key: confirm``.
- undo, floor: must be held for ``hold_time`` seconds, so a brushed key does nothing.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Callable
from typing import Literal

from gpiozero import LED, Button, Device
from gpiozero.exc import GPIOZeroError
from gpiozero.pins import Factory
from pydantic import BaseModel, ConfigDict, Field, model_validator

from controller.errors import ConfigError
from controller.events import Emit, KeyEvent, ShuffleEvent

log = logging.getLogger(__name__)

Key = Literal["confirm", "undo", "floor"]


class PanelConfig(BaseModel):
    """GPIO pins (BCM numbers) of one table's buttons and LEDs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    shuffle: int = Field(ge=0, le=27)
    confirm: int = Field(ge=0, le=27)
    undo: int = Field(ge=0, le=27)
    floor: int = Field(ge=0, le=27)
    led_hand_for_hand: int | None = Field(default=None, ge=0, le=27)
    led_clock: int | None = Field(default=None, ge=0, le=27)
    led_irregularity: int | None = Field(default=None, ge=0, le=27)
    led_shot_clock: int | None = Field(default=None, ge=0, le=27, description="The shot "
                                       "clock (docs/shot-clock.md)")
    pin_factory: Literal["default", "lgpio", "mock"] = Field(
        default="default",
        description="gpiozero pin factory: 'default' lets gpiozero choose (GPIOZERO_PIN_FACTORY), "
        "'lgpio' for a Pi 5, 'mock' for simulated tables",
    )
    bounce: float = Field(default=0.05, gt=0, description="s: edges closer than this are noise")
    shuffle_guard: float = Field(default=2.0, ge=0, description="s between two shuffle presses")
    hold_time: float = Field(default=0.8, gt=0, description="s undo and floor must be held")

    def pins(self) -> dict[str, int]:
        """Every pin the panel uses, by its key in ``[buttons]``."""
        fields = ("shuffle", "confirm", "undo", "floor", "led_hand_for_hand", "led_clock",
                  "led_irregularity", "led_shot_clock")
        return {name: pin for name in fields if (pin := getattr(self, name)) is not None}

    @model_validator(mode="after")
    def _one_job_a_pin(self) -> PanelConfig:
        seen: dict[int, str] = {}
        for name, pin in self.pins().items():
            if pin in seen:
                raise ValueError(f"{name} and {seen[pin]} are both GPIO{pin}: each key and LED "
                                 "needs its own pin")
            seen[pin] = name
        return self


def make_pin_factory(name: str) -> Factory | None:
    """The configured pin factory; None lets gpiozero pick its default."""
    if name == "mock":
        from gpiozero.pins.mock import MockFactory

        return MockFactory()
    if name == "lgpio":
        from gpiozero.pins.lgpio import LGPIOFactory

        return LGPIOFactory()
    return None


def require_gpio(name: str) -> None:
    """Fail early, before a table writes anything, when this machine has no GPIO pins for the
    configured pin factory (a laptop without ``--simulate``): `ConfigError` saying so."""
    if name == "mock":
        return
    try:
        with warnings.catch_warnings():  # gpiozero warns once per factory it tries
            warnings.simplefilter("ignore")
            if name == "lgpio":
                make_pin_factory(name)
            else:
                Device.ensure_pin_factory()
    except (GPIOZeroError, ImportError, OSError, RuntimeError) as exc:
        raise ConfigError(f"[buttons]: no GPIO pins here for the pin factory {name!r} ({exc}); "
                          "run on the table's Raspberry Pi, or with --simulate") from None


class ButtonPanel:
    """The table's buttons and LEDs. ``close()`` is idempotent; also a context manager."""

    def __init__(
        self,
        config: PanelConfig,
        emit: Emit,
        *,
        pin_factory: Factory | None = None,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.config = config
        self._emit = emit
        self._clock = clock  # for the bounce guards: never jumps
        self._wall = wall  # the events' ts: the hand's start in its record is a date
        self._last: dict[str, float] = {}
        if pin_factory is None:
            pin_factory = make_pin_factory(config.pin_factory)
        self.pin_factory = pin_factory
        self.ignored = 0  # presses dropped as bounces
        self._buttons: list[Button] = []
        self._leds: dict[str, LED] = {}
        try:
            shuffle = self._button(config.shuffle, pin_factory)
            shuffle.when_pressed = self._shuffle_pressed
            confirm = self._button(config.confirm, pin_factory)
            confirm.when_pressed = lambda: self._key("confirm")
            for key, pin in (("undo", config.undo), ("floor", config.floor)):
                button = self._button(pin, pin_factory, hold=True)
                button.when_held = self._held_handler(key)  # type: ignore[arg-type]
            for name, led_pin in (("hand_for_hand", config.led_hand_for_hand),
                                  ("clock", config.led_clock),
                                  ("irregularity", config.led_irregularity),
                                  ("shot_clock", config.led_shot_clock)):
                if led_pin is not None:
                    self._leds[name] = LED(led_pin, pin_factory=pin_factory)
        except Exception:
            self.close()
            raise

    def _button(self, pin: int, factory: Factory | None, hold: bool = False) -> Button:
        button = Button(pin, pull_up=True, bounce_time=self.config.bounce,
                        hold_time=self.config.hold_time if hold else 1.0, pin_factory=factory)
        self._buttons.append(button)
        return button

    def _held_handler(self, key: Key) -> Callable[[], None]:
        return lambda: self._key(key)

    def _accept(self, name: str, guard: float) -> bool:
        now = self._clock()
        last = self._last.get(name)
        if last is not None and now - last < guard:
            self.ignored += 1
            return False
        self._last[name] = now
        return True

    def _shuffle_pressed(self) -> None:
        if self._accept("shuffle", max(self.config.shuffle_guard, self.config.bounce)):
            self._emit(ShuffleEvent(ts=self._wall()))

    def _key(self, key: Key) -> None:
        if self._accept(key, self.config.bounce):
            self._emit(KeyEvent(key=key, ts=self._wall()))

    # ---------------------------------------------------------------- LEDs

    def show(self, *, hand_for_hand: bool = False, clock: bool = False,
             irregularity: bool = False, shot_clock: str = "off") -> None:
        """Hand-for-hand wait: steady; clock called: blinking; irregularity: fast blinking.
        The shot clock: steady while a player's time runs, blinking in an extension, fast
        blinking once it ran out."""
        shot_blink = {"extension": 0.5, "out": 0.15}.get(shot_clock)
        for name, on, blink in (("hand_for_hand", hand_for_hand, None),
                                ("clock", clock, 0.5),
                                ("irregularity", irregularity, 0.15),
                                ("shot_clock", shot_clock != "off", shot_blink)):
            led = self._leds.get(name)
            if led is None:
                continue
            if not on:
                led.off()
            elif blink is None:
                led.on()
            else:
                led.blink(on_time=blink, off_time=blink)

    def close(self) -> None:
        for device in [*self._buttons, *self._leds.values()]:
            device.close()
        self._buttons.clear()
        self._leds.clear()

    def __enter__(self) -> ButtonPanel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
