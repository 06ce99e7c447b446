"""The file formats ``convert``, ``validate`` and ``stats`` read and write: one entry per format.

`FORMATS` maps a format name to a `Format`: its file extensions, a reader that yields decoded
records in batches (constant memory: one batch at a time) and a writer. The three formats of the
protocol itself stream; provider bodies (one request or response per file) plug in through
`PROVIDER_ADAPTERS`, one line per adapter module.

Readers call ``on_error`` for each record that does not decode (with the error located: line,
frame, ``$[i]`` path) and go on with the next one; they raise a `WireError` only when the file's
structure is broken so that no further record can be found (a truncated frame, a missing ``]``).
What they skip that is not a record (blank lines in JSON Lines) they count in `ReadNotes`.
"""

from __future__ import annotations

import dataclasses
import re
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Protocol

import msgspec

from .. import providers, wire
from ..providers import Request
from ..wire.errors import DecodeError, WireError
from ..wire.limits import DEFAULT_MAX_FRAME
from ..wire.stream import (
    HEADER_SIZE,
    FrameTooLargeError,
    LineTooLongError,
    TruncatedError,
    encode_frames,
)
from ._common import UsageError, plural

__all__ = [
    "FORMATS",
    "PROVIDER_ADAPTERS",
    "Format",
    "OnError",
    "ReadNotes",
    "WriteOptions",
    "Writer",
    "format_for",
    "kind_of",
]

CHUNK = 256 * 1024
"""Bytes read per call."""

BATCH = 256 * 1024
"""Bytes of records decoded per msgspec call."""

MAX_RECORD = 64 * 1024 * 1024
"""Longest single record (line, array element) a reader buffers before refusing the file."""

OnError = Callable[[WireError], None]
"""Called with each record that does not decode, located; may raise to stop reading."""


@dataclasses.dataclass
class ReadNotes:
    """What a reader skipped that is not a record, for the commands to report."""

    blank_lines: int = 0
    """Blank (empty or whitespace-only) lines of a JSON Lines file: no record, no error."""

    def describe(self) -> str:
        """``"1 blank line skipped"``, or ``""`` when nothing was skipped."""
        return f"{plural(self.blank_lines, 'blank line')} skipped" if self.blank_lines else ""


class Writer(Protocol):
    """Writes decoded records; ``index`` is the position of ``items[0]`` in the whole output."""

    def write(self, items: list[Any], index: int) -> None:
        """Write one batch of records."""

    def close(self) -> None:
        """Finish the output (closing bracket, a buffered body)."""


@dataclasses.dataclass(frozen=True)
class WriteOptions:
    """How a writer writes."""

    canonical: bool = False
    """Sort keys at every level (the protocol's own formats)."""
    unsupported: str = "error"
    """Provider encoders: ``"error"`` or ``"drop"`` what the target cannot hold."""
    dropped: list[Any] = dataclasses.field(default_factory=list)
    """Provider encoders append what they dropped (`minagent.providers.Dropped`) here."""


@dataclasses.dataclass(frozen=True)
class Format:
    """One file format: how to recognise, read and write it."""

    name: str
    """What ``--from`` / ``--to`` call it."""
    extensions: tuple[str, ...]
    """File name endings that select it (none for provider bodies: name them with --from/--to)."""
    summary: str
    """One line for ``--help``."""
    read: Callable[[BinaryIO, Any, OnError, ReadNotes], Iterator[list[Any]]]
    """``read(file, type, on_error, notes)``: batches of records; ``type`` None means detect
    it; what is skipped is counted in ``notes``."""
    writer: Callable[[BinaryIO, WriteOptions], Writer]
    """``writer(file, options)``."""
    streams: bool = True
    """Whether records stream through in constant memory (provider bodies are read whole)."""


def kind_of(obj: Any) -> Any:
    """The record type of a decoded JSON / MessagePack object: ModelResponse if it has a
    ``message`` key and no ``role``, else Message."""
    if isinstance(obj, dict) and "message" in obj and "role" not in obj:
        return wire.ModelResponse
    return wire.Message


def _detect(raw: bytes, decode: Callable[[bytes], Any]) -> Any:
    """The record type of the first record ``raw``: `kind_of` its untyped decode; Message when
    it does not decode (nested too deep for the interpreter included): then the typed decode
    that follows reports the error, located, as a `WireError`."""
    try:
        return kind_of(decode(raw))
    except (msgspec.DecodeError, ValueError, RecursionError):
        return wire.Message


