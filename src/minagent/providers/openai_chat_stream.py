"""OpenAI Chat Completions streaming: an incremental chunk parser and an accumulator.

`StreamParser` turns byte chunks (split anywhere) into `ChatChunk` objects (msgspec Structs of
the ``chat.completion.chunk`` shape, decoded straight from the SSE buffer); ``data: [DONE]`` ends
the stream. `StreamAccumulator` joins the deltas per choice (text, refusal, tool calls whose
``arguments`` arrive in pieces) and builds the `ModelResponse` that `openai_chat.decode_response`
gives for the equivalent ``chat.completion`` body, further choices (``n > 1``) included.

An error object in the stream (``{"error": {...}}``), bad JSON, or a stream that ends inside an
event or before ``[DONE]`` raises `StreamError` with the event index (``.frame``); what was
received before stays applied (``accumulator.response()``).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from ..wire._stack import runs_roomy_unsized
from ..wire.errors import DecodeError
from ..wire.messages import ModelResponse
from ._base import StreamError
from ._sse import SSEParser

__all__ = [
    "ChatChunk",
    "ChoiceDelta",
    "StreamAccumulator",
    "StreamParser",
    "ToolCallDelta",
    "accumulate",
]


class FunctionDelta(msgspec.Struct, gc=False):
    """A piece of a tool call's function: its name (first piece) and arguments text."""

    name: str | UnsetType | None = UNSET
    arguments: str | UnsetType | None = UNSET


class ToolCallDelta(msgspec.Struct, gc=False):
    """A piece of tool call ``index``: ``id`` and ``type`` come with the first piece."""

    index: int
    id: str | UnsetType | None = UNSET
    type: str | UnsetType | None = UNSET
    function: FunctionDelta | UnsetType | None = UNSET


class Delta(msgspec.Struct, gc=False):
    """What one chunk adds to a choice's message."""

    role: str | UnsetType | None = UNSET
    content: str | UnsetType | None = UNSET
    refusal: str | UnsetType | None = UNSET
    tool_calls: list[ToolCallDelta] | UnsetType | None = UNSET


class ChoiceDelta(msgspec.Struct, gc=False):
    """One choice's part of a chunk."""

    index: int
    delta: Delta
    logprobs: dict[str, Any] | UnsetType | None = UNSET
    finish_reason: str | UnsetType | None = UNSET


class ChatChunk(msgspec.Struct, gc=False):
    """One ``chat.completion.chunk`` (unknown keys are ignored, as the SDK does)."""

    id: str
    choices: list[ChoiceDelta]
    created: int
    model: str
    object: str = "chat.completion.chunk"
    system_fingerprint: str | UnsetType | None = UNSET
    service_tier: str | UnsetType | None = UNSET
    usage: dict[str, Any] | UnsetType | None = UNSET
    error: dict[str, Any] | UnsetType = UNSET


_DECODER = msgspec.json.Decoder(ChatChunk)
_ERROR = msgspec.json.Decoder(dict[str, Any])
_DONE = b"[DONE]"


class StreamParser:
    """Byte chunks in, `ChatChunk` objects out; ``.done`` once ``[DONE]`` arrived."""

    __slots__ = ("_sse", "done")

    def __init__(self) -> None:
        self._sse = SSEParser()
        self.done = False

    @runs_roomy_unsized
    def feed(self, chunk: bytes | bytearray | memoryview) -> list[ChatChunk]:
        """Add ``chunk``; return the chunks it completed. Raises `StreamError` with
        ``.received`` holding the chunks of this call decoded before the failure."""
        out: list[ChatChunk] = []
        for sse in self._sse.feed(chunk):
            data = sse.data
            if data == _DONE:
                self.done = True
                continue
            try:
                out.append(_DECODER.decode(data))
            except (msgspec.DecodeError, RecursionError) as err:
                error = _error(data)
                exc = StreamError(
                    f"error event: {error.get('message', error)}"
                    if error is not None
                    else f"invalid chunk: {err}",
                    frame=sse.index,
                )
                exc.error = error
                exc.received = out
                raise exc from None
        return out

    @runs_roomy_unsized
    def close(self) -> None:
        """End the stream; raise `StreamError` if it stopped inside an event."""
        try:
            self._sse.close()
        except DecodeError as err:
            raise StreamError(err.message, frame=err.frame) from None


def _error(data: bytes) -> Any:
    try:
        obj = _ERROR.decode(data)
    except (msgspec.DecodeError, RecursionError):
        return None
    error = obj.get("error")
    return error if isinstance(error, dict) else None


class _Choice:
    __slots__ = ("calls", "content", "finish", "logprobs", "refusal", "role")

    def __init__(self) -> None:
        self.role: Any = None
        self.content: list[str] | None = None
        self.refusal: list[str] | None = None
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish: Any = None
        self.logprobs: Any = None


