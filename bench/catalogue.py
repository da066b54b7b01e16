"""Every benchmark `make bench` runs: its script, the arguments of a quick run, what it measures
(prose without figures: every figure in docs/performance.md comes from the run), and how its
headline figures are read back out of its output for the summary table.

The headline readers take a bench's printed output and return rows of (figure, this run, the
reference or target). They are pure: tests/test_bench_docs.py reads docs/performance.md's copy
of each output with them and checks that the summary there (and in README.md) says the same.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

Row = tuple[str, str, str]


@dataclass(frozen=True)
class Bench:
    name: str
    script: str  # under bench/
    title: str
    about: str
    quick: tuple[str, ...] = ("--quick",)
    full: tuple[str, ...] = ()
    headlines: Callable[[str], list[Row]] = field(default=lambda _: [])
    # Left out of a quick run unless asked for (the test suite: minutes, and not a quick thing).
    in_quick: bool = True


def _find(pattern: str, text: str) -> re.Match[str] | None:
    return re.search(pattern, text, re.M | re.S)


def replay(out: str) -> list[Row]:
    """One pair of rows per corpus the bench replayed (each under its own "N hands, median of
    ..." heading), then the start-up."""
    rows = []
    heads = list(re.finditer(r"^(?:(?P<name>[^\n:]+): )?(?P<n>[\d,]+) hands(?: \((?P<dir>[^)]*)"
                             r"\))?, median of \d+ alternating rounds$", out, re.M))
    for k, head in enumerate(heads):
        part = out[head.end():heads[k + 1].start() if k + 1 < len(heads) else len(out)]
        corpus = f"{head['n']} hands, {head['name'] or head['dir'] or 'PHH'}"
        if m := _find(r"ratio: ([\d.]+)x PokerKit in process", part):
            rows.append((f"PHH replay, {corpus}: `pokertable replay` whole process against "
                         "PokerKit in process", f"{m[1]}x", "target 25x"))
        if m := _find(r"engines in process, parse excluded: pokertable ([\d,]+) hands/s, "
                      r"PokerKit ([\d,]+) hands/s \(([\d.]+)x\)", part):
            rows.append((f"PHH replay, {corpus}: engine against engine, parse excluded",
                         f"{m[3]}x ({m[1]} hands/s)", f"PokerKit {m[2]} hands/s"))
    if m := _find(r"^start-up: `pokertable replay` of one hand (\d+) ms, python -c pass (\d+) ms",
                  out):
        rows.append(("start-up, a one-hand `pokertable replay`", f"{m[1]} ms",
                     f"target 150 ms; `python -c pass` {m[2]} ms"))
    return rows


def evaluators(out: str) -> list[Row]:
    ours = _find(r"^phevaluator \(ours\)\s+hold'em 7\s+([\d,]+)", out)
    theirs = _find(r"^PokerKit StandardHighHand\s+hold'em 7\s+([\d,]+)", out)
    if not (ours and theirs):
        return []
    return [("hand evaluation, hold'em 7 cards (phevaluator)", f"{ours[1]} hands/s",
             f"PokerKit {theirs[1]} hands/s")]


def readers(out: str) -> list[Row]:
    m = _find(r"(\d+) readers, each fed .*?: ([\d.]+)% of one core in all \(limit (\d+)%\)", out)
    return [(f"{m[1]} PT1 readers fed at 115,200 baud, CPU", f"{m[2]}% of one core",
             f"limit {m[3]}%")] if m else []


def chip_readers(out: str) -> list[Row]:
    rows = []
    if m := _find(r"20-chip stack read, every zone busy \(ms\)\s+(\d+) / (\d+)\s+- / (\d+)", out):
        rows.append(("reader chips: a 20-chip stack read whole, median / worst",
                     f"{m[1]} / {m[2]} ms", f"settle time {m[3]} ms"))
    if m := _find(r"drivers CPU on a Pi 4, x([\d.]+) \(% of one core\)\s+([\d.]+)\s+(\d+)", out):
        rows.append((f"reader chips' drivers on a Pi 4 (estimated: x{m[1]} this machine)",
                     f"{m[2]}% of one core", f"target {m[3]}%"))
    return rows


def table_service(out: str) -> list[Row]:
    rows = []
    m = _find(r"driver event -> state at the output : p50\s+([\d.]+) ms\s+p99\s+([\d.]+) ms"
              r"\s+\(target p99 < (\d+) ms\)", out)
    ref = _find(r"reference: journal append alone\s+: p50\s+[\d.]+ ms\s+p99\s+([\d.]+) ms", out)
    if m and ref:
        rows.append(("table service: driver event -> state, p99", f"{m[2]} ms",
                     f"target < {m[3]} ms; journal append alone {ref[1]} ms"))
    if m := _find(r"RSS of .*?: ([\d.]+) MB \(bare python: ([\d.]+) MB; target < (\d+) MB\)",
                  out):
        rows.append(("table service: resident memory", f"{m[1]} MB",
                     f"target < {m[3]} MB; bare Python {m[2]} MB"))
    return rows


def mqtt(out: str) -> list[Row]:
    rows = []
    if m := _find(r"p99 ratio to bare \(target at most ([\d.]+)x\): MQTT side ([\d.]+)x, "
                  r"whole table ([\d.]+)x", out):
        rows.append(("MQTT: a table's MQTT side, p99 against bare paho's", f"{m[2]}x",
                     f"target at most {m[1]}x"))
    for part, body, bound, n in re.findall(r"^(2[ab])\. (.*?)largest N with p99 under ([\d.]+) "
                                           r"ms and nothing lost: (\d+)", out, re.M | re.S):
        what = "whole tables" if part == "2a" else "tables' MQTT side"
        tried = re.findall(r"^\s+(\d+)\s+\d+\s+\d+\s+\d+\s+[\d.]+\s+[\d.]+", body, re.M)
        last = tried[-1] if tried else "?"
        rows.append((f"MQTT: {what} on one broker, p99 under {bound} ms, nothing lost",
                     f"{n} tables", f"not at {last} tables" if last != n else
                     f"every N tried, up to {last}"))
    return rows


def clock(out: str) -> list[Row]:
    rows = []
    ntp = _find(r"loopback: NTP, least round trip of 16\s+\d+\s+[\d.]+\s+([\d.]+)\s+< (\d+)", out)
    naive = _find(r"loopback: naive one-way \(reference\)\s+\d+\s+[\d.]+\s+([\d.]+)", out)
    if ntp and naive:
        rows.append(("clock: a table's time error on loopback, p99", f"{ntp[1]} ms",
                     f"target < {ntp[2]} ms; naive one-way {naive[1]} ms"))
    if m := _find(r"^\s+50, rounds 2 to \d+\s+\d+\s+[\d.]+\s+([\d.]+)\s+< (\d+)", out):
        rows.append(("clock: hand-for-hand release at 50 tables, p99", f"{m[1]} ms",
                     f"target < {m[2]} ms"))
    return rows


def clock_load(out: str) -> list[Row]:
    m = _find(r"(\d+) tables syncing, a state/s each\s+([\d.]+)\s+([\d.]+)", out)
    ref = _find(r"no tables \(reference\)\s+([\d.]+)\s+([\d.]+)", out)
    if not (m and ref):
        return []
    return [(f"clock with {m[1]} tables syncing and publishing, CPU / memory",
             f"{m[2]}% of one core, {m[3]} MB", f"no tables {ref[1]}%, {ref[2]} MB")]


def tournament(out: str) -> list[Row]:
    m = _find(r"place \+ decide p50 at 1,000 players: ([\d.]+) ms \(target < (\d+) ms; at 100 "
              r"players ([\d.]+) ms\)", out)
    return [("tournament at 1,000 players: an elimination placed and decided, p50",
             f"{m[1]} ms", f"target < {m[2]} ms; at 100 players {m[3]} ms")] if m else []


def floor(out: str) -> list[Row]:
    rows = []
    screen = r"floor server -> screen \(SSE\)\s+\d+\s+([\d.]+)\s+([\d.]+)\s+[\d.]+\s+< (\d+)"
    bare = r"bare MQTT subscriber \(reference\)\s+\d+\s+([\d.]+)\s+([\d.]+)"
    if m := _find(r"^\s+(\d+)\s+([1-9]\d*) " + screen, out):
        ref = _find(rf"^\s+{m[1]}\s+{m[2]} " + bare, out)
        rows.append((f"floor push to a screen while {m[2]} pages log in ({m[1]} tables), p99",
                     f"{m[4]} ms", f"target < {m[5]} ms; bare MQTT {ref[2] if ref else '?'} ms"))
    quiet = re.findall(r"^\s+(\d+)\s+0 " + screen, out, re.M)
    if quiet:
        tables, _, p99, target = max(quiet, key=lambda q: int(q[0]))
        ref = _find(rf"^\s+{tables}\s+0 " + bare, out)
        rows.append((f"floor push to a screen at {tables} tables, p99", f"{p99} ms",
                     f"target < {target} ms; bare MQTT {ref[2] if ref else '?'} ms"))
    return rows


def broadcast_equity(out: str) -> list[Row]:
    m = _find(r"^in the equity worker \(now\)\s+\d+\s+\d+\s+[\d.]+\s+([\d.]+)", out)
    ref = _find(r"^nothing else\s+\d+\s+\d+\s+[\d.]+\s+([\d.]+)", out)
    return [("a push's delay while a broadcast's equities are built, p99", f"{m[1]} ms",
             f"nothing else {ref[1]} ms")] if m and ref else []


def soak(out: str) -> list[Row]:
    m = _find(r"^perfect dealer: \d+ tables, ([\d,]+) hands.*?\n\s+([\d,]+) hands/s \([\d,]+ hands "
              r"in ([\d.]+) s; target ([\d,]+) hands/s", out)
    rows = [("soak, perfect dealer: hands per second", f"{m[2]} ({m[1]} hands in {m[3]} s)",
             f"target {m[4]}")] if m else []
    faulty = _find(r"^faulty dealer.*?: .*?(\d+) faults injected.*?\n.*?false alerts (\d+), "
                   r"faults without their alert (\d+)", out)
    if faulty:
        rows.append(("soak, faulty dealer: faults without their alert, false alerts",
                     f"{faulty[3]} of {faulty[1]}, {faulty[2]}", "target 0, 0"))
    return rows


def store_search(out: str) -> list[Row]:
    rows = []
    for store, hands, median, p95 in re.findall(
            r"^(SQLite|PostgreSQL) \(([\d,]+) hands\): .*?\n\s+search player, a page of 100\s+"
            r"median\s+([\d.]+) ms, p95\s+([\d.]+) ms", out, re.M):
        rows.append((f"record store, {store}: a player's page among {hands} hands, median",
                     f"{median} ms (p95 {p95})", "target < 50 ms"))
    return rows


def export(out: str) -> list[Row]:
    formats = re.findall(r"^hands export --format (\w+)\s+([\d,]+) hands/s", out, re.M)
    ref = _find(r"^reference: read, parse, write JSON\s+([\d,]+) hands/s", out)
    if not (formats and ref):
        return []
    name, rate = min(formats, key=lambda f: int(f[1].replace(",", "")))
    return [(f"hands export, slowest format ({name}), whole process", f"{rate} hands/s",
             f"target 10,000; store read alone {ref[1]}")]


def suite(out: str) -> list[Row]:
    wall = _find(r"wall time\s+(\S+)\s+< (\S+)", out)
    passed = _find(r"tests passed\s+([\d,]+)", out)
    failed = _find(r"tests failed\s+([\d,]+)", out)
    cpu = _find(r"CPU time, pytest and its children\s+(\S+)", out)
    if not (wall and passed and failed and cpu):
        return []
    return [("test suite as `make test` runs it, wall time",
             f"{wall[1]} ({passed[1]} tests passed, {failed[1]} failed; CPU {cpu[1]})",
             f"target < {wall[2]}")]


BENCHES: tuple[Bench, ...] = (
    Bench("replay", "replay_throughput.py", "PHH replay against PokerKit",
          "Issue 37's measure of the engine. The same hand histories are replayed by a whole "
          "`pokertable replay` process (start-up, imports, reading and parsing every file, the "
          "replay, the JSON lines out) and by PokerKit, both parsing and replaying in the "
          "bench's own process and as a whole process of its own. Beside them: each engine's "
          "own rate in process with the files parsed beforehand, and the start-up of a one-hand "
          "replay next to `python -c pass`. The sides alternate over several rounds so that "
          "load on a shared machine hits both alike; in each round our whole process runs ten "
          "times in turns with PokerKit's replay of a tenth of the files each, so that both are "
          "timed over the same seconds (ours: the median of its runs, one run of a tenth of a "
          "second being mostly noise; PokerKit's: the sum of its tenths); the bench prints "
          "each round and the median of the rounds.",
          headlines=replay),
    Bench("evaluators", "evaluators.py", "Hand evaluators",
          "Why the engine evaluates with phevaluator: the same random hands evaluated as hold'em "
          "(seven cards) and Omaha (four and five, exactly two from the hand) by phevaluator "
          "through the engine's own functions, by PokerKit (always installed: the reference), "
          "and by eval7 and treys where they are installed.",
          headlines=evaluators),
    Bench("readers", "readers.py", "Reader drivers",
          "The serial readers' decoders on a stream with some garbage in it, beside a compiled "
          "regular expression's scan of the same bytes and the serial line's own rate; the "
          "latency from a frame's last byte written to a pseudo-terminal to the driver's event, "
          "beside a bare pyserial reader of the same frames; and the CPU that one driver "
          "process spends on three readers each fed at the full line rate, against the issue's "
          "limit.",
          headlines=readers),
    Bench("chip_readers", "chip_readers.py", "Reader chips on a ten-seat table",
          "The reader chips of docs/hardware.md (MFRC522 card antennas on one SPI bus, PN5180 "
          "chip zones on the other) simulated at the chip level in virtual time, with a hand in "
          "play on the felt: every SPI transfer costs its bytes at the bus speed plus an "
          "estimated kernel cost, every radio exchange its air time by ISO/IEC 14443 and 15693, "
          "and some chips miss an answer now and then. Printed beside their targets: the longest "
          "time between two scans of a zone, how soon a tall stack pushed into an empty zone is "
          "read whole (every other zone busy, then empty), and the drivers' own CPU (the "
          "simulators' measured and taken out), here and scaled to a Raspberry Pi 4 by an "
          "assumed factor (no Pi measured).",
          headlines=chip_readers),
    Bench("table_service", "table_service.py", "The table service",
          "Hands of six players checked down, cards from a simulated PT1 reader on a "
          "pseudo-terminal through the real TagReader, declares from the console: the latency "
          "from a driver handing over an event to the state at the output, through the journal "
          "(one fsync per event), the session and the sink; beside it, for the same events, the "
          "journal append alone and the session alone. Then the resident memory of "
          "`pokertable table --simulate` (service, drivers, simulators, dealer) beside a bare "
          "Python's.",
          headlines=table_service),
    Bench("mqtt", "mqtt.py", "MQTT through a real Mosquitto",
          "Part 1: one whole table (journal, session, `TableLink`) and a subscriber in its own "
          "process; after every table event, on the idle table, one bare paho message of the "
          "same size and one journal append, so that the rows see the machine in the same "
          "moments. Part 2: N simulated tables at ten events a second each, in worker "
          "processes with a floor client each, N growing until p99 passes the target or a "
          "message is lost: (a) whole tables, whose journals live in memory since in a room "
          "each table fsyncs to its own disk, and (b) the tables' MQTT side alone, the load the "
          "broker and the floor see from a room of Pis. The recorder runs in its own process "
          "and acknowledges every durable message end to end meanwhile.",
          headlines=mqtt),
    Bench("clock", "clock.py", "The clock's time sync and hand-for-hand",
          "Tables' MQTT side with wall clocks wrong by up to five minutes sync with one "
          "`ClockService` through a real Mosquitto; after every exchange the table's estimate is "
          "compared with its true offset, beside the naive one-way estimate from the same "
          "exchanges; then the same with random delay injected on each leg, so that every "
          "exchange is asymmetric. Then hand-for-hand rounds: the tables finish their hands a "
          "few milliseconds apart, and the time from the last one's state to each table's "
          "release is measured, the first round (the room entering hand-for-hand) apart from "
          "the rounds after it.",
          headlines=clock),
    Bench("clock_load", "clock_load.py", "The clock under a room's load",
          "`pokertable clock` as its own process; light tables, a login each, do towards it "
          "what a table's link does (quick time requests at start-up, then one every two "
          "seconds) and in the second case also publish a state a second, which the clock reads "
          "for hand-for-hand. The clock's CPU and resident memory come from /proc over the "
          "window, beside the same clock with no table at all.",
          headlines=clock_load),
    Bench("tournament", "tournament.py", "The tournament's core at a thousand players",
          "Players drawn at real `TableSession`s by the core's own seat requests, then "
          "eliminations one after another, each told to the core as a table tells it. Per "
          "elimination: placing it (the standings), deciding what follows (the next balancing "
          "move or break, holds, the chip count, the requests to the tables) and building the "
          "retained state, at a thousand players and, as the reference in the same run, at a "
          "hundred; and the memory the core holds.",
          headlines=tournament),
    Bench("floor", "floor.py", "The floor display under a room's load",
          "`pokertable floor` as its own process; light tables replay a recorded state stream "
          "at about a state a second each, carrying the time it was sent; screens read the "
          "server's push stream as a browser's EventSource does, and a bare MQTT subscriber "
          "reads the same states straight from the broker as the reference. Two windows per "
          "room size: nothing else, then while pages open as staff open them (the login page, "
          "a login with its own argon2id account, the room page and its files, the API calls, "
          "the push stream). The server's CPU and memory come from /proc.",
          headlines=floor),
    Bench("broadcast_equity", "broadcast_equity.py", "Pushes while a broadcast's equities are "
          "built",
          "The floor's web loop frames a table state for every message a thread hands it, and "
          "measures how late each arrives: with nothing else running, while a broadcast page's "
          "hand steps (a pre-flop Monte Carlo and exact later streets) are built on a thread of "
          "the same process (as before), and while they are built in the equity worker "
          "process (now).",
          headlines=broadcast_equity),
    Bench("soak", "soak.py", "The soak",
          "Simulated tables, each on its own random structure (rising blinds, antes of every "
          "kind or none, colour-ups), random stacks for all-ins and side pots, some pot-limit "
          "Omaha, the floor calling misdeals and the clock on players now and then. The "
          "simulated dealer's moves go into the real session as the events the drivers would "
          "give, in virtual time. First a perfect dealer (every alert but the floor's own "
          "misdeals is a false alert), then one who makes a mistake in one hand of ten (each "
          "must give exactly one alert). Hands per second are printed beside the target (the "
          "README's ten thousand hands in under a minute) and beside the session alone "
          "replaying one table's input.",
          headlines=soak),
    Bench("store_search", "store_search.py", "The record store: a player's hands",
          "A store of hands from several venues and many players, plus three regulars who sit "
          "in a fiftieth of all hands, in SQLite and in PostgreSQL (a throwaway cluster with "
          "fsync on). The first records go in through the store's own `add`, one committed "
          "transaction each (the insert rate); the rest are bulk-loaded. Each search returns "
          "validated records; beside it the same SQL fetching the rows unparsed, the search "
          "without the players' side table (a scan of every record), and on PostgreSQL a GIN "
          "index on the players' names, the other way to index them.",
          headlines=store_search),
    Bench("export", "export.py", "Hands out",
          "`pokertable hands export` of a soak's stored hands, repeated under new hand "
          "numbers, to each format, as a whole process (start-up, the store read row by row, "
          "each record parsed, its public view, the format written), with the process's own "
          "peak memory. The references in the same run: the store read and every record parsed "
          "and written back as JSON without the command line or a view, and PokerKit's own PHH "
          "writer on the same hands already parsed. Sides alternate; the best of the rounds "
          "counts.",
          headlines=export),
    Bench("suite", "suite.py", "The test suite's time",
          "The tests `make test` runs, as it runs them (pytest-xdist workers, work stealing), "
          "timed from outside: wall time, the CPU time of pytest and everything it started, the "
          "tests passed, and the slowest, beside issue 37's target for a fresh 2-core machine. "
          "Lint and type checks are not timed. Left out of a quick run; `BENCH_SUITE=0` leaves "
          "it out of a full one.",
          quick=(), headlines=suite, in_quick=False),
)
