"""One hand of hold'em or Omaha, no-limit, pot-limit or split limit, from forced bets to payout:
with straddles, as a bomb pot, a flip or on a double board, and run twice (the CG's cash game;
the boards in `boards`, the payout in `showdown`).

`Hand` is pure: cards are passed in (the RFID antennas read them; PHH files name them), nothing is
drawn, timed or printed. Each method checks the rules first and raises a `RuleViolation` naming
the rule; a refused operation changes nothing. Players are indices in action order: index 0 is
the first seat left of the button (in heads-up, the big blind).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from controller.engine import showdown
from controller.engine.boards import Boards, street_of
from controller.engine.cards import card_text
from controller.engine.pots import Pot, build_pots
from controller.engine.terms import (
    BOARD_CARDS,
    GAME_BETTING,
    HOLE_CARDS,
    SPLIT_LIMIT_RAISES,
    STREET_NAMES,
    VARIANT_NAMES,
    Act,
    Betting,
    BoardShare,
    Game,
    Options,
    PlainPlayer,
    PlainSetup,
    PotResult,
    SetupTerms,
    Stage,
    Street,
    Variant,
    betting_of,
)
from controller.errors import (
    FouledDeck,
    HandStateError,
    IllegalAmount,
    NotYourTurn,
    RuleViolation,
)

if TYPE_CHECKING:
    from controller.engine.hand_setup import HandSetup, PlayerSetup

__all__ = [  # the vocabulary lives in terms; importers have always found it here
    "BOARD_CARDS", "GAME_BETTING", "HOLE_CARDS", "SPLIT_LIMIT_RAISES", "STREET_NAMES",
    "VARIANT_NAMES", "Act", "Betting", "BoardShare", "Game", "Hand", "HandSetup", "Options",
    "PlainPlayer", "PlainSetup", "PlayerSetup", "PotResult", "SetupTerms", "Stage", "Street",
    "Variant", "betting_of",
]


_new_act = tuple.__new__
# The street the next board cards are on, by the board's cards so far.
_NEXT_STREET = {0: Street.FLOP, 3: Street.TURN, 4: Street.RIVER}


def __getattr__(name: str) -> Any:
    """`HandSetup` and `PlayerSetup` (pydantic models) on first use only: the PHH replay never
    asks for them, so its start-up imports no pydantic (issue 37)."""
    if name in ("HandSetup", "PlayerSetup"):
        from controller.engine import hand_setup

        return getattr(hand_setup, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Enum members as module globals: `Stage.OVER` is a lookup through the enum's metaclass (some
# 60 ns here, eight times a global's), and every action tests the stage and street (issue 37).
_BETTING, _DEALING, _SHOWDOWN, _OVER = Stage.BETTING, Stage.DEALING, Stage.SHOWDOWN, Stage.OVER
_PREFLOP, _FLOP, _TURN, _RIVER = Street.PREFLOP, Street.FLOP, Street.TURN, Street.RIVER


class Hand:
    """A hand's state. Methods are PokerKit's trio: ``verify_x`` raises, ``can_x`` answers, ``x``
    acts. All state changes go through the action methods and are logged in ``log``."""

    def __init__(self, setup: SetupTerms) -> None:
        self.setup = setup
        players = setup.players
        n = len(players)
        self.n = n
        self.game: Game = setup.game
        self.betting: Betting = setup.kind  # CG Limits
        self.labels = [p.label for p in players]
        self.starting_stacks = [p.stack for p in players]
        self.stacks = list(self.starting_stacks)
        self.bets = [0] * n  # this betting round
        self.contributions = [0] * n  # all rounds, counted towards side pots (S1)
        self.dead_money = 0
        self.folded = [False] * n
        self.all_in = [False] * n
        self.mucked = [False] * n
        self.shown = [False] * n
        self.hole: list[list[int | None]] = [[] for _ in range(n)]
        self.boards = Boards(setup.boards)  # CG Spielvarianten (double board), Run It Twice
        self.variant: Variant | None = setup.variant
        self._seen: set[int] = set()
        self.street = _PREFLOP
        self.stage = _BETTING
        self.current_bet = 0
        self.min_raise = setup.min_bet  # the last full bet or raise increment of the round
        # Split limit (CG Raise): the round's full bets and raises (a bet and three raises cap
        # it), and whether only two players were left before the third raise (no cap then).
        self.full_bets = 0
        self._uncapped = False
        self._acted_at: list[int | None] = [None] * n  # current bet when he last acted
        self._to_act = [False] * n
        self.actor: int | None = None
        self.aggressor: dict[Street, int] = {}  # last bettor or raiser of each round
        self.log: list[Act] = []
        self.results: list[PotResult] = []
        # Counters kept in step with folded/all_in, so that finding the next actor is not a
        # scan of every seat for every seat (replay throughput depends on it).
        self._live_count = n
        self._betting_count = n  # live and not all-in
        self._post_forced_bets()

    # ---------------------------------------------------------------- set-up

    def _post_forced_bets(self) -> None:
        """Antes and blinds, posted together before the deal (APSA 5.4.1, RULES H4).

        A player who cannot cover them is all-in for what he has (RULES R4); the ante comes first.
        """
        players = self.setup.players
        stacks, log, street = self.stacks, self.log, self.street
        antes = [p.ante for p in players]
        blinds = [p.blind for p in players]
        ante_posters = self.n - antes.count(0)
        if ante_posters:
            dead = self.setup.dead_antes or ante_posters == 1
            for i, owed in enumerate(antes):
                ante = owed if owed < stacks[i] else stacks[i]
                if ante:
                    stacks[i] -= ante
                    if dead:
                        self.dead_money += ante
                    else:
                        self.contributions[i] += ante
                    log.append(_new_act(Act, (street, i, "ante", ante, (), False, 0)))
        for i, owed in enumerate(blinds):
            blind = owed if owed < stacks[i] else stacks[i]
            if blind:
                stacks[i] -= blind
                self.bets[i] = blind
                self.contributions[i] += blind
                log.append(_new_act(Act, (street, i, "blind", blind, (), False, 0)))
        self.all_in = [stack == 0 for stack in stacks]
        self._betting_count = self.all_in.count(False)
        top_blind = max(blinds)
        big_blind = self.setup.big_blind if self.setup.big_blind is not None else top_blind
        self.current_bet = max(big_blind, max(self.bets))
        self.min_raise = max(self.setup.min_bet, top_blind)
        if self.betting == "split-limit":
            # The small bet preflop (CG Limits, APSA 5.2); the big blind is the round's bet, so
            # three raises follow it (CG Raise).
            self.min_raise = self.setup.limit_bet(_PREFLOP)
            self.full_bets = 1 if self.current_bet else 0
        # Preflop the first to act sits after the largest blind (the later one on a tie).
        opener = 0
        if top_blind:
            largest = self.n - 1 - blinds[::-1].index(top_blind)
            opener = (largest + 1) % self.n
        self._to_act = [not a for a in self.all_in]
        if self.variant is not None:
            # CG Spielvarianten: a bomb pot's flop, and a flip's whole board, come without a
            # betting round
            self.stage = _DEALING
            return
        self._continue_from(opener)

    # ---------------------------------------------------------------- queries

    @property
    def board(self) -> list[int]:
        """The board (the first, on a double board; the first run, when run twice)."""
        return self.boards.cards[0]

    @property
    def live(self) -> list[int]:
        """Players still holding cards (not folded)."""
        return [i for i in range(self.n) if not self.folded[i]]

    def _can_bet(self, i: int) -> bool:
        return not self.folded[i] and not self.all_in[i]

    def _others_can_bet(self, i: int) -> bool:
        mine = 0 if self.folded[i] or self.all_in[i] else 1
        return self._betting_count - mine > 0

    def _raise_has_callers(self, i: int) -> bool:
        """Somebody else could still put in more than the current bet: a raise means something."""
        folded, all_in, bets, stacks = self.folded, self.all_in, self.bets, self.stacks
        current = self.current_bet
        for j in range(self.n):  # (a loop, not any() over a generator: every bet asks)
            if j != i and not folded[j] and not all_in[j] and bets[j] + stacks[j] > current:
                return True
        return False

    def target(self, i: int) -> int:
        """The bet player ``i`` must reach to stay in: the current bet, or only the largest other
        live bet when nobody else could act on anything more."""
        if self._others_can_bet(i):
            return self.current_bet
        others = [self.bets[j] for j in range(self.n) if j != i and not self.folded[j]]
        return min(self.current_bet, max(others, default=0))

    def to_call(self, i: int) -> int:
        # `target` inlined for the common case, somebody else can still bet (every call and
        # check of a replay asks this)
        mine = 0 if self.folded[i] or self.all_in[i] else 1
        target = self.current_bet if self._betting_count > mine else self.target(i)
        owed = target - self.bets[i]
        if owed <= 0:
            return 0
        stack = self.stacks[i]
        return owed if owed < stack else stack

    def still_to_act(self, i: int) -> bool:
        """Whether ``i`` has an action to come in this round (he has not acted, or was raised)."""
        return self.stage is _BETTING and self._to_act[i]

    def pot_total(self) -> int:
        return self.dead_money + sum(self.contributions)

    def betting_reopened(self, i: int) -> bool:
        """Whether ``i`` may raise: he has not acted this round, or faces at least a full raise
        in total since he acted (PVB 42(6)(7); several short all-ins add up)."""
        acted_at = self._acted_at[i]
        return acted_at is None or self.current_bet - acted_at >= self.min_raise

    def min_raise_to(self, i: int) -> int:
        """The smallest legal bet or raise total for ``i`` (ignoring his stack). In split limit
        the only one: one bet of the street over the current bet (CG Limits), also over an
        all-in for less (where the CG is silent: as PokerKit and in no-limit)."""
        if self.current_bet == 0:
            if self.betting == "split-limit":
                return self.setup.limit_bet(self.street)
            return self.setup.min_bet
        return self.current_bet + self.min_raise

    def max_raise_to(self, i: int) -> int:
        """All-in in no-limit; the pot in pot-limit (call first, then raise the pot: RULES R1);
        the one size in split limit (CG Limits)."""
        everything = self.bets[i] + self.stacks[i]
        if self.betting == "pot-limit":
            call = self.current_bet - self.bets[i]
            pot_limit = self.current_bet + self.pot_total() + call
            return min(everything, pot_limit)
        if self.betting == "split-limit":
            return min(everything, self.min_raise_to(i))
        return everything

    def capped(self) -> bool:
        """Split limit: a bet and three raises made this round, with more than two players
        left before the third raise (CG Raise; heads-up the raises are not limited)."""
        return (self.betting == "split-limit" and not self._uncapped
                and self.full_bets > SPLIT_LIMIT_RAISES)

    def options(self) -> Options | None:
        """The legal choices of the player to act, or None when nobody is to act."""
        i = self.actor
        if i is None:
            return None
        low: int | None = None
        high: int | None = None
        everything = self.bets[i] + self.stacks[i]
        if everything > self.current_bet and self._raise_has_callers(i) and (
            self.betting_reopened(i)
        ) and not self.capped():
            high = self.max_raise_to(i)
            low = min(self.min_raise_to(i), high)
        return Options(i, self.to_call(i), low, high)

    def showdown_order(self) -> list[int]:
        """Who tables first at showdown (RULES S3), then clockwise. ``last-aggressor`` (the
        German books: PVB 55, APSA 5.3, BPS 37): the last to bet or raise on the flop, turn or
        river, and if nobody did, the first live player left of the button. ``left-of-button``
        (TDA): the last aggressor of the final round only, else left of the button. When a
        player is all-in and betting is over, all hands are turned at once (PVB 54)."""
        contenders = [i for i in self.live if not self.mucked[i]]
        first = self.aggressor.get(self.street)
        if first is None and self.setup.showdown_fallback == "last-aggressor":
            for street in sorted(self.aggressor, reverse=True):
                if street > _PREFLOP:  # PVB 55(2): no bet on flop, turn and river
                    first = self.aggressor[street]
                break
        if first is None or first not in contenders:
            return contenders
        k = contenders.index(first)
        return contenders[k:] + contenders[:k]

    def all_in_showdown(self) -> bool:
        """No more betting is possible while two or more hands are live: cards face up (PVB 54)."""
        return len(self.live) > 1 and sum(1 for i in self.live if not self.all_in[i]) <= 1 and (
            self.stage is not _BETTING
        )

    # ---------------------------------------------------------------- verification

    def _verify_turn(self, i: int) -> None:
        if not 0 <= i < self.n:
            raise NotYourTurn(f"there is no player {i + 1} in this hand", "PVB 36")
        if self.stage is _OVER:
            raise HandStateError(f"{self.labels[i]} acted, but the hand is over", "PVB 64(1)")
        if self.folded[i]:
            raise NotYourTurn(f"{self.labels[i]} has folded and cannot act", "PVB 39")
        if self.stage is not _BETTING:
            raise HandStateError(
                f"{self.labels[i]} acted, but the {STREET_NAMES[self.street]} betting is over",
                "PVB 36",
            )
        if self.actor != i:
            assert self.actor is not None
            raise NotYourTurn(
                f"{self.labels[i]} acted out of turn: it is {self.labels[self.actor]}'s turn",
                "PVB 36, 37",
            )

    def verify_fold(self, i: int, forfeit: int = 0) -> None:
        self._verify_turn(i)
        if not forfeit:
            return
        short_of_the_call = 0 < forfeit < self.stacks[i] and (
            self.bets[i] + forfeit < self.target(i)
        )
        if forfeit and not short_of_the_call:
            raise IllegalAmount(
                f"{self.labels[i]} can forfeit only chips short of the call, not {forfeit:,}",
                "APSA 5.4.30",
            )

    def verify_check(self, i: int) -> None:
        self._verify_turn(i)
        owed = self.to_call(i)
        if owed:
            raise IllegalAmount(
                f"{self.labels[i]} cannot check: {owed:,} to call", "PVB 36"
            )

    def verify_call(self, i: int) -> None:
        self._verify_turn(i)
        if not self.to_call(i):
            raise IllegalAmount(f"{self.labels[i]} has nothing to call: check", "PVB 36")

    def verify_bet_or_raise_to(self, i: int, amount: int) -> None:
        self._verify_turn(i)
        who = self.labels[i]
        word = "bet" if self.current_bet == 0 else "raise to"
        everything = self.bets[i] + self.stacks[i]
        if everything <= self.current_bet:
            raise IllegalAmount(
                f"{who} cannot {word.split()[0]}: his {everything:,} do not exceed the "
                f"bet of {self.current_bet:,}; he can only call all-in or fold", "PVB 42(7)"
            )
        if not self._raise_has_callers(i):
            raise IllegalAmount(
                f"{who} cannot {word.split()[0]}: every other player is all-in or can only call; "
                "call or fold", "PVB 42(7)",
            )
        split = self.betting == "split-limit"
        if not self.betting_reopened(i):
            raise IllegalAmount(
                f"{who} cannot raise: the all-in was less than a full raise and does not reopen "
                f"the betting for a player who already acted; call or fold",
                # PVB 42(6) is for no-limit and pot-limit; the CG's rule is for every game
                "CG Unvollständiges Raise" if split else "PVB 42(6)",
            )
        if self.capped():
            raise IllegalAmount(
                f"{who} cannot raise: three raises already this round; call or fold", "CG Raise"
            )
        if amount <= self.current_bet:
            raise IllegalAmount(
                f"{word} {amount:,} does not exceed the current bet of {self.current_bet:,}",
                "PVB 42(2)",
            )
        if amount > everything:
            raise IllegalAmount(
                f"{word} {amount:,} is more than {who} has ({everything:,} in all)", "PVB 43"
            )
        if split and amount != min(self.min_raise_to(i), everything):
            raise IllegalAmount(self._limit_refusal(i, amount), "CG Limits")
        if self.betting == "pot-limit":
            limit = self.max_raise_to(i)
            if amount > limit:
                raise IllegalAmount(
                    f"{word} {amount:,} is over the pot limit of {limit:,}", "APSA 5.2"
                )
        minimum = self.min_raise_to(i)
        if amount < minimum and amount < everything:
            if self.current_bet == 0:
                raise IllegalAmount(
                    f"bet of {amount:,} is below the minimum bet of {minimum:,}", "PVB 42(2)"
                )
            rule = "PVB 42(2)" if self.street is _PREFLOP else "PVB 42(3)"
            raise IllegalAmount(
                f"raise to {amount:,} is below the minimum raise to {minimum:,}", rule
            )

    def _limit_refusal(self, i: int, amount: int) -> str:
        """Split limit: a bet or raise of another size than the street's (CG Limits)."""
        street = STREET_NAMES[self.street]
        step = self.setup.limit_bet(self.street)
        size = self.min_raise_to(i)
        if self.current_bet == 0:
            words = f"bet of {amount:,}: in split limit the {street} bet is {step:,}"
        else:
            words = (f"raise to {amount:,}: in split limit a raise on the {street} is {step:,} "
                     f"more, to {size:,}")
        everything = self.bets[i] + self.stacks[i]
        if everything < size:
            words += f"; with {everything:,} in all, {self.labels[i]} can only go all-in"
        return words

    def can(self, check: str, *args: int) -> bool:
        """``hand.can("bet_or_raise_to", 2, 500)``: would the action be accepted?"""
        try:
            getattr(self, f"verify_{check}")(*args)
        except RuleViolation:
            return False
        return True

    # ---------------------------------------------------------------- betting actions

    def fold(self, i: int, forfeit: int = 0) -> None:
        """A fold in turn; also binding when a check was possible (PVB 38(1)). ``forfeit``: chips
        of a short call that stay in the pot when the player will not complete it (R8,
        APSA 5.4.30)."""
        self.verify_fold(i, forfeit)
        if forfeit:
            self._put_in(i, forfeit)
        self.folded[i] = True
        self._live_count -= 1
        self._betting_count -= 1  # only a player who can still bet is ever to act
        self.log.append(_new_act(Act, (self.street, i, "fold", forfeit, (), False, 0)))
        self._acted(i)

    def verify_kill(self, i: int) -> None:
        if not 0 <= i < self.n:
            raise HandStateError(f"there is no player {i + 1} in this hand", "PVB 39")
        if self.stage is _OVER:
            raise HandStateError("the hand is over", "PVB 64(1)")
        if self.folded[i]:
            raise HandStateError(f"{self.labels[i]} has no live hand", "PVB 39")

    def kill(self, i: int) -> None:
        """A dead hand, in turn or not: a floor decision (at-seat rule, penalty, a fold out of
        turn, which is binding: PVB 37(5)). His chips stay in the pot."""
        self.verify_kill(i)
        self.folded[i] = True
        self._live_count -= 1
        if not self.all_in[i]:
            self._betting_count -= 1
        self._to_act[i] = False
        self._record_act(i, "kill")
        if self._live_count == 1:
            if self.stage is _BETTING:
                self._end_round()
            else:
                self.bets = [0] * self.n
                self._award_uncontested()
        elif self.stage is _BETTING:
            self._continue_from(i + 1 if self.actor == i else self.actor or 0)

    def check(self, i: int) -> None:
        self.verify_check(i)
        self._record_act(i, "check")
        self._acted(i)

    def call(self, i: int) -> None:
        self.verify_call(i)
        amount = self.to_call(i)
        self._put_in(i, amount)
        self._record_act(i, "call", amount, all_in=self.all_in[i])
        self._acted(i)

    def check_or_call(self, i: int) -> None:
        """PHH's ``cc``: a check when nothing is owed, else a call."""
        self._verify_turn(i)
        amount = self.to_call(i)
        if amount:
            self._put_in(i, amount)
            self.log.append(_new_act(Act, (self.street, i, "call", amount, (),
                                           self.all_in[i], 0)))
        else:
            self.log.append(_new_act(Act, (self.street, i, "check", 0, (), False, 0)))
        self._acted(i)

    def bet_or_raise_to(self, i: int, amount: int) -> None:
        """Bet or raise to ``amount`` in total this round (what the dealer announces)."""
        self.verify_bet_or_raise_to(i, amount)
        kind = "bet" if self.current_bet == 0 else "raise"
        increment = amount - self.current_bet
        if self.current_bet == 0 or increment >= self.min_raise:
            self.min_raise = max(self.min_raise, increment)  # a full bet or raise
            if (increment >= self.min_raise and self.full_bets == SPLIT_LIMIT_RAISES
                    and self._live_count <= 2):
                self._uncapped = True  # CG Raise: only two left before the third raise
            self.full_bets += increment >= self.min_raise  # an all-in bet for less is not one
        self._put_in(i, amount - self.bets[i])
        self.current_bet = amount
        self.aggressor[self.street] = i
        folded, all_in, to_act = self.folded, self.all_in, self._to_act
        for j in range(self.n):
            if j != i and not folded[j] and not all_in[j]:  # (`_can_bet`, inlined)
                to_act[j] = True
        self.log.append(_new_act(Act, (self.street, i, kind, amount, (), all_in[i], 0)))
        self._acted(i)

    def _put_in(self, i: int, amount: int) -> None:
        self.stacks[i] -= amount
        self.bets[i] += amount
        self.contributions[i] += amount
        if self.stacks[i] == 0 and not self.all_in[i]:
            self.all_in[i] = True
            self._betting_count -= 1

    def _acted(self, i: int) -> None:
        self._to_act[i] = False
        self._acted_at[i] = self.current_bet
        if self._live_count == 1:
            self._end_round()
            return
        self._continue_from(i + 1)

    def _continue_from(self, start: int) -> None:
        """Hand the action to the next player who must act, or close the round. A player must act
        when he can still bet and faces more than he put in, or has not acted since the last bet
        while someone else can still bet. (This runs after every action: the replay's hottest
        loop.)"""
        n = self.n
        folded, all_in, bets, to_act = self.folded, self.all_in, self.bets, self._to_act
        current = self.current_bet
        others_bet = self._betting_count > 1  # for anyone who can still bet himself
        for k in range(n):
            j = (start + k) % n
            if folded[j] or all_in[j]:
                continue
            if (bets[j] < current or to_act[j]) if others_bet else bets[j] < self.target(j):
                self.actor = j
                self.stage = _BETTING
                return
        self._end_round()

    def _end_round(self) -> None:
        """Close the betting round: return an uncalled bet, then await cards or settle."""
        self.actor = None
        ordered = sorted(self.bets, reverse=True)
        if ordered[0] > ordered[1]:
            top = self.bets.index(ordered[0])
            excess = ordered[0] - ordered[1]
            self.bets[top] -= excess
            self.stacks[top] += excess
            self.contributions[top] -= excess
            if self.all_in[top] and not self.folded[top]:
                self.all_in[top] = False
                self._betting_count += 1
            self._record_act(top, "return", excess)
        self.bets = [0] * self.n
        if self._live_count == 1:
            self._award_uncontested()
        elif self.street is _RIVER:
            self.stage = _SHOWDOWN
        else:
            self.stage = _DEALING

    def _start_round(self) -> None:
        if self.variant == "flip":  # CG Spielvarianten: the board without any betting
            self.stage = _SHOWDOWN if self.street is _RIVER else _DEALING
            return
        self.current_bet = 0
        self.min_raise = self.setup.min_bet
        if self.betting == "split-limit":
            self.min_raise = self.setup.limit_bet(self.street)  # CG Limits, APSA 5.2
        self.full_bets = 0
        self._uncapped = False
        self._acted_at = [None] * self.n
        self._to_act = [not (f or a) for f, a in zip(self.folded, self.all_in, strict=True)]
        if self._to_act.count(True) >= 2:
            self._continue_from(0)  # after the flop the first live player left of the button
        elif self.street is _RIVER:
            self.stage = _SHOWDOWN
        else:
            self.stage = _DEALING

    # ---------------------------------------------------------------- cards

    def _take_cards(self, cards: list[int | None]) -> None:
        """Register cards as seen this hand; a card seen twice fouls the deck (RULES I4)."""
        known = [c for c in cards if c is not None] if None in cards else cards
        seen = self._seen
        if seen.isdisjoint(known) and len(set(known)) == len(known):  # (one test, no loop)
            seen.update(known)  # type: ignore[arg-type]  # (no None: filtered above)
            return
        for k, c in enumerate(known):
            if c in seen or c in known[:k]:
                raise FouledDeck(
                    f"{card_text(c)} was seen twice in this hand: fouled deck, the hand is void",
                    "PVB 33",
                )

    def verify_deal_hole(self, i: int, cards: list[int | None]) -> None:
        if not 0 <= i < self.n:
            raise HandStateError(f"there is no player {i + 1} in this hand", "PVB 30(2)")
        wanted = HOLE_CARDS[self.game]
        if self.hole[i] or len(cards) != wanted:
            had = len(self.hole[i]) + len(cards)
            raise HandStateError(
                f"{self.labels[i]} would hold {had} cards instead of {wanted}", "PVB 30(6)"
            )
        if self.stage is _OVER:
            raise HandStateError("the hand is over", "PVB 22")

    def deal_hole(self, i: int, cards: list[int | None]) -> None:
        """Hole cards for player ``i`` (``None`` for a card nobody saw)."""
        self.verify_deal_hole(i, cards)
        self._take_cards(cards)
        self.hole[i] = list(cards)
        self.log.append(_new_act(Act, (self.street, i, "deal_hole", 0, tuple(cards), False, 0)))

    def draw_hole_card(self, i: int, keeps: list[int | None], drawn: int | None) -> None:
        """PVB 30(6): player ``i`` held one card too many; the floor drew ``drawn`` (the next
        burn card) and the player keeps ``keeps``. The deal in the hand's history becomes the
        cards he plays; the drawn card stays seen, so it cannot come again."""
        wanted = HOLE_CARDS[self.game]
        if not 0 <= i < self.n or not self.hole[i]:
            raise HandStateError("only a player who holds his cards can have one drawn",
                                 "PVB 30(6)")
        if self.stage is _OVER:
            raise HandStateError("the hand is over", "PVB 22")
        held = self.hole[i]
        three: list[int | None] = [*keeps, drawn]
        new: list[int | None] = [c for c in three if c not in held]
        if (len(keeps) != wanted or None in three or len(set(three)) != wanted + 1
                or len(new) != 1):
            raise HandStateError(f"{self.labels[i]}'s cards kept and drawn must be the "
                                 f"{wanted + 1} he held", "PVB 30(6)")
        self._take_cards(new)
        self.hole[i] = list(keeps)
        for k, act in enumerate(self.log):
            if act.player == i and act.kind == "deal_hole":
                self.log[k] = act._replace(cards=tuple(keeps))

    def next_board_street(self) -> tuple[int, Street]:
        """The board the next cards go to, and the street they are on it."""
        k = self.boards.due()
        cards = self.boards.cards[k]
        street = _NEXT_STREET.get(len(cards))  # (a lookup: Street(...) is an enum call)
        return k, Street(street_of(cards) + 1) if street is None else street

    def verify_deal_board(self, cards: list[int]) -> None:
        self._verify_deal_board(cards)

    def _verify_deal_board(self, cards: list[int]) -> tuple[int, Street]:
        """`verify_deal_board`, answering the board the cards go to and their street."""
        if self.stage is _OVER or self.stage is _SHOWDOWN:
            raise HandStateError(
                "no rabbit hunting: no card is turned after the hand is decided", "PVB 22"
            )
        if self.stage is _BETTING:
            raise HandStateError(
                f"a board card came before the {STREET_NAMES[self.street]} betting finished",
                "PVB 35(5)",
            )
        k, street = self.next_board_street()
        wanted = BOARD_CARDS[street]
        if len(cards) != wanted:
            rule = "PVB 34" if street is _FLOP and len(cards) > 3 else "PVB 35"
            raise HandStateError(
                f"the {STREET_NAMES[street]} is {wanted} card{'s' if wanted > 1 else ''}, "
                f"not {len(cards)}", rule
            )
        return k, street

    def deal_board(self, cards: list[int]) -> None:
        """The next street's board cards, all of them at once (flop 3, turn 1, river 1), to the
        board that is due (`Boards.due`). The betting round follows once every board has the
        street."""
        k, street = self._verify_deal_board(cards)
        self._take_cards(list(cards))
        self.boards.cards[k].extend(cards)
        self.log.append(_new_act(Act, (street, None, "deal_board", 0, tuple(cards), False, k)))
        reached = self.boards.street()
        if reached > self.street:
            self.street = reached
            self._start_round()

    def run_twice_refusal(self, pots: Sequence[int]) -> tuple[str, str] | None:
        """Why the pots ``pots`` (indices) cannot be run twice now, in the dealer's words with
        the rule; None when they can (CG Run It Twice a, c; the players' agreement and the
        floor are the table's to see, b, d, e)."""
        rule = "CG Run It Twice"
        if self.setup.run_twice_min_pot is None:
            return "this table does not run it twice", rule
        if self.boards.starting > 1:
            # (the CG is silent; a double board is two boards already: it is not run twice)
            return "a double board is not run twice", rule
        if self.boards.runs:
            return "the hand is already run twice", rule
        no_more_betting = self.all_in_showdown() or (
            self.variant == "flip" and len(self.live) > 1 and self.stage is _DEALING)
        if self.stage is not _DEALING or not no_more_betting:
            return "run it twice only once no action is possible (all-in, the betting over)", \
                f"{rule} a"
        total = self.pot_total()
        if total < self.setup.run_twice_min_pot:
            return (f"the pot holds {total:,}: run it twice from {self.setup.run_twice_min_pot:,}",
                    f"{rule} c")
        count = len(self.pots())
        if not pots or any(not 0 <= k < count for k in pots) or len(set(pots)) != len(pots):
            return f"which pots? pot 1 to {count}", rule
        return None

    def run_twice(self, pots: Sequence[int]) -> None:
        """Every player in ``pots`` agreed (CG Run It Twice b): the cards still to come are
        dealt twice, run 1 then run 2; the other pots are played on run 1 alone."""
        refusal = self.run_twice_refusal(pots)
        if refusal is not None:
            raise HandStateError(*refusal)
        self.boards.run_twice(sorted(pots))
        self.log.append(Act(self.street, None, "run_twice", len(pots)))

    # ---------------------------------------------------------------- showdown

    def _verify_showing(self, i: int) -> None:
        if not 0 <= i < self.n or self.folded[i]:
            raise HandStateError("only a live hand can be shown", "PVB 39")
        if self.stage is _OVER:
            raise HandStateError("the hand is over", "PVB 64(1)")
        if self.stage is _BETTING or not (
            self.stage is _SHOWDOWN or self.all_in_showdown()
        ):
            raise HandStateError(
                f"{self.labels[i]} cannot show or muck while the betting is still open", "PVB 55"
            )

    def show(self, i: int, cards: list[int | None]) -> None:
        """Player ``i`` tables his cards. Cards speak (PVB 53); unseen cards may be passed as
        ``None``; shown cards must match the cards dealt."""
        self._verify_showing(i)
        dealt = self.hole[i]
        if dealt and len(cards) != len(dealt):
            raise HandStateError(
                f"{self.labels[i]} shows {len(cards)} cards but holds {len(dealt)}", "PVB 56"
            )
        if dealt:
            merged: list[int | None] = []
            fresh: list[int | None] = []
            for old, new in zip(dealt, cards, strict=True):
                if old is not None and new is not None and old != new:
                    raise FouledDeck(
                        f"{self.labels[i]} shows {card_text(new)} but was dealt {card_text(old)}",
                        "PVB 33",
                    )
                if old is None and new is not None:
                    fresh.append(new)
                merged.append(old if old is not None else new)
            self._take_cards(fresh)
            self.hole[i] = merged
        else:
            self._take_cards(cards)
            self.hole[i] = list(cards)
        self.shown[i] = True
        self._record_act(i, "show", cards=tuple(self.hole[i]))

    def muck(self, i: int) -> None:
        """A hand mucked at showdown forfeits its claim to every pot (PVB 56)."""
        self._verify_showing(i)
        self.mucked[i] = True
        self._record_act(i, "muck")

    def pots(self) -> list[Pot]:
        return build_pots(self.contributions, self.dead_money, [not f for f in self.folded])

    def settle(self, awards: dict[int, list[int]] | None = None) -> list[PotResult]:
        """Award every pot at showdown: each on its own (PVB 63), cards speak (PVB 53), split
        pots with odd chips left of the button (PVB 62), a pot played on two boards shared
        between them (CG Spielvarianten, Run It Twice). ``awards`` are the floor's decisions
        (pot index -> winners), which replace the evaluation of those pots. Returns the
        results."""
        results = showdown.settle(self, awards or {})
        self._finish(results)
        return results

    def _award_uncontested(self) -> None:
        (winner,) = self.live
        results = [showdown.pay(self, pot, [winner], None) for pot in self.pots()]
        self._finish(results)

    def _finish(self, results: list[PotResult]) -> None:
        for r in results:
            for part in r.parts or [None]:
                shares = r.shares if part is None else part.shares
                for i, chips in shares:
                    self.log.append(Act(self.street, i, "win", chips, (), False,
                                        0 if part is None else part.board))
        self.results = results
        self.actor = None
        self.stage = _OVER

    # ---------------------------------------------------------------- bookkeeping

    def _record_act(
        self, player: int | None, kind: str, amount: int = 0,
        cards: tuple[int | None, ...] = (), all_in: bool = False,
    ) -> None:
        # tuple.__new__ with every field: what Act(...) does, without its Python-level
        # __new__ and defaults (an entry for every action: the replay's hot path)
        self.log.append(_new_act(Act, (self.street, player, kind, amount, cards, all_in, 0)))

    def chips_in_play(self) -> int:
        """Stacks plus everything in the middle: constant for the whole hand."""
        return sum(self.stacks) + sum(self.contributions) + self.dead_money - (
            sum(sum(s for _, s in r.shares) for r in self.results)
        )
