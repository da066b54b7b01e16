"""`pokertable demo`: plays whole hands under the engine and tells them readably."""

from __future__ import annotations

import io
import re

import pytest

from controller.demo.demo import run_demo


def test_demo_plays_narrated_hands_and_conserves_chips() -> None:
    out = io.StringIO()
    assert run_demo(hands=9, players=6, seed=11, out=out) == 0
    text = out.getvalue()
    assert len(re.findall(r"^== Hand \d+", text, flags=re.M)) == 9
    assert "[clock] level 2" in text  # levels change between hands (H2)
    assert re.search(r"main pot [\d,]+: seat \d+", text)
    chips = [int(c.replace(",", "")) for c in re.findall(r"seat \d+ \w+ ([\d,]+)(?:,|\n)",
                                                         text.split("Chip counts:")[1])]
    assert sum(chips) == _starting_total(seed=11, players=6)  # nothing created or lost


def _starting_total(seed: int, players: int) -> int:
    import random

    rng = random.Random(seed)
    return sum(rng.choice([8_000, 10_000, 12_000]) for _ in range(players))


@pytest.mark.e2e
@pytest.mark.long(26)
def test_demo_hardware_prelude_reads_a_simulated_deal_and_hides_hole_cards() -> None:
    out = io.StringIO()
    run_demo(hands=1, players=3, seed=2, out=out, hardware=True)
    text = out.getvalue().split("-- the hand engine")[0]
    assert "reader cards: ok" in text and "shuffle button pressed" in text
    seat_lines = re.findall(r"card on seat:\d+: (.*)", text)
    assert len(seat_lines) == 6 and set(seat_lines) == {"(hidden until tabled)"}
    assert len(re.findall(r"card on board: [2-9TJQKA][cdhs]", text)) == 5


def test_demo_never_prints_a_hole_card_before_it_is_tabled() -> None:
    out = io.StringIO()
    run_demo(hands=6, players=4, seed=5, game="PO", out=out)
    for block in out.getvalue().split("== Hand")[1:]:
        before_showdown = block.split("tables")[0]
        assert "dealt in; hole cards stay secret" in before_showdown
        assert not re.search(r"\b(seat \d+ \w+) (?:has|holds)\b", before_showdown)
