"""MessagePack: ``encode`` and ``decode`` straight between bytes and Structs.

Binary data travels as ``bin`` (no base64 overhead); maps have string keys only.
``canonical=True`` sorts keys at every level. Timestamps (ext type -1) inside tool inputs and
unknown data are kept as ``msgspec.msgpack.Ext(-1, data)``, byte for byte, and other ext types as
``Ext`` too, so they round-trip exactly; JSON encoding refuses them, naming the path.
"""

from __future__ import annotations

from typing import Any

from . import _mpreader
from ._codec import MSGPACK as _CODEC
from .limits import DEFAULT, Limits
from .messages import Message

__all__ = ["decode", "encode"]


def encode(obj: Any, *, canonical: bool = False) -> bytes:
    """Encode a Message, ModelResponse, or list of them, as MessagePack bytes.

    Raises `EncodeError` (naming the path) for an integer beyond 64 bits or text with lone
    surrogates.
    """
    return _CODEC.encode(obj, canonical)


def decode(
    data: bytes | bytearray | memoryview,
    *,
    type: Any = list[Message],
    limits: Limits = DEFAULT,
) -> Any:
    """Decode MessagePack bytes as ``type``: ``list[Message]`` (default), ``Message``,
    ``ModelResponse`` or ``list[ModelResponse]``.

    Raises `DecodeError` for invalid MessagePack (including invalid UTF-8 and timestamps that
    break the spec), for input beyond ``limits`` (size, nesting: `minagent.wire.Limits`) and for
    input so densely packed with small maps and arrays that its objects would take more than 64
    times its size in memory (checked before decoding; see docs/hostile-input.md), and
    `ValidationError`, with ``.path``, for well-formed data of the wrong shape.
    """
    size = data.nbytes if isinstance(data, memoryview) else len(data)
    if size <= limits.max_size:  # (over it: the codec refuses it first, at no cost)
        _mpreader.check_density(data)
    return _CODEC.decode(data, type, limits)
