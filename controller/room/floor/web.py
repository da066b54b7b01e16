"""The floor display's web side (Starlette): pages, one push stream per screen (Server-Sent
Events), the hands search, and the floor's decisions behind a login.

Screens (room, clock, table, alerts, hands) need no login and can do nothing: every request
that changes something needs a floor login's session and its CSRF token in a header, and comes
from this site (`Origin`). The pages are static files; what they show arrives as JSON.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

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

from controller.json_input import BadJson, loads_bounded
from controller.room.clock.rules import CLOCK_COMMANDS
from controller.room.floor.accounts import Accounts, check_password
from controller.room.floor.hub import Hub
from controller.room.floor.store import HandQuery
from controller.room.floor.tournament_pages import TOURNAMENT_SCREENS, tournament_routes
from controller.session.model import FLOOR_COMMANDS

log = logging.getLogger(__name__)

STATIC = Path(str(resources.files("controller.room.floor") / "static"))
# path -> (screen, title): each page is the one shell around its screen's fragment
SCREENS = {"/": ("room", "Room"), "/clock": ("clock", "Clock"), "/alerts": ("alerts", "Alerts"),
           "/hands": ("hands", "Hands"), "/login": ("login", "Floor login"),
           "/table/{table_id}": ("table", "Table"), **TOURNAMENT_SCREENS}
STREAM_KINDS = frozenset({"table", "event", "clock", "alert", "broker"})
SECURITY_HEADERS = [
    (b"content-security-policy", b"default-src 'self'; img-src 'self' data:; "
     b"frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
]
BODY_LIMIT = 16_384  # bytes: a command or a login is a few hundred
B = TypeVar("B", bound=BaseModel)
LOGIN_FAILURES = 5  # wrong passwords for one name within LOGIN_WINDOW before it must wait
LOGIN_WINDOW = 60.0


class CommandBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    target: str = Field(pattern=r"^(clock|[A-Za-z0-9_-]{1,40})$", description="clock or a "
                        "table id")
    name: str = Field(pattern=r"^[a-z_]{1,40}$")
    args: dict[str, Any] = Field(default_factory=dict)


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


def create_app(hub: Hub, accounts: Callable[[], Accounts], secret: str, *,
               secure_cookies: bool = False) -> Starlette:
    """The floor's web application around ``hub`` (started and closed with the app)."""
    failures: dict[str, list[float]] = {}

    shell = (STATIC / "shell.html").read_text()

    def page(screen: str, title: str) -> Callable[[Request], Awaitable[Response]]:
        text = (shell.replace("{title}", title).replace("{screen}", screen)
                .replace("{body}", (STATIC / "screens" / f"{screen}.html").read_text()))

        async def serve(request: Request) -> Response:
            return HTMLResponse(text, headers={"cache-control": "no-cache"})
        return serve

    def snapshot_json(table: str | None) -> str:
        """Everything a screen shows, with the hand's story of its table only (if any)."""
        snap = hub.room.snapshot()
        stories = {table: snap.stories.get(table, [])} if table else {}
        return snap.model_copy(update={"stories": stories}).model_dump_json()

    async def snapshot(request: Request) -> Response:
        body = snapshot_json(request.query_params.get("table") or None)
        return Response(body, media_type="application/json")

    async def stream(request: Request) -> Response:
        if len(hub.screens) >= hub.max_screens:
            log.warning("floor: a push stream refused: %d screens already", len(hub.screens))
            return _error(503, "too many screens are open on this server")
        asked = request.query_params.get("kinds", "")
        kinds = frozenset(asked.split(",")) & STREAM_KINDS if asked else STREAM_KINDS
        table = request.query_params.get("table") or None
        screen = hub.attach(kinds, table)

        async def pushes() -> AsyncIterator[dict[str, str]]:
            try:
                yield {"event": "snapshot", "data": snapshot_json(table)}
                while True:
                    item = await screen.queue.get()
                    if item is None:
                        return  # dropped (too slow) or the server stops: the browser reconnects
                    kind, data = item
                    yield {"event": kind, "data": data}
            finally:
                hub.detach(screen)

        return EventSourceResponse(pushes(), ping=15, headers={"cache-control": "no-store"})

    async def health(request: Request) -> Response:
        """For the installer's monitoring: 200 while the broker is there, 503 when not."""
        room = hub.room
        body = {"broker": room.broker, "recorder": room.recorder, "screens": len(hub.screens),
                "tables": len(room.tables),
                "online": sum(1 for v in room.tables.values() if v.online),
                "open_alerts": len(room.open_alerts()), "received": hub.received}
        return JSONResponse(body, status_code=200 if room.broker else 503,
                            headers={"cache-control": "no-store"})

    async def clock_time(request: Request) -> Response:
        return JSONResponse({"now": hub.clock_now()}, headers={"cache-control": "no-store"})

    async def me(request: Request) -> Response:
        user = request.session.get("user")
        if user is not None and user not in accounts().users:
            request.session.clear()  # the account was removed meanwhile
            user = None
        if user is None:
            return JSONResponse({"user": None, "csrf": None})
        return JSONResponse({"user": user, "csrf": request.session.get("csrf")})

    async def login(request: Request) -> Response:
        refused = _foreign(request)
        if refused is not None:
            return refused
        body = await _read_body(request, LoginBody,
                                "send {\"user\": ..., \"password\": ...} as JSON")
        if isinstance(body, Response):
            return body
        now = time.monotonic()
        if len(failures) > 10_000:  # a flood of made-up names must not grow this without end
            for name in [n for n, times in failures.items() if now - times[-1] > LOGIN_WINDOW]:
                del failures[name]
        recent = [t for t in failures.get(body.user, []) if now - t < LOGIN_WINDOW]
        if len(recent) >= LOGIN_FAILURES:
            log.warning("floor: login for %r refused: too many wrong passwords", body.user[:40])
            return _error(429, "too many wrong passwords: wait a minute")
        # argon2 takes tens of milliseconds by design: off the loop that feeds every screen.
        if not await asyncio.to_thread(check_password, accounts(), body.user, body.password):
            failures[body.user] = [*recent, now]
            log.warning("floor: wrong password for %r", body.user[:40])
            return _error(401, "wrong name or password")
        failures.pop(body.user, None)
        request.session.clear()
        request.session.update({"user": body.user, "csrf": secrets.token_urlsafe(24)})
        log.info("floor: %s logged in", body.user)
        return JSONResponse({"user": body.user, "csrf": request.session["csrf"]})

    async def logout(request: Request) -> Response:
        refused = _guard(request, accounts())
        if refused is not None:
            return refused
        log.info("floor: %s logged out", request.session.get("user"))
        request.session.clear()
        return JSONResponse({"user": None})

    async def command(request: Request) -> Response:
        refused = _guard(request, accounts())
        if refused is not None:
            return refused
        body = await _read_body(request, CommandBody, "not a command")
        if isinstance(body, Response):
            return body
        allowed = CLOCK_COMMANDS if body.target == "clock" else FLOOR_COMMANDS
        if body.name not in allowed:
            where = "the clock" if body.target == "clock" else "a table"
            return _error(400, f"{body.name!r} is no command {where} takes")
        if len(json.dumps(body.args)) > 2000:
            return _error(400, "the command's arguments are too long")
        reply = await hub.command(body.target, body.name, body.args,
                                  by=f"floor:{request.session['user']}")
        return Response(reply.model_dump_json(), media_type="application/json")

    async def acknowledge(request: Request) -> Response:
        refused = _guard(request, accounts())
        if refused is not None:
            return refused
        alert_id = request.path_params["alert_id"]
        if not hub.acknowledge(alert_id, f"floor:{request.session['user']}"):
            return _error(404, "no open alert with that id")
        return JSONResponse({"ok": True})

    async def hands(request: Request) -> Response:
        params = {k: v for k, v in request.query_params.items() if v != ""}
        try:
            query = HandQuery.model_validate(params)
        except ValidationError as exc:
            return _error(400, f"bad search: {exc.errors()[0]['loc'][0]}")
        found = hub.store.find(query)
        return JSONResponse([h.model_dump(mode="json") for h in found])

    async def hand(request: Request) -> Response:
        record = hub.store.hand(request.path_params["hand_id"])
        if record is None:
            return _error(404, "no such hand")
        return Response(record.model_dump_json(), media_type="application/json")

    async def hand_phh(request: Request) -> Response:
        hand_id = request.path_params["hand_id"]
        record = hub.store.hand(hand_id)
        if record is None:
            return _error(404, "no such hand")
        name = f"table-{record.table}-hand-{record.hand}.phh".replace('"', "")
        return PlainTextResponse(record.to_phh(), headers={
            "content-disposition": f'attachment; filename="{name}"'})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await hub.start()
        try:
            yield
        finally:
            await hub.close()

    routes: list[BaseRoute] = [Route(path, page(*screen)) for path, screen in SCREENS.items()]
    routes += [
        Route("/api/snapshot", snapshot),
        Route("/api/stream", stream),
        Route("/api/time", clock_time),
        Route("/api/health", health),
        Route("/api/me", me),
        Route("/api/login", login, methods=["POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/command", command, methods=["POST"]),
        Route("/api/alerts/{alert_id:path}/ack", acknowledge, methods=["POST"]),
        Route("/api/hands", hands),
        Route("/api/hands/{hand_id:path}/phh", hand_phh),
        Route("/api/hands/{hand_id:path}", hand),
        *tournament_routes(hub, lambda request: _guard(request, accounts()), _read_body, _error),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [
        Middleware(SecurityHeaders),
        Middleware(SessionMiddleware, secret_key=secret, session_cookie="pokertable_floor",
                   max_age=12 * 3600, same_site="strict", https_only=secure_cookies),
    ]
    return Starlette(routes=routes, middleware=middleware, lifespan=lifespan)


async def _read_body(request: Request, model: type[B], refusal: str) -> B | Response:
    """The body as ``model``, read no further than BODY_LIMIT bytes (a hostile client's
    gigabyte is refused, not buffered); or the refusal to send back."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > BODY_LIMIT:
        return _error(413, "the request is too large")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > BODY_LIMIT:
            return _error(413, "the request is too large")
    try:
        return model.model_validate(loads_bounded(body))
    except BadJson as exc:
        return _error(400, f"{refusal} ({exc})")
    except (ValueError, ValidationError) as exc:
        return _error(400, f"{refusal} ({type(exc).__name__})")


def _error(status: int, reason: str) -> Response:
    return JSONResponse({"status": "error", "reason": reason}, status_code=status)


def _foreign(request: Request) -> Response | None:
    """A state-changing request must come from our own pages (the browser says where from)."""
    origin = request.headers.get("origin")
    host = request.headers.get("host", "")
    if origin is not None and origin.split("://", 1)[-1] != host:
        return _error(403, "a request from another site")
    return None


def _guard(request: Request, accounts: Accounts) -> Response | None:
    """A floor login's session with its CSRF token, from our own pages; else refused."""
    refused = _foreign(request)
    if refused is not None:
        return refused
    user = request.session.get("user")
    if user is None or user not in accounts.users:
        return _error(403, "log in as floor staff first: screens can only watch")
    sent = request.headers.get("x-csrf-token", "")
    if not hmac.compare_digest(sent, request.session.get("csrf", "")):
        return _error(403, "the page's security token is missing or stale: reload the page")
    return None


__all__ = ["create_app"]
