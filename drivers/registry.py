"""Registered decks (tag UID -> card) and chip sets (tag UID -> denomination).

Plain JSON files an operator can read, back up and copy between tables. A UID in neither is a
foreign tag (RULES I4): the drivers report it, they never crash on it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from controller.engine.cards import DECK, card_text
from controller.errors import ConfigError, RuleViolation, first_error
from controller.events import CardText, Uid

# The order `pokertable deck register` asks for the cards: clubs, diamonds, hearts, spades, each
# from the deuce up to the ace.
REGISTRATION_ORDER: tuple[str, ...] = tuple(
    card_text(c) for suit in range(4) for c in DECK if c & 3 == suit
)


class Deck(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    cards: dict[Uid, CardText] = Field(description="UID -> card, all 52 cards once each")

    @field_validator("cards")
    @classmethod
    def _complete(cls, cards: dict[str, str]) -> dict[str, str]:
        if len(cards) != 52 or len(set(cards.values())) != 52:
            raise ValueError("a deck has 52 different cards, one tag each")
        return cards

    def card_of(self, uid: str) -> str | None:
        return self.cards.get(uid)


class ChipSet(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    chips: dict[Uid, Annotated[int, Field(gt=0)]] = Field(default_factory=dict)

    def value_of(self, uid: str) -> int | None:
        return self.chips.get(uid)


_Registry = TypeVar("_Registry", "Deck", "ChipSet")

# The tags each reader chip reads, told apart by their UIDs' length in bytes: ISO/IEC 14443
# type A (MIFARE, NTAG: 4, 7 or 10 bytes) for the MFRC522 and the PN532, ISO/IEC 15693 (ICODE
# SLIX: 8 bytes, E0 first) for the PN5180 as its driver inventories them, EM4100 (5 bytes) for
# the RDM6300. A PT1 board reads what it was built for: not checked.
TAG_KINDS: dict[str, tuple[str, frozenset[int]]] = {
    "mfrc522": ("ISO 14443A", frozenset({4, 7, 10})),
    "pn532": ("ISO 14443A", frozenset({4, 7, 10})),
    "pn5180": ("ISO 15693", frozenset({8})),
    "rdm6300": ("EM4100", frozenset({5})),
}


def unreadable_tags(protocol: str, registry: Deck | ChipSet) -> str | None:
    """Why a reader chip of ``protocol`` would never read the registry's tags (a deck
    registered on another kind of reader: the table would wait for cards it cannot see), or
    None when it reads them."""
    kind = TAG_KINDS.get(protocol)
    if kind is None:
        return None
    name, lengths = kind
    uids = list(registry.cards if isinstance(registry, Deck) else registry.chips)
    foreign = [uid for uid in uids if len(uid) // 2 not in lengths]
    if not foreign:
        return None
    return (f"{len(foreign)} of its {len(uids)} tags ({foreign[0]}: {len(foreign[0]) // 2} "
            f"bytes) are not {name} tags, the only ones a {protocol} reads")


def load_deck(path: Path) -> Deck:
    return _load(Deck, path)


def load_chips(path: Path) -> ChipSet:
    return _load(ChipSet, path)


def _load(model: type[_Registry], path: Path) -> _Registry:
    what = model.__name__.lower()
    try:
        return model.model_validate_json(Path(path).read_bytes())
    except OSError as exc:
        command = "deck register" if model is Deck else "chips register"
        raise ConfigError(f"{path}: cannot read the {what} file ({exc.strerror or exc}); "
                          f"`pokertable {command}` writes it (docs/drivers.md)") from None
    except ValidationError as exc:
        raise ConfigError(f"{path}: not a valid {what} file: {first_error(exc, what)}") from None


def save(registry: Deck | ChipSet, path: Path) -> None:
    """Write atomically: a crash mid-write never leaves half a deck behind."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_suffix(target.suffix + ".tmp")
    temporary.write_text(registry.model_dump_json(indent=2) + "\n", encoding="utf-8")
    temporary.replace(target)


class DeckRegistration:
    """Registers a new deck from tags read in `REGISTRATION_ORDER`, refusing duplicates."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.cards: dict[str, str] = {}

    @property
    def next_card(self) -> str | None:
        k = len(self.cards)
        return REGISTRATION_ORDER[k] if k < 52 else None

    def offer(self, uid: str) -> str:
        """Assign ``uid`` to the next card; returns that card. A tag read before is refused."""
        card = self.next_card
        if card is None:
            raise RuleViolation("all 52 cards are registered", "PVB 33")
        if uid in self.cards:
            raise RuleViolation(
                f"tag {uid} was already read as {self.cards[uid]}: a card twice", "PVB 33"
            )
        self.cards[uid] = card
        return card

    def deck(self) -> Deck:
        return Deck(name=self.name, cards=self.cards)


def register_chip(chips: ChipSet, uid: str, value: int) -> bool:
    """Record ``uid`` as a chip of ``value``. False if it already was; refused if it is
    registered with another value."""
    known = chips.chips.get(uid)
    if known == value:
        return False
    if known is not None:
        raise RuleViolation(f"chip {uid} is already registered as {known:,}", "APSA 2.1.16")
    chips.chips[uid] = value
    return True
