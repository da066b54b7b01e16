"""`pokertable hands list|show|export` and `pokertable journal export`: hands leaving the room.

Any source of hands (controller/cli/sources.py), the one filter (`HandQuery`), the public view by
default; ``--full`` (every hole card, with a warning) or ``--hero NAME`` (a player's own hands
and cards). Formats: JSON lines, PHH, PokerStars-style tracker text, Open Hand History with
the players' tournament summaries (controller/history/, controller/cli/ohh_tournament.py)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from controller.cli.common import _int_in, _on_disk, _option_at, _Parser, _warn_older

if TYPE_CHECKING:
    from controller.engine.records import HandRecord
    from controller.history.export import Export, Placed
    from controller.history.ohh import TournamentInfo
    from controller.history.ots import Results
    from controller.history.query import HandQuery
    from controller.session import SessionConfig

FULL_WARNING = ("--full: these records hold every hole card, also those nobody tabled "
                "(PVB 56); keep them from players and screens")


def _query(args: argparse.Namespace) -> HandQuery:
    from pydantic import ValidationError

    from controller.cli.sources import parse_time
    from controller.errors import ConfigError, first_error
    from controller.history.query import HandQuery

    player = args.player if args.hero is None else args.hero
    if args.hero is not None and args.player not in (None, args.hero):
        raise ConfigError("--hero is the player whose hands these are: give --player only "
                          "with the same name, or leave it out")
    try:
        return HandQuery(
            table=args.table, player=player, hand=args.hand, limit=args.limit,
            since=None if args.since is None else parse_time(args.since, "--since"),
            until=None if args.until is None else parse_time(args.until, "--until"),
            game=args.game)
    except ValidationError as exc:
        raise ConfigError(first_error(exc, "option")) from None


def _session(args: argparse.Namespace) -> SessionConfig | None:
    if args.config is None:
        return None
    from controller.table.config import load_table_config

    return load_table_config(args.config).session()


def _hands(args: argparse.Namespace) -> Iterator[Placed]:
    """The chosen hands of the source, in the view asked for, each with its venue where the
    source keeps several (a league's store)."""
    from controller.cli.sources import read_hands
    from controller.errors import ConfigError
    from controller.history.export import view

    if args.full and args.hero is not None:
        raise ConfigError("give --full (every hole card) or --hero NAME (his own), not both")
    if getattr(args, "tournament", None) is not None and args.format not in ("stars", "ohh"):
        raise ConfigError(f"--tournament numbers tracker text's and OHH's tournament; "
                          f"{args.format} has no such field: give it with --format stars or ohh")
    if getattr(args, "tournament_config", None) is not None and args.format != "ohh":
        raise ConfigError("--tournament-config says OHH's tournament and writes the players' "
                          "summaries: give it with --format ohh")
    query = _query(args)
    session = _session(args)
    if args.full:
        print(f"{_name(args)}: {FULL_WARNING}", file=sys.stderr)
    return view(read_hands(args.source, query, session, venue=args.venue), full=args.full,
                hero=args.hero)


def _name(args: argparse.Namespace) -> str:
    return f"pokertable hands {args.what}"


def _line(record: HandRecord, venue: str | None = None) -> str:
    """One hand in one line: its id, when, where (the venue too, where the source keeps
    several), the stakes, the pot and who won."""
    from datetime import datetime

    from controller.session.outputs import hand_id

    when = "-" if record.started is None else \
        datetime.fromtimestamp(record.started).strftime("%Y-%m-%d %H:%M:%S")
    b = record.blinds
    antes = f" ante {b.ante}" if b.ante else f" bb-ante {b.bb_ante}" if b.bb_ante else ""
    pot = sum(p.amount for p in record.pots)
    winners: list[str] = []
    for pot_record in record.pots:
        for seat in pot_record.winners:
            name = record.players.get(seat, f"seat {seat}")
            if name not in winners:
                winners.append(name)
    result = record.status if record.status != "complete" else \
        f"pot {pot:,} to {', '.join(winners) or 'nobody'}"
    where = "" if venue is None else f"venue {venue or '-'} "
    return (f"{hand_id(record.table, record.hand, record.started)}  {when}  {where}table "
            f"{record.table} hand {record.hand}  {record.game} "
            f"{'cash' if record.cash else f'level {record.level}'} "
            f"{b.sb}/{b.bb}{antes}  {len(record.players)} players  {result}")


def _list(args: argparse.Namespace) -> int:
    count = 0
    for record, venue in _hands(args):
        print(_line(record, venue))
        count += 1
    return _found(args, count)


def _show(args: argparse.Namespace) -> int:
    from controller.history.export import write_export

    if args.format == "json":
        count = 0
        for record, venue in _hands(args):
            shown = record.model_dump(mode="json")
            print(json.dumps(shown if venue is None else {"venue": venue, **shown}, indent=2,
                             ensure_ascii=False))
            count += 1
        return _found(args, count)
    hands = _hands(args)
    info = _ohh_tournament(args, summaries=False)[0] if args.format == "ohh" else None
    done = write_export(hands, sys.stdout, args.format, hero=args.hero,
                        tournament=args.tournament, info=info)
    return _written(args, done)


def _export(args: argparse.Namespace) -> int:
    from controller.history.export import write_export

    if args.every_player:
        return _every_player(args)
    hands = _hands(args)
    info, results = _ohh_tournament(args) if args.format == "ohh" else (None, None)
    with _output(args.out, private=args.full or args.hero is not None) as target:
        done = write_export(hands, target.fh, args.format, hero=args.hero,
                            tournament=args.tournament, info=info)
        target.keep = done.hands > 0
    code = _written(args, done)
    if code == 0 and args.out is not None:
        print(f"{_name(args)}: wrote {done.hands} hand{'s' * (done.hands != 1)} to {args.out}",
              file=sys.stderr)
    if code == 0 and info is not None and results is not None:
        if args.hero is None or args.out is None:
            print(f"{_name(args)}: no tournament summary (.ots): a summary is a player's; give "
                  "--hero NAME with --out FILE, or --every-player", file=sys.stderr)
        else:
            _summary(args, Path(args.out).with_suffix(".ots"), info, results, args.hero)
    return code


def _ohh_tournament(args: argparse.Namespace,
                   summaries: bool = True) -> tuple[TournamentInfo, Results | None]:
    """OHH's tournament: its number and start from the source's first hand (every player's
    file says the same, and so does the summary; from stdin, which is read once, the first hand
    exported gives them), the rest from ``--tournament-config``; and the standings the
    tournament exported (None without the configuration, or before it exported any)."""
    from controller.cli.ohh_tournament import read_results, tournament_info

    start = None if args.source == "-" else _first_start(args)
    info, standings = tournament_info(args.tournament_config, args.tournament, start)
    if standings is None or not summaries:
        return info, None
    results = read_results(standings)
    if results is None:
        print(f"{_name(args)}: {standings} does not exist yet (the tournament writes it at "
              "its end, or on the floor's export): no tournament summary (.ots)",
              file=sys.stderr)
    return info, results


def _first_start(args: argparse.Namespace) -> float | None:
    """When the tournament began, as its hands say: the first hand of the source between
    --since and --until, whoever played it."""
    from controller.cli.sources import parse_time, read_hands
    from controller.history.query import HandQuery

    query = HandQuery(limit=1, game=args.game,
                      since=None if args.since is None else parse_time(args.since, "--since"),
                      until=None if args.until is None else parse_time(args.until, "--until"))
    for record, _venue in read_hands(args.source, query, _session(args), venue=args.venue):
        return record.started
    return None


def _summary(args: argparse.Namespace, path: Path, info: TournamentInfo, results: Results,
             hero: str) -> None:
    """A player's tournament summary (.ots) beside his hands: private, as they are."""
    from controller.cli.ohh_tournament import summary_text

    if hero not in {f.player for f in results.finishes}:
        print(f"{_name(args)}: {hero} is not in the tournament's standings: his summary lists "
              "everyone else's", file=sys.stderr)
    with _output(str(path), private=True) as target:
        target.fh.write(summary_text(info, results, hero))
    print(f"{_name(args)}: wrote {hero}'s tournament summary to {path}", file=sys.stderr)


EXTENSIONS = {"json": "jsonl", "phh": "phhs", "stars": "txt", "ohh": "ohh"}


def _every_player(args: argparse.Namespace) -> int:
    """After a tournament, every player's own hands, each to a file of his own in --out DIR (his
    hole cards and those tabled, as ``--hero``): what a room hands its players. One tournament
    number for every file (the first hand's date), so that a player's tracker and his
    neighbour's agree."""
    from controller.cli.sources import read_hands
    from controller.errors import ConfigError
    from controller.history.export import write_export
    from controller.history.stars import tournament_number

    if args.hero is not None or args.player is not None or args.full:
        raise ConfigError("--every-player writes each player's own hands to a file of his own "
                          "in --out DIR: give it without --hero, --player or --full")
    if args.out is None:
        raise ConfigError("--every-player needs --out DIR: the directory of the players' files")
    if args.source == "-":
        raise ConfigError("--every-player reads the hands once for each player: give the "
                          "source as a file, not - (stdin)")
    players: dict[str, None] = {}
    first: float | None = None
    for record, _venue in read_hands(args.source, _query(args), _session(args),
                                     venue=args.venue):
        players.update(dict.fromkeys(record.players.values()))
        if record.started is not None and (first is None or record.started < first):
            first = record.started
    if not players:
        return _found(args, 0)
    number = args.tournament if args.tournament is not None else tournament_number(first)
    info, results = None, None
    if args.format == "ohh":
        from controller.cli.ohh_tournament import STANDINGS, read_results, tournament_info

        info, standings = tournament_info(args.tournament_config, number, first)
        results = None if standings is None else read_results(standings)
        if standings is not None and results is None:
            print(f"{_name(args)}: {standings} does not exist yet (the tournament writes it "
                  f"at its end, or on the floor's export): no {STANDINGS} summaries (.ots)",
                  file=sys.stderr)
    directory = Path(args.out)
    _on_disk(directory, lambda: directory.mkdir(mode=0o700, parents=True, exist_ok=True))
    stems: set[str] = set()
    for name in sorted(players, key=lambda n: (n.casefold(), n)):
        # OHH's and OTS's file names are ASCII only (their storage format).
        stem = _file_stem(name, stems, ascii_only=args.format == "ohh")
        path = directory / f"{stem}.{EXTENSIONS[args.format]}"
        own = argparse.Namespace(**{**vars(args), "hero": name, "every_player": False})
        with _output(str(path), private=True) as target:
            done = write_export(_hands(own), target.fh, args.format, hero=name,
                                tournament=number, info=info)
            target.keep = done.hands > 0
        if info is not None and results is not None and done.hands:
            _summary(args, path.with_suffix(".ots"), info, results, name)
        left = done.left_out_text()
        print(f"{_name(args)}: {name}: {done.hands} hand{'s' * (done.hands != 1)}"
              + (f" to {path}" if done.hands else "") + (f" (left out {left})" if left else ""),
              file=sys.stderr)
    return 0


def _file_stem(name: str, taken: set[str], ascii_only: bool = False) -> str:
    """A player's name as a file name anyone can open: letters, digits, dot, dash and
    underscore (anything else an underscore), never hidden, never the same as another's.
    ``ascii_only``: accents dropped and other letters an underscore ("Jürgen" -> "Jurgen")."""
    import unicodedata

    text = unicodedata.normalize("NFKC", name)
    if ascii_only:
        text = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in text if not unicodedata.combining(c))
        text = "".join(c if c.isascii() else "_" for c in text)
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in text).strip("._")[:60]
    stem = stem or "player"
    candidate, n = stem, 1
    while candidate.casefold() in taken:
        n += 1
        candidate = f"{stem}-{n}"
    taken.add(candidate.casefold())
    return candidate


