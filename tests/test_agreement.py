"""Property tests: the msgspec codec agrees with the dataclass reference (PROTOCOL.md)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given

from minagent import types as ref
from minagent import wire
from tests import strategies as s


def reference_bytes(conv: list[Any]) -> bytes:
    """The reference's canonical JSON for a list of reference objects."""
    return json.dumps(
        [m.to_wire() for m in conv], ensure_ascii=False, sort_keys=True, separators=(",", ":")
    ).encode("utf-8")


@given(s.conversations())
def test_canonical_json_is_byte_identical_to_the_reference(conv: list[ref.Message]) -> None:
    """Canonical JSON of the Structs equals json.dumps(sort_keys=True) of the reference's wire."""
    assert wire.json.encode(wire.from_reference(conv), canonical=True) == reference_bytes(conv)


@given(s.conversations(floats=True))
def test_decoding_reference_bytes_gives_back_the_conversation(conv: list[ref.Message]) -> None:
    """to_reference(json.decode(reference bytes)) == the original conversation (floats included)."""
    decoded = wire.json.decode(reference_bytes(conv))
    assert decoded == wire.from_reference(conv)
    assert wire.to_reference(decoded) == conv


@given(s.conversations(floats=True))
def test_msgpack_decodes_to_the_same_structs_as_json(conv: list[ref.Message]) -> None:
    """MessagePack bytes of a transcript decode to the Structs its JSON bytes decode to."""
    from_json = wire.json.decode(reference_bytes(conv))
    for canonical in (False, True):
        packed = wire.msgpack.encode(from_json, canonical=canonical)
        assert wire.msgpack.decode(packed) == from_json


@given(s.conversations(floats=True))
def test_reference_decodes_our_bytes(conv: list[ref.Message]) -> None:
    """The reference's from_wire over our JSON gives back the conversation (the other direction)."""
    ours = wire.json.encode(wire.from_reference(conv))
    assert [ref.Message.from_wire(w) for w in json.loads(ours)] == conv


@given(s.conversations(floats=True))
def test_round_trip_within_each_format_is_exact(conv: list[ref.Message]) -> None:
    """decode(encode(x)) == x and encode(decode(b)) == b in JSON and in MessagePack."""
    structs = wire.from_reference(conv)
    for fmt in (wire.json, wire.msgpack):
        data = fmt.encode(structs)
        assert fmt.decode(data) == structs
        assert fmt.encode(fmt.decode(data)) == data


@given(s.responses(floats=True))
def test_model_response_agrees_with_the_reference(resp: ref.ModelResponse) -> None:
    """A ModelResponse decodes from the reference's bytes and round-trips in both formats."""
    data = json.dumps(resp.to_wire(), ensure_ascii=False, sort_keys=True).encode()
    decoded = wire.json.decode(data, type=wire.ModelResponse)
    assert decoded == wire.from_reference(resp)
    assert wire.to_reference(decoded) == resp
    assert wire.msgpack.decode(wire.msgpack.encode(decoded), type=wire.ModelResponse) == decoded


@given(s.responses())
def test_model_response_canonical_bytes(resp: ref.ModelResponse) -> None:
    """Canonical JSON of a ModelResponse equals the reference's sorted json.dumps."""
    expected = json.dumps(
        resp.to_wire(), ensure_ascii=False, sort_keys=True, separators=(",", ":")
    ).encode()
    assert wire.json.encode(wire.from_reference(resp), canonical=True) == expected
