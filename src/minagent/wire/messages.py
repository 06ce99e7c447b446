"""`Message` and `ModelResponse` as msgspec Structs (wire shape: PROTOCOL.md)."""

from __future__ import annotations

from typing import Literal

from msgspec import UNSET, Struct, UnsetType

from .blocks import EXTRA_KEY, ContentBlock, TextBlock, ToolUseBlock
from .extra import Extra

__all__ = ["Message", "ModelResponse", "Role"]

Role = Literal["system", "user", "assistant", "tool"]
"""Who speaks."""


class _Object(
    Struct,
    forbid_unknown_fields=True,
    rename={"extra": EXTRA_KEY},
    repr_omit_defaults=True,
    gc=False,
):
    """Base of the untagged protocol objects."""


class Message(_Object):
    """One message: text, content blocks, or a tool result.

    ``content`` is a plain string for a text-only message and a list of blocks otherwise; the
    empty string is a value (an absent ``content`` decodes as ``""`` and is always written).
    ``tool_call_id`` and ``is_error`` are absent (``UNSET``) unless set; they are never ``null``.
    """

    role: Role
    """Who speaks."""
    content: str | list[ContentBlock] = ""
    """The text, or the content blocks in order."""
    tool_call_id: str | UnsetType = UNSET
    """For tool results: the id of the ``tool_use`` block this answers."""
    is_error: bool | UnsetType = UNSET
    """For tool results: ``True`` when the tool failed (kept as given, ``False`` included)."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name (a provider's message ``id``, ...), kept unchanged."""

    @property
    def text(self) -> str:
        """The message's text: ``content`` if a string, else its ``text`` blocks joined."""
        content = self.content
        if isinstance(content, str):
            return content
        return "".join([b.text for b in content if type(b) is TextBlock])

    @property
    def tool_calls(self) -> list[ToolUseBlock]:
        """The ``tool_use`` blocks of the message, in order (a new list each time)."""
        content = self.content
        if isinstance(content, str):
            return []
        return [b for b in content if type(b) is ToolUseBlock]


class ModelResponse(_Object):
    """The result of one model call: ``{"message": ..., "stop_reason": ..., "usage": {...}}``."""

    message: Message
    """The assistant message."""
    stop_reason: str = "end_turn"
    """Why the model stopped; an open set (``end_turn``, ``tool_use``, ``max_tokens``, ...)."""
    usage: dict[str, int] = {}
    """Token counters by name."""
    id: str | UnsetType = UNSET
    """The provider's id for this response (``msg_...``, ``chatcmpl-...``, ``resp_...``, a Gemini
    ``responseId``); absent when the provider gave none."""
    model: str | UnsetType = UNSET
    """The model that answered, as the provider named it (a Gemini ``modelVersion``)."""
    created: int | UnsetType = UNSET
    """When the response was created, in seconds since the Unix epoch (OpenAI ``created`` /
    ``created_at``); absent when the provider gave no such number."""
    extra: Extra | UnsetType = UNSET
    """Keys this protocol does not name, written back unchanged."""
