"""A seat's stack changed between hands by the tournament or the floor: chips bought (an add-on,
a rebuy) and a count by hand (CG "Table Stake": a stake grows between hands, never during one),
and the colour-up with its chip race (RULES T5: APSA 2.1.18, BPS 2; or PVB 15b(1)'s chip-up),
in which nobody is eliminated (PVB 15b(2)). Each change is made once per ref."""

from __future__ import annotations

from controller.events import parse_event
from controller.session import SessionSnapshot, TableSession
from controller.session.colour_up import chips_leaving, colour_up
from tests.session.helpers import HOLE, chips, command, deal, declare, seat, shuffle, start


def add_on(seat_number: int, player: str, add: int, ref: str = "add_on:1") -> dict[str, object]:
    return command("stack", by="tournament", seat=seat_number, player=player, add=add, ref=ref,
                   reason="add-on", rule="RULES T6")


def test_cg_table_stake_chips_bought_reach_the_stack_between_hands_only() -> None:
    run = start(seat(1, "ana"), seat(2, "ben"), seat(3, "cem"), shuffle())
    refused = run.feed(add_on(2, "ben", 5_000))
    assert not refused.accepted and refused.events[0].rule == "CG Table Stake"
    assert refused.events[0].text == "seat 2: ben's stack changes between hands; hand 1 is in play"
    run.feed(deal(HOLE), declare(1, "fold"), declare(2, "fold"))
    assert run.session.state().seats[2].stack == 9_950
    wrong = run.feed(add_on(2, "cem", 5_000))
    assert not wrong.accepted and "not cem's (ben sits there)" in wrong.events[0].text
    step = run.feed(add_on(2, "ben", 5_000))
    assert step.accepted
    (said,) = step.events
    assert said.kind == "decision" and said.rule == "RULES T6"
    assert said.text == "seat 2: ben gets 5,000 chips (add-on): 14,950 (by tournament)"
    assert said.data["stack"] == 14_950 and said.data["was"] == 9_950
    state = run.session.state()
    assert state.seats[2].stack == 14_950 and state.stack_refs == ["add_on:1"]
    # The tournament asks again until it sees the ref: a change made already is not made twice
    again = run.feed(add_on(2, "ben", 5_000))
    assert again.accepted and "add_on:1 was made already" in again.events[0].text
    assert run.session.state().seats[2].stack == 14_950
    assert run.feed(shuffle()).accepted  # the chips play from the next hand
    ben = run.session.state().seats[2]
    assert ben.in_hand and ben.stack + ben.bet == 14_950


def test_dfo_the_floor_sets_a_stack_it_counted_and_bad_arguments_change_nothing() -> None:
    run = start(seat(1, "ana"), seat(2, "ben"))
    step = run.feed(command("stack", seat=1, player="ana", stack=9_900, reason="counted"))
    assert step.accepted and step.events[0].rule == "DFO"
    assert step.events[0].text == ("seat 1: ana's stack is 9,900 as counted, was 10,000 "
                                   "(counted; by floor:anna)")
    for args in ({"seat": 1, "player": "ana"}, {"seat": 1, "player": "ana", "add": 1,
                                                 "stack": 5}, {"seat": 1, "player": "ana",
                                                               "stack": 0},
                 {"seat": 1, "player": "ana", "add": True}, {"seat": 1, "player": "ana",
                                                             "add": 10, "ref": ""},
                 {"seat": 4, "player": "dan", "add": 10}):
        bad = run.feed(command("stack", **args))
        assert not bad.accepted, args
    assert run.session.state().seats[1].stack == 9_900
    assert run.session.state().stack_refs == []


RACE = [seat(1, "ana", 1_275), seat(2, "ben", 9_950), seat(3, "cem", 50), seat(4, "dan", 10_000)]


def race(**kw: object) -> dict[str, object]:
    return command("colour_up", by="tournament", chips=[25], unit=100, ref="colour-up:1", **kw)