def _written(args: argparse.Namespace, done: Export) -> int:
    """What an export left out, said; exit 1 when it wrote nothing (no hand matched, or every
    one matched is a hand the format cannot carry: a void hand, a misdeal)."""
    text = done.left_out_text()
    if done.hands == 0 and text is not None:
        print(f"{_name(args)}: nothing to write: left out {text}", file=sys.stderr)
        return 1
    if text is not None:
        print(f"{_name(args)}: left out {text}", file=sys.stderr)
    return _found(args, done.hands)


def _found(args: argparse.Namespace, count: int) -> int:
    if count == 0:
        named = getattr(args, "hero", None) or getattr(args, "player", None)
        # (a name is matched as the records have it: "anna" found none of Anna's hands)
        hint = (f" (no hand names {named!r}: a name is matched exactly, capitals too, as "
                "the tournament or the table registered it)") if named else ""
        print(f"{_name(args)}: no hand matches{hint}", file=sys.stderr)
        return 1
    return 0


@dataclass
class _Target:
    fh: TextIO
    keep: bool = True  # False: the export wrote nothing, and no file is left


@contextlib.contextmanager
def _output(out: str | None, private: bool) -> Iterator[_Target]:
    """stdout, or the file (0600 when it holds hole cards nobody tabled or a player's own).
    The file is written beside its place and takes it when the export is done: an export that
    fails, or writes nothing (``keep`` False), leaves no file and whatever was there before."""
    if out is None:
        yield _Target(sys.stdout)
        return
    path = Path(out)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.part")

    def create() -> TextIO:
        if path.is_dir():
            raise IsADirectoryError(21, "Is a directory", str(path))
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        try:
            temporary.unlink(missing_ok=True)
            fd = os.open(temporary, flags, 0o600 if private else 0o666)
        except OSError as exc:  # said of the file asked for, not of its temporary name
            raise OSError(exc.errno, exc.strerror, str(path)) from None
        return os.fdopen(fd, "w", encoding="utf-8")

    target = _Target(_on_disk(path, create))
    try:
        yield target
    except BaseException:
        target.fh.close()
        temporary.unlink(missing_ok=True)
        raise
    target.fh.close()
    if target.keep:
        _on_disk(path, lambda: os.replace(temporary, path))
    else:
        temporary.unlink(missing_ok=True)


