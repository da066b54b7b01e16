"""A hand record as PokerStars-style tournament hand-history text, the text that tracking software
imports (PokerTracker, Hold'em Manager, FPDB) and pokerdf reads.

What the format needs that a table does not have is made up the same way every time: the
tournament number (``tournament``; the cli uses the UTC date of the first hand), a hand number
(a hash of the hand's id: digits, stable across exports, so an import twice is one hand), the
buy-in ("Freeroll": the table does not know it) and the time zone (UTC, with the Eastern time
the format always carries). Hole cards appear for the hero alone ("Dealt to"), and at the
showdown for those tabled; a view of the record (`HandRecord.public`, `views.hero_view`) decides
which cards it holds before it comes here. Only complete hands have a text: a void hand or a
misdeal has no result to import.

A cash game's hand (`HandRecord.cash`, the CG) has the ring game's header, as PokerStars writes a
play-money table's (no currency): ``PokerStars Hand #N:  Hold'em No Limit (50/100) - <time>``,
the stakes the blinds (split limit: ``Hold'em Limit (100/200)``, the small and the big bet), and
the table's own name. A straddle is ``posts straddle N`` (FPDB's PokerStars reader), after the
blinds; a big blind posted out of position (CG "Blinds": a seat change) is ``posts big blind N``
at its seat, after the big blind's, as PokerStars writes a player posting to come in; a bomb
pot's or flip's agreed amounts are antes, and as nobody posted a blind its summary names no seat
"(small blind)" or "(big blind)" (only "(button)"). A pot run twice is written as PokerStars
writes a run it twice: the streets dealt twice as ``*** FIRST FLOP ***`` and ``*** SECOND FLOP
***`` (TURN, RIVER), ``*** FIRST SHOW DOWN ***`` and ``*** SECOND SHOW DOWN ***``, each with the
tabled hands named on that run's board and that run's winnings, and ``Hand was run twice``,
``FIRST Board`` and ``SECOND Board`` in the summary, where a tabled hand's line says each run's
result in turn: ``showed [..] and won (600) with a pair of Tens, and lost with two pair, Tens
and Sixes``. A double board (betting after both boards' cards) has no such text: the hand is
refused (`StarsExportError.reason`).

"Raises X to Y": Y is the player's whole bet this round, X what it adds to the largest bet in
front of anyone, as the chips lie (after a short big blind, the posted amount).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from functools import cache, lru_cache
from zoneinfo import ZoneInfo

from controller.engine.cards import parse_cards
from controller.engine.records import ActionRecord, HandRecord, PotRecord
from controller.errors import ExportError
from controller.history.hand_words import made_hand
from controller.session.outputs import hand_id

GAMES = {"NT": "Hold'em", "PO": "Omaha"}
LIMITS = {"no-limit": "No Limit", "pot-limit": "Pot Limit", "split-limit": "Limit"}
GAME_BETTING = {"NT": "no-limit", "PO": "pot-limit"}
RUNS = ("FIRST", "SECOND")
NO_RESULT = "no result"
DOUBLE_BOARD = "double board"
STREETS = {"flop": "FLOP", "turn": "TURN", "river": "RIVER"}
DIDNT_BET = " (didn't bet)"
FOLDED_ON = {"preflop": "before Flop", "flop": "on the Flop", "turn": "on the Turn",
             "river": "on the River"}
ROMAN = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"),
         (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))


class StarsExportError(ExportError):
    """A record the format has no text for (a void hand, a misdeal, a double board);
    ``reason``: which, for the count of the hands left out."""

    def __init__(self, message: str, reason: str = NO_RESULT) -> None:
        super().__init__(message)
        self.reason = reason


def game_name(record: HandRecord) -> str:
    """``Hold'em No Limit``, ``Omaha Pot Limit``, ``Hold'em Limit`` (split limit, CG Limits)."""
    return f"{GAMES[record.game]} {LIMITS[record.betting or GAME_BETTING[record.game]]}"


@cache
def roman(number: int) -> str:
    out = []
    for value, letters in ROMAN:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def hand_number(record: HandRecord) -> int:
    """Digits for the hand, the same in every export (trackers skip a hand number they hold)."""
    digest = hashlib.blake2b(hand_id(record.table, record.hand, record.started).encode(),
                             digest_size=8).digest()
    return int.from_bytes(digest, "big") % 10**18


def tournament_number(started: float | None) -> int:
    """The default tournament number: the UTC date of a hand (20261125)."""
    return int(datetime.fromtimestamp(started or 0.0, UTC).strftime("%Y%m%d"))


@cache
def _eastern() -> ZoneInfo:
    """The format's own clock, US Eastern time (the system's time-zone data: Debian's tzdata)."""
    return ZoneInfo("America/New_York")


