"""Each player's own page on his phone (``/p/<secret>``, docs/players.md): his table and seat
(and where to go on a move, pushed at once), his stack as his table reads it, the level, the
blinds, the time left and the next break, players left and the payouts, his place once he is
out, and his sealed hands: his own cards, the tabled ones, never another player's hidden card
and never a live hand's.

No staff login: the secret in the link is the login (player_tokens.py). The floor issues,
reissues and revokes links from the seat list (``POST /api/players/link``, a floor login with
its CSRF token like every decision); a revoked link's open page loses its stream at once and
gets 403 from then on. Every player route is rate-limited per address (429), and so are wrong
secrets, far more tightly: the secrets are not to be guessed.

A page's stream is one more of the hub's screens (it counts against the same limits), but what
goes down it is never a room update: each push only wakes the player's stream, which builds
his page (`player_view.py`, pure) and sends it when it differs from what the phone has.
His own hole cards come from the recorder's sealed records, which the floor reads only where
its configuration names the recorder's store (``records``): the floor's own login never
receives a hidden card.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import html
import logging
import time
from collections.abc import AsyncIterator, Callable
from importlib import resources
from pathlib import Path
from typing import Literal

import segno
from pydantic import BaseModel, ConfigDict, Field
from sse_starlette.sse import EventSourceResponse
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from controller.engine.records import HandRecord
from controller.history.query import HandQuery as RecordQuery
from controller.room.floor.hub import Hub, Screen, sse_frame
from controller.room.floor.model import Room
from controller.room.floor.player_tokens import PlayerLink, PlayerLinks
from controller.room.floor.player_view import PlayerHand, PlayerPage, player_hand, player_page
from controller.room.floor.sealed_records import HandReader
from controller.room.floor.store import HandQuery
from controller.room.floor.web_requests import address_of, error, floor_decision, guard, hub_of
from controller.room.recorder.store import StoreUnavailable
from controller.room.tournament.view import PublishedState

log = logging.getLogger(__name__)

STATIC = Path(str(resources.files("controller.room.floor") / "static"))
HANDS_SHOWN = 10  # his latest sealed hands on the page
REQUESTS_PER_MINUTE = 60  # per address: a page load is three; a phone reconnects rarely
BAD_SECRETS = 10  # wrong secrets per address within BAD_WINDOW: then only 429s
BAD_WINDOW = 600.0
SETTLE = 0.25  # s: a burst of pushes (a hand's actions) builds his page once
# After a hand he played is sealed, the recorder keeps its full record a moment later: his
# own cards are looked for again then.
RECORDER_LAG = (1.0, 3.0, 10.0)
WAKE_KINDS = frozenset({"table", "clock", "tournament"})


class LinkBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    player: str = Field(min_length=1, max_length=60)
    action: Literal["issue", "revoke"]


class PlayerThrottle:
    """Requests per address per minute, and wrong secrets per address (sliding windows)."""

    def __init__(self, per_minute: int = REQUESTS_PER_MINUTE, bad: int = BAD_SECRETS,
                 now: Callable[[], float] = time.monotonic) -> None:
        self.per_minute, self.bad_limit, self._now = per_minute, bad, now
        self._requests: dict[str, collections.deque[float]] = {}
        self._bad: dict[str, collections.deque[float]] = {}

    def admit(self, address: str) -> int | None:
        """None: go on; else the seconds to wait (the request is not counted)."""
        now = self._now()
        bad = self._window(self._bad, address, now, BAD_WINDOW)
        if len(bad) >= self.bad_limit:
            return int(bad[0] + BAD_WINDOW - now) + 1
        seen = self._window(self._requests, address, now, 60.0)
        if len(seen) >= self.per_minute:
            return int(seen[0] + 60.0 - now) + 1
        seen.append(now)
        return None

    def wrong_secret(self, address: str) -> None:
        self._bad.setdefault(address, collections.deque()).append(self._now())

    def _window(self, kept: dict[str, collections.deque[float]], address: str, now: float,
                seconds: float) -> collections.deque[float]:
        times = kept.setdefault(address, collections.deque())
        while times and times[0] <= now - seconds:
            times.popleft()
        if len(kept) > 10_000:  # a flood of addresses: forget the quiet ones
            for key in [k for k, v in kept.items() if not v and k != address]:
                del kept[key]
        return times


class PlayerFeeds:
    """One floor's player pages: the links, the open streams by player, the throttle, each
    player's hands (kept until a hand he played is sealed)."""

    def __init__(self, hub: Hub, records: HandReader | None) -> None:
        self.hub = hub
        self.links = PlayerLinks(hub.store)
        self.records = records
        self.throttle = PlayerThrottle()
        self.streams: dict[str, set[Screen]] = {}
        self._hands: dict[str, list[PlayerHand]] = {}
        self._seen: bytes | None = None
        self._tournament: PublishedState | None = None
        hub.on_hand.append(self._sealed)

    def tournament(self) -> PublishedState | None:
        """The tournament's latest state, parsed once however many phones read it."""
        raw = self.hub.tournament
        if raw is not self._seen:
            self._seen = raw
            self._tournament = None if raw is None else PublishedState.model_validate_json(raw)
        return self._tournament

    async def page(self, link: PlayerLink) -> PlayerPage:
        room = self.hub.room
        assert isinstance(room, Room)  # (player pages are a venue's own floor's)
        return player_page(link.player, tournament=self.tournament(), tables=room.tables,
                           clock=room.clock, clock_online=room.clock_online,
                           hands=await self.hands(link), own_cards=self.records is not None)

    async def hands(self, link: PlayerLink) -> list[PlayerHand]:
        found = self._hands.get(link.player)
        if found is None:
            found = await asyncio.to_thread(self._read_hands, link)
            self._hands[link.player] = found
        return found

    def _read_hands(self, link: PlayerLink) -> list[PlayerHand]:
        store = self.hub.store
        kept = store.find(HandQuery(player=link.player, since=link.since, limit=HANDS_SHOWN))
        public = [(h.id, store.hand(h.id, h.venue)) for h in kept]
        own = self._own_cards(link.player, [r for _, r in public if r is not None])
        out = []
        for hand_id, record in public:
            if record is not None:
                mine = player_hand(hand_id, record, link.player, own.get(hand_id))
                if mine is not None:
                    out.append(mine)
        return out

    def _own_cards(self, player: str, public: list[HandRecord]) -> dict[str, str]:
        """His hole cards in the recorder's sealed records of these hands (none without the
        recorder's store): the one place the floor reads a card nobody tabled, his own."""
        if self.records is None or not public:
            return {}
        since = min((r.started for r in public if r.started is not None), default=None)
        try:
            sealed = self.records.hands(RecordQuery(player=player, since=since))
        except StoreUnavailable:  # (said once by the reader, not once a page)
            return {}
        except Exception:  # the recorder's store away: his cards show later, nothing breaks
            log.warning("floor: the recorder's store did not answer for a player's page",
                        exc_info=True)
            return {}
        own = {}
        for kept in sealed:
            seat = next((s for s, n in kept.record.players.items() if n == player), None)
            cards = kept.record.hole_cards.get(seat) if seat is not None else None
            if cards:
                own[kept.id] = cards
        return own

    def _sealed(self, venue: str, record: HandRecord) -> None:
        """A hand was sealed (on the hub's loop): its players' hands are read again, and again
        once the recorder has had time to keep its full record."""
        for player in set(record.players.values()) & set(self.streams):
            self._refresh(player)
            loop = self.hub.loop
            if loop is not None and self.records is not None:
                for delay in RECORDER_LAG:
                    loop.call_later(delay, self._refresh, player)

    def _refresh(self, player: str) -> None:
        self._hands.pop(player, None)
        for screen in self.streams.get(player, ()):
            _wake(screen)

    def open(self, player: str, screen: Screen) -> None:
        self.streams.setdefault(player, set()).add(screen)

    def close(self, player: str, screen: Screen) -> None:
        self.hub.detach(screen)
        streams = self.streams.get(player)
        if streams is not None:
            streams.discard(screen)
            if not streams:
                del self.streams[player]
                self._hands.pop(player, None)

    def revoke(self, player: str, by: str) -> bool:
        """His link stops working, and every page open on it loses its stream now."""
        done = self.links.revoke(player, by)
        self._end(player)
        return done

    def issue(self, player: str, by: str) -> str:
        token = self.links.issue(player, by)
        self._end(player)  # the old link's pages: closed, as if revoked
        return token

    def _end(self, player: str) -> None:
        for screen in list(self.streams.pop(player, ())):
            self.hub.detach(screen)
            screen.end()
        self._hands.pop(player, None)


