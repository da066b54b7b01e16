"""`make demo` (`pokertable room --tournament`) prints a player's link and the broadcast's
address and login (issue 39): in a real Chromium the printed player link opens that player's
own page, and the printed broadcast address, after the printed login, shows the feed."""

from __future__ import annotations

import io
import re
import threading
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from controller.demo.room_demo import DEMO_PLAYERS, run_room
from tests.waiting import wait_for


class Printed(io.StringIO):
    """What the room prints, read by the test while the room runs."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()

    def write(self, text: str) -> int:
        with self.lock:
            return super().write(text)

    def text(self) -> str:
        with self.lock:
            return self.getvalue()


@pytest.mark.e2e
def test_the_printed_player_link_and_broadcast_url_open_their_pages(
        browser: Browser, tmp_path: Path) -> None:
    out, stop, ended = Printed(), threading.Event(), []
    room = threading.Thread(target=lambda: ended.append(run_room(
        tables=2, hands=0, out=out, port=0, stop=stop, tournament=True,
        keep=tmp_path / "room")), daemon=True)
    room.start()
    try:
        printed = re.compile(
            r"a player's own page, as on (\w+)'s phone \(docs/players.md\): (\S+/p/\S+)\n")
        wait_for(lambda: printed.search(out.text()), 60, "the player's link printed")
        player = printed.search(out.text())
        assert player is not None
        feed = re.search(r"broadcast feed \(an OBS browser source, docs/broadcast.md\): "
                         r"(\S+/broadcast); login (\w+) / (\S+) ", out.text())
        assert feed is not None, out.text()
        name, link = player.group(1), player.group(2)
        assert name == DEMO_PLAYERS[0]

        phone = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
        page = phone.new_page()
        page.goto(link)
        expect(page.locator("#p-name")).to_have_text(name, timeout=10_000)  # his own page
        phone.close()

        obs = browser.new_context(viewport={"width": 1920, "height": 1080})
        page = obs.new_page()
        page.goto(feed.group(1))  # no login yet: to the login, and back after it
        page.wait_for_url(re.compile(r"/login\?next=/broadcast$"))
        page.fill("input[name=user]", feed.group(2))
        page.fill("input[name=password]", feed.group(3))
        page.click("#login button, #login [type=submit]")
        page.wait_for_url(feed.group(1))
        expect(page.locator("#b-table")).to_have_text("Table 1", timeout=10_000)  # the feature
        obs.close()
    finally:
        stop.set()
        room.join(60)
    assert not room.is_alive() and ended == [0], out.text()[-2000:]
