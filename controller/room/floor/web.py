"""The floor display's web side (Starlette): pages, one push stream per screen (Server-Sent
Events), the hands search, and the floor's decisions behind a login.

Screens (room, clock, table, alerts, hands) need no login and can do nothing: every request
that changes something needs a floor login's session and its CSRF token in a header, and comes
from this site (`Origin`). The pages are static files; what they show arrives as JSON.

A floor following several venues (a league's host) serves the same pages, which then group
and name the venues (the body says which: ``data-venues``), and offers no decision: the
controls are not in its pages and `/api/command` refuses, saying why.

The endpoints are module-level functions listed in one ``routes``; what they share (the hub,
the accounts, the failed logins) lives on ``app.state``, set by `create_app`, and what they ask
of a request (its body, its login, a floor decision's checks) is `web_requests`, which the page
modules (tournament, cash, players, broadcast) import as this one does.
"""

from __future__ import annotations

import functools
import html
import json
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sse_starlette.sse import EventSourceResponse
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from controller.engine.records import HandRecord
from controller.errors import ExportError
from controller.history.export import one_hand
from controller.history.story import hand_story
from controller.room.clock.rules import CLOCK_COMMANDS
from controller.room.floor.accounts import Accounts, verify_off_loop
from controller.room.floor.auth import SESSION_SECONDS, LoginThrottle, Sessions
from controller.room.floor.broadcast_pages import broadcast_routes
from controller.room.floor.cash_pages import CASH_SCREENS, cash_routes
from controller.room.floor.hub import Hub, sse_frame
from controller.room.floor.league import table_key
from controller.room.floor.player_pages import player_routes
from controller.room.floor.store import HandQuery
from controller.room.floor.tournament_pages import TOURNAMENT_SCREENS, tournament_routes
from controller.room.floor.web_requests import (
    accounts_of,
    address_of,
    error,
    floor_decision,
    foreign,
    guard,
    hub_of,
    logged_in_of,
    read_body,
    sessions_of,
)
from controller.session.model import FLOOR_COMMANDS

log = logging.getLogger(__name__)

STATIC = Path(str(resources.files("controller.room.floor") / "static"))
# path -> (screen, title): each page is the one shell around its screen's fragment
SCREENS = {"/": ("room", "Room"), "/clock": ("clock", "Clock"), "/alerts": ("alerts", "Alerts"),
           "/hands": ("hands", "Hands"), "/login": ("login", "Floor login"),
           "/table/{table_id}": ("table", "Table"), **TOURNAMENT_SCREENS, **CASH_SCREENS}
STREAM_KINDS = frozenset({"table", "event", "clock", "alert", "broker", "tournament"})
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; "
     b"frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]


class CommandBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    target: str = Field(pattern=r"^(clock|[A-Za-z0-9_-]{1,40})$", description="clock or a "
                        "table id")
    name: str = Field(pattern=r"^[a-z_]{1,40}$")
    args: dict[str, Any] = Field(default_factory=dict)


class AcknowledgeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ids: list[str] = Field(min_length=1, max_length=500, description="The alerts the page "
                           "shows: one arriving meanwhile is not acknowledged unseen")


class LoginBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user: str = Field(min_length=1, max_length=40)
    password: str = Field(min_length=1, max_length=200)


class SecurityHeaders:
    """Every response says: our own scripts and styles only, never in a frame, no sniffing."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + SECURITY_HEADERS
            await send(message)

        await self.app(scope, receive, with_headers)


# ------------------------------------------------------------------------ the screens

@functools.cache
def _page_text(screen: str, title: str, tv: bool, venues: tuple[str, ...] = (),
               read_only: bool = False) -> str:
    """The shell around the screen's fragment; on a TV (``?tv=1``) without the menu and the
    floor's controls: nothing on the room's screens can be clicked. A floor that only watches
    (``read_only``) has no controls either; one following several ``venues`` names them, and
    keeps the parts for a league (``<!--league-->``), which a venue's own floor leaves out."""
    shell = (STATIC / "shell.html").read_text()
    body = (STATIC / "screens" / f"{screen}.html").read_text()
    classes = []
    if tv:
        shell = _without(shell, "nav")
        classes.append("tv")
    if tv or read_only:
        body = _without(body, "staff")
    if read_only:
        classes.append("read-only")
    if len(venues) > 1:
        body = body.replace("<!--league-->", "").replace("<!--/league-->", "")
    else:
        body = _without(body, "league")
    attributes = (f' class="{" ".join(classes)}"' if classes else "") + (
        f' data-venues="{html.escape(" ".join(venues))}"' if len(venues) > 1 else "")
    shell = shell.replace("<body data-screen", f"<body{attributes} data-screen")
    return shell.replace("{title}", title).replace("{screen}", screen).replace("{body}", body)


