"""A Mosquitto of our own on this machine: `broker init` into a directory, started on free
ports, stopped on exit. For `make demo`, the benchmarks and the tests; a venue runs Mosquitto as
a system service with the same generated files (deploy/). `LocalLeague` is a league's broker
(`broker league init`), and a `LocalBroker` given a bridge bundle is a venue bridged to it."""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from controller.errors import PokertableError
from controller.mqtt.broker_init import BrokerPlan, ClientCredentials, broker_init
from controller.mqtt.client import BrokerAddress, Login
from controller.mqtt.league_bridge import BridgeBundle, LeaguePlan, join_league, league_init


class BrokerError(PokertableError, RuntimeError):
    """Mosquitto is missing, or did not start."""


class PortTaken(BrokerError):
    """Another program bound the port between our choosing it and Mosquitto's binding it."""


def _outgoing_ports() -> tuple[int, int]:
    """The ports the kernel hands to outgoing connections (Linux's ip_local_port_range)."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return int(low), int(high)
    except (OSError, ValueError):
        return 32768, 60999


def free_port() -> int:
    """A port nobody listens on, chosen below the range of outgoing connections: a port the
    kernel said was free (port 0) is one it hands out to clients too, and on a busy host a
    client's connection had taken it by the time Mosquitto came to bind it."""
    low, _ = _outgoing_ports()
    if low > 2048:
        for _ in range(50):
            port = random.randrange(max(1024, low - 20_000), low)
            with socket.socket() as s:
                try:
                    s.bind(("", port))  # free on every address, as a listener needs it
                except OSError:
                    continue
                return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def mosquitto_binary() -> str:
    # `make test` and `make demo` install Debian's mosquitto; /usr/sbin is not always on PATH.
    found = shutil.which("mosquitto") or ("/usr/sbin/mosquitto"
                                          if os.path.exists("/usr/sbin/mosquitto") else None)
    if found is None:
        raise BrokerError("mosquitto is not installed (apt-get install mosquitto; `make test` "
                          "and `make demo` do it)")
    return found


