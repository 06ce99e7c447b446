"""The msgspec codec's public API: names, exact outputs, conveniences, binary data, errors."""

from __future__ import annotations

import base64
import json
from typing import Any

import msgspec
import pytest

from minagent import types as ref
from minagent import wire
from tests.test_types import SEED_CONVERSATION, SEED_OUTPUT

SEED_JSON = SEED_OUTPUT.splitlines()[0].encode()


def test_public_names_are_pinned() -> None:
    """minagent.wire exports exactly this sorted list of names."""
    assert wire.__all__ == [
        "Base64Source", "BashCodeExecutionToolResultBlock", "BrowserStateBlock",
        "CodeExecutionToolResultBlock", "ContainerUploadBlock", "ContentBlock", "ContentSource",
        "DeadLetterError",
        "DecodeError", "DocumentBlock", "EncodeError", "Extra", "FileSource", "ImageBlock",
        "LazyMessage", "LazyMessages", "Limits", "McpToolResultBlock", "McpToolUseBlock", "Message",
        "ModelResponse", "MsgpackOnly", "RedactedThinkingBlock", "Role", "SearchResultBlock",
        "ServerToolUseBlock", "Source", "TextBlock", "TextEditorCodeExecutionToolResultBlock",
        "TextSource", "ThinkingBlock", "ToolReferenceBlock", "ToolResultBlock",
        "ToolSearchToolResultBlock", "ToolUseBlock", "UnknownBlock", "UnknownSource", "UrlSource",
        "ValidationError", "WebFetchToolResultBlock", "WebSearchToolResultBlock", "WireError",
        "check", "from_reference", "json", "lazy", "msgpack", "to_reference"
    ]  # fmt: skip
    for name in wire.__all__:
        assert hasattr(wire, name), name


def test_error_tree() -> None:
    """Every codec error is a WireError, itself a ValueError; the three kinds are siblings."""
    assert issubclass(wire.WireError, ValueError)
    for cls in (wire.DecodeError, wire.ValidationError, wire.EncodeError):
        assert issubclass(cls, wire.WireError)
    assert not issubclass(wire.ValidationError, wire.DecodeError)


def test_seed_conversation_example() -> None:
    """The seed's five messages: decode its printed JSON, agree with the reference, re-encode."""
    decoded = wire.json.decode(SEED_JSON)
    assert decoded == wire.from_reference(SEED_CONVERSATION)
    assert wire.to_reference(decoded) == SEED_CONVERSATION
    assert decoded[2].content == [
        wire.ToolUseBlock(id="call_1", name="add", input={"a": 1, "b": 2})
    ]
    assert decoded[3].tool_call_id == "call_1"
    assert (
        wire.json.encode(decoded, canonical=True)
        == json.dumps(
            json.loads(SEED_JSON), ensure_ascii=False, sort_keys=True, separators=(",", ":")
        ).encode()
    )
    assert (
        wire.json.encode(decoded)
        == (
            '[{"role":"system","content":"你是一个只做加法的助手。"},'
            '{"role":"user","content":"1 + 2 等于多少？"},'
            '{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"add",'
            '"input":{"a":1,"b":2}}]},'
            '{"role":"tool","content":"3","tool_call_id":"call_1"},'
            '{"role":"assistant","content":"结果是 3。"}]'
        ).encode()
    )


def test_decode_accepts_bytes_bytearray_memoryview() -> None:
    """decode takes bytes, bytearray and memoryview in both formats."""
    packed = wire.msgpack.encode(wire.json.decode(SEED_JSON))
    for fmt, data in ((wire.json, SEED_JSON), (wire.msgpack, packed)):
        expected = fmt.decode(data)
        assert fmt.decode(bytearray(data)) == expected
        assert fmt.decode(memoryview(data)) == expected


def test_max_size_counts_the_bytes_of_a_memoryview_of_any_format() -> None:
    """A memoryview of 8-byte items is measured in bytes (its ``nbytes``), not in items."""
    data = wire.json.encode([wire.Message("user", "abcdefg")])
    data += b" " * (-len(data) % 8)
    view = memoryview(data).cast("Q")
    assert wire.json.decode(view, limits=wire.Limits(max_size=len(data))) == [
        wire.Message("user", "abcdefg")
    ]
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode(view, limits=wire.Limits(max_size=len(data) - 1))
    assert info.value.message == (
        f"JSON input of {len(data)} bytes is over the limit max_size={len(data) - 1}"
    )


