"""The hub frames each push once for every screen (issue 37): the bytes are what sse-starlette
would have made of the same event for each screen, line breaks in the data included."""

from __future__ import annotations

from sse_starlette.event import ensure_bytes

from controller.room.floor.hub import sse_frame
from controller.room.floor.model import RoomUpdate


def test_a_push_is_framed_once_as_sse_starlette_frames_it() -> None:
    update = RoomUpdate(kind="broker", broker=False,
                        broker_problem="refused:\r\nnot authorised\nretrying\rsoon \u2028 é")
    data = update.model_dump_json(exclude_none=True)
    assert "\n" not in data and "\r" not in data  # JSON escapes them: one data line
    frame = sse_frame("broker", data)
    assert frame == ensure_bytes({"event": "broker", "data": data}, "\r\n")
    assert frame.startswith(b"event: broker\r\ndata: {") and frame.endswith(b"}\r\n\r\n")
