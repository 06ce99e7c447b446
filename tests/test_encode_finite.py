"""JSON encode refuses NaN and infinity exactly, with one message and the path, in every place a
float can sit; and ``null`` values that come from ``None`` (or the word in a text) never make
the encoder walk the objects."""

from __future__ import annotations

import math
import threading
from typing import Any

import msgspec
import pytest

from minagent import wire
from minagent.bench import corpus
from minagent.wire import Extra, MsgpackOnly, _finite, _values
from minagent.wire.errors import EncodeError

NAN, INF = math.nan, math.inf


def _said(value: float) -> str:
    return f"cannot write JSON: {value!r} cannot be written as JSON"


def _assistant(*blocks: Any) -> list[wire.Message]:
    return [wire.Message("user", "q"), wire.Message("assistant", list(blocks))]


# (what, object, the value refused, its path): each place a float can sit in what we write.
PLACES: list[tuple[str, Any, float, str]] = [
    (
        "tool input, nested dict",
        _assistant(wire.ToolUseBlock("t", "f", {"a": {"b": NAN}})),
        NAN,
        "$[1].content[0].input.a.b",
    ),
    (
        "tool input, nested list",
        _assistant(wire.ToolUseBlock("t", "f", {"a": [1, [2.5, -INF]]})),
        -INF,
        "$[1].content[0].input.a[1][1]",
    ),
    (
        "tool input of a response",
        wire.ModelResponse(wire.Message("assistant", [wire.ToolUseBlock("t", "f", {"x": [NAN]})])),
        NAN,
        "$.message.content[0].input.x[0]",
    ),
    (
        "Extra value of a block",
        _assistant(wire.TextBlock("t", extra=Extra(score=NAN))),
        NAN,
        "$[1].content[0].score",
    ),
    (
        "Extra value of a message, nested",
        [wire.Message("user", "q", extra=Extra(meta={"w": [INF]}))],
        INF,
        "$[0].meta.w[0]",
    ),
    (
        "UnknownBlock data",
        _assistant(wire.UnknownBlock(Extra(type="future", v=[1.5, -INF]))),
        -INF,
        "$[1].content[0].v[1]",
    ),
    (
        "typed JSON field (cache_control)",
        _assistant(wire.TextBlock("t", cache_control={"type": "ephemeral", "w": NAN})),
        NAN,
        "$[1].content[0].cache_control.w",
    ),
    (
        "typed JSON list field (citations)",
        _assistant(wire.TextBlock("t", citations=[{"type": "x", "s": INF}])),
        INF,
        "$[1].content[0].citations[0].s",
    ),
    (
        "usage counters",
        wire.ModelResponse(wire.Message("assistant", "x"), usage={"in": 3, "w": NAN}),
        NAN,
        "$.usage.w",
    ),
    (
        "MsgpackOnly in a tool input",
        _assistant(wire.ToolUseBlock("t", "f", {"a": MsgpackOnly(NAN)})),
        NAN,
        "$[1].content[0].input.a",
    ),
    ("a lone float", INF, INF, "$"),
]


@pytest.mark.parametrize(
    ("obj", "value", "path"), [p[1:] for p in PLACES], ids=[p[0] for p in PLACES]
)
def test_nonfinite_refused_at_its_path_with_one_message(obj: Any, value: float, path: str) -> None:
    """A NaN or infinity in each place a float can sit (tool inputs, Extra values, unknown
    blocks, typed JSON fields, usage, MsgpackOnly, the top level): EncodeError with the same
    message wherever it sits and its exact path, canonical or not; MessagePack writes it."""
    for canonical in (False, True):
        with pytest.raises(wire.EncodeError) as info:
            wire.json.encode(obj, canonical=canonical)
        assert (info.value.message, info.value.path) == (_said(value), path)
    data = wire.msgpack.encode(obj)
    assert msgspec.msgpack.encode(msgspec.msgpack.decode(data)) == data


@pytest.mark.parametrize("size", [10, 20_000], ids=["short output", "past SCAN_UP_TO"])
def test_nonfinite_assigned_to_a_field_typed_otherwise_is_refused(size: int) -> None:
    """A NaN or infinity assigned in Python to a field typed to hold no float (msgspec does not
    check assignments and writes it as ``null``) is refused with its path all the same, next to
    a short or a long text."""
    for value in (NAN, -INF):
        msgs = _assistant(wire.TextBlock(text="x" * size), wire.TextBlock(text="y"))
        msgs[1].content[1].text = value  # type: ignore[index, union-attr]
        with pytest.raises(wire.EncodeError) as info:
            wire.json.encode(msgs)
        assert (info.value.message, info.value.path) == (_said(value), "$[1].content[1].text")


