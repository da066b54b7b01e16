"""The simulated dealer's chip race (RULES T5, APSA 2.1.18) against what can go wrong around it,
in virtual time with the soak's direct hands (the drivers' events straight into a real
`TableSession`):

- the table killed in the middle of the race and rebuilt from what it journaled (every event
  it took, replayed into a new session) and from the felt file (the chips as they lie): the
  race is run once, its winners are the seeded cards' (the same race dealt again), and the
  stacks add up to what the race may leave;
- a colour-up that reaches the table just before the dealer's shuffle press (after its last
  look at the screen): the race is closed unrun by the new hand; the dealer says so and calls
  the floor instead of dealing on as if nothing happened.
"""

from __future__ import annotations

import logging
import random
import threading
from pathlib import Path

import pytest

from controller.events import CommandEvent, SeatEvent, TableEvent
from controller.session import SessionConfig, TableSession
from controller.session.colour_up import chips_leaving
from controller.session.outputs import PublicEvent
from controller.sim.dealer import SimulatedDealer
from controller.sim.hands import Chip, Felt, Key, Stopped
from controller.sim.race import deal_race, race_winners, stacks_after
from controller.sim.soak import CHIP_CASE, DirectHands

STACKS = {1: ("ana", 1_275), 2: ("ben", 9_950), 3: ("cem", 50), 4: ("dora", 10_030)}
COLOUR_UP = {"chips": [1, 5, 25], "unit": 100, "ref": "colour-up:2"}
CHIPS = {f"05{k:012X}": value for k, value in enumerate(
    v for v, count in CHIP_CASE.items() for _ in range(count))}


class JournaledHands(DirectHands):
    """Direct hands that keep every event the table took (its journal) and can be killed at
    the ``kill_at``-th chip laid during the race."""

    def __init__(self, session: TableSession, said: list[PublicEvent],
                 kill_at: int | None = None) -> None:
        super().__init__(session, said.append)
        self.journal: list[TableEvent] = []
        self.kill_at = kill_at
        self.laid = 0

    def feed(self, event: TableEvent) -> None:
        self.journal.append(event)
        super().feed(event)

    def chips_in(self, zone: str, chips: list[Chip]) -> None:
        up = self.state.colour_up
        if up is not None and up.open and self.state.stage in ("over", "waiting"):
            self.laid += 1
            if self.laid == self.kill_at:
                raise Stopped  # the table's power goes: the chips stay where they were laid
        super().chips_in(zone, chips)


def _table(said: list[PublicEvent], kill_at: int | None = None) -> JournaledHands:
    session = TableSession(SessionConfig(table_id="1", seats=4))
    hands = JournaledHands(session, said, kill_at)
    for seat, (player, stack) in STACKS.items():
        hands.submit(SeatEvent(seat=seat, player=player, stack=stack))
    return hands


def _colour_up(hands: DirectHands) -> None:
    hands.submit(CommandEvent(name="colour_up", by="floor:anna", args=COLOUR_UP))


def _dealer(hands: DirectHands) -> SimulatedDealer:
    return SimulatedDealer(hands, CHIPS, seats=4, rng=random.Random(3))


def test_rules_t5_a_table_killed_mid_race_runs_the_race_once_after_its_restart(
        tmp_path: Path) -> None:
    said: list[PublicEvent] = []
    first = _table(said, kill_at=2)  # after the first racer's stack was laid (and read)
    _colour_up(first)
    up = first.state.colour_up
    assert up is not None and up.race_chips == 3
    cards = deal_race(up)
    winners = race_winners(up, cards)
    before = {seat: stack for seat, (_, stack) in STACKS.items()}
    _dealer(first).play(1, threading.Event())
    assert first.laid == 2, "the kill came before the race was over"
    assert first.state.colour_up is not None and first.state.colour_up.open

    # The restart: the session rebuilt from its journal, the dealer from the felt file
    session = TableSession(SessionConfig(table_id="1", seats=4))
    for event in first.journal:
        session.handle(event)
    assert session.state() == first.state
    again = JournaledHands(session, said)
    again.now = first.now
    felt_file = tmp_path / "journal.db.felt.json"
    felt_file.write_text(first.felt.dump(), encoding="utf-8")
    again._felt = Felt.load(felt_file)  # (the felt file, as a restarted table reads it)
    assert again.state == session.state()  # (the dealer's view: the session's own)
    dealer = _dealer(again)
    raced = again.state.colour_up
    dealer.play(1, threading.Event())

    over = [e for e in said if e.text.startswith("the chip race is over")]
    assert len(over) == 1, [e.text for e in said]
    assert over[0].data["winners"] == [s for s in winners if not up.race[s].sure]
    assert not [e.text for e in said if e.kind in ("alert", "refused")]
    assert raced is not None
    ended = again.state
    assert dealer.played == 1 and ended.hand == 1
    after = stacks_after(up, winners)
    least, most = chips_leaving(before, 100, "race")
    total = sum(v.stack for v in ended.seats.values())
    assert total == sum({**before, **after}.values())
    assert least <= sum(before.values()) - total <= most


def test_rules_t5_a_colour_up_just_before_the_shuffle_press_is_not_lost_silently(
        caplog: pytest.LogCaptureFixture) -> None:
    said: list[PublicEvent] = []
    hands = _table(said)
    pressed: list[Key] = []
    press = hands.press

    def late(key: Key) -> None:  # the colour-up comes after the dealer's last look
        if key == "shuffle" and not pressed:
            _colour_up(hands)
        pressed.append(key)
        press(key)
    hands.press = late  # type: ignore[method-assign]
    dealer = _dealer(hands)
    with caplog.at_level(logging.ERROR, logger="controller.sim.dealer"):
        dealer.play(1, threading.Event())
    up = hands.state.colour_up
    assert up is not None and not up.open and up.winners() == []
    assert "floor" in pressed
    assert any("colour-up:2" in r.getMessage() and "unrun" in r.getMessage()
               for r in caplog.records), [r.getMessage() for r in caplog.records]
