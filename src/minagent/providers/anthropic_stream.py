"""Anthropic Messages streaming: an incremental event parser and an accumulator.

`StreamParser` turns byte chunks (split anywhere) into typed events, decoding each event's JSON
with msgspec straight from the SSE buffer. `StreamAccumulator` applies them and builds the final
`ModelResponse`, equal to `anthropic.decode_response` of the non-streamed body with the same
content: text and thinking deltas joined, ``signature_delta`` kept byte-exact, the tool input's
``partial_json`` pieces parsed once the block stops, ``message_delta`` fields and usage merged.

An ``error`` event, an event whose JSON is bad, or a stream that ends inside an event raises
`StreamError` with the event index (``.frame``); everything received before stays applied, so
``accumulator.response()`` still gives the partial response.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec

from ..wire._stack import runs_roomy_unsized
from ..wire.errors import DecodeError
from ..wire.messages import ModelResponse
from ._base import RAW_ARGUMENTS, StreamError
from ._sse import SSEEvent, SSEParser

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


class UnknownEvent(msgspec.Struct, gc=False):
    """An event (or delta) type this module does not know, kept whole."""

    type: str
    data: dict[str, Any]
    """The whole event object."""


StreamEvent = Union[  # noqa: UP007
    MessageStart,
    ContentBlockStart,
    ContentBlockDelta,
    ContentBlockStop,
    MessageDelta,
    MessageStop,
    Ping,
    ErrorEvent,
    UnknownEvent,
]
"""Any event `StreamParser` yields."""

_KNOWN = Union[  # noqa: UP007
    MessageStart,
    ContentBlockStart,
    ContentBlockDelta,
    ContentBlockStop,
    MessageDelta,
    MessageStop,
    Ping,
    ErrorEvent,
]
_DECODER = msgspec.json.Decoder(_KNOWN)
_ANY = msgspec.json.Decoder(dict[str, Any])


def _decode_event(sse: SSEEvent) -> Any:
    try:
        return _DECODER.decode(sse.data)
    except msgspec.ValidationError:
        pass
    except (msgspec.DecodeError, RecursionError) as err:
        raise StreamError(f"event {sse.event!r}: invalid JSON: {err}", frame=sse.index) from None
    try:
        data = _ANY.decode(sse.data)
    except msgspec.ValidationError:
        raise StreamError(f"event {sse.event!r}: not a JSON object", frame=sse.index) from None
    kind = data.get("type")
    if type(kind) is not str:
        raise StreamError(f"event {sse.event!r}: no string 'type'", frame=sse.index)
    # a known event type that failed its typed decode (an unknown delta type, a missing key)
    return UnknownEvent(kind, data)


class StreamParser:
    """Byte chunks in, typed `StreamEvent` objects out; see the module docstring."""

    __slots__ = ("_sse",)

    def __init__(self) -> None:
        self._sse = SSEParser()

    @runs_roomy_unsized
    def feed(self, chunk: bytes | bytearray | memoryview) -> list[Any]:
        """Add ``chunk``; return the events it completed. Raises `StreamError` (see the module
        docstring) with ``.received`` holding the events of this chunk decoded before it."""
        out: list[Any] = []
        for sse in self._sse.feed(chunk):
            try:
                out.append(_decode_event(sse))
            except StreamError as err:
                err.received = out
                raise
        return out

    @runs_roomy_unsized
    def close(self) -> list[Any]:
        """End the stream; raise `StreamError` if it stopped inside an event."""
        try:
            events = self._sse.close()
        except DecodeError as err:
            raise StreamError(err.message, frame=err.frame) from None
        return [_decode_event(sse) for sse in events]


class StreamAccumulator:
    """Feeds a `StreamParser` and builds the `ModelResponse`.

    ``feed(chunk)`` returns the new events (after applying them); ``close()`` checks the stream
    ended cleanly and returns the response; ``response()`` gives the response so far at any time
    (partial tool inputs stay ``{}`` until their block stops).
    """

    __slots__ = ("_blocks", "_index", "_json", "_message", "_parser", "_stopped", "events")

    def __init__(self) -> None:
        self._parser = StreamParser()
        self._message: dict[str, Any] | None = None
        self._blocks: list[dict[str, Any]] = []
        self._json: dict[int, list[str]] = {}
        self._index = 0
        self._stopped = False
        self.events = 0
        """How many events were applied."""

    @runs_roomy_unsized
    def feed(self, chunk: bytes | bytearray | memoryview) -> list[Any]:
        """Parse ``chunk`` and apply its events; see the class docstring."""
        try:
            events = self._parser.feed(chunk)
        except StreamError as err:
            for event in err.received:
                self.apply(event)
            raise
        for event in events:
            self.apply(event)
        return events

    @runs_roomy_unsized
    def close(self) -> ModelResponse:
        """End the stream and return the final response (`StreamError` if incomplete)."""
        for event in self._parser.close():
            self.apply(event)
        if self._message is None:
            raise StreamError("the stream ended before message_start", frame=self.events)
        if not self._stopped:
            raise StreamError("the stream ended before message_stop", frame=self.events)
        return self.response()

    def apply(self, event: Any) -> None:
        """Apply one event (as `StreamParser` yields them)."""
        index = self.events
        self.events += 1
        cls = type(event)
        if cls is ContentBlockDelta:
            block = self._block(event.index, index)
            delta = event.delta
            dcls = type(delta)
            if dcls is TextDelta:
                block["text"] += delta.text
            elif dcls is InputJsonDelta:
                self._json.setdefault(event.index, []).append(delta.partial_json)
            elif dcls is ThinkingDelta:
                block["thinking"] += delta.thinking
            elif dcls is SignatureDelta:
                block["signature"] = delta.signature  # the whole signature, as the SDK sets it
            else:
                citations = block.get("citations")
                if citations is None:
                    citations = block["citations"] = []
                citations.append(delta.citation)
        elif cls is ContentBlockStart:
            if self._message is None:
                raise StreamError("content_block_start before message_start", frame=index)
            if event.index != len(self._blocks):
                raise StreamError(
                    f"content_block_start index {event.index}, expected {len(self._blocks)}",
                    frame=index,
                )
            self._blocks.append(dict(event.content_block))
        elif cls is ContentBlockStop:
            self._finish(event.index, index)
        elif cls is MessageStart:
            self._message = dict(event.message)
            self._blocks = list(self._message.get("content") or [])
        elif cls is MessageDelta:
            message = self._require(index)
            message.update(event.delta)
            if event.usage:
                usage = message.setdefault("usage", {})
                for key, value in event.usage.items():
                    if value is not None:
                        usage[key] = value
        elif cls is MessageStop:
            self._stopped = True
        elif cls is ErrorEvent:
            err = StreamError(
                f"error event: {event.error.get('message', event.error)}", frame=index
            )
            err.error = event.error
            raise err
        elif cls is UnknownEvent and event.type in _MUST_APPLY:
            raise StreamError(f"cannot apply this {event.type} event: {event.data}", frame=index)
        # any other event type carries nothing for the message

    def _require(self, index: int) -> dict[str, Any]:
        if self._message is None:
            raise StreamError("an event before message_start", frame=index)
        return self._message

    def _block(self, i: int, index: int) -> dict[str, Any]:
        if not 0 <= i < len(self._blocks):
            raise StreamError(f"a delta for block {i}, which has not started", frame=index)
        return self._blocks[i]

    def _finish(self, i: int, index: int) -> None:
        pieces = self._json.pop(i, None)
        if pieces is not None:
            _set_input(self._block(i, index), "".join(pieces))

    def response(self) -> ModelResponse:
        """The response as accumulated so far (raises `StreamError` before message_start).

        A tool block whose input is still arriving (or that never got its stop, as when
        ``max_tokens`` cuts it) gets the text received so far, parsed if it is a complete JSON
        object, else kept raw (see `RAW_ARGUMENTS`).
        """
        from .anthropic import decode_response

        message = self._require(self.events)
        body = dict(message)
        blocks = self._blocks
        if self._json:
            blocks = list(blocks)
            for i, pieces in self._json.items():
                blocks[i] = dict(blocks[i])
                _set_input(blocks[i], "".join(pieces))
        body["content"] = blocks
        if body.get("stop_reason") is None:
            body["stop_reason"] = ""
        return decode_response(msgspec.json.encode(body))


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
    else:  # cut short (max_tokens) or not an object: keep the text, see RAW_ARGUMENTS
        block["input"] = {}
        block[RAW_ARGUMENTS] = text


_MUST_APPLY = frozenset({"content_block_delta", "content_block_start", "message_delta"})


def accumulate(chunks: Any) -> ModelResponse:
    """The final `ModelResponse` of a whole stream given as an iterable of byte chunks."""
    acc = StreamAccumulator()
    for chunk in chunks:
        acc.feed(chunk)
    return acc.close()
