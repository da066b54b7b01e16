"""Replay throughput: the whole `pokertable replay` process against PokerKit, same hands, same run.

The measure of issue 37: 1,000 hands by default, the PHH samples (tests/data/phh) repeated, each
written as its own file so that nothing can be cached by path (`--phh DIR` takes the hands from
another directory of .phh files instead, e.g. hands held out of the tests). Printed side by side,
each round and the median of the rounds:

- pokertable: the complete `pokertable replay` process (start-up, imports, reading and parsing
  every file, the replay, the JSON lines out);
- PokerKit 0.7.7: parse and replay of the same files in this process (its start-up and import are
  not charged to it), and the same as a whole process of its own (start-up and import charged);
- the ratio of ours to each;
- each engine's own rate, in process, parse excluded: our `replay_phh` of the parsed hands
  (finishing stacks included) against iterating PokerKit's states of its parsed hands;
- start-up: `pokertable replay` of one hand, and `python -c pass` beside it.

The sides alternate, three rounds by default, so that load on a shared machine hits both alike.
The project's modules are compiled to bytecode first, as an installed package's are (where
PYTHONDONTWRITEBYTECODE is set, each process would otherwise compile every module it imports).

Run: .venv/bin/python bench/replay_throughput.py [--hands 1000] [--runs 3] [--phh DIR]
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_PHH = ROOT / "tests" / "data" / "phh"
sys.path.insert(0, str(ROOT))


def write_hands(directory: Path, count: int, source: Path = SAMPLE_PHH) -> list[str]:
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


def whole_process(args: list[str]) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                            check=False)
    return time.perf_counter() - started, result.stdout


def time_ours(paths: list[str]) -> tuple[float, int]:
    elapsed, out = whole_process(["-m", "controller.cli", "replay", *paths])
    lines = out.count("\n")
    if lines != len(paths):
        raise SystemExit(f"pokertable replay printed {lines} lines for {len(paths)} files")
    return elapsed, out.count('"error"')


def time_pokerkit(paths: list[str]) -> tuple[float, int]:
    from pokerkit import HandHistory

    refused = 0
    started = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PokerKit warns about the samples' custom fields
        for path in paths:
            try:
                with open(path, "rb") as fh:
                    history = HandHistory.load(fh)
                for _state in history:
                    pass
            except Exception:  # counted: PokerKit may refuse a file
                refused += 1
    return time.perf_counter() - started, refused


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
    from pokerkit import HandHistory

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


def best_of(run: Callable[[], Any], times: int = 3) -> float:
    best = float("inf")
    for _ in range(times):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--phh", type=Path, default=SAMPLE_PHH,
                        help="a directory of .phh files to replay (default: the samples)")
    args = parser.parse_args()
    compileall.compile_dir(str(ROOT / "controller"), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_hands(Path(tmp), args.hands, args.phh)
        one = paths[:1]
        whole_process(["-m", "controller.cli", "replay", *one])  # warm: the disk cache
        rounds = []
        for k in range(1, args.runs + 1):
            ours, theirs = time_ours(paths), time_pokerkit(paths)
            theirs_whole = time_pokerkit_process(paths)
            start = whole_process(["-m", "controller.cli", "replay", *one])[0]
            bare = whole_process(["-c", "pass"])[0]
            rates = engine_rates(paths)
            rounds.append((ours, theirs, start, bare, rates, theirs_whole))
            print(f"round {k}: pokertable {ours[0]:.3f} s, PokerKit {theirs[0]:.3f} s, ratio "
                  f"{theirs[0] / ours[0]:.1f}x (PokerKit as a process {theirs_whole:.3f} s, "
                  f"{theirs_whole / ours[0]:.1f}x); in process {rates[0]:,.0f} against "
                  f"{rates[1]:,.0f} hands/s ({rates[0] / rates[1]:.1f}x); start-up "
                  f"{start * 1000:.0f} ms (python -c pass {bare * 1000:.0f} ms)", flush=True)
    n = len(paths)

    def median(values: list[float]) -> float:
        return statistics.median(values)

    ours_s = median([r[0][0] for r in rounds])
    theirs_s = median([r[1][0] for r in rounds])
    ratio = median([r[1][0] / r[0][0] for r in rounds])
    rate_ours = median([r[4][0] for r in rounds])
    rate_theirs = median([r[4][1] for r in rounds])
    print(f"\n{n:,} hands ({args.phh.name}), median of {len(rounds)} alternating rounds")
    print(f"{'':44}{'seconds':>9}{'hands/s':>10}{'refused':>9}")
    print(f"{'pokertable replay, whole process':<44}{ours_s:>9.3f}{n / ours_s:>10,.0f}"
          f"{rounds[0][0][1]:>9}")
    print(f"{'PokerKit 0.7.7, parse + replay in process':<44}{theirs_s:>9.3f}"
          f"{n / theirs_s:>10,.0f}{rounds[0][1][1]:>9}")
    whole_s = median([r[5] for r in rounds])
    print(f"{'PokerKit 0.7.7, whole process':<44}{whole_s:>9.3f}{n / whole_s:>10,.0f}")
    print(f"ratio: {ratio:.1f}x PokerKit in process (rounds: "
          f"{', '.join(f'{r[1][0] / r[0][0]:.1f}x' for r in rounds)}); "
          f"{median([r[5] / r[0][0] for r in rounds]):.1f}x PokerKit as a whole process")
    print(f"engines in process, parse excluded: pokertable {rate_ours:,.0f} hands/s, PokerKit "
          f"{rate_theirs:,.0f} hands/s ({rate_ours / rate_theirs:.1f}x)")
    print(f"start-up: `pokertable replay` of one hand "
          f"{median([r[2] for r in rounds]) * 1000:.0f} ms, python -c pass "
          f"{median([r[3] for r in rounds]) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
