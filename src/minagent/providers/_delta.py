"""The neutral delta model between a source stream and a target stream (see docs/streaming.md).

A stream translation is three steps, each written once:

1. a *reader* (in `translate`) turns the source provider's typed events, as its own
   `StreamAccumulator` applies them, into neutral deltas;
2. the deltas below are the whole vocabulary between the two sides;
3. a *writer* (``_emit_<target>.py``, a `Writer` subclass) turns the deltas into the target
   provider's event bytes.

The deltas, in the order a stream gives them:

- ``begin(header)``: the response starts; ``header`` is the target's body for the response so far
  (its id, model, creation time), as the target adapter encodes it;
- ``open_text()``, ``text(piece)``, ``close_text()``: a text block grows piece by piece (the only
  content sent piece by piece: its pieces are the same in every format);
- ``open_thinking()``, ``thinking(piece)``, ``close_thinking()``: the same for a thinking block,
  for a target whose writer says it renders thinking piece by piece exactly as its adapter
  writes a whole one (`Writer.can_think`, asked once with the adapter's rendering of a thinking
  block): Gemini thought parts, Responses reasoning items. Elsewhere thinking is a block;
- ``blocks(body)``: neutral content blocks that are complete, given as the target's body for a
  response holding just them (the target adapter's own rendering: tool calls, thinking, server
  blocks, anything else). Every policy decision (refuse, drop and list) is the adapter's;
- ``finish(body)``: the end; ``body`` is the target's non-streamed body for the whole response
  (``target.encode_response(source accumulated)``), from which the writer sends what the stream
  has not carried yet: stop reason, usage, response-level keys, message-level keys.

Writers append bytes to ``out``; the translator takes them after each source chunk.
"""

from __future__ import annotations

from typing import Any, ClassVar

import msgspec

__all__ = ["Writer", "dumps"]

dumps = msgspec.json.Encoder().encode
"""Compact JSON bytes of a value (the writers' one encoder)."""


class Writer:
    """Neutral deltas in, a target provider's stream bytes out (appended to ``out``)."""

    __slots__ = ("out",)

    target: ClassVar[str] = ""
    """The adapter name of the target format."""

    def __init__(self) -> None:
        self.out: list[bytes] = []
        """Bytes written and not yet taken (see `take`)."""

    def take(self) -> bytes:
        """The bytes written since the last call."""
        if not self.out:
            return b""
        data = b"".join(self.out)
        self.out.clear()
        return data

    def begin(self, header: dict[str, Any]) -> None:
        """The response starts (``header``: the target body of the response so far)."""
        raise NotImplementedError

    def open_text(self) -> None:
        """A text block starts."""
        raise NotImplementedError

    def text(self, piece: str) -> None:
        """More text for the open text block."""
        raise NotImplementedError

    def close_text(self) -> None:
        """The open text block is complete."""
        raise NotImplementedError

    def can_think(self, body: dict[str, Any]) -> bool:
        """Whether thinking can go piece by piece: ``body`` is the target adapter's body of a
        response holding one thinking block of text ``"x"``; True only when the writer's
        pieces accumulate to exactly that rendering (the default: never)."""
        return False

    def open_thinking(self) -> None:
        """A thinking block starts (only after `can_think` said yes)."""
        raise NotImplementedError

    def thinking(self, piece: str) -> None:
        """More thinking for the open thinking block."""
        raise NotImplementedError

    def close_thinking(self) -> None:
        """The open thinking block is complete."""
        raise NotImplementedError

    def blocks(self, body: dict[str, Any]) -> None:
        """Complete blocks, as the target body of a response holding only them."""
        raise NotImplementedError

    def finish(self, body: dict[str, Any]) -> None:
        """The end: ``body`` is the target's non-streamed body of the whole response."""
        raise NotImplementedError
