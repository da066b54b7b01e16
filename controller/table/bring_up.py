"""`pokertable readers check` for a table's configuration: its reader chips opened as the table
opens them (drivers/bring_up.py does the checking), or, with ``--simulate``, their simulators
with a simulated technician who lays a card where asked."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path
from typing import TextIO

from controller.table.config import TableConfig
from controller.table.runner import pin_factory_of
from drivers.bring_up import check_readers
from drivers.chip_reader import OpenedChips, open_chips
from drivers.reader_config import POLLED, ReaderConfig
from drivers.scan import RealClock


def run_readers_check(config: TableConfig, out: TextIO, *, walk: bool = True,
                      wait: float = 60.0, simulate: bool = False) -> int:
    """0 when every module answers and every antenna is in place; 1 otherwise."""
    readers: list[ReaderConfig] = [r for r in config.readers if r.protocol in POLLED]
    others = [r.name for r in config.readers if r.protocol not in POLLED]
    if others:
        out.write(f"not checked here: {', '.join(others)} (serial line readers: "
                  "`pokertable decode` shows what they send)\n")
    if not readers:
        out.write("readers check: no reader chips in this configuration\n")
        return 1
    clock = RealClock()
    if not simulate:
        factory = pin_factory_of(config)
        report = check_readers(readers, lambda r: open_chips(r, clock, pin_factory=factory),
                               clock, out, walk=walk, wait=wait)
        return 1 if report.problems else 0
    from controller.sim.table_rig import MockFactory, demo_chips, demo_deck
    from drivers.simulated.readers import SimulatedReader

    mock = MockFactory()
    # (a simulated PN532 answers on a pseudo-terminal, whose link is made here)
    ptys = tempfile.TemporaryDirectory(prefix="pokertable-readers-check-")
    simulated = {r.name: SimulatedReader(r, mock, clock, tmp=Path(ptys.name)) for r in readers}
    rng = random.Random(1)
    # (each reader's tags of the kind its chip reads: a PN5180's cards are ISO 15693 tags)
    tags_of = {r.name: list(demo_chips(r.protocol).chips if r.reads == "chips"
                            else demo_deck(r.protocol).cards) for r in readers}

    def technician(reader: ReaderConfig, antenna: int) -> None:
        tags = tags_of[reader.name]
        simulated[reader.name].field.place(antenna, tags.pop(rng.randrange(len(tags))))

    def connect(reader: ReaderConfig) -> OpenedChips:
        return simulated[reader.name].connect()

    try:
        report = check_readers(readers, connect, clock, out, walk=walk, wait=wait,
                               prompted=technician)
    finally:
        for sim in simulated.values():
            sim.close()
        mock.reset()
        ptys.cleanup()
    return 1 if report.problems else 0
