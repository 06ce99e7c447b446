"""One codec per format, shared by `minagent.wire.json` and `minagent.wire.msgpack`.

Decoding tries the strict fast path first: one msgspec call over the whole buffer straight into
Structs. Only if msgspec refuses the shape does the codec look closer: for a list it splits the
buffer into raw elements (tokenising only) and re-decodes them strictly, those before the odd one
in one call and the rest one call each (`_fallback.decode_list`). An element that still fails is
read block by block when only its blocks are odd (`Codec._blockwise`: its known blocks strictly,
the odd ones through the lossless builder), else whole through the lossless builder. So a
transcript with one odd block pays mostly for that block, and a genuinely malformed one is
reported with its full path.

Limits (`minagent.wire.limits`) are checked where they cost nothing: the input size before
parsing; the nesting depth by the recursion guard msgspec shares with the interpreter, which on
CPython up to 3.11 never lets nesting reach ``sys.getrecursionlimit()`` (the default
``max_depth``). Elsewhere (a smaller ``max_depth``, or CPython 3.12+, whose C recursion limit is
separate) the typed shape bounds what a strict decode returns, the `Deep` hook measures the
values below it, and the lossless path measures each element it builds (`_hold_depth`); paths
are built only once a value is known to be too deep. On the lossless path, MessagePack that may
hold a timestamp is read by `_mpreader.read_msgpack` (msgspec would turn it into ``datetime``);
the strict path never meets one, since a timestamp fails every type it could sit in. A decode
msgspec could recurse through deeper than this thread's C stack holds runs on a thread whose
stack holds it (`_stack`).

Encoding writes everything with one msgspec call, whose recursion guard stops at the default
``max_depth`` (up to CPython 3.11 it is the recursion limit; from 3.12 the encoder caps the C
recursion count it draws on for the length of the call, `_depth.encode_budget`, or where it
cannot, measures its output); when the guard stops it, a value nested past ``max_depth`` is
refused with the path of the first container past it (what decoding would refuse), anything
else is written again with the guard as it was (up to CPython 3.11: with headroom).
An `Extra` anywhere stops that call (msgspec cannot encode it and asks our hook, which signals
the lossless path); the object is then written again in chunks, lowering to dicts only the
elements that carry unknown data. A `MsgpackOnly` value is unwrapped by the MessagePack hook
and refused, with its path, by the JSON one.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import re
import sys
import threading
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any, TypeVar

import msgspec

from . import _depth, _fallback, _fields, _finite, _lossless, _mpreader, _paths, _stack, _values
from ._malformed import MALFORMED
from .blocks import EXTRA_KEY, TYPED_LEVELS, ContentBlock, Deep
from .errors import DecodeError, EncodeError, ValidationError, WireError
from .extra import Extra, MsgpackOnly
from .limits import DEFAULT, Limits
from .messages import Message, ModelResponse

__all__ = ["DECODABLE", "JSON", "MSGPACK", "Codec", "batch_check", "guard_covers"]

_FLOATS_AS_PARSED = msgspec.json.Decoder(float_hook=float)  # 1e400 -> inf, to find it
_LONE_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")

DECODABLE: tuple[Any, ...] = (list[Message], Message, ModelResponse, list[ModelResponse])
"""The types ``decode`` accepts for ``type=``."""
_LISTS = (list[Message], list[ModelResponse])


_build_lock = threading.Lock()

_LAZY_TYPES: set[type] = set()
"""`LazyMessage` and `LazyMessages` once `minagent.wire.lazy` is imported (it adds them): until
then no object can be lazy, and the codec does not import that module."""


_budgets = threading.local()


def _budget_here() -> tuple[Any, int] | None:
    """`_depth.encode_budget` for this thread (CPython 3.12+), kept per thread; None up to
    3.11 (the guard is the recursion limit), where it is not found, or where this thread's
    stack cannot hold ``max_depth`` levels of msgspec (encodes then run on `_stack`'s worker,
    which has one)."""
    found = None if _GUARD_BEFORE_3_12 else _depth.encode_budget()
    if found is not None and _stack.room_here() < DEFAULT.max_depth:
        found = None
    _budgets.found = found
    return found


def encode_budget() -> tuple[Any, int] | None:
    """This thread's capped C recursion budget for msgspec's encoder (`_budget_here`, cached per
    thread): ``(cell, count)``, or None where the guard is the recursion limit (up to 3.11) or
    no count was found. Set ``cell[0] = count`` (only lower it) for one encode, and restore it."""
    try:
        found: tuple[Any, int] | None = _budgets.found  # (set by `_budget_here`)
        return found
    except AttributeError:
        return _budget_here()


T = TypeVar("T")


def run_capped(budget: tuple[Any, int], call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``call(*args, **kwargs)`` with this thread's C recursion count (`encode_budget`) lowered
    to the budget's count for the call (never raised), and restored however it ends."""
    cell, count = budget
    before = cell[0]
    if before > count:
        cell[0] = count
    try:
        return call(*args, **kwargs)
    finally:
        cell[0] = before


