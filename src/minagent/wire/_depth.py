"""Nesting depth of decoded values: the exact walk (`too_deep`) and the quick measure (`nesting`).

`too_deep` runs where the recursion guard does not bound ``max_depth`` for free (a small limit,
CPython 3.12+, the lossless path) and only when the codec cannot rule a too-deep value out
more cheaply; see `minagent.wire._codec`.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from ._values import children
from .extra import Extra

__all__ = ["nesting", "too_deep"]

_CONTAINERS = (dict, list, tuple, Struct)


def nesting(value: Any) -> int:
    """How deep plain ``dict`` / ``list`` values nest in ``value`` (a scalar: 0, ``[]``: 1)."""
    deepest = 0
    stack = [(value, 0)]
    pop, extend = stack.pop, stack.extend
    while stack:
        item, level = pop()
        kind = type(item)
        if kind is dict:
            item = item.values()
        elif kind is not list:
            continue
        level += 1
        if level > deepest:
            deepest = level
        extend([(child, level) for child in item])
    return deepest


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
