"""Messages leaving memory: JSON Lines, a crash-safe session log, framed MessagePack, sockets.

- JSON Lines (also as `minagent.wire.json.encode_lines` / ``decode_lines`` / ``iter_lines``):
  one object per line, decoded in cache-sized batches with one msgspec call each.
- `SessionLog`: save a session and resume it after a restart or a crash.
- Frames: a 4-byte big-endian length, then one MessagePack object. `encode_frames`,
  `write_frame` / `read_frames` over binary files, `FrameDecoder` for arbitrary chunks.
- asyncio: `send` / `receive` (frames) and `send_lines` / `receive_lines` (JSON Lines).

Every error is a `minagent.wire.WireError`; see `minagent.wire.stream._errors` for the tree.
"""

from __future__ import annotations

from ._aio import receive, receive_lines, send, send_lines
from ._errors import (
    FrameTooLargeError,
    LineTooLongError,
    LogLockedError,
    StreamIOError,
    TornTail,
    TornTailError,
    TruncatedError,
)
from ._frames import (
    DEFAULT_MAX_FRAME,
    HEADER_SIZE,
    FrameDecoder,
    encode_frames,
    read_frames,
    write_frame,
)
from ._lines import (
    DEFAULT_BATCH_BYTES,
    DEFAULT_MAX_LINE,
    LineDecoder,
    decode_lines,
    encode_lines,
    iter_line_batches,
    iter_lines,
)
from ._log import SessionLog

__all__ = [
    "DEFAULT_BATCH_BYTES",
    "DEFAULT_MAX_FRAME",
    "DEFAULT_MAX_LINE",
    "HEADER_SIZE",
    "FrameDecoder",
    "FrameTooLargeError",
    "LineDecoder",
    "LineTooLongError",
    "LogLockedError",
    "SessionLog",
    "StreamIOError",
    "TornTail",
    "TornTailError",
    "TruncatedError",
    "decode_lines",
    "encode_frames",
    "encode_lines",
    "iter_line_batches",
    "iter_lines",
    "read_frames",
    "receive",
    "receive_lines",
    "send",
    "send_lines",
    "write_frame",
]
