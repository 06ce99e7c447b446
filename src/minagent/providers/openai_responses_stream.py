"""OpenAI Responses streaming: an incremental event parser and an accumulator.

`StreamParser` turns byte chunks (split anywhere) into `ResponsesEvent` objects, one per
server-sent ``response.*`` event, its JSON decoded with msgspec straight from the SSE buffer.
`StreamAccumulator` applies them: output items open with ``response.output_item.added``, grow
with the ``*.delta`` events (``output_text``, ``refusal``, ``reasoning_text``,
``reasoning_summary_text``, ``function_call_arguments``, ``custom_tool_call_input``,
``mcp_call_arguments``, ``code_interpreter_call_code``, annotations, content and summary parts)
and are replaced whole by ``response.output_item.done``. The terminal ``response.completed`` /
``response.incomplete`` / ``response.failed`` snapshot ends the stream and gives the final
response (``incomplete`` for ``max_output_tokens`` accumulates to ``stop_reason`` ``max_tokens``);
without one (a cut stream) the items built from the events do. Progress events of built-in tools
(``response.web_search_call.searching``, ...) carry no content and are counted, not applied:
their items arrive whole with ``response.output_item.done``.

Built on the shared stream core (`minagent.providers._stream`). Refused with `StreamError` and
the event index (``.frame``): an ``error`` event; bad JSON; an event whose fields have the wrong
type (``"response": 5``, an ``output_index`` of null); a delta for an item or part that was
never added, or of another kind (``output_text.delta`` into a ``refusal`` part, arguments into a
message); any event after the terminal one; a stream cut inside an event or before its terminal
event. What was received before stays applied (``accumulator.response()``). An event whose type
this module does not know is kept whole in ``accumulator.unknown`` (an `UnknownEvent`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from ..wire.limits import DEFAULT, Limits
from ..wire.messages import ModelResponse
from . import openai_responses as adapter
from ._sse import SSEEvent
from ._stream import Accumulator, Parser, UnknownEvent, accumulate_with, decode_event, fail, want

__all__ = ["ResponsesEvent", "StreamAccumulator", "StreamParser", "accumulate"]

_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})
_SNAPSHOT = frozenset({"response.created", "response.in_progress", "response.queued"})

_ITEM_TEXT: dict[str, tuple[str, str]] = {
    "function_call_arguments": ("function_call", "arguments"),
    "custom_tool_call_input": ("custom_tool_call", "input"),
    "mcp_call_arguments": ("mcp_call", "arguments"),
    "code_interpreter_call_code": ("code_interpreter_call", "code"),
}
"""``response.<name>.delta`` / ``.done``: the item type they go to and the item key they grow
(``.done`` carries the whole text under that same key)."""

_PART_TEXT: dict[str, tuple[str, str, str, str, str]] = {
    "output_text": ("message", "content", "content_index", "output_text", "text"),
    "refusal": ("message", "content", "content_index", "refusal", "refusal"),
    "reasoning_text": ("reasoning", "content", "content_index", "reasoning_text", "text"),
    "reasoning_summary_text": ("reasoning", "summary", "summary_index", "summary_text", "text"),
}
"""``response.<name>.delta`` / ``.done``: item type, the item's part list, the event key giving
the part's index, the part type, and the part key they grow (``.done``: the whole text)."""

_PARTS: dict[str, tuple[str, str]] = {
    "content_part": ("content", "content_index"),
    "reasoning_summary_part": ("summary", "summary_index"),
}
"""``response.<name>.added`` / ``.done``: the item's part list and the index key."""


class ResponsesEvent(msgspec.Struct, frozen=True, gc=False):
    """One ``response.*`` event."""

    type: str
    """The event's ``type`` (``response.output_text.delta``, ...)."""
    index: int
    """0-based position of the event in the stream."""
    data: dict[str, Any]
    """The whole event object, ``type`` included."""


