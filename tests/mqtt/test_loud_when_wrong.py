"""Loud when wrong: each misconfiguration of a broker connection is one log line naming the
cause and the fix, within seconds, once (then at most once a minute), from the real services
on a real Mosquitto (controller/mqtt/diagnosis.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from controller.errors import ConfigError
from controller.mqtt.broker_init import set_hostnames
from controller.mqtt.client import BrokerAddress, connect, disconnect, load_login, new_client
from controller.mqtt.diagnosis import DROPS_FOR_TAKEOVER, Diagnosis
from controller.mqtt.link import TableLink
from controller.mqtt.local_broker import LocalBroker, free_port
from controller.mqtt.outbox import Outbox
from controller.room.floor.hub import Hub
from controller.room.floor.store import FloorStore
from controller.room.recorder import Recorder, SqliteRecordStore
from tests.mqtt.helpers import linked_table
from tests.venue import Broker, address, login
from tests.waiting import wait_until

LOGGER = "controller.mqtt.diagnosis"


class Said:
    """What the clients' diagnoses logged (``caplog``), and, in order, everything they meant to
    say, logged or held back as a repeat, and what else they noticed (``meant``: (client,
    what) pairs, each added after its log line if it had one). A problem meant again is the
    sentinel that shows a repeat held back: no test waits a while to see that nothing came."""

    def __init__(self, caplog: pytest.LogCaptureFixture) -> None:
        self.caplog = caplog
        self.meant: list[tuple[str, str]] = []

    @property
    def text(self) -> str:
        return self.caplog.text

    def times(self, part: str, client: str | None = None) -> int:
        """How often the diagnoses meant a line containing ``part`` (said or held back)."""
        return sum(part in what and client in (None, who) for who, what in list(self.meant))


@pytest.fixture
def said(caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> Iterator[Said]:
    caplog.set_level(logging.WARNING, logger=LOGGER)
    seen = Said(caplog)
    say, quiet_for, heard = Diagnosis._say, Diagnosis._quiet_for, Diagnosis.heard

    def saying(self: Diagnosis, kind: str, level: int, text: str) -> None:
        say(self, kind, level, text)
        seen.meant.append((self.where.username, f"{self.where.username}: {text}"))

    def quiet_timer(self: Diagnosis) -> None:  # the silence's timer ran out
        quiet_for(self)
        seen.meant.append((self.where.username, "(the quiet time is over)"))

    def hearing(self: Diagnosis, topic: str) -> None:
        before = self._heard
        heard(self, topic)
        if self._heard and not before:
            seen.meant.append((self.where.username, f"(heard {topic})"))

    monkeypatch.setattr(Diagnosis, "_say", saying)
    monkeypatch.setattr(Diagnosis, "_quiet_for", quiet_timer)
    monkeypatch.setattr(Diagnosis, "heard", hearing)
    yield seen


def lines(said: Said, part: str) -> list[logging.LogRecord]:
    return [r for r in list(said.caplog.records)
            if r.name == LOGGER and part in r.getMessage()]


def said_once(said: Said, part: str, level: int = logging.WARNING,
              until: Callable[[], bool] | None = None) -> str:
    """The line containing ``part`` within 10 s, said once: the problem came again (the clients
    retry every second) and was held back, or ``until`` (another sentinel that must come after
    a repeat would have) holds."""
    assert wait_until(lambda: bool(lines(said, part)), 10), (
        f"no line with {part!r} within 10 s; said: {said.text}")
    again = until or (lambda: said.times(part) >= 2)
    assert wait_until(again, 10), f"no sentinel after {part!r}: {said.meant}"
    found = lines(said, part)
    assert len(found) == 1, [r.getMessage() for r in found]
    assert found[0].levelno == level
    return found[0].getMessage()


def retrying(broker: Broker, **kw: object) -> BrokerAddress:
    """Reconnect every second: the test sees the line not repeat over several failures."""
    return address(broker, reconnect_max=1, **kw)


def test_a_table_at_a_port_where_nothing_listens(broker: Broker, tmp_path: Path,
                                                 said: Said) -> None:
    port = free_port()
    outbox = Outbox(tmp_path / "outbox.db")
    link = TableLink(retrying(broker, port=port), login(broker, "table-1"), "1", outbox).start()
    try:
        line = said_once(said, "nothing listens there")
    finally:
        link.close()
        outbox.close()
    assert line.startswith(f"table-1: cannot reach the broker at 127.0.0.1:{port}: nothing "
                           "listens there (connection refused): check the configured host and "
                           "port")
    assert "that Mosquitto runs there" in line and line.endswith("retrying")


def test_a_host_name_that_does_not_resolve(broker: Broker, said: Said) -> None:
    client = new_client("display", login(broker, "display"),
                        retrying(broker, host="no-such-broker.invalid"))
    connect(client, retrying(broker, host="no-such-broker.invalid"))
    try:
        line = said_once(said, "does not resolve")
    finally:
        disconnect(client)
    assert "the host name 'no-such-broker.invalid' does not resolve" in line
    assert "to the broker's IP address or to a name this machine's DNS or /etc/hosts" in line


def test_a_refused_login_names_the_login_and_its_file_never_the_password(
        broker: Broker, tmp_path: Path, said: Said) -> None:
    credentials = tmp_path / "credentials.json"
    credentials.write_text('{"recorder": {"username": "recorder", "password": "not-the-one"}}')
    wrong = load_login(credentials, "recorder")
    store = SqliteRecordStore(tmp_path / "records.db")
    recorder = Recorder(retrying(broker), wrong, store).start()
    try:
        line = said_once(said, "refused the login", logging.ERROR)
        # Refused again and again, it is no other client taking our login: the refusals were
        # counted as connections the broker closed soon after letting us in, and 3 s later a
        # second line sent the installer looking for a second recorder that does not exist
        assert wait_until(lambda: said.times("refused the login") > DROPS_FOR_TAKEOVER, 15)
        assert not lines(said, "another client"), said.text
    finally:
        recorder.close()
        store.close()
    # Mosquitto 2.0.11 says "Not authorized" where the standard has "Bad user name or password"
    assert line.startswith("recorder: the broker refused the login 'recorder' (")
    assert f"): check that login's password in {credentials} (written by" in line
    assert "pokertable broker init" in line
    assert "not-the-one" not in said.text


def test_a_tls_name_the_certificate_does_not_have(tmp_path: Path,
                                                  said: Said) -> None:
    """The broker's certificate names "elsewhere" (and localhost, 127.0.0.1); we connect by
    this machine's own name, which reaches the same broker."""
    name = socket.gethostname()
    try:
        socket.getaddrinfo(name, None)
    except socket.gaierror:
        pytest.skip(f"this machine's name {name!r} does not resolve")
    with LocalBroker("farhall", tables=1, hostname="elsewhere") as far:
        where = far.address(host=name, port=far.plan.tls_port, tls=True,
                            ca=far.directory / "ca.crt", reconnect_max=1)
        client = new_client("display", far.login("display"), where)
        connect(client, where)
        try:
            line = said_once(said, "does not name")
        finally:
            disconnect(client)
        assert line.startswith(
            f"display: cannot reach the broker at {name}:{far.plan.tls_port}: its TLS "
            f"certificate does not name {name!r} (it names elsewhere, localhost, 127.0.0.1): "
            "connect by one of those names, or certify the broker for this name on its host "
            f"with `pokertable broker hostnames --hostname {name} ...`")
        # The fix the line gives: new certificates from the same CA; the client's files stay.
        set_hostnames(far.directory, ["elsewhere", name])
        far.stop()
        far.start()
        connected = threading.Event()
        client = new_client("display", far.login("display"), where)
        client.on_connect = lambda *a: connected.set() if not a[3].is_failure else None
        connect(client, where)
        try:
            assert connected.wait(10)
        finally:
            disconnect(client)


