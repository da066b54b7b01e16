"""The hand's life at the table (RULES H1-H5, hand-for-hand) from scripted event streams."""

from __future__ import annotations

import json

from controller.events import parse_event
from controller.history.replay_events import replay_events
from controller.session import SessionConfig, TableSession
from controller.session.model import SessionSnapshot
from tests.session.helpers import (
    HOLE,
    Run,
    board,
    card,
    chips,
    command,
    deal,
    declare,
    folded_hand,
    key,
    level,
    seat,
    shuffle,
    start,
    three_players,
)


def test_h1_pvb_14_3_shuffle_press_starts_the_hand_and_posts_blinds() -> None:
    run = start(three_players())
    assert run.session.state().stage == "waiting"
    step = run.feed(shuffle(ts=100.0))
    assert step.accepted
    started = [e for e in step.events if e.kind == "hand_started"]
    assert started and started[0].rule == "PVB 14(3)"
    assert started[0].data == {"button": 1, "sb": 2, "bb": 3, "dealt": [2, 3, 1], "level": 1}
    state = run.session.state()
    assert state.stage == "betting" and state.actor == 1
    assert (state.seats[2].bet, state.seats[3].bet) == (50, 100)


def test_h3_pvb_64_1_record_is_sealed_by_the_next_shuffle_only() -> None:
    run = start(three_players(), shuffle(ts=1.0), folded_hand())
    assert run.sealed == []  # the hand is over, but open to corrections until the next press
    assert run.session.pending_record is not None
    step = run.feed(shuffle(ts=2.0))
    (record,) = step.sealed
    assert record.hand == 1 and record.started == 1.0
    assert record.finishing_stacks == {2: 9_950, 3: 9_900, 1: 10_150}


def test_h2_pvb_14_level_during_a_hand_waits_for_the_next_shuffle() -> None:
    run = start(three_players(), shuffle())
    run.feed(level(2, 100, 200, ante=25))
    assert run.session.state().blinds.bb == 100  # this hand keeps its blinds
    assert run.session.state().pending_level == 2
    run.feed(folded_hand(), shuffle())
    state = run.session.state()
    assert (state.level, state.blinds.bb, state.blinds.ante) == (2, 200, 25)
    assert "PVB 14(1)" in run.rules()
    record = run.sealed[0]
    assert record.level == 1 and record.blinds.bb == 100


def test_h4_apsa_5_4_1_blinds_in_the_zones_are_checked_not_fixed() -> None:
    run = start(three_players(), shuffle(), chips("seat:2", 25, 25), chips("seat:3", 50))
    alerts = [e for e in run.events if e.kind == "alert"]
    assert len(alerts) == 1 and alerts[0].seat == 3 and alerts[0].rule == "APSA 5.4.1"
    assert run.session.state().seats[3].bet == 100  # the engine keeps the true blind
    run.feed(chips("seat:3", 50, 50))  # the player puts the rest in: the alert is resolved
    run.feed(folded_hand(), shuffle())
    assert run.sealed[0].irregularities == []


def test_h4_apsa_5_4_1_a_blind_still_wrong_at_the_first_action_goes_on_the_record() -> None:
    run = start(three_players(), shuffle(), chips("seat:2", 100), chips("seat:3", 100),
                folded_hand(), shuffle())
    (irregularity,) = run.sealed[0].irregularities
    assert irregularity.rule == "APSA 5.4.1" and irregularity.seat == 2


def test_h4_the_seat_first_to_act_posts_its_ante_before_it_acts() -> None:
    """A level with an ante for every player: the button (first to act three-handed) puts its
    ante in its zone before the deal; that is its posting, not a short call (it was read as
    one: "25 in, 100 to call"). Its next chips are its action, counted beside the ante."""
    run = start(three_players(), level(2, 50, 100, ante=25), shuffle(),
                chips("seat:2", 25, 50), chips("seat:3", 25, 100), chips("seat:1", 25))
    assert not [e for e in run.events if e.kind in ("alert", "wait")]
    assert run.session.state().actor == 1 and run.session.state().seats[1].bet == 0
    run.feed(deal(HOLE), chips("seat:1", 25, 100))  # then he calls: 100 beside his ante
    state = run.session.state()
    assert state.seats[1].bet == 100 and state.actor == 2
    moves = [e.text for e in run.events if e.kind == "action" and "cards" not in e.text]
    assert moves == ["seat 1 calls 100"]


