"""The `pokertable` command. Subcommands import what they need lazily, so that the replay path
stays light (its start-up time is part of the replay benchmark)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

if TYPE_CHECKING:
    from controller.service_manager import Loop

T = TypeVar("T")


def _replay(args: argparse.Namespace) -> int:
    from controller.errors import PokertableError
    from controller.history.phh import replay_text

    refused = False
    out = sys.stdout
    for path in args.files:
        line: dict[str, object]
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            replay = replay_text(text)
            line = {"file": path, "finishing_stacks": replay.finishing_stacks()}
            if replay.inferred_folds:
                folded = ", ".join(replay.inferred_folds)
                print(f"{path}: {folded} did not act and were taken as folded; the file's "
                      "finishing_stacks confirm it", file=sys.stderr)
        except (PokertableError, OSError, UnicodeDecodeError) as exc:
            refused = True
            line = {"file": path, "error": str(exc)}
        out.write(json.dumps(line) + "\n")
    return 1 if refused else 0


def _broker_init(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from controller.errors import ConfigError, first_error
    from controller.mqtt.broker_init import BrokerPlan, broker_init

    try:
        plan = BrokerPlan.model_validate(
            {"venue": args.venue, "tables": args.tables, "port": args.port,
             "tls_port": args.tls_port, "tls_bind": args.tls_bind, "displays": args.displays,
             **({"hostnames": args.hostname} if args.hostname else {})})
    except ValidationError as exc:
        raise ConfigError(first_error(exc, "option")) from None
    out = Path(args.out)
    credentials = _on_disk(out, lambda: broker_init(plan, out))
    print(f"wrote {out}/mosquitto.conf, passwd, acl, ca.crt, server.crt/.key, floor.crt/.key, "
          f"broker.json and credentials.json ({len(credentials)} clients) for "
          f"{', '.join(plan.state().hostnames)}; start with: "
          f"mosquitto -c {out.resolve()}/mosquitto.conf")
    return 0


def _on_disk(path: Path, write: Callable[[], T]) -> T:
    """``write()``, with a file system's refusal said in one line naming the path."""
    from controller.errors import ConfigError

    try:
        return write()
    except OSError as exc:
        where = exc.filename or path
        raise ConfigError(f"{where}: {exc.strerror or exc}") from None


def _broker_add(args: argparse.Namespace) -> int:
    """`broker add-table ID...` and `broker add-display`: new logins, nothing else re-keyed."""
    from controller.mqtt.broker_init import add_clients

    out = Path(args.out)
    tables = list(getattr(args, "ids", []) or [])
    added = _on_disk(out, lambda: add_clients(out, tables=tables,
                                                displays=getattr(args, "count", 0)))
    if not added:
        print(f"nothing to add: {out} already has {', '.join('table-' + t for t in tables)}")
        return 0
    print(f"added {', '.join(added)} to {out} (every other login, key and certificate kept); "
          "the broker reads the new passwd and acl on `systemctl reload mosquitto` (SIGHUP)")
    return 0


def _broker_bundle(args: argparse.Namespace) -> int:
    from controller.mqtt.broker_init import make_bundle, write_bundle

    bundle = make_bundle(Path(args.out), args.client)
    to = Path(args.to)
    _on_disk(to, lambda: write_bundle(bundle, to))
    print(f"wrote {to} (0600: it holds table-{bundle.table}'s password) for {bundle.host}:"
          f"{bundle.port}; on that table's Pi: pokertable install table --bundle {to.name}")
    return 0


