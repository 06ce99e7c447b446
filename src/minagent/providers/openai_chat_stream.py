"""OpenAI Chat Completions streaming: an incremental chunk parser and an accumulator.

`StreamParser` turns byte chunks (split anywhere) into `ChatChunk` objects (msgspec Structs of
the ``chat.completion.chunk`` shape, decoded straight from the SSE buffer); ``data: [DONE]`` ends
the stream and anything after it is refused. `StreamAccumulator` joins the deltas per choice
(text, refusal, tool calls whose ``arguments`` arrive in pieces) and builds the `ModelResponse`
that `openai_chat.decode_response` gives for the equivalent ``chat.completion`` body, further
choices (``n > 1``) included.

Keys the chunk shape does not name (a vendor's ``reasoning_content`` delta, ``x_groq``, a tool
call's ``extra_content``, ...) are not dropped: a chunk carrying any keeps them in
``ChatChunk.unknown``, and the accumulator merges them the way the SDK's ``accumulate_delta``
does (delta strings joined, objects merged, the rest replaced) into the message, the choice, the
tool call or the response they came with. ``thinking_blocks`` deltas (LiteLLM's extension,
`minagent.providers._chat_ext`) are joined per block ``index`` into whole blocks, so the
accumulated message reads back as signed thinking like the non-streamed one.

Built on the shared stream core (`minagent.providers._stream`). An error object in the stream
(``{"error": {...}}``), bad JSON, a chunk of the wrong shape, data after ``[DONE]``, or a stream
that ends inside an event or before ``[DONE]`` raises `StreamError` with the event index
(``.frame``); what was received before stays applied (``accumulator.response()``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec
from msgspec import UNSET, UnsetType

from ..wire.limits import DEFAULT, Limits
from ..wire.messages import ModelResponse
from . import openai_chat as adapter
from ._sse import SSEEvent
from ._stream import Accumulator, Parser, accumulate_with, decode_event, fail

__all__ = [
    "ChatChunk",
    "ChoiceDelta",
    "StreamAccumulator",
    "StreamParser",
    "ToolCallDelta",
    "accumulate",
]


_HIDDEN = "(minagent: unknown keys)"
"""The JSON name of `ChatChunk.unknown`: a chunk that really has this key takes the slow path,
which keeps it as an unknown key like any other."""


class FunctionDelta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A piece of a tool call's function: its name (first piece) and arguments text."""

    name: str | UnsetType | None = UNSET
    arguments: str | UnsetType | None = UNSET


class ToolCallDelta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A piece of tool call ``index``: ``id`` and ``type`` come with the first piece."""

    index: int | UnsetType = UNSET
    """Absent in some vendors' streams (Mistral sends each call whole): the call is then a new
    one, unless its ``id`` is the last call's."""
    id: str | UnsetType | None = UNSET
    type: str | UnsetType | None = UNSET
    function: FunctionDelta | UnsetType | None = UNSET


class Delta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """What one chunk adds to a choice's message."""

    role: str | UnsetType | None = UNSET
    content: str | list[Any] | UnsetType | None = UNSET
    """Text; some vendors (Mistral) send a list of content parts instead, kept in order."""
    refusal: str | UnsetType | None = UNSET
    tool_calls: list[ToolCallDelta] | UnsetType | None = UNSET


