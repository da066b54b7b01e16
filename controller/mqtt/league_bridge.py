"""A league across venues: each venue's Mosquitto bridges its public tree and its full records
to the league's broker, so that one recorder and one floor on the league's host follow every
venue (docs/league.md).

The league's side: `league_init` writes the league broker's files (as `broker init` does a
venue's: mosquitto.conf, passwd, acl, its CA, the broker's and the floors' certificates,
credentials.json, and ``league.json``) with a login per venue's bridge (``bridge-<venue>``),
the league's ``recorder`` and ``floor``; `add_venues` adds bridges' logins later, every other
key kept; `make_bridge_bundle` writes what a venue needs to join: the league's address, its CA
and that venue's bridge login, in one file.

The venue's side: `join_league` writes the bridge (``bridges/league.conf``, 0600 to the broker:
it holds the bridge's password) and the league's CA beside the venue's files, and notes the
league in ``broker.json``. The bridge sends out, at QoS 1 over TLS with its own login: every
table's status, state, events and records (public and full), the clock's and the tournament's
state and status. It brings in the tables' acknowledgements and the league recorder's status
(the league's one status topic, mapped onto each venue's ``recorder/status``).

Who keeps the hands: the league's recorder. A table lets a record go from its outbox only when
the league's database has it (its acknowledgement comes back over the bridge), so a bridge or
league broker away for hours loses nothing: the tables hold their records, and send again what
was never confirmed when the recorder's ``online`` comes back over the bridge. A venue may keep
its own recorder as a copy (``keeper = false``); the venue's ACL then lets it acknowledge
nothing, so a forgotten setting is refused loudly rather than letting records go on a word the
league never gave.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from controller.errors import ConfigError, first_error
from controller.mqtt.broker_init import (
    BRIDGES_DIR,
    BridgeState,
    BrokerState,
    ClientCredentials,
    Owner,
    _check_directory,
    _mosquitto_user,
    _new_login,
    _password_lines,
    _write,
    acl_text,
    checked_names,
    conf_text,
    load_credentials,
    load_state,
    password_hash,
)
from controller.mqtt.topics import Topics
from controller.mqtt.venue_ca import new_ca, server_certificate
from controller.storage.private_files import private_dir, write_private

LEAGUE_FILE = "league.json"
NAME = r"^[a-z0-9][a-z0-9-]{0,39}$"  # a venue's or the league's: one topic level
LEAGUE_CA = "league-ca.crt"  # the league's CA, in the venue's directory


def venue_out(venue: str) -> list[str]:
    """What a venue's bridge sends to the league: its public tree and the full records."""
    t = Topics(venue)
    return [*[t.table("+", leaf) for leaf in ("status", "state", "event", "record",
                                              "secure/record")],
            t.clock("state"), t.service("clock", "status"),
            t.service("tournament", "state"), t.service("tournament", "status")]


def bridge_status(venue: str) -> str:
    """Mosquitto's own word on the bridge: ``1`` connected, ``0`` not (retained)."""
    return Topics(venue).service("bridge", "status")


