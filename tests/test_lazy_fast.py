"""Lazy JSON read in one pass (`minagent.wire.lazy._json_one_pass`, `_compact`, `_mostly_ascii`).

Mostly non-ASCII JSON is read like a MessagePack array: one msgspec call decodes the heads (text
skipped), no scan; everything written back untouched is the input itself when the input is as
long as msgspec writing the heads (then it is their compact framing). These tests pin when that
path is taken, what it writes, and that it raises what the scan path raises; and when a scanned
input is written back as itself.
"""

from __future__ import annotations

import threading
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minagent import wire
from minagent.bench.corpus import json_bytes, transcript
from minagent.wire import LazyMessage, Message, TextBlock, ToolUseBlock
from minagent.wire import lazy as lazy_module
from minagent.wire.errors import DecodeError, ValidationError

CJK = "多言語のテキストです。"
"""Eleven characters, 33 bytes of UTF-8: a message of them is mostly bytes >= 0x80."""


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


def _cjk_messages() -> list[Message]:
    return [
        Message("system", CJK * 3),
        Message("user", CJK * 4),
        Message(
            "assistant",
            [TextBlock(CJK), ToolUseBlock(id="call_1", name="検索", input={"q": CJK})],
        ),
        Message("tool", CJK * 2, tool_call_id="call_1", is_error=False),
        Message("tool", CJK, tool_call_id="call_é", is_error=True),
    ]


def test_mostly_non_ascii_json_is_read_in_one_pass_and_written_back_as_the_input() -> None:
    """The heads are decoded at decode (no scan), routing equals eager, and writing back
    untouched returns the very input object, with still no scan."""
    data = wire.json.encode(_cjk_messages())
    lazy = wire.json.decode_lazy(data)
    src = lazy._src
    assert (src._raws, src.short, src.verbatim) == (None, 0, None)
    assert src.heads is not None and len(src.heads) == 5
    assert [_routing(m) for m in lazy] == [_routing(m) for m in wire.json.decode(data)]
    assert [m.tool_names for m in lazy] == [(), (), ("検索",), (), ()]  # type: ignore[union-attr]
    assert wire.json.encode(lazy) is data
    assert (src._raws, src.verbatim) == (None, True)


def test_ascii_json_keeps_the_scan() -> None:
    """ASCII JSON is scanned at decode (its heads decode the text on the first routing read)."""
    data = wire.json.encode([Message("user", "plain text " * 20)] * 3)
    lazy = wire.json.decode_lazy(data)
    assert lazy._src._raws is not None and len(lazy._src._raws) == 3
    assert lazy._src.heads is None
    assert lazy[0].role == "user"  # type: ignore[union-attr]
    assert lazy._src.short == 1


def test_one_pass_declines_when_the_heads_would_decode_the_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """If `_decodes_text` says the heads decode the text, the one pass gives way to the scan,
    and routing reads short heads."""
    monkeypatch.setattr(lazy_module, "_decodes_text", lambda data, n: True)
    data = wire.json.encode(_cjk_messages())
    lazy = wire.json.decode_lazy(data)
    assert lazy._src._raws is not None and lazy._src.heads is None
    assert [_routing(m) for m in lazy] == [_routing(m) for m in wire.json.decode(data)]
    assert lazy._src.short == 1
    assert wire.json.encode(lazy) == data


def test_spacing_between_messages_is_dropped_as_the_scan_path_drops_it() -> None:
    """Spaces around the messages make the input not compact: writing back scans it and
    frames the messages compact, each message's own bytes (spaces inside) kept."""
    one = '{"role":"user", "content":"' + CJK * 3 + '"}'
    two = '{"role":"tool","content":"' + CJK + '","tool_call_id":"x"}'
    data = f"[ {one} ,\n{two} ]".encode()
    lazy = wire.json.decode_lazy(data)
    assert lazy._src.heads is not None and lazy._src._raws is None
    assert wire.json.encode(lazy) == f"[{one},{two}]".encode()
    assert lazy._src.verbatim is False
    assert [bytes(r) for r in lazy._src.raws] == [one.encode(), two.encode()]


