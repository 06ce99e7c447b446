"""JSON Lines: one Message (or ModelResponse) per line, each line ending in ``"\\n"``.

Reading is batched: complete lines are cut into batches of about ``batch_bytes`` (small enough
that the decoded objects of a batch stay in the CPU caches) and each batch is decoded by one
msgspec call (``Decoder.decode_lines``), with no Python work per line. A batch is accepted only if
it gives exactly one object per line and holds no line over the limit; otherwise (blank lines,
unknown blocks or keys, a long line, an error) that batch alone is decoded line by line through
the shared codec, which keeps unknown data (the lossless path) and names the line of any error.
Blank lines are skipped; the last line may lack its newline.

A stream reader delivers every good line before a bad one, then raises for the bad line (with
its number); the lines after it can still be read. Each byte is searched for a newline once, so
a reader's cost is linear in its input however the chunks fall.

Writing is one msgspec call (``Encoder.encode_lines``); objects that carry unknown data, or
values JSON cannot hold, are written one line at a time through the codec.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, overload

import msgspec

from .._codec import JSON as _CODEC
from .._codec import batch_check
from .._finite import refuse_nonfinite
from ..errors import DecodeError, WireError
from ..lazy import LazyMessages, lines_span
from ..limits import DEFAULT, Limits
from ..messages import Message, ModelResponse
from ._chunks import DEFAULT_CHUNK_SIZE, ChunkDecoder, Taken, read_batches
from ._errors import LineTooLongError, TruncatedError

__all__ = [
    "DEFAULT_BATCH_BYTES",
    "LineDecoder",
    "decode_lines",
    "encode_lines",
    "iter_line_batches",
    "iter_lines",
]

DEFAULT_BATCH_BYTES = 16 * 1024
"""Bytes of complete lines decoded per msgspec call (measured: see bench/)."""

_ITEM_TYPES = (Message, ModelResponse)
_BLANK = b" \t\r"
_Buffer = bytes | bytearray


def item_decoder(tp: Any) -> Any:
    """The strict msgspec decoder for one line's type; TypeError unless Message / ModelResponse."""
    if tp not in _ITEM_TYPES:
        raise TypeError(f"type must be Message or ModelResponse; got {tp!r}")
    return _CODEC.decoder_for(tp)


def as_items(obj: Any) -> list[Any]:
    """``obj`` as a list of items: a list or tuple as is, anything else as one item."""
    if isinstance(obj, list):
        return obj
    if isinstance(obj, (tuple, LazyMessages)):
        return list(obj)
    return [obj]


# --- writing ----------------------------------------------------------------------------------


def encode_lines(items: Iterable[Any], *, canonical: bool = False) -> bytes:
    """Encode Messages or ModelResponses as JSON Lines: one object per line, each ending in
    ``"\\n"`` (an empty iterable gives ``b""``).

    Raises `EncodeError` naming the 1-based ``.line`` (and ``.path`` inside it) of an object JSON
    cannot hold unchanged.
    """
    items = items if isinstance(items, (list, tuple)) else list(items)
    if not items:
        return b""
    try:
        out: bytes = _CODEC.encoder(canonical).encode_lines(items)
        refuse_nonfinite(items, out)  # msgspec writes NaN / infinity as null
    except Exception:  # an Extra (lossless path) or a value to report: go line by line
        return _encode_each(items, canonical)
    return out


def _encode_each(items: list[Any] | tuple[Any, ...], canonical: bool) -> bytes:
    parts = []
    for number, item in enumerate(items, 1):
        try:
            parts.append(_CODEC.encode(item, canonical))
        except WireError as err:
            raise err.located(line=number) from None
    parts.append(b"")
    return b"\n".join(parts)


# --- reading ----------------------------------------------------------------------------------


