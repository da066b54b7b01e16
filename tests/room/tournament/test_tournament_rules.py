"""The tournament's pure rules, one test per rule tag: the draw (PVB 08a(1), RULES T6, DFO
§2(2)), places (PVB 64b, APSA 2.1.19, BPS 44), balancing and breaking (PVB 09, 10; APSA
3.1.2.4-5; BPS 24), payouts and points (APSA 3.1.1.3, 4.1.1.2)."""

from __future__ import annotations

import json
import math
import random
from collections import Counter

import pytest

from controller.room.clock.structure import EntrySpec, PrizeSpec, Structure
from controller.room.tournament.balance import Spot, TableSeating, plan
from controller.room.tournament.draw import Entrant, Refused, draw, late_seat, table_sizes
from controller.room.tournament.export import standings_csv, standings_json
from controller.room.tournament.places import Bust, placings
from controller.room.tournament.prizes import payouts, points, shared_points, shared_prize
from controller.room.tournament.standings import standings
from controller.session import SessionConfig, TableSession
from tests.session.helpers import Run, declare, seat, shuffle


def tables(*names: str, seats: int = 9) -> list[TableSeating]:
    return [TableSeating(table=n, seats=seats) for n in names]


# ------------------------------------------------------------------------ the draw

def club_field() -> list[Entrant]:
    clubs = ["Asse"] * 7 + ["Berlin Bluff"] * 5 + ["Chips"] * 4 + [None] * 11
    return [Entrant(name=f"p{k:02d}", club=c) for k, c in enumerate(clubs, start=1)]


def test_pvb_08a_1_the_draw_spreads_each_club_over_the_tables_as_evenly_as_it_can() -> None:
    field = club_field()
    spots = draw(field, tables("1", "2", "3"), random.Random(7))
    assert sorted(spots) == sorted(e.name for e in field)  # everyone seated exactly once
    assert len(set(spots.values())) == len(field)
    assert Counter(s.table for s in spots.values()) == {"1": 9, "2": 9, "3": 9}
    for club in ("Asse", "Berlin Bluff", "Chips"):
        per_table = Counter(spots[e.name].table for e in field if e.club == club)
        counts = [per_table.get(t, 0) for t in ("1", "2", "3")]
        assert max(counts) - min(counts) <= 1, (club, counts)


def test_pvb_08a_1_the_draw_is_random_and_its_seed_makes_it_again() -> None:
    field = club_field()
    first = draw(field, tables("1", "2", "3"), random.Random(11))
    assert draw(field, tables("1", "2", "3"), random.Random(11)) == first
    assert draw(field, tables("1", "2", "3"), random.Random(12)) != first


def test_pvb_08a_1_the_draw_fills_the_fewest_tables_those_that_break_last_first() -> None:
    field = [Entrant(name=f"p{k}") for k in range(20)]
    spots = draw(field, tables("1", "2", "3", "4"), random.Random(1))
    assert Counter(s.table for s in spots.values()) == {"1": 7, "2": 7, "3": 6}
    assert table_sizes(19, tables("1", "2", "3")) == {"1": 7, "2": 6, "3": 6}
    with pytest.raises(Refused, match="28 players and 27 seats"):
        table_sizes(28, tables("1", "2", "3"))


def test_a_late_player_takes_a_free_seat_at_the_shortest_table() -> None:
    room = [TableSeating(table="1", players={1: "a", 2: "b", 3: "c"}),
            TableSeating(table="2", players={4: "d", 5: "e"}),
            TableSeating(table="3", players={1: "f", 2: "g"})]
    spot = late_seat(room, random.Random(3))
    assert spot.table == "2" and spot.seat not in (4, 5)