def _wake(screen: Screen) -> None:
    with contextlib.suppress(asyncio.QueueFull):  # full: it is awake anyway
        screen.queue.put_nowait(b"")


def qr_data_uri(url: str) -> str:
    """The link as a QR code (an SVG ``data:`` URI for an ``<img>``: the pages' CSP allows
    images from data, never markup). A full QR code, never a Micro QR: phones read those."""
    return str(segno.make_qr(url, error="m").svg_data_uri(scale=6, border=4))


@functools.cache
def _static(name: str) -> str:
    return (STATIC / name).read_text()


def _refusal_page(status: int, title: str, text: str) -> HTMLResponse:
    body = _static("player-refused.html").replace("{title}", html.escape(title)).replace(
        "{text}", html.escape(text))
    return HTMLResponse(body, status_code=status, headers={"cache-control": "no-store"})


def player_routes() -> list[BaseRoute]:
    def feeds_of(request: Request) -> PlayerFeeds:
        feeds: PlayerFeeds | None = getattr(request.app.state, "players", None)
        if feeds is None:
            feeds = PlayerFeeds(hub_of(request), getattr(request.app.state, "records", None))
            request.app.state.players = feeds
        return feeds

    def admitted(request: Request, as_page: bool) -> tuple[PlayerFeeds, PlayerLink] | Response:
        """The link's player, or the refusal: too many requests (429), a floor following
        several venues (404), a link that opens nothing (403)."""
        feeds = feeds_of(request)
        where = address_of(request)
        wait = feeds.throttle.admit(where)
        if wait is not None:
            log.warning("floor: a player page request from %s refused: too many", where)
            reason = f"too many requests from this address: try again in {wait} s"
            refused = (_refusal_page(429, "Wait a moment", reason) if as_page
                       else error(429, reason))
            refused.headers["retry-after"] = str(wait)
            return refused
        if not isinstance(feeds.hub.room, Room):
            reason = "players' pages are on the venue's own floor"
            return _refusal_page(404, "Not here", reason) if as_page else error(404, reason)
        link = feeds.links.find(request.path_params["token"])
        if link is None:
            feeds.throttle.wrong_secret(where)
            log.warning("floor: a player link that opens nothing, from %s", where)
            reason = ("this link opens no player's page: the floor has withdrawn it or given "
                      "a new one; ask the floor for your link")
            return (_refusal_page(403, "This link no longer works", reason) if as_page
                    else error(403, reason))
        return feeds, link

    async def page(request: Request) -> Response:
        found = admitted(request, as_page=True)
        if isinstance(found, Response):
            return found
        return HTMLResponse(_static("player.html"), headers={"cache-control": "no-store"})

    async def state(request: Request) -> Response:
        found = admitted(request, as_page=False)
        if isinstance(found, Response):
            return found
        feeds, link = found
        page = await feeds.page(link)
        return Response(page.model_dump_json(), media_type="application/json",
                        headers={"cache-control": "no-store"})

    async def stream(request: Request) -> Response:
        found = admitted(request, as_page=False)
        if isinstance(found, Response):
            return found
        feeds, link = found
        hub = feeds.hub
        if len(hub.screens) >= hub.max_screens:
            return error(503, "too many screens are open on this server")
        if hub.screens_from(address_of(request)) >= hub.max_screens_per_address:
            return error(429, "too many pages open from this address: close one first")
        screen = hub.attach(WAKE_KINDS, address=address_of(request))
        feeds.open(link.player, screen)

        async def pushes() -> AsyncIterator[bytes]:
            try:
                sent = ""
                while True:
                    text = (await feeds.page(link)).model_dump_json()
                    if screen not in feeds.streams.get(link.player, ()):
                        return  # revoked or replaced while his page was built
                    if text != sent:
                        sent = text
                        yield sse_frame("player", text)
                    if await screen.queue.get() is None:
                        return  # revoked, reissued, too slow or the server stops
                    await asyncio.sleep(SETTLE)
                    while not screen.queue.empty():
                        if screen.queue.get_nowait() is None:
                            return
            finally:
                feeds.close(link.player, screen)

        return EventSourceResponse(pushes(), ping=15, headers={"cache-control": "no-store"})

    async def links(request: Request) -> Response:
        logged_in = guard(request)
        if isinstance(logged_in, Response):
            return logged_in
        return JSONResponse(feeds_of(request).links.players(),
                            headers={"cache-control": "no-store"})

    async def link(request: Request) -> Response:
        decision = await floor_decision(request, LinkBody, "not a player link request")
        if isinstance(decision, Response):
            return decision
        _, logged_in, body = decision
        feeds = feeds_of(request)
        by = f"floor:{logged_in.user}"
        if body.action == "revoke":
            if not feeds.revoke(body.player, by):
                return error(404, f"{body.player} has no link that works")
            log.info("floor: %s revoked %s's player link", by, body.player)
            return JSONResponse({"status": "ok", "reason": f"{body.player}'s link is withdrawn"})
        if not _known(feeds, body.player):
            return error(404, f"no player named {body.player} in the tournament or at a table")
        token = feeds.issue(body.player, by)
        url = f"{str(request.base_url).rstrip('/')}/p/{token}"
        log.info("floor: %s issued %s a player link", by, body.player)
        return JSONResponse({"status": "ok", "player": body.player, "url": url,
                             "qr": qr_data_uri(url)}, headers={"cache-control": "no-store"})

    return [Route("/p/{token}", page),
            Route("/api/p/{token}", state),
            Route("/api/p/{token}/stream", stream),
            Route("/api/players/links", links),
            Route("/api/players/link", link, methods=["POST"])]


def _known(feeds: PlayerFeeds, player: str) -> bool:
    tournament = feeds.tournament()
    if tournament is not None and any(s.player == player for s in tournament.standings):
        return True
    room = feeds.hub.room
    return isinstance(room, Room) and any(
        s.player == player for v in room.tables.values() if v.state
        for s in v.state.seats.values())


__all__ = ["PlayerFeeds", "PlayerThrottle", "player_routes", "qr_data_uri"]
