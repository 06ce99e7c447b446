"""pytest-benchmark suite for the Responses and Gemini adapters against the official SDKs.

Same shape as ``bench_providers.py``: groups ``<operation> <provider> <input>`` with the members
``minagent``, ``sdk``, ``floor`` (schema-less msgspec) and, for requests, ``client`` (the SDK
client's whole request building). Under ``--benchmark-disable`` every
case runs once. ``python -m minagent.bench.providers_extra`` times them interleaved and prints
the ratios.
"""

from __future__ import annotations

from typing import Any

import pytest

from minagent.bench.providers_extra import Case, cases

CASES = cases()


def _params() -> list[Any]:
    out = []
    for case in CASES:
        for side in ("ours", "sdk", "floor", "client"):
            if getattr(case, side) is None:
                continue
            name = f"{case.operation.replace(' ', '-')}-{case.provider}-{case.name}-{side}"
            out.append(pytest.param(case, side, id=name))
    return out


def test_cases_found() -> None:
    """The checkout's Responses and Gemini data give 29 cases (8+10 Responses, 5+6 Gemini)."""
    assert len(CASES) == 29


def test_ours_and_sdk_agree_on_requests() -> None:
    """Each request-encode case writes, on both sides, the same JSON (parsed), but the one whose
    recording spells fileData in snake_case: the SDK's models respell it in camelCase."""
    import json

    differ = [
        case.name
        for case in CASES
        if case.operation == "request encode" and json.loads(case.ours()) != json.loads(case.sdk())
    ]
    assert differ == ["request_file_data.json"]


def test_ours_and_the_sdk_clients_agree_on_requests() -> None:
    """Each request-encode case's client side (OpenAI's maybe_transform and openapi_dumps,
    google-genai's generate_content request building) writes the same JSON (parsed) as ours, but
    the Gemini recording with inlineData, which google-genai's converter writes with a
    snake_case ``mime_type`` inside it."""
    import json

    clients = [case for case in CASES if case.client is not None]
    assert len(clients) == 16
    differ = [case.name for case in clients if json.loads(case.ours()) != json.loads(case.client())]
    assert differ == ["request_inline_data.json"]


@pytest.mark.parametrize(("case", "side"), _params())
def test_provider(benchmark: Any, case: Case, side: str) -> None:
    """Time one side of one provider case."""
    benchmark.group = f"{case.operation} {case.provider} {case.name}"
    benchmark.extra_info.update(side=side)
    fn = getattr(case, side)
    assert fn() is not None
    benchmark(fn)
