"""`pokertable room`: the room on one machine. A Mosquitto configured by `broker init`, the
tournament clock on a short demo structure (its levels drive the tables' blinds), several
simulated tables (each `pokertable table --simulate` in its own process, real drivers on ptys,
publishing over MQTT), the recorder, and a console floor that shows what a ``display`` login
receives on ``#``: the clock, states, events and public records, never an unrevealed hole card.

The room works in a temporary directory, removed at the end, or with ``keep`` in a directory
that stays: the recorder's ``records.db`` (every hand, for `pokertable hands`), each table's
journal and records, the clock's and the floor's stores. The end says where the hands are.

With ``--tournament`` the tournament runs too: the floor registers six players a table and draws
the seats, the simulated dealers seat nobody themselves, and the room plays to one winner
(eliminations placed, tables balanced and broken between hands) unless stopped first.

With ``--cash`` the tables are cash tables instead (controller/demo/cash_room.py): no clock, the
cash floor seats the players from its waiting lists, hold'em and pot-limit Omaha, straddles,
bomb pots and runs twice.
"""

from __future__ import annotations

import contextlib
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from controller.demo import cash_room
from controller.errors import ConfigError
from controller.mqtt.client import connect, new_client
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import (
    BadMessage,
    ClockState,
    EventMessage,
    RecordMessage,
    ServiceStatus,
    StatusMessage,
    decode,
)
from controller.mqtt.topics import Topics
from controller.room.cash.view import CashState, CashStatus
from controller.room.clock.service import ClockService
from controller.room.clock.store import ClockStore
from controller.room.clock.structure import Structure
from controller.room.floor.accounts import Accounts, save_accounts, set_password
from controller.room.floor.config import BroadcastSection
from controller.room.floor.player_tokens import PlayerLinks
from controller.room.floor.server import FloorServer
from controller.room.recorder import Recorder, SqliteRecordStore
from controller.room.tournament.ledger import Settings, TableSpec
from controller.room.tournament.service import TournamentService
from controller.room.tournament.store import TournamentStore
from controller.room.tournament.view import PublishedState

# Levels short enough that a few simulated hands see the blinds go up.
DEMO_STRUCTURE = Structure.model_validate({
    "name": "demo", "chips": [1, 5, 25, 100],
    "levels": [{"sb": 50, "bb": 100, "minutes": 0.25}, {"sb": 100, "bb": 200, "minutes": 0.25},
               {"sb": 200, "bb": 400, "bb_ante": 400, "minutes": 30}],
    "breaks": [{"after_level": 2, "minutes": 0.25}],  # a visitor sees a break in the first minute
})
# The tournament's: short stacks and blinds that double every half minute, so that a room of
# four tables plays to its winner in minutes (a break after level 2, as the demo's).
TOURNAMENT_STRUCTURE = Structure.model_validate({
    "name": "demo tournament", "chips": [1, 5, 25, 100, 500, 1000, 5000],
    "late_registration_ends": 1,
    "levels": [{"sb": 50, "bb": 100, "minutes": 0.25}, {"sb": 100, "bb": 200, "minutes": 0.25},
               *({"sb": sb, "bb": 2 * sb, "bb_ante": 2 * sb, "minutes": 0.5}
                 for sb in (200, 400, 800, 1500, 3000, 5000, 10_000)),
               {"sb": 20_000, "bb": 40_000, "bb_ante": 40_000, "minutes": 60}],
    # (the break colours the 1s, 5s and 25s up: the tables run a chip race, RULES T5)
    "breaks": [{"after_level": 2, "minutes": 0.25, "colour_up": [1, 5, 25]}],
    "entry": {"stack": 3_000, "buy_in": 20},
    "prizes": {"payouts": [{"up_to": 8, "percent": [65, 35]}, {"percent": [50, 30, 20]}]}})
DEMO_PLAYERS = ["Anna", "Ben", "Cem", "Dora", "Emil", "Fay", "Gus", "Hana", "Ivo", "Jule",
                "Kai", "Lea", "Mo", "Nele", "Ole", "Pia", "Rafa", "Sina", "Tom", "Uta", "Vic",
                "Wim", "Xena", "Yuri", "Zora", "Alma", "Bela", "Carl", "Dilan", "Edda", "Finn",
                "Greta", "Hugo", "Ines", "Jan", "Kira", "Lars", "Mira", "Nils", "Olga", "Paul",
                "Rosa", "Sven", "Tara", "Udo", "Vera", "Wolf", "Yara"]  # six a table, 8 tables
