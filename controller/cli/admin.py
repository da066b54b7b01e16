"""The commands of the person who sets a venue up: the broker's files and logins, installing a
machine, upgrading a table, floor staff accounts, backups and restores."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from controller.cli.common import (
    _broker_port,
    _int_in,
    _older_form,
    _on_disk,
    _Parser,
    _renamed,
)


def _broker_init(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from controller.errors import ConfigError, first_error
    from controller.mqtt.broker_init import BrokerPlan, broker_init

    try:
        plan = BrokerPlan.model_validate(
            {"venue": args.venue, "tables": args.tables, "port": args.port,
             "tls_port": args.tls_port, "tls_bind": args.tls_bind, "displays": args.displays,
             **({"hostnames": args.hostname} if args.hostname else {})})
    except ValidationError as exc:
        raise ConfigError(first_error(exc, "option")) from None
    out = Path(args.out)
    bundle = None
    if args.league_broker is not None or args.bridge_bundle is not None:
        from controller.mqtt.league_bridge import read_bridge_bundle

        if args.bridge_bundle is None:
            raise ConfigError("--league-broker needs --bridge-bundle FILE (from `pokertable "
                              "broker league bundle VENUE` on the league's host)")
        bundle = read_bridge_bundle(Path(args.bridge_bundle))
        if bundle.venue != plan.venue:  # checked before a file is written
            raise ConfigError(f"{args.bridge_bundle} is venue {bundle.venue!r}'s bridge "
                              f"bundle, not {plan.venue!r}'s")
    credentials = _on_disk(out, lambda: broker_init(plan, out))
    print(f"wrote {out}/mosquitto.conf, passwd, acl, ca.crt, server.crt/.key, floor.crt/.key, "
          f"broker.json and credentials.json ({len(credentials)} clients) for "
          f"{', '.join(plan.state().hostnames)}; start with: "
          f"mosquitto -c {out.resolve()}/mosquitto.conf")
    if bundle is not None:
        _join(out, bundle, args.league_broker)
    return 0


def _join(out: Path, bundle: Any, to: str | None) -> None:
    from controller.mqtt.league_bridge import join_league

    host, port = _host_port(to) if to else (None, None)
    bridge = _on_disk(out, lambda: join_league(out, bundle, host, port))
    print(f"bridged venue {bundle.venue} to league {bridge.league} at {bridge.host}:"
          f"{bridge.port} (TLS, login {bundle.login.username}): the league's recorder keeps "
          "the hands; run this venue's own recorder, if any, with keeper = false "
          "(docs/league.md); restart mosquitto")


def _host_port(text: str) -> tuple[str, int | None]:
    from controller.errors import ConfigError

    host, _, port = text.rpartition(":") if text.count(":") == 1 else (text, "", "")
    if not port:
        return text, None
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ConfigError(f"--league-broker {text}: the port must be a number from 1 to "
                          "65535")
    return host, int(port)


def _broker_bridge(args: argparse.Namespace) -> int:
    """`broker bridge --bundle FILE --broker-dir DIR [--league-broker HOST[:PORT]]`: an
    existing venue joins a league."""
    from controller.mqtt.league_bridge import read_bridge_bundle

    _join(Path(args.broker_dir), read_bridge_bundle(Path(args.bundle)), args.league_broker)
    return 0


def _league_init(args: argparse.Namespace) -> int:
    from pydantic import ValidationError

    from controller.errors import ConfigError, first_error
    from controller.mqtt.league_bridge import LeaguePlan, league_init

    try:
        plan = LeaguePlan.model_validate(
            {"league": args.league, "venues": args.venue, "port": args.port,
             "tls_port": args.tls_port, "tls_bind": args.tls_bind,
             "hostnames": args.hostname})
    except ValidationError as exc:
        raise ConfigError(first_error(exc, "option")) from None
    out = Path(args.out)
    credentials = _on_disk(out, lambda: league_init(plan, out))
    print(f"wrote the league broker's files into {out} ({len(credentials)} logins: recorder, "
          f"floor, a bridge for each of {', '.join(plan.venues)}); start with: mosquitto -c "
          f"{out.resolve()}/mosquitto.conf; for each venue: pokertable broker league bundle "
          f"VENUE --broker-dir {out} --out VENUE-bridge.json")
    return 0


def _league_add(args: argparse.Namespace) -> int:
    from controller.mqtt.league_bridge import add_venues

    out = Path(args.broker_dir)
    added = _on_disk(out, lambda: add_venues(out, args.venues))
    if not added:
        print(f"nothing to add: {out} already has {', '.join(args.venues)}")
        return 0
    print(f"added {', '.join(added)} to {out} (every other login and key kept); the broker "
          "reads the new passwd and acl on SIGHUP (systemctl reload mosquitto)")
    return 0


def _league_bundle(args: argparse.Namespace) -> int:
    from controller.mqtt.league_bridge import make_bridge_bundle, write_bridge_bundle

    bundle = make_bridge_bundle(Path(args.broker_dir), args.venue)
    to = Path(args.out)
    _on_disk(to, lambda: write_bridge_bundle(bundle, to))
    print(f"wrote {to} (0600: it holds bridge-{bundle.venue}'s password) for {bundle.host}:"
          f"{bundle.port}; on the venue's host: pokertable broker bridge --bundle {to.name} "
          "--broker-dir /etc/pokertable/broker")
    return 0


def _broker_add(args: argparse.Namespace) -> int:
    """`broker add-table ID...` and `broker add-display`: new logins, nothing else re-keyed."""
    from controller.mqtt.broker_init import add_clients

    out = Path(args.broker_dir)
    tables = list(getattr(args, "ids", []) or [])
    added = _on_disk(out, lambda: add_clients(out, tables=tables,
                                                displays=getattr(args, "count", 0)))
    if not added:
        has = ", ".join("table-" + t for t in tables) or "every service's login"
        print(f"nothing to add: {out} already has {has}")
        return 0
    print(f"added {', '.join(added)} to {out} (every other login, key and certificate kept); "
          "the broker reads the new passwd and acl on `systemctl reload mosquitto` (SIGHUP)")
    return 0


def _broker_hostnames(args: argparse.Namespace) -> int:
    from controller.mqtt.broker_init import set_hostnames

    out = Path(args.broker_dir)
    names = _on_disk(out, lambda: set_hostnames(out, args.hostname))
    print(f"new server.crt and floor.crt in {out} for {', '.join(names)} (the same CA: no "
          "client needs a new file); restart the broker and the floor: systemctl restart "
          "mosquitto pokertable-floor (an installed floor has its own copy: run the install "
          "again)")
    return 0


def _broker_bundle(args: argparse.Namespace) -> int:
    from controller.mqtt.table_bundle import make_bundle, write_bundle

    bundle = make_bundle(Path(args.broker_dir), args.client)
    to = Path(args.out)
    _on_disk(to, lambda: write_bundle(bundle, to))
    print(f"wrote {to} (0600: it holds table-{bundle.table}'s password) for {bundle.host}:"
          f"{bundle.port}; on that table's Pi, from a checkout of pokertable: "
          f"sudo deploy/install.sh table --bundle {to.name}")
    return 0


def _install(args: argparse.Namespace) -> int:
    """`install host|table [--root DIR]`: what changed, or that nothing did."""
    from pydantic import ValidationError

    from controller.errors import ConfigError, first_error
    from controller.install.host import HostPlan, install_host
    from controller.install.table import TablePlan, install_table, read_bundle_file
    from controller.install.tree import Tree

    real = args.root is None
    if real and os.geteuid() != 0:
        raise ConfigError("installing on this machine needs root: run it with sudo (or give "
                          "--root DIR to install into a directory tree)")
    venv = args.venv or sys.prefix
    try:  # everything asked is checked before the first file is written
        if args.what == "host":
            plan: HostPlan | TablePlan = HostPlan.model_validate({
                "venue": args.venue, "tables": args.tables, "tls_bind": args.tls_bind,
                "broker_port": args.port or 1883, "tls_port": args.tls_port,
                "floor_port": args.floor_port, "keep_days": args.keep_days, "venv": venv,
                "hostnames": args.hostname, "cash": args.cash})
        else:
            bundle = read_bundle_file(Path(args.bundle)) if args.bundle else None
            plan = TablePlan(table=args.id, bundle=bundle, board=args.board,
                             keep_days=args.keep_days, venv=venv)
    except ValidationError as exc:
        raise ConfigError(first_error(exc, "option")) from None
    root = Path(args.root or "/").resolve()
    if not root.exists():  # a tree like a machine's: its top directory as /'s
        _on_disk(root, lambda: root.mkdir(parents=True))
        root.chmod(0o755)
    tree = Tree(root, real=real)
    if isinstance(plan, HostPlan):
        host_plan = plan
        _on_disk(root, lambda: install_host(host_plan, tree))
    else:
        table_plan = plan
        _on_disk(root, lambda: install_table(table_plan, tree))
    where = "this machine" if real else str(root)
    for change in tree.changes:
        print(f"changed: {change}")
    for kept in tree.kept:
        print(f"kept: {kept}")
    if not tree.changes:
        print(f"nothing changed: {where} is already installed as a {args.what}")
    elif args.what == "host":
        print(f"next{'' if real else ' (paths on the installed machine)'}: sudo pokertable "
              "floor-user add NAME --accounts /etc/pokertable/floor/floor-users.json; for each "
              "table: sudo pokertable broker bundle N --broker-dir /etc/pokertable/broker "
              "--out table-N.json (docs/install.md)")
    return 0


def _upgrade(args: argparse.Namespace) -> int:
    """`upgrade table --release DIR | --rollback`: between hands, with systemd restarting the
    unit."""
    import subprocess

    from controller.errors import ConfigError
    from controller.table.upgrade import upgrade_table

    if (args.release is None) == (not args.rollback):
        raise ConfigError("give --release DIR, or --rollback")

    def restart() -> None:
        done = subprocess.run(["systemctl", "restart", args.unit], capture_output=True,
                              text=True, check=False)
        if done.returncode != 0:
            raise ConfigError(f"systemctl restart {args.unit}: {done.stderr.strip()}")

    upgrade_table(Path(args.opt), Path(args.state), None if args.rollback else Path(args.release),
                  restart, timeout=args.timeout)
    return 0


def _floor_user(args: argparse.Namespace) -> int:
    """Floor staff accounts: add (or change a password), remove, list."""
    import getpass

    from controller.errors import ConfigError
    from controller.room.floor.accounts import (
        load_accounts,
        remove_user,
        save_accounts,
        set_password,
    )

    path = Path(args.accounts)
    accounts = load_accounts(path)
    if args.what == "list":
        for name in sorted(accounts.users):
            print(name)
        return 0
    if args.what == "remove":
        save_accounts(path, remove_user(accounts, args.name))
        print(f"{args.name} removed from {path}")
        return 0
    try:
        if args.password_stdin:
            line = sys.stdin.readline()
            if not line:
                raise ConfigError("--password-stdin: stdin is closed; give the password on its "
                                  "first line")
            password = line.rstrip("\n")
        else:
            if sys.stdin is None or sys.stdin.closed or not sys.stdin.isatty():
                raise ConfigError("no terminal to type the password in: give it on the first "
                                  "line of stdin with --password-stdin")
            password = getpass.getpass(f"password for {args.name}: ")
            if getpass.getpass("again: ") != password:
                raise ConfigError("the two passwords differ")
    except EOFError:
        raise ConfigError("no password was typed (stdin closed); use --password-stdin to give "
                          "it from a pipe") from None
    save_accounts(path, set_password(accounts, args.name, password,
                                     ["broadcast"] if args.broadcast else None))
    print(f"{args.name} can log in to the floor display ({path})")
    return 0


def _backup(args: argparse.Namespace) -> int:
    """Checked copies of stores taken while their services run; one line per store."""
    from controller.errors import ConfigError
    from controller.storage.backup import backup_stores

    failed = False
    try:
        results = backup_stores(args.stores, Path(args.out), args.keep_days)
    except OSError as exc:  # the directory cannot be made or written
        raise ConfigError(f"{exc.filename or args.out}: {exc.strerror}") from None
    for done in results:
        if done.copy is None and args.missing_ok and not done.store.exists():
            # (the host's timer lists every store a service may make: one not made yet, or a
            # recorder on PostgreSQL, is no failure of the hour's backup)
            print(f"{done.store}: not there, nothing to copy")
            continue
        if done.copy is None:
            failed = True
            print(f"pokertable backup: {done.error}", file=sys.stderr)
            continue
        gone = f"; {len(done.removed)} older copies removed" if done.removed else ""
        print(f"{done.store} -> {done.copy} (checked){gone}")
    return 1 if failed else 0


def _restore(args: argparse.Namespace) -> int:
    """A backup in place of a store whose service is stopped."""
    from controller.errors import ConfigError
    from controller.storage.backup import restore

    try:
        aside = restore(Path(args.backup), Path(args.out))
    except OSError as exc:  # a directory not ours, a disk full
        raise ConfigError(f"{exc.filename or args.out}: {exc.strerror}") from None
    kept = f"; the replaced file is kept as {aside}" if aside is not None else ""
    print(f"{args.out} restored from {args.backup}{kept}")
    return 0


def _broker_dir(parser: argparse.ArgumentParser, made_by: str = "broker init",
                older: bool = True) -> None:
    """The directory `broker init` (or `broker league init`) wrote: one name in every command
    that reads it or adds to it (--out before, which now names only what a command writes)."""
    parser.add_argument("--broker-dir", *(["--out"] if older else []), required=True,
                        metavar="DIR", dest="broker_dir",
                        action=_renamed("--out") if older else "store",
                        help=f"the broker's directory, as `{made_by} --out DIR` wrote it")


def _bundle_out(parser: _Parser) -> None:
    """`broker bundle` and `broker league bundle`: ``--broker-dir DIR --out FILE``, and the
    older ``--out DIR --to FILE`` for a release."""
    parser.add_argument("--out", required=True, metavar="FILE", help="the bundle to write (0600)")
    _older_form(parser, "--to", {"--out": "--broker-dir", "--to": "--out"},
                "--out DIR --to FILE", "--broker-dir DIR --out FILE")


def add_admin_commands(sub: Any) -> None:
    """The set-up commands' parsers, on the top-level subparsers ``sub``."""
    broker = sub.add_parser("broker", help="the venue's MQTT broker: its files and logins"
                            ).add_subparsers(dest="what", required=True, parser_class=_Parser)
    broker_init = broker.add_parser(
        "init", help="write mosquitto.conf, passwd, acl, the venue CA and certificates, "
        "credentials.json and broker.json (refuses a directory that already holds a venue)")
    broker_init.add_argument("--venue", required=True, help="venue name: part of every topic")
    broker_init.add_argument("--tables", type=_int_in(1, 500), required=True,
                             help="number of tables (ids 1 to N; add more with add-table)")
    _broker_port(broker_init, help="the plain listener, on 127.0.0.1 only", required=True)
    broker_init.add_argument("--tls-port", type=_int_in(1, 65535), default=8883, metavar="PORT",
                             help="TLS listener for the room's LAN")
    broker_init.add_argument("--tls-bind", default=None, metavar="ADDRESS",
                             help="the IP address the TLS listener binds (the room's LAN "
                             "interface; default: every interface)")
    broker_init.add_argument("--hostname", action="append", metavar="NAME",
                             help="a name (or IP address) the tables and phones use for this "
                             "host, e.g. broker.hall.lan; repeat for more; the first goes into "
                             "the tables' bundles (default: this machine's host name)")
    broker_init.add_argument("--displays", type=_int_in(1, 100), default=1,
                             help="read-only logins for screens on MQTT (display, display-2, "
                             "...): one connection each")
    broker_init.add_argument("--league-broker", "--bridge-to", metavar="HOST[:PORT]",
                             action=_renamed("--bridge-to"),
                             help="with --bridge-bundle: bridge this venue to the league's "
                             "broker at this address (default: the bundle's): docs/league.md")
    broker_init.add_argument("--bridge-bundle", metavar="FILE",
                             help="the venue's bridge bundle from `broker league bundle`: the "
                             "league's CA and this venue's bridge login")
    broker_init.add_argument("--out", required=True, metavar="DIR",
                             help="the directory to write the broker's files into")
    broker_init.set_defaults(run=_broker_init)
    bridge = broker.add_parser(
        "bridge", help="bridge an existing venue to a league's broker (its public tree and "
                       "full records out, the league recorder's acknowledgements in)")
    bridge.add_argument("--bundle", required=True, metavar="FILE",
                        help="the venue's bridge bundle from `broker league bundle`")
    bridge.add_argument("--league-broker", "--to", metavar="HOST[:PORT]",
                        action=_renamed("--to"),
                        help="the league broker's address (default: the bundle's)")
    _broker_dir(bridge)
    bridge.set_defaults(run=_broker_bridge)
    league = broker.add_parser(
        "league", help="a league's broker, which the venues' brokers bridge to"
    ).add_subparsers(dest="league_what", required=True, parser_class=_Parser)
    league_init = league.add_parser(
        "init", help="write the league broker's files: its CA and certificate, a login for "
                     "each venue's bridge, the league's recorder and floor")
    league_init.add_argument("--league", required=True,
                             help="the league's name (its recorder's status is under it)")
    league_init.add_argument("--venue", action="append", required=True, metavar="VENUE",
                             help="a venue of the league, as given to its broker init; repeat")
    _broker_port(league_init, help="the plain listener, on 127.0.0.1 only", required=True)
    league_init.add_argument("--tls-port", type=_int_in(1, 65535), default=8883, metavar="PORT",
                             help="TLS listener for the venues' bridges")
    league_init.add_argument("--tls-bind", default=None, metavar="ADDRESS",
                             help="the IP address the TLS listener binds (default: every one)")
    league_init.add_argument("--hostname", action="append", required=True, metavar="NAME",
                             help="a name the venues use for the league's host; repeat")
    league_init.add_argument("--out", required=True, metavar="DIR",
                             help="the directory to write the league broker's files "
                             "into")
    league_init.set_defaults(run=_league_init)
    league_add = league.add_parser("add-venue", help="bridge logins for more venues, every "
                                   "other login and key kept")
    league_add.add_argument("venues", nargs="+", metavar="VENUE",
                            help="venues to add, as given to their broker init")
    _broker_dir(league_add, "broker league init")
    league_add.set_defaults(run=_league_add)
    league_bundle = league.add_parser(
        "bundle", help="a venue's bridge login, the league CA and address in one file, for "
                       "`broker init --bridge-bundle` or `broker bridge` at the venue")
    league_bundle.add_argument("venue", metavar="VENUE", help="the venue the bundle is for")
    _broker_dir(league_bundle, "broker league init", older=False)
    _bundle_out(league_bundle)
    league_bundle.set_defaults(run=_league_bundle)
    add_table = broker.add_parser(
        "add-table", help="add tables to the venue: their logins and ACL entries, every other "
                          "password and key kept")
    add_table.add_argument("ids", nargs="+", metavar="ID", help="table ids, e.g. 9 or final")
    _broker_dir(add_table)
    add_table.set_defaults(run=_broker_add)
    add_display = broker.add_parser(
        "add-display", help="add read-only display logins (display-N), every other password "
                            "and key kept")
    add_display.add_argument("--count", type=_int_in(1, 100), default=1, help="how many")
    _broker_dir(add_display)
    add_display.set_defaults(run=_broker_add)
    add_services = broker.add_parser(
        "add-services", help="add the central services' logins a venue made by an older "
                             "version lacks (the tournament's, the cash floor's), every other "
                             "password and key kept")
    _broker_dir(add_services)
    add_services.set_defaults(run=_broker_add)
    hostnames = broker.add_parser(
        "hostnames", help="certify the broker and the floor for these names (new certificates "
                          "from the same CA: every client's files stay valid)")
    hostnames.add_argument("--hostname", action="append", required=True, metavar="NAME",
                           help="a name (or IP address) the tables and phones use for this "
                           "host; repeat for more; the first goes into new bundles")
    _broker_dir(hostnames)
    hostnames.set_defaults(run=_broker_hostnames)
    bundle = broker.add_parser(
        "bundle", help="one table's login, the venue CA and the broker's address in one file, "
                       "for `pokertable install table --bundle`")
    bundle.add_argument("client", metavar="TABLE", help="the table: table-3 or 3")
    _broker_dir(bundle, older=False)
    _bundle_out(bundle)
    bundle.set_defaults(run=_broker_bundle)

    install = sub.add_parser(
        "install", help="make this machine (or --root DIR) a venue's central host or a table; "
                        "a second run changes nothing").add_subparsers(
        dest="what", required=True, parser_class=_Parser)
    host = install.add_parser("host", help="Mosquitto, the clock, the recorder and the floor "
                              "display, their users, files, units and backups")
    host.add_argument("--venue", required=True, help="venue name: part of every topic")
    host.add_argument("--tables", type=_int_in(1, 500), required=True,
                      help="tables 1 to N (a later run with more adds them)")
    host.add_argument("--hostname", action="append", metavar="NAME",
                      help="a name (or IP address) the tables and phones use for this host; "
                      "repeat for more (default: its fully qualified name)")
    host.add_argument("--tls-bind", metavar="ADDRESS", default=None,
                      help="the room's LAN address: the broker's TLS listener and the floor "
                      "bind it (default: every interface)")
    _broker_port(host, help="the broker's plain listener on 127.0.0.1 (default: 1883)")
    host.add_argument("--tls-port", type=_int_in(1, 65535), default=8883, metavar="PORT",
                      help="the broker's TLS listener for the tables")
    host.add_argument("--floor-port", type=_int_in(1, 65535), default=8443, metavar="PORT",
                      help="the floor display's HTTPS port")
    host.add_argument("--cash", action="store_true",
                      help="the cash floor too (waiting lists, must-move tables): its user, "
                      "/etc/pokertable/cash/cash.toml and pokertable-cash.service; a host that "
                      "has it keeps it on later installs")
    table_install = install.add_parser("table", help="the table service, udev rules, groups, "
                                       "the table's login from its bundle, backups")
    table_install.add_argument("--bundle", metavar="FILE",
                               help="the table's bundle from `pokertable broker bundle`")
    table_install.add_argument("--id", help="the table id, for a table without a bundle")
    table_install.add_argument("--board", choices=["auto", "pi5", "pi", "other"],
                               default="auto", help="the board (auto: from the device tree); "
                               "a Raspberry Pi gets the lgpio pin factory")
    for command in (host, table_install):
        command.add_argument("--root", metavar="DIR",
                             help="install into this directory tree instead of the machine "
                             "(no apt, no systemctl start; for checking what it writes)")
        command.add_argument("--venv", metavar="DIR", help="the virtual environment the "
                             "units run pokertable from (default: the one running this)")
        command.add_argument("--keep-days", type=_int_in(1, 3650), default=14, metavar="N",
                             help="days of hourly backups kept")
        command.set_defaults(run=_install)

    upgrade = sub.add_parser("upgrade", help="upgrade a table between hands").add_subparsers(
        dest="what", required=True, parser_class=_Parser)
    upgrade_table = upgrade.add_parser(
        "table", help="switch the table to another release at a moment between hands (the "
                      "hand in play goes on; the next shuffle waits); the previous is kept")
    upgrade_table.add_argument("--release", "--to", metavar="DIR", action=_renamed("--to"),
                               help="the new release: a virtual environment with pokertable")
    upgrade_table.add_argument("--rollback", action="store_true",
                               help="back to the previous release, the same way")
    upgrade_table.add_argument("--opt", default="/opt/pokertable", metavar="DIR",
                               help="where the releases and the current and previous links "
                               "are")
    upgrade_table.add_argument("--state", default="/var/lib/pokertable", metavar="DIR",
                               help="the table's state directory, beside its journal")
    upgrade_table.add_argument("--unit", default="pokertable-table.service",
                               help="the table's systemd unit")
    upgrade_table.add_argument("--timeout", type=float, default=3600.0,
                               help="seconds to wait for a moment between hands")
    upgrade_table.set_defaults(run=_upgrade)

    floor_user = sub.add_parser("floor-user", help="floor staff accounts for the floor display"
                                ).add_subparsers(dest="what", required=True, parser_class=_Parser)
    for action, text in (("add", "add a user, or give one a new password"),
                         ("remove", "remove a user"), ("list", "list the users")):
        command = floor_user.add_parser(action, help=text)
        if action != "list":
            command.add_argument("name", help="the user's login name")
        command.add_argument("--accounts", required=True, metavar="floor-users.json",
                             help="the accounts file (created 0600 if missing; an existing "
                             "one keeps its owner and mode)")
        if action == "add":
            command.add_argument("--password-stdin", action="store_true",
                                 help="read the password from the first line of stdin")
            command.add_argument("--broadcast", action="store_true", help="a broadcast login: "
                                 "the delayed broadcast feed only, no floor decision")
        command.set_defaults(run=_floor_user)

    backup = sub.add_parser("backup", help="copy stores (SQLite) while their services run: "
                            "--out DIR/<name>-<UTC time>.db, each checked; older copies "
                            "removed")
    backup.add_argument("stores", nargs="+", metavar="DB",
                        help="stores to copy (journal.db, outbox.db, records.db, clock.db, "
                        "floor.db)")
    backup.add_argument("--out", "--to", required=True, metavar="DIR", action=_renamed("--to"),
                        help="directory of the copies (created 0700 if missing)")
    backup.add_argument("--keep-days", type=_int_in(1), default=14, metavar="N",
                        help="remove this directory's copies of these stores older than N days")
    backup.add_argument("--missing-ok", action="store_true",
                        help="a store that is not there (its service has not made it, or the "
                        "recorder keeps its records in PostgreSQL) is said, not a failure")
    backup.set_defaults(run=_backup)

    restore = sub.add_parser("restore", help="put a backup in place of a store whose service "
                             "is stopped; the replaced file is kept aside")
    restore.add_argument("backup", metavar="BACKUP", help="a copy made by pokertable backup")
    restore.add_argument("--out", "--to", required=True, metavar="DB", action=_renamed("--to"),
                         help="the store to replace (its service must be stopped)")
    restore.set_defaults(run=_restore)

