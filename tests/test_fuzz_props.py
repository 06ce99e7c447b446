"""Mutated JSON and MessagePack payloads: only WireErrors come out, nothing hangs or balloons.

Valid seed payloads (plain, tool-heavy, unknown blocks and keys, images, thinking, responses)
are mutated by hypothesis: truncated, bytes flipped, bytes inserted, keys duplicated, values
replaced by values of the wrong type, huge MessagePack length headers, deep nesting. Every
mutant goes through every decoder; what decodes must encode again or raise `EncodeError`.
"""

from __future__ import annotations

import math
import signal
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from minagent import wire
from minagent.wire import Message, ModelResponse
from tests.budget import scaled

TYPES = [list[Message], Message, ModelResponse, list[ModelResponse]]
FORMATS = {"json": msgspec.json, "msgpack": msgspec.msgpack}
EXAMPLES = scaled(300)
"""Mutants per property: five times the profile's count."""

STATS = {"mutants": 0, "decoded": 0, "refused": 0, "foreign": 0}
"""Tallies across the run, read by fuzz/figures.py for docs/hostile-input.md."""

_TOOL = {"type": "tool_use", "id": "call_1", "name": "search", "input": {"q": "x", "n": [1, 2.5]}}
_MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "hello"},
    {"role": "assistant", "content": [{"type": "text", "text": "Let me look."}, _TOOL]},
    {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "ok"}]},
    {
        "role": "assistant",
        "id": "msg_1",
        "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            {"type": "web_search_tool_result", "tool_use_id": "s1", "content": [{"x": None}]},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": ""}},
            {"type": "text", "text": "done", "cache_control": {"type": "ephemeral"}},
        ],
    },
]
SEEDS: list[Any] = [
    _MESSAGES,
    _MESSAGES[1],
    {"message": _MESSAGES[3], "stop_reason": "tool_use", "usage": {"input_tokens": 12}},
    [{"message": _MESSAGES[1], "stop_reason": "end_turn", "usage": {}}],
]
_WRONG = [None, True, 0, -1, 2**64 - 1, 1.5, "", "x", [], {}, [1, "a"], {"type": "text"}]
_HUGE_HEADERS = [b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff", b"\xdb\xff\xff\xff\xff",
                 b"\xc6\xff\xff\xff\xff", b"\xc9\xff\xff\xff\xff\x01", b"\xc9\xff\xff\xff\xff\xff",
                 b"\xdc\xff\xff", b"\xde\xff\xff"]  # fmt: skip


class Hang(Exception):
    """A decode took more than the watchdog's generous allowance (a hang, not slowness)."""


@contextmanager
def watchdog(seconds: float = 20.0) -> Iterator[None]:
    """Raise `Hang` in this (main) thread if the block runs longer than ``seconds``."""

    def fire(signum: int, frame: Any) -> None:
        raise Hang(f"no result after {seconds} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


_NO_DOC = object()


def resolves(doc: Any, path: str) -> bool:
    """Whether ``path`` (``$``, then ``.key`` and ``[i]`` steps, keys written as they are) names
    a node of the schema-less ``doc``: walks only the children whose path is a prefix of it."""
    stack = [("$", doc)]
    while stack:
        where, node = stack.pop()
        if where == path:
            return True
        if isinstance(node, dict):
            steps: Any = ((f"{where}.{key}", child) for key, child in node.items())
        elif isinstance(node, list):
            steps = ((f"{where}[{i}]", child) for i, child in enumerate(node))
        else:
            continue
        stack.extend((step, child) for step, child in steps if path.startswith(step))
    return False


def assert_located(err: wire.WireError, doc: Any) -> None:
    """``err`` says what and where: a message, and a path that names a node of the input (when
    the input is well-formed enough for a schema-less decode to see its nodes)."""
    assert err.message, repr(err)
    assert isinstance(err.path, str) and err.path.startswith("$"), repr(err)
    if doc is not _NO_DOC:
        assert resolves(doc, err.path), f"{err!r} names no node of {doc!r}"[:2000]


def check(fmt: str, data: bytes) -> None:
    """Decode ``data`` as every type: a result (that re-encodes or raises EncodeError) or a
    WireError at a path of the input; never another exception, never a hang, never memory
    beyond a small multiple."""
    codec = getattr(wire, fmt)
    try:
        doc = FORMATS[fmt].decode(data)
    except (msgspec.DecodeError, UnicodeDecodeError, RecursionError, TypeError):
        doc = _NO_DOC
    STATS["mutants"] += 1
    tracemalloc.start()
    try:
        with watchdog():
            for tp in TYPES:
                try:
                    result = codec.decode(data, type=tp)
                except wire.WireError as err:
                    assert_located(err, doc)
                    STATS["refused"] += 1
                    continue
                except BaseException:
                    STATS["foreign"] += 1
                    raise
                STATS["decoded"] += 1
                for target in (wire.json, wire.msgpack):
                    try:
                        target.encode(result)
                    except wire.EncodeError as err:
                        assert_located(err, doc)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * len(data) + (4 << 20), f"{peak} bytes for a {len(data)}-byte input"


def mutate_value(value: Any, draw: Any) -> Any:
    """Replace one node of a decoded payload by a value of the wrong type, or nest it deeply."""
    if isinstance(value, dict) and value and draw(st.booleans()):
        key = draw(st.sampled_from(sorted(value)))
        return {**value, key: mutate_value(value[key], draw)}
    if isinstance(value, list) and value and draw(st.booleans()):
        i = draw(st.integers(0, len(value) - 1))
        return [*value[:i], mutate_value(value[i], draw), *value[i + 1 :]]
    if draw(st.integers(0, 5)) == 0:
        return nest(value, draw(st.sampled_from([10, 200, 600])))
    return draw(st.sampled_from(_WRONG))


def nest(value: Any, depth: int) -> Any:
    """``value`` inside ``depth`` arrays."""
    for _ in range(depth):
        value = [value]
    return value


@st.composite
def byte_mutants(draw: Any, fmt: str) -> bytes:
    """A valid payload, then a few byte-level mutations."""
    data = bytearray(FORMATS[fmt].encode(draw(st.sampled_from(SEEDS))))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["truncate", "flip", "insert", "delete", "splice", "header"]))
        at = draw(st.integers(0, len(data)))
        if op == "truncate":
            del data[at:]
        elif op == "flip" and at < len(data):
            data[at] ^= 1 << draw(st.integers(0, 7))
        elif op == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 8))]
        elif op == "splice":  # copy a slice of the payload elsewhere (duplicates structure)
            start = draw(st.integers(0, len(data)))
            data[at:at] = data[start : start + draw(st.integers(1, 40))]
        elif op == "header":
            deep = [b"[" * 3000, b'{"a":' * 3000] if fmt == "json" else [b"\x91" * 3000]
            head = draw(st.sampled_from(_HUGE_HEADERS + deep if fmt == "msgpack" else deep))
            data[at : at + draw(st.integers(0, 1))] = head
    return bytes(data)


