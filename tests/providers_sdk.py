"""The official SDKs as checkers: request validation (consuming pydantic's lazy iterables) and
plain-JSON views of what we decode, for field-by-field comparison."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pydantic

from minagent.providers._base import lowered

DATA = Path(__file__).parent / "data"
EXAMPLES = DATA / "provider-examples"
STREAMS = DATA / "provider-streams"


def examples(provider: str, kind: str) -> list[Path]:
    """The example files of one provider and kind (``request`` / ``response``), sorted."""
    return sorted((EXAMPLES / provider).glob(f"{kind}_*.json"))


def consume(value: Any) -> Any:
    """Walk a validated value, draining pydantic's lazy ``Iterable`` validators (which only
    check an item when it is iterated) into lists."""
    if isinstance(value, dict):
        return {k: consume(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [consume(v) for v in value]
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return value
    if isinstance(value, Iterator) or type(value).__name__ == "ValidatorIterator":
        return [consume(v) for v in value]
    return value


_ADAPTERS: dict[Any, pydantic.TypeAdapter[Any]] = {}


def validate_params(params_type: Any, body: bytes) -> Any:
    """Validate ``body`` against an SDK request TypedDict, consuming every nested iterator
    while the adapter stays referenced; returns the consumed value."""
    adapter = _ADAPTERS.get(params_type)
    if adapter is None:
        adapter = _ADAPTERS[params_type] = pydantic.TypeAdapter(params_type)
    value = adapter.validate_python(json.loads(body))
    out = consume(value)
    assert adapter is not None
    return out


def plain(obj: Any) -> Any:
    """A Struct, block or list of them as plain JSON values (unknown data spread back in)."""
    return msgspec.json.decode(msgspec.json.encode(lowered(obj, "$")))
