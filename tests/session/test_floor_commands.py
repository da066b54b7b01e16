"""The floor's commands to a table are dispatched from one registry the type checker follows:
every command the table accepts (and the floor page offers) has its handler."""

from __future__ import annotations

from controller.session import SessionConfig, TableSession
from controller.session.model import FLOOR_COMMANDS


def test_every_floor_command_the_table_accepts_has_its_handler() -> None:
    session = TableSession(SessionConfig(table_id="1"))
    assert set(session._floor_handlers()) == FLOOR_COMMANDS
