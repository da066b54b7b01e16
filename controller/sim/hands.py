"""The simulated dealer's hands (`DealerHands`): what it does at the table and what it sees of
it. `HardwareHands` work the simulated readers on ptys and the panel's mock pins in real time
(the real drivers read them: `pokertable table --simulate`); the soak's hands give the drivers'
events straight to a session in virtual time (`controller.sim.soak`). What lies on the felt is
the dealer's memory (`Felt`), kept in a file so that a restarted table finds it as a real felt.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from gpiozero.pins.mock import MockFactory

from controller.events import CardEvent, Emit, GoneEvent, TableEvent
from controller.session.outputs import TableState
from controller.session.words import BURN_FIRST
from controller.table.sinks import MemorySink
from drivers.buttons import PanelConfig
from drivers.registry import Deck
from drivers.simulated.field import ZoneAntennas
from drivers.simulators import press

Key = Literal["shuffle", "confirm", "undo", "floor"]
Chip = tuple[str, int]  # (uid, value)


class Stopped(Exception):
    """The dealer was asked to stop (a clean stop, not a fault)."""


class DealerStuck(Exception):
    """The table did not do what the dealer waited for: the dealer calls the floor."""


class DealerHands(Protocol):
    """What the dealer does at the table and what it sees of it."""

    def card_on(self, zone: str, card: str) -> None: ...

    def card_off(self, zone: str, card: str) -> None: ...

    def reads_cards_in(self, zone: str) -> bool:
        """Whether an antenna reads the cards laid in ``zone`` (a table may have no burn
        antenna: its burn cards go face down where nothing reads them)."""
        ...

    def chips_in(self, zone: str, chips: list[Chip]) -> None:
        """One motion: the chips land together, then the zone stays still (RULES R9)."""
        ...

    def chips_out(self, zone: str, chips: list[Chip]) -> None: ...

    def swap(self, zone: str, out: list[Chip], chips: list[Chip]) -> None:
        """One motion: ``out`` taken from the zone and ``chips`` put in (change made)."""
        ...

    def press(self, key: Key) -> None: ...

    def submit(self, event: TableEvent) -> None:
        """Typed at the table (seating players, a bet declared where no chips are read)."""
        ...

    def pause(self, seconds: float) -> None: ...

    def wait(self, test: Callable[[TableState], bool], timeout: float = 10.0) -> TableState: ...

    def last(self) -> TableState | None: ...

    @property
    def felt(self) -> Felt:
        """What lies on the antennas now (the hands keep it as they move things)."""
        ...


@dataclass
class Felt:
    """What lies on the antennas, by zone: card texts, and chips as (uid, value). Saved to a
    file by the hardware hands, so that it survives a restart of the table as a real felt does."""

    cards: dict[str, list[str]] = field(default_factory=dict)
    chips: dict[str, list[Chip]] = field(default_factory=dict)
    # What the dealer remembers of the round besides: antes beside the bets, an oversized
    # chip's change still due, the street whose bets lie in the zones.
    antes: dict[str, int] = field(default_factory=dict)
    change_due: dict[str, int] = field(default_factory=dict)
    street: str | None = None
    raced: list[str] = field(default_factory=list)  # the colour-ups whose chip race it ran

    def dump(self) -> str:
        return json.dumps({"cards": self.cards, "chips": self.chips, "antes": self.antes,
                           "change_due": self.change_due, "street": self.street,
                           "raced": self.raced[-10:]})

    @classmethod
    def load(cls, path: Path) -> Felt:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(cards={z: list(c) for z, c in data["cards"].items()},
                       chips={z: [(u, int(v)) for u, v in c] for z, c in data["chips"].items()},
                       antes=dict(data["antes"]), change_due=dict(data["change_due"]),
                       street=data["street"], raced=[str(r) for r in data.get("raced", [])])
        except (OSError, ValueError, KeyError, TypeError):
            return cls()


class FeltSeen:
    """Where the table's readers last put each card, from the card and gone events they send
    the table. A reader chip that polls (a PN5180) hears a card taken away only at its next
    complete scans, up to two seconds later, and a card laid again where it lay before then
    is never heard arriving: a real shuffle takes longer than that, the simulated one did not
    (a card dealt back to the seat it lay on last hand stayed unread, and the next seat's card
    read as dealt out of order). So the hands lay a card where the table still sees it only
    once the table has seen it go."""

    def __init__(self) -> None:
        self._on: set[tuple[str, str]] = set()  # (zone, card)
        self._changed = threading.Condition()

    def tee(self, submit: Emit) -> Emit:
        """``submit`` (the table's), noting what each event says lies where."""
        def emit(event: TableEvent) -> None:
            submit(event)
            self.saw(event)
        return emit

    def saw(self, event: TableEvent) -> None:
        if isinstance(event, CardEvent):
            with self._changed:
                self._on.add((event.zone, event.card))
        elif isinstance(event, GoneEvent):
            with self._changed:
                self._on.discard((event.zone, event.card))
                self._changed.notify_all()

    def wait_gone(self, zone: str, card: str, timeout: float) -> bool:
        """Until the table no longer sees ``card`` on ``zone`` (at once where it never did)."""
        with self._changed:
            return self._changed.wait_for(lambda: (zone, card) not in self._on, timeout)


# How long the simulated dealer waits for the table to show what his move did before he calls
# the floor: a table that has just restarted and replays its journal on a busy host can take more
# than ten seconds (a real dealer waits longer still).
PATIENCE = 30.0


class HardwareHands:
    """Simulated readers on ptys and the panel's mock pins: the real drivers read what these
    hands do, in real time."""

    def __init__(self, cards: ZoneAntennas, card_zones: dict[int, str], deck: Deck,
                 chips: ZoneAntennas | None, chip_zones: dict[int, str],
                 factory: MockFactory, panel: PanelConfig, watch: MemorySink,
                 submit: Callable[[TableEvent], None], stop: threading.Event,
                 felt_file: Path | None = None, seen: FeltSeen | None = None) -> None:
        self.cards, self.chips = cards, chips
        self.seen = seen
        self.card_antenna = {zone: antenna for antenna, zone in card_zones.items()}
        self.chip_antenna = {zone: antenna for antenna, zone in chip_zones.items()}
        self.uid_of = {card: uid for uid, card in deck.cards.items()}
        self.factory, self.panel, self.watch = factory, panel, watch
        self._submit, self.stop = submit, stop
        self.felt_file = felt_file
        self._felt = Felt.load(felt_file) if felt_file is not None else Felt()
        for zone, texts in self.felt.cards.items():  # the felt as the restart found it
            for card in texts:
                self.cards.place(self.card_antenna[zone], self.uid_of[card])
        for zone, held in self.felt.chips.items():
            for uid, _ in held:
                if self.chips is not None:
                    self.chips.place(self.chip_antenna[zone], uid)

    @property
    def felt(self) -> Felt:
        return self._felt

    def reads_cards_in(self, zone: str) -> bool:
        return zone in self.card_antenna

    def saved(self) -> None:
        """The felt to its file (after every move: the table may be killed at any time)."""
        if self.felt_file is not None:
            tmp = self.felt_file.with_suffix(".tmp")
            tmp.write_text(self.felt.dump(), encoding="utf-8")
            tmp.replace(self.felt_file)

    def card_on(self, zone: str, card: str) -> None:
        self.felt.cards.setdefault(zone, []).append(card)
        self.saved()
        antenna, uid = self.card_antenna[zone], self.uid_of[card]
        if self.seen is not None:  # (a table that never sees it go: 5 s, then laid anyway)
            self.seen.wait_gone(zone, card, 5.0)
        self.cards.place(antenna, uid)
        # The next card no sooner than this one is read (a real dealer's pitch takes a third
        # of a second; polled readers read a card within a scan, but a loaded host may take
        # seconds); a PT1 board reports at once. A card never read (a dead module) holds the
        # dealer up no longer than this.
        self.cards.wait_read(antenna, uid, 5.0)
        if zone.startswith("seat:"):
            # ... and no sooner than the table has it: each reader module's driver reports on
            # its own thread, and on a loaded host the next seat's card could reach the table
            # first and read as dealt out of order (seen: a misdeal called on a clean deal).
            # A card the table does not count at the seat (a fault's) holds him up 2 s at most.
            seat, held = int(zone.removeprefix("seat:")), len(self.felt.cards[zone])
            with contextlib.suppress(DealerStuck):
                self.wait(lambda s: seat in s.seats and s.seats[seat].cards >= held, 2.0)
        elif zone == "burn":
            # The same for the burn card, read on another antenna than the street's cards:
            # where the table checks burns, it asks for one until it has it (PVB 35(2)).
            with contextlib.suppress(DealerStuck):
                self.wait(lambda s: not s.waiting_for.startswith(BURN_FIRST), 2.0)
        time.sleep(0.02)

    def card_off(self, zone: str, card: str) -> None:
        self.felt.cards[zone].remove(card)
        self.saved()
        self.cards.remove(self.card_antenna[zone], self.uid_of[card])

    def chips_in(self, zone: str, chips: list[Chip]) -> None:
        assert self.chips is not None
        self.felt.chips.setdefault(zone, []).extend(chips)
        self.saved()
        self.chips.place_many(self.chip_antenna[zone], [uid for uid, _ in chips])

    def chips_out(self, zone: str, chips: list[Chip]) -> None:
        assert self.chips is not None
        for chip in chips:
            self.felt.chips[zone].remove(chip)
        self.saved()
        self.chips.remove_many(self.chip_antenna[zone], [uid for uid, _ in chips])

    def swap(self, zone: str, out: list[Chip], chips: list[Chip]) -> None:
        # One motion, one write to the reader: as two (out, then in) the zone settled between
        # them with the chip out and the change not in, whenever the dealer's thread was held
        # up longer than the settle time (a loaded host), and the table told the floor the
        # seat took its bet back (PVB 36(3)) on a clean call.
        assert self.chips is not None
        held = self.felt.chips.setdefault(zone, [])
        for chip in out:
            held.remove(chip)
        held.extend(chips)
        self.saved()
        self.chips.swap_many(self.chip_antenna[zone], [uid for uid, _ in out],
                             [uid for uid, _ in chips])

    def press(self, key: Key) -> None:
        time.sleep(0.12)  # a human hand: the panel ignores presses closer than its bounce time
        press(self.factory.pin(getattr(self.panel, key)))

    def submit(self, event: TableEvent) -> None:
        self._submit(event)

    def pause(self, seconds: float) -> None:
        if self.stop.wait(seconds):
            raise Stopped

    def wait(self, test: Callable[[TableState], bool], timeout: float = PATIENCE) -> TableState:
        end = time.monotonic() + timeout
        while True:  # in slices, so that a stop is heard at once
            if self.stop.is_set():
                raise Stopped
            try:
                return self.watch.wait_state(test, min(0.25, max(0.0, end - time.monotonic())))
            except TimeoutError as exc:
                if time.monotonic() >= end:
                    raise DealerStuck(str(exc)) from None

    def last(self) -> TableState | None:
        return self.watch.last if self.watch.states else None


__all__ = ["Chip", "DealerHands", "DealerStuck", "Felt", "HardwareHands", "Key", "Stopped"]
