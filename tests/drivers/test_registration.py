"""`pokertable deck register` and `chips register` against a simulated reader on a pty."""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path

from drivers.registration import arrivals, register_chips, register_deck
from drivers.registry import REGISTRATION_ORDER, load_chips, load_deck
from drivers.simulators import SimulatedPt1Reader, VirtualSerialDevice


def tap_all(reader: SimulatedPt1Reader, antenna: int, uids: list[str], pause: float) -> None:
    for uid in uids:
        reader.place(antenna, uid)
        threading.Event().wait(pause)
        reader.remove(antenna, uid)


def test_deck_register_from_a_simulated_reader_refuses_a_repeat(tmp_path: Path) -> None:
    device = VirtualSerialDevice(tmp_path / "reader")
    reader = SimulatedPt1Reader(device, repeat=0.02)
    uids = [f"04{k:012X}" for k in range(52)]
    taps = [*uids[:5], uids[2], *uids[5:]]  # the dealer places the third card again
    out = tmp_path / "deck.json"
    said = io.StringIO()
    tapping = threading.Thread(target=tap_all, args=(reader, 3, taps, 0.02))
    try:
        # The presence timeout of `pokertable deck register`, far longer than a tap: the
        # card placed again counts as a second placing because the board said it left, not
        # because this loop happened to read in between.
        stream = arrivals(str(device.path), "pt1", 3, idle=3, presence_timeout=0.6)
        tapping.start()
        assert register_deck(stream, "blue-1", out, said)
    finally:
        tapping.join()
        reader.close()
        device.close()
    deck = load_deck(out)
    assert [deck.cards[u] for u in uids] == list(REGISTRATION_ORDER)
    assert "refused: tag 04000000000002 was already read as 4c" in said.getvalue()


def test_chips_register_extends_the_file_and_ignores_other_antennas(tmp_path: Path) -> None:
    device = VirtualSerialDevice(tmp_path / "reader")
    reader = SimulatedPt1Reader(device, repeat=0.02)
    out = tmp_path / "chips.json"
    out.write_text(json.dumps({"name": "house", "chips": {"E004000000000099": 100}}))
    try:
        stream = arrivals(str(device.path), "pt1", 9, idle=0.6, presence_timeout=0.05)
        threading.Timer(0.2, lambda: (
            reader.place(9, "E004000000000001"), reader.place(9, "E004000000000002"),
            reader.place(2, "E004000000000003"))).start()
        added = register_chips(stream, 1000, "house", out, io.StringIO())
    finally:
        reader.close()
        device.close()
    assert added == 2
    assert load_chips(out).chips == {"E004000000000099": 100, "E004000000000001": 1000,
                                     "E004000000000002": 1000}


def test_a_deck_and_chips_registered_on_the_tables_reader_chips() -> None:
    """`deck register --config` / `chips register --config`: the tags laid one by one on an
    antenna of the configured reader chips, each once, though it stays in the field."""
    from gpiozero.pins.mock import MockFactory

    from drivers.registration import chip_arrivals
    from drivers.scan import VirtualClock
    from drivers.simulated.readers import SimulatedReader
    from tests.drivers.chip_helpers import CHIP_UIDS, UID_OF, cards_config, chips_config

    for config, uids in ((cards_config(), [UID_OF["2c"], UID_OF["3c"]]),
                         (chips_config(), CHIP_UIDS[:3])):
        clock, factory = VirtualClock(), MockFactory()
        sim = SimulatedReader(config, factory, clock, miss=0.1, seed=2)
        arrivals = chip_arrivals(config, 11, sim.connect, clock, idle=1.0)
        try:
            read = []
            for uid in uids:
                sim.field.place(11, uid)  # laid on the antenna and left there
                read.append(next(arrivals))
            assert read == uids
            assert list(arrivals) == []  # nothing new for a second: it stops
        finally:
            factory.reset()
