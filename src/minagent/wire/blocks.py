"""Content blocks: msgspec Structs tagged by ``"type"``, and the `ContentBlock` union.

Known block types decode straight from bytes into typed Structs. Keys a known block does not name
(``cache_control``, ``citations``, ...) land in its ``extra``; a block whose ``type`` is not known
becomes an :class:`UnknownBlock` holding the whole object. Both are written back unchanged.

All Structs here are created with ``gc=False``: decoded messages are trees (no reference cycles),
so the garbage collector never needs to track them. Do not build reference cycles through them
(for example a tool ``input`` that contains the block itself): such a cycle would never be freed.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, Union

import msgspec
from msgspec import UNSET, Struct, UnsetType

from .extra import Extra

__all__ = [
    "EXTRA_KEY",
    "UNKNOWN_TAG",
    "Base64Source",
    "ContentBlock",
    "DocumentBlock",
    "ImageBlock",
    "RedactedThinkingBlock",
    "Source",
    "TextBlock",
    "ThinkingBlock",
    "ToolUseBlock",
    "UnknownBlock",
    "UnknownSource",
    "UrlSource",
]

EXTRA_KEY = "__minagent_extra__"
"""Wire name of the ``extra`` field. Never written: an encoder meeting an `Extra` takes the
lossless path and spreads its keys into the object. A payload that uses this key itself is read
through the lossless path too, where the key is kept as unknown data like any other."""

UNKNOWN_TAG = "__minagent_unknown__"
"""Tag msgspec sees for `UnknownBlock` / `UnknownSource`. Never written: their real ``type`` is in
their data. A payload using this tag is read as an unknown block of that type."""


class Deep:
    """Stands, in the decoder's type for tool inputs, for values nested deeper than it types.

    Never instantiated: msgspec hands such values, already decoded, to the codec's ``dec_hook``,
    which checks them in Python (rare: only data nested more than `TYPED_LEVELS` deep).
    """


TYPED_LEVELS = 8
"""Nesting levels of a tool input whose values msgspec checks by itself while decoding."""


_FINITE = Annotated[float, msgspec.Meta(ge=-sys.float_info.max, le=sys.float_info.max)]
"""A finite float: NaN fails both bounds, infinity one of them."""


def _json_value_type(levels: int) -> Any:
    inner: Any = Deep
    for _ in range(levels):
        inner = Union[None, bool, int, _FINITE, str, list[inner], dict[str, inner]]  # noqa: UP007
    return inner


if TYPE_CHECKING:
    JsonValue = Any
else:
    JsonValue = _json_value_type(TYPED_LEVELS)
"""A JSON value. To msgspec it is a union of the JSON types nested `TYPED_LEVELS` deep, floats
finite, so that a MessagePack ``bin``, ``ext``, NaN, infinity or non-string key inside a tool input
fails the strict decode (at no measurable cost) and goes the lossless way, where it is wrapped in
`MsgpackOnly`. To type checkers: Any."""


class _Tagged(
    Struct,
    tag_field="type",
    forbid_unknown_fields=True,
    rename={"extra": EXTRA_KEY},
    repr_omit_defaults=True,
    gc=False,
):
    """Base of every tagged Struct of the protocol."""


# --- image / document sources ---------------------------------------------------------------


class Base64Source(_Tagged, tag="base64"):
    """Inline binary data: ``bytes`` in memory, base64 text in JSON, ``bin`` in MessagePack."""

    type: ClassVar[Literal["base64"]] = "base64"
    media_type: str
    """MIME type, e.g. ``image/png`` or ``application/pdf``."""
    data: bytes
    """The raw bytes."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name, written back unchanged."""


class UrlSource(_Tagged, tag="url"):
    """Data the provider fetches from a URL."""

    type: ClassVar[Literal["url"]] = "url"
    url: str
    """Where the data lives."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name, written back unchanged."""


class UnknownSource(_Tagged, tag=UNKNOWN_TAG):
    """A source whose ``type`` this protocol does not know (``file``, ``text``, ...), kept whole."""

    data: Extra
    """The whole source object, ``type`` included, in its original key order."""

    @property
    def type(self) -> str:
        """The source's ``type`` as it appeared on the wire."""
        return str(self.data["type"])


