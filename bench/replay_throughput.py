"""Replay throughput: the whole `pokertable replay` process against PokerKit, same hands, same run.

The measure of issue 37, on two corpora of 1,000 hands each, measured in the same run:

- **samples**: the PHH samples (tests/data/phh) repeated, each written as its own file so that
  nothing can be cached by path (`--phh DIR` takes the hands from another directory instead);
- **held out**: hands the tests never saw, made at bench time in a temporary directory from a
  fixed seed: seeded random no-limit hold'em hands (2 to 9 players, blinds, some antes, stacks
  from a few big blinds to deep, PokerKit's own legal actions picked at random, so that all-ins
  and side pots come often, every live hand shown at showdown) that PokerKit plays and writes
  with its own PHH writer (`HandHistory.from_game_state`, `dump`). Issue 37's 25x was measured
  on held-out hands, which PokerKit replays far slower than the short samples, so that start-up
  weighs less there.

For each corpus, side by side, each round and the median of the rounds:

- pokertable: the complete `pokertable replay` process (start-up, imports, reading and parsing
  every file, the replay, the JSON lines out);
- PokerKit 0.7.7: parse and replay of the same files in this process (its start-up and import are
  not charged to it), and the same as a whole process of its own (start-up and import charged);
- the ratio of ours to each;
- each engine's own rate, in process, parse excluded: our `replay_phh` of the parsed hands
  (finishing stacks included) against iterating PokerKit's states of its parsed hands;
- how many hands end with the same finishing stacks in both engines (ours as the measured process
  printed them; PokerKit's from its measured replay), and where they differ, whether ours are the
  file's own `finishing_stacks`.

And once a round: the start-up of `pokertable replay` of one hand, and `python -c pass` beside it.
The sides alternate so that load on a shared machine hits both alike. In each round our whole
process runs ten times, in turns with PokerKit's in-process replay of a tenth of the files each, so
that both are timed over the same seconds (this shared machine's speed drifts by a fifth from one
second to the next); ours counts as the median of its ten runs (one run of a tenth of a second is
mostly noise), PokerKit's as the sum of its tenths. PokerKit as a whole process and the start-up
figures run again and again until a second has gone by (at least once); their medians count. The
project's
modules are compiled to bytecode first, as an installed package's are (where
PYTHONDONTWRITEBYTECODE is set, each process would otherwise compile every module it imports).
`--compare-tree DIR` measures another source tree's `pokertable replay` in the same rounds (e.g.
`git archive` of an older commit unpacked in DIR): before and after in one run.

Set aside while the held-out corpus is made (another hand is drawn in its place): hands that would
cross one of the rule differences the README lists between the rules this project follows and
PokerKit's, which PokerKit's own state is asked about, never our engine: a raise by a player for
whom an all-in for less did not reopen the betting (PVB 42(6), 42(7): PokerKit allows it, so the
generator does not make it), and split pots with two or more odd chips, or split pots beside other
pots (PVB 62, 63(2): we give odd chips one at a time and never merge pots).

Run: .venv/bin/python bench/replay_throughput.py [--hands 1000] [--runs 3] [--phh DIR]
     [--seed 37] [--compare-tree DIR] [--quick]
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import io
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from pokerkit import Automation, ChipsPushing, HandHistory, Mode, NoLimitTexasHoldem, State

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_PHH = ROOT / "tests" / "data" / "phh"
sys.path.insert(0, str(ROOT))

SEED = 37
# The dealer's routine left to PokerKit; the cards (from this module's own shuffle), the
# players' actions and the showdown are played here, one by one.
AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.RUNOUT_COUNT_SELECTION,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)
_DECK = tuple(NoLimitTexasHoldem.deck)

def random_hand(rng: random.Random) -> tuple[NoLimitTexasHoldem, State]:
    """One hand played to its end by PokerKit, every choice drawn from ``rng``."""
    n = rng.randint(2, 9)
    bb = rng.choice([2, 100, 200, 1_000])
    sb = bb // 2
    ante_kind = rng.choice(["none", "none", "uniform", "bb-ante"])
    ante = 0 if ante_kind == "none" else rng.choice([bb // 4 or 1, bb // 2 or 1, bb])
    if ante_kind == "uniform":
        antes = [ante] * n
    else:
        antes = [0] * n
        if ante_kind == "bb-ante":
            antes[0 if n == 2 else 1] = ante  # heads-up lists read reversed (phh-std)
    # Every stack covers its blind and ante: a short big blind is one of the README's rule
    # differences (R4: we make the others match the full blind, PokerKit what was posted).
    floor = bb + ante + 1
    stacks = [rng.randint(floor, rng.choice([15, 40, 100, 250]) * bb + floor) for _ in range(n)]
    # A lone big blind ante is kept as dead money by both only without ante trimming
    # (README); uniform antes agree either way.
    trimming = ante_kind == "uniform" and rng.random() < 0.5
    # (tournament mode: PokerKit refuses a fold when checking is possible, as its reader does)
    game = NoLimitTexasHoldem(AUTOMATIONS, trimming, antes, (sb, bb), bb, mode=Mode.TOURNAMENT)
    state = game(stacks, n)
    deck = list(_DECK)
    rng.shuffle(deck)
    state.deck_cards = deque(deck)  # (PokerKit shuffled with the global random: not seeded)
    acted: dict[int, int] = {}  # this street: the bet each player last acted at
    street = state.street_index
    while state.status:
        if state.street_index != street:
            street = state.street_index
            acted.clear()
        if state.can_deal_hole():
            state.deal_hole()
        elif state.can_deal_board():
            state.deal_board()
        elif state.can_show_or_muck_hole_cards():
            state.show_or_muck_hole_cards(True)  # a complete showdown: every hand tabled
        elif state.actor_index is not None:
            _act(state, rng, acted)
        else:
            raise RuntimeError(f"PokerKit awaits an operation this generator does not do: {state}")
    return game, state

def _act(state: State, rng: random.Random, acted: dict[int, int]) -> None:
    """A legal action, more or less as a loose table plays: a bet faced is folded, called or
    raised; raises are the minimum, a random size (mostly small) or all-in.

    A player who has acted raises again only if the betting was reopened for him: an all-in for
    less than a full raise does not reopen it (PVB 42(6); several add up, 42(7)). PokerKit lets
    him raise; the rules do not, and the README lists it among the differences."""
    i = state.actor_index
    assert i is not None
    current = max(state.bets)
    acted_at = acted.get(i)
    acted[i] = current
    # the last full bet or raise (PokerKit counts from zero each street: the blinds set none)
    assert state.street is not None
    full = max(state.completion_betting_or_raising_amount,
               state.street.min_completion_betting_or_raising_amount)
    can_raise = state.can_complete_bet_or_raise_to() and (
        acted_at is None or current - acted_at >= full)
    draw = rng.random()
    if state.can_fold():  # (PokerKit refuses a fold when checking is possible)
        if draw < 0.3:
            state.fold()
            return
        draw = (draw - 0.3) / 0.7
        if draw < 0.7 or not can_raise:
            state.check_or_call()
            return
    elif draw < 0.65 or not can_raise:
        state.check_or_call()
        return
    low = state.min_completion_betting_or_raising_to_amount
    high = state.max_completion_betting_or_raising_to_amount
    assert low is not None and high is not None
    size = rng.random()
    if size < 0.35:
        amount = low
    elif size < 0.5:
        amount = high
    else:
        amount = low + int((high - low) * rng.random() ** 3)
    acted[i] = amount
    state.complete_bet_or_raise_to(amount)

def shared_alike(state: State) -> bool:
    """Whether both engines must share this hand's pots alike: no split pot, or a split of one
    pot with at most one odd chip (both give it to the first winner left of the button)."""
    pushes = [op for op in state.operations if isinstance(op, ChipsPushing)]
    for push in pushes:
        winners = [a for a in push.amounts if a]
        if len(winners) > 1 and (len(pushes) > 1 or sum(winners) % len(winners) > 1):
            return False
    return True

def phh_text(game: NoLimitTexasHoldem, state: State) -> bytes:
    """The hand as PokerKit's PHH writer writes it."""

    out = io.BytesIO()
    HandHistory.from_game_state(game, state).dump(out)
    return out.getvalue()

