"""The chips the tournament issues after the entry and takes out of play, with real table
sessions in memory (tests/room/tournament/tournament_room.py):
add-ons and rebuys where the structure
offers them (PVB 20(1): not in the PVB's own tournaments), reaching the player's stack between
hands and the prize pool at once; the colour-ups of the breaks made at every table, with the
chip race (APSA 2.1.18) or the chip-up (PVB 15b(1)) (RULES T5). The room's chip count stays
silent across them done right, and a chip lost in the race is one alert naming the table and
the hand."""

from __future__ import annotations

from typing import Any

import pytest

from controller.room.tournament.chip_count import ChipCount, PendingColourUp
from controller.room.tournament.draw import Refused
from tests.room.tournament import tournament_helpers as hands
from tests.room.tournament.tournament_room import BREAKS, SimRoom, settings


def first(options: list[Any], k: int) -> list[Any]:
    return options[:k]


def room_of(players: int = 8, **kw: Any) -> SimRoom:
    """Two tables of four, the clock running level 1, one hand at each (the blinds leave 50s
    in two stacks a table: 4,950 and 5,050)."""
    room = SimRoom(settings(tables=2, seats=4, structure=BREAKS, **kw))
    for k in range(players):
        room.command("register", name=f"p{k}")
    room.command("draw", seed=5)
    room.clock(level=1, status="running")
    room.fold("1")
    room.fold("2")
    return room


def chips(room: SimRoom) -> tuple[int, int]:
    state = room.core.state().chips
    assert state is not None
    return state.in_play, state.difference


def test_rules_t5_apsa_2_1_18_a_colour_up_done_right_is_silent() -> None:
    room = room_of()
    issued = room.core.ledger.chips.issued
    assert issued == 40_000 and chips(room) == (40_000, 0)
    room.on_break(1)
    for table in ("1", "2"):
        up = room.state(table).colour_up
        assert up is not None and up.ref == "colour-up:1" and up.unit == 100
        assert sorted(r.keeps for r in up.race.values()) == [4_900, 5_000]  # 4,950 and 5,050
        assert up.race_chips == 1  # 50 + 50: one chip of 100
    due = room.core.state().colour_up
    assert due is not None and due.tables == {"1": "racing", "2": "racing"}
    # The race's chips are not handed out yet: the count says so, and alerts nobody
    assert chips(room) == (40_000, -200) and room.core.ledger.alerts == []
    for table in ("1", "2"):
        room.race_right(table, first)
    assert chips(room) == (40_000, 0) and room.chips_at_tables() == 40_000
    # The break ends; each table's next hand ends its colour-up, silently
    room.play_level(2)
    room.fold("1")
    room.fold("2")
    state = room.core.state()
    assert state.colour_up is not None and state.colour_up.tables == {"1": "done", "2": "done"}
    assert chips(room) == (40_000, 0) and room.core.ledger.alerts == []
    assert all(v.stack % 100 == 0 for t in room.tables for v in room.state(t).seats.values())


def test_pvb_15b_1_chip_up_brings_chips_into_play_and_the_count_follows() -> None:
    room = room_of(colour_up="chip-up")
    room.on_break(1)
    # Each leftover 50 becomes one chip of 100: 4,950 -> 5,000, 5,050 -> 5,100 at each table
    assert chips(room) == (40_200, 0) and room.chips_at_tables() == 40_200
    assert room.core.ledger.chips.coloured_up == -200
    room.play_level(2)
    room.fold("1")
    assert chips(room) == (40_200, 0) and room.core.ledger.alerts == []


def test_rules_t5_a_chip_lost_in_the_race_is_one_alert_naming_the_table_and_hand() -> None:
    room = room_of()
    room.on_break(1)
    room.race("1", winners=[])  # the dealer hands out no chip: one is lost
    room.race_right("2", first)
    assert room.core.ledger.alerts == []  # the race may still be running during the break
    assert chips(room) == (40_000, -100)
    room.play_level(2)
    room.fold("1")
    (alert,) = room.core.ledger.alerts
    hand = room.state("1").hand
    assert alert.rule == "RULES T5" and (alert.table, alert.hand) == ("1", hand)
    assert alert.text == (f"table 1, hand {hand}: the stacks add up to 19,900, 100 chips fewer "
                          "than the table should hold after the colour-up at the break after "
                          "level 1 (20,000); count the table")
    room.fold("1")
    room.fold("2")
    assert len(room.core.ledger.alerts) == 1  # said once
    assert chips(room) == (40_000, -100)  # the room still lacks it


