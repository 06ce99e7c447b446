"""`wire._fields` gives the same answers as ``msgspec.inspect``, without its 7 s import cost."""

from __future__ import annotations

import functools
from typing import Any

import msgspec.inspect as mi
import pytest
from msgspec import Struct

from minagent.wire import _fields
from minagent.wire.blocks import KNOWN_BLOCKS, KNOWN_SOURCES, UnknownBlock
from minagent.wire.messages import Message, ModelResponse

CLASSES: list[type[Struct]] = [
    Message,
    ModelResponse,
    *KNOWN_BLOCKS.values(),
    *KNOWN_SOURCES.values(),
]


@functools.cache
def _infos() -> dict[type[Struct], Any]:
    """msgspec.inspect's view of every class, in one pass, when a test first asks (0.5 s)."""
    return dict(zip(CLASSES, mi.multi_type_info(CLASSES), strict=True))


def _inspect_may_hold_float(t: Any) -> bool:
    if isinstance(t, mi.UnionType):
        return any(_inspect_may_hold_float(u) for u in t.types)
    return isinstance(t, (mi.DictType, mi.ListType, mi.StructType, mi.CustomType, mi.FloatType))


def _inspect_struct_types(t: Any) -> set[type[Struct]]:
    if isinstance(t, mi.StructType):
        return {t.cls}
    if isinstance(t, mi.UnionType):
        return set().union(*(_inspect_struct_types(u) for u in t.types))
    if isinstance(t, mi.ListType):
        return _inspect_struct_types(t.item_type)
    return set()


def _inspect_holds_json(t: Any) -> bool:
    if isinstance(t, mi.UnionType):
        return any(_inspect_holds_json(u) for u in t.types)
    return isinstance(t, (mi.DictType, mi.ListType))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_fields_and_their_kinds_match_msgspec_inspect(cls: type[Struct]) -> None:
    """Per class: the same fields, wire names, Struct types held, JSON and float answers."""
    ours = _fields.fields(cls)
    theirs = _infos()[cls].fields  # type: ignore[attr-defined]
    assert [(f.name, f.encode_name) for f in ours] == [(f.name, f.encode_name) for f in theirs]
    for mine, info in zip(ours, theirs, strict=True):
        assert _fields.struct_types(mine.type) == _inspect_struct_types(info.type), mine.name
        assert _fields.holds_json(mine.type) == _inspect_holds_json(info.type), mine.name
        assert _fields.may_hold_float(mine.type) == _inspect_may_hold_float(info.type), mine.name


def test_the_answers_are_not_all_alike() -> None:
    """The comparison above sees every answer both ways (so a constant answer would fail it)."""
    all_fields = [f for cls in CLASSES for f in _fields.fields(cls)]
    assert {bool(_fields.struct_types(f.type)) for f in all_fields} == {True, False}
    assert {_fields.holds_json(f.type) for f in all_fields} == {True, False}
    assert {_fields.may_hold_float(f.type) for f in all_fields} == {True, False}
    content = next(f for f in _fields.fields(Message) if f.name == "content")
    assert _fields.struct_types(content.type) == {*KNOWN_BLOCKS.values(), UnknownBlock}


def test_a_json_value_level_answers_as_its_union() -> None:
    """`blocks.JsonValue` (a NewType per level) answers as the union it stands for: a JSON
    container that may hold a float, no Struct inside."""
    from minagent.wire.blocks import JsonValue

    info = mi.type_info(JsonValue)
    assert isinstance(info, mi.UnionType)
    assert _fields.holds_json(JsonValue) is _inspect_holds_json(info) is True
    assert _fields.may_hold_float(JsonValue) is _inspect_may_hold_float(info) is True
    assert _fields.struct_types(JsonValue) == set()


def test_resolving_the_annotations_does_not_rewalk_the_json_value_union() -> None:
    """Each nesting level of `blocks.JsonValue` is a NewType, so ``typing`` resolving a
    ToolUseBlock's annotations stops at the first level instead of re-walking 2**8 branches
    (0.3 s of every import of the codec); msgspec reads each level as its supertype."""
    import typing

    from minagent.wire.blocks import TYPED_LEVELS, JsonValue, ToolUseBlock

    levels, t = 0, JsonValue
    while isinstance(t, typing.NewType):
        levels += 1
        inner = [a for a in typing.get_args(t.__supertype__) if typing.get_origin(a) is list]
        t = typing.get_args(inner[0])[0]
    assert levels == TYPED_LEVELS
    hints = typing.get_type_hints(ToolUseBlock, include_extras=True)
    assert typing.get_args(hints["input"])[1] is JsonValue  # the same object, not a copy