@st.composite
def structural_mutants(draw: Any, fmt: str) -> bytes:
    """A payload with a node of the wrong type, deep nesting, or a duplicated key."""
    seed = draw(st.sampled_from(SEEDS))
    encode = FORMATS[fmt].encode
    if draw(st.booleans()):
        return encode(mutate_value(seed, draw))
    # Duplicate a key: add a same-length twin, then rename it in the bytes.
    obj = seed[0] if isinstance(seed, list) else seed
    key = draw(st.sampled_from(sorted(obj)))
    twin = key[:-1] + ("#" if key[-1] != "#" else "$")
    doc = {**obj, twin: draw(st.sampled_from(_WRONG))}
    data = encode([doc] if isinstance(seed, list) else doc)
    quoted = (b'"%s"' if fmt == "json" else b"%s") % twin.encode()
    return data.replace(quoted, quoted.replace(twin.encode(), key.encode()))


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.sampled_from(sorted(FORMATS)).flatmap(lambda f: st.tuples(st.just(f), byte_mutants(f))))
def test_byte_mutations_raise_only_wire_errors(case: tuple[str, bytes]) -> None:
    """Truncated, flipped, inserted, spliced bytes and huge headers: WireError or a result."""
    check(*case)


@settings(max_examples=EXAMPLES, deadline=None)
@given(
    st.sampled_from(sorted(FORMATS)).flatmap(lambda f: st.tuples(st.just(f), structural_mutants(f)))
)
def test_structural_mutations_raise_only_wire_errors(case: tuple[str, bytes]) -> None:
    """Wrong types, deep nesting, duplicate keys: WireError or a result that encodes again."""
    check(*case)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.binary(max_size=64), st.sampled_from(sorted(FORMATS)))
def test_random_bytes_raise_only_wire_errors(data: bytes, fmt: str) -> None:
    """Arbitrary short byte strings: WireError or a result."""
    check(fmt, data)


def test_nan_and_infinity_from_msgpack_are_refused_by_json() -> None:
    """A MessagePack NaN in a tool input decodes, and JSON encoding refuses it by path."""
    for value in (math.nan, math.inf):
        data = msgspec.msgpack.encode([{**_MESSAGES[1]}])
        data = data.replace(msgspec.msgpack.encode(2.5), msgspec.msgpack.encode(value))
        decoded = wire.msgpack.decode(data)
        try:
            wire.json.encode(decoded)
        except wire.EncodeError as err:
            assert err.path == "$[0].content[1].input.n[1]"
        else:
            raise AssertionError("JSON encoding accepted a non-finite float")


def test_invalid_utf8_after_a_lossless_element_is_a_decode_error() -> None:
    """Found by atheris: invalid UTF-8 in a later element of a list that took the lossless path
    leaked msgspec's DecodeError; it is our DecodeError naming the element."""
    for fmt, encode in ((wire.json, msgspec.json.encode), (wire.msgpack, msgspec.msgpack.encode)):
        data = encode([{"role": "user", "x": 1}, {"role": "user", "content": "~"}])
        bad = data.replace(b"~", b"\xff")
        for tp in (list[Message], Message):
            try:
                fmt.decode(bad, type=tp)
            except wire.WireError as err:
                assert isinstance(err, (wire.DecodeError, wire.ValidationError)), repr(err)
                if tp == list[Message]:
                    assert isinstance(err, wire.DecodeError) and err.path == "$[1]"
            else:
                raise AssertionError("invalid UTF-8 was accepted")
