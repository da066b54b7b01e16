"""Decks and chip sets: registration order, refusal of duplicates, file round trips."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.errors import ConfigError, RuleViolation
from drivers.registry import (
    REGISTRATION_ORDER,
    ChipSet,
    Deck,
    DeckRegistration,
    load_chips,
    load_deck,
    register_chip,
    save,
    unreadable_tags,
)


def uid(k: int) -> str:
    return f"04{k:012X}"


def test_deck_registration_in_order_refuses_a_tag_twice_and_round_trips(tmp_path: Path) -> None:
    registration = DeckRegistration("blue-1")
    assert registration.offer(uid(0)) == "2c"
    with pytest.raises(RuleViolation, match=r"already read as 2c.*\(PVB 33\)"):
        registration.offer(uid(0))
    for k in range(1, 52):
        assert registration.offer(uid(k)) == REGISTRATION_ORDER[k]
    assert registration.next_card is None
    with pytest.raises(RuleViolation, match="all 52"):
        registration.offer(uid(99))
    path = tmp_path / "deck.json"
    save(registration.deck(), path)
    deck = load_deck(path)
    assert deck.card_of(uid(51)) == "As" and deck.card_of("FFFFFFFF") is None


def test_incomplete_or_broken_deck_files_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "deck.json"
    path.write_text('{"name": "x", "cards": {"04000000000000": "As"}}')
    with pytest.raises(ConfigError, match="52 different cards"):
        load_deck(path)
    path.write_text("not json")
    with pytest.raises(ConfigError):
        load_deck(path)


def test_chip_registration(tmp_path: Path) -> None:
    chips = ChipSet(name="house")
    assert register_chip(chips, "E0040100AABBCCDD", 1000)
    assert not register_chip(chips, "E0040100AABBCCDD", 1000)  # tapped twice: no change
    with pytest.raises(RuleViolation, match="already registered as 1,000"):
        register_chip(chips, "E0040100AABBCCDD", 500)
    path = tmp_path / "chips.json"
    save(chips, path)
    assert load_chips(path).value_of("E0040100AABBCCDD") == 1000


def test_a_reader_chip_refuses_a_deck_or_chip_set_of_tags_it_cannot_read() -> None:
    """A deck registered on an MFRC522 (ISO 14443A tags) laid on a PN5180's antennas (ISO 15693
    inventory) is never read: the table would wait for ever. Its start says so instead."""
    ntag = Deck(name="ntag", cards={uid(k): c for k, c in enumerate(REGISTRATION_ORDER)})
    slix = Deck(name="slix", cards={f"E0040118{k:08X}": c
                                    for k, c in enumerate(REGISTRATION_ORDER)})
    assert unreadable_tags("mfrc522", ntag) is None and unreadable_tags("pn532", ntag) is None
    assert unreadable_tags("pn5180", slix) is None
    assert unreadable_tags("pn5180", ntag) == (
        "52 of its 52 tags (04000000000000: 7 bytes) are not ISO 15693 tags, the only ones a "
        "pn5180 reads")
    assert "not ISO 14443A tags" in str(unreadable_tags("mfrc522", slix))
    assert unreadable_tags("pt1", ntag) is None and unreadable_tags("pt1", slix) is None
    chips = ChipSet(name="mixed", chips={"E004015000000001": 25, "04C00000000001": 100})
    assert unreadable_tags("pn5180", chips) == (
        "1 of its 2 tags (04C00000000001: 7 bytes) are not ISO 15693 tags, the only ones a "
        "pn5180 reads")
    assert "EM4100" in str(unreadable_tags("rdm6300", chips))
