"""JSON: ``encode`` and ``decode`` straight between bytes and Structs (``decode_lazy``: lazily).

Binary data travels as base64 text. ``canonical=True`` sorts keys at every level, which for any
float-free value gives exactly the bytes of
``json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))``.
"""

from __future__ import annotations

from typing import Any, overload

from . import lazy as _lazy
from ._codec import JSON as _CODEC
from .limits import DEFAULT, Limits
from .messages import Message, ModelResponse
from .stream._lines import decode_lines, encode_lines, iter_lines

__all__ = ["decode", "decode_lazy", "decode_lines", "encode", "encode_lines", "iter_lines"]


def encode(obj: Any, *, canonical: bool = False) -> bytes:
    """Encode a Message, ModelResponse, or list of them, as UTF-8 JSON bytes.

    Raises `EncodeError` (naming the path) for anything JSON cannot hold unchanged: NaN or
    infinity, binary data and non-string keys decoded from MessagePack (`MsgpackOnly`) or held in
    unknown data, ``ext`` values and timestamps, text with lone surrogates, unsupported types.
    """
    return _CODEC.encode(obj, canonical)


@overload
def decode(
    data: bytes | bytearray | memoryview | str, *, limits: Limits = ...
) -> list[Message]: ...
@overload
def decode(
    data: bytes | bytearray | memoryview | str, *, type: type[Message], limits: Limits = ...
) -> Message: ...
@overload
def decode(
    data: bytes | bytearray | memoryview | str, *, type: type[ModelResponse], limits: Limits = ...
) -> ModelResponse: ...
@overload
def decode(
    data: bytes | bytearray | memoryview | str,
    *,
    type: type[list[ModelResponse]],
    limits: Limits = ...,
) -> list[ModelResponse]: ...
@overload
def decode(
    data: bytes | bytearray | memoryview | str,
    *,
    type: type[list[Message]],
    limits: Limits = ...,
) -> list[Message]: ...
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


def decode_lazy(
    data: bytes | bytearray | memoryview | str,
    *,
    validate: _lazy.Validate = False,
    limits: Limits = DEFAULT,
    lines: bool = False,
) -> _lazy.LazyMessages:
    """Scan an array of messages into `LazyMessages`: each message's bytes are found, nothing
    else is decoded until read (see `minagent.wire.lazy` and docs/lazy.md).

    ``validate=False`` checks the syntax and ``limits`` only (bad data raises when read);
    ``"shape"`` also reads every message's routing fields now; ``True`` checks everything
    `decode` checks. Reading a message raises what `decode` raises, the path under ``$[i]``.
    ``lines=True`` reads JSON Lines instead (blank lines skipped; errors name the ``.line``).
    """
    return _lazy.decode(_CODEC, data, validate, limits, lines)
