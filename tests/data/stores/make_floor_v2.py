"""Make tests/data/stores/floor-v2.db: a floor store of schema version 2 (before the floor kept
each hand's venue), with the code of this checkout.

    .venv/bin/python tests/data/stores/make_floor_v2.py [OUT_DIR]

Run once, by the commit named in README.md; the committed file is "a floor.db of the previous
version" for tests/test_stored_data.py, so it is not remade when the code changes. Writes
floor-v2.db (three alerts, one acknowledged; a login's session; the five public hands of
expected.json's table) and floor-v2.json, what this code reads back from it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from controller.engine.records import HandRecord
from controller.room.floor.model import Alert
from controller.room.floor.store import FloorStore, HandQuery, StoredSession
from controller.session.outputs import hand_id

HERE = Path(__file__).resolve().parent
NOW = 1_795_000_000.0  # make_stores.py's table clock


def main(out: Path) -> None:
    records = [HandRecord.model_validate(r)
               for r in json.loads((HERE / "expected.json").read_text())["table"]["records"]]
    path = out / "floor-v2.db"
    for suffix in ("", "-wal", "-shm", ".lock"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    store = FloorStore(path)
    for k in range(3):
        store.add_alert(Alert(id=f"1:{k + 1}:alert", table="1", hand=k + 1, kind="irregularity",
                              text=f"irregularity {k}", rule="PVB 33", at=NOW + k,
                              severity="urgent" if k else "warning", todo="go to the table"))
    store.acknowledge("1:2:alert", "floor:anna", NOW + 10.0)
    store.add_session(StoredSession(id_hash="ab" * 32, user="anna", stamp="cd" * 16,
                                    expires=NOW + 43_200))
    for record in records:
        store.add_hand(hand_id("1", record.hand, record.started), record.public())
    expected = {"open": [a.model_dump(mode="json") for a in store.open_alerts()],
                "acknowledged": store.acknowledged(),
                "sessions": [s.model_dump(mode="json") for s in store.sessions()],
                "hands": [h.model_dump(mode="json") for h in store.find(HandQuery())]}
    version = store._db.execute("PRAGMA user_version").fetchone()[0]
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    for suffix in ("-wal", "-shm", ".lock"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    path.chmod(0o640)
    (out / "floor-v2.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print(f"{path.name}: schema version {version}, {path.stat().st_size} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
