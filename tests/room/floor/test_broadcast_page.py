"""The broadcast page as OBS shows it: the real Chromium at 1920x1080, a broadcast login, a hand
played at a real table and released by the feed's clock (turned by the test): every player's
hole cards, his equity, the board and the pot, on a transparent background (only the panels are
drawn), the next street arriving without a reload; and the floor's feature-table switch."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, expect

from controller.mqtt.local_broker import LocalBroker
from controller.room.floor.config import BroadcastSection
from tests.room.floor.broadcast_helpers import (
    DELAY,
    FIRST_STEPS,
    HOLE,
    STEP_AT,
    T0,
    Clock,
    play_hand,
    png_alpha,
    room,
)
from tests.room.floor.floor_helpers import PASSWORD, log_in, new_page

SUITS = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}


def _shown(cards: str) -> list[str]:
    return [cards[i:i + 2] for i in range(0, len(cards), 2)]


def test_the_broadcast_page_in_obs_size_on_a_transparent_background(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    clock = Clock(T0 - 60)
    settings = BroadcastSection(feature_table="1")
    with room(broker, tmp_path, settings, clock) as (tables, server):
        play_hand(tables["1"], server, clock)
        clock.now = T0 + STEP_AT[9] + DELAY  # the flop is due; nothing after it

        context = browser.new_context(viewport={"width": 1920, "height": 1080})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.url}/broadcast")  # OBS's first visit: to the login, and back
        page.wait_for_url("**/login?next=/broadcast")
        page.fill("input[name=user]", "bea")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(f"{server.url}/broadcast")

        # (the page's first frame waits for the hand's first steps: FIRST_STEPS)
        expect(page.locator("#b-table")).to_have_text("Table 1", timeout=FIRST_STEPS * 1000)
        expect(page.locator("#b-hand")).to_have_text("hand 1")
        expect(page.locator("#b-board .card")).to_have_count(3)
        assert [c.get_attribute("data-card") for c in page.locator("#b-board .card").all()] == [
            "Qs", "Jd", "9h"]
        expect(page.locator("#b-board .card").first).to_have_text("Q" + SUITS["s"])
        expect(page.locator("#b-pot")).to_have_text("700")
        for seat, cards in HOLE.items():
            shown = page.locator(f"#b-seats li[data-seat='{seat}'] .card")
            expect(shown).to_have_count(2)
            assert [c.get_attribute("data-card") for c in shown.all()] == _shown(cards)
        # The equities as the feed computed them (exact on the flop), ana folded: none
        state = server.broadcast
        assert state.known("1") == [1]
        expect(page.locator("#b-seats li[data-seat='2'] .equity")).to_have_text("75.1%")
        expect(page.locator("#b-seats li[data-seat='3'] .equity")).to_have_text("24.9%")
        expect(page.locator("#b-seats li[data-seat='1'] .equity")).to_have_text("")
        expect(page.locator("#b-seats li[data-seat='1']")).to_have_class("seat folded")
        expect(page.locator("#b-equity-note")).to_contain_text("exact, every one of 903 boards")
        expect(page.locator("#b-delay")).to_contain_text("delayed 30 min")

        # OBS's size, nothing beyond it; the page itself transparent, its panels drawn
        size = page.evaluate("() => [document.scrollingElement.scrollWidth, "
                             "document.scrollingElement.scrollHeight]")
        assert size == [1920, 1080]
        for element in ("html", "body"):
            assert page.evaluate(f"() => getComputedStyle(document.querySelector('{element}'))"
                                 ".backgroundColor") == "rgba(0, 0, 0, 0)"
        empty = page.screenshot(omit_background=True,
                                clip={"x": 900, "y": 200, "width": 40, "height": 40})
        assert set(png_alpha(empty)) == {0}
        card = page.locator("#b-seats li[data-seat='2'] .card").first.bounding_box()
        assert card is not None and card["y"] + card["height"] <= 1080
        drawn = page.screenshot(omit_background=True, clip={
            "x": card["x"] + 10, "y": card["y"] + 10, "width": 8, "height": 8})
        assert set(png_alpha(drawn)) == {255}

        # The turn, once due, arrives in the page without a reload
        clock.now = T0 + STEP_AT[13] + DELAY
        expect(page.locator("#b-board .card")).to_have_count(4)
        expect(page.locator("#b-actions li").last).to_have_text("turn: 8s")
        expect(page.locator("#b-seats li[data-seat='2'] .equity")).to_have_text("85.7%")
        assert errors == []

        # The floor switches the feature table on its own page: /broadcast follows
        staff = new_page(browser)
        log_in(staff, server.url)
        staff.goto(f"{server.url}/feature")
        expect(staff.locator("#f-now")).to_have_text("table 1")
        staff.locator("#f-tables button[data-table='2']").click()
        expect(staff.locator("#f-reply")).to_have_text("/broadcast now shows table 2")
        expect(page.locator("#b-table")).to_have_text("Table 2")
        expect(page.locator("#b-waiting")).to_be_visible()
        assert server.broadcast.feature == "2"
        context.close()
