"""More tables later on a host whose tournament.toml (and cash.toml) the venue edited: the
install keeps the venue's file and adds the new tables to its `tables` alone, every other edit
kept (comments, layout, other settings); where it cannot do that safely, or a table the venue
may have left out on purpose is missing, the install's line about the file says what to add."""

from __future__ import annotations

from pathlib import Path

from controller.room.cash.config import load_cash_config
from controller.room.tournament.config import load_tournament_config
from tests.install.install_helpers import HOST_ARGS, install, listing

TOURNAMENT = "etc/pokertable/tournament/tournament.toml"
CASH = "etc/pokertable/cash/cash.toml"


def tables(n: int) -> list[str]:
    """HOST_ARGS with ``--tables n``."""
    return [*HOST_ARGS[:2], "--tables", str(n), *HOST_ARGS[4:]]


def installed(tree: Path, *args: str) -> str:
    done = install("host", *args, "--root", str(tree))
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_more_tables_later_are_added_to_an_edited_tournament_and_cash_floor(
        tmp_path: Path) -> None:
    tree = tmp_path / "root"
    installed(tree, *tables(2), "--cash")
    tournament, cash = tree / TOURNAMENT, tree / CASH
    edited = tournament.read_text().replace(
        'name = "Tournament"', '# Sundays from 6 pm\nname = "Sunday Deepstack"')
    tournament.write_text(edited)
    cash_edited = cash.read_text().replace('games = ["NLH 2/5"]', 'games = ["PLO 1/2"]')
    cash.write_text(cash_edited)

    grown = installed(tree, *tables(4))
    assert "changed: broker: added table-3, table-4" in grown
    assert (f'changed: /{TOURNAMENT}: added "3", "4" to its tables (edited here: that value '
            "alone changed, every other edit kept)") in grown
    assert f'changed: /{CASH}: added "3", "4" to its tables' in grown
    assert f"kept: /{TOURNAMENT} (edited here: every other edit kept as it is)" in grown
    # The tables' line alone changed: every other line is the venue's, byte for byte.
    assert tournament.read_text() == edited.replace('tables = ["1", "2"]',
                                                    'tables = ["1", "2", "3", "4"]')
    assert cash.read_text() == cash_edited.replace('tables = ["1", "2"]',
                                                   'tables = ["1", "2", "3", "4"]')
    config = load_tournament_config(tournament)
    assert config.tournament.name == "Sunday Deepstack"
    assert [t.table for t in config.settings().tables] == ["1", "2", "3", "4"]
    assert load_cash_config(cash).cash.games == ["PLO 1/2"]
    assert "does not list" not in grown

    # Still the venue's file: the next install keeps it (not the installer's own text again).
    seen = listing(tree)
    again = installed(tree, *tables(4))
    assert "changed:" not in again.replace("nothing changed:", ""), again
    assert f"kept: /{TOURNAMENT} (edited here: kept as it is; the install would now write " \
        "it otherwise)" in again
    assert listing(tree) == seen


def test_tables_the_install_cannot_add_safely_are_named(tmp_path: Path) -> None:
    tree = tmp_path / "root"
    installed(tree, *tables(2))
    tournament = tree / TOURNAMENT
    # One table a line, a comment after the last: not a line the install rewrites.
    edited = tournament.read_text().replace(
        'name = "Tournament"', 'name = "Sunday Deepstack"').replace(
        'tables = ["1", "2"]', 'tables = [\n    "1",\n    "2"  # by the bar ]\n]')
    tournament.write_text(edited)

    grown = installed(tree, *tables(3))
    assert "changed: broker: added table-3" in grown
    assert tournament.read_text() == edited
    line = next(x for x in grown.splitlines() if x.startswith(f"kept: /{TOURNAMENT}"))
    assert "not written in a way the install can change safely" in line
    assert ('does not list table 3 of this host\'s: to play it there, add "3" to [tournament] '
            f"tables in /{TOURNAMENT}, then sudo systemctl restart pokertable-tournament") in line


def test_a_table_left_out_on_purpose_stays_out_and_is_named(tmp_path: Path) -> None:
    """Only the tables new to the host are added: one the venue took out of its tournament
    stays out (the install names it, as it may be missing by mistake too)."""
    tree = tmp_path / "root"
    installed(tree, *tables(2))
    tournament = tree / TOURNAMENT
    tournament.write_text(tournament.read_text().replace('tables = ["1", "2"]',
                                                         'tables = ["1"]  # 2 is the final\'s'))
    grown = installed(tree, *tables(3))
    assert 'tables = ["1", "3"]  # 2 is the final\'s' in tournament.read_text()
    assert f'changed: /{TOURNAMENT}: added "3" to its tables' in grown
    assert (f"kept: /{TOURNAMENT} (edited here: every other edit kept as it is; it does not "
            'list table 2 of this host\'s: to play it there, add "2" to [tournament] tables in '
            f"/{TOURNAMENT}, then sudo systemctl restart pokertable-tournament)") in grown
