"""`pokertable install host`: the central host of a venue. Mosquitto as the venue's one broker
(Debian's unit, our configuration), the clock, the tournament, the recorder and the floor
display, and with ``--cash`` the cash floor, each as its own system user with only its own login
and files, hourly backups, all enabled.

Layout (docs/install.md):
  /etc/pokertable/broker/     broker init's files (root:mosquitto 0750; ca.key root's alone)
  /etc/pokertable/<service>/  that service's configuration and login (root:<service> 0750)
  /var/lib/pokertable/<service>/  its store (systemd's StateDirectory, the service's own)
  /var/backups/pokertable/    the hourly backups (root 0700)
"""

from __future__ import annotations

import ipaddress
import json
from importlib import resources

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from controller.errors import ConfigError
from controller.install.config_tables import add_tables, listed_tables, listed_values
from controller.install.tree import Tree
from controller.install.units import (
    CASH_SERVICE,
    HANDS,
    HOST_SERVICES,
    MOSQUITTO_DROP_IN,
    backup_units,
    floor_service,
)
from controller.mqtt.broker_init import (
    SERVICE_CLIENTS,
    BrokerPlan,
    add_clients,
    broker_init,
    checked_names,
    load_credentials,
    load_state,
    refresh_acl,
    set_hostnames,
)
from controller.mqtt.client import venue_name
from controller.mqtt.venue_ca import RENEW_DAYS, days_left

ETC = "/etc/pokertable"
BROKER = f"{ETC}/broker"
STATE = "/var/lib/pokertable"
SYSUSERS = "/usr/lib/sysusers.d/pokertable.conf"
HOST_USERS = """\
# Written by `pokertable install host`: one system user per service, so that the floor (which
# faces the room's network) cannot read the recorder's hole cards, nor the clock the logins.
u pokertable-clock - "pokertable clock" /var/lib/pokertable/clock
u pokertable-tournament - "pokertable tournament" /var/lib/pokertable/tournament
u pokertable-cash - "pokertable cash floor" /var/lib/pokertable/cash
u pokertable-recorder - "pokertable recorder" /var/lib/pokertable/recorder
u pokertable-floor - "pokertable floor display" /var/lib/pokertable/floor
# The recorder's store is this group's (0640): the floor reads each player's own cards and the
# broadcast there, and nothing else of the recorder's (its login stays its own group's).
g pokertable-hands -
m pokertable-floor pokertable-hands
# Debian's mosquitto package makes this user; listed so that a --root tree has it too.
u mosquitto - "Mosquitto MQTT broker" /var/lib/mosquitto
"""


RECORDS = f"{STATE}/recorder/records.db"
# The broadcast feed's settings as comments (docs/broadcast.md): its defaults hold until edited.
BROADCAST = """
# The secure-delay broadcast (docs/broadcast.md; a login: floor-user add NAME --broadcast):
# [broadcast]
# delay_minutes = 30                    # nothing younger leaves the server
# closed_door = ["9"]                   # tables without an audience: no delay
# feature_table = "1"                   # what /broadcast shows at the start
"""

# The configurations that list the room's tables: the section that does. (clock.toml lists
# none; floor.toml's [broadcast] names some tables, never all of them.)
LISTS_TABLES = {"tournament": "tournament", "cash": "cash"}

LOOPBACK = ("localhost", "localhost.localdomain", "ip6-localhost")