@pytest.mark.parametrize(
    "message",
    [
        '{"role":"user","content":"C","id":"msg_1"}',  # a key the heads do not read
        '{"role":"user","content":"C","content":"C"}',  # a key twice
        '{"role":"tool","content":"C","tool_call_id":"\\u0061"}',  # an escape msgspec avoids
        '{"role": "user","content":"C"}',  # a space inside the message
    ],
)
def test_a_compact_input_longer_than_its_heads_is_framed_from_the_scan(message: str) -> None:
    """`_compact` says False when the input is longer than msgspec writing its heads; the
    scan then frames the same bytes (the input was compact), a new object."""
    data = ("[" + message.replace('"C"', '"' + CJK * 3 + '"') + "]").encode()
    lazy = wire.json.decode_lazy(data)
    assert lazy._src.heads is not None and lazy._src._raws is None
    assert lazy_module._compact(data, lazy._src.heads) is False
    out = wire.json.encode(lazy)
    assert out == data and out is not data
    assert lazy._src.verbatim is False


@pytest.mark.parametrize(
    "message",
    [
        '{"content":"C","role":"user"}',
        '{"role":"tool","is_error":false,"content":"C","tool_call_id":"a"}',
    ],
)
def test_another_key_order_is_still_the_input_itself(message: str) -> None:
    """Key order does not change the length: a compact input with the keys in another order
    is written back as the input itself, with no scan."""
    data = ("[" + message.replace('"C"', '"' + CJK * 3 + '"') + "]").encode()
    lazy = wire.json.decode_lazy(data)
    assert wire.json.encode(lazy) is data
    assert (lazy._src._raws, lazy._src.verbatim) == (None, True)


def test_compact_is_as_long_as_msgspec_writing_the_heads() -> None:
    """`_compact` on hand-written inputs: no content key, a tool result with both optional
    keys, an empty array (True); one trailing newline or space after the array (False)."""
    dec = msgspec.json.Decoder(list[lazy_module._Head])
    for data in (
        b'[{"role":"user"}]',
        b'[{"role":"tool","content":[],"tool_call_id":"t","is_error":true},{"role":"system"}]',
        b"[]",
    ):
        assert lazy_module._compact(data, dec.decode(data)) is True, data
    for data in (b'[{"role":"user"}]\n', b'[{"role":"user"} ]', b"[ ]"):
        assert lazy_module._compact(data, dec.decode(data)) is False, data


def test_mostly_ascii_counts_half_of_the_sampled_bytes() -> None:
    """`_mostly_ascii`: True for ASCII and when bytes >= 0x80 are fewer than half, False at
    half or more; inputs over four 512-byte windows are judged on the windows only."""
    assert lazy_module._mostly_ascii(b"") is True
    assert lazy_module._mostly_ascii(b"\x80" * 10 + b"x" * 11) is True
    assert lazy_module._mostly_ascii(b"\x80" * 10 + b"x" * 10) is False
    # Four windows of 512 bytes, 1,000-byte gaps: the windows are sampled, the gaps are not.
    ascii_windows = (b"x" * 512 + b"\x80" * 1000) * 3 + b"x" * 512
    high_windows = (b"\x80" * 512 + b"x" * 1000) * 3 + b"\x80" * 512
    assert lazy_module._mostly_ascii(ascii_windows) is True
    assert lazy_module._mostly_ascii(high_windows) is False
    assert lazy_module._mostly_ascii(b"x" * 1025 + b"\x80" * 1023) is True  # whole: 2,048 bytes
    assert lazy_module._mostly_ascii(b"x" * 1024 + b"\x80" * 1024) is False


