"""`pokertable broker init` and what follows it: a Mosquitto configuration for one venue that
can grow without re-keying the room.

`broker init` writes into DIR: ``mosquitto.conf`` (a listener on 127.0.0.1 for local clients, a
TLS listener for the room's LAN with the venue's own CA, persistence on, nobody anonymous),
``passwd`` (Mosquitto's PBKDF2-SHA512 ``$7$`` format, the one ``mosquitto_passwd`` writes),
``acl`` (who may read and write which topics, docs/design.md "Secrets"), ``credentials.json``
(each client's username and password, 0600), the CA and the broker's and the floor display's
certificates for the names given with ``--hostname``, and ``broker.json``: what the venue is
(its tables, displays, ports and names), from which `broker add-table` and `broker add-display`
rewrite the ACL while every existing password and key stays as it is. `broker bundle` writes one
table's login, the CA and the broker's address as one file for that table's Pi.

Mosquitto started as root drops to its own user: the files it reads are made readable to it
(owned by the ``mosquitto`` user when it exists) and its persistence directory writable. Every
client's id is its username (``use_username_as_clientid``), so no login can push another client
off the broker or take over its persistent session.
"""

from __future__ import annotations

import base64
import contextlib
import grp
import hashlib
import ipaddress
import json
import os
import pwd
import secrets
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from controller.errors import ConfigError, first_error
from controller.mqtt.topics import Topics
from controller.mqtt.venue_ca import new_ca, server_certificate
from controller.storage.private_files import private_dir, write_private

SERVICE_CLIENTS = ("clock", "floor", "recorder", "tournament", "cash", "display")
CLOCK_COMMANDS = ("level", "hold", "release")  # the table commands the clock may send
# The tournament seats players and lets them go between hands, holds a table for its newcomers
# and closes a broken one (PVB 08a, 09, 10), adds the chips a player bought and colours up at a
# break (RULES T5), all between hands; no decision about a hand.
TOURNAMENT_COMMANDS = ("seat", "unseat", "hold", "release", "close", "stack", "colour_up")
CASH_COMMANDS = ("seat", "unseat")  # the table commands the cash floor may send
HASH_ITERATIONS = 101  # what mosquitto_passwd 2.0 uses
STATE_FILE = "broker.json"
TABLE_ID = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$"  # one topic level: no / + # or spaces
_LABEL = r"[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?"  # letters, digits, inner dashes
HOST_NAME = rf"^(?=.{{1,253}}$){_LABEL}(\.{_LABEL})*$"  # labels joined by single dots


