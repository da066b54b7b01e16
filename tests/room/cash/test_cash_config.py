"""`cash.toml` (controller/room/cash/config.py): the room's games and tables, how long a call
lasts, the must-move order's setting; unknown keys and impossible settings refused naming the
file; a ledger kept under older settings gains the tables and games added since."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.errors import ConfigError
from controller.room.cash.config import load_cash_config
from controller.room.cash.core import CashCore
from controller.room.cash.ledger import CashSettings, Ledger, Refused, TableSpec

TEXT = """
[cash]
games = ["NLH 2/5", "PLO 5/5"]
tables = ["1", "2", {table = "3", seats = 6}]
call_minutes = 5
must_move_order = "draw"

[mqtt]
venue = "hall"
credentials = "credentials.json"
"""


def test_a_cash_toml_gives_the_settings(tmp_path: Path) -> None:
    path = tmp_path / "cash.toml"
    path.write_text(TEXT)
    config = load_cash_config(path)
    settings = config.settings()
    assert settings.games == ["NLH 2/5", "PLO 5/5"]
    assert [(t.table, t.seats) for t in settings.tables] == [("1", 9), ("2", 9), ("3", 6)]
    assert (settings.call_seconds, settings.must_move_order) == (300, "draw")
    assert config.cash.db == tmp_path / "cash.db"
    assert config.mqtt.credentials == tmp_path / "credentials.json"


@pytest.mark.parametrize(("change", "said"), [
    (("call_minutes = 5", "call_minuts = 5"), "cash.call_minuts: unknown key (misspelt?)"),
    (('"PLO 5/5"]', '"nlh 2/5"]'), "games: 'nlh 2/5' is listed twice"),
    (('"draw"', '"random"'), "cash.must_move_order"),
])
def test_a_mistake_in_cash_toml_is_one_line_naming_the_file(
        tmp_path: Path, change: tuple[str, str], said: str) -> None:
    path = tmp_path / "cash.toml"
    path.write_text(TEXT.replace(*change))
    with pytest.raises(ConfigError, match=str(path)) as caught:
        load_cash_config(path).settings()
    assert said in str(caught.value)


def test_a_ledger_kept_under_older_settings_gains_what_was_added() -> None:
    old = CashSettings(games=["NLH 2/5"], tables=[TableSpec(table="1")])
    core = CashCore(old)
    core.command("open_table", {"table": "1", "game": "NLH 2/5"}, "floor", 1.0)
    core.command("sign_up", {"game": "NLH 2/5", "name": "Anna"}, "floor", 2.0)
    kept = Ledger.model_validate_json(core.ledger.model_dump_json())
    new = CashSettings(games=["NLH 2/5", "PLO 5/5"],
                       tables=[TableSpec(table="1"), TableSpec(table="2", seats=6)])
    again = CashCore(new, kept)
    assert [(t.table, t.seats, t.game) for t in again.ledger.tables] == [
        ("1", 9, "NLH 2/5"), ("2", 6, None)]
    assert {g: [e.name for e in entries] for g, entries in again.ledger.lists.items()} == {
        "NLH 2/5": ["Anna"], "PLO 5/5": []}


def test_a_game_or_table_taken_out_of_cash_toml_takes_nobody_new_and_goes_once_empty() -> None:
    """Taken out of cash.toml, a game kept taking sign-ups and a table kept opening, unsaid.
    What is in use stays (its players are real), takes nobody new, and is named at the start;
    once empty it goes at the next start."""
    old = CashSettings(games=["NLH 2/5", "PLO 5/5"],
                       tables=[TableSpec(table="1"), TableSpec(table="2"), TableSpec(table="3")])
    core = CashCore(old)
    core.command("open_table", {"table": "2", "game": "PLO 5/5"}, "floor", 1.0)
    core.command("seat", {"table": "2", "name": "Pia"}, "floor", 2.0)
    core.command("sign_up", {"game": "PLO 5/5", "name": "Vera"}, "floor", 3.0)
    kept = core.ledger.model_dump_json()
    new = CashSettings(games=["NLH 2/5"], tables=[TableSpec(table="1")])
    again = CashCore(new, Ledger.model_validate_json(kept))
    assert [t.table for t in again.ledger.tables] == ["1", "2"]  # table 3: closed, unused
    assert again.ledger.retired(new) == ["game 'PLO 5/5' (1 on its list and table 2 deals it)",
                                         "table '2' (open with PLO 5/5, 1 seated)"]
    with pytest.raises(Refused, match=r"PLO 5/5 is no longer in cash\.toml's games"):
        again.command("sign_up", {"game": "PLO 5/5", "name": "Late"}, "floor", 4.0)
    with pytest.raises(Refused, match="there is no table '3' in the room"):  # gone
        again.command("open_table", {"table": "3", "game": "NLH 2/5"}, "floor", 4.0)
    # Its players go on as before: Vera is called and seated, then all leave and it closes
    again.command("call", {"game": "PLO 5/5", "table": "2"}, "floor", 5.0)
    again.command("seat", {"table": "2", "name": "Vera"}, "floor", 6.0)
    for name in ("Pia", "Vera"):
        again.command("leave", {"table": "2", "name": name}, "floor", 7.0)
    again.command("close_table", {"table": "2"}, "floor", 8.0)
    last = CashCore(new, Ledger.model_validate_json(again.ledger.model_dump_json()))
    assert [t.table for t in last.ledger.tables] == ["1"] and list(last.ledger.lists) == [
        "NLH 2/5"]
    assert last.ledger.retired(new) == []
