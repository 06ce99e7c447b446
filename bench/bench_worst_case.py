"""Worst-case inputs within the default limits (bench/worst_case.py): pytest-benchmark groups.

``worst-case <input>``: one decode of each bomb (refused or decoded). Timed with
``--benchmark-only`` at 8 MiB; under ``--benchmark-disable`` (the test session) each runs once at
a small size (MessagePack just over the 1 MiB its density check starts at), and its extra
peak memory is held to the documented bound (64x the input). The table of
docs/hostile-input.md comes from ``python bench/worst_case.py``.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import worst_case
from minagent.wire._mpreader import DENSE_FROM

TIMED = 8 << 20
OVER_DENSE = DENSE_FROM + (1 << 16)
"""Size of the untimed MessagePack bombs: just over the size the density check starts at."""
NAMES = [name for name, _, _ in worst_case.bombs(1024, frame_size=4096)]


@functools.cache
def _cases(size: int, frame_size: int) -> list[tuple[str, Any, int]]:
    return worst_case.bombs(size, frame_size)


@pytest.mark.parametrize("index", range(len(NAMES)), ids=NAMES)
def test_worst_case(benchmark: Any, request: pytest.FixtureRequest, index: int) -> None:
    """Each bomb decodes or is refused with a WireError, within 64x its size in extra memory."""
    if request.config.getoption("benchmark_disable", False):
        small = "MessagePack" in NAMES[index] or "frame" in NAMES[index]
        name, call, nbytes = _cases(OVER_DENSE if small else 1 << 18, OVER_DENSE)[index]
        outcome = benchmark(call)
        if not isinstance(outcome, worst_case.wire.WireError):  # a refusal holds nothing
            peak = worst_case.extra_peak(call)
            assert peak < 64 * nbytes, f"{name}: {peak / nbytes:.1f}x"
        return
    name, call, nbytes = _cases(TIMED, 16 << 20)[index]
    benchmark.group = f"worst-case {name}"
    benchmark.extra_info["bytes"] = nbytes
    benchmark.pedantic(call, rounds=3, iterations=1)