@lru_cache(maxsize=4096)
def _eastern_offset(hour: int) -> timedelta:
    """Eastern time's offset from UTC in the hour since 1970 ``hour`` (it changes on the hour)."""
    offset = datetime.fromtimestamp(hour * 3600, UTC).astimezone(_eastern()).utcoffset()
    assert offset is not None
    return offset


def _moments(started: float | None) -> str:
    moment = datetime.fromtimestamp(started or 0.0, UTC)
    eastern = moment + _eastern_offset(int((started or 0.0) // 3600))
    return f"{_clock(moment)} UTC [{_clock(eastern)} ET]"


def _clock(moment: datetime) -> str:
    """``2026/11/18 6:06:40``, as the format writes it (no leading zero on the hour)."""
    m = moment
    return f"{m.year}/{m.month:02d}/{m.day:02d} {m.hour}:{m.minute:02d}:{m.second:02d}"


@lru_cache(maxsize=65536)
def _cards(text: str) -> str:
    return " ".join([text[k:k + 2] for k in range(0, len(text), 2)])


def _all_in(flag: bool) -> str:
    return " and is all-in" if flag else ""


def _pot_names(count: int) -> list[str]:
    if count <= 1:
        return ["pot"][:count]
    if count == 2:
        return ["main pot", "side pot"]
    return ["main pot", *(f"side pot-{k}" for k in range(1, count))]


class _Text:
    """The hand's lines, written as its actions are read."""

    def __init__(self, record: HandRecord, hero: str | None, venue: str | None = None) -> None:
        self.record = record
        self.venue = venue
        self.players = record.players
        self.hero = hero
        self.lines: list[str] = []
        self.stacks = dict(record.starting_stacks)
        self.bets = dict.fromkeys(record.starting_stacks, 0)
        self.street = "preflop"
        self.folded: dict[int, str] = {}
        self.voluntary: set[int] = set()
        self.shown: dict[int, str] = {}
        self.mucked: list[int] = []
        self.dealt = False
        self.board: list[str] = []
        self.second: list[str] = []  # a second run's cards so far (CG Run It Twice)
        self._board = [c for c in parse_cards(record.board) if c is not None]
        # The cards both runs share: the first run's cards from there on are its own.
        first, other = [*record.boards, "", ""][:2]
        shared = 0
        while shared < len(first) and first[shared:shared + 2] == other[shared:shared + 2]:
            shared += 2
        self.shared = shared // 2 if record.run_twice else 5
        # A run twice's second board, its hands named on it (the first run's: ``_board``).
        second = record.boards[1] if record.run_twice and len(record.boards) > 1 else ""
        self._second_board = [c for c in parse_cards(second) if c is not None]
        self._named: dict[tuple[str, int], str | None] = {}
        self.blinded: set[int] = set()  # who posted a blind: nobody in a bomb pot or a flip (CG)
        self.run_won: dict[int, dict[int, int]] = {}  # a run twice's winnings, run -> seat -> chips

    def name(self, seat: int) -> str:
        return self.record.players[seat]

    def header(self, tournament: int) -> None:
        r = self.record
        b = r.blinds
        if r.cash:  # a ring game's header (CG); split limit's stakes are its bets
            stakes = f"{b.bb}/{2 * b.bb}" if r.betting == "split-limit" else f"{b.sb}/{b.bb}"
            self.lines.append(f"PokerStars Hand #{hand_number(r)}:  {game_name(r)} ({stakes}) - "
                              f"{_moments(r.started)}")
        else:
            self.lines.append(
                f"PokerStars Hand #{hand_number(r)}: Tournament #{tournament}, Freeroll "
                f"{game_name(r)} - Level {roman(r.level)} ({b.sb}/{b.bb}) - "
                f"{_moments(r.started)}")
        # The table's size as the record keeps it; older records only say whether seat 10 played.
        largest = r.seat_count or (10 if 10 in r.players else 9)
        # Two venues' table 1 are two tables: a tracker keeps tables apart by this name.
        table = r.table if self.venue is None else f"{self.venue} {r.table}"
        name = table if r.cash else f"{tournament} {table}"
        self.lines.append(f"Table '{name}' {largest}-max Seat #{r.button} is the button")
        for seat in sorted(r.starting_stacks):
            self.lines.append(f"Seat {seat}: {self.name(seat)} "
                              f"({r.starting_stacks[seat]} in chips) ")

    def hole_cards(self) -> None:
        self.dealt = True
        self.lines.append("*** HOLE CARDS ***")
        r = self.record
        for seat, name in r.players.items():
            if name == self.hero and r.hole_cards.get(seat):
                self.lines.append(f"Dealt to {name} [{_cards(r.hole_cards[seat])}]")

    def action(self, a: ActionRecord) -> None:
        """One action of the record as its line (the hot loop of an export: plain branches,
        most frequent first)."""
        seat, kind, amount = a.seat, a.action, a.amount
        if seat is None:
            if kind == "deal_board":
                self.deal_board(a.cards, a.board or 1)
            return
        if kind == "deal_hole":
            if not self.dealt:
                self.hole_cards()
            return
        name, lines, bets, stacks = self.players[seat], self.lines, self.bets, self.stacks
        all_in = " and is all-in" if a.all_in else ""
        if kind == "call":
            self.voluntary.add(seat)
            stacks[seat] -= amount
            bets[seat] += amount
            lines.append(f"{name}: calls {amount}{all_in}")
        elif kind == "check":
            lines.append(f"{name}: checks ")
        elif kind in ("fold", "kill"):
            if amount:  # a short call he would not complete, left in the pot (R8)
                stacks[seat] -= amount
                bets[seat] += amount
                lines.append(f"{name}: calls {amount}")
            self.folded[seat] = self.street
            lines.append(f"{name}: folds ")
        elif kind in ("bet", "raise"):
            self.voluntary.add(seat)
            top = max(bets.values())
            stacks[seat] -= amount - bets[seat]
            bets[seat] = amount
            if top == 0:
                lines.append(f"{name}: bets {amount}{all_in}")
            else:
                lines.append(f"{name}: raises {amount - top} to {amount}{all_in}")
        elif kind == "show":
            self.shown[seat] = a.cards
        elif kind == "ante":
            stacks[seat] -= amount
            lines.append(f"{name}: posts the ante {amount}{_all_in(stacks[seat] == 0)}")
        elif kind == "blind":
            self.blinded.add(seat)
            stacks[seat] -= amount
            bets[seat] += amount
            if seat in self.record.straddles:  # CG Straddle
                lines.append(f"{name}: posts straddle {amount}{_all_in(stacks[seat] == 0)}")
            else:
                # CG Blinds: a big blind posted out of position (a seat change) is what
                # PokerStars writes for a player posting to come in: "posts big blind"
                which = "big" if seat == self.record.bb or seat in self.record.posts else "small"
                lines.append(f"{name}: posts {which} blind {amount}{_all_in(stacks[seat] == 0)}")
        elif kind == "return":
            stacks[seat] += amount
            bets[seat] -= amount
            lines.append(f"Uncalled bet ({amount}) returned to {name}")
        elif kind == "muck":
            self.mucked.append(seat)

    def deal_board(self, cards: str, board: int = 1) -> None:
        if not self.dealt:
            self.hole_cards()
        new = _cards(cards)
        if board > 1:  # the second run (CG Run It Twice): the shared cards, then its own
            if not self.second:
                shared = " ".join(self.board).split()[:self.shared]
                self.second = [" ".join(shared[:3]), *shared[3:]] if shared else []
            street = ("flop", "turn", "river")[len(self.second)]
            before = f"[{' '.join(self.second)}] " if self.second else ""
            self.second.append(new)
            self.lines.append(f"*** SECOND {STREETS[street]} *** {before}[{new}]")
            return
        street = ("flop", "turn", "river")[len(self.board)]
        before = f"[{' '.join(self.board)}] " if self.board else ""
        run = "FIRST " if len(" ".join(self.board).split()) >= self.shared else ""
        self.board.append(new)
        self.lines.append(f"*** {run}{STREETS[street]} *** {before}[{new}]")
        self.street = street
        self.bets = dict.fromkeys(self.bets, 0)

    def showdown(self) -> None:
        if self.record.run_twice:
            self.lines.append("*** FIRST SHOW DOWN ***")
        elif not self.shown and not self.mucked:
            return
        else:
            self.lines.append("*** SHOW DOWN ***")
        self.tabled(1)

    def tabled(self, run: int) -> None:
        """The shows and mucks at a show down, each hand named on run ``run``'s board (a run
        twice's second show down tables them again, as PokerStars does, named on its own)."""
        for seat, cards in self.shown.items():
            named = self.named(cards, run)
            self.lines.append(f"{self.name(seat)}: shows [{_cards(cards)}]"
                              f"{f' ({named})' if named else ''}")
        for seat in self.mucked:
            self.lines.append(f"{self.name(seat)}: mucks hand ")

    def named(self, cards: str, run: int = 1) -> str | None:
        """``cards``' best hand in words on run ``run``'s board (1: the hand's board)."""
        key = (cards, run)
        if key not in self._named:
            hole = [c for c in parse_cards(cards) if c is not None]
            board = self._second_board if run == 2 else self._board
            self._named[key] = made_hand(hole, board, self.record.game)
        return self._named[key]

    def collected(self) -> dict[int, int]:
        """The collected lines (a run twice's: each run's after its show down)."""
        pots = self.record.pots
        names = list(reversed(list(zip(pots, _pot_names(len(pots)), strict=True))))
        won: dict[int, int] = {}
        runs = (1, 2) if self.record.run_twice else (0,)
        for run in runs:
            if run == 2:
                self.lines.append("*** SECOND SHOW DOWN ***")
                self.tabled(2)
            mine = self.run_won.setdefault(run, {})
            for pot, label in names:
                shares = pot.shares if run == 0 else _run_shares(pot, run)
                for seat, chips in shares.items():
                    self.lines.append(f"{self.name(seat)} collected {chips} from {label}")
                    won[seat] = won.get(seat, 0) + chips
                    mine[seat] = mine.get(seat, 0) + chips
        return won

    def summary(self, won: dict[int, int]) -> None:
        r = self.record
        self.lines.append("*** SUMMARY ***")
        total = sum(p.amount for p in r.pots)
        if len(r.pots) > 1:
            names = _pot_names(len(r.pots))
            parts = " ".join(f"{n[0].upper()}{n[1:]} {p.amount}."
                             for n, p in zip(names, r.pots, strict=True))
            self.lines.append(f"Total pot {total} {parts} | Rake 0")
        else:
            self.lines.append(f"Total pot {total} | Rake 0")
        if r.run_twice:
            self.lines.append("Hand was run twice")
            for run, board in zip(RUNS, r.boards, strict=False):
                self.lines.append(f"{run} Board [{_cards(board)}]")
        elif r.board:
            self.lines.append(f"Board [{_cards(r.board)}]")
        for seat in sorted(r.starting_stacks):
            self.lines.append(f"Seat {seat}: {self.name(seat)}{self.position(seat)} "
                              f"{self.outcome(seat, won.get(seat, 0))}")

    def position(self, seat: int) -> str:
        r = self.record
        sb: int | None = r.sb
        bb: int | None = r.bb
        if r.variant:
            # A bomb pot or a flip (CG Spielvarianten: everyone's agreed amount, as antes): a
            # blind's label only for a seat that posted one, and nobody posts. A regular hand
            # labels the seats' places (a big blind all in for his ante keeps his).
            sb = sb if sb in self.blinded else None
            bb = bb if bb in self.blinded else None
        labels: list[tuple[str, int | None]] = [
            (" (button)", r.button), (" (small blind)", sb), (" (big blind)", bb)]
        if r.button == r.bb:
            # A dead button left on the seat that now posts the big blind (PVB 27): a state
            # PokerStars never writes. The blind first, since readers take a seat's first label
            # for its position and place the action by the big blind.
            labels = labels[1:] + labels[:1]
        return "".join(label for label, at in labels if at == seat)

    def outcome(self, seat: int, won: int) -> str:
        if seat in self.shown:
            cards = self.shown[seat]
            if self.record.run_twice:  # each run's result with the hand on its board
                parts = ", and ".join(_result(self.run_won[run].get(seat, 0),
                                              self.named(cards, run)) for run in (1, 2))
                return f"showed [{_cards(cards)}] and {parts}"
            return f"showed [{_cards(cards)}] and {_result(won, self.named(cards))}"
        if won:
            return f"collected ({won})"
        if seat in self.folded:
            street = self.folded[seat]
            quiet = street == "preflop" and seat not in self.voluntary and seat not in (
                self.record.sb, self.record.bb)
            return f"folded {FOLDED_ON[street]}{DIDNT_BET if quiet else ''}"
        own = self.record.hole_cards.get(seat)
        return f"mucked [{_cards(own)}]" if own and self.name(seat) == self.hero else "mucked"


def _result(won: int, named: str | None) -> str:
    """A tabled hand's result in the summary: ``won (600) with a pair of Tens``, ``lost with
    ...``."""
    tail = f" with {named}" if named else ""
    return f"won ({won}){tail}" if won else f"lost{tail}"


def _run_shares(pot: PotRecord, run: int) -> dict[int, int]:
    """What ``pot`` paid on run ``run`` (1 or 2): its part on that run, or for a pot not run
    twice (CG Run It Twice: a side pot may run twice while the main pot does not) all of it
    on the first."""
    if not pot.boards:
        return dict(pot.shares) if run == 1 else {}
    return {seat: chips for part in pot.boards if part.board == run
            for seat, chips in part.shares.items()}


def _posts_first(record: HandRecord) -> list[ActionRecord]:
    """The actions with the forced posts in the format's order: antes, the small blind, the big
    blind, a big blind posted out of position (CG Blinds), the straddles (CG Straddle) in their
    order. A record posts from the button's left,
    so heads-up (the button posts the small blind: PVB 28, RULES B3) its big blind comes first,
    which readers take for a blind out of turn."""
    actions = record.actions
    lead = 0
    while lead < len(actions) and actions[lead].action in ("ante", "blind"):
        lead += 1
    def rank(a: ActionRecord) -> int:
        if a.action == "ante":
            return 0
        return (4 if a.seat in record.straddles else 3 if a.seat in record.posts
                else 2 if a.seat == record.bb else 1)

    posts = sorted(actions[:lead], key=rank)
    return [*posts, *actions[lead:]]


def stars_hand(record: HandRecord, tournament: int, hero: str | None = None,
               venue: str | None = None) -> str:
    """One complete hand as tracker text. ``record`` is already the view to export; ``hero`` is
    the player whose hole cards are dealt to ("Dealt to"); ``venue``, where it matters (a
    league's hands), names the table with it ("Table '20261125 hall-a 1'")."""
    if record.status != "complete":
        raise StarsExportError(f"hand {record.hand} is a {record.status}: it has no result")
    if record.double_board:
        raise StarsExportError(f"hand {record.hand} is a double board: tracker text has none "
                               "(its two boards are a run twice's, dealt after the betting)",
                               DOUBLE_BOARD)
    text = _Text(record, hero, venue)
    text.header(tournament)
    for a in _posts_first(record):
        kind = a.action
        if kind == "deal_hole":  # the deal: one line, at the first card
            if not text.dealt:
                text.hole_cards()
        elif kind != "win":  # payouts: the pots say them
            text.action(a)
    if not text.dealt:
        text.hole_cards()
    text.showdown()
    won = text.collected()
    text.summary(won)
    return "\n".join(text.lines) + "\n"


__all__ = ["DOUBLE_BOARD", "StarsExportError", "game_name", "hand_number", "roman", "stars_hand",
           "tournament_number"]
