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

from typing import TYPE_CHECKING, Any

from ._chunks import DEFAULT_CHUNK_SIZE
from ._errors import (
    FrameTooLargeError,
    LineTooLongError,
    LogChangedError,
    LogLockedError,
    LogMovedError,
    StreamIOError,
    TornTail,
    TornTailError,
    TruncatedError,
)
from ._frames import (
    HEADER_SIZE,
    FrameDecoder,
    encode_frames,
    read_frames,
    write_frame,
)
from ._lines import (
    DEFAULT_BATCH_BYTES,
    LineDecoder,
    decode_lines,
    encode_lines,
    iter_line_batches,
    iter_lines,
)

if TYPE_CHECKING:
    from ._aio import receive, receive_lines, send, send_lines
    from ._log import SessionLog

# Loaded on first use, so that importing `minagent.wire` (whose JSON Lines live here) loads
# neither the session log (fcntl) nor the asyncio helpers.
_LAZY = {
    "SessionLog": "._log",
    "receive": "._aio",
    "receive_lines": "._aio",
    "send": "._aio",
    "send_lines": "._aio",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_BATCH_BYTES",
    "DEFAULT_CHUNK_SIZE",
    "HEADER_SIZE",
    "FrameDecoder",
    "FrameTooLargeError",
    "LineDecoder",
    "LineTooLongError",
    "LogChangedError",
    "LogLockedError",
    "LogMovedError",
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
