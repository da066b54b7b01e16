"""A simulated table killed in the middle of a hand and started again: the felt (the tags on the
antennas) survives as a real one does, and the simulated dealer picks the hand up where the table
is, plays it to its end and deals on, with no false alert (it used to stop after "0 of 0 hands"
and the table stayed stuck)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


def _start(config: Path, hands: int, seed: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "table", "--config", str(config), "--simulate",
         "--hands", str(hands), "--seed", str(seed)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _state(out: Path) -> dict[str, object]:
    try:
        return json.loads((out / "state.json").read_text())  # type: ignore[no-any-return]
    except (OSError, ValueError):
        return {}


@pytest.mark.long(15)
def test_the_dealer_picks_up_the_hand_a_restarted_table_is_in(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "7"\nseats = 6\n')
    out = tmp_path / "out"
    first = _start(config, hands=0, seed=8)
    state: dict[str, object] = {}

    def on_the_flop_or_later() -> bool:  # kill it in the middle of a hand, on the flop or later
        state.clear()
        state.update(_state(out))
        return state.get("stage") == "betting" and state.get("street") in ("flop", "turn",
                                                                            "river")

    if not wait_until(on_the_flop_or_later, 120):
        raise AssertionError(f"no hand reached the flop: {state}")
    os.kill(first.pid, signal.SIGKILL)
    first.wait(10)
    hand = int(state["hand"])  # type: ignore[call-overload]
    assert (tmp_path / "journal.db.felt.json").exists()

    again = _start(config, hands=2, seed=9)  # the hand in play, and one more
    _, stderr = again.communicate(timeout=180)
    assert again.returncode == 0, stderr[-2000:]
    assert "Traceback" not in stderr and "ERROR" not in stderr and "WARNING" not in stderr
    seen = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    after = [e for e in seen if e["hand"] >= hand]
    assert not [e["text"] for e in after if e["kind"] in ("alert", "refused")]
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    finished = {r["hand"]: r["status"] for r in records}
    assert finished.get(hand) == "complete", finished  # the interrupted hand, played out
    assert finished.get(hand + 1) == "complete", finished
    assert "stopped after 2 of 2 hands" in stderr


def test_a_clean_stop_reads_as_a_clean_stop(tmp_path: Path) -> None:
    """SIGTERM in the middle of play: no WARNING (a refused 'close' was logged for every stop in
    the middle of a hand), no 'cannot make 20' (the dealer's wait cut short read as a fault);
    the dealer says how many hands it played, and the table exits 0."""
    config = tmp_path / "table.toml"
    config.write_text('[table]\nid = "8"\nseats = 4\n')
    process = _start(config, hands=0, seed=2)
    wait_until(lambda: int(_state(tmp_path / "out").get("hand", 0)) >= 2, 60)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0, stderr[-2000:]
    assert "WARNING" not in stderr and "ERROR" not in stderr, stderr[-2000:]
    assert re.search(r"the simulated dealer stopped after \d+ hands?\n", stderr), stderr
