"""Anthropic Messages streaming: an incremental event parser and an accumulator.

`StreamParser` turns byte chunks (split anywhere) into typed events, decoding each event's JSON
with msgspec straight from the SSE buffer. `StreamAccumulator` applies them and builds the final
`ModelResponse`, equal to `anthropic.decode_response` of the non-streamed body with the same
content: text and thinking deltas joined, ``signature_delta`` kept byte-exact, the tool input's
``partial_json`` pieces parsed once the block stops, ``message_delta`` fields merged and its
usage counters merged (a null counter keeps the ``message_start`` value, as the SDK does).

Both are built on the shared stream core (`minagent.providers._stream`). Refused with
`StreamError` and the event index (``.frame``): an ``error`` event, bad JSON or UTF-8, a known
event whose shape is wrong, a delta for a block of another kind (``text_delta`` into a
``tool_use`` block, ``signature_delta`` into a text block, ...) or for a block that stopped, any
event after ``message_stop``, a stream that ends inside an event or before ``message_stop``.
Everything received before stays applied, so ``accumulator.response()`` still gives the partial
response. An event of a type this module does not know is yielded as an `UnknownEvent` (with its
provider and index) and kept in ``accumulator.unknown``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from typing import Any, Union

import msgspec

from ..wire.errors import WireError
from ..wire.limits import DEFAULT, Limits
from ..wire.messages import ModelResponse
from . import anthropic as adapter
from ._base import RAW_ARGUMENTS, StreamError
from ._sse import SSEEvent, SSEParser
from ._stream import Accumulator, Parser, UnknownEvent, accumulate_with, decode_event, fail, want

__all__ = [
    "ContentBlockDelta",
    "ContentBlockStart",
    "ContentBlockStop",
    "ErrorEvent",
    "MessageDelta",
    "MessageStart",
    "MessageStop",
    "Ping",
    "StreamAccumulator",
    "StreamEvent",
    "StreamParser",
    "UnknownEvent",
    "accumulate",
]


class _Event(msgspec.Struct, tag_field="type", gc=False):
    """Base of the typed stream events."""


class MessageStart(_Event, tag="message_start"):
    """The response shell: id, model, empty content, initial usage."""

    message: dict[str, Any]
    """The message object as sent (``content`` empty, ``stop_reason`` null)."""


class ContentBlockStart(_Event, tag="content_block_start"):
    """A content block opens at ``index`` (complete for blocks that take no deltas)."""

    index: int
    content_block: dict[str, Any]
    """The block as sent: ``{"type": "text", "text": ""}``, a tool_use with ``input: {}``, ..."""


class TextDelta(msgspec.Struct, tag_field="type", tag="text_delta", gc=False):
    """More text."""

    text: str


class InputJsonDelta(msgspec.Struct, tag_field="type", tag="input_json_delta", gc=False):
    """A piece of a tool input's JSON text."""

    partial_json: str


class ThinkingDelta(msgspec.Struct, tag_field="type", tag="thinking_delta", gc=False):
    """More thinking text."""

    thinking: str


class SignatureDelta(msgspec.Struct, tag_field="type", tag="signature_delta", gc=False):
    """The thinking block's whole signature (it replaces the start's placeholder, byte-exact)."""

    signature: str


class CitationsDelta(msgspec.Struct, tag_field="type", tag="citations_delta", gc=False):
    """One citation for a text block."""

    citation: dict[str, Any]


Delta = Union[  # noqa: UP007 (a runtime union for msgspec)
    TextDelta, InputJsonDelta, ThinkingDelta, SignatureDelta, CitationsDelta
]


class ContentBlockDelta(_Event, tag="content_block_delta"):
    """A delta for the block at ``index``."""

    index: int
    delta: Delta


class ContentBlockStop(_Event, tag="content_block_stop"):
    """The block at ``index`` is complete."""

    index: int


class MessageDelta(_Event, tag="message_delta"):
    """Top-level changes (``stop_reason``, ``stop_sequence``, ...) and cumulative usage."""

    delta: dict[str, Any]
    usage: dict[str, Any] | None = None


class MessageStop(_Event, tag="message_stop"):
    """The end of the message."""


class Ping(_Event, tag="ping"):
    """A keep-alive."""


class ErrorEvent(_Event, tag="error"):
    """The provider reports an error mid-stream (``overloaded_error``, ...)."""

    error: dict[str, Any]


