"""Simulated hardware that speaks the real wire protocols, so the real drivers read it.

- `VirtualSerialDevice`: a pty behind a stable symlink (like ``/dev/serial/by-id/...``) that can
  be unplugged and plugged in again.
- `SimulatedPt1Reader`: a multi-antenna HF reader (cards or chips): repeats ``R`` lines for every
  tag in a field, sends ``X`` on removal and a heartbeat every second.
- `SimulatedRdm6300`: a 125 kHz module repeating the frame of the tag in its field.
- `press` / `hold`: a button pressed on a gpiozero pin (``MockFactory`` in tests and the demo).
- `scripted_deal`, `random_deal`: the tags a dealer's hands put on the antennas for one hand.
"""

from __future__ import annotations

import os
import random
import select
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from drivers.hf_reader import ReaderFrame, encode_line
from drivers.rdm6300 import encode_frame
from drivers.registry import Deck

WRITE_PATIENCE = 2.0  # seconds a write waits for a reader that does not read


class VirtualSerialDevice:
    """A pseudo-terminal the driver opens by ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._master: int | None = None
        self._lock = threading.Lock()
        self.plug()

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def plug(self) -> None:
        master, slave = os.openpty()
        name = os.ttyname(slave)
        os.close(slave)  # the driver opens its own end by path
        # Non-blocking: write() waits for a slow reader only so long (a blocking write to a
        # reader that stopped held the lock forever, and unplug() with it).
        os.set_blocking(master, False)
        with self._lock:
            self._master = master
        if self.path.is_symlink() or self.path.exists():
            self.path.unlink()
        self.path.symlink_to(name)

    def unplug(self) -> None:
        with self._lock:
            master, self._master = self._master, None
        if master is not None:
            os.close(master)

    def write(self, data: bytes) -> bool:
        """Send bytes as the device would; False (nothing sent) while unplugged."""
        with self._lock:
            if self._master is None:
                return False
            # A reader that is slow (a loaded machine) is waited for, as a serial line's flow
            # would be; one that stopped reading (the driver closed) is given up on after a
            # while, so that the lock, and unplug() with it, is never held for good.
            deadline = time.monotonic() + WRITE_PATIENCE
            view = memoryview(data)
            while view:
                try:
                    view = view[os.write(self._master, view):]
                except BlockingIOError:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return False
                    select.select([], [self._master], [], min(left, 0.1))
                except OSError:
                    return False
        return True

    def close(self) -> None:
        self.unplug()
        if self.path.is_symlink():
            self.path.unlink()


class _Repeater:
    """A thread that calls ``tick`` every ``period`` seconds until closed."""

    def __init__(self, period: float) -> None:
        self.period = period
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _loop(self) -> None:
        while not self._stop.wait(self.period):
            self.tick()

    def tick(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)


class SimulatedPt1Reader(_Repeater):
    """A PT1 reader on ``device``: tags placed on antennas are reported until removed."""

    def __init__(
        self, device: VirtualSerialDevice, antennas: int = 13, repeat: float = 0.1,
        heartbeat: float = 1.0,
    ) -> None:
        super().__init__(repeat)
        self.device = device
        self.antennas = antennas
        self.heartbeat = heartbeat
        self._fields: dict[int, list[str]] = {}
        self._lock = threading.Lock()
        self._seq = 0
        self._started = time.monotonic()
        self._last_beat = 0.0
        self.start()

    def _frame(self, frame_kind: str, **fields: object) -> bytes:
        frame = ReaderFrame(self._seq, frame_kind, **fields)  # type: ignore[arg-type]
        self._seq = (self._seq + 1) % 65536
        return encode_line(frame)

    def _send(self, frame_kind: str, **fields: object) -> None:
        self.device.write(self._frame(frame_kind, **fields))

    def place(self, antenna: int, uid: str) -> None:
        with self._lock:
            self._fields.setdefault(antenna, []).append(uid)
            self._send("read", antenna=antenna, uid=uid)

    def place_many(self, antenna: int, uids: list[str]) -> None:
        """Several tags at once (a hand of chips pushed together): one write, one motion."""
        self.swap_many(antenna, [], uids)

    def remove_many(self, antenna: int, uids: list[str]) -> None:
        self.swap_many(antenna, uids, [])

    def remove(self, antenna: int, uid: str) -> None:
        with self._lock:
            tags = self._fields.get(antenna, [])
            if uid in tags:
                tags.remove(uid)
                self._send("removed", antenna=antenna, uid=uid)

    def swap_many(self, antenna: int, out: list[str], uids: list[str]) -> None:
        """Tags taken away and others put down in one motion (change made for an oversized
        chip): one write, so the driver never reads the zone between the two. Two writes
        could be a settle time apart on a loaded host (the dealer's thread held up, or waiting
        for this lock behind a repeat the driver was slow to read): the zone then settled with
        the chip out and the change not in."""
        with self._lock:
            frames = b""
            tags = self._fields.setdefault(antenna, [])
            for uid in out:
                if uid in tags:
                    tags.remove(uid)
                    frames += self._frame("removed", antenna=antenna, uid=uid)
            for uid in uids:
                tags.append(uid)
                frames += self._frame("read", antenna=antenna, uid=uid)
            self.device.write(frames)

    def clear(self) -> None:
        with self._lock:
            fields, self._fields = self._fields, {}
            for antenna, tags in fields.items():
                for uid in tags:
                    self._send("removed", antenna=antenna, uid=uid)

    def noise(self, data: bytes) -> None:
        self.device.write(data)

    def tick(self) -> None:
        with self._lock:
            now = time.monotonic()
            if now - self._last_beat >= self.heartbeat:
                self._last_beat = now
                self._send("heartbeat", uptime_ms=int((now - self._started) * 1000),
                           antennas=self.antennas)
            for antenna, tags in self._fields.items():
                for uid in tags:
                    self._send("read", antenna=antenna, uid=uid)


class SimulatedRdm6300(_Repeater):
    """A 125 kHz module: while a tag is in its field it repeats that tag's frame."""

    def __init__(self, device: VirtualSerialDevice, repeat: float = 0.1) -> None:
        super().__init__(repeat)
        self.device = device
        self.tag: str | None = None
        self.start()

    def place(self, uid: str) -> None:
        self.tag = uid
        self.device.write(encode_frame(uid))

    def lift(self) -> None:
        self.tag = None

    def tick(self) -> None:
        tag = self.tag
        if tag is not None:
            self.device.write(encode_frame(tag))


