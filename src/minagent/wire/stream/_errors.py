"""The errors of the stream helpers; each is a `WireError` and says where it happened.

::

    WireError
    ├── DecodeError
    │   ├── FrameTooLargeError   a frame header announces more than ``max_frame`` bytes
    │   ├── LineTooLongError     a line longer than ``max_line`` bytes
    │   ├── TruncatedError       the stream ended inside a frame (``.missing`` bytes short)
    │   └── TornTailError        a session log ends in a torn line (``.tail``: what, where)
    └── StreamIOError            the file or socket failed (also an OSError)
        ├── LogLockedError       another writer holds the session log
        ├── LogMovedError        the session log's path no longer names the open file
        └── LogChangedError      the session log was truncated or written from outside

Besides ``.line`` / ``.frame`` / ``.path``, each carries ``.offset``: the byte offset in the stream
or file where the problem starts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import DecodeError, WireError

__all__ = [
    "FrameTooLargeError",
    "LineTooLongError",
    "LogChangedError",
    "LogLockedError",
    "LogMovedError",
    "StreamIOError",
    "TornTail",
    "TornTailError",
    "TruncatedError",
]


class FrameTooLargeError(DecodeError):
    """A frame's header announces more bytes than the reader's ``max_frame``; nothing was read.

    ``.size`` is the announced length, ``.limit`` the configured maximum, ``.offset`` the byte
    offset of the header in the stream and ``.frame`` the index of the frame.
    """

    _fields = ("size", "limit", "offset")
    size: int | None
    limit: int | None
    offset: int | None


class LineTooLongError(DecodeError):
    """A line is longer than the reader's ``max_line`` bytes (its newline aside), whether it has
    ended or is still growing.

    ``.limit`` is the maximum, ``.offset`` the byte offset where the line starts, ``.line`` its
    1-based number.
    """

    _fields = ("limit", "offset")
    limit: int | None
    offset: int | None


class TruncatedError(DecodeError):
    """The stream ended inside a frame, or inside a line that is not a whole object.

    ``.missing`` is how many more bytes the frame needed (for a cut header: at least that many),
    ``.offset`` the byte offset where the frame or line starts, ``.frame`` / ``.line`` which.
    """

    _fields = ("missing", "offset")
    missing: int | None
    offset: int | None


@dataclass(frozen=True)
class TornTail:
    """The torn end of a session log: a last line cut short by a crash (it has no newline)."""

    offset: int
    """Byte offset where the torn line starts; everything before it is whole."""
    data: bytes
    """The first bytes of the torn line, exactly as found: all of them up to `TAIL_KEPT` bytes
    (a longer tail is not read into memory; ``size`` says how long it is)."""
    line: int
    """1-based line number of the torn line."""
    reason: str
    """Why it is torn: ``"no trailing newline"``."""
    size: int
    """Length of the torn line in bytes: what `SessionLog.repair` cuts."""


TAIL_KEPT = 64 * 1024
"""Most bytes of a torn tail kept in `TornTail.data`."""


class TornTailError(DecodeError):
    """A session log ends in a torn line; ``SessionLog.repair()`` cuts exactly that tail.

    ``.tail`` describes it (`TornTail`), ``.offset`` is where it starts and ``.line`` its number;
    ``.messages`` holds every complete message before it when raised by ``SessionLog.read()``.
    """

    _fields = ("tail", "offset", "messages")
    tail: TornTail | None
    offset: int | None
    messages: list[Any] | None

    @classmethod
    def of(cls, tail: TornTail, what: str, messages: list[Any] | None = None) -> TornTailError:
        """The error for ``tail``, with a message saying what was cut and where."""
        return cls(
            f"{what}: torn last line at byte offset {tail.offset} ({tail.reason}; "
            f"{tail.size} bytes: {_preview(tail.data, tail.size)}); repair() truncates it",
            line=tail.line,
            tail=tail,
            offset=tail.offset,
            messages=messages,
        )


class StreamIOError(WireError, OSError):
    """Reading or writing the underlying file or socket failed (an `OSError` too).

    ``.errno`` / ``.strerror`` come from the operating system's error, which is the ``__cause__``;
    ``.offset`` is the byte offset being read or written, when known.
    """

    _fields = ("errno", "strerror", "offset")
    offset: int | None

    @classmethod
    def wrap(cls, what: str, err: OSError, offset: int | None = None) -> StreamIOError:
        """Wrap an OSError, keeping its errno and text."""
        at = "" if offset is None else f" at byte offset {offset}"
        return cls(
            f"{what}{at}: {err.strerror or err}",
            cause=err,
            errno=err.errno,
            strerror=err.strerror,
            offset=offset,
        )

    def __str__(self) -> str:
        return BaseException.__str__(self)  # not OSError's "[Errno N] ..." form


class LogLockedError(StreamIOError):
    """Another writer (this process or another) already has the session log open."""


class LogMovedError(StreamIOError):
    """The session log's path no longer names the file this log has open: it was renamed over
    (log rotation, a careless ``mv``) or removed. Nothing was written; open the path again."""


class LogChangedError(StreamIOError):
    """The session log's file no longer ends where this log left it, and not in a newline:
    another process truncated it inside a line or wrote part of one. Nothing was written (a
    line appended there would merge with the partial one); the torn line is now the log's
    ``.tail``, and ``repair()`` cuts exactly it. ``.offset`` is where the torn line starts."""


def _preview(data: bytes, size: int, limit: int = 60) -> str:
    shown = repr(data[:limit])
    return shown + ("..." if size > limit else "")