def _install(args: argparse.Namespace) -> int:
    """`install host|table [--root DIR]`: what changed, or that nothing did."""
    from pydantic import ValidationError

    from controller.errors import ConfigError, first_error
    from controller.install.host import HostPlan, install_host
    from controller.install.table import TablePlan, install_table, read_bundle_file
    from controller.install.tree import Tree

    real = args.root is None
    if real and os.geteuid() != 0:
        raise ConfigError("installing on this machine needs root: run it with sudo (or give "
                          "--root DIR to install into a directory tree)")
    root = Path(args.root or "/").resolve()
    if not root.exists():  # a tree like a machine's: its top directory as /'s
        _on_disk(root, lambda: root.mkdir(parents=True))
        root.chmod(0o755)
    tree = Tree(root, real=real)
    venv = args.venv or sys.prefix
    try:
        if args.what == "host":
            plan = HostPlan.model_validate({
                "venue": args.venue, "tables": args.tables, "tls_bind": args.tls_bind,
                "broker_port": args.port or 1883, "tls_port": args.tls_port,
                "floor_port": args.floor_port, "keep_days": args.keep_days, "venv": venv,
                **({"hostnames": args.hostname} if args.hostname else {})})
            _on_disk(root, lambda: install_host(plan, tree))
        else:
            bundle = read_bundle_file(Path(args.bundle)) if args.bundle else None
            table_plan = TablePlan(table=args.id, bundle=bundle, board=args.board,
                                   keep_days=args.keep_days, venv=venv)
            _on_disk(root, lambda: install_table(table_plan, tree))
    except ValidationError as exc:
        raise ConfigError(first_error(exc, "option")) from None
    where = "this machine" if real else str(root)
    for change in tree.changes:
        print(f"changed: {change}")
    for kept in tree.kept:
        print(f"kept: {kept}")
    if not tree.changes:
        print(f"nothing changed: {where} is already installed as a {args.what}")
    elif args.what == "host":
        print("next: pokertable floor-user add NAME --accounts "
              "/etc/pokertable/floor/floor-users.json; for each table: pokertable broker "
              "bundle N --out /etc/pokertable/broker --to table-N.json (docs/install.md)")
    return 0


def _upgrade(args: argparse.Namespace) -> int:
    """`upgrade table --to DIR | --rollback`: between hands, with systemd restarting the unit."""
    import subprocess

    from controller.errors import ConfigError
    from controller.table.upgrade import upgrade_table

    if (args.to is None) == (not args.rollback):
        raise ConfigError("give --to RELEASE_DIR, or --rollback")

    def restart() -> None:
        done = subprocess.run(["systemctl", "restart", args.unit], capture_output=True,
                              text=True, check=False)
        if done.returncode != 0:
            raise ConfigError(f"systemctl restart {args.unit}: {done.stderr.strip()}")

    upgrade_table(Path(args.opt), Path(args.state), None if args.rollback else Path(args.to),
                  restart, timeout=args.timeout)
    return 0


def _recorder(args: argparse.Namespace) -> int:
    """`recorder --config recorder.toml`, each option overriding the file; or options alone
    (the older way: --venue, --credentials and --db then required)."""
    from pydantic import ValidationError

    from controller.errors import ConfigError, first_error
    from controller.mqtt.client import load_login
    from controller.room.recorder import Recorder, RecordStore
    from controller.room.recorder_config import RecorderConfig, load_recorder_config

    overrides = {"host": args.host, "port": args.port, "venue": args.venue,
                 "credentials": args.credentials, "ca": args.ca}
    if args.config is not None:
        config = load_recorder_config(args.config)
        document = config.model_dump()
    else:
        missing = [f"--{n}" for n in ("venue", "credentials", "db") if getattr(args, n) is None]
        if missing:
            raise ConfigError(f"give --config recorder.toml, or {' and '.join(missing)}")
        document = {"mqtt": {}, "recorder": {}}
    document["mqtt"].update({k: v for k, v in overrides.items() if v is not None})
    if args.ca is not None:
        document["mqtt"]["tls"] = True
    if args.db is not None:
        document["recorder"]["db"] = args.db
    try:
        config = RecorderConfig.model_validate(document)
    except ValidationError as exc:
        raise ConfigError(first_error(exc, "option")) from None
    _log_to_stderr()
    login = load_login(config.mqtt.credentials, "recorder")
    address = config.mqtt.model_copy()
    stop = _stop_on_signals()
    store = RecordStore(config.recorder.db)
    recorder = Recorder(address, login, store).start()
    try:
        _serve(stop, recorder.loops())
    finally:
        recorder.close()
        store.close()
    return 0


def _clock(args: argparse.Namespace) -> int:
    """``--structure FILE --check``: the whole schedule as JSON lines, or the mistake;
    ``--config clock.toml``: the clock service, until SIGTERM or Ctrl-C."""

    from controller.errors import ConfigError
    from controller.room.clock.structure import load_structure, schedule

    if args.check:
        if args.structure is None:
            raise ConfigError("--check needs --structure FILE")
        for slot in schedule(load_structure(args.structure)):
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
    from controller.room.floor.server import FloorServer

    _log_to_stderr()
    config = load_floor_config(args.config)
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


