"""Hypothesis strategies shared by the property tests: reference conversations and JSON values."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from minagent import types as ref
from minagent import wire
from minagent.bench import corpus

# Any Unicode scalar value: CJK, emoji, control characters, quotes, backslashes; no lone
# surrogates (they are not text: the protocol refuses them).
text = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
short_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=8)

int64 = st.integers(min_value=-(2**63), max_value=2**64 - 1)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)


def json_values(*, floats: bool = False) -> st.SearchStrategy[Any]:
    """Nested JSON values (objects, arrays, strings, 64-bit integers, booleans, null)."""
    leaves = st.none() | st.booleans() | int64 | text
    if floats:
        leaves = leaves | finite_floats
    return st.recursive(
        leaves,
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(short_text, children, max_size=4)
        ),
        max_leaves=8,
    )


def tool_inputs(*, floats: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """A tool's JSON arguments: an object of nested values."""
    return st.dictionaries(short_text, json_values(floats=floats), max_size=5)


def tool_calls(*, floats: bool = False) -> st.SearchStrategy[ref.ToolCall]:
    """One reference tool call."""
    return st.builds(
        ref.ToolCall, id=short_text, name=short_text, arguments=tool_inputs(floats=floats)
    )


roles = st.sampled_from(["system", "user", "assistant", "tool"])


def messages(*, floats: bool = False) -> st.SearchStrategy[ref.Message]:
    """Every message form the reference can express: text, tool calls (with or without text),
    tool results, empty strings."""
    return st.builds(
        ref.Message,
        role=roles,
        content=text,
        tool_calls=st.lists(tool_calls(floats=floats), max_size=4),
        tool_call_id=st.none() | short_text,
    )


def conversations(*, floats: bool = False) -> st.SearchStrategy[list[ref.Message]]:
    """A reference transcript."""
    return st.lists(messages(floats=floats), max_size=6)


usage = st.dictionaries(short_text, int64, max_size=4)


def responses(*, floats: bool = False) -> st.SearchStrategy[ref.ModelResponse]:
    """A reference ModelResponse."""
    return st.builds(
        ref.ModelResponse,
        message=messages(floats=floats),
        stop_reason=st.sampled_from(["end_turn", "tool_use", "max_tokens", "pause_turn"]) | text,
        usage=usage,
    )


wire_texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
messages_st = st.lists(
    st.builds(
        wire.Message,
        role=roles,
        content=wire_texts | st.lists(st.builds(wire.TextBlock, text=wire_texts), max_size=3),
    ),
    max_size=8,
)
"""Short transcripts of wire Messages (text and text blocks), for the stream tests."""


def corpus_messages(family: str, size: int) -> list[wire.Message]:
    """The corpus transcript of ``family`` as Structs (decoded from its JSON)."""
    return wire.json.decode(corpus.json_bytes(corpus.transcript(family, size)))
