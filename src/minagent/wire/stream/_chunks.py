"""The one read-loop of the stream readers, and the buffer bookkeeping they share.

A `ChunkDecoder` takes bytes in chunks of any size and returns the objects of the units (frames,
lines) they complete. Every byte fed is buffered before anything is decoded or raised, so no
chunk is ever dropped. A unit that does not decode is reported *after* the good units before
it: ``feed`` returns those, and the next call (``feed`` or ``finish``) raises the error, with the
bytes after the bad unit still buffered; the call after that goes on with them. A refusal the
stream cannot recover from (a frame header over the limit, an unfinished line over it) leaves
the decoder failed: every later call raises it again.

`read_batches` and `receive_batches` drive a decoder from a binary file / an asyncio
``StreamReader``: the same loop, once for each kind of ``read``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..errors import WireError
from ._errors import StreamIOError

if TYPE_CHECKING:
    from asyncio import StreamReader

__all__ = ["DEFAULT_CHUNK_SIZE", "ChunkDecoder", "Taken", "read_batches", "receive_batches"]

DEFAULT_CHUNK_SIZE = 64 * 1024
"""Bytes read per call by the file and socket readers."""

Taken = tuple[list[Any], int, WireError | None, bool]
"""What `ChunkDecoder._take` found: the objects, the bytes they (and a bad unit) used, the error
of a bad unit or None, and whether that error leaves the decoder failed."""


class ChunkDecoder:
    """Base of `FrameDecoder` and `LineDecoder`: buffering, offsets, deferred errors."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._offset = 0
        self._deferred: WireError | None = None
        self._failed: WireError | None = None

    @property
    def offset(self) -> int:
        """Byte offset in the stream of the first byte not yet consumed (the next unit)."""
        return self._offset

    @property
    def pending(self) -> int:
        """Bytes buffered and not yet consumed."""
        return len(self._buf)

    def feed(self, data: bytes | bytearray | memoryview = b"") -> list[Any]:
        """Add bytes; return the objects of every unit they complete, in order.

        Raises the error of a bad unit once the good units before it have been returned.
        """
        if self._failed is not None:
            raise self._failed
        self._buf += data
        if self._deferred is not None:
            deferred, self._deferred = self._deferred, None
            raise deferred
        items, used, err, fatal = self._take()
        if used:
            del self._buf[:used]
            self._offset += used
            self._consumed(used)
        if err is not None:
            if fatal:
                self._failed = err
            elif items:
                self._deferred = err
            if not items:
                raise err
        return items

    def finish(self) -> list[Any]:
        """End of stream: the objects still buffered (call again until it returns ``[]``); then
        the unfinished last unit (`_end`)."""
        items = self.feed()
        if items or not self._buf:
            return items
        return self._end()

    # --- for subclasses -----------------------------------------------------------------------

    def _take(self) -> Taken:
        """Decode the complete units at the start of ``self._buf`` (see `Taken`)."""
        raise NotImplementedError

    def _consumed(self, used: int) -> None:
        """``used`` bytes were consumed from the front of the buffer."""

    def _end(self) -> list[Any]:
        """The stream ended with ``self._buf`` holding an unfinished unit."""
        raise NotImplementedError


def _wrap(what: str, err: OSError, decoder: ChunkDecoder) -> StreamIOError:
    return StreamIOError.wrap(what, err, decoder.offset + decoder.pending)


def read_batches(
    read: Callable[[int], Any], decoder: ChunkDecoder, chunk_size: int, what: str
) -> Iterator[list[Any]]:
    """Feed ``decoder`` from ``read(chunk_size)`` until it returns nothing; yield each non-empty
    list of objects. A failing read raises `StreamIOError` (``what``: "reading frames", ...)."""
    while True:
        try:
            data = read(chunk_size)
        except OSError as err:
            raise _wrap(what, err, decoder) from err
        if not data:
            break
        if isinstance(data, str):
            raise TypeError(f"{what} needs a binary file (open it with 'rb')")
        items = decoder.feed(data)
        if items:
            yield items
    while items := decoder.finish():
        yield items


async def receive_batches(
    reader: StreamReader, decoder: ChunkDecoder, chunk_size: int, what: str
) -> AsyncIterator[list[Any]]:
    """`read_batches` for an asyncio ``StreamReader``."""
    while True:
        try:
            data = await reader.read(chunk_size)
        except OSError as err:
            raise _wrap(what, err, decoder) from err
        if not data:
            break
        items = decoder.feed(data)
        if items:
            yield items
    while items := decoder.finish():
        yield items