def test_a_ca_crt_from_another_broker_init(broker: Broker, tmp_path: Path,
                                           said: Said) -> None:
    other = LocalBroker("otherhall", tables=1)  # another `broker init`, never started
    ca = tmp_path / "ca.crt"
    shutil.copy(other.directory / "ca.crt", ca)
    shutil.rmtree(other.root)
    where = retrying(broker, host="localhost", port=broker.plan.tls_port, tls=True, ca=ca)
    client = new_client("display", login(broker, "display"), where)
    connect(client, where)
    try:
        line = said_once(said, "not signed by our CA")
    finally:
        disconnect(client)
    assert f"its TLS certificate is not signed by our CA {ca}" in line
    assert "a wrong or old ca.crt: copy the venue's ca.crt" in line


def test_tls_at_the_plain_port_and_plain_at_the_tls_port(broker: Broker,
                                                         said: Said) -> None:
    tls_at_plain = retrying(broker, tls=True, ca=broker.directory / "ca.crt")
    plain_at_tls = retrying(broker, port=broker.plan.tls_port)
    clients = [new_client("display", login(broker, "display"), tls_at_plain),
               new_client("display-x", login(broker, "display"), plain_at_tls)]
    connect(clients[0], tls_at_plain)
    connect(clients[1], plain_at_tls)
    try:
        assert wait_until(lambda: bool(lines(said, "does not answer TLS")), 10), said.text
        line = said_once(said, "speaks TLS and we connect without it", until=lambda: (
            said.times("speaks TLS") >= 2 and said.times("does not answer TLS") >= 2))
    finally:
        for client in clients:
            disconnect(client)
    assert len(lines(said, "does not answer TLS")) == 1
    assert "a plain MQTT port? Use the broker's TLS port" in lines(
        said, "does not answer TLS")[0].getMessage()
    assert line.endswith(f"{broker.plan.tls_port}: it speaks TLS and we connect without it: set "
                         "tls = true and ca = the venue's ca.crt ([mqtt]), or use the plain "
                         "port; retrying")


