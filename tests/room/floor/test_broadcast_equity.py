"""The broadcast's arithmetic, pure: each player's equity (controller/history/equity.py) against
an independent enumeration by PokerKit's evaluator, in hold'em and Omaha, exact from the flop on
and a seeded, repeatable Monte Carlo before it; and each action's time (broadcast_view.py),
never earlier than the event that announced it, however the floor heard the hand."""

from __future__ import annotations

import pytest
from pokerkit import OmahaHoldemHand, StandardHighHand

from controller.engine.cards import parse_cards
from controller.history.equity import SAMPLES, equities
from controller.room.floor.broadcast_view import Heard, action_times, build_steps
from controller.session.outputs import PublicEvent
from tests.room.floor.pokerkit_equity import enumerated_shares
from tests.session.helpers import board, deal, declare, shuffle, start, three_players


def _ints(text: str) -> list[int]:
    return [c for c in parse_cards(text) if c is not None]


@pytest.mark.parametrize(("game", "hand_type", "hands", "board_text", "dead"), [
    ("NT", StandardHighHand, {1: "AsKs", 4: "QhQd", 7: "9c8c"}, "Ts7c2h", "3d3h"),
    ("NT", StandardHighHand, {2: "AhKd", 3: "AcKh"}, "QsJs2d3c", ""),  # a likely split
    ("PO", OmahaHoldemHand, {1: "AsKsQhJh", 2: "9c9d8c7d"}, "Ts9h2c", "2d3d4d5d"),
])
@pytest.mark.usefixtures("pokerkit_remembered")
def test_exact_equity_is_an_independent_enumeration(
        game: str, hand_type: type, hands: dict[int, str], board_text: str, dead: str) -> None:
    found = equities(game, {s: _ints(h) for s, h in hands.items()},  # type: ignore[arg-type]
                     _ints(board_text), _ints(dead))
    assert found.method == "exact"
    expected = enumerated_shares(hand_type, hands, board_text, dead)
    for seat, share in expected.items():
        assert abs(found.shares[seat] - share) < 1e-9, (seat, found.shares, expected)
    assert abs(sum(found.shares.values()) - 1) < 1e-9


def test_before_the_flop_a_seeded_monte_carlo_says_so_and_repeats() -> None:
    hands = {1: _ints("AsAh"), 2: _ints("KdKc")}
    first = equities("NT", hands, [], seed=7)
    assert (first.method, first.boards, first.seed) == ("monte-carlo", SAMPLES, 7)
    assert first == equities("NT", hands, [], seed=7)  # the same seed, the same answer
    assert abs(first.shares[1] - 0.82) < 0.015  # aces against kings: about 82 %
    with pytest.raises(ValueError):
        equities("NT", {1: _ints("AsAh"), 2: _ints("AsKc")}, [])  # a card twice


def _played() -> tuple[list[PublicEvent], object]:
    run = start(three_players(), shuffle(), deal({2: "AsAh", 3: "KdKh", 1: "7c2d"}),
                declare(1, "call"), declare(2, "call"), declare(3, "check"), board("QsJd9h"),
                declare(2, "bet", 200), declare(3, "fold"), declare(1, "fold"), shuffle())
    (record,) = run.records()
    return [e for e in run.events if e.hand == 1], record


def test_each_action_is_timed_by_the_event_that_announced_it_or_later() -> None:
    events, record = _played()
    at = {id(e): 100.0 + k for k, e in enumerate(events)}
    heard = [Heard(kind=e.kind, seat=e.seat, action=e.data.get("action"),
                   amount=e.data.get("amount"), cards=e.data.get("cards", ""),
                   board=e.data.get("board", 1), at=at[id(e)]) for e in events]
    times = action_times(record, heard, sealed_at=500.0)  # type: ignore[arg-type]
    actions = record.actions  # type: ignore[attr-defined]
    announced = {k: next(h.at for h in heard if h.kind == "street") for k, a in
                 enumerate(actions) if a.action == "deal_board"}
    assert times == sorted(times)
    for k, street_at in announced.items():
        assert times[k] == street_at
    assert times[-1] == 500.0  # the payout: no event before the seal says it

    # The floor missed events (away for a moment): those actions take later times, never
    # earlier ones; heard nothing at all: the seal's time for every action
    gone = [h for h in heard if h.kind != "street"]
    later = action_times(record, gone, sealed_at=500.0)  # type: ignore[arg-type]
    assert all(b >= a for a, b in zip(times, later, strict=True))
    assert action_times(record, [], sealed_at=500.0) == [500.0] * len(actions)  # type: ignore[arg-type]
    # A step is never shown before its time: the steps carry these times
    steps = build_steps(record, times)  # type: ignore[arg-type]
    assert [s.at for s in steps] == times
    assert steps[-1].over and steps[-1].results == ["pot 1 (300): ben"]