def _relocate(err: WireError, index: int, *, line: int | None = None) -> WireError:
    """``err`` from decoding element ``index`` alone: path ``$...`` becomes ``$[index]...``."""
    path = err.path or "$"
    moved = type(err)(err.message, path=f"$[{index}]{path[1:]}", line=line, frame=err.frame)
    moved.__cause__ = err.__cause__
    return moved


# --- JSON Lines ---------------------------------------------------------------------------------

_BLANK = b" \t\r"


def _read_jsonl(
    file: BinaryIO, tp: Any, on_error: OnError, notes: ReadNotes
) -> Iterator[list[Any]]:
    carry = b""
    line = 1
    while True:
        chunk = file.read(CHUNK)
        if not chunk:
            break
        buf = carry + chunk if carry else chunk
        end = buf.rfind(b"\n") + 1
        if not end:
            carry = buf
            if len(carry) > MAX_RECORD:
                raise LineTooLongError(
                    f"line longer than the limit of {MAX_RECORD} bytes", line=line
                )
            continue
        part, carry = buf[:end], buf[end:]
        if tp is None:
            first = next((t for t in part.split(b"\n") if t.strip(_BLANK)), None)
            tp = None if first is None else _detect(first, msgspec.json.decode)
        lines = part.count(b"\n")
        if tp is not None:
            yield _decode_lines(part, line, tp, on_error, notes)
        else:  # blank lines only so far
            notes.blank_lines += lines
        line += lines
    if carry.strip(_BLANK):
        tp = _detect(carry, msgspec.json.decode) if tp is None else tp
        yield _decode_lines(carry, line, tp, on_error, notes)
    elif carry:
        notes.blank_lines += 1  # whitespace after the last newline


def _decode_lines(
    part: bytes, line: int, tp: Any, on_error: OnError, notes: ReadNotes
) -> list[Any]:
    lines = part.count(b"\n") + (not part.endswith(b"\n"))
    try:
        items: list[Any] = wire.json.decode_lines(part, type=tp)
        notes.blank_lines += lines - len(items)  # decode_lines skips exactly the blank ones
        return items
    except WireError:
        pass
    out = []
    texts = part.split(b"\n")
    if part.endswith(b"\n"):
        texts.pop()  # after the last newline: not a line
    for number, text in enumerate(texts, line):
        if not text.strip(_BLANK):
            notes.blank_lines += 1
            continue
        try:
            out.append(wire.json.decode(text, type=tp))
        except WireError as err:
            on_error(err.located(line=number))
    return out


class _LinesWriter:
    def __init__(self, out: BinaryIO, options: WriteOptions) -> None:
        self._out, self._canonical = out, options.canonical

    def write(self, items: list[Any], index: int) -> None:
        try:
            self._out.write(wire.json.encode_lines(items, canonical=self._canonical))
        except WireError as err:
            raise err.located(line=index + (err.line or 1)) from None

    def close(self) -> None:
        pass


# --- JSON transcript (one array) --------------------------------------------------------------

# Skips everything but brackets, stepping over whole strings; stops at a bracket, at a string
# that is not complete yet, or at the end of the buffer.
_SKIP = re.compile(rb'[^"\[\]{}]*(?:"[^"\\]*(?:\\.[^"\\]*)*"[^"\[\]{}]*)*')
_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_PLAIN = rb'[^"\[\]{}]*'


def _balanced(levels: int) -> bytes:
    """A regular expression for an object or array nested at most ``levels`` deep, brackets
    matched by kind, strings stepped over whole; deterministic (no catastrophic backtracking)."""
    inner = _STRING if levels == 1 else rb"(?:%s|%s)" % (_STRING, _balanced(levels - 1))
    body = rb"%s(?:%s%s)*" % (_PLAIN, inner, _PLAIN)
    return rb"(?:\{%s\}|\[%s\])" % (body, body)


_ELEMENT = re.compile(_balanced(6))
"""A whole element in one match, for the common case (nested at most 6 deep)."""
_SPACE = re.compile(rb"[ \t\r\n]*")
_COMMA = re.compile(rb"[ \t\r\n]*,[ \t\r\n]*")
_START, _INSIDE, _END = 0, 1, 2
_CLOSES = {ord("{"): ord("}"), ord("["): ord("]")}


