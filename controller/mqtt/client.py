"""What every pokertable MQTT client shares: where the broker is, how to log in, and a paho-mqtt
2 client set up the same way everywhere (MQTT v5, TLS with the venue CA, reconnect backoff).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import socket
import ssl
from pathlib import Path
from typing import Annotated, Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.reasoncodes import ReasonCode
from paho.mqtt.subscribeoptions import SubscribeOptions
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
)

from controller.errors import ConfigError
from controller.mqtt.diagnosis import Diagnosis, Endpoint
from controller.mqtt.messages import CommandReply, Message, encode

log = logging.getLogger(__name__)


class Login(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    username: str = Field(min_length=1)
    password: SecretStr  # never printed, never logged
    _source: Path | None = PrivateAttr(default=None)

    @property
    def source(self) -> Path | None:
        """The credentials file it came from (a refused login names it)."""
        return self._source


VENUE_NAME = r"^[a-z0-9][a-z0-9-]{0,39}$"  # one topic level: what broker init allows


def venue_name(value: str) -> str:
    """A venue's name as the topics have it, or why not in the installer's words (pydantic's
    own said "String should match pattern '^[a-z0-9]...'"): an [mqtt] section's venue, and
    the host install's."""
    if not re.fullmatch(VENUE_NAME, value):
        raise ValueError(f"{value!r} is no venue's name: lower-case letters, digits and dashes "
                         "(at most 40), starting with a letter or digit: it is part of every "
                         "topic")
    return value


class BrokerAddress(BaseModel):
    """The broker as a client sees it (the ``[mqtt]`` section of table.toml)."""

    model_config = ConfigDict(extra="forbid")

    host: str = "127.0.0.1"
    port: int = Field(default=1883, ge=1, le=65535)
    venue: Annotated[str, AfterValidator(venue_name)]
    tls: bool = False
    ca: Path | None = Field(default=None, description="The venue CA (ca.crt from broker init)")
    keepalive: int = Field(default=10, ge=2, le=600, description="Seconds; the Last Will "
                           "goes out after 1.5 times this without a packet")
    reconnect_min: int = Field(default=1, ge=1, description="First reconnect delay, s")
    reconnect_max: int = Field(default=30, ge=1, description="Backoff doubles up to this, s")
    quiet: float = Field(default=60, ge=1, description="Seconds the recorder and the floor wait "
                         "for a first message from a table before they warn (wrong venue?)")


def load_login(credentials: str | Path, client: str) -> Login:
    """One client's login from a ``credentials.json`` that `broker init` wrote (or a file
    holding only that client's entry)."""
    path = Path(credentials)
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
        login = Login.model_validate(entries[client])
    except OSError as exc:
        raise ConfigError(f"cannot read the MQTT credentials {path}: {exc.strerror or exc}: copy "
                          "there the credentials.json `pokertable broker init` wrote (or this "
                          f"client's entry of it), readable by this service's user") from None
    except (KeyError, TypeError, ValueError, ValidationError):
        raise ConfigError(f"{path} holds no valid login for the MQTT client {client!r}: copy "
                          "the credentials.json `pokertable broker init` wrote") from None
    login._source = path
    return login


def new_client(client_id: str, login: Login, address: BrokerAddress, *,
               clean_start: bool = True, session_expiry: int = 0,
               will: tuple[str, Message] | None = None) -> mqtt.Client:
    """A paho-mqtt 2 client, MQTT v5, not yet connected (call `connect`). A CA file that
    cannot be read is a `ConfigError` naming it."""
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                         protocol=mqtt.MQTTv5)
    client.username_pw_set(login.username, login.password.get_secret_value())
    if address.tls:
        check_ca(address)
        client.tls_set(ca_certs=str(address.ca) if address.ca else None,
                       cert_reqs=ssl.CERT_REQUIRED)
    if will is not None:
        topic, message = will
        client.will_set(topic, encode(message), qos=1, retain=True)
    client.reconnect_delay_set(min_delay=address.reconnect_min,
                               max_delay=max(address.reconnect_min, address.reconnect_max))
    diagnosis = Diagnosis(Endpoint(host=address.host, port=address.port, tls=address.tls,
                                   ca=address.ca, venue=address.venue, username=login.username,
                                   credentials=login.source))
    client.user_data_set({"clean_start": clean_start, "session_expiry": session_expiry,
                          "diagnosis": diagnosis})
    client.on_socket_open = _no_delay
    return client


