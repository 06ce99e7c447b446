"""`SessionLog`: a conversation saved as JSON Lines, appended to as it grows, read on resume.

Crash safety rests on these rules. Every append is one ``write`` of whole lines to a file opened
with ``O_APPEND``, so a crash can only cut the last line short; nothing already written is ever
rewritten. An append that fails (a full disk, a failed fsync) truncates the file back to its size
before the append, so it changes nothing and can be retried. What ``append`` writes, ``read``
reads back: each line is checked against the log's `Limits` before it is written (a line that
would be refused on reading is refused, as `EncodeError`, before writing), and depth checks do
not depend on the caller's stack. Opening the log checks its last line: one without a trailing
newline is a torn tail (a crash cut it), reported (`TornTail`: what, at which byte offset) and
refused for appends until ``repair()`` truncates exactly those bytes. A whole line that does not
decode is never cut: ``read`` reports it with its line number. The log is locked while open, so
a second writer gets `LogLockedError` instead of interleaving partial lines; and an append
checks that the path still names the open file (`LogMovedError` after a rotation or removal) and
that the file still ends where this log left it, or at least in a newline (`LogChangedError`
when another process truncated it inside a line or wrote part of one: a line appended there
would merge with the partial one and make both unreadable). Reading and ``repair()`` look at
the file as it is now, so a torn line made from outside is reported and cut like a crash's.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterator
from types import TracebackType
from typing import Any

from ..errors import EncodeError, WireError
from ..limits import DEFAULT, Limits
from ..messages import Message
from ._chunks import DEFAULT_CHUNK_SIZE, read_batches
from ._errors import (
    TAIL_KEPT,
    LogChangedError,
    LogLockedError,
    LogMovedError,
    StreamIOError,
    TornTail,
    TornTailError,
)
from ._lines import LineDecoder, as_items, encode_lines, item_decoder

__all__ = ["SessionLog"]

_FLAGS = os.O_RDWR | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0)
_FLAGS |= getattr(os, "O_BINARY", 0)
_SCAN = 64 * 1024

if sys.platform == "win32":  # pragma: no cover - untested here; mandatory locks on one far byte
    import msvcrt

    def _lock(fd: int) -> None:
        os.lseek(fd, 2**62, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


if hasattr(os, "pread"):
    _pread = os.pread
else:  # pragma: no cover - Windows

    def _pread(fd: int, n: int, offset: int) -> bytes:
        os.lseek(fd, offset, os.SEEK_SET)
        return os.read(fd, n)


_LOCKED = {errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES, errno.EDEADLK}


class SessionLog:
    """A session saved as JSON Lines at ``path``: ``append`` as it goes, ``read`` to resume.

    Opening creates the file if needed, locks it (one writer at a time: a second one, in this
    process or another, gets `LogLockedError`) and checks its last line (``.tail``). Use it as a
    context manager, or call ``close()``.

    ``durable=True`` fsyncs after every append (and the directory when the file is created), so
    an append that returned survives a power cut, not only a crash of the process.
    ``type`` is what each line holds: `Message` (default) or `ModelResponse`. ``limits``
    bounds each line read (``max_line``, ``max_size``, ``max_depth``) and, so that every line
    appended can be read back, each line appended.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        durable: bool = False,
        type: Any = Message,
        limits: Limits = DEFAULT,
    ) -> None:
        item_decoder(type)
        self._path = os.fspath(path)
        self._durable = durable
        self._type = type
        self._limits = limits
        created = not os.path.exists(self._path)
        try:
            fd = os.open(self._path, _FLAGS, 0o666)
        except OSError as err:
            raise StreamIOError.wrap(f"cannot open session log {self._path!r}", err) from err
        try:
            _lock(fd)
        except OSError as err:
            os.close(fd)
            if err.errno in _LOCKED:
                raise LogLockedError.wrap(
                    f"session log {self._path!r} is already open for writing (by this or another "
                    "process); one writer at a time",
                    err,
                ) from None
            raise StreamIOError.wrap(f"cannot lock session log {self._path!r}", err) from err
        self._fd = fd
        try:
            st = os.fstat(fd)
            self._inode = (st.st_dev, st.st_ino)
            if durable and created:
                _fsync_directory(self._path)
            self._tail = self._find_tail()
            self._end = self._stat_size()  # where this log left the file: checked by append
        except BaseException:
            self.close()
            raise

    # --- state --------------------------------------------------------------------------------

    @property
    def path(self) -> str:
        """The file's path."""
        return self._path

    @property
    def durable(self) -> bool:
        """Whether each append is fsynced."""
        return self._durable

    @property
    def closed(self) -> bool:
        """Whether ``close()`` was called."""
        return self._fd < 0

    @property
    def limits(self) -> Limits:
        """What each line may hold (read and append)."""
        return self._limits

    @property
    def tail(self) -> TornTail | None:
        """The torn last line found on open, left by a failed append, or found when the file
        changed from outside (seen by append, read and repair); None if whole."""
        return self._tail

    @property
    def size(self) -> int:
        """The file's size in bytes."""
        return self._stat_size()

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("torn" if self._tail else "open")
        return f"<SessionLog {self._path!r} {state}>"

    # --- writing ------------------------------------------------------------------------------

    def append(self, obj: Any) -> None:
        """Append one message, or a list of them, as whole lines in a single write.

        An append that raises leaves the file exactly as it was. Raises `TornTailError` while the
        log has a torn tail (``repair()`` first), `EncodeError` (with ``.line``: 1-based within the
        batch) for an object JSON cannot hold or a line the log's limits would refuse on reading,
        `LogMovedError` if the path no longer names the open file, `LogChangedError` if another
        process truncated the file inside a line or wrote part of one since this log last
        wrote (the torn line becomes ``.tail``; ``repair()`` cuts it), and `StreamIOError` if
        the write or fsync fails. A file that changed from outside but still ends in a newline
        (or is empty) is appended to.
        """
        fd = self._open_fd()
        if self._tail is not None:
            raise TornTailError.of(self._tail, "cannot append to the session log")
        data = encode_lines(as_items(obj))
        self._check_readable(data)
        self._check_path()
        size = self._check_end()
        written = 0
        try:
            while written < len(data):  # one write, unless the OS takes less (disk full, ...)
                written += os.write(fd, data[written:])  # data itself when written == 0
            if self._durable:
                os.fsync(fd)
        except OSError as err:
            self._undo(size)
            raise StreamIOError.wrap("cannot append to the session log", err, size) from err
        self._end = size + written

    def _check_end(self) -> int:
        """The file's size, if appending there is safe: it is where this log left the file,
        or the file (changed from outside) ends in a newline or is empty. Otherwise the torn
        line becomes ``.tail`` and `LogChangedError` is raised."""
        left = self._end
        size = self._refresh()
        if size != left and self._tail is not None:
            tail = self._tail
            raise LogChangedError(
                f"session log {self._path!r} was changed from outside while open: it ends at "
                f"byte {size}, not at byte {left} where this log left it, inside line "
                f"{tail.line} (from byte offset {tail.offset}); nothing written: repair() "
                "cuts the torn line",
                offset=tail.offset,
            )
        return size

    def _refresh(self) -> int:
        """The file's size now; if it is not where this log left the file, look at the last
        line again (another process truncated the file or wrote to it)."""
        size = self._stat_size()
        if size != self._end:
            self._tail = self._find_tail()
            self._end = size
        return size

    def _check_readable(self, data: bytes) -> None:
        """Refuse, before writing, lines that reading with the log's limits would refuse."""
        decoder = LineDecoder(type=self._type, limits=self._limits)
        try:
            decoder.feed(data)
            while decoder.finish():  # raises for the first line it would refuse
                pass
        except WireError as err:
            raise EncodeError(
                f"cannot append: the session log would not read this line back ({err.message})",
                path=err.path,
                line=err.line,
            ) from err

    def _undo(self, size: int) -> None:
        """After a failed append: cut the file back to ``size``; if even that fails, whatever
        was left is reported as a torn tail (or, ending in a newline, stays to be read)."""
        try:
            os.ftruncate(self._fd, size)
            if self._durable:
                os.fsync(self._fd)
            self._end = size
        except OSError:
            with contextlib.suppress(StreamIOError):
                self._tail = self._find_tail()
                self._end = self._stat_size()

    def _check_path(self) -> None:
        """`LogMovedError` unless the path still names the file this log has open."""
        try:
            st = os.stat(self._path)
        except FileNotFoundError as err:
            raise LogMovedError.wrap(
                f"session log {self._path!r} was removed while open; nothing written", err
            ) from err
        except OSError as err:
            raise StreamIOError.wrap(f"cannot stat session log {self._path!r}", err) from err
        if (st.st_dev, st.st_ino) != self._inode:
            raise LogMovedError(
                f"session log {self._path!r} was replaced while open (renamed over, e.g. by log "
                "rotation); nothing written: open the path again"
            )

    def repair(self) -> TornTail | None:
        """Truncate the torn tail, exactly its bytes, and return it (None if there was none).

        Nothing before the tail is touched. The file is looked at as it is now: a torn line
        another process made (truncating inside a line, or writing part of one) is cut too.
        """
        fd = self._open_fd()
        self._refresh()
        tail = self._tail
        if tail is None:
            return None
        self._check_path()
        try:
            os.ftruncate(fd, tail.offset)
            if self._durable:
                os.fsync(fd)
        except OSError as err:
            raise StreamIOError.wrap("cannot repair the session log", err, tail.offset) from err
        self._tail = None
        self._end = tail.offset
        return tail

    # --- reading ------------------------------------------------------------------------------

    def read(self, *, lazy: bool = False) -> list[Any]:
        """Every message in the log, in order (``lazy=True``: `minagent.wire.lazy.LazyMessage`
        objects, each line decoded as read).

        Raises `TornTailError` if the log ends in a torn line; the complete messages before it
        are in its ``.messages``. A bad line elsewhere raises `DecodeError` / `ValidationError`
        with its ``.line``.
        """
        items: list[Any] = []
        for batch in self._batches(lazy):
            items += batch
        if self._tail is not None:
            raise TornTailError.of(self._tail, "the session log ends in a torn line", items)
        return items

    def __iter__(self) -> Iterator[Any]:
        """Stream the messages in constant memory; a torn tail raises `TornTailError` at the end."""
        for batch in self._batches():
            yield from batch
        if self._tail is not None:
            raise TornTailError.of(self._tail, "the session log ends in a torn line")

    def _batches(self, lazy: bool = False) -> Iterator[list[Any]]:
        size = self._refresh()
        end = self._tail.offset if self._tail is not None else size
        decoder = LineDecoder(type=self._type, limits=self._limits, lazy=lazy)
        return read_batches(
            _Reader(self._open_fd(), end).read,
            decoder,
            DEFAULT_CHUNK_SIZE,
            "cannot read the session log",
        )

    # --- the torn tail ------------------------------------------------------------------------

    def _find_tail(self) -> TornTail | None:
        """Look at the last line: whole (it ends in a newline), or torn (a crash cut it short)?

        Only a missing newline makes a tail torn: a whole line is never cut, even one that does
        not decode (``read`` reports that one by its line number). At most `TAIL_KEPT` bytes of
        the tail are read into memory.
        """
        fd = self._fd
        size = self._stat_size()
        if size == 0:
            return None
        try:
            if _pread(fd, 1, size - 1) == b"\n":
                return None
            start = self._line_start(size)
            data = _pread(fd, min(size - start, TAIL_KEPT), start)
            number = self._count_lines(start) + 1
        except OSError as err:
            raise StreamIOError.wrap("cannot read the session log", err) from err
        return TornTail(start, data, number, "no trailing newline", size - start)

    def _line_start(self, end: int) -> int:
        """Offset just after the last newline before ``end`` (0 if none)."""
        pos = end
        while pos > 0:
            begin = max(0, pos - _SCAN)
            found = _pread(self._fd, pos - begin, begin).rfind(b"\n")
            if found >= 0:
                return begin + found + 1
            pos = begin
        return 0

    def _count_lines(self, end: int) -> int:
        count = offset = 0
        while offset < end:
            block = _pread(self._fd, min(1 << 20, end - offset), offset)
            if not block:
                break
            count += block.count(b"\n")
            offset += len(block)
        return count

    # --- lifetime -----------------------------------------------------------------------------

    def _open_fd(self) -> int:
        if self._fd < 0:
            raise StreamIOError(f"session log {self._path!r} is closed")
        return self._fd

    def _stat_size(self) -> int:
        fd = self._open_fd()  # closed: its own error, not wrapped as a failed stat
        try:
            return os.fstat(fd).st_size
        except OSError as err:
            raise StreamIOError.wrap("cannot stat the session log", err) from err

    def close(self) -> None:
        """Close the file (which releases the lock). Closing twice is harmless."""
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)

    def __enter__(self) -> SessionLog:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class _Reader:
    """``read(n)`` over the bytes of the log before ``end`` (``pread``: no shared file offset).
    An OSError goes to `read_batches`, which reports it with the offset it had reached."""

    def __init__(self, fd: int, end: int) -> None:
        self._fd = fd
        self._pos = 0
        self._end = end

    def read(self, size: int) -> bytes:
        """Up to ``size`` bytes from the current position; ``b""`` at ``end``."""
        size = min(size, self._end - self._pos)
        if size <= 0:
            return b""
        data = _pread(self._fd, size, self._pos)
        self._pos += len(data)
        return data


def _fsync_directory(path: str) -> None:
    """Make the new file's directory entry durable (POSIX; a no-op where unsupported)."""
    if sys.platform == "win32":  # pragma: no cover
        return
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
