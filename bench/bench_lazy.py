"""pytest-benchmark suite for lazy decoding: eager and lazy side by side, per operation.

Groups are ``lazy <operation> <format> <family> x<size>`` (operations: decode, pass-through,
full access; see `minagent.bench.lazy`), each holding an ``eager`` and a ``lazy`` case. Under
``--benchmark-disable`` (the test session) only the 5-message transcripts run, once each, after
the same agreement check as ``minagent bench --lazy``.
"""

from __future__ import annotations

from typing import Any

import pytest

from minagent.bench import lazy
from minagent.bench.corpus import FAMILIES, SIZES, json_bytes, msgpack_bytes, transcript


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise over path x operation x format x family x size (small only when disabled)."""
    if "path" in metafunc.fixturenames:
        disabled = metafunc.config.getoption("benchmark_disable", False)
        sizes = SIZES[:1] if disabled else SIZES
        cases = [
            pytest.param(path, op, fmt, family, size, id=f"{path}-{op}-{fmt}-{family}-{size}")
            for family in FAMILIES
            for size in sizes
            for fmt in ("json", "msgpack")
            for op in lazy.OPERATIONS
            for path in ("eager", "lazy")
        ]
        metafunc.parametrize(("path", "op", "fmt", "family", "size"), cases)


def test_lazy(benchmark: Any, path: str, op: str, fmt: str, family: str, size: int) -> None:
    """Time one path of one operation on one transcript, after checking lazy agrees with eager."""
    t = transcript(family, size)
    data = json_bytes(t) if fmt == "json" else msgpack_bytes(t)
    assert lazy.check(data, fmt) is None
    benchmark.group = f"lazy {op} {fmt} {family} x{size}"
    benchmark.extra_info.update(messages=size, format=fmt, path=path)
    eager, lazy_fn = lazy.cases(data, fmt)[op]
    benchmark(eager if path == "eager" else lazy_fn)