class ArraySplitter:
    """Cuts a JSON array, fed in chunks, into the raw bytes of its elements (constant memory).

    Only brackets and strings are tokenised (by a regular expression: no Python work per
    character); each element is checked later by the decoder. ``feed`` returns the complete
    elements as ``(line, bytes)``, ``line`` being the 1-based line where the element starts.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._pos = 0
        self._state = _START
        self._depth = 0
        self._start = 0  # where the current element starts (depth > 1)
        self._prev = 0  # just past '[' or the previous element
        self._line = 1  # the line of buffer position `_line_pos`
        self._line_pos = 0
        self._open: list[int] = []  # the brackets open inside the current element
        self.count = 0
        """Elements found so far."""

    def _line_at(self, pos: int) -> int:
        self._line += self._buf.count(b"\n", self._line_pos, pos)
        self._line_pos = pos
        return self._line

    def _fail(self, what: str, pos: int) -> DecodeError:
        return DecodeError(what, line=self._line_at(pos))

    def _check_gap(self, pos: int, closing: bool) -> None:
        gap = _SPACE if closing or self.count == 0 else _COMMA
        if gap.fullmatch(self._buf, self._prev, pos) is None:
            raise self._fail(
                f"invalid JSON transcript: expected {'] or ' if closing else ''}an object "
                f"as element {self.count} of the array",
                self._prev,
            )

    def feed(self, data: bytes) -> list[tuple[int, bytes]]:
        """Add bytes; return the elements they complete."""
        buf = self._buf
        buf += data
        out: list[tuple[int, bytes]] = []
        pos, size = self._pos, len(buf)
        while pos < size:
            if self._state == _START:
                pos = _SPACE.match(buf, pos).end()  # type: ignore[union-attr]
                if pos == size:
                    break
                if buf[pos] != ord("["):
                    raise self._fail("a JSON transcript is an array; it must start with '['", pos)
                pos += 1
                self._state, self._depth, self._prev = _INSIDE, 1, pos
                continue
            if self._state == _END:
                pos = _SPACE.match(buf, pos).end()  # type: ignore[union-attr]
                if pos < size:
                    raise self._fail("data after the end of the JSON transcript", pos)
                break
            pos = _SKIP.match(buf, pos).end()  # type: ignore[union-attr]
            if pos == size or buf[pos] == ord('"'):
                break  # the rest comes with the next chunk
            c = buf[pos]
            if c in b"{[":
                if self._depth == 1:
                    self._check_gap(pos, closing=False)
                    whole = _ELEMENT.match(buf, pos)
                    if whole is not None:  # one regex call for the whole element
                        end = whole.end()
                        out.append((self._line_at(pos), bytes(buf[pos:end])))
                        self.count += 1
                        self._prev = pos = end
                        continue
                    self._start = pos
                self._depth += 1
                self._open.append(c)
            else:
                opened = self._open.pop() if self._open else ord("[")
                if c != _CLOSES[opened]:
                    raise self._fail(
                        f"invalid JSON transcript: {chr(c)!r} closes {chr(opened)!r}", pos
                    )
                self._depth -= 1
                if self._depth == 1:
                    out.append((self._line_at(self._start), bytes(buf[self._start : pos + 1])))
                    self.count += 1
                    self._prev = pos + 1
                elif self._depth == 0:
                    self._check_gap(pos, closing=True)
                    self._state = _END
            pos += 1
        keep = self._start if self._depth > 1 else self._prev if self._state == _INSIDE else pos
        if self._depth > 1 and size - keep > MAX_RECORD:
            raise self._fail(f"an element longer than the limit of {MAX_RECORD} bytes", keep)
        if keep:
            self._line_at(keep)
            del buf[:keep]
            self._line_pos -= keep
            self._start -= keep
            self._prev -= keep
            pos -= keep
        self._pos = pos
        return out

    def finish(self) -> None:
        """End of input: raise `TruncatedError` unless the array was closed."""
        if self._state == _START and not self._buf.strip():
            raise TruncatedError("empty input: a JSON transcript is an array", line=1)
        if self._state != _END:
            line = self._line_at(len(self._buf))
            raise TruncatedError(
                f"input ended inside the JSON transcript (after {self.count} element"
                f"{'' if self.count == 1 else 's'})",
                line=line,
            )


def _read_json(file: BinaryIO, tp: Any, on_error: OnError, notes: ReadNotes) -> Iterator[list[Any]]:
    splitter = ArraySplitter()
    batch: list[tuple[int, bytes]] = []
    size = 0
    index = 0
    while True:
        chunk = file.read(CHUNK)
        if not chunk:
            break
        for element in splitter.feed(chunk):
            batch.append(element)
            size += len(element[1])
            if size >= BATCH:
                tp = _detect(batch[0][1], msgspec.json.decode) if tp is None else tp
                yield _decode_elements(batch, index, tp, on_error)
                index += len(batch)
                batch, size = [], 0
    if batch:  # the complete elements first, then whether the array was closed
        tp = _detect(batch[0][1], msgspec.json.decode) if tp is None else tp
        yield _decode_elements(batch, index, tp, on_error)
    splitter.finish()


def _decode_elements(
    batch: list[tuple[int, bytes]], index: int, tp: Any, on_error: OnError
) -> list[Any]:
    try:
        joined = b"".join([b"[", b",".join([raw for _, raw in batch]), b"]"])
        items: list[Any] = wire.json.decode(joined, type=list[tp])
        return items
    except WireError:
        pass
    out = []
    for offset, (line, raw) in enumerate(batch):
        try:
            out.append(wire.json.decode(raw, type=tp))
        except WireError as err:
            on_error(_relocate(err, index + offset, line=line))
    return out


class _ArrayWriter:
    def __init__(self, out: BinaryIO, options: WriteOptions) -> None:
        self._out, self._canonical = out, options.canonical
        self._first = True
        out.write(b"[")

    def write(self, items: list[Any], index: int) -> None:
        if not items:
            return
        try:
            data = wire.json.encode(items, canonical=self._canonical)
        except WireError as err:
            raise _shift(err, index) from None
        if not self._first:
            self._out.write(b",")
        self._out.write(memoryview(data)[1:-1])
        self._first = False

    def close(self) -> None:
        self._out.write(b"]")


def _shift(err: WireError, index: int) -> WireError:
    """An error at ``$[k]...`` inside a batch that starts at ``index``: ``$[index + k]...``."""
    match = re.fullmatch(r"\$\[(\d+)\](.*)", err.path or "", re.DOTALL)
    if match is None:
        return err
    moved = type(err)(
        err.message, path=f"$[{index + int(match.group(1))}]{match.group(2)}", line=err.line
    )
    moved.__cause__ = err.__cause__
    return moved


# --- framed MessagePack -----------------------------------------------------------------------

_HEADER = struct.Struct(">I")
_ARRAY32 = struct.Struct(">BI")


def _read_frames(
    file: BinaryIO, tp: Any, on_error: OnError, notes: ReadNotes
) -> Iterator[list[Any]]:
    buf = bytearray()
    frame = 0
    offset = 0
    while True:
        chunk = file.read(CHUNK)
        if not chunk:
            break
        buf += chunk
        payloads: list[bytes] = []
        pos, size = 0, len(buf)
        while size - pos >= HEADER_SIZE:
            (length,) = _HEADER.unpack_from(buf, pos)
            if length > DEFAULT_MAX_FRAME:
                at = offset + pos
                raise FrameTooLargeError(
                    f"frame of {length} bytes exceeds the limit of {DEFAULT_MAX_FRAME} bytes "
                    f"(header at byte offset {at})",
                    frame=frame + len(payloads),
                )
            end = pos + HEADER_SIZE + length
            if end > size:
                break
            payloads.append(bytes(buf[pos + HEADER_SIZE : end]))
            pos = end
        del buf[:pos]
        offset += pos
        if payloads:
            tp = _detect(payloads[0], msgspec.msgpack.decode) if tp is None else tp
            yield _decode_frames(payloads, frame, tp, on_error)
            frame += len(payloads)
    if buf:
        raise TruncatedError(
            f"input ended inside frame {frame} (it starts at byte offset {offset})", frame=frame
        )


def _decode_frames(payloads: list[bytes], frame: int, tp: Any, on_error: OnError) -> list[Any]:
    try:
        batch = b"".join([_ARRAY32.pack(0xDD, len(payloads)), *payloads])
        items: list[Any] = wire.msgpack.decode(batch, type=list[tp])
        return items
    except WireError:
        pass
    out = []
    for number, payload in enumerate(payloads, frame):
        try:
            out.append(wire.msgpack.decode(payload, type=tp))
        except WireError as err:
            on_error(err.located(frame=number))
    return out


class _FramesWriter:
    def __init__(self, out: BinaryIO, options: WriteOptions) -> None:
        self._out, self._canonical = out, options.canonical

    def write(self, items: list[Any], index: int) -> None:
        try:
            if self._canonical:
                parts = []
                for number, item in enumerate(items, index):
                    try:
                        payload = wire.msgpack.encode(item, canonical=True)
                    except WireError as err:
                        raise err.located(frame=number) from None
                    parts += [_HEADER.pack(len(payload)), payload]
                data = b"".join(parts)
            else:
                data = encode_frames(items)
        except WireError as err:
            if not self._canonical and err.frame is not None:
                err = err.located(frame=index + err.frame)
            raise err from None
        self._out.write(data)

    def close(self) -> None:
        pass


# --- provider bodies --------------------------------------------------------------------------

PROVIDER_ADAPTERS: dict[str, str] = {
    # Provider formats, one line per adapter: "NAME": "MODULE" registers NAME-request and
    # NAME-response, read and written by minagent.providers.MODULE's decode_request /
    # encode_request / decode_response / encode_response.
    "anthropic": "anthropic",
    "openai-chat": "openai_chat",
    "openai-responses": "openai_responses",
    "gemini": "gemini",
}
"""Provider adapters by format prefix: the module name under `minagent.providers`."""


class _BodyWriter:
    """Collects the records and writes one provider body when closed."""

    def __init__(self, out: BinaryIO, adapter: Any, what: str, options: WriteOptions) -> None:
        self._out, self._adapter, self._what = out, adapter, what
        self._policy = {"unsupported": options.unsupported, "dropped": options.dropped}
        self._items: list[Any] = []

    def write(self, items: list[Any], index: int) -> None:
        self._items += items

    def close(self) -> None:
        items = self._items
        if self._what == "request":
            if len(items) == 1 and isinstance(items[0], Request):
                body = self._adapter.encode_request(items[0], **self._policy)
            elif all(isinstance(item, wire.Message) for item in items):
                body = self._adapter.encode_request(Request(messages=items), **self._policy)
            else:
                raise UsageError("a request body is made from Messages (a transcript)")
        else:
            if len(items) != 1 or not isinstance(items[0], wire.ModelResponse):
                raise UsageError(
                    "a response body holds exactly one ModelResponse; the input has "
                    + plural(len(items), "record")
                )
            body = self._adapter.encode_response(items[0], **self._policy)
        self._out.write(body)


def _provider_formats(prefix: str, module: str) -> list[Format]:
    def adapter() -> Any:
        return providers.get(module)

    def read_request(
        file: BinaryIO, tp: Any, on_error: OnError, notes: ReadNotes
    ) -> Iterator[list[Any]]:
        yield [adapter().decode_request(file.read())]

    def read_response(
        file: BinaryIO, tp: Any, on_error: OnError, notes: ReadNotes
    ) -> Iterator[list[Any]]:
        yield [adapter().decode_response(file.read())]

    return [
        Format(
            f"{prefix}-request",
            (),
            f"{prefix} request body (minagent.providers.{module})",
            read_request,
            lambda out, options: _BodyWriter(out, adapter(), "request", options),
            streams=False,
        ),
        Format(
            f"{prefix}-response",
            (),
            f"{prefix} response body (minagent.providers.{module})",
            read_response,
            lambda out, options: _BodyWriter(out, adapter(), "response", options),
            streams=False,
        ),
    ]


# --- the table --------------------------------------------------------------------------------

_STREAMS = (
    Format(
        "json",
        (".json",),
        "a JSON transcript: one array of Messages (or of ModelResponses)",
        _read_json,
        _ArrayWriter,
    ),
    Format(
        "jsonl",
        (".jsonl", ".ndjson"),
        "JSON Lines: one Message (or ModelResponse) per line",
        _read_jsonl,
        _LinesWriter,
    ),
    Format(
        "msgpack",
        (".msgpack", ".mpk"),
        "framed MessagePack: a 4-byte big-endian length, then one object, per record",
        _read_frames,
        _FramesWriter,
    ),
)

FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        *_STREAMS,
        *[f for p, m in PROVIDER_ADAPTERS.items() for f in _provider_formats(p, m)],
    )
}
"""Every format by name."""


def format_for(name: str, given: str | None, role: str) -> Format:
    """The format named ``given``, else the one ``name``'s extension selects; `UsageError` if
    neither says (``role``, "input" or "output", names the file in the message)."""
    if given is not None:
        return FORMATS[given]
    suffix = Path(name).suffix.lower()
    for fmt in FORMATS.values():
        if suffix in fmt.extensions:
            return fmt
    flag = "--from" if role == "input" else "--to"
    what = "stdin" if name == "-" and role == "input" else "stdout" if name == "-" else name
    known = ", ".join(e for f in FORMATS.values() for e in f.extensions)
    raise UsageError(f"cannot tell the format of {what} from its name ({known}); pass {flag}")
