"""Reader drivers: decoder throughput, frame-to-event latency on a pty, CPU at 115200 baud.

1. Decoder throughput in bytes/s over 1 MB of frames with 5% garbage, side by side with two
   references measured in the same run: the line rate of 115200 baud (11,520 bytes/s) and a
   compiled regular-expression scan of the same bytes (the cheapest possible pass over them).
2. Latency from the last byte of a frame written to a pty to the driver's event, p50/p99,
   beside a bare pyserial reader of the same pty reading the same frames line by line (what
   the pty and a thread's wake-up cost, without the driver).
3. CPU of one driver process running three readers (cards, chips, one spare), each on a pty fed
   at full 115200 baud for 10 s: the process's CPU time over wall time, against the 5% of one
   core the issue allows.

    .venv/bin/python bench/readers.py [--quick]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import re
import statistics
import tempfile
import threading
import time
from pathlib import Path

import serial

from drivers.hf_reader import Pt1Decoder, ReaderFrame, encode_line
from drivers.rdm6300 import Rdm6300Decoder, encode_frame
from drivers.reader_config import ReaderConfig
from drivers.simulators import VirtualSerialDevice
from drivers.tag_reader import TagReader

LINE_RATE = 115200 // 10  # bytes/s at 8N1


def stream(kind: str, size: int) -> bytes:
    rng = random.Random(1)
    parts: list[bytes] = []
    total = seq = 0
    while total < size:
        if rng.random() < 0.05:
            part = bytes(rng.randrange(256) for _ in range(8))
        elif kind == "rdm6300":
            part = encode_frame(f"{rng.randrange(16**10):010X}")
        else:
            part = encode_line(ReaderFrame(seq % 65536, "read", antenna=rng.randrange(13),
                                           uid=f"{rng.randrange(16**14):014X}"))
            seq += 1
        parts.append(part)
        total += len(part)
    return b"".join(parts)


def throughput(size: int) -> None:
    print(f"{f'decoder ({size / 1e6:g} MB, 5% garbage)':<34}{'bytes/s':>14}{'x line rate':>13}")
    for kind, decoder_type, pattern in (
        ("rdm6300", Rdm6300Decoder, rb"\x02[0-9A-F]{12}\x03"),
        ("pt1", Pt1Decoder, rb"\$PT1,[^*\n]*\*[0-9A-F]{2}\r\n"),
    ):
        data = stream(kind, size)
        decoder = decoder_type()
        started = time.perf_counter()
        for k in range(0, len(data), 256):  # the driver reads what has arrived, in pieces
            decoder.feed(data[k : k + 256])
        elapsed = time.perf_counter() - started
        regex = re.compile(pattern)
        started = time.perf_counter()
        regex.findall(data)
        scan = time.perf_counter() - started
        rate = len(data) / elapsed
        print(f"{kind + ' decoder':<34}{rate:>14,.0f}{rate / LINE_RATE:>13,.0f}")
        print(f"{kind + ' reference: regex scan':<34}{len(data) / scan:>14,.0f}"
              f"{len(data) / scan / LINE_RATE:>13,.0f}")
    print(f"{'reference: 115200 baud line':<34}{LINE_RATE:>14,}{1:>13}")


def bare_latency(samples: int) -> list[float]:
    """The reference: the same frames on a pty read by a bare pyserial reader, line by line."""
    with tempfile.TemporaryDirectory() as tmp:
        device = VirtualSerialDevice(Path(tmp) / "reader")
        port = serial.Serial(str(device.path), 115200, timeout=0.1)
        received: dict[str, float] = {}

        def read() -> None:
            while len(received) < samples:
                line = port.readline()
                if not line:
                    if closing.is_set():
                        return
                    continue
                received[line.split(b",")[4].split(b"*")[0].decode()] = time.perf_counter()

        closing = threading.Event()
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        sent: dict[str, float] = {}
        for k in range(samples):
            uid = f"{k:014X}"
            sent[uid] = time.perf_counter()
            device.write(encode_line(ReaderFrame(k, "read", antenna=0, uid=uid)))
            time.sleep(0.005)
        closing.set()
        reader.join(10)
        port.close()
        device.close()
    return sorted((received[u] - sent[u]) * 1000 for u in sent if u in received)


def latency(samples: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        device = VirtualSerialDevice(Path(tmp) / "reader")
        received: dict[str, float] = {}
        done = threading.Event()

        def emit(event: object) -> None:
            uid = getattr(event, "uid", None)
            if uid:
                received[uid] = time.perf_counter()
                if len(received) == samples:
                    done.set()

        config = ReaderConfig(name="bench", url=str(device.path), protocol="pt1",
                              zones={0: "seat:1"})
        sent: dict[str, float] = {}
        with TagReader(config, emit) as reader:  # no deck: every tag is a foreign event
            while reader.status != "ok":
                time.sleep(0.01)
            for k in range(samples):
                uid = f"{k:014X}"
                line = encode_line(ReaderFrame(k, "read", antenna=0, uid=uid))
                sent[uid] = time.perf_counter()
                device.write(line)
                time.sleep(0.005)
            done.wait(10)
        device.close()
    delays = sorted((received[u] - sent[u]) * 1000 for u in sent if u in received)
    bare = bare_latency(samples)
    for what, values in (("last byte -> driver's event on a pty", delays),
                         ("reference: last byte -> bare pyserial line", bare)):
        p99 = values[max(0, int(len(values) * 0.99) - 1)]
        print(f"{what:<44}{len(values):>5} frames: p50 {statistics.median(values):.2f} ms, "
              f"p99 {p99:.2f} ms")


READERS = 3


def _driver_process(paths: list[str], seconds: float, result: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    count = [0]

    def emit(event: object) -> None:
        count[0] += 1

    readers = [
        TagReader(ReaderConfig(name=f"cpu{k}", url=path, protocol="pt1",
                               zones={a: f"seat:{a + 1}" for a in range(10)}), emit).start()
        for k, path in enumerate(paths)
    ]
    before = os.times()
    started = time.monotonic()
    time.sleep(seconds)
    after = os.times()
    wall = time.monotonic() - started
    for reader in readers:
        reader.close()
    cpu = (after.user - before.user) + (after.system - before.system)
    result.put((cpu / wall, count[0]))


def cpu_at_line_rate(seconds: float = 10.0) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        devices = [VirtualSerialDevice(Path(tmp) / f"reader{k}") for k in range(READERS)]
        result: multiprocessing.Queue = multiprocessing.Queue()  # type: ignore[type-arg]
        child = multiprocessing.Process(
            target=_driver_process, args=([str(d.path) for d in devices], seconds, result)
        )
        child.start()
        time.sleep(1.0)  # let it open the port
        rng = random.Random(2)
        tags = [f"{rng.randrange(16**14):014X}" for _ in range(200)]
        chunk = b""
        seq = 0
        sent = 0
        started = time.monotonic()
        while child.is_alive() and time.monotonic() - started < seconds + 2:
            while len(chunk) < LINE_RATE // 20:
                frame = ReaderFrame(seq % 65536, "read", antenna=seq % 10, uid=tags[seq % 200])
                chunk += encode_line(frame)
                seq += 1
            for device in devices:
                device.write(chunk[: LINE_RATE // 20])
            sent += LINE_RATE // 20
            chunk = chunk[LINE_RATE // 20 :]
            time.sleep(0.05)  # 1/20 of a second's worth of bytes every 50 ms: 115200 baud
        share, events = result.get(timeout=10)
        child.join()
        for device in devices:
            device.close()
    print(f"{READERS} readers, each fed {sent / (time.monotonic() - started):,.0f} bytes/s "
          f"(115200 baud is {LINE_RATE:,}): {share * 100:.1f}% of one core in all "
          f"(limit 5%), {events} events")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="200 KB, 100 frames, 4 s at line rate (instead of 1 MB, 400, 10 s)")
    quick = parser.parse_args().quick
    throughput(200_000 if quick else 1_000_000)
    latency(100 if quick else 400)
    cpu_at_line_rate(4.0 if quick else 10.0)
