"""Gemini ``streamGenerateContent``: incremental chunk parsers (SSE and JSON array) and an
accumulator.

The stream is a sequence of ``GenerateContentResponse`` chunks, sent either as server-sent events
(``?alt=sse``: one ``data:`` line per chunk) or, by default, as one JSON array written out
piece by piece (``[{...}\\r\\n,\\r\\n{...}]``). `SSEChunkParser` and `ArrayChunkParser` take byte
chunks split anywhere and return `GeminiChunk` objects, each chunk's JSON decoded with msgspec
from the buffer. `StreamAccumulator` merges them into the response ``generateContent`` would have
returned, candidate by candidate (by their ``index``): consecutive text parts of the same kind
(thought or not) are joined, so a thought chunk followed by a text chunk stays two parts; a
``thoughtSignature`` stays on the part it came with (a text part carrying one is joined to the
text before it and the signature set there; the next text starts a new part); other parts are
appended; empty text parts without a signature add nothing; every other key (``finishReason``,
``usageMetadata``, ``modelVersion``, ``responseId``, ...) takes its latest value.

Built on the shared stream core (`minagent.providers._stream`). Refused with `StreamError` and
the chunk index (``.frame``): bad JSON, a chunk that is not an object, an ``error`` object, an
array stream that does not start with ``[`` or has data after its closing ``]``, and a stream
that ends inside a chunk, before the closing ``]``, or (SSE, which has no end marker) before any
candidate got its ``finishReason`` (or the prompt was blocked): a stream cut between two chunks
is an error, never a complete-looking ``end_turn``. The chunks before stay applied.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import msgspec

from ..wire.limits import DEFAULT, Limits
from ..wire.messages import ModelResponse
from . import gemini as adapter
from ._sse import SSEEvent
from ._stream import Accumulator, Parser, accumulate_with, decode_event, fail

__all__ = [
    "ArrayChunkParser",
    "GeminiChunk",
    "SSEChunkParser",
    "StreamAccumulator",
    "StreamParser",
    "accumulate",
]


class GeminiChunk(msgspec.Struct, frozen=True, gc=False):
    """One ``GenerateContentResponse`` chunk of the stream."""

    index: int
    """0-based position of the chunk in the stream."""
    data: dict[str, Any]
    """The chunk object."""


class SSEChunkParser(Parser):
    """Chunks of an ``alt=sse`` stream: one per ``data:`` event."""

    __slots__ = ()
    provider = "gemini"

    def _decode(self, raw: SSEEvent) -> GeminiChunk:
        obj = decode_event(raw.data, raw.index, "chunk")
        if "error" in obj:
            failure = fail(f"error chunk: {obj['error']!r}", raw.index)
            failure.error = obj["error"]
            raise failure
        return GeminiChunk(raw.index, obj)


_WS = b" \t\r\n"
_IN_STRING = re.compile(rb'["\\]')
_IN_VALUE = re.compile(rb'["{}\[\]]')


class _ArrayFraming:
    """Cuts a JSON-array stream into its top-level elements (as `SSEEvent` objects).

    A small scanner finds where each element ends (brackets outside strings), jumping from one
    bracket or quote to the next, so every byte is looked at once; msgspec decodes the element.
    """

    __slots__ = (
        "_buf",
        "_depth",
        "_done",
        "_esc",
        "_index",
        "_limit",
        "_offset",
        "_pos",
        "_start",
        "_started",
        "_str",
    )

    def __init__(self, limits: Limits) -> None:
        self._buf = bytearray()
        self._offset = 0  # stream offset of _buf[0]
        self._pos = 0  # next byte to scan
        self._start = -1  # start of the element being scanned
        self._depth = 0
        self._str = False
        self._esc = False
        self._started = False  # the opening '[' was seen
        self._done = False  # the closing ']' was seen
        self._index = 0
        self._limit = limits.event_limit

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[SSEEvent]:
        buf = self._buf
        buf += chunk
        out: list[SSEEvent] = []
        pos, n = self._pos, len(buf)
        while pos < n:
            if self._str:
                if self._esc:
                    self._esc = False
                    pos += 1
                    continue
                found = _IN_STRING.search(buf, pos)
                if found is None:
                    pos = n
                    break
                pos = found.start()
                if buf[pos] == 0x5C:  # backslash: skip what it escapes
                    self._esc = True
                else:
                    self._str = False
            elif self._depth:
                found = _IN_VALUE.search(buf, pos)
                if found is None:
                    pos = n
                    break
                pos = found.start()
                c = buf[pos]
                if c == 0x22:
                    self._str = True
                elif c in (0x7B, 0x5B):
                    self._depth += 1
                else:
                    self._depth -= 1
                    if not self._depth:
                        self._element(bytes(buf[self._start : pos + 1]), out)
            else:
                self._between(buf[pos], out)
                if self._depth:
                    self._start = pos
            pos += 1
        if self._depth:  # keep the element being scanned
            if pos - self._start > self._limit:
                self._too_long(pos - self._start, out)
            del buf[: self._start]
            self._offset += self._start
            self._start, pos = 0, pos - self._start
        else:
            self._offset += len(buf)
            del buf[:]
            pos = 0
        self._pos = pos
        return out

    def _between(self, c: int, out: list[SSEEvent]) -> None:
        """One byte outside any element."""
        if c in _WS:
            return
        if not self._started:
            if c != 0x5B:
                raise fail("a JSON-array stream must start with '['", 0, out)
            self._started = True
        elif self._done:
            raise fail("data after the closing ']'", self._index, out)
        elif c == 0x2C:  # ',' between elements
            pass
        elif c == 0x5D:
            self._done = True
        elif c == 0x7B:
            self._depth = 1
        else:
            raise fail(f"unexpected byte {chr(c)!r} between chunks", self._index, out)

    def _element(self, data: bytes, out: list[SSEEvent]) -> None:
        if len(data) > self._limit:
            self._too_long(len(data), out)
        out.append(SSEEvent("message", data, self._index, self._offset + self._start))
        self._index += 1

    def _too_long(self, size: int, out: list[SSEEvent]) -> None:
        raise fail(
            f"the chunk starting at byte {self._offset + self._start} is longer than the limit"
            f" of {self._limit} bytes ({size} bytes so far); raise Limits.max_event to accept it",
            self._index,
            out,
        )

    def close(self) -> list[SSEEvent]:
        if self._depth or not self._done:
            raise fail("the stream ended before the closing ']'", self._index)
        return []


class ArrayChunkParser(SSEChunkParser):
    """Chunks of a JSON-array stream: each top-level element of ``[...]``."""

    __slots__ = ()

    def _framing(self, limits: Limits) -> Any:
        return _ArrayFraming(limits)


class _Candidate:
    """One candidate being merged: its keys (latest value), its content's keys, its parts."""

    __slots__ = ("content", "keys", "parts")

    def __init__(self) -> None:
        self.keys: dict[str, Any] = {}
        self.content: dict[str, Any] | None = None
        self.parts: list[dict[str, Any]] = []

    def merge(self, candidate: dict[str, Any]) -> None:
        for key, value in candidate.items():
            if key != "content":
                self.keys[key] = value
        content = candidate.get("content")
        if type(content) is not dict:
            if "content" in candidate and self.content is None:
                self.keys["content"] = content  # kept as it came (not an object)
            return
        if self.content is None:
            self.content = {}
        for key, value in content.items():
            if key != "parts":
                self.content[key] = value
        parts = content.get("parts")
        if type(parts) is list:
            for part in parts:
                if type(part) is dict:
                    self._add(part)
                else:
                    self.parts.append(part)
        elif parts is not None:  # kept as it came: the final decode refuses it, as the adapter does
            self.content["parts"] = parts

    def _add(self, part: dict[str, Any]) -> None:
        keys = set(part) - {"text", "thought", "thoughtSignature"}
        text = part.get("text")
        if keys or type(text) is not str:
            self.parts.append(dict(part))
            return
        signature = part.get("thoughtSignature")
        last = self.parts[-1] if self.parts else None
        if (
            type(last) is dict
            and type(last.get("text")) is str
            and set(last) <= {"text", "thought", "thoughtSignature"}
            and "thoughtSignature" not in last
            and last.get("thought") is part.get("thought")
        ):
            last["text"] += text
            if signature is not None:
                last["thoughtSignature"] = signature
            return
        if text or signature is not None:
            self.parts.append(dict(part))

    def body(self) -> dict[str, Any]:
        candidate = dict(self.keys)
        if self.content is not None or self.parts:
            content = dict(self.content or {})
            if self.parts:
                content["parts"] = [dict(p) if type(p) is dict else p for p in self.parts]
            candidate["content"] = content
        return candidate


