"""A room service as systemd runs it: its own process (`python -m controller.cli <service>
--config F` from the repository), up once it has said its state, and killed outright (SIGKILL:
no orderly stop) to show that it comes back from its journal; and the clock's configuration
file for it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from controller.mqtt.local_broker import LocalBroker
from tests.venue import ServiceFloor
from tests.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]


def run_service(floor: ServiceFloor, service: str, config: Path) -> subprocess.Popen[str]:
    """``service`` started from ``config``; back once the floor heard it say its state live
    (not the retained copy an earlier run left): then it listens."""
    seen = len(floor.client.messages)
    process = subprocess.Popen([sys.executable, "-m", "controller.cli", service,
                                "--config", str(config)], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    assert wait_until(lambda: any(m.topic.endswith(f"/{service}/state") and not m.retain
                                  for m in floor.client.messages[seen:]), 20)
    return process


def kill(process: subprocess.Popen[str]) -> None:
    """Killed outright: nothing of the service's own stopping runs."""
    process.send_signal(signal.SIGKILL)
    process.wait(10)


def clock_config(broker: LocalBroker, directory: Path, structure: Path) -> Path:
    """The clock's configuration in ``directory`` (its login beside it, its journal
    ``clock.db`` there), on ``broker``, playing ``structure``."""
    credentials = directory / "credentials.json"
    credentials.write_text(json.dumps({"clock": broker.credentials["clock"].model_dump()}))
    config = directory / "clock.toml"
    config.write_text(f'[clock]\nstructure = "{structure}"\ndb = "clock.db"\n\n'
                      f'[mqtt]\nport = {broker.port}\nvenue = "{broker.plan.venue}"\n'
                      'credentials = "credentials.json"\n')
    return config
