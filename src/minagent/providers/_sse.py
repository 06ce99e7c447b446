"""An incremental server-sent events (SSE) parser, shared by the provider stream readers.

Feed it byte chunks as they arrive, split anywhere (one byte at a time works); it returns the
events completed so far. Each `SSEEvent` carries its ``event`` name, its ``data`` as bytes (ready
for ``msgspec.json.decode``, never decoded to text here), its 0-based ``index`` among the events
dispatched, and the byte ``offset`` of its first line in the stream, so errors can say where.

It follows the WHATWG event-stream rules: lines end in ``\\n``, ``\\r\\n`` or ``\\r``; an empty line
dispatches; ``data:`` lines join with ``\\n``; one space after the colon is dropped; comment lines
(``:``) are skipped; a block without ``data`` dispatches nothing. Unlike a browser, `close` refuses
a stream that ends inside an event (a truncated stream) instead of discarding it silently.

Every byte is scanned once whatever the line ends, so the time is linear in the stream's length
however it is split. An event longer than ``limits.event_limit`` (`Limits.max_event`, capped by
``max_size``), complete or still arriving, raises `StreamError` as soon as the buffer passes the
limit: a stream that never closes its event cannot fill the memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import msgspec

from ..wire.limits import DEFAULT, Limits
from ._base import StreamError

__all__ = ["SSEEvent", "SSEParser"]


class SSEEvent(msgspec.Struct, frozen=True, gc=False):
    """One dispatched event."""

    event: str
    """The ``event:`` field; ``"message"`` when the block named none (the SSE default)."""
    data: bytes
    """The ``data:`` lines joined with ``\\n``, as bytes."""
    index: int
    """0-based position among the events this parser dispatched."""
    offset: int
    """Byte offset in the stream of the event's first line."""
    id: str | None = None
    """The ``id:`` field, if the block had one."""


_NAMES: dict[bytes, str] = {}
"""Event names seen, decoded once (bounded)."""

_EOL = re.compile(rb"[\r\n]")
_SIMPLE = re.compile(rb"(?:event: [^\n]*\ndata: [^\n]*\n\n)*")
"""Blocks of the shape Anthropic sends, from the start of the buffer (`feed_simple`)."""
_DATA = re.compile(rb"event: [^\n]*\ndata: ([^\n]*)\n\n")
_BLOCK = re.compile(rb"event: ([^\n]*)\ndata: ([^\n]*)\n\n")


def _name(raw: bytes) -> str:
    """An event name as text (kept in `_NAMES`, up to 64 of them)."""
    name = raw.decode("utf-8", "replace")
    if len(_NAMES) < 64:
        _NAMES[raw] = name
    return name


