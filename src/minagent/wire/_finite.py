"""NaN and infinity on the JSON encode path: refused, never written as ``null``.

msgspec writes a non-finite float as ``null``. Such floats can only reach the encoder inside
Structs built in Python (a decoded float is always finite, or wrapped in `MsgpackOnly`). Output
without a ``null`` value cannot hide one, so a short JSON output (up to `SCAN_UP_TO` bytes) is
first searched for one (`writes_null`; the word in a text does not count). The closer look,
for a longer output or one holding ``null``, is a byte search too: msgspec writes every float
to MessagePack as a float64 (``0xcb`` and 8 big-endian bytes), and a NaN or an infinity has all
exponent bits set, so its encoding starts ``cb 7f f?`` or ``cb ff f?``. Only if those bytes
occur (or the object cannot be written as MessagePack) are the objects walked, to find the
path.

Why not less: every exact check needs a second pass over the objects, since msgspec 0.23 has
no option to refuse a non-finite float and writes ``None`` and NaN alike. The MessagePack
encode is the cheapest such pass (it runs in C; a Python walk over the messages and blocks
alone, collecting only the tool inputs, costs 50-80% of it on the benchmark transcripts), and
real traffic nearly always holds a ``null`` value (tool inputs' ``"since": null``, a text
block's ``"citations": null``), so the look runs on most encodes.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import msgspec
from msgspec import Struct

from . import _fields, _values
from .blocks import KNOWN_BLOCKS, KNOWN_SOURCES, UnknownBlock, UnknownSource
from .errors import EncodeError
from .extra import Extra, MsgpackOnly
from .messages import Message, ModelResponse

__all__ = ["holds_nonfinite", "may_hold_nonfinite", "refuse_nonfinite", "writes_null"]


def _float_fields(cls: type[Struct]) -> tuple[str, ...]:
    return tuple(f.name for f in _fields.fields(cls) if _fields.may_hold_float(f.type))


_FIELDS: dict[type, tuple[str, ...]] = {}
_FIELDS_ANY: dict[type, tuple[str, ...]] = {}
"""Empty: with ``every_field`` each Struct's fields come from its ``__struct_fields__``."""


def _float_field_table() -> dict[type, tuple[str, ...]]:
    """The fields of each protocol Struct that may hold a float (built on first use: reading
    every Struct's field types is a few milliseconds that importing the codec need not pay)."""
    if not _FIELDS:
        classes: list[type[Struct]] = [
            Message,
            ModelResponse,
            *KNOWN_BLOCKS.values(),
            *KNOWN_SOURCES.values(),
        ]
        table = {cls: _float_fields(cls) for cls in classes}
        table[UnknownBlock] = table[UnknownSource] = ("data",)
        _FIELDS.update(table)
    return _FIELDS


def holds_nonfinite(obj: Any, every_field: bool = False) -> bool:
    """Whether ``obj`` holds a NaN or infinite float anywhere JSON would write it: in the
    fields typed to hold one, or with ``every_field`` in any field (a float assigned in Python
    to a field typed otherwise, say ``TextBlock.text``, which msgspec writes all the same)."""
    stack = [obj]
    pop, push, extend = stack.pop, stack.append, stack.extend
    fields = _FIELDS_ANY if every_field else _float_field_table()
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
            if names is None and every_field:
                names = getattr(kind, "__struct_fields__", None)
            if names is not None:
                for name in names:
                    push(getattr(item, name))
    return False


def _problem(value: Any) -> str | None:
    """The reason a non-finite float is refused: the same text as for one in unknown data or
    wrapped in `MsgpackOnly` (`_values.json_problem`), wherever it sits."""
    if type(value) is float and value - value != 0.0:
        return _values.json_problem(value)
    return None


FLOATLESS: set[type] = {MsgpackOnly}
"""Types the look writes as ``None``: they hold no float JSON would write (a `MsgpackOnly` is
refused or written apart; `minagent.providers._base` adds its spliced base64 text). Any other
type msgspec's MessagePack encoder does not know makes the look give way to the walk."""


def _as_builtin(value: Any) -> Any:
    if type(value) is Extra:
        return value._data
    if type(value) in FLOATLESS:
        return None
    raise NotImplementedError


_PACKER = msgspec.msgpack.Encoder(enc_hook=_as_builtin)
_NONFINITE_FLOAT64 = re.compile(rb"\xcb[\x7f\xff][\xf0-\xff]")

_KEEP = 8 << 20
"""Largest look buffer a thread keeps between encodes (a larger one is dropped after use)."""
_buffers = threading.local()


