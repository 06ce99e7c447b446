"""The lossless path: objects holding data this protocol does not know, in both directions.

The fast path is one msgspec call over the whole buffer into strict Structs. When that call
meets something it cannot type (an unknown block, an unknown key), the codec comes here:

- ``build`` turns a schema-less decoded value into Structs, sorting each object's keys into the
  fields a Struct knows and an `Extra` for the rest, and unknown block / source types into
  `UnknownBlock` / `UnknownSource`. Known shapes are still validated (by msgspec.convert) and a
  mistake is reported with its full JSON path.
- ``lower`` does the reverse for encoding: Structs carrying an `Extra` become plain dicts with the
  extra keys spread back in, so msgspec can write them; everything else is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
from msgspec import UNSET, Struct

from .blocks import (
    EXTRA_KEY,
    KNOWN_BLOCKS,
    KNOWN_SOURCES,
    DocumentBlock,
    ImageBlock,
    UnknownBlock,
    UnknownSource,
)
from .errors import EncodeError, ValidationError
from .extra import Extra
from .messages import Message, ModelResponse

__all__ = ["build", "lower", "relocate", "type_name"]

_JSON_NAMES = {
    dict: "object",
    list: "array",
    str: "str",
    int: "int",
    float: "float",
    bool: "bool",
    type(None): "null",
    bytes: "bytes",
}


def type_name(value: object) -> str:
    """The wire name of a decoded value's type, as msgspec spells it in its messages."""
    return _JSON_NAMES.get(type(value), type(value).__name__)


def relocate(err: msgspec.ValidationError, base: str) -> ValidationError:
    """Turn msgspec's ``"... - at `$.x`"`` into our error with the path under ``base``."""
    text = str(err)
    message, sep, where = text.rpartition(" - at `")
    if not sep:
        return ValidationError(text, path=base)
    return ValidationError(message, path=base + where.rstrip("`")[1:])


def _known_keys(cls: type[Struct]) -> frozenset[str]:
    keys = set(cls.__struct_encode_fields__) - {EXTRA_KEY}
    if cls.__struct_config__.tag_field is not None:
        keys.add(cls.__struct_config__.tag_field)
    return frozenset(keys)


_STRUCTS: list[type[Struct]] = [
    Message,
    ModelResponse,
    *KNOWN_BLOCKS.values(),
    *KNOWN_SOURCES.values(),
]
_KEYS: dict[type[Struct], frozenset[str]] = {cls: _known_keys(cls) for cls in _STRUCTS}

Builder = Callable[[Any, str], Any]


def _expect_object(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValidationError(f"Expected `object`, got `{type_name(value)}`", path=path)
    return value


def _object(cls: type[Struct], value: Any, path: str, nested: dict[str, Builder]) -> Any:
    """Build ``cls`` from a dict: known keys through msgspec.convert, the rest into ``extra``."""
    obj = _expect_object(value, path)
    keys = _KEYS[cls]
    known: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, item in obj.items():
        if key in keys:
            known[key] = item
        else:
            extra[key] = item
    for key, builder in nested.items():
        if key in known:
            known[key] = builder(known[key], f"{path}.{key}")
    try:
        result = msgspec.convert(known, cls)
    except msgspec.ValidationError as err:
        raise relocate(err, path) from None
    if extra:
        result.extra = Extra(extra)  # type: ignore[attr-defined]
    return result


def _tag(obj: dict[str, Any], path: str) -> str:
    if "type" not in obj:
        raise ValidationError("Object missing required field `type`", path=path)
    tag = obj["type"]
    if not isinstance(tag, str):
        raise ValidationError(f"Expected `str`, got `{type_name(tag)}`", path=f"{path}.type")
    return tag


def _source(value: Any, path: str) -> Any:
    obj = _expect_object(value, path)
    cls = KNOWN_SOURCES.get(_tag(obj, path))
    if cls is None:
        return UnknownSource(Extra(obj))
    return _object(cls, obj, path, {})


_BLOCK_NESTED: dict[type[Struct], dict[str, Builder]] = {
    ImageBlock: {"source": _source},
    DocumentBlock: {"source": _source},
}


def _block(value: Any, path: str) -> Any:
    obj = _expect_object(value, path)
    cls = KNOWN_BLOCKS.get(_tag(obj, path))
    if cls is None:
        return UnknownBlock(Extra(obj))
    return _object(cls, obj, path, _BLOCK_NESTED.get(cls, {}))


def _content(value: Any, path: str) -> Any:
    if isinstance(value, list):
        return [_block(item, f"{path}[{i}]") for i, item in enumerate(value)]
    return value  # msgspec.convert reports anything that is not a string


def _message(value: Any, path: str) -> Message:
    result: Message = _object(Message, value, path, {"content": _content})
    return result


def _response(value: Any, path: str) -> ModelResponse:
    result: ModelResponse = _object(ModelResponse, value, path, {"message": _message})
    return result


_BUILDERS: dict[Any, Builder] = {Message: _message, ModelResponse: _response}


def build(tp: Any, value: Any, path: str = "$") -> Any:
    """Build ``tp`` (``Message``, ``ModelResponse`` or a list of either) from a decoded value."""
    builder = _BUILDERS.get(tp)
    if builder is not None:
        return builder(value, path)
    item_builder = _BUILDERS[tp.__args__[0]]
    if not isinstance(value, list):
        raise ValidationError(f"Expected `array`, got `{type_name(value)}`", path=path)
    return [item_builder(item, f"{path}[{i}]") for i, item in enumerate(value)]


# --- encoding ---------------------------------------------------------------------------------


def _needs_lowering(obj: Any) -> bool:
    """Whether ``obj`` (a Struct of ours) or anything inside it carries unknown data."""
    if type(obj) in (UnknownBlock, UnknownSource) or getattr(obj, "extra", UNSET) is not UNSET:
        return True
    if type(obj) is Message:
        return not isinstance(obj.content, str) and any(map(_needs_lowering, obj.content))
    if type(obj) is ModelResponse:
        return _needs_lowering(obj.message)
    if type(obj) in (ImageBlock, DocumentBlock):
        return _needs_lowering(obj.source)
    return False


def _lower_struct(obj: Struct, path: str) -> dict[str, Any]:
    if type(obj) in (UnknownBlock, UnknownSource):
        return obj.data.to_dict()  # type: ignore[attr-defined,no-any-return]
    out: dict[str, Any] = {}
    config = obj.__struct_config__
    if config.tag_field is not None:
        out[config.tag_field] = config.tag
    for name, key in zip(obj.__struct_fields__, obj.__struct_encode_fields__, strict=True):
        if name == "extra":
            continue
        value = getattr(obj, name)
        if value is UNSET:
            continue
        out[key] = lower(value, f"{path}.{key}")
    extra = getattr(obj, "extra", UNSET)
    if extra is not UNSET:
        for key, value in extra.items():
            if key in out:
                raise EncodeError(
                    f"extra key {key!r} collides with a field of {type(obj).__name__}",
                    path=f"{path}.{key}",
                )
            if not isinstance(key, str):
                raise EncodeError(f"extra keys must be strings, got {key!r}", path=path)
            out[key] = value
    return out


def lower(obj: Any, path: str = "$") -> Any:
    """Return ``obj`` with every Struct that carries unknown data turned into a plain dict."""
    if isinstance(obj, list):
        return [lower(item, f"{path}[{i}]") for i, item in enumerate(obj)]
    if isinstance(obj, Struct) and _needs_lowering(obj):
        return _lower_struct(obj, path)
    return obj
