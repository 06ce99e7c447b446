"""Nesting depth of decoded values: the quick measure (`nesting`) and the exact walk (`too_deep`).

Where the recursion guard does not bound ``max_depth`` for free (a small limit, CPython 3.12+),
the codec measures with `nesting` only what the typed shape does not bound (values below a tool
input's typed levels, elements built by the lossless path), and runs `too_deep`, which builds
the path of every child it meets, only once a value is known to be too deep (or for a
``max_depth`` smaller than the typed shape); see `minagent.wire._codec`.
"""

from __future__ import annotations

import operator
import typing
from collections.abc import Callable
from typing import Any, Literal

import msgspec
from msgspec import Struct, UnsetType

from . import _fields
from ._values import children
from .extra import Extra

__all__ = ["nesting", "nesting_of_objects", "too_deep"]

_CONTAINERS = (dict, list, tuple, Struct)


def nesting(value: Any) -> int:
    """How deep plain ``dict`` / ``list`` values nest in ``value`` (a scalar: 0, ``[]``: 1).

    Level by level: each value is looked at once and no path or pair is built, so this costs
    about a third of a walk that tracks the level of every child."""
    deepest = 0
    level = [value]
    while True:
        below: list[Any] = []
        extend = below.extend
        found = False
        for item in level:
            kind = type(item)
            if kind is dict:
                extend(item.values())
                found = True
            elif kind is list:
                extend(item)
                found = True
        if not found:
            return deepest
        deepest += 1
        level = below


def too_deep(value: Any, max_depth: int, depth: int = 0, path: str = "$") -> str | None:
    """Path of the first container nested deeper than ``max_depth``, or None.

    ``depth`` is how many containers already enclose ``value``; the outermost one is depth 1.
    An `Extra` adds no level of its own: its keys belong to the object that carries it.
    """
    stack = [(path, value, depth)]
    while stack:
        where, item, level = stack.pop()
        if isinstance(item, _CONTAINERS):
            level += 1
            if level > max_depth:
                return where
        elif not isinstance(item, Extra):
            continue
        stack.extend((child_path, child, level) for child_path, child in children(item, where))
    return None


_CHILDREN: dict[type, Callable[[Any], Any] | None] = {tuple: tuple}
"""Per type met while measuring values to encode: a function giving its children (a Struct's
fields, read at once in C), or None for a leaf type."""


def _children_of(kind: type) -> Callable[[Any], Any] | None:
    getter: Callable[[Any], Any] | None = None
    if issubclass(kind, Struct):
        names = _nesting_fields(kind)
        if len(names) > 1:
            getter = operator.attrgetter(*names)
        elif names:
            name = names[0]
            getter = lambda obj: (getattr(obj, name),)  # noqa: E731
        else:
            getter = lambda obj: ()  # noqa: E731
    elif issubclass(kind, (list, tuple)):
        getter = tuple
    elif issubclass(kind, dict):
        getter = dict.values
    _CHILDREN[kind] = getter
    return getter


_LEAVES = frozenset({str, int, float, bool, bytes, bytearray, type(None), UnsetType, msgspec.Raw})


def _nesting_fields(cls: type[Struct]) -> tuple[str, ...]:
    """The attributes of Struct ``cls`` whose values may be containers (for a Struct whose
    annotations cannot be read: all of them)."""
    try:
        found = _fields.fields(cls)
    except Exception:  # a caller's Struct with annotations we cannot evaluate
        return tuple(cls.__struct_fields__)
    return tuple(f.name for f in found if _may_nest(f.type))


def _may_nest(t: Any) -> bool:
    for member in _fields._members(t):
        if typing.get_origin(member) is Literal or member in _LEAVES:
            continue
        return True
    return False


def nesting_of_objects(value: Any) -> int:
    """`nesting` of a value to encode: Structs, tuples, dicts and lists each add a level, an
    `Extra` adds none (its keys belong to the object carrying it), as `too_deep` counts; a
    `MsgpackOnly` is a leaf there too. Level by level, no paths."""
    deepest = 0
    level = [value]
    known = _CHILDREN
    while True:
        below: list[Any] = []
        extend = below.extend
        found = False
        for item in level:
            kind = type(item)
            if kind is dict:
                extend(item.values())
            elif kind is list:
                extend(item)
            elif kind is Extra:  # its values join the level being read
                level.extend(item.values())
                continue
            else:
                children = known[kind] if kind in known else _children_of(kind)
                if children is None:
                    continue
                extend(children(item))
            found = True
        if not found:
            return deepest
        deepest += 1
        level = below
