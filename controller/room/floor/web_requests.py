"""What every endpoint of the floor's web side (`web` and the page modules) asks of a request:
the hub, the accounts and the sessions `create_app` put on ``app.state``; the body read bounded
into its pydantic model; the refusal's one shape; the checks of a login (its live session, its
CSRF token, our own site); and the preamble every floor decision shares (`floor_decision`).

Kept apart from `web` so that the page modules import it directly: it imports none of them,
nor `web`.
"""

from __future__ import annotations

import hmac
import logging
from typing import TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from controller.errors import first_error
from controller.inputs.json_input import BadJson, loads_bounded
from controller.room.floor.accounts import Accounts, Role
from controller.room.floor.auth import LoggedIn, Sessions
from controller.room.floor.hub import Hub

log = logging.getLogger(__name__)

BODY_LIMIT = 16_384  # bytes: a command or a login is a few hundred
B = TypeVar("B", bound=BaseModel)


# ------------------------------------------------------------------------ what they share

def hub_of(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


def accounts_of(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.accounts()
    return accounts


def sessions_of(request: Request) -> Sessions:
    sessions: Sessions = request.app.state.sessions
    return sessions


def address_of(request: Request) -> str:
    return request.client.host if request.client else "?"


def error(status: int, reason: str) -> Response:
    return JSONResponse({"status": "error", "reason": reason}, status_code=status)


def nothing(reason: str) -> Response:
    """A state the room has none of (no tournament, no cash floor): no content, not an error.
    Pages poll for it, and a poll that crosses its end, or a room dealing cash without the
    cash floor, would log a failed request in every browser. The reason is in a header for
    whoever asks by hand."""
    return Response(status_code=204, headers={"cache-control": "no-store",
                                              "x-pokertable-none": reason})


# ------------------------------------------------------------------------ bodies

async def read_body(request: Request, model: type[B], refusal: str) -> B | Response:
    """The body as ``model``, read no further than BODY_LIMIT bytes (a hostile client's
    gigabyte is refused, not buffered) and parsed only once its nesting is known to be shallow
    (`loads_bounded`); or the refusal to send back, said once in the log."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > BODY_LIMIT:
        return _refused_body(request, 413, "the request is too large")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > BODY_LIMIT:
            return _refused_body(request, 413, "the request is too large")
    try:
        return model.model_validate(loads_bounded(body))
    except BadJson as exc:
        return _refused_body(request, 400, f"{refusal} ({exc})")
    except ValidationError as exc:
        return _refused_body(request, 400, f"{refusal} ({_first_error(model, exc)})")
    except ValueError as exc:
        return _refused_body(request, 400, f"{refusal} ({type(exc).__name__})")


def _first_error(model: type[BaseModel], exc: ValidationError) -> str:
    """The first field refused and why (`first_error`: never the value sent, which may be a
    password); an unknown key with the fields the body takes."""
    said = first_error(exc, "the body")
    if said.endswith("unknown key (misspelt?)"):
        said += f"; it takes {', '.join(model.model_fields)}"
    return said


def _refused_body(request: Request, status: int, reason: str) -> Response:
    log.warning("floor: %d for %s %s from %s: %s", status, request.method,
                request.url.path[:100], address_of(request), reason[:200])
    return error(status, reason)


# ------------------------------------------------------------------------ logins

def foreign(request: Request) -> Response | None:
    """A state-changing request must come from our own pages (the browser says where from)."""
    origin = request.headers.get("origin")
    host = request.headers.get("host", "")
    if origin is not None and origin.split("://", 1)[-1] != host:
        return error(403, "a request from another site")
    return None


def guard(request: Request, role: Role | None = "floor") -> LoggedIn | Response:
    """A floor login's (``role``'s; None: any login's) live session with its CSRF token, from
    our own pages; else refused."""
    refused = foreign(request)
    if refused is not None:
        return refused
    logged_in = sessions_of(request).find(request.session.get("sid"), accounts_of(request), role)
    if logged_in is None:
        return error(403, "log in as floor staff first: screens can only watch")
    sent = request.headers.get("x-csrf-token", "")
    if not hmac.compare_digest(sent, logged_in.csrf):
        return error(403, "the page's security token is missing or stale: reload the page")
    return logged_in


def logged_in_of(request: Request) -> LoggedIn | None:
    """The floor login whose session the request carries (no CSRF asked: for reading)."""
    return sessions_of(request).find(request.session.get("sid"), accounts_of(request))


# ------------------------------------------------------------------------ decisions

async def floor_decision(request: Request, model: type[B], refusal: str
                         ) -> tuple[Hub, LoggedIn, B] | Response:
    """What every floor decision (a command, the feature table, a player's link) asks first,
    in this order: a floor that decides at all (a league's floor only watches: 403 with the
    hub's reason, said in the log), a floor login (`guard`), and its body as ``model``
    (`read_body`, ``refusal`` its words). The hub, the login and the body; or the refusal."""
    hub = hub_of(request)
    if hub.read_only:  # a league's floor: the venues' own floors decide
        log.warning("floor: a command from %s refused: this floor only watches",
                    address_of(request))
        return error(403, hub.read_only_reason)
    logged_in = guard(request)
    if isinstance(logged_in, Response):
        return logged_in
    body = await read_body(request, model, refusal)
    if isinstance(body, Response):
        return body
    return hub, logged_in, body


__all__ = ["BODY_LIMIT", "accounts_of", "address_of", "error", "floor_decision", "foreign",
           "guard", "hub_of", "logged_in_of", "nothing", "read_body", "sessions_of"]