class _Span:
    """Decodes runs of complete lines of one stream: the type, the limits, the line count."""

    def __init__(self, tp: Any, limits: Limits, batch_bytes: int, lazy: bool = False) -> None:
        self.strict = item_decoder(tp)
        if lazy and tp is not Message:
            raise TypeError("lazy=True reads Messages only")
        self.lazy = lazy
        """Hand out `minagent.wire.lazy.LazyMessage` objects: each line's bytes, read on use."""
        # Lazy batches hold many lines, each within max_line: only the batch's size is unlimited.
        self.batch_limits = dataclasses.replace(limits, max_size=sys.maxsize)
        self.type = tp
        self.limits = limits
        self.max_line = limits.line_limit
        self.batch_bytes = batch_bytes
        self.line = 1
        """1-based number of the next line."""

    def decode(
        self, buf: _Buffer, end: int, offset: int
    ) -> tuple[list[Any], int, WireError | None]:
        """Decode the complete lines ``buf[:end]`` (``end`` just past a newline; ``offset``: the
        stream offset of ``buf[0]``). Returns the objects, the bytes used (``end``, or just past
        the first bad line) and that line's error."""
        if self.lazy and self._short(buf, 0, end):  # (a line too long: the eager path says so)
            found, used, lines, error = lines_span(buf, end, self.line, self.batch_limits)
            self.line += lines
            return list(found), used, error
        out: list[Any] = []
        start = 0
        batch = self.batch_bytes
        check = batch_check(self.type, self.limits)
        with memoryview(buf) as view:
            while start < end:
                # A batch ends at the first newline past ``batch`` bytes (``end - 1`` is one).
                stop = end if end - start <= batch else buf.find(b"\n", start + batch - 1, end) + 1
                lines = buf.count(b"\n", start, stop)
                items = None
                if check is not None and self._short(buf, start, stop):
                    with view[start:stop] as chunk:
                        try:
                            items = check(self.strict.decode_lines, chunk)
                        except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
                            items = None  # (msgspec < 0.23: UnicodeDecodeError for bad UTF-8)
                if items is not None and len(items) == lines:
                    self.line += lines
                else:
                    items, used, err = self._decode_each(buf, start, stop, offset)
                    if err is not None:
                        return out + items, used, err
                out += items
                start = stop
        return out, end, None

    def _short(self, buf: _Buffer, start: int, stop: int) -> bool:
        """Whether no line in ``buf[start:stop]`` is over ``max_line`` (free for short spans)."""
        max_line = self.max_line
        if stop - start <= max_line:
            return True
        while start < stop:
            end = buf.find(b"\n", start, stop)
            if end - start > max_line:
                return False
            start = end + 1
        return True

    def _decode_each(
        self, buf: _Buffer, start: int, end: int, offset: int
    ) -> tuple[list[Any], int, WireError | None]:
        """Line by line through the shared codec (lossless path, exact error line)."""
        out: list[Any] = []
        decode, tp, limits, max_line = _CODEC.decode, self.type, self.limits, self.max_line
        while start < end:
            stop = buf.find(b"\n", start, end)
            stop = end if stop < 0 else stop
            number = self.line
            self.line += 1
            if stop - start > max_line:
                return out, stop + 1, self.too_long(number, offset + start)
            text = bytes(buf[start:stop])
            start = stop + 1
            if not text.strip(_BLANK):
                continue
            try:
                out.append(decode(text, tp, limits))
            except WireError as err:
                return out, start, err.located(line=number)
        return out, end, None

    def too_long(self, line: int, offset: int) -> LineTooLongError:
        """The error for line ``line``, starting at byte ``offset``, being over ``max_line``."""
        return LineTooLongError(
            f"line longer than the limit of {self.max_line} bytes, starting at byte offset "
            f"{offset}",
            line=line,
            limit=self.max_line,
            offset=offset,
        )

    def decode_last(self, rest: _Buffer, offset: int) -> list[Any]:
        """Decode a last line that has no newline (blank: nothing); a bad one is reported as
        cut (`TruncatedError`)."""
        number = self.line
        self.line += 1
        if len(rest) > self.max_line:
            raise self.too_long(number, offset)
        if not rest.strip(_BLANK):
            return []
        try:
            if self.lazy:
                line = bytes(rest) + b"\n"
                found, _, _, error = lines_span(line, len(line), number, self.limits)
                if error is not None:
                    raise error
                return list(found)
            return [_CODEC.decode(bytes(rest), self.type, self.limits)]
        except WireError as err:
            raise TruncatedError(
                f"input ended inside line {number} at byte offset {offset + len(rest)} "
                f"(no trailing newline): {err.message}",
                line=number,
                path=err.path,
                offset=offset,
            ) from err