def hand_texts(count: int, seed: int = SEED) -> list[bytes]:
    """``count`` hands' PHH text, the same for the same seed."""
    rng = random.Random(seed)
    texts: list[bytes] = []
    while len(texts) < count:
        game, state = random_hand(rng)
        if shared_alike(state):
            texts.append(phh_text(game, state))
    return texts

def write_corpus(directory: Path, count: int, seed: int = SEED) -> list[str]:
    """The corpus as files ``00000.phh`` ... in ``directory``; their paths."""
    paths = []
    for k, text in enumerate(hand_texts(count, seed)):
        path = directory / f"{k:05d}.phh"
        path.write_bytes(text)
        paths.append(str(path))
    return paths

# ---------------------------------------------------------------- the samples


def write_hands(directory: Path, count: int, source: Path = SAMPLE_PHH) -> list[str]:
    """``count`` hands from ``source``'s .phh files, repeated, each written as its own file."""
    samples = sorted(source.glob("*.phh"))
    if not samples:
        raise SystemExit(f"no .phh files in {source}")
    texts = [p.read_bytes() for p in samples]
    paths = []
    for k in range(count):
        path = directory / f"{k:05d}.phh"
        path.write_bytes(texts[k % len(texts)])
        paths.append(str(path))
    return paths


# ---------------------------------------------------------------- the measures


