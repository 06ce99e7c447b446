"""The fields of the protocol's Structs and what their types can hold, read from annotations.

The lossless builder and the NaN check need, per Struct class, each field's wire name and a
shallow answer about its type: which Struct classes it holds, whether it holds JSON containers,
whether a float can sit in it. ``msgspec.inspect`` answers the same questions, but it expands
every type in full, and `blocks.JsonValue` is a union nested `blocks.TYPED_LEVELS` deep with two
branches per level: importing the codec through it took 7 s. Here each annotation is evaluated
once in its module (no recursive re-evaluation) and only the levels asked about are visited.
``tests/test_fields.py`` checks every answer against ``msgspec.inspect``.
"""

from __future__ import annotations

import inspect
import types
import typing
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union

import msgspec
from msgspec import Struct, UnsetType

__all__ = ["Field", "fields", "holds_json", "may_hold_float", "struct_types"]


@dataclass(frozen=True)
class Field:
    """One field of a Struct: attribute name, wire name, evaluated annotation."""

    name: str
    encode_name: str
    type: Any


def _annotations(cls: type[Struct]) -> dict[str, Any]:
    """Evaluated annotations of ``cls`` and its bases (a nearer class wins)."""
    result: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        result.update(inspect.get_annotations(klass, eval_str=True))
    return result


def fields(cls: type[Struct]) -> tuple[Field, ...]:
    """The fields of ``cls`` in declaration order, as msgspec encodes them."""
    hints = _annotations(cls)
    names = zip(cls.__struct_fields__, cls.__struct_encode_fields__, strict=True)
    return tuple(Field(name, encode_name, hints[name]) for name, encode_name in names)


def _members(t: Any) -> tuple[Any, ...]:
    """``t`` with ``Annotated`` and ``NewType`` stripped and unions flattened (one level)."""
    while typing.get_origin(t) is Annotated or isinstance(t, typing.NewType):
        t = t.__supertype__ if isinstance(t, typing.NewType) else typing.get_args(t)[0]
    origin = typing.get_origin(t)
    if origin is Union or origin is types.UnionType:
        out: list[Any] = []
        for arg in typing.get_args(t):
            out.extend(_members(arg))
        return tuple(out)
    return (t,)


def _is_struct(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, Struct)


_NOT_FLOAT = frozenset({str, int, bool, bytes, bytearray, type(None), UnsetType, msgspec.Raw})


def may_hold_float(t: Any) -> bool:
    """Whether a value of type ``t`` can be or contain a float written by msgspec's encoder:
    a float, a container, a Struct, or a class msgspec only knows through hooks."""
    for member in _members(t):
        origin = typing.get_origin(member)
        if origin in (list, dict) or member in (list, dict) or member is float:
            return True
        if origin is Literal or member is Any or member in _NOT_FLOAT:
            continue
        if isinstance(member, type):  # a Struct, or a custom class (the hooks decide)
            return True
    return False


def struct_types(t: Any) -> set[type[Struct]]:
    """The Struct classes ``t`` holds directly or as the items of a list."""
    found: set[type[Struct]] = set()
    for member in _members(t):
        if _is_struct(member):
            found.add(member)
        elif typing.get_origin(member) is list:
            found |= struct_types(typing.get_args(member)[0])
    return found


def holds_json(t: Any) -> bool:
    """Whether ``t`` holds JSON containers (a dict or a list)."""
    return any(
        typing.get_origin(member) in (list, dict) or member in (list, dict)
        for member in _members(t)
    )