def check_ca(address: BrokerAddress) -> None:
    """A TLS client's CA file, read as paho will read it: a `ConfigError` naming the file and
    the fix, never paho's traceback (a service calls it before it writes anything)."""
    if not address.tls or address.ca is None:
        return
    try:
        ssl.create_default_context(cafile=str(address.ca))
    except (OSError, ssl.SSLError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ConfigError(f"cannot use the venue CA {address.ca}: {reason}: copy the venue's "
                          "ca.crt (written by `pokertable broker init` on the broker) there, or "
                          "set [mqtt] ca to where it is") from None


def diagnosis_of(client: mqtt.Client) -> Diagnosis:
    """The client's `Diagnosis` (to watch for silence, or to hear of its problems)."""
    diagnosis = client.user_data_get()["diagnosis"]
    assert isinstance(diagnosis, Diagnosis)
    return diagnosis


def _no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    """No Nagle delay on our side either (the broker is configured the same): the room's
    messages are small and timed (a time-sync request waits for nothing)."""
    with contextlib.suppress(OSError, AttributeError):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def publish_reply(client: mqtt.Client, topic: str, reply: CommandReply,
                  correlation: bytes | None) -> None:
    """A command's answer, QoS 1, carrying the request's MQTT v5 correlation data."""
    properties = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
    if correlation is not None:
        properties.CorrelationData = correlation
    client.publish(topic, encode(reply), qos=1, properties=properties)


def connect(client: mqtt.Client, address: BrokerAddress) -> None:
    """Start the network thread and connect in the background: paho retries with backoff
    while the broker is away, and calls ``on_connect`` each time it is back."""
    options = client.user_data_get()
    properties = None
    if options["session_expiry"]:
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = options["session_expiry"]
    # Between paho and the service's callbacks, which are set by now: loud when wrong.
    options["diagnosis"].install(client)
    client.connect_async(address.host, address.port, keepalive=address.keepalive,
                         clean_start=options["clean_start"], properties=properties)
    client.loop_start()


def disconnect(client: mqtt.Client, *, with_will: bool = False) -> None:
    """Disconnect and stop the network thread; its diagnosis says nothing more. ``with_will``:
    the broker publishes the client's Last Will as it goes (MQTT 5 reason code 4), for a
    stopping service whose own last word was not confirmed in time."""
    diagnosis_of(client).stop()
    # (first: it wakes the network loop, which then ends at once)
    client.disconnect(reasoncode=ReasonCode(PacketTypes.DISCONNECT, identifier=4)
                      if with_will else None)
    client.loop_stop()


def command_subscription(topic: str, qos: int = 1) -> tuple[str, SubscribeOptions]:
    """A subscription to command topics that keeps the retain flag as published (MQTT 5's
    "retain as published"): a command someone publishes retained while we listen would otherwise
    arrive looking live, and be applied; commands are never retained (docs/mqtt.md). ``qos`` 0
    for a persistent session that must not be handed commands sent while it was away."""
    return topic, SubscribeOptions(qos=qos, retainAsPublished=True)


def subscription(topic: str, qos: int) -> tuple[str, SubscribeOptions]:
    return topic, SubscribeOptions(qos=qos)


__all__ = [
    "VENUE_NAME",
    "BrokerAddress",
    "Login",
    "check_ca",
    "command_subscription",
    "connect",
    "diagnosis_of",
    "disconnect",
    "load_login",
    "new_client",
    "publish_reply",
    "subscription",
    "venue_name",
]
