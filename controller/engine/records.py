"""Hand records (DESIGN.md "Hand records") and their export to PHH."""

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


class HandRecord(BaseModel):
    """One finished hand: sealed at the next shuffle (RULES H3)."""

    model_config = ConfigDict(frozen=True)

    table: str
    hand: int
    game: Literal["NT", "PO"]
    level: int
    sb: int
    bb: int
    ante: int
    bb_ante: int
    button: int
    sb_seat: int | None
    bb_seat: int
    players: dict[int, str]
    starting_stacks: dict[int, int]
    hole_cards: dict[int, str]
    board: str
    actions: list[ActionRecord]
    pots: list[PotRecord]
    finishing_stacks: dict[int, int]
    irregularities: list[str] = Field(default_factory=list)
    status: Status = "complete"

    def to_phh(self) -> str:
        """The hand in the PHH format: players from the first seat left of the button."""
        seats = list(self.starting_stacks)  # action order, as recorded
        index = {seat: k + 1 for k, seat in enumerate(seats)}
        antes = [self.ante + (self.bb_ante if seat == self.bb_seat else 0) for seat in seats]
        blinds = [
            self.bb if seat == self.bb_seat else self.sb if seat == self.sb_seat else 0
            for seat in seats
        ]
        if len(seats) == 2:  # heads-up lists read reversed (phh-std)
            antes.reverse()
            blinds.reverse()
        actions: list[str] = []
        for a in self.actions:
            p = f"p{index[a.seat]}" if a.seat is not None else ""
            match a.action:
                case "deal_hole":
                    actions.append(f"d dh {p} {a.cards}")
                case "deal_board":
                    actions.append(f"d db {a.cards}")
                case "fold":
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
            "ante_trimming_status": bool(self.ante) and not self.bb_ante,
            "antes": antes,
            "blinds_or_straddles": blinds,
            "min_bet": self.bb,
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
    sb: int,
    bb: int,
    ante: int,
    bb_ante: int,
    button: int,
    sb_seat: int | None,
    bb_seat: int,
    seats: list[int],
    players: dict[int, str],
    status: Status = "complete",
    irregularities: list[str] | None = None,
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
        table=table, hand=number, game=hand.game, level=level, sb=sb, bb=bb, ante=ante,
        bb_ante=bb_ante, button=button, sb_seat=sb_seat, bb_seat=bb_seat,
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
