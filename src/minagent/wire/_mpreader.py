"""A pure-Python MessagePack reader that keeps timestamps exactly (`read_msgpack`).

MessagePack timestamps (ext type -1) get their own reader: msgspec turns them into ``datetime``
whatever ``ext_hook`` says, which drops nanoseconds and fails outside years 1-9999. So
`may_hold_timestamp` looks for a timestamp header in the bytes (one ``memchr`` for ``0xff``
first), and only such input goes through `read_msgpack`, a small pure-Python reader that keeps
each timestamp as ``Ext(-1, data)``, exactly as it came, and enforces the nesting limit itself
(`TooDeep` names the container past it; the codec words the error as for every other input).
"""

from __future__ import annotations

import os
import random
import struct
import sys
from typing import Any

from msgspec.msgpack import Ext

from .errors import DecodeError

__all__ = [
    "DENSE_FROM",
    "TooDeep",
    "check_density",
    "may_hold_timestamp",
    "python_cost",
    "read_msgpack",
]

_TIMESTAMP_TYPE = 0xFF  # ext type -1
_FIXEXT = range(0xD4, 0xD9)
_EXT_HEADER_SIZE = {0xC7: 2, 0xC8: 3, 0xC9: 5}  # ext 8/16/32: bytes from the marker to the type


def may_hold_timestamp(buffer: bytes | bytearray | memoryview) -> bool:
    """Cheap test on MessagePack bytes: could they hold an ext of type -1 (a timestamp)?

    Only false positives. One ``memchr`` for ``0xff`` (never part of UTF-8 text); then each
    ``0xff`` is checked for an ext header right before it.
    """
    if isinstance(buffer, memoryview):
        buffer = bytes(buffer)
    elif not isinstance(buffer, (bytes, bytearray)):
        return False  # not bytes at all: the decoder reports it
    find = buffer.find
    at = find(b"\xff")
    while at != -1:
        if at >= 1 and buffer[at - 1] in _FIXEXT:
            return True
        for marker, size in _EXT_HEADER_SIZE.items():
            if at >= size and buffer[at - size] == marker:
                return True
        at = find(b"\xff", at + 1)
    return False


_UNPACK_F32 = struct.Struct(">f").unpack_from
_UNPACK_F64 = struct.Struct(">d").unpack_from
_NANOS = 1_000_000_000


def _timestamp(data: bytes) -> Ext:
    """Check an ext -1 payload against the MessagePack timestamp spec; keep it as it is."""
    if len(data) == 8:
        nanos = int.from_bytes(data[:4], "big") >> 2
    elif len(data) == 12:
        nanos = int.from_bytes(data[:4], "big")
    elif len(data) == 4:
        nanos = 0
    else:
        raise ValueError(f"a timestamp (ext type -1) holds 4, 8 or 12 bytes, not {len(data)}")
    if nanos >= _NANOS:
        raise ValueError(f"timestamp nanoseconds {nanos} out of range")
    return Ext(-1, data)


