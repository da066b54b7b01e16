"""The simulated dealer at a cash table (the CG): the players' straddles put out before the cards
(CG "Straddle"), a bomb pot, flip or double board asked for now and then by the dealer's
console (CG "Spielvarianten"), and run it twice after an all-in, by the dealer's confirm key
heads-up or the floor's command with more players (CG "Run It Twice"). The boards' cards go on
the one board antenna in the order the table reads them: each street's for board 1, then board 2;
run 1, then run 2. A player who lost his chips keeps his seat (CG "Table Stake"): now and then
he buys again, the dealer selling him a stack and laying it on his zone for the readers;
otherwise he goes home, the dealer letting him go (where the cash floor seats the players, its
floor does: controller/demo/cash_room.py).

Functions over a `SimulatedDealer` (controller/sim/dealer.py), which calls them where a
cash table's hand differs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from controller.events import CommandEvent, SeatEvent
from controller.session.outputs import TableState
from controller.sim.hands import DealerStuck

if TYPE_CHECKING:
    from controller.sim.dealer import SimulatedDealer

STRADDLE_CHANCE = 0.2  # a hand with a straddle (and then a second live one, now and then)
VARIANT_CHANCE = 0.04  # the next hand a bomb pot, a flip or a double board
RUN_TWICE_CHANCE = 0.5  # the players agree to run it twice when they may
DECK = 52
RUN = 5 + 3  # one board's cards and its three burn cards
ALL_IN = 0.1  # at a cash table on hardware: the chance that a raise is all in
REBUY_CHANCE = 0.5  # a player who lost his chips buys again (otherwise he goes home)
READ_SECONDS = 1.0  # a stack laid on a zone lies still this long: the readers settle (R9)
REBUY_LEAST = 20  # big blinds: a rebuy smaller than this the chip case cannot spare is none
OFFER_KEY = "(or run it twice: every player agrees, confirm)"
OFFER_FLOOR = "(run it twice: with the floor"


def at_table(dealer: SimulatedDealer, cash: bool) -> SimulatedDealer:
    """The dealer at a table whose rule profile is a cash game's: he deals its straddles,
    variants and runs twice, and a raise is now and then all in (there is no run it twice
    without an all-in)."""
    if cash:
        dealer.cash = True
        dealer.all_in = max(dealer.all_in, ALL_IN)
    return dealer


def ask_variant(dealer: SimulatedDealer, state: TableState) -> None:
    """Between hands, now and then: the next hand is a bomb pot, a flip or a double board (the
    dealer's console sends the command the floor page sends)."""
    if dealer.rng.random() >= VARIANT_CHANCE or state.next_variant is not None:
        return
    # Two boards need the cards for them: not in a ten-handed Omaha hand (40 hole cards, two
    # boards and their burns are 56); the dealer offers them only where the deck holds them.
    players = sum(1 for v in state.seats.values() if v.stack > 0)
    two = dealer.hole_cards * players + 2 * RUN <= DECK
    kind = dealer.rng.choice(["bomb-pot", "bomb-pot", "flip"] + ["double-board"] * two)
    args: dict[str, object] = {"kind": kind}
    if kind != "double-board":
        args |= {"amount": state.blinds.bb * dealer.rng.choice([1, 2, 5]),
                 "double_board": two and dealer.rng.random() < 0.3}
    dealer.hands.submit(CommandEvent(name="variant", args=args, by="dealer"))
    dealer.hands.wait(lambda s: s.next_variant is not None)


def variant_amount(state: TableState) -> int:
    """What every player puts in in a bomb pot or flip (0 in a regular hand)."""
    variant = state.variant
    return variant.amount if variant is not None and variant.variant is not None else 0


def straddle(dealer: SimulatedDealer, state: TableState) -> None:
    """Now and then, with the blinds out and before the cards: the player left of the big blind
    straddles (twice the big blind), and now and then the next one again (twice that); where
    the table plays no live straddle, the button or another player (CG Straddle)."""
    kinds = state.straddle_kinds
    if not kinds or variant_amount(state) or dealer.rng.random() >= STRADDLE_CHANCE:
        return
    dealt = [s for s, v in sorted(state.seats.items()) if v.in_hand]
    if len(dealt) < 3 or state.bb is None or state.bb not in dealt:
        return
    button = state.button or dealt[0]
    order = [s for s in dealt if s > button] + [s for s in dealt if s <= button]
    after_bb = order[order.index(state.bb) + 1:]
    if not after_bb:
        return
    amount = 2 * state.blinds.bb
    if "live" in kinds:
        seats = after_bb[:1 + (dealer.rng.random() < 0.25 and len(after_bb) > 1)]
    elif "button" in kinds and button in after_bb:
        seats = [button]
    else:
        seats = [dealer.rng.choice(after_bb)]
    hand = state.hand
    for seat in seats:
        view = state.seats[seat]
        if view.stack <= amount * 3:  # a short stack does not straddle
            return
        dealer.hands.chips_in(f"seat:{seat}", dealer._pick(amount))
        dealer.hands.wait(_straddled(hand, seat))
        amount *= 2


def _straddled(hand: int, seat: int) -> Callable[[TableState], bool]:
    """The table read the seat's straddle (or the hand moved on)."""
    return lambda state: state.hand != hand or seat in state.straddles


def board_cards_due(state: TableState) -> int:
    """How many board cards come next: 3 for a flop, 1 for a turn or river, on the board (or
    run) that is due: board 1's street then board 2's; run 1 complete, then run 2."""
    if not state.boards:
        return 1 if state.board else 3
    lengths = [len(b) // 2 for b in state.boards]
    double = state.variant is not None and state.variant.boards > 1
    k = min(range(len(lengths)), key=lambda b: (lengths[b], b)) if double else (
        0 if lengths[0] < 5 else 1)
    return 3 if lengths[k] == 0 else 1


def run_twice(dealer: SimulatedDealer, state: TableState) -> bool:
    """After an all-in, the cards due and the pot big enough: the players agree now and then to
    run it twice, the dealer confirming heads-up, the floor's command with more players (CG
    Run It Twice b, e). Whether it was asked for (the dealer then waits for the table)."""
    heads_up = OFFER_KEY in state.waiting_for
    if not heads_up and OFFER_FLOOR not in state.waiting_for:
        return False
    if dealer.rng.random() >= RUN_TWICE_CHANCE:
        return False
    # The rest of the board twice, each street with its burn card, from what the stub holds:
    # never in a ten-handed Omaha hand from the flop (12 cards left, 16 wanted)
    dealt = len(state.board) // 2
    if 2 * ((5 - dealt) + (3 if dealt == 0 else 5 - dealt)) > len(dealer.stub):
        return False
    if heads_up:
        dealer.hands.press("confirm")
    else:
        dealer.hands.submit(CommandEvent(name="run_twice", by="floor:simulated"))
    hand = state.hand
    dealer.hands.wait(lambda s: s.hand != hand or len(s.boards) > 1)
    return True


def no_chips(dealer: SimulatedDealer) -> None:
    """Between hands: each player with no chips left (he keeps his seat at a cash table, CG
    Table Stake) buys again now and then, within what the chip case can spare (the dealer lays
    the chips he sells on his zone for the readers to count: a buy-in read between hands; where
    no chips are read the floor enters them), or goes home."""
    state = dealer.hands.last()
    if state is None or state.stage not in ("over", "waiting"):
        return
    busted = [(s, v.player) for s, v in sorted(state.seats.items()) if v.stack == 0]
    if not busted:
        return
    dealer._clear_zones()
    for seat, player in busted:
        if dealer.rng.random() < REBUY_CHANCE and _rebuy(dealer, seat, player):
            continue
        if not dealer.seated_by_floor:  # (the cash floor's players go by its floor's leave)
            dealer.hands.submit(SeatEvent(seat=seat, player=None))
            dealer.hands.wait(_gone(seat, player))


def _rebuy(dealer: SimulatedDealer, seat: int, player: str) -> bool:
    """He buys a stack (the dealer's, or what the chip case can spare); whether he did."""
    state = dealer.hands.last()
    assert state is not None
    bb = state.blinds.bb or 1
    spare = dealer.case_total // 2 - sum(v.stack for v in state.seats.values())
    amount = min(dealer.stack, spare) // bb * bb
    if amount < REBUY_LEAST * bb:
        return False
    if dealer.reads_chips:
        try:
            chips = dealer._pick(amount)
        except DealerStuck:
            return False
        dealer._push(f"seat:{seat}", chips)
        dealer.hands.pause(READ_SECONDS)  # the readers read the stack once it lies still
        dealer._clear_zones()  # the count is complete once the zone is empty again
    else:
        dealer.hands.submit(CommandEvent(name="stack", by="floor:simulated", args={
            "seat": seat, "player": player, "add": amount, "reason": "a rebuy",
            "ref": f"rebuy:{state.hand}:{seat}"}))
    try:
        dealer.hands.wait(lambda s: _gone(seat, player)(s) or s.seats[seat].stack > 0)
    except DealerStuck:  # (the readers missed it: he goes home, nothing else is wrong)
        return False
    return True


def _gone(seat: int, player: str) -> Callable[[TableState], bool]:
    return lambda s: seat not in s.seats or s.seats[seat].player != player


__all__ = ["ALL_IN", "ask_variant", "at_table", "board_cards_due", "no_chips", "run_twice",
           "straddle", "variant_amount"]