def test_rules_t5_apsa_2_1_18_the_chip_race_at_most_one_chip_each_and_nobody_out() -> None:
    run = start(*RACE)
    step = run.feed(race())
    assert step.accepted and step.events[0].rule == "APSA 2.1.18"
    assert step.events[0].text.startswith(
        "colour-up (tournament): the 25 chips leave play; chip race for 2 chip(s) of 100 "
        "among seats 1, 2, 3, at most one each")
    state = run.session.state()
    # Each keeps what changes into 100s; cem's 50 was all leftover: he keeps one 100 whatever
    # the race (APSA 2.1.18; PVB 15b(2): the race eliminates nobody)
    assert {s: v.stack for s, v in state.seats.items()} == {1: 1_200, 2: 9_900, 3: 100,
                                                            4: 10_000}
    assert state.colour_up is not None and state.colour_up.race_chips == 2  # 175 rounded up
    assert state.colour_up.before == {1: 1_275, 2: 9_950, 3: 50, 4: 10_000}
    assert "the chip race: 2 chip(s) of 100 among seats 1, 2, 3" in state.waiting_for
    run.feed(chips("seat:1", 500, 500))  # the stack still being laid down: nothing
    assert run.session.state().seats[1].stack == 1_200
    won = run.feed(chips("seat:1", 500, 500, 100, 100, 100))
    assert [e.text for e in won.events] == [
        "seat 1: ana's 1,300 chips are read: a chip of 100 won in the race"]
    run.feed(chips("seat:2", 5_000, 4_900))  # ben lost: what he keeps, nothing changes
    run.feed(chips("seat:3", 100))  # cem has his chip either way
    run.feed(chips("seat:4", 5_000, 5_000))  # dan had no leftover: not in the race
    state = run.session.state()
    assert {s: v.stack for s, v in state.seats.items()} == {1: 1_300, 2: 9_900, 3: 100,
                                                            4: 10_000}
    assert state.colour_up is not None and state.colour_up.winners() == [1]
    # The race is over when the next hand begins: a reading after it is a bet again
    step = run.feed(shuffle())
    assert "the chip race is over: seat(s) 1 read with a chip of 100 (2 raced)" in [
        e.text for e in step.events]
    closed = run.session.state().colour_up
    assert closed is not None and not closed.open and closed.winners() == [1]
    assert run.session.state().stage == "betting"


def test_rules_t5_the_colour_up_is_refused_during_a_hand_and_made_once() -> None:
    run = start(*RACE, shuffle())
    refused = run.feed(race())
    assert not refused.accepted and refused.events[0].rule == "CG Table Stake"
    assert "the chips colour up between hands; hand 1 is in play" in refused.events[0].text
    run.feed(command("void", reason="test"))
    assert run.feed(race()).accepted
    again = run.feed(race())
    assert again.accepted and "colour-up:1 was made already" in again.events[0].text
    assert run.session.state().seats[3].stack == 100
    for args in ({"chips": [], "unit": 100}, {"chips": [25], "unit": 25},
                 {"chips": [25], "unit": 100, "method": "tda"}, {"chips": ["25"], "unit": 100}):
        assert not run.feed(command("colour_up", **args)).accepted, args


def test_pvb_15b_1_chip_up_each_leftover_becomes_one_chip_of_the_next_value() -> None:
    run = start(*RACE, race(method="chip-up"))
    state = run.session.state()
    assert {s: v.stack for s, v in state.seats.items()} == {1: 1_300, 2: 10_000, 3: 100,
                                                            4: 10_000}
    assert state.colour_up is not None and state.colour_up.race_chips == 3
    run.feed(chips("seat:1", 1_000, 200))  # no race: readings change nothing
    assert run.session.state().seats[1].stack == 1_300


def test_rules_t5_chips_bought_during_the_race_move_what_the_racer_keeps() -> None:
    run = start(*RACE, race())
    run.feed(add_on(1, "ana", 5_000))
    assert run.session.state().seats[1].stack == 6_200
    run.feed(chips("seat:1", 5_000, 1_300))
    assert run.session.state().seats[1].stack == 6_300
    # The floor's count of a racer stands: his readings no longer change it
    run.feed(command("stack", seat=2, player="ben", stack=10_000, reason="won the race"))
    run.feed(chips("seat:2", 9_900))
    assert run.session.state().seats[2].stack == 10_000


def test_rules_t5_a_winner_the_floor_entered_counts_when_the_race_is_over() -> None:
    """A table without chip readers: the floor enters the race winners' stacks with `stack`
    (docs/table.md); the race's end counts them as it counts a reading (it used to say "no
    seat read with a chip" when the floor had given the chip)."""
    run = start(*RACE, race())
    step = run.feed(command("stack", seat=2, player="ben", stack=10_000, rule="APSA 2.1.18",
                            reason="won a chip in the chip race"))
    assert step.accepted and step.events[0].rule == "APSA 2.1.18"
    up = run.session.state().colour_up
    assert up is not None and up.winners() == [2] and up.entered() == [2]
    run.feed(chips("seat:2", 9_900))  # a reading after the floor's entry changes nothing
    assert run.session.state().seats[2].stack == 10_000
    # A racer the floor counted without the chip stays a loser
    run.feed(command("stack", seat=1, player="ana", stack=1_200, reason="counted"))
    step = run.feed(shuffle())
    assert ("the chip race is over: seat(s) 2 with a chip of 100 (2 raced; the floor entered "
            "seat(s) 1, 2)") in [e.text for e in step.events]
    closed = run.session.state().colour_up
    assert closed is not None and closed.winners() == [2]