class _Mosquitto:
    """A Mosquitto started from ``directory``/mosquitto.conf, listening on ``port``."""

    root: Path
    directory: Path
    process: subprocess.Popen[bytes] | None
    _owned: bool

    @property
    def port(self) -> int:
        raise NotImplementedError

    @property
    def ports(self) -> tuple[int, ...]:
        """Every port its configuration listens on."""
        raise NotImplementedError

    def start(self) -> None:
        # Its log goes to a file: a pipe nobody reads would stop the broker once full. Its own
        # session: a terminal's Ctrl-C reaches the program that owns the broker, which stops it
        # last, after the tables have handed over their records.
        log = self.root / "mosquitto.log"
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                [mosquitto_binary(), "-c", str(self.directory / "mosquitto.conf")],
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        # Started once every listener accepts: Mosquitto opens them one after the other and
        # exits when one is taken, so the plain port alone accepted for a moment before it
        # gave up on a taken TLS port (a league test under load).
        waiting = list(self.ports)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            while waiting and _accepts(waiting[0]):
                waiting.pop(0)
            if self.process.poll() is not None:
                said = log.read_text(encoding="utf-8", errors="replace")[-2000:]
                if "Address already in use" in said:
                    raise PortTaken(f"mosquitto exited: {said}")
                raise BrokerError(f"mosquitto exited: {said}")
            if not waiting:
                return
            time.sleep(0.05)
        raise BrokerError("mosquitto did not open its port")

    def stop(self) -> None:
        """SIGTERM: Mosquitto saves its persistence (sessions, queued messages) and exits."""
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
            self.process = None

    def kill(self, forget: bool = False) -> None:
        """SIGKILL: whatever Mosquitto held in memory since its last autosave is gone; with
        ``forget`` its persistence directory too (a broker rebuilt from scratch)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
            self.process = None
        if forget:
            for path in (self.directory / "data").iterdir():
                path.unlink()

    def _close(self) -> None:
        self.stop()
        if self._owned:
            shutil.rmtree(self.root, ignore_errors=True)


def _accepts(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _start_on_free_ports(broker: LocalBroker | LocalLeague, attempts: int = 3) -> None:
    for attempt in range(attempts):
        try:
            broker.start()
            return
        except PortTaken:
            if attempt == attempts - 1:
                raise
            shutil.rmtree(broker.directory)  # (its files name the ports: written anew)
            broker._configure()


def _new_root(directory: Path | None) -> Path:
    # Not a 0700 temporary directory: Mosquitto, started as root, reads its files as the
    # `mosquitto` user.
    root = directory or Path(tempfile.mkdtemp(prefix="pokertable-broker-"))
    root.chmod(0o755)
    return root


class LocalBroker(_Mosquitto):
    """``with LocalBroker("hall", tables=2) as broker:`` a configured, running Mosquitto."""

    def __init__(self, venue: str, tables: int, directory: Path | None = None,
                 displays: int = 1, hostname: str | None = None,
                 bridge: BridgeBundle | None = None, tls_bind: str | None = None) -> None:
        """``hostname``: the name in the server certificate besides localhost and 127.0.0.1
        (default: this machine's); ``bridge``: a league's bundle for this venue (its broker
        on this machine); ``tls_bind``: the address its TLS listener binds (default: every
        interface, as a room's broker for its tables)."""
        self._owned = directory is None
        self.root = _new_root(directory)
        self._named: dict[str, str] = {"hostname": hostname} if hostname is not None else {}
        if tls_bind is not None:
            self._named["tls_bind"] = tls_bind
        self._venue, self._tables, self._displays, self._bridge = venue, tables, displays, bridge
        self.directory = self.root / "conf"
        self._configure()
        self.process: subprocess.Popen[bytes] | None = None

    def _configure(self) -> None:
        """`broker init` on free ports (again on new ones when another program took one
        first: `_start_on_free_ports`)."""
        self.plan = BrokerPlan(venue=self._venue, tables=self._tables, port=free_port(),
                               tls_port=free_port(), displays=self._displays, **self._named)
        self.credentials: dict[str, ClientCredentials] = broker_init(self.plan, self.directory)
        if self._bridge is not None:
            join_league(self.directory, self._bridge, host="127.0.0.1")

    @property
    def port(self) -> int:
        return self.plan.port

    @property
    def ports(self) -> tuple[int, ...]:
        return self.plan.port, self.plan.tls_port

    def address(self, **kw: object) -> BrokerAddress:
        return BrokerAddress.model_validate(
            {"host": "127.0.0.1", "port": self.port, "venue": self.plan.venue, **kw})

    def login(self, client: str) -> Login:
        return Login.model_validate(self.credentials[client].model_dump())

    def table_config(self, directory: Path, table: int, keepalive: int = 10,
                     seats: int = 10) -> Path:
        """A table's ``table.toml`` publishing to this broker, with its own login only (0600),
        as an installer would put on the table's Pi; ``seats``: the table's size."""
        directory.mkdir(parents=True, exist_ok=True)
        client = f"table-{table}"
        credentials = directory / "credentials.json"
        credentials.write_text(json.dumps({client: self.credentials[client].model_dump()}))
        credentials.chmod(0o600)
        config = directory / "table.toml"
        config.write_text(f'[table]\nid = "{table}"\nseats = {seats}\njournal = "journal.db"\n'
                          'output = "out"\n\n'
                          f'[mqtt]\nport = {self.port}\nvenue = "{self.plan.venue}"\n'
                          f'credentials = "credentials.json"\nkeepalive = {keepalive}\n')
        return config

    def __enter__(self) -> LocalBroker:
        _start_on_free_ports(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self._close()


class LocalLeague(_Mosquitto):
    """``with LocalLeague("league", ["hall-a", "hall-b"]) as league:`` a league's broker, its
    TLS listener on 127.0.0.1 for the venues' bridges (`bundle`)."""

    def __init__(self, league: str, venues: list[str], directory: Path | None = None) -> None:
        self._owned = directory is None
        self.root = _new_root(directory)
        self._league, self._venues = league, venues
        self.directory = self.root / "conf"
        self._configure()
        self.process = None

    def _configure(self) -> None:
        self.plan = LeaguePlan(league=self._league, venues=self._venues, port=free_port(),
                               tls_port=free_port(), hostnames=["localhost"])
        self.credentials = league_init(self.plan, self.directory)

    @property
    def port(self) -> int:
        return self.plan.port

    @property
    def ports(self) -> tuple[int, ...]:
        return self.plan.port, self.plan.tls_port

    def bundle(self, venue: str) -> BridgeBundle:
        from controller.mqtt.league_bridge import make_bridge_bundle

        return make_bridge_bundle(self.directory, venue)

    def address(self, **kw: object) -> BrokerAddress:
        """The league's own services (its recorder): its venue is the league's name."""
        return BrokerAddress.model_validate(
            {"host": "127.0.0.1", "port": self.port, "venue": self.plan.league, **kw})

    def login(self, client: str) -> Login:
        return Login.model_validate(self.credentials[client].model_dump())

    def __enter__(self) -> LocalLeague:
        _start_on_free_ports(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self._close()


__all__ = ["BrokerError", "LocalBroker", "LocalLeague", "PortTaken", "free_port",
           "mosquitto_binary"]
