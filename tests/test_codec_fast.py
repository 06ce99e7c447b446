"""The codec's fast ways around the slow path: odd messages decoded block by block, the rest of
a list element by element, with results and errors exactly those of the whole-message lossless
builder."""

from __future__ import annotations

import json
import re
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from minagent import wire
from minagent.wire import _finite, _lossless
from minagent.wire.limits import Limits

FORMATS = [wire.json, wire.msgpack]

_UNKNOWN = {"type": "compaction", "content": "summary", "n": [1, {"k": None}]}
_TEXT = {"type": "text", "text": "hello", "cache_control": {"type": "ephemeral"}}
_TOOL = {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"q": [1, 2.5, None]}}


def _encode(fmt: Any, value: Any) -> bytes:
    if fmt is wire.json:
        return json.dumps(value, separators=(",", ":")).encode()
    return msgspec.msgpack.encode(value)


def _whole_message(fmt: Any, element: dict[str, Any]) -> wire.Message:
    """The element built the old way: one schema-less decode, the lossless builder on all of it."""
    schemaless = msgspec.json if fmt is wire.json else msgspec.msgpack
    value = schemaless.decode(_encode(fmt, element))
    result: wire.Message = _lossless.build(wire.Message, value)
    return result


def _count(monkeypatch: pytest.MonkeyPatch, module: Any, *names: str) -> dict[str, int]:
    """Count the calls of the module's functions ``names`` for the rest of the test."""
    calls = dict.fromkeys(names, 0)
    for name in names:
        real = getattr(module, name)

        def call(*args: Any, _name: str = name, _real: Any = real) -> Any:
            calls[_name] += 1
            return _real(*args)

        monkeypatch.setattr(module, name, call)
    return calls


