"""The floor's sessions and what a hostile client can do to the server, with a real server,
a real broker and the clock, and Chromium where a floor login takes part: a logout ends the
session on the server, a new password or a removed account ends every session of its user,
thirty wrong passwords sent at once lock the name after five, one address cannot take every
push stream from the TVs, and a body nested thousands deep is a 400 and one log line."""

from __future__ import annotations

import collections
import json
import logging
import re
import socket
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from controller.mqtt.local_broker import LocalBroker
from controller.room.clock.service import ClockService
from controller.room.floor.accounts import (
    Accounts,
    load_accounts,
    remove_user,
    save_accounts,
    set_password,
)
from controller.room.floor.auth import Sessions
from controller.room.floor.server import FloorServer
from controller.room.floor.store import FloorStore
from tests.room.floor.floor_helpers import PASSWORD, floor_server, get, log_in, new_page, post
from tests.waiting import wait_until


def _replay(server: FloorServer, page: Page, path: str, body: dict[str, Any],
            cookie: str, csrf: str) -> int:
    """``body`` posted as the page would, with a cookie and a token kept from before."""
    code, _ = post(f"{server.url}{path}", body, headers={
        "cookie": cookie, "x-csrf-token": csrf, "origin": server.url})
    return code


def _credentials(page: Page) -> tuple[str, str]:
    """The session cookie and CSRF token a logged-in page holds."""
    (cookie,) = [c for c in page.context.cookies() if c["name"] == "pokertable_floor"]
    csrf = page.evaluate("async () => (await (await fetch('/api/me')).json()).csrf")
    assert csrf
    return f"pokertable_floor={cookie['value']}", csrf


def test_a_logout_ends_the_session_on_the_server(broker: LocalBroker, browser: Browser,
                                                 clock: ClockService, tmp_path: Path) -> None:
    """Logging out answered 200 while the same cookie stayed good for 12 hours (a pause sent
    with it paused the real clock). Now the server forgets the session."""
    with floor_server(broker, tmp_path / "floor") as server:
        assert server.send("clock", "start", {}, by="floor:anna").status == "ok"
        staff = new_page(browser)
        log_in(staff, server.url)
        cookie, csrf = _credentials(staff)
        pause = {"target": "clock", "name": "pause", "args": {}}
        assert server.hub.room.clock is not None
        staff.click("#logout")
        expect(staff.locator("#who")).to_contain_text("floor login")
        assert _replay(server, staff, "/api/command", pause, cookie, csrf) == 403
        _, body, _ = get(f"{server.url}/api/me")
        assert json.loads(body)["user"] is None
        assert clock.clock.position.status == "running"  # untouched
        # Logged in again: a new session, and the old cookie is still nobody's.
        log_in(staff, server.url)
        fresh_cookie, fresh_csrf = _credentials(staff)
        assert fresh_cookie != cookie
        assert _replay(server, staff, "/api/command", pause, cookie, csrf) == 403
        assert _replay(server, staff, "/api/command", pause, fresh_cookie, fresh_csrf) == 200
        assert wait_until(lambda: clock.clock.position.status == "paused")


def test_a_new_password_or_a_removed_account_ends_every_session_of_that_user(
        broker: LocalBroker, browser: Browser, clock: ClockService, tmp_path: Path) -> None:
    with floor_server(broker, tmp_path / "floor") as server:
        accounts = tmp_path / "floor" / "floor-users.json"
        save_accounts(accounts, set_password(load_accounts(accounts), "ben", "river card 9"))
        laptop, phone, other = (new_page(browser) for _ in range(3))
        log_in(laptop, server.url)
        log_in(phone, server.url)  # anna twice: two sessions
        log_in(other, server.url, "ben", "river card 9")
        held = {name: _credentials(page) for name, page in
                (("laptop", laptop), ("phone", phone), ("ben", other))}
        status = {"target": "clock", "name": "start", "args": {}}
        # anna's password is changed (the same one again: argon2 salts each hash anew)
        save_accounts(accounts, set_password(load_accounts(accounts), "anna", PASSWORD))
        for name in ("laptop", "phone"):
            assert _replay(server, laptop, "/api/command", status, *held[name]) == 403, name
        laptop.reload()
        expect(laptop.locator("#who")).to_contain_text("floor login")
        assert _replay(server, other, "/api/command", status, *held["ben"]) == 200
        # ... and with the new password she is back
        log_in(laptop, server.url)
        save_accounts(accounts, remove_user(load_accounts(accounts), "ben"))
        assert _replay(server, other, "/api/command", status, *held["ben"]) == 403
        assert server.hub.store.sessions() and {
            s.user for s in server.hub.store.sessions()} == {"anna"}


