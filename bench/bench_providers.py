"""pytest-benchmark suite for the provider adapters against the official SDKs.

Groups are ``<operation> <provider> <input>`` with two members, ``minagent`` and ``sdk`` (and
``floor``, schema-less msgspec, and ``client``, the SDK client's whole request building, where
they apply), so ``--benchmark-group-by=group`` shows each
comparison side by side. Under ``--benchmark-disable`` (the test session) every case runs once.
``minagent bench --family providers`` times the same cases interleaved and prints the ratios.
"""

from __future__ import annotations

from typing import Any

import pytest

from minagent.bench.providers import Case, cases

ALL = cases()
CASES = [c for c in ALL if c.provider in ("anthropic", "openai")]
"""Anthropic and Chat Completions; the Responses and Gemini cases are in bench_providers_more.py."""


def _params() -> list[Any]:
    out = []
    for case in CASES:
        for side in ("ours", "sdk", "floor", "client"):
            if getattr(case, side) is not None:
                name = f"{case.operation.replace(' ', '-')}-{case.provider}-{case.name}-{side}"
                out.append(pytest.param(case, side, id=name))
    return out


def test_cases_found() -> None:
    """The checkout's provider data gives 39 Anthropic / Chat Completions cases, and the group
    (what `minagent bench --family providers` times) 68: all four formats."""
    assert len(CASES) == 39
    assert len(ALL) == 68
    assert sorted({c.provider for c in ALL}) == ["anthropic", "gemini", "openai", "responses"]


@pytest.mark.parametrize(("case", "side"), _params())
def test_provider(benchmark: Any, case: Case, side: str) -> None:
    """Time one side of one provider case."""
    benchmark.group = f"{case.operation} {case.provider} {case.name}"
    benchmark.extra_info.update(side=side)
    fn = getattr(case, side)
    assert fn() is not None
    benchmark(fn)