def may_hold_nonfinite(obj: Any) -> bool:
    """False only if ``obj`` surely holds no NaN or infinity (a MessagePack encode and a byte
    search, no Python walk).

    The encode goes into a buffer this thread keeps (up to `_KEEP` bytes): a fresh output
    each time, allocated while the caller's JSON output is alive, cost 2-5x the encode itself
    (the allocator handed out new, untouched pages every time: text-heavy transcripts of 300
    messages, 0.25 MB, measured 1.3 ms against 0.28 ms)."""
    buffer = _buffers.__dict__.get("look")
    if buffer is None:
        buffer = _buffers.look = bytearray()
    try:
        _PACKER.encode_into(obj, buffer)
    except Exception:  # e.g. an integer beyond 64 bits: look the slow way
        return True
    try:
        return _has_nonfinite_float64(buffer)
    finally:
        if len(buffer) > _KEEP:
            _buffers.look = bytearray()


def _has_nonfinite_float64(packed: bytes | bytearray) -> bool:
    """Whether ``packed`` holds ``cb 7f f?`` or ``cb ff f?``.

    Walks the ``0xcb`` bytes (every float64 is one) with ``find`` (memchr) while they are few,
    reading the two bytes after each as integers. Past a few, it walks the ``0x7f`` and ``0xff``
    bytes instead, which never occur in UTF-8 text (``0xff``) or hardly (``0x7f``, DEL) and in
    MessagePack framing only as the integers 127 and -1: tool inputs full of numbers then cost
    two memchr passes, not a Python step per float (300 tool-heavy messages: 2 us against 12).
    Where those are many too (binary data), the regex decides; a two-byte search or the regex
    alone cost 5-30x more on long text, since neither skips ahead to a rare first byte."""
    find = packed.find
    last = len(packed) - 3
    at = find(0xCB)
    for _ in range(8):
        if at < 0 or at > last:
            return False
        first = packed[at + 1]
        if (first == 0x7F or first == 0xFF) and packed[at + 2] >= 0xF0:
            return True
        at = find(0xCB, at + 1)
    if at < 0:
        return False
    for first in (0x7F, 0xFF):
        seen = find(first, at + 1)
        for _ in range(32):
            if seen < 0 or seen > last + 1:
                break
            if packed[seen - 1] == 0xCB and packed[seen + 1] >= 0xF0:
                return True
            seen = find(first, seen + 1)
        else:
            return _NONFINITE_FLOAT64.search(packed, at) is not None
    return False


def writes_null(out: bytes) -> bool:
    """Whether msgspec's JSON ``out`` may hold a ``null`` value (not only the word in a text).

    msgspec writes JSON without spaces, so a value is the whole output or follows ``:`` (a
    key), ``[`` or ``,`` (an array item); a ``null`` preceded by anything else sits inside a
    string. One pass at most: it stops at the first ``null`` value (four searches, one per
    pattern, each a whole pass on an output without one, cost 2x an encode of long text)."""
    find = out.find
    at = find(b"null")
    while at > 0:
        if out[at - 1] in _BEFORE_VALUE:
            return True
        at = find(b"null", at + 4)
    return at == 0


_BEFORE_VALUE = frozenset(b":,[")


SCAN_UP_TO = 8192
"""Longest JSON output searched for a ``null`` value before the MessagePack look. The search
runs at about 2 GB/s (CPython's ``bytes.find`` for a short needle; slower on non-ASCII text),
the look at the speed of msgspec's encoder: on a long output without a ``null`` the search
cost 2-7x the look (300 text-heavy messages: 116 us against 17 us), and on one with a ``null``
it only delays the look."""


def refuse_nonfinite(obj: Any, out: bytes) -> None:
    """Raise `EncodeError` naming the path of a NaN or infinity in ``obj``, which msgspec wrote
    into ``out`` as ``null``: for a short ``out`` without a ``null`` value (`writes_null`) a
    byte search, otherwise about one MessagePack encode (`may_hold_nonfinite`)."""
    if len(out) <= SCAN_UP_TO and not writes_null(out):
        return
    if not may_hold_nonfinite(obj):
        return
    if not holds_nonfinite(obj) and not holds_nonfinite(obj, every_field=True):
        return  # (the second walk only after the look saw a NaN's bytes the first did not find)
    found = _values.find(obj, _problem)
    path, reason = found if found is not None else (None, "NaN or infinity")
    raise EncodeError(f"cannot write JSON: {reason}", path=path)