def test_rules_t5_no_player_moves_while_the_tables_colour_up() -> None:
    """A player carries his chips to his new seat: the balancing move the break's eliminations
    call for waits until the break is over."""
    room = room_of()
    assert room.shuffle("1")  # table 1 is in a hand when the break begins
    room.on_break(1)
    state = room.state("1")
    dealt = sorted(s for s, v in state.seats.items() if v.in_hand)
    winner = max(dealt, key=lambda s: (state.seats[s].stack + state.seats[s].bet, s))
    losers = [s for s in dealt if s != winner][:2]
    hands.bust(room.feeder("1"), room.state_of("1"), winner, losers)
    room.settle()
    assert room.counts() == {"1": 2, "2": 4}
    assert not any(m.reason == "balance" for m in room.core.ledger.moves)
    for table in ("1", "2"):
        assert room.state(table).colour_up is not None
        room.race_right(table, first)
    assert not any(m.reason == "balance" for m in room.core.ledger.moves)
    room.play_level(2)
    assert room.counts() == {"1": 3, "2": 3}
    assert chips(room)[1] == 0 and room.core.ledger.alerts == []


def test_an_add_on_at_the_break_that_ends_late_registration() -> None:
    room = room_of()
    with pytest.raises(Refused, match="the add-on is taken at the break after level 2; the "
                       "clock is at level 1"):
        room.command("add_on", player="p0")
    room.on_break(1)
    for table in ("1", "2"):
        room.race_right(table, first)
    room.play_level(2)
    room.fold("1")
    room.fold("2")
    room.on_break(2)  # the 100s colour up; the add-on is taken
    for table in ("1", "2"):
        room.race_right(table, first)
    assert room.core.state().add_on_open
    table, seat = room.seat_of("p0")
    before = room.state(table).seats[seat].stack
    in_play = chips(room)[0]
    said = room.command("add_on", player="p0")
    assert said == (f"p0 takes the add-on: 5,000 chips to their stack at table {table}, seat "
                    f"{seat}, between hands; 10 EUR to the prize pool (RULES T6)")
    assert room.state(table).seats[seat].stack == before + 5_000
    state = room.core.state()
    assert chips(room) == (in_play + 5_000, 0) and room.core.ledger.alerts == []
    assert state.prize_pool == 8 * 20 + 10  # the payouts count it; the bracket counts entries
    assert [(p.place, p.amount) for p in state.payouts] == [(1, 115), (2, 55)]
    assert [(p.player, p.status, p.table) for p in state.purchases] == [("p0", "given", table)]
    with pytest.raises(Refused, match="p0 has taken their add-on"):
        room.command("add_on", player="p0")
    # Sold and the service killed before it asked the table: the chips reach it once
    room.core.command("add_on", {"player": "p1"}, "floor:test", room.now)
    room.restart()
    room.settle()
    room.restart()
    room.settle()
    table1, _ = room.seat_of("p1")
    assert room.state(table1).stack_refs.count("add_on:2") == 1
    assert chips(room) == (in_play + 10_000, 0)
    room.play_level(3)
    with pytest.raises(Refused, match="the add-on is taken at the break after level 2, which "
                       "is over"):
        room.command("add_on", player="p2")
    room.fold("1")
    room.fold("2")
    assert chips(room)[1] == 0 and room.core.ledger.alerts == []


def test_pvb_20_1_no_add_on_or_rebuy_unless_the_structure_offers_one() -> None:
    room = SimRoom(settings(tables=1, seats=4))
    for k in range(3):
        room.command("register", name=f"p{k}")
    room.command("draw", seed=1)
    for command in ("add_on", "rebuy"):
        with pytest.raises(Refused, match="offers no") as refused:
            room.command(command, player="p0")
        assert refused.value.rule == "PVB 20(1)"


