"""Lazy decoding (`minagent.wire.lazy`): the same objects and errors as eager, original bytes out.

The property tests generate conversations as plain wire data (every block type, unknown blocks,
sources and keys, and invalid data: wrong types, missing fields, bad roles, invalid UTF-8, numbers
no float can hold, duplicate keys), write them in both formats, and compare a lazy decode with
the eager one.
"""

from __future__ import annotations

import base64
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from minagent import wire
from minagent.bench.corpus import json_bytes, msgpack_bytes, transcript
from minagent.wire import LazyMessage, LazyMessages, Limits, Message, TextBlock
from minagent.wire.errors import DecodeError, ValidationError, WireError
from tests.budget import scaled

from . import interpreter
from .strategies import short_text, text, trees

FORMATS = {"json": wire.json, "msgpack": wire.msgpack}
BAD_UTF8 = "@@BAD@@"
"""A text marker replaced, after encoding, by seven bytes that are not UTF-8."""
BIG = "@@BIG@@"
"""A text marker replaced, in JSON, by ``1e400`` (a number no float holds)."""

# --- generated wire data -------------------------------------------------------------------------

_sources = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.just("base64"),
            "media_type": st.just("image/png"),
            "data": st.binary(max_size=12),
        }
    ),
    st.fixed_dictionaries({"type": st.just("url"), "url": short_text}),
    st.fixed_dictionaries({"type": st.just("file"), "file_id": short_text}),
)
_inputs = st.dictionaries(
    short_text,
    trees(
        st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | short_text, depth=2, width=3
    ),
    max_size=3,
)
_blocks = st.one_of(
    st.fixed_dictionaries({"type": st.just("text"), "text": text}),
    st.fixed_dictionaries({"type": st.just("text"), "text": text, "cache_control": st.just({})}),
    st.fixed_dictionaries(
        {"type": st.just("tool_use"), "id": short_text, "name": short_text, "input": _inputs}
    ),
    st.fixed_dictionaries({"type": st.just("thinking"), "thinking": text, "signature": short_text}),
    st.fixed_dictionaries({"type": st.just("redacted_thinking"), "data": short_text}),
    st.fixed_dictionaries({"type": st.just("image"), "source": _sources}),
    st.fixed_dictionaries({"type": st.just("document"), "source": _sources}),
    st.fixed_dictionaries(
        {"type": st.just("server_tool_use"), "id": short_text, "name": short_text, "input": _inputs}
    ),
)


@st.composite
def _message(draw: st.DrawFn) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": draw(st.sampled_from(["system", "user", "assistant", "tool"]))}
    kind = draw(st.sampled_from(["text", "blocks", "absent"]))
    if kind == "text":
        msg["content"] = draw(text)
    elif kind == "blocks":
        msg["content"] = draw(st.lists(_blocks, max_size=4))
    if draw(st.booleans()):
        msg["tool_call_id"] = draw(short_text)
    if draw(st.booleans()):
        msg["is_error"] = draw(st.booleans())
    if draw(st.integers(0, 4)) == 0:
        msg["id"] = draw(short_text)  # a key the protocol does not name
    return msg


_BAD_BLOCKS: list[Any] = [
    {"type": "tool_use", "name": "x", "input": {}},  # missing id
    {"type": "tool_use", "id": 7, "name": "x", "input": {}},  # id of the wrong type
    {"type": "tool_use", "id": "a", "name": None, "input": {}},
    {"type": "tool_use", "id": "a", "name": "x", "input": []},  # input not an object
    {"type": "text"},  # missing text
    {"type": 3, "text": "x"},  # tag of the wrong type
    {"type": "image", "source": {"type": "base64", "media_type": "image/png"}},
    "not a block",
    {"type": "text", "text": BAD_UTF8},
    {"type": "tool_use", "id": "a", "name": "x", "input": {"big": BIG}},
]


@st.composite
def _broken(draw: st.DrawFn, msg: dict[str, Any]) -> Any:
    """``msg`` with one thing wrong (a routing field, the content, or the whole element)."""
    how = draw(st.integers(0, 9))
    msg = dict(msg)
    if how == 0:
        msg["role"] = draw(st.sampled_from(["robot", "", 5, None]))
    elif how == 1:
        msg.pop("role", None)
    elif how == 2:
        msg["tool_call_id"] = draw(st.sampled_from([None, 3, ["x"]]))
    elif how == 3:
        msg["is_error"] = draw(st.sampled_from(["yes", 0, None]))
    elif how == 4:
        msg["content"] = draw(st.sampled_from([None, 5, {"type": "text"}, True]))
    elif how == 5:
        return draw(st.sampled_from([1, "text", None, [msg]]))
    elif how == 6:
        msg["content"] = BAD_UTF8
    else:
        blocks = list(msg.get("content", [])) if isinstance(msg.get("content"), list) else []
        blocks.insert(draw(st.integers(0, len(blocks))), draw(st.sampled_from(_BAD_BLOCKS)))
        msg["content"] = blocks
    return msg


@st.composite
def conversations(draw: st.DrawFn, broken: bool = True) -> list[Any]:
    """A conversation of wire data; with ``broken``, up to two messages have one thing wrong."""
    msgs: list[Any] = draw(st.lists(_message(), max_size=6))
    if broken and msgs:
        for _ in range(draw(st.integers(0, 2))):
            i = draw(st.integers(0, len(msgs) - 1))
            if isinstance(msgs[i], dict):
                msgs[i] = draw(_broken(msgs[i]))
    return msgs


