"""The shapes the floor's room model (model.py) hands the screens: a table's card
(`TableView`), one push to the browsers (`RoomUpdate`), a venue's own state on a floor following
several (`VenueView`) and everything a screen needs when it (re)connects (`RoomSnapshot`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from controller.mqtt.messages import ClockState, TournamentState
from controller.room.floor.alerts import Alert, Reason, Severity
from controller.session.outputs import PublicEvent, TableState


class TableView(BaseModel):
    """One table's card on the room screen and its table screen (without the story)."""

    model_config = ConfigDict(frozen=True)

    table: str
    venue: str | None = Field(default=None, description="Whose venue, on a floor following "
                              "several; None on a venue's own floor")
    online: bool | None = Field(default=None, description="None: never heard of since start")
    since: float | None = Field(default=None, description="When it went on- or offline")
    state: TableState | None = None
    seq: int = 0
    sent: float | None = Field(default=None, description="When the table sent its latest "
                               "state (its own wall time)")
    clock_offset: float | None = None
    clock_rtt: float | None = None
    actor_since: float | None = Field(default=None, description="The clock's time the seat to "
                                      "act got the action (from the table's state's time)")
    attention: list[Reason] = Field(default_factory=list, description="Why the floor is "
                                    "needed, worst first; empty when all is well")
    severity: Severity | None = Field(default=None, description="The worst of attention")
    stalled: bool = Field(default=False, description="The seat to act has had the action "
                          "longer than the time rules allow (RULES C1)")
    players: int = Field(default=0, description="Seats taken")
    free_seats: int = 0
    average_stack: int | None = Field(default=None, description="The chips at the table "
                                      "(stacks and pots) per player")
    hands_per_hour: float | None = Field(default=None, description="Over the last hour, from "
                                         "at least three hands begun")
    out_of_play: str | None = Field(default=None, description="The tournament broke it "
                                    "(\"broken\") or does not use it (\"not in use\") and its "
                                    "last state seats no one: its card greys, no rate")


class RoomUpdate(BaseModel):
    """One push to the browsers: ``kind`` names what changed."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["table", "event", "clock", "alert", "broker", "tournament"]
    table: TableView | None = None
    event: PublicEvent | None = None
    event_table: str | None = None
    clock: ClockState | None = None
    clock_online: bool | None = None
    alert: Alert | None = None
    broker: bool | None = None
    broker_problem: str | None = None  # with ``broker``: what is wrong, as the log said it
    tournament: TournamentState | None = None  # with ``tournament``: absent once it is gone
    # On a floor following several venues: whose event, clock, tournament or bridge it is
    venue: str | None = None
    bridge: bool | None = None  # with ``broker`` and ``venue``: the venue's link to the league


class VenueView(BaseModel):
    """One venue's own state on a floor following several: its clock, its tournament and its
    link to the league (Mosquitto's bridge status: None while it never said)."""

    model_config = ConfigDict(frozen=True)

    venue: str
    clock: ClockState | None = None
    clock_online: bool | None = None
    tournament: TournamentState | None = None
    bridge: bool | None = None


class RoomSnapshot(BaseModel):
    """Everything a screen needs when it (re)connects."""

    tables: list[TableView]
    stories: dict[str, list[PublicEvent]]
    clock: ClockState | None
    clock_online: bool | None
    tournament: TournamentState | None = None
    alerts: list[Alert]
    broker: bool
    broker_problem: str | None
    recorder: bool | None
    # A floor following several venues: each one's clock, tournament and link (the fields
    # above for one clock are then empty); stories are keyed "venue/table"
    venues: list[VenueView] | None = None
    # The cash floor's state is heard (`pokertable cash` runs here): the pages of a room that
    # deals cash games and has no clock wait for none (set by the web side, which keeps it)
    cash: bool = False
