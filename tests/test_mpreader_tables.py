"""The density check's item tables and cost walk (`minagent.wire._mpreader`), against the
MessagePack spec and CPython's object sizes."""

from __future__ import annotations

import sys
from typing import Any

import msgspec
import pytest

from minagent.wire import _mpreader

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
        (-20, False), (-3, True), (5, True), (None, True), (True, True),
    ],
)  # fmt: skip
def test_item_costs_bound_what_python_allocates(sample: Any, cached: bool) -> None:
    """The cost of an item's first byte is at least the size of the object it decodes to (a
    container's own size, its items counted apart); 0 for objects CPython shares (small ints,
    None, booleans, empty and one-character strings); containers and strings exactly."""
    data = msgspec.msgpack.encode(sample)
    _, costs = _mpreader._fixed()
    cost = costs[data[0]]
    if cached:
        assert cost == 0
        return
    size = _size(msgspec.msgpack.decode(data))
    if isinstance(sample, (list, str)):
        assert cost == size
    elif isinstance(sample, dict):
        assert cost == size or (cost >= size and len(sample) > 5)
    else:
        assert size <= cost <= size + 8


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
    assert _mpreader.python_cost(huge_map, 10**9) == (64 + 40 * 20) + sum(
        costs[msgspec.msgpack.encode(str(i))[0]] for i in range(20)
    )
