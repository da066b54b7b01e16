"""What a tournament director's outside check of the tournament found, each pinned down with
the tournament's core and real table sessions (tests/room/tournament/tournament_room.py):

- a bust taken back must leave the player with a seat and chips (PVB 64a(1)), or be refused;
- a move whose player went out is cancelled, and its chips can no longer be "counted";
- a table in a hand is not asked again and again to seat a player it has queued;
- the final standings say when, where and with how many chips each player went out.
"""

from __future__ import annotations

import csv
import io

import pytest

from controller.room.tournament.draw import Refused
from controller.room.tournament.export import standings_csv
from controller.room.tournament.seating import Ask
from tests.room.tournament import tournament_helpers as hands
from tests.room.tournament.tournament_room import SimRoom, settings


def drawn(tables: int = 3, seats: int = 6, players: int = 14) -> SimRoom:
    room = SimRoom(settings(tables=tables, seats=seats))
    for k in range(players):
        room.command("register", name=f"p{k:02d}", club=["Asse", "Bluff", None][k % 3])
    room.command("draw", seed=42)
    return room


# ------------------------------------------------------------------------ undoing a bust


def test_pvb_64a_a_real_bust_taken_back_gives_a_drawn_seat_and_the_chips_the_floor_names(
        ) -> None:
    room = drawn()
    room.fold_all()
    room.knock_out("p03")
    assert "p03" not in room.seated()  # he really went out: no seat, no chips
    before = room.core.ledger.model_dump_json()
    # Without the chips he gets back the bust cannot be made whole: refused, nothing changes
    with pytest.raises(Refused) as refused:
        room.command("undo_bust", player="p03")
    assert "has no seat" in refused.value.reason and "args.stack" in refused.value.reason
    assert refused.value.rule == "PVB 64a(1)"
    with pytest.raises(Refused, match="more than every chip in play"):
        room.command("undo_bust", player="p03", stack=14 * 5_000 + 1)
    assert room.core.ledger.model_dump_json() == before
    assert room.core.state().players_left == 13

    said = room.command("undo_bust", player="p03", stack=3_000)
    assert "taken back by floor:test" in said and "3,000 chips the floor gives back" in said
    table, seat = room.seat_of("p03")  # seated at a drawn free seat, between hands
    assert f"table {table}, seat {seat}" in said
    assert room.state(table).seats[seat].stack == 3_000
    state = room.core.state()
    assert state.players_left == 14 and state.status == "running"
    assert not any(s.player == "p03" and s.place for s in state.standings)
    # Chips given back are issued chips, and the count says so: nothing is missing
    assert state.chips is not None and state.chips.in_play == 14 * 5_000 + 3_000
    assert state.chips.given_back == 3_000 and state.chips.difference == 0
    assert room.chips_at_tables() == 14 * 5_000 + 3_000
    (undone,) = room.core.ledger.undone
    assert (undone.by, undone.stack, undone.spot) == ("floor:test", 3_000, room.core.ledger.
                                                      players["p03"].spot)
    (move,) = [m for m in room.core.ledger.moves if m.reason == "undo"]
    assert (move.player, move.stack, move.rule, move.status) == ("p03", 3_000, "PVB 08a(1)",
                                                                  "seated")
    # He plays on: a hand at his table, and the count is still right
    room.fold(table)
    assert room.core.state().chips.difference == 0  # type: ignore[union-attr]
    assert not [a for a in room.core.ledger.alerts if a.rule in ("RULES T5", "RULES T6")]


def test_a_bust_the_tables_never_made_is_taken_back_at_his_own_seat_without_chips() -> None:
    """An elimination the tournament heard for a player the tables still show with chips: he
    plays on where he sits, and the floor gives back nothing."""
    room = drawn()
    table, seat = room.seat_of("p05")
    hand = room.state(table).hand
    assert room.core.elimination(table, f"{table}:wrong", {
        "player": "p05", "hand": hand, "stack": 5_000, "busted": {"p05": 5_000}}, room.now)
    room.settle()
    assert room.core.state().players_left == 13
    with pytest.raises(Refused, match=r"still sits at table .* with 5,000 chips: they play on"):
        room.command("undo_bust", player="p05", stack=5_000)
    said = room.command("undo_bust", player="p05")
    assert f"plays on at table {table}, seat {seat} with their 5,000 chips" in said
    state = room.core.state()
    assert state.players_left == 14 and state.chips is not None
    assert state.chips.given_back == 0 and state.chips.in_play == 14 * 5_000
    assert room.seat_of("p05") == (table, seat)


