"""A hand record as a PHH file (phh-std 0.0.2) that PokerKit replays to the record's result.

Players are listed from the first seat left of the button, the button last; in heads-up the antes
and blinds are written reversed, as the standard reads them. Hole cards nobody tabled are written
unknown (``????``) when the record is the public view. Burn cards are left out (PokerKit burns
unknown cards itself).

Where PokerKit's betting differs from the rules the table plays (RULES R4: everybody must match
the full big blind even when the big blind is short), the actions say what happened in PokerKit's
terms: a caller who brings the short big blind up to the full blind "completes" (``cbr``), and
``min_bet`` drops to the smallest completion so that PokerKit accepts it; a blind whose bet nobody
else can raise any more checks, since PokerKit gives him the option the rules see no use for.

Odd chips of split pots are the one thing a PHH file cannot carry (PVB 62 hands them out one chip
at a time from the button, in the smallest chip in play; PokerKit gives a pot's whole remainder to
its first winner and merges pots with the same players, which PVB 63(2) forbids): the file keeps
the record's own ``finishing_stacks`` and the chip in ``_odd_chip_unit`` (our replay reads it);
PokerKit's replay ends with each split pot shared its way, in single chips (a pot of 350 three
ways in chips of 25: 125/125/100 at the table, 118/116/116 in PokerKit). A raise after a short
big blind that PokerKit counts from the posted blind may be below its minimum: PokerKit refuses
the hand.

Cash hands (the CG): straddles are forced bets in ``blinds_or_straddles`` at the straddler's place
(phh-std "Blinds or Straddles": "UTG straddle [1, 2, 4, 0]", "Button straddle [1, 2, 0, 0, 0,
4]"); a big blind posted out of position (CG "Blinds": a seat change two or more seats away
from the button) is a negative value there, PokerKit's "post bet" of a player who pays to come in
without waiting for the button (live; the action starts where it would without it); split limit
is phh-std's fixed limit, ``FT`` with ``small_bet`` (the big blind) and
``big_bet`` (twice it); a bomb pot or flip has no blinds, every player's agreed amount is his
ante, and the betting rounds it skips (the bomb pot's before the flop, every one of a flip) are
checks around, each said in its commentary, since a PHH hand has a round on every street. What
phh-std (0.0.1, as PokerKit 0.7.7 reads it) cannot say is refused, the hand left out and
counted (`PhhExportError.reason`): a second board (a double board, or a pot run twice: PHH has
no field for the boards and no action that chooses the runouts), fixed-limit Omaha high (its
only fixed-limit Omaha is ``FO/8``, high-low), pot-limit hold'em and no-limit Omaha (no codes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import rtoml

from controller.engine.hand import HOLE_CARDS
from controller.engine.records import ActionRecord, HandRecord
from controller.errors import ExportError

FORFEIT = "forfeited short call"
NO_RESULT = "no result"
BOARDS = "two boards"
NO_CODE = "no variant code"
VARIANT_CODES = {("NT", "no-limit"): "NT", ("PO", "pot-limit"): "PO", ("NT", "split-limit"): "FT"}
GAME_BETTING = {"NT": "no-limit", "PO": "pot-limit"}
COMMENTARY = {"bomb-pot": "bomb pot: no betting before the flop (CG Spielvarianten)",
              "flip": "flip: no betting on any street (CG Spielvarianten)"}


class PhhExportError(ExportError):
    """A record PHH cannot carry: a hand without a result (void, misdeal), a fold that left a
    short call's chips in the pot (RULES R8), which no PHH action says, a second board (double
    board, run it twice) or a game phh-std has no code for. ``reason``: which, for the count of
    the hands left out."""

    def __init__(self, message: str, reason: str = NO_RESULT) -> None:
        super().__init__(message)
        self.reason = reason


def variant_code(record: HandRecord) -> str:
    """phh-std's variant code of the record's game and betting; `PhhExportError` without one."""
    betting = record.betting or GAME_BETTING[record.game]
    code = VARIANT_CODES.get((record.game, betting))
    if code is None:
        game = {"NT": "hold'em", "PO": "Omaha"}[record.game]
        raise PhhExportError(
            f"hand {record.hand} is {betting} {game}: phh-std has no variant code for it (its "
            "fixed-limit Omaha is high-low only)", NO_CODE)
    return code


@dataclass
class _Betting:
    """The chips in front of each PHH player as PokerKit counts them, street by street."""

    stacks: list[int]
    bets: list[int]
    folded: list[bool] = field(default_factory=list)
    smallest_completion: int | None = None
    preflop: bool = True
    acted: set[int] = field(default_factory=set)
    asked: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.folded = [False] * len(self.stacks)
        # Whom PokerKit asks to act preflop at least once: a player with chips that someone
        # else could still match (its "effective stack"); none when that leaves one player
        # whose bet is already the largest.
        totals = sorted(c + b for c, b in zip(self.stacks, self.bets, strict=True))
        able = {k for k, (chips, bet) in enumerate(zip(self.stacks, self.bets, strict=True))
                if min(chips, max(0, totals[-2] - bet)) > 0}
        self.asked = able if len(able) > 1 or any(
            self.bets[k] < max(self.bets) for k in able) else set()

    def new_street(self) -> None:
        self.bets = [0] * len(self.bets)
        self.preflop = False

    def checks_owed(self) -> list[int]:
        """Players PokerKit still asks to act when the rules' preflop round is over: a blind who
        has not acted, whose bet nobody else can raise any more (all others folded or all-in),
        has nothing to decide under the rules, but PokerKit gives him his option."""
        if not self.preflop or self.folded.count(False) < 2:
            return []
        top = max(self.bets)
        owed = [k for k in sorted(self.asked) if not self.folded[k] and self.stacks[k] > 0
                and k not in self.acted and self.bets[k] == top]
        self.acted.update(owed)
        return owed

    def put_in(self, player: int, total: int) -> None:
        self.stacks[player] -= total - self.bets[player]
        self.bets[player] = total

    def others_can_match_more(self, player: int) -> bool:
        """Whether anyone else could still put in more than the largest bet (PokerKit lets a
        player raise only then)."""
        top = max(self.bets)
        return any(
            j != player and not self.folded[j] and self.stacks[j] + self.bets[j] > top
            for j in range(len(self.bets))
        )

    def call(self, player: int, added: int) -> str:
        """A call of ``added`` chips under the rules. PokerKit's call only reaches the largest
        bet posted; past a short big blind the rules' call reaches the full blind, which in
        PokerKit's terms completes the bet."""
        total = self.bets[player] + added
        top = max(self.bets)
        if total <= top or not self.others_can_match_more(player):
            self.put_in(player, min(top, self.bets[player] + self.stacks[player]))
            return "cc"
        increment = total - top
        if self.smallest_completion is None or increment < self.smallest_completion:
            self.smallest_completion = increment
        self.put_in(player, total)
        return f"cbr {total}"


