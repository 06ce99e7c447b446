"""The errors of the stream helpers; each is a `WireError` and says where it happened.

::

    WireError
    ├── DecodeError
    │   ├── FrameTooLargeError   a frame header announces more than ``max_frame`` bytes
    │   ├── LineTooLongError     a line grows past ``max_line`` bytes without ending
    │   ├── TruncatedError       the stream ended inside a frame (``.missing`` bytes short)
    │   └── TornTailError        a session log ends in a torn line (``.tail``: what, where)
    └── StreamIOError            the file or socket failed (also an OSError)
        └── LogLockedError       another writer holds the session log

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
    "LogLockedError",
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
    """A line grew past the reader's ``max_line`` bytes without a newline.

    ``.limit`` is the maximum, ``.offset`` the byte offset where the line starts, ``.line`` its
    1-based number.
    """

    _fields = ("limit", "offset")
    limit: int | None
    offset: int | None


class TruncatedError(DecodeError):
    """The stream ended inside a frame.

    ``.missing`` is how many more bytes the frame needed (for a cut header: at least that many),
    ``.offset`` the byte offset where the frame starts and ``.frame`` its index.
    """

    _fields = ("missing", "offset")
    missing: int | None
    offset: int | None


@dataclass(frozen=True)
class TornTail:
    """The torn end of a session log: a last line cut short by a crash, or not valid JSON."""

    offset: int
    """Byte offset where the torn line starts; everything before it is whole."""
    data: bytes
    """The bytes of the torn line, exactly as found (what `SessionLog.repair` cuts)."""
    line: int
    """1-based line number of the torn line."""
    reason: str
    """Why it is torn: ``"no trailing newline"`` or why the line is not valid JSON."""


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
            f"{len(tail.data)} bytes: {_preview(tail.data)}); repair() truncates it",
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


def _preview(data: bytes, limit: int = 60) -> str:
    shown = repr(data[:limit])
    return shown + ("..." if len(data) > limit else "")