def _without(text: str, part: str) -> str:
    """``text`` without what stands between ``<!--part-->`` and ``<!--/part-->``."""
    while (start := text.find(f"<!--{part}-->")) >= 0:
        end = text.index(f"<!--/{part}-->", start) + len(f"<!--/{part}-->")
        text = text[:start] + text[end:]
    return text


async def page(request: Request) -> Response:
    """A screen: the shell around its fragment (the route's path names it)."""
    screen, title = SCREENS[request.scope["route"].path]
    tv = request.query_params.get("tv") == "1"
    hub = hub_of(request)
    text = _page_text(screen, title, tv, hub.venues, hub.read_only)
    return HTMLResponse(text, headers={"cache-control": "no-cache"})


def _snapshot_json(hub: Hub, table: str | None, venue: str | None = None) -> str:
    """Everything a screen shows, with the hand's story of its table only (if any; on a floor
    following several venues, the table of ``venue``), and whether the cash floor is heard."""
    snap = hub.room.snapshot()
    key = table_key(venue, table) if table and venue else table
    stories = {key: snap.stories.get(key, [])} if key else {}
    return snap.model_copy(update={"stories": stories, "cash": hub.cash is not None}
                           ).model_dump_json()


async def snapshot(request: Request) -> Response:
    body = _snapshot_json(hub_of(request), request.query_params.get("table") or None,
                          request.query_params.get("venue") or None)
    return Response(body, media_type="application/json")


async def stream(request: Request) -> Response:
    hub = hub_of(request)
    if len(hub.screens) >= hub.max_screens:
        log.warning("floor: a push stream refused: %d screens already", len(hub.screens))
        return error(503, "too many screens are open on this server")
    address = address_of(request)
    if hub.screens_from(address) >= hub.max_screens_per_address:
        log.warning("floor: a push stream from %s refused: it has %d open already", address,
                    hub.max_screens_per_address)
        return error(429, f"too many screens open from {address}: close one first")
    asked = request.query_params.get("kinds", "")
    kinds = frozenset(asked.split(",")) & STREAM_KINDS if asked else STREAM_KINDS
    table = request.query_params.get("table") or None
    venue = request.query_params.get("venue") or None
    screen = hub.attach(kinds, table, address, venue)

    async def pushes() -> AsyncIterator[bytes]:
        try:
            yield sse_frame("snapshot", _snapshot_json(hub, table, venue))
            while True:
                frame = await screen.queue.get()
                if frame is None:
                    return  # dropped (too slow) or the server stops: the browser reconnects
                yield frame  # the event as the hub framed it once for every screen
        finally:
            hub.detach(screen)

    return EventSourceResponse(pushes(), ping=15, headers={"cache-control": "no-store"})


async def health(request: Request) -> Response:
    """For the installer's monitoring: 200 while the broker is there, 503 when not."""
    hub = hub_of(request)
    room = hub.room
    body: dict[str, object] = {
        "broker": room.broker, "recorder": room.recorder, "screens": len(hub.screens),
        "tables": len(room.tables), "online": sum(1 for v in room.tables.values() if v.online),
        "open_alerts": len(room.open_alerts()), "received": hub.received}
    if len(hub.venues) > 1:
        body["venues"] = list(hub.venues)
    return JSONResponse(body, status_code=200 if room.broker else 503,
                        headers={"cache-control": "no-store"})