Source = Base64Source | UrlSource | UnknownSource
"""Where an image's or document's data comes from."""


# --- blocks -----------------------------------------------------------------------------------


class TextBlock(_Tagged, tag="text"):
    """A run of text."""

    type: ClassVar[Literal["text"]] = "text"
    text: str
    """The text."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name (``cache_control``, ``citations``, ...)."""


class ToolUseBlock(_Tagged, tag="tool_use"):
    """A tool call requested by the model.

    In an ``input`` decoded from MessagePack, values JSON cannot hold (``bin`` data, NaN,
    infinity, non-string keys) are wrapped in `MsgpackOnly`; see there.
    """

    type: ClassVar[Literal["tool_use"]] = "tool_use"
    id: str
    """Unique id of the call; the tool message answering it carries it as ``tool_call_id``."""
    name: str
    """Name of the tool."""
    input: dict[str, JsonValue]
    """The tool's JSON arguments."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name (``caller``, ``cache_control``, ...)."""


class ThinkingBlock(_Tagged, tag="thinking"):
    """The model's visible reasoning."""

    type: ClassVar[Literal["thinking"]] = "thinking"
    thinking: str
    """The reasoning text."""
    signature: str | UnsetType = UNSET
    """Opaque provider signature; must come back byte-exact, so it is never touched."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class RedactedThinkingBlock(_Tagged, tag="redacted_thinking"):
    """Reasoning the provider returned encrypted."""

    type: ClassVar[Literal["redacted_thinking"]] = "redacted_thinking"
    data: str
    """Opaque encrypted payload."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class ImageBlock(_Tagged, tag="image"):
    """An image."""

    type: ClassVar[Literal["image"]] = "image"
    source: Source
    """Inline bytes or a URL."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class DocumentBlock(_Tagged, tag="document"):
    """A document (PDF, text, ...)."""

    type: ClassVar[Literal["document"]] = "document"
    source: Source
    """Inline bytes or a URL."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name (``title``, ``citations``, ...)."""


class UnknownBlock(_Tagged, tag=UNKNOWN_TAG):
    """A block whose ``type`` this protocol does not know, kept whole and written back unchanged.

    Build one with ``UnknownBlock(Extra({"type": "web_search_tool_result", ...}))``.
    """

    data: Extra
    """The whole block, ``type`` included, in its original key order."""

    def __post_init__(self) -> None:
        _check_unknown_data(self.data, "block", KNOWN_BLOCK_TYPES)

    @property
    def type(self) -> str:
        """The block's ``type`` as it appeared on the wire."""
        return str(self.data["type"])


ContentBlock = (
    TextBlock
    | ToolUseBlock
    | ThinkingBlock
    | RedactedThinkingBlock
    | ImageBlock
    | DocumentBlock
    | UnknownBlock
)
"""Any content block; tagged by ``"type"``."""

KNOWN_BLOCKS: dict[str, type[Struct]] = {
    "text": TextBlock,
    "tool_use": ToolUseBlock,
    "thinking": ThinkingBlock,
    "redacted_thinking": RedactedThinkingBlock,
    "image": ImageBlock,
    "document": DocumentBlock,
}
"""Block classes by wire tag (the unknown block aside)."""

KNOWN_SOURCES: dict[str, type[Struct]] = {"base64": Base64Source, "url": UrlSource}
"""Source classes by wire tag (the unknown source aside)."""

KNOWN_BLOCK_TYPES = frozenset(KNOWN_BLOCKS)


def _check_unknown_data(data: object, what: str, known: frozenset[str]) -> None:
    if not isinstance(data, Extra):
        raise TypeError(f"Unknown{what.title()}.data must be an Extra, got {type(data).__name__}")
    tag = data.get("type", UNSET)
    if not isinstance(tag, str):
        raise TypeError(f"an unknown {what} needs a string 'type' key")
    if tag in known:
        raise TypeError(f"{tag!r} is a known {what} type; use its own class")


def _unknown_source_init(self: UnknownSource) -> None:
    _check_unknown_data(self.data, "source", frozenset(KNOWN_SOURCES))


UnknownSource.__post_init__ = _unknown_source_init  # type: ignore[attr-defined]