class HostPlan(BaseModel):
    """What `install host` is asked, checked whole before anything is written."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    venue: str = Field(description="As in every topic")
    tables: int = Field(ge=1, le=500)
    hostnames: list[str] | None = Field(default=None, description="None: the names the first "
                                        "install certified")
    tls_bind: str | None = None
    broker_port: int = Field(default=1883, ge=1, le=65535)
    tls_port: int = Field(default=8883, ge=1, le=65535)
    floor_port: int = Field(default=8443, ge=1, le=65535)
    keep_days: int = Field(default=14, ge=1, le=3650)
    venv: str = "/opt/pokertable/.venv"
    cash: bool = Field(default=False, description="The cash floor too (pokertable-cash); a "
                       "host that has it keeps it on every later install")

    @field_validator("venue")
    @classmethod
    def _venue(cls, value: str) -> str:
        return venue_name(value)

    @field_validator("hostnames")
    @classmethod
    def _names(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        names = checked_names(value)
        if names[0] in LOOPBACK or _loopback(names[0]):
            raise ValueError(f"{names[0]!r} is this machine only: the tables are told the first "
                             "name; give the name or address they reach this host by")
        return names

    @field_validator("tls_bind")
    @classmethod
    def _address(cls, value: str | None) -> str | None:
        if value is not None:
            ipaddress.ip_address(value)  # ValueError names the bad address
        return value

    @model_validator(mode="after")
    def _ports_apart(self) -> HostPlan:
        ports = {"--broker-port": self.broker_port, "--tls-port": self.tls_port,
                 "--floor-port": self.floor_port}
        if len(set(ports.values())) < 3:
            raise ValueError("the broker's ports and the floor's must differ: "
                             + ", ".join(f"{k} {v}" for k, v in ports.items()))
        return self


def _loopback(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _config(service: str, plan: HostPlan) -> str:
    mqtt = (f'\n[mqtt]\nhost = "127.0.0.1"                # the broker on this host\n'
            f"port = {plan.broker_port}\n"
            f'venue = "{plan.venue}"\n'
            f'credentials = "credentials.json"     # this service\'s login alone\n')
    named = "cash floor" if service == "cash" else service
    head = (f"# The {named}'s configuration, written by `pokertable install host`; edit it "
            "freely:\n# a second install keeps it. Paths are relative to this file.\n")
    if service == "clock":
        return (head + f'\n[clock]\nstructure = "structures/pvb-deep.toml"\n'
                f'db = "{STATE}/clock/clock.db"\nanswer_seconds = 5\n' + mqtt)
    if service == "recorder":
        return (head + f'\n[recorder]\ndb = "{STATE}/recorder/records.db"\n'
                "group_read = true                      # 0640: the floor (group "
                f"{HANDS}) reads it\n" + mqtt)
    tables = ", ".join(f'"{n}"' for n in range(1, plan.tables + 1))
    if service == "cash":
        return (head + '\n[cash]\ngames = ["NLH 2/5"]                    # each game and limit '
                'dealt: a waiting list each\n'
                f"tables = [{tables}]  # the cash tables; another size: "
                '{ table = "7", seats = 6 }\n'
                "seats = 9\n"
                "call_minutes = 10                      # a called player's time to sit down\n"
                'must_move_order = "list"               # or "draw" (CG "Must Move")\n'
                f'db = "{STATE}/cash/cash.db"\n' + mqtt)
    if service == "tournament":
        return (head + '\n[tournament]\nname = "Tournament"\n'
                'structure = "structures/pvb-deep.toml"  # the same as the clock\'s (its copy '
                'is in ../clock)\n'
                f'db = "{STATE}/tournament/tournament.db"\n'
                f'export = "{STATE}/tournament/standings"\n'
                "seats = 9\n"
                f"tables = [{tables}]\n"
                'balancing = "pvb-2020"                 # or "apsa-2010"\n'
                'points = "none"                        # or "apsa-ranking", "apsa-sit-and-go"\n'
                + mqtt)
    return (head + f'\n[floor]\nlisten = "{plan.tls_bind or "0.0.0.0"}"\n'
            f"port = {plan.floor_port}\n"
            'tls_cert = "floor.crt"                 # from broker init, for the names above\n'
            'tls_key = "floor.key"\n'
            'accounts = "floor-users.json"        # pokertable floor-user add NAME --accounts ...\n'
            f'db = "{STATE}/floor/floor.db"\n'
            f'secret = "{STATE}/floor/floor-secret"\n'
            "keep_hands_days = 30\n"
            f'records = "{RECORDS}"  # read-only: players\' own cards, '
            "the broadcast\n" + mqtt + BROADCAST)


def one_role(tree: Tree, role: str) -> None:
    """A machine is the host or a table, never both: the two share the backup unit and
    /var/lib/pokertable, each with its own owner and mode."""
    other, mark = (("a table", f"{ETC}/table.toml") if role == "host"
                   else ("the central host", f"{BROKER}/broker.json"))
    if tree.path(mark).exists():
        raise ConfigError(f"this machine is already {other} ({mark}): a machine is the host or "
                          "a table, not both; install the other role on a machine of its own")


def install_host(plan: HostPlan, tree: Tree) -> None:
    one_role(tree, "host")
    if plan.hostnames is None and not tree.path(f"{BROKER}/broker.json").exists():
        raise ConfigError("name this host as the tables and phones reach it: --hostname "
                          "broker.hall.lan (and --hostname 192.168.10.1 for its address); "
                          "the first name is what every table is told")
    if tree.real:
        tree.run(["apt-get", "install", "-y", "-qq", "mosquitto"], "install Mosquitto")
    tree.file(SYSUSERS, HOST_USERS.encode(), 0o644)
    _sysusers(tree)
    tree.directory(ETC, 0o755)
    grown = _broker(plan, tree)
    tree.file("/etc/systemd/system/mosquitto.service.d/pokertable.conf",
              MOSQUITTO_DROP_IN.encode(), 0o644)
    credentials = load_credentials(tree.path(BROKER))
    # The cash floor when asked for, and from then on: a later install without --cash keeps it
    # (its configuration is there), as it keeps the names the first install certified.
    cash = plan.cash or tree.path(f"{ETC}/cash/cash.toml").exists()
    for service in ("clock", "tournament", "recorder", "floor", *(["cash"] if cash else [])):
        user = f"pokertable-{service}"
        here = f"{ETC}/{service}"
        tree.directory(here, 0o750, "root", user)
        config = f"{here}/{service}.toml"
        text = _config(service, plan)
        kept = (_edited_tables(tree, plan, service, config, grown)
                if service in LISTS_TABLES and tree.edited(config, text.encode()) else None)
        tree.file(config, text.encode(), 0o640, "root", user, keep_edits=True, kept=kept)
        login = json.dumps({service: credentials[service].model_dump()}, indent=2) + "\n"
        tree.file(f"{here}/credentials.json", login.encode(), 0o640, "root", user)
    floor = f"{ETC}/floor"
    broker_files = tree.path(BROKER)
    tree.file(f"{floor}/floor.crt", (broker_files / "floor.crt").read_bytes(), 0o644)
    tree.file(f"{floor}/floor.key", (broker_files / "floor.key").read_bytes(), 0o640, "root",
              "pokertable-floor")
    if not tree.path(f"{floor}/floor-users.json").exists():
        tree.file(f"{floor}/floor-users.json", b'{\n "users": {}\n}', 0o640, "root",
                  "pokertable-floor")
    structures = resources.files("controller.install") / "structures"
    for service in ("clock", "tournament"):  # each reads its own copy of the same files
        tree.directory(f"{ETC}/{service}/structures", 0o750, "root", f"pokertable-{service}")
        for structure in sorted(structures.iterdir(), key=lambda p: p.name):
            if structure.name.endswith(".toml"):
                tree.file(f"{ETC}/{service}/structures/{structure.name}",
                          structure.read_bytes(), 0o640, "root", f"pokertable-{service}")
    tree.directory(STATE, 0o755)
    _recorder_state(tree)
    tree.directory("/var/backups/pokertable", 0o700)
    services = [floor_service(plan.floor_port) if s.name == "pokertable-floor" else s
                for s in HOST_SERVICES if s.name != CASH_SERVICE.name or cash]
    units = {f"{s.name}.service": s.text(plan.venv) for s in services}
    units |= backup_units(plan.venv, [f"{STATE}/clock/clock.db", f"{STATE}/floor/floor.db",
                                      f"{STATE}/recorder/records.db",
                                      f"{STATE}/tournament/tournament.db",
                                      *([f"{STATE}/cash/cash.db"] if cash else [])],
                          plan.keep_days)
    for name, text in units.items():
        tree.file(f"/etc/systemd/system/{name}", text.encode(), 0o644)
    enable = ["mosquitto.service", *[f"{s.name}.service" for s in services],
              "pokertable-backup.timer"]
    tree.save_manifest()
    _enable(tree, enable)


def _edited_tables(tree: Tree, plan: HostPlan, service: str, config: str,
                   grown: list[str]) -> str | None:
    """An edited configuration that lists the room's tables (kept as the venue has it) and
    does not list all of this host's: the tables added to the host now (``grown``) added to
    its ``tables`` alone, every other edit kept; what cannot be added so, and tables the
    venue may have left out on purpose, named in the install's line about the file (what to
    add, where). None: nothing to say but that it was kept."""
    current = tree.path(config).read_text(encoding="utf-8", errors="replace")
    section = LISTS_TABLES[service]
    listed = listed_tables(current, section)
    # A file whose tables do not read: only the tables new now are worth a word.
    missing = [str(n) for n in range(1, plan.tables + 1)
               if (str(n) not in listed if listed is not None else str(n) in grown)]
    new = [t for t in missing if t in grown]
    amended = add_tables(current, section, new) if new and listed is not None else None
    if amended is not None:
        order = listed_values(amended, section, "break_order")
        tree.amend(config, amended.encode(), 0o640, "root", f"pokertable-{service}",
                   f"{config}: added {_quoted(new)} to its tables (edited here: that value "
                   "alone changed, every other edit kept"
                   + ("; its break_order does not name them" if order else "") + ")")
        missing = [t for t in missing if t not in new]
    kept = ("edited here: every other edit kept as it is" if amended is not None else
            "edited here: kept as it is")
    if not missing:
        return kept if amended is not None else None
    unsafe = ("; its tables are not written in a way the install can change safely"
              if any(t in new for t in missing) else "")
    several = len(missing) > 1
    return (f"{kept}{unsafe}; it does not list "
            f"table{'s' if several else ''} {', '.join(missing)} of this host's: to play "
            f"{'them' if several else 'it'} there, add {_quoted(missing)} to [{section}] tables "
            f"in {config}, then sudo systemctl restart pokertable-{service}")


def _quoted(tables: list[str]) -> str:
    return ", ".join(f'"{t}"' for t in tables)


def _broker(plan: HostPlan, tree: Tree) -> list[str]:
    """broker init the first time; later only what changed: tables the venue has grown by
    (every existing password and key kept), other names or another LAN address (new
    certificates from the same CA: no client needs new files). The tables added to a broker
    that was there (their ids)."""
    out = tree.path(BROKER)
    broker = (tree.uid("mosquitto"), tree.gid("mosquitto"))
    if not (out / "broker.json").exists():
        assert plan.hostnames is not None  # install_host asked for them
        broker_init(BrokerPlan(venue=plan.venue, tables=plan.tables, port=plan.broker_port,
                               tls_port=plan.tls_port, tls_bind=plan.tls_bind,
                               hostnames=plan.hostnames), out, broker_owner=broker,
                    seen_as=BROKER)
        tree.changed(f"broker init: {BROKER} for venue {plan.venue!r}, {plan.tables} tables, "
                     f"certificates for {', '.join(plan.hostnames)}")
        return []
    state = load_state(out)
    if state.venue != plan.venue:
        raise ConfigError(f"{BROKER} belongs to the venue {state.venue!r}, not {plan.venue!r}: "
                          "give --venue as the first install did")
    if (state.port, state.tls_port) != (plan.broker_port, plan.tls_port):
        raise ConfigError(f"the broker listens on {state.port} and {state.tls_port} (TLS) "
                          "since the first install: give those ports (changing them would "
                          "leave every table's configuration behind)")
    names = plan.hostnames or [n for n in state.hostnames if n != state.tls_bind]
    wanted = list(dict.fromkeys([*names, *([plan.tls_bind] if plan.tls_bind else [])]))
    expiring = days_left(out / "server.crt") < RENEW_DAYS
    if wanted != state.hostnames or plan.tls_bind != state.tls_bind or expiring:
        certified = set_hostnames(out, names, broker_owner=broker, tls_bind=plan.tls_bind)
        tree.changed(f"broker: certificates for {', '.join(certified)} (the same CA), the TLS "
                     f"listener on {plan.tls_bind or 'every interface'}")
    missing = [str(n) for n in range(1, plan.tables + 1) if str(n) not in state.tables]
    services = [s for s in SERVICE_CLIENTS if s not in load_credentials(out)]
    if missing or services:  # (a venue from before the tournament's or the cash floor's
        # login gets it here)
        added = add_clients(out, tables=missing, broker_owner=broker)
        tree.changed(f"broker: added {', '.join(added)}")
    if refresh_acl(out, broker_owner=broker):  # (a venue set up by an older version)
        tree.changed("broker: the ACL as this version has it (a service reads a topic it did "
                     "not before)")
    return missing


def _recorder_state(tree: Tree) -> None:
    """The recorder's directory and store as its unit keeps them (the group HANDS may read,
    nobody else), made before its first start; a store an earlier version made 0600 in the
    recorder's own group is given to HANDS here (the recorder sets the mode at its start)."""
    here = f"{STATE}/recorder"
    tree.directory(here, 0o750, "pokertable-recorder", HANDS)
    for name in ("records.db", "records.db-wal", "records.db-shm"):
        if tree.path(f"{here}/{name}").is_file():
            tree.existing(f"{here}/{name}", 0o640, "pokertable-recorder", HANDS)


