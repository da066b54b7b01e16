"""CG "Table Stake": "Beendet ein Spielteilnehmer mit einem Table Stake über dem Minimum Buy-in
des Tisches sein Spiel, kann er mit einem kleineren Table Stake im selben Limit an diesem
Spieltag nicht weiterspielen." The cash floor's ledger keeps who ended play above a game's
minimum buy-in and with what, for the playing day; a sit-down with less that day is refused in
the floor's words, and the floor is told (controller/room/cash/ledger.py)."""

from __future__ import annotations

import pytest

from controller.room.cash.core import replay
from controller.room.cash.ledger import STAKE, CashSettings, Refused, playing_day
from tests.room.cash.helpers import NLH, PLO, Floor, room_settings

DAY = 86_400
SIX = 6 * 3_600  # the playing day begins at 06:00 (UTC): the settings' day_starts


def settings() -> CashSettings:
    return room_settings().model_copy(update={"minimum_buy_ins": {NLH: 200, PLO: 500}})


def floor_at(hour: float) -> Floor:
    """A floor on day 20,000 (since the epoch) at ``hour`` o'clock, NLH on table 1."""
    floor = Floor(settings(), start=20_000 * DAY + hour * 3_600)
    floor.table_of("1", NLH, ["Anna", "Ben"])
    floor.do("open_table", table="2", game=PLO)
    return floor


def test_cg_table_stake_above_the_minimum_not_back_today_with_less() -> None:
    floor = floor_at(20)
    said = floor.do("leave", table="1", name="Anna", stack=900)
    assert ("Anna ends play at NLH 2/5 with 900, above the minimum buy-in of 200: today he "
            "plays NLH 2/5 again only with 900 or more") in said
    assert floor.core.ledger.recent[-1].rule == STAKE
    refused = floor.refused("seat", table="1", name="anna", stack=400)
    assert (refused.reason, refused.rule) == (
        "Anna ended play at NLH 2/5 today with 900: he cannot come back today with less (400)",
        STAKE)
    assert floor.seated("1") == ["Ben"]
    floor.do("seat", table="1", name="Anna", stack=900)  # with as much: he plays on
    assert floor.seated("1") == ["Ben", "Anna"]


def test_cg_table_stake_the_floor_is_told_when_the_dealer_takes_the_buy_in() -> None:
    floor = floor_at(20)
    floor.do("leave", table="1", name="Anna", stack=900)
    said = floor.do("seat", table="1", name="Anna")  # no stack: the dealer seats him
    assert "Anna ended play at NLH 2/5 today with 900: he sits down with 900 or more" in said


def test_cg_table_stake_at_or_below_the_minimum_nothing_binds_him() -> None:
    floor = floor_at(20)
    assert "ends play" not in floor.do("leave", table="1", name="Anna", stack=200)
    floor.do("seat", table="1", name="Anna", stack=200)
    assert floor.seated("1") == ["Ben", "Anna"]
    assert floor.core.ledger.departures == []


def test_cg_table_stake_only_the_same_limit_and_the_same_day() -> None:
    floor = floor_at(20)
    floor.do("leave", table="1", name="Anna", stack=900)
    floor.do("seat", table="2", name="Anna", stack=500)  # another limit: PLO's minimum
    assert floor.seated("2") == ["Anna"]
    floor.do("leave", table="2", name="Anna")
    # Past midnight it is the same playing day (it began at 06:00) ...
    floor.now = 20_001 * DAY + 3 * 3_600
    floor.refused("seat", table="1", name="Anna", stack=300)
    # ... from 06:00 a new one: he buys in as anyone does.
    floor.now = 20_001 * DAY + SIX
    floor.do("seat", table="1", name="Anna", stack=300)
    assert floor.seated("1") == ["Ben", "Anna"]


def test_cg_table_stake_his_last_departure_counts() -> None:
    floor = floor_at(12)
    floor.do("leave", table="1", name="Anna", stack=900)
    floor.do("seat", table="1", name="Anna", stack=1_000)
    floor.do("leave", table="1", name="Anna", stack=600)  # lost some, left again
    floor.do("seat", table="1", name="Anna", stack=600)
    assert [(d.name, d.stake) for d in floor.core.ledger.departures] == [("Anna", 600)]


def test_a_game_without_a_minimum_buy_in_keeps_no_departures() -> None:
    floor = Floor(room_settings(), start=20_000 * DAY)
    floor.table_of("1", NLH, ["Anna"])
    floor.do("leave", table="1", name="Anna", stack=5_000)
    assert floor.core.ledger.departures == []


def test_the_departures_survive_the_journal_replayed() -> None:
    """The ledger is a function of the commands: a replay keeps the day's departures."""
    floor = floor_at(20)
    floor.do("leave", table="1", name="Anna", stack=900)
    again = replay(floor.settings, floor.journal)
    assert again.ledger.departures == floor.core.ledger.departures != []
    with pytest.raises(Refused):
        again.command("seat", {"table": "1", "name": "Anna", "stack": 300}, "floor:test",
                      floor.now + 1)


@pytest.mark.parametrize("bad", [{"PLO 10/20": 100}, {NLH: 0}])
def test_minimum_buy_ins_name_the_rooms_games(bad: dict[str, int]) -> None:
    with pytest.raises(ValueError):
        room_settings().model_validate({**room_settings().model_dump(), "minimum_buy_ins": bad})


def test_the_playing_day_begins_at_the_settings_hour() -> None:
    s = settings()
    assert playing_day(s, 20_000 * DAY + SIX) == 20_000
    assert playing_day(s, 20_000 * DAY + SIX - 1) == 19_999
