"""JSON Lines: one Message (or ModelResponse) per line, each line ending in ``"\\n"``.

Reading is batched: complete lines are cut into batches of about ``batch_bytes`` (small enough
that the decoded objects of a batch stay in the CPU caches) and each batch is decoded by one
msgspec call (``Decoder.decode_lines``), with no Python work per line. A batch is accepted only if
it gives exactly one object per line; otherwise (blank lines, unknown blocks or keys, an error)
that batch alone is decoded line by line through the shared codec, which keeps unknown data
(the lossless path) and names the line of any error. Blank lines are skipped; the last line may
lack its newline.

Writing is one msgspec call (``Encoder.encode_lines``); objects that carry unknown data, or
values JSON cannot hold, are written one line at a time through `minagent.wire.json.encode`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO, overload

import msgspec

from .._codec import JSON as _CODEC
from .._codec import guard_covers
from ..errors import DecodeError, WireError
from ..limits import DEFAULT, Limits
from ..messages import Message, ModelResponse
from ._errors import LineTooLongError, StreamIOError, TruncatedError

__all__ = [
    "DEFAULT_BATCH_BYTES",
    "DEFAULT_MAX_LINE",
    "LineDecoder",
    "decode_lines",
    "encode_lines",
    "iter_line_batches",
    "iter_lines",
]

DEFAULT_BATCH_BYTES = 16 * 1024
"""Bytes of complete lines decoded per msgspec call when streaming (measured: see bench/)."""

DEFAULT_MAX_LINE = 64 * 1024 * 1024
"""Longest unfinished line a stream reader buffers before refusing it."""

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
    if isinstance(obj, tuple):
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
    encoder = _CODEC.encoder(canonical)
    try:
        out: bytes = encoder.encode_lines(items)
    except Exception:  # an Extra (lossless path) or a value to report: go line by line
        return _encode_each(items, canonical)
    return out


def _encode_each(items: list[Any] | tuple[Any, ...], canonical: bool) -> bytes:
    from ..json import encode  # here: wire.json imports this module

    parts = []
    for number, item in enumerate(items, 1):
        try:
            parts.append(encode(item, canonical=canonical))
        except WireError as err:
            raise err.located(line=number) from None
    parts.append(b"")
    return b"\n".join(parts)


# --- reading ----------------------------------------------------------------------------------


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
    the line). ``limits.max_size`` bounds the whole input, ``limits.max_depth`` each line.
    """
    strict = item_decoder(type)
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
    items, line = _decode_span(buf, 0, end, 1, type, strict, DEFAULT_BATCH_BYTES, limits)
    if end < len(buf):
        items += _decode_last(buf[end:], line, end, type, limits)
    return items


def _decode_span(
    buf: _Buffer,
    start: int,
    end: int,
    line: int,
    tp: Any,
    strict: Any,
    batch: int,
    limits: Limits,
) -> tuple[list[Any], int]:
    """Decode the complete lines ``buf[start:end]`` (``end`` just past a newline), in batches
    of about ``batch`` bytes. Returns the objects and the number of the next line.

    With a ``max_depth`` msgspec's recursion guard does not cover, every line goes through the
    codec (which enforces it) instead of the batch fast path."""
    if not guard_covers(limits):
        span = bytes(buf[start:end])
        return _decode_each(span, line, tp, limits), line + span.count(b"\n")
    out: list[Any] = []
    with memoryview(buf) as view:
        while start < end:
            stop = end if end - start <= batch else buf.find(b"\n", start + batch - 1, end) + 1
            if stop == 0:
                stop = end
            lines = buf.count(b"\n", start, stop)
            chunk = view[start:stop]
            try:
                items = strict.decode_lines(chunk)
            except (msgspec.DecodeError, UnicodeDecodeError, RecursionError):
                items = None  # (msgspec < 0.23 raises UnicodeDecodeError for invalid UTF-8)
            if items is None or len(items) != lines:
                items = _decode_each(chunk.tobytes(), line, tp, limits)
            chunk.release()
            out += items
            line += lines
            start = stop
    return out, line


def _decode_each(chunk: bytes, line: int, tp: Any, limits: Limits) -> list[Any]:
    """Decode line by line through the shared codec (lossless path, exact error line)."""
    out = []
    for number, text in enumerate(chunk.split(b"\n"), line):
        if not text.strip(_BLANK):
            continue
        try:
            out.append(_CODEC.decode(text, tp, limits))
        except WireError as err:
            raise err.located(line=number) from None
    return out


