"""NaN and infinity on the JSON encode path: refused, never written as ``null``.

msgspec writes a non-finite float as ``null``. Such floats can only reach the encoder inside
Structs built in Python (a decoded float is always finite, or wrapped in `MsgpackOnly`). Output
without ``null`` cannot hide one, so the JSON codec looks closer only when the bytes contain
``null`` (a byte search), and then walks only the fields that can hold floats: JSON-valued
fields, nested Structs and unknown data.
"""

from __future__ import annotations

from typing import Any

import msgspec.inspect as mi
from msgspec import Struct

from . import _values
from .blocks import KNOWN_BLOCKS, KNOWN_SOURCES, UnknownBlock, UnknownSource
from .errors import EncodeError
from .extra import Extra
from .messages import Message, ModelResponse

__all__ = ["refuse_nonfinite"]


def _may_hold_float(t: Any) -> bool:
    if isinstance(t, mi.UnionType):
        return any(_may_hold_float(u) for u in t.types)
    return isinstance(t, (mi.DictType, mi.ListType, mi.StructType, mi.CustomType, mi.FloatType))


def _float_fields(cls: type[Struct]) -> tuple[str, ...]:
    info: Any = mi.type_info(cls)
    return tuple(f.name for f in info.fields if _may_hold_float(f.type))


_FIELDS: dict[type, tuple[str, ...]] = {
    cls: _float_fields(cls)
    for cls in (Message, ModelResponse, *KNOWN_BLOCKS.values(), *KNOWN_SOURCES.values())
}
_FIELDS[UnknownBlock] = _FIELDS[UnknownSource] = ("data",)


def holds_nonfinite(obj: Any) -> bool:
    """Whether ``obj`` holds a NaN or infinite float anywhere JSON would write it."""
    stack = [obj]
    pop, push, extend = stack.pop, stack.append, stack.extend
    fields = _FIELDS
    while stack:
        item = pop()
        kind = type(item)
        if kind is float:
            if item - item != 0.0:
                return True
        elif kind is dict:
            extend(item.values())
        elif kind is list or kind is tuple:
            extend(item)
        elif kind is Extra:
            extend(item.values())
        else:
            names = fields.get(kind)
            if names is not None:
                for name in names:
                    push(getattr(item, name))
    return False


def _problem(value: Any) -> str | None:
    if type(value) is float and value - value != 0.0:
        return f"{value!r} cannot be written as JSON (it would become null)"
    return None


def refuse_nonfinite(obj: Any, out: bytes) -> None:
    """Raise `EncodeError` naming the path of a NaN or infinity in ``obj``, which msgspec wrote
    into ``out`` as ``null``; cheap when ``out`` holds no ``null``."""
    if b"null" not in out or not holds_nonfinite(obj):
        return
    found = _values.find(obj, _problem)
    path, reason = found if found is not None else (None, "NaN or infinity")
    raise EncodeError(f"cannot write JSON: {reason}", path=path)