def _floor_user(args: argparse.Namespace) -> int:
    """Floor staff accounts: add (or change a password), remove, list."""
    import getpass

    from controller.errors import ConfigError
    from controller.room.floor.accounts import (
        load_accounts,
        remove_user,
        save_accounts,
        set_password,
    )

    path = Path(args.accounts)
    accounts = load_accounts(path)
    if args.what == "list":
        for name in sorted(accounts.users):
            print(name)
        return 0
    if args.what == "remove":
        save_accounts(path, remove_user(accounts, args.name))
        print(f"{args.name} removed from {path}")
        return 0
    try:
        if args.password_stdin:
            line = sys.stdin.readline()
            if not line:
                raise ConfigError("--password-stdin: stdin is closed; give the password on its "
                                  "first line")
            password = line.rstrip("\n")
        else:
            if sys.stdin is None or sys.stdin.closed or not sys.stdin.isatty():
                raise ConfigError("no terminal to type the password in: give it on the first "
                                  "line of stdin with --password-stdin")
            password = getpass.getpass(f"password for {args.name}: ")
            if getpass.getpass("again: ") != password:
                raise ConfigError("the two passwords differ")
    except EOFError:
        raise ConfigError("no password was typed (stdin closed); use --password-stdin to give "
                          "it from a pipe") from None
    save_accounts(path, set_password(accounts, args.name, password))
    print(f"{args.name} can log in to the floor display ({path})")
    return 0


def _backup(args: argparse.Namespace) -> int:
    """Checked copies of stores taken while their services run; one line per store."""
    from controller.backup import backup_stores
    from controller.errors import ConfigError

    failed = False
    try:
        results = backup_stores(args.stores, Path(args.to), args.keep_days)
    except OSError as exc:  # the directory cannot be made or written
        raise ConfigError(f"{exc.filename or args.to}: {exc.strerror}") from None
    for done in results:
        if done.copy is None:
            failed = True
            print(f"pokertable backup: {done.error}", file=sys.stderr)
            continue
        gone = f"; {len(done.removed)} older copies removed" if done.removed else ""
        print(f"{done.store} -> {done.copy} (checked){gone}")
    return 1 if failed else 0


def _restore(args: argparse.Namespace) -> int:
    """A backup in place of a store whose service is stopped."""
    from controller.backup import restore
    from controller.errors import ConfigError

    try:
        aside = restore(Path(args.backup), Path(args.to))
    except OSError as exc:  # a directory not ours, a disk full
        raise ConfigError(f"{exc.filename or args.to}: {exc.strerror}") from None
    kept = f"; the replaced file is kept as {aside}" if aside is not None else ""
    print(f"{args.to} restored from {args.backup}{kept}")
    return 0


def _decode(args: argparse.Namespace) -> int:
    """Raw reader bytes on stdin -> one JSON line per valid frame, then the counts."""
    from drivers.decode import decode_stream

    return decode_stream(args.protocol, sys.stdin.buffer, sys.stdout)


def _deck_register(args: argparse.Namespace) -> int:
    from pathlib import Path

    from drivers.registration import arrivals, register_deck

    uids = arrivals(args.url, args.protocol, args.antenna, idle=args.idle)
    return 0 if register_deck(uids, args.name, Path(args.out), sys.stdout) else 1


def _chips_register(args: argparse.Namespace) -> int:
    from pathlib import Path

    from drivers.registration import arrivals, register_chips

    uids = arrivals(args.url, args.protocol, args.antenna, idle=args.idle)
    register_chips(uids, args.value, args.name, Path(args.out), sys.stdout)
    return 0


def _add_reader_options(parser: argparse.ArgumentParser, idle: float) -> None:
    parser.add_argument("--url", required=True, help="the reader's serial device or pyserial URL")
    parser.add_argument("--protocol", choices=["rdm6300", "pt1"], default="pt1",
                        help="the reader: pt1 (multi-antenna HF reader, default) or rdm6300")
    parser.add_argument("--antenna", type=int, default=0, help="the antenna to read (PT1)")
    parser.add_argument("--idle", type=float, default=idle,
                        help=f"stop after this many seconds without a new tag (default {idle:g})")


