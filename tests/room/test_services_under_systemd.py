"""What systemd sees of a service: READY=1 once it serves, watchdog pings only while its own
loops move (a hung loop stops them), STOPPING=1 on a clean stop; read from a notify socket the
test opens, as systemd's own. And the floor over HTTPS with broker init's certificate."""

from __future__ import annotations

import contextlib
import json
import logging
import signal
import socket
import ssl
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.errors import ConfigError
from controller.mqtt.local_broker import LocalBroker, free_port
from controller.room.clock.service import ClockService
from controller.room.clock.store import ClockStore
from controller.room.clock.structure import load_structure
from controller.room.floor.config import load_floor_config
from controller.service.manager import SEND_SECONDS, Loop, Watchdog, notify
from tests.room.service_process import clock_config
from tests.venue import address, login

ROOT = Path(__file__).resolve().parents[2]
TURBO = ROOT / "deploy" / "structures" / "turbo.toml"


@pytest.fixture
def systemd_socket(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    path = str(tmp_path / "notify")
    sock.bind(path)
    sock.settimeout(0.2)
    try:
        yield sock, path
    finally:
        sock.close()


def heard(sock: socket.socket, seconds: float,
          enough: Callable[[list[str]], bool] | None = None) -> list[str]:
    """Every notification that arrives within ``seconds``, or until what came is ``enough``."""
    said: list[str] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not (enough and enough(said)):
        with contextlib.suppress(TimeoutError):
            said.append(sock.recv(4096).decode())
    return said


def received(sock: socket.socket) -> list[str]:
    """What is in the socket now (a notification is there when its sender returns)."""
    said: list[str] = []
    sock.setblocking(False)
    try:
        while True:
            said.append(sock.recv(4096).decode())
    except BlockingIOError:
        return said
    finally:
        sock.settimeout(0.2)


def serving(said: list[str]) -> bool:
    """READY=1 first, then four watchdog pings (two seconds of them at WATCHDOG_USEC=1 s)."""
    return bool(said) and said.count("WATCHDOG=1") >= 4


def test_notify_speaks_the_documented_protocol(systemd_socket: tuple[socket.socket, str]
                                               ) -> None:
    sock, path = systemd_socket
    assert notify("READY=1", "STATUS=serving", environ={"NOTIFY_SOCKET": path})
    assert sock.recv(4096) == b"READY=1\nSTATUS=serving"
    assert not notify("READY=1", environ={})  # not under systemd: nothing, and no error
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    abstract.bind(f"\0pokertable-test-{time.monotonic_ns()}")
    name = abstract.getsockname()
    assert notify("WATCHDOG=1", environ={"NOTIFY_SOCKET": "@" + name[1:].decode()
                                         if isinstance(name, bytes) else "@" + name[1:]})
    assert abstract.recv(4096) == b"WATCHDOG=1"
    abstract.close()


def test_a_notify_socket_nobody_reads_does_not_hold_the_service(
        systemd_socket: tuple[socket.socket, str], caplog: pytest.LogCaptureFixture) -> None:
    """A datagram socket's queue is short (net.unix.max_dgram_qlen): once it is full, a send
    waits at most a second and the notification is dropped, said in the log (a ping silently),
    so a service whose systemd does not read never hangs on its STOPPING=1 (seen in a loaded
    run: a clock that did not stop on SIGTERM in 20 s)."""
    sock, path = systemd_socket
    environ = {"NOTIFY_SOCKET": path}
    sent = 0
    while notify("WATCHDOG=1", environ=environ):  # until the queue is full
        sent += 1
        assert sent < 10_000
    started = time.monotonic()
    assert not notify("STOPPING=1", environ=environ)
    assert time.monotonic() - started < SEND_SECONDS + 1.0
    assert "did not take 'STOPPING=1'" in caplog.text
    assert "WATCHDOG" not in caplog.text
    assert received(sock)[:sent] == ["WATCHDOG=1"] * sent  # what it took is all there
    assert notify("STOPPING=1", environ=environ)  # read: room again


def test_a_hung_clock_loop_stops_the_watchdog_pings(
        broker: LocalBroker, tmp_path: Path, systemd_socket: tuple[socket.socket, str],
        caplog: pytest.LogCaptureFixture) -> None:
    sock, path = systemd_socket
    store = ClockStore(tmp_path / "clock.db")
    service = ClockService(address(broker), login(broker, "clock"), load_structure(TURBO),
                           store).start()
    watchdog = Watchdog(service.loops(), environ={"NOTIFY_SOCKET": path,
                                                  "WATCHDOG_USEC": "2000000"})

    def run(seconds: float, enough: Callable[[list[str]], bool] = lambda _: False
            ) -> list[str]:
        """The service's main thread, ticking the watchdog every 0.1 s, for ``seconds`` or
        until what systemd heard is ``enough``; what it heard (each ping is in the socket when
        its tick returns: nothing is on its way after)."""
        said: list[str] = []
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not enough(said):
            watchdog.tick()
            said += received(sock)
            time.sleep(0.1)
        return said

    try:
        started = time.monotonic()  # every half second while the ticks go on
        assert run(5.0, lambda said: said.count("WATCHDOG=1") >= 3).count("WATCHDOG=1") >= 3
        assert time.monotonic() - started < 2.0
        with caplog.at_level(logging.ERROR), service._lock:  # a tick that never returns
            # the loop is within its second of grace, then stuck: said when the first ping
            # is held back
            run(5.0, lambda _: "has not moved" in caplog.text)
            assert run(1.2) == []  # and every one after (one due each 0.1 s)
        assert "the clock ticker loop has not moved" in caplog.text
        assert caplog.text.count("has not moved") == 1  # said once, not every tick
        # back when the loop is
        assert "WATCHDOG=1" in run(5.0, lambda said: "WATCHDOG=1" in said)
    finally:
        service.close()
        store.close()


def test_a_callback_that_never_returns_is_a_hung_loop() -> None:
    loop = Loop("recorder's MQTT callbacks", beats=False)
    watchdog = Watchdog([loop], environ={"WATCHDOG_USEC": "2000000"})
    now = time.monotonic()
    assert watchdog.stuck(now + 60) == []  # at rest between messages: healthy
    with loop.busy():
        assert watchdog.stuck(time.monotonic() + 0.5) == []
        assert [name for name, _ in watchdog.stuck(time.monotonic() + 1.5)] == [loop.name]


def clock_process(config: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """`pokertable clock --config` as systemd starts it, with systemd's variables ``env``."""
    return subprocess.Popen([sys.executable, "-m", "controller.cli", "clock", "--config",
                             str(config)], cwd=ROOT, env=env | {"PATH": "/usr/bin:/bin"},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def test_pokertable_clock_tells_systemd_ready_pings_and_stopping(
        broker: LocalBroker, tmp_path: Path, systemd_socket: tuple[socket.socket, str]) -> None:
    sock, path = systemd_socket
    config = clock_config(broker, tmp_path, TURBO)
    process = clock_process(config, {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "1000000"})
    try:
        said = heard(sock, 30.0, serving)  # (a second of pings when all is well; a start under
        # a whole suite's load with CPU hogs beside it may take longer than 8 s)
        assert said and said[0].startswith("READY=1"), said
        assert said.count("WATCHDOG=1") >= 4, said
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            _, stderr = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:  # hung: where, as systemd's watchdog would show it
            process.send_signal(signal.SIGABRT)
            _, stderr = process.communicate(timeout=10)
            pytest.fail(f"the clock did not stop on SIGTERM in 20 s: {stderr[-6000:]}")
    assert process.returncode == 0, stderr[-2000:]
    assert "STOPPING=1" in heard(sock, 0.5, lambda said: "STOPPING=1" in said)


def test_a_service_killed_by_the_watchdog_leaves_its_threads_stacks(
        broker: LocalBroker, tmp_path: Path, systemd_socket: tuple[socket.socket, str]) -> None:
    """systemd's watchdog ends a hung service with SIGABRT: its stderr (the journal) holds
    where each of its threads was, the clock's ticker and main loop among them."""
    sock, path = systemd_socket
    config = clock_config(broker, tmp_path, TURBO)
    process = clock_process(config, {"NOTIFY_SOCKET": path})
    try:
        said = heard(sock, 30.0, lambda said: "READY=1" in "".join(said))
        assert said and said[0].startswith("READY=1"), said
    finally:
        process.send_signal(signal.SIGABRT)
        _, stderr = process.communicate(timeout=20)
    assert "Fatal Python error: Aborted" in stderr, stderr[-2000:]
    if process.returncode == -signal.SIGSEGV:
        # CPython's dump reads the other threads' frames while they may run, and says it may
        # fault doing so (seen once in a loaded full run, never in 200 runs of this test under
        # load): the service is ended either way, and the journal has the dump's start.
        assert "Current thread 0x" in stderr or "Thread 0x" in stderr, stderr[-3000:]
        return
    assert process.returncode == -signal.SIGABRT, (process.returncode, stderr[-3000:])
    assert "_run_ticker" in stderr and "_serve" in stderr, stderr[-3000:]


def test_the_floor_serves_https_with_broker_inits_certificate(broker: LocalBroker,
                                                              tmp_path: Path) -> None:
    credentials = tmp_path / "credentials.json"
    credentials.write_text(json.dumps({"floor": broker.credentials["floor"].model_dump()}))
    port = free_port()
    conf = broker.directory
    config = tmp_path / "floor.toml"
    config.write_text(f'[floor]\nlisten = "0.0.0.0"\nport = {port}\n'
                      f'tls_cert = "{conf / "floor.crt"}"\ntls_key = "{conf / "floor.key"}"\n\n'
                      f'[mqtt]\nport = {broker.port}\nvenue = "{broker.plan.venue}"\n'
                      'credentials = "credentials.json"\n')
    process = subprocess.Popen([sys.executable, "-m", "controller.cli", "floor", "--config",
                                str(config)], cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
    trusted = ssl.create_default_context(cafile=str(conf / "ca.crt"))
    try:
        answer = None
        for _ in range(100):
            try:
                answer = urllib.request.urlopen(f"https://localhost:{port}/clock",
                                                context=trusted, timeout=5)
                break
            except OSError:
                time.sleep(0.1)
        assert answer is not None and answer.status == 200
        request = urllib.request.Request(
            f"https://localhost:{port}/api/login", method="POST",
            data=b'{"user": "nobody", "password": "wrong password"}',
            headers={"Content-Type": "application/json"})
        # A refusal takes an argon2 verification, on a thread whose nice value is raised: under
        # a whole suite's load that can wait well beyond 5 s for a core (the page would too)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, context=trusted, timeout=60)
        assert refused.value.code == 401
        with pytest.raises(OSError):  # plain HTTP is not served on that port
            urllib.request.urlopen(f"http://127.0.0.1:{port}/clock", timeout=5).read()
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=20)
    assert process.returncode == 0, stderr[-2000:]
    assert f"https://127.0.0.1:{port}" in stderr


def test_plain_http_beyond_this_machine_is_refused_with_the_fix(tmp_path: Path) -> None:
    config = tmp_path / "floor.toml"
    config.write_text('[floor]\nlisten = "0.0.0.0"\n\n[mqtt]\nvenue = "hall"\n'
                      'credentials = "credentials.json"\n')
    with pytest.raises(ConfigError, match=r"in clear.*floor\.crt"):
        load_floor_config(config)
    config.write_text('[floor]\nlisten = "127.0.0.1"\n\n[mqtt]\nvenue = "hall"\n'
                      'credentials = "credentials.json"\n')
    assert load_floor_config(config).floor.listen == "127.0.0.1"  # for a local TLS proxy