class StreamParser(Parser):
    """Byte chunks in, `ResponsesEvent` objects out; see the module docstring."""

    __slots__ = ()
    provider = "openai_responses"
    end = "the terminal response event"

    def _decode(self, raw: SSEEvent) -> ResponsesEvent:
        what = f"event {raw.event!r}"
        data = decode_event(raw.data, raw.index, what)
        kind = want(data.get("type"), str, f"{what}: 'type'", raw.index)
        if kind in _TERMINAL:
            self.ended = raw.index
        return ResponsesEvent(kind, raw.index, data)


def _own(item: dict[str, Any]) -> dict[str, Any]:
    """A copy of an item that deltas may change without touching the event it came in: the item,
    its part lists, each part and each part's annotations are copied (nothing deeper)."""
    item = dict(item)
    for key in ("content", "summary"):
        parts = item.get(key)
        if type(parts) is list:
            item[key] = [_own_part(p) for p in parts]
    return item


def _own_part(part: Any) -> Any:
    if type(part) is not dict:
        return part
    part = dict(part)
    if type(part.get("annotations")) is list:
        part["annotations"] = list(part["annotations"])
    return part


class StreamAccumulator(Accumulator):
    """Feeds a `StreamParser` and builds the `ModelResponse` (see the module docstring).

    ``feed(chunk)`` returns the new events (after applying them); ``close()`` checks the stream
    ended with a terminal event and returns the response; ``response()`` gives it at any time.
    """

    __slots__ = ("_final", "_items", "_snapshot")
    provider = "openai_responses"
    end = "the terminal response event"

    def __init__(self, limits: Limits = DEFAULT) -> None:
        super().__init__(StreamParser(limits), limits)
        self._snapshot: dict[str, Any] = {}
        self._final: dict[str, Any] | None = None
        self._items: dict[int, dict[str, Any]] = {}

    def _apply(self, event: ResponsesEvent, index: int) -> None:
        kind, data = event.type, event.data
        if kind == "error":
            err = fail(f"error event: {data.get('message')!r}", index)
            err.error = data
            raise err
        if kind in _SNAPSHOT:
            self._snapshot = want(data.get("response"), dict, f"{kind}: 'response'", index)
        elif kind in _TERMINAL:
            self._final = want(data.get("response"), dict, f"{kind}: 'response'", index)
            self._mark_end(index)
        elif kind in ("response.output_item.added", "response.output_item.done"):
            at = self._index(data, "output_index", kind, index)
            self._items[at] = _own(want(data.get("item"), dict, f"{kind}: 'item'", index))
        elif not self._delta(kind, data, index) and not _progress(kind):
            self.unknown.append(UnknownEvent(kind, data, self.provider, event.index))

    @staticmethod
    def _index(data: dict[str, Any], key: str, kind: str, frame: int) -> int:
        value: int = want(data.get(key), int, f"{kind}: {key!r}", frame)
        if value < 0:
            raise fail(f"{kind}: {key!r} must not be negative, got {value}", frame)
        return value

    def _item(self, data: dict[str, Any], kind: str, frame: int, item_type: str) -> Any:
        at = self._index(data, "output_index", kind, frame)
        item = self._items.get(at)
        if item is None:
            raise fail(f"{kind} for output item {at}, which was never added", frame)
        if item.get("type") != item_type:
            raise fail(
                f"{kind} for output item {at}, a {item.get('type')!r} item"
                f" (it goes to a {item_type!r} item)",
                frame,
            )
        return item

    def _parts(self, item: dict[str, Any], key: str, kind: str, frame: int) -> list[Any]:
        parts = item.get(key)
        if parts is None:
            parts = item[key] = []
        checked: list[Any] = want(parts, list, f"{kind}: the item's {key!r}", frame)
        return checked

    def _delta(self, kind: str, data: dict[str, Any], frame: int) -> bool:
        """Apply a delta, part or annotation event; False for a type it does not know."""
        head, _, tail = kind.rpartition(".")
        name = head[len("response.") :] if head.startswith("response.") else ""
        if name in _PART_TEXT and tail in ("delta", "done"):
            item_type, key, index_key, part_type, field = _PART_TEXT[name]
            item = self._item(data, kind, frame, item_type)
            part = self._part(item, key, data, index_key, kind, frame, part_type)
            _grow(part, field, tail, data, kind, frame)
        elif name in _ITEM_TEXT and tail in ("delta", "done"):
            item_type, field = _ITEM_TEXT[name]
            _grow(self._item(data, kind, frame, item_type), field, tail, data, kind, frame)
        elif name in _PARTS and tail in ("added", "done"):
            key, index_key = _PARTS[name]
            at = self._index(data, "output_index", kind, frame)
            item = self._items.get(at)
            if item is None:
                raise fail(f"{kind} for output item {at}, which was never added", frame)
            parts = self._parts(item, key, kind, frame)
            part = _own_part(want(data.get("part"), dict, f"{kind}: 'part'", frame))
            _put(parts, self._index(data, index_key, kind, frame), part, kind, frame)
        elif kind == "response.output_text.annotation.added":
            item = self._item(data, kind, frame, "message")
            part = self._part(item, "content", data, "content_index", kind, frame, "output_text")
            notes = part.get("annotations")
            if notes is None:
                notes = part["annotations"] = []
            want(notes, list, f"{kind}: the part's 'annotations'", frame)
            at = self._index(data, "annotation_index", kind, frame)
            _put(notes, at, data.get("annotation"), kind, frame)
        else:
            return False
        return True

    def _part(
        self,
        item: dict[str, Any],
        key: str,
        data: dict[str, Any],
        index_key: str,
        kind: str,
        frame: int,
        part_type: str,
    ) -> dict[str, Any]:
        parts = self._parts(item, key, kind, frame)
        at = self._index(data, index_key, kind, frame)
        if at >= len(parts):
            raise fail(f"{kind} for part {at} of its item, which was never added", frame)
        part = parts[at]
        if type(part) is not dict or part.get("type") != part_type:
            got = part.get("type") if type(part) is dict else type(part).__name__
            raise fail(
                f"{kind} for part {at} of its item, a {got!r} part"
                f" (it goes to a {part_type!r} part)",
                frame,
            )
        return part

    def _complete(self) -> str:
        return "" if self._final is not None else "before response.completed"

    def output(self) -> list[dict[str, Any]]:
        """The output items as built from the events so far (not from the final snapshot)."""
        return [self._items[k] for k in sorted(self._items)]

    def body(self) -> dict[str, Any]:
        """The ``response`` object so far: the terminal snapshot once it came (with the items
        built from the events if its ``output`` is empty), else the latest snapshot with them."""
        if self._final is not None and self._final.get("output"):
            return dict(self._final)
        body = dict(self._final if self._final is not None else self._snapshot)
        body["output"] = self.output()
        return body

    def _decode(self, body: dict[str, Any]) -> ModelResponse:
        result: ModelResponse = adapter.response_from_dict(body)
        return result


