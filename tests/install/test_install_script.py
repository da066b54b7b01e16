"""The README's one command per machine, `deploy/install.sh host|table ...`, as a newcomer runs
it: a release's own virtual environment, the `current` link, `pokertable` on the PATH, then
`pokertable install` (into --root trees here, and elsewhere than /opt: POKERTABLE_OPT)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "deploy" / "install.sh"


def run(tmp: Path, machine: str, *args: str, opt: bool = True
        ) -> subprocess.CompletedProcess[str]:
    """``opt``: the release elsewhere (POKERTABLE_OPT); without it, --root alone."""
    env = dict(os.environ)
    env.pop("POKERTABLE_OPT", None)
    env.pop("POKERTABLE_BIN", None)
    if opt:
        env |= {"POKERTABLE_OPT": str(tmp / machine / "opt"),
                "POKERTABLE_BIN": str(tmp / machine / "bin")}
        (tmp / machine / "bin").mkdir(parents=True, exist_ok=True)
    return subprocess.run([str(SCRIPT), *args, "--root", str(tmp / machine / "root")],
                          capture_output=True, text=True, timeout=600, env=env)


@pytest.mark.long(30)  # a release built: a venv and pip install (17 s of CPU)
def test_one_command_per_machine(tmp_path: Path) -> None:
    host = run(tmp_path, "host", "host", "--venue", "hall", "--tables", "2",
               "--hostname", "broker.hall.lan")
    if os.geteuid() != 0:  # the script is for root; anyone else is told so, in one line
        assert host.returncode == 2 and "run it as root" in host.stderr
        return
    assert host.returncode == 0, host.stderr[-3000:]
    assert "changed: broker init" in host.stdout
    opt = tmp_path / "host" / "opt"
    release = (opt / "current").resolve()
    assert release.parent == opt / "releases" and (release / "bin" / "pokertable").exists()
    assert (tmp_path / "host" / "bin" / "pokertable").resolve() == release / "bin" / "pokertable"
    unit = (tmp_path / "host/root/etc/systemd/system/pokertable-clock.service").read_text()
    assert f"ExecStart={opt}/current/bin/pokertable clock" in unit  # the link, not the release
    # An upgrade with a mistake on its command line: refused with the host still on its
    # release (it switched first, and the corrected run, finding the switch made, restarted
    # nothing); the corrected run then changes it. (The older release: the same software.)
    older = opt / "releases" / "0.0.1+older"
    older.mkdir()
    (older / "bin").symlink_to(release / "bin")
    (opt / "current").unlink()
    (opt / "current").symlink_to(older)
    options = ["--venue", "hall", "--tables", "2", "--hostname", "broker.hall.lan"]
    typo = run(tmp_path, "host", "host", *options, "--tls-bnd", "127.0.0.1")
    assert typo.returncode == 2 and "unrecognized arguments: --tls-bnd" in typo.stderr
    assert (opt / "current").readlink() == older and "changes release" not in typo.stdout
    fixed = run(tmp_path, "host", "host", *options)
    assert fixed.returncode == 0, fixed.stderr[-3000:]
    assert f"the host changes release to {release}" in fixed.stdout
    assert (opt / "current").resolve() == release and (opt / "previous").resolve() == older
    bundle = tmp_path / "table-2.json"
    made = subprocess.run([str(release / "bin" / "pokertable"), "broker", "bundle", "2",
                           "--broker-dir", str(tmp_path / "host/root/etc/pokertable/broker"),
                           "--out", str(bundle)], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    # --root alone: the software goes into the tree as well, nothing onto this machine
    outside = [Path(p) for p in ("/opt/pokertable", "/usr/local/bin/pokertable")]
    there_before = [p.exists() or p.is_symlink() for p in outside]
    # The tree's release is the one just built (a link: building it again is what the host's
    # install showed, at 17 s of CPU). install.sh finds it where --root alone puts releases;
    # had it looked elsewhere (this machine's /opt: `outside`), it would have built one there.
    releases = tmp_path / "pi" / "root" / "opt" / "pokertable" / "releases"
    releases.mkdir(parents=True)
    (releases / release.name).symlink_to(release)
    table = run(tmp_path, "pi", "table", "--bundle", str(bundle), opt=False)
    assert table.returncode == 0, table.stderr[-3000:]
    assert "changed: wrote /etc/pokertable/table.toml" in table.stdout
    assert [p.exists() or p.is_symlink() for p in outside] == there_before
    pi = tmp_path / "pi" / "root"
    assert (pi / "opt/pokertable/current").readlink() == releases / release.name
    assert (pi / "opt/pokertable/current/bin/pokertable").exists()
    assert (pi / "usr/local/bin/pokertable").is_symlink()
    unit = (pi / "etc/systemd/system/pokertable-table.service").read_text()
    assert "ExecStart=/opt/pokertable/current/bin/pokertable table" in unit  # the tree's view
    again = run(tmp_path, "pi", "table", "--bundle", str(bundle), opt=False)
    assert again.returncode == 0 and again.stdout.startswith("nothing changed"), again.stdout
    wrong = run(tmp_path, "pc", "router")
    assert wrong.returncode == 2 and "host or table" in wrong.stderr