async def clock_time(request: Request) -> Response:
    return JSONResponse({"now": hub_of(request).clock_now()}, headers={"cache-control": "no-store"})


# ------------------------------------------------------------------------ logins

async def me(request: Request) -> Response:
    """``user``: the floor login, else None; ``login``: any login (a broadcast login's too,
    with the token its logout needs)."""
    anyone = sessions_of(request).find(request.session.get("sid"), accounts_of(request), role=None)
    if anyone is None:
        request.session.clear()  # logged out, expired, or the account changed meanwhile
        return JSONResponse({"user": None, "csrf": None, "login": None})
    floor = logged_in_of(request)
    return JSONResponse({"user": floor.user if floor else None, "csrf": anyone.csrf,
                         "login": anyone.user})


async def login(request: Request) -> Response:
    refused = foreign(request)
    if refused is not None:
        return refused
    body = await read_body(request, LoginBody, "send {\"user\": ..., \"password\": ...} as JSON")
    if isinstance(body, Response):
        return body
    throttle: LoginThrottle = request.app.state.throttle
    attempt = throttle.admit(body.user, address_of(request))
    if isinstance(attempt, str):
        log.warning("floor: login for %r from %s refused: %s", body.user[:40],
                    address_of(request), attempt)
        return error(429, attempt)
    accounts = accounts_of(request)
    # argon2 takes a tenth of a second of both cores by design: off the loop that feeds every
    # screen, one at a time and below the loop's priority (accounts.py).
    if not await verify_off_loop(accounts, body.user, body.password):
        log.warning("floor: wrong password for %r from %s", body.user[:40], address_of(request))
        return error(401, "wrong name or password")
    throttle.passed(attempt)
    logged_in = await sessions_of(request).open_off_loop(body.user, accounts.users[body.user])
    request.session.clear()
    request.session["sid"] = logged_in.sid
    log.info("floor: %s logged in", body.user)
    return JSONResponse({"user": logged_in.user, "csrf": logged_in.csrf})


async def logout(request: Request) -> Response:
    logged_in = guard(request, role=None)  # any login ends its own session (CSRF kept)
    if isinstance(logged_in, Response):
        return logged_in
    sessions_of(request).close(logged_in.sid)  # the same cookie again is a stranger's
    request.session.clear()
    log.info("floor: %s logged out", logged_in.user)
    return JSONResponse({"user": None})


# ------------------------------------------------------------------------ decisions

async def command(request: Request) -> Response:
    decision = await floor_decision(request, CommandBody, "not a command")
    if isinstance(decision, Response):
        return decision
    hub, logged_in, body = decision
    allowed = CLOCK_COMMANDS if body.target == "clock" else FLOOR_COMMANDS
    if body.name not in allowed:
        where = "the clock" if body.target == "clock" else "a table"
        return error(400, f"{body.name!r} is no command {where} takes")
    if len(json.dumps(body.args)) > 2000:
        return error(400, "the command's arguments are too long")
    reply = await hub.command(body.target, body.name, body.args, by=f"floor:{logged_in.user}")
    return Response(reply.model_dump_json(), media_type="application/json")


async def acknowledge(request: Request) -> Response:
    logged_in = guard(request)
    if isinstance(logged_in, Response):
        return logged_in
    alert_id = request.path_params["alert_id"]
    if not hub_of(request).acknowledge(alert_id, f"floor:{logged_in.user}"):
        return error(404, "no open alert with that id")
    return JSONResponse({"ok": True})


async def acknowledge_all(request: Request) -> Response:
    """Every alert the page lists (a table's, with one click)."""
    logged_in = guard(request)
    if isinstance(logged_in, Response):
        return logged_in
    body = await read_body(request, AcknowledgeBody, "send {\"ids\": [...]} as JSON")
    if isinstance(body, Response):
        return body
    hub = hub_of(request)
    done = sum(hub.acknowledge(alert_id, f"floor:{logged_in.user}") for alert_id in body.ids)
    return JSONResponse({"acknowledged": done})


# ------------------------------------------------------------------------ hands

