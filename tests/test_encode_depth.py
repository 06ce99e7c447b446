"""Encode refuses what decode would refuse: a value nested past the default ``max_depth`` is an
`EncodeError` naming the first container past it, on every Python, in both formats; one nested
exactly ``max_depth`` deep is written and read back. Interpreter facts (where msgspec's guard
stops) are measured here, never written down."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from minagent import wire
from minagent.wire import _codec, _depth
from minagent.wire.limits import DEFAULT

from . import interpreter

FORMATS = [wire.json, wire.msgpack]
MAX = DEFAULT.max_depth


def _lists(levels: int, inner: Any) -> Any:
    """``levels`` nested one-element lists around ``inner`` (``[]`` counts as one of them)."""
    value = inner
    for _ in range(levels - (inner == [])):
        value = [value]
    return value


def _dicts(levels: int) -> Any:
    """``levels`` nested objects ``{"k": {"k": ... {}}}``."""
    value: Any = {}
    for _ in range(levels - 1):
        value = {"k": value}
    return value


def _tool(value: Any) -> wire.ToolUseBlock:
    return wire.ToolUseBlock("t", "f", {"v": value})


# Where the tool input's ``v`` sits, and how to wrap it, for each type the codec writes.
SHAPES: dict[str, tuple[Callable[[Any], Any], str, int]] = {
    "message": (lambda v: wire.Message("assistant", [_tool(v)]), "$.content[0].input.v", 5),
    "messages": (
        lambda v: [wire.Message("user", "q"), wire.Message("assistant", [_tool(v)])],
        "$[1].content[0].input.v",
        6,
    ),
    "response": (
        lambda v: wire.ModelResponse(wire.Message("assistant", [_tool(v)])),
        "$.message.content[0].input.v",
        6,
    ),
}


def _expected_path(shape: str, step: str) -> str:
    """Path of the first container past ``MAX`` when ``v`` nests by ``step`` per level."""
    _, where, depth = SHAPES[shape]
    return where + step * (MAX + 1 - depth)


def _refusal(fmt: Any) -> str:
    name = "JSON" if fmt is wire.json else "MessagePack"
    return f"cannot write {name}: nesting deeper than max_depth={MAX} (decoding refuses it)"


def _levels_past() -> list[int]:
    """Nestings of ``v`` past ``MAX``: one level, 1,200, 5,000 and past this interpreter's
    measured guard (where msgspec alone would stop; up to 3.11 it counts the caller's frames,
    so it may lie below max_depth)."""
    return sorted({MAX + 1, 1200, 5000, max(interpreter.msgspec_guard(), MAX) + 10})


@pytest.mark.parametrize("fmt", FORMATS, ids=["json", "msgpack"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_a_tool_input_nested_past_max_depth_is_refused_at_its_path(fmt: Any, shape: str) -> None:
    """Lists and dicts in a tool input nested one level past max_depth, 1,200, 5,000 levels and
    past the measured guard: EncodeError with the exact message and the path of the first
    container past max_depth, for a Message, a list of them and a ModelResponse."""
    build, _, depth = SHAPES[shape]
    for total in _levels_past():
        levels = total - depth + 1  # v itself is the first of them
        for value, step in ((_lists(levels, 1), "[0]"), (_dicts(levels), ".k")):
            with pytest.raises(wire.EncodeError) as info:
                fmt.encode(build(value))
            assert (info.value.message, info.value.path) == (
                _refusal(fmt),
                _expected_path(shape, step),
            ), total


@pytest.mark.parametrize("fmt", FORMATS, ids=["json", "msgpack"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_nesting_exactly_max_depth_is_written_and_read_back(fmt: Any, shape: str) -> None:
    """A tool input reaching exactly max_depth (innermost container empty or holding a value,
    lists and dicts) is written as msgspec alone writes it, and its bytes decode with the
    default limits to a value written back to the same bytes; one level more is refused."""
    build, _, depth = SHAPES[shape]
    tp = {"message": wire.Message, "messages": list[wire.Message]}.get(shape, wire.ModelResponse)
    levels = MAX - depth + 1
    for value in (_lists(levels, 1), _lists(levels, []), _dicts(levels)):
        obj = build(value)
        data = fmt.encode(obj)
        back = fmt.decode(data, type=tp)  # (== would recurse past the recursion limit)
        assert fmt.encode(back) == data == _plain(fmt, obj)
    with pytest.raises(wire.EncodeError):
        fmt.encode(build(_lists(levels + 1, [])))


def _plain(fmt: Any, obj: Any) -> bytes:
    """``obj`` as msgspec alone writes it, on a thread whose stack and guard hold it."""
    encode = msgspec.json.encode if fmt is wire.json else msgspec.msgpack.encode
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(before + MAX)  # up to 3.11 msgspec's guard is this limit
    try:
        return encode(obj)
    finally:
        sys.setrecursionlimit(before)


def _hand_written(fmt: Any, levels: int) -> bytes:
    """A transcript whose tool input ``v`` is ``levels`` nested arrays, written byte by byte."""
    value = [{"role": "assistant", "content": [
        {"type": "tool_use", "id": "t", "name": "f", "input": {"v": None}}]}]  # fmt: skip
    if fmt is wire.json:
        return msgspec.json.encode(value).replace(b"null", b"[" * levels + b"]" * levels)
    return msgspec.msgpack.encode(value)[:-1] + b"\x91" * (levels - 1) + b"\x90"


@pytest.mark.parametrize("fmt", FORMATS, ids=["json", "msgpack"])
def test_what_encode_writes_decode_reads_and_nothing_else(fmt: Any) -> None:
    """Around max_depth and up to past the guard, the encoder writes a value exactly when the
    same bytes, written by hand, decode: nothing written is then refused on reading."""
    for levels in (MAX - 7, MAX - 6, MAX - 5, MAX - 4, MAX - 3, 1200, 5000):
        try:
            read = fmt.decode(_hand_written(fmt, levels)) is not None
        except wire.DecodeError:
            read = False
        try:
            written = fmt.encode(
                [wire.Message("assistant", [_tool(_lists(levels, []))])]
            ) == _hand_written(fmt, levels)
        except wire.EncodeError:
            written = False
        assert (written, read) == (levels <= MAX - 5, levels <= MAX - 5), levels


@pytest.mark.parametrize("fmt", FORMATS, ids=["json", "msgpack"])
def test_without_a_capped_guard_the_output_is_measured(
    fmt: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where the C recursion count cannot be found (`encode_budget` None: another interpreter,
    CPython 3.14), the same refusals hold, found by measuring the output and walking only when
    it holds more opening bytes than max_depth; shallow outputs are not walked."""
    monkeypatch.setattr(_depth, "encode_budget", lambda: None)
    monkeypatch.setattr(_codec, "_budgets", threading.local())  # each thread asks again
    walks: list[int] = []
    real = _depth.too_deep

    def counted(*args: Any) -> Any:
        walks.append(1)
        return real(*args)

    monkeypatch.setattr(_depth, "too_deep", counted)
    build, _, _ = SHAPES["messages"]
    for total in _levels_past():
        with pytest.raises(wire.EncodeError) as info:
            fmt.encode(build(_lists(total - 5, 1)))
        assert info.value.path == _expected_path("messages", "[0]")
    fine = build(_lists(MAX - 5, 1))
    assert fmt.encode(fmt.decode(fmt.encode(fine))) == _plain(fmt, fine)
    del walks[:]
    small = [wire.Message("user", "x" * 5000), wire.Message("assistant", [_tool([[1.5]])])]
    assert fmt.decode(fmt.encode(small)) == small
    assert walks == []


