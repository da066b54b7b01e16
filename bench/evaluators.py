"""Hand evaluators compared: 7-card hold'em and Omaha evaluations per second, same hands.

phevaluator is the engine's choice; PokerKit (a dev dependency) is always measured beside it.
eval7 and treys are measured when installed (`pip install eval7 treys`), as they were for the
choice recorded in the README.

    .venv/bin/python bench/evaluators.py [--quick]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from controller.engine.cards import card_text
from controller.engine.evaluate import holdem_strength, omaha_strength

HANDS = 20_000


def rate(fn: Callable[[list[int]], object], hands: list[list[int]]) -> float:
    started = time.perf_counter()
    for cards in hands:
        fn(cards)
    return len(hands) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5,000 hands instead of 20,000")
    count = 5_000 if parser.parse_args().quick else HANDS
    rng = random.Random(1)
    hands = [rng.sample(range(52), 9) for _ in range(count)]
    rows: list[tuple[str, str, float | None]] = []
    rows.append(("phevaluator (ours)", "hold'em 7", rate(
        lambda c: holdem_strength(c[:2], c[2:7]), hands)))
    rows.append(("phevaluator (ours)", "Omaha 4+5", rate(
        lambda c: omaha_strength(c[:4], c[4:9]), hands)))

    from pokerkit import OmahaHoldemHand, StandardHighHand

    texts = [[card_text(x) for x in c] for c in hands[:count // 4]]
    rows.append(("PokerKit StandardHighHand", "hold'em 7", rate(
        lambda t: StandardHighHand.from_game("".join(t[:2]), "".join(t[2:7])),
        texts)))
    rows.append(("PokerKit OmahaHoldemHand", "Omaha 4+5", rate(
        lambda t: OmahaHoldemHand.from_game("".join(t[:4]), "".join(t[4:9])),
        texts)))
    try:
        import eval7

        cards7 = [[eval7.Card(card_text(x)) for x in c[:7]] for c in hands]
        rows.append(("eval7", "hold'em 7", rate(eval7.evaluate, cards7)))
    except ImportError:
        rows.append(("eval7 (not installed)", "hold'em 7", None))
    try:
        from treys import Card as TreysCard
        from treys import Evaluator

        evaluator = Evaluator()
        tcards = [[TreysCard.new(card_text(x)) for x in c[:7]] for c in hands[:count // 4]]
        rows.append(("treys", "hold'em 7", rate(
            lambda c: evaluator.evaluate(c[:2], c[2:7]), tcards)))
    except ImportError:
        rows.append(("treys (not installed)", "hold'em 7", None))
    print(f"{len(hands):,} random hands (PokerKit and treys: the first {len(hands) // 4:,}); "
          "PokerKit is the reference in the same run")
    print(f"{'evaluator':<28}{'game':<12}{'hands/s':>12}")
    for name, game, value in rows:
        print(f"{name:<28}{game:<12}{'-' if value is None else f'{value:,.0f}':>12}")


if __name__ == "__main__":
    main()