def test_decodes_text_is_long_or_script() -> None:
    """`_decodes_text` still answers as before its script test moved to `_mostly_ascii`."""
    assert lazy_module._decodes_text(b"x" * 100, 0) is False
    assert lazy_module._decodes_text(b"\xe5" * 100, 1) is False
    assert lazy_module._decodes_text(b"x" * 100, 1) is True
    assert lazy_module._decodes_text(b"x" * (lazy_module.LONG * 3), 3) is False


def test_one_pass_syntax_error_is_the_scan_s_error() -> None:
    """Non-ASCII JSON that does not parse: the heads fail, the scan raises its own error."""
    data = ('[{"role":"user","content":"' + CJK * 3 + '"},]').encode()
    with pytest.raises(DecodeError) as err:
        wire.json.decode_lazy(data)
    assert err.value.path == "$"
    assert "invalid JSON" in err.value.message
    assert err.value.message == _scan_error(data)


def _scan_error(data: bytes) -> str:
    """What the scan path raises for ``data`` (ASCII padding keeps it off the one pass)."""
    from minagent.wire._codec import JSON

    try:
        lazy_module._scan(lazy_module._decoders(JSON).raws, data, wire.Limits())
    except msgspec.DecodeError as err:
        return JSON.decode_error(err, data).message
    raise AssertionError("the scan accepted it")


def test_one_pass_bad_role_is_read_as_eager_reads_it() -> None:
    """A role the heads refuse makes the one pass give way to the scan; reading that role
    raises eager's error at eager's path, the other messages route."""
    data = ('[{"role":"user","content":"' + CJK * 3 + '"},{"role":"robot","content":"x"}]').encode()
    lazy = wire.json.decode_lazy(data)
    assert lazy._src._raws is not None
    assert lazy[0].role == "user"  # type: ignore[union-attr]
    with pytest.raises(ValidationError) as err:
        lazy[1].role  # noqa: B018
    assert err.value.path == "$[1].role"


def test_one_pass_shape_check_raises_eager_s_error_at_decode() -> None:
    """``validate="shape"`` on the one pass reads every tool call: a bad one raises at decode."""
    data = (
        '[{"role":"user","content":"'
        + CJK * 3
        + '"},{"role":"assistant","content":[{"type":"tool_use","id":7,"name":"n","input":{}}]}]'
    ).encode()
    with pytest.raises(ValidationError) as err:
        wire.json.decode_lazy(data, validate="shape")
    assert err.value.path == "$[1].content[0].id"


def test_one_pass_touched_message_is_written_from_its_objects() -> None:
    """After one message is touched, the others are written as their bytes (the scan runs
    then) and the touched one from its objects."""
    msgs = _cjk_messages()
    data = wire.json.encode(msgs)
    lazy = wire.json.decode_lazy(data)
    first = lazy[1].message  # type: ignore[union-attr]
    first.content = "changed"
    msgs[1].content = "changed"
    assert wire.json.encode(lazy) == wire.json.encode(msgs)
    assert lazy._src._raws is not None


