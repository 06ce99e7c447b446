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

from . import _values
from .blocks import (
    EXTRA_KEY,
    KNOWN_BLOCKS,
    KNOWN_SOURCES,
    DocumentBlock,
    ImageBlock,
    ToolUseBlock,
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

Builder = Callable[[Any, "str | None"], Any]
"""Builds a Struct from a decoded value. The path is None on the first, fast attempt; only if that
attempt fails is the value built again with paths, to name where the error is."""


def _at(path: str | None, suffix: str) -> str | None:
    return None if path is None else path + suffix


def _expect_object(value: Any, path: str | None) -> dict[str, Any]:
    if type(value) is not dict:
        raise ValidationError(f"Expected `object`, got `{type_name(value)}`", path=path)
    return value


def _object(
    cls: type[Struct], obj: dict[str, Any], path: str | None, nested: dict[str, Builder]
) -> Any:
    """Build ``cls`` from a dict: known keys through msgspec.convert, the rest into ``extra``.

    ``obj`` comes fresh from a schema-less decode and is owned here, so it is reused in place.
    """
    keys = _KEYS[cls]
    extra: dict[str, Any] | None = None
    if not obj.keys() <= keys:
        extra = {k: v for k, v in obj.items() if k not in keys}
        obj = {k: v for k, v in obj.items() if k in keys}
    for key, builder in nested.items():
        if key in obj:
            obj[key] = builder(obj[key], _at(path, "." + key))
    try:
        result = msgspec.convert(obj, cls)
    except msgspec.ValidationError as err:
        raise relocate(err, path or "$") from None
    if extra:
        result.extra = Extra._own(extra)  # type: ignore[attr-defined]
    return result


def _tag(obj: dict[str, Any], path: str | None) -> str:
    tag = obj.get("type", _MISSING)
    if type(tag) is str:
        return tag
    if tag is _MISSING:
        raise ValidationError("Object missing required field `type`", path=path)
    raise ValidationError(f"Expected `str`, got `{type_name(tag)}`", path=_at(path, ".type"))


_MISSING = object()


def _source(value: Any, path: str | None) -> Any:
    obj = _expect_object(value, path)
    cls = KNOWN_SOURCES.get(_tag(obj, path))
    if cls is None:
        return UnknownSource(Extra._own(obj))
    return _object(cls, obj, path, {})


_NO_NESTED: dict[str, Builder] = {}
_BLOCK_NESTED: dict[type[Struct], dict[str, Builder]] = {
    ImageBlock: {"source": _source},
    DocumentBlock: {"source": _source},
}


def _block(value: Any, path: str | None) -> Any:
    obj = _expect_object(value, path)
    cls = KNOWN_BLOCKS.get(_tag(obj, path))
    if cls is None:
        return UnknownBlock(Extra._own(obj))
    if cls is ToolUseBlock and "input" in obj:
        return _tool_use(obj, path)
    return _object(cls, obj, path, _BLOCK_NESTED.get(cls, _NO_NESTED))


def _tool_use(obj: dict[str, Any], path: str | None) -> ToolUseBlock:
    """A tool block whose input may hold MessagePack-only values: those are wrapped in
    `MsgpackOnly` (msgspec would refuse them against the input's JSON type)."""
    tool_input = obj["input"]
    where = _at(path, ".input")
    if type(tool_input) is not dict:
        raise ValidationError(f"Expected `object`, got `{type_name(tool_input)}`", path=where)
    for key in tool_input:
        if type(key) is not str:
            raise ValidationError(f"Expected `str` object keys, got {key!r}", path=where)
    if _values.holds_json_unsafe(tool_input):
        _values.wrap(tool_input)
    obj["input"] = {}
    block: ToolUseBlock = _object(ToolUseBlock, obj, path, _NO_NESTED)
    block.input = tool_input
    return block


def _content(value: Any, path: str | None) -> Any:
    if type(value) is not list:
        return value  # msgspec.convert reports anything that is not a string
    if path is None:
        return [_block(item, None) for item in value]
    return [_block(item, f"{path}[{i}]") for i, item in enumerate(value)]


def _message(value: Any, path: str | None) -> Message:
    obj = _expect_object(value, path)
    result: Message = _object(Message, obj, path, _MESSAGE_NESTED)
    return result


def _response(value: Any, path: str | None) -> ModelResponse:
    obj = _expect_object(value, path)
    result: ModelResponse = _object(ModelResponse, obj, path, _RESPONSE_NESTED)
    return result


_MESSAGE_NESTED: dict[str, Builder] = {"content": _content}
_RESPONSE_NESTED: dict[str, Builder] = {"message": _message}
_BUILDERS: dict[Any, Builder] = {Message: _message, ModelResponse: _response}


def build(tp: Any, value: Any, path: str = "$", copy: Callable[[], Any] | None = None) -> Any:
    """Build ``tp`` (``Message``, ``ModelResponse`` or a list of either) from a decoded value.

    The first attempt tracks no paths (and reuses ``value`` in place); if it fails, the value is
    built again from ``copy()`` (a fresh decode) with paths, so the error names its place.
    """
    try:
        return _build(tp, value, None)
    except ValidationError:
        if copy is None:
            raise
    return _build(tp, copy(), path)


def _build(tp: Any, value: Any, path: str | None) -> Any:
    builder = _BUILDERS.get(tp)
    if builder is not None:
        return builder(value, path)
    item_builder = _BUILDERS[tp.__args__[0]]
    if type(value) is not list:
        raise ValidationError(f"Expected `array`, got `{type_name(value)}`", path=path)
    if path is None:
        return [item_builder(item, None) for item in value]
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


Problem = Callable[[Any], "str | None"]


def _checked(value: Any, path: str, problem: Problem | None) -> Any:
    """``value`` itself, after making sure ``problem`` finds nothing in it (EncodeError if so)."""
    if problem is not None:
        found = _values.find(value, problem, path)
        if found is not None:
            raise EncodeError(found[1], path=found[0])
    return value


def _lower_struct(obj: Struct, path: str, problem: Problem | None) -> dict[str, Any]:
    if type(obj) in (UnknownBlock, UnknownSource):
        data: dict[str, Any] = obj.data.to_dict()  # type: ignore[attr-defined]
        if not isinstance(data.get("type"), str):
            raise EncodeError("an unknown block or source needs a string 'type'", path=path)
        return _checked(data, path, problem)  # type: ignore[no-any-return]
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
        out[key] = lower(value, f"{path}.{key}", problem)
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
            out[key] = _checked(value, f"{path}.{key}", problem)
    return out


def lower(obj: Any, path: str = "$", problem: Problem | None = None) -> Any:
    """Return ``obj`` with every Struct that carries unknown data turned into a plain dict.

    ``problem`` (for JSON: `_values.json_problem`) is checked on the unknown data spread back in,
    which is the only generic data that reaches the encoder without passing a fast-path check.
    """
    if isinstance(obj, list):
        return [lower(item, f"{path}[{i}]", problem) for i, item in enumerate(obj)]
    if isinstance(obj, Struct) and _needs_lowering(obj):
        return _lower_struct(obj, path, problem)
    return obj
