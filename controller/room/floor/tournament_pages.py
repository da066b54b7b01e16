"""The tournament's pages on the floor display: the standings (players left, places, prizes,
points), the moves to make, the tables, the colour-up, the add-ons and rebuys, the chip count's
alerts, and a printable seat list; and the floor's tournament decisions (register, draw,
re-entry, undo a wrong bust, a move's chips counted, an add-on or rebuy sold) behind the floor
login, like every other decision.

The pages read the tournament's retained state as the hub last received it (``/api/tournament``,
fetched every two seconds: the service publishes it at most twice a second); the standings
download as CSV and JSON. Kept apart from `web` so that the tournament's routes are one list.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from controller.room.floor.hub import Hub
from controller.room.floor.web_requests import error, floor_decision, hub_of, nothing
from controller.room.tournament.commands import COMMANDS
from controller.room.tournament.export import standings_csv, standings_json
from controller.room.tournament.view import PublishedState

log = logging.getLogger(__name__)

TOURNAMENT_SCREENS = {"/tournament": ("tournament", "Tournament"),
                      "/seats": ("seats", "Seat list")}


class TournamentCommand(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z_]{1,40}$")
    args: dict[str, Any] = Field(default_factory=dict)


def tournament_routes() -> list[BaseRoute]:
    def latest(hub: Hub) -> PublishedState | None:
        if hub.tournament is None:
            return None
        return PublishedState.model_validate_json(hub.tournament)

    async def state(request: Request) -> Response:
        hub = hub_of(request)
        if hub.tournament is None:
            return nothing("no tournament heard yet: is `pokertable tournament` running?")
        return Response(hub.tournament, media_type="application/json",
                        headers={"cache-control": "no-store"})

    async def export(request: Request) -> Response:
        found = latest(hub_of(request))
        if found is None:
            return error(404, "no tournament heard yet")
        kind = request.path_params["kind"]
        if kind not in ("csv", "json"):
            return error(404, "the standings come as .csv or .json")
        name = "".join(c if c.isalnum() else "-" for c in found.name)[:60] or "tournament"
        now = time.time()  # (the export's time: this download)
        if kind == "csv":
            body = standings_csv(found.standings, found.currency, now)
            media = "text/csv"
        else:
            body = standings_json(found.standings, name=found.name, entries=found.entries,
                                  players=found.players, prize_pool=found.prize_pool,
                                  currency=found.currency, exported=now)
            media = "application/json"
        return Response(body, media_type=media, headers={
            "content-disposition": f'attachment; filename="{name}-standings.{kind}"'})

    async def command(request: Request) -> Response:
        decision = await floor_decision(request, TournamentCommand, "not a tournament command")
        if isinstance(decision, Response):
            return decision
        hub, logged_in, body = decision
        if body.name not in COMMANDS:
            return error(400, f"{body.name!r} is no command the tournament takes")
        if len(json.dumps(body.args)) > 2000:
            return error(400, "the command's arguments are too long")
        reply = await hub.command("tournament", body.name, body.args,
                                  by=f"floor:{logged_in.user}")
        return Response(reply.model_dump_json(), media_type="application/json")

    return [Route("/api/tournament", state),
            Route("/api/tournament/standings.{kind:str}", export),
            Route("/api/tournament/command", command, methods=["POST"])]


__all__ = ["TOURNAMENT_SCREENS", "tournament_routes"]