def phh_document(record: HandRecord, venue: str | None = None) -> dict[str, object]:
    """The PHH fields of ``record`` (complete hands only: a void hand or a misdeal has no
    result to replay); ``venue``, where it matters (a league's hands), in phh-std's field."""
    if record.status != "complete":
        raise PhhExportError(f"hand {record.hand} is a {record.status}: it has no result")
    if record.boards:
        what = "a double board" if record.double_board else "run twice"
        raise PhhExportError(
            f"hand {record.hand} is {what}: phh-std has no second board (no field for the "
            "boards, no action that chooses the runouts)", BOARDS)
    code = variant_code(record)
    seats = list(record.starting_stacks)  # action order, as recorded
    index = {seat: k for k, seat in enumerate(seats)}
    b = record.blinds
    antes = [b.ante + (b.bb_ante if seat == record.bb else 0) for seat in seats]
    # CG Straddle: a straddle is a forced bet at the straddler's place (phh-std); a bomb pot or
    # a flip has no blinds (CG Spielvarianten: the agreed amount is every player's ante). CG
    # Blinds: a big blind posted out of position is PokerKit's "post bet", a negative value:
    # live, and the action starts where it would without it.
    blinds = [0 if record.variant is not None else -record.posts[seat] if seat in record.posts
              else record.straddles.get(
        seat, b.bb if seat == record.bb else b.sb if seat == record.sb else 0) for seat in seats]
    if record.variant is not None:
        antes = [sum(a.amount for a in record.actions if a.action == "ante" and a.seat == seat)
                 for seat in seats]
    posted = [0] * len(seats)
    after_forced = [record.starting_stacks[s] for s in seats]
    for a in record.actions:
        if a.action in ("ante", "blind") and a.seat is not None:
            after_forced[index[a.seat]] -= a.amount
            if a.action == "blind":
                posted[index[a.seat]] += a.amount
    betting = _Betting(stacks=after_forced, bets=posted)
    unknown = "??" * HOLE_CARDS[record.game]
    actions: list[str] = []
    silent = COMMENTARY.get(record.variant or "")  # the rounds a bomb pot or flip skips
    owed = False  # a flip's street dealt: its checks around are owed
    for a in record.actions:
        if owed and a.action in ("deal_board", "show", "muck"):
            actions += _checks_around(betting, silent)
            owed = False
        if betting.preflop and (a.action in ("deal_board", "show", "muck") or (
                a.action == "return" and a.street == "preflop")):
            actions += [f"p{k + 1} cc{'' if silent is None else ' # ' + silent}"
                        for k in betting.checks_owed()]
        actions.append(_action(a, index, betting, unknown))
        owed = owed or (record.variant == "flip" and a.action == "deal_board")
    if owed:
        actions += _checks_around(betting, silent)
    actions += [f"p{k + 1} cc" for k in betting.checks_owed()]
    min_bet = b.bb
    if betting.smallest_completion is not None:
        min_bet = min(min_bet, betting.smallest_completion)
    if len(seats) == 2:  # heads-up lists read reversed (phh-std)
        antes.reverse()
        blinds.reverse()
    ante_posters = sum(1 for a in antes if a)
    limits: dict[str, object] = ({"small_bet": b.bb, "big_bet": 2 * b.bb} if code == "FT"
                                 else {"min_bet": min_bet})
    document: dict[str, object] = {
        "variant": code,
        # Antes are each player's own contribution when every player antes; a big-blind ante
        # is dead money in the main pot (controller/engine/table_play.py, dead_antes).
        "ante_trimming_status": b.ante > 0 and ante_posters > 1,
        "antes": antes,
        "blinds_or_straddles": blinds,
        **limits,
        "starting_stacks": [record.starting_stacks[s] for s in seats],
        "actions": [a for a in actions if a],
        **({} if venue is None else {"venue": venue}),
        "table": record.table,
        "hand": record.hand,
        "level": record.level,
        "seats": seats,
        **({} if record.seat_count is None else {"seat_count": record.seat_count}),
        "players": [record.players[s] for s in seats],
        "finishing_stacks": [record.finishing_stacks[s] for s in seats],
    }
    if record.odd_chip_unit > 1:  # user-defined (phh-std): pokertable's replay reads it
        document["_odd_chip_unit"] = record.odd_chip_unit
    if record.started is not None:
        document["_started"] = record.started
    return document


