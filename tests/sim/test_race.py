"""The simulated dealer runs the chip race (RULES T5, APSA 2.1.18) as a dealer does: a simulated
table (`pokertable table --simulate`, its readers on ptys read by the real drivers) on a real
Mosquitto; the floor holds it, sets the stacks and orders a colour-up over MQTT as the
tournament would. The dealer deals the race, lays each racer's stack on his zone (a winner's
with the race's chip), the table reads them, and the stacks add up to what the race may leave:
no chip-count alert for a simulated room's races (they used to end every race with none won).
The pure race (cards per leftover chip from seat 1, spades over hearts, one chip a player) is
tested beside it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from controller.mqtt.local_broker import LocalBroker
from controller.session.colour_up import chips_leaving, colour_up
from controller.session.outputs import TableState
from controller.sim.race import card_order, deal_race, leftover_chips, race_winners
from tests.venue import TableFloor

ROOT = Path(__file__).resolve().parents[2]
STACKS = {1: ("ana", 1_275), 2: ("ben", 9_950), 3: ("cem", 50), 4: ("dora", 10_030)}


def test_apsa_2_1_18_the_race_cards_and_its_winners() -> None:
    assert leftover_chips(75, [25]) == 3 and leftover_chips(475, [100, 25]) == 7
    assert card_order("As") > card_order("Ah") > card_order("Ad") > card_order("Ac")
    assert card_order("2s") < card_order("3c")
    up = colour_up("colour-up:1", [25], 100, "race", 4, dict(STACKS.items()))
    assert up.race_chips == 3  # 75 + 50 + 50 + 30 = 205: rounded up
    cards = deal_race(up)
    assert {s: len(c) for s, c in cards.items()} == {1: 3, 2: 2, 3: 2, 4: 2}  # 30: 25 and 5
    assert cards == deal_race(up)  # a restarted dealer deals the same race
    winners = race_winners(up, cards)
    best = max((card_order(c), s) for s, hand in cards.items() for c in hand)[1]
    assert len(winners) == 3 and best in winners
    # One chip a player: the seat with the two highest cards wins one chip only
    rigged = {1: ["As", "Ks", "Qs"], 2: ["2c", "3c"], 3: ["Kh", "4c"], 4: ["5c", "6c"]}
    assert race_winners(up, rigged) == [1, 3, 4]


@pytest.mark.long(14)
def test_rules_t5_a_simulated_table_runs_the_chip_race_and_its_stacks_add_up(
        broker: LocalBroker, tmp_path: Path) -> None:
    config = broker.table_config(tmp_path / "t1", 1, seats=4)
    floor = TableFloor(broker, "1", events=True)
    table = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "table", "--config", str(config), "--simulate",
         "--hands", "1", "--seed", "3"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        # The break: the table holds before its first hand; the floor counts the stacks
        floor.wait(lambda s: s.seats, 60)
        assert floor.command("hold", kind="break", reason="the break").status == "ok"
        floor.wait(lambda s: len(s.seats) == 4 and s.hold is not None)
        for seat, (player, stack) in STACKS.items():
            reply = floor.command("stack", seat=seat, player=player, stack=stack)
            assert reply.status == "ok", reply.reason
        before = {seat: stack for seat, (_, stack) in STACKS.items()}
        made = floor.command("colour_up", chips=[1, 5, 25], unit=100, ref="colour-up:2")
        assert made.status == "ok", made.reason

        # The dealer runs the race during the break: the winners' stacks are read at their seats
        def raced(state: TableState) -> bool:
            up = state.colour_up
            return up is not None and len(up.winners()) + sum(
                1 for r in up.race.values() if r.sure) >= up.race_chips
        state = floor.wait(raced, 30)
        up = state.colour_up
        assert up is not None and up.race_chips == 3 and up.open
        stacks = {seat: view.stack for seat, view in state.seats.items()}
        assert stacks == {**before, **up.stacks()}
        least, most = chips_leaving(before, 100, "race")
        assert least <= sum(before.values()) - sum(stacks.values()) <= most
        assert all(stack % 100 == 0 for stack in stacks.values())  # every leftover is gone
        assert 2 <= len(up.winners()) <= 3 and stacks[3] == 100  # cem keeps his chip anyway

        # The break ends; the next hand ends the race, with the stacks the race left
        assert floor.command("release").status == "ok"
        _, stderr = table.communicate(timeout=90)
        assert table.returncode == 0, stderr[-2000:]
        assert "ERROR" not in stderr and "Traceback" not in stderr, stderr[-2000:]
        events = floor.events()
        over = [e for e in events if e["text"].startswith("the chip race is over")]
        assert len(over) == 1 and over[0]["data"]["winners"] == up.winners(), over
        assert not [e["text"] for e in events if e["kind"] in ("alert", "refused")]
    finally:
        if table.poll() is None:
            table.kill()
            table.wait(10)
        floor.client.close()
