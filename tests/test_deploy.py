"""What an installer copies from deploy/: the systemd units start real commands with real
options, and the example configurations load."""

from __future__ import annotations

import configparser
import shlex
from pathlib import Path

from controller.cli import build_parser
from controller.install.units import HOST_SERVICES, TABLE_SERVICE, backup_units
from controller.room.floor.config import load_floor_config

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


def test_each_unit_starts_its_own_command_with_options_the_cli_takes() -> None:
    services = [*HOST_SERVICES, TABLE_SERVICE]
    assert {s.name for s in services} == {"pokertable-table", "pokertable-clock",
                                          "pokertable-floor", "pokertable-recorder",
                                          "pokertable-tournament", "pokertable-cash"}
    for service in services:
        parsed = configparser.ConfigParser(interpolation=None, strict=False)
        parsed.read_string(service.text("/opt/pokertable/.venv"))
        unit = parsed["Service"]
        argv = shlex.split(unit["ExecStart"])
        assert argv[0] == "/opt/pokertable/.venv/bin/pokertable", service.name
        args = build_parser().parse_args(argv[1:])  # exits (SystemExit) on a wrong option
        assert args.command == service.name.removeprefix("pokertable-"), service.name
        assert unit["User"] == service.user and unit["Restart"] == "always"
        assert unit["Type"] == "notify" and unit["StateDirectory"] == service.state
        assert parsed["Install"]["WantedBy"] == "multi-user.target"
    backup = configparser.ConfigParser(interpolation=None, strict=False)
    backup.read_string(backup_units("/v", ["/var/lib/pokertable/a.db"], 3)[
        "pokertable-backup.service"])
    args = build_parser().parse_args(shlex.split(backup["Service"]["ExecStart"])[1:])
    assert args.command == "backup"


def test_the_floor_example_configuration_loads() -> None:
    config = load_floor_config(DEPLOY / "floor.example.toml")
    assert config.floor.port == 8443 and config.mqtt.venue == "hall"
    assert config.floor.tls_cert == DEPLOY / "floor.crt"
    assert config.floor.db == DEPLOY / "floor.db"  # relative to the file


def test_the_tournament_example_configuration_loads() -> None:
    from controller.room.tournament.config import load_tournament_config

    config = load_tournament_config(DEPLOY / "tournament.example.toml")
    assert config.tournament.structure == DEPLOY / "structures" / "pvb-deep.toml"
    settings = config.settings()
    assert settings.start_stack() == 35_000 and settings.order_of_breaking() == [
        "4", "3", "2", "1"]
    assert config.mqtt.venue == "hall"