def _sysusers(tree: Tree) -> None:
    tree.directory("/etc", 0o755)
    before = (tree.path("/etc/passwd").read_bytes() if tree.path("/etc/passwd").exists()
              else b"")
    argv = ["systemd-sysusers"] + ([] if tree.real else [f"--root={tree.root}"])
    tree.run([*argv, SYSUSERS if tree.real else str(tree.path(SYSUSERS))],
             "create the services' users")
    if tree.path("/etc/passwd").read_bytes() != before:
        tree.changed("systemd-sysusers: created the services' users and groups")


def _enable(tree: Tree, units: list[str]) -> None:
    """Enabled; on a real machine also started, and restarted when one of its files changed
    (a service whose files did not change is left running: a tournament may be on)."""
    argv = ["systemctl"] + ([] if tree.real else [f"--root={tree.root}"])
    # A --root tree has no Debian packages: Mosquitto's unit is only there on a machine.
    present = [u for u in units if tree.real or u != "mosquitto.service"]
    wants = [u for u in present if not _enabled(tree, u)]
    if wants:
        tree.run([*argv, "enable", *wants], f"enabled {', '.join(wants)}", always=True)
    if not tree.real:
        return
    tree.run(["systemctl", "daemon-reload"], "reload systemd's units")
    for unit in present:
        name = unit.rsplit(".", 1)[0]
        short = name.removeprefix("pokertable-")
        touched = any(name in change or f"/{short}/" in change or
                      (short == "mosquitto" and "broker" in change) for change in tree.changes)
        tree.run(["systemctl", "restart" if touched else "start", unit],
                 f"{'restart' if touched else 'start'} {unit}")


def _enabled(tree: Tree, unit: str) -> bool:
    target = "timers.target" if unit.endswith(".timer") else "multi-user.target"
    return tree.path(f"/etc/systemd/system/{target}.wants/{unit}").is_symlink()


__all__ = ["HostPlan", "install_host"]