def test_rules_t6_dfo_2_2_the_start_stack_follows_the_table_size() -> None:
    entry = EntrySpec(stacks={10: 30_000, 9: 35_000, 8: 40_000})
    assert [entry.start_stack(n) for n in (10, 9, 8, 6)] == [30_000, 35_000, 40_000, None]
    assert EntrySpec(stack=10_000, stacks={10: 30_000}).start_stack(9) == 10_000


# ------------------------------------------------------------------------ places

def bust(player: str, stack: int, seq: int, table: str = "1", hand: int = 5,
         round: int | None = None) -> Bust:
    return Bust(player=player, table=table, hand=hand, stack=stack, seq=seq, round=round,
                started=float(hand))


def test_pvb_64b_1_apsa_2_1_19_more_chips_at_the_start_of_the_hand_places_higher() -> None:
    out = placings(5, [bust("small", 800, 1), bust("big", 2_500, 2)])
    assert [(p.player, p.place, p.shared_with) for p in out] == [("big", 6, ()),
                                                                  ("small", 7, ())]


def test_pvb_64b_2_equal_stacks_share_the_places_the_best_of_them() -> None:
    out = placings(7, [bust("x", 1_000, 1), bust("y", 1_000, 2)])
    assert {(p.player, p.place, p.last, p.shared_with) for p in out} == {
        ("x", 8, 9, ("y",)), ("y", 8, 9, ("x",))}


def test_pvb_64b_2_shared_places_split_their_prizes_and_points_evenly() -> None:
    table = [500, 300, 201]  # places 1 to 3
    each, left = shared_prize(table, 2, 3)
    assert (each, left) == (250, 1)  # 501 between two: 250 each, one unit for first place
    assert shared_points("apsa-sit-and-go", 6, 2, 3) == pytest.approx((7 + 5) / 2)
    rows = standings(["w"], [bust("x", 1_000, 1), bust("y", 1_000, 2)], None, table,
                     "apsa-sit-and-go", 3)
    assert [(r.player, r.place, r.prize, r.points) for r in rows] == [
        ("w", 1, 501, 10.0), ("x", 2, 250, 6.0), ("y", 2, 250, 6.0)]
    assert sum(r.prize for r in rows) == sum(table)  # the pool is paid out exactly


def test_pvb_64b_2_a_shared_prize_is_rounded_down_to_the_unit_the_rest_to_first_place() -> None:
    """The structure pays in units of 5: places 2 and 3 (80 and 55) shared are 135 between two,
    67.50 each in whole currency; each share is 65, and the 5 the split leaves goes to first
    place, as the payout table's remainder does (never a share that is no multiple of the
    unit)."""
    table = [145, 80, 55]  # SMALL's payouts for 14 entries: 280 in units of 5
    assert shared_prize(table, 2, 3, unit=5) == (65, 5)
    assert shared_prize(table, 2, 3) == (67, 1)  # (a structure paying in units of 1)
    rows = standings(["w"], [bust("x", 1_000, 1), bust("y", 1_000, 2)], None, table, "none", 3,
                     unit=5)
    assert [(r.player, r.place, r.prize) for r in rows] == [("w", 1, 150), ("x", 2, 65),
                                                            ("y", 2, 65)]
    assert sum(r.prize for r in rows) == sum(table)
    assert all(r.prize % 5 == 0 for r in rows[1:])
    # Three sharing places 1-3 cannot happen (one player is left with every chip); three
    # sharing 2nd to 4th of [100, 60, 25, 15]: 100 between three, 30 each, 10 to first
    assert shared_prize([100, 60, 25, 15], 2, 4, unit=5) == (30, 10)


def test_bps_44_eliminations_in_different_hands_place_in_the_order_they_happened() -> None:
    out = placings(3, [bust("first", 9_000, 1, hand=4), bust("second", 100, 2, hand=9)])
    assert [(p.player, p.place) for p in out] == [("second", 4), ("first", 5)]