def test_thirty_wrong_passwords_at_once_lock_the_name_after_five(
        broker: LocalBroker, tmp_path: Path) -> None:
    """A parallel guesser: every attempt counts before its password is checked (they were all
    checked, and counted as one failure); then one address trying many names waits too."""
    with floor_server(broker, tmp_path / "floor") as server:
        url = f"{server.url}/api/login"

        def guess(k: int, name: str = "anna") -> int:
            return post(url, {"user": name, "password": f"guess {k}"})[0]

        with ThreadPoolExecutor(30) as pool:
            codes = collections.Counter(pool.map(guess, range(30)))
        assert codes == {401: 5, 429: 25}
        code, answer = post(url, {"user": "anna", "password": PASSWORD})  # locked a minute
        assert code == 429 and re.search(r"for this name: try again in ([1-5]\d|60) s$",
                                         answer["reason"]), answer
        # The same address, other names: 5 wrong already, 15 more, then it must wait.
        assert [guess(k, f"name{k}") for k in range(16)] == [401] * 15 + [429]
        code, answer = post(url, {"user": "someone", "password": "x"})
        assert code == 429 and "from this address" in answer["reason"]


def _stream_from(server: FloorServer, source: str) -> tuple[socket.socket, bytes]:
    client = socket.create_connection(("127.0.0.1", server.port), source_address=(source, 0))
    client.sendall(b"GET /api/stream?kinds=clock HTTP/1.1\r\nHost: x\r\n\r\n")
    return client, client.recv(200)


def test_one_address_cannot_take_every_push_stream_from_the_tvs(
        broker: LocalBroker, browser: Browser, clock: ClockService, tmp_path: Path) -> None:
    """One anonymous client held all 500 streams and the TVs got 503. Now each address may hold
    20; the room's other screens still get theirs."""
    with floor_server(broker, tmp_path / "floor") as server:
        server.hub.max_screens = 25  # the room's limit, small for the test
        held = []
        try:
            for _ in range(20):
                client, answer = _stream_from(server, "127.0.0.2")
                held.append(client)
                assert answer.startswith(b"HTTP/1.1 200"), answer
            client, answer = _stream_from(server, "127.0.0.2")
            held.append(client)
            assert answer.startswith(b"HTTP/1.1 429")
            client.settimeout(5)
            while b"too many screens open from 127.0.0.2" not in answer:
                more = client.recv(500)
                assert more, answer
                answer += more
            tv = new_page(browser)  # the TV, from another address (127.0.0.1)
            tv.goto(f"{server.url}/clock")
            expect(tv.locator("#tv-status")).to_have_text("not started")
            assert server.hub.screens_from("127.0.0.1") == 1
        finally:
            for client in held:
                client.close()


