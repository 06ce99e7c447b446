"""What encode trusts and what it refuses: NaN / infinity from Python-built Structs, and `check`."""

from __future__ import annotations

import io
import json
import math
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from minagent import wire
from minagent.wire import stream
from tests import strategies as s

_INF = math.inf
NONFINITE = [float("nan"), float("inf"), float("-inf")]


def _tool(value: Any) -> wire.Message:
    return wire.Message("assistant", [wire.ToolUseBlock("a", "f", {"x": [1, {"y": value}]})])


def _tool_input_list() -> wire.Message:
    return wire.Message("assistant", [wire.ToolUseBlock("a", "f", [1])])  # type: ignore[arg-type]


def _cached_text(cache_control: Any) -> wire.TextBlock:
    return wire.TextBlock("x", cache_control=cache_control)


# Each case: a Struct built in Python holding a non-finite float, and the path JSON must name.
CASES: list[tuple[str, Any, str]] = [
    ("fast", _tool(float("nan")), "$.content[0].input.x[1].y"),
    (
        "lossless",
        wire.Message(
            "assistant",
            [wire.ToolUseBlock("a", "f", {"x": float("inf")})],
            extra=wire.Extra(id="msg_1"),
        ),
        "$.content[0].input.x",
    ),
    (
        "extra value",
        wire.Message("user", [wire.TextBlock("t", extra=wire.Extra(score=float("nan")))]),
        "$.content[0].score",
    ),
    (
        "unknown block",
        wire.Message("user", [wire.UnknownBlock(wire.Extra(type="future", v=[float("-inf")]))]),
        "$.content[0].v[0]",
    ),
    (
        "catalog field",
        wire.Message(
            "user",
            [wire.TextBlock("t", citations=[{"type": "char_location", "x": float("nan")}])],
        ),
        "$.content[0].citations[0].x",
    ),
    (
        "nested block",
        wire.Message(
            "user",
            [
                wire.ToolResultBlock(
                    "t", [wire.ToolReferenceBlock("g", cache_control={"n": -math.inf})]
                )
            ],
        ),
        "$.content[0].content[0].cache_control.n",
    ),
    (
        "response",
        wire.ModelResponse(_tool(float("nan")), extra=wire.Extra(stop_sequence=None)),
        "$.message.content[0].input.x[1].y",
    ),
]


@pytest.mark.parametrize("canonical", [False, True])
@pytest.mark.parametrize("name,obj,path", CASES, ids=[c[0] for c in CASES])
def test_json_refuses_nonfinite_floats_built_in_python(
    name: str, obj: Any, path: str, canonical: bool
) -> None:
    """NaN and infinity in a Python-built Struct are refused by JSON with their path (never null),
    alone and at index 2 of a list, on the fast and the lossless path, canonical or not."""
    with pytest.raises(wire.EncodeError) as err:
        wire.json.encode(obj, canonical=canonical)
    assert err.value.path == path
    assert "cannot be written as JSON" in err.value.message
    with pytest.raises(wire.EncodeError) as err:
        wire.json.encode([wire.Message("user", "a"), wire.Message("user", "b"), obj][:3]
                         if type(obj) is wire.Message else [obj], canonical=canonical)  # fmt: skip
    assert err.value.path == (path.replace("$", "$[2]", 1) if type(obj) is wire.Message else
                              path.replace("$", "$[0]", 1))  # fmt: skip


@pytest.mark.parametrize("name,obj,path", CASES, ids=[c[0] for c in CASES])
def test_json_lines_refuse_nonfinite_floats_with_line_and_path(
    name: str, obj: Any, path: str
) -> None:
    """JSON Lines refuse NaN / infinity naming the line and the path inside it."""
    ok = wire.Message("user", "x") if type(obj) is wire.Message else wire.ModelResponse(
        wire.Message("assistant", "x"))  # fmt: skip
    with pytest.raises(wire.EncodeError) as err:
        wire.json.encode_lines([ok, ok, obj])
    assert (err.value.line, err.value.path) == (3, path)
    with pytest.raises(wire.EncodeError) as err:
        wire.json.encode_lines(iter([obj]), canonical=True)
    assert (err.value.line, err.value.path) == (1, path)


@pytest.mark.parametrize("value", NONFINITE, ids=repr)
def test_msgpack_and_frames_keep_nonfinite_floats_exactly(value: float) -> None:
    """MessagePack holds NaN and infinity: plain and framed MessagePack write them as float64
    and read them back (as MsgpackOnly, which JSON then refuses with the path)."""
    msg = _tool(value)
    packed = wire.msgpack.encode(msg)
    assert msgspec.msgpack.encode(value) in packed
    back = wire.msgpack.decode(packed, type=wire.Message)
    assert wire.msgpack.encode(back) == packed
    framed = stream.encode_frames([msg, msg])
    assert [wire.msgpack.encode(m) for m in stream.read_frames(io.BytesIO(framed))] == [packed] * 2
    with pytest.raises(wire.EncodeError) as err:
        wire.json.encode(back)
    assert err.value.path == "$.content[0].input.x[1].y"


