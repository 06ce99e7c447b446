"""Nesting depth of decoded values: the quick measure (`nesting`) and the exact walk (`too_deep`).

Where the recursion guard does not bound ``max_depth`` for free (a small limit, CPython 3.12+),
the codec measures with `nesting` only what the typed shape does not bound (values below a tool
input's typed levels, elements built by the lossless path), and runs `too_deep`, which builds
the path of every child it meets, only once a value is known to be too deep (or for a
``max_depth`` smaller than the typed shape); see `minagent.wire._codec`.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from ._values import children
from .extra import Extra

__all__ = ["nesting", "too_deep"]

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