class StreamAccumulator:
    """Feeds a `StreamParser` and builds the `ModelResponse` (see the module docstring)."""

    __slots__ = ("_choices", "_parser", "_top", "_usage", "events")

    def __init__(self) -> None:
        self._parser = StreamParser()
        self._choices: dict[int, _Choice] = {}
        self._top: dict[str, Any] | None = None
        self._usage: Any = UNSET
        self.events = 0
        """How many chunks were applied."""

    @runs_roomy_unsized
    def feed(self, chunk: bytes | bytearray | memoryview) -> list[ChatChunk]:
        """Parse ``chunk`` and apply its chunks; returns them."""
        try:
            chunks = self._parser.feed(chunk)
        except StreamError as err:
            for c in err.received:
                self.apply(c)
            raise
        for c in chunks:
            self.apply(c)
        return chunks

    @runs_roomy_unsized
    def close(self) -> ModelResponse:
        """End the stream and return the final response (`StreamError` if incomplete)."""
        self._parser.close()
        if not self._parser.done:
            raise StreamError("the stream ended before data: [DONE]", frame=self.events)
        return self.response()

    def apply(self, chunk: ChatChunk) -> None:
        """Apply one parsed chunk."""
        self.events += 1
        if self._top is None:
            self._top = {"id": chunk.id, "created": chunk.created, "model": chunk.model}
            if chunk.service_tier is not UNSET:
                self._top["service_tier"] = chunk.service_tier
            if chunk.system_fingerprint is not UNSET:
                self._top["system_fingerprint"] = chunk.system_fingerprint
        if chunk.usage is not UNSET and chunk.usage is not None:
            self._usage = chunk.usage
        for part in chunk.choices:
            state = self._choices.get(part.index)
            if state is None:
                state = self._choices[part.index] = _Choice()
            delta = part.delta
            if delta.role:
                state.role = delta.role
            if type(delta.content) is str:
                if state.content is None:
                    state.content = []
                state.content.append(delta.content)
            if type(delta.refusal) is str:
                if state.refusal is None:
                    state.refusal = []
                state.refusal.append(delta.refusal)
            if delta.tool_calls:
                for call in delta.tool_calls:
                    _add_call(state.calls, call)
            if part.finish_reason:
                state.finish = part.finish_reason
            if part.logprobs:
                _add_logprobs(state, part.logprobs)

    def response(self) -> ModelResponse:
        """The response so far, as `openai_chat.decode_response` would give it."""
        from .openai_chat import decode_response

        if self._top is None:
            raise StreamError("no chunk received yet", frame=self.events)
        choices = []
        for index in sorted(self._choices):
            state = self._choices[index]
            message: dict[str, Any] = {
                "role": state.role or "assistant",
                "content": None if state.content is None else "".join(state.content),
                "refusal": None if state.refusal is None else "".join(state.refusal),
            }
            if state.calls:
                message["tool_calls"] = [state.calls[i] for i in sorted(state.calls)]
            choices.append(
                {
                    "index": index,
                    "message": message,
                    "logprobs": state.logprobs,
                    "finish_reason": state.finish or "",
                }
            )
        if not choices:
            choices.append(
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": None, "refusal": None},
                    "logprobs": None,
                    "finish_reason": "",
                }
            )
        body: dict[str, Any] = {
            "id": self._top["id"],
            "object": "chat.completion",
            "created": self._top["created"],
            "model": self._top["model"],
            "choices": choices,
        }
        if self._usage is not UNSET:
            body["usage"] = self._usage
        for key in ("service_tier", "system_fingerprint"):
            if key in self._top:
                body[key] = self._top[key]
        return decode_response(msgspec.json.encode(body))


def _add_call(calls: dict[int, dict[str, Any]], delta: ToolCallDelta) -> None:
    call = calls.get(delta.index)
    if call is None:
        call = calls[delta.index] = {
            "id": "",
            "type": "function",
            "function": {"name": "", "arguments": ""},
        }
    if delta.id:
        call["id"] = delta.id
    if delta.type:
        call["type"] = delta.type
    function = delta.function
    if function is not None and function is not UNSET:
        if function.name:
            call["function"]["name"] += function.name
        if function.arguments:
            call["function"]["arguments"] += function.arguments


def _add_logprobs(state: _Choice, logprobs: dict[str, Any]) -> None:
    if state.logprobs is None:
        state.logprobs = {k: (list(v) if type(v) is list else v) for k, v in logprobs.items()}
        return
    for key, value in logprobs.items():
        if type(value) is list:
            current = state.logprobs.get(key)
            state.logprobs[key] = (current or []) + value
        elif key not in state.logprobs:
            state.logprobs[key] = value


def accumulate(chunks: Any) -> ModelResponse:
    """The final `ModelResponse` of a whole stream given as an iterable of byte chunks."""
    acc = StreamAccumulator()
    for chunk in chunks:
        acc.feed(chunk)
    return acc.close()
