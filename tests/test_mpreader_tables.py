"""The density check's item tables and cost walk (`minagent.wire._mpreader`), against the
MessagePack spec and CPython's object sizes."""

from __future__ import annotations

import sys
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from minagent import wire
from minagent.wire import _mpreader
from minagent.wire.errors import DecodeError

# The MessagePack spec's first bytes: how many bytes follow the marker for fixed-size items
# (containers count their header only: their items are walked as items); -1 where a length
# field says how long the item is.
_SPEC_STEPS: dict[range | tuple[int, ...], Any] = {
    range(0x00, 0x80): 0,  # positive fixint
    range(0x80, 0x90): 0,  # fixmap
    range(0x90, 0xA0): 0,  # fixarray
    range(0xA0, 0xC0): lambda b: b & 0x1F,  # fixstr: its bytes
    (0xC0, 0xC1, 0xC2, 0xC3): 0,  # nil, (never used), false, true
    (0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9): -1,  # bin 8/16/32, ext 8/16/32
    (0xCA,): 4,
    (0xCB,): 8,  # float 32 / 64
    (0xCC,): 1,
    (0xCD,): 2,
    (0xCE,): 4,
    (0xCF,): 8,  # uint 8..64
    (0xD0,): 1,
    (0xD1,): 2,
    (0xD2,): 4,
    (0xD3,): 8,  # int 8..64
    (0xD4,): 2,
    (0xD5,): 3,
    (0xD6,): 5,
    (0xD7,): 9,
    (0xD8,): 17,  # fixext 1..16: type byte + data
    (0xD9, 0xDA, 0xDB, 0xDC, 0xDD, 0xDE, 0xDF): -1,  # str 8/16/32, array 16/32, map 16/32
    range(0xE0, 0x100): 0,  # negative fixint
}


def test_item_steps_follow_the_messagepack_spec() -> None:
    """For each of the 256 first bytes: the bytes after it of a fixed-size item, or -1 for
    items sized by a length field."""
    steps, _ = _mpreader._fixed()
    expected = [0] * 256
    for markers, step in _SPEC_STEPS.items():
        for b in markers:
            expected[b] = step(b) if callable(step) else step
    assert steps == expected


def _size(value: Any) -> int:
    return sys.getsizeof(value)


@pytest.mark.parametrize(
    ("sample", "cached"),
    [
        ({}, False), ({"a": 1}, False), ({str(i): i for i in range(5)}, False),
        ({str(i): i for i in range(6)}, False), ({str(i): i for i in range(10)}, False),
        ({str(i): i for i in range(11)}, False), ({str(i): i for i in range(15)}, False),
        ([], False), ([1], False), (list(range(15)), False),
        ("", True), ("a", True), ("ab", False), ("x" * 31, False),
        (1.5, False), (2**40, False), (-(2**40), False), (200, False), (-100, False),
        (-32, False), (-20, False), (-6, False), (-5, True), (-3, True), (5, True), (None, True),
        (True, True),
    ],
)  # fmt: skip
def test_item_costs_bound_what_python_allocates(sample: Any, cached: bool) -> None:
    """The cost of an item's first byte is at least the size of the object it decodes to (a
    container's own size, its items counted apart); 0 for objects CPython shares (small ints,
    None, booleans, empty and one-character strings); containers (maps up to 10 keys) and
    strings exactly."""
    data = msgspec.msgpack.encode(sample)
    _, costs = _mpreader._fixed()
    cost = costs[data[0]]
    if cached:
        assert cost == 0
        return
    size = _size(msgspec.msgpack.decode(data))
    if isinstance(sample, (list, str)):
        assert cost == size
    elif isinstance(sample, dict):  # exact up to 10 keys; above, CPython's table grows in steps
        assert cost == size if len(sample) <= 10 else cost >= size
    else:
        assert size <= cost <= size + 8


