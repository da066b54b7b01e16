"""The MQTT topic tree, versioned: ``pokertable/v1/<venue>/...`` (docs/mqtt.md).

One place builds every topic, so the ACL that `broker init` writes and the clients that publish
can never disagree on a spelling.
"""

from __future__ import annotations

from dataclasses import dataclass

ROOT = "pokertable/v1"


@dataclass(frozen=True)
class Topics:
    venue: str

    @property
    def root(self) -> str:
        return f"{ROOT}/{self.venue}"

    def table(self, table: str, leaf: str) -> str:
        """``leaf``: status, state, event, record, secure/record, ack, reply, cmd/<name>."""
        return f"{self.root}/table/{table}/{leaf}"

    def service(self, name: str, leaf: str) -> str:
        """A central service's topic: ``recorder/status``."""
        return f"{self.root}/{name}/{leaf}"

    def clock(self, leaf: str) -> str:
        """``leaf``: state, time, cmd/<name>, reply."""
        return f"{self.root}/clock/{leaf}"


__all__ = ["ROOT", "Topics"]
