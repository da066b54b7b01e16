"""The room's chips, counted live (RULES T5, T6), pure.

The chips in play are what the tournament issued (a start stack for every entry and re-entry)
less what left play at colour-ups. Hands move chips between players and never make or lose any,
so after every hand each table must hold what it held before, plus the stacks of the players
the tournament seated there, less the stacks of those who left for another table. `ChipCount`
keeps that expectation per table and compares it with the table's own stacks at the end of each
hand: a difference is said once, naming the table and the hand where it appeared (and that
table's expectation follows what it now holds, so the next difference is a new one). The room's
total, every table's stacks and the stacks of players on their way between tables, must equal
the chips in play; `room_difference` says by how much it does not.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field


class TableChips(BaseModel):
    model_config = ConfigDict(extra="forbid")

    expected: int = 0
    held: int = Field(default=0, description="The table's stacks at the end of its last hand")
    hand: int = 0


@dataclass(frozen=True)
class Difference:
    table: str
    hand: int
    held: int
    expected: int

    @property
    def amount(self) -> int:
        return self.held - self.expected

    def words(self) -> str:
        more = "more" if self.amount > 0 else "fewer"
        return (f"table {self.table}, hand {self.hand}: the stacks add up to {self.held:,}, "
                f"{abs(self.amount):,} chips {more} than the table should hold "
                f"({self.expected:,}); count the table")


class ChipCount(BaseModel):
    model_config = ConfigDict(extra="forbid")

    issued: int = Field(default=0, ge=0, description="Start stacks of every entry (RULES T6)")
    coloured_up: int = Field(default=0, description="Chips that left play at colour-ups (T5)")
    tables: dict[str, TableChips] = Field(default_factory=dict)

    def in_play(self) -> int:
        return self.issued - self.coloured_up

    def issue(self, chips: int) -> None:
        self.issued += chips

    def arrived(self, table: str, chips: int) -> None:
        """A player the tournament seated there sat down with ``chips``."""
        self.tables.setdefault(table, TableChips()).expected += chips

    def left(self, table: str, chips: int) -> None:
        """A player left the table for another with ``chips``."""
        self.tables.setdefault(table, TableChips()).expected -= chips

    def counted(self, table: str, hand: int, held: int) -> Difference | None:
        """The table's stacks at the end of ``hand`` (between hands): a difference from what it
        should hold, once."""
        chips = self.tables.setdefault(table, TableChips())
        chips.held, chips.hand = held, hand
        if held == chips.expected:
            return None
        difference = Difference(table, hand, held, chips.expected)
        chips.expected = held
        return difference

    def room_difference(self, in_transit: int) -> int:
        """What the tables hold with the stacks on their way, less the chips in play."""
        return sum(t.held for t in self.tables.values()) + in_transit - self.in_play()


__all__ = ["ChipCount", "Difference", "TableChips"]
