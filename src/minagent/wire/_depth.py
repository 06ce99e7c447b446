"""Nesting depth of decoded values: the quick measure (`nesting`) and the exact walk (`too_deep`).

Where the recursion guard does not bound ``max_depth`` for free (a small limit, CPython 3.12+),
the codec measures with `nesting` only what the typed shape does not bound (values below a tool
input's typed levels, elements built by the lossless path), and runs `too_deep`, which builds
the path of every child it meets, only once a value is known to be too deep (or for a
``max_depth`` smaller than the typed shape); see `minagent.wire._codec`.

Encoding (`encode_budget`): from CPython 3.12 msgspec's recursion guard draws on a per-thread
count of C recursion that the encoder lowers for the length of one encode, so that msgspec stops
at the first container past the default ``max_depth``.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import msgspec
from msgspec import Struct

from ._values import children
from .extra import Extra
from .limits import DEFAULT

__all__ = ["encode_budget", "nesting", "too_deep"]

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


# --- the C recursion budget (CPython 3.12 and 3.13) -----------------------------------------------
#
# msgspec enters the interpreter's recursion guard once per non-empty container it writes. Up to
# CPython 3.11 that guard is the recursion limit, which the codec holds at ``max_depth``; from
# 3.12 it draws on a separate per-thread count of C recursion left (``c_recursion_remaining`` in
# the thread state: about 1,500 levels on 3.12, 10,000 on 3.13), which no Python API sets. The
# encoder lowers that count to ``max_depth`` for the length of one encode, so that msgspec
# itself stops at the first container past it, at no cost: two integer writes. The count's
# place in the thread state is found once, by watching which integer moves in lock step with
# msgspec's nesting, and confirmed by capping it and watching msgspec stop exactly there.


class _Probe:
    """A value msgspec cannot write: it calls the probe's ``enc_hook``, ``levels`` deep."""


_WORDS = 128  # the thread state's first 512 bytes: past its recursion counters on 3.12-3.13
_budget_place: list[tuple[int, int] | None] = []  # found once: [(offset, slack)] or [None]
_budget_cells = threading.local()


def encode_budget() -> tuple[Any, int] | None:
    """This thread's count of C recursion left (CPython 3.12 and 3.13), as a one-integer
    writable memoryview over the thread state, and the count at which msgspec refuses every
    value nested deeper than the default ``max_depth`` (a chain of ``max_depth + 1``
    containers holds at least ``max_depth`` non-empty ones, each entering the guard once);
    None where the count cannot be found and confirmed (nothing then caps msgspec's guard: the
    encoder measures depth another way)."""
    try:
        found: tuple[Any, int] | None = _budget_cells.found
        return found
    except AttributeError:
        pass
    if not _budget_place:
        _budget_place.append(_find_budget())
    place = _budget_place[0]
    found = None
    if place is not None:
        offset, slack = place
        found = (memoryview(_cell(offset)).cast("B").cast("i"), DEFAULT.max_depth - 1 - slack)
    _budget_cells.found = found
    return found


def _thread_state() -> int:
    import ctypes

    get = ctypes.pythonapi.PyThreadState_Get
    get.restype = ctypes.c_void_p
    return int(get())


def _cell(offset: int) -> Any:
    import ctypes

    return (ctypes.c_int * 1).from_address(_thread_state() + offset)


def _find_budget() -> tuple[int, int] | None:
    """Offset in the thread state of the C recursion count msgspec's guard draws on, and its
    `_slack`; None if not found (another interpreter, CPython up to 3.11 or from 3.14, no
    ctypes)."""
    if sys.implementation.name != "cpython" or sys.version_info[:2] not in ((3, 12), (3, 13)):
        return None
    try:
        import ctypes

        state = _thread_state()
        seen: list[list[int]] = []

        def look(obj: Any) -> None:
            seen.append(list((ctypes.c_int * _WORDS).from_address(state)))

        encode = msgspec.json.Encoder(enc_hook=look).encode

        def words_at(levels: int) -> list[int]:
            value: Any = _Probe()
            for _ in range(levels):
                value = [value]
            del seen[:]
            encode(value)
            return seen[0]

        for _ in range(3):  # the first calls may run other code paths
            words_at(10)
        a, b, c = words_at(10), words_at(30), words_at(70)
        found = [i for i in range(_WORDS) if a[i] - b[i] == 20 and b[i] - c[i] == 40 and c[i] > 0]
        if len(found) != 1:
            return None
        offset = found[0] * ctypes.sizeof(ctypes.c_int)
        slack = _slack(memoryview(_cell(offset)).cast("B").cast("i"))
        return None if slack is None else (offset, slack)
    except (ImportError, OSError, AttributeError, ValueError, TypeError):
        return None


def _slack(cell: Any) -> int | None:
    """How many levels past the count msgspec writes with ``cell[0]`` set (0 on 3.12, 1 on 3.13:
    where the check is ``< 0`` rather than ``<= 0``), the same for both formats and for two
    counts; None if it is not. The count is restored either way."""

    def nested(levels: int) -> Any:
        value: Any = 0
        for _ in range(levels):
            value = [value]
        return value

    def most(encode: Any, count: int) -> int | None:
        deepest = None
        for levels in range(count - 2, count + 4):
            cell[0] = count
            try:
                encode(nested(levels))
            except RecursionError:
                return deepest
            deepest = levels
        return None

    before = cell[0]
    try:
        found = {
            None if (m := most(encode, count)) is None else m - count
            for encode in (msgspec.json.encode, msgspec.msgpack.encode)
            for count in (40, 100)
        }
    finally:
        cell[0] = before
    slack = found.pop()
    return slack if not found and slack is not None and slack >= 0 else None