class ClientCredentials(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    username: str
    password: str


def checked_names(names: list[str]) -> list[str]:
    import re

    for name in names:
        try:
            ipaddress.ip_address(name)
        except ValueError:
            if not re.match(HOST_NAME, name):
                raise ValueError(f"{name!r} is neither a host name nor an IP address") from None
    if not names:
        raise ValueError("give at least one name the tables use for the broker")
    return list(dict.fromkeys(names))


class BrokerPlan(BaseModel):
    """What `broker init` is asked to write, validated before anything touches the disk."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    venue: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$",
                       description="Lower-case letters, digits and dashes: part of every topic")
    tables: int = Field(ge=1, le=500)
    port: int = Field(ge=1, le=65535, description="Plain listener on 127.0.0.1")
    tls_port: int = Field(default=8883, ge=1, le=65535, description="TLS listener")
    tls_bind: str | None = Field(default=None, description="The IP address the TLS listener "
                                 "binds (the room's LAN interface); None: every interface")
    hostnames: list[str] = Field(
        default_factory=lambda: [socket.gethostname()],
        description="The names (or IP addresses) the tables and phones use for the central "
        "host: all go into the broker's and the floor's certificates; the first is the address "
        "a table's bundle gives it")
    displays: int = Field(default=1, ge=1, le=100, description="Read-only logins for screens "
                          "on MQTT: display, display-2, ... (one each: a client id is its login)")

    @model_validator(mode="before")
    @classmethod
    def _one_hostname(cls, data: Any) -> Any:
        if isinstance(data, dict) and "hostname" in data:  # the older spelling: one name
            data = dict(data)
            data["hostnames"] = [data.pop("hostname")]
        return data

    @field_validator("tls_bind")
    @classmethod
    def _an_ip_address(cls, value: str | None) -> str | None:
        if value is not None:
            ipaddress.ip_address(value)  # ValueError names the bad address
        return value

    @field_validator("hostnames")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        return checked_names(value)

    def state(self) -> BrokerState:
        names = list(self.hostnames)
        if self.tls_bind is not None and self.tls_bind not in names:
            names.append(self.tls_bind)  # the tables may connect by that address
        return BrokerState(venue=self.venue, port=self.port, tls_port=self.tls_port,
                           tls_bind=self.tls_bind, hostnames=names,
                           tables=[str(n) for n in range(1, self.tables + 1)],
                           displays=["display"] + [f"display-{n}"
                                                   for n in range(2, self.displays + 1)])

    def clients(self) -> list[str]:
        return self.state().clients()


class BridgeState(BaseModel):
    """A venue's bridge to its league's broker (docs/league.md; written by league_bridge.py)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    league: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")
    host: str
    port: int = Field(ge=1, le=65535)


BRIDGES_DIR = "bridges"  # mosquitto.conf includes the *.conf here: they hold the bridge's password


class BrokerState(BaseModel):
    """``broker.json``: the venue as the broker knows it. Written by `broker init`, grown by
    `broker add-table` and `add-display`; the ACL and the certificates are made from it."""

    model_config = ConfigDict(extra="forbid")

    venue: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")
    port: int = Field(ge=1, le=65535)
    tls_port: int = Field(ge=1, le=65535)
    tls_bind: str | None = None
    hostnames: list[str] = Field(min_length=1)
    tables: list[str]
    displays: list[str] = Field(min_length=1)
    directory: str | None = Field(default=None, description="Where the broker finds these "
                                  "files (mosquitto.conf names them): the directory itself, "
                                  "unless written into an installer's --root tree")
    bridge: BridgeState | None = Field(default=None, description="The league this venue is "
                                       "bridged to: its recorder is the keeper of the hands")

    @field_validator("tables")
    @classmethod
    def _table_ids(cls, value: list[str]) -> list[str]:
        import re

        for table in value:
            if not re.match(TABLE_ID, table):
                raise ValueError(f"table id {table!r}: letters, digits, - and _ only")
        return value

    def clients(self) -> list[str]:
        extra = [d for d in self.displays if d != "display"]
        return [f"table-{t}" for t in self.tables] + list(SERVICE_CLIENTS) + extra


def password_hash(password: str, salt: bytes | None = None) -> str:
    """Mosquitto 2's ``$7$`` entry: PBKDF2-HMAC-SHA512, 101 rounds, 12-byte salt."""
    salt = salt if salt is not None else secrets.token_bytes(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, HASH_ITERATIONS)
    return (f"$7${HASH_ITERATIONS}${base64.b64encode(salt).decode()}"
            f"${base64.b64encode(digest).decode()}")


def acl_text(venue: BrokerState | BrokerPlan) -> str:
    """The ACL file: per client, what it may read and write; anything else is refused."""
    state = venue.state() if isinstance(venue, BrokerPlan) else venue
    t = Topics(state.venue)
    lines = ["# Generated by `pokertable broker init`: who reads and writes what (docs/design.md).",
             "# A client not listed here, or a topic not listed for it, is refused.", ""]
    for table in state.tables:
        lines += [f"user table-{table}"]
        lines += [f"topic write {t.table(table, leaf)}" for leaf in
                  ("status", "state", "event", "record", "secure/record", "reply", "time")]
        lines += [f"topic read {t.table(table, 'cmd/#')}", f"topic read {t.table(table, 'ack')}",
                  f"topic read {t.service('recorder', 'status')}",
                  f"topic read {t.clock('time/' + table)}",
                  f"topic read {t.clock('state')}",
                  f"topic read {t.clock('time')}", ""]
    public_tables = [t.table("+", leaf) for leaf in ("status", "state", "event", "record")]
    lines += ["user clock", f"topic write {t.clock('state')}", f"topic write {t.clock('time')}",
              f"topic write {t.service('clock', 'status')}",
              f"topic write {t.clock('time/+')}", f"topic read {t.table('+', 'time')}",
              f"topic write {t.clock('reply')}", f"topic read {t.clock('cmd/#')}",
              # the tournament's winner pauses the clock (its state, nothing else of it)
              f"topic read {t.service('tournament', 'state')}",
              *[f"topic read {topic}" for topic in public_tables],
              # The clock drives levels and hand-for-hand, no other decision (PVB 14(2), 35a)
              *[f"topic write {t.table('+', f'cmd/{name}')}" for name in CLOCK_COMMANDS],
              f"topic read {t.table('+', 'reply')}", ""]
    tournament = [t.service("tournament", leaf) for leaf in ("state", "status")]
    # The tournament: players, seats, places and prizes; it follows the tables and the clock.
    lines += ["user tournament", *[f"topic write {topic}" for topic in tournament],
              f"topic write {t.service('tournament', 'reply')}",
              f"topic read {t.service('tournament', 'cmd/#')}",
              *[f"topic read {topic}" for topic in public_tables],
              f"topic read {t.clock('state')}", f"topic read {t.clock('time')}",
              f"topic read {t.service('clock', 'status')}",
              *[f"topic write {t.table('+', f'cmd/{name}')}" for name in TOURNAMENT_COMMANDS],
              f"topic read {t.table('+', 'reply')}", ""]
    # The cash floor (controller/room/cash): its waiting lists and tables for every screen
    # (state, status), the players' telephone numbers for the floor alone (contacts), and the
    # floor's commands; it seats and unseats players at the tables (their states, its two
    # commands and their replies), and reads nothing of the clock or the tournament.
    cash_public = [t.service("cash", leaf) for leaf in ("state", "status")]
    cash = [*cash_public, t.service("cash", "contacts"), t.service("cash", "reply")]
    lines += ["user cash", *[f"topic write {topic}" for topic in cash],
              f"topic read {t.service('cash', 'cmd/#')}",
              f"topic read {t.table('+', 'state')}", f"topic read {t.table('+', 'reply')}",
              *[f"topic write {t.table('+', f'cmd/{name}')}" for name in CASH_COMMANDS], ""]
    lines += ["user floor", *[f"topic read {topic}" for topic in public_tables],
              f"topic read {t.service('recorder', 'status')}",
              f"topic read {t.service('clock', 'status')}",
              f"topic read {t.table('+', 'reply')}", f"topic read {t.clock('state')}",
              f"topic read {t.clock('time')}", f"topic read {t.clock('reply')}",
              *[f"topic read {topic}" for topic in tournament],
              f"topic read {t.service('tournament', 'reply')}",
              f"topic write {t.table('+', 'cmd/#')}", f"topic write {t.clock('cmd/#')}",
              f"topic write {t.service('tournament', 'cmd/#')}",
              *[f"topic read {topic}" for topic in cash],
              f"topic write {t.service('cash', 'cmd/#')}", ""]
    # The keeper of hands: full records and the durable events in, its acknowledgements out
    # (only the recorder may tell a table that something is kept). A venue bridged to a league
    # has the league's recorder as its keeper (its acknowledgements and status come over the
    # bridge): the venue's own recorder may keep a copy, and tell the tables nothing.
    # A copy reads the bridge's status: a recorder left as keeper by mistake then knows why the
    # broker refuses it.
    keeper = state.bridge is None
    lines += ["user recorder", f"topic read {t.table('+', 'secure/record')}",
              f"topic read {t.table('+', 'record')}", f"topic read {t.table('+', 'event')}",
              *([f"topic write {t.table('+', 'ack')}",
                 f"topic write {t.service('recorder', 'status')}"] if keeper else
                [f"topic read {t.service('bridge', 'status')}"]), ""]
    for display in state.displays:
        lines += [f"user {display}", *[f"topic read {topic}" for topic in public_tables],
                  f"topic read {t.clock('state')}", f"topic read {t.clock('time')}",
                  f"topic read {t.service('clock', 'status')}",
                  *[f"topic read {topic}" for topic in tournament],
                  # the lists on the room's TV; never the contacts (telephone numbers)
                  *[f"topic read {topic}" for topic in cash_public], ""]
    return "\n".join(lines)


def conf_text(plan: BrokerState, out: Path,
              made_by: str = "`pokertable broker init` for venue") -> str:
    """mosquitto.conf; ``made_by``: the command that wrote it, before the venue's (or the
    league's) name."""
    return "\n".join([
        f"# Generated by {made_by} {plan.venue}",
        "per_listener_settings false",
        "allow_anonymous false",
        f"password_file {out / 'passwd'}",
        f"acl_file {out / 'acl'}",
        "persistence true",
        f"persistence_location {out / 'data'}/",
        "autosave_interval 30",
        "max_queued_messages 10000",
        "# No Nagle delay: the room's messages are small and come in bursts (a hand-for-hand",
        "# round's last state, then a release to every table); bench/clock.py measures it.",
        "set_tcp_nodelay true",
        "log_dest stdout",
        "log_type error",
        "log_type warning",
        "",
        "# Local clients (the table controller on this host, tests). Every client's id is its",
        "# username: no login can take over another's session or push it off the broker.",
        f"listener {plan.port} 127.0.0.1",
        "use_username_as_clientid true",
        "",
        "# The room's LAN: TLS with the venue's own CA (ca.crt goes to every client)",
        f"listener {plan.tls_port}" + (f" {plan.tls_bind}" if plan.tls_bind else ""),
        "use_username_as_clientid true",
        f"cafile {out / 'ca.crt'}",
        f"certfile {out / 'server.crt'}",
        f"keyfile {out / 'server.key'}",
        "tls_version tlsv1.2",
        "",
        *([f"# The bridge to the league {plan.bridge.league} (docs/league.md): its own file, "
           "0600 to the broker, as it holds a password", f"include_dir {out / BRIDGES_DIR}", ""]
          if plan.bridge is not None else []),
    ])


Owner = tuple[int, int]  # uid, gid


def broker_init(plan: BrokerPlan, out: Path, broker_owner: Owner | None = None,
                seen_as: str | None = None) -> dict[str, ClientCredentials]:
    """Write the venue's broker files into ``out``; returns the credentials it generated.

    A directory that already holds a venue is refused: running it again would re-key the room
    (a new CA, every password), and no table could connect until each had its new files; a
    room grows with `add_clients` instead. Every file is created with its final mode and owner
    (`write_private`): no moment in which another user could read a password or a key.
    Mosquitto started as root drops to the ``mosquitto`` user, so ``out`` must be reachable by
    that user: a directory it cannot enter is refused with the reason and the fix, never a
    broker that fails to start."""
    out = out.resolve()
    if (out / STATE_FILE).exists() or (out / "ca.key").exists():
        raise ConfigError(
            f"{out} already holds a venue's broker files: running init again would give the "
            "room a new CA and new passwords, and every table would need its files again. Add "
            "a table with `pokertable broker add-table ID --broker-dir DIR` (a display: "
            "add-display); to start over on purpose, remove the directory first")
    broker_user = broker_owner or _mosquitto_user()
    _check_directory(out, broker_user, seen_as)
    # The directory: root and the broker's group when root runs this, else the caller alone.
    if broker_user is not None:
        private_dir(out, 0o750)
        os.chown(out, 0, broker_user[1])
        os.chmod(out, 0o750)
    else:
        private_dir(out, 0o700)
    data = private_dir(out / "data", 0o700)  # sessions and queued messages: records in flight
    state = plan.state().model_copy(update={"directory": seen_as})
    credentials = {name: _new_login(name) for name in state.clients()}
    ca_crt, ca_key = new_ca(plan.venue)
    server_crt, server_key = server_certificate(ca_crt, ca_key, state.hostnames)
    floor_crt, floor_key = server_certificate(ca_crt, ca_key, state.hostnames)
    _write(out, "ca.key", ca_key, secret=True, broker=None)  # the CA key stays the caller's
    _write(out, "ca.crt", ca_crt, secret=False, broker=broker_user)
    _write(out, "server.crt", server_crt, secret=False, broker=broker_user)
    _write(out, "server.key", server_key, secret=True, broker=broker_user)
    # The floor display's HTTPS certificate, for the same names: the installer gives it to the
    # floor's own user; the broker never reads it.
    _write(out, "floor.crt", floor_crt, secret=False, broker=None)
    _write(out, "floor.key", floor_key, secret=True, broker=None)
    if broker_user is not None:
        os.chown(data, *broker_user)
    _write_venue(out, state, credentials, broker_user)
    return credentials


def add_clients(out: Path, tables: Sequence[str] = (), displays: int = 0,
                broker_owner: Owner | None = None) -> dict[str, ClientCredentials]:
    """Add tables (by id) and display logins to the venue in ``out``, and any service login the
    venue lacks (one made before the tournament or the cash floor had its own): new passwords
    for the new clients only, the ACL written anew; every existing password, key and
    certificate stays.
    Returns the new clients' credentials. Mosquitto reads the new passwd and ACL on SIGHUP
    (`systemctl reload mosquitto`)."""
    out = out.resolve()
    state = load_state(out)
    credentials = load_credentials(out)
    known = set(state.tables)
    added = [t for t in dict.fromkeys(tables) if t not in known]
    next_display = len(state.displays) + 1
    new_displays = [f"display-{n}" for n in range(next_display, next_display + displays)]
    try:
        grown = BrokerState.model_validate({**state.model_dump(), "tables": state.tables + added,
                                            "displays": state.displays + new_displays})
    except ValidationError as exc:
        raise ConfigError(f"{first_error(exc, 'the venue')}") from None
    # A venue made before a service had its login (the tournament's and the cash floor's came
    # later) gets it now.
    services = [name for name in SERVICE_CLIENTS if name not in credentials]
    new = {name: _new_login(name)
           for name in [f"table-{t}" for t in added] + new_displays + services}
    if new:
        _write_venue(out, grown, {**credentials, **new}, broker_owner or _mosquitto_user(),
                     keep_hashes=_password_lines(out))
    return new


def refresh_acl(out: Path, broker_owner: Owner | None = None) -> bool:
    """The ACL this version writes for the venue in ``out``, where the one on disk differs (a
    venue set up by an older version: a service reads a topic it did not before). Returns
    whether it changed; Mosquitto reads it on SIGHUP or a restart."""
    out = out.resolve()
    wanted = acl_text(load_state(out))
    try:
        if (out / "acl").read_text(encoding="utf-8") == wanted:
            return False
    except OSError:
        pass  # (missing: written below)
    _write(out, "acl", wanted.encode(), secret=False, broker=broker_owner or _mosquitto_user())
    return True


KEEP = "keep"


def set_hostnames(out: Path, hostnames: Sequence[str], broker_owner: Owner | None = None,
                  tls_bind: str | None = KEEP) -> list[str]:
    """New certificates for the broker and the floor, signed by the same CA, for ``hostnames``
    (the tables' TLS listener address is kept among them): no client needs a new file, the
    broker and the floor pick them up when restarted. ``tls_bind``: a new address for the TLS
    listener (None: every interface), written into mosquitto.conf. Returns the names now
    certified."""
    out = out.resolve()
    state = load_state(out)
    if tls_bind != KEEP:
        state = state.model_copy(update={"tls_bind": tls_bind})
    try:
        names = checked_names(list(hostnames))
    except ValueError as exc:
        raise ConfigError(f"--hostname: {exc}") from None
    if state.tls_bind is not None and state.tls_bind not in names:
        names.append(state.tls_bind)
    try:
        ca_crt, ca_key = (out / "ca.crt").read_bytes(), (out / "ca.key").read_bytes()
    except OSError as exc:
        raise ConfigError(f"{exc.filename}: {exc.strerror}: the venue CA is needed to sign "
                          "the new certificates (run this where broker init ran)") from None
    owner = broker_owner or _mosquitto_user()
    server_crt, server_key = server_certificate(ca_crt, ca_key, names)
    floor_crt, floor_key = server_certificate(ca_crt, ca_key, names)
    _write(out, "server.crt", server_crt, secret=False, broker=owner)
    _write(out, "server.key", server_key, secret=True, broker=owner)
    _write(out, "floor.crt", floor_crt, secret=False, broker=None)
    _write(out, "floor.key", floor_key, secret=True, broker=None)
    updated = state.model_copy(update={"hostnames": names})
    _write(out, "mosquitto.conf", conf_text(updated, Path(updated.directory or out)).encode(),
           secret=False, broker=owner)
    write_private(out / STATE_FILE, (updated.model_dump_json(indent=2) + "\n").encode(), 0o644)
    return names


def _new_login(name: str) -> ClientCredentials:
    return ClientCredentials(username=name, password=secrets.token_urlsafe(18))


def _write(out: Path, name: str, content: bytes, *, secret: bool,
           broker: Owner | None) -> None:
    write_private(out / name, content, 0o600 if secret else 0o644, broker)


def _write_venue(out: Path, state: BrokerState, credentials: dict[str, ClientCredentials],
                 broker_user: Owner | None,
                 keep_hashes: dict[str, str] | None = None) -> None:
    """broker.json, mosquitto.conf, passwd, acl and credentials.json from ``state``: the files
    that change when the venue grows. An existing client keeps its password hash as it was."""
    keep = keep_hashes or {}
    passwd = "".join(f"{name}:{keep.get(name) or password_hash(c.password)}\n"
                     for name, c in credentials.items())
    _write(out, "mosquitto.conf", conf_text(state, Path(state.directory or out)).encode(),
           secret=False,
           broker=broker_user)
    _write(out, "acl", acl_text(state).encode(), secret=False, broker=broker_user)
    _write(out, "passwd", passwd.encode(), secret=True, broker=broker_user)
    write_private(out / "credentials.json",
                  (json.dumps({k: v.model_dump() for k, v in credentials.items()}, indent=2)
                   + "\n").encode(), 0o600)
    write_private(out / STATE_FILE, (state.model_dump_json(indent=2) + "\n").encode(), 0o644)


def _password_lines(out: Path) -> dict[str, str]:
    try:
        lines = (out / "passwd").read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read {out / 'passwd'}: {exc.strerror}") from None
    return dict(line.split(":", 1) for line in lines if ":" in line)


def load_state(out: Path) -> BrokerState:
    path = out / STATE_FILE
    try:
        return BrokerState.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"{path} is missing: {out} is not a directory `broker init` wrote: give --out as "
            "given to broker init (on an installed host: /etc/pokertable/broker). A directory "
            "from an older version has no broker.json: only a new `broker init` (a new CA and "
            "new logins for every client) makes one") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except ValidationError as exc:
        raise ConfigError(f"{path}: {first_error(exc, 'the file')}") from None


