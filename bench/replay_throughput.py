"""Replay throughput: the whole `pokertable replay` process against PokerKit, same hands, same run.

10,000 hands: the PHH samples (tests/data/phh) repeated, each written as its own file so nothing
can be cached by path. Ours is timed as a complete process (start-up, imports, parsing, replay, JSON
output); PokerKit as parse plus replay of the same files in this process (no start-up charged).
The two sides alternate, three rounds each, so that load on a shared machine hits both alike; the
best round of each side counts. Prints hands/s side by side and the ratio.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

SAMPLE_PHH = Path(__file__).resolve().parents[1] / "tests" / "data" / "phh"


def write_hands(directory: Path, count: int) -> list[str]:
    samples = sorted(SAMPLE_PHH.glob("*.phh"))
    texts = [p.read_bytes() for p in samples]
    paths = []
    for k in range(count):
        path = directory / f"{k:05d}.phh"
        path.write_bytes(texts[k % len(texts)])
        paths.append(str(path))
    return paths


def time_ours(paths: list[str]) -> tuple[float, int]:
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "controller.cli", "replay", *paths],
        capture_output=True, text=True, check=False,
    )
    elapsed = time.perf_counter() - started
    lines = result.stdout.count("\n")
    if lines != len(paths):
        raise SystemExit(f"pokertable replay printed {lines} lines for {len(paths)} files")
    return elapsed, result.stdout.count('"error"')


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        paths = write_hands(Path(tmp), args.hands)
        rounds = [(time_ours(paths), time_pokerkit(paths)) for _ in range(args.runs)]
        ours = min((r[0] for r in rounds), key=lambda r: r[0])
        theirs = min((r[1] for r in rounds), key=lambda r: r[0])
        for k, (a, b) in enumerate(rounds, start=1):
            print(f"round {k}: ours {a[0]:.2f} s, PokerKit {b[0]:.2f} s, ratio {b[0] / a[0]:.1f}x")
    n = len(paths)
    print(f"{'engine':<34}{'seconds':>9}{'hands/s':>10}{'refused':>9}")
    print(f"{'pokertable replay (whole process)':<34}{ours[0]:>9.2f}{n / ours[0]:>10.0f}"
          f"{ours[1]:>9}")
    print(f"{'PokerKit 0.7.7 (parse + replay)':<34}{theirs[0]:>9.2f}{n / theirs[0]:>10.0f}"
          f"{theirs[1]:>9}")
    print(f"ratio: {theirs[0] / ours[0]:.1f}x PokerKit ({n} hands, best of {args.runs})")


if __name__ == "__main__":
    main()