def _grow(
    into: dict[str, Any], field: str, tail: str, data: dict[str, Any], kind: str, frame: int
) -> None:
    """``.delta``: append the event's ``delta`` to ``into[field]``; ``.done``: set the whole
    text the event carries under ``field``."""
    if tail == "delta":
        piece = want(data.get("delta"), str, f"{kind}: 'delta'", frame)
        current = want(into.get(field, ""), str, f"{kind}: the existing {field!r}", frame)
        into[field] = current + piece
    else:
        into[field] = want(data.get(field), str, f"{kind}: {field!r}", frame)


def _progress(kind: str) -> bool:
    """A built-in tool's progress event (``response.web_search_call.searching``, ...)."""
    head, _, _ = kind.rpartition(".")
    return head.startswith("response.") and head.endswith("_call")


def _put(items: list[Any], at: int, value: Any, kind: str, frame: int) -> None:
    if at == len(items):
        items.append(value)
    elif at < len(items):
        items[at] = value
    else:
        raise fail(f"{kind}: index {at} leaves a gap after {len(items)} entries", frame)


def accumulate(
    chunks: Iterable[bytes | bytearray | memoryview], *, limits: Limits = DEFAULT
) -> ModelResponse:
    """The final `ModelResponse` of a whole stream given as an iterable of byte chunks."""
    result: ModelResponse = accumulate_with(StreamAccumulator(limits), chunks)
    return result
