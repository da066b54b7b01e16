"""The broadcast feed's pages (docs/broadcast.md): ``/broadcast/<table>`` and ``/broadcast`` (the
feature table, whichever the floor chooses), an OBS browser source at 1920x1080 on a transparent
background: every player's hole cards, his equity, the board, the pot, the stacks and the
actions, all of a sealed hand, and never younger than the table's delay (`broadcast.py` keeps
it on the server). For a broadcast login only (an account with the ``broadcast`` role): a floor
login without it and a stranger are refused; a broadcast login decides nothing on the floor.

The floor's feature-table switch (``POST /api/broadcast-feature``) is a floor decision like any
other: a floor login with its CSRF token, from the floor's own page (``/feature``).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import time
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, Field
from sse_starlette.sse import EventSourceResponse
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from controller.room.floor.auth import LoggedIn
from controller.room.floor.broadcast import BroadcastFeed, Cursor
from controller.room.floor.broadcast_view import FeedStep
from controller.room.floor.config import BroadcastSection
from controller.room.floor.hub import sse_frame
from controller.room.floor.model import Room
from controller.room.floor.web_requests import (
    accounts_of,
    address_of,
    error,
    floor_decision,
    hub_of,
    sessions_of,
)

log = logging.getLogger(__name__)

STATIC = Path(str(resources.files("controller.room.floor") / "static"))
TABLE = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


class FeatureBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    table: str | None = Field(default=None, pattern=TABLE.pattern, description="The table "
                              "/broadcast shows; null: none")


class Snapshot(BaseModel):
    """What a broadcast screen shows when it opens (and when the feature table changes)."""

    table: str | None
    feature: bool = Field(description="Following the feature table (/broadcast)")
    delay: float = Field(description="Seconds: nothing younger is ever sent")
    now: float = Field(description="The feed's clock when this was made")
    step: FeedStep | None = Field(description="The last step due, None: no hand yet")


class Watermark(BaseModel):
    """Sent after the steps due at ``now``: a step not sent before it was not due then."""

    table: str | None
    now: float
    delay: float


def broadcast_routes() -> list[BaseRoute]:
    def feed_of(request: Request) -> BroadcastFeed:
        feed: BroadcastFeed | None = getattr(request.app.state, "broadcast", None)
        if feed is None:  # (an application made without a server: its defaults)
            feed = BroadcastFeed(hub_of(request), getattr(request.app.state, "records", None),
                                 BroadcastSection())
            request.app.state.broadcast = feed
        return feed

    def viewer(request: Request) -> LoggedIn | None:
        return sessions_of(request).find(request.session.get("sid"), accounts_of(request),
                                         role="broadcast")

    def refused(request: Request, as_page: bool) -> Response | None:
        """Why this request gets nothing: no broadcast login (403; a page without any login
        goes to the login first), a floor following several venues or no recorder's store."""
        if viewer(request) is None:
            staff = request.session.get("sid") is not None
            where = address_of(request)
            log.warning("floor: a broadcast request from %s refused: %s", where,
                        "a login without the broadcast role" if staff else "no login")
            if as_page and not staff:
                return RedirectResponse(f"/login?next={quote(request.url.path)}", 303)
            reason = ("this login has no broadcast role: the broadcast is for a broadcast "
                      "login (pokertable floor-user add NAME --broadcast)" if staff else
                      "log in with a broadcast login first")
            return _refusal(403, reason) if as_page else error(403, reason)
        hub = hub_of(request)
        if not isinstance(hub.room, Room):
            reason = "the broadcast is on the venue's own floor"
            return _refusal(404, reason) if as_page else error(404, reason)
        if feed_of(request).records is None and not as_page:
            return error(503, "this floor reads no recorder's store ([floor] records in "
                         "floor.toml): it has no hole cards to show")
        return None

    def table_asked(request: Request) -> tuple[str | None, bool] | Response:
        """(the table, whether it follows the feature table), or the refusal."""
        asked = request.query_params.get("table") or request.path_params.get("table")
        if asked is None:
            return feed_of(request).feature, True
        if not TABLE.match(asked):
            return error(400, "a table's id: letters, digits, '-' and '_'")
        return asked, False

    async def snapshot(feed: BroadcastFeed, table: str | None, feature: bool, now: float
                       ) -> tuple[Snapshot, Cursor | None]:
        step, cursor = (None, None) if table is None else await feed.latest(table, now)
        return Snapshot(table=table, feature=feature, now=now, step=step,
                        delay=feed.delay(table) if table else feed.settings.delay("")), cursor

    async def page(request: Request) -> Response:
        refusal = refused(request, as_page=True)
        if refusal is not None:
            return refusal
        return HTMLResponse(_static("broadcast.html"), headers={"cache-control": "no-store"})

    async def state(request: Request) -> Response:
        refusal = refused(request, as_page=False)
        if refusal is not None:
            return refusal
        asked = table_asked(request)
        if isinstance(asked, Response):
            return asked
        feed = feed_of(request)
        shot, _ = await snapshot(feed, *asked, feed.now())
        return Response(shot.model_dump_json(), media_type="application/json",
                        headers={"cache-control": "no-store"})

    async def stream(request: Request) -> Response:
        refusal = refused(request, as_page=False)
        if refusal is not None:
            return refusal
        asked = table_asked(request)
        if isinstance(asked, Response):
            return asked
        feed, hub = feed_of(request), hub_of(request)
        where = address_of(request)
        if len(hub.screens) >= hub.max_screens:
            return error(503, "too many screens are open on this server")
        if hub.screens_from(where) >= hub.max_screens_per_address:
            return error(429, "too many screens open from this address: close one first")
        screen = hub.attach(frozenset(), address=where)  # (no room update: woken only)
        feed.streams.add(screen)
        table, feature = asked

        async def pushes() -> AsyncIterator[bytes]:
            nonlocal table
            try:
                now = feed.now()
                shot, cursor = await snapshot(feed, table, feature, now)
                yield sse_frame("snapshot", shot.model_dump_json())
                while True:
                    try:
                        if await asyncio.wait_for(screen.queue.get(), feed.tick) is None:
                            return  # the server stops (or the screen was dropped)
                    except TimeoutError:
                        pass
                    while not screen.queue.empty():
                        if screen.queue.get_nowait() is None:
                            return
                    if viewer(request) is None:
                        return  # logged out, the account removed or its password changed
                    now = feed.now()  # (read first: every step sent below was due by now)
                    if feature and feed.feature != table:
                        table = feed.feature
                        shot, cursor = await snapshot(feed, table, feature, now)
                        yield sse_frame("snapshot", shot.model_dump_json())
                    elif table is not None:
                        steps, cursor = await feed.due(table, cursor, now)
                        for step in steps:
                            yield sse_frame("step", step.model_dump_json())
                    mark = Watermark(table=table, now=now,
                                     delay=feed.delay(table) if table else 0.0)
                    yield sse_frame("clock", mark.model_dump_json())
            finally:
                feed.streams.discard(screen)
                hub.detach(screen)

        return EventSourceResponse(pushes(), ping=15, headers={"cache-control": "no-store"})

    async def feature(request: Request) -> Response:
        decision = await floor_decision(request, FeatureBody, "not a feature table")
        if isinstance(decision, Response):
            return decision
        _, logged_in, body = decision
        feed = feed_of(request)
        await feed.choose(body.table, f"floor:{logged_in.user}")
        log.info("floor: floor:%s makes %s the feature table", logged_in.user,
                 f"table {body.table}" if body.table else "no table")
        return JSONResponse({"status": "ok", "table": body.table})

    async def feature_state(request: Request) -> Response:
        """The feature table and the tables to choose from (anyone on the floor may see it)."""
        hub = hub_of(request)
        room = hub.room
        tables = sorted(room.tables, key=_table_order) if isinstance(room, Room) else []
        return JSONResponse({"table": feed_of(request).feature, "tables": tables,
                             "at": time.time()}, headers={"cache-control": "no-store"})

    async def feature_page(request: Request) -> Response:
        return HTMLResponse(_static("feature.html"), headers={"cache-control": "no-cache"})

    return [Route("/broadcast", page), Route("/broadcast/{table}", page),
            Route("/api/broadcast/state", state), Route("/api/broadcast/stream", stream),
            Route("/api/broadcast-feature", feature_state),
            Route("/api/broadcast-feature", feature, methods=["POST"]),
            Route("/feature", feature_page)]


def _table_order(table: str) -> tuple[int, str]:
    return (int(table), "") if table.isdigit() else (1 << 30, table)


@functools.cache
def _static(name: str) -> str:
    return (STATIC / name).read_text()


def _refusal(status: int, text: str) -> HTMLResponse:
    body = _static("player-refused.html").replace("{title}", "Broadcast").replace(
        "{text}", text)
    return HTMLResponse(body, status_code=status, headers={"cache-control": "no-store"})


__all__ = ["FeatureBody", "Snapshot", "Watermark", "broadcast_routes"]
