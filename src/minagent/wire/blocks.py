"""Content blocks: msgspec Structs tagged by ``"type"``, and the `ContentBlock` union.

The catalog follows the Anthropic API reference and the official SDK's type modules
(``anthropic.types``, SDK version 2.14.0; the MCP blocks from ``anthropic.types.beta``): every
documented block type and every documented field is a typed Struct field with its wire name, so
real provider traffic decodes in one msgspec call. Optional fields default to ``UNSET``, which
means absent on the wire; ``None`` is a ``null`` the sender wrote, kept as ``null``.

Nested payloads the catalog leaves open or that only carry provider bookkeeping (``cache_control``,
``citations``, ``caller``, a server tool's result ``content``, ...) are typed as JSON values, like
tool inputs: plain dicts and lists, checked by msgspec while decoding.

Keys a known block does not name land in its ``extra``; a block whose ``type`` is not known
becomes an :class:`UnknownBlock` holding the whole object. Both are written back unchanged.

All Structs here but `Base64Source` (whose instances have a ``__dict__``) are created with
``gc=False``: decoded messages are trees (no reference cycles), so the garbage collector never
needs to track them. Do not build reference cycles through them
(for example a tool ``input`` that contains the block itself): such a cycle would never be freed.
"""

from __future__ import annotations

import sys
from binascii import b2a_base64
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal, NewType, Union

import msgspec
from msgspec import UNSET, Struct, UnsetType

from .errors import ValidationError
from .extra import Extra

__all__ = [
    "EXTRA_KEY",
    "UNKNOWN_TAG",
    "Base64Source",
    "BashCodeExecutionToolResultBlock",
    "BrowserStateBlock",
    "CacheControl",
    "Caller",
    "CodeExecutionToolResultBlock",
    "ContainerUploadBlock",
    "ContentBlock",
    "ContentSource",
    "DocumentBlock",
    "FileSource",
    "ImageBlock",
    "JsonObject",
    "McpToolResultBlock",
    "McpToolUseBlock",
    "OptionalText",
    "RedactedThinkingBlock",
    "SearchResultBlock",
    "ServerToolUseBlock",
    "Source",
    "TextBlock",
    "TextEditorCodeExecutionToolResultBlock",
    "TextSource",
    "ThinkingBlock",
    "ToolReferenceBlock",
    "ToolResultBlock",
    "ToolSearchToolResultBlock",
    "ToolUseBlock",
    "UnknownBlock",
    "UnknownSource",
    "UrlSource",
    "WebFetchToolResultBlock",
    "WebSearchToolResultBlock",
]

EXTRA_KEY = "__minagent_extra__"
"""Wire name of the ``extra`` field. Never written: an encoder meeting an `Extra` takes the
lossless path and spreads its keys into the object. A payload that uses this key itself is read
through the lossless path too, where the key is kept as unknown data like any other."""

UNKNOWN_TAG = "__minagent_unknown__"
"""Tag msgspec sees for `UnknownBlock` / `UnknownSource`. Never written: their real ``type`` is in
their data. A payload using this tag is read as an unknown block of that type."""


class _AnyValue(type):
    """Metaclass of `Deep`: every value is an instance, so that msgspec keeps what the hook
    returns (msgspec 0.23 checks ``isinstance(returned, Deep)`` after calling ``dec_hook``)."""

    def __instancecheck__(cls, instance: object) -> bool:
        return True


class Deep(metaclass=_AnyValue):
    """Stands, in the decoder's type for tool inputs, for values nested deeper than it types.

    Never instantiated: msgspec hands such values, already decoded, to the codec's ``dec_hook``,
    which checks them in Python (rare: only data nested more than `TYPED_LEVELS` deep) and
    returns them as they are; the metaclass makes msgspec accept them as `Deep`.
    """


TYPED_LEVELS = 8
"""Nesting levels of a tool input whose values msgspec checks by itself while decoding."""


_FINITE = Annotated[float, msgspec.Meta(ge=-sys.float_info.max, le=sys.float_info.max)]
"""A finite float: NaN fails both bounds, infinity one of them."""