def test_map_costs_bound_what_this_interpreter_allocates() -> None:
    """Every map length costs at least the dict CPython builds for it (measured here: dicts
    grew smaller from 3.10 to 3.11), exactly for the 16 fixmap lengths, and the bytes per key
    of longer maps stay within 8 of the largest measured (the estimate stays tight)."""
    sizes = [sys.getsizeof(dict.fromkeys(map(str, range(n)))) for n in range(3000)]
    assert [_mpreader._map_cost(n) for n in range(16)] == sizes[:16]
    assert all(_mpreader._map_cost(n) >= size for n, size in enumerate(sizes))
    worst = max((size - 64) / n for n, size in enumerate(sizes) if n >= 16)
    assert worst <= _mpreader._PER_KEY < worst + 8


def test_python_cost_adds_the_items_and_stops_past_the_limit() -> None:
    """The walk adds each item's cost (length-sized items: 33 + their length), skips string
    payloads, and returns as soon as the running total passes ``stop``."""
    items = [{"k": "x" * 40}, [1, 2], b"\x00" * 300, "é" * 20]
    data = msgspec.msgpack.encode(items)
    _, costs = _mpreader._fixed()
    expected = costs[0x94]  # the outer fixarray of 4
    expected += costs[0x81] + costs[0xA1] + (33 + 40)  # {"k": str8 of 40}
    expected += costs[0x92] + 0 + 0  # [1, 2]: cached ints
    expected += 33 + 300  # bin 16
    expected += 33 + 40  # str 8 of 40 UTF-8 bytes
    assert _mpreader.python_cost(data, 10**9) == expected
    first = costs[0x94] + costs[0x81]
    assert _mpreader.python_cost(data, first - 1) == first  # stops once past the limit
    big = msgspec.msgpack.encode([{}] * 70_000)  # array 32 of 70,000 empty maps
    assert _mpreader.python_cost(big, 10**9) == (56 + 8 * 70_000) + 64 * 70_000
    huge_map = msgspec.msgpack.encode({str(i): None for i in range(20)})  # map 16 of 20
    assert _mpreader.python_cost(huge_map, 10**9) == (64 + _mpreader._PER_KEY * 20) + sum(
        costs[msgspec.msgpack.encode(str(i))[0]] for i in range(20)
    )


# --- the timestamp-keeping reader agrees with msgspec ---------------------------------------

_leaves = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False)
    | st.text(max_size=300)
    | st.binary(max_size=300)
    | st.builds(
        msgspec.msgpack.Ext,
        st.integers(0, 127),
        st.sampled_from([1, 2, 3, 4, 8, 16, 17, 300]).map(lambda n: b"\x07" * n),
    )
)
_values = st.recursive(
    _leaves,
    lambda inner: (
        st.lists(inner, max_size=20) | st.dictionaries(st.text(max_size=5), inner, max_size=20)
    ),
    max_leaves=40,
)


def _generic(data: bytes) -> Any:
    return msgspec.msgpack.decode(
        data, ext_hook=lambda code, raw: msgspec.msgpack.Ext(code, bytes(raw))
    )


@given(_values)
def test_the_timestamp_reader_agrees_with_msgspec(value: Any) -> None:
    """Any MessagePack value (every int, str, bin, ext and container width msgspec writes for
    it) reads back from `read_msgpack` exactly as msgspec's own decoder reads it."""
    data = msgspec.msgpack.encode(value)
    assert _mpreader.read_msgpack(data, 1000) == _generic(data)


