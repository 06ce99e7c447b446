"""The exceptions of the wire codec. Callers catch these, never msgspec's or the standard library's.

::

    ValueError
    └── WireError            base of everything minagent.wire raises
        ├── DecodeError      the bytes are not valid JSON / MessagePack (or break a limit)
        ├── ValidationError  well-formed bytes of the wrong shape; ``.path`` says where
        └── EncodeError      the object cannot be written without changing it

Every error carries where it happened: ``.path`` (a JSON path such as ``$[3].content[0].type``),
and, for streams, ``.line`` (1-based line number) or ``.frame`` (0-based frame index).
"""

from __future__ import annotations

__all__ = ["DecodeError", "EncodeError", "ValidationError", "WireError"]


class WireError(ValueError):
    """Base of every error minagent.wire raises; a ValueError."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        line: int | None = None,
        frame: int | None = None,
    ) -> None:
        self.message = message
        self.path = path
        self.line = line
        self.frame = frame
        where = []
        if line is not None:
            where.append(f"line {line}")
        if frame is not None:
            where.append(f"frame {frame}")
        if path is not None:
            where.append(f"at {path}")
        super().__init__(f"{message} ({', '.join(where)})" if where else message)

    def located(self, *, line: int | None = None, frame: int | None = None) -> WireError:
        """Return a copy of this error that also names a line or frame (for stream readers)."""
        err = type(self)(
            self.message,
            path=self.path,
            line=self.line if line is None else line,
            frame=self.frame if frame is None else frame,
        )
        err.__cause__ = self.__cause__
        return err


class DecodeError(WireError):
    """The input is not valid JSON / MessagePack, breaks a limit, or holds invalid text."""


class ValidationError(WireError):
    """The input is well-formed but does not have the protocol's shape; ``.path`` says where."""


class EncodeError(WireError):
    """The object cannot be written in the target format without silently changing it."""
