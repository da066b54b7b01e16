"""A table on a Pi never loads the simulation wing: importing what `pokertable table` runs (the
runner, the service, the drivers it opens) brings in no simulator, no mock pins and no
simulated dealer; `--simulate` imports them when it asks for them."""

from __future__ import annotations

import json
import subprocess
import sys

SIMULATION = ("controller.sim", "drivers.simulated", "drivers.simulators", "gpiozero.pins.mock")


def _loaded_after(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code + "\nimport json, sys\n"
                           "print(json.dumps(sorted(sys.modules)))"],
                          capture_output=True, text=True, timeout=60, check=True)
    modules: list[str] = json.loads(done.stdout.splitlines()[-1])
    return [m for m in modules if any(m == s or m.startswith(s + ".") for s in SIMULATION)]


def test_the_table_runner_and_its_drivers_load_no_simulator() -> None:
    assert _loaded_after("import controller.table.runner, controller.table.bring_up, "
                         "drivers.chip_reader, drivers.tag_reader, drivers.buttons") == []


def test_simulate_loads_the_rig() -> None:
    assert "controller.sim.table_rig" in _loaded_after("import controller.sim.table_rig")