async def hands(request: Request) -> Response:
    params = {k: v for k, v in request.query_params.items() if v != ""}
    try:
        query = HandQuery.model_validate(params)
    except ValidationError as exc:
        return error(400, f"bad search: {exc.errors()[0]['loc'][0]}")
    found = hub_of(request).store.find(query)
    return JSONResponse([h.model_dump(mode="json") for h in found])


async def hand(request: Request) -> Response:
    """The record, its story in the floor's words, and the formats it downloads as (a floor
    following several venues names the hand's venue: ``?venue=``)."""
    venue = request.query_params.get("venue") or None
    record = hub_of(request).store.hand(request.path_params["hand_id"], venue)
    if record is None:
        return error(404, "no such hand")
    story = [line.model_dump() for line in hand_story(record)]
    return JSONResponse({**record.model_dump(mode="json"), "story": story,
                         "downloads": list(DOWNLOADS), **({"venue": venue} if venue else {})})


# The files a hand downloads as: the format's name in the URL -> its file's suffix and what
# writes it. A second format (tracker text) is one more entry here; the hand panel offers a
# link for each (hands.js).
DOWNLOADS: dict[str, tuple[str, Callable[[HandRecord], str]]] = {
    "phh": ("phh", lambda record: one_hand(record, "phh")),
    "stars": ("txt", lambda record: one_hand(record, "stars")),
}


async def hand_download(request: Request) -> Response:
    """``/api/hands/<id>/<format>``: the hand as a file (a public record: only tabled cards)."""
    download = DOWNLOADS.get(request.path_params["form"])
    venue = request.query_params.get("venue") or None
    record = hub_of(request).store.hand(request.path_params["hand_id"], venue)
    if download is None or record is None:
        return error(404, "no such hand" if download else "no such format")
    suffix, write = download
    try:
        text = write(record)
    except ExportError as exc:  # a void hand or a misdeal: no result to import
        return error(409, str(exc))
    name = f"table-{record.table}-hand-{record.hand}.{suffix}".replace('"', "")
    if venue:
        name = f"{venue}-{name}".replace('"', "")
    return PlainTextResponse(text, headers={
        "content-disposition": f'attachment; filename="{name}"'})


# ------------------------------------------------------------------------ the application

routes: list[BaseRoute] = [
    *[Route(path, page) for path in SCREENS],
    Route("/api/snapshot", snapshot),
    Route("/api/stream", stream),
    Route("/api/time", clock_time),
    Route("/api/health", health),
    Route("/api/me", me),
    Route("/api/login", login, methods=["POST"]),
    Route("/api/logout", logout, methods=["POST"]),
    Route("/api/command", command, methods=["POST"]),
    Route("/api/alerts/ack", acknowledge_all, methods=["POST"]),
    Route("/api/alerts/{alert_id:path}/ack", acknowledge, methods=["POST"]),
    Route("/api/hands", hands),
    Route("/api/hands/{hand_id:path}/{form}", hand_download),
    Route("/api/hands/{hand_id:path}", hand),
    *tournament_routes(),
    *cash_routes(),
    *player_routes(),
    *broadcast_routes(),
    Mount("/static", StaticFiles(directory=STATIC), name="static"),
]


@asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    hub: Hub = app.state.hub
    await hub.start()
    try:
        yield
    finally:
        await hub.close()


def create_app(hub: Hub, accounts: Callable[[], Accounts], secret: str, *,
               secure_cookies: bool = False) -> Starlette:
    """The floor's web application around ``hub`` (started and closed with the app)."""
    middleware = [
        Middleware(SecurityHeaders),
        # The cookie carries the session's id only; the server keeps the session (auth.py).
        Middleware(SessionMiddleware, secret_key=secret, session_cookie="pokertable_floor",
                   max_age=SESSION_SECONDS, same_site="strict", https_only=secure_cookies),
    ]
    app = Starlette(routes=routes, middleware=middleware, lifespan=_lifespan)
    app.state.hub = hub
    app.state.accounts = accounts
    app.state.sessions = Sessions(hub.store, secret)
    app.state.throttle = LoginThrottle()
    return app


__all__ = ["create_app", "routes"]