def press(pin: object, seconds: float = 0.0) -> None:
    """Press a pulled-up button on a gpiozero mock pin (``factory.pin(n)``)."""
    pin.drive_low()  # type: ignore[attr-defined]
    if seconds:
        time.sleep(seconds)
    pin.drive_high()  # type: ignore[attr-defined]


def scripted_deal(deck: Deck, steps: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(zone, card) steps, e.g. ``[("seat:1", "As"), ("board", "Kd")]``, as (zone, uid)."""
    by_card = {card: uid for uid, card in deck.cards.items()}
    return [(zone, by_card[card]) for zone, card in steps]


def random_deal(
    deck: Deck, seats: list[int], rng: random.Random, hole_cards: int = 2,
) -> Iterator[tuple[str, str]]:
    """(zone, uid) in dealing order: one card at a time round the table, then burn and flop,
    burn and turn, burn and river."""
    by_card = {card: uid for uid, card in deck.cards.items()}
    cards = list(by_card)
    rng.shuffle(cards)
    for _ in range(hole_cards):
        for seat in seats:
            yield f"seat:{seat}", by_card[cards.pop()]
    for count in (3, 1, 1):
        yield "burn", by_card[cards.pop()]
        for _ in range(count):
            yield "board", by_card[cards.pop()]