def whole_process(args: list[str], cwd: Path = ROOT) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                            check=False, cwd=cwd)
    return time.perf_counter() - started, result.stdout


def time_ours(paths: list[str], tree: Path = ROOT) -> tuple[float, list[Any]]:
    """The whole `pokertable replay` process (of ``tree``'s source); each file's finishing
    stacks as it printed them (None where it refused the hand)."""
    elapsed, out = whole_process(["-m", "controller.cli", "replay", *paths], cwd=tree)
    lines = [json.loads(line) for line in out.splitlines()]
    if len(lines) != len(paths):
        raise SystemExit(f"pokertable replay printed {len(lines)} lines for {len(paths)} files")
    return elapsed, [line.get("finishing_stacks") for line in lines]


def time_pokerkit(paths: list[str]) -> tuple[float, list[Any]]:
    """PokerKit's parse and replay of every file in this process; each file's finishing stacks
    (None where PokerKit refused it)."""
    stacks: list[Any] = []
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns about the samples' custom fields
        for path in paths:
            try:
                with open(path, "rb") as fh:
                    history = HandHistory.load(fh)
                state: Any = None
                for state in history:  # noqa: B007  (the last state: the hand's end)
                    pass
                stacks.append(state.stacks)
            except Exception:  # counted: PokerKit may refuse a file
                stacks.append(None)
    return time.perf_counter() - started, stacks


# PokerKit as a whole process: the same loop as `time_pokerkit`, the files on the command line.
POKERKIT_PROCESS = """
import sys, warnings
from pokerkit import HandHistory
warnings.simplefilter("ignore")
for path in sys.argv[1:]:
    try:
        with open(path, "rb") as fh:
            for _state in HandHistory.load(fh):
                pass
    except Exception:
        pass
"""


def time_pokerkit_process(paths: list[str]) -> float:
    return whole_process(["-c", POKERKIT_PROCESS, *paths])[0]


def engine_rates(paths: list[str]) -> tuple[float, float]:
    """Hands per second of each engine in this process, the files parsed beforehand."""
    from controller.errors import PokertableError
    from controller.history.phh import parse_phh, replay_phh

    texts = [Path(p).read_text(encoding="utf-8") for p in paths]
    ours = [parse_phh(t) for t in texts]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = [HandHistory.loads(t) for t in texts]

        def pokerkit() -> None:
            for history in theirs:
                try:
                    for _state in history:
                        pass
                except Exception:  # (as above)
                    pass

        def pokertable() -> None:
            for phh in ours:
                with contextlib.suppress(PokertableError):  # (counted in the whole process)
                    replay_phh(phh).finishing_stacks()

        return len(paths) / best_of(pokertable), len(paths) / best_of(pokerkit)


T = TypeVar("T")

# PokerKit's replay in process is timed in this many parts, in turns with our whole processes
SLICES = 10


