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

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec
from msgspec import UNSET, Struct

from . import _fields, _values
from ._paths import relocate
from .blocks import (
    EXTRA_KEY,
    KNOWN_BLOCKS,
    KNOWN_SOURCES,
    ContentBlock,
    UnknownBlock,
    UnknownSource,
)
from .errors import EncodeError, ValidationError
from .extra import Extra, MsgpackOnly
from .messages import Message, ModelResponse

__all__ = ["build", "lower", "lower_located", "type_name"]

V = TypeVar("V")

_JSON_NAMES = {
    dict: "object",
    list: "array",
    str: "str",
    int: "int",
    float: "float",
    bool: "bool",
    type(None): "null",
    bytes: "bytes",
    msgspec.msgpack.Ext: "ext",
}


def type_name(value: object) -> str:
    """The wire name of a decoded value's type, as msgspec spells it in its messages."""
    return _JSON_NAMES.get(type(value), type(value).__name__)


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
_ATTRS: dict[type[Struct], dict[str, str]] = {
    cls: dict(zip(cls.__struct_encode_fields__, cls.__struct_fields__, strict=True))
    for cls in _STRUCTS
}

Builder = Callable[[Any, "str | None"], Any]
"""Builds a Struct from a decoded value. The path is None on the first, fast attempt; only if that
attempt fails is the value built again with paths, to name where the error is."""


def _at(path: str | None, suffix: str) -> str | None:
    return None if path is None else path + suffix


def _expect_object(value: Any, path: str | None) -> dict[str, Any]:
    if type(value) is not dict:
        raise ValidationError(f"Expected `object`, got `{type_name(value)}`", path=path)
    return value


def _object(cls: type[Struct], obj: dict[str, Any], path: str | None) -> Any:
    """Build ``cls`` from a dict: known keys through msgspec.convert, the rest into ``extra``.

    ``obj`` comes fresh from a schema-less decode and is owned here, so it is reused in place.
    Fields holding Structs are built first (`_NESTED`); JSON-valued fields holding values only
    MessagePack can hold are set aside, wrapped in `MsgpackOnly` (`_aside`).
    """
    keys = _KEYS[cls]
    extra: dict[str, Any] | None = None
    if not obj.keys() <= keys:
        extra = {k: v for k, v in obj.items() if k not in keys}
        obj = {k: v for k, v in obj.items() if k in keys}
    for key, builder in _NESTED[cls].items():
        if key in obj:
            obj[key] = builder(obj[key], _at(path, "." + key))
    aside: dict[str, Any] | None = None
    for key in _JSON_FIELDS[cls]:
        value = obj.get(key)
        if type(value) is dict or type(value) is list:
            aside = aside or {}
            aside[key] = _aside(cls, key, value, _at(path, "." + key))
            obj[key] = type(value)()
    try:
        result = msgspec.convert(obj, cls)
    except msgspec.ValidationError as err:
        # No ``[...]`` step to name here: every dict-valued field is a JSON field, set aside.
        raise relocate(err, path or "$") from None
    if aside:
        for key, value in aside.items():
            setattr(result, _ATTRS[cls][key], value)
    if extra:
        result.extra = Extra._own(extra)  # type: ignore[attr-defined]  # set only with an extra field
    return result


def _aside(cls: type[Struct], key: str, value: Any, path: str | None) -> Any:
    """A JSON-valued field, kept out of msgspec.convert (which cannot take values nested deeper
    than the typed levels): values JSON cannot hold (MessagePack ``bin``, NaN, infinity,
    non-string keys) are wrapped in `MsgpackOnly` in place, and the field's outer shape (its top
    two levels) is checked against its type."""
    if type(value) is dict:
        for k in value:
            if type(k) is not str:
                raise ValidationError(f"Expected `str` object keys, got {k!r}", path=path)
    if _values.holds_json_unsafe(value):
        _values.wrap(value)
    outline, field_type = {key: _outline(value)}, _FIELD_TYPES[cls][key]
    try:
        msgspec.convert(outline, field_type)
    except msgspec.ValidationError as err:  # its path starts at the field's key: drop that
        base = (path or "$.")[: -len(key) - 1] or "$"
        raise relocate(
            err, base, outline, functools.partial(msgspec.convert, type=field_type)
        ) from None
    return value


