"""OpenAI Responses streaming: an incremental event parser and an accumulator.

`StreamParser` turns byte chunks (split anywhere) into `ResponsesEvent` objects, one per
server-sent ``response.*`` event, its JSON decoded with msgspec straight from the SSE buffer.
`StreamAccumulator` applies them: output items open with ``response.output_item.added``, grow
with the ``*.delta`` events (``output_text``, ``refusal``, ``function_call_arguments``,
``reasoning_summary_text``, ``reasoning_text``, annotations, content and summary parts) and are
replaced whole by ``response.output_item.done``. The terminal ``response.completed`` /
``response.incomplete`` / ``response.failed`` snapshot gives the final response; without one
(a cut stream) the items built from the events do. Progress events of built-in tools
(``response.web_search_call.searching``, ...) carry no content and are counted, not applied:
their items arrive whole with ``response.output_item.done``.

An ``error`` event, bad JSON, or a stream that ends inside an event raises `StreamError` with the
event index (``.frame``); what was received before stays applied (``accumulator.response()``).
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec

from ..wire._stack import runs_roomy_unsized
from ..wire.errors import DecodeError, WireError
from ..wire.messages import ModelResponse
from ._base import StreamError
from ._sse import SSEEvent, SSEParser
from .openai_responses import response_from_dict

__all__ = ["ResponsesEvent", "StreamAccumulator", "StreamParser", "accumulate"]

_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
_SNAPSHOT = frozenset({"response.created", "response.in_progress", "response.queued"})


class ResponsesEvent(msgspec.Struct, frozen=True, gc=False):
    """One ``response.*`` event."""

    type: str
    """The event's ``type`` (``response.output_text.delta``, ...)."""
    index: int
    """0-based position of the event in the stream."""
    data: dict[str, Any]
    """The whole event object, ``type`` included."""


_DECODER = msgspec.json.Decoder(dict[str, Any])


def _decode(sse: SSEEvent) -> ResponsesEvent:
    try:
        data = _DECODER.decode(sse.data)
    except msgspec.ValidationError:
        raise StreamError(f"event {sse.event!r}: not a JSON object", frame=sse.index) from None
    except (msgspec.DecodeError, RecursionError) as err:
        raise StreamError(f"event {sse.event!r}: invalid JSON: {err}", frame=sse.index) from None
    kind = data.get("type")
    if type(kind) is not str:
        raise StreamError(f"event {sse.event!r}: no string 'type'", frame=sse.index)
    return ResponsesEvent(kind, sse.index, data)


class StreamParser:
    """Byte chunks in, `ResponsesEvent` objects out; see the module docstring."""

    __slots__ = ("_sse",)

    def __init__(self) -> None:
        self._sse = SSEParser()

    @runs_roomy_unsized
    def feed(self, chunk: bytes | bytearray | memoryview) -> list[ResponsesEvent]:
        """Add ``chunk``; return the events it completed. A `StreamError` carries the events of
        this chunk decoded before the bad one in ``.received``."""
        out: list[ResponsesEvent] = []
        for sse in self._sse.feed(chunk):
            try:
                out.append(_decode(sse))
            except StreamError as err:
                err.received = out
                raise
        return out

    @runs_roomy_unsized
    def close(self) -> list[ResponsesEvent]:
        """End the stream; raise `StreamError` if it stopped inside an event."""
        try:
            events = self._sse.close()
        except DecodeError as err:
            raise StreamError(err.message, frame=err.frame) from None
        return [_decode(sse) for sse in events]


