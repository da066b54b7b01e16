"""The systemd units the installer writes, made from one hardening list so that every service
gets the same sandbox and only what it needs is opened (`systemd-analyze security` rates the
host's services at 1.1-1.8 and the table's at about 3.5; docs/install.md).

Every service is ``Type=notify``: systemd hears ``READY=1`` once it serves, and watchdog pings
only while its own loops move (controller/service/manager.py); a hung loop is restarted after
``WatchdogSec``. A clean stop is SIGTERM, which each service takes as one (the table seals its
last hand), and ``Restart=always`` brings it back into the same state from its journal.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

WATCHDOG_SECONDS = 30

# What no pokertable service needs: kernel, other users' processes, privileges, exotic
# syscalls. Comments in the unit would repeat docs/install.md; the names say enough.
SANDBOX = [
    "NoNewPrivileges=yes",
    "ProtectSystem=strict",
    "ProtectHome=yes",
    "PrivateTmp=yes",
    "ProtectKernelTunables=yes",
    "ProtectKernelModules=yes",
    "ProtectKernelLogs=yes",
    "ProtectControlGroups=yes",
    "ProtectClock=yes",
    "ProtectHostname=yes",
    "ProtectProc=invisible",
    "ProcSubset=pid",
    "RestrictNamespaces=yes",
    "RestrictRealtime=yes",
    "RestrictSUIDSGID=yes",
    "LockPersonality=yes",
    "MemoryDenyWriteExecute=yes",
    "RemoveIPC=yes",
    "KeyringMode=private",
    "CapabilityBoundingSet=",
    "AmbientCapabilities=",
    "SystemCallArchitectures=native",
    "SystemCallFilter=@system-service",
    "SystemCallFilter=~@privileged @resources",
    "SystemCallErrorNumber=EPERM",
    "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6",
    "UMask=0077",
]


@dataclass
class Service:
    name: str
    description: str
    user: str
    command: str  # after the pokertable executable
    state: str  # StateDirectory= (under /var/lib)
    after: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    group: str | None = None  # Group= (None: the user's own)
    state_mode: str = "0700"  # StateDirectoryMode=

    def text(self, venv: str) -> str:
        after = " ".join([*self.after, "network-online.target"])
        lines = [
            f"# {self.name}: {self.description}.",
            "# Written by `pokertable install`; a second install rewrites it: put local changes",
            f"# in a drop-in (systemctl edit {self.name}).",
            "[Unit]",
            f"Description=pokertable: {self.description}",
            f"After={after}",
            f"Wants={after}",
            "",
            "[Service]",
            "Type=notify",
            "NotifyAccess=main",
            f"WatchdogSec={WATCHDOG_SECONDS}",
            f"User={self.user}",
            f"Group={self.group or self.user}",
            f"StateDirectory={self.state}",
            f"StateDirectoryMode={self.state_mode}",
            f"WorkingDirectory=/var/lib/{self.state}",
            f"ExecStart={venv}/bin/pokertable {self.command}",
            "Restart=always",
            "RestartSec=2",
            "TimeoutStartSec=60",
            "TimeoutStopSec=30",
            *SANDBOX,
            *self.extra,
            "",
            "[Install]",
            "WantedBy=multi-user.target",
            "",
        ]
        return "\n".join(lines)


# The host's services reach only the broker on this machine, except the floor, which serves
# the room's phones and TVs.
LOCAL_ONLY = ["PrivateDevices=yes", "PrivateUsers=yes", "DevicePolicy=closed",
              "IPAddressDeny=any", "IPAddressAllow=localhost", "SocketBindDeny=any"]

# The group that may read the recorder's store (every hole card): the recorder's files are
# its, and the floor's service is its one other member.
HANDS = "pokertable-hands"

# Installed when the host is asked for the cash floor (`install host --cash`).
CASH_SERVICE = Service("pokertable-cash", "the cash floor: waiting lists, must-move tables",
                       "pokertable-cash", "cash --config /etc/pokertable/cash/cash.toml",
                       "pokertable/cash", after=["mosquitto.service"], extra=LOCAL_ONLY)

HOST_SERVICES = [
    Service("pokertable-clock", "the tournament clock", "pokertable-clock",
            "clock --config /etc/pokertable/clock/clock.toml", "pokertable/clock",
            after=["mosquitto.service"], extra=LOCAL_ONLY),
    # Its store's group is HANDS (the files 0640, the directory 0750): the floor, in that
    # group, reads the players' own cards and the broadcast there; its own group still opens
    # its configuration and login (/etc/pokertable/recorder), which the floor's may not.
    Service("pokertable-recorder", "the recorder: every hand kept", "pokertable-recorder",
            "recorder --config /etc/pokertable/recorder/recorder.toml", "pokertable/recorder",
            after=["mosquitto.service"],
            extra=[*LOCAL_ONLY, "SupplementaryGroups=pokertable-recorder"], group=HANDS,
            state_mode="0750"),
    Service("pokertable-tournament", "the tournament: players, seats, places, prizes",
            "pokertable-tournament",
            "tournament --config /etc/pokertable/tournament/tournament.toml",
            "pokertable/tournament", after=["mosquitto.service"], extra=LOCAL_ONLY),
    # In HANDS: it reads the recorder's store (never writes it: read-only like the rest of
    # /var under ProtectSystem=strict). After the recorder, which makes the store.
    Service("pokertable-floor", "the floor display's web server", "pokertable-floor",
            "floor --config /etc/pokertable/floor/floor.toml", "pokertable/floor",
            after=["mosquitto.service", "pokertable-recorder.service"],
            extra=["PrivateDevices=yes", "PrivateUsers=yes", "DevicePolicy=closed",
                   f"SupplementaryGroups={HANDS}"]),
    CASH_SERVICE,
]

# The table reads its RFID readers (the reader modules' SPI buses, USB serial readers) and the
# dealer's buttons and the modules' chip selects (GPIO character devices): those devices and
# nothing else. ``char-spi`` is spidev's major, whichever buses the table's readers use.
TABLE_SERVICE = Service(
    "pokertable-table", "the table: readers, buttons, journal, MQTT", "pokertable",
    "table --config /etc/pokertable/table.toml", "pokertable",
    extra=["SupplementaryGroups=dialout gpio spi", "DevicePolicy=closed",
           "DeviceAllow=char-ttyUSB rw", "DeviceAllow=char-ttyACM rw",
           "DeviceAllow=char-gpiochip rw", "DeviceAllow=/dev/gpiomem rw",
           "DeviceAllow=char-spi rw", "SocketBindDeny=any"])


def floor_service(port: int) -> Service:
    """The floor's unit: it may bind its own port and no other (the config's listen address
    decides the interface)."""
    floor = next(s for s in HOST_SERVICES if s.name == "pokertable-floor")
    return replace(floor, extra=[*floor.extra, f"SocketBindAllow=tcp:{port}",
                                 "SocketBindDeny=any"])


def backup_units(venv: str, databases: list[str], keep_days: int) -> dict[str, str]:
    """A timer that backs up every store hourly (SQLite's online backup: safe while the
    services write), keeping ``keep_days`` days in /var/backups/pokertable."""
    service = "\n".join([
        "# pokertable-backup: online copies of every store (`pokertable backup`).",
        "[Unit]",
        "Description=pokertable: back up the stores",
        "",
        "[Service]",
        "Type=oneshot",
        f"ExecStart={venv}/bin/pokertable backup --out /var/backups/pokertable "
        f"--keep-days {keep_days} --missing-ok {' '.join(databases)}",
        # Root only to read the services' private stores; nothing else of root's.
        "CapabilityBoundingSet=CAP_DAC_OVERRIDE CAP_DAC_READ_SEARCH",
        "ReadWritePaths=/var/lib/pokertable /var/backups/pokertable",
        *[line for line in SANDBOX if not line.startswith("CapabilityBoundingSet")],
        "PrivateDevices=yes",
        "PrivateNetwork=yes",
        "",
    ])
    timer = "\n".join([
        "# pokertable-backup.timer: hourly, and at boot for an hour missed while off.",
        "[Unit]",
        "Description=pokertable: back up the stores hourly",
        "",
        "[Timer]",
        "OnCalendar=hourly",
        "Persistent=true",
        "RandomizedDelaySec=120",
        "",
        "[Install]",
        "WantedBy=timers.target",
        "",
    ])
    return {"pokertable-backup.service": service, "pokertable-backup.timer": timer}


MOSQUITTO_DROP_IN = """\
# Written by `pokertable install host`: Debian's mosquitto.service is the venue's one broker,
# with the configuration `pokertable broker init` wrote (not /etc/mosquitto/mosquitto.conf,
# whose default listener would also take port 1883). The TLS listener binds the room's LAN
# address: wait for the network to be up, or Mosquitto fails at boot before it has one.
[Unit]
Wants=network-online.target
After=network-online.target

[Service]
ExecStart=
ExecStart=/usr/sbin/mosquitto -c /etc/pokertable/broker/mosquitto.conf
"""

__all__ = ["CASH_SERVICE", "HANDS", "HOST_SERVICES", "MOSQUITTO_DROP_IN", "SANDBOX",
           "TABLE_SERVICE", "Service", "backup_units", "floor_service"]
