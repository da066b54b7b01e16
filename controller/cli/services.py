"""The services a venue runs, each from its configuration (``--config FILE``) until SIGTERM or
Ctrl-C, and each with ``--check``: the configuration validated and what the service would run
with printed, then exit, nothing started: `table`, `recorder`, `clock` and `floor` here;
`tournament` and `cash` in their own modules. Everything a service runs is imported in its
command, so that building the parser (`pokertable --help`) imports none of it."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from controller.cli.common import (
    _broker_port,
    _int_in,
    _log_to_stderr,
    _renamed,
    _serve,
    _stop_on_signals,
)

if TYPE_CHECKING:
    from controller.mqtt.client import BrokerAddress
    from controller.room.floor.config import FloorConfig
    from controller.room.recorder.config import RecorderConfig
    from controller.table.config import TableConfig

CHECK_HELP = "check the configuration, print what the {} would run with, and exit"


def _broker(mqtt: BrokerAddress) -> str:
    return f"{mqtt.host}:{mqtt.port}{' (TLS)' if mqtt.tls else ''}"


def table_summary(config: TableConfig) -> str:
    """What `table --check` prints: what the table would run with, in one paragraph."""
    t = config.table
    readers = ", ".join(f"{r.name} ({r.protocol}, {r.reads}, {len(r.zones)} antennas)"
                        for r in config.readers) or "none (--simulate simulates them)"
    wire = (f"the broker at {_broker(config.mqtt)} as venue {config.mqtt.venue}, outbox "
            f"{config.mqtt.outbox}" if config.mqtt is not None else "no broker (on its own)")
    return (f"table {t.id}: profile {t.profile}, {t.seats} seats, blinds {t.level.sb}/"
            f"{t.level.bb}; readers {readers}; buttons "
            f"{'on GPIO' if config.buttons is not None else 'none'}; {wire}; journal "
            f"{t.journal}; output {t.output}")


def _without_password(store: str) -> str:
    """A PostgreSQL URL as it may be printed: its password left out."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(store)
    if parts.password is None:
        return store
    host = parts.hostname or ""
    netloc = f"{parts.username}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def recorder_summary(config: RecorderConfig) -> str:
    """What `recorder --check` prints."""
    r = config.recorder
    follows = ", ".join(r.follow) if r.follow else config.mqtt.venue
    role = ("the keeper: its acknowledgement lets a table drop a record" if r.keeper else
            "a copy: it acknowledges nothing")
    return (f"recorder of venue {config.mqtt.venue} on the broker at {_broker(config.mqtt)}, "
            f"login from {config.mqtt.credentials}: keeps the records of {follows} in "
            f"{_without_password(r.store)}, as {role}")


def floor_summary(config: FloorConfig) -> str:
    """What `floor --check` prints."""
    f = config.floor
    tls = f.tls_cert is not None
    follows = ", ".join(f.follow) if f.follow else config.mqtt.venue
    return (f"floor display at {'https' if tls else 'http'}://{f.listen}:{f.port} for "
            f"{follows} (broker {_broker(config.mqtt)}, venue {config.mqtt.venue}); staff "
            f"accounts {f.accounts}; alerts and decisions in {f.db}; hands kept "
            f"{f.keep_hands_days} days")


def _table(args: argparse.Namespace) -> int:
    from controller.errors import ConfigError
    from controller.table.config import load_table_config

    simulation_only = [option for option, given in (
        ("--hands", args.hands), ("--tournament", args.tournament), ("--cash", args.cash))
        if given]
    if simulation_only and not args.simulate:  # a real table deals until it is stopped
        raise ConfigError(f"{' and '.join(simulation_only)}: only with --simulate (a table on "
                          "its readers deals until it is stopped: systemctl stop, or Ctrl-C)")
    config = load_table_config(args.config)
    if args.check:  # the files the start reads, read as it reads them; nothing opened
        from controller.table.files import check_files

        try:
            check_files(config, simulate=args.simulate)
        except ConfigError as exc:
            raise ConfigError(f"{args.config}: {exc}") from None
        print(table_summary(config))
        return 0
    from controller.table.runner import run_table

    _log_to_stderr()
    try:
        return run_table(config, simulate=args.simulate, stdin_events=args.stdin_events,
                         hands=args.hands, echo=sys.stdout if args.print else None,
                         seed=args.seed, tournament=args.tournament or args.cash,
                         sim_readers=args.sim_readers)
    except ConfigError as exc:  # what the configuration asks for is not here
        raise ConfigError(f"{args.config}: {exc}") from None


