"""RULES S2: the odd chip is a real chip. A split pot pays in the smallest chip in
play, the rest one chip at a time from the button's left (PVB 62(1); APSA 5.3); the cash
profile splits down to the small blind's unit (CG)."""

from __future__ import annotations

import pytest

from tests.session.helpers import board, card, deal, declare, key, level, seat, shuffle, start


def split_hand(*, sb: int, bb: int, smallest_chip: int | None, profile: str = "pvb-2020"
               ) -> dict[int, int]:
    """Three players; the button calls, the small blind folds, the big blind checks; the board
    is a royal flush, so seats 1 and 3 split a pot of 2 big blinds and a dead small blind."""
    raw_level = level(2, sb, bb)
    if smallest_chip is not None:
        raw_level["smallest_chip"] = smallest_chip
    # The cash profile draws for the button (B1): seat 1 draws the ace.
    draw = [card(f"seat:{n}", c) for n, c in ((1, "Ad"), (2, "2s"), (3, "3s"))] \
        if profile == "cg-cash" else []
    run = start([seat(1, "ana", 10_000), seat(2, "ben", 10_000), seat(3, "cem", 10_000)],
                draw, raw_level, shuffle(), deal({2: "4h5h", 3: "2d3c", 1: "2c3d"}),
                declare(1, "call"), declare(2, "fold"), key("confirm"),
                board("AsKsQs", burn="7c"), key("confirm"), key("confirm"),
                board("Js", burn="7d"), key("confirm"), key("confirm"),
                board("Ts", burn="7h"), key("confirm"), key("confirm"),
                key("confirm"), key("confirm"), profile=profile)
    record = run.session.pending_record
    assert record is not None and record.status == "complete"
    (pot,) = record.pots
    assert pot.amount == 2 * bb + sb
    return pot.shares


def test_s2_pvb_62_five_25_chips_split_75_and_50_not_63_and_62() -> None:
    # Seat 3 is the first winner left of the button (seat 1): the odd chip is his.
    assert split_hand(sb=25, bb=50, smallest_chip=25) == {3: 75, 1: 50}


def test_s2_where_nothing_names_a_chip_the_unit_stays_one() -> None:
    assert split_hand(sb=25, bb=50, smallest_chip=None) == {3: 63, 1: 62}


def test_s2_t5_after_a_colour_up_the_split_pays_in_the_smallest_chip_left() -> None:
    # The 25s coloured up: from this level the smallest chip is 100; 500 splits 300/200.
    assert split_hand(sb=100, bb=200, smallest_chip=100) == {3: 300, 1: 200}


@pytest.mark.parametrize("smallest_chip", [None, 5])
def test_s2_cg_splits_down_to_the_small_blind_unit(smallest_chip: int | None) -> None:
    assert split_hand(sb=25, bb=50, smallest_chip=smallest_chip, profile="cg-cash") == {
        3: 75, 1: 50}