DEMO_CLUBS = ["Asse Berlin", "Bluff 05", None]
PER_TABLE = 6
HAND_FOR_HAND_AT = 75.0  # seconds after the start: the demo's director plays a few rounds
HAND_FOR_HAND_ROUNDS = 3

VENUE = "demo"
SHOWN_KINDS = {"hand_started", "action", "street", "show", "payout", "alert", "decision",
               "elimination", "wait", "level", "hold"}
QUIET_KINDS = {"alert", "decision", "elimination"}


class ConsoleFloor:
    """Prints the public traffic of the room, one line per event, as the display receives it
    (``quiet``: only the clock, alerts, eliminations and records, when the browser shows the
    rest)."""

    def __init__(self, broker: LocalBroker, out: TextIO, quiet: bool = False) -> None:
        self.out = out
        self.kinds = QUIET_KINDS if quiet else SHOWN_KINDS
        self.lock = threading.Lock()
        self.records = 0
        self.clock_seen: tuple[object, int] | None = None
        self.rounds_seen: tuple[bool, int | None] = (False, None)
        self.secrets_seen = 0  # messages on secure/ topics: the ACL keeps it at 0
        self.tournament_seen: tuple[object, ...] | None = None
        self.cash_seen: set[tuple[float, str]] = set()  # the cash floor's lines said
        root = Topics(VENUE).root
        self.client = new_client("display", broker.login("display"), broker.address())
        self.client.on_connect = lambda c, *_: c.subscribe(f"{root}/#", qos=1)
        self.client.on_message = self._on_message
        connect(self.client, broker.address())

    def _on_message(self, client: Any, userdata: Any, message: Any) -> None:
        topic: str = message.topic
        parts = topic.split("/")
        table = parts[4] if len(parts) > 4 and parts[3] == "table" else "-"
        try:
            if "/secure/" in topic:
                self.secrets_seen += 1
            elif topic.endswith("/clock/state"):
                clock = decode(ClockState, message.payload)
                key = (clock.status, clock.level)
                if key != self.clock_seen:
                    self.clock_seen = key
                    self._say(f"[clock] {clock.status}: level {clock.level}, blinds "
                              f"{clock.sb:,}/{clock.bb:,}")
                rounds = (clock.hand_for_hand, clock.round if clock.playing else None)
                if rounds != self.rounds_seen:
                    self.rounds_seen = rounds
                    self._say("[clock] hand-for-hand " + (
                        "off" if not clock.hand_for_hand else
                        f"round {clock.round}: tables {', '.join(clock.playing)}"
                        if clock.playing else "on: the hands in play finish first"))
            elif topic.endswith("/tournament/state"):
                self._tournament(PublishedState.model_validate_json(message.payload))
            elif topic.endswith("/cash/state"):
                self._cash(CashState.model_validate_json(message.payload))
            elif topic.endswith("/status") and table != "-":
                status = decode(StatusMessage, message.payload)
                self._say(f"[table {table}] {status.status}")
            elif topic.endswith("/cash/status"):
                cash = decode(CashStatus, message.payload)
                self._say(f"[cash] {cash.status}")
            elif topic.endswith("/status"):  # a central service: the clock, the recorder
                service = decode(ServiceStatus, message.payload)
                self._say(f"[{service.service}] {service.status}")
            elif topic.endswith("/event"):
                event = decode(EventMessage, message.payload).event
                if event.kind in self.kinds:
                    rule = f" ({event.rule})" if event.rule else ""
                    said = "alert: " if event.kind == "alert" else ""
                    self._say(f"[table {table}] hand {event.hand}: {said}{event.text}{rule}")
            elif topic.endswith("/record"):
                record = decode(RecordMessage, message.payload)
                self.records += 1
                self._say(f"[table {table}] record of hand {record.hand} "
                          f"({record.record.status}), id {record.id}")
        except BadMessage as exc:
            self._say(f"[floor] ignored a message on {topic}: {exc}")

    def _tournament(self, state: PublishedState) -> None:
        """A line when the seats settle after the draw, a bust or a move, and at the end."""
        if state.status == "registration" or any(s.moving for s in state.seats):
            return
        tables: dict[str, list[str]] = {}
        for line in state.seats:
            tables.setdefault(line.table or "-", []).append(line.player)
        key = (state.status, state.players_left, tuple(sorted((t, len(p))
                                                              for t, p in tables.items())))
        if key == self.tournament_seen:
            return
        self.tournament_seen = key
        where = "; ".join(f"table {t}: {', '.join(p)}" for t, p in sorted(tables.items()))
        self._say(f"[tournament] {state.players_left} of {state.players} players left; {where}")
        if state.status == "finished":
            top = ", ".join(f"{s.place}. {s.player} ({s.prize:,} {state.currency})"
                            for s in state.standings[:3])
            self._say(f"[tournament] over: {top}")

    def _cash(self, state: CashState) -> None:
        """What the cash floor did since the last state, a line each (seats taken and left,
        calls, moves)."""
        for happening in state.recent:
            if (happening.at, happening.text) in self.cash_seen:
                continue
            self.cash_seen.add((happening.at, happening.text))
            rule = f" ({happening.rule})" if happening.rule else ""
            self._say(f"[cash] {happening.text}{rule}")

    def _say(self, line: str) -> None:
        with self.lock:
            self.out.write(line + "\n")
            self.out.flush()

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _demo_director(server: FloorServer, clock: ClockService, stop: threading.Event) -> None:
    """What a visitor should see early: after the break, hand-for-hand for a few rounds, switched
    on and off from the floor as a director would (PVB 35a)."""
    if stop.wait(HAND_FOR_HAND_AT):
        return
    server.send("clock", "hand_for_hand", {"on": True}, by="floor:demo")
    deadline = time.monotonic() + 180
    while not stop.wait(1.0) and time.monotonic() < deadline:
        if clock.clock.position.round > HAND_FOR_HAND_ROUNDS:
            break
    if not stop.is_set():
        server.send("clock", "hand_for_hand", {"on": False}, by="floor:demo")


