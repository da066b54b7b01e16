"""The floor display under test: a real server on a free port (uvicorn, the `floor` login on the
test broker), floor accounts with a hashed password, and a real headless Chromium (Debian's, driven
by Playwright) with the flags this closed network needs."""

from __future__ import annotations

import contextlib
import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, Response
from playwright.sync_api import Error as PlaywrightError

from controller.demo.room_states import publish
from controller.mqtt.messages import StatusMessage, encode
from controller.mqtt.topics import Topics
from controller.room.floor.accounts import Accounts, save_accounts, set_password
from controller.room.floor.server import FloorServer
from tests.venue import Broker, address, login, one_client_as

PASSWORD = "felt and chips"


@contextmanager
def floor_server(broker: Broker, directory: Path) -> Iterator[FloorServer]:
    directory.mkdir(parents=True, exist_ok=True)
    accounts = directory / "floor-users.json"
    save_accounts(accounts, set_password(Accounts(), "anna", PASSWORD))
    with one_client_as(broker, "floor"):
        server = FloorServer(address(broker), login(broker, "floor"), db=directory / "floor.db",
                             accounts=accounts, secret=directory / "floor-secret").start()
        try:  # what a test publishes next must not pass the floor by (a loaded machine is slow)
            server.hub.subscribed.wait(10)
            yield server
        finally:
            server.close()


def log_in(page: Page, url: str, user: str = "anna", password: str = PASSWORD) -> None:
    page.goto(f"{url}/login")
    page.fill("input[name=user]", user)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{url}/")
    page.wait_for_selector("#logout")


def record_pushes(page: Page, timed: bool = False) -> None:
    """Keep every message the page's push stream delivers in ``window.pushed`` (for the
    secrecy tests): EventSource wrapped before any page script runs. ``timed``: each kept as
    ``{at, data}``, with the browser's time of its arrival (seconds)."""
    entry = "{at: Date.now() / 1000, data: m.data}" if timed else "m.data"
    page.add_init_script("""
        window.pushed = [];
        const Original = window.EventSource;
        window.EventSource = function (url) {
          const source = new Original(url);
          const add = source.addEventListener.bind(source);
          source.addEventListener = (type, listener) => add(type, (m) => {
            if (m && m.data !== undefined) window.pushed.push(ENTRY);
            listener(m);
          });
          return source;
        };
        window.EventSource.CLOSED = Original.CLOSED;
        window.EventSource.OPEN = Original.OPEN;
        window.EventSource.CONNECTING = Original.CONNECTING;
    """.replace("ENTRY", entry))


def new_page(browser: Browser) -> Page:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    return page


def watched_page(browser: Browser, url: str, bodies: list[str]) -> Page:
    """A page opened at ``url`` for the secrecy tests: every push it receives kept in
    ``window.pushed``, every response's body but the push stream's in ``bodies``."""
    page = new_page(browser)
    record_pushes(page)

    def keep(response: Response) -> None:
        if "/api/stream" not in response.url:
            with contextlib.suppress(PlaywrightError):  # a body gone with its page
                bodies.append(response.text())

    page.on("response", keep)
    page.goto(url)
    return page


def post(url: str, body: dict[str, Any], headers: dict[str, str] | None = None
         ) -> tuple[int, dict[str, Any]]:
    """A request from outside any browser (a script, a TV's page without a login)."""
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json",
                                              **(headers or {})})
    # (an answer must come: a login's password hash runs below the loop's priority, and on a
    # loaded machine five of them in a row take more than 10 s)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