class StreamAccumulator:
    """Feeds a `StreamParser` and builds the `ModelResponse` (see the module docstring).

    ``feed(chunk)`` returns the new events (after applying them); ``close()`` checks the stream
    ended with a terminal event and returns the response; ``response()`` gives it at any time.
    """

    __slots__ = ("_final", "_items", "_parser", "_snapshot", "events")

    def __init__(self) -> None:
        self._parser = StreamParser()
        self._snapshot: dict[str, Any] = {}
        self._final: dict[str, Any] | None = None
        self._items: dict[int, dict[str, Any]] = {}
        self.events = 0
        """How many events were applied."""

    @runs_roomy_unsized
    def feed(self, chunk: bytes | bytearray | memoryview) -> list[ResponsesEvent]:
        """Parse ``chunk`` and apply its events."""
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
        """End the stream and return the final response (`StreamError` if it was cut short)."""
        for event in self._parser.close():
            self.apply(event)
        if self._final is None:
            raise StreamError("the stream ended before response.completed", frame=self.events)
        return self.response()

    def apply(self, event: ResponsesEvent) -> None:
        """Apply one event (as `StreamParser` yields them)."""
        index = self.events
        self.events += 1
        kind, data = event.type, event.data
        try:
            if kind == "error":
                err = StreamError(f"error event: {data.get('message')!r}", frame=index)
                err.error = data
                raise err
            if kind in _SNAPSHOT:
                self._snapshot = data["response"]
            elif kind in _TERMINAL:
                self._final = data["response"]
            elif kind.startswith("response.output_item."):
                item = copy.deepcopy(data["item"])
                self._items[data["output_index"]] = item
            else:
                self._delta(kind, data)
        except StreamError:
            raise
        except (KeyError, IndexError, TypeError, AttributeError) as err:
            raise StreamError(
                f"{kind}: does not fit the stream so far ({err!r})", frame=index
            ) from None

    def _delta(self, kind: str, data: dict[str, Any]) -> None:
        if not kind.startswith("response."):
            return
        name = kind[len("response.") :]
        if name in ("content_part.added", "content_part.done"):
            parts = self._items[data["output_index"]].setdefault("content", [])
            _put(parts, data["content_index"], copy.deepcopy(data["part"]))
        elif name in ("reasoning_summary_part.added", "reasoning_summary_part.done"):
            parts = self._items[data["output_index"]].setdefault("summary", [])
            _put(parts, data["summary_index"], copy.deepcopy(data["part"]))
        elif name in ("output_text.delta", "refusal.delta", "reasoning_text.delta"):
            field = "refusal" if name == "refusal.delta" else "text"
            part = self._items[data["output_index"]]["content"][data["content_index"]]
            part[field] = part.get(field, "") + data["delta"]
        elif name in ("output_text.done", "reasoning_text.done"):
            self._items[data["output_index"]]["content"][data["content_index"]]["text"] = data[
                "text"
            ]
        elif name == "refusal.done":
            part = self._items[data["output_index"]]["content"][data["content_index"]]
            part["refusal"] = data["refusal"]
        elif name == "output_text.annotation.added":
            part = self._items[data["output_index"]]["content"][data["content_index"]]
            _put(part.setdefault("annotations", []), data["annotation_index"], data["annotation"])
        elif name == "function_call_arguments.delta":
            item = self._items[data["output_index"]]
            item["arguments"] = item.get("arguments", "") + data["delta"]
        elif name == "function_call_arguments.done":
            self._items[data["output_index"]]["arguments"] = data["arguments"]
        elif name == "reasoning_summary_text.delta":
            part = self._items[data["output_index"]]["summary"][data["summary_index"]]
            part["text"] = part.get("text", "") + data["delta"]
        elif name == "reasoning_summary_text.done":
            self._items[data["output_index"]]["summary"][data["summary_index"]]["text"] = data[
                "text"
            ]

    def output(self) -> list[dict[str, Any]]:
        """The output items as built from the events so far (not from the final snapshot)."""
        return [self._items[k] for k in sorted(self._items)]

    def response(self) -> ModelResponse:
        """The response so far: the terminal snapshot once it came, else the events' items."""
        if self._final is not None and self._final.get("output"):
            body = self._final
        else:
            body = dict(self._final if self._final is not None else self._snapshot)
            body["output"] = self.output()
        try:
            return response_from_dict(body)
        except WireError as err:
            raise StreamError(
                f"the accumulated response is malformed: {err}", frame=self.events
            ) from None


def _put(items: list[Any], index: int, value: Any) -> None:
    if index == len(items):
        items.append(value)
    else:
        items[index] = value


def accumulate(chunks: Any) -> ModelResponse:
    """The final `ModelResponse` of a whole stream given as an iterable of byte chunks."""
    acc = StreamAccumulator()
    for chunk in chunks:
        acc.feed(chunk)
    return acc.close()
