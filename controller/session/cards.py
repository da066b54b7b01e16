"""Cards at the table: the seat, board and muck antennas' reads turned into the deal, the
board, folds and mucks, and the irregularities a card in the wrong place reveals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

from controller.engine.boards import BOARD_SIZE
from controller.engine.hand import BOARD_CARDS, STREET_NAMES, Hand, Stage, Street
from controller.engine.table_play import (
    DealBoard,
    DealHole,
    DrawForButton,
    DrawHoleCard,
    Fold,
    KillHand,
    Muck,
)
from controller.events import (
    CardEvent,
    ForeignEvent,
)
from controller.session.model import BETTING_KINDS, SessionSnapshot
from controller.session.parts import Core
from controller.session.words import spaced

if TYPE_CHECKING:
    from controller.engine.records import HandRecord
    from controller.session.actions import BettingActions


class CardCore(Core, Protocol):
    """What the card reading reads and calls of the core beyond every part's view: who is
    away, the record not yet sealed (a card read after the hand), and the hand's steps a card
    may take (a fold by the muck, a void deal, the deal's check at the first action)."""

    @property
    def absent(self) -> set[int]: ...

    @property
    def pending_record(self) -> HandRecord | None: ...

    def _after_step(self) -> None: ...

    @property
    def actions(self) -> BettingActions: ...

    def _end_void(self, status: Literal["void", "misdeal"], rule: str) -> None: ...

    def _substantial(self) -> bool: ...


class CardReading:
    """What the antennas read: hole cards, board cards, the burn and the muck, a card of no
    deck; and what a card in the wrong place means (RULES I1-I5, S7). Its own state, kept in
    the snapshot: the cards drawn for the button between hands (``draw``, seat -> card); the
    hand's cards are its track's (`HandTrack`), replayed with it."""

    def __init__(self, core: CardCore, snapshot: SessionSnapshot) -> None:
        self.core = core
        self.draw = dict(snapshot.draw)

    def snapshot_fields(self) -> dict[str, Any]:
        return {"draw": dict(self.draw)}

    def card(self, event: CardEvent) -> bool:
        track = self.core.track
        hand = self.core.table.hand
        if track is None or hand is None:
            return self._card_between_hands(event)
        if hand.stage is Stage.OVER:
            if event.zone == "board":  # the card is never recorded nor shown
                self.core._say("alert", "no rabbit hunting: the hand is over, the card stays "
                               "unseen", rule="PVB 22")
                return True
            return False
        card, zone = event.card, event.zone
        seen = track.zone_of.get(card)
        if (seen is not None and zone in ("burn", "muck") and track.draw_from is not None
                and seen == f"seat:{track.draw_from}"):
            return self._drawn(track.draw_from, card)
        if seen is not None and zone == "burn" and seen.startswith("seat:") and \
                len(track.seat_cards.get(int(seen[5:]), [])) > track.wanted and \
                self.core._substantial():
            # The antennas show the floor's draw (PVB 30(6)): one of the cards of a seat holding
            # one too many, after substantial action, put on the burn antenna. It is the next
            # burn card, not a card seen twice; no separate command is needed.
            return self._drawn(int(seen[5:]), card)
        if seen in ("burn", "muck") and zone in ("burn", "board") and self._run_two_due(hand):
            if card not in self._reshuffled(hand):
                if seen == zone:
                    return False  # a burn card read again where it lies
                self.core._irregular("CG Run It Twice", f"{card} was burned before run 2: it "
                                     f"cannot come again on the {zone} (only a nine-handed Omaha "
                                     "hand run twice from the start shuffles the burn cards "
                                     "back); the card does not count, the floor decides")
                return True
            track.reshuffled_used.add(card)  # CG Run It Twice: shuffled back, dealt again
            del track.zone_of[card]
            seen = None
        if seen is not None:
            if event.uid and card in track.uid_of and track.uid_of[card] != event.uid:
                self._foul(f"the same card twice on {seen} and {zone} (two tags)")
                return True
            if seen == zone:
                return False  # the same card read again
            if zone == "muck":
                return self._to_muck(card, seen)
            if seen in ("muck", "burn"):
                self._foul(f"a card from the {seen} came back on {zone}")
                return True
            self._foul(f"a card seen on {seen} came up again on {zone}")
            return True
        track.zone_of[card] = zone
        if event.uid:
            track.uid_of[card] = event.uid
        if zone.startswith("seat:"):
            return self._hole_card(int(zone[5:]), card)
        if zone == "board":
            return self._board_card(hand, card)
        # A burn card, on the burn antenna or straight from the stub into the muck (muck and
        # burn share it).
        track.burns += 1
        track.burn_cards.append(card)
        return True

    def _run_two_due(self, hand: Hand) -> bool:
        """Run it twice: run 1 is complete, run 2's cards are due (CG Run It Twice)."""
        return hand.boards.runs and len(hand.boards.cards[0]) == BOARD_SIZE

    def _reshuffled(self, hand: Hand) -> set[str]:
        """CG Run It Twice: "Wurden bei Pot Limit Omaha an neun Spielteilnehmer Karten
        ausgeteilt und es wird verlangt das Board zwei Mal zu geben, so werden nach dem ersten
        regulären Board die drei Burn Cards mit den übrigen acht Karten noch einmal
        aufgemischt": run 1's burn cards, back in the stub for run 2, not yet dealt again."""
        track = self.core.track
        assert track is not None
        if hand.game != "PO" or len(track.dealt) != 9 or hand.boards.run_from != 0:
            return set()
        return set(track.burn_cards[:track.run_one_burns]) - track.reshuffled_used

    def _drawn(self, seat: int, card: str) -> bool:
        """The card the floor drew from a seat holding one too many (PVB 30(6)): the next burn
        card; the seat plays the others. The card is never named: it was a hole card."""
        track = self.core.track
        assert track is not None
        keeps = [c for c in track.seat_cards[seat] if c != card]
        self.core.table.apply(DrawHoleCard(seat=seat, keeps="".join(keeps), drawn=card))
        track.seat_cards[seat] = keeps
        track.zone_of[card] = "burn"
        track.preset_burn = True
        track.draw_from = None
        self.core._irregular("PVB 30(6)", f"seat {seat} held {len(keeps) + 1} cards: the floor "
                             "drew one as the next burn card; the hand plays on", seat=seat,
                             kind="decision")
        return True

    def _card_between_hands(self, event: CardEvent) -> bool:
        if event.zone == "board" and self.core.pending_record is not None:
            self.core._say("alert", "no rabbit hunting: the hand is over, the card stays unseen",
                           rule="PVB 22")
            return True
        if (event.zone.startswith("seat:") and self.core.table.positions is None
                and self.core.profile.button_start == "high-card"):
            seat = int(event.zone[5:])
            if seat in self.core.table.seats and seat not in self.draw:
                self.draw[seat] = event.card
                self.core._say("action", f"seat {seat} draws {event.card} for the button",
                               rule="PVB 26b", seat=seat)
                if set(self.draw) >= set(self.core.table.seats):
                    self.core.table.apply(DrawForButton(cards=dict(self.draw)))
                    self.draw = {}
                    winner = self.core.table.draw_winner
                    self.core._say("decision", f"seat {winner} wins the draw: the button starts "
                                   "there", rule="PVB 26b", seat=winner)
                return True
        return False

    def _hole_card(self, seat: int, card: str) -> bool:
        track = self.core.track
        hand = self.core.table.hand
        assert track is not None and hand is not None
        index = self.core._seat_index(seat)
        expected_seat = track.dealt[track.hole_reads % len(track.dealt)]
        in_deal = track.hole_reads < track.wanted * len(track.dealt)
        track.hole_reads += 1
        if index is None:
            self.core._irregular("PVB 30(2)(e)", f"a card went to seat {seat}, which is not dealt "
                                 "in: misdeal, unless substantial action has taken place (PVB "
                                 "30(5))", seat=seat)
            return True
        if track.hole_reads == 1 and seat != expected_seat:
            self.core._irregular("PVB 30(2)(d)", f"the first card went to seat {seat} instead of "
                                 f"seat {expected_seat}: misdeal", seat=seat)
            track.order_alerted = True
        elif in_deal and seat != expected_seat and not track.order_alerted:
            track.order_alerted = True
            self.core._irregular("PVB 30(2)(h)", f"cards dealt out of order: seat {seat} got a "
                                 f"card when seat {expected_seat} was due: misdeal", seat=seat)
        cards = track.seat_cards.setdefault(seat, [])
        cards.append(card)
        if len(cards) > track.wanted:
            self.core._irregular("PVB 30(6)", f"seat {seat} holds {len(cards)} cards: misdeal "
                                 "before substantial action; after it the floor draws one as the "
                                 "next burn card", seat=seat)
            return True
        if len(cards) == track.wanted:
            self.core.table.apply(DealHole(seat=seat, cards="".join(cards)))
            self.core._say("action", f"seat {seat} has {track.wanted} cards", seat=seat)
        self._check_at_seat()
        return True

    def _check_at_seat(self) -> None:
        """RULES H5: an absent player is dead when the first card (PVB 23(1)) or every card
        (BPS 8, APSA 5.4.2) is dealt; he still posts (H4)."""
        track = self.core.track
        assert track is not None
        if track.at_seat_done:
            return
        if self.core.profile.at_seat == "all-cards" and not all(
            len(track.seat_cards.get(s, [])) >= track.wanted for s in track.dealt
        ):
            return
        track.at_seat_done = True
        rule = "PVB 23(1)" if self.core.profile.at_seat == "first-card" else "APSA 5.4.2"
        for seat in track.dealt:
            if seat in self.core.absent and self.core._hand() is not None:
                hand = self.core.table.hand
                index = self.core._seat_index(seat)
                if hand is not None and index is not None and not hand.folded[index]:
                    self.core.table.apply(KillHand(seat=seat))
                    self.core._irregular(rule, f"seat {seat} was not at the seat when the cards "
                                         "were dealt: the hand is dead, the blinds stay",
                                         seat=seat)
                    self.core._after_step()

    def _board_card(self, hand: Hand, card: str) -> bool:
        track = self.core.track
        assert track is not None
        if hand.stage is Stage.BETTING or hand.stage is Stage.SHOWDOWN:
            del track.zone_of[card]
            street_acted = any(a.street == hand.street and a.kind in BETTING_KINDS
                               for a in hand.log)
            if hand.stage is Stage.BETTING and hand.street > Street.PREFLOP and not street_acted:
                # PVB 34 (four-card flop) / 35(1): the extra card is the next burn card.
                track.zone_of[card] = "burn"
                track.preset_burn = True
                rule = "PVB 34" if hand.street is Street.FLOP else "PVB 35(1)"
                self.core._irregular(rule, f"an extra card on the {STREET_NAMES[hand.street]}: it "
                                     f"becomes the burn card of the next street")
                return True
            self.core._irregular("PVB 35(5)", f"a board card came before the "
                                 f"{STREET_NAMES[hand.street]} betting finished: it goes back into "
                                 "the stub, the betting round is finished, then the card is dealt "
                                 "again")
            return True
        board, street = hand.next_board_street()
        name = board_street_name(hand, board, street)
        if not track.board_buffer and self.core.config.check_burns:
            burns = track.burns + (1 if track.preset_burn else 0)
            if burns != 1:
                what = "no burn card" if burns == 0 else f"{burns} burn cards"
                self.core._irregular("PVB 35(2)", f"{what} before the {name}")
        track.board_buffer.append(card)
        if len(track.board_buffer) < BOARD_CARDS[street]:
            return True
        cards = "".join(track.board_buffer)
        track.board_buffer = []
        track.burns = 0
        track.preset_burn = False
        if hand.variant is not None and not track.deal_checked:
            # no betting before the flop: the deal is checked here (I1, H4)
            self.core.actions.check_deal()
        self.core.table.apply(DealBoard(cards=cards))
        if self._run_two_due(hand) and track.run_one_burns is None:
            track.run_one_burns = len(track.burn_cards)  # run 1's burns: all so far
        more: dict[str, Any] = {"board": board + 1} if len(hand.boards.cards) > 1 else {}
        self.core._say("street", f"{name}: {spaced(cards)}", cards=cards,
                       street=STREET_NAMES[street], **more)
        self.core._after_step()
        return True

    def _to_muck(self, card: str, seen: str) -> bool:
        """A card reaching the muck antenna: a fold, or a muck at showdown."""
        track = self.core.track
        hand = self.core.table.hand
        assert track is not None and hand is not None
        track.zone_of[card] = "muck"
        if not seen.startswith("seat:"):
            return True
        seat = int(seen[5:])
        index = self.core._seat_index(seat)
        if index is None or hand.folded[index] or hand.mucked[index]:
            return True
        if hand.stage is Stage.SHOWDOWN or (hand.all_in_showdown() and hand.shown[index]):
            if hand.shown[index]:
                return True  # tabled, then pushed away: cards speak (PVB 53)
            self.core.table.apply(Muck(seat=seat))
            self.core._say("muck", f"seat {seat} mucks: the hand gives up its claim to the pot",
                           rule="PVB 56", seat=seat)
            self.core._after_step()
            return True
        if hand.stage is Stage.DEALING or self.core.table.actor_seat() != seat:
            track.pending_folds.add(seat)
            self.core._say("action", f"seat {seat} folded out of turn: binding, applied in turn",
                           rule="PVB 37(5)", seat=seat)
            self.core._after_step()
            return True
        self.core.actions.betting(Fold(seat=seat), seat, "folds")
        return True


    def foreign(self, event: ForeignEvent) -> bool:
        if event.reads == "chips":
            self.core._say("alert", f"a chip no chip set knows in {event.zone}: take it out of "
                           "play", rule="PVB 33")
            return True
        hand = self.core._hand()
        if hand is None:
            self.core._say("alert", f"a card of no registered deck on {event.zone}: take it out of "
                           "the deck", rule="APSA 2.1.14")
            return True
        self._foul(f"a card of no registered deck on {event.zone}")
        return True

    def _foul(self, what: str) -> None:
        """RULES I4: a fouled deck voids the hand; every bet goes back, earlier hands stand."""
        self.core._irregular("PVB 33", f"{what}: fouled deck, the hand is void and every bet goes "
                             "back (APSA 2.1.14)")
        self.core._end_void("void", "PVB 33")


def board_street_name(hand: Hand, board: int, street: Street) -> str:
    """'flop', or on two boards 'flop of board 2', or when run twice 'turn of run 2'."""
    name = STREET_NAMES[street]
    if hand.boards.runs:
        return f"{name} of run {board + 1}"
    if len(hand.boards.cards) > 1:
        return f"{name} of board {board + 1}"
    return name