@pytest.mark.parametrize("fmt", [wire.json, wire.msgpack], ids=["json", "msgpack"])
def test_decode_of_a_non_buffer_says_what_it_takes(fmt: Any) -> None:
    """A list passed as data is a TypeError naming the accepted types and what it got."""
    with pytest.raises(TypeError) as info:
        fmt.decode([1, 2])
    assert str(info.value) == (
        "data must be bytes, bytearray or memoryview: a bytes-like object is required, not 'list'"
    )


@pytest.mark.parametrize(
    ("tp", "data", "path"),
    [
        (wire.Message, b'{"role":"user","content":[{"type":"x","v":1e400}]}', "$.content[0].v"),
        (
            wire.ModelResponse,
            b'{"message":{"role":"user","content":[{"type":"x","v":[2,-1e400]}]}}',
            "$.message.content[0].v[1]",
        ),
    ],
)
def test_a_number_out_of_range_in_unknown_data_of_one_object_is_located(
    tp: Any, data: bytes, path: str
) -> None:
    """1e400 in an unknown block of a lone Message or ModelResponse (the lossless path of a
    non-list type) is a ValidationError at its exact path."""
    with pytest.raises(wire.ValidationError) as info:
        wire.json.decode(data, type=tp)
    assert (info.value.message, info.value.path) == ("Number out of range", path)


def test_decode_types() -> None:
    """type= selects Message, list[Message], ModelResponse or list[ModelResponse]."""
    one = b'{"role":"user","content":"hi"}'
    assert wire.json.decode(one, type=wire.Message) == wire.Message("user", "hi")
    resp = b'{"message":{"role":"assistant","content":"ok"},"stop_reason":"end_turn","usage":{"input_tokens":3}}'  # noqa: E501
    expected = wire.ModelResponse(wire.Message("assistant", "ok"), "end_turn", {"input_tokens": 3})
    assert wire.json.decode(resp, type=wire.ModelResponse) == expected
    assert wire.json.decode(b"[" + resp + b"]", type=list[wire.ModelResponse]) == [expected]
    with pytest.raises(TypeError, match="type must be one of"):
        wire.json.decode(one, type=dict)


def test_absent_versus_empty() -> None:
    """Absent content decodes as "" and is always written; tool_call_id/is_error only when set."""
    msg = wire.json.decode(b'{"role":"assistant"}', type=wire.Message)
    assert msg.content == ""
    assert wire.json.encode(msg) == b'{"role":"assistant","content":""}'
    tool = wire.json.decode(
        b'{"role":"tool","content":"","tool_call_id":"","is_error":false}', type=wire.Message
    )
    assert tool.tool_call_id == "" and tool.is_error is False
    assert (
        wire.json.encode(tool) == b'{"role":"tool","content":"","tool_call_id":"","is_error":false}'
    )
    with pytest.raises(wire.ValidationError) as err:
        wire.json.decode(b'{"role":"tool","content":"x","tool_call_id":null}', type=wire.Message)
    assert err.value.path == "$.tool_call_id"


def test_conveniences() -> None:
    """Message.text joins text blocks (or is the string); tool_calls lists tool_use blocks."""
    msg = wire.Message(
        "assistant",
        [
            wire.TextBlock("Let me "),
            wire.ThinkingBlock("hmm", signature="sig"),
            wire.TextBlock("check."),
            wire.ToolUseBlock("c1", "search", {"q": "x"}),
        ],
    )
    assert msg.text == "Let me check."
    assert msg.tool_calls == [wire.ToolUseBlock("c1", "search", {"q": "x"})]
    assert wire.Message("user", "plain").text == "plain"
    assert wire.Message("user", "plain").tool_calls == []