def _last_line(path: Path) -> str:
    lines = path.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    return lines[-1] if lines else "nothing said"


def _watch_tables(processes: dict[int, subprocess.Popen[bytes]], logs: dict[int, Path],
                  hands: int, stop: threading.Event, out: TextIO, serve_on: bool = False) -> int:
    """Until ``stop`` (or, with ``hands``, until every table played them; ``serve_on``: until
    ``stop`` even when no table plays any more). A table that stops on its own (someone
    stopped its process) is said in one line; the others play on."""
    failed = 0
    running = dict(processes)
    while (running or serve_on) and not stop.is_set():
        for n, process in list(running.items()):
            code = process.poll()
            if code is None:
                continue
            del running[n]
            if code != 0:
                failed += 1
                out.write(f"[room] table {n} stopped (exit {code}): {_last_line(logs[n])}\n")
            elif hands == 0:
                out.write(f"[room] table {n} stopped; the other tables play on\n")
            out.flush()
        stop.wait(0.2)
    return failed


def _stop_tables(processes: dict[int, subprocess.Popen[bytes]], out: TextIO) -> None:
    """A clean stop of every table still running: each seals its last hand and hands it over
    (RULES H3); one that does not stop within 30 s is killed, and that is said."""
    for process in processes.values():
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 30
    for n, process in processes.items():
        try:
            process.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
            out.write(f"[room] table {n} did not stop within 30 s and was killed; its journal "
                      "keeps the hand for its next start\n")


def _run_tournament(broker: LocalBroker, server: FloorServer, tables: int, work: Path,
                    out: TextIO) -> tuple[TournamentService, TournamentStore]:
    """The tournament service, six players a table registered by the floor and drawn."""
    settings = Settings(name="pokertable demo", structure=TOURNAMENT_STRUCTURE, seats=PER_TABLE,
                        tables=[TableSpec(table=str(n), seats=PER_TABLE)
                                for n in range(1, tables + 1)])
    store = TournamentStore(work / "tournament.db")
    service = TournamentService(broker.address(), broker.login("tournament"), settings, store,
                                export=work / "standings").start()
    service.connected.wait(5)
    for k, name in enumerate(DEMO_PLAYERS[:PER_TABLE * tables]):
        args: dict[str, Any] = {"name": name}
        club = DEMO_CLUBS[k % len(DEMO_CLUBS)]
        if club:
            args["club"] = club
        server.send("tournament", "register", args, by="floor:demo")
    drawn = server.send("tournament", "draw", {}, by="floor:demo")
    out.write(f"[tournament] {drawn.reason}\n")
    out.flush()
    return service, store