def test_a_rebuy_for_a_short_stack_until_the_end_of_its_level() -> None:
    room = room_of()
    short = next(v.player for v in room.state("1").seats.values() if v.stack == 4_950)
    said = room.command("rebuy", player=short)
    assert f"{short} takes the rebuy: 5,000 chips" in said
    assert room.state("1").seats[room.seat_of(short)[1]].stack == 9_950
    with pytest.raises(Refused, match=f"{short} has 9,950 chips: a rebuy while the stack is "
                       "at most 5,000"):
        room.command("rebuy", player=short)
    assert chips(room) == (45_000, 0) and room.core.state().prize_pool == 8 * 20 + 20
    with pytest.raises(Refused, match="p9 is not registered"):
        room.command("rebuy", player="p9")
    other = next(v.player for v in room.state("2").seats.values() if v.stack == 4_950)
    room.clock(level=3, status="running")
    with pytest.raises(Refused, match="rebuys closed at the end of level 2"):
        room.command("rebuy", player=other)


def test_the_state_names_who_may_rebuy_as_the_rebuy_command_judges_it() -> None:
    """The page's Rebuy button follows ``can_rebuy``: the players the command would sell a
    rebuy to (RULES T6): under the stack limit, below the structure's at_most, in the
    period; nobody before the draw."""
    room = room_of()
    state = room.core.state()
    stacks = {v.player: v.stack for t in ("1", "2") for v in room.state(t).seats.values()}
    assert state.rebuy_open
    assert state.can_rebuy == sorted(n for n, stack in stacks.items() if stack <= 5_000)
    short = state.can_rebuy[0]
    room.command("rebuy", player=short)  # 4,950 + 5,000 on its way: above the limit
    assert short not in room.core.state().can_rebuy
    # The structure's at_most: with the limit out of the way, two rebuys and no more
    generous = BREAKS.model_copy(update={"entry": BREAKS.entry.model_copy(update={
        "rebuy": BREAKS.entry.rebuy.model_copy(update={"below": 100_000})})})
    room = SimRoom(settings(tables=2, seats=4, structure=generous))
    for k in range(8):
        room.command("register", name=f"p{k}")
    assert room.core.state().can_rebuy == []  # before the draw
    room.command("draw", seed=5)
    room.clock(level=1, status="running")
    assert room.core.state().can_rebuy == [f"p{k}" for k in range(8)]
    room.command("rebuy", player="p3")
    assert "p3" in room.core.state().can_rebuy
    room.command("rebuy", player="p3")
    assert "p3" not in room.core.state().can_rebuy
    with pytest.raises(Refused, match="p3 has taken 2 rebuy"):
        room.command("rebuy", player="p3")
    room.clock(level=3, status="running")  # after the rebuy level: nobody
    assert room.core.state().can_rebuy == []


def test_a_rebuy_is_void_when_the_player_goes_out_before_it_reaches_him() -> None:
    room = room_of()
    assert room.shuffle("1")  # bought while his table plays a hand: it waits for the end
    state = room.state("1")
    dealt = sorted(s for s, v in state.seats.items() if v.in_hand)
    winner = max(dealt, key=lambda s: (state.seats[s].stack + state.seats[s].bet, s))
    loser = next(s for s in dealt if s != winner)
    name = state.seats[loser].player
    room.command("rebuy", player=name)
    assert room.core.state().purchases[0].status == "owed"
    assert chips(room) == (45_000, 0)  # on their way to his stack, counted with the room
    hands.bust(room.feeder("1"), room.state_of("1"), winner, [loser])
    room.settle()
    (purchase,) = room.core.state().purchases
    assert purchase.status == "void"
    (alert,) = room.core.ledger.alerts
    hand = room.state("1").hand
    assert alert.text == (f"{name} went out (table 1, hand {hand}) before the chips of their "
                          "rebuy reached the table: it is void; 20 EUR back")
    assert (alert.table, alert.hand) == ("1", hand)
    assert chips(room) == (40_000, 0) and room.core.state().prize_pool == 8 * 20
    assert "rebuy:1" not in room.state("1").stack_refs


