"""The JSON Schema of the wire protocol (`minagent.wire.schema`), checked with `jsonschema`."""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minagent import wire
from minagent.bench import corpus
from minagent.wire import _schema_gen
from minagent.wire.schema import SCHEMA_ID, SHIPPED, json_schema
from tests.budget import scaled

from . import strategies as strat


@functools.cache
def _schema() -> dict[str, Any]:
    """The schema, generated once per process, when the first test needs it (not at import)."""
    return json_schema()


@functools.cache
def _validator(root: str | None = None) -> jsonschema.Draft202012Validator:
    """A validator of the whole schema, or of its definition ``root``."""
    schema = _schema()
    if root is None:
        return jsonschema.Draft202012Validator(schema)
    return jsonschema.Draft202012Validator({"$ref": f"#/$defs/{root}", "$defs": schema["$defs"]})


def _errors(value: Any, validator: jsonschema.Draft202012Validator | None = None) -> list[str]:
    return [e.message for e in (validator or _validator()).iter_errors(value)]


def test_the_schema_is_valid_draft_2020_12_with_docstring_texts() -> None:
    """The document is a valid 2020-12 schema; titles and descriptions come from docstrings."""
    jsonschema.Draft202012Validator.check_schema(_schema())
    assert _schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert _schema()["$id"] == SCHEMA_ID
    text = _schema()["$defs"]["TextBlock"]
    assert text["title"] == "TextBlock"
    assert text["description"] == "A run of text."
    assert text["properties"]["text"] == {"type": "string", "description": "The text."}
    assert _schema()["$defs"]["Message"]["properties"]["role"] == {
        "enum": ["assistant", "system", "tool", "user"],
        "description": "Who speaks.",
    }
    assert "__minagent_extra__" not in json.dumps(_schema())
    assert "discriminator" not in json.dumps(_schema())


def test_the_shipped_schema_is_what_generation_gives() -> None:
    """The package's schema.json is byte for byte the document generated from the Structs now
    (``python -m minagent.wire._schema_gen`` rewrites it after a Struct changes)."""
    assert SHIPPED.read_text(encoding="utf-8") == _schema_gen.generate() + "\n"


def test_json_schema_returns_a_fresh_copy() -> None:
    """Changing the returned dict does not change the next call's result."""
    first = json_schema()
    first["$defs"].clear()
    assert json_schema() == _schema()


@pytest.mark.parametrize("family", list(corpus.FAMILIES))
def test_the_schema_accepts_the_corpus(family: str) -> None:
    """Every transcript of the benchmark corpus (unknown blocks and keys included) validates."""
    value = json.loads(corpus.json_bytes(corpus.transcript(family, 60)))
    assert _errors(value) == []


def test_the_schema_accepts_the_provider_examples_as_messages() -> None:
    """Anthropic request messages from tests/data (typed and unknown blocks) validate."""
    from pathlib import Path

    folder = Path(__file__).parent / "data" / "provider-examples" / "anthropic"
    checked = 0
    for path in sorted(folder.glob("request_*.json")):
        body = json.loads(path.read_bytes())
        messages = body["messages"]
        wire.json.decode(json.dumps(messages).encode())  # the codec accepts them too
        assert _errors(messages) == [], path.name
        checked += 1
    assert checked == len(list(folder.glob("request_*.json"))) > 0


BAD: dict[str, tuple[Any, str]] = {
    "unknown role": ([{"role": "robot"}], "'robot' is not one of"),
    "no role": ([{"content": "hi"}], "'role' is a required property"),
    "text not a string": (
        [{"role": "user", "content": [{"type": "text", "text": 1}]}],
        "1 is not of type 'string'",
    ),
    "text block without text": (
        [{"role": "user", "content": [{"type": "text"}]}],
        "'text' is a required property",
    ),
    "block without type": ([{"role": "user", "content": [{"x": 1}]}], "'type'"),
    "tool input not an object": (
        [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "a", "name": "b", "input": 1}],
            }
        ],
        "1 is not of type 'object'",
    ),
    "base64 source without data": (
        [
            {
                "role": "user",
                "content": [{"type": "image", "source": {"type": "base64", "media_type": "x"}}],
            }
        ],
        "'data' is a required property",
    ),
    "is_error null": (
        [{"role": "tool", "content": "x", "is_error": None}],
        "None is not of type 'boolean'",
    ),
    "usage counter not an integer": (
        {"message": {"role": "assistant"}, "usage": {"n": "1"}},
        "'1' is not of type 'integer'",
    ),
    "content a number": ([{"role": "user", "content": 3}], "3 is not of type 'string'"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_the_schema_rejects_invalid_messages_that_the_codec_rejects(name: str) -> None:
    """Each invalid value fails the schema (the expected reason among those of the root's
    alternatives) and fails the codec with a ValidationError."""
    value, reason = BAD[name]
    assert not _validator().is_valid(value)
    assert any(reason in e.message for e in _all_errors(value)), _all_errors(value)
    tp = wire.ModelResponse if isinstance(value, dict) else list[wire.Message]
    with pytest.raises(wire.ValidationError):
        wire.json.decode(json.dumps(value).encode(), type=tp)


def _all_errors(value: Any) -> list[jsonschema.ValidationError]:
    out = []
    stack = list(_validator().iter_errors(value))
    while stack:
        err = stack.pop()
        out.append(err)
        stack.extend(err.context or [])
    return out


@settings(max_examples=scaled(40), deadline=None)
@given(strat.conversations(floats=True))
def test_the_schema_accepts_every_reference_conversation(conv: list[Any]) -> None:
    """Hypothesis: every conversation the reference can express validates, as the wire has it."""
    value = json.loads(json.dumps([m.to_wire() for m in conv]))
    assert _errors(value) == []


@settings(max_examples=scaled(40), deadline=None)
@given(strat.responses())
def test_the_schema_accepts_every_reference_response(resp: Any) -> None:
    """Hypothesis: every ModelResponse the reference can express validates."""
    assert _errors(json.loads(json.dumps(resp.to_wire()))) == []


_ROLE_VALUES = st.text(max_size=8).filter(
    lambda r: r not in ("system", "user", "assistant", "tool")
)


@settings(max_examples=scaled(40), deadline=None)
@given(strat.messages(), _ROLE_VALUES)
def test_the_schema_rejects_any_other_role(msg: Any, role: str) -> None:
    """Hypothesis: a message whose role is not one of the four fails the schema and the codec."""
    value = copy.deepcopy(msg.to_wire())
    value["role"] = role
    assert not _validator("Message").is_valid(value)
    with pytest.raises(wire.ValidationError):
        wire.json.decode(json.dumps(value).encode(), type=wire.Message)


def test_the_fast_generation_equals_msgspec_public_api() -> None:
    """The generator that writes JSON values as one reference gives what msgspec's public
    ``schema_components`` gives once the copies are folded (same schemas, same classes)."""
    import msgspec

    from minagent.wire import _schema_gen as module

    roots = (list[wire.Message], wire.Message, wire.ModelResponse, list[wire.ModelResponse])
    expanded = msgspec.json.schema(module.JsonValue, schema_hook=module._hook)
    fast, fast_classes = module._components(roots)
    slow, slow_classes = module._components(roots, fast=False)
    assert slow != fast  # msgspec alone writes each JSON value out in full
    assert module._replace_json_value(slow, expanded) == fast
    assert fast_classes == slow_classes
