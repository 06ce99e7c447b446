"""Pydantic v2 models of the protocol's wire shape, for comparison (needs ``pydantic``).

What a careful pydantic user would write: one model per block, a discriminated union on
``type`` with a callable discriminator that sends unknown types to a catch-all model, and
``extra="allow"`` everywhere so provider keys are kept. Binary data is standard base64 in JSON.
Dumped with ``exclude_unset=True`` so absent keys stay absent.
"""

from __future__ import annotations

import base64
from typing import Annotated, Any, Literal

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
    | Annotated[UnknownSource, Tag("unknown")],
    _tag(frozenset({"base64", "url"})),
]


class TextBlock(_Model):
    type: Literal["text"]
    text: str


class ToolUseBlock(_Model):
    type: Literal["tool_use"]
    id: str
    name: str
    input: dict[str, Any]


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


class DocumentBlock(_Model):
    type: Literal["document"]
    source: Source


class UnknownBlock(_Model):
    type: str


_KNOWN = frozenset({"text", "tool_use", "thinking", "redacted_thinking", "image", "document"})

Block = Annotated[
    Annotated[TextBlock, Tag("text")]
    | Annotated[ToolUseBlock, Tag("tool_use")]
    | Annotated[ThinkingBlock, Tag("thinking")]
    | Annotated[RedactedThinkingBlock, Tag("redacted_thinking")]
    | Annotated[ImageBlock, Tag("image")]
    | Annotated[DocumentBlock, Tag("document")]
    | Annotated[UnknownBlock, Tag("unknown")],
    _tag(_KNOWN),
]


class Message(_Model):
    role: Literal["system", "user", "assistant", "tool"]
    content: str | list[Block] = ""
    tool_call_id: str | None = None
    is_error: bool | None = None


ADAPTER: TypeAdapter[list[Message]] = TypeAdapter(list[Message])
"""Validates and dumps a transcript (``list[Message]``)."""
