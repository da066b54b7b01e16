"""`pokertable cash`: the cash floor's service (``--config cash.toml``; ``--check`` validates
the configuration and says what the floor would run with). Everything it runs is imported in the
command, so that building the parser (`pokertable --help`) imports nothing of the room."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from controller.room.cash.config import CashConfig


def summary(config: CashConfig) -> str:
    """What `--check` prints: what the cash floor would run with, in one paragraph."""
    from controller.room.cash.waiting import minutes

    settings = config.settings()
    tables = ", ".join(f"{t.table} ({t.seats})" for t in settings.tables)
    order = ("in the order they came" if settings.must_move_order == "list"
             else "in an order drawn")
    return (f"cash floor of venue {config.mqtt.venue}: games {', '.join(settings.games)} "
            f"(a waiting list each); tables {tables}; a called player has "
            f"{minutes(settings.call_seconds)} to sit down; a new must-move table's players "
            f"{order} (must_move_order {settings.must_move_order}); journal {config.cash.db}")


def _cash(args: argparse.Namespace) -> int:
    """``--config cash.toml``: the service until SIGTERM or Ctrl-C; with ``--check``: the
    configuration checked, and what the cash floor would run with."""
    from controller.room.cash.config import load_cash_config

    config = load_cash_config(args.config)
    settings = config.settings()  # a mistake: one line naming the file and the field
    if args.check:
        sys.stdout.write(summary(config) + "\n")
        return 0
    from controller.cli.common import _log_to_stderr, _serve, _stop_on_signals
    from controller.mqtt.client import load_login
    from controller.room.cash.service import SERVICE, CashService
    from controller.room.cash.store import CashStore

    _log_to_stderr()
    login = load_login(config.mqtt.credentials, SERVICE)
    stop = _stop_on_signals()
    store = CashStore(config.cash.db)
    try:
        service = CashService(config.mqtt, login, settings, store).start()
    except BaseException:
        store.close()
        raise
    try:
        _serve(stop, service.loops())
    finally:
        service.close()
        store.close()
    return 0


def add_cash_commands(sub: Any) -> None:
    cash = sub.add_parser(
        "cash", help="the cash floor: waiting lists per game and limit, must-move tables, "
        "table changes, the players seated at the tables (the service)")
    cash.add_argument("--config", required=True, metavar="cash.toml",
                      help="run the service (deploy/cash.example.toml)")
    cash.add_argument("--check", action="store_true",
                      help="check the configuration, print what the cash floor would run "
                      "with, and exit")
    cash.set_defaults(run=_cash)


__all__ = ["add_cash_commands", "summary"]