def _recorder_config(args: argparse.Namespace) -> RecorderConfig:
    """`recorder --config recorder.toml`, each option overriding the file; or options alone
    (the older way: --venue, --credentials and --store then required)."""
    from pydantic import ValidationError

    from controller.errors import ConfigError, first_error
    from controller.room.recorder.config import RecorderConfig, load_recorder_config

    overrides = {"host": args.host, "port": args.port, "venue": args.venue,
                 "credentials": args.credentials, "ca": args.ca}
    if args.config is not None:
        config = load_recorder_config(args.config)
        document = config.model_dump()
    else:
        missing = [f"--{n}" for n in ("venue", "credentials", "store")
                   if getattr(args, n) is None]
        if missing:
            raise ConfigError(f"give --config recorder.toml, or {' and '.join(missing)}")
        document = {"mqtt": {}, "recorder": {}}
    document["mqtt"].update({k: v for k, v in overrides.items() if v is not None})
    if args.ca is not None:
        document["mqtt"]["tls"] = True
    if args.store is not None:
        document["recorder"].pop("db", None)
        document["recorder"]["store"] = args.store
    if args.follow:
        document["recorder"]["follow"] = args.follow
    if args.copy:
        document["recorder"]["keeper"] = False
    try:
        return RecorderConfig.model_validate(document)
    except ValidationError as exc:
        raise ConfigError(first_error(exc, "option")) from None


def _recorder(args: argparse.Namespace) -> int:
    from controller.mqtt.client import load_login
    from controller.room.recorder import Recorder, open_record_store

    config = _recorder_config(args)
    if args.check:
        print(recorder_summary(config))
        return 0
    _log_to_stderr()
    login = load_login(config.mqtt.credentials, "recorder")
    address = config.mqtt.model_copy()
    stop = _stop_on_signals()
    store = open_record_store(config.recorder.store, group_read=config.recorder.group_read)
    try:
        recorder = Recorder(address, login, store, follow=config.recorder.follow,
                            keeper=config.recorder.keeper).start()
    except BaseException:
        store.close()
        raise
    try:
        _serve(stop, recorder.loops())
    finally:
        recorder.close()
        store.close()
    return 0


def _clock(args: argparse.Namespace) -> int:
    """``--structure FILE --check`` or ``--config clock.toml --check``: the whole schedule as
    JSON lines, or the mistake; ``--config clock.toml``: the clock service, until SIGTERM or
    Ctrl-C."""

    from controller.errors import ConfigError
    from controller.room.clock.structure import load_structure, schedule

    if args.check:
        structure_file = args.structure
        if structure_file is None and args.config is not None:
            from controller.room.clock.config import load_clock_config

            structure_file = load_clock_config(args.config).clock.structure
        if structure_file is None:
            raise ConfigError("--check needs --config clock.toml (or --structure FILE)")
        for slot in schedule(load_structure(structure_file)):
            print(slot.model_dump_json(exclude_none=True))
        return 0
    if args.config is None:
        raise ConfigError("give --config clock.toml, or --structure FILE --check")
    from controller.mqtt.client import load_login
    from controller.room.clock.config import load_clock_config
    from controller.room.clock.service import ClockService
    from controller.room.clock.store import ClockStore

    _log_to_stderr()
    config = load_clock_config(args.config)
    structure = load_structure(config.clock.structure)
    login = load_login(config.mqtt.credentials, "clock")
    stop = _stop_on_signals()
    store = ClockStore(config.clock.db)
    service = ClockService(config.mqtt, login, structure, store,
                           answer_seconds=config.clock.answer_seconds).start()
    try:
        _serve(stop, service.loops())
    finally:
        service.close()
        store.close()
    return 0


def _floor(args: argparse.Namespace) -> int:
    """The floor display's web server, until SIGTERM or Ctrl-C."""
    import logging

    from controller.errors import ConfigError
    from controller.room.floor.config import load_floor_config

    config = load_floor_config(args.config)
    if args.follow:
        from pydantic import ValidationError

        from controller.errors import first_error
        from controller.room.floor.config import FloorSection

        try:
            config.floor = FloorSection.model_validate(
                {**config.floor.model_dump(), "follow": args.follow})
        except ValidationError as exc:
            raise ConfigError(first_error(exc, "option")) from None
    if args.check:
        print(floor_summary(config))
        return 0
    from controller.room.floor.server import FloorServer

    _log_to_stderr()
    try:
        server = FloorServer.from_config(config)
    except OSError as exc:  # the port is taken, the address is not this machine's
        raise ConfigError(f"{args.config}: cannot listen on {config.floor.listen}:"
                          f"{config.floor.port}: {exc.strerror}") from None
    stop = _stop_on_signals()
    server.start()  # in a thread: a signal is ours, a clean stop ends the push streams first
    logging.getLogger(__name__).info("floor: the floor display is at %s", server.url)
    try:
        _serve(stop, server.loops())
    finally:
        server.close()
    return 0