class FloorApi:
    """A floor login's decisions as its page sends them, from outside a browser: the session
    cookie and the login's token. (A test that runs the floor server cannot also send commands
    over MQTT as "floor": the broker knows a client by its login, and two clients as "floor"
    take the connection from each other.)"""

    def __init__(self, url: str, user: str = "anna", password: str = PASSWORD) -> None:
        self.url = url
        self._opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        status, answer = self._post("/api/login", {"user": user, "password": password})
        assert status == 200, answer
        self.csrf = str(answer["csrf"])

    def _post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(
            self.url + path, data=json.dumps(body).encode(), method="POST",
            headers={"content-type": "application/json",
                     **({"x-csrf-token": self.csrf} if hasattr(self, "csrf") else {})})
        try:
            with self._opener.open(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())

    def command(self, target: str, name: str, **args: Any) -> dict[str, Any]:
        """``target``: ``clock`` or a table; the reply the floor server passes on."""
        status, answer = self._post("/api/command", {"target": target, "name": name,
                                                      "args": args})
        assert status == 200, answer
        return answer


def get(url: str) -> tuple[int, bytes, dict[str, str]]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read(), dict(exc.headers)


# What a screen's text looks like to a viewer: every visible text node's capital-letter height
# in CSS pixels (the font's own "H", measured by the browser's canvas in the face the element
# uses), its box, and whether its element is wider inside than it shows (cut off).
TEXTS_JS = """(selector) => {
  const ctx = document.createElement('canvas').getContext('2d');
  const out = [];
  for (const root of document.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      const text = node.textContent.trim();
      if (!text) continue;
      const element = node.parentElement;
      const style = getComputedStyle(element);
      const range = document.createRange();
      range.selectNodeContents(node);
      const box = range.getBoundingClientRect();
      if (!box.width || !box.height || style.visibility === 'hidden') continue;
      ctx.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
      const glyph = /^[0-9:]+$/.test(text) ? '0' : 'H';
      out.push({text, id: element.id, cls: String(element.className),
                cap: ctx.measureText(glyph).actualBoundingBoxAscent,
                size: parseFloat(style.fontSize),
                left: box.left, top: box.top, right: box.right, bottom: box.bottom,
                cut: element.scrollWidth > element.clientWidth + 1 &&
                     getComputedStyle(element).overflow !== 'visible'});
    }
  }
  return out;
}"""


def texts(page: Page, selector: str = "body") -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate(TEXTS_JS, selector)
    return found


def publish_tables(broker: Broker, messages: list[Any]) -> None:
    """Each table's status (online) and state (`StateMessage`s), retained, with its own login."""
    topics = Topics(broker.plan.venue)
    for message in messages:
        table = message.table
        publish(broker.address(), broker.login(f"table-{table}"), [
            (topics.table(table, "status"), encode(StatusMessage(table=table, status="online"))),
            (topics.table(table, "state"), encode(message))])


def clear_tables(broker: Broker, tables: list[str]) -> None:
    """Their retained status and state gone from the broker (a floor started later never hears
    of them)."""
    topics = Topics(broker.plan.venue)
    for table in tables:
        publish(broker.address(), broker.login(f"table-{table}"), [
            (topics.table(table, "status"), b""), (topics.table(table, "state"), b"")])


HIDDEN_HANDS = ["7c2d", "9s8s", "Tc3h", "6d4c"]  # dealt, never tabled (HOLE's seat 1, hand 2)


def cards_in(text: str, hands: list[str]) -> list[str]:
    """Each of the hole cards ``hands`` ("7c2d", ...) found in ``text``: as a hand, or a card on
    its own (not inside a hex id, where '4c' or '6d' occur by chance). For the secrecy tests:
    cards nobody tabled must be on no page, push or log line."""
    found = [hand for hand in hands if hand in text]
    for hand in hands:
        for card in (hand[:2], hand[2:]):
            if re.search(rf"(?<![0-9A-Za-z]){card}(?![0-9a-f])", text):
                found.append(card)
    return found


# ---------------------------------------------------------------- a phone's screen

PHONE_390 = {"width": 390, "height": 844}