@overload
def decode_lines(
    data: bytes | bytearray | memoryview | str, *, limits: Limits = ...
) -> list[Message]: ...
@overload
def decode_lines(
    data: bytes | bytearray | memoryview | str, *, type: type[Message], limits: Limits = ...
) -> list[Message]: ...
@overload
def decode_lines(
    data: bytes | bytearray | memoryview | str,
    *,
    type: type[ModelResponse],
    limits: Limits = ...,
) -> list[ModelResponse]: ...
def decode_lines(
    data: bytes | bytearray | memoryview | str,
    *,
    type: Any = Message,
    limits: Limits = DEFAULT,
) -> list[Any]:
    """Decode JSON Lines into a list of ``type`` (`Message` by default, or `ModelResponse`).

    Raises `DecodeError` / `ValidationError` naming the 1-based ``.line`` (and ``.path`` inside
    the line), `LineTooLongError` for a line over ``limits.max_line``. ``limits.max_size`` bounds
    the whole input (and so each line), ``limits.max_depth`` each line.
    """
    span = _Span(type, limits, DEFAULT_BATCH_BYTES)
    if isinstance(data, str):
        buf: _Buffer = data.encode("utf-8", "surrogatepass")
    elif isinstance(data, (bytes, bytearray)):
        buf = data
    elif isinstance(data, memoryview):
        buf = data.tobytes()
    else:
        raise TypeError(f"data must be bytes, bytearray, memoryview or str; got {data!r:.60}")
    if len(buf) > limits.max_size:
        raise DecodeError(
            f"JSON Lines input of {len(buf)} bytes is over the limit max_size={limits.max_size}"
        )
    end = buf.rfind(b"\n") + 1
    items, _, err = span.decode(buf, end, 0)
    if err is not None:
        raise err
    if end < len(buf):
        items += span.decode_last(buf[end:], end)
    return items


class LineDecoder(ChunkDecoder):
    """Incremental JSON Lines decoder: ``feed(data)`` any chunks, get the complete objects.

    Lines are decoded in batches as they complete (see the module docstring). A bad line is
    reported after the good lines before it (``feed`` returns those; the next call raises, naming
    the line), and reading goes on after it. A line longer than ``limits.max_line`` (or
    ``max_size``) is refused with `LineTooLongError`: a complete one like any bad line, one still
    growing as soon as it passes the limit (the decoder then stays failed). Call ``finish()`` at
    the end of the stream: it decodes a last line that lacks its newline, or raises
    `TruncatedError` if that line is not a whole object.
    """

    def __init__(
        self,
        *,
        type: Any = Message,
        limits: Limits = DEFAULT,
        batch_bytes: int = DEFAULT_BATCH_BYTES,
        lazy: bool = False,
    ) -> None:
        super().__init__()
        self._span = _Span(type, limits, batch_bytes, lazy)
        self._scanned = 0  # bytes at the start of the buffer known to hold no newline

    @property
    def line(self) -> int:
        """1-based number of the next line."""
        return self._span.line

    @property
    def max_line(self) -> int:
        """Longest line accepted, in bytes: ``min(limits.max_line, limits.max_size)``."""
        return self._span.max_line

    def _take(self) -> Taken:
        buf = self._buf
        end = buf.rfind(b"\n", self._scanned) + 1
        if not end:
            self._scanned = len(buf)
            if len(buf) > self._span.max_line:
                return [], 0, self._span.too_long(self._span.line, self._offset), True
            return [], 0, None, False
        items, used, err = self._span.decode(buf, end, self._offset)
        # No newline after ``end``; after a bad line, the lines behind it are read next call.
        self._scanned = len(buf) if err is None else used
        return items, used, err, False

    def _consumed(self, used: int) -> None:
        self._scanned = max(0, self._scanned - used)

    def _end(self) -> list[Any]:
        rest = bytes(self._buf)
        self._buf.clear()
        self._scanned = 0
        offset, self._offset = self._offset, self._offset + len(rest)
        return self._span.decode_last(rest, offset)


def iter_line_batches(
    binary_file: BinaryIO,
    *,
    type: Any = Message,
    limits: Limits = DEFAULT,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    lazy: bool = False,
) -> Iterator[list[Any]]:
    """Read JSON Lines from a binary file in batches: yields lists of objects, in order.

    Memory stays constant in the number of lines (about ``chunk_size`` plus one line); drop each
    batch when done with it. Errors name the line (`DecodeError`, `ValidationError`,
    `LineTooLongError`, `TruncatedError`), after every good line before it has been yielded; a
    failing read raises `StreamIOError`.
    """
    decoder = LineDecoder(type=type, limits=limits, lazy=lazy)
    return read_batches(binary_file.read, decoder, chunk_size, "reading JSON Lines")


def iter_lines(
    binary_file: BinaryIO,
    *,
    type: Any = Message,
    limits: Limits = DEFAULT,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    lazy: bool = False,
) -> Iterator[Any]:
    """Stream the objects of a JSON Lines file one by one, in constant memory.

    Decoding happens in batches (`iter_line_batches`); errors name the line. ``lazy=True``
    yields `minagent.wire.lazy.LazyMessage` objects: each line's bytes, decoded as read.
    """
    batches = iter_line_batches(
        binary_file, type=type, limits=limits, chunk_size=chunk_size, lazy=lazy
    )
    for batch in batches:
        yield from batch