def _json_value_type(levels: int) -> Any:
    """The JSON value union nested ``levels`` deep, each level behind a `typing.NewType`.

    msgspec reads a NewType as its supertype, so the decoder checks the same values. The
    NewType stops `typing` at each level: resolving a Struct's annotations otherwise re-walks and
    re-hashes the whole union at every use, two branches per level (2**levels work per field:
    0.3 s of every import of the codec)."""
    new_type: Any = NewType  # built at run time: type checkers see JsonValue as Any
    inner: Any = Deep
    for level in range(1, levels + 1):
        union = Union[None, bool, int, _FINITE, str, list[inner], dict[str, inner]]  # noqa: UP007
        inner = new_type(f"JsonValue{level}", union)
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


# --- shared field types -----------------------------------------------------------------------

JsonObject = dict[str, JsonValue]
"""A JSON object (string keys, JSON values)."""

CacheControl = JsonObject | None | UnsetType
"""``cache_control``: a cache breakpoint such as ``{"type": "ephemeral", "ttl": "5m"}``."""

Caller = JsonObject | UnsetType
"""``caller``: who invoked a tool (``{"type": "direct"}``, a server tool, ...)."""

OptionalText = str | None | UnsetType
"""A string field the sender may omit or set to ``null``."""


# --- image / document sources ---------------------------------------------------------------


class Base64Source(_Tagged, tag="base64", dict=True, gc=True):
    """Inline binary data: ``bytes`` in memory, base64 text in JSON, ``bin`` in MessagePack.

    A source read from base64 text (`from_base64`, the provider adapters) keeps that text and
    is written back as it came while ``data`` is unchanged (`base64`).
    """

    # The kept text is not a field (equality, repr, the wire codec and msgspec.structs.replace
    # see ``data`` only): it lives in the instance ``__dict__`` (``dict=True``), which is why
    # this Struct, unlike the others, is tracked by the garbage collector (msgspec refuses
    # ``gc=False`` with ``dict=True``). See `from_base64`.

    type: ClassVar[Literal["base64"]] = "base64"
    media_type: str
    """MIME type, e.g. ``image/png`` or ``application/pdf``."""
    data: bytes
    """The raw bytes."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name, written back unchanged."""

    @classmethod
    def from_base64(
        cls, media_type: str, text: str, extra: Extra | UnsetType = UNSET
    ) -> Base64Source:
        """A source holding the bytes of standard base64 ``text`` (with padding), keeping the
        text itself: while ``data`` is the bytes read from it, `base64` is that exact text and
        the provider adapters write it back as it came, with no encode (a megabyte image costs
        a copy; text whose padding bits are not zero, such as ``"QR=="``, stays as it was).
        Set ``data`` to other bytes and the text is dropped: those bytes are encoded; a copy
        made by `msgspec.structs.replace` encodes its bytes too. Raises `ValidationError` if
        ``text`` is not standard base64 (another alphabet, whitespace, missing padding)."""
        if type(text) is not str:
            raise ValidationError(f"expected base64 text (a str), got {type(text).__name__}")
        try:
            if "\\" in text:  # a JSON escape: not base64, however msgspec would read it
                raise msgspec.DecodeError
            ascii_text = text.encode("ascii")
            data = _B64_BYTES.decode(b'"' + ascii_text + b'"')
        except (UnicodeEncodeError, msgspec.DecodeError, msgspec.ValidationError):
            raise ValidationError(
                "invalid base64 text (expected standard base64 with padding)"
            ) from None
        source = cls(media_type, data, extra)
        source.__dict__[_KEPT] = (ascii_text, data)
        return source

    @property
    def base64(self) -> str:
        """The base64 text this source is written as: the text it was read from while ``data``
        is unchanged (`from_base64`), else the standard encoding of ``data``."""
        kept = kept_base64(self)
        return (kept if kept is not None else _b64encode(self.data)).decode("ascii")


def _b64encode(data: bytes) -> bytes:
    return b2a_base64(data, newline=False)


_KEPT = "_base64_text"
"""Key of a `Base64Source`'s kept text in its ``__dict__``: ``(the text as ASCII bytes, the
bytes read from it)``."""

_B64_BYTES = msgspec.json.Decoder(bytes)


