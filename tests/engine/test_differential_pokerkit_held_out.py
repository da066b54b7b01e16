"""The replay benchmark's held-out corpus (bench/replay_throughput.py, issue 37): hands PokerKit
plays with random legal actions and writes with its own PHH writer. Our replay must end every one
with PokerKit's finishing stacks, since the benchmark times both engines on them; and the corpus
must be what its seed says, the same files in every run.

Unlike tests/engine/test_differential_pokerkit.py, PokerKit makes the hands here (its action order,
its showdown order, its PHH text) and our engine only reads them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from pokerkit import HandHistory

from controller.history.phh import parse_phh, replay_phh

BENCH = Path(__file__).resolve().parents[2] / "bench" / "replay_throughput.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("replay_throughput", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("replay_throughput", module)
    spec.loader.exec_module(module)
    return module


def _pokerkit_stacks(text: str) -> list[int]:
    state = None
    for state in HandHistory.loads(text):  # noqa: B007  (the last state: the hand's end)
        pass
    assert state is not None
    return [int(s) for s in state.stacks]


@pytest.mark.usefixtures("pokerkit_remembered")
def test_the_held_out_hands_end_alike_in_both_engines() -> None:
    bench = _bench()
    texts = [t.decode() for t in bench.hand_texts(150, seed=11)]
    side_pots = showdowns = 0
    for text in texts:
        replay = replay_phh(parse_phh(text))
        assert replay.finishing_stacks() == _pokerkit_stacks(text), text
        showdowns += any(a.kind == "show" for a in replay.hand.log)
        side_pots += len(replay.hand.results) > 1
    # what the corpus is for: showdowns and side pots, not only folds
    assert showdowns > 50 and side_pots > 20, (showdowns, side_pots)


def test_the_held_out_corpus_is_its_seeds() -> None:
    bench = _bench()
    first = bench.hand_texts(20, seed=3)
    assert bench.hand_texts(20, seed=3) == first
    assert bench.hand_texts(20, seed=4) != first
    players = {len(parse_phh(t.decode()).starting_stacks) for t in first}
    assert players <= set(range(2, 10)) and len(players) > 3