def _journal_export(args: argparse.Namespace) -> int:
    """A journal as the event stream `replay-events` reads: its head (the session, and the
    checkpoint when older hands were let go), then every event it still holds."""
    from controller.cli.sources import journal_start
    from controller.errors import ConfigError
    from controller.events import dump_event
    from controller.history.replay_events import StreamHead
    from controller.session import SessionConfig

    session = _session(args)
    journal = args.journal
    if journal is None:
        if args.config is None:
            raise ConfigError("give the journal (journal.db) or --config table.toml")
        from controller.table.config import load_table_config

        journal = str(load_table_config(args.config).table.journal)
    from controller.cli.sources import kind_of, must_exist

    path = must_exist(Path(journal))
    try:
        kind = kind_of(path)
    except ConfigError:
        kind = None
    if kind != "journal":
        raise ConfigError(f"{path} is not a table journal")
    inferred, snapshot, events = journal_start(path, configured=session is not None)
    head = StreamHead(session=session or SessionConfig(**inferred), snapshot=snapshot)
    print("pokertable journal export: the table events hold every card the antennas read, "
          "hole cards too; keep the file private", file=sys.stderr)
    with _output(args.out, private=True) as target:
        target.fh.write(head.model_dump_json() + "\n")
        for _, event in events:
            target.fh.write(dump_event(event) + "\n")
    return 0


