"""Every floor decision asks the same first (`web_requests.floor_decision`), in the same order:
a floor that decides at all (a league's floor only watches), a floor login from our own pages,
and a body it can read. Checked for each of the five decision endpoints through the real
floor server (uvicorn on the test broker), from outside a browser."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from controller.mqtt.local_broker import LocalBroker
from controller.room.floor.accounts import Accounts, save_accounts, set_password
from controller.room.floor.server import FloorServer
from controller.room.floor.web_requests import BODY_LIMIT
from tests.room.floor.floor_helpers import PASSWORD, floor_server
from tests.venue import address, login, one_client_as

# path -> (a body it takes, the words its refusal of a body starts with)
DECISIONS: dict[str, tuple[dict[str, Any], str]] = {
    "/api/command": ({"target": "clock", "name": "pause", "args": {}}, "not a command"),
    "/api/tournament/command": ({"name": "draw", "args": {}}, "not a tournament command"),
    "/api/cash/command": ({"name": "open_table", "args": {}}, "not a cash command"),
    "/api/broadcast-feature": ({"table": "1"}, "not a feature table"),
    "/api/players/link": ({"player": "ana", "action": "issue"}, "not a player link request"),
}


class Client:
    """Requests as a script sends them: a cookie jar, and once logged in the login's token."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.csrf: str | None = None
        self._opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())

    def log_in(self) -> Client:
        status, answer = self.post("/api/login", {"user": "anna", "password": PASSWORD})
        assert status == 200, answer
        self.csrf = str(answer["csrf"])
        return self

    def post(self, path: str, body: dict[str, Any] | bytes,
             headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent = {"content-type": "application/json", **({"x-csrf-token": self.csrf}
                                                      if self.csrf else {}), **(headers or {})}
        request = urllib.request.Request(self.url + path, data=data, method="POST",
                                         headers=sent)
        try:
            with self._opener.open(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read())


def test_a_floor_that_only_watches_refuses_every_decision_first_and_says_why(
        broker: LocalBroker, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A floor following two venues (a league's host) refuses each decision with 403 and the
    hub's reason, to a floor login as to a stranger (asked before the login: the login would
    not help), and says so in the log; nothing is decided."""
    directory = tmp_path / "floor"
    directory.mkdir()
    accounts = directory / "floor-users.json"
    save_accounts(accounts, set_password(Accounts(), "anna", PASSWORD))
    with one_client_as(broker, "floor"):
        server = FloorServer(address(broker), login(broker, "floor"), db=directory / "floor.db",
                             accounts=accounts, secret=directory / "floor-secret",
                             follow=[address(broker).venue, "elsewhere"]).start()
        try:
            assert server.hub.read_only
            reason = server.hub.read_only_reason
            staff, stranger = Client(server.url).log_in(), Client(server.url)
            caplog.set_level(logging.WARNING)
            for path, (body, _) in DECISIONS.items():
                for client in (staff, stranger):
                    caplog.clear()
                    status, answer = client.post(path, body)
                    assert (status, answer["reason"]) == (403, reason), (path, answer)
                    said = [r.getMessage() for r in caplog.records
                            if "only watches" in r.getMessage()]
                    assert said == ["floor: a command from 127.0.0.1 refused: this floor "
                                    "only watches"], (path, caplog.text)
            assert server.broadcast.feature is None  # no feature table chosen
            assert server.store.player_links() == {}  # no link issued
        finally:
            server.close()


def test_each_decision_wants_a_floor_login_from_our_pages_and_a_body_it_reads(
        broker: LocalBroker, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A venue's own floor: without a login 403, from another site 403, a body of the wrong
    shape 400 in the endpoint's own words (said once in the log), a body too large 413."""
    with floor_server(broker, tmp_path / "floor") as server:
        assert not server.hub.read_only
        staff, stranger = Client(server.url).log_in(), Client(server.url)
        caplog.set_level(logging.WARNING)
        for path, (body, refusal) in DECISIONS.items():
            status, answer = stranger.post(path, body)
            assert status == 403 and "log in as floor staff" in answer["reason"], (path, answer)
            status, answer = staff.post(path, body, {"origin": "http://elsewhere.example"})
            assert (status, answer["reason"]) == (403, "a request from another site"), path
            status, answer = staff.post(path, {"x": 1}, {"x-csrf-token": "stale"})
            assert status == 403 and "security token" in answer["reason"], (path, answer)

            caplog.clear()
            status, answer = staff.post(path, {**body, "colour": 1})
            assert status == 400 and answer["reason"].startswith(f"{refusal} ("), (path, answer)
            assert "colour: unknown key" in answer["reason"], answer
            said = [r.getMessage() for r in caplog.records if r.name.startswith(
                "controller.room.floor") and "broker" not in r.getMessage()]
            assert said == [f"floor: 400 for POST {path} from 127.0.0.1: {answer['reason']}"], (
                caplog.text)
            status, answer = staff.post(path, b"{" + b" " * BODY_LIMIT + b"}")
            assert (status, answer["reason"]) == (413, "the request is too large"), path
        assert server.broadcast.feature is None
        assert server.store.player_links() == {}
