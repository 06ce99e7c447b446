"""The shared adapter helpers: block keys, usage flattening, the unsupported policy."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from msgspec import UNSET, UnsetType

from minagent.providers import Dropped, Request, UnsupportedError
from minagent.providers._base import (
    Unsupported,
    as_request,
    block_keys,
    flatten_usage,
    unflatten_usage,
    without_keys,
)
from minagent.wire import Extra, Message, ThinkingBlock


class Fake(msgspec.Struct, tag_field="type", tag="fake"):
    """A block with a typed optional field, as the provider catalog adds them."""

    text: str
    cache_control: dict[str, Any] | UnsetType = UNSET
    extra: Extra | UnsetType = UNSET


def test_block_keys_sees_typed_fields_and_extra() -> None:
    """block_keys lists set optional fields and extra keys, never the core fields."""
    block = Fake("x", cache_control={"type": "ephemeral"}, extra=Extra(a=1))
    assert block_keys(block) == {"cache_control": {"type": "ephemeral"}, "a": 1}
    assert block_keys(Fake("x")) == {}
    assert block_keys(ThinkingBlock("t", signature="s")) == {}


def test_without_keys_unsets_fields_and_removes_extra() -> None:
    """without_keys drops exactly the named keys, typed or extra."""
    block = Fake("x", cache_control={"type": "ephemeral"}, extra=Extra(a=1, b=2))
    assert without_keys(block, {"cache_control", "a"}) == Fake("x", extra=Extra(b=2))
    assert without_keys(block, {"cache_control", "a", "b"}) == Fake("x")


def test_usage_flattens_and_comes_back() -> None:
    """Nested integer counters get dotted names, other leaves go aside, and both rebuild."""
    usage = {"a": 1, "b": {"c": 2, "d": None}, "e": "x", "f": {}, "g": True}
    counters, other = flatten_usage(usage, {"b.c": "neutral_c"})
    assert counters == {"a": 1, "neutral_c": 2}
    assert other == {"b.d": None, "e": "x", "f": {}, "g": True}
    assert unflatten_usage(counters, other, {"neutral_c": "b.c"}) == usage


def test_policy_error_and_drop() -> None:
    """'error' raises UnsupportedError with the path; 'drop' records into the caller's list."""
    with pytest.raises(UnsupportedError) as info:
        Unsupported("error").report("$.x", "a thing")
    assert (info.value.path, info.value.message) == (
        "$.x",
        "the target format cannot hold a thing",
    )
    into: list[Dropped] = []
    Unsupported("drop", into).report("$.y", "another")
    assert into == [Dropped("$.y", "another")]
    with pytest.raises(ValueError, match="unsupported= must be 'error' or 'drop'"):
        Unsupported("keep")  # type: ignore[arg-type]


def test_as_request_merges_keyword_options() -> None:
    """Keyword options naming a typed setting set it; the others add to and override a
    Request's options; a list becomes a Request."""
    msgs = [Message(role="user", content="x")]
    req = Request(messages=msgs, model="a", options={"n": 1, "seed": 2})
    assert as_request(req, {"model": "b", "seed": 3}) == Request(
        messages=msgs, model="b", options={"n": 1, "seed": 3}
    )
    assert as_request(msgs, {"model": "c", "n": 2}) == Request(
        messages=msgs, model="c", options={"n": 2}
    )
    with pytest.raises(TypeError):
        as_request("nope", {})  # type: ignore[arg-type]
