"""Value rules (PROTOCOL.md, "Values"): find what a format cannot hold, and say where.

These walks are precise but slow, so the codec runs them only where the fast path has already
said something is off: an encoder error, unknown data on the lossless path, or a tool input that
failed its strict decode.

Values enter tool inputs by decoding or by construction. JSON decoding cannot produce NaN,
infinity, binary data or non-string keys; MessagePack decoding can. The strict decoder types a
tool input as `blocks.JsonValue` (the JSON types, floats finite), so such a value makes the strict
decode fail at no cost to the fast path; the lossless path then wraps it in `MsgpackOnly`, which
MessagePack writes back as it was and JSON refuses with its path. Values a caller puts into a
tool ``input`` by hand are not walked on the fast path (that walk costs as much as the encode
itself): keep them JSON values, or wrap them in `MsgpackOnly` yourself.

The nesting-depth walk is in `minagent.wire._depth`, the MessagePack reader that keeps
timestamps in `minagent.wire._mpreader`.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Callable, Iterator
from typing import Any

from msgspec import UNSET, Struct
from msgspec.msgpack import Ext

from .blocks import Base64Source, UnknownBlock, UnknownSource
from .extra import Extra, MsgpackOnly

__all__ = [
    "children",
    "find",
    "find_nonfinite",
    "holds_json_unsafe",
    "json_problem",
    "misplaced_extra",
    "msgpack_problem",
    "wrap",
]

Problem = Callable[[Any], "str | None"]

_INT64_MIN = -(2**63)
_UINT64_MAX = 2**64 - 1


def json_problem(value: Any) -> str | None:
    """Why JSON cannot hold this value unchanged (a leaf, or an object's keys), or None."""
    if type(value) is MsgpackOnly:
        return json_problem(value.value) or "a MessagePack-only value cannot be written as JSON"
    if type(value) is float:
        return None if math.isfinite(value) else f"{value!r} cannot be written as JSON"
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "binary data (MessagePack bin) cannot be written as JSON inside generic data"
    if isinstance(value, Ext):
        if value.code == -1:
            return "a MessagePack timestamp (ext type -1) cannot be written as JSON"
        return f"MessagePack ext (type {value.code}) cannot be written as JSON"
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return "a MessagePack timestamp cannot be written as JSON"
    if type(value) is dict:
        for key in value:
            if type(key) is not str:
                return f"object key {key!r} is not a string (JSON keys are strings)"
    return None


_JSON_LEAVES = frozenset({str, int, bool, type(None)})


def holds_json_unsafe(value: Any) -> bool:
    """Whether `find` with `json_problem` would find something in ``value`` (fast, no path)."""
    stack = [value]
    pop, push, extend = stack.pop, stack.append, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind in _JSON_LEAVES:
            continue
        if kind is dict:
            for key, child in item.items():
                if type(key) is not str:
                    return True
                push(child)
        elif kind is list:
            extend(item)
        elif kind is float:
            if item - item != 0.0:  # NaN or infinity
                return True
        elif json_problem(item) is not None or not isinstance(item, (Struct, Extra, tuple)):
            return True
        else:
            extend(child for _, child in children(item, "$"))
    return False


def msgpack_problem(value: Any) -> str | None:
    """Why MessagePack cannot hold this leaf value, or None."""
    if type(value) is int and not _INT64_MIN <= value <= _UINT64_MAX:
        return f"integer {value} does not fit in 64 bits (MessagePack's range)"
    return None


def children(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """The ``(path, value)`` of each child of a container, Struct or `Extra` (none for a leaf)."""
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
        stack.extend(reversed(list(children(item, where))))
    return None


def misplaced_extra(value: Any, path: str = "$") -> str | None:
    """Path of the first `Extra` that is not a Struct's own unknown keys (its ``extra``, an
    unknown block's or source's data), or None. An Extra anywhere else (a tool input, inside
    another Extra) has no object to spread into, so no format can write it."""
    stack = [(path, value, False)]
    while stack:
        where, item, own = stack.pop()
        if type(item) is Extra and not own:
            return where
        pairs = reversed(list(children(item, where)))  # depth-first, in document order
        stack.extend((at, child, at == where) for at, child in pairs)  # spread: a Struct's own
    return None


def _unsafe_leaf(value: Any) -> bool:
    kind = type(value)
    if kind is float:
        return bool(value - value != 0.0)  # NaN or infinity
    if kind is dict:
        return any(type(key) is not str for key in value)
    return kind is bytes or kind is bytearray


def wrap(container: dict[str, Any] | list[Any]) -> None:
    """Wrap, in place, each value in ``container`` (at any depth) that JSON cannot hold."""
    stack: list[dict[str, Any] | list[Any]] = [container]
    while stack:
        node = stack.pop()
        pairs: Any = node.items() if type(node) is dict else enumerate(node)
        for key, value in list(pairs):
            if _unsafe_leaf(value):
                node[key] = MsgpackOnly(value)
            elif type(value) is dict or type(value) is list:
                stack.append(value)


def find_nonfinite(value: Any, path: str) -> str | None:
    """Path of the first NaN or infinity in plain decoded JSON values (dicts, lists, leaves), or
    None. Paths are built only for the one found, so a million keys cost one quick pass."""
    keys: list[Any] = []
    stack: list[Iterator[tuple[Any, Any]]] = [iter([(None, value)])]
    while stack:
        for key, item in stack[-1]:
            kind = type(item)
            if kind is float:
                if item - item != 0.0:
                    return path + "".join(_step(k) for k in [*keys[1:], key])
            elif kind is dict:
                keys.append(key)
                stack.append(iter(item.items()))
                break
            elif kind is list:
                keys.append(key)
                stack.append(iter(enumerate(item)))
                break
        else:
            stack.pop()
            if keys:
                keys.pop()
    return None


def _step(key: Any) -> str:
    return f"[{key}]" if type(key) is int else f".{key}"
