"""Pydantic v2 models of the protocol's wire shape, for comparison (needs ``pydantic``).

What a careful pydantic user would write: one model per block, a discriminated union on
``type`` with a callable discriminator that sends unknown types to a catch-all model, and
``extra="allow"`` everywhere so provider keys are kept. Binary data is standard base64 in JSON.
Dumped with ``exclude_unset=True`` so absent keys stay absent (and a ``null`` sent stays ``null``).
The blocks are the same typed catalog as `minagent.wire.blocks` (Anthropic SDK 2.14.0), open
payloads as ``dict[str, Any]``.
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    PlainSerializer,
    Tag,
    TypeAdapter,
)

__all__ = ["ADAPTER"]

_CONFIG = ConfigDict(extra="allow")


def _from_base64(value: Any) -> Any:
    return base64.b64decode(value, validate=True) if isinstance(value, str) else value


Bytes = Annotated[
    bytes,
    BeforeValidator(_from_base64),
    PlainSerializer(lambda b: base64.b64encode(b).decode("ascii"), when_used="json"),
]
"""Binary data: standard base64 in JSON (pydantic's own ``ser_json_bytes`` is URL-safe), raw
``bytes`` in Python (so MessagePack carries ``bin``)."""


class _Model(BaseModel):
    model_config = _CONFIG


class Base64Source(_Model):
    type: Literal["base64"]
    media_type: str
    data: Bytes


class UrlSource(_Model):
    type: Literal["url"]
    url: str


class TextSource(_Model):
    type: Literal["text"]
    media_type: str
    data: str


class ContentSource(_Model):
    type: Literal["content"]
    content: str | list[Block]


class FileSource(_Model):
    type: Literal["file"]
    file_id: str


class UnknownSource(_Model):
    type: str


def _tag(known: frozenset[str]) -> Any:
    def pick(value: Any) -> str:
        tag = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
        return tag if tag in known else "unknown"

    return Discriminator(pick)


Source = Annotated[
    Annotated[Base64Source, Tag("base64")]
    | Annotated[UrlSource, Tag("url")]
    | Annotated[TextSource, Tag("text")]
    | Annotated[ContentSource, Tag("content")]
    | Annotated[FileSource, Tag("file")]
    | Annotated[UnknownSource, Tag("unknown")],
    _tag(frozenset({"base64", "url", "text", "content", "file"})),
]

JsonObject = dict[str, Any]
CacheControl = JsonObject | None


class TextBlock(_Model):
    type: Literal["text"]
    text: str
    citations: list[JsonObject] | None = None
    cache_control: CacheControl = None


class ToolUseBlock(_Model):
    type: Literal["tool_use"]
    id: str
    name: str
    input: dict[str, Any]
    caller: JsonObject | None = None
    toolset_name: str | None = None
    cache_control: CacheControl = None


class ThinkingBlock(_Model):
    type: Literal["thinking"]
    thinking: str
    signature: str | None = None


class RedactedThinkingBlock(_Model):
    type: Literal["redacted_thinking"]
    data: str


class ImageBlock(_Model):
    type: Literal["image"]
    source: Source
    transformations: JsonObject | None = None
    cache_control: CacheControl = None


class DocumentBlock(_Model):
    type: Literal["document"]
    source: Source
    title: str | None = None
    context: str | None = None
    citations: JsonObject | None = None
    cache_control: CacheControl = None


class ToolResultBlock(_Model):
    type: Literal["tool_result"]
    tool_use_id: str
    content: str | list[Block] | None = None
    is_error: bool | None = None
    toolset_name: str | None = None
    cache_control: CacheControl = None


class ServerToolUseBlock(_Model):
    type: Literal["server_tool_use"]
    id: str
    name: str
    input: dict[str, Any]
    caller: JsonObject | None = None
    cache_control: CacheControl = None


class WebSearchToolResultBlock(_Model):
    type: Literal["web_search_tool_result"]
    tool_use_id: str
    content: list[JsonObject] | JsonObject
    caller: JsonObject | None = None
    cache_control: CacheControl = None


class WebFetchToolResultBlock(_Model):
    type: Literal["web_fetch_tool_result"]
    tool_use_id: str
    content: JsonObject
    caller: JsonObject | None = None
    cache_control: CacheControl = None


class _ServerResult(_Model):
    tool_use_id: str
    content: JsonObject
    cache_control: CacheControl = None


class CodeExecutionToolResultBlock(_ServerResult):
    type: Literal["code_execution_tool_result"]


class BashCodeExecutionToolResultBlock(_ServerResult):
    type: Literal["bash_code_execution_tool_result"]


class TextEditorCodeExecutionToolResultBlock(_ServerResult):
    type: Literal["text_editor_code_execution_tool_result"]


class ToolSearchToolResultBlock(_ServerResult):
    type: Literal["tool_search_tool_result"]


class McpToolUseBlock(_Model):
    type: Literal["mcp_tool_use"]
    id: str
    name: str
    server_name: str
    input: dict[str, Any]
    cache_control: CacheControl = None


class McpToolResultBlock(_Model):
    type: Literal["mcp_tool_result"]
    tool_use_id: str
    content: str | list[Block] | None = None
    is_error: bool | None = None
    cache_control: CacheControl = None


class SearchResultBlock(_Model):
    type: Literal["search_result"]
    source: str
    title: str
    content: list[Block]
    citations: JsonObject | None = None
    cache_control: CacheControl = None


class ContainerUploadBlock(_Model):
    type: Literal["container_upload"]
    file_id: str
    cache_control: CacheControl = None


class ToolReferenceBlock(_Model):
    type: Literal["tool_reference"]
    tool_name: str
    cache_control: CacheControl = None


class BrowserStateBlock(_Model):
    type: Literal["browser_state"]
    tabs: list[JsonObject]
    state_changes: list[JsonObject] | None = None
    cache_control: CacheControl = None


class UnknownBlock(_Model):
    type: str


_CLASSES: tuple[type[_Model], ...] = (
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
_TAGS = [get_args(cls.model_fields["type"].annotation)[0] for cls in _CLASSES]
_KNOWN = frozenset(_TAGS)

_MEMBERS = (
    *(Annotated[cls, Tag(tag)] for cls, tag in zip(_CLASSES, _TAGS, strict=True)),
    Annotated[UnknownBlock, Tag("unknown")],
)

if TYPE_CHECKING:
    Block = Any
else:
    Block = Annotated[Union[_MEMBERS], _tag(_KNOWN)]  # noqa: UP007 (built from a tuple)


class Message(_Model):
    role: Literal["system", "user", "assistant", "tool"]
    content: str | list[Block] = ""
    tool_call_id: str | None = None
    is_error: bool | None = None


for _cls in (ContentSource, ToolResultBlock, McpToolResultBlock, SearchResultBlock, Message):
    _cls.model_rebuild()

ADAPTER: TypeAdapter[list[Message]] = TypeAdapter(list[Message])
"""Validates and dumps a transcript (``list[Message]``)."""
