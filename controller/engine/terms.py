"""The hand's vocabulary: games and betting kinds, streets and stages, what a hand's set-up must
say, its log entries and the options of the player to act. Plain Python, no pydantic: the PHH
replay imports the engine through here, and its start-up is part of the replay benchmark (issue
37). The validated set-up model (`HandSetup`) is in `controller.engine.hand_setup`;
`controller.engine.hand` re-exports all of it.

Betting kinds (CG "Limits": "Vor Spielbeginn wird die Art des Limits festgelegt: Split Limit /
Pot Limit / No Limit"): the game code names the cards (NT hold'em, two hole cards; PO Omaha,
four) and the betting its name says (no-limit, pot-limit); ``betting`` sets another kind.
Split limit (fixed limit) bets the small bet before and on the flop and the big bet on the turn
and river (APSA 5.2: the small bet is the big blind, the big bet twice that), a bet and at most
three raises a round, uncapped once only two players are left before the third raise
(CG "Raise").

Hand variants (CG "Spielvarianten"): in a bomb pot every player puts in the agreed amount and the
flop comes without a betting round, the hand going on normally after it; in a flip the whole
board comes without any betting; a double board deals two boards and shares each pot between
them. Straddles (CG "Straddle") are blinds: the preflop order and the minimum raise follow the
largest one (`controller.engine.straddles` says who may post one). A big blind posted out of
position (``posted``: CG "Blinds", a seat change two or more seats away from the button; PokerKit's
"post bet", a negative ``blinds_or_straddles``) is a live blind too, but the action starts where
it would without it.
"""

# (no `from __future__ import annotations`: a NamedTuple compiles each string annotation
# into a ForwardRef at import, some 40 compiles of the replay's start-up; issue 37)

from collections.abc import Sequence
from enum import Enum, IntEnum
from typing import Literal, NamedTuple, Protocol

Game = Literal["NT", "PO"]
HOLE_CARDS: dict[str, int] = {"NT": 2, "PO": 4}

Betting = Literal["no-limit", "pot-limit", "split-limit"]
GAME_BETTING: dict[str, Betting] = {"NT": "no-limit", "PO": "pot-limit"}
SPLIT_LIMIT_RAISES = 3  # CG "Raise": "pro Setzrunde drei Erhöhungen"

# CG "Spielvarianten": a bomb pot skips the preflop betting, a flip every betting round.
Variant = Literal["bomb-pot", "flip"]
VARIANT_NAMES: dict[str, str] = {"bomb-pot": "bomb pot", "flip": "flip"}
ShowdownFallback = Literal["left-of-button", "last-aggressor"]


def betting_of(game: str, betting: Betting | None) -> Betting:
    """The betting kind a hand is dealt with: ``betting`` when set, else the game's own."""
    return betting if betting is not None else GAME_BETTING[game]


class Street(IntEnum):
    PREFLOP = 0
    FLOP = 1
    TURN = 2
    RIVER = 3


BOARD_CARDS = {Street.FLOP: 3, Street.TURN: 1, Street.RIVER: 1}
STREET_NAMES = {Street.PREFLOP: "preflop", Street.FLOP: "flop", Street.TURN: "turn",
                Street.RIVER: "river"}


class Stage(Enum):
    BETTING = "betting"  # a player is to act
    DEALING = "dealing"  # the betting round is over; the next street's cards are due
    SHOWDOWN = "showdown"  # board complete, betting over: cards are shown, then `settle`
    OVER = "over"  # every pot has been awarded


def limit_bet(min_bet: int, big_bet: int | None, street: Street) -> int:
    """Split limit: the one size of a bet or raise on ``street`` (CG Limits, APSA 5.2): the
    small bet preflop and on the flop, the big bet (twice the small one unless set) after."""
    if street <= Street.FLOP:
        return min_bet
    return big_bet if big_bet is not None else 2 * min_bet


class PlayerTerms(Protocol):
    """What `Hand` reads of a player dealt in (`PlayerSetup`, `PlainPlayer`)."""

    @property
    def label(self) -> str: ...
    @property
    def stack(self) -> int: ...
    @property
    def ante(self) -> int: ...
    @property
    def blind(self) -> int: ...


