"""PHH export (controller/history/phh_export.py), read back by PokerKit (pinned 0.7.7), an
independent engine, and by our own replay: for every hand of a long simulated session, PokerKit
reaches the record's finishing stacks.

Two differences between the rules and PokerKit are documented, not hidden (the differential test
in tests/engine/test_differential_pokerkit.py sets the same ones aside):
- odd chips: PVB 62 shares a split pot in the smallest chip in play, one odd chip at a time from
  the left of the button; PokerKit gives a pot's whole remainder to its first winner and merges
  pots left with the same players (PVB 63(2) forbids it). For such hands PokerKit's stacks must
  be exactly the record's with every split pot shared PokerKit's way.
- a short big blind (RULES R4): everybody must match the full blind, and the smallest raise
  counts from it; PokerKit counts raises from what was posted, so after a short big blind it
  refuses a raise the rules allow. Such a hand must be one with a short big blind, refused at a
  raise "below the minimum", and nothing else.
"""

from __future__ import annotations

import warnings
from collections import Counter

import pytest
import rtoml
from pokerkit import HandHistory
from pokerkit.notation import parse_action

from controller.engine.records import ActionRecord, Blinds, HandRecord, PotRecord
from controller.history.phh import replay_text
from controller.history.phh_export import PhhExportError, phh_document, record_phh
from tests.history.export_helpers import pokerkit_stacks, split_as_pokerkit_does


def pokerkit_refusal(text: str) -> str:
    """The message of the first action PokerKit refuses (burns and the all-in showdown it asks
    for are done as its reader does)."""
    history = HandHistory.loads(text)
    state = history.create_state()
    for action in history.actions:
        while True:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", UserWarning)
                    parse_action(state, action)
                break
            except ValueError as exc:
                if state.can_burn_card():
                    state.burn_card("??")
                    continue
                return str(exc)
    raise AssertionError("PokerKit refused nothing")


def short_big_blind(record: HandRecord) -> bool:
    posted = sum(a.amount for a in record.actions if a.action == "blind" and a.seat == record.bb)
    return posted < record.blinds.bb


@pytest.mark.long(25)
@pytest.mark.usefixtures("pokerkit_remembered")
def test_every_hand_of_a_long_session_replays_in_pokerkit_to_the_records_stacks(
        session_records: list[HandRecord]) -> None:
    outcome: Counter[str] = Counter()
    for record in session_records:
        if record.status != "complete":
            with pytest.raises(PhhExportError, match=record.status):
                record_phh(record)
            outcome[record.status] += 1
            continue
        expected = [record.finishing_stacks[s] for s in record.starting_stacks]
        # PokerKit reads the public file, what the floor hands out (its showdowns are all
        # tabled, so it decides every pot); our own replay reads the full one.
        text = record_phh(record.public())
        assert rtoml.loads(text)["finishing_stacks"] == expected
        assert replay_text(record_phh(record)).finishing_stacks() == expected
        try:
            stacks = pokerkit_stacks(text)
        except ValueError:
            refusal = pokerkit_refusal(text)
            assert short_big_blind(record), (refusal, text)
            assert "is below the minimum allowed" in refusal, (refusal, text)
            outcome["short big blind, a raise PokerKit counts from the posted blind"] += 1
            continue
        if stacks == expected:
            outcome["the record's stacks"] += 1
        else:
            assert stacks == split_as_pokerkit_does(record), text
            outcome["odd chips shared PokerKit's way"] += 1
        # Our own replay reads the public file too, odd chips and all.
        assert replay_text(text).finishing_stacks() == expected, text
    complete = sum(r.status == "complete" for r in session_records)
    assert complete >= 1000
    assert outcome["the record's stacks"] >= complete * 0.97, outcome
    assert outcome["odd chips shared PokerKit's way"] >= 1  # the session does have them
    assert outcome["misdeal"] >= 1