def _demo(args: argparse.Namespace) -> int:
    from controller.demo.demo import run_demo

    return run_demo(hands=args.hands, players=args.players, seed=args.seed, game=args.game,
                    hardware=not args.no_hardware)


def _room(args: argparse.Namespace) -> int:
    """The room on this machine; with ``--hands 0`` until Ctrl-C or SIGTERM."""

    from controller.demo.room_demo import run_room

    stop = _stop_on_signals()
    with _terminal_to_ourselves():
        return run_room(tables=args.tables, hands=args.hands, port=args.floor_port, stop=stop)


@contextlib.contextmanager
def _terminal_to_ourselves() -> Iterator[None]:
    """In a terminal, the room takes Ctrl-C for itself (its own foreground process group, as a
    shell's job control does), so that `make demo` around it is not interrupted half-way and
    ends with the room's own exit code; the terminal goes back to the one that had it."""
    try:
        fd = sys.stdin.fileno()
        if not os.isatty(fd) or os.tcgetpgrp(fd) != os.getpgrp():
            raise OSError("not the terminal's foreground")
        before = os.getpgrp()
        os.setpgid(0, 0)
        hangup = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        os.tcsetpgrp(fd, os.getpgrp())
    except (OSError, ValueError):
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.tcsetpgrp(fd, before)
        signal.signal(signal.SIGTTOU, hangup)


def _replay_events(args: argparse.Namespace) -> int:
    from controller.engine.profiles import load_profile
    from controller.engine.table import Level
    from controller.errors import ConfigError
    from controller.history.replay_events import record_json, replay_events
    from controller.session import SessionConfig
    from controller.text_files import read_text_file

    if args.sb > args.bb:
        raise ConfigError(f"--sb {args.sb} is more than --bb {args.bb}")
    load_profile(args.profile)  # an unknown profile: one line, before any output
    config = SessionConfig(table_id=args.table, profile=args.profile, seats=args.seats,
                           level=Level(sb=args.sb, bb=args.bb), check_burns=args.check_burns)
    if args.file == "-":
        lines: Iterable[str] = sys.stdin
    else:
        lines = read_text_file(Path(args.file), "table events (JSON lines)").splitlines()
    for record in replay_events(lines, config, errors=sys.stderr):
        sys.stdout.write(record_json(record) + "\n")
    return 0


def _table(args: argparse.Namespace) -> int:

    from controller.errors import ConfigError
    from controller.table.config import load_table_config
    from controller.table.runner import run_table

    _log_to_stderr()
    config = load_table_config(args.config)
    try:
        return run_table(config, simulate=args.simulate, stdin_events=args.stdin_events,
                         hands=args.hands, echo=sys.stdout if args.print else None,
                         seed=args.seed)
    except ConfigError as exc:  # what the configuration asks for is not here
        raise ConfigError(f"{args.config}: {exc}") from None


def _log_to_stderr() -> None:
    """A service's log: to stderr (the journal under systemd), one line per record."""
    import logging

    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def _stop_on_signals() -> threading.Event:
    """SIGTERM (systemd, a supervisor) and SIGINT (Ctrl-C) ask a service for a clean stop."""
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    return stop


def _serve(stop: threading.Event, loops: list[Loop]) -> None:
    """A started service's main thread until SIGTERM or Ctrl-C: systemd hears that it is
    ready, then watchdog pings while its loops move (controller/service_manager.py)."""
    from controller.service_manager import Watchdog, notify

    watchdog = Watchdog(loops)
    notify("READY=1", "STATUS=serving")
    while not stop.wait(0.5):  # short waits: the signal handler runs between them
        watchdog.tick()
    notify("STOPPING=1")


class _Parser(argparse.ArgumentParser):
    """argparse, with a mistake said in one line (no usage block): the command and the
    problem, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message}\n")


def _renamed(old: str) -> type[argparse.Action]:
    """An option's older spelling, still taken for one release with a warning."""

    class Renamed(argparse.Action):
        def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                     values: Any, option_string: str | None = None) -> None:
            if option_string == old:
                print(f"{parser.prog}: {old} is now {self.option_strings[0]}; the old spelling "
                      "goes in the next release", file=sys.stderr)
            setattr(namespace, self.dest, values)
    return Renamed


def _broker_port(parser: argparse.ArgumentParser, help: str, required: bool = False) -> None:
    """The broker's port has one name everywhere: --broker-port (--port before)."""
    parser.add_argument("--broker-port", "--port", type=_int_in(1, 65535), dest="port",
                        required=required, default=None, action=_renamed("--port"), help=help)


