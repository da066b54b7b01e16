"""The cash floor's service tests share a real Mosquitto per module, configured by `pokertable
broker init` as the other room tests' (tests/conftest.py `broker`), plus the ``cash`` login
`broker init` does not make yet: its ACL lines are the ones proposed for
controller/mqtt/broker_init.py (the cash floor writes its own topics and reads its commands;
the floor reads them all and sends the commands; a display reads the state, never the
contacts)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest

from controller.mqtt.broker_init import ClientCredentials, password_hash
from controller.mqtt.local_broker import LocalBroker
from controller.mqtt.topics import Topics


def cash_acl(venue: str) -> str:
    t = Topics(venue)
    cash = [t.service("cash", leaf) for leaf in ("state", "contacts", "status", "reply")]
    return "\n".join([
        "", "user cash", *[f"topic write {topic}" for topic in cash],
        f"topic read {t.service('cash', 'cmd/#')}",
        # (a user's lines may come in more than one block: Mosquitto adds them up)
        "", "user floor", *[f"topic read {topic}" for topic in cash],
        f"topic write {t.service('cash', 'cmd/#')}",
        "", "user display", f"topic read {t.service('cash', 'state')}",
        f"topic read {t.service('cash', 'status')}", ""])


@pytest.fixture(scope="module")
def cash_broker() -> Iterator[LocalBroker]:
    broker = LocalBroker("testhall", tables=1)
    login = ClientCredentials(username="cash", password=secrets.token_urlsafe(18))
    with (broker.directory / "acl").open("a", encoding="utf-8") as acl:
        acl.write(cash_acl(broker.plan.venue))
    with (broker.directory / "passwd").open("a", encoding="utf-8") as passwd:
        passwd.write(f"cash:{password_hash(login.password)}\n")
    broker.credentials["cash"] = login
    with broker:
        yield broker