def test_two_recorders_with_one_login_each_say_the_other_took_it(
        broker: Broker, tmp_path: Path, said: Said) -> None:
    stores = [SqliteRecordStore(tmp_path / f"{n}.db") for n in (1, 2)]
    first = Recorder(address(broker), login(broker, "recorder"), stores[0]).start()
    assert first.connected.wait(10)
    second = Recorder(address(broker), login(broker, "recorder"), stores[1]).start()
    try:
        # Each one's paho thread says it once: the first when the second arrives, the second
        # when the first comes back.
        assert wait_until(lambda: len({r.thread for r in lines(said, "another client")}) == 2,
                          10), said.text
        # ... and no more: the two push each other off again, and their diagnoses hold it back
        mine = len(said.meant)
        assert wait_until(lambda: sum("another client" in what
                                      for _, what in said.meant[mine:]) >= 2, 20), said.meant
        found = lines(said, "another client")
    finally:
        second.close()
        first.close()
        for store in stores:
            store.close()
    assert len(found) == 2 and len({r.thread for r in found}) == 2
    for record in found:
        assert record.levelno == logging.ERROR
        # Mosquitto 2.0.11 closes the connection without its reason (Session taken over)
        assert record.getMessage().startswith(
            "recorder: the broker keeps closing our connection soon after letting us in (3 "
            "times in ")
        assert record.getMessage().endswith(
            "s): most likely: another client connected with our login 'recorder' (a second "
            "recorder with the same login, perhaps on another machine): stop the other one; "
            "until then each pushes the other off at every reconnect")


def test_a_recorder_and_a_table_with_the_wrong_venue(broker: Broker, tmp_path: Path,
                                                     said: Said) -> None:
    """Mosquitto grants their subscriptions and delivers nothing; their own publishes come
    back refused, which names the venue at once."""
    store = SqliteRecordStore(tmp_path / "records.db")
    recorder = Recorder(address(broker, venue="wronghall", quiet=1), login(broker, "recorder"),
                        store).start()
    try:
        # It publishes once (its status): the sentinel is its quiet time running out, which
        # says nothing, the venue said already.
        line = said_once(said, "recorder: the broker refused a message we published",
                         until=lambda: said.times("(the quiet time is over)", "recorder") > 0)
    finally:
        recorder.close()
        store.close()
    assert line == ("recorder: the broker refused a message we published (Not authorized): the "
                    "ACL does not let 'recorder' write there: is the venue right? ('wronghall' "
                    "here; broker init's venue is in the topics the ACL allows)")
    assert not lines(said, "no table has published")  # the venue was said already
    outbox = Outbox(tmp_path / "outbox.db")
    link = TableLink(address(broker, venue="wronghall"), login(broker, "table-2"), "2",
                     outbox).start()
    try:
        assert wait_until(lambda: bool(lines(said, "table-2: the broker refused")), 10)
    finally:
        link.close()  # its offline status, refused in turn: the sentinel of a repeat
        outbox.close()
    assert "('wronghall' here" in said_once(said, "table-2: the broker refused a message")


