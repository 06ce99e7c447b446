"""What every provider adapter shares: the `Request`, the unsupported-content policy, its errors.

Adapters import from here; nothing here knows a provider.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from ..wire.errors import DecodeError, EncodeError
from ..wire.messages import Message

__all__ = [
    "Dropped",
    "Request",
    "StreamError",
    "Unsupported",
    "UnsupportedError",
    "UnsupportedPolicy",
]

UnsupportedPolicy = Literal["error", "drop"]
"""What an encoder does with content the target format cannot hold: raise, or drop and report."""


class Request(msgspec.Struct, kw_only=True, gc=False):
    """A model request in neutral form: the conversation plus the provider's other options.

    ``messages`` holds every turn, system prompts included (as ``role: "system"`` messages).
    ``options`` holds the request's other top-level keys in the source provider's own shape
    (``model``, ``max_tokens``, ``tools``, ``temperature``, ...), unchanged, so a request decoded
    and re-encoded for the same provider is written back as it came.
    """

    messages: list[Message]
    """The conversation, in order."""
    options: dict[str, Any] = {}
    """Every other top-level key of the request, as the provider wrote it."""


class Dropped(msgspec.Struct, frozen=True, gc=False):
    """One item an encoder dropped under ``unsupported="drop"``."""

    path: str
    """Where it was, as a JSON path into the neutral input (``$.messages[2].content[0]``)."""
    what: str
    """What it was and why the target cannot hold it (``thinking block with signature``)."""


class UnsupportedError(EncodeError):
    """The target format cannot hold this content; ``.path`` says where it is in the input."""


class StreamError(DecodeError):
    """A provider event stream failed: an ``error`` event, bad JSON, or a stream cut mid-event.

    ``.frame`` is the 0-based index of the event at fault; ``.error`` holds the provider's error
    object when the stream sent one. The stream reader keeps everything received before the
    failure: its accumulated response is still available.
    """

    error: object = None
    """The provider's error payload (for an ``error`` event), else ``None``."""


class Unsupported:
    """Applies an `UnsupportedPolicy` while one request or response is encoded.

    ``report(path, what)`` raises `UnsupportedError` under ``"error"``; under ``"drop"`` it records
    a `Dropped` in ``.dropped`` (and in the caller's list, if one was given) and returns, so the
    encoder skips the item.
    """

    __slots__ = ("dropped", "policy")

    def __init__(self, policy: UnsupportedPolicy = "error", into: list[Dropped] | None = None):
        if policy not in ("error", "drop"):
            raise ValueError(f"unsupported= must be 'error' or 'drop', not {policy!r}")
        self.policy = policy
        self.dropped: list[Dropped] = into if into is not None else []

    def report(self, path: str, what: str) -> None:
        """Refuse (``"error"``) or record (``"drop"``) one item the target cannot hold."""
        if self.policy == "error":
            raise UnsupportedError(f"the target format cannot hold {what}", path=path)
        self.dropped.append(Dropped(path, what))