def _until_a_winner(service: TournamentService, stop: threading.Event, out: TextIO) -> None:
    """Says the end once; the room serves on (the standings on the floor) until Ctrl-C."""
    while not stop.wait(1.0):
        if service.state().status == "finished":
            out.write("[room] the tournament has its winner: its standings stay on the floor "
                      "display (/tournament, /seats) until Ctrl-C\n")
            out.flush()
            return


@contextlib.contextmanager
def _workplace(keep: Path | None) -> Iterator[Path]:
    """Where the room works: a temporary directory, or ``keep``, new or empty (an earlier
    room's journals and clock would mix with this one's), made 0700 (hole cards are in it)."""
    if keep is None:
        with tempfile.TemporaryDirectory() as tmp:
            yield Path(tmp)
        return
    from controller.storage.private_files import private_dir

    if keep.exists() and not keep.is_dir():
        raise ConfigError(f"--keep {keep}: is a file, not a directory")
    if keep.is_dir() and any(keep.iterdir()):
        raise ConfigError(f"--keep {keep}: holds files already (an earlier room's?): give a "
                          "new or empty directory")
    try:
        work = private_dir(keep)
    except OSError as exc:
        raise ConfigError(f"--keep {keep}: {exc.strerror or exc}") from None
    yield work


def _where_the_hands_are(work: Path, keep: Path | None) -> str:
    if keep is None:
        return ("the room's hands were in a temporary directory, removed now: `pokertable room "
                "--keep DIR` keeps them (`make demo` does, in demo-room/)")
    return (f"the room's hands: {work / 'records.db'} (the recorder's store, every hole card: "
            f"keep it private), read with `pokertable hands list {work / 'records.db'}`; every "
            f"player's own hands, a file each: `pokertable hands export {work / 'records.db'} "
            f"--every-player --out {work / 'players'} --format stars`; each table's journal "
            f"and records in {work / 'table-N'}/")


