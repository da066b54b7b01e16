"""The players' own pages under test: a floor server that reads the recorder's store (for each
player's own cards), a phone-sized page in the real Chromium that keeps every push with its
arrival time, and a hand played with known cards."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page
from playwright.sync_api import Error as PlaywrightError

from controller.mqtt.local_broker import LocalBroker
from controller.room.floor.accounts import Accounts, save_accounts, set_password
from controller.room.floor.server import FloorServer
from tests.mqtt.helpers import LinkedTable
from tests.room.floor.floor_helpers import PASSWORD, record_pushes
from tests.room.tournament import tournament_helpers as hands
from tests.session.helpers import board, declare
from tests.venue import address, login

PHONE = {"width": 360, "height": 740}
NO_SIDEWAYS_SCROLL = "() => document.scrollingElement.scrollWidth"



def player_link(staff: Page, player: str, action: str = "issue") -> dict[str, str]:
    """The floor's answer to a staff page's phone-link request for ``player`` (``issue`` a new
    link, or ``revoke`` it), as the seat list's button sends it."""
    answer: dict[str, str] = staff.evaluate(
        "([player, action]) => window.floorApp.post('/api/players/link', {player, action})",
        [player, action])
    return answer


def issued_link(staff: Page, player: str) -> str:
    """A new link for ``player``: its URL (the request must succeed)."""
    answer = player_link(staff, player)
    assert answer["status"] == "ok", answer
    return answer["url"]


@contextmanager
def floor_with_records(broker: LocalBroker, directory: Path, records: Path | None,
                       tls: bool = False) -> Iterator[FloorServer]:
    """As `floor_helpers.floor_server`, reading the recorder's store at ``records``; ``tls``:
    over HTTPS with the certificate `broker init` made for the floor, as a room serves it."""
    directory.mkdir(parents=True, exist_ok=True)
    accounts = directory / "floor-users.json"
    if not accounts.exists():
        save_accounts(accounts, set_password(Accounts(), "anna", PASSWORD))
    server = FloorServer(address(broker), login(broker, "floor"), db=directory / "floor.db",
                         accounts=accounts, secret=directory / "floor-secret",
                         records=records, tls=(broker.directory / "floor.crt",
                                               broker.directory / "floor.key") if tls else None
                         ).start()
    try:
        server.hub.subscribed.wait(10)
        yield server
    finally:
        server.close()


def phone(browser: Browser, https: bool = False) -> Page:
    """A phone's page: 360 px wide, every push it receives kept in ``window.pushed`` with the
    browser's time of arrival (seconds), and every other response's body in ``page.bodies``.
    ``https``: for a floor over HTTPS whose certificate is the test venue's own (a phone of
    the room trusts the venue's ca.crt; this browser is simply told not to ask)."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True,
                                  ignore_https_errors=https)
    page = context.new_page()
    errors: list[str] = []
    bodies: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def keep(response: Any) -> None:
        if "/stream" not in response.url:
            with contextlib.suppress(PlaywrightError):  # a body gone with its page
                bodies.append(response.text())

    page.on("response", keep)
    page.errors = errors  # type: ignore[attr-defined]
    page.bodies = bodies  # type: ignore[attr-defined]
    record_pushes(page, timed=True)
    return page


def pushed(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate("() => window.pushed")
    return found


def fold_to_the_big_blind(table: LinkedTable, cards: dict[int, str]) -> None:
    """The hand in play: these hole cards dealt, everyone folds to the big blind."""
    feed, state = _feed(table), (lambda: table.memory.last)
    hands.deal_in_order(feed, state, cards)
    while (now := state()).stage == "betting" and now.actor is not None:
        feed([declare(now.actor, "fold")])
    assert state().stage == "over", state().waiting_for


def all_in(table: LinkedTable, winner: int, losers: list[int]) -> None:
    """The hand in play, its cards already dealt: ``losers`` all-in, ``winner`` calls and wins
    with the better cards, the board runs out (tournament_helpers.bust, cards dealt apart)."""
    feed, state = _feed(table), (lambda: table.memory.last)
    streets = iter(hands.BOARD)
    while (now := state()).stage != "over":
        if now.stage == "betting" and now.actor is not None:
            actor = now.actor
            action = ("allin" if actor in losers else
                      ("call" if (now.to_call or 0) > 0 else "check") if actor == winner
                      else "fold")
            feed([declare(actor, action)])
        else:
            feed(board(next(streets)))


def _feed(table: LinkedTable) -> hands.Feed:
    def feed(raws: list[dict[str, Any]]) -> None:
        table.feed(raws)
        table.settle()
    return feed
