"""msgspec's validation errors as ours: the message, and a path that names every object key.

msgspec writes a path such as ``$.usage[...]`` when the bad value is inside a ``dict``: it does
not say which key. `relocate` finds the key (only on this error path): it converts the value
again with that dict cut down to one entry at a time, in order; the first entry that fails in
the same place is the one msgspec met first.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import msgspec

from .errors import ValidationError

__all__ = ["relocate"]

_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]|(\[\.\.\.\])")
"""One step of a msgspec path: ``.field``, ``[index]`` or ``[...]`` (some key of a dict)."""

Convert = Callable[[Any], object]
"""Converts a value as the failing call did (raising msgspec.ValidationError)."""


def relocate(
    err: msgspec.ValidationError,
    base: str,
    value: Any = None,
    convert: Convert | None = None,
) -> ValidationError:
    """Turn msgspec's ``"... - at `$.x`"`` into our error with the path under ``base``.

    Given the ``value`` the failing ``convert`` call was handed, each ``[...]`` step is replaced
    by the key it stands for (``.key``); without them, or if the key cannot be found, the
    step stays as msgspec wrote it.
    """
    text = str(err)
    message, sep, where = text.rpartition(" - at `")
    if not sep:
        return ValidationError(text, path=base)
    where = where.rstrip("`")
    if convert is not None and "[...]" in where:
        where = _name_keys(where, value, convert)
    return ValidationError(message, path=base + where[1:])


def _name_keys(where: str, value: Any, convert: Convert) -> str:
    """``where`` (a msgspec path into ``value``) with its ``[...]`` steps named."""
    out = "$"
    chain: list[tuple[Any, Any]] = []  # (container, key) from the root down to ``node``
    node = value
    pos = 1
    while pos < len(where):
        step = _STEP.match(where, pos)
        if step is None:
            return out + where[pos:]
        field, index, some_key = step.groups()
        if some_key:
            key = _failing_key(chain, node, where[: step.end()], convert)
            if key is None:
                return out + where[pos:]
            out += f".{key}"
        elif index is not None:
            key = int(index)
            out += step.group()
        else:
            key = field
            out += step.group()
        pos = step.end()
        try:
            child = node[key]
        except (KeyError, IndexError, TypeError):
            return out + where[pos:]
        chain.append((node, key))
        node = child
    return out


def _failing_key(chain: list[tuple[Any, Any]], node: Any, prefix: str, convert: Convert) -> Any:
    """The first key of the dict ``node`` (reached from the root by ``chain``) whose entry alone
    fails at ``prefix``, or None."""
    if type(node) is not dict:
        return None
    for key, item in node.items():
        try:
            convert(_replaced(chain, {key: item}))
        except msgspec.ValidationError as err:
            if str(err).rpartition(" - at `")[2].startswith(prefix):
                return key
    return None


def _replaced(chain: list[tuple[Any, Any]], leaf: Any) -> Any:
    """A copy of the root ``chain`` starts at, with the value at its end replaced by ``leaf``
    (only the containers along the chain are copied)."""
    if not chain:
        return leaf
    (container, key), rest = chain[0], chain[1:]
    copy = dict(container) if type(container) is dict else list(container)
    copy[key] = _replaced(rest, leaf)
    return copy
