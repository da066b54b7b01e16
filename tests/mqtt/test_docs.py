"""docs/mqtt.md documents every payload model, every topic leaf and every table command."""

from __future__ import annotations

from pathlib import Path

from controller.mqtt.link import TABLE_COMMANDS
from controller.mqtt.messages import PAYLOADS, schemas

DOC = (Path(__file__).resolve().parents[2] / "docs" / "mqtt.md").read_text(encoding="utf-8")


def test_every_payload_model_is_documented_and_has_a_schema_with_its_version() -> None:
    for model in PAYLOADS:
        assert f"### {model.__name__}" in DOC or f"and {model.__name__} (" in DOC, model
        assert schemas()[model.__name__]["properties"]["v"]["const"] == 1


def test_every_topic_and_command_is_documented() -> None:
    for leaf in ("status", "state", "event", "record", "secure/record", "cmd/<name>", "reply"):
        assert f"`<root>/table/<id>/{leaf}`" in DOC, leaf
    for leaf in ("state", "time", "cmd/<name>", "reply"):
        assert f"`<root>/clock/{leaf}`" in DOC, leaf
    for name in TABLE_COMMANDS:
        assert f"`{name}`" in DOC, name