def test_rules_t5_two_breaks_without_a_hand_between_them() -> None:
    """The second colour-up ends the first one's race at a table that dealt no hand since."""
    room = room_of(colour_up="chip-up")
    room.on_break(1)
    room.play_level(2)
    room.on_break(2)  # the 100s go: every stack to whole 500s, a chip for each leftover
    assert all(v.stack % 500 == 0 for t in room.tables for v in room.state(t).seats.values())
    in_play = chips(room)[0]
    assert in_play == room.chips_at_tables() and chips(room)[1] == 0
    room.play_level(3)
    room.fold("1")
    room.fold("2")
    assert chips(room) == (in_play, 0) and room.core.ledger.alerts == []


def test_rules_t5_the_chip_count_follows_a_race_within_its_bounds() -> None:
    """Pure: a table of 20,000 whose leftovers allow 25 to 125 chips into play (a race of two
    chips of 100 among three racers, one of whom had only leftovers)."""
    count = ChipCount(issued=20_000)
    count.arrived("1", 20_000)  # the draw seated four players with 5,000
    assert count.counted("1", 4, 20_000) is None
    count.colouring("1", PendingColourUp(ref="colour-up:1", hand=4, least=-125, most=-25,
                                         words="the colour-up"))
    assert count.counted("1", 4, 19_900) is None  # the race's chips not yet handed out
    assert count.in_play() == 20_025 and count.room_difference(0) == -125
    assert count.counted("1", 4, 20_100) is None  # one chip won, and the sure one
    assert count.in_play() == 20_100 and count.room_difference(0) == 0
    count.issue(5_000)  # an add-on during the break, at the table
    count.arrived("1", 5_000)
    assert count.counted("1", 4, 25_100) is None and count.room_difference(0) == 0
    assert count.end_colour_up("1", 5) is None  # hand 5 begins: the race is over
    assert count.tables["1"].colour_up is None and count.coloured_up == -100
    difference = count.counted("1", 5, 25_000)  # a chip gone in hand 5: all of it is said
    assert difference is not None and difference.amount == -100
    assert difference.words() == ("table 1, hand 5: the stacks add up to 25,000, 100 chips "
                                  "fewer than the table should hold (25,100); count the table")
    assert count.counted("1", 6, 25_000) is None  # said once
    # A race that lost a chip: said when the next hand begins, with the colour-up's words
    count.colouring("1", PendingColourUp(ref="colour-up:2", hand=6, least=0, most=0,
                                         words="the colour-up"))
    assert count.counted("1", 6, 24_900) is None
    late = count.end_colour_up("1", 7)
    assert late is not None and (late.hand, late.amount) == (7, -100)
    assert "100 chips fewer than the table should hold after the colour-up" in late.words()


