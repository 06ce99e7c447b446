"""Hypothesis strategies shared by the property tests: reference conversations, JSON values, and
wire transcripts that reach every path of the codec (`raw_transcripts`, `transcripts`)."""

from __future__ import annotations

import base64
from typing import Any

import msgspec
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


def trees(
    leaves: st.SearchStrategy[Any],
    *,
    depth: int,
    width: int,
    keys: st.SearchStrategy[str] = short_text,
) -> st.SearchStrategy[Any]:
    """Arrays and objects of ``leaves``, at most ``depth`` levels and ``width`` items per level.

    Built level by level: hypothesis's ``st.recursive`` gives the same shapes at several times
    the cost per example (it re-draws to stay under its leaf limit), which the suite paid on
    every property test.
    """
    value = leaves
    for _ in range(depth):
        value = (
            leaves | st.lists(value, max_size=width) | st.dictionaries(keys, value, max_size=width)
        )
    return value


def _nest(leaf: Any, depth: int, key: str) -> Any:
    """``leaf`` inside ``depth`` levels of one-item arrays and objects, alternating."""
    for level in range(depth):
        leaf = [leaf] if level % 2 else {key: leaf}
    return leaf


def chains(leaves: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A leaf nested 0 to ``TYPED_LEVELS + 4`` levels deep: past the levels msgspec types, so
    that the codec's deep-value path is reached."""
    return st.builds(_nest, leaves, st.integers(0, wire.blocks.TYPED_LEVELS + 4), short_text)


def json_values(*, floats: bool = False) -> st.SearchStrategy[Any]:
    """Nested JSON values (objects, arrays, strings, 64-bit integers, booleans, null): trees
    three levels deep, and single values nested deeper than the typed levels."""
    leaves = st.none() | st.booleans() | int64 | text
    if floats:
        leaves = leaves | finite_floats
    return trees(leaves, depth=3, width=4) | chains(leaves)


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


# --- wire transcripts reaching every path ----------------------------------------------------
# Raw dicts, as a provider would send them, in the shape of each format: every known block type,
# unknown blocks and unknown keys (the lossless path), binary data, tool inputs nested past
# `wire.blocks.TYPED_LEVELS` (the deep-value path), long and non-ASCII text, and for MessagePack
# the values JSON cannot hold (bin, NaN, infinity, non-string keys, ext and timestamps).

_any_text = st.characters(exclude_categories=("Cs",))
long_text = st.builds(
    lambda piece, times: piece * times,
    st.text(_any_text, min_size=1, max_size=12),
    st.integers(20, 300),
)
rich_text = st.one_of(text, text, text, long_text, st.just('ünïcödé ✓ 文字 🎉 "\\\n\u2028'))
"""Short text mostly; now and then up to thousands of characters (a repeated piece, cheap to
draw), or a fixed non-ASCII sample."""

_UNKNOWN_KEYS = st.sampled_from(["x-trace ☃", "vendor_meta", "future_field", "é" * 30])
_UNKNOWN_TYPES = st.sampled_from(["future_block", "x-vendor ☃", "web_thing_v9"])


def _leaves(msgpack_only: bool) -> st.SearchStrategy[Any]:
    leaves = st.none() | st.booleans() | int64 | finite_floats | rich_text
    if msgpack_only:  # values only MessagePack holds: they become MsgpackOnly / Ext
        leaves = leaves | st.one_of(
            st.binary(max_size=40),
            st.sampled_from([float("nan"), float("inf"), float("-inf")]),
            st.builds(msgspec.msgpack.Ext, st.integers(-128, 127), st.binary(max_size=12)),
            st.just(msgspec.msgpack.Ext(-1, b"\x00\x00\x00\x01")),  # a timestamp
            st.dictionaries(st.integers(-5, 5), int64, min_size=1, max_size=2),
        )
    return leaves


def deep_values(*, msgpack_only: bool = False) -> st.SearchStrategy[Any]:
    """A value nested 0 to ``TYPED_LEVELS + 4`` levels (lists and objects), or a wide tree."""
    leaves = _leaves(msgpack_only)
    return st.one_of(leaves, chains(leaves), trees(leaves, depth=2, width=3))


def _block(fmt: str) -> st.SearchStrategy[dict[str, Any]]:
    msgpack_only = fmt == "msgpack"
    data = st.binary(max_size=64)
    source = st.one_of(
        st.fixed_dictionaries(
            {
                "type": st.just("base64"),
                "media_type": st.sampled_from(["image/png", "application/pdf"]),
                "data": data if msgpack_only else data.map(lambda b: base64.b64encode(b).decode()),
            }
        ),
        st.fixed_dictionaries({"type": st.just("url"), "url": short_text}),
        st.fixed_dictionaries({"type": st.just("file"), "file_id": short_text}),
        st.fixed_dictionaries(
            {"type": st.just("text"), "media_type": st.just("text/plain"), "data": rich_text}
        ),
        st.fixed_dictionaries({"type": _UNKNOWN_TYPES, "ref": short_text}),
    )
    known = st.one_of(
        st.fixed_dictionaries({"type": st.just("text"), "text": rich_text}),
        st.fixed_dictionaries(
            {
                "type": st.just("tool_use"),
                "id": short_text,
                "name": short_text,
                "input": st.dictionaries(
                    short_text, deep_values(msgpack_only=msgpack_only), max_size=3
                ),
            }
        ),
        st.fixed_dictionaries(
            {"type": st.just("thinking"), "thinking": rich_text},
            optional={"signature": short_text},
        ),
        st.fixed_dictionaries({"type": st.just("redacted_thinking"), "data": short_text}),
        st.fixed_dictionaries(
            {"type": st.sampled_from(["image", "document"]), "source": source},
            optional={"cache_control": st.just({"type": "ephemeral"})},
        ),
        st.fixed_dictionaries(
            {"type": st.just("tool_result"), "tool_use_id": short_text},
            optional={
                "content": rich_text
                | st.lists(
                    st.fixed_dictionaries({"type": st.just("text"), "text": text}), max_size=2
                ),
                "is_error": st.booleans(),
            },
        ),
        st.fixed_dictionaries(
            {
                "type": st.sampled_from(["server_tool_use", "mcp_tool_use"]),
                "id": short_text,
                "name": short_text,
                "server_name": short_text,
                "input": st.dictionaries(
                    short_text, deep_values(msgpack_only=msgpack_only), max_size=2
                ),
            }
        ),
        st.fixed_dictionaries(
            {
                "type": st.sampled_from(
                    [
                        "web_fetch_tool_result",
                        "code_execution_tool_result",
                        "tool_search_tool_result",
                    ]
                ),
                "tool_use_id": short_text,
                "content": st.dictionaries(short_text, deep_values(), max_size=2),
            }
        ),
        st.fixed_dictionaries({"type": st.just("container_upload"), "file_id": short_text}),
        st.fixed_dictionaries({"type": st.just("tool_reference"), "tool_name": short_text}),
    )
    unknown_keys = st.dictionaries(
        _UNKNOWN_KEYS, deep_values(msgpack_only=msgpack_only), max_size=2
    )
    with_unknown_keys = st.builds(lambda block, more: {**block, **more}, known, unknown_keys)
    unknown_block = st.builds(
        lambda tag, more: {"type": tag, **more},
        _UNKNOWN_TYPES,
        st.dictionaries(_UNKNOWN_KEYS, deep_values(msgpack_only=msgpack_only), max_size=3),
    )
    return st.one_of(known, known, with_unknown_keys, unknown_block)


def raw_messages(fmt: str = "json") -> st.SearchStrategy[dict[str, Any]]:
    """One message as a plain dict for ``fmt`` ("json" or "msgpack"): text or blocks of every
    kind, sometimes with unknown keys of its own."""
    content = rich_text | st.lists(_block(fmt), max_size=3)
    message = st.fixed_dictionaries({"role": roles, "content": content})
    more = st.dictionaries(_UNKNOWN_KEYS, deep_values(msgpack_only=fmt == "msgpack"), max_size=2)
    plain = st.fixed_dictionaries({"role": roles, "content": text})
    return st.one_of(plain, plain, message, st.builds(lambda m, x: {**m, **x}, message, more))


BAD_MESSAGES: list[tuple[dict[str, Any], str]] = [
    ({"role": "user", "content": 7}, "$.content"),
    ({"content": "no role"}, "$"),
    ({"role": "user", "content": [{"type": "text"}]}, "$.content[0]"),
    ({"role": "user", "content": [{"text": "no type"}]}, "$.content[0]"),
    ({"role": "user", "content": [{"type": "tool_use", "id": "a", "name": "b", "input": 3}]},
     "$.content[0].input"),
]  # fmt: skip
"""Elements of the wrong shape, each with the path of its error inside the element."""


EDGE_SIZES = [15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65]
"""List lengths at the MessagePack array header step (16) and around the codec's chunks (32)."""
_EDGE_SIZES = st.sampled_from(EDGE_SIZES)


def raw_transcripts(
    fmt: str = "json", *, max_size: int = 80, bad: bool = False
) -> st.SearchStrategy[tuple[list[dict[str, Any]], int | None]]:
    """A transcript of raw messages for ``fmt``: up to 4 drawn messages placed among plain ones,
    ``max_size`` or one of `EDGE_SIZES` in all, so that odd elements fall anywhere across the
    codec's chunks (`_fallback.CHUNK`); with ``bad=True`` sometimes one element of the wrong shape:
    ``(messages, index of the bad one or None)``."""

    @st.composite
    def build(draw: st.DrawFn) -> tuple[list[dict[str, Any]], int | None]:
        drawn = draw(st.lists(raw_messages(fmt), max_size=4))
        size = draw(st.integers(0, max_size) | _EDGE_SIZES)
        items = [{"role": "user", "content": "·"}] * max(0, size - len(drawn))
        for message in drawn:
            items.insert(draw(st.integers(0, len(items))), message)
        if not bad or not draw(st.booleans()):
            return items, None
        index = draw(st.integers(0, len(items)))
        items.insert(index, draw(st.sampled_from(BAD_MESSAGES))[0])
        return items, index

    return build()


def encode_raw(fmt: str, value: Any) -> bytes:
    """Raw dicts as bytes of ``fmt``, written by msgspec itself (not by minagent)."""
    return msgspec.json.encode(value) if fmt == "json" else msgspec.msgpack.encode(value)


def transcripts(fmt: str = "json", *, max_size: int = 80) -> st.SearchStrategy[list[wire.Message]]:
    """Decoded wire Messages reaching every path (`raw_transcripts`, without bad elements)."""
    codec = wire.json if fmt == "json" else wire.msgpack
    return raw_transcripts(fmt, max_size=max_size).map(
        lambda pair: codec.decode(encode_raw(fmt, pair[0]))
    )


wire_texts = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
messages_st = st.one_of(
    st.lists(
        st.builds(
            wire.Message,
            role=roles,
            content=wire_texts | st.lists(st.builds(wire.TextBlock, text=wire_texts), max_size=3),
        ),
        max_size=8,
    ),
    transcripts("json", max_size=4),
)
"""Short transcripts of wire Messages for the stream tests: text and text blocks, or every
kind of block with unknown data, deep inputs and long text (`transcripts`)."""


def corpus_messages(family: str, size: int) -> list[wire.Message]:
    """The corpus transcript of ``family`` as Structs (decoded from its JSON)."""
    return wire.json.decode(corpus.json_bytes(corpus.transcript(family, size)))
