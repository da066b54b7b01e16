"""What the clock's tests on the broker share: the turbo structure, the floor's side of the
clock's commands, and one quick hand at a three-player table."""

from __future__ import annotations

from pathlib import Path

from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.messages import ClockState, decode
from controller.room.clock.structure import load_structure
from tests.session.helpers import HOLE, deal, declare
from tests.venue import ServiceFloor

ROOT = Path(__file__).resolve().parents[3]
TURBO = load_structure(ROOT / "deploy" / "structures" / "turbo.toml")


class Floor(ServiceFloor):
    """The floor's side: sends clock commands, reads the replies and the clock's state."""

    def __init__(self, broker: LocalBroker) -> None:
        super().__init__(broker, "clock")

    def state(self) -> ClockState:
        assert self.client.wait(lambda ms: any(m.topic.endswith("/clock/state") for m in ms))
        return decode(ClockState, self.client.on("state")[-1].payload)


def quick_hand() -> list[dict[str, object]]:
    """One quick hand at a three-player table: dealt, the button raises, both blinds fold."""
    return [{"type": "shuffle"}, *deal(HOLE), declare(1, "raise", 300), declare(2, "fold"),
            declare(3, "fold")]