def test_rules_t5_apsa_2_1_18_a_lone_racer_has_his_chip_and_the_count_stays_right() -> None:
    """A table left with one player at the break (no player moves during it) colours up with
    one racer: his leftover, rounded up, is one chip of the unit, and at most one a player
    makes it his (APSA 2.1.18). Nothing is raced: his stack is made at once, and the chip
    count is right without a race nobody runs (it used to show the chip as missing, -100,
    and alert when the broken table's player left with his stack short of it)."""
    room = SimRoom(settings(tables=2, seats=4, structure=BREAKS, break_order=["1", "2"]))
    for k in range(7):
        room.command("register", name=f"p{k}")
    room.command("draw", seed=1)
    room.clock(level=1, status="running")
    room.count("1")
    room.count("2")
    assert room.counts() == {"1": 3, "2": 4}
    room.fold("1")
    for _ in range(3):
        room.fold("2")
    room.knock_out(room.state("1").seats[3].player)  # table 2 gives table 1 a player
    room.count("1")
    # Three players a table; table 1's 19,950 chips (a 4,950 came in), table 2's 15,050
    assert room.counts() == {"1": 3, "2": 3}
    assert [sum(v.stack for v in room.state(t).seats.values()) for t in ("1", "2")] == [
        19_950, 15_050]
    # The break comes during table 1's hand, in which one player busts the other two
    assert room.shuffle("1")
    room.on_break(1)
    state = room.state("1")
    winner = max(state.seats, key=lambda s: state.seats[s].stack + state.seats[s].bet)
    hands.bust(room.feeder("1"), room.state_of("1"), winner,
               [s for s in state.seats if s != winner])
    room.settle()
    # Nothing raced, and the count is right: every chip is where the rules put it
    assert chips(room) == (35_100, 0) and room.chips_at_tables() == 35_100
    lone = room.state("1")
    (seat, view), = lone.seats.items()
    up = lone.colour_up
    assert up is not None and up.race_chips == 1 and list(up.race) == [seat]
    assert up.before == {seat: 19_950} and not up.contested
    assert view.stack == 20_000  # 19,900 kept and the chip his 50 rounds up to
    assert "race" not in lone.waiting_for
    # Table 2's single racer too (a 5,050 among two 5,000s): his chip at once
    (other,) = room.state("2").colour_up.race.values()
    assert (other.keeps, other.won) == (5_000, True)
    assert chips(room) == (35_100, 0) and room.chips_at_tables() == 35_100
    assert room.core.ledger.alerts == []
    # The break ends: table 1 breaks, its player takes his stack to table 2
    room.play_level(2)
    room.count("2")
    assert room.counts() == {"1": 0, "2": 4}
    room.fold("2")
    assert chips(room) == (35_100, 0) and room.core.ledger.alerts == []


def test_rules_t5_a_bust_taken_back_gives_chips_that_exist() -> None:
    """The chips the floor gives back with a bust taken back are made of the chips in play:
    of 25s at the start, of 100s once the 25s coloured up (as the table's `stack` command)."""
    room = room_of()
    victim = next(v.player for v in room.state("1").seats.values())
    room.knock_out(victim)
    with pytest.raises(Refused) as refused:
        room.command("undo_bust", player=victim, stack=5_010)
    assert refused.value.reason == ("args.stack: 5,010 cannot be made of the chips in play "
                                    "(the smallest is 25): count the stack again")
    assert refused.value.rule == "RULES T5"
    room.on_break(1)
    for table in ("1", "2"):
        room.race_right(table, first)
    room.play_level(2)
    before = room.core.ledger.model_dump_json()
    with pytest.raises(Refused, match=r"args.stack: 150 cannot be made of the chips in play "
                       r"\(the smallest is 100\)"):
        room.command("undo_bust", player=victim, stack=150)
    assert room.core.ledger.model_dump_json() == before
    said = room.command("undo_bust", player=victim, stack=4_900)
    assert "with 4,900 chips the floor gives back" in said
    assert chips(room)[1] == 0


def test_a_player_who_is_out_is_told_so_and_re_entry_only_while_it_is_open() -> None:
    room = room_of()
    victim = next(v.player for v in room.state("1").seats.values())
    room.knock_out(victim)
    with pytest.raises(Refused) as refused:
        room.command("unregister", name=victim)
    assert refused.value.reason == (f"{victim} is out: the draw was made, and a player who "
                                    "went out keeps his place in the standings; nothing to "
                                    "unregister")
    with pytest.raises(Refused, match=f"{victim} is out: chips are bought by a player still "
                       "in: a new entry is reenter"):
        room.command("rebuy", player=victim)
    room.clock(level=3, status="running")  # late registration (and re-entry) closed
    for command in ("add_on", "rebuy"):
        with pytest.raises(Refused) as refused:
            room.command(command, player=victim)
        assert refused.value.reason == (f"{victim} is out: chips are bought by a player still "
                                        "in (re-entry closed with late registration)")
    with pytest.raises(Refused) as refused:
        room.command("register", name=victim)
    assert "reenter" not in refused.value.reason
    assert refused.value.reason.startswith(f"{victim} is registered already and out;")
