"""The deal of one hand: antes and blinds posted before the cards, the hole cards (and a card
drawn from a player who held one too many), the board street by street to the board that is due,
and running the rest of the board twice. Every card is registered as seen; one seen twice fouls
the deck.

Functions of a `Hand`, which carries them as its methods (`hand.deal_board(cards)`); each checks
the rules first and changes nothing when it refuses. A street's board cards open its betting
round (`controller.engine.betting_round`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from operator import attrgetter, not_
from typing import TYPE_CHECKING

from controller.engine.betting_round import continue_from, start_round
from controller.engine.boards import street_of
from controller.engine.cards import card_text
from controller.engine.terms import BOARD_CARDS, HOLE_CARDS, STREET_NAMES, Act, Stage, Street
from controller.errors import FouledDeck, HandStateError

if TYPE_CHECKING:
    from controller.engine.hand import Hand

_new_act = tuple.__new__
# The street the next board cards are on, by the board's cards so far.
_NEXT_STREET = {0: Street.FLOP, 3: Street.TURN, 4: Street.RIVER}
# Enum members as module globals (issue 37: an enum member's lookup is eight times a global's)
_BETTING, _DEALING, _SHOWDOWN, _OVER = Stage.BETTING, Stage.DEALING, Stage.SHOWDOWN, Stage.OVER
_PREFLOP, _FLOP = Street.PREFLOP, Street.FLOP
_ANTE, _BLIND = attrgetter("ante"), attrgetter("blind")  # (of a PlayerSetup or PlainPlayer)


def post_forced_bets(hand: Hand) -> None:
    """Antes and blinds, posted together before the deal (APSA 5.4.1, RULES H4).

    A player who cannot cover them is all-in for what he has (RULES R4); the ante comes first.
    """
    players = hand.setup.players
    stacks, log, street = hand.stacks, hand.log, hand.street
    antes = list(map(_ANTE, players))  # (itemgetters in C: a hand's set-up is per-hand cost)
    blinds = list(map(_BLIND, players))
    ante_posters = hand.n - antes.count(0)
    if ante_posters:
        dead = hand.setup.dead_antes or ante_posters == 1
        for i, owed in enumerate(antes):
            ante = owed if owed < stacks[i] else stacks[i]
            if ante:
                stacks[i] -= ante
                if dead:
                    hand.dead_money += ante
                else:
                    hand.contributions[i] += ante
                log.append(_new_act(Act, (street, i, "ante", ante, (), False, 0)))
    for i in compress(range(hand.n), blinds):  # (the seats that post one: two or three)
        owed = blinds[i]
        blind = owed if owed < stacks[i] else stacks[i]
        if blind:
            stacks[i] -= blind
            hand.bets[i] = blind
            hand.contributions[i] += blind
            log.append(_new_act(Act, (street, i, "blind", blind, (), False, 0)))
    hand.all_in = list(map(not_, stacks))  # (all-in: no chips left)
    hand._can_bet = list(map(bool, stacks))  # (nobody has folded yet)
    hand._betting_count = hand.all_in.count(False)
    top_blind = max(blinds)
    big_blind = hand.setup.big_blind if hand.setup.big_blind is not None else top_blind
    hand.current_bet = max(big_blind, max(hand.bets))
    hand.min_raise = max(hand.setup.min_bet, top_blind)
    if hand.betting == "split-limit":
        # The small bet preflop (CG Limits, APSA 5.2); the big blind is the round's bet, so
        # three raises follow it (CG Raise).
        hand.min_raise = hand.setup.limit_bet(_PREFLOP)
        hand.full_bets = 1 if hand.current_bet else 0
    # Preflop the first to act sits after the largest blind (the later one on a tie); a big
    # blind posted out of position (CG Blinds: a seat change) is live but moves nothing.
    opener = 0
    top, posted = top_blind, hand.setup.posted
    if posted:
        blinds = [0 if i in posted else b for i, b in enumerate(blinds)]
        top = max(blinds)
    if top:
        largest = hand.n - 1 - blinds[::-1].index(top)
        opener = (largest + 1) % hand.n
    hand._to_act = hand._can_bet.copy()
    if hand.variant is not None:
        # CG Spielvarianten: a bomb pot's flop, and a flip's whole board, come without a
        # betting round
        hand.stage = _DEALING
        return
    continue_from(hand, opener)


def take_cards(hand: Hand, cards: Sequence[int | None]) -> None:
    """Register cards as seen this hand; a card seen twice fouls the deck (RULES I4)."""
    seen = hand._seen
    grown = seen.union(cards)
    if len(grown) == len(seen) + len(cards) and None not in grown:
        hand._seen = grown  # type: ignore[assignment]  # (no None: just checked)
        return  # every card new and none twice: the common case, in one set operation
    known = [c for c in cards if c is not None]
    if seen.isdisjoint(known) and len(set(known)) == len(known):
        seen.update(known)
        return
    for k, c in enumerate(known):
        if c in seen or c in known[:k]:
            raise FouledDeck(
                f"{card_text(c)} was seen twice in this hand: fouled deck, the hand is void",
                "PVB 33",
            )


# ---------------------------------------------------------------- hole cards

def verify_deal_hole(hand: Hand, i: int, cards: Sequence[int | None]) -> None:
    if not 0 <= i < hand.n:
        raise HandStateError(f"there is no player {i + 1} in this hand", "PVB 30(2)")
    wanted = HOLE_CARDS[hand.game]
    if hand.hole[i] or len(cards) != wanted:
        had = len(hand.hole[i]) + len(cards)
        raise HandStateError(
            f"{hand.labels[i]} would hold {had} cards instead of {wanted}", "PVB 30(6)"
        )
    if hand.stage is _OVER:
        raise HandStateError("the hand is over", "PVB 22")


def deal_hole(hand: Hand, i: int, cards: Sequence[int | None]) -> None:
    """Hole cards for player ``i`` (``None`` for a card nobody saw). (The checks' common
    outcome, and the deck's, are tested here first, without a call: every player's deal of a
    replay comes this way.)"""
    hole = hand.hole
    if not (0 <= i < hand.n and not hole[i] and len(cards) == HOLE_CARDS[hand.game]
            and hand.stage is not _OVER):
        verify_deal_hole(hand, i, cards)  # (raises: says what is wrong)
    seen = hand._seen
    grown = seen.union(cards)
    if len(grown) == len(seen) + len(cards) and None not in grown:
        hand._seen = grown  # type: ignore[assignment]  # (no None: just checked)
    else:
        take_cards(hand, cards)  # (a card nobody saw, or one seen twice: fouled deck)
    hole[i] = list(cards)
    hand.log.append(_new_act(Act, (hand.street, i, "deal_hole", 0, tuple(cards), False, 0)))


def draw_hole_card(hand: Hand, i: int, keeps: list[int | None], drawn: int | None) -> None:
    """PVB 30(6): player ``i`` held one card too many; the floor drew ``drawn`` (the next
    burn card) and the player keeps ``keeps``. The deal in the hand's history becomes the
    cards he plays; the drawn card stays seen, so it cannot come again."""
    wanted = HOLE_CARDS[hand.game]
    if not 0 <= i < hand.n or not hand.hole[i]:
        raise HandStateError("only a player who holds his cards can have one drawn",
                             "PVB 30(6)")
    if hand.stage is _OVER:
        raise HandStateError("the hand is over", "PVB 22")
    held = hand.hole[i]
    three: list[int | None] = [*keeps, drawn]
    new: list[int | None] = [c for c in three if c not in held]
    if (len(keeps) != wanted or None in three or len(set(three)) != wanted + 1
            or len(new) != 1):
        raise HandStateError(f"{hand.labels[i]}'s cards kept and drawn must be the "
                             f"{wanted + 1} he held", "PVB 30(6)")
    take_cards(hand, new)
    hand.hole[i] = list(keeps)
    for k, act in enumerate(hand.log):
        if act.player == i and act.kind == "deal_hole":
            hand.log[k] = act._replace(cards=tuple(keeps))


# ---------------------------------------------------------------- the board

def next_board_street(hand: Hand) -> tuple[int, Street]:
    """The board the next cards go to, and the street they are on it."""
    k = hand.boards.due()
    cards = hand.boards.cards[k]
    street = _NEXT_STREET.get(len(cards))  # (a lookup: Street(...) is an enum call)
    return k, Street(street_of(cards) + 1) if street is None else street


def verify_deal_board(hand: Hand, cards: Sequence[int]) -> None:
    _board_due(hand, cards)


def _board_due(hand: Hand, cards: Sequence[int]) -> tuple[int, Street]:
    """`verify_deal_board`, answering the board the cards go to and their street."""
    if hand.stage is _OVER or hand.stage is _SHOWDOWN:
        raise HandStateError(
            "no rabbit hunting: no card is turned after the hand is decided", "PVB 22"
        )
    if hand.stage is _BETTING:
        raise HandStateError(
            f"a board card came before the {STREET_NAMES[hand.street]} betting finished",
            "PVB 35(5)",
        )
    k, street = next_board_street(hand)
    wanted = BOARD_CARDS[street]
    if len(cards) != wanted:
        rule = "PVB 34" if street is _FLOP and len(cards) > 3 else "PVB 35"
        raise HandStateError(
            f"the {STREET_NAMES[street]} is {wanted} card{'s' if wanted > 1 else ''}, "
            f"not {len(cards)}", rule
        )
    return k, street


def deal_board(hand: Hand, cards: Sequence[int]) -> None:
    """The next street's board cards, all of them at once (flop 3, turn 1, river 1), to the
    board that is due (`Boards.due`). The betting round follows once every board has the
    street."""
    boards = hand.boards
    if len(boards.cards) == 1 and hand.stage is _DEALING:
        # One board (not a double board, not run twice: nearly every hand), its next street
        # due: the checks of `_board_due` and the deck's, their common outcome without a call.
        board = boards.cards[0]
        street = _NEXT_STREET.get(len(board))
        if street is not None and len(cards) == BOARD_CARDS[street]:
            seen = hand._seen
            grown = seen.union(cards)
            if len(grown) == len(seen) + len(cards) and None not in grown:
                hand._seen = grown
                board.extend(cards)
                hand.log.append(_new_act(Act, (street, None, "deal_board", 0, tuple(cards),
                                               False, 0)))
                if street > hand.street:
                    hand.street = street
                    start_round(hand)
                return
    k, street = _board_due(hand, cards)
    take_cards(hand, cards)
    hand.boards.cards[k].extend(cards)
    hand.log.append(_new_act(Act, (street, None, "deal_board", 0, tuple(cards), False, k)))
    reached = hand.boards.street()
    if reached > hand.street:
        hand.street = reached
        start_round(hand)


# ---------------------------------------------------------------- run it twice

def run_twice_refusal(hand: Hand, pots: Sequence[int]) -> tuple[str, str] | None:
    """Why the pots ``pots`` (indices) cannot be run twice now, in the dealer's words with
    the rule; None when they can (CG Run It Twice a, c; the players' agreement and the
    floor are the table's to see, b, d, e)."""
    rule = "CG Run It Twice"
    if hand.setup.run_twice_min_pot is None:
        return "this table does not run it twice", rule
    if hand.boards.starting > 1:
        # (the CG is silent; a double board is two boards already: it is not run twice)
        return "a double board is not run twice", rule
    if hand.boards.runs:
        return "the hand is already run twice", rule
    no_more_betting = hand.all_in_showdown() or (
        hand.variant == "flip" and len(hand.live) > 1 and hand.stage is _DEALING)
    if hand.stage is not _DEALING or not no_more_betting:
        return "run it twice only once no action is possible (all-in, the betting over)", \
            f"{rule} a"
    total = hand.pot_total()
    if total < hand.setup.run_twice_min_pot:
        return (f"the pot holds {total:,}: run it twice from {hand.setup.run_twice_min_pot:,}",
                f"{rule} c")
    count = len(hand.pots())
    if not pots or any(not 0 <= k < count for k in pots) or len(set(pots)) != len(pots):
        return f"which pots? pot 1 to {count}", rule
    return None


def run_twice(hand: Hand, pots: Sequence[int]) -> None:
    """Every player in ``pots`` agreed (CG Run It Twice b): the cards still to come are
    dealt twice, run 1 then run 2; the other pots are played on run 1 alone."""
    refusal = run_twice_refusal(hand, pots)
    if refusal is not None:
        raise HandStateError(*refusal)
    hand.boards.run_twice(sorted(pots))
    hand.log.append(Act(hand.street, None, "run_twice", len(pots)))
