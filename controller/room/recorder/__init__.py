"""The recorder: every table's full hand records and durable events, kept exactly once.

- store.py: the store's interface (`RecordStore`), `open_record_store` and what a stored hand
  is; search.py: a `HandQuery` as SQL.
- sqlite.py and postgres.py: the two stores (one file on the central host; a league's shared
  PostgreSQL database).
- service.py: the MQTT service that takes records off the broker and acknowledges them.
- config.py: ``recorder.toml``.
"""

from controller.room.recorder.service import Recorder
from controller.room.recorder.sqlite import KIND, SqliteRecordStore
from controller.room.recorder.store import (
    KeptHand,
    RecordStore,
    StoreUnavailable,
    open_record_store,
)

__all__ = ["KIND", "KeptHand", "RecordStore", "Recorder", "SqliteRecordStore", "StoreUnavailable",
           "open_record_store"]