class _Reader:
    """A pure-Python MessagePack reader (see `read_msgpack`)."""

    def __init__(self, data: bytes, max_depth: int) -> None:
        self.data = data
        self.pos = 0
        self.max_depth = max_depth

    def take(self, size: int) -> bytes:
        start = self.pos
        end = start + size
        if end > len(self.data):
            raise ValueError(f"truncated: {size} bytes claimed at byte {start}, fewer remain")
        self.pos = end
        return self.data[start:end]

    def uint(self, size: int) -> int:
        return int.from_bytes(self.take(size), "big")

    def header(self) -> tuple[str, Any]:
        """Read one item's header: ``("value", v)``, ``("array", n)`` or ``("map", n)``."""
        at = self.pos
        if at >= len(self.data):
            raise ValueError(f"truncated: input ends at byte {at}")
        b = self.data[at]
        self.pos = at + 1
        if b <= 0x7F:
            return "value", b
        if b >= 0xE0:
            return "value", b - 0x100
        if b <= 0x8F:
            return "map", b & 0x0F
        if b <= 0x9F:
            return "array", b & 0x0F
        if b <= 0xBF:
            return "value", self.text(b & 0x1F)
        return self.typed(b)

    def typed(self, b: int) -> tuple[str, Any]:
        simple = {0xC0: None, 0xC2: False, 0xC3: True}
        if b in simple:
            return "value", simple[b]
        if 0xC4 <= b <= 0xC6:
            return "value", self.take(self.uint(1 << (b - 0xC4)))
        if 0xC7 <= b <= 0xC9:
            size = self.uint(1 << (b - 0xC7))
            return "value", self.ext(size)
        if b == 0xCA:
            return "value", _UNPACK_F32(self.take(4))[0]
        if b == 0xCB:
            return "value", _UNPACK_F64(self.take(8))[0]
        if 0xCC <= b <= 0xCF:
            return "value", self.uint(1 << (b - 0xCC))
        if 0xD0 <= b <= 0xD3:
            return "value", int.from_bytes(self.take(1 << (b - 0xD0)), "big", signed=True)
        if 0xD4 <= b <= 0xD8:
            return "value", self.ext(1 << (b - 0xD4))
        if 0xD9 <= b <= 0xDB:
            return "value", self.text(self.uint(1 << (b - 0xD9)))
        if b in (0xDC, 0xDD):
            return "array", self.uint(2 if b == 0xDC else 4)
        if b in (0xDE, 0xDF):
            return "map", self.uint(2 if b == 0xDE else 4)
        raise ValueError(f"invalid type byte 0x{b:02x} at byte {self.pos - 1}")

    def text(self, size: int) -> str:
        try:
            return self.take(size).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"invalid UTF-8 in the string ending at byte {self.pos}") from None

    def ext(self, size: int) -> Ext:
        code = int.from_bytes(self.take(1), "big", signed=True)
        data = self.take(size)
        return _timestamp(data) if code == -1 else Ext(code, data)

    def read(self) -> Any:
        """Read the one object the buffer holds; iterative, so nesting costs no recursion."""
        # Each frame: [container, items still to read, pending map key or _NO_KEY].
        stack: list[list[Any]] = []
        while True:
            kind, value = self.header()
            if kind != "value":
                remaining = len(self.data) - self.pos
                if value > remaining // (2 if kind == "map" else 1):
                    raise ValueError(
                        f"truncated: {kind} of {value} items at byte {self.pos}, "
                        f"only {remaining} bytes remain"
                    )
                if len(stack) >= self.max_depth:
                    raise TooDeep(_path(stack))
                if value:
                    stack.append([{} if kind == "map" else [], value, _NO_KEY])
                    continue
                value = {} if kind == "map" else []
            while True:  # hand ``value`` to its container; close the containers it completes
                if not stack:
                    if self.pos != len(self.data):
                        raise ValueError(f"trailing data after the object, at byte {self.pos}")
                    return value
                frame = stack[-1]
                container = frame[0]
                if type(container) is list:
                    container.append(value)
                elif frame[2] is _NO_KEY:
                    if type(value) in (dict, list, Ext):
                        raise ValueError(f"map keys must be hashable, not {type(value).__name__}")
                    frame[2] = value
                    break
                else:
                    container[frame[2]] = value
                    frame[2] = _NO_KEY
                frame[1] -= 1
                if frame[1]:
                    break
                stack.pop()
                value = container


_NO_KEY = object()


def _path(stack: list[list[Any]]) -> str:
    """The path of the item read next, inside the open containers ``stack`` (keys written as
    `_values.children` writes them, so the path is the one the depth walk would give)."""
    steps = ["$"]
    for container, _, key in stack:
        if type(container) is list:
            steps.append(f"[{len(container)}]")
        elif key is not _NO_KEY:  # reading a value (a container as a key stays at its map)
            steps.append(f".{key}")
    return "".join(steps)