def _lazy_encode(codec: Codec, obj: Any, canonical: bool) -> bytes:
    """`minagent.wire.lazy.encode` (that module is imported on first use)."""
    from .lazy import encode

    return encode(codec, obj, canonical)


def _holds_lazy(obj: Any) -> bool:
    """`minagent.wire.lazy.holds_lazy` (that module is imported on first use)."""
    from .lazy import holds_lazy

    return holds_lazy(obj)


class _NeedsLossless(Exception):
    """Raised by the encode hook when msgspec meets an `Extra`."""


class _WithinLimit(Exception):
    """Raised by `Codec._encode` when the lowered guard stopped a value that is not too deep."""


_MSGPACK_CONTAINER_BYTES = bytes(range(0x80, 0xA0)) + b"\xdc\xdd\xde\xdf"
"""First bytes of MessagePack map and array headers (fixmap, fixarray, array 16/32, map
16/32)."""


def _json_hook(obj: Any) -> Any:
    if type(obj) is Extra:
        raise _NeedsLossless
    if type(obj) is MsgpackOnly:
        raise TypeError("a MessagePack-only value cannot be written as JSON")
    raise NotImplementedError(f"Encoding objects of type {type(obj).__name__} is unsupported")


def _msgpack_hook(obj: Any) -> Any:
    if type(obj) is Extra:
        raise _NeedsLossless
    if type(obj) is MsgpackOnly:
        return obj.value
    raise NotImplementedError(f"Encoding objects of type {type(obj).__name__} is unsupported")


def _dec_hook(tp: Any, obj: Any) -> Any:
    if tp is Deep:  # a tool input value nested deeper than msgspec types it
        if _values.holds_json_unsafe(obj):
            raise ValueError("holds a value JSON cannot; read through the lossless path")
        deepest = getattr(_seen, "depth", None)
        if deepest is not None:  # a depth check is counting (see `_deep_checked`)
            _seen.depth = max(deepest, _depth.nesting(obj))
        return obj
    # Otherwise a payload itself uses a key or tag reserved for our own bookkeeping.
    raise ValueError("reserved by minagent; read through the lossless path")


_GUARD_BEFORE_3_12 = sys.version_info < (3, 12)
_recursion_limit = sys.getrecursionlimit

# Depth of the container holding a `Deep` value (where `blocks.TYPED_LEVELS` ends) in a decoded
# ``tp``: a lone Message's tool input sits at depth 4, its typed levels end at 4 + 8. Nothing a
# strict decode returns is deeper than this, except the Deep values, which the hook measures.
_TYPED_DEPTH = {
    Message: 4 + TYPED_LEVELS,
    list[Message]: 5 + TYPED_LEVELS,
    ModelResponse: 5 + TYPED_LEVELS,
    list[ModelResponse]: 6 + TYPED_LEVELS,
}
_seen = threading.local()
_headroom = threading.Lock()


def _with_headroom(levels: int, call: Callable[..., T], *args: Any) -> T:
    """``call(*args)`` with the recursion limit raised by ``levels`` (up to CPython 3.11 the
    guard msgspec uses counts the caller's frames too, so how deep a value may nest would
    depend on where it is decoded). Raises RecursionError at once if already raised here."""
    if getattr(_seen, "raised", False):
        raise RecursionError("nesting too deep even with headroom")
    if _recursion_limit() + levels > _stack.room_here():  # more than this stack holds
        elsewhere: T = _stack.elsewhere(_with_headroom, levels, call, *args)  # call's result
        return elsewhere
    with _headroom:
        before = _recursion_limit()
        sys.setrecursionlimit(before + levels)
        _seen.raised = True
        try:
            return call(*args)
        finally:
            _seen.raised = False
            sys.setrecursionlimit(before)