_KNOWN = Union[  # noqa: UP007 (a runtime union for msgspec)
    MessageStart,
    ContentBlockStart,
    ContentBlockDelta,
    ContentBlockStop,
    MessageDelta,
    MessageStop,
    Ping,
    ErrorEvent,
]
StreamEvent = Union[_KNOWN, UnknownEvent]  # noqa: UP007
"""Any event `StreamParser` yields."""
_DECODER = msgspec.json.Decoder(_KNOWN)
_TYPES = frozenset(
    {
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
        "error",
    }
)
"""The event types this module knows: one of these in a shape it cannot read is refused."""


class StreamParser(Parser):
    """Byte chunks in, typed `StreamEvent` objects out; see the module docstring."""

    __slots__ = ()
    provider = "anthropic"
    end = "message_stop"

    def _feed(self, chunk: bytes | bytearray | memoryview) -> list[Any]:
        """Add ``chunk``; return the events it completed (see `Parser.feed`). The blocks the API
        sends (`SSEParser.feed_simple`) are cut in C and their JSON decoded one call each; any
        other shape, or an event that is not one of the known ones, is read as `Parser.feed`
        reads it, with the same events and errors."""
        frames = self._frames
        if self.ended is not None or type(frames) is not SSEParser:
            return self._decode_all(frames.feed, chunk)
        datas, end = frames.feed_simple(chunk)
        if datas is None:
            return self._decode_all(frames.cut, end)
        buf = frames.buffer
        last = buf.rfind(b"\n\n", 0, end - 2) + 2  # where the last event starts (or 1)
        if buf.find(b"message_stop", 0, last if last > 1 else 0) >= 0:
            # a message_stop, or its name, before the last event: let `_decode_all` tell
            raws = [frames.event_of(m, i) for i, m in enumerate(frames.blocks_before(end))]
            frames.take(end, len(raws))
            return self._decode_all(lambda: raws)
        decode = _DECODER.decode
        try:
            events = [decode(data) for data in datas]
        except (msgspec.DecodeError, RecursionError, UnicodeError):
            events = self._decode_each(datas, end)
        if type(events[-1]) is MessageStop:
            self.ended = frames.index + len(events) - 1
        frames.take(end, len(events))
        return events

    def _decode_each(self, datas: list[bytes], end: int) -> list[Any]:
        """`feed`'s events when one of them is not a known event (or not one at all): each
        read in one call, and those that fail as `_decode` reads them (an `UnknownEvent`, or
        the `StreamError` `_decode_all` raises, with the events before it received)."""
        frames = self._frames
        decode = _DECODER.decode
        blocks = frames.blocks_before(end)  # advanced only as far as a failing event
        at = 0
        out: list[Any] = []
        for i, data in enumerate(datas):
            try:
                out.append(decode(data))
                continue
            except (msgspec.DecodeError, RecursionError, UnicodeError):
                pass
            for _ in range(i - at):
                next(blocks)
            raw = frames.event_of(next(blocks), i)
            at = i + 1
            try:
                out.append(self._decode(raw))
            except StreamError as err:
                frames.take(end, len(datas))
                err.received = out
                raise
        return out

    def _decode(self, raw: SSEEvent) -> Any:
        try:
            event = _DECODER.decode(raw.data)
        except (msgspec.DecodeError, RecursionError, UnicodeError):  # UnicodeError: msgspec < 0.20
            data = decode_event(raw.data, raw.index, f"event {raw.event!r}")
            kind = want(data.get("type"), str, f"event {raw.event!r}: 'type'", raw.index)
            event = UnknownEvent(kind, data, self.provider, raw.index)
        else:
            if type(event) is MessageStop:
                self.ended = raw.index
        return event


_NAMED = frozenset(
    {"text_delta", "input_json_delta", "thinking_delta", "signature_delta", "citations_delta"}
)

_TOOL_TYPES = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
"""Blocks whose ``input`` arrives in ``input_json_delta`` pieces (the SDK's TRACKS_TOOL_INPUT)."""

_TARGETS: dict[type, tuple[frozenset[str], str]] = {
    TextDelta: (frozenset({"text"}), "text"),
    CitationsDelta: (frozenset({"text"}), "citations"),
    ThinkingDelta: (frozenset({"thinking"}), "thinking"),
    SignatureDelta: (frozenset({"thinking"}), "signature"),
    InputJsonDelta: (_TOOL_TYPES, "input"),
}
"""Per delta: the block types it may go to, and the block key it changes."""


