"""Seats and the button: where the button and the blinds are for the next hand and who is dealt
in (RULES B1 to B4: the first button, the dead button, heads-up, newcomers), and who sits out the
hand in play and why.

Functions of a `Table`, which carries the public ones as its methods (`table.next_positions()`,
`table.sitting_out()`); they read its seats and the last hands' positions and change nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from controller.errors import HandStateError

if TYPE_CHECKING:
    from controller.engine.table_play import Table


class Positions(BaseModel):
    model_config = ConfigDict(frozen=True)

    button: int  # a seat; an empty one is a dead button
    sb: int  # the small blind's position; dead when ``sb_live`` is false
    sb_live: bool
    bb: int
    dealt: tuple[int, ...]  # seats dealt in, in action order from left of the button


def clockwise(table: Table, after: int) -> list[int]:
    """Seat numbers clockwise, starting with the seat after ``after``."""
    n = table.seat_count
    return [(after + k - 1) % n + 1 for k in range(1, n + 1)]


def in_play(table: Table, seat: int) -> bool:
    state = table.seats.get(seat)
    return state is not None and state.stack > 0


def _settled(table: Table, seat: int) -> bool:
    """A player with chips who was at the table for the last hand (not a newcomer)."""
    state = table.seats.get(seat)
    return state is not None and state.stack > 0 and not state.new


def _between(table: Table, seat: int, after: int, before: int) -> bool:
    """Whether ``seat`` lies clockwise strictly after ``after`` and before ``before``."""
    order = clockwise(table, after)
    return order.index(seat) < order.index(before)


def next_positions(table: Table) -> Positions:
    """Button, blinds and the seats dealt in for the next hand (RULES B1 to B4)."""
    players = [s for s in range(1, table.seat_count + 1) if in_play(table, s)]
    if len(players) < 2:
        raise HandStateError("a hand needs at least two players with chips", "PVB 27")
    redeal = table._redeal_positions
    if redeal is not None and all(in_play(table, s) for s in redeal.dealt):
        # A void hand is dealt again by the same button to the same seats (PVB 30, 33); a
        # player who sat down since waits for it (`sitting_out` says why).
        return redeal
    last = None if redeal is not None else table.blinds_positions
    if last is None:  # B1: seat 1 (PVB 26a) or the high-card draw (PVB 26b)
        start = 1
        if redeal is not None:  # a player left after a void hand: same button, new blinds
            start = redeal.button
        elif table.forced_button is not None:
            start = table.forced_button
        elif table.profile.button_start == "high-card":
            if table.draw_winner is None:
                raise HandStateError("draw for the button first (high-card draw)", "PVB 26b")
            start = table.draw_winner
        button = next(s for s in clockwise(table, start - 1) if in_play(table, s))
        if len(players) == 2:
            (bb,) = [s for s in players if s != button]
            return _positions(table, button, button, True, bb)
        sb = next(s for s in clockwise(table, button) if in_play(table, s))
        bb = next(s for s in clockwise(table, sb) if in_play(table, s))
        return _positions(table, button, sb, True, bb)
    # B2: the big blind moves exactly one player clockwise; nobody skips it or pays it twice.
    # A newcomer is a player here: on the seat it reaches he posts it at once (B4).
    bb = next(s for s in clockwise(table, last.bb) if in_play(table, s))
    if len(players) == 2:
        # B3: heads-up the button posts the small blind; the big blind has moved on, so
        # nobody posts it twice in a row (PVB 28(2)).
        (other,) = [s for s in players if s != bb]
        return _positions(table, other, other, True, bb)
    # The small blind is the last big blind's seat: live if he is still there to post it.
    sb = last.bb
    sb_live = _settled(table, sb)
    button = last.sb
    # The dead button is obligatory, the button stays a second hand where it was, when the
    # last small blind busted (or left: a newcomer on his seat did not post it), after a
    # dead small blind, and when a newcomer arrived on the big blind's position (PVB 27(1);
    # APSA 5.3; BPS 6). A newcomer is one who sat down since the last hand: one who sat
    # out that hand between the button and the small blind arrived before it.
    if table.profile.dead_button == "stays" and (
            not (last.sb_live and _settled(table, last.sb)) or table.seats[bb].new):
        button = last.button
    if not _between(table, button, bb, sb):
        # The big blind has gone round past the button (the seats after the small blind
        # up to it are empty): it cannot stay, for the small blind and the big blind must
        # follow it in this order. The big blind's order comes first and the button is
        # adapted (APSA 5.3): it moves to the last small blind's seat as B2 moves it, or,
        # where that is the big blind's seat, to the first player before the small blind.
        if _between(table, last.sb, bb, sb):
            button = last.sb
        else:
            order = clockwise(table, bb)
            button = [s for s in order[: order.index(sb)] if in_play(table, s)][-1]
    return _positions(table, button, sb, sb_live, bb)


def _positions(table: Table, button: int, sb: int, sb_live: bool, bb: int) -> Positions:
    """Seats dealt in: everyone with chips, except a newcomer sitting between the button
    and the small blind, or on a dead small blind's seat (RULES B4, PVB 10(1)), unless
    that left fewer than two to deal; in action order from left of the button. The big
    blind is always dealt in (he posts it, or is all-in for less: R4)."""
    order = clockwise(table, button)
    waiting = _waiting_seats(table, button, sb, sb_live)
    assert bb not in waiting, "the big blind lies between the button and the small blind"
    dealt = tuple(
        s for s in order
        if in_play(table, s) and not (s in waiting and table.seats[s].new)
    )
    if len(dealt) < 2:  # sitting out would leave no hand to play: the new player plays
        dealt = tuple(s for s in order if in_play(table, s))
    return Positions(button=button, sb=sb, sb_live=sb_live, bb=bb, dealt=dealt)


def _waiting_seats(table: Table, button: int, sb: int, sb_live: bool) -> set[int]:
    """Where a newcomer gets no cards (PVB 10(1); BPS 23; APSA 3.1.2.5): the seats
    clockwise after the button and before the small blind, and the small blind's own seat
    when it is dead (he would play without posting it). Heads-up there are none."""
    if button == sb:
        return set()
    order = clockwise(table, button)
    return set(order[: order.index(sb) + (0 if sb_live else 1)])


def sitting_out(table: Table) -> dict[int, str]:
    """Players with chips the hand in play (or the last one) did not deal in, each with
    the rule: a newcomer between the button and the small blind (PVB 10(1)), or one who
    sat down after a void hand that is dealt again to its seats (PVB 33). Those who sat
    down since it began are not named: it was not their hand."""
    p = table.positions
    if p is None:
        return {}
    out = [s for s, state in sorted(table.seats.items())
           if s not in p.dealt and state.stack > 0 and not state.new]
    if not out:  # (nearly always: the table's public state asks after every change)
        return {}
    waiting = _waiting_seats(table, p.button, p.sb, p.sb_live)
    return {s: "PVB 10(1)" if s in waiting else "PVB 33" for s in out}