def test_h5_pvb_23_1_absent_player_is_dead_at_the_first_card_and_still_posts() -> None:
    run = start(three_players(), command("absent", seat=3), shuffle())
    assert run.session.state().seats[3].bet == 100  # H4: he posts
    run.feed(deal(HOLE))
    state = run.session.state()
    assert state.seats[3].folded
    assert "PVB 23(1)" in run.rules()


DRAW = [card("seat:1", "Ac"), card("seat:2", "Kd"), card("seat:3", "2c")]


def test_b1_pvb_26b_high_card_draw_read_from_the_seat_antennas() -> None:
    run = start(three_players(), config=SessionConfig(profile="cg-cash"))
    assert not run.feed(shuffle()).accepted  # draw first
    run.feed(card("seat:1", "Kc"), card("seat:2", "Ks"), card("seat:3", "2c"))
    assert "PVB 26b" in run.rules()
    run.feed(shuffle())
    assert run.session.state().button == 2  # king of spades beats king of clubs


def test_h5_bps_8_absent_player_back_before_the_last_card_plays_under_cg_cash() -> None:
    cash = SessionConfig(profile="cg-cash")
    run = start(three_players(), DRAW, command("absent", seat=3), shuffle(), config=cash)
    hole = deal(HOLE)
    run.feed(hole[:-1], command("present", seat=3), hole[-1])
    assert run.session.state().stage == "betting"
    assert not run.session.state().seats[3].folded
    run2 = start(three_players(), DRAW, command("absent", seat=3), shuffle(), config=cash)
    run2.feed(hole[:-1])
    assert not run2.session.state().seats[3].folded  # not before every card is dealt
    run2.feed(hole[-1])
    assert run2.session.state().seats[3].folded and "APSA 5.4.2" in run2.rules()


def test_pvb_35a_hand_for_hand_hold_refuses_the_shuffle_with_an_event_and_led() -> None:
    run = start(three_players(), command("hold", kind="hand_for_hand", reason="bubble"))
    assert run.session.leds().hand_for_hand
    step = run.feed(shuffle())
    assert not step.accepted
    (refusal,) = step.events
    assert refusal.kind == "refused" and refusal.rule == "PVB 35a"
    assert run.session.state().stage == "waiting" and run.session.table.hand_number == 0
    run.feed(command("release"))
    assert not run.session.leds().hand_for_hand
    assert run.feed(shuffle()).accepted


def test_pvb_35a_a_shuffle_refused_by_the_hold_leaves_the_finished_hand_shown() -> None:
    """The refused press used to clear the last hand from the public state (its
    board, its shown cards), which the floor needs while the room waits."""
    run = start(three_players(), shuffle(), deal(HOLE), declare(1, "fold"),
                command("hold", reason="hand-for-hand"))
    run.feed(declare(2, "fold"))
    before = run.session.state()
    assert before.hand == 1 and before.stage == "over"
    step = run.feed(shuffle())
    assert not step.accepted and step.events[0].rule == "PVB 35a"
    assert run.session.state() == before
    run.feed(command("release"))
    assert run.feed(shuffle()).accepted and run.session.table.hand_number == 2


def test_pvb_64_1_shuffle_during_a_running_hand_is_refused() -> None:
    run = start(three_players(), shuffle(), deal(HOLE))
    step = run.feed(shuffle())
    assert not step.accepted and "seat 1 is to act" in step.events[0].text


def test_seat_event_during_a_hand_waits_for_the_end_of_the_hand() -> None:
    run = start(three_players(), shuffle(), seat(5, "dora", 8_000))
    assert 5 not in run.session.state().seats
    run.feed(folded_hand())
    assert run.session.state().seats[5].stack == 8_000


