"""The `pokertable` command line: its parser, and the small commands' handlers (the others are
in their own modules, imported when run). Subcommands import what they need lazily, so that
`--help` stays light; `pokertable replay FILE...` does not come here at all (controller/cli/
__init__.py)."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
from collections.abc import Iterator

from controller.cli.common import (
    _int_in,
    _log_to_stderr,
    _Parser,
    _renamed,
    _stop_on_signals,
)


def _replay(args: argparse.Namespace) -> int:
    from controller.cli.replay import replay_files

    return replay_files(args.files)


def _decode(args: argparse.Namespace) -> int:
    """Raw reader bytes on stdin -> one JSON line per valid frame, then the counts."""
    from drivers.decode import decode_stream

    return decode_stream(args.protocol, sys.stdin.buffer, sys.stdout)


def _readers_check(args: argparse.Namespace) -> int:
    """Bring-up: every reader chip of the table answers, every antenna is where it should be."""
    from controller.table.bring_up import run_readers_check
    from controller.table.config import load_table_config

    _log_to_stderr()
    config = load_table_config(args.config)
    return run_readers_check(config, sys.stdout, walk=not args.no_walk, wait=args.wait,
                             simulate=args.simulate)


def _deck_register(args: argparse.Namespace) -> int:
    from pathlib import Path

    from drivers.registration import register_deck

    uids = _registration_arrivals(args, "cards")
    return 0 if register_deck(uids, args.name, Path(args.out), sys.stdout) else 1


def _registration_arrivals(args: argparse.Namespace, reads: str) -> Iterator[str]:
    """The tags laid on the antenna: from a serial reader (--url) or the table's reader chips."""
    from drivers.registration import arrivals, chip_arrivals

    if args.url is not None:
        return arrivals(args.url, args.protocol, args.antenna, idle=args.idle)
    from controller.errors import ConfigError
    from controller.table.config import load_table_config
    from controller.table.runner import pin_factory_of
    from drivers.chip_reader import open_chips
    from drivers.reader_config import POLLED
    from drivers.scan import RealClock

    config = load_table_config(args.config)
    chips = [r for r in config.readers if r.protocol in POLLED]
    named = [r for r in chips if r.name == args.reader] if args.reader else [
        r for r in chips if r.reads == reads]
    if not named:
        there = ", ".join(r.name for r in chips) or "none"
        if args.reader:
            raise ConfigError(f"{args.config}: readers: no reader chips named {args.reader!r} "
                              f"(reader chips here: {there})")
        serial = [r for r in config.readers if r.protocol not in POLLED and r.reads == reads]
        if serial:  # (a PT1 board or an RDM6300: read through its own port, not the config)
            raise ConfigError(
                f"{args.config}: readers: the {reads} here are read by the serial reader "
                f"{serial[0].name!r}: register with --url {serial[0].url} --protocol "
                f"{serial[0].protocol} (the table's service stopped, as it holds the port)")
        raise ConfigError(f"{args.config}: readers: no reader chips that read {reads}")
    reader, clock, factory = named[0], RealClock(), pin_factory_of(config)
    return chip_arrivals(reader, args.antenna, lambda: open_chips(reader, clock,
                         pin_factory=factory), clock, idle=args.idle)


def _chips_register(args: argparse.Namespace) -> int:
    from pathlib import Path

    from drivers.registration import register_chips

    uids = _registration_arrivals(args, "chips")
    if register_chips(uids, args.value, args.name, Path(args.out), sys.stdout) == 0:
        print(f"pokertable chips register: no new chip was read on antenna {args.antenna}; "
              f"{args.out} is as it was", file=sys.stderr)
        return 1
    return 0


def _add_reader_options(parser: argparse.ArgumentParser, idle: float) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--url", help="a serial reader's device or pyserial URL (PT1, RDM6300)")
    source.add_argument("--config", help="the table's configuration: read with its reader "
                        "chips (MFRC522, PN5180, PN532), on --reader's --antenna")
    parser.add_argument("--reader", help="with --config: the reader's name (default: the first "
                        "that reads cards, or chips for `chips register`)")
    parser.add_argument("--protocol", choices=["rdm6300", "pt1"], default="pt1",
                        help="the reader: pt1 (multi-antenna HF reader, default) or rdm6300")
    parser.add_argument("--antenna", type=int, default=0,
                        help="the antenna to read (PT1, or the configured reader's)")
    parser.add_argument("--idle", type=float, default=idle,
                        help="stop after this many seconds without a new tag")


def _demo(args: argparse.Namespace) -> int:
    from controller.demo.demo import run_demo

    return run_demo(hands=args.hands, players=args.players, seed=args.seed, game=args.game,
                    hardware=not args.no_hardware)


