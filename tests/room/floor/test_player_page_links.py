"""A player's link is his secret, and the floor's: revoked, it is refused at once (the open page
loses its stream and says so); a new one works, also after the floor restarts, while the old
stays refused; the floor alone gives links; too many requests from one address get 429."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from playwright.sync_api import Browser, expect

from controller.mqtt.local_broker import LocalBroker
from controller.room.floor.player_pages import PlayerThrottle
from controller.room.floor.player_tokens import token_hash
from tests.mqtt.helpers import linked_table
from tests.room.floor.floor_helpers import get, log_in, new_page, post
from tests.room.floor.player_page_helpers import (
    NO_SIDEWAYS_SCROLL,
    PHONE,
    floor_with_records,
    phone,
    player_link,
)
from tests.session.helpers import three_players


def test_a_revoked_link_is_refused_a_new_one_works_and_pages_are_rate_limited(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    with contextlib.ExitStack() as stack:
        table = stack.enter_context(linked_table(broker, tmp_path / "one", table="1"))
        table.feed(three_players(stack=12_345))
        table.settle()
        server = stack.enter_context(floor_with_records(broker, tmp_path / "floor", None))
        staff = new_page(browser)
        log_in(staff, server.url)

        assert player_link(staff, "nobody")["reason"] == (
            "no player named nobody in the tournament or at a table")
        status, answer = post(f"{server.url}/api/players/link",
                              {"player": "ana", "action": "issue"})
        assert status == 403 and "log in" in answer["reason"]  # a screen gives no link
        first = player_link(staff, "ana")["url"]
        token = first.rsplit("/", 1)[1]
        assert len(token) >= 40
        # Only its hash is kept: the journal gives no one a page
        assert token.encode() not in (tmp_path / "floor" / "floor.db").read_bytes()
        assert server.store.player_link(token_hash(token)) is not None

        page = phone(browser)
        page.goto(first)
        expect(page.locator("#p-table")).to_have_text("1")
        expect(page.locator("#p-seat")).to_have_text("1")
        expect(page.locator("#p-stack")).to_have_text("12,345")
        expect(page.locator("#p-stack-note")).to_have_text("as your table reads it")
        assert page.evaluate(NO_SIDEWAYS_SCROLL) <= PHONE["width"]

        # Revoked: the open page loses its stream at once and says why; the link is refused
        assert player_link(staff, "ana", "revoke")["status"] == "ok"
        expect(page.locator("#p-banner")).to_contain_text("This link no longer works")
        code, body, _ = get(first)
        assert code == 403 and b"This link no longer works" in body and b"ask the floor" in body
        code, body, _ = get(first.replace("/p/", "/api/p/"))
        assert code == 403 and "withdrawn" in json.loads(body)["reason"]
        assert player_link(staff, "ana", "revoke")["reason"] == "ana has no link that works"

        # Reissued: the new link works, the old one stays refused, after a restart too
        second = player_link(staff, "ana")["url"]
        assert second != first
        page.goto(second)
        expect(page.locator("#p-stack")).to_have_text("12,345")
        assert page.evaluate(NO_SIDEWAYS_SCROLL) <= PHONE["width"]
    with floor_with_records(broker, tmp_path / "floor", None) as again:
        old, new = (url.replace(server.url, again.url) for url in (first, second))
        assert get(old)[0] == 403
        assert get(new)[0] == 200
        # Too many requests from one address: 429 with the time to wait, the page included
        codes = []
        for _ in range(70):
            codes.append(get(new.replace("/p/", "/api/p/"))[0])
        assert 200 in codes and codes[-1] == 429, codes
        code, body, headers = get(new)
        assert code == 429 and b"too many requests" in body
        assert int(headers["retry-after"]) > 0
        assert page.errors == []  # type: ignore[attr-defined]


def test_wrong_secrets_are_limited_far_more_tightly_than_requests() -> None:
    now = [1000.0]
    throttle = PlayerThrottle(per_minute=60, bad=10, now=lambda: now[0])
    for _ in range(10):
        assert throttle.admit("10.0.0.7") is None
        throttle.wrong_secret("10.0.0.7")
    wait = throttle.admit("10.0.0.7")
    assert wait is not None and 590 <= wait <= 601  # ten minutes for ten wrong secrets
    assert throttle.admit("10.0.0.8") is None  # another address is not held up
    now[0] += 601
    assert throttle.admit("10.0.0.7") is None
    for _ in range(60):
        assert throttle.admit("10.0.0.9") is None
    assert throttle.admit("10.0.0.9") is not None  # sixty a minute
    now[0] += 60
    assert throttle.admit("10.0.0.9") is None