@pytest.mark.parametrize("path", ["/api/login", "/api/command"])
def test_a_body_nested_thousands_deep_is_a_400_and_one_log_line(
        broker: LocalBroker, browser: Browser, tmp_path: Path, path: str,
        caplog: pytest.LogCaptureFixture) -> None:
    """It answered 500 and wrote a 55-line traceback, without a login. Now the nesting is
    measured before parsing: 400 with the reason, one line in the log, for a logged-in page's
    command as for a login."""
    with floor_server(broker, tmp_path / "floor") as server:
        headers = {"content-type": "application/json", "origin": server.url}
        if path == "/api/command":
            staff = new_page(browser)
            log_in(staff, server.url)
            cookie, csrf = _credentials(staff)
            headers |= {"cookie": cookie, "x-csrf-token": csrf}
        for body in (b"[" * 15_000, b'{"a":' * 3000, b'{"target": "clock", "name": ' +
                     b"[" * 5000):
            caplog.clear()
            caplog.set_level(logging.DEBUG)
            request = urllib.request.Request(f"{server.url}{path}", data=body, method="POST",
                                             headers=headers)
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=10)
            assert refused.value.code == 400
            assert "levels deep" in json.loads(refused.value.read())["reason"]
            lines = [r for r in caplog.records if r.name.startswith("controller.room.floor")
                     and "broker" not in r.getMessage()]  # the hub's own news aside
            assert len(lines) == 1 and lines[0].exc_info is None, caplog.text
            assert "levels deep" in lines[0].getMessage() and path in lines[0].getMessage()
            assert "Traceback" not in caplog.text
        assert get(f"{server.url}/api/health")[0] in (200, 503)  # still serving


def test_sessions_outlive_a_restart_by_their_hash_only_and_end_when_they_expire(
        tmp_path: Path) -> None:
    accounts = set_password(Accounts(), "anna", PASSWORD)
    now = [1000.0]
    store = FloorStore(tmp_path / "floor.db")
    logged_in = Sessions(store, "key", now=lambda: now[0]).open("anna", accounts.users["anna"])
    store.close()
    store = FloorStore(tmp_path / "floor.db")  # the floor server restarts
    try:
        sessions = Sessions(store, "key", now=lambda: now[0])
        assert sessions.find(logged_in.sid, accounts) == logged_in
        assert logged_in.sid not in (tmp_path / "floor.db").read_bytes().decode("latin-1")
        assert Sessions(store, "another key").csrf(logged_in.sid) != logged_in.csrf
        assert sessions.find("made up", accounts) is None and sessions.find(7, accounts) is None
        now[0] += 12 * 3600
        assert sessions.find(logged_in.sid, accounts) is None and store.sessions() == []
    finally:
        store.close()


def test_a_body_that_fails_validation_is_refused_naming_the_field_and_what_is_wrong(
        broker: LocalBroker, browser: Browser, tmp_path: Path) -> None:
    """It answered "not a tournament command (ValidationError)": the sender could not tell
    what to fix. Now the first field refused and why, never the value sent."""
    with floor_server(broker, tmp_path / "floor") as server:
        staff = new_page(browser)
        log_in(staff, server.url)
        cookie, csrf = _credentials(staff)
        headers = {"content-type": "application/json", "origin": server.url,
                   "cookie": cookie, "x-csrf-token": csrf}

        def refused(path: str, body: object) -> str:
            request = urllib.request.Request(f"{server.url}{path}", method="POST",
                                             data=json.dumps(body).encode(), headers=headers)
            with pytest.raises(urllib.error.HTTPError) as answer:
                urllib.request.urlopen(request, timeout=10)
            assert answer.value.code == 400
            reason: str = json.loads(answer.value.read())["reason"]
            return reason

        tournament = "/api/tournament/command"
        assert refused(tournament, {"name": "register", "args": {"name": "Gus"},
                                    "by": "me"}) == ("not a tournament command (by: unknown "
                                                     "key (misspelt?); it takes name, args)")
        said = refused(tournament, {"name": "Register", "args": {"name": "Gus"}})
        assert said.startswith("not a tournament command (name: String should match pattern")
        assert refused(tournament, {"name": "register", "args": ["Gus"]}) == (
            "not a tournament command (args: Input should be a valid dictionary)")
        said = refused("/api/login", {"user": "anna", "pasword": "s3cret-typed"})
        assert "pasword: unknown key (misspelt?); it takes user, password" in said
        assert "s3cret" not in said