_TEXT = operator.attrgetter("text")
_TAKES: dict[str, tuple[type, Callable[[Any], str]]] = {
    "text": (TextDelta, _TEXT),
    "thinking": (ThinkingDelta, operator.attrgetter("thinking")),
}
_TAKES.update(dict.fromkeys(_TOOL_TYPES, (InputJsonDelta, operator.attrgetter("partial_json"))))
"""Per block type: the delta class whose pieces grow it (`_TARGETS` the other way round), and
the piece of such a delta."""


class _Block:
    """One content block being streamed: the body as it started, the pieces of its growing text
    (``text``, ``thinking``, or the tool input's JSON) joined only when asked."""

    __slots__ = ("body", "key", "kind", "pieces", "stopped")

    def __init__(self, body: dict[str, Any], kind: str) -> None:
        self.body = body
        self.kind = kind
        self.key = "text" if kind == "text" else "thinking" if kind == "thinking" else None
        self.pieces: list[str] = []
        self.stopped = False

    def finished(self) -> dict[str, Any]:
        """The block with its pieces joined in (a copy when pieces are pending)."""
        if not self.pieces:
            return self.body
        body = dict(self.body)
        if self.key is None:
            _set_input(body, "".join(self.pieces))
        else:
            body[self.key] = body.get(self.key, "") + "".join(self.pieces)
        return body