class ChoiceDelta(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One choice's part of a chunk."""

    index: int
    delta: Delta
    logprobs: dict[str, Any] | UnsetType | None = UNSET
    finish_reason: str | UnsetType | None = UNSET


class ChatChunk(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """One ``chat.completion.chunk``; keys this module does not name are in ``unknown``."""

    id: str
    choices: list[ChoiceDelta]
    created: int
    model: str
    object: str = "chat.completion.chunk"
    system_fingerprint: str | UnsetType | None = UNSET
    service_tier: str | UnsetType | None = UNSET
    usage: dict[str, Any] | UnsetType | None = UNSET
    obfuscation: str | UnsetType = UNSET
    """Random padding some chunks carry (not part of the response; the SDK drops it too)."""
    error: dict[str, Any] | UnsetType = UNSET
    unknown: Any = msgspec.field(default=None, name=_HIDDEN)
    """The keys of this chunk no field above names, at every level, as `_split` cuts them out
    (``None`` for a chunk without any). Never read from JSON: a chunk that has a key named
    `_HIDDEN` keeps it as an unknown key."""


_DECODER = msgspec.json.Decoder(ChatChunk)
_DONE = b"[DONE]"


def _names(cls: type) -> frozenset[str]:
    return frozenset(cls.__struct_encode_fields__) - {_HIDDEN}  # type: ignore[attr-defined]


_TOP, _CHOICE, _DELTA, _CALL = (_names(c) for c in (ChatChunk, ChoiceDelta, Delta, ToolCallDelta))


class _Unknown(msgspec.Struct, gc=False):
    """The keys of one chunk that the Structs do not name, by where they sat."""

    top: dict[str, Any]
    choices: list[tuple[int, dict[str, Any], dict[str, Any], list[tuple[int, dict[str, Any]]]]]
    """Per choice that had any: (choice index, its unknown keys, its delta's, (call index, the
    call's) for its tool calls)."""


def _cut(obj: Any, names: frozenset[str]) -> tuple[Any, dict[str, Any]]:
    """``obj`` without the keys outside ``names``, and those keys (only objects are cut)."""
    if type(obj) is not dict or obj.keys() <= names:
        return obj, {}
    known = {k: v for k, v in obj.items() if k in names}
    return known, {k: v for k, v in obj.items() if k not in names}


def _split(data: dict[str, Any]) -> tuple[dict[str, Any], _Unknown]:
    """A chunk object cut into what the Structs name and the rest."""
    data, top = _cut(data, _TOP)
    choices = data.get("choices")
    unknown = _Unknown(top, [])
    if type(choices) is list:
        kept = []
        for choice in choices:
            choice, extra = _cut(choice, _CHOICE)
            delta, dextra = _cut(choice.get("delta") if type(choice) is dict else None, _DELTA)
            calls_extra: list[tuple[int, dict[str, Any]]] = []
            if type(delta) is dict and type(delta.get("tool_calls")) is list:
                calls = []
                for call in delta["tool_calls"]:
                    call, cextra = _cut(call, _CALL)
                    if cextra:
                        calls_extra.append((call.get("index"), cextra))
                    calls.append(call)
                delta = dict(delta, tool_calls=calls)
            if type(choice) is dict and "delta" in choice:
                choice = dict(choice, delta=delta)
            if extra or dextra or calls_extra:
                unknown.choices.append((choice.get("index"), extra, dextra, calls_extra))
            kept.append(choice)
        data = dict(data, choices=kept)
    return data, unknown


class StreamParser(Parser):
    """Byte chunks in, `ChatChunk` objects out; ``.done`` once ``[DONE]`` arrived."""

    __slots__ = ()
    provider = "openai_chat"
    end = "data: [DONE]"

    @property
    def done(self) -> bool:
        """``data: [DONE]`` arrived."""
        return self.ended is not None

    def _decode(self, raw: SSEEvent) -> ChatChunk | None:
        data = raw.data
        if data == _DONE:
            self.ended = raw.index
            return None
        try:
            chunk: ChatChunk = _DECODER.decode(data)
        except (msgspec.DecodeError, RecursionError, UnicodeError):  # UnicodeError: msgspec < 0.20
            pass
        else:
            if chunk.error is UNSET and chunk.unknown is None:
                return chunk
        obj = decode_event(data, raw.index, "chunk")
        if "error" in obj:
            error = obj["error"]
            detail = error.get("message", error) if type(error) is dict else error
            exc = fail(f"error event: {detail}", raw.index)
            exc.error = error
            raise exc
        known, unknown = _split(obj)
        try:
            chunk = msgspec.convert(known, ChatChunk)
        except msgspec.ValidationError as err:
            raise fail(f"chunk: {err}", raw.index) from None
        if unknown.top or unknown.choices:
            chunk.unknown = unknown
        return chunk


class _Choice:
    __slots__ = (
        "calls",
        "content",
        "extra",
        "finish",
        "logprobs",
        "message",
        "parts",
        "refusal",
        "role",
        "thinking_at",
    )

    def __init__(self) -> None:
        self.role: Any = None
        self.content: list[str] | None = None
        self.parts: list[Any] = []  # content sent as lists of parts
        self.refusal: list[str] | None = None
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish: Any = None
        self.logprobs: Any = None
        self.extra: dict[str, Any] = {}  # unknown choice keys
        self.message: dict[str, Any] = {}  # unknown delta keys, merged
        self.thinking_at: dict[Any, int] = {}  # thinking block index -> its place in the list


class StreamAccumulator(Accumulator):
    """Feeds a `StreamParser` and builds the `ModelResponse` (see the module docstring)."""

    __slots__ = ("_choices", "_top", "_usage")
    provider = "openai_chat"
    end = "data: [DONE]"

    def __init__(self, limits: Limits = DEFAULT) -> None:
        super().__init__(StreamParser(limits), limits)
        self._choices: dict[int, _Choice] = {}
        self._top: dict[str, Any] | None = None
        self._usage: Any = UNSET

    def _complete(self) -> str:
        return "" if self._parser.ended is not None else "before data: [DONE]"

    def _apply(self, chunk: ChatChunk, index: int) -> None:
        if type(chunk) is not ChatChunk:
            raise fail(f"not a ChatChunk: {type(chunk).__name__}", index)
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
            elif type(delta.content) is list:
                state.parts.extend(delta.content)
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
        if type(chunk.unknown) is _Unknown:
            self._unknown(chunk.unknown)

    def _unknown(self, unknown: _Unknown) -> None:
        assert self._top is not None
        _merge(self._top, unknown.top, join=False)
        for i, extra, delta, calls in unknown.choices:
            state = self._choices[i]
            _merge(state.extra, extra, join=False)
            if type(delta.get(_THINKING)) is list:
                delta = dict(delta)
                _add_thinking(state, delta.pop(_THINKING))
            _merge(state.message, delta, join=True)
            for j, more in calls:
                target = state.calls.get(j if type(j) is int else max(state.calls, default=-1))
                if target is not None:
                    _merge(target, more, join=True)

    def body(self) -> dict[str, Any]:
        """The ``chat.completion`` body accumulated so far (`StreamError` before any chunk)."""
        if self._top is None:
            raise fail("no chunk received yet", self.events)
        choices = []
        for index in sorted(self._choices):
            state = self._choices[index]
            content: Any = None if state.content is None else "".join(state.content)
            if state.parts:  # parts, with any text sent as strings after them as a text part
                content = state.parts + ([{"type": "text", "text": content}] if content else [])
            message: dict[str, Any] = {
                "role": state.role or "assistant",
                "content": content,
                "refusal": None if state.refusal is None else "".join(state.refusal),
            }
            message.update(state.message)
            if state.calls:
                message["tool_calls"] = [state.calls[i] for i in sorted(state.calls)]
            choice = {
                "index": index,
                "message": message,
                "logprobs": state.logprobs,
                "finish_reason": state.finish or "",
            }
            choice.update(state.extra)
            choices.append(choice)
        if not choices:
            choices.append(
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": None, "refusal": None},
                    "logprobs": None,
                    "finish_reason": "",
                }
            )
        top = self._top
        body: dict[str, Any] = {
            "id": top["id"],
            "object": "chat.completion",
            "created": top["created"],
            "model": top["model"],
            "choices": choices,
        }
        if self._usage is not UNSET:
            body["usage"] = self._usage
        for key, value in top.items():
            if key not in body:
                body[key] = value
        return body

    def _decode(self, body: dict[str, Any]) -> ModelResponse:
        return adapter.decode_response(msgspec.json.encode(body))


def _merge(into: dict[str, Any], more: dict[str, Any], *, join: bool) -> None:
    """Merge unknown keys as the SDK's ``accumulate_delta`` does: with ``join``, strings are
    concatenated (a ``reasoning_content`` delta); objects merge key by key; anything else (and
    every value without ``join``) replaces the one before."""
    for key, value in more.items():
        current = into.get(key)
        if type(value) is dict and type(current) is dict:
            merged = dict(current)
            _merge(merged, value, join=join)
            into[key] = merged
        elif join and type(value) is str and type(current) is str:
            into[key] = current + value
        else:
            into[key] = value


_THINKING = "thinking_blocks"


def _add_thinking(state: _Choice, entries: list[Any]) -> None:
    """Join ``thinking_blocks`` deltas (LiteLLM's stream shape: pieces of thinking text, then
    the signature, each tagged with its block's ``index``) into whole blocks: thinking text
    joined, the signature set, redacted ``data`` set; the stream-only ``index`` left out. A
    piece without an index continues the last block of its type while that one is unsigned."""
    blocks = state.message.setdefault(_THINKING, [])
    if type(blocks) is not list:
        return
    for entry in entries:
        if type(entry) is not dict:
            blocks.append(entry)
            continue
        index = entry.get("index")
        kind = entry.get("type")
        at = state.thinking_at.get(index) if index is not None else None
        if at is None and index is None and blocks:
            last = blocks[-1]
            if (
                type(last) is dict
                and last.get("type") == kind == "thinking"
                and ("signature" not in last)
            ):
                at = len(blocks) - 1
        if at is None:
            at = len(blocks)
            blocks.append({"type": kind})
            if index is not None:
                state.thinking_at[index] = at
        block = blocks[at]
        for key, value in entry.items():
            if key == "index" or key == "type" or value is None:
                continue
            if key == "thinking" and type(value) is str:
                block["thinking"] = block.get("thinking", "") + value
            elif key == "signature" and value == "":
                continue
            else:
                block[key] = value
        if kind == "thinking":
            block.setdefault("thinking", "")


def _add_call(calls: dict[int, dict[str, Any]], delta: ToolCallDelta) -> None:
    at = delta.index
    if at is UNSET:  # no index: a new call, unless it continues the last one (same id)
        last = max(calls, default=-1)
        same = last >= 0 and delta.id and calls[last]["id"] == delta.id
        at = last if same else last + 1
    call = calls.get(at)
    if call is None:
        call = calls[at] = {
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
            if type(current) is list:
                current.extend(value)  # our own copy, made when the key first came
            else:
                state.logprobs[key] = list(value)
        elif key not in state.logprobs:
            state.logprobs[key] = value


def accumulate(
    chunks: Iterable[bytes | bytearray | memoryview], *, limits: Limits = DEFAULT
) -> ModelResponse:
    """The final `ModelResponse` of a whole stream given as an iterable of byte chunks."""
    result: ModelResponse = accumulate_with(StreamAccumulator(limits), chunks)
    return result
