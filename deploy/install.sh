#!/bin/sh
# Install pokertable on this machine from this checkout (or a release directory):
#   sudo deploy/install.sh host --venue hall --tables 6 --hostname broker.hall.lan
#   sudo deploy/install.sh table --bundle table-3.json
# It puts the software in /opt/pokertable/releases/<version> (a virtual environment of its
# own), points /opt/pokertable/current at it, and hands over to `pokertable install`, which
# sets up the users, files, units and backups (docs/install.md). Running it again is safe:
# what is already in place is left as it is.
set -eu

source_dir=$(cd "$(dirname "$0")/.." && pwd)

# --root DIR installs into a directory tree: the software goes into the tree too, and nothing
# on this machine is touched (no /opt, no /usr/local/bin, no systemctl).
root=""
previous=""
for arg in "$@"; do
    [ "$previous" = "--root" ] && root=$arg
    previous=$arg
done
case "$root" in "" | /*) ;; *) root="$(pwd)/$root" ;; esac
opt=${POKERTABLE_OPT:-$root/opt/pokertable}  # POKERTABLE_OPT: elsewhere (the tests)
bin=${POKERTABLE_BIN:-$root/usr/local/bin}
# What the units name: the tree's own view of its release, unless POKERTABLE_OPT says where.
venv=${POKERTABLE_OPT:-/opt/pokertable}/current

if [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run it as root (sudo $0 $*)" >&2
    exit 2
fi
case "${1:-}" in
    host|table) ;;
    *) echo "install.sh: say what this machine is: host or table (then its options)" >&2
       exit 2 ;;
esac

# Debian 12 / Raspberry Pi OS: Python's venv and systemd's tools are packages of their own.
missing=""
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
python3 -c 'import ensurepip' 2>/dev/null || missing="$missing python3-venv"
command -v systemd-sysusers >/dev/null 2>&1 || missing="$missing systemd"
if [ -n "$missing" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
fi

# A release is named by its version and, from a git checkout, its commit: a pull makes a new one.
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$source_dir/pyproject.toml")
commit=$(git -C "$source_dir" rev-parse --short HEAD 2>/dev/null || true)
release="$opt/releases/$version${commit:++$commit}"
if [ ! -x "$release/bin/pokertable" ]; then
    python3 -m venv "$release"
    "$release/bin/pip" install --quiet --upgrade pip
    "$release/bin/pip" install --quiet "$source_dir"
    # A Pi's table drives its pins with lgpio, which `pokertable install table` put into the
    # release it installed: the new release needs it too, or `pokertable upgrade` refuses it.
    if "$opt/current/bin/python" -c 'import lgpio' 2>/dev/null; then
        "$release/bin/pip" install --quiet lgpio
    fi
fi

restart=""
mkdir -p "$bin"
if [ ! -e "$opt/current" ]; then
    ln -s "$release" "$opt/current"
elif [ "$(readlink -f "$opt/current")" != "$(readlink -f "$release")" ]; then
    if [ "$1" = host ]; then
        # The new release's own install first, the links after: a mistake on the command line
        # (or the wrong machine: this is a table) is refused with the host still on its
        # release, and the corrected run changes it and restarts the services then. The units
        # name the `current` link, never a release.
        "$release/bin/pokertable" install "$@" --venv "$venv"
        # The host's services change release together, at once: do it between tournaments.
        ln -sfn "$(readlink -f "$opt/current")" "$opt/previous"
        ln -sfn "$release" "$opt/current.new" && mv -T "$opt/current.new" "$opt/current"
        ln -sfn "$opt/current/bin/pokertable" "$bin/pokertable"
        echo "install.sh: the host changes release to $release (the previous: $opt/previous)"
        if [ -z "$root" ]; then
            restart="pokertable-clock pokertable-tournament pokertable-recorder pokertable-floor"
            # (the cash floor, where this host has one: `install host --cash`)
            [ -e /etc/systemd/system/pokertable-cash.service ] && restart="$restart pokertable-cash"
            systemctl restart $restart
            echo "install.sh: restarted $restart on $release"
        fi
        exit 0
    else
        echo "install.sh: this table runs $(readlink -f "$opt/current"); it changes release"
        echo "between hands with: sudo pokertable upgrade table --release $release"
    fi
fi
ln -sfn "$opt/current/bin/pokertable" "$bin/pokertable"
"$opt/current/bin/pokertable" install "$@" --venv "$venv"