def _image_transcript(size: int) -> list[wire.Message]:
    payload = bytes(range(256)) * (size // 256)
    return [
        wire.Message("user", [wire.TextBlock("What is this?"), wire.ImageBlock(
            wire.Base64Source("image/png", payload))]),
        wire.Message("assistant", [wire.DocumentBlock(wire.UrlSource("https://example.com/a.pdf"))]),
    ]  # fmt: skip


def test_binary_stays_binary() -> None:
    """Image bytes are bytes in memory, base64 in JSON, bin in MessagePack, exact both ways."""
    conv = _image_transcript(30_000)
    as_json = wire.json.encode(conv)
    as_msgpack = wire.msgpack.encode(conv)
    data = conv[0].content[1].source.data  # type: ignore[union-attr]
    assert base64.b64encode(data) in as_json
    assert data in as_msgpack
    for fmt, encoded in ((wire.json, as_json), (wire.msgpack, as_msgpack)):
        back = fmt.decode(encoded)
        assert back == conv
        assert type(back[0].content[1].source.data) is bytes  # type: ignore[union-attr]


def test_msgpack_is_smaller_by_the_base64_overhead() -> None:
    """With images, MessagePack is smaller than JSON by about a third of the image size."""
    conv = _image_transcript(30_000)
    image_size = len(conv[0].content[1].source.data)  # type: ignore[union-attr]
    saved = len(wire.json.encode(conv)) - len(wire.msgpack.encode(conv))
    base64_overhead = len(base64.b64encode(bytes(image_size))) - image_size
    assert base64_overhead * 0.95 <= saved <= base64_overhead * 1.05


def test_errors_name_the_path() -> None:
    """Wrong shapes raise ValidationError whose .path points at the culprit."""
    cases = {
        b'[{"role":"user"},{"role":"user","content":[{"type":"text","text":1}]}]': (
            "$[1].content[0].text"
        ),
        b'[{"role":"robot","content":"x"}]': "$[0].role",
        b'[{"role":"user","content":[{"type":"tool_use","name":"x","input":{}}]}]': (
            "$[0].content[0]"
        ),
        b'[{"role":"user","content":[{"text":"no type"}]}]': "$[0].content[0]",
        b'[{"role":"user","content":[{"type":7}]}]': "$[0].content[0].type",
        b'{"role":"user"}': "$",
        b'[{"role":"user","content":5}]': "$[0].content",
        b'[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"x","data":"%%"}}]}]': (  # noqa: E501
            "$[0].content[0].source.data"
        ),
    }
    for data, path in cases.items():
        for fmt, payload in (
            (wire.json, data),
            (wire.msgpack, msgspec.msgpack.encode(json.loads(data))),
        ):
            if fmt is wire.msgpack and b"%%" in data:
                continue  # the base64 case is JSON-only
            with pytest.raises(wire.ValidationError) as err:
                fmt.decode(payload)
            assert err.value.path == path, (data, fmt)
            assert path in str(err.value)


def test_malformed_bytes_raise_decode_error() -> None:
    """Invalid JSON / MessagePack, invalid UTF-8 and lone surrogates raise DecodeError."""
    for data in (b"[", b'[{"role":"user"}] x', b'["\xff"]', b'"\\ud800"', b""):
        with pytest.raises(wire.DecodeError):
            wire.json.decode(data)
    for data in (b"\x91", b"\x91\xa2\xff\xfe", b"\xc1", b""):
        with pytest.raises(wire.DecodeError):
            wire.msgpack.decode(data)


def test_encode_refuses_what_the_target_cannot_hold() -> None:
    """No silent change: >64-bit ints into MessagePack, NaN/inf and bin/ext from MessagePack into
    JSON, lone surrogates anywhere: EncodeError naming the path."""
    big = [wire.Message("assistant", [wire.ToolUseBlock("c", "n", {"n": [1, 2**64]})])]
    assert wire.json.decode(wire.json.encode(big)) == big  # JSON holds it
    with pytest.raises(wire.EncodeError) as err:
        wire.msgpack.encode(big)
    assert err.value.path == "$[0].content[0].input.n[1]"

    for value in (float("nan"), float("inf"), -float("inf"), b"\x00\x01",
                  msgspec.msgpack.Ext(5, b"xy"), {1: "integer key"}):  # fmt: skip
        packed = msgspec.msgpack.encode(
            [{"role": "assistant", "content": [
                {"type": "tool_use", "id": "c", "name": "n", "input": {"k": {"v": [value]}}}]}]
        )  # fmt: skip
        decoded = wire.msgpack.decode(packed)
        assert wire.msgpack.encode(decoded) == packed  # MessagePack holds it exactly
        with pytest.raises(wire.EncodeError) as err:
            wire.json.encode(decoded)
        assert err.value.path == "$[0].content[0].input.k.v[0]", value

    with pytest.raises(wire.EncodeError) as err:
        wire.json.encode([wire.Message("user", "ok"), wire.Message("user", "bad \ud800")])
    assert err.value.path == "$[1].content"


def test_to_reference_refuses_what_it_cannot_hold() -> None:
    """to_reference raises ValidationError rather than dropping thinking, images, extras."""
    cannot = [
        wire.Message("assistant", [wire.ThinkingBlock("x"), wire.ToolUseBlock("c", "n", {})]),
        wire.Message("user", [wire.ImageBlock(wire.UrlSource("https://x"))]),
        wire.Message("user", "x", extra=wire.Extra(id="m1")),
        wire.Message("tool", "boom", tool_call_id="c", is_error=True),
        wire.Message("assistant", [wire.TextBlock("only text")]),
        wire.Message("assistant", [wire.ToolUseBlock("c", "n", {}), wire.TextBlock("after")]),
        wire.Message("assistant", []),
    ]
    for msg in cannot:
        with pytest.raises(wire.ValidationError, match="reference cannot hold"):
            wire.to_reference(msg)
    ok = wire.Message("assistant", [wire.TextBlock("t"), wire.ToolUseBlock("c", "n", {"a": 1})])
    assert wire.to_reference(ok) == ref.Message(
        "assistant", "t", [ref.ToolCall("c", "n", {"a": 1})]
    )


def test_wrong_argument_types_raise_type_error() -> None:
    """Non-bytes input and non-protocol objects are programming errors: TypeError."""
    with pytest.raises(TypeError):
        wire.msgpack.decode(123)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        wire.from_reference({"role": "user"})  # type: ignore[call-overload]
    with pytest.raises(TypeError):
        wire.to_reference("x")  # type: ignore[call-overload]


def test_msgpack_only_values_are_wrapped_where_they_sit() -> None:
    """bin data, NaN and non-string keys inside a MessagePack tool input decode wrapped in
    MsgpackOnly, compare equal to the raw value, and write back byte-exact."""
    value = {"blob": b"\x00\xff", "xs": [1.5, float("inf")], "m": {2: 3}, "ok": "text"}
    block_wire = {"type": "tool_use", "id": "a", "name": "b", "input": value}
    packed = msgspec.msgpack.encode([{"role": "user", "content": [block_wire]}])
    block = wire.msgpack.decode(packed)[0].content[0]
    assert isinstance(block, wire.ToolUseBlock)
    assert type(block.input["blob"]) is wire.MsgpackOnly
    assert block.input["blob"] == b"\x00\xff"
    assert block.input["xs"][0] == 1.5 and type(block.input["xs"][1]) is wire.MsgpackOnly
    assert block.input["m"] == {2: 3} and block.input["ok"] == "text"
    assert wire.msgpack.encode([wire.Message("user", [block])]) == packed


def test_msgpack_only_values_below_the_typed_levels_are_found_too() -> None:
    """A bin value nested deeper than msgspec types a tool input is still wrapped, and plain
    deep values still decode on the fast path unchanged."""
    deep: Any = b"\x01"
    plain: Any = "leaf"
    for _ in range(wire.blocks.TYPED_LEVELS + 3):
        deep, plain = [deep], {"k": plain}
    for value, wrapped in ((deep, True), (plain, False)):
        block_wire = {"type": "tool_use", "id": "a", "name": "b", "input": {"v": value}}
        packed = msgspec.msgpack.encode([{"role": "user", "content": [block_wire]}])
        decoded = wire.msgpack.decode(packed)
        assert wire.msgpack.encode(decoded) == packed
        if wrapped:
            with pytest.raises(wire.EncodeError) as err:
                wire.json.encode(decoded)
            assert err.value.path == "$[0].content[0].input.v" + "[0]" * (
                wire.blocks.TYPED_LEVELS + 3
            )
        else:
            assert json.loads(wire.json.encode(decoded))[0]["content"][0]["input"]["v"] == value


def _outcome(call: Any, *args: Any) -> Any:
    try:
        return ("ok", call(*args))
    except wire.WireError as err:
        return (type(err).__name__, err.message, err.path)


@pytest.mark.parametrize("name", ["JSON", "MSGPACK"])
def test_a_codec_built_from_a_formats_parts_behaves_as_that_format(name: str) -> None:
    """`Codec` built again from the same parts as ``wire.json`` / ``wire.msgpack`` (the module's
    codecs are built at import): the same results and errors on the fast, lossless, canonical,
    refusal, limit and timestamp paths, so that every constructor argument is used as meant."""
    import msgspec

    from minagent.wire import _codec

    built = getattr(_codec, name)
    fresh = _codec.Codec(
        msgspec.json if name == "JSON" else msgspec.msgpack,
        built.name,
        text=built._text,
        enc_hook=_codec._json_hook if name == "JSON" else _codec._msgpack_hook,
        refused=built._refused,
        unencodable=built._unencodable,
        special=built._special,
    )
    enc = msgspec.json.encode if name == "JSON" else msgspec.msgpack.encode
    inputs = [
        [{"role": "user", "content": "hi"}],
        [{"role": "user", "content": [{"type": "x_new", "n": 1}], "k": True}],
        [{"role": "robot", "content": "hi"}],
        {"message": {"role": "assistant", "content": "a"}, "stop_reason": "end_turn"},
    ]
    for value in inputs:
        for tp in (list[wire.Message], wire.Message, wire.ModelResponse):
            data = enc(value)
            assert _outcome(fresh.decode, data, tp) == _outcome(built.decode, data, tp)
    block = {"type": "tool_use", "id": "t", "name": "f", "input": {"v": [[[[[[[[[[1]]]]]]]]]]}}
    deep = enc([{"role": "user", "content": [block]}])
    limits = wire.Limits(max_depth=9)
    tp = list[wire.Message]
    assert _outcome(fresh.decode, deep, tp, limits) == _outcome(built.decode, deep, tp, limits)
    if name == "MSGPACK":
        # 4 bytes as msgspec would write them again; 12 bytes it would shorten: kept only by
        # the timestamp-keeping reader (``special``).
        for raw in (b"\0" * 4, b"\0" * 11 + b"\1"):
            t = msgspec.msgpack.Ext(-1, raw)
            stamp = msgspec.msgpack.encode([{"role": "user", "content": [{"type": "x", "t": t}]}])
            assert fresh.encode(fresh.decode(stamp, list[wire.Message]), False) == stamp
    module = msgspec.json if name == "JSON" else msgspec.msgpack
    assert (fresh.name, fresh.text, fresh.module) == (built.name, name == "JSON", module)
    assert {
        tp: (d.type, d.dec_hook) for tp, d in ((t, fresh.decoder_for(t)) for t in _codec.DECODABLE)
    } == {tp: (tp, _codec._dec_hook) for tp in _codec.DECODABLE}
    assert fresh._raw_list.type == list[msgspec.Raw]
    refused = _codec._values.json_problem if name == "JSON" else None
    assert (fresh._refused, fresh._unencodable) == (refused, built._unencodable)
    messages = built.decode(enc(inputs[1]), list[wire.Message])
    nan = [wire.Message("assistant", [wire.ToolUseBlock(id="t", name="f", input={"v": 1e999})])]
    for obj in (messages, nan, [wire.Message("user", "\ud800")]):
        for canonical in (False, True):
            assert _outcome(fresh.encode, obj, canonical) == _outcome(built.encode, obj, canonical)
    with pytest.raises(TypeError) as info:
        fresh.decode(b"[]", int)
    assert str(info.value).startswith("type must be one of list[Message], Message")


def test_headroom_is_taken_once_per_thread() -> None:
    """`_codec._with_headroom` raises the recursion limit for one call and restores it; a call
    nested inside it gets RecursionError at once (without the mark it would wait forever on the
    headroom lock); a thread that never used it starts without that mark."""
    import sys
    import threading

    from minagent.wire import _codec

    def in_thread(call: Any) -> object:
        """``call()`` in a new thread: its result or exception (a hang fails after 20 s)."""
        out: list[object] = []

        def run() -> None:
            try:
                out.append(call())
            except BaseException as err:  # returned to the test
                out.append(err)

        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(20)
        assert not worker.is_alive(), "a nested _with_headroom call hung"
        return out[0]

    limit = sys.getrecursionlimit()

    def nested() -> object:
        assert sys.getrecursionlimit() == limit + 10
        return _codec._with_headroom(10, lambda: "deeper")

    assert in_thread(lambda: _codec._with_headroom(10, lambda: "ok")) == "ok"
    err = in_thread(lambda: _codec._with_headroom(10, nested))
    assert type(err) is RecursionError and str(err) == "nesting too deep even with headroom"
    assert sys.getrecursionlimit() == limit
    assert _codec._with_headroom(10, lambda: "ok") == "ok"


def test_encode_refusals_name_the_value_and_its_path() -> None:
    """A tuple key in a tool input is refused by JSON naming the key; a MessagePack-only value in
    a message's unknown keys is refused naming that key, canonical or not."""
    import msgspec

    block = wire.ToolUseBlock(id="t", name="f", input={"x": {(1, 2): 1}})
    with pytest.raises(wire.EncodeError) as keys:
        wire.json.encode([wire.Message("assistant", [block])])
    assert (keys.value.message, keys.value.path) == (
        "cannot write JSON: object key (1, 2) is not a string (JSON keys are strings)",
        "$[0].content[0].input.x",
    )
    msg = wire.json.decode(b'{"role":"user","content":"a","k":1}', type=wire.Message)
    bad = msgspec.structs.replace(msg, extra=wire.Extra({"k": wire.MsgpackOnly(b"x")}))
    for canonical in (False, True):
        with pytest.raises(wire.EncodeError) as info:
            wire.json.encode(bad, canonical=canonical)
        assert (info.value.message, info.value.path) == (
            "cannot write JSON: binary data (MessagePack bin) cannot be written as JSON inside "
            "generic data",
            "$.k",
        )


class _Opaque:
    """A value neither format can write."""

    def __repr__(self) -> str:
        return "<opaque>"


@pytest.mark.parametrize(
    ("value", "message", "path"),
    [
        ({1: _Opaque()}, "values of type _Opaque are not supported", "$.content[0].input.x.1"),
        ({_Opaque(): 1}, "object key <opaque>: values of type _Opaque are not supported",
         "$.content[0].input.x"),
        ({"a": 1, 2**64: 1}, "object key 18446744073709551616: integer 18446744073709551616 does "
         "not fit in 64 bits (MessagePack's range)", "$.content[0].input.x"),
    ],
)  # fmt: skip
def test_msgpack_refuses_what_it_cannot_write_not_non_string_keys(
    value: Any, message: str, path: str
) -> None:
    """MessagePack keys need not be strings: the refusal names the value or key it cannot write
    (an int key beside an unsupported value was blamed as "object keys must be strings")."""
    block = wire.ToolUseBlock(id="t", name="f", input={"x": value})
    with pytest.raises(wire.EncodeError) as info:
        wire.msgpack.encode(wire.Message("assistant", [block]))
    assert (info.value.message, info.value.path) == ("cannot write MessagePack: " + message, path)


_MISPLACED = wire.Extra({"z": 1})


def _misplaced_cases() -> list[tuple[Any, str]]:
    msg = wire.json.decode(b'{"role":"user","content":[{"type":"new"}],"k":1}', type=wire.Message)
    tool = wire.ToolUseBlock(id="t", name="f", input={"a": [1, {"k": _MISPLACED}], "b": _MISPLACED})
    return [
        (wire.Message("user", [tool]), "$.content[0].input.a[1].k"),
        ([msg, wire.Message("user", [tool])], "$[1].content[0].input.a[1].k"),
        (msgspec.structs.replace(msg, extra=wire.Extra({"k": _MISPLACED})), "$.k"),
        (wire.Message("user", _MISPLACED), "$.content"),  # type: ignore[arg-type]
        (wire.ModelResponse(wire.Message("user", "a"), usage={"n": _MISPLACED}), "$.usage.n"),
        (_MISPLACED, "$"),
    ]


@pytest.mark.parametrize("fmt", [wire.json, wire.msgpack], ids=["json", "msgpack"])
@pytest.mark.parametrize("case", range(6))
def test_an_extra_where_no_object_spreads_it_is_refused_at_its_path(fmt: Any, case: int) -> None:
    """An `Extra` put in a tool input, inside another Extra, as content, in usage or alone has
    no object to spread into: EncodeError naming the first (the private _NeedsLossless got out),
    fast or canonical, lone or in a list."""
    obj, path = _misplaced_cases()[case]
    for canonical in (False, True):
        with pytest.raises(wire.EncodeError) as info:
            fmt.encode(obj, canonical=canonical)
        assert (info.value.message, info.value.path) == (
            f"cannot write {'JSON' if fmt is wire.json else 'MessagePack'}: an Extra is written "
            "only as the unknown keys of a message, block or source (use a dict for a value)",
            path,
        )


def test_canonical_holds_on_the_deep_and_lazy_encode_paths() -> None:
    """Canonical JSON sorts keys also when the value nests nearly ``max_depth`` deep (encoded
    with recursion headroom) and when the list holds lazy messages."""
    from minagent.wire.limits import DEFAULT

    value: Any = 1
    for _ in range(DEFAULT.max_depth - 10):
        value = [value]
    deep = [
        wire.Message("assistant", [wire.ToolUseBlock(id="t", name="f", input={"b": 1, "a": value})])
    ]
    out = wire.json.encode(deep, canonical=True)
    assert out.startswith(b'[{"content":[{"id":"t","input":{"a":[[[')
    assert out.endswith(b']]],"b":1},"name":"f","type":"tool_use"}],"role":"assistant"}]')
    lazy = list(wire.json.decode_lazy(b'[{"role":"user","content":"a"}]'))
    assert wire.json.encode(lazy, canonical=True) == b'[{"content":"a","role":"user"}]'


def _mp_message(content: bytes) -> bytes:
    return b"\x82\xa4role\xa4user\xa7content" + content


_MALFORMED_ON_SLOW_PATHS = [
    (
        "json",
        b'[{"role":"user","content":[{"type":"x"}]},{"role":"user","content":"a\xff"}]',
        "invalid JSON: Invalid UTF-8 encoded string",
        "$[1]",
    ),
    (
        "json",
        b'[{"role":"user","content":"a\xff"},{"role":"user","content":[{"type":"x"}]}]',
        "invalid JSON: Invalid UTF-8 encoded string",
        "$[0]",
    ),
    (
        "json",
        b'[{"role":"user","content":[{"type":"x"}]},{"role":"user","content":"a"',
        "invalid JSON: Input data was truncated",
        "$",
    ),
    (
        "json",
        b'[{"role":"user","content":"a","k":"\xff"}]',
        "invalid JSON: Invalid UTF-8 encoded string",
        "$[0]",
    ),
    (
        "json",
        b'[{"role":"user","content":"a"},{"role":5,"content":"\xff"}]',
        "invalid JSON: Invalid UTF-8 encoded string",
        "$[1]",
    ),
    (
        "msgpack",
        b"\x92" + _mp_message(b"\xa1a") + b"\x82\xa4role\x05\xa7content\xa1\xff",
        "invalid MessagePack: Invalid UTF-8 encoded string",
        "$[1]",
    ),
    (
        "msgpack",
        b"\x92" + _mp_message(b"\x91\x81\xa4type\xa1x") + _mp_message(b"\xc1"),
        "invalid MessagePack: MessagePack data is malformed: invalid opcode '\\xc1' (byte 48)",
        "$",
    ),
    (
        "msgpack",
        b"\x91\x83\xa4role\xa4user\xa7content\xa1a\xa1k\xc1",
        "invalid MessagePack: MessagePack data is malformed: invalid opcode '\\xc1' (byte 24)",
        "$",
    ),
]


@pytest.mark.parametrize(("fmt", "data", "message", "path"), _MALFORMED_ON_SLOW_PATHS)
def test_malformed_input_beside_unknown_data_is_reported_as_msgspec_says(
    fmt: str, data: bytes, message: str, path: str
) -> None:
    """Malformed bytes met on the fast, lossless and element-by-element paths (beside unknown
    blocks, keys and shape errors) raise DecodeError with msgspec's own text for those bytes;
    bad UTF-8 inside an element is named at that element whichever path met it (a shape error
    or the fast path first said ``$``)."""
    codec = wire.json if fmt == "json" else wire.msgpack
    with pytest.raises(wire.DecodeError) as info:
        codec.decode(data)
    assert (info.value.message, info.value.path) == (message, path)
