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

__all__ = ["build", "lower", "lower_located", "relocate", "type_name"]

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
    cls = type(obj)
    if cls is UnknownBlock or cls is UnknownSource or obj.extra is not UNSET:
        return True
    if cls is Message:
        content = obj.content
        return type(content) is list and any(map(_needs_lowering, content))
    if cls is ModelResponse:
        return _needs_lowering(obj.message)
    if cls is ImageBlock or cls is DocumentBlock:
        return _needs_lowering(obj.source)
    return False


Problem = Callable[[Any], "str | None"]


def _checked(value: Any, path: str | None, problem: Problem | None) -> Any:
    """``value`` itself, after making sure ``problem`` finds nothing in it (EncodeError if so)."""
    if problem is not None and _values.holds_json_unsafe(value):
        found = _values.find(value, problem, path or "$")
        if found is not None:
            raise EncodeError(found[1], path=found[0] if path is not None else None)
    return value


_NESTED_FIELDS = frozenset({"content", "source", "message"})
_LAYOUT: dict[type[Struct], tuple[str | None, list[tuple[str, str, bool]]]] = {
    cls: (
        cls.__struct_config__.tag if cls.__struct_config__.tag_field else None,  # type: ignore[misc]
        [
            (name, key, name in _NESTED_FIELDS)
            for name, key in zip(cls.__struct_fields__, cls.__struct_encode_fields__, strict=True)
            if name != "extra"
        ],
    )
    for cls in _STRUCTS
}
"""Per Struct class: its wire tag, and (attribute, wire key, may hold Structs) for each field."""


def _lower_struct(obj: Any, path: str | None, problem: Problem | None) -> dict[str, Any]:
    cls = type(obj)
    if cls is UnknownBlock or cls is UnknownSource:
        data: dict[str, Any] = obj.data.to_dict()
        if type(data.get("type")) is not str:
            raise EncodeError("an unknown block or source needs a string 'type'", path=path)
        return _checked(data, path, problem)  # type: ignore[no-any-return]
    tag, fields = _LAYOUT[cls]
    out: dict[str, Any] = {} if tag is None else {"type": tag}
    for name, key, nested in fields:
        value = getattr(obj, name)
        if value is UNSET:
            continue
        out[key] = lower(value, _at(path, "." + key), problem) if nested else value
    extra = obj.extra
    if extra is not UNSET:
        for key, value in extra.items():
            if type(key) is not str:
                raise EncodeError(f"extra keys must be strings, got {key!r}", path=path)
            if key in out:
                raise EncodeError(
                    f"extra key {key!r} collides with a field of {cls.__name__}",
                    path=_at(path, "." + key),
                )
            out[key] = _checked(value, _at(path, "." + key), problem)
    return out


def lower(obj: Any, path: str | None = "$", problem: Problem | None = None) -> Any:
    """Return ``obj`` with every Struct that carries unknown data turned into a plain dict.

    ``problem`` (for JSON: `_values.json_problem`) is checked on the unknown data spread back in,
    which is the only generic data that reaches the encoder without passing a fast-path check.
    With ``path=None`` no paths are built; `lower_located` re-runs with paths on an error.
    """
    cls = type(obj)
    if cls is list:
        if path is None:
            return [lower(item, None, problem) for item in obj]
        return [lower(item, f"{path}[{i}]", problem) for i, item in enumerate(obj)]
    if cls in _LOWERABLE and _needs_lowering(obj):
        return _lower_struct(obj, path, problem)
    return obj


def lower_located(obj: Any, path: str, problem: Problem | None) -> Any:
    """`lower` without building paths, and again with them only if it raises."""
    try:
        return lower(obj, None, problem)
    except EncodeError:
        return lower(obj, path, problem)


_LOWERABLE = frozenset({*_STRUCTS, UnknownBlock, UnknownSource})
