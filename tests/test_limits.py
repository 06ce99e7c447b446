"""Decoder limits (`minagent.wire.Limits`): size, nesting depth, huge length headers."""

from __future__ import annotations

import dataclasses
import tracemalloc
from typing import Any

import msgspec
import pytest

from minagent import wire
from minagent.wire import Limits, Message, ModelResponse
from minagent.wire.limits import DEFAULT

TYPES = [Message, list[Message], ModelResponse, list[ModelResponse]]
FORMATS = [wire.json, wire.msgpack]


def tool_message(value: Any) -> dict[str, Any]:
    """A message dict whose tool input is ``{"v": value}`` (the input sits at depth 4)."""
    block = {"type": "tool_use", "id": "t", "name": "f", "input": {"v": value}}
    return {"role": "assistant", "content": [block]}


def nested(depth: int) -> Any:
    """``depth`` nested arrays: ``[[...]]``."""
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_defaults_are_documented_figures() -> None:
    """The defaults: 64 MiB input, depth 1000, 16 MiB frames; `Limits` is exported by wire."""
    assert DEFAULT == Limits() == Limits(64 << 20, 1000, 16 << 20)
    assert wire.__all__.count("Limits") == 1
    assert dataclasses.replace(DEFAULT, max_depth=8).max_size == DEFAULT.max_size


@pytest.mark.parametrize("bad", [0, -1, 1.5, "9", True])
def test_limits_refuse_non_positive_or_non_int(bad: Any) -> None:
    """Every figure must be a positive int."""
    for field in ("max_size", "max_depth", "max_frame"):
        with pytest.raises(ValueError, match=field):
            Limits(**{field: bad})


@pytest.mark.parametrize("fmt", FORMATS)
def test_input_over_max_size_is_refused_before_parsing(fmt: Any) -> None:
    """One byte over max_size is a DecodeError at $; exactly max_size is decoded."""
    data = fmt.encode([Message(role="user", content="hello")])
    assert fmt.decode(data, limits=Limits(max_size=len(data))) == fmt.decode(data)
    with pytest.raises(wire.DecodeError, match="max_size") as info:
        fmt.decode(data, limits=Limits(max_size=len(data) - 1))
    assert info.value.path == "$"
    with pytest.raises(wire.DecodeError, match="max_size"):  # even garbage is not parsed
        fmt.decode(b"\xc1" * 11, limits=Limits(max_size=10))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("extra", [{}, {"cache_control": {"type": "ephemeral"}}])
def test_max_depth_is_exact_on_fast_and_lossless_paths(fmt: Any, extra: dict[str, Any]) -> None:
    """A tool input nested to exactly max_depth decodes; one level more is a DecodeError."""
    limit = 12
    for value_depth, ok in ((limit - 4, True), (limit - 3, False)):  # the input is at depth 4
        message = {**tool_message(nested(value_depth)), **extra}
        data = msgspec.json.encode(message) if fmt is wire.json else msgspec.msgpack.encode(message)
        if ok:
            assert fmt.decode(data, type=Message, limits=Limits(max_depth=limit))
        else:
            with pytest.raises(wire.DecodeError, match="max_depth=12") as info:
                fmt.decode(data, type=Message, limits=Limits(max_depth=limit))
            assert info.value.path == "$.content[0].input.v" + "[0]" * 8


def test_max_depth_is_exact_on_the_msgpack_timestamp_path() -> None:
    """The timestamp reader enforces max_depth itself, counting the same way."""
    stamp = msgspec.msgpack.Ext(-1, b"\x00\x00\x00\x01")
    for value_depth, ok in ((8, True), (9, False)):
        value: Any = stamp
        for _ in range(value_depth):
            value = [value]
        data = msgspec.msgpack.encode(tool_message(value))
        if ok:
            assert wire.msgpack.decode(data, type=Message, limits=Limits(max_depth=12))
        else:
            with pytest.raises(wire.DecodeError, match="max_depth=12"):
                wire.msgpack.decode(data, type=Message, limits=Limits(max_depth=12))


@pytest.mark.parametrize("tp", TYPES)
@pytest.mark.parametrize("depth", [2_000, 100_000])
def test_deep_nesting_is_a_decode_error_never_recursion_error(tp: Any, depth: int) -> None:
    """Nesting beyond any limit, bare or in a tool input, is a DecodeError in both formats."""
    json_docs = [b"[" * depth + b"]" * depth, b'{"a":' * depth + b"1" + b"}" * depth]
    mp_docs = [b"\x91" * depth + b"\x90", b"\x81\xa1a" * depth + b"\x01"]
    prefix = msgspec.json.encode(tool_message(None))[: -len(b"null}}]}")]
    json_docs.append(prefix + json_docs[0] + b"}}]}")
    stamp = b"\xd6\xff\x00\x00\x00\x01"  # a timestamp sends MessagePack through our own reader
    mp_docs.append(msgspec.msgpack.encode(tool_message(None))[:-1] + b"\x91" * depth + stamp)
    for fmt, docs in ((wire.json, json_docs), (wire.msgpack, mp_docs)):
        for doc in docs:
            with pytest.raises(wire.WireError) as info:
                fmt.decode(doc, type=tp)
            assert isinstance(info.value, (wire.DecodeError, wire.ValidationError))
            if isinstance(info.value, wire.DecodeError):
                assert "max_depth" in info.value.message or "truncated" in info.value.message


@pytest.mark.parametrize(
    "header",
    [
        "dd-ff-ff-ff-ff",  # array32
        "df-ff-ff-ff-ff",  # map32
        "db-ff-ff-ff-ff",  # str32
        "c6-ff-ff-ff-ff",  # bin32
        "c9-ff-ff-ff-ff-01",  # ext32
        "c9-ff-ff-ff-ff-ff",  # ext32 of type -1 (a timestamp header: our own reader)
        "dc-ff-ff",  # array16
    ],
)
@pytest.mark.parametrize("tp", TYPES)
def test_huge_msgpack_headers_are_refused_without_allocating(header: str, tp: Any) -> None:
    """A header claiming 4 GiB in a short buffer is a WireError; peak memory stays tiny."""
    head = bytes.fromhex(header.replace("-", ""))
    docs = [head + b"\xc0" * 8, msgspec.msgpack.encode(tool_message(None))[:-1] + head]
    for doc in docs:
        tracemalloc.start()
        try:
            with pytest.raises(wire.WireError):
                wire.msgpack.decode(doc, type=tp)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 1 << 20, f"{peak} bytes allocated for a {len(doc)}-byte input"