def repeated(run: Callable[[], tuple[float, T]], window: float = 1.0) -> tuple[float, T]:
    """The median time of ``run`` repeated until ``window`` seconds have gone by (at least
    once: timeit's autorange rule), and the first run's result: PokerKit as a whole process
    (each run fills the window alone) and the start-up figures. (Our whole replay and
    PokerKit's in process are timed in turns instead, `Corpus.round`: each of our runs then
    starts right after PokerKit's work, cold, which costs it up to a third of its time
    against runs back to back; the harder measure, and the one a user's single run meets.)"""
    times: list[float] = []
    first: T | None = None
    spent = 0.0
    while spent < window:
        elapsed, result = run()
        if not times:
            first = result
        times.append(elapsed)
        spent += elapsed
    return statistics.median(times), cast(T, first)


def best_of(run: Callable[[], Any], times: int = 3) -> float:
    best = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def agreement(paths: list[str], ours: list[Any], theirs: list[Any]) -> str:
    """How many hands end alike in both engines; where not, who agrees with the file."""
    from controller.history.phh import parse_phh

    same = refused = file_says_ours = 0
    for path, mine, other in zip(paths, ours, theirs, strict=True):
        if mine is None:
            refused += 1
        elif other is not None and len(mine) == len(other) and all(
                float(a) == float(b) for a, b in zip(mine, other, strict=True)):
            same += 1
        else:
            recorded = parse_phh(Path(path).read_text(encoding="utf-8")).finishing_stacks
            file_says_ours += recorded is not None and [float(v) for v in recorded] == [
                float(v) for v in mine]
    words = f"same finishing stacks in both engines: {same:,} of {len(paths):,} hands"
    if refused:
        words += f"; refused by pokertable: {refused:,}"
    if len(paths) - same - refused:
        words += (f"; different: {len(paths) - same - refused:,} (in {file_says_ours:,} of them "
                  "ours are the file's own finishing_stacks)")
    return words


# ---------------------------------------------------------------- the run


