"""What the room's benchmarks share: a service's CPU and memory from /proc, percentiles, the
logins of light tables spread over worker processes, and a service's configuration file."""

from __future__ import annotations

import json
import os
import selectors
from collections.abc import Iterable
from pathlib import Path

import paho.mqtt.client as mqtt

from controller.mqtt.local_broker import LocalBroker

TICKS = os.sysconf("SC_CLK_TCK")


def process_usage(pid: int) -> tuple[float, int]:
    """CPU seconds a process used so far, and its resident memory now (kB)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / TICKS
    rss = next(int(line.split()[1]) for line in Path(f"/proc/{pid}/status").read_text()
               .splitlines() if line.startswith("VmRSS:"))
    return cpu, rss


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def worker_logins(broker: LocalBroker, tables: int, workers: int
                  ) -> list[dict[str, dict[str, str]]]:
    """Tables 1..N's logins, dealt round-robin to ``workers`` processes (plain dicts: they
    cross a process boundary)."""
    names = [str(n) for n in range(1, tables + 1)]
    return [{t: {"username": broker.login(f"table-{t}").username,
                 "password": broker.login(f"table-{t}").password.get_secret_value()}
             for t in names[k::workers]} for k in range(workers)]


def service_config(broker: LocalBroker, directory: Path, service: str, section: str) -> Path:
    """``<service>.toml`` for `pokertable <service> --config`, with that login's credentials;
    ``section`` is the service's own table of settings (TOML)."""
    (directory / "credentials.json").write_text(json.dumps(
        {service: broker.credentials[service].model_dump()}))
    path = directory / f"{service}.toml"
    path.write_text(f"{section}\n\n[mqtt]\nport = {broker.port}\n"
                    f'venue = "{broker.plan.venue}"\ncredentials = "credentials.json"\n')
    return path


class NetworkLoop:
    """Many light tables' paho clients on one thread: one select for all of them, not a
    network thread each (which made the load generator, not the service, the limit)."""

    def __init__(self, clients: Iterable[mqtt.Client]) -> None:
        self.clients = list(clients)
        self.selector = selectors.DefaultSelector()
        for client in self.clients:
            sock = client.socket()
            if sock is None:
                raise RuntimeError("a light table could not connect")
            self.selector.register(sock, selectors.EVENT_READ, client)

    def read(self, timeout: float) -> None:
        for key, _ in self.selector.select(timeout=timeout):
            key.data.loop_read()

    def write(self) -> None:
        for client in self.clients:
            if client.want_write():
                client.loop_write()
            client.loop_misc()