class LeaguePlan(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    league: str = Field(pattern=NAME, description="The league's own name: its recorder's "
                        "status is under it; no venue may have it")
    venues: list[str] = Field(min_length=1)
    port: int = Field(ge=1, le=65535, description="Plain listener on 127.0.0.1")
    tls_port: int = Field(default=8883, ge=1, le=65535, description="TLS listener: the bridges")
    tls_bind: str | None = None
    hostnames: list[str] = Field(min_length=1, description="The names the venues' bridges use "
                                 "for the league's host (in its certificate)")

    @field_validator("venues")
    @classmethod
    def _venues(cls, value: list[str]) -> list[str]:
        return _checked_venues(value)

    @field_validator("hostnames")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        return checked_names(value)

    def state(self) -> LeagueState:
        if self.league in self.venues:
            raise ValueError(f"the league's name {self.league!r} is also a venue's")
        return LeagueState(**self.model_dump())


class LeagueState(BaseModel):
    """``league.json``: the league as its broker knows it."""

    model_config = ConfigDict(extra="forbid")

    league: str = Field(pattern=NAME)
    venues: list[str]
    port: int = Field(ge=1, le=65535)
    tls_port: int = Field(ge=1, le=65535)
    tls_bind: str | None = None
    hostnames: list[str] = Field(min_length=1)

    def clients(self) -> list[str]:
        return ["recorder", "floor", *[f"bridge-{v}" for v in self.venues]]

    def as_broker(self) -> BrokerState:
        """The league broker's listeners, as a venue's are written (`conf_text`)."""
        return BrokerState(venue=self.league, port=self.port, tls_port=self.tls_port,
                           tls_bind=self.tls_bind, hostnames=self.hostnames, tables=[],
                           displays=["display"])


class BridgeBundle(BaseModel):
    """What a venue's broker needs to join the league (`make_bridge_bundle`): the league's
    address and CA, and the login of that venue's bridge."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    league: str = Field(pattern=NAME)
    venue: str = Field(pattern=NAME)
    host: str
    port: int = Field(ge=1, le=65535)
    ca: str = Field(description="The league's CA (PEM)")
    login: ClientCredentials


def _checked_venues(value: list[str]) -> list[str]:
    import re

    for venue in value:
        if not re.match(NAME, venue):
            raise ValueError(f"venue {venue!r}: lower-case letters, digits and dashes")
    return list(dict.fromkeys(value))


def league_acl_text(state: LeagueState) -> str:
    """Each venue's bridge writes that venue's tree only and reads its acknowledgements and the
    league recorder's status; the recorder reads every venue's records and acknowledges them;
    the floor reads every venue's public tree and commands nothing."""
    own = Topics(state.league)
    lines = ["# Generated by `pokertable broker league init`: who reads and writes what "
             "(docs/league.md).", "# A client not listed here, or a topic not listed for it, "
             "is refused.", ""]
    for venue in state.venues:
        t = Topics(venue)
        lines += [f"user bridge-{venue}", *[f"topic write {topic}" for topic in venue_out(venue)],
                  f"topic write {bridge_status(venue)}",
                  f"topic read {t.table('+', 'ack')}",
                  f"topic read {own.service('recorder', 'status')}", ""]
    every = Topics("+")
    lines += ["user recorder", f"topic read {every.table('+', 'secure/record')}",
              f"topic read {every.table('+', 'event')}",
              f"topic write {every.table('+', 'ack')}",
              f"topic write {own.service('recorder', 'status')}", ""]
    lines += ["user floor", *[f"topic read {topic}" for topic in venue_out("+")
                              if not topic.endswith("/secure/record")],
              f"topic read {own.service('recorder', 'status')}",
              f"topic read {bridge_status('+')}", ""]
    return "\n".join(lines)


def league_init(plan: LeaguePlan, out: Path, broker_owner: Owner | None = None
                ) -> dict[str, ClientCredentials]:
    """Write the league broker's files into ``out`` (refused where a venue or a league is)."""
    out = out.resolve()
    try:
        state = plan.state()
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if any((out / name).exists() for name in (LEAGUE_FILE, "broker.json", "ca.key")):
        raise ConfigError(f"{out} already holds a broker's files: running init again would "
                          "give it a new CA and new logins; add a venue with `pokertable broker "
                          "league add-venue NAME --broker-dir DIR`")
    owner = broker_owner or _mosquitto_user()
    _check_directory(out, owner)
    if owner is not None:
        private_dir(out, 0o750)
        os.chown(out, 0, owner[1])
        os.chmod(out, 0o750)
    else:
        private_dir(out, 0o700)
    data = private_dir(out / "data", 0o700)
    if owner is not None:
        os.chown(data, *owner)
    credentials = {name: _new_login(name) for name in state.clients()}
    ca_crt, ca_key = new_ca(plan.league)
    server_crt, server_key = server_certificate(ca_crt, ca_key, state.hostnames)
    _write(out, "ca.key", ca_key, secret=True, broker=None)
    _write(out, "ca.crt", ca_crt, secret=False, broker=owner)
    _write(out, "server.crt", server_crt, secret=False, broker=owner)
    _write(out, "server.key", server_key, secret=True, broker=owner)
    # The league's floors serve HTTPS with their own certificate for the same names, as a
    # venue's floor does (broker init): the broker never reads it.
    floor_crt, floor_key = server_certificate(ca_crt, ca_key, state.hostnames)
    _write(out, "floor.crt", floor_crt, secret=False, broker=None)
    _write(out, "floor.key", floor_key, secret=True, broker=None)
    _write_league(out, state, credentials, owner)
    return credentials


def add_venues(out: Path, venues: Sequence[str], broker_owner: Owner | None = None
               ) -> dict[str, ClientCredentials]:
    """New bridge logins for ``venues``; every existing password and key stays. Mosquitto
    reads the new passwd and ACL on SIGHUP."""
    out = out.resolve()
    state = load_league(out)
    credentials = load_credentials(out)
    try:
        wanted = _checked_venues(list(venues))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    if state.league in wanted:
        raise ConfigError(f"{state.league!r} is the league's own name, not a venue's")
    added = [v for v in wanted if v not in state.venues]
    if not added:
        return {}
    grown = state.model_copy(update={"venues": state.venues + added})
    new = {f"bridge-{v}": _new_login(f"bridge-{v}") for v in added}
    _write_league(out, grown, {**credentials, **new}, broker_owner or _mosquitto_user(),
                  keep=_password_lines(out))
    return new


def make_bridge_bundle(out: Path, venue: str) -> BridgeBundle:
    out = out.resolve()
    state = load_league(out)
    if venue not in state.venues:
        raise ConfigError(f"{out} has no venue {venue!r} (it has {', '.join(state.venues)}); "
                          f"add it with `pokertable broker league add-venue {venue} "
                          f"--broker-dir {out}`")
    login = load_credentials(out).get(f"bridge-{venue}")
    if login is None:
        raise ConfigError(f"{out / 'credentials.json'} holds no login for bridge-{venue}")
    return BridgeBundle(league=state.league, venue=venue, host=state.hostnames[0],
                        port=state.tls_port, ca=(out / "ca.crt").read_text(encoding="ascii"),
                        login=login)


def write_bridge_bundle(bundle: BridgeBundle, to: Path) -> None:
    write_private(to, (bundle.model_dump_json(indent=2) + "\n").encode(), 0o600)


def read_bridge_bundle(path: Path) -> BridgeBundle:
    try:
        return BridgeBundle.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read the bridge bundle {path}: {exc.strerror}") from None
    except ValidationError as exc:
        raise ConfigError(f"{path} is not a bridge bundle from `broker league bundle`: "
                          f"{first_error(exc, 'the file')}") from None


def bridge_conf_text(bundle: BridgeBundle, host: str, port: int, ca: Path) -> str:
    """The venue's bridge to the league, as Mosquitto reads it (mosquitto.conf(5), Bridges)."""
    venue, league = Topics(bundle.venue), Topics(bundle.league)
    return "\n".join([
        f"# Generated by pokertable: venue {bundle.venue} bridged to league {bundle.league} "
        "(docs/league.md). Holds the bridge's password: 0600.",
        f"connection league-{bundle.league}",
        f"address {host}:{port}",
        "bridge_protocol_version mqttv311",
        f"remote_clientid {bundle.login.username}",
        f"remote_username {bundle.login.username}",
        f"remote_password {bundle.login.password}",
        f"local_clientid bridge-{bundle.league}",
        "# A persistent session on both sides: what one side holds for the other while the",
        "# link is down is delivered when it is back (max_queued_messages bounds it; the tables'",
        "# outboxes hold every record until the league's recorder confirms it anyway).",
        "cleansession false",
        "try_private true",
        "start_type automatic",
        "restart_timeout 1 30",
        "keepalive_interval 10",
        "notifications true",
        f"notification_topic {bridge_status(bundle.venue)}",
        f"bridge_cafile {ca}",
        "bridge_insecure false",
        "bridge_tls_version tlsv1.2",
        "# Out: the venue's public tree and the full records, for the league's recorder.",
        *[f"topic {topic} out 1" for topic in venue_out(bundle.venue)],
        "# In: the league recorder's acknowledgements, and its status (one topic in the",
        "# league, each venue's recorder/status here): the tables' keeper is the league's.",
        f"topic {venue.table('+', 'ack')} in 1",
        f"topic recorder/status in 1 {venue.root}/ {league.root}/",
        "",
    ])


def join_league(out: Path, bundle: BridgeBundle, host: str | None = None,
                port: int | None = None, broker_owner: Owner | None = None) -> BridgeState:
    """Bridge the venue in ``out`` to the league of ``bundle`` (at ``host``:``port``, default
    the bundle's): the bridge's file, the league's CA, the venue's ACL (its own recorder
    becomes a copy) and mosquitto.conf. Mosquitto takes a new bridge on restart."""
    out = out.resolve()
    state = load_state(out)
    if bundle.venue != state.venue:
        raise ConfigError(f"the bridge bundle is for venue {bundle.venue!r}, and {out} is venue "
                          f"{state.venue!r}: ask the league for {state.venue!r}'s bundle")
    if bundle.league == state.venue:
        raise ConfigError(f"the league's name {bundle.league!r} is this venue's")
    bridge = BridgeState(league=bundle.league, host=host or bundle.host,
                         port=port or bundle.port)
    owner = broker_owner or _mosquitto_user()
    seen = Path(state.directory or out)
    _write(out, LEAGUE_CA, bundle.ca.encode(), secret=False, broker=owner)
    bridges = out / BRIDGES_DIR
    if not bridges.is_dir():
        private_dir(bridges, 0o750 if owner is not None else 0o700)
        if owner is not None:
            os.chown(bridges, 0, owner[1])
    conf = bridge_conf_text(bundle, bridge.host, bridge.port, seen / LEAGUE_CA)
    _write(bridges, "league.conf", conf.encode(), secret=True, broker=owner)
    joined = state.model_copy(update={"bridge": bridge})
    _write(out, "acl", acl_text(joined).encode(), secret=False, broker=owner)
    _write(out, "mosquitto.conf", conf_text(joined, seen).encode(), secret=False, broker=owner)
    write_private(out / "broker.json", (joined.model_dump_json(indent=2) + "\n").encode(), 0o644)
    return bridge


def load_league(out: Path) -> LeagueState:
    path = out / LEAGUE_FILE
    try:
        return LeagueState.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path} is missing: {out} is not a directory `broker league init` "
                          "wrote") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except ValidationError as exc:
        raise ConfigError(f"{path}: {first_error(exc, 'the file')}") from None