class SSEParser:
    """Turns byte chunks into `SSEEvent` objects; see the module docstring.

    After it raised, a parser is spent: start a new one for a new stream.
    """

    __slots__ = ("_buf", "_cr", "_index", "_limit", "_lines", "_offset", "_scan", "_size", "_start")

    def __init__(self, limits: Limits = DEFAULT) -> None:
        self._buf = bytearray()
        self._offset = 0  # stream offset of _buf[0]
        self._index = 0
        self._limit = limits.event_limit
        self._cr = False  # the stream uses \r line ends somewhere: take the line-by-line path
        # the line-by-line path's state: the lines of the event being read, where it starts,
        # its size so far, and where in _buf the search for the next line end resumes
        self._lines: list[bytes] = []
        self._start = 0
        self._size = 0
        self._scan = 0

    @property
    def index(self) -> int:
        """How many events were dispatched so far (the index the next one will get)."""
        return self._index

    @property
    def buffer(self) -> bytearray:
        """The bytes not yet dispatched (read-only use: `feed_simple` callers)."""
        return self._buf

    @property
    def offset(self) -> int:
        """Byte offset in the stream of the first byte not yet part of a dispatched event."""
        return self._start if self._lines else self._offset

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[SSEEvent]:
        """Add ``chunk`` and return the events it completed, in order (often none).

        An event over the size limit raises `StreamError` whose ``.received`` holds the events
        this call completed before it.
        """
        return self.cut(self._append(chunk))

    def _append(self, chunk: bytes | bytearray | memoryview) -> int:
        """Add ``chunk`` to the buffer; return where a search for a block end must start."""
        buf = self._buf
        scan = len(buf) - 1 if buf else 0  # a "\n\n" can only end in the new bytes
        buf += chunk
        if not self._cr and b"\r" in chunk:
            self._cr = True
        return scan

    def feed_simple(self, chunk: bytes | bytearray | memoryview) -> tuple[list[bytes] | None, int]:
        """Add ``chunk``. When the blocks now complete all have the shape Anthropic sends
        (``event: <name>`` then one ``data: <json>`` line, ``\\n`` line ends) and none is over
        the limit, return their ``data`` and where they end (`take` them once decoded: they
        are still buffered); otherwise ``(None, scan)``: `cut` ``(scan)`` reads them as `feed`
        does. Either way the events' bytes are scanned in C, not line by line in Python."""
        scan = self._append(chunk)
        buf = self._buf
        if self._cr or buf.find(b"\n\n", scan) < 0:
            return None, scan
        end = _SIMPLE.match(buf).end()  # type: ignore[union-attr]  # matches the empty prefix
        if (
            end == 0
            or end > self._limit
            or len(buf) - end > self._limit
            or buf.find(b"\n\n", end) >= 0  # another block is complete: not of this shape
        ):
            return None, scan
        return _DATA.findall(buf, 0, end), end

    def take(self, end: int, count: int) -> None:
        """Drop the ``count`` blocks `feed_simple` found, ``end`` bytes, from the buffer."""
        del self._buf[:end]
        self._offset += end
        self._index += count

    def blocks_before(self, end: int) -> Iterator[re.Match[bytes]]:
        """The buffered blocks `feed_simple` found (``end`` bytes), in order, as matches for
        `event_of` (for the rare event that is needed whole: an error, an unknown type)."""
        return _BLOCK.finditer(bytes(self._buf[:end]))  # a copy: `take` may resize the buffer

    def event_of(self, match: re.Match[bytes], at: int) -> SSEEvent:
        """The event `feed` would give for the block ``match`` of `blocks_before`, the
        ``at``-th of them."""
        name = match.group(1)
        event = _NAMES.get(name) or _name(name)
        return SSEEvent(event, match.group(2), self._index + at, self._offset + match.start())

    def cut(self, scan: int) -> list[SSEEvent]:
        """The events the buffer completes (``scan``: where a block end may start)."""
        if self._cr:
            return self._feed_lines()
        buf = self._buf
        out: list[SSEEvent] = []
        start = 0
        find = buf.find
        limit = self._limit
        while True:
            end = find(b"\n\n", max(start, scan))
            if end < 0:
                break
            if end > start:
                if end + 1 - start > limit:  # the event's lines, its last line end included
                    self._too_long(self._offset + start, end + 1 - start, out)
                self._block(bytes(buf[start:end]), self._offset + start, out)
            start = end + 2
        if start:
            del buf[:start]
            self._offset += start
        if len(buf) > limit:
            lead = len(buf) - len(buf.lstrip(b"\n"))  # the empty lines before the event
            if len(buf) - lead > limit:
                self._too_long(self._offset + lead, len(buf) - lead, out)
        return out

    def close(self) -> list[SSEEvent]:
        """End the stream: return the events a final ``\\r`` completed (CR streams only; usually
        none), or raise `StreamError` if the stream stopped inside an event (truncation)."""
        out = self._feed_lines(final=True) if self._cr else []
        rest = self._buf
        if self._lines or rest.strip(b"\r\n"):
            if self._lines:
                start, size = self._start, self._size + len(rest)
            else:
                lead = len(rest) - len(rest.lstrip(b"\r\n"))
                start, size = self._offset + lead, len(rest) - lead
            raise StreamError(
                f"the stream ended inside an event starting at byte {start}"
                f" ({size} bytes without the closing empty line)",
                frame=self._index,
            )
        return out

    def _too_long(self, offset: int, size: int, out: list[SSEEvent]) -> None:
        err = StreamError(
            f"the event starting at byte {offset} is longer than the limit of {self._limit}"
            f" bytes ({size} bytes so far); raise Limits.max_event to accept it",
            frame=self._index,
        )
        err.received = out
        raise err

    def _block(self, block: bytes, offset: int, out: list[SSEEvent]) -> None:
        """Parse one block of ``\\n``-separated lines (no empty line inside but leading ones)."""
        # the two shapes providers send, without splitting lines: "event: X\ndata: {...}" and
        # "data: {...}" (one data line, nothing else)
        if block.startswith(b"event: "):
            nl = block.find(b"\n")
            if nl > 0 and block.startswith(b"data: ", nl + 1) and block.find(b"\n", nl + 1) < 0:
                name = block[7:nl]
                event = _NAMES.get(name) or _name(name)
                out.append(SSEEvent(event, block[nl + 7 :], self._index, offset))
                self._index += 1
                return
        elif block.startswith(b"data: ") and block.find(b"\n") < 0:
            out.append(SSEEvent("message", block[6:], self._index, offset))
            self._index += 1
            return
        self._general_block(block, offset, out)

    def _general_block(self, block: bytes, offset: int, out: list[SSEEvent]) -> None:
        """`_block` for any block: every field, comments, leading empty lines."""
        if block.startswith(b"\n"):
            stripped = block.lstrip(b"\n")
            offset += len(block) - len(stripped)
            block = stripped
        event = "message"
        data: list[bytes] = []
        ident: str | None = None
        for line in block.split(b"\n"):
            name, colon, value = line.partition(b":")
            if colon and value.startswith(b" "):
                value = value[1:]
            if name == b"data":
                data.append(value)
            elif name == b"event":
                event = value.decode("utf-8", "replace")
            elif name == b"id" and b"\0" not in value:
                ident = value.decode("utf-8", "replace")
            # "retry", comments (empty name) and unknown fields carry nothing we use
        if data:
            joined = data[0] if len(data) == 1 else b"\n".join(data)
            out.append(SSEEvent(event, joined, self._index, offset, ident))
            self._index += 1

    def _feed_lines(self, final: bool = False) -> list[SSEEvent]:
        """The path for streams with ``\\r`` line ends: take complete lines one by one, once.

        The lines of an unfinished event stay in ``_lines`` (never scanned again); ``_buf`` keeps
        only the unfinished last line, and ``_scan`` says where its search for a line end resumes.
        """
        buf = self._buf
        out: list[SSEEvent] = []
        lines = self._lines
        search = _EOL.search
        n = len(buf)
        pos = 0
        scan = self._scan
        while True:
            found = search(buf, scan)
            if found is None:
                scan = n
                break
            end = found.start()
            if buf[end] == 0x0D:
                if end + 1 == n and not final:
                    scan = end  # a \r at the end may be the first half of \r\n: wait for more
                    break
                nxt = end + 2 if end + 1 < n and buf[end + 1] == 0x0A else end + 1
            else:
                nxt = end + 1
            if end == pos:  # an empty line: dispatch the block
                if lines:
                    self._block(b"\n".join(lines), self._start, out)
                    lines.clear()
                    self._size = 0
            else:
                if not lines:
                    self._start = self._offset + pos
                lines.append(bytes(buf[pos:end]))
                self._size += nxt - pos
                if self._size > self._limit:
                    self._too_long(self._start, self._size, out)
            pos = scan = nxt
        del buf[:pos]
        self._offset += pos
        self._scan = scan - pos
        pending = 0 if buf == b"\r" else len(buf)  # a lone \r: an empty line, or \r\n's half
        if self._size + pending > self._limit:
            start = self._start if lines else self._offset
            self._too_long(start, self._size + pending, out)
        return out
