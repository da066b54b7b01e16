"""The staff's tournament pages on a phone (390x844) in the real Chromium, from the tournament's
retained state on the test broker: the standings and the seat list fit the screen with every
column and button in reach (they needed sideways scrolling, the points column and the phone
link buttons past the edge); on a laptop they stay tables. And a room without a tournament:
the tournament page asks for none (it asked every two seconds and got 404 each time)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.topics import Topics
from tests.room.floor.floor_helpers import (
    PHONE_390,
    after_ticks,
    count_requests,
    fits_the_phone,
    floor_server,
    get,
    log_in,
    new_page,
    published_tournament,
    ticks_counted,
)
from tests.venue import VenueClient

LAPTOP = {"width": 1366, "height": 768}


def tournament_state(broker: LocalBroker, payload: bytes) -> None:
    """The tournament's retained state (empty: none), with its own login."""
    client = VenueClient(broker, "tournament", topics=())
    try:
        topic = Topics(broker.plan.venue).service("tournament", "state")
        assert not client.publish(topic, payload, retain=True).is_failure
    finally:
        client.close()


@pytest.fixture
def no_tournament(broker: LocalBroker) -> Iterator[None]:
    tournament_state(broker, b"")
    yield
    tournament_state(broker, b"")


def staff_page(browser: Browser, url: str, viewport: dict[str, int]) -> Page:
    page = new_page(browser)
    page.set_viewport_size(viewport)  # type: ignore[arg-type]
    log_in(page, url)
    return page


def test_the_standings_and_the_seat_list_fit_a_phone_with_every_button_in_reach(
        broker: LocalBroker, browser: Browser, tmp_path: Path, no_tournament: None) -> None:
    out = [("Konstantin Papadopoulos-Wiesinger", 7, 1_200), ("Bea", 8, 0)]
    tournament_state(broker, published_tournament(out=out))
    with floor_server(broker, tmp_path / "floor") as server:
        for user in (True, False):
            page = staff_page(browser, server.url, PHONE_390) if user else new_page(browser)
            page.set_viewport_size(PHONE_390)  # type: ignore[arg-type]
            page.goto(f"{server.url}/tournament")
            standings = page.locator("#t-standings")
            expect(standings.locator("tr[data-player='Bea']")).to_contain_text("12.75")
            if user:
                expect(standings.locator("tr[data-player='Bea'] button.undo")).to_be_visible()
            fits_the_phone(page)
            page.goto(f"{server.url}/seats")
            expect(page.locator("#s-by-name tr[data-player]")).to_have_count(6)
            if user:
                expect(page.locator("#s-by-name button.player-link-issue").first).to_be_visible()
                # A phone link's address, as player-links.js shows one, wraps (it made the page
                # 646 px wide): laid out by the page's own style sheet
                page.evaluate("""() => { const p = document.createElement("p");
                    p.className = "link-url";
                    p.textContent = "https://floor.hall.lan:8080/p/" + "Xk3".repeat(30);
                    document.querySelector("main").append(p); }""")
            fits_the_phone(page)
            assert page.errors == []  # type: ignore[attr-defined]
        # A laptop's are tables still, a column a field
        laptop = staff_page(browser, server.url, LAPTOP)
        laptop.goto(f"{server.url}/tournament")
        bea = laptop.locator("#t-standings tr[data-player='Bea']")
        expect(bea).to_contain_text("12.75")
        assert bea.evaluate("row => getComputedStyle(row).display") == "table-row"
        expect(laptop.locator("#t-standings th").first).to_be_visible()
        laptop.goto(f"{server.url}/seats")
        expect(laptop.locator("#s-by-name th").first).to_be_visible()
        assert laptop.errors == []  # type: ignore[attr-defined]


def test_a_room_without_a_tournament_is_never_asked_for_it(
        broker: LocalBroker, browser: Browser, tmp_path: Path, no_tournament: None) -> None:
    with floor_server(broker, tmp_path / "floor") as server:
        page = new_page(browser)
        ticks_counted(page)
        asked = count_requests(page, "/api/tournament")
        page.goto(f"{server.url}/tournament")
        expect(page.locator("#t-none")).to_be_visible()
        after_ticks(page, 4)  # the page's two-second poll had three turns meanwhile
        assert asked == {"requests": 0, "failed": 0, "console errors": 0}, asked
        # A tournament that comes is shown without a reload, from then on fetched
        tournament_state(broker, published_tournament("Late Starter"))
        expect(page.locator("#t-name")).to_have_text("Late Starter")
        assert asked["requests"] >= 1 and asked["failed"] == 0, asked
        # ... and gone again, the page stops asking
        tournament_state(broker, b"")
        expect(page.locator("#t-none")).to_be_visible()
        before = asked["requests"]
        page.evaluate("window.pageTicks = 0")
        after_ticks(page, 3)
        assert asked["requests"] - before <= 1, asked  # (one may have been under way)
        assert asked["failed"] == 0 and asked["console errors"] == 0, asked
        assert page.errors == []  # type: ignore[attr-defined]
        # A poll that crosses the end (CI saw one: its push came a moment after) is no failed
        # request: "none" is no content, with the reason for whoever asks by hand
        status, body, headers = get(f"{server.url}/api/tournament")
        assert (status, body) == (204, b""), (status, body)
        assert "pokertable tournament" in headers["x-pokertable-none"], headers
