"""What the simulated dealer looks for on the table's public state, as a dealer watches the
screen: each test says when the table has taken a move (controller/sim/dealer.py waits on them),
and why a table has no hand to deal, in the floor's words."""

from __future__ import annotations

from collections.abc import Callable

from controller.session.outputs import TableState

Test = Callable[[TableState], bool]


def moved_on(before: TableState) -> Test:
    """The table took the acting seat's move: another seat acts, the round or the hand moved
    on, or the rules ask the dealer about it (a doubt: "seat N: ...")."""
    return lambda state: (
        state.hand != before.hand or state.stage != before.stage
        or state.street != before.street or state.actor != before.actor
        or state.waiting_for.startswith(f"seat {before.actor}:"))


def changed(before: TableState) -> Test:
    """The table took the dealer's move: the hand moved on (a hold, or a clock's tick arriving
    meanwhile changes the state too, but not the hand: pressing again then would be a second
    press the table refuses)."""
    def moved(state: TableState) -> bool:
        return (state.hand, state.stage, state.board, state.waiting_for,
                {n: (v.cards, v.shown, v.folded) for n, v in state.seats.items()}) != (
            before.hand, before.stage, before.board, before.waiting_for,
            {n: (v.cards, v.shown, v.folded) for n, v in before.seats.items()})
    return moved


def zone_reads(hand: int, seat: int, amount: int) -> Test:
    """The seat's zone reads ``amount`` (or the seat is out of it)."""
    return lambda s: (s.hand != hand or seat not in s.seats or not s.seats[seat].in_hand
                      or s.seats[seat].zone == amount)


def race_read(ref: str, seat: int) -> Test:
    """The table has the seat's chip from the race (or the race is over)."""
    def read(state: TableState) -> bool:
        up = state.colour_up
        racer = up.race.get(seat) if up is not None else None
        return (up is None or up.ref != ref or not up.open or racer is None or racer.won)
    return read


def seats_with_chips(state: TableState) -> list[int]:
    return sorted(n for n, v in state.seats.items() if v.stack > 0)


def why_no_hand(state: TableState) -> str:
    """Why a table the tournament seats has no hand to deal, in the floor's words."""
    with_chips = seats_with_chips(state)
    if with_chips:
        seat = with_chips[0]
        return (f"only {state.seats[seat].player} (seat {seat}) has chips: one player left at "
                "the table (balancing brings more, or the tournament has its winner)")
    if not state.seats and state.hand:
        return "nobody sits here any more: the tournament broke the table (PVB 10)"
    return "nobody with chips sits here yet: the tournament seats the players"


def no_longer(why: str) -> Test:
    """Two players with chips at last, or no hand to deal for another reason."""
    return lambda state: len(seats_with_chips(state)) >= 2 or why_no_hand(state) != why


def read_or_gone(state: TableState, seat: int, player: str, stack: int) -> bool:
    """A newcomer's chips laid on his zone: the table read them (or he left, or his stack
    changed: laid again at the next look)."""
    view = state.seats.get(seat)
    return (state.stage not in ("over", "waiting") or view is None or view.player != player
            or view.stack != stack or view.counted is not False)


def deal_order(dealt: list[int], button: int) -> list[int]:
    return [s for s in dealt if s > button] + [s for s in dealt if s <= button]