def test_refused_events_change_nothing() -> None:
    run = start(three_players(), shuffle(), deal(HOLE))
    before = run.session.state()
    for bad in (declare(5, "call"), declare(1, "raise", 150), declare(1, "check"),
                command("misdeal_please"), command("award", pot=1, seats=[2]), key("undo"),
                seat(1, "zed", 500), command("kill", seat=9)):
        step = run.feed(bad)
        assert not step.accepted, bad
        assert step.events[0].kind == "refused" and step.events[0].text
        assert run.session.state() == before


def test_unknown_event_type_is_not_a_table_event() -> None:
    import pytest

    from controller.events import BadEvent

    with pytest.raises(BadEvent):
        parse_event('{"type": "teleport"}')


def test_board_is_public_hole_cards_are_not() -> None:
    run = start(three_players(), shuffle(), deal(HOLE), declare(1, "call"), declare(2, "call"),
                key("confirm"), board("QsJd4h"))
    state = run.session.state()
    assert state.board == "QsJd4h" and state.seats[2].cards == 2 and state.seats[2].shown is None
    text = state.model_dump_json() + "".join(e.model_dump_json() for e in run.events)
    for hidden in ("As", "Ah", "Kd", "Kh", "7c", "2d"):
        assert hidden not in text


# ---------------------------------------------------------------- no hand left unsealed (H3)


def test_h3_the_floors_close_seals_the_last_hand_and_waits_for_a_running_one() -> None:
    run = start(three_players(), shuffle(), folded_hand())
    assert run.session.pending_record is not None and not run.sealed
    run.feed(shuffle(), deal(HOLE))  # hand 2 runs: the table cannot close in the middle of it
    step = run.feed(command("close"))
    assert not step.accepted and step.events[0].rule == "PVB 64(1)"
    assert [r.hand for r in run.sealed] == [1]
    run.feed(declare(1, "raise", 300), declare(2, "fold"), declare(3, "fold"))
    step = run.feed(command("close", by="floor:anna"))
    assert step.accepted and [r.hand for r in step.sealed] == [2]
    assert run.session.pending_record is None and "hand 2 is sealed" in step.events[0].text
    assert not run.feed(command("close")).changed  # nothing left to seal


HEADS_UP_ALL_IN = [seat(1, "ana", 1_000), seat(2, "ben", 1_000), shuffle(),
                   *deal({2: "AsAd", 1: "7c2h"}), declare(1, "allin"), declare(2, "call"),
                   *board("Ks8d4h3c9s")]


def test_h3_the_hand_that_leaves_one_player_with_every_chip_is_sealed_at_once() -> None:
    """No next shuffle can begin a hand, so none would seal it: the tournament's last hand (or
    this table's) reaches the records at once."""
    run = start(HEADS_UP_ALL_IN)
    (record,) = run.sealed
    assert record.status == "complete" and record.finishing_stacks == {1: 0, 2: 2_000}
    assert run.session.pending_record is None
    assert any("sealed: ben has every chip" in e.text for e in run.events)
    # replay-events prints it too, and exactly once.
    assert [r.hand for r in replay_events([json.dumps(e) for e in HEADS_UP_ALL_IN])] == [1]


def test_the_clocks_break_holds_the_table_in_its_own_words() -> None:
    run = start(three_players(), command("hold", by="clock", reason="break before level 5"))
    assert run.session.state().waiting_for.startswith("the break: wait for the clock")
    step = run.feed(shuffle())
    assert not step.accepted and step.events[0].rule == "PVB 14"
    assert "on a break" in step.events[0].text
    run.feed(command("release", by="clock"))
    assert run.feed(shuffle()).accepted


def test_pvb_35a_released_for_one_hand_the_table_waits_again_after_it() -> None:
    run = start(three_players(), command("hold", reason="hand-for-hand"))
    run.feed(command("release", by="clock", one_hand=True))
    assert run.feed(shuffle()).accepted  # the round's hand
    run.feed(folded_hand())
    step = run.feed(shuffle())  # and then it waits for the next round
    assert not step.accepted and step.events[0].rule == "PVB 35a"
    run.feed(command("release", by="clock", one_hand=True))
    assert run.feed(shuffle()).accepted and run.session.table.hand_number == 2