class SetupTerms(Protocol):
    """What `Hand` reads of its set-up: `HandSetup` (validated, the table's) or `PlainSetup`
    (checked by its caller, the PHH replay's)."""

    @property
    def game(self) -> Game: ...
    @property
    def betting(self) -> Betting | None: ...
    @property
    def players(self) -> Sequence[PlayerTerms]: ...
    @property
    def min_bet(self) -> int: ...
    @property
    def big_bet(self) -> int | None: ...
    @property
    def big_blind(self) -> int | None: ...
    @property
    def dead_antes(self) -> bool: ...
    @property
    def odd_chip_unit(self) -> int: ...
    @property
    def showdown_fallback(self) -> ShowdownFallback: ...
    @property
    def variant(self) -> Variant | None: ...
    @property
    def boards(self) -> int: ...
    @property
    def run_twice_min_pot(self) -> int | None: ...
    @property
    def posted(self) -> tuple[int, ...]: ...
    @property
    def kind(self) -> Betting: ...
    def limit_bet(self, street: Street) -> int: ...


# The plain records below are NamedTuples, not dataclasses: as immutable, compared by value and
# read by attribute, but `dataclasses` and the code each dataclass compiles at import were a third
# of the replay's start-up, and a frozen dataclass sets each field through object.__setattr__
# (a set-up is built for every hand replayed; issue 37).


class PlainPlayer(NamedTuple):
    """`PlayerSetup`'s fields without the validation: for a caller that checked them itself."""

    label: str
    stack: int
    ante: int = 0
    blind: int = 0


class PlainSetup(NamedTuple):
    """`HandSetup`'s fields and defaults without pydantic, for a caller that has checked what
    its input can get wrong itself: the PHH replay (`controller.history.phh`) checks stacks,
    forced bets and the number of players, and builds no variant, straddle or split limit.
    Building it costs a microsecond where `HandSetup` validates for tens, and importing it
    costs no pydantic (tests/engine/test_plain_setup.py keeps the two in step)."""

    players: tuple[PlainPlayer, ...]
    min_bet: int
    game: Game = "NT"
    betting: Betting | None = None
    big_bet: int | None = None
    big_blind: int | None = None
    dead_antes: bool = True
    odd_chip_unit: int = 1
    showdown_fallback: ShowdownFallback = "left-of-button"
    variant: Variant | None = None
    boards: int = 1
    run_twice_min_pot: int | None = None
    posted: tuple[int, ...] = ()

    @property
    def kind(self) -> Betting:
        """The betting kind this hand is dealt with (CG Limits)."""
        return betting_of(self.game, self.betting)

    def limit_bet(self, street: Street) -> int:
        """Split limit: the one size of a bet or raise on ``street`` (CG Limits, APSA 5.2)."""
        return limit_bet(self.min_bet, self.big_bet, street)


class Act(NamedTuple):
    """One entry of the hand's log. ``amount``: chips put in, or the total for bet/raise."""

    street: Street
    player: int | None  # None for the dealer's own operations (board cards)
    # ante blind fold check call bet raise return deal_hole deal_board show muck win runs
    kind: str
    amount: int = 0
    cards: tuple[int | None, ...] = ()
    all_in: bool = False
    board: int = 0  # deal_board and win: the board (or run) it is of, from 0


class Options(NamedTuple):
    """What the player to act may do: the dealer console and simulated players read this. In
    split limit ``min_raise_to`` and ``max_raise_to`` are the same: the one legal size."""

    player: int
    to_call: int  # 0: he may check
    min_raise_to: int | None  # None: he may not bet or raise
    max_raise_to: int | None


class BoardShare(NamedTuple):
    """A pot's part played on one board (a double board, or a run of run it twice)."""

    board: int  # from 0
    amount: int
    winners: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]  # (player, chips)
    strength: int | None


class PotResult(NamedTuple):
    amount: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    shares: tuple[tuple[int, int], ...]  # (player, chips)
    strength: int | None  # of the winning hand, None when uncontested
    parts: tuple[BoardShare, ...] = ()  # by board, when the pot was played on more than one