def _checks_around(betting: _Betting, commentary: str | None) -> list[str]:
    """A round nobody bets in (a flip's): a check from every player still in with chips, from
    the first left of the button; none when fewer than two could bet."""
    able = [k for k in range(len(betting.stacks))
            if not betting.folded[k] and betting.stacks[k] > 0]
    if len(able) < 2:
        return []
    return [f"p{k + 1} cc{'' if commentary is None else ' # ' + commentary}" for k in able]


def _action(a: ActionRecord, index: dict[int, int], betting: _Betting, unknown: str) -> str:
    if a.seat is None:
        if a.action == "deal_board":
            betting.new_street()
            return f"d db {a.cards}"
        return ""
    k = index[a.seat]
    p = f"p{k + 1}"
    if a.action in ("fold", "kill", "check", "call", "bet", "raise"):
        betting.acted.add(k)
    match a.action:
        case "deal_hole":  # a public record's unshown cards are unknown (phh-std)
            return f"d dh {p} {a.cards or unknown}"
        case "fold" | "kill":
            if a.amount:
                raise PhhExportError(f"seat {a.seat} folded leaving {a.amount} chips of a short "
                                     "call in the pot (R8): no PHH action puts chips in and folds",
                                     FORFEIT)
            betting.folded[k] = True
            return f"{p} f"
        case "check":
            return f"{p} cc"
        case "call":
            return f"{p} {betting.call(k, a.amount)}"
        case "bet" | "raise":
            betting.put_in(k, a.amount)
            return f"{p} cbr {a.amount}"
        case "show":
            return f"{p} sm {a.cards}"
        case "muck":  # phh-std: showdown without cards is a muck
            return f"{p} sm"
    return ""  # antes, blinds, returns and payouts: the replay posts and pushes them itself


def record_phh(record: HandRecord, venue: str | None = None) -> str:
    """One hand as a PHH file (TOML)."""
    text: str = rtoml.dumps(phh_document(record, venue))
    return text


__all__ = ["BOARDS", "FORFEIT", "NO_CODE", "NO_RESULT", "PhhExportError", "phh_document",
           "record_phh", "variant_code"]