def _counting(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Count the calls of the MessagePack look (`may_hold_nonfinite`) and of the two walks
    (`holds_nonfinite`, the path search `_values.find`) made while encoding JSON."""
    calls = {"look": 0, "walk": 0, "find": 0}

    def counted(name: str, real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(_finite, "may_hold_nonfinite", counted("look", _finite.may_hold_nonfinite))
    monkeypatch.setattr(_finite, "holds_nonfinite", counted("walk", _finite.holds_nonfinite))
    monkeypatch.setattr(_values, "find", counted("find", _values.find))
    return calls


@pytest.mark.parametrize("family", ["tool-heavy", "anthropic", "rich"])
def test_nulls_from_none_never_walk_the_objects(
    family: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Corpus transcripts full of ``null`` values from ``None`` (tool inputs, nullable typed
    fields, unknown data) are written as msgspec writes them, with one MessagePack look and
    no walk; a NaN added to one of them is then found and walked for, once."""
    messages = wire.json.decode(corpus.json_bytes(corpus.transcript(family, 300)))
    calls = _counting(monkeypatch)
    data = wire.json.encode(messages)
    assert data.count(b":null") > 0
    assert wire.json.decode(data) == messages
    assert calls == {"look": 1, "walk": 0, "find": 0}
    messages.append(wire.Message("assistant", [wire.ToolUseBlock("t", "f", {"v": [None, NAN]})]))
    with pytest.raises(wire.EncodeError) as info:
        wire.json.encode(messages)
    assert info.value.path == f"$[{len(messages) - 1}].content[0].input.v[1]"
    assert (calls["walk"], calls["find"]) == (1, 1)


def test_the_word_null_in_a_text_needs_no_look(monkeypatch: pytest.MonkeyPatch) -> None:
    """``null`` inside strings only (code in a text, a key named null, a quoted "null") is no
    value msgspec wrote for a float: no MessagePack look, no walk; one real null value is."""
    calls = _counting(monkeypatch)
    texts = [
        wire.Message("user", 'if x is null: return "null" /* null */'),
        wire.Message("assistant", [wire.ToolUseBlock("t", "f", {"null": "nullable", "n": 1.5})]),
    ]
    assert wire.json.decode(wire.json.encode(texts)) == texts
    assert calls == {"look": 0, "walk": 0, "find": 0}
    for value, written in ((None, b'"v":null'), ([None], b'"v":[null]'), ([1, None], b",null")):
        data = wire.json.encode(
            [wire.Message("assistant", [wire.ToolUseBlock("t", "f", {"v": value})])]
        )
        assert written in data
    assert calls == {"look": 3, "walk": 0, "find": 0}
    assert wire.json.encode(None) == b"null"
    assert calls["look"] == 4


@pytest.mark.parametrize(
    ("out", "holds"),
    [
        (b"null", True),
        (b'{"a":null}', True),
        (b"[1,null]", True),
        (b"[null]", True),
        (b'["null"]', False),
        (b'{"null":1}', False),
        (b'"x = null; y"', False),
        (b'"a \\"null\\""', False),
        (b"[]", False),
    ],
)
def test_writes_null_tells_values_from_text(out: bytes, holds: bool) -> None:
    """`writes_null` on msgspec's compact JSON: a null value is the whole output or follows
    ``:``, ``,`` or ``[``; the word inside a string or as a key is not one."""
    assert _finite.writes_null(out) is holds


def test_the_look_reuses_one_buffer_per_thread_and_drops_a_large_one() -> None:
    """The MessagePack look writes into a buffer its thread keeps (no fresh allocation per
    encode), one per thread, and drops it after an object larger than `_KEEP`; the answers
    are the same either way."""
    small = [wire.Message("assistant", [wire.ToolUseBlock("t", "f", {"v": None})])]
    wire.json.encode(small)
    kept = _finite._buffers.look
    assert bytes(kept) == msgspec.msgpack.encode(small)
    wire.json.encode(small)
    assert _finite._buffers.look is kept
    seen: list[Any] = []

    def other() -> None:
        wire.json.encode(small)
        seen.append(_finite._buffers.look)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen[0] is not kept and bytes(seen[0]) == bytes(kept)
    large = [wire.Message("assistant", [wire.ToolUseBlock("t", "f", {"v": None, "x": NAN})])]
    large.append(wire.Message("user", "x" * (_finite._KEEP + 1)))
    with pytest.raises(wire.EncodeError) as info:
        wire.json.encode(large)
    assert info.value.path == "$[0].content[0].input.x"
    assert len(_finite._buffers.look) == 0 and _finite._buffers.look is not kept


# --- provider bodies ----------------------------------------------------------------------------

_NAN_TOOL_CALL = [
    wire.Message(role="user", content="hi"),
    wire.Message(
        role="assistant",
        content=[wire.ToolUseBlock(id="c", name="f", input={"x": [1, float("nan")]})],
    ),
]


@pytest.mark.parametrize(
    ("adapter", "tool_path", "temperature_path"),
    [
        ("anthropic", "$.messages[1].content[0].input.x[1]", "$.temperature"),
        ("openai_chat", "$.messages[1].content[0].input.x[1]", "$.temperature"),
        ("openai_responses", "$.messages[1].content[0].input.x[1]", "$.temperature"),
        (
            "gemini",
            "$.contents[1].parts[0].functionCall.args.x[1]",
            "$.generationConfig.temperature",
        ),
    ],
)
def test_provider_request_encoders_refuse_nan_and_infinity_with_their_path(
    adapter: str, tool_path: str, temperature_path: str
) -> None:
    """Every adapter's request encoder refuses a NaN in a tool input (written as a JSON object
    or as Chat/Responses ``arguments`` text) and an infinite temperature, naming where: never
    ``null`` in their place."""
    from minagent.providers import Request, get

    encode = get(adapter).encode_request
    with pytest.raises(EncodeError) as caught:
        encode(Request(model="m", messages=_NAN_TOOL_CALL, tools=[]))
    assert (caught.value.message, caught.value.path) == (
        "cannot write JSON: nan cannot be written as JSON",
        tool_path,
    )
    with pytest.raises(EncodeError) as caught:
        encode(Request(model="m", messages=_NAN_TOOL_CALL[:1], temperature=float("inf")))
    assert (caught.value.message, caught.value.path) == (
        "cannot write JSON: inf cannot be written as JSON",
        temperature_path,
    )