# Whether every control and every text of the page is within the phone's width once scrolled
# to (a table may scroll in its own box: the page itself never sideways): what is not, with its
# box. The page's own width first.
REACH_JS = """() => {
  const out = {page: document.scrollingElement.scrollWidth, width: innerWidth, off: []};
  const shown = (node) => node.offsetParent !== null
    && getComputedStyle(node).visibility !== 'hidden';
  const all = ['button', 'select', 'input', 'a', 'td', 'th', 'h1', 'h2', 'h3', 'li', 'p'];
  for (const node of document.querySelectorAll(all.map((tag) => `main ${tag}`).join(', '))) {
    if (!shown(node)) continue;
    node.scrollIntoView({block: 'center', inline: 'center'});
    const box = node.getBoundingClientRect();
    if (box.width && (box.left < -0.5 || box.right > innerWidth + 0.5)) {
      out.off.push({tag: node.tagName, text: node.textContent.trim().slice(0, 60),
                    left: Math.round(box.left), right: Math.round(box.right)});
    }
  }
  window.scrollTo(0, 0);
  return out;
}"""


def fits_the_phone(page: Page) -> None:
    """No sideways scrolling of the page, and every control and text in reach inside it."""
    found = page.evaluate(REACH_JS)
    assert found["page"] <= found["width"], found
    assert found["off"] == [], found["off"][:5]


def count_requests(page: Page, path: str) -> dict[str, int]:
    """Requests the page makes to ``path`` (its query aside), and their answers over 399,
    counted from now; and the browser console's errors. Before the page loads."""
    seen = {"requests": 0, "failed": 0, "console errors": 0}

    def asked(request: Any) -> None:
        if request.url.split("?")[0].endswith(path):
            seen["requests"] += 1

    def answered(response: Any) -> None:
        if response.url.split("?")[0].endswith(path) and response.status >= 400:
            seen["failed"] += 1

    page.on("request", asked)
    page.on("response", answered)
    page.on("console", lambda m: seen.__setitem__("console errors", seen["console errors"]
                                                   + (m.type == "error")))
    return seen


# The page's own two-second timer, counted from before its scripts run: once it has fired
# ``n`` times, every timer the page set at its start with the same period has fired at least
# ``n - 1`` times (a later event than any poll it would have made, not a fixed sleep).
TICKS_JS = """window.pageTicks = 0;
setInterval(() => { window.pageTicks += 1; }, 2000);"""


def ticks_counted(page: Page) -> None:
    page.add_init_script(TICKS_JS)


def after_ticks(page: Page, n: int) -> None:
    page.wait_for_function("(n) => window.pageTicks >= n", arg=n, timeout=4000 * n)


def published_tournament(name: str = "Sunday Deepstack", *, winner: str | None = None,
                         players: list[tuple[str, str, int]] | None = None,
                         out: list[tuple[str, int, int]] | None = None) -> bytes:
    """A tournament's retained state as the service publishes it (`PublishedState`):
    ``players`` still in (name, club, stack) seated at tables 1 and 2, ``out`` (name, place,
    prize); the prize pool and payouts from the prizes."""
    from controller.room.tournament.view import PublishedState

    players = players if players is not None else [
        (f"Maximilian Oberhuber-Schwarzenegger {k}", "Pokerfreunde Wien-Floridsdorf", 25_000)
        for k in range(6)]
    out = out or []
    entries = len(players) + len(out)
    payouts = sorted({(place, prize) for _, place, prize in out if prize} | {(1, 5_000)})
    state = PublishedState(
        name=name, entries=entries, players_left=len(players), status="finished" if winner
        else "running", registration_open=False, players=entries, points="pvb",
        prize_pool=sum(p for _, p in payouts), currency="EUR", winner=winner,
        average_stack=25_000, payouts=[{"place": p, "amount": a} for p, a in payouts],
        standings=[{"player": p, "club": c} for p, c, _ in players] + [
            {"player": p, "place": place, "last": place, "prize": prize, "points": 12.75,
             "out_in": "hand 41 at table 2"} for p, place, prize in out],
        seats=[{"player": p, "club": c, "table": str(1 + k % 2), "seat": 1 + k // 2,
                "stack": s} for k, (p, c, s) in enumerate(players)],
        tables=[{"table": t, "seats": 9, "players": 3, "status": "open", "online": True}
                for t in ("1", "2")])
    return encode(state)
