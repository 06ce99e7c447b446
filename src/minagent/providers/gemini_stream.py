"""Gemini ``streamGenerateContent``: incremental chunk parsers (SSE and JSON array) and an
accumulator.

The stream is a sequence of ``GenerateContentResponse`` chunks, sent either as server-sent events
(``?alt=sse``: one ``data:`` line per chunk) or, by default, as one JSON array written out
piece by piece (``[{...}\\r\\n,\\r\\n{...}]``). `SSEChunkParser` and `ArrayChunkParser` take byte
chunks split anywhere and return `GeminiChunk` objects, each chunk's JSON decoded with msgspec
from the buffer. `StreamAccumulator` merges them into the response ``generateContent`` would have
returned: consecutive text parts of the same kind (thought or not) are joined; a
``thoughtSignature`` stays on the part it came with (a text part carrying one is joined to the
text before it and the signature set there; the next text starts a new part); other parts are
appended; empty text parts without a signature add nothing; every other key (``finishReason``,
``usageMetadata``, ``modelVersion``, ``responseId``, ...) takes its latest value.

Bad JSON, a chunk that is not an object, an ``error`` object, or a stream that ends inside a chunk
raises `StreamError` with the chunk index (``.frame``); the chunks before stay applied.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..wire._stack import runs_roomy_unsized
from ..wire.errors import DecodeError, WireError
from ..wire.messages import ModelResponse
from ._base import StreamError
from ._sse import SSEParser
from .gemini import response_from_dict

__all__ = ["ArrayChunkParser", "GeminiChunk", "SSEChunkParser", "StreamAccumulator", "accumulate"]


class GeminiChunk(msgspec.Struct, frozen=True, gc=False):
    """One ``GenerateContentResponse`` chunk of the stream."""

    index: int
    """0-based position of the chunk in the stream."""
    data: dict[str, Any]
    """The chunk object."""


_DECODER = msgspec.json.Decoder(dict[str, Any])


def _decode(data: bytes | bytearray | memoryview, index: int) -> GeminiChunk:
    try:
        obj = _DECODER.decode(data)
    except msgspec.ValidationError:
        raise StreamError("chunk is not a JSON object", frame=index) from None
    except (msgspec.DecodeError, RecursionError) as err:
        raise StreamError(f"chunk: invalid JSON: {err}", frame=index) from None
    if "error" in obj:
        failure = StreamError(f"error chunk: {obj['error']!r}", frame=index)
        failure.error = obj["error"]
        raise failure
    return GeminiChunk(index, obj)


class SSEChunkParser:
    """Chunks of an ``alt=sse`` stream: one per ``data:`` event."""

    __slots__ = ("_sse",)

    def __init__(self) -> None:
        self._sse = SSEParser()

    @runs_roomy_unsized
    def feed(self, chunk: bytes | bytearray | memoryview) -> list[GeminiChunk]:
        """Add ``chunk``; return the chunks it completed (``StreamError.received``: those before
        a bad one)."""
        out: list[GeminiChunk] = []
        for sse in self._sse.feed(chunk):
            try:
                out.append(_decode(sse.data, sse.index))
            except StreamError as err:
                err.received = out
                raise
        return out

    @runs_roomy_unsized
    def close(self) -> list[GeminiChunk]:
        """End the stream; raise `StreamError` if it stopped inside an event."""
        try:
            events = self._sse.close()
        except DecodeError as err:
            raise StreamError(err.message, frame=err.frame) from None
        return [_decode(sse.data, sse.index) for sse in events]


_WS = b" \t\r\n"


class ArrayChunkParser:
    """Chunks of a JSON-array stream: each top-level element of ``[...]``.

    A small scanner finds where each element ends (braces outside strings); msgspec decodes it.
    """

    __slots__ = ("_buf", "_depth", "_done", "_esc", "_index", "_pos", "_start", "_started", "_str")

    def __init__(self) -> None:
        self._buf = bytearray()
        self._pos = 0  # next byte to scan
        self._start = -1  # start of the element being scanned
        self._depth = 0
        self._str = False
        self._esc = False
        self._started = False  # the opening '[' was seen
        self._done = False  # the closing ']' was seen
        self._index = 0

    @runs_roomy_unsized
    def feed(self, chunk: bytes | bytearray | memoryview) -> list[GeminiChunk]:
        """Add ``chunk``; return the elements it completed."""
        buf = self._buf
        buf += chunk
        out: list[GeminiChunk] = []
        pos, n = self._pos, len(buf)
        while pos < n:
            c = buf[pos]
            if self._str:
                if self._esc:
                    self._esc = False
                elif c == 0x5C:  # backslash
                    self._esc = True
                elif c == 0x22:
                    self._str = False
            elif self._depth:
                if c == 0x22:
                    self._str = True
                elif c in (0x7B, 0x5B):
                    self._depth += 1
                elif c in (0x7D, 0x5D):
                    self._depth -= 1
                    if not self._depth:
                        try:
                            out.append(_decode(bytes(buf[self._start : pos + 1]), self._index))
                        except StreamError as err:
                            err.received = out
                            raise
                        self._index += 1
            elif c in _WS:
                pass
            elif not self._started:
                if c != 0x5B:
                    raise StreamError("a JSON-array stream must start with '['", frame=0)
                self._started = True
            elif self._done:
                raise StreamError("data after the closing ']'", frame=self._index)
            elif c == 0x2C:  # ',' between elements
                pass
            elif c == 0x5D:
                self._done = True
            elif c == 0x7B:
                self._start, self._depth = pos, 1
            else:
                raise StreamError(f"unexpected byte {chr(c)!r} between chunks", frame=self._index)
            pos += 1
        if self._depth:  # keep the element being scanned
            del buf[: self._start]
            self._start, pos = 0, pos - self._start
        else:
            del buf[:]
            pos = 0
        self._pos = pos
        return out

    @runs_roomy_unsized
    def close(self) -> list[GeminiChunk]:
        """End the stream; raise `StreamError` if it stopped inside a chunk or before ``]``."""
        if self._depth or not self._done:
            raise StreamError("the stream ended before the closing ']'", frame=self._index)
        return []


class StreamAccumulator:
    """Feeds a chunk parser (``sse=True``: `SSEChunkParser`, else `ArrayChunkParser`) and merges
    the chunks into one response (see the module docstring)."""

    __slots__ = ("_body", "_candidate", "_parser", "_parts", "chunks")

    def __init__(self, *, sse: bool = True) -> None:
        self._parser: Any = SSEChunkParser() if sse else ArrayChunkParser()
        self._body: dict[str, Any] = {}
        self._candidate: dict[str, Any] = {}
        self._parts: list[dict[str, Any]] = []
        self.chunks = 0
        """How many chunks were applied."""

    @runs_roomy_unsized
    def feed(self, chunk: bytes | bytearray | memoryview) -> list[GeminiChunk]:
        """Parse ``chunk`` and apply the chunks it completed."""
        try:
            chunks: list[GeminiChunk] = self._parser.feed(chunk)
        except StreamError as err:
            for c in err.received:
                self.apply(c)
            raise
        for c in chunks:
            self.apply(c)
        return chunks

    @runs_roomy_unsized
    def close(self) -> ModelResponse:
        """End the stream and return the merged response."""
        final: list[GeminiChunk] = self._parser.close()
        for c in final:
            self.apply(c)
        if not self.chunks:
            raise StreamError("the stream held no chunk", frame=0)
        return self.response()

    def apply(self, chunk: GeminiChunk) -> None:
        """Merge one chunk."""
        self.chunks += 1
        for key, value in chunk.data.items():
            if key != "candidates":
                self._body[key] = value
        candidates = chunk.data.get("candidates")
        if type(candidates) is not list or not candidates or type(candidates[0]) is not dict:
            return
        for key, value in candidates[0].items():
            if key != "content":
                self._candidate[key] = value
        content = candidates[0].get("content")
        if type(content) is not dict:
            return
        for key, value in content.items():
            if key != "parts":
                self._candidate.setdefault("content", {})[key] = value
        parts = content.get("parts")
        if type(parts) is list:
            for part in parts:
                if type(part) is dict:
                    self._add(part)

    def _add(self, part: dict[str, Any]) -> None:
        keys = set(part) - {"text", "thought", "thoughtSignature"}
        text = part.get("text")
        if keys or type(text) is not str:
            self._parts.append(dict(part))
            return
        signature = part.get("thoughtSignature")
        last = self._parts[-1] if self._parts else None
        if (
            last is not None
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
            self._parts.append(dict(part))

    def response(self) -> ModelResponse:
        """The response merged so far."""
        body = dict(self._body)
        if self._candidate or self._parts:
            candidate = dict(self._candidate)
            content = dict(candidate.get("content", {}))
            if self._parts:
                content["parts"] = [dict(p) for p in self._parts]
            candidate["content"] = content
            body["candidates"] = [candidate]
        try:
            return response_from_dict(body)
        except WireError as err:
            raise StreamError(
                f"the merged response is malformed: {err}", frame=self.chunks
            ) from None


def accumulate(chunks: Any, *, sse: bool = True) -> ModelResponse:
    """The final `ModelResponse` of a whole stream given as an iterable of byte chunks."""
    acc = StreamAccumulator(sse=sse)
    for chunk in chunks:
        acc.feed(chunk)
    return acc.close()
