"""The cash game's additions to a hand (the CG): straddles read from the chips put out before the
cards (CG "Straddle"), a bomb pot, flip or double board for the next hand (CG
"Spielvarianten"), and run it twice (CG "Run It Twice"); the table stakes and buy-ins in
`table_stakes`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from controller.engine.hand import HOLE_CARDS, VARIANT_NAMES, Hand
from controller.engine.straddles import KIND_NAMES
from controller.engine.table_play import RunTwice, StartHand, Straddle
from controller.errors import RuleViolation
from controller.events import CommandEvent, SeatEvent
from controller.session.cards import board_street_name
from controller.session.model import Refused, SessionSnapshot, voluntary_actions
from controller.session.outputs import NextVariant
from controller.session.parts import Core
from controller.session.table_stakes import bet_unit
from controller.session.words import card_text_list

if TYPE_CHECKING:
    from controller.session.chips import ChipZones

STRADDLE = "CG Straddle"
VARIANTS = "CG Spielvarianten"
RUN_TWICE = "CG Run It Twice"
DECK = 52
BOARD = 5 + 3  # a board's five cards and the three burn cards before its flop, turn and river
NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
           9: "nine", 10: "ten"}
GAME_NAMES = {"NT": "hold'em", "PO": "Omaha"}


class CashCore(Core, Protocol):
    """What the cash game's additions read of the core beyond every part's view: the seats
    that change after this hand, and the chip zones (a straddle's chips are accounted there)."""

    @property
    def queued_seats(self) -> list[SeatEvent]: ...

    @property
    def chips(self) -> ChipZones: ...


class CashGame:
    """Straddles, the variants of a hand and run it twice. Its own state, kept in the snapshot:
    the variant the next hand is dealt as (``next_variant``)."""

    def __init__(self, core: CashCore, snapshot: SessionSnapshot) -> None:
        self.core = core
        self.next_variant = snapshot.next_variant

    def snapshot_fields(self) -> dict[str, Any]:
        return {"next_variant": self.next_variant}

    def deal_again(self, variant: NextVariant | None) -> None:
        """A void hand is dealt again, as the variant it was (unless another was asked for)."""
        if variant is not None and self.next_variant is None:
            self.next_variant = variant

    # ---------------------------------------------------------------- straddles

    def straddle_chips(self, hand: Hand, seat: int, index: int, new: list[int]) -> bool:
        """CG Straddle: "ein freiwilliges zusätzliches Blind, das nach dem Big Blind gesetzt
        wird": chips a seat that owes no blind puts out before the cards are dealt (as the
        blinds are, APSA 5.4.1) are its straddle when they are one; otherwise the dealer is
        told why not, and they are no part of any bet (they go back). Only at a table that
        opened with straddles, and only before the first hole card is read and the first
        action (the CG is silent on when; a blind is posted before the deal)."""
        track = self.core.track
        table = self.core.table
        assert track is not None
        if (not table.straddles or track.hole_reads or voluntary_actions(hand)
                or hand.variant is not None):
            return False
        if any(s.seat == seat for s in table.hand_straddles):
            return False  # its straddle is posted: the zone is checked as a blind's
        owed = sum(a.amount for a in hand.log if a.player == index and a.kind in ("ante", "blind"))
        ante = sum(a.amount for a in hand.log if a.player == index and a.kind == "ante")
        if owed > ante:
            return False  # a blind: its posting is checked (H4)
        amount = sum(new) - ante
        if amount <= 0:
            if track.extra.get(seat):  # the chips that were no straddle went back
                track.base[seat] = list(new)
                track.extra[seat] = 0
                return True
            return False
        before = {s.seat for s in table.hand_straddles}
        try:
            table.apply(Straddle(seat=seat, amount=amount))
        except RuleViolation as exc:
            track.base[seat] = list(new)
            track.extra[seat] = amount
            self.core._say("alert", f"seat {seat} put out {amount:,} before the cards: no "
                           f"straddle: {exc.reason}; the chips go back", rule=exc.rule, seat=seat)
            return True
        posted = table.hand_straddles[-1]
        for other in sorted(before - {s.seat for s in table.hand_straddles}):
            zone = track.zone.get(other, [])
            track.base[other] = list(zone)
            track.extra[other] = sum(zone)
            track.posting_alerts.pop(other, None)
            self.core._say("action", f"seat {other}'s straddle is off: the live straddle has "
                           "precedence; its chips go back", rule=STRADDLE, seat=other)
        self.core.chips.account(seat, index)
        first = table.actor_seat()
        self.core._say("action", f"seat {seat} posts a {KIND_NAMES[posted.kind]} of {amount:,}: "
                       f"the action starts at seat {first}", rule=STRADDLE, seat=seat,
                       action="straddle", amount=amount, straddle=posted.kind)
        return True

    def told_of_straddles(self, event: SeatEvent) -> None:
        """CG Straddle: "Neue Spielteilnehmer müssen vor Spielaufnahme diesbezüglich in
        Kenntnis gesetzt werden": a player sitting down at a table with straddles is told."""
        kinds = self.core.table.straddles
        if not kinds or event.player is None:
            return
        names = " and ".join(KIND_NAMES[k] for k in kinds)
        self.core._say("seat", f"seat {event.seat}: {event.player}, this table plays the {names} "
                       "(CG Straddle)", rule=STRADDLE, seat=event.seat, straddles=list(kinds))

    # ---------------------------------------------------------------- variants

    def cmd_variant(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """CG Spielvarianten, for the next hand (the floor's, or the dealer's by his console):
        ``kind`` bomb-pot or flip with the ``amount`` every player puts in, double-board, or
        none (a regular hand again); ``double_board`` true deals a bomb pot or flip on two
        boards. The amount is divisible by the small blind (by the big blind in a 2/5 game: CG
        Unteilbare Jetons)."""
        kind = args.get("kind")
        amount = args.get("amount", 0)
        two = args.get("double_board", False)
        if kind not in ("bomb-pot", "flip", "double-board", "none") or not isinstance(two, bool):
            raise Refused("variant: args.kind is bomb-pot, flip, double-board or none (with "
                          "args.amount for a bomb pot or flip, args.double_board to deal it on "
                          "two boards)", VARIANTS)
        if kind == "none":
            if self.next_variant is None:
                return False
            self.next_variant = None
            self.core._say("decision", f"the next hand is a regular hand ({by})", rule=VARIANTS)
            return True
        if kind == "double-board":
            wanted = NextVariant(boards=2, by=by)
        else:
            level = self.core.table.level
            unit, unit_name = bet_unit(level.sb, level.bb, level.ante)
            if type(amount) is not int or amount <= 0 or amount % unit:
                name = VARIANT_NAMES[kind]
                raise Refused(f"a {name}: every player puts in an amount {unit_name} "
                              f"divides ({unit:,}): args.amount", "CG Unteilbare Jetons")
            wanted = NextVariant(variant=kind, amount=amount, boards=2 if two else 1, by=by)
        if wanted == self.next_variant:
            return False
        short = self._two_boards_short(wanted, self._next_players())
        if short is not None:
            raise Refused(short, VARIANTS)
        self.next_variant = wanted
        self.core._say("decision", f"the next hand is {wanted.words()} ({by}): "
                       f"{self._variant_rule(wanted)}", rule=VARIANTS,
                       variant=wanted.model_dump(mode="json"))
        return True

    @staticmethod
    def _variant_rule(variant: NextVariant) -> str:
        if variant.variant == "bomb-pot":
            what = "every player puts in the amount, the flop comes without a betting round"
        elif variant.variant == "flip":
            what = "every player puts in the amount, the whole board comes without betting"
        else:
            what = "two boards, each pot shared equally between them"
        if variant.variant is not None and variant.boards > 1:
            what += ", on two boards, each pot shared equally between them"
        return what

    def next_hand(self) -> tuple[StartHand, NextVariant | None]:
        """The shuffle's hand: the variant asked for, if the table can deal it now (a bomb pot
        or flip keeps the button for the hand after it, so it follows a regular hand)."""
        wanted = self.next_variant
        if wanted is None:
            return StartHand(), None
        table = self.core.table
        if wanted.variant is not None and table.blinds_positions is None:
            self.core._say("decision", f"{wanted.words()} is dealt after a regular hand, which "
                           "lays out the button and the blinds: this hand is a regular one",
                           rule=VARIANTS)
            return StartHand(), None
        self.next_variant = None
        short = self._two_boards_short(wanted, len(table.next_positions().dealt))
        if short is not None:  # (more sat down since it was asked for)
            self.core._say("decision", f"{short}: {wanted.words()} is not dealt, this hand is a "
                           "regular one", rule=VARIANTS)
            return StartHand(), None
        return StartHand(variant=wanted.variant, amount=wanted.amount, boards=wanted.boards), \
            wanted

    def _next_players(self) -> int:
        """The players the next hand deals in, as far as the table knows now: every seat with
        chips, and those sitting down after this hand (less those leaving)."""
        queued, seats = self.core.queued_seats, self.core.table.seats
        leaving = {e.seat for e in queued if e.player is None}
        return sum(1 for n, s in seats.items() if s.stack > 0 and n not in leaving) \
            + sum(1 for e in queued if e.player is not None)

    def _two_boards_short(self, wanted: NextVariant, players: int) -> str | None:
        """Two boards need their cards from the one deck: every player's hole cards, and each
        board's five cards with its three burn cards. Where the deck cannot hold them (ten
        players at Omaha: 40 hole cards and 16 = 56), the dealer is told in so many words. The
        CG deals two boards from one deck and names no limit: this is what a deck can do."""
        if wanted.boards < 2:
            return None
        game = self.core.profile.game
        needed = HOLE_CARDS[game] * players + wanted.boards * BOARD
        if needed <= DECK:
            return None
        return (f"not enough cards for two boards with {_players(players)} at "
                f"{GAME_NAMES.get(game, game)}: {needed} needed, {DECK} in the deck")

    def say_variant(self, variant: NextVariant) -> None:
        self.core._say("hand_started", f"hand {self.core.table.hand_number} is {variant.words()}: "
                       f"{self._variant_rule(variant)}", rule=VARIANTS,
                       variant=variant.model_dump(mode="json"))

    # ---------------------------------------------------------------- run it twice

    def cmd_run_twice(self, args: dict[str, Any], by: str, _: CommandEvent) -> bool:
        """CG Run It Twice: every player in ``pots`` (numbers from 1, the main pot; all the
        pots when not given) agreed to run the rest of the board twice (b). With more than two
        players in the hand the floor is there (e): the floor's command, not the dealer's."""
        hand = self.core._hand()
        if hand is None:
            raise Refused("run it twice: no hand is running", RUN_TWICE)
        pots = args.get("pots")
        if pots is None:
            pots = list(range(1, len(hand.pots()) + 1))
        if not isinstance(pots, list) or not all(type(k) is int for k in pots):
            raise Refused("run it twice: args.pots, the pots every player in them agreed for "
                          "(1: the main pot)", RUN_TWICE)
        return self._run_twice([k - 1 for k in pots], by)

    def run_twice_key(self) -> bool:
        """The confirm key while the cards are due and run it twice can be run: every player
        agreed, for every pot (CG Run It Twice b); with more than two players only the floor
        (e)."""
        hand = self.core._hand()
        assert hand is not None
        return self._run_twice(list(range(len(hand.pots()))), "dealer")

    def _run_twice(self, pots: list[int], by: str) -> bool:
        hand = self.core._hand()
        assert hand is not None
        refusal = hand.run_twice_refusal(pots)
        if refusal is not None:
            raise Refused(*refusal)
        short = self._run_twice_short(hand)
        if short is not None:
            raise Refused(short, RUN_TWICE)
        players = len(hand.live)
        if players > 2 and not by.startswith("floor"):
            raise Refused(f"{players} players in the hand: run it twice with the floor there; "
                          "call the floor", f"{RUN_TWICE} e")
        self.core.table.apply(RunTwice(pots=pots))
        street = board_street_name(hand, *hand.next_board_street()).split(" of ")[0]
        what = {"flop": "the whole board is", "turn": "the turn and the river are",
                "river": "the river is"}[street]
        named = ", ".join(str(k + 1) for k in sorted(pots))
        which = "every pot" if len(pots) == len(hand.pots()) else f"pot {named} only"
        floor = "the floor there" if by.startswith("floor") else "the floor informed (d)"
        self.core._say("decision", f"run it twice ({which}): every player agreed; {what} dealt "
                       f"twice, run 1 then run 2; {floor} ({by})", rule=RUN_TWICE,
                       pots=[k + 1 for k in sorted(pots)])
        return True

    def _run_twice_short(self, hand: Hand) -> str | None:
        """Whether the stub holds the rest of the board twice, each street with its burn card:
        the cards used are the hole cards dealt, the board and every burn so far (one a
        street at least, where no burn antenna reads them). In a nine-handed Omaha hand run
        twice from the start, run 1's three burns are shuffled back for run 2 (CG Run It
        Twice: "so werden nach dem ersten regulären Board die drei Burn Cards mit den übrigen
        acht Karten noch einmal aufgemischt"). Ten players at Omaha all-in before the flop
        leave 12 cards for the 16 two runs need: told, in the dealer's words."""
        track = self.core.track
        assert track is not None
        game = hand.game
        players = len(track.dealt)
        dealt = len(hand.boards.cards[0]) if hand.boards.cards else 0
        streets = {0: 0, 3: 1, 4: 2}.get(dealt, 3)  # streets dealt so far
        used = HOLE_CARDS[game] * players + dealt + max(len(track.burn_cards), streets)
        run = (5 - dealt) + (3 - streets)  # one run's cards and burns
        back = 3 if game == "PO" and players == 9 and dealt == 0 else 0
        needed = used + 2 * run - back
        if needed <= DECK:
            return None
        street = {0: "flop", 3: "turn"}.get(dealt, "river")
        return (f"not enough cards to run it twice from the {street} with {_players(players)} "
                f"at {GAME_NAMES.get(game, game)}: {needed} needed, {DECK} in the deck")

    def run_twice_offer(self) -> str:
        """While the cards are due: how run it twice is asked for, when it can be run."""
        hand = self.core._hand()
        if (hand is None or hand.run_twice_refusal(list(range(len(hand.pots())))) is not None
                or self._run_twice_short(hand) is not None):
            return ""
        if len(hand.live) > 2:
            return " (run it twice: with the floor, CG Run It Twice e)"
        return " (or run it twice: every player agrees, confirm)"

    # ---------------------------------------------------------------- the public view

    def view(self, live: bool) -> dict[str, Any]:
        """The cash game's part of the public state: the straddles the table plays and those
        of the hand in play; the variant and the boards of the hand in play or the last one
        (as its board), the variant asked for the next."""
        table = self.core.table
        hand = table.hand
        track = self.core.track
        boards = hand.boards.cards if hand is not None else []  # (shown as the board is)
        return {"straddle_kinds": list(table.straddles),
                "straddles": {s.seat: s.amount for s in table.hand_straddles} if live else {},
                "variant": track.variant if hand is not None and track is not None else None,
                "next_variant": self.next_variant,
                "boards": [card_text_list(b) for b in boards] if len(boards) > 1 else []}


def _players(count: int) -> str:
    return f"{NUMBERS.get(count, str(count))} players"
