"""PokerKit (pinned 0.7.7), the tests' independent reference, asked the same questions for less
CPU, every answer its own: its evaluations remembered where it makes them again and again.

- At a showdown PokerKit asks, for each player, whether he can still win (`State.can_win_now`),
  and evaluates every live hand again for each: the hand for the same cards, remembered.
- A hand's rank is looked up again at every comparison (`Hand.entry`): `max` over a player's 21
  hold'em or 60 Omaha combinations looks each up about three times, a quarter of a
  differential test's time. The first lookup, kept on the hand.

Both are undone at the end of the test (``monkeypatch``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest
from pokerkit import Card, Hand, OmahaHoldemHand, StandardHighHand


def remember_evaluations(monkeypatch: pytest.MonkeyPatch) -> None:
    for kind in (StandardHighHand, OmahaHoldemHand):
        evaluate = kind.from_game.__func__  # type: ignore[attr-defined]
        known: dict[tuple[object, ...], object] = {}

        def from_game(cls: type, hole: str | Iterable[Card], board: str | Iterable[Card] = (),
                      evaluate: Callable[..., object] = evaluate,
                      known: dict[tuple[object, ...], object] = known) -> object:
            key = (cls, _cards(hole), _cards(board))
            if key not in known:
                known[key] = evaluate(cls, key[1], key[2])
            return known[key]

        monkeypatch.setattr(kind, "from_game", classmethod(from_game))

    look_up = Hand.entry.fget
    assert look_up is not None

    def entry(hand: Hand) -> object:
        kept = hand.__dict__.get("_remembered_entry")
        if kept is None:
            kept = hand.__dict__["_remembered_entry"] = look_up(hand)
        return kept

    monkeypatch.setattr(Hand, "entry", property(entry))


def _cards(cards: str | Iterable[Card]) -> str | tuple[Card, ...]:
    """Cards as PokerKit takes them (text, or Card objects), in a form that can be a key."""
    return cards if isinstance(cards, str) else tuple(cards)