def kept_base64(source: Base64Source) -> bytes | None:
    """The base64 text ``source`` was read from (ASCII bytes, ready to write), if it still
    holds the bytes read from it; else None."""
    kept = source.__dict__.get(_KEPT)
    if kept is not None and kept[1] is source.data:
        text: bytes = kept[0]  # (base64 text, the bytes decoded from it)
        return text
    return None


def keep_base64(source: Base64Source, text: str | bytes) -> None:
    """Record that ``source.data`` was read from the base64 ``text`` (a ``str``, or its ASCII
    bytes) by a decoder that read both from one JSON string, with no escapes in it (the caller
    vouches for that: the text is written back as it is); `kept_base64` returns it until
    ``data`` changes. Ignored unless ``text`` is ASCII and its length matches the bytes
    (standard base64 with padding: 4 characters per 3 bytes, rounded up)."""
    if len(text) != (len(source.data) + 2) // 3 * 4 or not text.isascii():
        return
    if type(text) is str:
        source.__dict__[_KEPT] = (text.encode("ascii"), source.data)
    elif type(text) is bytes:
        source.__dict__[_KEPT] = (text, source.data)


class UrlSource(_Tagged, tag="url"):
    """Data the provider fetches from a URL."""

    type: ClassVar[Literal["url"]] = "url"
    url: str
    """Where the data lives."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name, written back unchanged."""


class TextSource(_Tagged, tag="text"):
    """A plain-text document given inline (Anthropic's ``PlainTextSource``)."""

    type: ClassVar[Literal["text"]] = "text"
    media_type: str
    """MIME type; ``text/plain``."""
    data: str
    """The document's text."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name, written back unchanged."""


class ContentSource(_Tagged, tag="content"):
    """A document made of content blocks (Anthropic's ``ContentBlockSource``)."""

    type: ClassVar[Literal["content"]] = "content"
    content: str | list[ContentBlock]
    """The document's text, or its blocks (text and image)."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name, written back unchanged."""


class FileSource(_Tagged, tag="file"):
    """A file uploaded through the provider's Files API."""

    type: ClassVar[Literal["file"]] = "file"
    file_id: str
    """The provider's file id."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name, written back unchanged."""


class UnknownSource(_Tagged, tag=UNKNOWN_TAG):
    """A source whose ``type`` this protocol does not know, kept whole."""

    data: Extra
    """The whole source object, ``type`` included, in its original key order."""

    @property
    def type(self) -> str:
        """The source's ``type`` as it appeared on the wire."""
        return str(self.data["type"])


Source = Base64Source | UrlSource | TextSource | ContentSource | FileSource | UnknownSource
"""Where an image's or document's data comes from."""


# --- blocks of the neutral protocol -----------------------------------------------------------


