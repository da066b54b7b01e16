"""One hand of hold'em or Omaha, no-limit, pot-limit or split limit, from forced bets to payout:
with straddles, as a bomb pot, a flip or on a double board, and run twice (the CG's cash game).

`Hand` is pure: cards are passed in (the RFID antennas read them; PHH files name them), nothing is
drawn, timed or printed. Each method checks the rules first and raises a `RuleViolation` naming
the rule; a refused operation changes nothing. Players are indices in action order: index 0 is
the first seat left of the button (in heads-up, the big blind).

This module holds the hand's state; what the hand does is in modules by what it answers to, and
`Hand` carries their functions as its methods (a function in a class body is a method: no call
in between, which the replay's hot path would pay for every action):

- `dealing`: the forced bets, the hole cards, the board street by street, running it twice;
- `betting_rules`: what the player to act owes and may do, and each betting action's checks;
- `betting_round`: the betting actions, who acts next, closing the round;
- `showdown`: who shows first, showing and mucking, the pots settled and paid;
- `boards` and `pots`: the boards (double board, run twice) and the main and side pots.
"""

from __future__ import annotations

from itertools import repeat
from operator import attrgetter, not_
from typing import TYPE_CHECKING, Any

from controller.engine import betting_round, betting_rules, dealing, showdown
from controller.engine.boards import Boards
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

if TYPE_CHECKING:
    from controller.engine.hand_setup import HandSetup, PlayerSetup

__all__ = [  # the vocabulary lives in terms; importers have always found it here
    "BOARD_CARDS", "GAME_BETTING", "HOLE_CARDS", "SPLIT_LIMIT_RAISES", "STREET_NAMES",
    "VARIANT_NAMES", "Act", "Betting", "BoardShare", "Game", "Hand", "HandSetup", "Options",
    "PlainPlayer", "PlainSetup", "PlayerSetup", "PotResult", "SetupTerms", "Stage", "Street",
    "Variant", "betting_of",
]


