"""The cash floor's page on the floor display (``/cash``; ``/cash?tv=1`` for the room's TV): each
game's waiting list, its tables with their seats open, the must-move orders and the seat offered
down one, the table changes asked for; and the floor's decisions (sign up, call, seat, remove,
open and close a table, make one must-move, a player's answer, approve a change) behind the
floor login, like every other decision.

The page reads the cash floor's retained state as the hub last received it (``/api/cash``,
fetched every two seconds), with the cash floor's status in the ``X-Cash-Status`` header
(``online``, ``offline``: its Last Will; absent while never heard): an offline cash floor's
lists are stale, and the page says so. The telephone numbers (``/api/cash/contacts``) only with
a floor login. Kept apart from `web` so that the cash floor's routes are one list.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from controller.room.cash.commands import FLOOR_COMMANDS
from controller.room.floor.web_requests import error, floor_decision, hub_of, logged_in_of, nothing

CASH_SCREENS = {"/cash": ("cash", "Cash games")}


class CashCommand(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z_]{1,40}$")
    args: dict[str, Any] = Field(default_factory=dict)


def cash_routes() -> list[BaseRoute]:
    async def state(request: Request) -> Response:
        hub = hub_of(request)
        if hub.cash is None:
            return nothing("no cash floor heard yet: is `pokertable cash` running?")
        headers = {"cache-control": "no-store"}
        if hub.cash_online is not None:  # (the body stays the CashState it published)
            headers["x-cash-status"] = "online" if hub.cash_online else "offline"
        return Response(hub.cash, media_type="application/json", headers=headers)

    async def contacts(request: Request) -> Response:
        # A player's number is for the floor who calls him, never for a screen
        if logged_in_of(request) is None:
            return error(403, "log in as floor staff first: the numbers are the floor's")
        hub = hub_of(request)
        return Response(hub.cash_contacts or b'{"v": 1, "contacts": []}',
                        media_type="application/json", headers={"cache-control": "no-store"})

    async def command(request: Request) -> Response:
        decision = await floor_decision(request, CashCommand, "not a cash command")
        if isinstance(decision, Response):
            return decision
        hub, logged_in, body = decision
        if body.name not in FLOOR_COMMANDS:
            return error(400, f"{body.name!r} is no command the cash floor takes")
        if len(json.dumps(body.args)) > 2000:
            return error(400, "the command's arguments are too long")
        reply = await hub.command("cash", body.name, body.args, by=f"floor:{logged_in.user}")
        return Response(reply.model_dump_json(), media_type="application/json")

    return [Route("/api/cash", state), Route("/api/cash/contacts", contacts),
            Route("/api/cash/command", command, methods=["POST"])]


__all__ = ["CASH_SCREENS", "cash_routes"]
