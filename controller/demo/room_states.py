"""A room of tables caught in the middle of play: each table a real session fed a scripted
stream (`played_session`) and stopped at some point of some hand, for the floor display's
screen tests and its screenshots (60 tables on one screen without 60 Pis)."""

from __future__ import annotations

import random

import paho.mqtt.client as mqtt

from controller.demo.script import played_session
from controller.events import parse_event
from controller.mqtt.client import BrokerAddress, Login, new_client
from controller.session import SessionConfig, TableSession
from controller.session.outputs import TableState

NAMES = ["Anna", "Ben", "Cem", "Dana", "Emil", "Fatma", "Gero", "Hanna", "Ilja", "Jule",
         "Kai", "Lea", "Mats", "Nora", "Oskar", "Pia", "Quentin", "Rosa", "Sven", "Tilda"]


def room_states(count: int, seed: int = 7) -> list[TableState]:
    """``count`` tables ("1" ... str(count)) of 4 to 9 players on 9 or 10 seats, each stopped
    somewhere in its second to sixth hand."""
    rng = random.Random(seed)
    states = []
    for number in range(1, count + 1):
        players = rng.randint(4, 9)
        events = played_session(hands=rng.randint(2, 6), seed=seed * 1000 + number,
                                players=players)
        names = rng.sample(NAMES, players)
        for raw in events:  # the script's p1, p2 ... get names
            if raw["type"] == "seat" and raw.get("player"):
                raw["player"] = names[raw["seat"] - 1]
        session = TableSession(SessionConfig(table_id=str(number), seats=rng.choice((9, 10))))
        stop = rng.randint(len(events) // 2, len(events) - 2)  # never the last, sealing press
        for raw in events[:stop]:
            session.handle(parse_event(raw))
        states.append(session.state())
    return states


def publish(address: BrokerAddress, login: Login, messages: list[tuple[str, bytes]], *,
            retain: bool = True) -> None:
    """Connect as ``login``, publish each ``(topic, payload)`` at QoS 1 (retained unless
    said), wait until the broker has every one, and leave cleanly (no Last Will)."""
    client = new_client(login.username, login, address)
    client.connect(address.host, address.port)
    client.loop_start()
    try:
        sent = [client.publish(topic, payload, qos=1, retain=retain)
                for topic, payload in messages]
        for info in sent:
            info.wait_for_publish(10)
            if info.rc != mqtt.MQTT_ERR_SUCCESS or not info.is_published():
                raise RuntimeError(f"{login.username} could not publish ({info.rc})")
    finally:
        client.disconnect()
        client.loop_stop()


__all__ = ["publish", "room_states"]
