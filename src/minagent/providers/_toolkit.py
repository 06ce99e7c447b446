"""The content/metadata policy, written once: what every encoder does with data it has no place for.

*Content* is what the model said or was told: text, images, tool calls, thinking, citations.
Losing content is refused by default (`UnsupportedError`) and dropped only under
``unsupported="drop"``, always listed. *Metadata* is ids, tiers, counters the target lacks,
nulls: losing it never raises; it is listed in ``dropped`` with ``kind="metadata"``, and a gateway
can ignore that list.

Provenance decides who may write what back. Every decoder other than Anthropic's tags the
messages and responses it produces with the `SOURCE` hint; the neutral shape (no hint) is the
Anthropic Messages shape. An encoder writes the unnamed data of its own provider back unchanged,
and hands every other provider's unnamed data to `foreign_key` / `foreign_block` here, which
classify it by these tables: never copied into the target body.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import UNSET

from ..wire.blocks import UnknownBlock
from ..wire.errors import ValidationError
from ..wire.extra import Extra
from ._base import HINTS, SOURCE, Unsupported

__all__ = [
    "CONTENT_KEYS",
    "foreign_block",
    "foreign_extra",
    "foreign_key",
    "is_own",
    "source_of",
    "tagged",
    "unknown_block",
]

CONTENT_KEYS = frozenset(
    {
        "annotations",
        "audio",
        "candidates",
        "choices",
        "citations",
        "function_call",
        "reasoning",
        "reasoning_content",
        "reasoning_details",
        "refusal",
        "search_results",
        "tool_calls",
    }
)
"""Keys, at any level, that hold content (citations, a refusal, audio, reasoning, further choices
or candidates, ...). Every other key a target has no place for is metadata."""


def source_of(extra: Any) -> str | None:
    """The `SOURCE` hint of an ``extra`` (a message's or a response's), or None (neutral)."""
    if extra is UNSET:
        return None
    source = extra.get(SOURCE)
    return source if type(source) is str else None


def is_own(extra: Any, name: str, neutral: bool = False) -> bool:
    """Whether the object carrying ``extra`` came from the adapter ``name`` (or, with
    ``neutral=True``, carries no `SOURCE` hint: the Anthropic adapter owns the neutral shape)."""
    source = source_of(extra)
    return source == name or (neutral and source is None)


def foreign_key(policy: Unsupported, path: str, what: str, key: str, value: Any) -> None:
    """Report ``key`` (``what`` says where it was) that the target cannot hold: refused (or
    dropped) when it is content, listed as metadata otherwise."""
    policy.report_key(path, what, value, metadata=key not in CONTENT_KEYS)


def foreign_extra(
    policy: Unsupported,
    extra: Mapping[str, Any],
    path: str,
    what: str,
    skip: frozenset[str] = frozenset(),
) -> None:
    """`foreign_key` for every key of ``extra`` but the hints and ``skip``."""
    for key, value in extra.items():
        if key not in skip and key not in HINTS:
            foreign_key(policy, f"{path}.{key}", f"{what} {key!r}", key, value)


def foreign_block(policy: Unsupported, path: str, kind: str, source: str | None) -> None:
    """Report a whole block of another provider (an unknown block, a part type the target has
    no place for): content, refused unless ``unsupported="drop"``."""
    origin = f" from {source}" if source else ""
    policy.report(path, f"a {kind!r} block{origin} (no such block here)")


def tagged(extra: dict[str, Any], blocks: Any, name: str) -> Any:
    """The ``extra`` of a message decoded by adapter ``name``: ``extra`` plus the `SOURCE` hint
    when the message carries any unnamed data (a key of its own, a block with ``extra``, an
    unknown block), else ``UNSET`` (a plain message is neutral)."""
    if not extra and type(blocks) is list:
        for block in blocks:
            if type(block) is UnknownBlock or getattr(block, "extra", UNSET) is not UNSET:
                break
        else:
            return UNSET
    elif not extra:
        return UNSET
    extra[SOURCE] = name
    return Extra._own(extra)


def unknown_block(data: dict[str, Any], path: str) -> UnknownBlock:
    """``data`` (a whole provider object with a string ``type``) as an `UnknownBlock`; a
    `ValidationError` at ``path`` when it cannot be one (no string ``type``, or the ``type`` of a
    block this protocol names, with the wrong fields)."""
    kind = data.get("type")
    if type(kind) is not str:
        raise ValidationError("expected a string 'type'", path=path + ".type")
    try:
        return UnknownBlock(Extra._own(data))
    except (TypeError, ValueError) as err:
        raise ValidationError(f"not a valid {kind!r} object: {err}", path=path) from None