class TooDeep(Exception):
    """The reader met a container nested deeper than its ``max_depth``, at ``path`` (from
    ``$``: the input it was given)."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


def read_msgpack(data: bytes | bytearray | memoryview, max_depth: int) -> Any:
    """Decode one MessagePack object into Python values, keeping timestamps as ``Ext(-1, data)``.

    Values come out as msgspec's generic decoder gives them (``bin`` as ``bytes``, other ext
    types as `Ext`). Raises `DecodeError` for malformed input or a timestamp that breaks the
    spec, and `TooDeep` for nesting deeper than ``max_depth``. Length prefixes are checked
    against the bytes left before anything is allocated.
    """
    try:
        return _Reader(bytes(data), max_depth).read()
    except ValueError as err:
        raise DecodeError(f"invalid MessagePack: {err}", path="$") from None


# --- memory of dense input ------------------------------------------------------------------------

DENSE_FROM = 1 << 20
"""Inputs at least this large are checked for density (85x a smaller one is under 90 MiB)."""

_DENSE_MARKERS = (b"\x80", b"\x81", b"\x90")  # empty and one-item maps, empty arrays
_WINDOW = 4096
_WINDOWS = 32
_sample = random.Random(os.urandom(8)).randrange


def _dict_size(n: int) -> int:
    return sys.getsizeof(dict.fromkeys(map(str, range(n))))


_SMALL_MAPS = [_dict_size(n) for n in range(16)]
"""What a dict of 0-15 keys takes on this interpreter (CPython 3.10's are larger than 3.11's)."""
_PER_KEY = max(-(-(_dict_size(n) - 64) // n) for n in (11, 22, 43, 86)) + 3
"""Bytes per key of a larger dict, an upper bound: measured just past its table's resizes
(40 on CPython 3.11-3.13, 57 on 3.10)."""
_STR_HEAD = sys.getsizeof("")
"""What an ASCII string takes besides its characters (49 up to CPython 3.11, 41 from 3.12)."""


def _map_cost(n: int) -> int:
    return _SMALL_MAPS[n] if n < 16 else 64 + _PER_KEY * n


def _fixed() -> tuple[list[int], list[int]]:
    """For each first byte of an item of fixed size: bytes after it, and the Python bytes it
    becomes (an upper estimate; 0 for cached objects); -1 steps: sized by a length field."""
    steps, costs = [0] * 256, [0] * 256
    for b in range(0x80, 0x90):
        costs[b] = _map_cost(b & 0x0F)
    for b in range(0x90, 0xA0):
        costs[b] = 56 + 8 * (b & 0x0F)
    for b in range(0xA0, 0xC0):
        steps[b] = b & 0x1F
        costs[b] = _STR_HEAD + steps[b] if steps[b] > 1 else 0
    for b in (0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xD9, 0xDA, 0xDB, 0xDC, 0xDD, 0xDE, 0xDF):
        steps[b] = -1
    for b, size in {0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8}.items():
        steps[b], costs[b] = size, 32
    for b in range(0xD0, 0xD4):
        steps[b], costs[b] = 1 << (b - 0xD0), 32
    for b in range(0xD4, 0xD9):
        steps[b], costs[b] = 1 + (1 << (b - 0xD4)), 64
    for b in range(0xE0, 0xFB):
        costs[b] = 32  # -32..-6 are new int objects
    steps[0xC1] = 0  # never used: the decoder refuses it
    return steps, costs


_STEPS, _COSTS = _fixed()


def python_cost(data: bytes, stop: int) -> int:
    """An upper estimate of the bytes of Python objects decoding ``data`` allocates (containers,
    and scalars that are not cached: short strings, small negative ints), counting only until
    it passes ``stop``. A walk over the item headers: string and binary payloads are skipped by
    length. Malformed input just ends the walk (the decoder reports it)."""
    end = len(data)
    pos = cost = 0
    steps, costs, uint = _STEPS, _COSTS, int.from_bytes
    while pos < end and cost <= stop:
        b = data[pos]
        step = steps[b]
        if step >= 0:
            cost += costs[b]
            pos += 1 + step
            continue
        size = 1 << ((b - 0xC4) % 3) if b <= 0xDB else (2 if b in (0xDC, 0xDE) else 4)
        length = uint(data[pos + 1 : pos + 1 + size], "big")
        pos += 1 + size
        if b >= 0xDC:  # arrays and maps: ``length`` items follow
            cost += 56 + 8 * length if b <= 0xDD else _map_cost(length)
        else:  # bin, ext (one type byte more), str
            pos += length + (1 if 0xC7 <= b <= 0xC9 else 0)
            cost += 33 + length
    return cost


def check_density(data: bytes | bytearray | memoryview, max_ratio: int = 60) -> None:
    """Refuse, before decoding, MessagePack whose objects would take more than ``max_ratio``
    times its size in memory (dense empty or one-item maps: up to 85x in CPython). The estimate
    leaves room for the decoder's own overhead: what passes stays under 64x measured.

    Free below `DENSE_FROM` bytes. Above, 32 windows of 4 KiB at random places are searched for
    the bytes of such maps and arrays; input this dense in none of them is accepted (only an
    input dense in most of its length can pass 60x, and the windows' places cannot be known in
    advance). Otherwise the items are walked (`python_cost`), at 10-20 MB/s."""
    size = data.nbytes if isinstance(data, memoryview) else len(data)
    if size < DENSE_FROM or not isinstance(data, (bytes, bytearray, memoryview)):
        return
    buffer = bytes(data) if isinstance(data, memoryview) else data
    for _ in range(_WINDOWS):
        at = _sample(size - _WINDOW)
        if sum(buffer.count(m, at, at + _WINDOW) for m in _DENSE_MARKERS) * 8 >= _WINDOW:
            break
    else:
        return
    limit = max_ratio * size
    if python_cost(bytes(buffer), limit) > limit:
        raise DecodeError(
            f"invalid MessagePack: {size} bytes of input would take more than {max_ratio}x "
            "their size in memory (densely packed maps or arrays); refused before decoding",
            path="$",
        )