def record_of(actions: list[tuple[int | None, str, int, str]], **fields: object) -> HandRecord:
    """A small hand record: seats 1 (button), 2 (small blind), 3 (big blind) unless told."""
    document: dict[str, object] = {
        "table": "7", "hand": 4, "game": "NT", "level": 2,
        "blinds": Blinds(sb=50, bb=100), "button": 1, "sb": 2, "bb": 3, "started": 1.8e9,
        "players": {2: "ben", 3: "cem", 1: "ana"},
        "starting_stacks": {2: 5000, 3: 60, 1: 5000},
        "hole_cards": {2: "AsAd", 3: "KsKd", 1: "7c2d"},
        "board": "", "pots": [], "finishing_stacks": {2: 5000, 3: 60, 1: 5000},
        "actions": [ActionRecord(street="preflop", seat=s, action=k, amount=n, cards=c,
                                 all_in=k == "blind" and n == 60)
                    for s, k, n, c in actions],
    }
    document.update(fields)
    return HandRecord.model_validate(document)


def test_a_caller_completing_a_short_big_blind_is_a_completion_in_phh() -> None:
    # The big blind has 60 of 100 (R4): the button calls 100 and the small blind 50 more; in
    # PokerKit, which matches only what was posted, the button completes to 100.
    record = record_of([
        (2, "blind", 50, ""), (3, "blind", 60, ""),
        (2, "deal_hole", 0, "AsAd"), (3, "deal_hole", 0, "KsKd"), (1, "deal_hole", 0, "7c2d"),
        (1, "call", 100, ""), (2, "call", 50, ""),
    ], board="2c3d4h5s9c", pots=[
        PotRecord(amount=180, eligible=[2, 3, 1], winners=[2], shares={2: 180}),
        PotRecord(amount=80, eligible=[2, 1], winners=[2], shares={2: 80}),
    ], finishing_stacks={2: 5160, 3: 0, 1: 4900})
    document = phh_document(record)
    assert document["actions"][3:5] == ["p3 cbr 100", "p1 cc"]
    assert document["min_bet"] == 40  # so that PokerKit takes a completion of 40
    assert document["blinds_or_straddles"] == [50, 100, 0]


def test_showdown_mucks_are_written_without_cards_as_phh_std_says() -> None:
    record = record_of([
        (2, "blind", 50, ""), (3, "blind", 60, ""), (1, "fold", 0, ""),
        (2, "muck", 0, ""), (3, "show", 0, "KsKd"),
    ])
    actions = phh_document(record)["actions"]
    assert "p1 sm" in actions and "p2 sm KsKd" in actions  # p1: seat 2, first left of the button
    assert not any(a.endswith("sm -") for a in actions)  # "sm -" shows the cards dealt


def test_a_public_record_deals_unknown_cards_except_those_tabled() -> None:
    record = record_of([
        (2, "blind", 50, ""), (3, "blind", 60, ""),
        (2, "deal_hole", 0, "AsAd"), (3, "deal_hole", 0, "KsKd"), (1, "deal_hole", 0, "7c2d"),
        (3, "show", 0, "KsKd"),
    ])
    text = record_phh(record.public())
    assert "d dh p1 ????" in text and "d dh p3 ????" in text and "d dh p2 KsKd" in text
    assert "AsAd" not in text and "7c2d" not in text


def test_void_hands_and_misdeals_have_no_phh() -> None:
    for status in ("void", "misdeal"):
        with pytest.raises(PhhExportError, match=f"hand 4 is a {status}"):
            record_phh(record_of([], status=status))


def test_a_fold_that_leaves_a_short_call_in_the_pot_is_left_out_of_phh_and_said() -> None:
    import io

    from controller.history.export import Placed, write_export
    from controller.history.stars import stars_hand

    record = record_of([
        (2, "blind", 50, ""), (3, "blind", 60, ""), (1, "raise", 300, ""),
        (2, "fold", 100, ""),  # R8: 100 of the 250 owed, not completed: they stay in the pot
        (1, "return", 240, ""), (3, "show", 0, "KsKd"), (1, "show", 0, "7c2d"),
    ], board="2c3d4h5s9c", pots=[
        PotRecord(amount=270, eligible=[3, 1], winners=[3], shares={3: 270})])
    with pytest.raises(PhhExportError, match="short call"):
        record_phh(record)
    out = io.StringIO()
    done = write_export([Placed(record)], out, "phh")
    assert (done.hands, out.getvalue()) == (0, "")
    assert done.left_out_text() == ("1 hand with a fold that left a short call's chips in the "
                                    "pot (R8), which no PHH action says")
    assert "ben: calls 100\nben: folds " in stars_hand(record, 1)  # the chips, then the fold