def replay_events_command(args: argparse.Namespace) -> int:
    """`replay-events FILE`: a table-event stream, a journal export (its head gives the session)
    or a journal itself, replayed; the options override what the stream says."""
    from controller.cli.sources import event_stream, journal_start, kind_of, must_exist
    from controller.engine.profiles import load_profile
    from controller.engine.table_play import Level
    from controller.errors import ConfigError
    from controller.history.replay_events import record_json, replay_table_events
    from controller.session import SessionConfig

    given = {k: v for k, v in (("table_id", args.table), ("profile", args.profile),
                               ("seats", args.seats), ("check_burns", args.check_burns or None))
             if v is not None}
    if args.sb is not None or args.bb is not None:
        sb, bb = args.sb if args.sb is not None else 50, args.bb if args.bb is not None else 100
        if sb > bb:
            raise ConfigError(f"--sb {sb} is more than --bb {bb}")
        given["level"] = Level(sb=sb, bb=bb)
    if "profile" in given:
        load_profile(given["profile"])  # an unknown profile: one line, before any output
    records: Iterator[HandRecord]
    give = "--profile FILE (a rule profile with game = \"PO\", as the table's)"
    if args.file == "-":
        records = event_stream(sys.stdin, "stdin", SessionConfig(**given) if given else None,
                               errors=True, give_profile=give)
    else:
        path = must_exist(Path(args.file))
        kind = kind_of(path)
        if kind == "records":
            raise ConfigError(f"{path} holds hand records already (a table's records.jsonl or "
                              f"replay-events output): pokertable hands list {path}")
        if kind == "store":
            raise ConfigError(f"{path} is the recorder's store of hand records: pokertable "
                              f"hands list {path}")
        if kind == "journal":
            inferred, snapshot, events = journal_start(path, configured="profile" in given)
            session = SessionConfig(**{**inferred, **given})
            records = replay_table_events(events, session, snapshot, sys.stderr,
                                          where=str(path), give_profile=give)
        else:
            from controller.inputs.text_files import read_text_file

            lines = read_text_file(path, "table events (JSON lines)").splitlines()
            records = event_stream(lines, str(path), SessionConfig(**given) if given else None,
                                   errors=True, give_profile=give)
    for record in records:
        sys.stdout.write(record_json(record) + "\n")
    return 0