@pytest.mark.parametrize(
    "data",
    [
        b"\xca\x3f\xc0\x00\x00",  # float 32: 1.5
        b"\xdc\x00\x02\x01\x02",  # array 16 of 2
        b"\xdd\x00\x00\x00\x01\xc0",  # array 32 of 1
        b"\xde\x00\x01\xa1k\x01",  # map 16 of 1
        b"\xdf\x00\x00\x00\x01\xa1k\xc3",  # map 32 of 1
        b"\xd9\x02hi", b"\xda\x00\x02hi", b"\xdb\x00\x00\x00\x02hi",  # str 8 / 16 / 32
        b"\xc4\x01\x00", b"\xc5\x00\x01\x00", b"\xc6\x00\x00\x00\x01\x00",  # bin 8 / 16 / 32
        b"\xc7\x01\x05x", b"\xc8\x00\x01\x05x", b"\xc9\x00\x00\x00\x01\x05x",  # ext 8 / 16 / 32
        b"\xd0\x80", b"\xd1\x80\x00", b"\xd2\x80\x00\x00\x00",  # int 8 / 16 / 32 minimums
        b"\xd3\x80\x00\x00\x00\x00\x00\x00\x00",
        b"\xcc\xff", b"\xcd\xff\xff", b"\xce\xff\xff\xff\xff", b"\xcf" + b"\xff" * 8,
        b"\xe0", b"\x7f", b"\x90", b"\x80",
    ],
)  # fmt: skip
def test_the_timestamp_reader_reads_every_width(data: bytes) -> None:
    """Each width of each MessagePack type, including those msgspec never writes for small
    values (float 32, str 32 of two bytes, ...): the same value as msgspec's decoder."""
    assert _mpreader.read_msgpack(data, 10) == _generic(data)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\x81\xa1k", "invalid MessagePack: truncated: input ends at byte 3"),
        (b"\x92\x01", "invalid MessagePack: truncated: array of 2 items at byte 1, only 1 bytes "
                      "remain"),
        (b"\xc1", "invalid MessagePack: invalid type byte 0xc1 at byte 0"),
        (b"\x01\x02", "invalid MessagePack: trailing data after the object, at byte 1"),
        (b"\xa2\xff\xfe", "invalid MessagePack: invalid UTF-8 in the string ending at byte 3"),
        (b"\xd9\x05ab", "invalid MessagePack: truncated: 5 bytes claimed at byte 2, fewer remain"),
        (b"\xdc\x00\x09\x01", "invalid MessagePack: truncated: array of 9 items at byte 3, "
                              "only 1 bytes remain"),
        (b"\xde\x00\x02\x01\x02\x03", "invalid MessagePack: truncated: map of 2 items at byte 3, "
                                      "only 3 bytes remain"),
        (b"\x81\x90\x01", "invalid MessagePack: map keys must be hashable, not list"),
        (b"\xd6\xff\x00\x00\x00", "invalid MessagePack: truncated: 4 bytes claimed at byte 2, "
                                  "fewer remain"),
        (b"\xc7\x03\xff\x00\x00\x00", "invalid MessagePack: a timestamp (ext type -1) holds 4, 8 "
                                      "or 12 bytes, not 3"),
        (b"\xd7\xff" + (10**9 << 2).to_bytes(4, "big") + b"\x00" * 4,
         "invalid MessagePack: timestamp nanoseconds 1000000000 out of range"),
        (b"\xc7\x0c\xff" + (10**9).to_bytes(4, "big") + b"\x00" * 8,
         "invalid MessagePack: timestamp nanoseconds 1000000000 out of range"),
    ],
)  # fmt: skip
def test_the_timestamp_reader_refuses_with_exact_texts(data: bytes, message: str) -> None:
    """Malformed input, bad timestamps and nesting past the limit: DecodeError, exact text."""
    with pytest.raises(DecodeError) as info:
        _mpreader.read_msgpack(data, 2)
    assert (info.value.message, info.value.path) == (message, "$")


@pytest.mark.parametrize(
    ("value", "max_depth", "path"),
    [
        ([[[None]]], 2, "$[0][0]"),
        ({"a": [1, {"b": [[]]}]}, 3, "$.a[1].b"),
        ({"a": [1, {"b": [[]]}]}, 4, "$.a[1].b[0]"),
        ({1: [[]]}, 2, "$.1[0]"),
        ([0, 1, [2, [3]]], 2, "$[2][1]"),
    ],
)
def test_the_timestamp_reader_names_the_container_past_max_depth(
    value: Any, max_depth: int, path: str
) -> None:
    """Nesting past ``max_depth`` raises TooDeep with the path of the first container past it,
    keys written as the depth walk writes them (the codec words the error)."""
    data = msgspec.msgpack.encode(value)
    with pytest.raises(_mpreader.TooDeep) as info:
        _mpreader.read_msgpack(data, max_depth)
    assert info.value.path == path
    assert _mpreader.read_msgpack(data, 5) == value  # every value here nests 5 deep at most