StreamParser = SSEChunkParser
"""The parser every adapter names `StreamParser` (`minagent.providers.get("gemini")`): the
server-sent-events framing (``?alt=sse``), which the SDKs ask for and `StreamAccumulator` reads
by default; `ArrayChunkParser` reads the JSON-array framing."""


class StreamAccumulator(Accumulator):
    """Feeds a chunk parser (``sse=True``: `SSEChunkParser`, else `ArrayChunkParser`) and merges
    the chunks into one response (see the module docstring)."""

    __slots__ = ("_body", "_candidates")
    provider = "gemini"

    def __init__(self, *, sse: bool = True, limits: Limits = DEFAULT) -> None:
        parser = SSEChunkParser(limits) if sse else ArrayChunkParser(limits)
        super().__init__(parser, limits)
        self._body: dict[str, Any] = {}
        self._candidates: dict[int, _Candidate] = {}

    @property
    def chunks(self) -> int:
        """How many chunks were applied (``events``)."""
        return self.events

    def _apply(self, chunk: GeminiChunk, index: int) -> None:
        data = chunk.data
        for key, value in data.items():
            if key != "candidates":
                self._body[key] = value
        candidates = data.get("candidates")
        if type(candidates) is not list:
            if "candidates" in data:
                self._body["candidates"] = candidates  # kept as it came (not a list)
            return
        for position, candidate in enumerate(candidates):
            if type(candidate) is not dict:
                raise fail(f"candidates[{position}] must be an object", index)
            at = candidate.get("index", position)
            if type(at) is not int:
                raise fail(f"candidates[{position}].index must be an integer", index)
            state = self._candidates.get(at)
            if state is None:
                state = self._candidates[at] = _Candidate()
            state.merge(candidate)

    def _complete(self) -> str:
        if not self.events:
            return "before any chunk"
        if any("finishReason" in c.keys for c in self._candidates.values()):
            return ""
        feedback = self._body.get("promptFeedback")
        if type(feedback) is dict and "blockReason" in feedback:
            return ""
        return "before any candidate's finishReason (the stream was cut between chunks)"

    def body(self) -> dict[str, Any]:
        """The ``GenerateContentResponse`` merged so far."""
        body = dict(self._body)
        if self._candidates:
            body["candidates"] = [self._candidates[i].body() for i in sorted(self._candidates)]
        return body

    def _decode(self, body: dict[str, Any]) -> ModelResponse:
        result: ModelResponse = adapter.response_from_dict(body)
        return result


def accumulate(
    chunks: Iterable[bytes | bytearray | memoryview],
    *,
    sse: bool = True,
    limits: Limits = DEFAULT,
) -> ModelResponse:
    """The final `ModelResponse` of a whole stream given as an iterable of byte chunks."""
    result: ModelResponse = accumulate_with(StreamAccumulator(sse=sse, limits=limits), chunks)
    return result