def test_pvb_64b_3_a_hand_for_hand_round_is_one_hand_across_the_tables() -> None:
    """Two players out in round 12 at different tables (and, earlier, one in a hand of its
    own): the round places them by their stacks at the start, and only once it has ended at
    every table."""
    busts = [bust("early", 50_000, 1, table="2", hand=30),
             bust("a", 4_000, 2, table="1", hand=40, round=12),
             bust("b", 6_000, 3, table="2", hand=41, round=12)]
    waiting = placings(10, busts, settled={("hand", "2", 30, 30.0)})
    pending = {p.player: (p.place, p.last, p.pending) for p in waiting}
    assert pending == {"a": (11, 12, True), "b": (11, 12, True), "early": (13, 13, False)}
    given = {p.player: p.place for p in placings(10, busts)}
    assert given == {"b": 11, "a": 12, "early": 13}


def test_a_late_registration_moves_every_earlier_place_down_one() -> None:
    busts = [bust("x", 100, 1)]
    assert placings(5, busts)[0].place == 6
    assert placings(6, busts)[0].place == 7


# ------------------------------------------------------------------------ balancing

def two_tables() -> list[TableSeating]:
    """Table 1 (long): nine players, button 4, big blind 6. Table 2 (short): seven players on
    seats 1-7, button 2, big blind 4; seats 8 and 9 free."""
    long = TableSeating(table="1", button=4, small_blind=5, big_blind=6,
                        players={s: f"a{s}" for s in range(1, 10)})
    short = TableSeating(table="2", button=2, small_blind=3, big_blind=4,
                         players={s: f"b{s}" for s in range(1, 8)})
    return [long, short]


def test_pvb_09_1_the_player_in_the_free_seats_position_moves() -> None:
    """ "Der Spieler, der am alten Tisch dieselbe Position zum Button hat wie (der freie Platz)
    am neuen Tisch": the free seat the short table's big blind reaches first is 8, whose
    newcomer posts it in the fourth hand (after 5, 6 and 7). At the long table the player who
    posts it in the fourth hand (after 7, 8 and 9) is seat 1: that player moves, no worse and
    no better off (tests/room/tournament/test_tournament_balance.py has the rest)."""
    result = plan(two_tables(), ["2", "1"], "pvb-2020")
    assert result.lines() == [{"move": "a1", "from": {"table": "1", "seat": 1},
                               "to": {"table": "2", "seat": 8}, "rule": "PVB 09(1)"}]


def test_apsa_3_1_2_4_bps_24_the_next_big_blind_moves_into_the_free_seat() -> None:
    result = plan(two_tables(), ["2", "1"], "apsa-2010")
    assert result.lines() == [{"move": "a7", "from": {"table": "1", "seat": 7},
                               "to": {"table": "2", "seat": 8}, "rule": "APSA 3.1.2.4"}]


def test_apsa_3_1_2_4_never_into_the_next_small_blind() -> None:
    """The short table's last big blind (seat 4) busted: that seat is the next small blind's.
    Its free seats are 4, 8 and 9; the two newcomers go to 8 and 9, never to 4."""
    short = TableSeating(table="3", button=2, big_blind=4,
                         players={1: "c1", 2: "c2", 3: "c3", 5: "c5", 6: "c6", 7: "c7"})
    longs = [TableSeating(table=t, button=4, big_blind=6,
                          players={s: f"{t}-{s}" for s in range(1, 10)}) for t in ("1", "2")]
    for profile in ("pvb-2020", "apsa-2010"):
        moves = plan([*longs, short], ["3", "2", "1"], profile).moves
        assert [(m.source.table, m.to) for m in moves] == [("1", Spot(table="3", seat=8)),
                                                           ("2", Spot(table="3", seat=9))]