_PAUSE_GC_FROM = 1 << 20
_gc_lock = threading.Lock()
_gc_pauses = [0, False]  # decodes pausing the collector now; whether it was enabled before


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a large input is decoded.

    Decoded values hold no reference cycles, but every list or non-empty dict is tracked, and
    the collector's full passes over millions of them made dense inputs (``[[],[],...]``)
    decode 3-4x slower (bench/worst_case.py). Nested and concurrent pauses share one count;
    the collector is enabled again by the last one, and only if it was enabled before."""
    with _gc_lock:
        if _gc_pauses[0] == 0:
            _gc_pauses[1] = gc.isenabled()
            gc.disable()
        _gc_pauses[0] += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pauses[0] -= 1
            if _gc_pauses[0] == 0 and _gc_pauses[1]:
                gc.enable()


class _Recursion(Exception):
    """Internal: msgspec or our reader hit the interpreter's recursion guard at ``path``."""

    def __init__(self, path: str) -> None:
        self.path = path


def _deep_checked(
    call: Callable[[Any], Any], data: Any, tp: Any, limits: Limits
) -> tuple[Any, bool]:
    """``call(data)`` (a strict decode of ``tp``, or of lines of ``tp``), and whether its depth
    is surely within ``limits.max_depth``: false if a `Deep` value in it may nest deeper (the
    caller then finds the exact place by the slow way). Costs nothing unless the input holds
    Deep values."""
    _seen.depth = 0
    try:
        result = call(data)
        deepest = _seen.depth
    finally:
        del _seen.depth
    return result, _TYPED_DEPTH[tp] + deepest <= limits.max_depth


def batch_check(tp: Any, limits: Limits) -> Callable[[Callable[[Any], Any], Any], Any] | None:
    """How a caller running a strict msgspec decoder of ``tp`` itself (the JSON Lines batches)
    keeps ``limits.max_depth``: a function ``check(call, data)`` giving ``call(data)``, or None
    when that result may be too deep (decode that input through `Codec.decode` instead); or None
    if these limits need the codec for every input."""
    if guard_covers(limits):
        return _plain_call
    if limits.max_depth >= _TYPED_DEPTH[tp]:
        return functools.partial(_checked_call, tp=tp, limits=limits)
    return None


def _plain_call(call: Callable[[Any], Any], data: Any) -> Any:
    return _stack.run(call, _size(data), data)


def _checked_call(call: Callable[[Any], Any], data: Any, *, tp: Any, limits: Limits) -> Any:
    result, within = _stack.run(_deep_checked, _size(data), call, data, tp, limits)
    return result if within else None


def _size(data: Any) -> int:
    return data.nbytes if isinstance(data, memoryview) else len(data)


def guard_covers(limits: Limits) -> bool:
    """Whether msgspec's recursion guard alone refuses nesting beyond ``limits.max_depth``.

    Up to CPython 3.11, C code and Python frames share one recursion counter: a decode fails with
    RecursionError before nesting reaches the recursion limit, so a ``max_depth`` at or above it
    needs no walk over the decoded values.
    """
    return _GUARD_BEFORE_3_12 and limits.max_depth >= _recursion_limit()


@functools.lru_cache(maxsize=1)
def _message_shell() -> type[msgspec.Struct]:
    """`Message` with its blocks left as raw bytes (``content: str | list[Raw]``), for decoding
    an odd message block by block (`Codec._blockwise`); every other field as `Message` has it.
    Built on first use."""
    names, given = Message.__struct_fields__, Message.__struct_defaults__
    defaults = dict(zip(names[len(names) - len(given) :], given, strict=True))
    shell_fields: list[Any] = []
    for field in _fields.fields(Message):
        kind = str | list[msgspec.Raw] if field.name == "content" else field.type
        if field.name in defaults:
            shell_fields.append((field.name, kind, defaults[field.name]))
        else:
            shell_fields.append((field.name, kind))
    return msgspec.defstruct(
        "_MessageShell",
        shell_fields,
        forbid_unknown_fields=True,
        rename={"extra": EXTRA_KEY},
        gc=False,
    )


