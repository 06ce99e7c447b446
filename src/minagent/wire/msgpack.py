"""MessagePack: ``encode`` and ``decode`` straight between bytes and Structs.

Binary data travels as ``bin`` (no base64 overhead); maps have string keys only.
``canonical=True`` sorts keys at every level.
"""

from __future__ import annotations

from typing import Any

from . import _values
from ._codec import MSGPACK as _CODEC
from .messages import Message

__all__ = ["decode", "encode"]


def encode(obj: Any, *, canonical: bool = False) -> bytes:
    """Encode a Message, ModelResponse, or list of them, as MessagePack bytes.

    Raises `EncodeError` (naming the path) for an integer beyond 64 bits or text with lone
    surrogates.
    """
    return _CODEC.encode(obj, canonical)[0]


def decode(data: bytes | bytearray | memoryview, *, type: Any = list[Message]) -> Any:
    """Decode MessagePack bytes as ``type``: ``list[Message]`` (default), ``Message``,
    ``ModelResponse`` or ``list[ModelResponse]``.

    Raises `DecodeError` for invalid MessagePack (including invalid UTF-8) and
    `ValidationError`, with ``.path``, for well-formed data of the wrong shape.
    """
    result = _CODEC.decode(data, type)
    buffer = data if isinstance(data, (bytes, bytearray)) else bytes(data)
    if _values.may_hold_json_unsafe(buffer):
        _values.remember_json_unsafe(result)
    return result
