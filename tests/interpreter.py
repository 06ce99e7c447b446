"""Facts about the running interpreter that the tests assert our behaviour against, measured
here rather than written down for one CPython: where msgspec's recursion guard stops a decode,
and whether the caller's Python frames count towards it (up to CPython 3.11 they do; from 3.12
the guard is a separate C counter: about 1500 levels on 3.12, 10,000 on 3.13)."""

from __future__ import annotations

import functools
from typing import Any

import msgspec


def _refused(levels: int) -> bool:
    try:
        msgspec.json.decode(b"[" * levels + b"]" * levels)
    except RecursionError:
        return True
    return False


def _deeper(frames: int, call: Any) -> Any:
    """``call()`` from ``frames`` Python frames further down the stack."""
    return call() if frames <= 0 else _deeper(frames - 1, call)


def msgspec_guard(frames: int = 0) -> int:
    """The least nesting at which msgspec's schema-less JSON decode meets the recursion guard,
    run ``frames`` Python frames deeper than the caller (bisection, up to 2**16 levels: run it
    on a thread whose stack holds that many, e.g. the main thread)."""

    def bisect() -> int:
        lo, hi = 1, 1 << 16  # lo decodes, hi does not
        assert _refused(hi), "msgspec decoded 65,536 nested arrays"
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if _refused(mid) else (mid, hi)
        return hi

    return int(_deeper(frames, bisect))


@functools.lru_cache(maxsize=1)
def guard_counts_python_frames() -> bool:
    """Whether the caller's Python frames count towards msgspec's recursion guard (then the
    nesting it allows depends on where a decode is called from)."""
    return msgspec_guard(frames=100) < msgspec_guard()