def _write_league(out: Path, state: LeagueState, credentials: dict[str, ClientCredentials],
                  owner: Owner | None, keep: dict[str, str] | None = None) -> None:
    kept = keep or {}
    passwd = "".join(f"{name}:{kept.get(name) or password_hash(c.password)}\n"
                     for name, c in credentials.items())
    conf = conf_text(state.as_broker(), out, made_by="`pokertable broker league init` for league")
    _write(out, "mosquitto.conf", conf.encode(), secret=False, broker=owner)
    _write(out, "acl", league_acl_text(state).encode(), secret=False, broker=owner)
    _write(out, "passwd", passwd.encode(), secret=True, broker=owner)
    write_private(out / "credentials.json",
                  (json.dumps({k: v.model_dump() for k, v in credentials.items()}, indent=2)
                   + "\n").encode(), 0o600)
    write_private(out / LEAGUE_FILE, (state.model_dump_json(indent=2) + "\n").encode(), 0o644)


__all__ = ["LEAGUE_CA", "BridgeBundle", "LeaguePlan", "LeagueState", "add_venues",
           "bridge_conf_text", "bridge_status", "join_league", "league_acl_text", "league_init",
           "load_league", "make_bridge_bundle", "read_bridge_bundle", "venue_out",
           "write_bridge_bundle"]