def __getattr__(name: str) -> Any:
    """`HandSetup` and `PlayerSetup` (pydantic models) on first use only: the PHH replay never
    asks for them, so its start-up imports no pydantic (issue 37)."""
    if name in ("HandSetup", "PlayerSetup"):
        from controller.engine import hand_setup

        return getattr(hand_setup, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_PREFLOP, _BETTING = Street.PREFLOP, Stage.BETTING
_LABEL, _STACK = attrgetter("label"), attrgetter("stack")  # (of a PlayerSetup or PlainPlayer)


class Hand:
    """A hand's state. Methods are PokerKit's trio: ``verify_x`` raises, ``can_x`` answers, ``x``
    acts. All state changes go through the action methods and are logged in ``log``."""

    # Slots, not a dict: a hand's 33 fields are more than a shared-key instance dict holds
    # (30), so each read and write of one was a dict lookup (issue 37).
    __slots__ = (
        "_acted_at",
        "_betting_count",
        "_can_bet",
        "_live_count",
        "_seen",
        "_to_act",
        "_uncapped",
        "actor",
        "aggressor",
        "all_in",
        "bets",
        "betting",
        "boards",
        "contributions",
        "current_bet",
        "dead_money",
        "folded",
        "full_bets",
        "game",
        "hole",
        "labels",
        "log",
        "min_raise",
        "mucked",
        "n",
        "results",
        "setup",
        "shown",
        "stacks",
        "stage",
        "starting_stacks",
        "street",
        "variant",
    )

    # Set by the forced bets (`dealing.post_forced_bets`), which every hand begins with
    all_in: list[bool]
    current_bet: int
    min_raise: int  # the last full bet or raise increment of the round
    _betting_count: int
    _can_bet: list[bool]
    _to_act: list[bool]

    def __init__(self, setup: SetupTerms) -> None:
        self.setup = setup
        players = setup.players
        n = len(players)
        self.n = n
        self.game: Game = setup.game
        self.betting: Betting = setup.kind  # CG Limits
        self.labels: list[str] = list(map(_LABEL, players))  # (attrgetters in C: per hand)
        self.starting_stacks: list[int] = list(map(_STACK, players))
        self.stacks = list(self.starting_stacks)
        self.bets = [0] * n  # this betting round
        self.contributions = [0] * n  # all rounds, counted towards side pots (S1)
        self.dead_money = 0
        self.folded = [False] * n
        self.mucked = [False] * n
        self.shown = [False] * n
        self.hole: list[list[int | None]] = list(map(list, repeat((), n)))  # n empty lists
        self.boards = Boards(setup.boards)  # CG Spielvarianten (double board), Run It Twice
        self.variant: Variant | None = setup.variant
        self._seen: set[int] = set()
        self.street = _PREFLOP
        self.stage = _BETTING
        # Split limit (CG Raise): the round's full bets and raises (a bet and three raises cap
        # it), and whether only two players were left before the third raise (no cap then).
        self.full_bets = 0
        self._uncapped = False
        self._acted_at: list[int | None] = [None] * n  # current bet when he last acted
        self.actor: int | None = None
        self.aggressor: dict[Street, int] = {}  # last bettor or raiser of each round
        self.log: list[Act] = []
        self.results: list[PotResult] = []
        # Counters and a list kept in step with folded/all_in, so that finding the next actor
        # is not a scan of every seat for every seat (replay throughput depends on it):
        # `_betting_count` live and not all-in, `_can_bet` each of them (marked to act on a
        # raise), `_to_act` who must act this round (`continue_from`); all but the first set
        # by the forced bets.
        self._live_count = n
        dealing.post_forced_bets(self)

    # ---------------------------------------------------------------- the deal (dealing.py)

    verify_deal_hole = dealing.verify_deal_hole
    deal_hole = dealing.deal_hole
    draw_hole_card = dealing.draw_hole_card
    next_board_street = dealing.next_board_street
    verify_deal_board = dealing.verify_deal_board
    deal_board = dealing.deal_board
    run_twice_refusal = dealing.run_twice_refusal
    run_twice = dealing.run_twice
    _take_cards = dealing.take_cards

    # ---------------------------------------------------------------- betting (betting_rules.py)

    target = betting_rules.target
    to_call = betting_rules.to_call
    betting_reopened = betting_rules.betting_reopened
    min_raise_to = betting_rules.min_raise_to
    max_raise_to = betting_rules.max_raise_to
    capped = betting_rules.capped
    options = betting_rules.options
    verify_fold = betting_rules.verify_fold
    verify_check = betting_rules.verify_check
    verify_call = betting_rules.verify_call
    verify_bet_or_raise_to = betting_rules.verify_bet_or_raise_to
    verify_kill = betting_rules.verify_kill
    can = betting_rules.can

    # ---------------------------------------------------------------- betting (betting_round.py)

    fold = betting_round.fold
    kill = betting_round.kill
    check = betting_round.check
    call = betting_round.call
    check_or_call = betting_round.check_or_call
    bet_or_raise_to = betting_round.bet_or_raise_to

    # ---------------------------------------------------------------- showdown (showdown.py)

    showdown_order = showdown.showdown_order
    all_in_showdown = showdown.all_in_showdown
    show = showdown.show
    muck = showdown.muck
    settle = showdown.settle

    # ---------------------------------------------------------------- queries

    @property
    def board(self) -> list[int]:
        """The board (the first, on a double board; the first run, when run twice)."""
        return self.boards.cards[0]

    @property
    def live(self) -> list[int]:
        """Players still holding cards (not folded)."""
        return [i for i in range(self.n) if not self.folded[i]]

    def still_to_act(self, i: int) -> bool:
        """Whether ``i`` has an action to come in this round (he has not acted, or was raised)."""
        return self.stage is _BETTING and self._to_act[i]

    def pot_total(self) -> int:
        return self.dead_money + sum(self.contributions)

    def pots(self) -> list[Pot]:
        return build_pots(self.contributions, self.dead_money, list(map(not_, self.folded)))

    def chips_in_play(self) -> int:
        """Stacks plus everything in the middle: constant for the whole hand."""
        return sum(self.stacks) + sum(self.contributions) + self.dead_money - (
            sum(sum(s for _, s in r.shares) for r in self.results)
        )