def test_one_pass_threads_write_back_the_input() -> None:
    """Threads routing and writing back one lazy decode all get the input itself."""
    data = json_bytes(transcript("multilingual", 60))
    lazy = wire.json.decode_lazy(data)
    assert lazy._src.heads is not None and lazy._src._raws is None
    barrier = threading.Barrier(4)
    outs: list[Any] = []

    def run() -> None:
        barrier.wait()
        names = [m.tool_names for m in lazy]  # type: ignore[union-attr]
        outs.append((names, wire.json.encode(lazy)))

    workers = [threading.Thread(target=run) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    expected = [tuple(b.name for b in m.tool_calls) for m in wire.json.decode(data)]
    assert len(outs) == 4
    assert all(names == expected and out is data for names, out in outs)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["system", "user", "assistant", "tool"]),
            st.text(alphabet="多言語テキスト", min_size=1, max_size=30),
            st.booleans(),
            st.sampled_from([None, True, False]),
        ),
        max_size=8,
    )
)
def test_one_pass_routes_and_writes_back_as_eager(rows: list[tuple[str, str, bool, Any]]) -> None:
    """On generated CJK conversations (text, tool calls, tool results): routing equals eager,
    writing back untouched gives the input itself when it took the one pass."""
    msgs = []
    for k, (role, text, call, error) in enumerate(rows):
        if call:
            content: Any = [TextBlock(text), ToolUseBlock(id=f"c{k}", name=text, input={})]
            msgs.append(Message(role, content))  # type: ignore[arg-type]
        elif error is None:
            msgs.append(Message(role, text))  # type: ignore[arg-type]
        else:
            msgs.append(Message(role, text, tool_call_id=f"c{k}", is_error=error))  # type: ignore[arg-type]
    data = wire.json.encode(msgs)
    lazy = wire.json.decode_lazy(data)
    assert [_routing(m) for m in lazy] == [_routing(m) for m in msgs]
    out = wire.json.encode(lazy)
    assert out == data
    one_pass = lazy._src._raws is None
    assert one_pass == (bool(msgs) and not lazy_module._mostly_ascii(data))
    if one_pass:
        assert out is data


# --- writing back untouched: the input itself when it is the framing -----------------------------


def test_compact_ascii_json_is_written_back_as_the_input_itself() -> None:
    """Scanned JSON whose messages fill the array with no space is the input itself when
    written back untouched (no copy); `verbatim` is found by length on the first write."""
    data = wire.json.encode([Message("user", "a"), Message("assistant", "b")])
    lazy = wire.json.decode_lazy(data)
    assert lazy._src._raws is not None and lazy._src.verbatim is None
    assert wire.json.encode(lazy) is data
    assert lazy._src.verbatim is True


@pytest.mark.parametrize(
    ("data", "out"),
    [
        (b'[{"role":"user"}]\n', b'[{"role":"user"}]'),
        (b'[{"role":"user"} ,{"role":"tool"}]', b'[{"role":"user"},{"role":"tool"}]'),
        (b"[ ]", b"[]"),
        (b" []", b"[]"),
    ],
)
def test_a_space_anywhere_in_the_framing_is_not_the_input(data: bytes, out: bytes) -> None:
    """One byte of space around or between the messages: written back framed compact."""
    lazy = wire.json.decode_lazy(data)
    assert wire.json.encode(lazy) == out
    assert lazy._src.verbatim is False


def test_empty_array_is_its_own_framing() -> None:
    """``[]`` (and an empty MessagePack array) are written back as the input itself."""
    data = b"[]"
    assert wire.json.encode(wire.json.decode_lazy(data)) is data
    packed = wire.msgpack.encode([])
    assert wire.msgpack.encode(wire.msgpack.decode_lazy(packed)) is packed


def test_one_pass_scanned_since_is_judged_by_its_spans() -> None:
    """A one-pass JSON input whose messages were scanned before the write-back (a message's
    `raw` was read) is judged by the length of its spans, which accepts a key the heads do
    not read (`_compact` refuses it)."""
    data = ('[{"role":"user","content":"' + CJK * 3 + '","id":"m"}]').encode()
    lazy = wire.json.decode_lazy(data)
    assert lazy._src.heads is not None and lazy._src._raws is None
    assert lazy[0].raw == data[1:-1]  # type: ignore[union-attr]
    assert wire.json.encode(lazy) is data
    assert lazy._src.verbatim is True


def test_json_lines_are_framed_unless_a_line_holds_spaces() -> None:
    """JSON Lines decoded lazily: the lines framed as an array when each line is one value with
    no space around it; a line with spaces around its value is framed without them."""
    lines = b'{"role":"user"}\n{"role":"tool"}\n'
    assert wire.json.encode(wire.json.decode_lazy(lines, lines=True)) == (
        b'[{"role":"user"},{"role":"tool"}]'
    )
    spaced = wire.json.decode_lazy(b' {"role":"user"} \n{"role":"tool"}\n', lines=True)
    assert wire.json.encode(spaced) == b'[{"role":"user"},{"role":"tool"}]'
    assert spaced._src.verbatim is False


