"""What the session's parts may see of its core, each as a narrow Protocol (issue 38).

The session is a small core (`base.SessionBase`: the table, the hand's track, the story and its
replay, the outputs; `table_session.TableSession`: the hand's life on it) that holds its parts
as components, as Home Assistant's and Klipper's objects hold their helpers: the cards
(`cards`), the chip zones (`chips`), the betting actions (`actions`), the floor's commands
(`floor_commands`), the holds (`hold_commands`), time calls and penalties (`time_calls`), the
shot clock (`shot_clock`), the stacks and the colour-up (`stacks`), the table stakes
(`table_stakes`), the cash game's additions (`cash`) and the public view (`view`). Each part
keeps its own state and is given the core as a view: `Core` below, which every part reads,
widened by a Protocol in the part's own module (`TimeCore`, `FloorCore`, ...) with what that
part alone needs. The type checker holds each part to its view (a part that reaches for more
does not type-check), and `TableSession` is checked against every view when it makes them.

A part is rebuilt with the core from a snapshot (`SessionSnapshot`): the core asks each part
for its share of the next snapshot (`Part.snapshot_fields`), and after a replay that builds a
fresh session (a refusal, an undo, a correction) it takes the fresh session's parts and binds
them to itself (`TableSession._bind_parts`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from controller.engine.hand import Hand
    from controller.engine.profiles import RuleProfile
    from controller.engine.table_play import Table
    from controller.session.model import HandTrack, SessionConfig
    from controller.session.outputs import EventKind


class Core(Protocol):
    """What every part reads of the core: the configuration and rules, the engine's table, the
    hand's track, and the core's helpers to speak and to find a seat in the hand."""

    @property
    def config(self) -> SessionConfig: ...

    @property
    def profile(self) -> RuleProfile: ...

    @property
    def table(self) -> Table: ...

    @property
    def track(self) -> HandTrack | None: ...

    def _say(self, kind: EventKind, text: str, *, rule: str | None = None,
             seat: int | None = None, **data: Any) -> None: ...

    def _irregular(self, rule: str, text: str, seat: int | None = None,
                   by: str | None = None, kind: EventKind = "alert") -> None: ...

    def _hand(self) -> Hand | None: ...

    def _between_hands(self) -> bool: ...

    def _seat_index(self, seat: int) -> int | None: ...

    def _seat_arg(self, args: dict[str, Any], name: str) -> int: ...


class Part(Protocol):
    """A component of the session: its share of the snapshot the journal stores."""

    def snapshot_fields(self) -> dict[str, Any]:
        """The `SessionSnapshot` fields this part keeps (none: it keeps nothing across hands)."""
        ...


class Speaks:
    """For a part that speaks often (the chip zones, the betting actions): the core's `_say`
    and `_irregular` as its own, so that its many messages read as they did on the session."""

    core: Core

    def _say(self, kind: EventKind, text: str, *, rule: str | None = None,
             seat: int | None = None, **data: Any) -> None:
        self.core._say(kind, text, rule=rule, seat=seat, **data)

    def _irregular(self, rule: str, text: str, seat: int | None = None) -> None:
        self.core._irregular(rule, text, seat=seat)