class TextBlock(_Tagged, tag="text"):
    """A run of text."""

    type: ClassVar[Literal["text"]] = "text"
    text: str
    """The text."""
    citations: list[JsonObject] | UnsetType | None = UNSET
    """Sources the text cites: ``char_location``, ``page_location``, ``content_block_location``,
    ``search_result_location`` or ``web_search_result_location`` objects (or ``null``)."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name, written back unchanged."""


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
    caller: Caller = UNSET
    """Who made the call (``{"type": "direct"}`` or a server tool such as code execution)."""
    toolset_name: OptionalText = UNSET
    """For a member of a toolset: the toolset family."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name, written back unchanged."""


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
    """Inline bytes, a URL or an uploaded file."""
    transformations: JsonObject | UnsetType | None = UNSET
    """Transformations the provider applies before the model sees the image."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class DocumentBlock(_Tagged, tag="document"):
    """A document (PDF, plain text, content blocks, an uploaded file)."""

    type: ClassVar[Literal["document"]] = "document"
    source: Source
    """Where the document's data comes from."""
    title: OptionalText = UNSET
    """The document's title."""
    context: OptionalText = UNSET
    """Context about the document, not cited from."""
    citations: JsonObject | UnsetType | None = UNSET
    """Citation settings, e.g. ``{"enabled": true}``."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


# --- Anthropic's own blocks -------------------------------------------------------------------


class ToolResultBlock(_Tagged, tag="tool_result"):
    """Anthropic's form of a tool result: a block in a ``user`` message.

    The neutral protocol's form is a ``role: "tool"`` message with ``tool_call_id``; the provider
    adapters map between the two.
    """

    type: ClassVar[Literal["tool_result"]] = "tool_result"
    tool_use_id: str
    """The id of the ``tool_use`` block this answers."""
    content: str | list[ContentBlock] | UnsetType = UNSET
    """The result: text, or blocks (text, image, document, search_result, tool_reference,
    browser_state)."""
    is_error: bool | UnsetType = UNSET
    """``True`` when the tool failed."""
    toolset_name: OptionalText = UNSET
    """For a member of a toolset: the toolset family of the ``tool_use`` it answers."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class ServerToolUseBlock(_Tagged, tag="server_tool_use"):
    """A call of a tool the provider runs itself (``web_search``, ``code_execution``, ...)."""

    type: ClassVar[Literal["server_tool_use"]] = "server_tool_use"
    id: str
    """Unique id of the call; its result block carries it as ``tool_use_id``."""
    name: str
    """Name of the server tool."""
    input: dict[str, JsonValue]
    """The tool's JSON arguments."""
    caller: Caller = UNSET
    """Who made the call."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class WebSearchToolResultBlock(_Tagged, tag="web_search_tool_result"):
    """Results of the ``web_search`` server tool."""

    type: ClassVar[Literal["web_search_tool_result"]] = "web_search_tool_result"
    tool_use_id: str
    """The id of the ``server_tool_use`` block this answers."""
    content: list[JsonObject] | JsonObject
    """``web_search_result`` objects, or an error object."""
    caller: Caller = UNSET
    """Who made the call."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class WebFetchToolResultBlock(_Tagged, tag="web_fetch_tool_result"):
    """Result of the ``web_fetch`` server tool."""

    type: ClassVar[Literal["web_fetch_tool_result"]] = "web_fetch_tool_result"
    tool_use_id: str
    """The id of the ``server_tool_use`` block this answers."""
    content: JsonObject
    """A ``web_fetch_result`` object, or an error object."""
    caller: Caller = UNSET
    """Who made the call."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class CodeExecutionToolResultBlock(_Tagged, tag="code_execution_tool_result"):
    """Result of the ``code_execution`` server tool."""

    type: ClassVar[Literal["code_execution_tool_result"]] = "code_execution_tool_result"
    tool_use_id: str
    """The id of the ``server_tool_use`` block this answers."""
    content: JsonObject
    """A ``code_execution_result`` object, or an error object."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class BashCodeExecutionToolResultBlock(_Tagged, tag="bash_code_execution_tool_result"):
    """Result of the ``bash_code_execution`` server tool."""

    type: ClassVar[Literal["bash_code_execution_tool_result"]] = "bash_code_execution_tool_result"
    tool_use_id: str
    """The id of the ``server_tool_use`` block this answers."""
    content: JsonObject
    """A ``bash_code_execution_result`` object, or an error object."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class TextEditorCodeExecutionToolResultBlock(_Tagged, tag="text_editor_code_execution_tool_result"):
    """Result of the ``text_editor_code_execution`` server tool."""

    type: ClassVar[Literal["text_editor_code_execution_tool_result"]] = (
        "text_editor_code_execution_tool_result"
    )
    tool_use_id: str
    """The id of the ``server_tool_use`` block this answers."""
    content: JsonObject
    """A view, create or str_replace result object, or an error object."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class ToolSearchToolResultBlock(_Tagged, tag="tool_search_tool_result"):
    """Result of a ``tool_search_tool_*`` server tool."""

    type: ClassVar[Literal["tool_search_tool_result"]] = "tool_search_tool_result"
    tool_use_id: str
    """The id of the ``server_tool_use`` block this answers."""
    content: JsonObject
    """A ``tool_search_tool_search_result`` object, or an error object."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class McpToolUseBlock(_Tagged, tag="mcp_tool_use"):
    """A call of a tool on a remote MCP server, run by the provider."""

    type: ClassVar[Literal["mcp_tool_use"]] = "mcp_tool_use"
    id: str
    """Unique id of the call; its result block carries it as ``tool_use_id``."""
    name: str
    """Name of the tool."""
    server_name: str
    """Name of the MCP server."""
    input: dict[str, JsonValue]
    """The tool's JSON arguments."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class McpToolResultBlock(_Tagged, tag="mcp_tool_result"):
    """Result of an MCP tool call."""

    type: ClassVar[Literal["mcp_tool_result"]] = "mcp_tool_result"
    tool_use_id: str
    """The id of the ``mcp_tool_use`` block this answers."""
    content: str | list[ContentBlock] | UnsetType = UNSET
    """The result: text, or text blocks."""
    is_error: bool | UnsetType = UNSET
    """``True`` when the tool failed."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class SearchResultBlock(_Tagged, tag="search_result"):
    """A search result the caller supplies (for example in a tool result), citable by the model."""

    type: ClassVar[Literal["search_result"]] = "search_result"
    source: str
    """Where the result comes from (a URL or any identifier)."""
    title: str
    """The result's title."""
    content: list[ContentBlock]
    """The result's text blocks."""
    citations: JsonObject | UnsetType = UNSET
    """Citation settings, e.g. ``{"enabled": true}``."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class ContainerUploadBlock(_Tagged, tag="container_upload"):
    """A file to upload into the code execution container."""

    type: ClassVar[Literal["container_upload"]] = "container_upload"
    file_id: str
    """The provider's file id."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class ToolReferenceBlock(_Tagged, tag="tool_reference"):
    """A reference to a tool, inside a tool result (tool search)."""

    type: ClassVar[Literal["tool_reference"]] = "tool_reference"
    tool_name: str
    """The tool's name."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class BrowserStateBlock(_Tagged, tag="browser_state"):
    """The caller's browser after a browser toolset call, inside a tool result."""

    type: ClassVar[Literal["browser_state"]] = "browser_state"
    tabs: list[JsonObject]
    """Every open tab (``tab_id``, ``title``, ``url``, ``active``)."""
    state_changes: list[JsonObject] | UnsetType | None = UNSET
    """Tabs opened and downloads changed during the call."""
    cache_control: CacheControl = UNSET
    """A cache breakpoint after this block."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name."""