def test_a_floor_with_the_wrong_venue_hears_nothing_and_says_so_on_its_pages(
        broker: Broker, tmp_path: Path, said: Said) -> None:
    """Two floors, each quiet after 1 s: one with the right venue while a table runs, then one
    with a wrong venue. The right one hears the retained status at once; the wrong one's line,
    1 s after it subscribed, comes after the right one's quiet time was over too: by then the
    right one would have said it, had it been going to."""
    async def start(venue: str, name: str) -> tuple[Hub, FloorStore]:
        # (two logins: two clients as one login push each other off the broker, and each would
        # say so; the wrong venue's floor is what is tested, not its login)
        store = FloorStore(tmp_path / f"{venue}.db")
        hub = Hub(address(broker, venue=venue, quiet=1), login(broker, name), store)
        await hub.start()
        return hub, store

    async def until(test: Callable[[], bool]) -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not test():
            await asyncio.sleep(0.02)
        assert test(), said.meant

    async def run() -> tuple[str | None, str | None]:
        async with contextlib.AsyncExitStack() as stack:
            right, store = await start(broker.plan.venue, "floor")
            stack.callback(store.close)
            stack.push_async_callback(right.close)
            await until(lambda: said.times("(heard ", "floor") == 1)
            wrong, store = await start("wronghall", "display")
            stack.callback(store.close)
            stack.push_async_callback(wrong.close)
            # the line, then the page's copy through the floor's loop
            await until(lambda: wrong.room.broker_problem is not None)
            return right.room.broker_problem, wrong.room.broker_problem

    with linked_table(broker, tmp_path / "t"):
        right, shown = asyncio.run(run())
    assert right is None
    line = said_once(said, "no table has published", until=lambda: True)  # (by its login)
    assert line == ("display: no table has published on pokertable/v1/wronghall/table/+/status "
                    "or pokertable/v1/wronghall/table/+/state in 1 s since we subscribed: no "
                    "table is running, or the venue is wrong ('wronghall' here; broker init's "
                    "venue is in the topics the ACL allows)")
    assert shown == line


def test_a_missing_ca_crt_or_credentials_file_is_one_line(broker: Broker,
                                                          tmp_path: Path) -> None:
    missing = tmp_path / "ca.crt"
    with pytest.raises(ConfigError) as raised:
        new_client("table-1", login(broker, "table-1"), address(broker, tls=True, ca=missing))
    assert str(raised.value) == (
        f"cannot use the venue CA {missing}: No such file or directory: copy the venue's ca.crt "
        "(written by `pokertable broker init` on the broker) there, or set [mqtt] ca to where "
        "it is")
    with pytest.raises(ConfigError) as raised:
        load_login(tmp_path / "credentials.json", "table-1")
    assert str(raised.value) == (
        f"cannot read the MQTT credentials {tmp_path / 'credentials.json'}: No such file or "
        "directory: copy there the credentials.json `pokertable broker init` wrote (or this "
        "client's entry of it), readable by this service's user")


def test_a_wrong_password_is_refused_without_saying_it(broker: Broker,
                                                       said: Said) -> None:
    """Through `new_client` as every service builds it: the password never reaches a log."""
    wrong = login(broker, "display").model_copy(update={"password": SecretStr("s3cret-x")})
    client = new_client("display", wrong, retrying(broker))
    connect(client, retrying(broker))
    try:
        line = said_once(said, "refused the login 'display'", logging.ERROR)
    finally:
        disconnect(client)
    assert "in the credentials file (written by `pokertable broker init`" in line
    assert "s3cret-x" not in said.text