def _json_view(value: Any) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {k: _json_view(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_view(v) for v in value]
    return value


def _encode(msgs: list[Any], fmt: str) -> bytes:
    """The conversation as bytes, invalid UTF-8 where a text says `BAD_UTF8`, ``1e400`` for
    `BIG` in JSON."""
    if fmt == "json":
        data = msgspec.json.encode(_json_view(msgs)).replace(b'"' + BIG.encode() + b'"', b"1e400")
    else:
        data = msgspec.msgpack.encode(msgs)
    return data.replace(BAD_UTF8.encode(), b"\xff" * len(BAD_UTF8))


def _outcome(fn: Any) -> tuple[str, Any]:
    try:
        return "ok", fn()
    except WireError as err:
        return type(err).__name__, err.path


def _read_all(lazy: LazyMessages) -> list[Message]:
    """Every message of ``lazy`` fully read, in order, one by one."""
    return [m.message for m in lazy if isinstance(m, LazyMessage)]


def _routing(m: Any) -> tuple[Any, ...]:
    if isinstance(m, LazyMessage):
        return (m.role, m.tool_call_id, m.is_error, m.tool_call_ids, m.tool_names)
    calls = m.tool_calls
    return (
        m.role,
        m.tool_call_id,
        m.is_error,
        tuple(b.id for b in calls),
        tuple(b.name for b in calls),
    )


PROPS = settings(
    max_examples=scaled(120), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


# --- properties ----------------------------------------------------------------------------------


@PROPS
@given(conversations(), st.sampled_from(["json", "msgpack"]))
def test_full_access_equals_eager_or_raises_its_error(msgs: list[Any], fmt: str) -> None:
    """Reading every message gives eager's objects, or eager's error class and path (a DecodeError
    names the message, where eager's fast path may only say ``$``)."""
    codec = FORMATS[fmt]
    data = _encode(msgs, fmt)
    eager = _outcome(lambda: codec.decode(data))
    lazy = _outcome(lambda: _read_all(codec.decode_lazy(data)))
    assert lazy[0] == eager[0]
    if eager[0] == "ok":
        assert lazy[1] == eager[1]
    elif eager[0] == "DecodeError":
        assert eager[1] in ("$", lazy[1])
        assert lazy[1] is not None and lazy[1].startswith("$[")
    else:
        assert lazy[1] == eager[1]


@PROPS
@given(conversations(), st.sampled_from(["json", "msgpack"]))
def test_validate_true_raises_exactly_what_eager_raises(msgs: list[Any], fmt: str) -> None:
    """``validate=True`` refuses at decode exactly what eager refuses (class and path)."""
    codec = FORMATS[fmt]
    data = _encode(msgs, fmt)
    eager = _outcome(lambda: codec.decode(data))
    lazy = _outcome(lambda: codec.decode_lazy(data, validate=True).messages())
    assert lazy == eager


@PROPS
@given(conversations(), st.sampled_from(["json", "msgpack"]))
def test_routing_fields_equal_eager_for_each_message_eager_accepts(
    msgs: list[Any], fmt: str
) -> None:
    """Routing fields equal eager's for a message eager accepts; a refused message's routing
    read raises eager's error or hands out only values of the eager types."""
    codec = FORMATS[fmt]
    data = _encode(msgs, fmt)
    lazy = codec.decode_lazy(data)
    for i, raw in enumerate(
        msgspec.json.decode(data, type=list[msgspec.Raw])
        if fmt == "json"
        else msgspec.msgpack.decode(data, type=list[msgspec.Raw])
    ):
        alone = _outcome(lambda raw=raw: codec.decode(raw, type=Message))
        got = _outcome(lambda i=i: _routing(lazy[i]))
        if alone[0] == "ok":
            assert got == ("ok", _routing(alone[1]))
        elif got[0] == "ok":
            role, call_id, is_error, ids, names = got[1]
            assert role in ("system", "user", "assistant", "tool")
            assert call_id is msgspec.UNSET or type(call_id) is str
            assert is_error is msgspec.UNSET or type(is_error) is bool
            assert all(type(x) is str for x in ids + names)
        else:
            assert got[1].startswith(f"$[{i}]")


@PROPS
@given(conversations(), st.sampled_from(["json", "msgpack"]))
def test_untouched_reencode_is_byte_identical(msgs: list[Any], fmt: str) -> None:
    """Encoding a lazy decode whose routing fields were read gives back the input, byte for
    byte, valid or not (msgspec writes compact arrays, so the framing matches too)."""
    codec = FORMATS[fmt]
    data = _encode(msgs, fmt)
    lazy = codec.decode_lazy(data)
    for m in lazy:
        _outcome(lambda m=m: _routing(m))
    assert codec.encode(lazy) == data


@PROPS
@given(conversations(broken=False), st.sampled_from(["json", "msgpack"]))
def test_shape_and_transcoding_agree_with_eager_on_valid_conversations(
    msgs: list[Any], fmt: str
) -> None:
    """On valid data: ``validate="shape"`` accepts, routing equals eager, and transcoding or
    canonical encoding of untouched lazy messages equals eager's bytes."""
    codec = FORMATS[fmt]
    data = _encode(msgs, fmt)
    eager = codec.decode(data)
    lazy = codec.decode_lazy(data, validate="shape")
    assert [_routing(m) for m in lazy] == [_routing(m) for m in eager]
    for other in FORMATS.values():
        for canonical in (False, True):
            if other is codec and not canonical:
                continue  # the original bytes: pinned by test_untouched_reencode_is_byte_identical
            assert other.encode(codec.decode_lazy(data), canonical=canonical) == other.encode(
                eager, canonical=canonical
            )


@PROPS
@given(conversations(), st.booleans())
def test_json_lines_full_access_equals_eager_decode_lines(msgs: list[Any], blank: bool) -> None:
    """JSON Lines (blank lines too, every line ending in a newline): reading every message gives
    ``decode_lines``' objects, or its error class with the same line and path."""
    lines = [_encode([m], "json")[1:-1] for m in msgs]
    if blank and lines:
        lines.insert(len(lines) // 2, b"  ")
    data = b"".join(line + b"\n" for line in lines)

    def outcome(fn: Any) -> tuple[str, Any]:
        try:
            return "ok", fn()
        except WireError as err:
            return ("DecodeError" if isinstance(err, DecodeError) else type(err).__name__), (
                err.line,
                err.path,
            )

    eager = outcome(lambda: wire.json.decode_lines(data))
    lazy = outcome(lambda: _read_all(wire.json.decode_lazy(data, lines=True)))
    assert lazy == eager


@st.composite
def _mutants(draw: st.DrawFn) -> tuple[str, bytes]:
    fmt = draw(st.sampled_from(["json", "msgpack"]))
    data = bytearray(_encode(draw(conversations(broken=False)), fmt))
    for _ in range(draw(st.integers(1, 3))):
        if not data:
            break
        i = draw(st.integers(0, len(data) - 1))
        how = draw(st.integers(0, 2))
        if how == 0:
            data[i] = draw(st.integers(0, 255))
        elif how == 1:
            del data[i:]
        else:
            data[i:i] = bytes([draw(st.integers(0, 255))])
    return fmt, bytes(data)


@PROPS
@given(_mutants())
def test_mutated_bytes_lazy_and_eager_accept_the_same_inputs(case: tuple[str, bytes]) -> None:
    """Byte-mutated payloads: the lazy decode plus a full read succeeds exactly when eager does,
    with eager's objects; both raise only WireErrors, of the same class."""
    fmt, data = case
    codec = FORMATS[fmt]
    eager = _outcome(lambda: codec.decode(data))
    lazy = _outcome(lambda: _read_all(codec.decode_lazy(data)))
    assert lazy[0] == eager[0]
    if eager[0] == "ok":
        assert lazy[1] == eager[1]
        assert codec.encode(codec.decode_lazy(data)) == codec.encode(_raw_list(data, fmt))


# --- examples ------------------------------------------------------------------------------------

_SEED = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Добрый день 😀", "id": "m1"},
    {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "c1", "name": "search", "input": {"q": "x"}},
            {"type": "tool_use", "id": "c2", "name": "read_file", "input": {"path": "a"}},
        ],
    },
    {"role": "tool", "content": "found", "tool_call_id": "c1", "is_error": False},
]


