"""Registering a new deck or new chips from what one antenna reads (`pokertable deck register`,
`pokertable chips register`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

import serial

from controller.errors import ConfigError, RuleViolation
from drivers.chip_reader import OpenedChips
from drivers.presence import Presence
from drivers.protocols import DEFAULT_BAUD, make_decoder
from drivers.rdm6300 import Rdm6300Decoder
from drivers.reader_config import ReaderConfig
from drivers.registry import ChipSet, DeckRegistration, load_chips, register_chip, save
from drivers.scan import ChipError, Clock, ReaderChip, run_scans


def arrivals(
    url: str, protocol: str, antenna: int, *, idle: float, presence_timeout: float = 0.6,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[str]:
    """UIDs as they arrive on ``antenna``, each once per placing; stops after ``idle`` seconds
    without a new arrival. The port is open when this returns, so nothing placed is missed."""
    try:
        port = serial.serial_for_url(url, baudrate=DEFAULT_BAUD[protocol], timeout=0.05)
    except (serial.SerialException, OSError, ValueError) as exc:
        raise ConfigError(f"cannot open the reader at {url}: {exc}") from exc
    return _arrivals(port, protocol, antenna, idle, Presence(presence_timeout), clock)


def _arrivals(
    port: serial.SerialBase, protocol: str, antenna: int, idle: float, presence: Presence,
    clock: Callable[[], float],
) -> Iterator[str]:
    decoder = make_decoder(protocol)
    last_arrival = clock()
    with port:
        while clock() - last_arrival < idle:
            data = port.read(port.in_waiting or 1)
            now = clock()
            presence.expire(now)
            if isinstance(decoder, Rdm6300Decoder):  # (it never says a tag left: timeouts)
                reads = [(True, 0, tag.uid) for tag in decoder.feed(data)]
            else:
                # A PT1 board says at once that a tag left: the same card placed again is a
                # new placing however quickly it came back, and however late this loop reads
                # (on a busy host the placing, the removal and the next placing came in one
                # read, and the card placed twice was taken for one placing).
                reads = [(f.kind == "read", f.antenna, f.uid) for f in decoder.feed(data)
                         if f.kind in ("read", "removed") and f.antenna is not None
                         and f.uid is not None]
            for is_read, seen_on, uid in reads:
                if seen_on != antenna:
                    continue
                if not is_read:
                    presence.remove(seen_on, uid)
                elif presence.report(seen_on, uid, now):
                    last_arrival = now
                    yield uid


def chip_arrivals(config: ReaderConfig, antenna: int, connect: Callable[[], OpenedChips],
                  clock: Clock, *, idle: float) -> Iterator[str]:
    """UIDs as they arrive on ``antenna`` of a reader of chips (MFRC522, PN5180, PN532), each
    once per placing; stops after ``idle`` seconds without a new tag. A tag missing from a
    scan or two (a chip in a stack) and read again is the same placing."""
    try:
        opened = connect()
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{config.name}: {exc}") from None
    try:
        if antenna not in opened.chips:
            zones = ", ".join(f"{a} = {z}" for a, z in sorted(config.zones.items()))
            raise ConfigError(f"{config.name} has no antenna {antenna} (its zones: {zones})")
        chip = opened.chips[antenna]
        try:
            chip.start()
        except ChipError as exc:
            raise ConfigError(f"{config.name} antenna {antenna}: {exc}") from None
        chip.every_scan_complete()
    except BaseException:
        opened.close()
        raise
    return _chip_arrivals(opened, chip, antenna, clock, idle)


def _chip_arrivals(opened: OpenedChips, chip: ReaderChip, antenna: int, clock: Clock,
                   idle: float) -> Iterator[str]:
    last_seen: dict[str, int] = {}  # uid -> the scan it was last read in
    scans = 0
    last_arrival = clock.now()
    try:
        while clock.now() - last_arrival < idle:
            scans += 1
            result = run_scans([(antenna, chip.scan)], clock)[antenna]
            if isinstance(result, ChipError):
                raise ConfigError(f"antenna {antenna}: {result}")
            for uid in result.uids:
                if scans - last_seen.get(uid, -10) > 3:
                    last_arrival = clock.now()
                    yield uid
                last_seen[uid] = scans
            clock.sleep(0.05)
    finally:
        opened.close()


def register_deck(
    uids: Iterator[str], name: str, out_path: Path, say: TextIO,
) -> bool:
    """Assign tags to cards in registration order; True when all 52 were read and saved."""
    registration = DeckRegistration(name)
    say.write(f"Place the cards one at a time: {registration.next_card} first\n")
    for uid in uids:
        try:
            card = registration.offer(uid)
        except RuleViolation as refused:
            say.write(f"  refused: {refused}; place {registration.next_card}\n")
            continue
        following = registration.next_card
        say.write(f"  {card} = {uid}" + (f"; next {following}\n" if following else "\n"))
        if following is None:
            save(registration.deck(), out_path)
            say.write(f"Deck {name} saved to {out_path}\n")
            return True
    say.write(f"Stopped after {len(registration.cards)} of 52 cards; nothing saved\n")
    return False


def register_chips(
    uids: Iterator[str], value: int, name: str, out_path: Path, say: TextIO,
) -> int:
    """Add chips of ``value`` to the chip set file (created if missing); returns how many new."""
    chips = load_chips(out_path) if out_path.exists() else ChipSet(name=name)
    added = 0
    for uid in uids:
        try:
            if register_chip(chips, uid, value):
                added += 1
                save(chips, out_path)  # after every chip: an interruption loses nothing
                say.write(f"  {uid} = {value:,} ({added} new)\n")
        except RuleViolation as refused:
            say.write(f"  refused: {refused}\n")
    held = f"{len(chips.chips)} chips in {out_path}" if out_path.exists() else "no file written"
    say.write(f"{added} chips of {value:,} added; {held}\n")
    return added
