"""`Extra`: the data minagent does not know, kept so it can be written back unchanged."""

from __future__ import annotations

from collections.abc import ItemsView, Iterator, Mapping
from typing import Any

__all__ = ["Extra", "MsgpackOnly"]


class Extra(Mapping[str, Any]):
    """A read-only mapping of wire keys this protocol does not name, with their values.

    It rides on known blocks, messages and responses (``.extra``) and holds the whole object of an
    :class:`~minagent.wire.UnknownBlock` (``.data``). Encoders write its keys back next to the
    known ones, exactly as they were. It is deliberately not a ``dict``: msgspec cannot encode it
    by itself, which is how the encoders notice, for free, that an object needs the lossless path.
    Anywhere else (a tool input, a value inside another Extra) it has no object to spread into,
    and the encoders refuse it with an EncodeError naming its path: use a ``dict`` there.
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any] | None = None, /, **keys: Any) -> None:
        self._data: dict[str, Any] = dict(data or {}, **keys)

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default`` (the dict's own lookup: the adapters ask for
        absent keys on every message, where `Mapping.get` would raise and catch a KeyError)."""
        return self._data.get(key, default)

    def items(self) -> ItemsView[str, Any]:
        """The keys and values (a view of the underlying dict)."""
        return self._data.items()

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Extra):
            return self._data == other._data
        if isinstance(other, Mapping):
            return self._data == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # unhashable, as a dict

    def __repr__(self) -> str:
        return f"Extra({self._data!r})"

    @classmethod
    def _own(cls, data: dict[str, Any]) -> Extra:
        """Wrap ``data`` without copying it (for dicts nobody else holds, fresh from a decode)."""
        extra = cls.__new__(cls)
        extra._data = data
        return extra

    def to_dict(self) -> dict[str, Any]:
        """Return a new plain ``dict`` with the same keys and values."""
        return dict(self._data)


class MsgpackOnly:
    """A value decoded from MessagePack that JSON cannot hold unchanged, inside a tool ``input``.

    MessagePack ``bin`` data, NaN and infinity, and maps with non-string keys can sit inside a
    tool's arguments on a MessagePack wire but have no faithful JSON spelling (msgspec alone would
    write base64 text, ``null`` and string keys). The MessagePack decoder wraps such values where
    it finds them, so that MessagePack writes them back exactly and JSON refuses them with an
    `EncodeError` naming their path, without walking every tool input on every encode.

    It compares equal to the value it wraps; ``.value`` is the value itself.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MsgpackOnly):
            other = other.value
        if self.value is other:
            return True
        result: bool = self.value == other
        return result

    __hash__ = None  # type: ignore[assignment]  # unhashable, as a dict

    def __repr__(self) -> str:
        return f"MsgpackOnly({self.value!r})"