def _seed(fmt: str) -> bytes:
    return _encode(_SEED, fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_routing_fields_of_the_seed(fmt: str) -> None:
    """Role, call id, error flag, call ids and names are read without the content."""
    lazy = FORMATS[fmt].decode_lazy(_seed(fmt))
    assert [_routing(m) for m in lazy] == [
        ("system", msgspec.UNSET, msgspec.UNSET, (), ()),
        ("user", msgspec.UNSET, msgspec.UNSET, (), ()),
        ("assistant", msgspec.UNSET, msgspec.UNSET, ("c1", "c2"), ("search", "read_file")),
        ("tool", "c1", False, (), ()),
    ]
    assert [m.touched for m in lazy if isinstance(m, LazyMessage)] == [False] * 4


@pytest.mark.parametrize("fmt", FORMATS)
def test_replaced_message_is_encoded_and_the_rest_keep_their_bytes(fmt: str) -> None:
    """``lazy[i] = Message(...)`` writes the replacement normally, the others as received."""
    codec = FORMATS[fmt]
    data = _seed(fmt)
    raws = [bytes(r) for r in _raw_list(data, fmt)]
    lazy = codec.decode_lazy(data)
    new = Message(role="user", content="replaced")
    lazy[1] = new
    assert lazy[1] is new
    parts = [raws[0], codec.encode(new), raws[2], raws[3]]
    expected = b"[" + b",".join(parts) + b"]" if fmt == "json" else b"\x94" + b"".join(parts)
    assert codec.encode(lazy) == expected


def _raw_list(data: bytes, fmt: str) -> list[msgspec.Raw]:
    module: Any = msgspec.json if fmt == "json" else msgspec.msgpack
    return module.decode(data, type=list[msgspec.Raw])  # type: ignore[no-any-return]


def test_json_keeps_each_message_s_bytes_including_spaces() -> None:
    """Untouched messages keep their own spacing and key order; the array is written compact."""
    data = b'[ {"content": "a",  "role": "user"} ,\n{"role":"tool","tool_call_id":"x"} ]'
    lazy = wire.json.decode_lazy(data)
    assert (
        wire.json.encode(lazy)
        == b'[{"content": "a",  "role": "user"},{"role":"tool","tool_call_id":"x"}]'
    )
    assert wire.json.encode(lazy[0]) == b'{"content": "a",  "role": "user"}'
    assert wire.json.encode([lazy[1], lazy[0]]) == (
        b'[{"role":"tool","tool_call_id":"x"},{"content": "a",  "role": "user"}]'
    )


def test_touched_message_is_encoded_from_its_objects() -> None:
    """Once its content was handed out, a message is written from its (changed) objects."""
    data = _seed("json")
    lazy = wire.json.decode_lazy(data)
    m = lazy[2]
    assert isinstance(m, LazyMessage)
    content = m.content
    assert isinstance(content, list)
    content[0] = TextBlock("Changed.")
    assert m.touched is True
    out = wire.json.decode(wire.json.encode(lazy))
    assert out[2].content[0] == TextBlock("Changed.")
    assert out[:2] == wire.json.decode(data)[:2]


def test_lazy_messages_equal_eager_and_mixed_lists_encode() -> None:
    """A lazy sequence equals the eager list; a list of lazy and eager messages encodes."""
    data = _seed("json")
    eager = wire.json.decode(data)
    lazy = wire.json.decode_lazy(data)
    assert lazy == eager
    assert lazy.messages() == eager
    mixed = [lazy[0], eager[1]]
    assert wire.json.encode(mixed) == wire.json.encode(eager[:2])
    assert wire.msgpack.encode(mixed) == wire.msgpack.encode(eager[:2])


@pytest.mark.parametrize(
    ("data", "error", "path"),
    [
        (b'[{"role":"user"},', DecodeError, "$"),
        (b'{"role":"user"}', ValidationError, "$"),
        (b'[{"role":"user"}]' + b" " * 100, DecodeError, "$"),
    ],
)
def test_decode_refuses_what_the_scan_sees(data: bytes, error: type, path: str) -> None:
    """Syntax, a non-array and ``max_size`` are refused at decode, as eager refuses them."""
    limits = Limits(max_size=100)
    with pytest.raises(error) as lazy_err:
        wire.json.decode_lazy(data, limits=limits)
    with pytest.raises(error) as eager_err:
        wire.json.decode(data, limits=limits)
    assert lazy_err.value.path == eager_err.value.path == path
    assert str(lazy_err.value) == str(eager_err.value)


def test_bad_content_raises_when_read_not_at_decode() -> None:
    """``validate=False``: a bad block raises only when its message is read, with its path."""
    data = b'[{"role":"user","content":"ok"},{"role":"user","content":[{"type":"text"}]}]'
    lazy = wire.json.decode_lazy(data)
    assert lazy[1].role == "user"
    assert wire.json.encode(lazy) == data
    assert lazy[0].content == "ok"
    with pytest.raises(ValidationError) as err:
        lazy[1].content  # noqa: B018
    assert err.value.path == "$[1].content[0]"
    assert err.value.message == "Object missing required field `text`"


def test_shape_refuses_a_bad_routing_field_but_not_bad_content() -> None:
    """``validate="shape"`` reads every routing field at decode; content stays unchecked."""
    bad_role = b'[{"role":"user"},{"role":"robot"}]'
    with pytest.raises(ValidationError) as err:
        wire.json.decode_lazy(bad_role, validate="shape")
    assert err.value.path == "$[1].role"
    bad_call = b'[{"role":"assistant","content":[{"type":"tool_use","name":"x","input":{}}]}]'
    with pytest.raises(ValidationError) as err:
        wire.json.decode_lazy(bad_call, validate="shape")
    assert err.value.path == "$[0].content[0]"
    bad_text = b'[{"role":"user","content":[{"type":"text","text":5}]}]'
    lazy = wire.json.decode_lazy(bad_text, validate="shape")
    assert lazy[0].role == "user"
    with pytest.raises(ValidationError) as err:
        lazy[0].content  # noqa: B018
    assert err.value.path == "$[0].content[0].text"


def test_invalid_utf8_is_named_by_message() -> None:
    """Invalid UTF-8 (which the scan does not check) raises a DecodeError naming the message,
    on a routing read too when the messages are short (their heads decode the text), and in
    an eager decode (it said ``$``)."""
    data = b'[{"role":"user","content":"ok"},{"role":"user","content":"\xff"}]'
    lazy = wire.json.decode_lazy(data)
    assert lazy[0].role == "user"
    for read in ("role", "content"):
        with pytest.raises(DecodeError) as err:
            getattr(lazy[1], read)
        assert err.value.path == "$[1]"
    with pytest.raises(DecodeError) as eager:
        wire.json.decode(data)
    assert (eager.value.message, eager.value.path) == (
        "invalid JSON: Invalid UTF-8 encoded string",
        "$[1]",
    )


def test_validate_is_checked() -> None:
    """Only False, "shape" and True are accepted for ``validate``."""
    with pytest.raises(ValueError, match="validate must be False, 'shape' or True; got 'full'"):
        wire.json.decode_lazy(b"[]", validate="full")  # type: ignore[arg-type]


@pytest.mark.parametrize("family", ["tool-heavy", "text-heavy", "multilingual", "rich"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_corpus_pass_through(family: str, fmt: str) -> None:
    """On each bench family: routing equals eager, pass-through returns the input bytes."""
    t = transcript(family, 40)
    data = json_bytes(t) if fmt == "json" else msgpack_bytes(t)
    codec = FORMATS[fmt]
    eager = codec.decode(data)
    lazy = codec.decode_lazy(data)
    assert [_routing(m) for m in lazy] == [_routing(m) for m in eager]
    assert codec.encode(lazy) == data
    assert _read_all(lazy) == eager


@pytest.mark.parametrize(
    ("block", "path", "message"),
    [
        (b'{"type":"tool_use","id":"a","name":null,"input":{}}', "$[1].content[1].name", "str"),
        (b'{"type":"tool_use","id":7,"name":"x","input":{}}', "$[1].content[1].id", "str"),
        (b'{"type":"tool_use","name":"x","input":{}}', "$[1].content[1]", "field `id`"),
        (b'{"type":5,"id":"a","name":"x"}', "$[1].content[1].type", "str"),
    ],
)
@pytest.mark.parametrize("pad", [0, 2000, 9000])
def test_unreadable_tool_call_raises_eager_error_on_routing_read(
    block: bytes, path: str, message: str, pad: int
) -> None:
    """A tool call whose id or name eager refuses is never handed out: the routing read raises
    eager's error (short messages and long ones: from 4 KiB a message on average, routing keeps
    the content raw)."""
    text = b'{"type":"text","text":"' + b"x" * pad + b'"}'
    data = b'[{"role":"user"},{"role":"assistant","content":[' + text + b"," + block + b"]}]"
    lazy = wire.json.decode_lazy(data)
    assert lazy[0].tool_names == ()
    with pytest.raises(ValidationError) as err:
        lazy[1].tool_names  # noqa: B018
    with pytest.raises(ValidationError) as eager:
        wire.json.decode(data)
    assert err.value.path == eager.value.path == path
    assert message in err.value.message
    assert lazy._src.short == (pad < 9000)


@pytest.mark.parametrize("short", [False, True])
@pytest.mark.parametrize("family", ["tool-heavy", "multilingual", "rich", "anthropic"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_both_head_modes_route_as_eager(
    family: str, fmt: str, short: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whichever way routing reads the heads (with their text, or skipping it and reading the
    block lists after), every routing field equals eager's and pass-through keeps the bytes."""
    from minagent.wire import lazy as lazy_module

    monkeypatch.setattr(lazy_module, "_decodes_text", lambda data, n: short)
    t = transcript(family, 40)
    data = json_bytes(t) if fmt == "json" else msgpack_bytes(t)
    codec = FORMATS[fmt]
    lazy = codec.decode_lazy(data)
    assert [_routing(m) for m in lazy] == [_routing(m) for m in codec.decode(data)]
    assert lazy._src.short == short
    assert codec.encode(lazy) == data


@pytest.mark.parametrize(
    ("text", "n", "short"),
    [
        ("plain ASCII " * 50, 2, True),
        ("ASCII with one é " * 50, 2, True),
        ("多言語のテキスト" * 60, 2, False),
        ("x" * 9000, 2, False),
        ("", 0, False),
    ],
)
def test_heads_decode_text_unless_it_is_mostly_non_ascii_or_long(
    text: str, n: int, short: bool
) -> None:
    """Routing decodes the heads with their text for ASCII and mostly-ASCII input, and skips it
    for mostly non-ASCII text (sampled in windows), for messages of 4 KiB or more on average,
    and for no messages at all."""
    from minagent.wire import lazy as lazy_module

    msgs = [Message("user", text)] * n
    for fmt in FORMATS.values():
        assert lazy_module._decodes_text(fmt.encode(msgs), n) is short


def test_bench_lazy_option_prints_one_row_per_family_and_format(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`minagent bench --lazy --quick` prints the eager/lazy table: header, one row per format."""
    from minagent import cli

    argv = ["bench", "--lazy", "--quick", "--family", "tool-heavy", "--size", "5"]
    assert cli.main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == [
        "family",
        "size",
        "format",
        "decode",
        "pass-through",
        "full",
        "access",
    ]
    assert [line.split()[:3] for line in lines[2:]] == [
        ["tool-heavy", "5", "json"],
        ["tool-heavy", "5", "msgpack"],
    ]
    assert len(lines) == 4


def test_frames_name_the_frame_of_an_error() -> None:
    """Messages one per MessagePack frame: errors carry ``.frame`` and the path inside it."""
    from minagent.wire._codec import MSGPACK
    from minagent.wire.lazy import from_parts

    payloads = [
        msgspec.msgpack.encode({"role": "user", "content": "hi"}),
        msgspec.msgpack.encode({"role": "user", "content": [{"type": "text", "text": 1}]}),
    ]
    lazy = from_parts(MSGPACK, payloads, False, Limits(), ("frame", [7, 8]))
    assert [m.role for m in lazy] == ["user", "user"]
    assert wire.msgpack.encode(lazy[0]) == payloads[0]
    with pytest.raises(ValidationError) as err:
        lazy[1].content  # noqa: B018
    assert (err.value.frame, err.value.path) == (8, "$.content[0].text")
    with pytest.raises(DecodeError) as bad:
        from_parts(
            MSGPACK, [payloads[0], payloads[0] + b"\xc0"], False, Limits(), ("frame", [0, 1])
        )
    assert (bad.value.frame, bad.value.path) == (1, "$")
    assert (
        bad.value.message
        == "invalid MessagePack: MessagePack data is malformed: trailing characters (byte 22)"
    )


def test_lines_span_stops_at_the_first_line_that_is_not_one_value() -> None:
    """A stream's span of lines: lazy messages before the bad line, bytes and lines used through
    it, and its error with the line number."""
    from minagent.wire.lazy import lines_span

    buf = b'{"role":"user"}\n\n{"role":"tool","tool_call_id":"c"} 1\n{"role":"user"}\n'
    items, used, lines, err = lines_span(buf, len(buf), 10, Limits())
    assert [m.role for m in items] == ["user"]
    assert (used, lines) == (buf.index(b"1\n") + 2, 3)
    assert isinstance(err, DecodeError) and (err.line, err.path) == (12, "$")
    good = b'{"role":"user"}\n  \n{"role":"tool","tool_call_id":"c"}\n'
    items, used, lines, err = lines_span(good, len(good), 1, Limits())
    assert ([m.tool_call_id for m in items], used, lines, err) == (
        [msgspec.UNSET, "c"],
        len(good),
        3,
        None,
    )
    assert wire.json.encode(items[1]) == b'{"role":"tool","tool_call_id":"c"}'


def test_frames_span_stops_at_the_first_bad_frame() -> None:
    """A stream's frames: lazy messages before the bad payload, bytes used through it, its
    error with the frame index."""
    from minagent.wire.lazy import frames_span

    good = msgspec.msgpack.encode({"role": "user", "content": "x"})
    buf = good + good + b"\xc1" + good
    spans = [(0, len(good)), (len(good), 2 * len(good)), (2 * len(good), 2 * len(good) + 1)]
    spans.append((spans[-1][1], len(buf)))
    items, used, err = frames_span(buf, spans, 5, Limits())
    assert (len(items), used) == (2, 2 * len(good) + 1)
    assert isinstance(err, DecodeError) and (err.frame, err.path) == (7, "$")
    assert [wire.msgpack.encode(m) for m in items] == [good, good]


# --- streams -------------------------------------------------------------------------------------

_STREAM = [
    {"role": "user", "content": "Добрый день"},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "c1", "name": "add", "input": {"a": 1}}],
        "id": "msg_1",
    },
    {"role": "tool", "content": "2", "tool_call_id": "c1"},
]


def _lines_bytes() -> bytes:
    return b"".join(msgspec.json.encode(m) + b"\n" for m in _STREAM)


def test_iter_lines_lazy_yields_lazy_messages_equal_to_eager(tmp_path: Any) -> None:
    """``iter_lines(lazy=True)``: LazyMessages with each line's bytes, equal to eager's objects."""
    from minagent.wire.stream import SessionLog

    path = tmp_path / "s.jsonl"
    path.write_bytes(_lines_bytes())
    with path.open("rb") as f:
        lazy = list(wire.json.iter_lines(f, lazy=True, chunk_size=7))
    with path.open("rb") as f:
        eager = list(wire.json.iter_lines(f))
    assert [type(m) for m in lazy] == [LazyMessage] * 3
    assert [m.tool_names for m in lazy] == [(), ("add",), ()]  # type: ignore[union-attr]
    assert lazy == eager
    assert wire.json.encode_lines(lazy) == _lines_bytes()
    with SessionLog(path) as log:
        logged = log.read(lazy=True)
        assert [type(m) for m in logged] == [LazyMessage] * 3
        assert logged == log.read()
    with SessionLog(tmp_path / "copy.jsonl") as copy:
        copy.append(logged)
    assert (tmp_path / "copy.jsonl").read_bytes() == _lines_bytes()


@pytest.mark.parametrize("tail", [b"", b"\n"])
def test_iter_lines_lazy_reports_a_bad_line_as_eager_does(tail: bytes, tmp_path: Any) -> None:
    """A line that is not one value: lazy yields the good lines before it, then raises eager's
    error class on the same line (an unfinished last line: `TruncatedError`)."""
    data = _lines_bytes() + b'{"role":"user"} 7' + tail
    path = tmp_path / "bad.jsonl"
    path.write_bytes(data)
    outcomes = []
    for lazy in (True, False):
        got: list[Any] = []
        with path.open("rb") as f, pytest.raises(DecodeError) as err:
            got.extend(wire.json.iter_lines(f, lazy=lazy))
        outcomes.append((len(got), type(err.value).__name__, err.value.line))
    assert outcomes[0] == outcomes[1] == (3, "DecodeError" if tail else "TruncatedError", 4)


def test_read_frames_lazy_keeps_each_frame_and_names_a_bad_one(tmp_path: Any) -> None:
    """``read_frames(lazy=True)``: each frame's payload as a LazyMessage; a bad payload raises
    with its frame index after the good ones, as eager does."""
    from minagent.wire.stream import FrameDecoder, encode_frames, read_frames

    frames = encode_frames(wire.msgpack.decode(msgspec.msgpack.encode(_STREAM)))
    path = tmp_path / "f.bin"
    path.write_bytes(frames)
    with path.open("rb") as f:
        lazy = list(read_frames(f, lazy=True))
    assert [type(m) for m in lazy] == [LazyMessage] * 3
    assert [m.role for m in lazy] == ["user", "assistant", "tool"]
    assert encode_frames(lazy) == frames
    path.write_bytes(frames + b"\x00\x00\x00\x02\xc1\xc1" + frames)
    for flag in (True, False):
        got: list[Any] = []
        with path.open("rb") as f, pytest.raises(DecodeError) as err:
            got.extend(read_frames(f, lazy=flag))
        assert (len(got), err.value.frame, err.value.path) == (3, 3, "$")
    decoder = FrameDecoder(lazy=True)
    assert len(decoder.feed(path.read_bytes())) == 3
    with pytest.raises(DecodeError):
        decoder.feed()
    assert [m.role for m in decoder.feed()] == ["user", "assistant", "tool"]
    assert decoder.frames == 7


def test_socket_router_forwards_frames_byte_for_byte() -> None:
    """A real loopback socket: ``receive(lazy=True)`` routes by tool name and ``send`` forwards
    the untouched messages as the bytes that arrived."""
    import asyncio

    from minagent.wire.stream import encode_frames, receive, send

    sent = wire.msgpack.decode(msgspec.msgpack.encode(_STREAM))
    forwarded: list[bytes] = []

    async def router(reader: Any, writer: Any) -> None:
        async for m in receive(reader, lazy=True):
            if m.role == "user" or "add" in m.tool_names:
                forwarded.append(encode_frames(m))
                await send(writer, m)
        writer.close()

    async def main() -> list[Any]:
        server = await asyncio.start_server(router, "127.0.0.1", 0)
        reader, writer = await asyncio.open_connection(*server.sockets[0].getsockname()[:2])
        await send(writer, sent)
        writer.write_eof()
        out = [m async for m in receive(reader)]
        writer.close()
        server.close()
        await server.wait_closed()
        return out

    assert asyncio.run(main()) == sent[:2]
    assert forwarded == [encode_frames(m) for m in sent[:2]]


def test_iter_lines_lazy_limits_each_line_not_the_batch(tmp_path: Any) -> None:
    """``max_size`` bounds each line of a lazy stream, as eager: many short lines pass, a line
    over it is refused with its number."""
    from minagent.wire.stream import LineTooLongError

    path = tmp_path / "many.jsonl"
    path.write_bytes(_lines_bytes() * 40)
    limits = Limits(max_size=200)
    with path.open("rb") as f:
        assert len(list(wire.json.iter_lines(f, lazy=True, limits=limits))) == 120
    path.write_bytes(_lines_bytes() + b'{"role":"user","content":"' + b"x" * 300 + b'"}\n')
    with path.open("rb") as f, pytest.raises(LineTooLongError) as err:
        list(wire.json.iter_lines(f, lazy=True, limits=limits))
    assert err.value.line == 4


@pytest.mark.parametrize("depth", [995, 1030, 3000])
@pytest.mark.parametrize("max_depth", [64, 1000])
def test_deep_nesting_is_judged_as_eager_judges_it(depth: int, max_depth: int) -> None:
    """Nesting near and beyond ``max_depth``: lazy accepts what eager accepts (the scan gets the
    same headroom) and raises eager's error, path included, where eager raises."""
    inner = b"[" * depth + b"]" * depth
    data = (
        b'[{"role":"user","content":[{"type":"tool_use","id":"a","name":"b","input":{"x":'
        + inner
        + b"}}]}]"
    )
    limits = Limits(max_depth=max_depth)
    eager = _outcome(lambda: wire.json.encode(wire.json.decode(data, limits=limits)))
    lazy = _outcome(lambda: wire.json.encode(wire.json.decode_lazy(data, limits=limits).messages()))
    assert lazy[0] == eager[0] == ("ok" if (depth, max_depth) == (995, 1000) else "DecodeError")
    assert lazy[1] == eager[1]  # the same bytes (objects this deep do not compare in Python)


# --- threads ------------------------------------------------------------------------------------


def _threaded_edits(lz: LazyMessages, threads: int, edit: Any) -> None:
    """Run ``edit(lz, k, threads)`` in ``threads`` threads started together, switching
    between them as often as the interpreter allows (so that races show)."""
    import sys
    import threading

    barrier = threading.Barrier(threads)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)

    def run(k: int) -> None:
        barrier.wait()
        edit(lz, k, threads)

    workers = [threading.Thread(target=run, args=(k,)) for k in range(threads)]
    try:
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        sys.setswitchinterval(interval)


@pytest.mark.parametrize("fmt", [wire.json, wire.msgpack], ids=["json", "msgpack"])
def test_threads_editing_disjoint_messages_lose_nothing(fmt: Any) -> None:
    """Eight threads set ``lz[i].message.content`` on disjoint indices of one lazy decode (4,000
    messages, interleaved so that their first decodes race over the same chunks); every one of
    the 4,000 edits is in the encoded output, and each message object is the one handed out."""
    n, threads = 4000, 8
    data = fmt.encode([Message("user", f"m{i}") for i in range(n)])
    lz = fmt.decode_lazy(data)
    seen: list[Any] = [None] * n

    def edit(lz: LazyMessages, k: int, step: int) -> None:
        for i in range(k, n, step):
            item = lz[i]
            assert isinstance(item, LazyMessage)
            item.message.content = f"edited {i}"
            seen[i] = item.message

    _threaded_edits(lz, threads, edit)
    back = fmt.decode(fmt.encode(lz))
    assert [m.content for m in back] == [f"edited {i}" for i in range(n)]
    assert all(lz[i].message is seen[i] for i in range(n))  # type: ignore[union-attr]


# --- MessagePack in one pass ---------------------------------------------------------------------


def test_msgpack_untouched_is_the_input_itself_when_its_header_is_the_shortest() -> None:
    """An untouched MessagePack decode writes back the very input bytes, without a scan of the
    messages; an input whose array header is longer than needed (array 32 for 2 items) is
    written with the shortest header and the same message bytes."""
    msgs = [Message("user", "a"), Message("assistant", "b")]
    data = wire.msgpack.encode(msgs)
    lazy = wire.msgpack.decode_lazy(data)
    assert [m.role for m in lazy] == ["user", "assistant"]  # type: ignore[union-attr]
    assert wire.msgpack.encode(lazy) is data
    assert lazy._src._raws is None  # routing and writing back never split the messages
    body = data[1:]
    padded = b"\xdd\x00\x00\x00\x02" + body
    again = wire.msgpack.decode_lazy(padded)
    assert wire.msgpack.encode(again) == data
    assert [bytes(m.raw) for m in again] == [wire.msgpack.encode(m) for m in msgs]  # type: ignore[union-attr]


def test_msgpack_one_pass_falls_back_to_the_scan_for_a_bad_head() -> None:
    """A message whose role is not one of the four is not read by the one-pass heads: the decode
    still succeeds (syntax only), the good messages route, and the bad one raises the eager
    error at its path when read."""
    data = msgspec.msgpack.encode(
        [{"role": "user", "content": "a"}, {"role": "robot", "content": "b"}]
    )
    lazy = wire.msgpack.decode_lazy(data)
    assert lazy[0].role == "user"  # type: ignore[union-attr]
    with pytest.raises(ValidationError) as err:
        lazy[1].role  # type: ignore[union-attr]  # noqa: B018
    assert err.value.path == "$[1].role"
    assert wire.msgpack.encode(lazy) == data


@pytest.mark.parametrize("touch", [0, 1, 2])
def test_msgpack_touched_after_one_pass_writes_the_others_as_their_bytes(touch: int) -> None:
    """After a one-pass decode, touching message ``touch`` (its bytes found by a scan then) writes
    it from its objects and the other two as their original bytes."""
    msgs = [Message("user", "a"), Message("assistant", "b"), Message("user", "c")]
    lazy = wire.msgpack.decode_lazy(wire.msgpack.encode(msgs))
    item = lazy[touch]
    assert isinstance(item, LazyMessage)
    item.message.content = "changed"
    out = wire.msgpack.decode(wire.msgpack.encode(lazy))
    expected = [m.content for m in msgs]
    expected[touch] = "changed"
    assert [m.content for m in out] == expected


# --- pinned by mutation testing (docs/mutation.md) ----------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "msgpack"])
def test_decoders_tables_name_each_first_byte_of_a_content(fmt: str) -> None:
    """The per-format decoders, built afresh: the eager decoder of the format, and the table
    that maps a content's first byte to L(ist), S(tr), A(bsent) or O(ther) by the format's
    spec (JSON: ``"`` and ``[``; MessagePack: fixstr, str 8/16/32, fixarray, array 16/32)."""
    from minagent.wire._codec import JSON, MSGPACK
    from minagent.wire.lazy import _Decoders

    dec = _Decoders(JSON if fmt == "json" else MSGPACK)
    assert dec.json is (fmt == "json")
    assert dec.full is FORMATS[fmt].decode
    if fmt == "json":
        strings, lists = {0x22}, {0x5B}
    else:
        strings = {*range(0xA0, 0xC0), 0xD9, 0xDA, 0xDB}
        lists = {*range(0x90, 0xA0), 0xDC, 0xDD}
    expected = bytes(
        ord("S")
        if b in strings
        else ord("L")
        if b in lists
        else ord("A")
        if b == 0xC1
        else ord("O")
        for b in range(256)
    )
    assert dec.kinds == expected
    data = FORMATS[fmt].encode([Message("user", "a"), Message("tool", "b", tool_call_id="c")])
    assert [bytes(r) for r in dec.raws.decode(data)] == [
        FORMATS[fmt].encode(Message("user", "a")),
        FORMATS[fmt].encode(Message("tool", "b", tool_call_id="c")),
    ]
    one = dec.one.decode(FORMATS[fmt].encode(Message("user", "a")))
    assert bytes(one) == FORMATS[fmt].encode(Message("user", "a"))
    for short in (0, 1):
        heads = dec.heads[short].decode(data)
        assert [(h.role, h.tool_call_id, type(h).__name__) for h in heads] == [
            ("user", msgspec.UNSET, "_ShortHead" if short else "_Head"),
            ("tool", "c", "_ShortHead" if short else "_Head"),
        ]
        head = dec.head[short].decode(FORMATS[fmt].encode(Message("tool", "b", tool_call_id="c")))
        assert (head.role, head.tool_call_id, type(head).__name__) == (
            "tool",
            "c",
            "_ShortHead" if short else "_Head",
        )
    blocks = [{"type": "tool_use", "id": "i", "name": "n", "input": {}}, {"type": "text"}]
    encoded = (msgspec.json if fmt == "json" else msgspec.msgpack).encode(blocks)
    assert [(b.type, b.id, b.name) for b in dec.blocks.decode(encoded)] == [
        ("tool_use", "i", "n"),
        ("text", msgspec.UNSET, msgspec.UNSET),
    ]
    nested = (msgspec.json if fmt == "json" else msgspec.msgpack).encode([blocks, []])
    assert [len(b) for b in dec.block_lists.decode(nested)] == [2, 0]


def test_lazy_message_equals_a_lazy_message_of_another_decode() -> None:
    """Two lazy messages (of two decodes) compare by their decoded messages: equal for the same
    message, unequal for another; a lazy message and a non-message are never equal."""
    data = b'[{"role":"user","content":"a"},{"role":"user","content":"b"}]'
    a, b = (
        wire.json.decode_lazy(data),
        wire.msgpack.decode_lazy(wire.msgpack.encode(wire.json.decode(data))),
    )
    assert a[0] == b[0]
    assert a[1] == b[1]
    assert a[0].__eq__(b[1]) is False  # type: ignore[union-attr]
    assert a[0] != b[1]
    assert a[0] != "a"
    assert a[0].__eq__("a") is NotImplemented  # type: ignore[union-attr]


def test_lazy_messages_compare_by_length_then_each_message() -> None:
    """A `LazyMessages` equals a list (or another decode) of equal messages in order; another
    length, one other message, or another order is unequal; other types are not compared."""
    data = b'[{"role":"user","content":"a"},{"role":"user","content":"b"}]'
    lazy = wire.json.decode_lazy(data)
    eager = wire.json.decode(data)
    assert lazy == eager
    assert lazy == wire.json.decode_lazy(data)
    assert lazy != eager[:1]
    assert lazy != [*eager, eager[0]]
    assert lazy != [eager[0], Message("user", "c")]
    assert lazy != eager[::-1]
    assert lazy.__eq__("ab") is NotImplemented
    assert lazy.__eq__(tuple(eager)) is NotImplemented


def test_lazy_messages_item_assignment_errors_say_what_is_accepted() -> None:
    """``lazy[i] = x`` takes a Message or LazyMessage at one index; anything else is a
    TypeError with this exact text, and the items stay as they were."""
    lazy = wire.json.decode_lazy(b'[{"role":"user","content":"a"}]')
    with pytest.raises(TypeError) as err:
        lazy[0] = "a"  # type: ignore[assignment]
    assert str(err.value) == "expected a Message or LazyMessage, got str"
    with pytest.raises(TypeError) as err:
        lazy[0:1] = Message("user", "b")  # type: ignore[index]
    assert str(err.value) == "LazyMessages items are replaced one index at a time"
    assert wire.json.encode(lazy) == b'[{"role":"user","content":"a"}]'


@pytest.mark.parametrize("lines", [False, True])
def test_nesting_too_deep_for_the_scan_is_one_decode_error(lines: bool) -> None:
    """Nesting far past the interpreter's recursion limit (100,000 levels), with a small
    ``max_depth``: one DecodeError with this exact text, at ``$`` (and on its line for JSON
    Lines), never a RecursionError."""
    deep = b"[" * 100_000 + b"]" * 100_000
    data = b'{"role":"user"}\n' + deep + b"\n" if lines else b"[" + deep + b"]"
    with pytest.raises(DecodeError) as err:
        wire.json.decode_lazy(data, limits=Limits(max_depth=10), lines=lines)
    assert err.value.message == (
        "invalid JSON: nesting deeper than max_depth=10 or the interpreter's recursion limit"
    )
    assert (err.value.path, err.value.line) == ("$", 2 if lines else None)


def test_lines_span_counts_only_json_whitespace_as_blank() -> None:
    """A line holding a form feed is not blank (JSON's whitespace is space, tab, CR, LF): it
    is the span's bad line, line 2, after one good message."""
    from minagent.wire.lazy import lines_span

    buf = b'{"role":"user"}\n\x0c\n'
    items, used, lines, err = lines_span(buf, len(buf), 1, Limits())
    assert ([m.role for m in items], used, lines) == (["user"], len(buf), 2)
    assert isinstance(err, DecodeError) and (err.line, err.path) == (2, "$")


def test_frames_span_of_no_frames_uses_no_bytes() -> None:
    """An empty list of frames: no messages, 0 bytes used, no error."""
    from minagent.wire.lazy import frames_span

    assert frames_span(b"", [], 3, Limits()) == ([], 0, None)


def test_holds_lazy_names_lazy_values_and_lists_holding_one() -> None:
    """`holds_lazy`: a LazyMessages, a LazyMessage or a list holding one; not an empty list, a
    list of eager messages, a tuple or a Message."""
    from minagent.wire.lazy import holds_lazy

    lazy = wire.json.decode_lazy(b'[{"role":"user"}]')
    eager = Message("user", "a")
    assert holds_lazy(lazy) is True
    assert holds_lazy(lazy[0]) is True
    assert holds_lazy([eager, lazy[0]]) is True
    assert holds_lazy([]) is False
    assert holds_lazy([eager]) is False
    assert holds_lazy((lazy[0],)) is False
    assert holds_lazy(eager) is False


def test_reprs_name_the_format_index_and_size() -> None:
    """The reprs: format, number of messages; format, index and bytes of one message."""
    lazy = wire.msgpack.decode_lazy(wire.msgpack.encode([Message("user", "a")] * 2))
    assert repr(lazy) == "LazyMessages(MessagePack, 2 messages)"
    assert repr(lazy[1]) == "LazyMessage(MessagePack, index=1, 21 bytes)"


def test_a_replacement_keeps_the_other_messages_spacing() -> None:
    """With one item replaced, the untouched JSON messages are still written as their own
    bytes, spaces and key order included; only the replacement is written compact."""
    data = b'[ {"content": "a",  "role": "user"} , {"role":"tool", "tool_call_id":"x"} ]'
    lazy = wire.json.decode_lazy(data)
    lazy[0] = Message("user", "b")
    assert wire.json.encode(lazy) == (
        b'[{"role":"user","content":"b"},{"role":"tool", "tool_call_id":"x"}]'
    )


def test_registering_the_lazy_types_with_the_codec_names_both() -> None:
    """`lazy._register` adds exactly the two lazy types to the codec's table (idempotent)."""
    from minagent.wire import _codec, lazy

    lazy._register()
    registered = _codec._LAZY_TYPES
    assert registered == {LazyMessage, LazyMessages}


@pytest.mark.parametrize("n", [0, 15, 300, 65_836])
def test_msgpack_one_pass_reads_each_shortest_array_header(n: int) -> None:
    """A MessagePack array of ``n`` messages under its shortest header (fixarray up to 15,
    array 16 up to 65,535, array 32 beyond) is read in one pass: routing splits no message,
    and writing it back untouched returns the very input object."""
    data = wire.msgpack.encode([Message("user", "")] * n)
    assert data[:1] == (
        b"\x90" if n == 0 else b"\x9f" if n == 15 else b"\xdc" if n == 300 else b"\xdd"
    )
    lazy = wire.msgpack.decode_lazy(data)
    assert len(lazy) == n
    if n:
        assert (lazy[0].role, lazy[n - 1].role) == ("user", "user")  # type: ignore[union-attr]
    assert lazy._src._raws is None
    assert lazy._src.verbatim is True
    assert wire.msgpack.encode(lazy) is data


@pytest.mark.parametrize("header", [b"\xdc\x00\x02", b"\xdd\x00\x00\x00\x02"])
def test_msgpack_one_pass_reads_a_longer_header_and_writes_the_shortest(header: bytes) -> None:
    """Two messages under an array 16 or array 32 header: read in one pass too (routing
    splits no message), not verbatim, and written back with the fixarray header and each
    message's own bytes."""
    shortest = wire.msgpack.encode([Message("user", "a"), Message("tool", "b", tool_call_id="c")])
    lazy = wire.msgpack.decode_lazy(header + shortest[1:])
    assert [m.tool_call_id for m in lazy] == [msgspec.UNSET, "c"]  # type: ignore[union-attr]
    assert lazy._src._raws is None
    assert lazy._src.verbatim is False
    assert wire.msgpack.encode(lazy) == shortest


def test_messages_are_the_decoded_messages_and_the_replacements() -> None:
    """`LazyMessages.messages()` returns `Message` objects: each lazy item's decoded message
    (the very object its ``.message`` hands out) and each replacement as it was set."""
    lazy = wire.json.decode_lazy(b'[{"role":"user","content":"a"},{"role":"user","content":"b"}]')
    new = Message("assistant", "c")
    lazy[1] = new
    out = lazy.messages()
    assert [type(m) for m in out] == [Message, Message]
    assert out[0] is lazy[0].message  # type: ignore[union-attr]
    assert out[1] is new
    assert out == [Message("user", "a"), new]


@pytest.mark.parametrize(
    ("size", "start", "stop", "expected"),
    [
        (1500, 128, 832, True),
        (2049, 0, 512, True),
        (2049, 128, 1088, True),
        (2049, 320, 1344, False),
        (2049, 0, 1024, False),
        (2049, 0, 832, True),
        (2049, 0, 64, True),
        (2049, 0, 768, True),
    ],
)
def test_text_decoding_is_judged_on_four_evenly_spread_windows(
    size: int, start: int, stop: int, expected: bool
) -> None:
    """`_decodes_text` on one message of ``size`` bytes whose bytes ``start:stop`` are >= 0x80:
    up to 2 KiB the whole input is judged, above it the four 512-byte windows at 0, step,
    2 step and 3 step (step = (size - 512) // 3); text is decoded when more than half of the
    judged bytes are ASCII. Each case puts the non-ASCII run where only those windows give
    ``expected``."""
    from minagent.wire.lazy import _decodes_text

    data = b"x" * start + b"\x80" * (stop - start) + b"x" * (size - stop)
    assert _decodes_text(data, 1) is expected


def test_text_decoding_edges_no_messages_long_messages_and_half_ascii() -> None:
    """`_decodes_text` at its edges: no messages (False), one short ASCII message (True), an
    average of exactly 4 KiB per message (False; a byte less is True), exactly half the bytes
    ASCII (False; one ASCII byte more is True)."""
    from minagent.wire.lazy import LONG, _decodes_text

    assert LONG == 4096
    assert _decodes_text(b"[]", 0) is False
    assert _decodes_text(b"x" * 10, 1) is True
    assert _decodes_text(b"x" * (2 * LONG), 2) is False
    assert _decodes_text(b"x" * (2 * LONG - 1), 2) is True
    assert _decodes_text(b"\x80" * 1000 + b"x" * 1000, 1) is False
    assert _decodes_text(b"\x80" * 1000 + b"x" * 1001, 1) is True


def test_each_format_s_decoders_are_built_once() -> None:
    """`_decoders` hands out one `_Decoders` per codec, the same object on every call."""
    from minagent.wire._codec import JSON, MSGPACK
    from minagent.wire.lazy import _decoders

    assert _decoders(JSON) is _decoders(JSON)
    assert _decoders(MSGPACK) is _decoders(MSGPACK)
    assert _decoders(JSON) is not _decoders(MSGPACK)
    assert (_decoders(JSON).json, _decoders(MSGPACK).json) == (True, False)


def test_decode_takes_bytes_bytearray_memoryview_and_names_anything_else() -> None:
    """Bytes, a bytearray and a memoryview decode alike, and writing back untouched gives
    `bytes` (never the caller's mutable buffer); a float is a TypeError with this text."""
    data = wire.msgpack.encode([Message("user", "a")])
    for buffer in (data, bytearray(data), memoryview(data)):
        out = wire.msgpack.encode(wire.msgpack.decode_lazy(buffer))
        assert (type(out), out) == (bytes, data)
    with pytest.raises(TypeError) as err:
        wire.json.decode_lazy(1.5)  # type: ignore[arg-type]
    assert str(err.value) == (
        "data must be bytes, bytearray or memoryview: cannot convert 'float' object to bytes"
    )


def test_an_input_of_exactly_max_size_bytes_is_accepted() -> None:
    """``max_size`` is the largest accepted input: 31 bytes pass ``max_size=31``, not 30."""
    data = b'[{"role":"user","content":"a"}]'
    assert len(data) == 31
    assert wire.json.decode_lazy(data, limits=Limits(max_size=31))[0].role == "user"  # type: ignore[union-attr]
    with pytest.raises(DecodeError) as err:
        wire.json.decode_lazy(data, limits=Limits(max_size=30))
    assert err.value.message == "JSON input of 31 bytes is over the limit max_size=30"


@pytest.mark.parametrize("touch", [False, True])
def test_one_lazy_message_encodes_canonical_when_asked(touch: bool) -> None:
    """``encode(lazy[i], canonical=True)`` sorts the keys, untouched or touched; without it an
    untouched message is its bytes and a touched one is written from its objects."""
    lazy = wire.json.decode_lazy(b'[{"role":"user",  "content":"a"}]')
    item = lazy[0]
    assert isinstance(item, LazyMessage)
    if touch:
        item.message  # noqa: B018
    assert wire.json.encode(item, canonical=True) == b'{"content":"a","role":"user"}'
    assert wire.json.encode(item) == (
        b'{"role":"user","content":"a"}' if touch else b'{"role":"user",  "content":"a"}'
    )
    assert wire.msgpack.encode(item) == wire.msgpack.encode(Message("user", "a"))


@pytest.mark.parametrize("bad", [0, 1, 2])
def test_validate_true_on_lines_checks_every_line(bad: int) -> None:
    """``validate=True`` on JSON Lines decodes every line up front: a bad role on line
    ``bad + 1`` of three raises there."""
    lines = [b'{"role":"user"}'] * 3
    lines[bad] = b'{"role":"robot"}'
    with pytest.raises(ValidationError) as err:
        wire.json.decode_lazy(b"\n".join(lines) + b"\n", lines=True, validate=True)
    assert (err.value.line, err.value.path) == (bad + 1, "$.role")


def test_messages_after_a_read_keep_the_objects_handed_out() -> None:
    """`messages()` after ``lazy[i].message`` was read returns that very object (no message
    is decoded twice or replaced)."""
    lazy = wire.json.decode_lazy(b'[{"role":"user","content":"a"},{"role":"user","content":"b"}]')
    first = lazy[0].message  # type: ignore[union-attr]
    second = lazy[1].message  # type: ignore[union-attr]
    out = lazy.messages()
    assert out[0] is first
    assert out[1] is second


@pytest.mark.parametrize("text", ["x", "x" * 20_000], ids=["short-heads", "raw-heads"])
def test_routing_a_message_too_deep_for_its_head_reads_the_full_decode(text: str) -> None:
    """A tool call whose input nests 1,500 deep (within ``max_depth``; on 3.12, whose guard
    stops msgspec near 1,500 whatever the stack, just below the measured guard) is past what
    the head decoder reads: routing then takes its ids and names from the full decode,
    exactly, in either head mode (short text decoded with the heads, long text skipped)."""
    depth = 1500
    if not interpreter.guard_counts_python_frames():  # 3.12+: a fixed C guard
        depth = min(depth, interpreter.msgspec_guard() - 20)
    inner = b"[" * depth + b"]" * depth
    data = (
        b'[{"role":"user","content":"' + text.encode() + b'"},'
        b'{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"b","input":{"x":'
        + inner
        + b'}},{"type":"tool_use","id":"c","name":"d","input":{}}]}]'
    )
    lazy = wire.json.decode_lazy(data, limits=Limits(max_depth=1510))
    second = lazy[1]
    assert isinstance(second, LazyMessage)
    assert (second.role, second.tool_call_ids, second.tool_names) == (
        "assistant",
        ("a", "c"),
        ("b", "d"),
    )
    assert (lazy[0].tool_call_ids, lazy[0].tool_names) == ((), ())  # type: ignore[union-attr]
    assert second.tool_call_ids == ("a", "c")  # the second read: from the calls kept
    assert lazy._src.short == (text == "x")


@pytest.mark.parametrize("fmt", ["json", "msgpack"])
def test_reading_out_of_order_gives_each_message_and_keeps_what_was_handed_out(fmt: str) -> None:
    """On a small input, reading message 1 first, then 2, then 0 gives each its own content,
    and a message handed out before is the same object after the others were decoded."""
    codec = FORMATS[fmt]
    lazy = codec.decode_lazy(codec.encode([Message("user", t) for t in ("a", "b", "c")]))
    assert lazy[1].content == "b"  # type: ignore[union-attr]
    second = lazy[1].message  # type: ignore[union-attr]
    third = lazy[2].message  # type: ignore[union-attr]
    assert (lazy[0].content, third.content) == ("a", "c")  # type: ignore[union-attr]
    assert lazy[1].message is second  # type: ignore[union-attr]
    assert lazy[2].message is third  # type: ignore[union-attr]
    assert [m.content for m in lazy.messages()] == ["a", "b", "c"]
    fresh = codec.decode_lazy(codec.encode([Message("user", t) for t in ("a", "b", "c")]))
    kept = fresh[2].message  # type: ignore[union-attr]
    assert fresh[0].content == "a"  # type: ignore[union-attr]
    assert fresh[2].message is kept  # type: ignore[union-attr]
    assert len(fresh._src.messages) == 3
