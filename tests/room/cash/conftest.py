"""The cash floor's service tests share a real Mosquitto per module, configured by `pokertable
broker init` as the other room tests' (tests/conftest.py `broker`), with the ``cash`` login and
its ACL as broker init writes them (controller/mqtt/broker_init.py: the cash floor writes its
own topics and reads its commands; the floor reads them all and sends the commands; a display
reads the state and status, never the contacts): what these tests pass through is the ACL a
venue gets."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.mqtt.local_broker import LocalBroker


@pytest.fixture(scope="module")
def cash_broker() -> Iterator[LocalBroker]:
    with LocalBroker("testhall", tables=1) as broker:
        assert "cash" in broker.credentials and "user cash\n" in (
            broker.directory / "acl").read_text(encoding="utf-8")
        yield broker
