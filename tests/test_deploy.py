"""What an installer copies from deploy/: the systemd units start real commands with real
options, and the example configurations load."""

from __future__ import annotations

import configparser
import shlex
from pathlib import Path

from controller.cli import build_parser
from controller.room.floor.config import load_floor_config

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


def test_each_unit_starts_its_own_command_with_options_the_cli_takes() -> None:
    units = sorted((DEPLOY / "systemd").glob("pokertable-*.service"))
    assert {u.stem for u in units} == {"pokertable-table", "pokertable-clock",
                                       "pokertable-floor", "pokertable-recorder"}
    for unit in units:
        parsed = configparser.ConfigParser(interpolation=None, strict=True)
        parsed.read(unit)
        service = parsed["Service"]
        argv = shlex.split(service["ExecStart"])
        assert argv[0] == "/opt/pokertable/.venv/bin/pokertable", unit.name
        args = build_parser().parse_args(argv[1:])  # exits (SystemExit) on a wrong option
        assert args.command == unit.stem.removeprefix("pokertable-"), unit.name
        assert service["User"] == "pokertable" and service["Restart"] == "always"
        assert service["ReadWritePaths"] == "/var/lib/pokertable", unit.name
        assert parsed["Install"]["WantedBy"] == "multi-user.target"


def test_the_floor_example_configuration_loads() -> None:
    config = load_floor_config(DEPLOY / "floor.example.toml")
    assert config.floor.port == 8080 and config.mqtt.venue == "hall"
    assert config.floor.db == DEPLOY / "floor.db"  # relative to the file
