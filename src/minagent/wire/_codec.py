"""One codec per format, shared by `minagent.wire.json` and `minagent.wire.msgpack`.

Decoding tries the strict fast path first: one msgspec call over the whole buffer straight into
Structs. Only if msgspec refuses the shape does the codec look closer: for a list it splits the
buffer into raw elements (tokenising only) and re-decodes each one strictly, sending just the
elements that still fail through the lossless builder. So a transcript with one odd message pays
for that message, and a genuinely malformed one is reported with its full path.

Encoding writes everything with one msgspec call. An `Extra` anywhere stops that call (msgspec
cannot encode it and asks our hook, which signals the lossless path); the object is then lowered
to dicts where needed and written again.
"""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any

import msgspec

from . import _lossless, _values
from .errors import DecodeError, EncodeError
from .extra import Extra
from .messages import Message, ModelResponse

__all__ = ["DECODABLE", "JSON", "MSGPACK", "Codec"]

_LONE_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")

DECODABLE: tuple[Any, ...] = (list[Message], Message, ModelResponse, list[ModelResponse])
"""The types ``decode`` accepts for ``type=``."""


class _NeedsLossless(Exception):
    """Raised by the encode hook when msgspec meets an `Extra`."""


def _enc_hook(obj: Any) -> Any:
    if isinstance(obj, Extra):
        raise _NeedsLossless
    raise NotImplementedError(f"Encoding objects of type {type(obj).__name__} is unsupported")


def _dec_hook(tp: Any, obj: Any) -> Any:
    # Only reached when a payload itself uses a key or tag reserved for our own bookkeeping.
    raise ValueError("reserved by minagent; read through the lossless path")


class Codec:
    """Encoders and decoders for one format, built once and reused."""

    def __init__(self, module: ModuleType, name: str) -> None:
        self.name = name
        self._decoders = {tp: module.Decoder(tp, dec_hook=_dec_hook) for tp in DECODABLE}
        self._raw_list = module.Decoder(list[msgspec.Raw])
        self._any = module.Decoder()
        self._fast = module.Encoder(enc_hook=_enc_hook)
        self._canonical = module.Encoder(enc_hook=_enc_hook, order="sorted")

    # --- decoding -----------------------------------------------------------------------------

    def decoder_for(self, tp: Any) -> Any:
        """The strict msgspec decoder for ``tp``; TypeError names the accepted types."""
        try:
            return self._decoders[tp]
        except (KeyError, TypeError):
            accepted = ", ".join(_type_repr(t) for t in DECODABLE)
            raise TypeError(f"type must be one of {accepted}; got {tp!r}") from None

    def decode(self, data: Any, tp: Any) -> Any:
        """Decode ``data`` as ``tp``: fast path first, the lossless path on a shape mismatch."""
        decoder = self.decoder_for(tp)
        try:
            return decoder.decode(data)
        except msgspec.ValidationError:
            pass
        except msgspec.DecodeError as err:
            raise self._decode_error(err, data) from None
        except RecursionError:
            raise DecodeError(f"invalid {self.name}: nesting too deep") from None
        except TypeError as err:  # wrong argument type, e.g. a list instead of bytes
            raise TypeError(f"data must be bytes, bytearray or memoryview: {err}") from None
        return self._decode_slow(data, tp)

    def _decode_error(self, err: msgspec.DecodeError, data: Any) -> DecodeError:
        text = str(err)
        if self.name == "JSON" and "truncated" in text and _LONE_SURROGATE.search(_as_bytes(data)):
            text = "a \\u escape is a lone surrogate (not valid Unicode), or the input is truncated"
        return DecodeError(f"invalid {self.name}: {text}")

    def _generic(self, data: Any) -> Any:
        try:
            return self._any.decode(data)
        except msgspec.DecodeError as err:
            raise self._decode_error(err, data) from None
        except RecursionError:
            raise DecodeError(f"invalid {self.name}: nesting too deep") from None

    def _decode_slow(self, data: Any, tp: Any) -> Any:
        if tp not in (list[Message], list[ModelResponse]):
            return _lossless.build(tp, self._generic(data))
        try:
            raws = self._raw_list.decode(data)
        except (msgspec.ValidationError, RecursionError):
            return _lossless.build(tp, self._generic(data))  # not an array: report it
        except msgspec.DecodeError as err:
            raise self._decode_error(err, data) from None
        item_tp = tp.__args__[0]
        strict = self._decoders[item_tp]
        out = []
        for i, raw in enumerate(raws):
            try:
                out.append(strict.decode(raw))
            except msgspec.ValidationError:
                out.append(_lossless.build(item_tp, self._generic(raw), f"$[{i}]"))
            except RecursionError:
                raise DecodeError(
                    f"invalid {self.name}: nesting too deep", path=f"$[{i}]"
                ) from None
        return out

    # --- encoding -----------------------------------------------------------------------------

    def encode(self, obj: Any, canonical: bool) -> tuple[bytes, bool]:
        """Encode ``obj``; also say whether the lossless path was taken."""
        encoder = self._canonical if canonical else self._fast
        try:
            try:
                return encoder.encode(obj), False
            except _NeedsLossless:
                pass
            return encoder.encode(_lossless.lower(obj)), True
        except (TypeError, ValueError, OverflowError, RecursionError, NotImplementedError) as err:
            raise self._encode_error(obj, err) from None

    def _encode_error(self, obj: Any, err: BaseException) -> EncodeError:
        if isinstance(err, EncodeError):
            return err
        if isinstance(err, RecursionError):
            return EncodeError(f"cannot write {self.name}: nesting too deep")
        problem = _unencodable_json if self.name == "JSON" else _unencodable
        found = _values.find(obj, problem)
        if found is not None:
            return EncodeError(f"cannot write {self.name}: {found[1]}", path=found[0])
        return EncodeError(f"cannot write {self.name}: {err}")


def _unencodable(value: Any) -> str | None:
    """Leaf values msgspec refuses in either format (used to locate an encoder error)."""
    reason = _values.msgpack_problem(value)
    if reason is not None:
        return reason
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "text holds a lone surrogate (not valid Unicode)"
        return None
    if isinstance(value, dict) and any(not isinstance(k, str) for k in value):
        return "object keys must be strings"
    if not isinstance(value, _SUPPORTED):
        return f"values of type {type(value).__name__} are not supported"
    return None


_SUPPORTED = (
    str,
    int,
    float,
    bool,
    type(None),
    list,
    tuple,
    dict,
    bytes,
    bytearray,
    memoryview,
    msgspec.Struct,
    msgspec.msgpack.Ext,
    Extra,
)


def _unencodable_json(value: Any) -> str | None:
    if isinstance(value, msgspec.msgpack.Ext):
        return f"MessagePack ext (type {value.code}) cannot be written as JSON"
    return _unencodable(value)


def _type_repr(tp: Any) -> str:
    return repr(tp).replace("minagent.wire.messages.", "").replace("<class '", "").replace("'>", "")


def _as_bytes(data: Any) -> bytes:
    return data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)


JSON = Codec(msgspec.json, "JSON")
"""The JSON codec (shared by `minagent.wire.json` and the stream helpers)."""

MSGPACK = Codec(msgspec.msgpack, "MessagePack")
"""The MessagePack codec (shared by `minagent.wire.msgpack` and the stream helpers)."""
