"""The seed's message protocol as plain dataclasses: the semantic and benchmark baseline.

This module is section 1.2 of the minagent tutorial, kept in its style (``dataclasses``,
``Literal``, ``default_factory``) and restricted to the standard library: importing it never
imports msgspec or anything else outside the standard library.

Two deliberate changes from the seed, both required by the wire protocol (PROTOCOL.md):

1. :meth:`Message.to_wire` keeps the text of a message that also carries tool calls: it emits a
   ``text`` block before the ``tool_use`` blocks. The seed's version silently dropped that text.
2. :class:`ModelResponse` gets the same :meth:`~ModelResponse.to_wire` /
   :meth:`~ModelResponse.from_wire` pair, wire shape
   ``{"message": ..., "stop_reason": ..., "usage": {...}}``.

Everything else (empty string versus missing, ``tool_call_id`` absent rather than ``null``,
``from_wire`` defaults) is the seed's behaviour unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["Message", "ModelResponse", "Role", "ToolCall"]

Role = Literal["system", "user", "assistant", "tool"]
"""Who speaks: a plain string at run time, checked by the type checker."""


@dataclass
class ToolCall:
    """One tool invocation requested by the model."""

    id: str
    """Unique id of the call; the answering ``tool`` message carries it as ``tool_call_id``."""
    name: str
    """Name of the tool to run."""
    arguments: dict[str, Any]
    """JSON arguments for the tool (``input`` on the wire)."""


@dataclass
class Message:
    """One message of a conversation: text, tool calls, or a tool result."""

    role: Role
    """Who speaks."""
    content: str = ""
    """The text; ``""`` is a value of its own, not "missing"."""
    tool_calls: list[ToolCall] = field(default_factory=list)
    """Tool calls requested by an assistant message, in order."""
    tool_call_id: str | None = None
    """For ``tool`` messages: the id of the call this result answers."""

    def to_wire(self) -> dict[str, Any]:
        """Return the wire form (a JSON-ready dict).

        Text-only messages carry ``content`` as a string. A message with tool calls carries a
        block list: a ``text`` block first when the text is non-empty (a change from the seed,
        which dropped it), then one ``tool_use`` block per call. ``tool_call_id`` is present only
        when set.
        """
        if self.tool_calls:
            blocks: list[dict[str, Any]] = []
            if self.content:
                blocks.append({"type": "text", "text": self.content})
            blocks.extend(
                {"type": "tool_use", "id": tc.id, "name": tc.name, "input": tc.arguments}
                for tc in self.tool_calls
            )
            content: Any = blocks
        else:
            content = self.content
        wire: dict[str, Any] = {"role": self.role, "content": content}
        if self.tool_call_id is not None:
            wire["tool_call_id"] = self.tool_call_id
        return wire

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> Message:
        """Build a message from its wire form (the seed's parser, unchanged).

        A missing ``content`` reads as ``""``; ``text`` blocks are joined, ``tool_use`` blocks
        become :class:`ToolCall` objects, other blocks are ignored (the reference cannot hold
        them; :mod:`minagent.wire` keeps them).
        """
        content = wire.get("content", "")
        tool_calls: list[ToolCall] = []
        text = ""
        if isinstance(content, list):
            for block in content:
                if block.get("type") == "tool_use":
                    tool_calls.append(
                        ToolCall(
                            id=block["id"],
                            name=block["name"],
                            arguments=dict(block.get("input", {})),
                        )
                    )
                elif block.get("type") == "text":
                    text += block.get("text", "")
        else:
            text = content
        return cls(
            role=wire["role"],
            content=text,
            tool_calls=tool_calls,
            tool_call_id=wire.get("tool_call_id"),
        )


@dataclass
class ModelResponse:
    """The full result of one model call: what it said, why it stopped, what it cost."""

    message: Message
    """The assistant message."""
    stop_reason: str = "end_turn"
    """Why the model stopped: ``end_turn``, ``tool_use``, ``max_tokens``, ... (an open set)."""
    usage: dict[str, int] = field(default_factory=dict)
    """Token counters by name (``input_tokens``, ``output_tokens``, cache counters, ...)."""

    def to_wire(self) -> dict[str, Any]:
        """Return the wire form ``{"message": ..., "stop_reason": ..., "usage": {...}}``.

        Added to the seed so a whole model call can be stored and sent like a message.
        """
        return {
            "message": self.message.to_wire(),
            "stop_reason": self.stop_reason,
            "usage": dict(self.usage),
        }

    @classmethod
    def from_wire(cls, wire: dict[str, Any]) -> ModelResponse:
        """Build a response from its wire form; a missing ``stop_reason`` or ``usage`` defaults."""
        return cls(
            message=Message.from_wire(wire["message"]),
            stop_reason=wire.get("stop_reason", "end_turn"),
            usage=dict(wire.get("usage", {})),
        )
