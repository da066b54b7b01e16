"""The recorder: every table's full hand records and durable events, kept exactly once.

- store.py: the store's interface (`RecordStore`) and what a stored hand is; opening.py:
  `open_record_store`, which of the two a location opens; search.py: a `HandQuery` as SQL.
- sqlite.py and postgres.py: the two stores (one file on the central host; a league's shared
  PostgreSQL database).
- service.py: the MQTT service that takes records off the broker and acknowledges them.
- config.py: ``recorder.toml``.
"""

from controller.room.recorder.opening import open_record_store
from controller.room.recorder.service import Recorder
from controller.room.recorder.sqlite import KIND, SqliteRecordStore
from controller.room.recorder.store import (
    KeptHand,
    RecordStore,
    StoreUnavailable,
)

__all__ = ["KIND", "KeptHand", "RecordStore", "Recorder", "SqliteRecordStore", "StoreUnavailable",
           "open_record_store"]
