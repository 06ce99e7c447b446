"""The msgspec wire codec: typed, lossless, fast.

Messages are msgspec Structs whose content blocks form a union tagged by ``"type"``; they are
decoded and encoded straight from bytes, as JSON (`minagent.wire.json`) or MessagePack
(`minagent.wire.msgpack`). Unknown blocks and keys are kept (`UnknownBlock`, `Extra`) and written
back unchanged. Everything the codec raises is a `WireError`.

Importing this package loads the types only; `json`, `msgpack`, `lazy`, `check` and the
reference conversion are imported on first use (``minagent.wire.json`` builds its decoders on
its first decode).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .blocks import (
    Base64Source,
    BashCodeExecutionToolResultBlock,
    BrowserStateBlock,
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
from .errors import DeadLetterError, DecodeError, EncodeError, ValidationError, WireError
from .extra import Extra, MsgpackOnly
from .limits import Limits
from .messages import Message, ModelResponse, Role

if TYPE_CHECKING:
    from . import json, lazy, msgpack
    from ._check import check
    from .convert import from_reference, to_reference
    from .lazy import LazyMessage, LazyMessages

_LAZY = {
    "json": (".json", None),
    "msgpack": (".msgpack", None),
    "lazy": (".lazy", None),
    "check": ("._check", "check"),
    "from_reference": (".convert", "from_reference"),
    "to_reference": (".convert", "to_reference"),
    "LazyMessage": (".lazy", "LazyMessage"),
    "LazyMessages": (".lazy", "LazyMessages"),
}
"""Names imported on first use: the codec's decoders, the lazy and stream machinery and the
reference conversion cost more to import than the types, and many users need only some."""


def __getattr__(name: str) -> Any:
    found = _LAZY.get(name)
    if found is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module = importlib.import_module(found[0], __name__)
    value = module if found[1] is None else getattr(module, found[1])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "Base64Source",
    "BashCodeExecutionToolResultBlock",
    "BrowserStateBlock",
    "CodeExecutionToolResultBlock",
    "ContainerUploadBlock",
    "ContentBlock",
    "ContentSource",
    "DeadLetterError",
    "DecodeError",
    "DocumentBlock",
    "EncodeError",
    "Extra",
    "FileSource",
    "ImageBlock",
    "LazyMessage",
    "LazyMessages",
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
    "check",
    "from_reference",
    "json",
    "lazy",
    "msgpack",
    "to_reference",
]
