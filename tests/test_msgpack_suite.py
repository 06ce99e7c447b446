"""msgpack-test-suite (tests/data/msgpack-test-suite): every encoding inside a tool input.

Each of the 233 encodings of the 85 cases, placed as the value of a tool ``input`` in a
MessagePack message, decodes to the expected value, the same for every alternative encoding of
that value. Values JSON cannot hold (``bin``, ``ext``, timestamps) round-trip through MessagePack
exactly, and JSON encoding refuses them naming their path.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec.msgpack import Ext

from minagent import wire
from minagent.wire import Message, ModelResponse

SUITE = Path(__file__).parent / "data" / "msgpack-test-suite" / "dist" / "msgpack-test-suite.json"
GROUPS: dict[str, list[dict[str, Any]]] = json.loads(SUITE.read_text())
CASES = [
    pytest.param(case, id=f"{group.split('.')[1]}-{i}")
    for group, cases in GROUPS.items()
    for i, case in enumerate(cases)
]
JSON_UNSAFE = ("binary", "ext", "timestamp")

# A message whose tool input is {"v": nil}; the nil is the last byte, replaced by each encoding.
_TEMPLATE = msgspec.msgpack.encode(
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {"v": None}}],
    }
)
assert _TEMPLATE.endswith(b"\xa1v\xc0")


def in_tool_input(encoding: bytes) -> bytes:
    """A MessagePack Message whose tool input is ``{"v": <encoding>}``."""
    return _TEMPLATE[:-1] + encoding


def hexbytes(text: str) -> bytes:
    """The suite's dash-separated hex (``"cd-00-01"``) as bytes."""
    return bytes.fromhex(text.replace("-", ""))


def expected(case: dict[str, Any]) -> Any:
    """The value a case describes, as our decoder must give it."""
    if "bignum" in case:
        return int(case["bignum"])
    kind = next(k for k in case if k != "msgpack")
    value = case[kind]
    if kind == "binary":
        return hexbytes(value)
    if kind == "ext":
        return Ext(value[0], hexbytes(value[1]))
    if kind == "timestamp":
        return tuple(value)  # compared after unpacking the Ext(-1, ...)
    return value


def timestamp_of(ext: Ext) -> tuple[int, int]:
    """(seconds, nanoseconds) of a timestamp ext, per the MessagePack spec."""
    data = ext.data
    if len(data) == 4:
        return int.from_bytes(data, "big"), 0
    if len(data) == 8:
        word = int.from_bytes(data, "big")
        return word & 0x3_FFFF_FFFF, word >> 34
    return int.from_bytes(data[4:], "big", signed=True), int.from_bytes(data[:4], "big")


def same(got: Any, want: Any) -> bool:
    """Equality that also compares Ext payloads and treats 1 and 1.0 as equal numbers."""
    if isinstance(want, Ext):
        return isinstance(got, Ext) and (got.code, got.data) == (want.code, want.data)
    if isinstance(want, float) and isinstance(got, float) and math.isnan(want):
        return math.isnan(got)
    return bool(got == want)


@pytest.mark.parametrize("case", CASES)
def test_every_encoding_decodes_to_the_expected_value(case: dict[str, Any]) -> None:
    """Each encoding in a tool input decodes to the case's value; all encodings agree."""
    want = expected(case)
    seen = []
    for encoding in case["msgpack"]:
        message = wire.msgpack.decode(in_tool_input(hexbytes(encoding)), type=Message)
        got = message.content[0].input["v"]
        if "timestamp" in case:
            assert isinstance(got, Ext) and got.code == -1
            assert timestamp_of(got) == want
        else:
            assert same(got, want), f"{encoding}: {got!r} != {want!r}"
        seen.append(got)
    assert all(same(other, seen[0]) for other in seen[1:])


@pytest.mark.parametrize("case", CASES)
def test_every_value_round_trips_through_msgpack(case: dict[str, Any]) -> None:
    """Decode, encode, decode gives the same message; JSON-safe values also survive JSON."""
    first = hexbytes(case["msgpack"][0])
    message = wire.msgpack.decode(in_tool_input(first), type=Message)
    again = wire.msgpack.encode(message)
    assert wire.msgpack.decode(again, type=Message) == message
    if not any(k in case for k in JSON_UNSAFE):
        assert wire.json.decode(wire.json.encode(message), type=Message) == message


@pytest.mark.parametrize("case", [c for c in CASES if any(k in c.values[0] for k in JSON_UNSAFE)])
def test_json_unsafe_values_are_exact_in_msgpack_and_refused_by_json(case: dict[str, Any]) -> None:
    """bin, ext and timestamps re-encode to the same bytes; JSON encoding names their path."""
    first = hexbytes(case["msgpack"][0])
    data = b"\x91" + in_tool_input(first)  # a one-message transcript
    decoded = wire.msgpack.decode(data)
    assert wire.msgpack.encode(decoded) == data
    with pytest.raises(wire.EncodeError) as info:
        wire.json.encode(decoded)
    assert info.value.path == "$[0].content[0].input.v"
    assert "cannot be written as JSON" in info.value.message
    response = wire.ModelResponse(message=decoded[0])
    with pytest.raises(wire.EncodeError) as info:
        wire.json.encode(wire.msgpack.decode(wire.msgpack.encode(response), type=ModelResponse))
    assert info.value.path == "$.message.content[0].input.v"


@pytest.mark.parametrize(
    "payload",
    [
        "d6-ff-00-00-00-00",  # 1970
        "c7-0c-ff-00-00-00-00-ff-ff-ff-ff-ff-ff-ff-ff",  # 1969, before the epoch
        "c7-0c-ff-00-00-00-00-00-00-00-f0-00-00-00-00",  # year ~ 32,700, beyond datetime
        "c7-0c-ff-00-00-00-00-80-00-00-00-00-00-00-00",  # the earliest timestamp there is
        "d7-ff-ee-6b-27-fc-ff-ff-ff-ff",  # 2106, 999999999 ns
    ],
)
def test_timestamps_outside_datetime_range_round_trip_exactly(payload: str) -> None:
    """A timestamp is kept as Ext(-1, data), byte for byte, even where datetime cannot go."""
    data = b"\x91" + in_tool_input(hexbytes(payload))
    decoded = wire.msgpack.decode(data)
    assert (
        decoded[0].content[0].input["v"].data
        == hexbytes(payload)[3 if payload.startswith("c7") else 2 :]
    )
    assert wire.msgpack.encode(decoded) == data


@pytest.mark.parametrize(
    "payload",
    [
        "d4-ff-00",  # 1 byte: no such timestamp
        "d8-ff" + "-00" * 16,  # 16 bytes
        "d7-ff-ff-ff-ff-ff-00-00-00-00",  # nanoseconds 1073741823 > 999999999
        "c7-0c-ff-3b-9a-ca-00-00-00-00-00-00-00-00-00",  # nanoseconds 1000000000
    ],
)
def test_malformed_timestamps_are_decode_errors(payload: str) -> None:
    """An ext -1 that breaks the timestamp spec is refused with DecodeError, not kept."""
    with pytest.raises(wire.DecodeError, match="timestamp"):
        wire.msgpack.decode(in_tool_input(hexbytes(payload)), type=Message)


def test_the_suite_is_complete() -> None:
    """The copied suite holds 15 groups, 85 cases, 233 encodings."""
    assert len(GROUPS) == 15 and len(CASES) == 85
    assert sum(len(c.values[0]["msgpack"]) for c in CASES) == 233
