"""The same conversation in real peers' message types, and back (each import is optional).

- pydantic-ai: system / user / tool-result messages are `ModelRequest` parts, assistant messages
  are `ModelResponse` parts (`TextPart` then `ToolCallPart` per call). A tool result's
  `ToolReturnPart` needs the tool's name, looked up from the call it answers.
- LangChain: `SystemMessage`, `HumanMessage`, `AIMessage` (``tool_calls``), `ToolMessage`.

Every conversion back gives `minagent.types` objects, so the agreement check compares them with
the corpus. Timestamps are fixed so that the objects are deterministic.
"""

from __future__ import annotations

import datetime
from typing import Any

from .. import types as ref

__all__ = [
    "from_langchain",
    "from_pydantic_ai",
    "to_langchain",
    "to_pydantic_ai",
]

_EPOCH = datetime.datetime(2025, 1, 1, tzinfo=datetime.timezone.utc)


def to_pydantic_ai(conversation: list[ref.Message]) -> list[Any]:
    """The conversation as pydantic-ai ``ModelMessage`` objects."""
    from pydantic_ai import messages as pa

    names: dict[str, str] = {}
    out: list[Any] = []
    for msg in conversation:
        if msg.role == "assistant":
            parts: list[Any] = [pa.TextPart(msg.content)] if msg.content else []
            for call in msg.tool_calls:
                names[call.id] = call.name
                parts.append(pa.ToolCallPart(call.name, call.arguments, call.id))
            out.append(pa.ModelResponse(parts, timestamp=_EPOCH))
        elif msg.role == "system":
            out.append(pa.ModelRequest([pa.SystemPromptPart(msg.content, timestamp=_EPOCH)]))
        elif msg.role == "user":
            out.append(pa.ModelRequest([pa.UserPromptPart(msg.content, timestamp=_EPOCH)]))
        else:
            call_id = msg.tool_call_id or ""
            part = pa.ToolReturnPart(names.get(call_id, ""), msg.content, call_id, timestamp=_EPOCH)
            out.append(pa.ModelRequest([part]))
    return out


def from_pydantic_ai(messages: list[Any]) -> list[ref.Message]:
    """pydantic-ai messages (as made by `to_pydantic_ai`) back to reference messages."""
    from pydantic_ai import messages as pa

    out: list[ref.Message] = []
    for message in messages:
        if isinstance(message, pa.ModelResponse):
            text = "".join(p.content for p in message.parts if isinstance(p, pa.TextPart))
            calls = [
                ref.ToolCall(p.tool_call_id, p.tool_name, p.args_as_dict())
                for p in message.parts
                if isinstance(p, pa.ToolCallPart)
            ]
            out.append(ref.Message(role="assistant", content=text, tool_calls=calls))
            continue
        for part in message.parts:
            if isinstance(part, pa.SystemPromptPart):
                out.append(ref.Message(role="system", content=part.content))
            elif isinstance(part, pa.UserPromptPart):
                out.append(ref.Message(role="user", content=str(part.content)))
            elif isinstance(part, pa.ToolReturnPart):
                content = str(part.content)
                out.append(
                    ref.Message(role="tool", content=content, tool_call_id=part.tool_call_id)
                )
    return out


def to_langchain(conversation: list[ref.Message]) -> list[Any]:
    """The conversation as LangChain message objects."""
    from langchain_core import messages as lc

    out: list[Any] = []
    for msg in conversation:
        if msg.role == "system":
            out.append(lc.SystemMessage(msg.content))
        elif msg.role == "user":
            out.append(lc.HumanMessage(msg.content))
        elif msg.role == "assistant":
            calls = [
                lc.ToolCall(name=c.name, args=c.arguments, id=c.id, type="tool_call")
                for c in msg.tool_calls
            ]
            out.append(lc.AIMessage(msg.content, tool_calls=calls))
        else:
            out.append(lc.ToolMessage(msg.content, tool_call_id=msg.tool_call_id or ""))
    return out


def from_langchain(messages: list[Any]) -> list[ref.Message]:
    """LangChain messages (as made by `to_langchain`) back to reference messages."""
    from langchain_core import messages as lc

    out: list[ref.Message] = []
    for message in messages:
        content = message.content
        if isinstance(message, lc.AIMessage):
            calls = [ref.ToolCall(c["id"] or "", c["name"], c["args"]) for c in message.tool_calls]
            out.append(ref.Message(role="assistant", content=content, tool_calls=calls))
        elif isinstance(message, lc.ToolMessage):
            out.append(ref.Message(role="tool", content=content, tool_call_id=message.tool_call_id))
        elif isinstance(message, lc.SystemMessage):
            out.append(ref.Message(role="system", content=content))
        else:
            out.append(ref.Message(role="user", content=content))
    return out
