"""The msgspec wire codec: typed, lossless, fast.

Messages are msgspec Structs whose content blocks form a union tagged by ``"type"``; they are
decoded and encoded straight from bytes, as JSON (`minagent.wire.json`) or MessagePack
(`minagent.wire.msgpack`). Unknown blocks and keys are kept (`UnknownBlock`, `Extra`) and written
back unchanged. Everything the codec raises is a `WireError`.
"""

from __future__ import annotations

from . import json, msgpack
from .blocks import (
    Base64Source,
    BashCodeExecutionToolResultBlock,
    CodeExecutionToolResultBlock,
    ContainerUploadBlock,
    ContentBlock,
    ContentSource,
    DocumentBlock,
    FileSource,
    ImageBlock,
    McpToolResultBlock,
    McpToolUseBlock,
    RedactedThinkingBlock,
    SearchResultBlock,
    ServerToolUseBlock,
    Source,
    TextBlock,
    TextEditorCodeExecutionToolResultBlock,
    TextSource,
    ThinkingBlock,
    ToolReferenceBlock,
    ToolResultBlock,
    ToolSearchToolResultBlock,
    ToolUseBlock,
    UnknownBlock,
    UnknownSource,
    UrlSource,
    WebFetchToolResultBlock,
    WebSearchToolResultBlock,
)
from .convert import from_reference, to_reference
from .errors import DecodeError, EncodeError, ValidationError, WireError
from .extra import Extra, MsgpackOnly
from .limits import Limits
from .messages import Message, ModelResponse, Role

__all__ = [
    "Base64Source",
    "BashCodeExecutionToolResultBlock",
    "CodeExecutionToolResultBlock",
    "ContainerUploadBlock",
    "ContentBlock",
    "ContentSource",
    "DecodeError",
    "DocumentBlock",
    "EncodeError",
    "Extra",
    "FileSource",
    "ImageBlock",
    "Limits",
    "McpToolResultBlock",
    "McpToolUseBlock",
    "Message",
    "ModelResponse",
    "MsgpackOnly",
    "RedactedThinkingBlock",
    "Role",
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
    "ValidationError",
    "WebFetchToolResultBlock",
    "WebSearchToolResultBlock",
    "WireError",
    "from_reference",
    "json",
    "msgpack",
    "to_reference",
]