def test_t2_an_elimination_in_a_hand_for_hand_round_carries_the_round() -> None:
    """RULES T2 (PVB 35a): every elimination of one hand-for-hand round counts as the same
    hand for placing, so the elimination says its round; outside hand-for-hand it says none.
    The round survives the table's restart between the release and the shuffle."""
    stacks = [seat(1, "ana", 10_000), seat(2, "ben", 150), seat(3, "cem", 10_000)]
    run = start(stacks, command("hold", reason="hand-for-hand"),
                command("release", by="clock", one_hand=True, round=3))
    # A fresh session from the snapshot its journal keeps (the shuffle press checkpoints it).
    taken = run.session.checkpoint(parse_event(shuffle()))
    assert taken is not None
    snapshot = SessionSnapshot.model_validate_json(taken.model_dump_json())
    restarted = Run(TableSession(SessionConfig(), snapshot=snapshot))
    for table in (run, restarted):
        table.feed(shuffle(), deal({2: "2c3d", 3: "AsAh", 1: "7c7d"}), declare(1, "fold"),
                   declare(2, "allin"), declare(3, "call"), board("QsJd4h"), board("5s"),
                   board("9c"))
        (gone,) = [e for e in table.events if e.kind == "elimination"]
        assert gone.data["player"] == "ben" and gone.data["round"] == 3
        assert gone.data["hand"] == 1 and "hand-for-hand round 3" in gone.text
    plain = start([seat(1, "ana", 10_000), seat(2, "ben", 150), seat(3, "cem", 10_000)],
                  shuffle(), deal({2: "2c3d", 3: "AsAh", 1: "7c7d"}), declare(1, "fold"),
                  declare(2, "allin"), declare(3, "call"), board("QsJd4h"), board("5s"),
                  board("9c"))
    (gone,) = [e for e in plain.events if e.kind == "elimination"]
    assert gone.data["round"] is None and "round" not in gone.text


def test_t2_pvb_64b_3_every_sealed_record_names_its_hand_for_hand_round() -> None:
    """A hand dealt in hand-for-hand round 4 says so in its sealed record; a hand outside
    hand-for-hand has no such field at all (not even null) in its JSON."""
    run = start(three_players(), shuffle(ts=1.0), folded_hand())
    run.feed(command("hold", reason="hand-for-hand"),
             command("release", by="clock", one_hand=True, round=4), shuffle(ts=2.0),
             folded_hand(), command("close"))
    first, second = run.sealed
    assert first.hand_for_hand_round is None
    assert "hand_for_hand_round" not in json.loads(first.model_dump_json())
    assert second.hand_for_hand_round == 4
    assert json.loads(second.model_dump_json())["hand_for_hand_round"] == 4


def test_pvb_64b_1_an_elimination_says_the_stacks_everyone_out_in_the_hand_began_with() -> None:
    """Two players out in one hand: each elimination names the chips the player began the
    hand with and everyone out in it, so the tournament can place them from either (PVB
    64b(1))."""
    run = start([seat(1, "ana", 10_000), seat(2, "ben", 150), seat(3, "cem", 300)],
                shuffle(ts=5.0), deal({2: "2c3d", 3: "4h5h", 1: "AsAh"}), declare(1, "raise", 400),
                declare(2, "allin"), declare(3, "allin"), board("QsJd9h"), board("8s"),
                board("Kc"))
    gone = [e for e in run.events if e.kind == "elimination"]
    assert sorted(e.data["player"] for e in gone) == ["ben", "cem"]
    for event in gone:
        assert event.data["busted"] == {"ben": 150, "cem": 300}
        assert event.data["stack"] == event.data["busted"][event.data["player"]]
        assert event.data["started"] == 5.0 and event.rule == "PVB 64b"