def test_the_c_recursion_count_is_found_where_the_interpreter_has_one() -> None:
    """On CPython 3.12 and 3.13 the count msgspec's guard draws on is found (in every thread)
    and capped so that msgspec stops at max_depth; elsewhere there is none (up to 3.11 the
    guard is the recursion limit, which the codec holds at max_depth itself)."""
    has_count = sys.implementation.name == "cpython" and sys.version_info[:2] in ((3, 12), (3, 13))
    found: list[Any] = []
    thread = threading.Thread(target=lambda: found.append(_depth.encode_budget()))
    thread.start()
    thread.join()
    for budget in (_depth.encode_budget(), found[0]):
        assert (budget is not None) == has_count
        if budget is not None:
            assert MAX - 2 <= budget[1] <= MAX - 1
    if has_count:
        assert _depth.encode_budget()[0] is not found[0][0]  # one per thread


@pytest.mark.parametrize("fmt", FORMATS, ids=["json", "msgpack"])
def test_the_guard_is_restored_after_every_encode(fmt: Any) -> None:
    """After an encode that succeeds, one refused as too deep and one refused for another
    reason, this thread's C recursion count is what it was (msgspec's guard is capped only for
    the length of one encode)."""
    budget = _depth.encode_budget()
    if budget is None:
        pytest.skip("no C recursion count on this interpreter (the guard is not capped)")
    cell = budget[0]
    before = cell[0]
    fmt.encode([wire.Message("user", "hi")])
    assert cell[0] == before
    with pytest.raises(wire.EncodeError):
        fmt.encode([wire.Message("assistant", [_tool(_lists(MAX, 1))])])
    assert cell[0] == before
    with pytest.raises(wire.EncodeError):
        fmt.encode([wire.Message("assistant", [_tool(object())])])
    assert cell[0] == before
    assert _codec._GUARD_BEFORE_3_12 is (sys.version_info < (3, 12))


# --- provider request bodies --------------------------------------------------------------------


def _nested_dict(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("adapter", "outer", "prefix"),
    [
        ("anthropic", 5, "$.messages[1].content[0].input"),
        ("gemini", 6, "$.contents[1].parts[0].functionCall.args"),
    ],
)
def test_provider_bodies_past_max_depth_are_refused_and_within_it_read_back(
    adapter: str, outer: int, prefix: str
) -> None:
    """An adapter writing a tool input as JSON: a body exactly ``max_depth`` deep (``outer``
    levels around the input) is written and read back by the same adapter (compared as bytes:
    comparing such dicts would recurse past the interpreter's limit), one level more is an
    `EncodeError` at the first container past the limit, on every Python."""
    from minagent.providers import Request, get

    codec = get(adapter)
    limit = DEFAULT.max_depth

    def request(levels: int) -> Request:
        call = wire.ToolUseBlock(id="c", name="f", input=_nested_dict(levels))
        messages = [
            wire.Message(role="user", content="hi"),
            wire.Message(role="assistant", content=[call]),
        ]
        return Request(model="m", messages=messages, tools=[])

    body = codec.encode_request(request(limit - outer))
    assert codec.encode_request(codec.decode_request(body)) == body  # read back, written alike
    with pytest.raises(wire.EncodeError) as caught:
        codec.encode_request(request(limit - outer + 1))
    assert caught.value.message == (
        f"cannot write JSON: nesting deeper than max_depth={limit} (decoding refuses it)"
    )
    assert caught.value.path == prefix + ".a" * (limit - outer)