def _outline(value: Any, depth: int = 0) -> Any:
    """The top two levels of a JSON value, containers below emptied and `MsgpackOnly` / ext
    values as ``None``: enough to check a JSON field's declared outer shape."""
    kind = type(value)
    if kind is MsgpackOnly or kind is msgspec.msgpack.Ext:
        return None
    if kind is dict:
        return {k: _outline(v, depth + 1) for k, v in value.items()} if depth == 0 else {}
    if kind is list:
        return [_outline(v, depth + 1) for v in value] if depth == 0 else []
    return value


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
    return _object(cls, obj, path)


def _block(value: Any, path: str | None) -> Any:
    obj = _expect_object(value, path)
    cls = KNOWN_BLOCKS.get(_tag(obj, path))
    if cls is None:
        return UnknownBlock(Extra._own(obj))
    return _object(cls, obj, path)


def _content(value: Any, path: str | None) -> Any:
    if type(value) is not list:
        return value  # msgspec.convert reports anything that is not a string
    if path is None:
        return [_block(item, None) for item in value]
    return [_block(item, f"{path}[{i}]") for i, item in enumerate(value)]


def _message(value: Any, path: str | None) -> Message:
    obj = _expect_object(value, path)
    result: Message = _object(Message, obj, path)
    return result


def _response(value: Any, path: str | None) -> ModelResponse:
    obj = _expect_object(value, path)
    result: ModelResponse = _object(ModelResponse, obj, path)
    return result


def _nested_builder(held: set[type[Struct]]) -> Builder:
    if Message in held:
        return _message
    if KNOWN_BLOCKS["text"] in held:
        return _content
    return _source


def _layout(cls: type[Struct]) -> tuple[dict[str, Builder], tuple[str, ...], dict[str, Any]]:
    """Per class: builders of its Struct-holding fields, its JSON-valued fields, field types
    (all by wire key)."""
    nested: dict[str, Builder] = {}
    json_fields: list[str] = []
    types: dict[str, Any] = {}
    for field in _fields.fields(cls):
        if field.name == "extra":
            continue
        held = _fields.struct_types(field.type)
        if held:
            nested[field.encode_name] = _nested_builder(held)
        elif _fields.holds_json(field.type):
            json_fields.append(field.encode_name)
            # A one-field Struct: msgspec caches the type info of Structs, not of bare unions.
            types[field.encode_name] = msgspec.defstruct(
                f"_{cls.__name__}_{field.name}", [(field.encode_name, field.type)]
            )
    return nested, tuple(json_fields), types


_BUILDERS: dict[Any, Builder] = {Message: _message, ModelResponse: _response, ContentBlock: _block}
_LAYOUTS = {cls: _layout(cls) for cls in _STRUCTS}
_NESTED: dict[type[Struct], dict[str, Builder]] = {c: v[0] for c, v in _LAYOUTS.items()}
_JSON_FIELDS: dict[type[Struct], tuple[str, ...]] = {c: v[1] for c, v in _LAYOUTS.items()}
_FIELD_TYPES: dict[type[Struct], dict[str, Any]] = {c: v[2] for c, v in _LAYOUTS.items()}
_NESTED_ATTRS: dict[type[Struct], tuple[str, ...]] = {
    cls: tuple(_ATTRS[cls][key] for key in _NESTED[cls]) for cls in _STRUCTS
}


def build(tp: Any, value: Any, path: str = "$", copy: Callable[[], Any] | None = None) -> Any:
    """Build ``tp`` (``Message``, ``ModelResponse``, a list of either, or one ``ContentBlock``)
    from a decoded value.

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
    for name in _NESTED_ATTRS[cls]:
        value = getattr(obj, name)
        if type(value) is list:
            if any(map(_needs_lowering, value)):
                return True
        elif isinstance(value, Struct) and _needs_lowering(value):
            return True
    return False


Problem = Callable[[Any], "str | None"]


def _checked(value: V, path: str | None, problem: Problem | None) -> V:
    """``value`` itself, after making sure ``problem`` finds nothing in it (EncodeError if so)."""
    if problem is not None and _values.holds_json_unsafe(value):
        found = _values.find(value, problem, path or "$")
        if found is not None:  # without a path, `lower_located` runs again to name the place
            raise EncodeError(found[1], path=found[0])
    return value


_LAYOUT: dict[type[Struct], tuple[str | None, list[tuple[str, str, bool]]]] = {
    cls: (
        cls.__struct_config__.tag if cls.__struct_config__.tag_field else None,  # type: ignore[misc]  # str tags
        [
            (name, key, key in _NESTED[cls])
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
        return _checked(data, path, problem)
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


def lower(obj: Any, path: str | None, problem: Problem | None) -> Any:
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
