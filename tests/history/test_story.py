"""A finished hand told from its record in the words the table's own story used while the hand
was played (the hands screen shows it): every street, show, payout and plain action line the
session said is in the record's story, and no engine word is."""

from __future__ import annotations

import re

import pytest

from controller.demo.script import played_session
from controller.events import parse_event
from controller.history.story import hand_story
from controller.session import TableSession
from controller.session.outputs import PublicEvent

ENGINE_WORDS = re.compile(r"\b(deal_board|deal_hole|bb_ante|return|win|kill)\b")


@pytest.mark.parametrize("seed", [5, 11, 23])
def test_a_records_story_says_what_the_table_said(seed: int) -> None:
    session = TableSession()
    said: dict[int, list[PublicEvent]] = {}
    records = []
    for raw in played_session(hands=8, seed=seed, players=5):
        step = session.handle(parse_event(raw))
        for event in step.events:
            said.setdefault(event.hand, []).append(event)
        records += step.sealed
    assert len(records) >= 5
    compared = 0
    for record in records:
        public = record.public()
        told = [line.text for line in hand_story(public)]
        for event in said[record.hand]:
            plain = event.kind == "action" and not re.search(r"all-in|out of turn|has \d",
                                                             event.text)
            if event.kind in ("hand_started", "street", "show", "payout") or plain:
                assert event.text in told, (event.text, told)
                compared += 1
            if event.kind == "hand_over" and "every bet goes back" in event.text:
                assert any(event.text.startswith(line) for line in told), event.text
        for line in told:
            assert not ENGINE_WORDS.search(line), line
        hidden = {cards[k:k + 2] for seat, cards in record.hole_cards.items()
                  if seat not in public.tabled() for k in (0, 2)}
        named = {card for line in told for card in re.findall(r"\b[2-9TJQKA][cdhs]\b", line)}
        assert not hidden & named
    assert compared > 60


def test_blinds_antes_and_an_uncalled_bet_in_the_floors_words() -> None:
    session = TableSession()
    records = []
    for raw in played_session(hands=6, seed=11, players=4):
        records += session.handle(parse_event(raw)).sealed
    lines = [line.text for record in records for line in hand_story(record.public())]
    assert any(re.fullmatch(r"seat \d posts the small blind [\d,]+", t) for t in lines)
    assert any(re.fullmatch(r"seat \d posts the big blind [\d,]+", t) for t in lines)
    assert any(re.fullmatch(r"seat \d posts the ante 25", t) for t in lines)  # level 2 has one
    assert any(re.fullmatch(r"the [\d,]+ nobody called goes back to seat \d", t) for t in lines)
