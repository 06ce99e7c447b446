"""An incremental server-sent events (SSE) parser, shared by the provider stream readers.

Feed it byte chunks as they arrive, split anywhere (one byte at a time works); it returns the
events completed so far. Each `SSEEvent` carries its ``event`` name, its ``data`` as bytes (ready
for ``msgspec.json.decode``, never decoded to text here), its 0-based ``index`` among the events
dispatched, and the byte ``offset`` of its first line in the stream, so errors can say where.

It follows the WHATWG event-stream rules: lines end in ``\\n``, ``\\r\\n`` or ``\\r``; an empty line
dispatches; ``data:`` lines join with ``\\n``; one space after the colon is dropped; comment lines
(``:``) are skipped; a block without ``data`` dispatches nothing. Unlike a browser, `close` refuses
a stream that ends inside an event (a truncated stream) instead of discarding it silently.
"""

from __future__ import annotations

import msgspec

from ..wire.errors import DecodeError

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


class SSEParser:
    """Turns byte chunks into `SSEEvent` objects; see the module docstring."""

    __slots__ = ("_buf", "_cr", "_index", "_offset")

    def __init__(self) -> None:
        self._buf = bytearray()
        self._offset = 0  # stream offset of _buf[0]
        self._index = 0
        self._cr = False  # the stream uses \r line ends somewhere: take the general path

    @property
    def index(self) -> int:
        """How many events were dispatched so far (the index the next one will get)."""
        return self._index

    @property
    def offset(self) -> int:
        """Byte offset in the stream of the first byte not yet part of a dispatched event."""
        return self._offset

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[SSEEvent]:
        """Add ``chunk`` and return the events it completed, in order (often none)."""
        buf = self._buf
        scan = len(buf) - 1 if buf else 0  # a "\n\n" can only end in the new bytes
        buf += chunk
        if not self._cr and b"\r" in chunk:
            self._cr = True
        if self._cr:
            return self._feed_general()
        out: list[SSEEvent] = []
        start = 0
        find = buf.find
        while True:
            end = find(b"\n\n", max(start, scan))
            if end < 0:
                break
            if end > start:
                self._block(bytes(buf[start:end]), self._offset + start, out)
            start = end + 2
        if start:
            del buf[:start]
            self._offset += start
        return out

    def close(self) -> list[SSEEvent]:
        """End the stream: return the events a final ``\r`` completed (CR streams only; usually
        none), or raise `DecodeError` if the stream stopped inside an event (truncation)."""
        out = self._feed_general(final=True) if self._cr else []
        rest = self._buf
        if rest.strip(b"\r\n"):
            lead = len(rest) - len(rest.lstrip(b"\r\n"))
            raise DecodeError(
                f"the stream ended inside an event starting at byte {self._offset + lead}"
                f" ({len(rest) - lead} bytes without the closing empty line)",
                frame=self._index,
            )
        return out

    def _block(self, block: bytes, offset: int, out: list[SSEEvent]) -> None:
        """Parse one block of ``\\n``-separated lines (no empty line inside but leading ones)."""
        # the two shapes providers send, without splitting lines: "event: X\ndata: {...}" and
        # "data: {...}" (one data line, nothing else)
        if block.startswith(b"event: "):
            nl = block.find(b"\n")
            if nl > 0 and block.startswith(b"data: ", nl + 1) and block.find(b"\n", nl + 1) < 0:
                name = block[7:nl]
                event = _NAMES.get(name)
                if event is None:
                    event = name.decode("utf-8", "replace")
                    if len(_NAMES) < 64:
                        _NAMES[name] = event
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

    def _feed_general(self, final: bool = False) -> list[SSEEvent]:
        """The path for streams with ``\\r`` line ends: split lines one by one."""
        buf = self._buf
        out: list[SSEEvent] = []
        pos = 0
        block_start = 0
        lines: list[bytes] = []
        n = len(buf)
        while pos < n:
            nl = buf.find(b"\n", pos)
            cr = buf.find(b"\r", pos)
            if cr >= 0 and (nl < 0 or cr < nl):
                if cr + 1 == n and not final:
                    break  # a \r at the end may be the first half of \r\n: wait for more
                end, nxt = cr, cr + 2 if cr + 1 < n and buf[cr + 1] == 0x0A else cr + 1
            elif nl >= 0:
                end, nxt = nl, nl + 1
            else:
                break
            if end == pos:  # an empty line: dispatch the block
                if lines:
                    self._block(b"\n".join(lines), self._offset + block_start, out)
                    lines = []
                block_start = nxt
            else:
                if not lines:
                    block_start = pos
                lines.append(bytes(buf[pos:end]))
            pos = nxt
        consumed = block_start if lines else pos  # an unfinished block is parsed again later
        del buf[:consumed]
        self._offset += consumed
        return out
