"""JSON: ``encode`` and ``decode`` straight between bytes and Structs.

Binary data travels as base64 text. ``canonical=True`` sorts keys at every level, which for any
float-free value gives exactly the bytes of
``json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))``.
"""

from __future__ import annotations

from typing import Any

from ._codec import JSON as _CODEC
from .limits import DEFAULT, Limits
from .messages import Message
from .stream._lines import decode_lines, encode_lines, iter_lines

__all__ = ["decode", "decode_lines", "encode", "encode_lines", "iter_lines"]


def encode(obj: Any, *, canonical: bool = False) -> bytes:
    """Encode a Message, ModelResponse, or list of them, as UTF-8 JSON bytes.

    Raises `EncodeError` (naming the path) for anything JSON cannot hold unchanged: NaN or
    infinity, binary data and non-string keys decoded from MessagePack (`MsgpackOnly`) or held in
    unknown data, ``ext`` values and timestamps, text with lone surrogates, unsupported types.
    """
    return _CODEC.encode(obj, canonical)


def decode(
    data: bytes | bytearray | memoryview | str,
    *,
    type: Any = list[Message],
    limits: Limits = DEFAULT,
) -> Any:
    """Decode JSON bytes as ``type``: ``list[Message]`` (default), ``Message``, ``ModelResponse``
    or ``list[ModelResponse]``.

    Raises `DecodeError` for invalid JSON (including invalid UTF-8 and lone surrogate escapes)
    and for input beyond ``limits`` (size, nesting: `minagent.wire.Limits`), and
    `ValidationError`, with ``.path``, for valid JSON of the wrong shape or holding a number no
    Python float can hold (``1e400``: it would silently become infinity).
    """
    return _CODEC.decode(data, type, limits)
