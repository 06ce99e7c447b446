"""`Limits`: how much untrusted input a decoder accepts before it refuses with `DecodeError`.

Every decoder (`minagent.wire.json.decode`, `minagent.wire.msgpack.decode`, the stream readers)
takes ``limits=`` and checks it before doing any work that the limit protects:

- ``max_size``: the whole input, in bytes (characters for a ``str``), checked before parsing.
- ``max_depth``: nesting of arrays and objects, the outermost one counting as 1. With the
  default the interpreter's own recursion guard enforces it for free on the fast path (msgspec
  stops there too); a smaller value costs one walk over the decoded values.
- ``max_frame``: the longest frame a framed MessagePack stream accepts; a length prefix
  claiming more is refused before anything is read or allocated for it.
- ``max_line``: the longest line a JSON Lines reader accepts, complete or still growing (the
  session log checks it on append too, so that what it writes it can read back).
- ``max_event``: the longest server-sent event (or JSON-array stream element) a provider stream
  reader accepts, complete or still arriving, its line ends included: a stream that never ends
  its event is refused once it buffered that much, not after it filled the memory.

A frame, a line or an event is one input: it is held to ``max_size`` too, so the longest frame a
reader takes is ``min(max_frame, max_size)``, the longest line ``min(max_line, max_size)`` and
the longest event ``min(max_event, max_size)``.

Change them per call, e.g. ``wire.json.decode(data, limits=Limits(max_size=1 << 20))``, or keep
one ``Limits`` for a service and pass it everywhere. ``dataclasses.replace(DEFAULT, ...)``
changes one figure and keeps the others.
"""

from __future__ import annotations

import dataclasses

__all__ = [
    "DEFAULT",
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_EVENT",
    "DEFAULT_MAX_FRAME",
    "DEFAULT_MAX_LINE",
    "DEFAULT_MAX_SIZE",
    "Limits",
]

DEFAULT_MAX_SIZE = 64 * 1024 * 1024
"""64 MiB: a long transcript with a few inline images fits; a runaway buffer does not."""

DEFAULT_MAX_DEPTH = 1000
"""Python's default recursion limit. A message needs 5 levels to reach a tool ``input``."""

DEFAULT_MAX_FRAME = 16 * 1024 * 1024
"""16 MiB: one message or response per frame, images included."""

DEFAULT_MAX_LINE = DEFAULT_MAX_SIZE
"""64 MiB: a JSON line holds one message, as large as any one input may be."""

DEFAULT_MAX_EVENT = 16 * 1024 * 1024
"""16 MiB: one stream event holds a delta, or at most one whole response (a Responses terminal
snapshot, a Gemini chunk with an inline image), as a frame does."""


@dataclasses.dataclass(frozen=True)
class Limits:
    """How much input a decoder accepts. All figures are positive integers."""

    max_size: int = DEFAULT_MAX_SIZE
    """Largest input accepted, in bytes (in characters for a ``str``)."""
    max_depth: int = DEFAULT_MAX_DEPTH
    """Deepest nesting of arrays and objects accepted; the outermost container is depth 1."""
    max_frame: int = DEFAULT_MAX_FRAME
    """Longest frame a framed MessagePack reader accepts, in bytes (the 4-byte prefix aside)."""
    max_line: int = DEFAULT_MAX_LINE
    """Longest line a JSON Lines reader accepts, in bytes (its newline aside)."""
    max_event: int = DEFAULT_MAX_EVENT
    """Longest server-sent event or JSON-array stream element a provider stream reader accepts,
    in bytes, line ends included (the empty line that closes an event aside)."""

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if type(value) is not int or value < 1:
                raise ValueError(f"Limits.{field.name} must be a positive int, got {value!r}")

    @property
    def frame_limit(self) -> int:
        """The longest frame a reader takes: ``min(max_frame, max_size)``."""
        return min(self.max_frame, self.max_size)

    @property
    def line_limit(self) -> int:
        """The longest line a reader (or the session log's ``append``) takes:
        ``min(max_line, max_size)``."""
        return min(self.max_line, self.max_size)

    @property
    def event_limit(self) -> int:
        """The longest event a provider stream reader takes: ``min(max_event, max_size)``."""
        return min(self.max_event, self.max_size)


DEFAULT = Limits()
"""The limits a decoder uses when it is given none."""
