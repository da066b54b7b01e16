"""`pokertable readers check`: bringing up a table's readers, for the technician who wired them.

1. Every configured reader chip: its bus opens (or one line says why not: SPI not enabled, no
   permission, a serial port missing), every module answers with its chip and version (or one
   line names its antenna and chip select and what to check).
2. The zone map: the technician lays a card (a chip, for chip zones) on each antenna in turn as
   asked; the check says where it was read. Read on its own module: the antenna is in place,
   with its reads per second. Read by another antenna's module: the two are swapped (their chip
   selects, or their zones in the configuration). Read nowhere: the module does not see its
   antenna (its antenna cable, or a chip select on the pin of a module not fitted).

Every scan is complete here (an MFRC522 reads every card each time), so the reads per second
are those of the antenna itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TextIO

from drivers.chip_reader import OpenedChips
from drivers.reader_config import ReaderConfig
from drivers.scan import ChipError, Clock, Reading, run_scans

Connect = Callable[[ReaderConfig], OpenedChips]


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    answered: int = 0
    in_place: int = 0


def check_readers(readers: list[ReaderConfig], connect: Connect, clock: Clock, out: TextIO, *,
                  walk: bool = True, wait: float = 60.0, measure: float = 1.0,
                  prompted: Callable[[ReaderConfig, int], None] | None = None) -> Report:
    """Check ``readers``; print what is found, one line a finding. ``prompted``: called after
    each "lay ..." line (the tests' technician)."""
    report = Report()
    for config in readers:
        try:
            opened = connect(config)
        except (OSError, ValueError) as exc:
            _problem(report, out, f"{config.name}: {exc}")
            continue
        try:
            live = _versions(config, opened, out, report)
            if walk and live:
                for antenna in sorted(config.zones):
                    if antenna in live:
                        _walk(config, opened, live, antenna, clock, out, report, wait, measure,
                              prompted)
        finally:
            opened.close()
    modules = sum(len(r.zones) for r in readers)
    verdict = "all in order" if not report.problems else f"{len(report.problems)} to fix"
    out.write(f"readers check: {report.answered} of {modules} modules answer"
              + (f", {report.in_place} antenna{'s' if report.in_place != 1 else ''} in place"
                 if walk else "") + f": {verdict}\n")
    return report


def _problem(report: Report, out: TextIO, line: str) -> None:
    report.problems.append(line)
    out.write(f"PROBLEM {line}\n")


def _where(config: ReaderConfig, opened: OpenedChips, antenna: int) -> str:
    zone = config.zones.get(antenna, f"antenna {antenna}")
    where = opened.where.get(antenna)
    return f"{config.name} {zone}" + (f" ({where})" if where else "")


def _versions(config: ReaderConfig, opened: OpenedChips, out: TextIO,
              report: Report) -> set[int]:
    live: set[int] = set()
    for antenna in sorted(opened.chips):
        chip = opened.chips[antenna]
        try:
            name = chip.start()
        except ChipError as exc:
            _problem(report, out, f"{_where(config, opened, antenna)}: {exc}")
            continue
        chip.every_scan_complete()  # reads per second are those of the antenna
        report.answered += 1
        live.add(antenna)
        out.write(f"ok {_where(config, opened, antenna)}: {name}\n")
    return live


def _scan(opened: OpenedChips, live: set[int], clock: Clock) -> dict[int, list[str]]:
    results = run_scans([(a, opened.chips[a].scan) for a in sorted(live)], clock, parallel=1)
    return {a: r.uids for a, r in results.items() if isinstance(r, Reading)}


def _walk(config: ReaderConfig, opened: OpenedChips, live: set[int], antenna: int, clock: Clock,
          out: TextIO, report: Report, wait: float, measure: float,
          prompted: Callable[[ReaderConfig, int], None] | None) -> None:
    zone = config.zones[antenna]
    thing = "a chip on the betting zone of" if config.reads == "chips" else "any card on"
    if zone == "pot":
        thing = "a chip on the"
    before = {a: set(uids) for a, uids in _scan(opened, live, clock).items()}
    out.write(f"lay {thing} {zone}\n")
    out.flush()
    if prompted is not None:
        prompted(config, antenna)
    deadline = clock.now() + wait
    found: tuple[int, str] | None = None
    while found is None and clock.now() < deadline:
        for where, uids in _scan(opened, live, clock).items():
            new = set(uids) - before.get(where, set())
            if new:
                found = (where, sorted(new)[0])
                break
        else:
            clock.sleep(0.05)
    if found is None:
        _problem(report, out, f"{_where(config, opened, antenna)}: nothing was read in {wait:.0f} "
                 "s: is its antenna connected, and is its module the one on this chip select?")
        return
    where, uid = found
    if where != antenna:
        _problem(report, out, f"{zone}: what was laid there was read by the module configured for "
                 f"{config.zones.get(where, where)} ({opened.where.get(where, '?')}): the two "
                 "are swapped; swap their chip-select wires, or their zones in the configuration")
        return
    started, reads, scans = clock.now(), 0, 0
    while clock.now() - started < measure:
        scans += 1
        reads += uid in _scan(opened, {antenna}, clock).get(antenna, [])
    rate = reads / max(clock.now() - started, 1e-9)
    report.in_place += 1
    out.write(f"ok {_where(config, opened, antenna)}: in place, {rate:.0f} reads a second "
              f"({reads} of {scans} scans); take it away\n")
