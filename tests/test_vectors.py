"""The golden vectors (tests/vectors/): the codec reproduces them byte for byte, and they cover
every Struct of the protocol. (tests/node/check_vectors.mjs checks them from JavaScript.)"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any, get_args

import jsonschema
import msgspec
import pytest

from minagent import wire
from minagent.wire.schema import json_schema

VECTORS = Path(__file__).parent / "vectors"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vector_generator", VECTORS / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATE = _generator()
INDEX = json.loads((VECTORS / "index.json").read_text(encoding="utf-8"))["vectors"]
TYPES: dict[str, Any] = {
    "list[Message]": list[wire.Message],
    "list[ModelResponse]": list[wire.ModelResponse],
    "Message": wire.Message,
    "ModelResponse": wire.ModelResponse,
}


def test_the_generator_reproduces_the_committed_files() -> None:
    """Re-running generate.py gives exactly the committed files (same names, same bytes)."""
    built = GENERATE.build()
    on_disk = GENERATE.written(VECTORS)
    assert sorted(on_disk) == sorted(built)
    for name, data in built.items():
        assert on_disk[name] == data, f"{name} is stale: run python tests/vectors/generate.py"


@pytest.mark.parametrize("vector", INDEX, ids=[v["name"] for v in INDEX])
def test_the_codec_reproduces_each_vector_byte_for_byte(vector: dict[str, Any]) -> None:
    """Decoding either file and encoding canonically, in either format, gives the files' bytes."""
    tp = TYPES[vector["type"]]
    as_json = (VECTORS / f"{vector['name']}.json").read_bytes()
    as_msgpack = (VECTORS / f"{vector['name']}.msgpack").read_bytes()
    from_json = wire.json.decode(as_json, type=tp)
    from_msgpack = wire.msgpack.decode(as_msgpack, type=tp)
    assert from_json == from_msgpack
    assert wire.json.encode(from_json, canonical=True) == as_json
    assert wire.json.encode(from_msgpack, canonical=True) == as_json
    assert wire.msgpack.encode(from_msgpack, canonical=True) == as_msgpack
    assert wire.msgpack.encode(from_json, canonical=True) == as_msgpack


def _struct_types(value: Any, out: set[type]) -> set[type]:
    if isinstance(value, msgspec.Struct):
        out.add(type(value))
        for field in msgspec.structs.fields(value):
            _struct_types(getattr(value, field.name), out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _struct_types(item, out)
    elif isinstance(value, dict):
        for item in value.values():
            _struct_types(item, out)
    return out


def test_the_vectors_hold_every_struct_of_the_protocol() -> None:
    """Every Struct reachable from Message and ModelResponse (each ContentBlock member, each
    source, ...) occurs in some vector, and each known block has its own vectors."""
    reachable = _reachable()
    found: set[type] = set()
    for vector in INDEX:
        data = (VECTORS / f"{vector['name']}.json").read_bytes()
        _struct_types(wire.json.decode(data, type=TYPES[vector["type"]]), found)
    assert found == reachable
    names = {v["name"] for v in INDEX}
    for cls in get_args(wire.ContentBlock):
        if cls is not wire.UnknownBlock:
            slug = GENERATE._snake(cls.__name__)
            assert {f"block-{slug}", f"block-{slug}-required"} <= names


def _reachable() -> set[type]:
    from minagent.wire._schema_gen import _struct_classes

    return set(_struct_classes((wire.Message, wire.ModelResponse)).values())


def test_the_vectors_cover_the_promised_cases() -> None:
    """Unknown blocks and keys, binary data, Unicode edge cases and ModelResponses each have a
    vector (the names the Node checker reports)."""
    names = [v["name"] for v in INDEX]
    assert names[:11] == [
        "seed-conversation",
        "empty-transcript",
        "message-forms",
        "unknown-blocks-and-keys",
        "binary",
        "unicode",
        "numbers",
        "numbers-float-spelling",
        "model-response",
        "model-responses",
        "block-text",
    ]
    binary = wire.json.decode((VECTORS / "binary.json").read_bytes())
    assert binary[0].content[0].source.data == bytes(range(256))
    unknown = wire.json.decode((VECTORS / "unknown-blocks-and-keys.json").read_bytes())
    assert [b.type for b in unknown[0].content] == ["text", "web_search_tool_result_v9", "image"]
    assert unknown[0].extra == {"id": "msg_01", "model": "some-model"}
    assert unknown[0].content[2].source.type == "file_v2"


def test_the_exported_schema_accepts_every_vector() -> None:
    """schema.json is `json_schema()`, and every vector validates against it as its type."""
    schema = json.loads((VECTORS / "schema.json").read_text(encoding="utf-8"))
    assert schema == json_schema()
    validator = jsonschema.Draft202012Validator(schema)
    for vector in INDEX:
        value = json.loads((VECTORS / f"{vector['name']}.json").read_bytes())
        assert list(validator.iter_errors(value)) == [], vector["name"]