def test_msgpack_frames_are_written_back_as_one_array() -> None:
    """MessagePack payloads read lazily as frames: written back as one array, each message's
    bytes kept (the joined payloads are that array)."""
    from minagent.wire.lazy import frames_span

    one, two = wire.msgpack.encode(Message("user", "a")), wire.msgpack.encode(Message("tool", "b"))
    buf = one + two
    items, used, err = frames_span(buf, [(0, len(one)), (len(one), len(buf))], 0, wire.Limits())
    assert (used, err) == (len(buf), None)
    assert wire.msgpack.encode(items) == b"\x92" + one + two
    assert items[0]._src.verbatim is None
    assert wire.msgpack.encode(wire.msgpack.decode_lazy(b"\x92" + one + two)) == b"\x92" + one + two


@pytest.mark.parametrize(("header", "verbatim"), [(b"\x92", True), (b"\xdc\x00\x02", False)])
def test_scanned_msgpack_is_the_input_when_its_header_is_the_shortest(
    header: bytes, verbatim: bool
) -> None:
    """A MessagePack array the one pass cannot read (a role it refuses) is scanned; written
    back untouched it is the input itself under the shortest header, else re-framed."""
    good = wire.msgpack.encode(Message("user", "a"))
    bad = msgspec.msgpack.encode({"role": "robot", "content": "b"})
    data = header + good + bad
    lazy = wire.msgpack.decode_lazy(data)
    assert lazy._src._raws is not None
    out = wire.msgpack.encode(lazy)
    assert out == b"\x92" + good + bad
    assert (out is data) is verbatim
    assert lazy._src.verbatim is verbatim


def test_one_pass_content_errors_keep_eager_s_path() -> None:
    """A bad block in a one-pass JSON input: reading that message raises eager's error at
    eager's path (the scan runs for the chunk), reading the message before it does not."""
    data = (
        '[{"role":"user","content":"'
        + CJK * 10
        + '"},{"role":"assistant","content":[{"type":"text"}]},{"role":"user","content":"x"}]'
    ).encode()
    lazy = wire.json.decode_lazy(data)
    assert lazy._src.heads is not None and lazy._src._raws is None
    assert [m.role for m in lazy] == ["user", "assistant", "user"]  # type: ignore[union-attr]
    assert lazy[2].content == "x"  # type: ignore[union-attr]
    with pytest.raises(ValidationError) as err:
        lazy[1].content  # noqa: B018
    with pytest.raises(ValidationError) as eager:
        wire.json.decode(data)
    assert err.value.path == eager.value.path == "$[1].content[0]"
    assert err.value.message == eager.value.message
    assert lazy[0].content == CJK * 10  # type: ignore[union-attr]


def test_msgspec_writes_every_code_point_at_its_shortest() -> None:
    """What `_compact` rests on, checked on the installed msgspec: each character is written
    in the fewest bytes JSON allows (raw UTF-8; two-byte escapes for quote, backslash and the
    five short controls; six bytes for the other controls). Every ASCII character and every
    97th code point beyond (surrogates have no UTF-8 form to write)."""
    short = {'"', "\\", "\b", "\f", "\n", "\r", "\t"}
    points = [*range(0x80), *range(0x80, 0x110000, 97), 0x2028, 0x2029, 0xFFFF, 0x10FFFF]
    for point in points:
        if 0xD800 <= point < 0xE000:
            continue
        char = chr(point)
        shortest = (
            4 if char in short else 8 if point < 0x20 else len(char.encode()) + 2
        )  # with the quotes
        assert len(msgspec.json.encode(char)) == shortest, hex(point)
