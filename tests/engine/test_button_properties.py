"""Properties of the button and the blinds over any run of hands at one table (RULES B2-B4):
players bust and newcomers from broken tables sit down between hands, anywhere, the button
anywhere to begin with, under both dead-button profiles. Every hand:

- the big blind moves exactly one active seat clockwise and is dealt in; it posts the big
  blind (or is all-in for less, R4); the small blind is the last big blind's seat, live while
  that player is still there (PVB 27(1); APSA 5.3);
- button, small blind and big blind follow each other clockwise, no player between the blinds;
- the button stays a second hand only in the cases PVB 27(1) names (``stays`` profile);
- a newcomer is dealt in at once unless he sits between the button and the small blind (or on
  a dead small blind's seat), and then from his second hand (PVB 10(1); APSA 3.1.2.5); the
  table says who sits out and why;

and over the run, between two big blinds of one player every other player who was there the
whole time posted it exactly once: nobody skips it, nobody pays it twice.

``BUTTON_EXAMPLES`` sets the number of runs (``make test``: 200, a few seconds; offline e.g.
``BUTTON_EXAMPLES=20000``).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.engine.profiles import load_profile
from controller.engine.table_play import (
    Leave,
    Level,
    MoveButton,
    Positions,
    SitDown,
    StartHand,
    Table,
)
from tests.engine.helpers import play_out

EXAMPLES = int(os.environ.get("BUTTON_EXAMPLES", "200"))
PROFILES = [load_profile("pvb-2020"),
            load_profile("pvb-2020").model_copy(update={"name": "tda",
                                                        "dead_button": "empty-seat"})]
LEVELS = [Level(sb=50, bb=100), Level(sb=50, bb=100, bb_ante=100), Level(sb=50, bb=100, ante=10)]
# Stacks of newcomers: some cannot post a whole blind (R4) and bust posting it.
STACKS = [30, 80, 150, 2_000, 10_000]


@dataclass
class Hand:
    """What one hand was: its positions, who was in play at its start, the newcomers."""

    number: int
    positions: Positions
    players: dict[int, str]  # seat -> player in play at the start
    newcomers: set[int]  # seats that sat down since the last hand began


def clockwise(seat_count: int, after: int) -> list[int]:
    return [(after + k - 1) % seat_count + 1 for k in range(1, seat_count + 1)]


def between(seat_count: int, seat: int, after: int, before: int) -> bool:
    order = clockwise(seat_count, after)
    return order.index(seat) < order.index(before)


def check_hand(table: Table, hand: Hand, last: Hand | None, stacks: dict[int, int]) -> None:
    """The rules of one hand just started, against the one before it."""
    n = table.seat_count
    p, players = hand.positions, hand.players
    in_play = sorted(players)
    heads_up = len(in_play) == 2
    assert p.bb in p.dealt and p.bb in players
    # The big blind is posted, or the player is all-in for less (R4), after his ante.
    level = table.hand_level
    assert table.hand is not None
    posted = {p.dealt[a.player]: a.amount for a in table.hand.log
              if a.kind == "blind" and a.player is not None}
    ante = min(stacks[p.bb], level.ante + level.bb_ante)
    assert posted.get(p.bb, 0) == min(level.bb, stacks[p.bb] - ante)
    if p.sb_live:
        assert p.sb in p.dealt
        ante = min(stacks[p.sb], level.ante)
        assert posted.get(p.sb, 0) == min(level.sb, stacks[p.sb] - ante)
    assert set(posted) <= {p.bb, p.sb if p.sb_live else p.bb}  # no other blind, none twice
    # Button, small blind, big blind clockwise; no player between the blinds.
    if heads_up:
        assert p.button == p.sb and p.sb_live and p.sb in players
    else:
        assert between(n, p.sb, p.button, p.bb)
        assert not any(between(n, s, p.sb, p.bb) for s in in_play)
    if last is not None:
        # B2: the big blind moves exactly one active seat clockwise.
        assert p.bb == next(s for s in clockwise(n, last.positions.bb) if s in players)
        if not heads_up:
            old_bb = last.positions.bb
            assert p.sb == old_bb
            assert p.sb_live == (old_bb in players and old_bb not in hand.newcomers)
            check_button(table, hand, last)
    # B4: newcomers between the button and the small blind (or on a dead small blind's seat)
    # sit out this hand; everyone else with chips is dealt in.
    waiting: set[int] = set()
    if not heads_up:
        waiting = {s for s in range(1, n + 1) if between(n, s, p.button, p.sb)}
        if not p.sb_live:
            waiting.add(p.sb)
    out = {s for s in in_play if s in waiting and s in hand.newcomers}
    if len(in_play) - len(out) < 2:
        out = set()  # nobody could play otherwise: the newcomer plays (docs/rules.md B4)
    assert set(p.dealt) == set(in_play) - out
    assert table.sitting_out() == dict.fromkeys(sorted(out), "PVB 10(1)")
    # ... and from his second hand on, he is dealt in wherever he sits (APSA 3.1.2.5).
    if last is not None:
        for seat in set(last.players) - set(last.positions.dealt):
            if players.get(seat) == last.players[seat]:
                assert seat in p.dealt


def check_button(table: Table, hand: Hand, last: Hand) -> None:
    """The button moves onto the last small blind's seat; under ``stays`` it stays a second
    hand where it was when that small blind busted or left, after a dead small blind, and
    when a newcomer arrived on the big blind's seat (PVB 27(1)). Where the big blind has gone
    round past the seat it would take, it goes before the small blind (APSA 5.3)."""
    n = table.seat_count
    p, lp = hand.positions, last.positions
    players = hand.players
    posted_and_plays = lp.sb_live and players.get(lp.sb) == last.players.get(lp.sb)
    stays = table.profile.dead_button == "stays" and (
        not posted_and_plays or p.bb in hand.newcomers)
    wanted = lp.button if stays else lp.sb
    if between(n, wanted, p.bb, p.sb):
        assert p.button == wanted
    else:
        assert between(n, p.button, p.bb, p.sb)
        assert p.button == lp.sb or p.button in players
    if p.button == lp.button and lp.button != lp.sb and lp.sb != p.button:
        assert table.profile.dead_button == "stays" and stays  # only PVB 27(1)'s cases


def check_orbits(hands: list[Hand]) -> None:
    """Between two big blinds of one player, every other player there throughout posted it
    exactly once."""
    posted: dict[str, list[int]] = {}
    for k, hand in enumerate(hands):
        posted.setdefault(hand.players[hand.positions.bb], []).append(k)
    for player, ks in posted.items():
        for i, j in itertools.pairwise(ks):
            there = set.intersection(*(set(h.players.values()) for h in hands[i:j + 1]))
            for other in there - {player}:
                times = sum(1 for h in hands[i + 1:j]
                            if h.players[h.positions.bb] == other)
                assert times == 1, (player, other, i, j)


@settings(max_examples=EXAMPLES)
@given(data=st.data(), seat_count=st.integers(2, 10), profile=st.sampled_from(PROFILES),
       level=st.sampled_from(LEVELS))
def test_b2_b4_the_big_blind_goes_round_in_order_whoever_busts_or_arrives(
    data: st.DataObject, seat_count: int, profile: object, level: Level,
) -> None:
    table = Table(profile=profile, level=level, seats=seat_count)  # type: ignore[arg-type]
    seats = range(1, seat_count + 1)
    first = data.draw(st.sets(st.sampled_from(seats), min_size=2), label="first seats")
    names = iter(f"P{k}" for k in range(1000))
    for seat in sorted(first):
        table.apply(SitDown(seat=seat, player=next(names), stack=data.draw(
            st.sampled_from(STACKS[2:]), label="stack")))
    table.apply(MoveButton(seat=data.draw(st.sampled_from(sorted(first)), label="button")))
    hands: list[Hand] = []
    newcomers: set[int] = set()
    for _ in range(data.draw(st.integers(1, 25), label="hands")):
        in_play = {s: st_.player for s, st_ in table.seats.items() if st_.stack > 0}
        if len(in_play) < 2:
            break
        stacks = table.stacks()
        table.apply(StartHand())
        assert table.positions is not None
        hand = Hand(table.hand_number, table.positions, in_play, newcomers & set(in_play))
        check_hand(table, hand, hands[-1] if hands else None, stacks)
        hands.append(hand)
        play_out(table)
        newcomers = set()
        # Between hands: players bust (or leave for another table), newcomers sit down.
        for seat in data.draw(st.lists(st.sampled_from(seats), max_size=3, unique=True),
                              label="busts"):
            if seat in table.seats and len(table.seats) > 2:
                table.apply(Leave(seat=seat))
        for seat in data.draw(st.lists(st.sampled_from(seats), max_size=3, unique=True),
                              label="newcomers"):
            if seat not in table.seats:
                table.apply(SitDown(seat=seat, player=next(names),
                                    stack=data.draw(st.sampled_from(STACKS), label="stack")))
                newcomers.add(seat)
    check_orbits(hands)