def test_a_container_as_a_map_key_past_max_depth_stays_at_its_map() -> None:
    """A container read as a map key (refused as a key anyway) past the limit is named by the
    map's own path."""
    with pytest.raises(_mpreader.TooDeep) as info:
        _mpreader.read_msgpack(b"\x91\x81\x91\x01\x02", 2)
    assert info.value.path == "$[0]"


def test_the_timestamp_reader_keeps_valid_timestamps_as_they_came() -> None:
    """Timestamps of 4, 8 and 12 bytes (nanoseconds up to 999,999,999) come out as
    ``Ext(-1, data)``, byte for byte."""
    stamps = [
        b"\x00\x00\x00\x01",
        ((999_999_999 << 34) | 5).to_bytes(8, "big"),
        (999_999_999).to_bytes(4, "big") + (2**63 - 1).to_bytes(8, "big"),
    ]
    data = msgspec.msgpack.encode([msgspec.msgpack.Ext(-1, s) for s in stamps])
    assert _mpreader.read_msgpack(data, 2) == [msgspec.msgpack.Ext(-1, s) for s in stamps]


@pytest.mark.parametrize(
    ("in_list", "path"), [(False, "$"), (True, "$[1]")], ids=["message", "list-element"]
)
def test_a_bad_timestamp_is_refused_at_its_message(in_list: bool, path: str) -> None:
    """A timestamp breaking the spec, in a lone message or in an element the lossless path reads
    one by one, is the reader's DecodeError, at the message (the reader knows byte offsets,
    not paths)."""
    bad = msgspec.msgpack.Ext(-1, b"\x00\x00\x01")
    message = {"role": "user", "content": [{"type": "x", "v": [bad]}]}
    odd = {"role": "user", "content": "hi", "x_unknown": 1}
    data = msgspec.msgpack.encode([odd, message] if in_list else message)
    with pytest.raises(DecodeError) as info:
        wire.msgpack.decode(data, type=list[wire.Message] if in_list else wire.Message)
    assert (info.value.message, info.value.path) == (
        "invalid MessagePack: a timestamp (ext type -1) holds 4, 8 or 12 bytes, not 3",
        path,
    )


@pytest.mark.parametrize(
    "value",
    [{str(i): i for i in range(15)}, list(range(15)), "x" * 31, {str(i): i for i in range(16)},
     list(range(16)), "x" * 32],
    ids=["fixmap-15", "fixarray-15", "fixstr-31", "map16", "array16", "str8"],
)  # fmt: skip
def test_the_timestamp_reader_reads_the_largest_fixed_headers(value: Any) -> None:
    """The last byte of each fixmap / fixarray / fixstr range, and the first past it, read as
    msgspec reads them."""
    data = msgspec.msgpack.encode(value)
    assert _mpreader.read_msgpack(data, 4) == msgspec.msgpack.decode(data) == value


_STAMP_12 = (123_456_789).to_bytes(4, "big") + (2**40).to_bytes(8, "big")  # nanoseconds kept


@pytest.mark.parametrize(
    "data",
    [
        b"\xd6\xff\x00\x00\x00\x01",  # fixext 4 at byte 0: its type byte at 1
        b"\xc7\x0c\xff" + _STAMP_12,  # ext 8 at byte 0: its type byte at 2
        b"\xc8\x00\x0c\xff" + _STAMP_12,  # ext 16 at byte 0
        b"\xc9\x00\x00\x00\x0c\xff" + _STAMP_12,  # ext 32 at byte 0
    ],
    ids=["fixext4", "ext8", "ext16", "ext32"],
)
def test_a_timestamp_at_the_very_start_is_seen(data: bytes) -> None:
    """A timestamp whose header starts the input is found (the lookback reaches byte 0): as a
    whole input it is an ext where a message belongs, named as msgspec names it (not the
    ``datetime`` msgspec's own reader would have made of it)."""
    assert _mpreader.may_hold_timestamp(memoryview(data))
    with pytest.raises(wire.ValidationError) as info:
        wire.msgpack.decode(data, type=wire.Message)
    assert (info.value.message, info.value.path) == ("Expected `object`, got `ext`", "$")


