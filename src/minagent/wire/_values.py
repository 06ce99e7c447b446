"""Value rules (PROTOCOL.md, "Values"): find what a format cannot hold, and say where.

These walks are precise but slow, so the codec runs them only when a cheap test says they might
find something: an encoder error, data that went through the lossless path, or a tool block
remembered as holding values JSON cannot (see `remember_json_unsafe`).

Values enter tool inputs by decoding or by construction. JSON decoding cannot produce NaN,
infinity, binary or ext values; MessagePack decoding can, and `may_hold_json_unsafe` spots them
with a byte test so that only the blocks concerned are remembered, weakly. JSON encoding then
checks only those blocks, so it costs nothing when there are none. Values a caller puts into a
tool ``input`` by hand are not walked on the fast path (that walk costs as much as the encode
itself): keep them JSON values, or run `find` with `json_problem` yourself.
"""

from __future__ import annotations

import datetime
import math
import weakref
from collections.abc import Callable, Iterator
from typing import Any

from msgspec import UNSET, Struct
from msgspec.msgpack import Ext

from .blocks import Base64Source, ToolUseBlock, UnknownBlock, UnknownSource
from .extra import Extra

__all__ = [
    "find",
    "json_problem",
    "json_unsafe_alive",
    "may_hold_json_unsafe",
    "msgpack_problem",
    "remember_json_unsafe",
    "remembered_problem",
    "tool_blocks",
]

Problem = Callable[[Any], "str | None"]

_INT64_MIN = -(2**63)
_UINT64_MAX = 2**64 - 1

_BIN_EXT_MARKERS = tuple(bytes([b]) for b in (*range(0xC4, 0xCA), *range(0xD4, 0xD9)))
_FLOAT64, _FLOAT32 = b"\xcb", b"\xca"


def may_hold_json_unsafe(buffer: bytes | bytearray) -> bool:
    """Cheap test on MessagePack bytes: could they hold a value JSON cannot (bin, ext, NaN, inf)?

    Only false positives: the type bytes of ``bin`` and ``ext`` also occur inside UTF-8 text and
    numbers, and a float's marker byte elsewhere. Each test is one ``memchr`` over the buffer;
    floats are looked at one by one, checking only their exponent bits.
    """
    for marker in _BIN_EXT_MARKERS:
        if marker in buffer:
            return True
    end = len(buffer) - 2
    for marker, second_mask in ((_FLOAT64, 0xF0), (_FLOAT32, 0x80)):
        at = buffer.find(marker)
        while 0 <= at < end:
            if buffer[at + 1] & 0x7F == 0x7F and buffer[at + 2] & second_mask == second_mask:
                return True  # exponent bits all ones: infinity or NaN
            at = buffer.find(marker, at + 1)
    return False


# Keyed by id(): Structs are unhashable. An entry dies with its block, so an id is never stale.
_MSGPACK_ONLY: weakref.WeakValueDictionary[int, ToolUseBlock] = weakref.WeakValueDictionary()


def json_problem(value: Any) -> str | None:
    """Why JSON cannot hold this leaf value unchanged, or None."""
    if type(value) is float:
        return None if math.isfinite(value) else f"{value!r} cannot be written as JSON"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "binary data (MessagePack bin) cannot be written as JSON inside generic data"
    if isinstance(value, Ext):
        return f"MessagePack ext (type {value.code}) cannot be written as JSON"
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return "a MessagePack timestamp cannot be written as JSON"
    return None


def msgpack_problem(value: Any) -> str | None:
    """Why MessagePack cannot hold this leaf value, or None."""
    if type(value) is int and not _INT64_MIN <= value <= _UINT64_MAX:
        return f"integer {value} does not fit in 64 bits (MessagePack's range)"
    return None


def _children(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, (dict, Extra)):
        for key, item in value.items():
            yield f"{path}.{key}", item
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield f"{path}[{i}]", item
    elif isinstance(value, Struct):
        for name, key in zip(value.__struct_fields__, value.__struct_encode_fields__, strict=True):
            item = getattr(value, name)
            if item is UNSET or (type(value) is Base64Source and name == "data"):
                continue  # typed binary data is carried as base64 / bin by design
            spread = name == "extra" or type(value) in (UnknownBlock, UnknownSource)
            yield (path if spread else f"{path}.{key}"), item


def find(value: Any, problem: Problem, path: str = "$") -> tuple[str, str] | None:
    """Depth-first search for the first leaf ``problem`` objects to: ``(path, reason)`` or None."""
    stack = [(path, value)]
    while stack:
        where, item = stack.pop()
        reason = problem(item)
        if reason is not None:
            return where, reason
        children = list(_children(item, where))
        stack.extend(reversed(children))
    return None


def tool_blocks(value: Any) -> Iterator[ToolUseBlock]:
    """Every ToolUseBlock inside a message, response, or list of either."""
    if isinstance(value, list):
        for item in value:
            yield from tool_blocks(item)
        return
    message = getattr(value, "message", value)
    content = getattr(message, "content", None)
    if isinstance(content, list):
        for block in content:
            if type(block) is ToolUseBlock:
                yield block


def remember_json_unsafe(decoded: Any) -> None:
    """Remember every tool block whose input holds a value JSON cannot carry."""
    for block in tool_blocks(decoded):
        if find(block.input, json_problem) is not None:
            _MSGPACK_ONLY[id(block)] = block


def json_unsafe_alive() -> bool:
    """Whether any remembered block is still alive (if not, JSON encoding needs no walk)."""
    return len(_MSGPACK_ONLY) > 0


def remembered_problem(value: Any) -> tuple[str, str] | None:
    """The first value JSON cannot hold inside a remembered tool block of ``value``."""
    for i, block in _indexed_tool_blocks(value):
        if _MSGPACK_ONLY.get(id(block)) is block:
            found = find(block.input, json_problem, f"{i}.input")
            if found is not None:
                return found
    return None


def _indexed_tool_blocks(value: Any) -> Iterator[tuple[str, ToolUseBlock]]:
    items = enumerate(value) if isinstance(value, list) else [(None, value)]
    for index, item in items:
        base = "$" if index is None else f"$[{index}]"
        message = getattr(item, "message", None)
        if message is not None:
            base, item = f"{base}.message", message
        content = getattr(item, "content", None)
        if isinstance(content, list):
            for j, block in enumerate(content):
                if type(block) is ToolUseBlock:
                    yield f"{base}.content[{j}]", block