def load_credentials(out: Path) -> dict[str, ClientCredentials]:
    path = out / "credentials.json"
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
        return {name: ClientCredentials.model_validate(entry) for name, entry in entries.items()}
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    except (ValueError, AttributeError, ValidationError):
        raise ConfigError(f"{path} is not the credentials file broker init writes") from None


def _check_directory(out: Path, broker_user: Owner | None, seen_as: str | None = None) -> None:
    """Refuse an output directory anyone may write into, and one the broker cannot reach."""
    if out.exists() and not out.is_dir():
        raise ConfigError(f"{out} is not a directory")
    if out.is_dir() and out.stat().st_mode & 0o002:
        raise ConfigError(f"{out} is writable by every user, who could replace the "
                          "broker's password file or keys; choose a directory of your own "
                          "(broker init creates it)")
    if broker_user is None:
        return
    parents = list(out.parents)
    if seen_as is not None:  # in an installer's tree: only the directories the broker will see
        parents = parents[:len(Path(seen_as).parts) - 1]
    for parent in parents:
        if not _may_enter(parent, broker_user):
            mode = parent.stat().st_mode & 0o777
            raise ConfigError(
                "Mosquitto runs as the user 'mosquitto', who cannot "
                f"enter {parent} (mode {mode:o}): the broker could not read its files. Choose "
                f"--out under a directory it can enter (e.g. /etc/pokertable/), or allow it "
                f"with: chmod o+x {parent}")


def _may_enter(directory: Path, user: Owner) -> bool:
    info = directory.stat()
    uid, gid = user
    if info.st_uid == uid:
        return bool(info.st_mode & 0o100)
    members: list[str] = []
    with contextlib.suppress(KeyError):
        members = grp.getgrgid(info.st_gid).gr_mem
    if info.st_gid == gid or "mosquitto" in members:
        return bool(info.st_mode & 0o010)
    return bool(info.st_mode & 0o001)


def _mosquitto_user() -> Owner | None:
    if os.geteuid() != 0:
        return None
    try:
        user = pwd.getpwnam("mosquitto")
    except KeyError:
        return None
    return user.pw_uid, user.pw_gid


__all__ = [
    "BRIDGES_DIR",
    "TOURNAMENT_COMMANDS",
    "BridgeState",
    "BrokerPlan",
    "BrokerState",
    "ClientCredentials",
    "acl_text",
    "add_clients",
    "broker_init",
    "checked_names",
    "load_credentials",
    "load_state",
    "password_hash",
    "refresh_acl",
    "set_hostnames",
]