Reader = Callable[[Any, int], Any]


class Codec:
    """Encoders and decoders for one format, built once and reused.

    What differs between the formats is passed in, not derived from ``name`` (which is only
    for messages): ``text`` says the format is JSON text (arrays framed as ``[a,b]``, ``\\u``
    escapes that may be lone surrogates, msgspec paths that write object keys as ``[...]``);
    ``enc_hook`` is msgspec's hook for our own types; ``refused`` names the values the format
    cannot hold, checked while lowering unknown data (None: none beyond msgspec's own);
    ``unencodable`` locates the value behind an encoder error; ``special`` is a schema-less
    reader for the inputs the generic decoder would change (a predicate and the reader, which
    is given the nesting left and raises WireError for malformed input, `_mpreader.TooDeep` for
    nesting past it).
    """

    def __init__(
        self,
        module: ModuleType,
        name: str,
        *,
        text: bool,
        enc_hook: Callable[[Any], Any],
        refused: _lossless.Problem | None,
        unencodable: _lossless.Problem,
        special: tuple[Callable[[Any], bool], Reader] | None = None,
    ) -> None:
        self.name = name
        self._module = module
        self._text = text
        self._special = special
        self._built: dict[Any, Any] = {}
        self._raw_list = module.Decoder(list[msgspec.Raw])
        self._any = module.Decoder()
        self._fast = module.Encoder(enc_hook=enc_hook)
        self._canonical = module.Encoder(enc_hook=enc_hook, order="sorted")
        self._refused = refused
        self._unencodable = unencodable
        self._shells: tuple[Any, Any] | None = None

    @property
    def text(self) -> bool:
        """Whether the format is JSON text (arrays framed as ``[a,b]``) rather than binary."""
        return self._text

    @property
    def module(self) -> ModuleType:
        """The msgspec module of the format (``msgspec.json`` or ``msgspec.msgpack``)."""
        return self._module

    def encoder(self, canonical: bool) -> Any:
        """The msgspec encoder of the strict path (it raises on anything needing the lossless
        path or refused by the format; callers then fall back to `encode`)."""
        return self._canonical if canonical else self._fast

    # --- decoding -----------------------------------------------------------------------------

    def decoder_for(self, tp: Any) -> Any:
        """The strict msgspec decoder for ``tp``, built on first use (building one analyses the
        whole block union: most of what importing the codec used to cost); TypeError names the
        accepted types."""
        try:
            return self._built[tp]
        except KeyError:
            pass
        except TypeError:  # unhashable
            tp = None
        if tp not in DECODABLE:
            accepted = ", ".join(_type_repr(t) for t in DECODABLE)
            raise TypeError(f"type must be one of {accepted}; got {tp!r}")
        with _build_lock:
            found = self._built.get(tp)
            if found is None:
                found = self._built[tp] = self._module.Decoder(tp, dec_hook=_dec_hook)
        return found

    def decode(self, data: Any, tp: Any, limits: Limits = DEFAULT) -> Any:
        """Decode ``data`` as ``tp`` within ``limits``: fast path first, the lossless path on a
        shape mismatch. The result does not depend on how deep the caller's stack is."""
        decoder = self.decoder_for(tp)
        size = data.nbytes if isinstance(data, memoryview) else len(data)
        if size > limits.max_size:
            raise DecodeError(
                f"{self.name} input of {size} bytes is over the limit max_size={limits.max_size}",
                path="$",
            )
        if size > _stack.SHORT and not _stack.fits(size):  # msgspec could overflow this stack
            return _stack.elsewhere(self.decode, data, tp, limits)
        try:
            if size < _PAUSE_GC_FROM:
                return self._decode_once(decoder, data, tp, limits)
            with _gc_paused():
                return self._decode_once(decoder, data, tp, limits)
        except _Recursion as deep:
            if not _GUARD_BEFORE_3_12:
                raise self._too_deep(limits, deep.path) from None
        # The guard counts the caller's frames too: try again with room for max_depth levels.
        # The limit is then above max_depth, so `_decode_once` holds the result to it itself.
        try:
            return _with_headroom(
                limits.max_depth + 64, self._decode_once, decoder, data, tp, limits
            )
        except (_Recursion, RecursionError) as deep:
            raise self._too_deep(limits, getattr(deep, "path", "$")) from None

    def _decode_once(self, decoder: Any, data: Any, tp: Any, limits: Limits) -> Any:
        within = guard_covers(limits)
        counting = not within and limits.max_depth >= _TYPED_DEPTH[tp]
        try:
            if counting:
                result, within = _deep_checked(decoder.decode, data, tp, limits)
            else:
                result = decoder.decode(data)
        except msgspec.ValidationError as err:
            first_bad = _fallback.first_index(err)

            def slow(data: Any) -> Any:
                return self._decode_slow(data, tp, limits, first_bad)

            if counting:  # the hook measures strict chunks, `_value` each element built
                result, within = _deep_checked(slow, data, tp, limits)
            else:
                result = slow(data)
        except MALFORMED as err:
            raise self._malformed(err, data, tp) from None
        except RecursionError:
            raise _Recursion("$") from None
        except TypeError as err:  # wrong argument type, e.g. a list instead of bytes
            raise TypeError(f"data must be bytes, bytearray or memoryview: {err}") from None
        if not within:
            where = _depth.too_deep(result, limits.max_depth)
            if where is not None:
                raise self._too_deep(limits, where)
        return result

    def _too_deep(self, limits: Limits, path: str) -> DecodeError:
        return DecodeError(
            f"invalid {self.name}: nesting deeper than max_depth={limits.max_depth} "
            "or the interpreter's recursion limit",
            path=path,
        )

    def _malformed(self, err: Exception, data: Any, tp: Any) -> DecodeError:
        """Our error for a strict decode refusing malformed ``data``: at the element of a list
        that holds the fault when the list splits into elements (bad UTF-8 inside a string,
        which the split does not check), else at ``$``."""
        if tp in _LISTS:
            try:
                raws = self._raw_list.decode(data)
            except (*MALFORMED, RecursionError):
                pass
            else:
                found = self._malformed_element(raws, 0, len(raws))
                if found is not None:
                    return found
        return self.decode_error(err, data)

    def _malformed_element(self, raws: list[Any], start: int, stop: int) -> DecodeError | None:
        """Our error for the first of ``raws[start:stop]`` msgspec refuses as malformed, at
        ``$[i]``; None if each of them decodes."""
        for i in range(start, stop):
            try:
                self._any.decode(raws[i])
            except MALFORMED as inner:
                return self.decode_error(inner, raws[i], f"$[{i}]")
        return None

    def decode_error(self, err: Exception, data: Any, path: str = "$") -> DecodeError:
        """Our error for msgspec's refusal of malformed ``data`` (any msgspec version)."""
        if isinstance(err, UnicodeError):  # msgspec < 0.23, or a str with a lone surrogate
            text = "Invalid UTF-8 encoded string"
        elif isinstance(err, TypeError):  # msgspec < 0.23
            text = f"{self.name} data is malformed: map keys must be hashable"
        else:
            text = str(err)
        if self._text and "truncated" in text and _LONE_SURROGATE.search(_as_bytes(data)):
            text = "a \\u escape is a lone surrogate (not valid Unicode), or the input is truncated"
        return DecodeError(f"invalid {self.name}: {text}", path=path)

    def _generic(self, data: Any, path: str) -> Any:
        try:
            return self._any.decode(data)
        except msgspec.ValidationError as err:  # valid syntax, a value we cannot hold (1e400)
            raise self._locate(err, data, path) from None
        except MALFORMED as err:
            raise self.decode_error(err, data, path) from None
        except RecursionError:
            raise _Recursion(path) from None
        except TypeError as err:  # msgspec < 0.23: an unhashable map key (an ext, an array)
            raise self.decode_error(err, data, path) from None

    def _locate(self, err: msgspec.ValidationError, data: Any, path: str) -> ValidationError:
        """Our error for a value msgspec cannot hold, with object keys in its path (msgspec
        writes ``[...]`` for them; a second decode, on this error path only, turns ``1e400``
        into infinity, which `_values.find_nonfinite` then locates in one quick pass)."""
        found = _paths.relocate(err, path)
        if not self._text or "[...]" not in str(found.path):
            return found
        try:
            value = _FLOATS_AS_PARSED.decode(data)
        except (msgspec.DecodeError, RecursionError):
            return found
        where = _values.find_nonfinite(value, path)
        return found if where is None else ValidationError(found.message, path=where)

    def _value(self, data: Any, limits: Limits, path: str = "$", nested: int = 0) -> Any:
        """Schema-less decode of ``data`` (the whole input, or one element ``nested`` deep), for
        the lossless builder. MessagePack that may hold a timestamp goes through the format's
        own reader (msgspec would turn it into a lossy ``datetime``); the strict fast path never
        needs that: a timestamp fails every type it could meet there."""
        special = self._special
        if special is None or not special[0](memoryview(data)):
            value = self._generic(data, path)
            if (
                getattr(_seen, "depth", None) is not None
                and nested + _size(data) > limits.max_depth
            ):
                self._hold_depth(value, limits, path, nested)  # (a level takes a byte at least)
            return value
        try:
            return special[1](data, limits.max_depth - nested)
        except _mpreader.TooDeep as deep:
            raise self._too_deep(limits, path + deep.path[1:]) from None
        except WireError as err:
            raise err.under(path) from None

    def _hold_depth(self, value: Any, limits: Limits, path: str, nested: int) -> None:
        """Refuse a schema-less ``value`` (``nested`` containers deep) that nests past
        ``limits.max_depth``: one quick measure, and paths built only past the limit."""
        if nested + _depth.nesting(value) > limits.max_depth:
            where = _depth.too_deep(value, limits.max_depth, nested, path)
            raise self._too_deep(limits, path if where is None else where)

    def _decode_slow(self, data: Any, tp: Any, limits: Limits, first_bad: int | None) -> Any:
        def again() -> Any:
            return self._value(data, limits)

        if tp not in _LISTS:
            found = self._blockwise(data, limits, "$", 0) if tp is Message else None
            return found if found is not None else _lossless.build(tp, again(), copy=again)
        try:
            raws = self._raw_list.decode(data)
        except (msgspec.ValidationError, RecursionError):
            return _lossless.build(tp, again(), copy=again)  # not an array: report it
        except MALFORMED as err:
            raise self.decode_error(err, data) from None
        return self._decode_list(raws, tp, limits, first_bad)

    def _decode_list(
        self,
        raws: list[Any],
        tp: Any,
        limits: Limits,
        first_bad: int | None,
    ) -> list[Any]:
        item_tp = tp.__args__[0]
        strict_list = self.decoder_for(tp)

        def decode_chunk(framed: bytes, start: int, stop: int) -> list[Any]:
            try:
                result: list[Any] = strict_list.decode(framed)
                return result
            except MALFORMED as err:
                if isinstance(err, msgspec.ValidationError):
                    raise
                # The split only tokenises; UTF-8 is checked here. Name the element.
                found = self._malformed_element(raws, start, stop)
                raise (found or self.decode_error(err, framed)) from None
            except RecursionError:
                raise _Recursion(f"$[{start}]") from None

        def fail(err: Exception, i: int) -> Exception:
            if isinstance(err, RecursionError):
                return _Recursion(f"$[{i}]")
            if isinstance(err, MALFORMED):  # the split does not check UTF-8: name the element
                return self._malformed_element(raws, i, i + 1) or self.decode_error(
                    err, raws[i], f"$[{i}]"
                )
            return err

        def decode_odd(i: int) -> Any:
            path = f"$[{i}]"
            if item_tp is Message:
                found = self._blockwise(raws[i], limits, path, 1)
                if found is not None:
                    return found
            again = functools.partial(self._value, raws[i], limits, path, 1)
            return _lossless.build(item_tp, again(), path, copy=again)

        return _fallback.decode_list(
            raws,
            decode_chunk,
            self.decoder_for(item_tp).decode,
            decode_odd,
            fail,
            self._text,
            first_bad,
        )

    def _blockwise(self, raw: Any, limits: Limits, path: str, nested: int) -> Message | None:
        """The message in ``raw`` (at ``path``, inside ``nested`` containers: 1 for an element
        of a list, 0 for a lone message) with its known blocks decoded strictly and only its
        odd blocks through the lossless builder; None when the message itself holds what the
        strict decode refuses (an unknown key, a wrong value outside its blocks), or on any
        error, which the whole-message lossless path then reports.

        An unknown block in a message of a dozen known ones no longer sends the dozen through
        the lossless builder (a schema-less decode, then msgspec.convert per block)."""
        shells = self._shells
        if shells is None:
            shells = self._shells = (
                self._module.Decoder(_message_shell(), dec_hook=_dec_hook),
                self._module.Decoder(ContentBlock, dec_hook=_dec_hook),
            )
        shell_decoder, block_decoder = shells
        try:
            shell = shell_decoder.decode(raw)
        except (*MALFORMED, RecursionError):
            return None
        content = shell.content
        if type(content) is not list:
            return None
        blocks: list[Any] = []
        for j, raw_block in enumerate(content):
            try:
                blocks.append(block_decoder.decode(raw_block))
                continue
            except msgspec.ValidationError:
                pass
            except (*MALFORMED, RecursionError):
                return None
            at = f"{path}.content[{j}]"
            again = functools.partial(self._value, raw_block, limits, at, nested + 2)
            try:
                blocks.append(_lossless.build(ContentBlock, again(), at, copy=again))
            except (WireError, _Recursion):
                return None
        shell.content = blocks
        return Message(*msgspec.structs.astuple(shell))  # the shell has Message's field order

    # --- encoding -----------------------------------------------------------------------------

    def encode(self, obj: Any, canonical: bool) -> bytes:
        """Encode ``obj``: one msgspec call, or the lossless path when it meets an `Extra`.

        A value nested deeper than the default ``max_depth`` (what decoding refuses) is refused
        with the path of the first container past it: by msgspec's own recursion guard, capped
        there, or where nothing caps it (`_depth.encode_budget`) by `_refuse_deep_output`. JSON
        refuses NaN and infinity (msgspec would write ``null``): a short output without a ``null``
        value needs only a byte search, any other one MessagePack look (`_finite`). Lazy
        messages (`minagent.wire.lazy`) are written by `lazy.encode`."""
        if type(obj) in _LAZY_TYPES:
            return _lazy_encode(self, obj, canonical)
        budget = encode_budget()
        if budget is not None:
            # msgspec's guard (a count of C recursion per thread from CPython 3.12) lowered to
            # where it stops at the first container past max_depth: two integer writes. A value
            # meeting it is walked once (`_encode` refuses it, with its path, if too deep); one
            # that is not (it reached the lowered guard through our own frames, or nests exactly
            # max_depth deep) is written again with the guard as it was.
            try:
                out = run_capped(budget, self._encode, obj, canonical, capped=True)
            except _WithinLimit:
                out = self._encode(obj, canonical)
        else:
            if not _stack.fits(None):  # msgspec's encoder could nest deeper than this stack holds
                return _stack.elsewhere(self.encode, obj, canonical)
            out = self._encode(obj, canonical)
            if not _GUARD_BEFORE_3_12:  # nothing caps the guard: measure what was written
                self._refuse_deep_output(obj, out)
        if self._text:  # JSON has no NaN or infinity; MessagePack keeps them
            _finite.refuse_nonfinite(obj, out)
        return out

    def _refuse_deep_output(self, obj: Any, out: bytes) -> None:
        """Where nothing caps msgspec's guard at ``max_depth`` (CPython 3.12+ without a
        confirmed C recursion count, `_depth.encode_budget`): EncodeError with the path of the
        first container past it, if any. Each level of ``out`` takes an opening byte (JSON: a
        ``[`` or ``{``, both written in strings too; MessagePack: a map or array header, whose
        first byte strings and numbers may hold too), so ``out`` holding no more of them than
        ``max_depth`` proves it within; otherwise the objects are walked."""
        limit = DEFAULT.max_depth
        if len(out) <= limit:
            return
        if self._text:
            opening = out.count(b"[") + out.count(b"{")
        else:
            opening = len(out) - len(out.translate(None, _MSGPACK_CONTAINER_BYTES))
        if opening > limit:
            where = _depth.too_deep(obj, limit)
            if where is not None:
                raise self._too_deep_to_write(where)

    def _too_deep_to_write(self, path: str) -> EncodeError:
        return EncodeError(
            f"cannot write {self.name}: nesting deeper than max_depth={DEFAULT.max_depth} "
            "(decoding refuses it)",
            path=path,
        )

    def _encode(self, obj: Any, canonical: bool, capped: bool = False) -> bytes:
        encoder = self._canonical if canonical else self._fast
        try:
            try:
                out: bytes = encoder.encode(obj)
                return out
            except _NeedsLossless:
                pass
            problem = self._refused
            if type(obj) is not list:
                out = encoder.encode(_lossless.lower_located(obj, "$", problem))
                return out

            def lowered(item: Any, i: int) -> Any:
                return _lossless.lower_located(item, f"$[{i}]", problem)

            return _fallback.encode_list(obj, encoder.encode, lowered, _NeedsLossless, self._text)
        except (
            TypeError,
            ValueError,
            OverflowError,
            RecursionError,
            NotImplementedError,
            _NeedsLossless,  # an Extra lowering leaves: one the caller put where none belongs
        ) as err:
            if type(err) is RecursionError:
                where = _depth.too_deep(obj, DEFAULT.max_depth)
                if where is not None:  # what decoding would refuse, refused here
                    raise self._too_deep_to_write(where) from None
                if capped:  # the lowered guard, not the value: write it with the guard restored
                    raise _WithinLimit from None
                if _GUARD_BEFORE_3_12 and not _seen.__dict__.get("raised"):
                    # the guard counted the caller's frames too: retry with room
                    return _with_headroom(DEFAULT.max_depth + 64, self.encode, obj, canonical)
            if _LAZY_TYPES and _holds_lazy(obj):  # a list holding lazy messages
                return _lazy_encode(self, obj, canonical)
            raise self._encode_error(obj, err) from None

    def _encode_error(self, obj: Any, err: BaseException) -> EncodeError:
        if isinstance(err, EncodeError):  # the lossless path refused a value while lowering
            return EncodeError(f"cannot write {self.name}: {err.message}", path=err.path)
        if isinstance(err, RecursionError):
            return EncodeError(f"cannot write {self.name}: nesting too deep")
        if isinstance(err, _NeedsLossless):
            return EncodeError(
                f"cannot write {self.name}: an Extra is written only as the unknown keys of a "
                "message, block or source (use a dict for a value)",
                path=_values.misplaced_extra(obj),
            )
        found = _values.find(obj, self._unencodable)
        if found is not None:
            return EncodeError(f"cannot write {self.name}: {found[1]}", path=found[0])
        return EncodeError(f"cannot write {self.name}: {err}")