@pytest.mark.parametrize("fmt", FORMATS)
def test_odd_message_decodes_its_known_blocks_strictly(
    fmt: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A message holding known blocks and one unknown block sends only the unknown block through
    the lossless builder (no known block or message is built from a dict there), and equals the
    whole-message build."""
    element = {"role": "assistant", "content": [_TEXT, _UNKNOWN, _TOOL], "tool_call_id": "c"}
    expected = _whole_message(fmt, element)
    calls = _count(monkeypatch, _lossless, "_object")
    data = _encode(fmt, [{"role": "user", "content": "hi"}, element])
    decoded = fmt.decode(data)
    assert calls == {"_object": 0}
    assert decoded[1] == expected
    assert type(decoded[1].content[1]) is wire.UnknownBlock
    assert decoded[1].content[1].data == _UNKNOWN
    assert [type(b) for b in decoded[1].content] == [
        wire.TextBlock,
        wire.UnknownBlock,
        wire.ToolUseBlock,
    ]
    assert fmt.encode(decoded) == data


@pytest.mark.parametrize("fmt", FORMATS)
def test_odd_message_with_its_own_unknown_key_is_built_whole(fmt: Any) -> None:
    """A message whose own keys are unknown (not only a block) keeps them in ``extra`` and its
    unknown block whole, and writes back the same bytes."""
    element = {"role": "assistant", "content": [_UNKNOWN, _TEXT], "id": "msg_1"}
    data = _encode(fmt, [element])
    decoded = fmt.decode(data)
    assert decoded[0].extra == {"id": "msg_1"}
    assert decoded[0] == _whole_message(fmt, element)
    assert fmt.encode(decoded) == data


@pytest.mark.parametrize("fmt", FORMATS)
def test_bad_known_block_beside_an_unknown_one_is_named_exactly(fmt: Any) -> None:
    """A known block with a wrong value in an odd message is refused with the path and message
    the whole-message builder gives."""
    bad = {"type": "text", "text": 5}
    odd = {"role": "user", "content": [_UNKNOWN, bad]}
    data = _encode(fmt, [{"role": "user", "content": "a"}, odd])
    with pytest.raises(wire.ValidationError) as info:
        fmt.decode(data)
    assert info.value.path == "$[1].content[1].text"
    assert info.value.message == "Expected `str`, got `int`"


@pytest.mark.parametrize("fmt", FORMATS)
def test_unknown_block_without_a_string_type_is_named(fmt: Any) -> None:
    """A block whose ``type`` is not a string, beside a known one, is refused at its ``type``."""
    data = _encode(fmt, [{"role": "user", "content": [_TEXT, {"type": 3}]}])
    with pytest.raises(wire.ValidationError) as info:
        fmt.decode(data)
    assert info.value.path == "$[0].content[1].type"
    assert info.value.message == "Expected `str`, got `int`"


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("index", [None, 0, 1, 5], ids=["lone", "0", "1", "5"])
def test_max_depth_is_exact_inside_an_odd_block(fmt: Any, index: int | None) -> None:
    """An unknown block beside a known one, nested to exactly max_depth, decodes; one level
    more is refused at the path of its first container past the limit: in a lone message
    (``type=Message``) and wherever the message sits in a list."""
    limit = 12
    above = 3 if index is None else 4  # containers above ``v``: (the list,) message, content, block
    tp = wire.Message if index is None else list[wire.Message]
    where = "$" if index is None else f"$[{index}]"
    for levels, ok in ((limit - above, True), (limit - above + 1, False)):
        inner: Any = []
        for _ in range(levels - 1):
            inner = [inner]
        block = {"type": "future", "v": inner}
        message = {"role": "user", "content": [_TEXT, block]}
        value = message if index is None else [*[{"role": "user", "content": "x"}] * index, message]
        data = _encode(fmt, value)
        if ok:
            decoded = fmt.decode(data, type=tp, limits=Limits(max_depth=limit))
            assert (decoded if index is None else decoded[index]).content[1].data == block
        else:
            with pytest.raises(wire.DecodeError, match="max_depth=12") as info:
                fmt.decode(data, type=tp, limits=Limits(max_depth=limit))
            assert info.value.path == f"{where}.content[1].v" + "[0]" * (levels - 1)


def test_bad_utf8_after_an_odd_message_names_its_element() -> None:
    """Invalid UTF-8 in a known element after an odd one (read one element per call) is refused
    at that element."""
    data = (
        b'[{"role":"user","content":"a","x":1},{"role":"user","content":"ok"},'
        b'{"role":"user","content":"\xff"}]'
    )
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode(data)
    assert info.value.path == "$[2]"
    assert "UTF-8" in info.value.message


_KINDS = st.sampled_from(["known", "odd-key", "odd-block", "odd-both", "blocks"])


def _element(i: int, kind: str) -> dict[str, Any]:
    if kind == "odd-key":
        return {"role": "user", "content": f"m{i}", "id": f"msg_{i}"}
    if kind == "odd-block":
        return {"role": "assistant", "content": [_TEXT, {**_UNKNOWN, "i": i}, _TOOL]}
    if kind == "odd-both":
        return {"role": "assistant", "content": [{**_UNKNOWN, "i": i}], "id": i}
    if kind == "blocks":
        return {"role": "assistant", "content": [_TEXT, _TOOL]}
    return {"role": "user", "content": f"m{i}"}


@given(st.lists(_KINDS, max_size=40))
def test_any_mix_decodes_like_each_message_alone(kinds: list[str]) -> None:
    """A list of known and odd messages in any order decodes to what each element gives alone
    through the whole-message builder, and writes back the same bytes, in both formats."""
    value = [_element(i, kind) for i, kind in enumerate(kinds)]
    for fmt in FORMATS:
        data = _encode(fmt, value)
        decoded = fmt.decode(data)
        assert decoded == [_whole_message(fmt, element) for element in value]
        assert fmt.encode(decoded) == data


# --- the NaN look ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("packed", "holds"),
    [
        (b"", False),
        (b"\xcb", False),  # a last byte, nothing after it
        (b"\xcb\x7f", False),
        (b"\xcb\x7f\xf0", True),
        (b"x\xcb\xff\xf8" + bytes(6), True),
        (b"\xcb\x7f\xef" + bytes(6), False),  # the largest finite floats start 7f e?/ff e?
        (b"\xcb\x3f" * 100 + b"\xcb\x7f\xf8", True),  # many floats: found by its 0x7f
        (b"\xcb\x3f" * 100, False),
        (b"\xcb\x3f" * 20 + b"\xcb\xff\xf0", True),
        (b"\xcb\x3f" * 20 + b"\xcb\x7f\xf0", True),
        (b"\xcb\x3f" * 20 + b"\x7f\xf8\xff\xff", False),  # 7f / ff after no 0xcb
        (b"\xcb\x3f" * 20 + b"\x7f" * 40 + b"\xcb\x7f\xf8", True),  # many 7f too: the regex
        (b"\xcb\x3f" * 20 + b"\xff" * 40, False),
        (b"\xcb\x3f" * 8 + b"\xcb\x7f\xf8", True),  # the ninth 0xcb, where the walks meet
    ],
)
def test_the_float64_look_finds_only_nonfinite_bit_patterns(packed: bytes, holds: bool) -> None:
    """The byte search over the MessagePack look: ``cb 7f f?`` / ``cb ff f?`` (NaN and
    infinity) anywhere, however many finite floats or ``0x7f`` / ``0xff`` bytes come first;
    nothing else."""
    assert _finite._has_nonfinite_float64(packed) is holds
    assert _finite._has_nonfinite_float64(bytearray(packed)) is holds


_PIECES = st.sampled_from(
    [b"\xcb", b"\x7f", b"\xff", b"\xf0", b"\xf8", b"\xef", b"\x3f", b"a", b"\xcb\x3f\x00"]
)


@given(
    st.builds(
        lambda floats, pieces: b"\xcb\x3f\x00" * floats + b"".join(pieces),
        st.integers(0, 40),
        st.lists(_PIECES, max_size=80),
    )
    | st.binary(max_size=300)
)
def test_the_float64_look_agrees_with_the_pattern(packed: bytes) -> None:
    """On any bytes, dense in the bytes it walks, the search answers as the plain regex for
    ``cb (7f|ff) f?`` does."""
    expected = re.search(rb"\xcb[\x7f\xff][\xf0-\xff]", packed) is not None
    assert _finite._has_nonfinite_float64(packed) is expected


@pytest.mark.parametrize(
    ("out", "holds"),
    [
        (b'"null"', False),
        (b'["is null",null]', True),  # the word first, a value later
        (b'["null null null"]', False),
        (b'{"a":"x:null"}', True),  # a text holding ":null": a yes too (one look, never a miss)
        (b'{"nullable":1,"b":null}', True),
    ],
)
def test_writes_null_reads_past_the_word_in_texts(out: bytes, holds: bool) -> None:
    """`writes_null` in one pass: the word ``null`` inside texts before a real value is skipped
    and the value still found; texts alone are no value, unless the text itself reads like one
    (``:null``), which only costs the MessagePack look."""
    assert _finite.writes_null(out) is holds


# --- encoding a list holding unknown data -----------------------------------------------------


def _odd_message(i: int) -> wire.Message:
    return wire.Message("assistant", [wire.UnknownBlock(wire.Extra({"type": "future", "i": i}))])


@given(st.lists(st.booleans(), max_size=3 * 32 + 5))
def test_lists_with_odd_messages_encode_as_each_message_alone(odd: list[bool]) -> None:
    """A list mixing known messages and messages with unknown data, at any place across the
    encoder's chunks, writes exactly the elements each written alone, framed as one array."""
    items = [_odd_message(i) if o else wire.Message("user", f"m{i}") for i, o in enumerate(odd)]
    for fmt in FORMATS:
        alone = [fmt.encode(m, canonical=False) for m in items]
        whole = fmt.encode(items)
        if fmt is wire.json:
            assert whole == b"[" + b",".join(alone) + b"]"
        else:
            assert msgspec.msgpack.decode(whole) == [msgspec.msgpack.decode(a) for a in alone]
        assert fmt.decode(whole) == items


@pytest.mark.parametrize("fmt", FORMATS)
def test_misplaced_extra_after_an_odd_message_is_named(fmt: Any) -> None:
    """An Extra inside a tool input, in the same chunk as a message with unknown data before
    it, is refused with its own path."""
    bad = wire.Message("assistant", [wire.ToolUseBlock("t", "f", {"x": wire.Extra({"a": 1})})])
    items = [_odd_message(0), wire.Message("user", "hi"), bad]
    with pytest.raises(wire.EncodeError) as info:
        fmt.encode(items)
    assert info.value.path == "$[2].content[0].input.x"


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_lone_odd_message_decodes_its_known_blocks_strictly(
    fmt: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A lone message (``type=Message``, as stream lines are read) with an unknown block builds
    only that block through the lossless builder, from bytes or (JSON) text alike."""
    element = {"role": "assistant", "content": [_TEXT, _UNKNOWN, _TOOL]}
    expected = _whole_message(fmt, element)
    calls = _count(monkeypatch, _lossless, "_object")
    data = _encode(fmt, element)
    inputs: list[Any] = [data, bytearray(data), memoryview(data)]
    if fmt is wire.json:
        inputs.append(data.decode())
    for given_data in inputs:
        assert fmt.decode(given_data, type=wire.Message) == expected
    assert calls == {"_object": 0}
    assert fmt.encode(expected) == data


def test_a_long_output_gets_the_look_without_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """An output longer than `SCAN_UP_TO` goes straight to the MessagePack look (searching it
    for ``null`` would cost more than the look); a short one without a ``null`` value is only
    searched; either way a NaN is refused at its path."""
    calls = _count(monkeypatch, _finite, "writes_null", "may_hold_nonfinite")
    long_text = [wire.Message("user", "null " * (_finite.SCAN_UP_TO // 5 + 1))]
    assert len(wire.json.encode(long_text)) > _finite.SCAN_UP_TO
    assert calls == {"writes_null": 0, "may_hold_nonfinite": 1}
    short = [wire.Message("user", "null " * 10)]
    wire.json.encode(short)
    assert calls == {"writes_null": 1, "may_hold_nonfinite": 1}
    nan = wire.Message("assistant", [wire.ToolUseBlock("t", "f", {"x": float("nan")})])
    for items, path in (([*long_text, nan], "$[1]"), ([nan], "$[0]")):
        with pytest.raises(wire.EncodeError) as info:
            wire.json.encode(items)
        assert info.value.path == path + ".content[0].input.x"


@pytest.mark.parametrize("leaf", [b"\xd6\xff\x00\x00\x00\x01", b"\x07"], ids=["timestamp", "int"])
@pytest.mark.parametrize("in_list", [False, True], ids=["message", "list-element"])
def test_max_depth_is_exact_in_an_odd_block_read_by_the_timestamp_reader(
    leaf: bytes, in_list: bool
) -> None:
    """An odd block beside a known one, holding a MessagePack timestamp (read by the codec's own
    reader, not msgspec) or a plain integer nested in arrays: exactly max_depth decodes, one
    level more is refused at the innermost array, counted from where the block sits."""
    limit = 14
    message = {"role": "user", "content": [_TEXT, {"type": "future", "v": {"k": None}}]}
    prefix = msgspec.msgpack.encode(
        [{"role": "user", "content": "a"}, message] if in_list else message
    )
    prefix = prefix[:-1]  # the None: replaced by the arrays
    tp = list[wire.Message] if in_list else wire.Message
    fits = limit - 4 - in_list  # arrays below {"k": ...}, at depth 5 in a lone message
    for levels in (fits, fits + 1):
        data = prefix + b"\x91" * levels + leaf
        if levels == fits:
            decoded = wire.msgpack.decode(data, type=tp, limits=Limits(max_depth=limit))
            block = (decoded[1] if in_list else decoded).content[1]
            assert type(block) is wire.UnknownBlock
            continue
        with pytest.raises(wire.DecodeError) as info:
            wire.msgpack.decode(data, type=tp, limits=Limits(max_depth=limit))
        assert info.value.path == (
            ("$[1]" if in_list else "$") + ".content[1].v.k" + "[0]" * (levels - 1)
        )
        assert f"max_depth={limit}" in info.value.message
