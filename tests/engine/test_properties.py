"""Properties: chips are conserved at every step of a hand; no operation sequence crashes the
table; a refused operation changes nothing; replaying the log rebuilds the same state."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from controller.engine.cards import card_text
from controller.engine.hand import Stage
from controller.engine.table_play import Level, SitDown, StartHand, Table, rebuild
from controller.errors import PokertableError

OPS = st.one_of(
    st.builds(lambda seat: {"op": "fold", "seat": seat}, st.integers(0, 11)),
    st.builds(lambda seat: {"op": "check", "seat": seat}, st.integers(0, 11)),
    st.builds(lambda seat: {"op": "call", "seat": seat}, st.integers(0, 11)),
    st.builds(lambda seat, to: {"op": "bet_or_raise", "seat": seat, "to": to},
              st.integers(0, 11), st.integers(-5, 30_000)),
    st.builds(lambda c: {"op": "deal_board", "cards": c},
              st.lists(st.integers(0, 51), min_size=0, max_size=4).map(
                  lambda cs: "".join(card_text(c) for c in cs))),
    st.builds(lambda seat, c: {"op": "deal_hole", "seat": seat, "cards": c},
              st.integers(0, 11), st.text("AKQJT98765432shdc?x", max_size=6)),
    st.just({"op": "settle"}),
    st.just({"op": "start_hand"}),
    st.builds(lambda seat: {"op": "show", "seat": seat}, st.integers(0, 11)),
    st.builds(lambda seat: {"op": "muck", "seat": seat}, st.integers(0, 11)),
    st.builds(lambda seat, stack: {"op": "sit_down", "seat": seat, "player": "x", "stack": stack},
              st.integers(0, 11), st.integers(-1, 5_000)),
    st.builds(lambda seat: {"op": "leave", "seat": seat}, st.integers(0, 11)),
    st.just({"op": "nonsense"}),
    st.just({"seat": 3}),
)


def snapshot(table: Table) -> object:
    hand = table.hand
    return (
        table.stacks(), table.positions, len(table.records),
        None if hand is None else (list(hand.stacks), list(hand.bets), list(hand.contributions),
                                   hand.dead_money, hand.actor, hand.stage, len(hand.log)),
    )


def total_chips(table: Table) -> int:
    hand = table.hand
    if hand is None or hand.stage is Stage.OVER:
        return sum(table.stacks().values())
    assert table.positions is not None
    sitting_out = sum(s.stack for seat, s in table.seats.items()
                      if seat not in table.positions.dealt)
    return hand.chips_in_play() + sitting_out


@settings(max_examples=300)
@given(st.lists(OPS, max_size=60), st.integers(2, 6))
def test_random_operations_never_crash_and_refusals_change_nothing(
    ops: list[dict[str, object]], players: int
) -> None:
    table = Table(level=Level(sb=50, bb=100, ante=10))
    for seat in range(1, players + 1):
        table.apply(SitDown(seat=seat, player=f"P{seat}", stack=2_000 * seat))
    table.apply(StartHand())
    for op in ops:
        before = snapshot(table)
        chips = total_chips(table)
        try:
            table.apply(op)
        except (PokertableError, ValidationError):
            assert snapshot(table) == before  # a clear refusal, nothing else changes
            continue
        if op.get("op") in ("sit_down", "leave"):
            continue
        assert total_chips(table) == chips  # chips are conserved


@settings(max_examples=200)
@given(st.data(), st.integers(2, 9), st.sampled_from(["NT", "PO"]))
def test_chips_in_play_never_change_within_a_hand(data: st.DataObject, n: int, game: str) -> None:
    from controller.engine.profiles import RuleProfile

    table = Table(profile=RuleProfile(name="t", game=game),  # type: ignore[arg-type]
                  level=Level(sb=25, bb=50, bb_ante=50, smallest_chip=25))
    for seat in range(1, n + 1):
        stack = data.draw(st.integers(60, 5_000))
        table.apply(SitDown(seat=seat, player=f"P{seat}", stack=stack))
    start = sum(table.stacks().values())
    deck = iter(data.draw(st.permutations(range(52))))
    for _ in range(3):
        if len(table.seats) < 2:
            break
        table.apply(StartHand())
        hand = table.hand
        assert hand is not None and table.positions is not None
        per = 2 if game == "NT" else 4
        for seat in table.positions.dealt:
            table.apply({"op": "deal_hole", "seat": seat,
                         "cards": "".join(card_text(next(deck)) for _ in range(per))})
        while hand.stage is not Stage.OVER:
            assert hand.chips_in_play() == sum(hand.starting_stacks)
            options = hand.options()
            if hand.stage is Stage.BETTING and options is not None:
                seat = table.seat_of(options.player)
                moves = ["call" if options.to_call else "check"]
                if options.to_call:
                    moves.append("fold")
                if options.min_raise_to is not None:
                    moves.append("raise")
                move = data.draw(st.sampled_from(moves))
                if move == "raise":
                    assert options.max_raise_to is not None
                    to = data.draw(st.integers(options.min_raise_to, options.max_raise_to))
                    table.apply({"op": "bet_or_raise", "seat": seat, "to": to})
                else:
                    table.apply({"op": move, "seat": seat})
            elif hand.stage is Stage.DEALING:
                count = 3 if not hand.board else 1
                table.apply({"op": "deal_board",
                             "cards": "".join(card_text(next(deck)) for _ in range(count))})
            else:
                table.apply({"op": "settle"})
        deck = iter(data.draw(st.permutations(range(52))))
        assert sum(table.stacks().values()) == start
    # replaying the log rebuilds the same table, deterministically
    again = rebuild(copy.deepcopy(table.log), profile=table.profile,
                    level=Level(sb=25, bb=50, bb_ante=50, smallest_chip=25))
    assert again.records == table.records and again.stacks() == table.stacks()