def test_rules_t3_ties_go_by_the_order_of_the_tables_and_balancing_goes_on_until_none_differ(
        ) -> None:
    room = [TableSeating(table="1", button=1, big_blind=3, players={s: f"a{s}" for s in
                                                                     range(1, 10)}),
            TableSeating(table="2", button=1, big_blind=3, players={s: f"b{s}" for s in
                                                                     range(1, 10)}),
            TableSeating(table="3", button=1, big_blind=3, players={1: "c1", 2: "c2",
                                                                     3: "c3", 4: "c4",
                                                                     5: "c5"})]
    result = plan(room, ["3", "2", "1"], "pvb-2020")
    # 9, 9, 5: the first of the two long tables gives, then the other (8, 9, 6 -> 8, 8, 7)
    assert [(m.source.table, m.to.table) for m in result.moves] == [("1", "3"), ("2", "3")]
    assert [m.to.seat for m in result.moves] == [6, 7]  # the seats its big blind reaches first


def test_pvb_09_3_a_table_with_three_or_more_empty_seats_is_held_until_filled() -> None:
    room = [TableSeating(table="1", button=1, big_blind=3, players={s: f"a{s}" for s in
                                                                     range(1, 10)}),
            TableSeating(table="2", button=1, big_blind=3, players={1: "b1", 2: "b2",
                                                                     3: "b3", 4: "b4",
                                                                     5: "b5", 6: "b6"})]
    result = plan(room, ["2", "1"], "pvb-2020")
    assert [h.table for h in result.holds] == ["2"] and result.holds[0].empty == 3
    assert result.lines()[-1] == {"hold": "2"}
    two_empty = [room[0], room[1].model_copy(update={"players": {**room[1].players, 7: "b7"}})]
    assert plan(two_empty, ["2", "1"], "pvb-2020").holds == []


def test_pvb_10_a_table_breaks_when_its_players_fit_at_the_others() -> None:
    room = [TableSeating(table="1", button=2, big_blind=4, players={s: f"a{s}" for s in
                                                                     (1, 2, 3, 4, 5, 6, 7)}),
            TableSeating(table="2", button=1, big_blind=3, players={s: f"b{s}" for s in
                                                                     (1, 2, 3, 4, 5, 6)}),
            TableSeating(table="3", button=1, big_blind=3, players={s: f"c{s}" for s in
                                                                     (1, 3, 5, 7)})]
    result = plan(room, ["3", "2", "1"], "pvb-2020", random.Random(5))
    assert [b.table for b in result.breaks] == ["3"]
    assert sorted(m.player for m in result.moves) == ["c1", "c3", "c5", "c7"]
    assert all(m.reason == "break" and m.rule == "PVB 10(1)" for m in result.moves)
    after = Counter(m.to.table for m in result.moves)
    assert (7 + after["1"], 6 + after["2"]) in ((9, 8), (8, 9))
    assert len({m.to for m in result.moves}) == 4  # four different free seats
    # Not yet: 18 players do not fit at two tables of nine.
    room[2] = room[2].model_copy(update={"players": {**room[2].players, 9: "c9", 8: "c8",
                                                     6: "c6", 4: "c4", 2: "c2"}})
    assert plan(room, ["3", "2", "1"], "pvb-2020").breaks == []


def finish_hand(run: Run, seats: list[int]) -> None:
    """Everyone folds to the big blind."""
    while (state := run.session.state()).stage == "betting" and state.actor in seats:
        run.feed(declare(state.actor, "fold"))
    assert run.session.state().stage == "over"