class StreamAccumulator(Accumulator):
    """Feeds a `StreamParser` and builds the `ModelResponse`.

    ``feed(chunk)`` returns the new events (after applying them); ``close()`` checks the stream
    ended cleanly and returns the response; ``response()`` gives the response so far at any time
    (a tool input still arriving is parsed if complete, else kept raw, see `response`).
    """

    __slots__ = (
        "_at",
        "_blocks",
        "_decoded",
        "_message",
        "_piece",
        "_pieces",
        "_shell",
        "_slow",
        "_takes",
        "sink",
    )
    provider = "anthropic"
    end = "message_stop"

    def __init__(self, limits: Limits = DEFAULT) -> None:
        super().__init__(StreamParser(limits), limits)
        self._message: dict[str, Any] | None = None
        self._blocks: list[_Block] = []
        self._decoded: list[Any] = []  # per block: its decoded block once it stopped (snapshot)
        self._slow = False  # a decoded block takes the adapter's slow path (snapshot)
        self._shell: tuple[bool, ModelResponse] | None = None  # (slow, the message decoded)
        # the text, thinking or tool block last started, while open and before the end: its
        # index, the delta class whose pieces it takes, and its pieces
        self._at = -1
        self._takes: type | None = None
        self._piece: Callable[[Any], str] = _TEXT
        self._pieces: list[str] = []
        self.sink: Callable[[str], None] | None = None
        """Called with each piece of the block last started as it is added, while that block
        is open (a stream translator sends it on, without reading the event again); reset
        when another block starts, the block stops or the stream ends."""

    def apply(self, event: Any) -> bool | None:
        """Apply one event (`Accumulator.apply`): a piece for the block last started (the
        commonest event) in one check, and handed to `sink` if one is set (then True); the
        other known events without the general steps."""
        cls = type(event)
        if cls is ContentBlockDelta and event.index == self._at:
            delta = event.delta
            if type(delta) is self._takes:
                self.events += 1
                piece = self._piece(delta)
                self._pieces.append(piece)
                sink = self.sink
                if sink is None:
                    return None
                sink(piece)
                return True
        if self._ended is not None or cls is UnknownEvent:
            Accumulator.apply(self, event)
            return None
        index = self.events  # (`Accumulator.apply`'s steps for a known event)
        self.events = index + 1
        self._apply(event, index)
        return None

    def _apply(self, event: Any, index: int) -> None:
        cls = type(event)
        if cls is ContentBlockDelta:
            self._delta(event, index)
        elif cls is ContentBlockStart:
            self._start(event, index)
        elif cls is ContentBlockStop:
            block = self._open(event.index, "content_block_stop", index)
            if event.index == self._at:
                self._at, self.sink = -1, None
            self._blocks[event.index] = _Block(block.finished(), block.kind)
            self._blocks[event.index].stopped = True
        elif cls is MessageStart:
            if self._message is not None:
                raise fail("a second message_start", index)
            message = dict(event.message)
            content = message.get("content")
            content = [] if content is None else want(content, list, "message.content", index)
            message["content"] = []
            self._message = message
            for i, block in enumerate(content):
                self._add(block, f"message.content[{i}]", index)
        elif cls is MessageDelta:
            self._merge(event, index)
        elif cls is MessageStop:
            self._require("message_stop", index)
            self._mark_end(index)
            self._at, self.sink = -1, None  # a piece after the end is refused (general path)
        elif cls is ErrorEvent:
            raise _error(event.error, index)
        elif cls is UnknownEvent and event.type in _TYPES:
            if event.type == "content_block_delta" and self._other_delta(event.data, index):
                return
            if event.type == "error":
                raise _error(event.data.get("error"), index)
            raise fail(f"a {event.type} event of the wrong shape: {event.data}", index)
        # ping, and events of unknown types (kept in .unknown), carry nothing for the message

    def _require(self, what: str, index: int) -> dict[str, Any]:
        if self._message is None:
            raise fail(f"{what} before message_start", index)
        return self._message

    def _add(self, block: Any, what: str, index: int) -> None:
        block = dict(want(block, dict, what, index))
        kind = want(block.get("type"), str, f"{what}.type", index)
        entry = _Block(block, kind)
        if entry.key is not None and entry.key in block:
            want(block[entry.key], str, f"{what}.{entry.key}", index)
        self._blocks.append(entry)
        self._decoded.append(None)

    def _start(self, event: ContentBlockStart, index: int) -> None:
        self._require("content_block_start", index)
        if event.index != len(self._blocks):
            raise fail(
                f"content_block_start index {event.index}, expected {len(self._blocks)}", index
            )
        self._add(event.content_block, "content_block", index)
        entry = self._blocks[-1]
        self._at, self._pieces, self.sink = event.index, entry.pieces, None
        self._takes, self._piece = _TAKES.get(entry.kind, (None, _TEXT))

    def _open(self, i: int, what: str, index: int) -> _Block:
        if not 0 <= i < len(self._blocks):
            raise fail(f"{what} for block {i}, which has not started", index)
        block = self._blocks[i]
        if block.stopped:
            raise fail(f"{what} for block {i}, which has stopped", index)
        return block

    def _delta(self, event: ContentBlockDelta, index: int) -> None:
        delta = event.delta
        dcls = type(delta)
        block = self._open(event.index, "content_block_delta", index)
        kinds, _key = _TARGETS[dcls]
        if block.kind not in kinds:
            raise fail(
                f"a {dcls.__struct_config__.tag} for block {event.index},"  # type: ignore[attr-defined]
                f" a {block.kind} block (it goes to a {' or '.join(sorted(kinds))} block)",
                index,
            )
        if dcls is TextDelta:
            block.pieces.append(delta.text)
        elif dcls is ThinkingDelta:
            block.pieces.append(delta.thinking)
        elif dcls is InputJsonDelta:
            block.pieces.append(delta.partial_json)
        elif dcls is SignatureDelta:
            block.body["signature"] = delta.signature  # the whole signature, as the SDK sets it
        else:
            citations = block.body.get("citations")
            if citations is None:
                citations = block.body["citations"] = []
            want(citations, list, f"block {event.index}'s citations", index).append(delta.citation)

    def _other_delta(self, data: dict[str, Any], index: int) -> bool:
        """A delta of a type this module does not name (``compaction_delta``, ...): its string
        fields are appended to the block's, the others replace them, as the SDK's generic
        ``accumulate_delta`` does. False when the event is not such a delta (refuse it)."""
        at, delta = data.get("index"), data.get("delta")
        if type(at) is not int or type(delta) is not dict or type(delta.get("type")) is not str:
            return False
        if delta["type"] in _NAMED:
            return False  # a named delta of the wrong shape
        block = self._open(at, "content_block_delta", index).body
        for key, value in delta.items():
            if key == "type":
                continue
            current = block.get(key)
            if type(value) is str and (current is None or type(current) is str):
                block[key] = (current or "") + value
            else:
                block[key] = value
        return True

    def _merge(self, event: MessageDelta, index: int) -> None:
        message = self._require("message_delta", index)
        self._shell = None
        message.update(event.delta)
        if event.usage:
            usage = message.get("usage")
            if type(usage) is not dict:
                usage = message["usage"] = {}
            for key, value in event.usage.items():
                if value is not None:  # cumulative totals; a null keeps message_start's value
                    usage[key] = value

    def _complete(self) -> str:
        if self._message is None:
            return "before message_start"
        return "" if self._ended is not None else "before message_stop"

    def body(self) -> dict[str, Any]:
        """The Messages response body accumulated so far (`StreamError` before message_start).

        A tool block whose input is still arriving (or that never got its stop, as when
        ``max_tokens`` cuts it) gets the text received so far, parsed if it is a complete JSON
        object, else kept raw (see `RAW_ARGUMENTS`).
        """
        message = self._require("a response", self.events)
        body = dict(message)
        body["content"] = [block.finished() for block in self._blocks]
        return body

    def _decode(self, body: dict[str, Any]) -> ModelResponse:
        if body.get("stop_reason") is None:
            body = dict(body, stop_reason="")
        return adapter.decode_response(msgspec.json.encode(body))

    def _so_far(self, last: bool = False) -> ModelResponse:
        """`snapshot`: the response so far, equal to `response`, but each block that stopped
        is decoded once and kept for the next snapshot (`anthropic.decode_blocks`), and the
        rest of the message apart (`anthropic.decode_shell`): a stream translator asks for the
        response at every block, which would decode the blocks before it again each time. The
        blocks of successive snapshots are the same objects: read them, do not change them.
        Anything unusual (a block the adapter refuses, a stream over the default size limit)
        is read by `response`, which says what and where. The message without its blocks is
        decoded again only once a ``message_delta`` changed it. ``last``: no snapshot follows
        (nothing decoded yet is then decoded whole, in one call)."""
        message = self._message
        blocks, decoded = self._blocks, self._decoded
        if (
            message is None
            or self._fed > DEFAULT.max_size
            or (last and decoded.count(None) == len(blocks))
        ):
            return self.response()
        content = list(decoded)
        slow = self._slow
        try:
            done = [i for i, block in enumerate(blocks) if block.stopped and decoded[i] is None]
            if done:
                if self._put(done, content) and not slow:
                    slow = self._slow = True
                for i in done:
                    decoded[i] = content[i]
            rest = [i for i, d in enumerate(decoded) if d is None]  # blocks still open
            if rest and self._put(rest, content):
                slow = True
            shell = self._shell
            if shell is None or shell[0] is not slow:
                body = dict(message)
                body["content"] = []
                if body.get("stop_reason") is None:
                    body["stop_reason"] = ""
                shell = self._shell = (slow, adapter.decode_shell(msgspec.json.encode(body), slow))
            response = shell[1]
        except (WireError, RecursionError):
            return self.response()
        message_out = msgspec.structs.replace(response.message, content=content)
        return msgspec.structs.replace(response, message=message_out)

    def _put(self, at: list[int], content: list[Any]) -> bool:
        """Decode blocks ``at`` into ``content``; whether they take the adapter's slow path."""
        data = msgspec.json.encode([self._blocks[i].finished() for i in at])
        new, slow = adapter.decode_blocks(data)
        if len(new) != len(at):
            raise WireError("the blocks decoded are not the blocks given")
        for i, block in zip(at, new, strict=True):
            content[i] = block
        return slow


def _error(error: Any, index: int) -> Exception:
    detail = error.get("message", error) if type(error) is dict else error
    err = fail(f"error event: {detail}", index)
    err.error = error
    return err


def _set_input(block: dict[str, Any], text: str) -> None:
    """Set a tool block's ``input`` from its streamed JSON text."""
    if not text:
        return  # no input given: the start's "input" stands
    try:
        value = msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        value = None
    if type(value) is dict:
        block["input"] = value
    else:  # cut short (max_tokens), not an object, or nested too deep: keep the text as it came
        block["input"] = {}
        block[RAW_ARGUMENTS] = text


def accumulate(
    chunks: Iterable[bytes | bytearray | memoryview], *, limits: Limits = DEFAULT
) -> ModelResponse:
    """The final `ModelResponse` of a whole stream given as an iterable of byte chunks."""
    result: ModelResponse = accumulate_with(StreamAccumulator(limits), chunks)
    return result
