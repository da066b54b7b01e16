"""Hand records (docs/design.md "Hand records") and their export to PHH."""

from __future__ import annotations

from typing import Literal

import rtoml
from pydantic import BaseModel, ConfigDict, Field

from controller.engine.cards import cards_text
from controller.engine.evaluate import category
from controller.engine.hand import STREET_NAMES, Hand

Status = Literal["complete", "void", "misdeal"]


class ActionRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    street: str
    seat: int | None
    action: str  # ante blind fold check call bet raise return deal_hole deal_board show muck win
    amount: int = 0
    all_in: bool = False
    cards: str = ""


class PotRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    amount: int
    eligible: list[int]
    winners: list[int]
    shares: dict[int, int]
    winning_hand: str | None = Field(default=None, description="e.g. 'two pair'; None unshown")


class Blinds(BaseModel):
    model_config = ConfigDict(frozen=True)

    sb: int
    bb: int
    ante: int = 0
    bb_ante: int = 0


class Irregularity(BaseModel):
    """Something the table saw or the floor decided, with the rule that applies."""

    model_config = ConfigDict(frozen=True)

    rule: str = Field(description="Rule tag, e.g. 'PVB 30(2)(f)'")
    text: str = Field(description="What happened, in the floor's words")
    seat: int | None = None
    by: str | None = Field(default=None, description="Who decided, for floor decisions")


class HandRecord(BaseModel):
    """One finished hand: sealed at the next shuffle (RULES H3). ``button``, ``sb`` and ``bb``
    are seats (``sb`` None: dead small blind); the amounts are in ``blinds``."""

    model_config = ConfigDict(frozen=True)

    table: str
    hand: int
    game: Literal["NT", "PO"]
    level: int
    blinds: Blinds
    button: int
    sb: int | None
    bb: int
    started: float | None = Field(default=None, description="ts of the shuffle press")
    players: dict[int, str]
    starting_stacks: dict[int, int]
    hole_cards: dict[int, str]
    board: str
    actions: list[ActionRecord]
    pots: list[PotRecord]
    finishing_stacks: dict[int, int]
    irregularities: list[Irregularity] = Field(default_factory=list)
    status: Status = "complete"
    hand_for_hand_round: int | None = Field(
        default=None, ge=1, exclude_if=lambda v: v is None,
        description="The clock's hand-for-hand round the hand was dealt in; absent outside "
        "hand-for-hand. Every hand of one round counts as one hand for placing (PVB 64b(3))")

    def tabled(self) -> set[int]:
        """Seats whose cards were shown: the only hole cards that are ever public (PVB 56)."""
        return {a.seat for a in self.actions if a.action == "show" and a.seat is not None}

    def public(self) -> HandRecord:
        """The record without a single hole card that was not tabled (docs/design.md "Secrets")."""
        shown = self.tabled()
        actions = [
            a.model_copy(update={"cards": ""})
            if a.action == "deal_hole" and a.seat not in shown else a
            for a in self.actions
        ]
        return self.model_copy(update={
            "hole_cards": {s: c for s, c in self.hole_cards.items() if s in shown},
            "actions": actions,
        })

    def to_phh(self) -> str:
        """The hand in the PHH format: players from the first seat left of the button."""
        seats = list(self.starting_stacks)  # action order, as recorded
        index = {seat: k + 1 for k, seat in enumerate(seats)}
        b = self.blinds
        antes = [b.ante + (b.bb_ante if seat == self.bb else 0) for seat in seats]
        blinds = [
            b.bb if seat == self.bb else b.sb if seat == self.sb else 0 for seat in seats
        ]
        if len(seats) == 2:  # heads-up lists read reversed (phh-std)
            antes.reverse()
            blinds.reverse()
        actions: list[str] = []
        for a in self.actions:
            p = f"p{index[a.seat]}" if a.seat is not None else ""
            match a.action:
                case "deal_hole":  # a public record's unshown cards are unknown (phh-std)
                    actions.append(f"d dh {p} {a.cards or '??' * (2 if self.game == 'NT' else 4)}")
                case "deal_board":
                    actions.append(f"d db {a.cards}")
                case "fold" | "kill":
                    actions.append(f"{p} f")
                case "check" | "call":
                    actions.append(f"{p} cc")
                case "bet" | "raise":
                    actions.append(f"{p} cbr {a.amount}")
                case "show":
                    actions.append(f"{p} sm {a.cards}")
                case "muck":
                    actions.append(f"{p} sm -")
        document = {
            "variant": self.game,
            "ante_trimming_status": bool(b.ante) and not b.bb_ante,
            "antes": antes,
            "blinds_or_straddles": blinds,
            "min_bet": b.bb,
            "starting_stacks": [self.starting_stacks[s] for s in seats],
            "actions": actions,
            "table": self.table,
            "hand": self.hand,
            "level": self.level,
            "seats": seats,
            "players": [self.players[s] for s in seats],
            "finishing_stacks": [self.finishing_stacks[s] for s in seats],
        }
        text: str = rtoml.dumps(document)
        return text


def build_record(
    hand: Hand,
    *,
    table: str,
    number: int,
    level: int,
    blinds: Blinds,
    button: int,
    sb: int | None,
    bb: int,
    seats: list[int],
    players: dict[int, str],
    status: Status = "complete",
    irregularities: list[Irregularity] | None = None,
) -> HandRecord:
    """The record of ``hand``, whose player ``k`` sits in ``seats[k]``."""
    actions = [
        ActionRecord(
            street=STREET_NAMES[a.street],
            seat=None if a.player is None else seats[a.player],
            action=a.kind,
            amount=a.amount,
            all_in=a.all_in,
            cards=cards_text(a.cards),
        )
        for a in hand.log
    ]
    pots = [
        PotRecord(
            amount=r.amount,
            eligible=[seats[i] for i in r.eligible],
            winners=[seats[i] for i in r.winners],
            shares={seats[i]: chips for i, chips in r.shares},
            winning_hand=None if r.strength is None else category(r.strength),
        )
        for r in hand.results
    ]
    return HandRecord(
        table=table, hand=number, game=hand.game, level=level, blinds=blinds, button=button,
        sb=sb, bb=bb,
        players={s: players[s] for s in seats},
        starting_stacks={s: hand.starting_stacks[k] for k, s in enumerate(seats)},
        hole_cards={s: cards_text(hand.hole[k]) for k, s in enumerate(seats) if hand.hole[k]},
        board=cards_text(hand.board),
        actions=actions,
        pots=pots,
        finishing_stacks={s: hand.stacks[k] for k, s in enumerate(seats)},
        irregularities=irregularities or [],
        status=status,
    )