def sim_readers_option(parser: argparse.ArgumentParser, *, room: bool = False) -> None:
    """`table --simulate` simulates what a configuration names and asks only about a table
    configured without readers; `room` has no --simulate and no table configuration: all its
    tables are simulated, and this option says with which readers."""
    which = ("the simulated tables' readers" if room
             else "with --simulate, for a table configured without readers")
    configured = "" if room else (". Readers a table's configuration names are always "
                                  "simulated as configured")
    parser.add_argument(
        "--sim-readers", choices=["chips", "pt1"], default="pt1",
        help=f"{which}: 'chips' simulates the reader chips of docs/hardware.md (MFRC522 "
        "cards, PN5180 chip zones) under the real drivers; 'pt1' a PT1 reader board, lighter "
        f"on the CPU (default: pt1){configured}")


def add_table_command(sub: Any) -> None:
    table = sub.add_parser("table", help="run a table: readers, buttons, journal, outputs")
    table.add_argument("--config", required=True, metavar="table.toml",
                       help="the table's configuration (deploy/table.example.toml)")
    table.add_argument("--check", action="store_true",
                       help=CHECK_HELP.format("table") + " (the venue CA, its login, the decks "
                       "and chip sets read as at a start; no broker, reader or pin opened)")
    table.add_argument("--simulate", action="store_true",
                       help="simulated readers on ptys, mock GPIO and a simulated dealer")
    table.add_argument("--hands", type=_int_in(0), default=0,
                       help="with --simulate: stop after this many hands (0: run on)")
    table.add_argument("--seed", type=int, default=1, help="with --simulate: the shuffles' seed")
    sim_readers_option(table)
    seated_by = table.add_mutually_exclusive_group()
    seated_by.add_argument("--tournament", action="store_true",
                       help="with --simulate: the tournament seats the players (the simulated "
                       "dealer seats nobody and waits for them)")
    seated_by.add_argument("--cash", action="store_true",
                       help="with --simulate: the cash floor seats the players (the simulated "
                       "dealer seats nobody and waits for them)")
    table.add_argument("--stdin-events", action="store_true",
                       help="also read table events (JSON lines) from stdin, e.g. a console")
    table.add_argument("--print", action="store_true", help="print public events")
    table.set_defaults(run=_table)


def add_room_services(sub: Any) -> None:
    """The central host's recorder, clock and floor display."""
    recorder = sub.add_parser(
        "recorder", help="keep every table's full hand records (secure/record) in SQLite or "
        "PostgreSQL")
    recorder.add_argument("--config", metavar="recorder.toml",
                          help="the recorder's configuration (deploy/recorder.example.toml); "
                          "the options below override it")
    recorder.add_argument("--check", action="store_true", help=CHECK_HELP.format("recorder"))
    recorder.add_argument("--host", default=None, help="the broker's host")
    _broker_port(recorder, help="the broker's port")
    recorder.add_argument("--venue", help="the venue, as given to broker init")
    recorder.add_argument("--credentials",
                          help="credentials.json holding the 'recorder' entry")
    recorder.add_argument("--ca", help="the venue CA: connect with TLS")
    recorder.add_argument("--store", "--db", action=_renamed("--db"),
                          help="the record store: a SQLite file, or a postgresql:// URL")
    recorder.add_argument("--follow", action="append", metavar="VENUE",
                          help="a venue whose records it keeps (a league's recorder; repeat "
                          "for each; default: --venue)")
    recorder.add_argument("--copy", action="store_true",
                          help="keep a copy, acknowledge nothing: a venue's own recorder while "
                          "a league's recorder is the keeper (docs/league.md)")
    recorder.set_defaults(run=_recorder)

    clock = sub.add_parser("clock", help="the tournament clock: run it, or check a structure")
    clock.add_argument("--config", metavar="clock.toml",
                       help="run the clock (deploy/clock.example.toml)")
    clock.add_argument("--structure", metavar="FILE",
                       help="with --check: a tournament structure on its own (TOML; "
                       "deploy/structures/)")
    clock.add_argument("--check", action="store_true",
                       help="check the configuration (or the structure), print the whole "
                       "schedule (levels and breaks, start and end in seconds from a start of "
                       "zero) as JSON lines, and exit")
    clock.set_defaults(run=_clock)

    floor = sub.add_parser("floor", help="the floor display: every table, the clock and the "
                           "alerts live in a browser; floor decisions behind a login")
    floor.add_argument("--config", required=True, metavar="floor.toml",
                       help="the server's configuration (deploy/floor.example.toml)")
    floor.add_argument("--check", action="store_true", help=CHECK_HELP.format("floor display"))
    floor.add_argument("--follow", action="append", metavar="VENUE",
                       help="a venue it shows (a league's floor, read-only; repeat for each; "
                       "default: the configuration's follow, else its [mqtt] venue)")
    floor.set_defaults(run=_floor)


__all__ = ["add_room_services", "add_table_command", "floor_summary", "recorder_summary",
           "sim_readers_option", "table_summary"]