def run_room(tables: int = 2, hands: int = 2, out: TextIO = sys.stdout, port: int = 0,
             stop: threading.Event | None = None, tournament: bool = False,
             keep: Path | None = None, sim_readers: str = "pt1", cash: bool = False) -> int:
    """The room on this machine. ``hands``: each table plays that many and the room stops;
    0: it plays on until ``stop`` is set (Ctrl-C or SIGTERM in `pokertable room`), with
    ``tournament`` past its winner (the standings stay on the floor). ``cash``: cash tables
    seated by the cash floor, no clock (cash_room.py). ``keep``: the directory its work stays
    in (else a temporary one)."""
    if cash and tournament:
        raise ConfigError("a room demo plays a tournament or cash games: --cash or "
                          "--tournament, not both")
    with _workplace(keep) as work, LocalBroker(
            VENUE, tables=tables, tls_bind="127.0.0.1") as broker:  # (nothing on the network)
        out.write(f"broker: Mosquitto on 127.0.0.1:{broker.port} (venue {VENUE!r}, "
                  f"{tables} tables, ACL and passwords from `pokertable broker init`)\n")
        if keep is not None:
            out.write(f"work: {work} (kept: the recorder's records.db, the tables' journals)\n")
        store = SqliteRecordStore(work / "records.db")
        recorder = Recorder(broker.address(), broker.login("recorder"), store).start()
        console = ConsoleFloor(broker, out, quiet=hands == 0)
        clock_store = clock = None
        if not cash:  # (cash games have fixed blinds: no clock)
            clock_store = ClockStore(work / "clock.db")
            clock = ClockService(broker.address(), broker.login("clock"),
                                 TOURNAMENT_STRUCTURE if tournament else DEMO_STRUCTURE,
                                 clock_store).start()
            clock.connected.wait(5)
        password = secrets.token_urlsafe(9)
        staff = set_password(Accounts(), "floor", password)
        save_accounts(work / "floor-users.json",
                      set_password(staff, "broadcast", password, ["broadcast"]))
        try:
            server = FloorServer(broker.address(), broker.login("floor"), db=work / "floor.db",
                                 accounts=work / "floor-users.json",
                                 secret=work / "floor-secret", port=port,
                                 records=work / "records.db", broadcast=BroadcastSection(
                                     feature_table="1",  # no audience: no delay
                                     closed_door=[str(n) for n in range(1, tables + 1)])
                                 ).start()
        except OSError as exc:
            if clock is not None and clock_store is not None:
                clock.close()
                clock_store.close()
            console.close()
            recorder.close()
            store.close()
            raise ConfigError(f"the floor display cannot listen on 127.0.0.1:{port} "
                              f"({exc.strerror}): give another --floor-port (make demo "
                              "FLOOR_PORT=8090)") from None
        screens = (f"{server.url}/cash (the lists), {server.url}/cash?tv=1 (TV)" if cash
                   else f"{server.url}/clock (TV)")
        out.write(f"floor display: {server.url}/ (room), {screens}; floor login: floor / "
                  f"{password}\n")
        out.write(f"broadcast feed (an OBS browser source, docs/broadcast.md): {server.url}"
                  f"/broadcast; login broadcast / {password} (closed-door: no delay)\n")
        out.flush()
        running: tuple[TournamentService, TournamentStore] | None = None
        if tournament:
            running = _run_tournament(broker, server, tables, work, out)
            token = PlayerLinks(server.store).issue(DEMO_PLAYERS[0], by="floor:demo")
            out.write(f"a player's own page, as on {DEMO_PLAYERS[0]}'s phone (docs/players.md): "
                      f"{server.url}/p/{token}\n")
        else:  # (a player's page follows his tournament: this room plays none)
            out.write("a player's own page: none without a tournament (make demo plays one: "
                      "pokertable room --tournament; docs/players.md)\n")
        cashing = cash_room.start_cash(broker, tables, work) if cash else None
        if clock is not None:
            server.send("clock", "start", {}, by="floor:demo")  # the floor starts the clock
        tables_out = {n: work / f"table-{n}.log" for n in range(1, tables + 1)}
        processes: dict[int, subprocess.Popen[bytes]] = {}
        for n in range(1, tables + 1):
            with tables_out[n].open("wb") as log_file:
                # Its own session: a terminal's Ctrl-C reaches the room alone, which stops the
                # tables first, while the broker still takes their last records.
                # (the tournament's tables are its size: the floor and it agree)
                config = (cash_room.table_config(broker, work / f"table-{n}", n) if cash else
                          broker.table_config(work / f"table-{n}", n,
                                              seats=PER_TABLE if tournament else 10))
                processes[n] = subprocess.Popen(
                    [sys.executable, "-m", "controller.cli", "table", "--config", str(config),
                     "--simulate",
                     "--hands", str(hands), "--seed", str(n), "--sim-readers", sim_readers,
                     *(["--tournament"] if tournament else []), *(["--cash"] if cash else [])],
                    stdout=subprocess.DEVNULL, stderr=log_file, start_new_session=True)
        stop = stop or threading.Event()
        floor_done = threading.Event()  # (the demo's cash floor stops with the tables)
        if cashing is not None:
            director = cash_room.CashDirector(server, cashing[0], tables, out)
            threading.Thread(target=director.run, args=(floor_done,), daemon=True).start()
        if hands == 0 and running is not None:
            threading.Thread(target=_until_a_winner, args=(running[0], stop, out),
                             daemon=True).start()
        elif hands == 0 and clock is not None:
            threading.Thread(target=_demo_director, args=(server, clock, stop),
                             daemon=True).start()
        failed = _watch_tables(processes, tables_out, hands, stop, out,
                               serve_on=hands == 0 and running is not None)
        floor_done.set()
        _stop_tables(processes, out)
        # Each table's clean stop seals its last hand (RULES H3) and waits for the recorder.
        if hands:
            recorder.wait_for(tables * hands, timeout=10)
        time.sleep(0.5)
        for service, journal in [s for s in (running, cashing) if s is not None]:
            service.close()
            journal.close()
        server.close()
        if clock is not None and clock_store is not None:
            clock.close()
            clock_store.close()
        console.close()
        recorder.close()
        kept = store.ids()
        store.close()
        out.write(f"recorder: {len(kept)} full hand records kept, {recorder.duplicates} "
                  f"duplicates dropped; this console, on a display's login, saw {console.records} "
                  f"public records "
                  f"and {console.secrets_seen} secure ones (each table sealed its last "
                  f"finished hand when it stopped, RULES H3; a hand still in play at the stop "
                  f"would go on at the table's next start, and the demo's tables do not "
                  f"start again)\n")
        out.write(_where_the_hands_are(work, keep) + "\n")
        return 1 if failed else 0


__all__ = ["run_room"]