def test_rules_t5_apsa_2_1_18_a_chip_for_every_racer_is_no_race() -> None:
    """A lone racer (the one player left at his table, or the one stack with a leftover): his
    leftover rounded up is one chip of the unit, at most one a player, so it is his and no
    card is dealt (APSA 2.1.18). So too where the leftovers round up to a chip each (75 + 75:
    two chips, two racers). The stacks are made at once; a reading changes nothing; the next
    hand does not say that a race ended."""
    run = start(seat(3, "cem", 19_950))
    step = run.feed(race())
    assert step.accepted and step.events[0].text == (
        "colour-up (tournament): the 25 chips leave play; seat 3's leftover chips make one chip "
        "of 100 (rounded up): seat 3 gets it, no race (APSA 2.1.18)")
    state = run.session.state()
    up = state.colour_up
    assert up is not None and not up.contested and up.race_chips == 1
    assert state.seats[3].stack == 20_000 and up.winners() == [3]
    assert "race" not in state.waiting_for
    least, most = chips_leaving(up.before, 100, "race")
    assert least == most == 19_950 - 20_000  # the rules' bounds: what the table did
    run.feed(chips("seat:3", 5_000, 5_000, 5_000, 4_900))  # laid as it was kept: no change
    assert run.session.state().seats[3].stack == 20_000
    two = start(seat(1, "ana", 1_275), seat(2, "ben", 9_975), seat(4, "dan", 5_000))
    step = two.feed(race())
    assert step.events[0].text.endswith(
        "the leftover chips of seats 1, 2 make 2 chips of 100 (rounded up): one each, no race "
        "(APSA 2.1.18)")
    state = two.session.state()
    assert {s: v.stack for s, v in state.seats.items()} == {1: 1_300, 2: 10_000, 4: 5_000}
    assert chips_leaving(state.colour_up.before if state.colour_up else {}, 100, "race") == (
        -50, -50)
    step = two.feed(shuffle())
    assert step.accepted and not [e.text for e in step.events if "chip race" in e.text]


def test_rules_t5_a_restarted_table_resumes_the_race_from_its_snapshot() -> None:
    run = start(*RACE, race(), chips("seat:1", 1_300))
    snapshot = SessionSnapshot.model_validate_json(
        run.session._make_snapshot().model_dump_json())
    again = TableSession(run.session.config, snapshot)
    assert again.state() == run.session.state()
    again.handle(parse_event(chips("seat:2", 10_000)))
    assert again.state().seats[2].stack == 10_000


def test_rules_t5_the_chips_that_may_leave_play_at_a_table() -> None:
    before = {1: 1_275, 2: 9_950, 3: 50, 4: 10_000}
    # Leftovers 75 + 50 + 50 = 175: two chips of 100 raced (rounded up). The kept chips make
    # 21,100; cem's 100 is his either way; if he wins a race chip one more goes out, else two:
    # the table ends with 21,300 or 21,400, so 25 to 125 chips come into play
    assert chips_leaving(before, 100, "race") == (-125, -25)
    assert chips_leaving(before, 100, "chip-up") == (-125, -125)  # a chip for each leftover
    assert chips_leaving({1: 5_000, 2: 5_000}, 100, "race") == (0, 0)
    assert chips_leaving({1: 5_050, 2: 5_050}, 100, "race") == (0, 0)  # one chip for 100
    assert chips_leaving({1: 5_010, 2: 5_010, 3: 5_010}, 100, "race") == (-70, -70)
    # Right after the colour-up, before the race's chips are handed out, the table holds
    # 21,200: the chips still to come
    up = colour_up("r", [25], 100, "race", 3, {s: (f"p{s}", v) for s, v in before.items()})
    assert sum({**before, **up.stacks()}.values()) == 21_200 and up.race_chips == 2


def test_rules_t5_a_stack_the_chips_in_play_cannot_make_is_refused() -> None:
    """After the 25s left play (a colour-up to a unit of 100) the floor cannot enter 9,975 or
    99,999: no stack of the chips in play holds it; nothing changes."""
    run = start(*RACE, race())
    before = run.session.state().seats[2].stack  # what ben keeps in 100s, before the race
    for bad in (9_975, 99_999):
        step = run.feed(command("stack", seat=2, player="ben", stack=bad, reason="counted"))
        assert not step.accepted
        assert "cannot be made of the chips in play (the smallest is 100)" in step.events[0].text
        assert step.events[0].rule == "RULES T5"
    assert run.session.state().seats[2].stack == before
    assert run.feed(command("stack", seat=2, player="ben", stack=10_000)).accepted