def _room(args: argparse.Namespace) -> int:
    """The room on this machine; with ``--hands 0`` until Ctrl-C or SIGTERM."""

    from pathlib import Path

    from controller.demo.room_demo import run_room

    stop = _stop_on_signals()
    with _terminal_to_ourselves():
        return run_room(tables=args.tables, hands=args.hands, port=args.floor_port, stop=stop,
                        tournament=args.tournament, sim_readers=args.sim_readers, cash=args.cash,
                        keep=None if args.keep is None else Path(args.keep))


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
    from controller.cli.hands import replay_events_command

    return replay_events_command(args)


class _Version(argparse.Action):
    """--version, looked up only when asked for (the package metadata costs start-up time)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(_version())
        parser.exit()


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"pokertable {version('pokertable-rfid')}"
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "pokertable (not installed)"


def _soak(args: argparse.Namespace) -> int:
    from controller.errors import ConfigError
    from controller.sim.soak import soak

    if not 0.0 <= args.faults <= 1.0:
        raise ConfigError(f"--faults must be a chance from 0 to 1, not {args.faults}")
    report = soak(args.tables, args.hands, seed=args.seed, faults=args.faults,
                  progress=lambda line: print(line, file=sys.stderr), cash=args.cash)
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


def _command_line() -> tuple[_Parser, argparse._SubParsersAction[_Parser]]:
    """``pokertable`` itself, its commands still to add."""
    parser = _Parser(
        prog="pokertable", description="Instrumented live poker tables under tournament rules."
    )
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="show the installed version and exit")
    return parser, parser.add_subparsers(dest="command", required=True, parser_class=_Parser)


def _add_replay(sub: argparse._SubParsersAction[_Parser]) -> None:
    replay = sub.add_parser(
        "replay", help="replay PHH hand histories and print each file's finishing stacks as JSON"
    )
    replay.add_argument("files", nargs="+", metavar="FILE", help="PHH files (.phh)")
    replay.set_defaults(run=_replay)


def replay_parser() -> argparse.ArgumentParser:
    """The command line with `replay` alone, which `pokertable replay` parses with: building
    every command's parser, and importing the modules that add them, would be most of the
    replay's start-up (its start-up is part of the replay benchmark). ``pokertable replay``
    reads the same as in `build_parser`: one `_add_replay` adds it to both."""
    parser, sub = _command_line()
    _add_replay(sub)
    return parser


def build_parser() -> argparse.ArgumentParser:
    """Every command (``pokertable --help`` lists them all)."""
    from controller.cli.admin import add_admin_commands
    from controller.cli.cash import add_cash_commands
    from controller.cli.hands import add_hands_commands
    from controller.cli.services import (
        add_room_services,
        add_table_command,
        sim_readers_option,
    )
    from controller.cli.tournament import add_tournament_commands

    parser, sub = _command_line()
    _add_replay(sub)

    events = sub.add_parser(
        "replay-events", help="replay a table-event stream (JSON lines) and print one JSON hand "
        "record per finished hand"
    )
    events.add_argument("file", metavar="FILE",
                        help="a table-event stream (JSON lines; `journal export` writes one), a "
                        "table's journal.db, or - for stdin")
    events.add_argument("--profile", help="rule profile (default: the stream's, else pvb-2020)")
    events.add_argument("--table", help="table id in the records (default: the stream's, else 1)")
    events.add_argument("--seats", type=_int_in(2, 10),
                        help="seats at the table (default: the stream's, else 10)")
    events.add_argument("--sb", type=_int_in(0),
                        help="small blind before any level event (default 50)")
    events.add_argument("--bb", type=_int_in(1),
                        help="big blind before any level event (default 100)")
    events.add_argument("--check-burns", action="store_true",
                        help="expect a burn card before each street (PVB 35(2))")
    events.set_defaults(run=_replay_events)

    add_table_command(sub)

    decode = sub.add_parser(
        "decode", help="decode raw card-reader bytes from stdin into JSON lines (inspection)"
    )
    decode.add_argument("--protocol", choices=["rdm6300", "pt1", "pn532"], required=True,
                        help="rdm6300 (125 kHz module), pt1 (multi-antenna HF reader) or pn532 "
                             "(what a PN532 sends its host: the cards its answers list)")
    decode.set_defaults(run=_decode)

    readers = sub.add_parser("readers", help="a table's readers").add_subparsers(
        dest="what", required=True, parser_class=_Parser)
    check = readers.add_parser(
        "check", help="bring-up: each reader chip's version, then lay a card (a chip) on each "
        "antenna as asked: the zone map confirmed, reads per second, wiring mistakes named")
    check.add_argument("--config", required=True, help="the table's configuration (TOML)")
    check.add_argument("--no-walk", action="store_true",
                       help="only the chips' versions, no antenna walk")
    check.add_argument("--wait", type=float, default=60.0,
                       help="seconds to wait for each card or chip")
    check.add_argument("--simulate", action="store_true",
                       help="against the configured readers simulated, wired as configured, "
                       "with a simulated technician laying the cards (a rehearsal)")
    check.set_defaults(run=_readers_check)

    deck = sub.add_parser("deck", help="card decks").add_subparsers(dest="what", required=True,
                                                                 parser_class=_Parser)
    deck_register = deck.add_parser(
        "register", help="register a new deck: place its cards one at a time on one antenna, "
        "clubs 2 to ace, then diamonds, hearts, spades"
    )
    _add_reader_options(deck_register, idle=120)
    deck_register.add_argument("--name", required=True, help="the deck's name, e.g. blue-1")
    deck_register.add_argument("--out", required=True, metavar="FILE",
                               help="deck file to write (JSON)")
    deck_register.set_defaults(run=_deck_register)

    chips = sub.add_parser("chips", help="chip sets").add_subparsers(dest="what", required=True,
                                                                 parser_class=_Parser)
    chips_register = chips.add_parser(
        "register", help="add chips of one value to a chip set: tap them on one antenna"
    )
    _add_reader_options(chips_register, idle=30)
    chips_register.add_argument("--value", type=int, required=True, help="denomination")
    chips_register.add_argument("--name", default="house", help="chip set name (new files)")
    chips_register.add_argument("--out", required=True, metavar="FILE",
                                help="chip set file (JSON): a new one, or one to extend")
    chips_register.set_defaults(run=_chips_register)

    add_admin_commands(sub)
    add_hands_commands(sub)

    add_room_services(sub)
    add_tournament_commands(sub)
    add_cash_commands(sub)

    room = sub.add_parser("room", help="the room on one machine: a broker, the clock, the "
                          "floor display, the recorder and simulated tables on MQTT")
    room.add_argument("--tables", type=_int_in(1, 8), default=4,
                      help="simulated tables")
    room.add_argument("--hands", type=_int_in(0), default=0,
                      help="hands per table, then stop (default 0: play on until Ctrl-C)")
    room.add_argument("--floor-port", "--port", type=_int_in(0, 65535), default=8080,
                      action=_renamed("--port"), dest="floor_port",
                      help="the floor display's port on 127.0.0.1 (default 8080; 0: any free)")
    game = room.add_mutually_exclusive_group()  # a room plays one kind of game
    game.add_argument("--tournament", action="store_true",
                      help="the tournament too: six players a table registered and drawn, "
                      "played to one winner (with --hands 0) on short stacks")
    game.add_argument("--cash", action="store_true",
                      help="cash tables instead (the CG): hold'em and pot-limit Omaha, the cash "
                      "floor seating players from its waiting lists, straddles, bomb pots, "
                      "run it twice (docs/cash.md)")
    room.add_argument("--keep", metavar="DIR",
                      help="work in DIR (new or empty) and keep it: the recorder's records.db "
                      "for `pokertable hands`, the tables' journals (default: a temporary "
                      "directory, removed at the end)")
    sim_readers_option(room, room=True)
    room.set_defaults(run=_room)

    soak = sub.add_parser("soak", help="thousands of simulated hands at full speed: the "
                          "alerts a floor would see from a perfect (or a faulty) dealer")
    soak.add_argument("--tables", type=_int_in(1, 1000), default=8,
                      help="simulated tables, each with its own structure")
    soak.add_argument("--hands", type=_int_in(1), default=250,
                      help="hands per table")
    soak.add_argument("--seed", type=int, default=1, help="seed of everything random")
    soak.add_argument("--faults", type=float, default=0.0, metavar="P",
                      help="chance per hand that the dealer makes one mistake (0 to 1; default "
                           "0: a perfect dealer)")
    soak.add_argument("--cash", action="store_true",
                      help="tables 2, 6, 10, ... (hold'em) and 3, 7, 11, ... (pot-limit Omaha) "
                           "play the casino's cash game (the CG: straddles, bomb pots, flips, "
                           "double boards, run it twice)")
    soak.set_defaults(run=_soak)

    demo = sub.add_parser("demo", help="a simulated table playing hands, narrated")
    demo.add_argument("--hands", type=_int_in(1), default=6, help="hands to play")
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


def run(argv: list[str]) -> int:
    """The command ``argv`` names, parsed and run (`main` has set the umask)."""
    from controller.errors import PokertableError

    parser = replay_parser() if argv[:1] == ["replay"] else build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.run(args)
        sys.stdout.flush()
    except PokertableError as exc:  # a person's mistake: one line, never a traceback
        print(f"{_command_name(args)}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # a reader that stopped early (`| head`): the output ends there
        # What is still buffered goes nowhere, rather than to the closed pipe at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return code