def _int_in(low: int, high: int | None = None) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            span = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {span}, not {value}")
        return value
    return parse


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"pokertable {version('pokertable-rfid')}"
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "pokertable (not installed)"


def _soak(args: argparse.Namespace) -> int:
    from controller.errors import ConfigError
    from controller.table.soak import soak

    if not 0.0 <= args.faults <= 1.0:
        raise ConfigError(f"--faults must be a chance from 0 to 1, not {args.faults}")
    report = soak(args.tables, args.hands, seed=args.seed, faults=args.faults,
                  progress=lambda line: print(line, file=sys.stderr))
    print(report.summary())
    for alarm in report.unexplained[:20]:
        print(f"  unexplained: table {alarm.table}, hand {alarm.hand}: {alarm.text} "
              f"({alarm.rule})")
    for fault in report.missed[:20]:
        print(f"  no alert for: table {fault.table}, hand {fault.hand}: {fault.fault}")
    for line in (report.stalls + [f"refused: table {a.table}, hand {a.hand}: {a.text}"
                                  for a in report.refused])[:20]:
        print(f"  {line}")
    return 0 if report.false_alarms == 0 and not report.missed else 1


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="pokertable", description="Instrumented live poker tables under tournament rules."
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    replay = sub.add_parser(
        "replay", help="replay PHH hand histories and print each file's finishing stacks as JSON"
    )
    replay.add_argument("files", nargs="+", metavar="FILE", help="PHH files (.phh)")
    replay.set_defaults(run=_replay)

    events = sub.add_parser(
        "replay-events", help="replay a table-event stream (JSON lines) and print one JSON hand "
        "record per finished hand"
    )
    events.add_argument("file", metavar="FILE.jsonl", help="event stream, or - for stdin")
    events.add_argument("--profile", default="pvb-2020", help="rule profile (default pvb-2020)")
    events.add_argument("--table", default="1", help="table id in the records")
    events.add_argument("--seats", type=_int_in(2, 10), default=10,
                        help="seats at the table (default 10)")
    events.add_argument("--sb", type=_int_in(0), default=50,
                        help="small blind before any level event")
    events.add_argument("--bb", type=_int_in(1), default=100,
                        help="big blind before any level event")
    events.add_argument("--check-burns", action="store_true",
                        help="expect a burn card before each street (PVB 35(2))")
    events.set_defaults(run=_replay_events)

    table = sub.add_parser("table", help="run a table: readers, buttons, journal, outputs")
    table.add_argument("--config", required=True, help="the table's configuration (TOML)")
    table.add_argument("--simulate", action="store_true",
                       help="simulated readers on ptys, mock GPIO and a simulated dealer")
    table.add_argument("--hands", type=_int_in(0), default=0,
                       help="with --simulate: stop after this many hands (0: run on)")
    table.add_argument("--seed", type=int, default=1, help="with --simulate: the shuffles' seed")
    table.add_argument("--stdin-events", action="store_true",
                       help="also read table events (JSON lines) from stdin, e.g. a console")
    table.add_argument("--print", action="store_true", help="print public events")
    table.set_defaults(run=_table)

    decode = sub.add_parser(
        "decode", help="decode raw card-reader bytes from stdin into JSON lines (inspection)"
    )
    decode.add_argument("--protocol", choices=["rdm6300", "pt1"], required=True,
                        help="rdm6300 (125 kHz module) or pt1 (multi-antenna HF reader)")
    decode.set_defaults(run=_decode)

    deck = sub.add_parser("deck", help="card decks").add_subparsers(dest="what", required=True,
                                                                 parser_class=_Parser)
    deck_register = deck.add_parser(
        "register", help="register a new deck: place its cards one at a time on one antenna, "
        "clubs 2 to ace, then diamonds, hearts, spades"
    )
    _add_reader_options(deck_register, idle=120)
    deck_register.add_argument("--name", required=True, help="the deck's name, e.g. blue-1")
    deck_register.add_argument("--out", required=True, help="deck file to write (JSON)")
    deck_register.set_defaults(run=_deck_register)

    chips = sub.add_parser("chips", help="chip sets").add_subparsers(dest="what", required=True,
                                                                 parser_class=_Parser)
    chips_register = chips.add_parser(
        "register", help="add chips of one value to a chip set: tap them on one antenna"
    )
    _add_reader_options(chips_register, idle=30)
    chips_register.add_argument("--value", type=int, required=True, help="denomination")
    chips_register.add_argument("--name", default="house", help="chip set name (new files)")
    chips_register.add_argument("--out", required=True, help="chip set file (JSON), extended")
    chips_register.set_defaults(run=_chips_register)

    broker = sub.add_parser("broker", help="the venue's MQTT broker: its files and logins"
                            ).add_subparsers(dest="what", required=True, parser_class=_Parser)
    broker_init = broker.add_parser(
        "init", help="write mosquitto.conf, passwd, acl, the venue CA and certificates, "
        "credentials.json and broker.json (refuses a directory that already holds a venue)")
    broker_init.add_argument("--venue", required=True, help="venue name: part of every topic")
    broker_init.add_argument("--tables", type=_int_in(1, 500), required=True,
                             help="number of tables (ids 1 to N; add more with add-table)")
    _broker_port(broker_init, help="the plain listener, on 127.0.0.1 only", required=True)
    broker_init.add_argument("--tls-port", type=_int_in(1, 65535), default=8883,
                             help="TLS listener for the room's LAN (default 8883)")
    broker_init.add_argument("--tls-bind", default=None, metavar="ADDRESS",
                             help="the IP address the TLS listener binds (the room's LAN "
                             "interface; default: every interface)")
    broker_init.add_argument("--hostname", action="append", metavar="NAME",
                             help="a name (or IP address) the tables and phones use for this "
                             "host, e.g. broker.hall.lan; repeat for more; the first goes into "
                             "the tables' bundles (default: this machine's host name)")
    broker_init.add_argument("--displays", type=_int_in(1, 100), default=1,
                             help="read-only logins for screens on MQTT (display, display-2, "
                             "...): one connection each")
    broker_init.add_argument("--out", required=True, help="directory to write into")
    broker_init.set_defaults(run=_broker_init)
    add_table = broker.add_parser(
        "add-table", help="add tables to the venue: their logins and ACL entries, every other "
                          "password and key kept")
    add_table.add_argument("ids", nargs="+", metavar="ID", help="table ids, e.g. 9 or final")
    add_table.add_argument("--out", required=True, help="the directory given to broker init")
    add_table.set_defaults(run=_broker_add)
    add_display = broker.add_parser(
        "add-display", help="add read-only display logins (display-N), every other password "
                            "and key kept")
    add_display.add_argument("--count", type=_int_in(1, 100), default=1,
                             help="how many (default 1)")
    add_display.add_argument("--out", required=True, help="the directory given to broker init")
    add_display.set_defaults(run=_broker_add)
    bundle = broker.add_parser(
        "bundle", help="one table's login, the venue CA and the broker's address in one file, "
                       "for `pokertable install table --bundle`")
    bundle.add_argument("client", metavar="TABLE", help="the table: table-3 or 3")
    bundle.add_argument("--out", required=True, help="the directory given to broker init")
    bundle.add_argument("--to", required=True, metavar="FILE", help="the bundle to write (0600)")
    bundle.set_defaults(run=_broker_bundle)

    install = sub.add_parser(
        "install", help="make this machine (or --root DIR) a venue's central host or a table; "
                        "a second run changes nothing").add_subparsers(
        dest="what", required=True, parser_class=_Parser)
    host = install.add_parser("host", help="Mosquitto, the clock, the recorder and the floor "
                              "display, their users, files, units and backups")
    host.add_argument("--venue", required=True, help="venue name: part of every topic")
    host.add_argument("--tables", type=_int_in(1, 500), required=True,
                      help="tables 1 to N (a later run with more adds them)")
    host.add_argument("--hostname", action="append", metavar="NAME",
                      help="a name (or IP address) the tables and phones use for this host; "
                      "repeat for more (default: its fully qualified name)")
    host.add_argument("--tls-bind", metavar="ADDRESS", default=None,
                      help="the room's LAN address: the broker's TLS listener and the floor "
                      "bind it (default: every interface)")
    _broker_port(host, help="the broker's plain listener on 127.0.0.1 (default 1883)")
    host.add_argument("--tls-port", type=_int_in(1, 65535), default=8883,
                      help="the broker's TLS listener for the tables (default 8883)")
    host.add_argument("--floor-port", type=_int_in(1, 65535), default=8443,
                      help="the floor display's HTTPS port (default 8443)")
    table_install = install.add_parser("table", help="the table service, udev rules, groups, "
                                       "the table's login from its bundle, backups")
    table_install.add_argument("--bundle", metavar="FILE",
                               help="the table's bundle from `pokertable broker bundle`")
    table_install.add_argument("--id", help="the table id, for a table without a bundle")
    table_install.add_argument("--board", choices=["auto", "pi5", "pi4", "other"],
                               default="auto", help="the board (auto: from the device tree; "
                               "a Pi 5 gets the lgpio pin factory)")
    for command in (host, table_install):
        command.add_argument("--root", metavar="DIR",
                             help="install into this directory tree instead of the machine "
                             "(no apt, no systemctl start; for checking what it writes)")
        command.add_argument("--venv", metavar="DIR", help="the virtual environment the "
                             "units run pokertable from (default: the one running this)")
        command.add_argument("--keep-days", type=_int_in(1, 3650), default=14,
                             help="days of hourly backups kept (default 14)")
        command.set_defaults(run=_install)

    upgrade = sub.add_parser("upgrade", help="upgrade a table between hands").add_subparsers(
        dest="what", required=True, parser_class=_Parser)
    upgrade_table = upgrade.add_parser(
        "table", help="switch the table to another release at a moment between hands (the "
                      "hand in play goes on; the next shuffle waits); the previous is kept")
    upgrade_table.add_argument("--to", metavar="RELEASE_DIR",
                               help="the new release: a virtual environment with pokertable")
    upgrade_table.add_argument("--rollback", action="store_true",
                               help="back to the previous release, the same way")
    upgrade_table.add_argument("--opt", default="/opt/pokertable",
                               help="where the releases and the current and previous links "
                               "are (default /opt/pokertable)")
    upgrade_table.add_argument("--state", default="/var/lib/pokertable",
                               help="the table's state directory, beside its journal (default "
                               "/var/lib/pokertable)")
    upgrade_table.add_argument("--unit", default="pokertable-table.service",
                               help="the table's systemd unit")
    upgrade_table.add_argument("--timeout", type=float, default=3600.0,
                               help="seconds to wait for a moment between hands (default 3600)")
    upgrade_table.set_defaults(run=_upgrade)

    recorder = sub.add_parser(
        "recorder", help="keep every table's full hand records (secure/record) in SQLite")
    recorder.add_argument("--config", metavar="recorder.toml",
                          help="the recorder's configuration (deploy/recorder.example.toml); "
                          "the options below override it")
    recorder.add_argument("--host", default=None, help="the broker's host")
    _broker_port(recorder, help="the broker's port")
    recorder.add_argument("--venue", help="the venue, as given to broker init")
    recorder.add_argument("--credentials",
                          help="credentials.json holding the 'recorder' entry")
    recorder.add_argument("--ca", help="the venue CA: connect with TLS")
    recorder.add_argument("--db", help="the record store (SQLite)")
    recorder.set_defaults(run=_recorder)

    clock = sub.add_parser("clock", help="the tournament clock: run it, or check a structure")
    clock.add_argument("--config", metavar="clock.toml",
                       help="run the clock (deploy/clock.example.toml)")
    clock.add_argument("--structure", metavar="FILE",
                       help="the tournament structure (TOML; deploy/structures/)")
    clock.add_argument("--check", action="store_true",
                       help="print the structure's whole schedule (levels and breaks, start and "
                       "end in seconds from a start of zero) as JSON lines, or name the mistake")
    clock.set_defaults(run=_clock)

    floor = sub.add_parser("floor", help="the floor display: every table, the clock and the "
                           "alerts live in a browser; floor decisions behind a login")
    floor.add_argument("--config", required=True, metavar="floor.toml",
                       help="the server's configuration (deploy/floor.example.toml)")
    floor.set_defaults(run=_floor)

    floor_user = sub.add_parser("floor-user", help="floor staff accounts for the floor display"
                                ).add_subparsers(dest="what", required=True, parser_class=_Parser)
    for action, text in (("add", "add a user, or give one a new password"),
                         ("remove", "remove a user"), ("list", "list the users")):
        command = floor_user.add_parser(action, help=text)
        if action != "list":
            command.add_argument("name", help="the user's login name")
        command.add_argument("--accounts", required=True, metavar="floor-users.json",
                             help="the accounts file (created 0600 if missing; an existing "
                             "one keeps its owner and mode)")
        if action == "add":
            command.add_argument("--password-stdin", action="store_true",
                                 help="read the password from the first line of stdin")
        command.set_defaults(run=_floor_user)

    backup = sub.add_parser("backup", help="copy stores (SQLite) while their services run: "
                            "DIR/<name>-<UTC time>.db, each checked; older copies removed")
    backup.add_argument("stores", nargs="+", metavar="DB",
                        help="stores to copy (journal.db, outbox.db, records.db, clock.db, "
                        "floor.db)")
    backup.add_argument("--to", required=True, metavar="DIR",
                        help="directory of the copies (created 0700 if missing)")
    backup.add_argument("--keep-days", type=_int_in(1), default=14, metavar="N",
                        help="remove this directory's copies of these stores older than N days "
                        "(default 14)")
    backup.set_defaults(run=_backup)

    restore = sub.add_parser("restore", help="put a backup in place of a store whose service "
                             "is stopped; the replaced file is kept aside")
    restore.add_argument("backup", metavar="BACKUP", help="a copy made by pokertable backup")
    restore.add_argument("--to", required=True, metavar="DB",
                         help="the store to replace (its service must be stopped)")
    restore.set_defaults(run=_restore)

    room = sub.add_parser("room", help="the room on one machine: a broker, the clock, the "
                          "floor display, the recorder and simulated tables on MQTT")
    room.add_argument("--tables", type=_int_in(1, 8), default=4,
                      help="simulated tables (default 4)")
    room.add_argument("--hands", type=_int_in(0), default=0,
                      help="hands per table, then stop (default 0: play on until Ctrl-C)")
    room.add_argument("--floor-port", "--port", type=_int_in(0, 65535), default=8080,
                      action=_renamed("--port"), dest="floor_port",
                      help="the floor display's port on 127.0.0.1 (default 8080; 0: any free)")
    room.set_defaults(run=_room)

    soak = sub.add_parser("soak", help="thousands of simulated hands at full speed: the "
                          "alerts a floor would see from a perfect (or a faulty) dealer")
    soak.add_argument("--tables", type=_int_in(1, 1000), default=8,
                      help="simulated tables, each with its own structure (default 8)")
    soak.add_argument("--hands", type=_int_in(1), default=250,
                      help="hands per table (default 250)")
    soak.add_argument("--seed", type=int, default=1, help="seed of everything random")
    soak.add_argument("--faults", type=float, default=0.0, metavar="P",
                      help="chance per hand that the dealer makes one mistake (0 to 1; default "
                           "0: a perfect dealer)")
    soak.set_defaults(run=_soak)

    demo = sub.add_parser("demo", help="a simulated table playing hands, narrated")
    demo.add_argument("--hands", type=_int_in(1), default=6, help="hands to play (default 6)")
    demo.add_argument("--players", type=_int_in(2, 10), default=6,
                      help="players at the table (2-10)")
    demo.add_argument("--seed", type=int, default=7, help="seed of the simulated shuffles")
    demo.add_argument("--game", choices=["NT", "PO"], default="NT",
                      help="NT: no-limit hold'em (default), PO: pot-limit Omaha")
    demo.add_argument("--no-hardware", action="store_true",
                      help="skip the simulated readers and buttons")
    demo.set_defaults(run=_demo)
    return parser


def _command_name(args: argparse.Namespace) -> str:
    """``pokertable broker init``: every mistake is said after the command's full name."""
    what = getattr(args, "what", None)
    return " ".join(["pokertable", args.command, *([what] if isinstance(what, str) else [])])


def main(argv: Sequence[str] | None = None) -> int:
    from controller.errors import PokertableError
    from controller.private_files import SERVICE_UMASK

    args = build_parser().parse_args(argv)
    os.umask(SERVICE_UMASK)  # nothing any pokertable process writes is for other users
    try:
        code: int = args.run(args)
    except PokertableError as exc:  # a person's mistake: one line, never a traceback
        print(f"{_command_name(args)}: {exc}", file=sys.stderr)
        return 2
    return code


if __name__ == "__main__":
    sys.exit(main())