def _add_selection(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", metavar="SOURCE",
                        help="records.db (the recorder's store), journal.db (a table's journal), "
                        "records.jsonl or replay-events output, a table-event stream, or - "
                        "(JSON lines on stdin)")
    parser.add_argument("--venue", help="only this venue's hands (a league's store, or its "
                        "JSON export)")
    parser.add_argument("--table", help="only this table's hands")
    parser.add_argument("--player", help="only hands this player played")
    parser.add_argument("--hand", type=_int_in(1), help="only this hand number (of its table)")
    parser.add_argument("--game", choices=("cash", "tournament"),
                        help="only a cash game's hands (a cash rule profile's tables, CG) or "
                        "only tournaments' (a room deals both)")
    parser.add_argument("--since", metavar="TIME",
                        help="hands begun at or after TIME (2026-11-25, 2026-11-25T14:30 in "
                        "this machine's time zone, or seconds since 1970)")
    parser.add_argument("--until", metavar="TIME", help="hands begun before TIME")
    parser.add_argument("--limit", type=_int_in(1), help="at most this many hands: the first "
                        "(oldest) that match; the next ones with --since")
    parser.add_argument("--hero", metavar="NAME",
                        help="a player's own history: only his hands, his own hole cards and "
                        "those tabled")
    parser.add_argument("--full", action="store_true",
                        help="every hole card, also those nobody tabled (warns; for the room's "
                        "archive only)")
    parser.add_argument("--config", metavar="table.toml",
                        help="a journal's or event stream's table configuration (its table id, "
                        "rule profile, seats); by default the journal's own table id and "
                        "pvb-2020")


def _add_format(parser: argparse.ArgumentParser, default: str) -> None:
    from controller.history.formats import FORMATS

    parser.add_argument("--format", choices=FORMATS, default=default,
                        help=f"json (hand records), phh (PokerKit and research), stars "
                        f"(PokerStars-style text for tracking software) or ohh (Open Hand "
                        f"History JSON for tracking software); default {default}")
    parser.add_argument("--tournament", type=_int_in(1), metavar="N",
                        help="with --format stars or ohh: the tournament number (default: the "
                        "UTC date of the first hand, e.g. 20261125)")
    parser.add_argument("--tournament-config", metavar="tournament.toml",
                        help="with --format ohh: the tournament service's configuration (its "
                        "name, buy-in, start stack, levels); with --hero and --out, or "
                        "--every-player, each player's tournament summary (.ots: places and "
                        "prizes) from the standings the tournament exported")


def _every_player_dir(export: _Parser) -> Callable[[list[str]], list[str] | None]:
    """The older ``--every-player DIR``, for a release: ``--every-player --out DIR`` now."""

    def rewrite(argv: list[str]) -> list[str] | None:
        at = _option_at(argv, "--every-player")
        if at is None or _option_at(argv, "--out") is not None:
            return None
        name, eq, value = argv[at].partition("=")
        if eq:
            new = [*argv[:at], name, "--out", value, *argv[at + 1:]]
        elif at + 1 < len(argv) and not argv[at + 1].startswith("-"):
            new = [*argv[:at], name, "--out", argv[at + 1], *argv[at + 2:]]
        else:
            return None
        _warn_older(export.prog, "--every-player DIR", "--every-player --out DIR")
        return new
    return rewrite


def add_hands_commands(sub: argparse._SubParsersAction[_Parser]) -> None:
    hands = sub.add_parser("hands", help="list, show and export the hands kept: the public "
                           "view, a player's own, or the full records")
    what = hands.add_subparsers(dest="what", required=True, parser_class=_Parser)
    listing = what.add_parser("list", help="one line per hand")
    _add_selection(listing)
    listing.set_defaults(run=_list)
    show = what.add_parser("show", help="the chosen hands in full")
    _add_selection(show)
    _add_format(show, "json")
    show.set_defaults(run=_show)
    export = what.add_parser("export", help="the chosen hands as a file players' tools read")
    _add_selection(export)
    _add_format(export, "json")
    export.add_argument("--out", metavar="FILE", help="write here (default: stdout); with "
                        "--every-player, the directory of the players' files")
    export.add_argument("--every-player", action="store_true",
                        help="each player's own hands (as --hero) to a file of his own in --out "
                        "DIR, named after him: what a room hands its players after a tournament")
    export.older_forms.append(_every_player_dir(export))
    export.set_defaults(run=_export)

    journal = sub.add_parser("journal", help="a table's journal")
    journal_what = journal.add_subparsers(dest="what", required=True, parser_class=_Parser)
    export_journal = journal_what.add_parser(
        "export", help="write the journal as the table-event stream replay-events reads")
    export_journal.add_argument("journal", nargs="?", metavar="journal.db",
                                help="the journal (default: the one --config names)")
    export_journal.add_argument("--config", metavar="table.toml",
                                help="the table's configuration: its journal, table id, rule "
                                "profile and seats")
    export_journal.add_argument("--out", metavar="FILE", help="write here (default: stdout)")
    export_journal.set_defaults(run=_journal_export)


__all__ = ["add_hands_commands", "replay_events_command"]