def test_a_bust_taken_back_after_the_last_hand_reopens_the_tournament_with_a_seat() -> None:
    room = drawn(tables=1, seats=6, players=2)
    room.knock_out("p01")
    for table in room.tables:
        room.close(table)
    room.settle()
    assert room.core.state().status == "finished"
    said = room.command("undo_bust", player="p01", stack=2_500)
    assert "2,500 chips" in said
    state = room.core.state()
    assert state.status == "running" and state.players_left == 2
    assert room.seat_of("p01")[0] == "1"
    assert state.chips is not None and state.chips.difference == 0


def test_a_bust_is_not_taken_back_when_the_room_has_no_seat_for_him() -> None:
    room = drawn(tables=1, seats=3, players=3)
    room.knock_out("p00")
    room.command("register", name="late")  # late registration takes the free seat
    assert len(room.seated()) == 3
    before = room.core.ledger.model_dump_json()
    with pytest.raises(Refused, match="every seat in the room is taken") as refused:
        room.command("undo_bust", player="p00", stack=1_000)
    assert refused.value.rule == "PVB 08a(1)"
    assert room.core.ledger.model_dump_json() == before


# ------------------------------------------------------------------------ moves of players out


def test_a_move_whose_player_went_out_is_cancelled_and_his_chips_are_not_counted() -> None:
    """The draw seats everyone (moves `seated`, chips not yet read at the seat); a player goes
    out before his chips were counted: his move is cancelled, the floor's "moves to make" no
    longer lists it, and `move_done` for him is refused."""
    room = drawn()
    assert {m.status for m in room.core.ledger.moves} == {"seated"}
    room.knock_out("p03")
    (move,) = [m for m in room.core.state().moves if m.player == "p03"]
    assert move.status == "cancelled"
    with pytest.raises(Refused) as refused:
        room.command("move_done", player="p03")
    assert "p03 is out" in refused.value.reason and "cancelled" in refused.value.reason
    assert refused.value.rule == "DFO §2(3)"
    # The others' moves are untouched, and one still counts
    other = next(p for p, (t, _) in room.seated().items())
    assert "counted" in room.command("move_done", player=other)


# ------------------------------------------------------------------------ seats asked once a hand


def test_a_table_in_a_hand_is_asked_once_to_seat_a_newcomer_and_refuses_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Table 3 breaks while table 1 is in a hand: table 1 queues the newcomer's seat for the
    end of its hand. The tournament does not ask again while that hand lasts (its state shows
    him only when the hand is over), and the table refuses nothing."""
    room = drawn()
    room.fold_all()
    sent: list[Ask] = []
    apply = room.apply

    def applied(ask: Ask) -> None:
        sent.append(ask)
        apply(ask)

    monkeypatch.setattr(room, "apply", applied)
    assert room.shuffle("1")  # table 1 in a hand
    room.knock_out(*[p for _, p in room.players_at("2")][:3])
    for _ in range(5):  # ten seconds and more of the service's ticks
        room.settle()
    coming = [m for m in room.core.ledger.moves if m.status == "arriving" and m.to.table == "1"]
    assert coming, [(m.player, m.status, m.to) for m in room.core.ledger.moves]
    asked = [a for a in sent if a.table == "1" and a.command == "seat"]
    assert len(asked) == len(coming)
    assert room.refused == []
    hands.fold_around(room.feeder("1"), room.state_of("1"))
    room.settle()
    for move in coming:
        assert room.seat_of(move.player) == ("1", move.to.seat)
    assert room.refused == []
    assert not any(m.status in ("leaving", "arriving") for m in room.core.ledger.moves)


# ------------------------------------------------------------------------ the director's export


def test_the_final_standings_say_when_where_and_with_what_each_player_went_out() -> None:
    room = drawn(tables=1, seats=6, players=3)
    room.fold("1")
    stacks = {v.player: v.stack for v in room.state("1").seats.values()}
    short, middle, _ = sorted(stacks, key=lambda p: stacks[p])
    hand = room.state("1").hand + 1
    room.now = 1_740_855_844.0  # the shuffle; the hand is over a second later, 19:04:05 UTC
    room.knock_out(short)
    started = room.core.ledger.outs[0].bust.started
    room.now = 1_740_856_000.0
    room.knock_out(middle)
    for table in room.tables:
        room.close(table)
    room.settle()
    assert room.core.state().status == "finished"
    rows = list(csv.DictReader(io.StringIO(standings_csv(room.core.standings(), "EUR",
                                                         1_740_859_200.0))))
    third = next(r for r in rows if r["player"] == short)
    assert third["place"] == "3" and third["out_at"] == "2025-03-01T19:04:05Z"
    assert (third["out_table"], third["out_hand"]) == ("1", str(hand))
    assert third["out_hand_id"] == f"1:{hand}:{round(started * 1000)}"  # type: ignore[operator]
    assert third["out_stack"] == str(stacks[short])
    assert {r["exported_at"] for r in rows} == {"2025-03-01T20:00:00Z"}
    winner = rows[0]
    assert winner["place"] == "1" and winner["out_at"] == winner["out_hand_id"] == ""
