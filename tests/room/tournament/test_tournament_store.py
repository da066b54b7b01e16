"""The tournament's journal: the ledger comes back as it was saved, with the commands (who did
what, for the audit) and the durable table messages it took; another store's file is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.errors import ConfigError
from controller.room.clock.store import ClockStore
from controller.room.tournament.ledger import Ledger, Player
from controller.room.tournament.store import TournamentStore


def test_the_ledger_the_commands_and_the_messages_heard_come_back(tmp_path: Path) -> None:
    store = TournamentStore(tmp_path / "tournament.db")
    assert store.ledger() is None
    ledger = Ledger(players={"ana": Player(name="ana", club="Asse")}, entries=1)
    store.save(ledger, ("c-1", "register", {"name": "ana"}, "floor:anna", 5.0, "ana registered"))
    store.save(ledger, heard=("1:3:9:4.0", "elimination", 6.0))
    store.close()
    again = TournamentStore(tmp_path / "tournament.db")
    assert again.ledger() == ledger
    assert again.said("c-1") == ("register", "ana registered") and again.said("c-2") is None
    assert again.heard("1:3:9:4.0") and not again.heard("1:3:9:5.0")
    assert [(c["name"], c["by"], c["args"]) for c in again.commands()] == [
        ("register", "floor:anna", {"name": "ana"})]
    assert (tmp_path / "tournament.db").stat().st_mode & 0o077 == 0
    assert Path(f"{tmp_path / 'tournament.db'}.lock").exists()  # one service per store
    again.close()


def test_a_clock_store_is_not_taken_for_a_tournament_store(tmp_path: Path) -> None:
    ClockStore(tmp_path / "clock.db").close()
    with pytest.raises(ConfigError, match="clock store"):
        TournamentStore(tmp_path / "clock.db")
