"""The gateway's fast paths agree with the general code they shortcut (issue 26 speed work)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from minagent.providers import _toolkit as kit
from minagent.providers import openai_chat
from minagent.providers._base import Unsupported, UnsupportedError

_NAMES = st.sampled_from(["a", "b", "a.b", "a.c", "b.x", "a.b.c", "prompt_tokens", "x.y.z"])


@given(st.dictionaries(_NAMES, st.integers(0, 9), max_size=6))
def test_one_level_usage_agrees_with_usage_object(kept: dict[str, int]) -> None:
    """`_one_level` builds exactly (same nesting, same key order) what `kit.usage_object`
    builds, or declines (None) where that one nests deeper or refuses a collision."""
    got = openai_chat._one_level(kept)
    try:
        want = kit.usage_object(kept, {})
    except UnsupportedError:
        assert got is None
        return
    if got is not None:
        assert got == want
        assert repr(got) == repr(want)  # key order included


def test_one_level_usage_declines_collisions_and_depth() -> None:
    """A name under a counter (a collision) and a two-dot name are left to usage_object."""
    assert openai_chat._one_level({"a": 1, "a.b": 2}) is None
    assert openai_chat._one_level({"a.b.c": 1}) is None
    assert openai_chat._one_level({"a.b": 1, "a": 2}) == {"a": 2}


def test_usage_plan_cache_gives_the_same_usage_and_drops_each_time() -> None:
    """The per-name usage decision, cached after the first response, writes the same usage
    and lists the same dropped counters in the same order on every later call."""
    counters = {
        "input_tokens": 3,
        "cache_creation_input_tokens": 418,
        "cache_read_input_tokens": 1111,
        "cache_creation.ephemeral_5m_input_tokens": 418,
        "output_tokens": 33,
        "server_tool_use.web_search_requests": 1,
    }
    runs = []
    for _ in range(3):
        dropped: list = []
        usage = openai_chat._usage_out(
            counters, {"service_tier": "standard"}, Unsupported("drop", dropped), False
        )
        runs.append((usage, [(d.path, d.what, d.kind) for d in dropped]))
    assert runs[0] == runs[1] == runs[2]
    assert runs[0][0] == {
        "prompt_tokens": 1532,
        "prompt_tokens_details": {"cached_tokens": 1111},
        "completion_tokens": 33,
        "total_tokens": 1565,
    }
    assert [path for path, _, _ in runs[0][1]] == [
        "$.usage.cache_creation.ephemeral_5m_input_tokens",
        "$.usage.server_tool_use.web_search_requests",
        "$.usage_extra.service_tier",
    ]