class UnknownBlock(_Tagged, tag=UNKNOWN_TAG):
    """A block whose ``type`` this protocol does not know, kept whole and written back unchanged.

    Build one with ``UnknownBlock(Extra({"type": "compaction", ...}))``.
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
    | ToolResultBlock
    | ServerToolUseBlock
    | WebSearchToolResultBlock
    | WebFetchToolResultBlock
    | CodeExecutionToolResultBlock
    | BashCodeExecutionToolResultBlock
    | TextEditorCodeExecutionToolResultBlock
    | ToolSearchToolResultBlock
    | McpToolUseBlock
    | McpToolResultBlock
    | SearchResultBlock
    | ContainerUploadBlock
    | ToolReferenceBlock
    | BrowserStateBlock
    | UnknownBlock
)
"""Any content block; tagged by ``"type"``."""

KNOWN_BLOCKS: dict[str, type[Struct]] = {
    cls.__struct_config__.tag: cls  # type: ignore[misc]  # every tag here is a str
    for cls in (
        TextBlock,
        ToolUseBlock,
        ThinkingBlock,
        RedactedThinkingBlock,
        ImageBlock,
        DocumentBlock,
        ToolResultBlock,
        ServerToolUseBlock,
        WebSearchToolResultBlock,
        WebFetchToolResultBlock,
        CodeExecutionToolResultBlock,
        BashCodeExecutionToolResultBlock,
        TextEditorCodeExecutionToolResultBlock,
        ToolSearchToolResultBlock,
        McpToolUseBlock,
        McpToolResultBlock,
        SearchResultBlock,
        ContainerUploadBlock,
        ToolReferenceBlock,
        BrowserStateBlock,
    )
}
"""Block classes by wire tag (the unknown block aside)."""

KNOWN_SOURCES: dict[str, type[Struct]] = {
    cls.__struct_config__.tag: cls  # type: ignore[misc]  # every tag here is a str
    for cls in (Base64Source, UrlSource, TextSource, ContentSource, FileSource)
}
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


UnknownSource.__post_init__ = _unknown_source_init  # type: ignore[attr-defined]  # needs KNOWN_SOURCES