def test_a_timestamp_after_other_0xff_bytes_is_kept_exactly() -> None:
    """0xff bytes that are not a timestamp's type (the int -1, 255 as uint 8, in bin) before a
    timestamp with nanoseconds: the input still goes through the exact reader and the
    timestamp comes back byte for byte (msgspec's datetime would drop the nanoseconds)."""
    stamp = msgspec.msgpack.Ext(-1, _STAMP_12)
    block = {"type": "x", "a": -1, "b": 255, "c": b"\xff\xff", "t": stamp}
    data = msgspec.msgpack.encode({"role": "user", "content": [block], "k": 1})
    assert data.count(b"\xff") >= 5
    decoded = wire.msgpack.decode(data, type=wire.Message)
    assert decoded.content[0].data["t"] == wire.MsgpackOnly(stamp)
    assert wire.msgpack.encode(decoded) == data


def test_an_oversized_timestamp_right_after_its_length_byte_is_refused() -> None:
    """An ext 8 of type -1 and length 255 (its length byte is 0xff too): the exact reader
    refuses it as a timestamp of the wrong size."""
    data = msgspec.msgpack.encode({"role": "user", "content": [{"type": "x", "t": None}]})
    data = data[:-1] + b"\xc7\xff\xff" + b"\x00" * 255
    with pytest.raises(DecodeError) as info:
        wire.msgpack.decode(data, type=wire.Message)
    assert (info.value.message, info.value.path) == (
        "invalid MessagePack: a timestamp (ext type -1) holds 4, 8 or 12 bytes, not 255",
        "$",
    )


def test_python_cost_reads_every_length_prefixed_header() -> None:
    """Ext 8/16/32 (a type byte after the length), array 16/32 and map 16 headers: each item is
    costed once and the walk resumes at the next item, so the total is exact."""
    keys = {str(i): 0 for i in range(16)}  # "0".."9" cost nothing (one character), "10".. 51
    items = [
        msgspec.msgpack.Ext(5, b"x" * 19 + b"\xa5"),  # a fixstr header if misread
        msgspec.msgpack.Ext(5, b"x" * 299 + b"\xa5"),
        msgspec.msgpack.Ext(5, b"x" * 69_999 + b"\xa5"),
        list(range(16)),
        keys,
        [0] * 65_536,
        "é" * 20,
    ]
    data = msgspec.msgpack.encode(items)
    assert data[:2] == b"\x97\xc7"  # fixarray of 7, then ext 8
    _, costs = _mpreader._fixed()
    expected = costs[0x97]
    expected += (33 + 20) + (33 + 300) + (33 + 70_000)  # ext 8, ext 16, ext 32
    expected += 56 + 8 * 16  # array 16 of cached ints
    two = sys.getsizeof("ab")  # what this interpreter allocates for a two-character key
    expected += _mpreader._map_cost(16) + 6 * two  # map 16: six two-character keys
    expected += 56 + 8 * 65_536  # array 32
    expected += 33 + 40  # str 8
    assert _mpreader.python_cost(data, 10**9) == expected


def test_python_cost_goes_on_while_the_total_is_exactly_the_limit() -> None:
    """The walk stops only once the total is past ``stop``: at exactly ``stop`` the next item
    is still counted."""
    data = msgspec.msgpack.encode([[], []])
    _, costs = _mpreader._fixed()
    assert _mpreader.python_cost(data, costs[0x92]) == costs[0x92] + costs[0x90]
