"""JSONTestSuite (tests/data/jsontestsuite): every decoder and file, bare and in a tool input.

`n_` files must be refused with `DecodeError`; `y_` files decoded or, when they are not a
message, refused with `ValidationError` (inside a tool ``input`` they must decode to the same
value as the standard library's parser); `i_` files may go either way but only as a `WireError`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from minagent import wire
from minagent.wire import Message, ModelResponse

CORPUS = Path(__file__).parent / "data" / "jsontestsuite" / "test_parsing"
FILES = sorted(p.name for p in CORPUS.iterdir() if p.suffix == ".json")

TOOL_PREFIX = b'{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"v":'
TOOL_SUFFIX = b"}}]}"


def placements(doc: bytes) -> list[tuple[str, bytes, Any]]:
    """The document as each decoder sees it: bare, wrapped to reach it, inside a tool input.

    An empty (or blank) document is not put inside brackets: ``[ ]`` is valid JSON.
    """
    transcript = (
        [] if doc.strip() == b"" else [("in a transcript", b"[" + doc + b"]", list[Message])]
    )
    return [
        ("bare as Message", doc, Message),
        ("bare as list[Message]", doc, list[Message]),
        ("bare as ModelResponse", doc, ModelResponse),
        *transcript,
        ("as a response's message", b'{"message":' + doc + b"}", ModelResponse),
        ("in a tool input", TOOL_PREFIX + doc + TOOL_SUFFIX, Message),
        (
            "in a transcript's tool input",
            b"[" + TOOL_PREFIX + doc + TOOL_SUFFIX + b"]",
            list[Message],
        ),
    ]


def outcome(data: bytes, tp: Any) -> tuple[str, Any]:
    """("ok", value) / (error class name, error); anything not a WireError propagates."""
    try:
        return "ok", wire.json.decode(data, type=tp)
    except wire.WireError as err:
        assert err.message and err.path is not None, f"refusal without what and where: {err!r}"
        return type(err).__name__, err


def tool_value(decoded: Any) -> Any:
    """The ``v`` inside the tool input of a decoded Message or one-message transcript."""
    message = decoded[0] if isinstance(decoded, list) else decoded
    return message.content[0].input["v"]


@pytest.mark.parametrize("name", [n for n in FILES if n.startswith("n_")])
def test_invalid_json_is_refused_with_decode_error(name: str) -> None:
    """Every n_ file is a DecodeError in every placement."""
    doc = (CORPUS / name).read_bytes()
    for where, data, tp in placements(doc):
        kind, err = outcome(data, tp)
        assert kind == "DecodeError", f"{where}: {kind} {err!r}"


@pytest.mark.parametrize("name", [n for n in FILES if n.startswith("y_")])
def test_valid_json_is_decoded_or_refused_as_wrong_shape(name: str) -> None:
    """Every y_ file decodes or is a ValidationError; inside a tool input it is the stdlib value."""
    doc = (CORPUS / name).read_bytes()
    for where, data, tp in placements(doc):
        kind, result = outcome(data, tp)
        if "tool input" in where:
            assert kind == "ok", f"{where}: {result!r}"
            assert tool_value(result) == json.loads(doc)
            assert wire.json.decode(wire.json.encode(result), type=tp) == result
        else:
            assert kind in ("ok", "ValidationError"), f"{where}: {kind} {result!r}"


@pytest.mark.parametrize("name", [n for n in FILES if n.startswith("i_")])
def test_implementation_defined_json_only_raises_wire_errors(name: str) -> None:
    """Every i_ file decodes or raises a WireError; what is accepted matches the stdlib value."""
    doc = (CORPUS / name).read_bytes()
    for where, data, tp in placements(doc):
        kind, result = outcome(data, tp)
        if kind == "ok" and "tool input" in where:
            assert tool_value(result) == json.loads(doc)


def test_number_out_of_float_range_is_a_validation_error_with_path() -> None:
    """1e400 is valid JSON no float can hold: ValidationError at its path, never infinity."""
    with pytest.raises(wire.ValidationError) as info:
        wire.json.decode(b"[" + TOOL_PREFIX + b"[1,1e400]" + TOOL_SUFFIX + b"]")
    assert info.value.path == "$[0].content[0].input.v[1]"
    assert "out of range" in info.value.message


def test_the_corpus_is_complete() -> None:
    """The copied corpus holds all 318 files: 95 y_, 188 n_, 35 i_."""
    counts = {p: sum(n.startswith(p) for n in FILES) for p in ("y_", "n_", "i_")}
    assert counts == {"y_": 95, "n_": 188, "i_": 35}
