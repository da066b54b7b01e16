"""Each hand's share of the pot by an enumeration independent of ours: every board still to come,
each evaluated by PokerKit's own evaluator (``StandardHighHand`` for hold'em, ``OmahaHoldemHand``
for Omaha), a tie shared equally; the oracle the broadcast's equities are checked against."""

from __future__ import annotations

import itertools

from pokerkit import Hand


def enumerated_shares(hand_type: type[Hand], hands: dict[int, str], board_text: str, dead: str
                      ) -> dict[int, float]:
    """Each seat's share of the pot over every board that can still come: ``hands`` by seat,
    the board so far and the dead cards (folded, burnt) as card text ("AsKd...")."""
    seen = {c[i:i + 2] for c in [*hands.values(), board_text, dead] for i in range(0, len(c), 2)}
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs" if r + s not in seen]
    won = dict.fromkeys(hands, 0.0)
    runs = list(itertools.combinations(deck, 5 - len(board_text) // 2))
    for extra in runs:
        full = board_text + "".join(extra)
        best = {s: hand_type.from_game(h, full) for s, h in hands.items()}
        top = max(best.values())
        winners = [s for s, h in best.items() if h == top]
        for s in winners:
            won[s] += 1 / len(winners)
    return {s: w / len(runs) for s, w in won.items()}