def _decode_last(rest: _Buffer, line: int, offset: int, tp: Any, limits: Limits) -> list[Any]:
    """Decode a last line that has no newline (blank: nothing); a bad one is reported as cut."""
    if not rest.strip(_BLANK):
        return []
    try:
        return [_CODEC.decode(bytes(rest), tp, limits)]
    except WireError as err:
        cut = TruncatedError(
            f"input ended inside line {line} at byte offset {offset + len(rest)} "
            f"(no trailing newline): {err.message}",
            line=line,
            path=err.path,
            offset=offset,
        )
        raise cut from None


class LineDecoder:
    """Incremental JSON Lines decoder: ``feed(data)`` any chunks, get the complete objects.

    Lines are decoded in batches as they complete (see the module docstring); a line that grows
    past ``max_line`` bytes without a newline is refused with `LineTooLongError`. Call
    ``finish()`` at the end of the stream: it decodes a last line that lacks its newline, or
    raises `TruncatedError` if that line is not a whole object.
    """

    def __init__(
        self,
        *,
        type: Any = Message,
        max_line: int = DEFAULT_MAX_LINE,
        batch_bytes: int = DEFAULT_BATCH_BYTES,
        limits: Limits = DEFAULT,
    ) -> None:
        self._strict = item_decoder(type)
        self._type = type
        self._limits = limits
        self.max_line = max_line
        """Longest unfinished line buffered before `LineTooLongError`."""
        self.batch_bytes = batch_bytes
        """Bytes of lines decoded per msgspec call."""
        self._buf = bytearray()
        self._line = 1
        self._offset = 0

    @property
    def line(self) -> int:
        """1-based number of the next (unfinished) line."""
        return self._line

    @property
    def offset(self) -> int:
        """Byte offset in the stream where the unfinished line starts."""
        return self._offset

    @property
    def pending(self) -> int:
        """Bytes buffered for the unfinished line."""
        return len(self._buf)

    def feed(self, data: bytes | bytearray | memoryview) -> list[Any]:
        """Add bytes; return the objects of every line they complete, in order."""
        if not data:
            return []
        if self._buf:
            self._buf += data
            buf: _Buffer = self._buf
        else:
            buf = data if isinstance(data, (bytes, bytearray)) else bytes(data)
        end = buf.rfind(b"\n") + 1
        items: list[Any] = []
        if end:
            items, self._line = _decode_span(
                buf, 0, end, self._line, self._type, self._strict, self.batch_bytes, self._limits
            )
            self._offset += end
        if buf is not self._buf or end:
            self._buf = bytearray(buf[end:]) if end < len(buf) else bytearray()
        if len(self._buf) > self.max_line:
            raise LineTooLongError(
                f"line longer than the limit of {self.max_line} bytes, starting at byte offset "
                f"{self._offset}",
                line=self._line,
                limit=self.max_line,
                offset=self._offset,
            )
        return items

    def finish(self) -> list[Any]:
        """End of stream: the object of a last line without newline (if any); resets."""
        rest, self._buf = self._buf, bytearray()
        items = _decode_last(rest, self._line, self._offset, self._type, self._limits)
        self._offset += len(rest)
        self._line += 1 if rest else 0
        return items


def iter_line_batches(
    binary_file: BinaryIO,
    *,
    type: Any = Message,
    batch_bytes: int = DEFAULT_BATCH_BYTES,
    max_line: int = DEFAULT_MAX_LINE,
    limits: Limits = DEFAULT,
) -> Iterator[list[Any]]:
    """Read JSON Lines from a binary file in batches: yields lists of objects, in order.

    Memory stays constant in the number of lines (about ``batch_bytes`` plus one line); drop each
    batch when done with it. Errors name the line (`DecodeError`, `ValidationError`,
    `LineTooLongError`, `TruncatedError`); a failing read raises `StreamIOError`.
    """
    decoder = LineDecoder(type=type, max_line=max_line, batch_bytes=batch_bytes, limits=limits)
    read = binary_file.read
    while True:
        try:
            data = read(batch_bytes)
        except OSError as err:
            raise StreamIOError.wrap("reading JSON Lines", err, decoder.offset) from err
        if not data:
            break
        if isinstance(data, str):
            raise TypeError("iter_lines needs a binary file (open it with 'rb')")
        items = decoder.feed(data)
        if items:
            yield items
    last = decoder.finish()
    if last:
        yield last


def iter_lines(
    binary_file: BinaryIO,
    *,
    type: Any = Message,
    batch_bytes: int = DEFAULT_BATCH_BYTES,
    max_line: int = DEFAULT_MAX_LINE,
    limits: Limits = DEFAULT,
) -> Iterator[Any]:
    """Stream the objects of a JSON Lines file one by one, in constant memory.

    Decoding happens in batches (`iter_line_batches`); errors name the line.
    """
    for batch in iter_line_batches(
        binary_file, type=type, batch_bytes=batch_bytes, max_line=max_line, limits=limits
    ):
        yield from batch