def _unencodable(value: Any) -> str | None:
    """Leaf values (and object keys) msgspec refuses in either format (used to locate an
    encoder error; JSON's own rules come first, in `_unencodable_json`)."""
    reason = _values.msgpack_problem(value)
    if reason is not None:
        return reason
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "text holds a lone surrogate (not valid Unicode)"
        return None
    if isinstance(value, dict):  # MessagePack keys may be any value it can write
        for key in value:
            problem = _unencodable(key)
            if problem is not None:
                return f"object key {key!r}: {problem}"
    if not isinstance(value, _SUPPORTED):
        return f"values of type {type(value).__name__} are not supported"
    return None


_SUPPORTED = (
    str,
    int,
    float,
    bool,
    type(None),
    list,
    tuple,
    dict,
    bytes,
    bytearray,
    memoryview,
    msgspec.Struct,
    msgspec.msgpack.Ext,
    Extra,
    MsgpackOnly,
)


def _unencodable_json(value: Any) -> str | None:
    return _values.json_problem(value) or _unencodable(value)


def _type_repr(tp: Any) -> str:
    return repr(tp).replace("minagent.wire.messages.", "").replace("<class '", "").replace("'>", "")


def _as_bytes(data: Any) -> bytes:
    return data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)


JSON = Codec(
    msgspec.json,
    "JSON",
    text=True,
    enc_hook=_json_hook,
    refused=_values.json_problem,
    unencodable=_unencodable_json,
)
"""The JSON codec (shared by `minagent.wire.json` and the stream helpers)."""

MSGPACK = Codec(
    msgspec.msgpack,
    "MessagePack",
    text=False,
    enc_hook=_msgpack_hook,
    refused=None,
    unencodable=_unencodable,
    special=(_mpreader.may_hold_timestamp, _mpreader.read_msgpack),
)
"""The MessagePack codec (shared by `minagent.wire.msgpack` and the stream helpers)."""