def test_pvb_10_1_apsa_3_1_2_5_a_broken_tables_player_gets_no_cards_before_the_small_blind(
        ) -> None:
    """Table 2 played a hand (button 1, small blind 3, big blind 5) with seats 2 and 4 free.
    Seat 4 lies between the next button (3) and the next small blind (5); seat 2 does not.
    The plan says so, and the table's own engine deals the newcomer on 4 out and the one on 2
    in (RULES B4)."""
    players = {1: "b1", 3: "b3", 5: "b5", 6: "b6", 7: "b7", 8: "b8"}
    run = Run(TableSession(SessionConfig(table_id="2", seats=9)))
    run.feed([seat(s, p) for s, p in players.items()], shuffle(ts=1.0))
    state = run.session.state()
    assert (state.button, state.sb, state.bb) == (1, 3, 5)
    finish_hand(run, list(players))
    receiving = TableSeating(table="2", seats=9, button=1, small_blind=3, big_blind=5,
                             players=players)
    donor = TableSeating(table="9", seats=9, players={1: "new4", 2: "new2"})
    result = plan([receiving, donor], ["9", "2"], "pvb-2020", random.Random(2))
    sits_out = {m.to.seat: m.sits_out for m in result.moves}
    assert sits_out == {4: True, 2: False}
    for move in result.moves:
        run.feed(seat(move.to.seat, move.player))
    run.feed(shuffle(ts=2.0))
    dealt = run.session.state()
    assert dealt.button == 3 and dealt.sb == 5
    assert dealt.seats[4].in_hand is False and dealt.seats[2].in_hand is True


# ------------------------------------------------------------------------ payouts and points

PRIZES = PrizeSpec.model_validate({"unit": 5, "payouts": [
    {"up_to": 10, "percent": [65, 35]},
    {"up_to": 30, "percent": [50, 30, 20]},
    {"percent": [40, 25, 15, 12, 8]}]})


def test_payouts_are_rounded_to_the_unit_and_the_remainder_goes_to_first_place() -> None:
    assert payouts(PRIZES, 27 * 33, 27) == [451, 265, 175]  # 891: 267.3 -> 265, 178.2 -> 175
    assert sum(payouts(PRIZES, 891, 27)) == 891
    assert payouts(PRIZES, 8 * 50, 8) == [260, 140]
    assert payouts(PRIZES, 100 * 50, 100) == [2000, 1250, 750, 600, 400]
    assert payouts(None, 1000, 10) == [] and payouts(PRIZES, 0, 10) == []
    # Exact arithmetic: 35% of 1,000 is 350, not 345 from a float a hair below 350
    assert payouts(PRIZES, 1000, 10) == [650, 350]
    # A field smaller than its bracket's places: only its places are paid, each its own
    # percentage; the money of the places nobody can take is left over and goes to first
    # place with the rest of the remainder (the payout table's own rule)
    assert payouts(PrizeSpec.model_validate({"payouts": [{"percent": [50, 30, 20]}]}), 100,
                   2) == [70, 30]
    four = PrizeSpec.model_validate({"unit": 5, "payouts": [{"percent": [40, 30, 20, 10]}]})
    assert payouts(four, 3 * 50, 3) == [75, 45, 30]  # 4th's 10% to first: 40% + 10%
    # Re-entries add money, not places: five entries of three players pay three places
    assert payouts(four, 5 * 50, 5, places=3) == [125, 75, 50]


def test_a_payout_table_that_does_not_add_up_is_refused_naming_the_bracket() -> None:
    with pytest.raises(ValueError, match="add up to 90, not 100"):
        PrizeSpec.model_validate({"payouts": [{"up_to": 10, "percent": [60, 30]}]})
    with pytest.raises(ValueError, match="a place pays more than a better one"):
        PrizeSpec.model_validate({"payouts": [{"percent": [30, 70]}]})
    with pytest.raises(ValueError, match="only the last bracket"):
        PrizeSpec.model_validate({"payouts": [{"percent": [100]}, {"up_to": 3,
                                                                    "percent": [100]}]})


def test_apsa_4_1_1_2_ranking_points_for_about_30_percent_and_5_for_taking_part() -> None:
    assert points("apsa-ranking", 100, 1) == pytest.approx(9 * 10 / 1 + 5)
    assert points("apsa-ranking", 100, 4) == pytest.approx(9 * 10 / 2 + 5)
    assert points("apsa-ranking", 100, 30) == pytest.approx(9 * 10 / math.sqrt(30) + 5)
    assert points("apsa-ranking", 100, 31) == 5  # beyond 30% of the field: taking part only
    assert points("apsa-ranking", 7, 2) == pytest.approx(9 * math.sqrt(7) / math.sqrt(2) + 5)
    assert points("apsa-ranking", 7, 3) == 5  # 30% of 7 is 2.1: two places


