"""A real Mosquitto, configured by `pokertable broker init`, on free ports (started per module)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.broker_init import BrokerPlan, ClientCredentials, broker_init


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def mosquitto_binary() -> str:
    # `make test` installs Debian's mosquitto; /usr/sbin is not always on PATH.
    found = shutil.which("mosquitto") or ("/usr/sbin/mosquitto"
                                          if os.path.exists("/usr/sbin/mosquitto") else None)
    assert found, "mosquitto is not installed: `make test` installs it (apt-get install mosquitto)"
    return found


@dataclass
class Broker:
    plan: BrokerPlan
    directory: Path
    credentials: dict[str, ClientCredentials]
    process: subprocess.Popen[bytes] | None = None

    @property
    def port(self) -> int:
        return self.plan.port

    def start(self) -> None:
        self.process = subprocess.Popen(
            [mosquitto_binary(), "-c", str(self.directory / "mosquitto.conf")],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            if self.process.poll() is not None:
                out = self.process.stdout.read().decode() if self.process.stdout else ""
                raise RuntimeError(f"mosquitto exited: {out}")
            time.sleep(0.05)
        raise RuntimeError("mosquitto did not open its port")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None


@pytest.fixture(scope="module")
def broker() -> Iterator[Broker]:
    # Not pytest's tmp_path: its directories are 0700 and Mosquitto, started as root, reads its
    # files as the `mosquitto` user.
    directory = Path(tempfile.mkdtemp(prefix="pokertable-broker-"))
    directory.chmod(0o755)
    plan = BrokerPlan(venue="testhall", tables=2, port=free_port(), tls_port=free_port())
    credentials = broker_init(plan, directory / "conf")
    written = json.loads((directory / "conf" / "credentials.json").read_text())
    assert set(written) == {c for c in credentials}
    running = Broker(plan, directory / "conf", credentials)
    running.start()
    try:
        yield running
    finally:
        running.stop()
        shutil.rmtree(directory, ignore_errors=True)
