"""Playing hands at a table the way a dealer does, for the tournament's tests: everyone folds to
the big blind, or some players go all-in against one who calls with aces and busts them. Works
on a session in memory (`tests.session.helpers.Run`) or a table on the broker
(`tests.mqtt.helpers.LinkedTable`) through two functions: feed events, read the state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.session.outputs import TableState
from tests.session.helpers import board, card, declare

Feed = Callable[[list[dict[str, Any]]], object]
State = Callable[[], TableState]

WINNER = "AsAh"
LOSERS = ["2c3d", "4h5h", "6c7d", "2h3s", "4c5d", "6h7s", "2d3h", "4s5c", "6d7h"]
BOARD = ["QsJd9h", "8s", "Kc"]  # aces win against every losing hand above


def deal_in_order(feed: Feed, state: State, cards: dict[int, str]) -> None:
    """Hole cards one at a time around the table, in the order the hand deals them."""
    dealt = [s for s in _dealt(state()) if s in cards]
    feed([card(f"seat:{s}", cards[s][r * 2:r * 2 + 2]) for r in range(2) for s in dealt])


def _dealt(state: TableState) -> list[int]:
    in_hand = [s for s, v in state.seats.items() if v.in_hand]
    button = state.button or 0
    return sorted(in_hand, key=lambda s: (s - button - 1) % 10)


def fold_around(feed: Feed, state: State) -> None:
    """The hand in play: every player folds to the big blind."""
    current = state()
    cards = {s: LOSERS[k % len(LOSERS)] for k, s in enumerate(_dealt(current))}
    deal_in_order(feed, state, cards)
    while (now := state()).stage == "betting" and now.actor is not None:
        feed([declare(now.actor, "fold")])
    assert state().stage == "over", state().waiting_for


def bust(feed: Feed, state: State, winner: int, losers: list[int]) -> None:
    """The hand in play: ``losers`` go all-in, ``winner`` calls with aces and wins, everyone
    else folds; the board runs out."""
    current = state()
    dealt = _dealt(current)
    assert winner in dealt and all(s in dealt for s in losers), (dealt, winner, losers)
    cards = {s: LOSERS[k % len(LOSERS)] for k, s in enumerate(d for d in dealt if d != winner)}
    cards[winner] = WINNER
    deal_in_order(feed, state, cards)
    streets = iter(BOARD)
    while (now := state()).stage != "over":
        if now.stage == "betting" and now.actor is not None:
            actor = now.actor
            if actor in losers:
                action = "allin"
            elif actor == winner:
                action = "call" if (now.to_call or 0) > 0 else "check"
            else:
                action = "fold"
            feed([declare(actor, action)])
        elif now.stage in ("dealing", "showdown") or now.actor is None:
            feed(board(next(streets)))
        else:  # pragma: no cover
            raise AssertionError(now.waiting_for)