def test_apsa_3_1_1_3_the_sit_and_go_table() -> None:
    assert [points("apsa-sit-and-go", 6, p) for p in range(1, 8)] == [10, 7, 5, 3, 2, 1, 0]
    assert points("apsa-sit-and-go", 6, 1, in_time=False) == 9
    assert points("none", 6, 1) == 0


def test_final_standings_as_csv() -> None:
    """What a director's export has: the place, prize and points, and for each player out the
    time he went out, the table and the hand (its number and id) and his chips at its start;
    the export's own time on every row."""
    rows = standings(["w"], [bust("x", 1_000, 2, hand=7), bust("y", 900, 1, hand=3)], None,
                     [300, 200, 100], "none", 3, clubs={"w": "Asse"},
                     out_at={"x": 1_740_855_845.4, "y": 1_740_855_000.0})
    text = standings_csv(rows, "EUR", exported=1_740_859_200.0)
    assert text.splitlines() == [
        "place,last,player,club,shared_with,prize,currency,points,out_at,out_table,out_hand,"
        "out_hand_id,out_stack,exported_at",
        "1,1,w,Asse,,300,EUR,0.00,,,,,,2025-03-01T20:00:00Z",
        "2,2,x,,,200,EUR,0.00,2025-03-01T19:04:05Z,1,7,1:7:7000,1000,2025-03-01T20:00:00Z",
        "3,3,y,,,100,EUR,0.00,2025-03-01T18:50:00Z,1,3,1:3:3000,900,2025-03-01T20:00:00Z"]
    document = json.loads(standings_json(rows, name="t", entries=3, players=3, prize_pool=600,
                                         currency="EUR", exported=1_740_859_200.0))
    assert document["exported_at"] == "2025-03-01T20:00:00Z"
    x = document["standings"][1]
    assert (x["out_at"], x["out_table"], x["out_hand"], x["out_hand_id"], x["out_stack"]) == (
        "2025-03-01T19:04:05Z", "1", 7, "1:7:7000", 1_000)
    assert document["standings"][0]["out_at"] is None


def test_the_shipped_structures_carry_an_entry_and_a_payout_table() -> None:
    from controller.room.clock.structure import load_structure
    from tests.room.conftest import TURBO

    assert TURBO.entry.start_stack(9) and TURBO.prizes is not None
    assert isinstance(TURBO, Structure)
    deep = load_structure(__import__("pathlib").Path(__file__).resolve().parents[3] /
                          "deploy" / "structures" / "pvb-deep.toml")
    assert deep.entry.start_stack(10) == 30_000 and deep.entry.start_stack(9) == 35_000


def test_pvb_64b_hands_at_different_tables_place_in_the_order_they_began() -> None:
    """Pia's hand at table 1 began first and ended last; Mo's at table 2 began later and ended
    first, so the service heard Mo first. Live and offline (`tournament standings`, which has
    only the records' starts) place them alike: by when the hands began, Pia lower."""
    pia = Bust(player="Pia", table="1", hand=40, started=1_000.0, stack=900, seq=2)
    mo = Bust(player="Mo", table="2", hand=31, started=1_002.0, stack=5_000, seq=1)
    assert [(p.player, p.place) for p in placings(12, [mo, pia])] == [("Mo", 13), ("Pia", 14)]
    # Without the hands' starts (a ledger from before they were kept): the order heard
    old = [b.model_copy(update={"started": None}) for b in (mo, pia)]
    assert [(p.player, p.place) for p in placings(12, old)] == [("Pia", 13), ("Mo", 14)]
