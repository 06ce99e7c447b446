"""The exceptions of the wire codec. Callers catch these, never msgspec's or the standard library's.

::

    ValueError
    └── WireError            base of everything minagent.wire raises
        ├── DecodeError      the bytes are not valid JSON / MessagePack (or break a limit)
        ├── ValidationError  well-formed bytes of the wrong shape; ``.path`` says where
        ├── EncodeError      the object cannot be written without changing it
        └── DeadLetterError  Redis refused to move a poison entry aside; it stays pending

Every error carries where it happened: ``.path`` (a JSON path such as ``$[3].content[0].type``),
and, for streams, ``.line`` (1-based line number) or ``.frame`` (0-based frame index).
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

__all__ = ["DeadLetterError", "DecodeError", "EncodeError", "ValidationError", "WireError"]

_E = TypeVar("_E", bound="WireError")


class WireError(ValueError):
    """Base of every error minagent.wire raises; a ValueError.

    Everything an error carries goes in through the constructor: the message, where
    (``path``, ``line``, ``frame``), the ``cause`` (set as ``__cause__``) and, for subclasses,
    the extra fields they name in ``_fields``.
    """

    _fields: ClassVar[tuple[str, ...]] = ()
    """Names of a subclass's extra keyword arguments, kept by `located`."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        frame: int | None = None,
        cause: BaseException | None = None,
        **fields: Any,
    ) -> None:
        unknown = fields.keys() - set(self._fields)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {sorted(unknown)[0]!r}")
        self.message = message
        self.path = path
        self.line = line
        self.frame = frame
        for name in self._fields:
            setattr(self, name, fields.get(name))
        where = []
        if line is not None:
            where.append(f"line {line}")
        if frame is not None:
            where.append(f"frame {frame}")
        if path is not None:
            where.append(f"at {path}")
        super().__init__(f"{message} ({', '.join(where)})" if where else message)
        if cause is not None:
            self.__cause__ = cause

    def located(
        self: _E,
        *,
        path: str | None = None,
        line: int | None = None,
        frame: int | None = None,
    ) -> _E:
        """A copy of this error (same class, fields and cause) that also names ``path``,
        ``line`` or ``frame``; what is not given stays as it was. The one way errors move."""
        return type(self)(
            self.message,
            path=self.path if path is None else path,
            line=self.line if line is None else line,
            frame=self.frame if frame is None else frame,
            cause=self.__cause__,
            **{name: getattr(self, name) for name in self._fields},
        )

    def under(self: _E, base: str) -> _E:
        """A copy with its path moved under ``base``: ``$.content`` under ``$[3]`` is
        ``$[3].content`` (an error without a path is at ``base``)."""
        return self.located(path=base if self.path is None else base + self.path[1:])


class DecodeError(WireError):
    """The input is not valid JSON / MessagePack, breaks a limit, or holds invalid text."""


class ValidationError(WireError):
    """The input is well-formed but does not have the protocol's shape; ``.path`` says where."""


class EncodeError(WireError):
    """The object cannot be written in the target format without silently changing it."""


class DeadLetterError(WireError):
    """A Redis consumer could not move a poison entry to its dead-letter stream: the server
    refused the write (the key holds another type, memory is full, ...). That entry and the
    ones read with it stay pending, unacknowledged; the next read tries them again.

    ``.entry_id`` is the poison entry's id, ``.dead_letter`` the dead-letter stream's key.
    """

    _fields = ("entry_id", "dead_letter")
    entry_id: str | None
    dead_letter: str | None
