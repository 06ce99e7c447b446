"""pytest-benchmark suite: every installed implementation, per operation, format, family and size.

Groups are ``<operation> <format> <family> x<size>``, so ``--benchmark-group-by=group`` puts the
implementations of one comparison side by side. Under ``--benchmark-disable`` (the test session)
only the 5-message transcripts run, once each, after the same agreement check as ``minagent
bench``; ``nox -s bench`` times every standard size.
"""

from __future__ import annotations

from typing import Any

import pytest

from minagent.bench.corpus import FAMILIES, SIZES, transcript
from minagent.bench.implementations import Implementation, agreement, registry

IMPLEMENTATIONS = registry()


def _cases(sizes: tuple[int, ...]) -> list[Any]:
    cases = []
    for family in FAMILIES:
        for size in sizes:
            t = transcript(family, size)
            for impl in IMPLEMENTATIONS:
                if not impl.supports(t):
                    continue
                for op in ("decode", "encode"):
                    if getattr(impl, op) is not None:
                        cases.append(
                            pytest.param(
                                impl, op, family, size, id=f"{op}-{impl.name}-{family}-{size}"
                            )
                        )
    return cases


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise over implementation x operation x family x size (small only when disabled)."""
    if "impl" in metafunc.fixturenames:
        disabled = metafunc.config.getoption("benchmark_disable", False)
        sizes = SIZES[:1] if disabled else SIZES
        metafunc.parametrize(("impl", "op", "family", "size"), _cases(sizes))


def test_codec(benchmark: Any, impl: Implementation, op: str, family: str, size: int) -> None:
    """Time one operation of one implementation on one transcript, after checking it agrees."""
    t = transcript(family, size)
    problem = agreement(impl, t)
    assert problem is None, f"{impl.label} disagrees with the reference: {problem}"
    benchmark.group = f"{op} {impl.format} {family} x{size}"
    benchmark.extra_info.update(messages=size, format=impl.format, kind=impl.kind)
    if op == "decode":
        assert impl.decode is not None
        benchmark(impl.decode, impl.input_for(t))
    else:
        assert impl.encode is not None
        benchmark(impl.encode, impl.prepare(t))
