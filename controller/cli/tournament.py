"""`pokertable tournament`: the service (``--config tournament.toml``, ``--check``) and the
same rules offline, reading files and printing JSON lines (`balance`, `standings`, `payouts`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from controller.cli.common import _int_in, _Parser, _renamed


def _offline(lines: list[dict[str, Any]]) -> int:
    from controller.room.tournament.offline import dumps

    for line in lines:
        sys.stdout.write(dumps(line) + "\n")
    return 0


def _balance(args: argparse.Namespace) -> int:
    from controller.room.tournament.offline import balance_lines

    return _offline(balance_lines(Path(args.seating), args.balancing, args.seed))


def _standings(args: argparse.Namespace) -> int:
    from controller.room.tournament.offline import read_records, standings_lines

    records = read_records([Path(p) for p in args.records])
    return _offline(standings_lines(args.entries, records))


def _payouts(args: argparse.Namespace) -> int:
    from controller.room.clock.structure import load_structure
    from controller.room.tournament.offline import payout_lines

    return _offline(payout_lines(load_structure(args.structure), args.entries))


def _tournament(args: argparse.Namespace) -> int:
    """``--config tournament.toml``: the service until SIGTERM or Ctrl-C; with ``--check``:
    the configuration and its structure checked, and what the tournament would run with."""
    from controller.errors import ConfigError

    if args.config is None:
        raise ConfigError("give --config tournament.toml, or one of: balance, standings, "
                          "payouts")
    from controller.room.tournament.config import load_tournament_config

    config = load_tournament_config(args.config)
    settings = config.settings()
    if args.check:
        sys.stdout.write(config.summary() + "\n")
        return 0
    from controller.cli.common import _log_to_stderr, _serve, _stop_on_signals
    from controller.mqtt.client import load_login
    from controller.room.tournament.service import TournamentService
    from controller.room.tournament.store import TournamentStore

    _log_to_stderr()
    login = load_login(config.mqtt.credentials, "tournament")
    stop = _stop_on_signals()
    store = TournamentStore(config.tournament.db)
    service = TournamentService(config.mqtt, login, settings, store,
                                export=config.tournament.export).start()
    try:
        _serve(stop, service.loops())
    finally:
        service.close()
        store.close()
    return 0


def add_tournament_commands(sub: Any) -> None:
    from controller.room.tournament.balance_profiles import PROFILES

    tournament = sub.add_parser(
        "tournament", help="the tournament: registration, the draw, places, balancing, payouts "
        "(the service); balance, standings and payouts offline")
    tournament.add_argument("--config", metavar="tournament.toml",
                            help="run the service (deploy/tournament.example.toml)")
    tournament.add_argument("--check", action="store_true",
                            help="with --config: check the configuration and its structure, "
                            "print what the tournament would run with, and exit")
    tournament.set_defaults(run=_tournament)
    offline = tournament.add_subparsers(dest="what", required=False, parser_class=_Parser)

    balance = offline.add_parser(
        "balance", help="the breaks, moves and holds for tables as they sit (JSON lines)")
    balance.add_argument("--seating", required=True, metavar="FILE",
                         help='{"seats": 9, "break_order": [...], "tables": [{"table": "1", '
                         '"button": 4, "big_blind": 6, "players": {"1": "p01"}}]}')
    balance.add_argument("--balancing", "--profile", choices=PROFILES, default="pvb-2020",
                         action=_renamed("--profile"),
                         help="how a player moves, as tournament.toml's balancing: pvb-2020 to "
                         "the same position (PVB 09(1)), apsa-2010 to the next big blind (APSA "
                         "3.1.2.4)")
    balance.add_argument("--seed", type=int, default=0,
                         help="the draw of a broken table's players to their seats")
    balance.set_defaults(run=_balance)

    standings = offline.add_parser(
        "standings", help="the places hand records give (JSON lines, last place first)")
    standings.add_argument("--entries", type=_int_in(1), required=True,
                           help="the players who took part")
    standings.add_argument("records", nargs="+", metavar="RECORDS",
                           help="hand records, one JSON object a line (records.jsonl)")
    standings.set_defaults(run=_standings)

    payouts = offline.add_parser("payouts", help="what each place pays for N entries")
    payouts.add_argument("--structure", required=True, metavar="FILE",
                         help="the tournament structure with its [entry] and [prizes]")
    payouts.add_argument("--entries", type=_int_in(1), required=True,
                         help="entries, re-entries counted")
    payouts.set_defaults(run=_payouts)


__all__ = ["add_tournament_commands"]