class Corpus:
    """One corpus's files and its rounds' figures."""

    def __init__(self, name: str, paths: list[str]) -> None:
        self.name, self.paths = name, paths
        self.ours: list[float] = []
        self.before: list[float] = []
        self.theirs: list[float] = []
        self.theirs_whole: list[float] = []
        self.rates: list[tuple[float, float]] = []
        self.agreement = ""

    def round(self, k: int, compare: Path | None) -> None:
        # Ours and PokerKit's in process in turns, over the same seconds: each of our whole
        # processes (the median counts), then PokerKit's replay of the next tenth of the files
        # (their sum counts). This shared machine's speed drifts by a fifth from one second
        # to the next: measured one after the other, the ratio of one round moved with it.
        ours_times: list[float] = []
        before_times: list[float] = []
        theirs, stacks, printed = 0.0, [], None
        step = -(-len(self.paths) // SLICES)
        for start in range(0, len(self.paths), step):
            elapsed, out = time_ours(self.paths)
            ours_times.append(elapsed)
            printed = out if printed is None else printed
            if compare is not None:
                before_times.append(time_ours(self.paths, compare)[0])
            part, found = time_pokerkit(self.paths[start:start + step])
            theirs += part
            stacks.extend(found)
        ours = statistics.median(ours_times)
        if compare is not None:
            self.before.append(statistics.median(before_times))
        theirs_whole = repeated(lambda: (time_pokerkit_process(self.paths), None))[0]
        rates = engine_rates(self.paths)
        if k == 1:
            self.agreement = agreement(self.paths, printed, stacks)
        self.ours.append(ours)
        self.theirs.append(theirs)
        self.theirs_whole.append(theirs_whole)
        self.rates.append(rates)
        before = "" if compare is None else f" (compared tree {self.before[-1]:.3f} s)"
        print(f"round {k}, {self.name}: pokertable {ours:.3f} s{before}, PokerKit {theirs:.3f} s, "
              f"ratio {theirs / ours:.1f}x (PokerKit as a process {theirs_whole:.3f} s, "
              f"{theirs_whole / ours:.1f}x); in process {rates[0]:,.0f} against "
              f"{rates[1]:,.0f} hands/s ({rates[0] / rates[1]:.1f}x)", flush=True)

    def summary(self, compare: Path | None) -> None:
        n, median = len(self.paths), statistics.median
        ours_s, theirs_s, whole_s = (median(self.ours), median(self.theirs),
                                     median(self.theirs_whole))
        ratios = [t / o for t, o in zip(self.theirs, self.ours, strict=True)]
        rate_ours = median([r[0] for r in self.rates])
        rate_theirs = median([r[1] for r in self.rates])
        print(f"\n{self.name}: {n:,} hands, median of {len(self.ours)} alternating rounds")
        print(f"{'':46}{'seconds':>9}{'hands/s':>10}")
        print(f"{'pokertable replay, whole process':<46}{ours_s:>9.3f}{n / ours_s:>10,.0f}")
        if compare is not None:
            before_s = median(self.before)
            print(f"{'pokertable replay of ' + compare.name + ', whole process':<46}"
                  f"{before_s:>9.3f}{n / before_s:>10,.0f}")
        print(f"{'PokerKit 0.7.7, parse + replay in process':<46}{theirs_s:>9.3f}"
              f"{n / theirs_s:>10,.0f}")
        print(f"{'PokerKit 0.7.7, whole process':<46}{whole_s:>9.3f}{n / whole_s:>10,.0f}")
        print(f"ratio: {median(ratios):.1f}x PokerKit in process (rounds: "
              f"{', '.join(f'{r:.1f}x' for r in ratios)}); "
              f"{median([w / o for w, o in zip(self.theirs_whole, self.ours, strict=True)]):.1f}x "
              "PokerKit as a whole process")
        if compare is not None:
            against = [t / b for t, b in zip(self.theirs, self.before, strict=True)]
            print(f"the compared tree: {median(against):.1f}x PokerKit in process")
        print(f"engines in process, parse excluded: pokertable {rate_ours:,.0f} hands/s, PokerKit "
              f"{rate_theirs:,.0f} hands/s ({rate_ours / rate_theirs:.1f}x)")
        print(self.agreement)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000, help="hands in each corpus")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--phh", type=Path, default=SAMPLE_PHH,
                        help="a directory of .phh files for the first corpus (default: the "
                        "samples)")
    parser.add_argument("--seed", type=int, default=SEED, help="the held-out corpus's seed")
    parser.add_argument("--compare-tree", type=Path, default=None, metavar="DIR",
                        help="also time another source tree's `pokertable replay`")
    parser.add_argument("--quick", action="store_true", help="200 hands a corpus, one round")
    args = parser.parse_args()
    if args.quick:
        args.hands, args.runs = 200, 1
    compileall.compile_dir(str(ROOT / "controller"), quiet=1)
    if args.compare_tree is not None:
        compileall.compile_dir(str(args.compare_tree / "controller"), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        samples_dir, held_out_dir = Path(tmp, "samples"), Path(tmp, "held-out")
        samples_dir.mkdir()
        held_out_dir.mkdir()
        made = time.perf_counter()
        held_out = write_corpus(held_out_dir, args.hands, args.seed)
        print(f"held-out corpus: {args.hands:,} hands made by PokerKit (seed {args.seed}) in "
              f"{time.perf_counter() - made:.1f} s")
        corpora = [Corpus(f"samples ({args.phh.name})", write_hands(samples_dir, args.hands,
                                                                   args.phh)),
                   Corpus("held out (PokerKit's random hands)", held_out)]
        one = corpora[0].paths[:1]
        whole_process(["-m", "controller.cli", "replay", *one])  # warm: the disk cache
        starts: list[tuple[float, float]] = []
        for k in range(1, args.runs + 1):
            for corpus in corpora:
                corpus.round(k, args.compare_tree)
            start = repeated(lambda: whole_process(["-m", "controller.cli", "replay", *one]))[0]
            bare = repeated(lambda: whole_process(["-c", "pass"]))[0]
            starts.append((start, bare))
            print(f"round {k}: start-up of a one-hand `pokertable replay` {start * 1000:.0f} ms "
                  f"(python -c pass {bare * 1000:.0f} ms)", flush=True)
    for corpus in corpora:
        corpus.summary(args.compare_tree)
    print(f"\nstart-up: `pokertable replay` of one hand "
          f"{statistics.median([s[0] for s in starts]) * 1000:.0f} ms, python -c pass "
          f"{statistics.median([s[1] for s in starts]) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