def test_null_stays_null_and_finite_floats_pass() -> None:
    """A real null, and finite floats next to it, are written unchanged (no false refusal)."""
    msg = wire.Message(
        "assistant",
        [wire.ToolUseBlock("a", "f", {"x": None, "y": 1.5, "z": -0.0, "big": 1e308})],
    )
    assert wire.json.encode(msg) == (
        b'{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f",'
        b'"input":{"x":null,"y":1.5,"z":-0.0,"big":1e308}}]}'
    )


@given(st.lists(s.json_values(floats=True), min_size=1, max_size=4), st.sampled_from(NONFINITE))
def test_a_nonfinite_float_anywhere_in_an_input_is_refused(values: list[Any], bad: float) -> None:
    """Wherever a non-finite float sits among generated JSON values, JSON encode refuses it and
    names the index it sits at."""
    values = [*values, bad]
    with pytest.raises(wire.EncodeError) as err:
        wire.json.encode(wire.Message("assistant", [wire.ToolUseBlock("a", "f", {"v": values})]))
    assert err.value.path == f"$.content[0].input.v[{len(values) - 1}]"


# --- check --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj,path,message",
    [
        (wire.Message(role="robot"), "$.role", "Invalid enum value 'robot'"),  # type: ignore[arg-type]
        (wire.Message("user", 123), "$.content", "Expected `str | array`, got `int`"),  # type: ignore[arg-type]
        (
            [wire.Message("user", "ok"), _tool(1)],
            None,
            None,
        ),
        (
            [wire.Message("user", "ok"), _tool_input_list()],
            "$[1].content[0].input",
            "Expected `object`, got `array`",
        ),
        (
            wire.ModelResponse(wire.Message("assistant", [wire.TextBlock(5)])),  # type: ignore[arg-type]
            "$.message.content[0].text",
            "Expected `str`, got `int`",
        ),
        (
            wire.Message("user", [wire.ToolResultBlock("t", [_cached_text(3)])]),
            "$.content[0].content[0].cache_control",
            "Expected `object | null`, got `int`",
        ),
        (
            wire.Message("user", "x", tool_call_id=None, extra=wire.Extra(id="m")),  # type: ignore[arg-type]
            "$.tool_call_id",
            "Expected `str`, got `null`",
        ),
    ],
)  # fmt: skip
def test_check_refuses_what_our_decoder_refuses(obj: Any, path: str | None, message: str) -> None:
    """check() raises ValidationError with the exact path and reason for Structs built wrong in
    Python, and passes a well-built one."""
    if path is None:
        wire.check(obj)
        return
    with pytest.raises(wire.ValidationError) as err:
        wire.check(obj)
    assert (err.value.path, err.value.message) == (path, message)


def test_check_passes_every_decoded_corpus_transcript() -> None:
    """Everything our decoder produced passes check, unknown data and MessagePack-only values
    included."""
    for family in ("anthropic", "rich", "tool-heavy"):
        wire.check(s.corpus_messages(family, 60))
    tool = {"type": "tool_use", "id": "a", "name": "f", "input": {"b": b"\x00", "n": math.nan}}
    packed = msgspec.msgpack.encode([{"role": "user", "content": [tool]}])
    wire.check(wire.msgpack.decode(packed))
    wire.check([])


def test_check_refuses_what_is_not_a_protocol_object() -> None:
    """check() of anything but a Message, ModelResponse or list of them is a ValidationError."""
    with pytest.raises(wire.ValidationError) as err:
        wire.check({"role": "user"})
    assert err.value.path == "$"
    with pytest.raises(wire.ValidationError) as err:
        wire.check([wire.Message("user", "x"), {"role": "user", "content": 1}])
    assert err.value.path == "$[1].content"
    assert json.loads(wire.json.encode(wire.Message("user", "x"))) == {
        "role": "user",
        "content": "x",
    }


@pytest.mark.parametrize("bad", NONFINITE)
@pytest.mark.parametrize("before", [0, 31, 32, 200])
def test_nonfinite_after_many_finite_floats_is_refused(before: int, bad: float) -> None:
    """A NaN or infinity behind many finite floats (the byte scan's find loop, then its regex
    tail past 32 float markers) is still refused, at its exact path."""
    values: list[Any] = [0.5 + i for i in range(before)]
    message = _tool([*values, None, bad])
    with pytest.raises(wire.EncodeError) as err:
        wire.json.encode(message)
    assert err.value.path == f"$.content[0].input.x[1].y[{before + 1}]"
    values.append(None)
    assert json.loads(wire.json.encode(_tool(values)))["content"][0]["input"]["x"][1]["y"] == values
