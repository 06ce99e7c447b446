"""Forward compatibility: unknown blocks, unknown keys and unknown sources survive every trip."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from minagent import wire
from tests import strategies as s

DATA = Path(__file__).parent / "data" / "provider-examples"

# Block types no catalog entry names (a beta block, invented ones): these stay UnknownBlock.
UNKNOWN_BLOCKS: list[dict[str, Any]] = [
    {"type": "compaction", "content": "summary of earlier turns", "cache_control": None},
    {"type": "future_tool_result", "tool_use_id": "futu_1", "content": [
        {"type": "future_result", "score": 0.5, "page_age": None}]},
    {"type": "hologram", "frames": [{"t": 0, "data": "AAEC"}], "loop": True},
]  # fmt: skip

KNOWN_WITH_EXTRAS: list[tuple[dict[str, Any], type]] = [
    ({"type": "text", "text": "hi", "cache_control": {"type": "ephemeral", "ttl": "5m"}},
     wire.TextBlock),
    ({"type": "text", "text": "cited", "citations": [
        {"type": "web_search_result_location", "url": "https://x", "cited_text": "c",
         "encrypted_index": "Eo"}]}, wire.TextBlock),
    ({"type": "text", "text": "new", "brand_new_key": {"nested": [1, "two"]}}, wire.TextBlock),
    ({"type": "thinking", "thinking": "hmm", "signature": "EqEECkYICxgCKkAo3UA4Ww=="},
     wire.ThinkingBlock),
    ({"type": "redacted_thinking", "data": "EvgFCkYIBxgC"}, wire.RedactedThinkingBlock),
    ({"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}, "caller": {"type": "direct"},
      "cache_control": {"type": "ephemeral"}}, wire.ToolUseBlock),
    ({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAEC"},
      "cache_control": {"type": "ephemeral"}}, wire.ImageBlock),
    ({"type": "image", "source": {"type": "url", "url": "https://x/y.png", "detail": "high"}},
     wire.ImageBlock),
    ({"type": "document", "source": {"type": "file", "file_id": "file_1", "new": 1},
      "title": "Report", "citations": {"enabled": True}, "brand_new_key": None},
     wire.DocumentBlock),
    ({"type": "tool_result", "tool_use_id": "t", "content": [
        {"type": "text", "text": "x", "brand_new_key": 1}], "brand_new_key": [None]},
     wire.ToolResultBlock),
    ({"type": "web_search_tool_result", "tool_use_id": "s", "content": [], "brand_new_key": 2},
     wire.WebSearchToolResultBlock),
    ({"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "plain"}},
     wire.DocumentBlock),
]  # fmt: skip


def _message(*blocks: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"role": "assistant", "content": list(blocks), **extra}


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode()


def _all_trips(value: Any, tp: Any = list[wire.Message]) -> None:
    """JSON and MessagePack round trips, and JSON -> Structs -> MessagePack -> Structs -> JSON,
    all give back ``value``; canonical output is the same value with every key sorted."""
    decoded = wire.json.decode(_json(value), type=tp)
    assert json.loads(wire.json.encode(decoded)) == value
    for canonical in (False, True):
        packed = wire.msgpack.encode(decoded, canonical=canonical)
        again = wire.msgpack.decode(packed, type=tp)
        assert again == decoded
        assert wire.msgpack.encode(again, canonical=canonical) == packed
        assert json.loads(wire.json.encode(again)) == value
    canonical_json = wire.json.encode(decoded, canonical=True)
    assert json.loads(canonical_json) == value
    if not _has_float(value):  # float spelling may differ from repr (PROTOCOL.md, canonical form)
        assert (
            canonical_json
            == json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()
        )


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(_has_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_float(v) for v in value)
    return False


@pytest.mark.parametrize("block", UNKNOWN_BLOCKS, ids=lambda b: b["type"])
def test_unknown_block_is_kept_whole(block: dict[str, Any]) -> None:
    """An unknown block decodes to UnknownBlock (type and data exposed) and is written back."""
    value = [_message({"type": "text", "text": "before"}, block)]
    decoded = wire.json.decode(_json(value))
    unknown = decoded[0].content[1]
    assert isinstance(unknown, wire.UnknownBlock)
    assert unknown.type == block["type"]
    assert unknown.data == block
    assert list(unknown.data) == list(block)  # original key order
    _all_trips(value)


@pytest.mark.parametrize("block,cls", KNOWN_WITH_EXTRAS, ids=lambda x: str(x)[:40])
def test_known_block_with_extra_keys_stays_typed(block: dict[str, Any], cls: type) -> None:
    """A known block carrying keys we do not name is still its own class; the keys are kept."""
    value = [_message(block)]
    decoded = wire.json.decode(_json(value))
    got = decoded[0].content[0]
    assert type(got) is cls
    if cls is wire.TextBlock:
        assert got.text == block["text"]
    _all_trips(value)


def test_signature_comes_back_byte_exact() -> None:
    """A thinking block's signature is typed and written back unchanged."""
    sig = "EqEECkYICxgCKkAo3UA4WwDbB8ihhpykVCsPx6iMzwNTNP8dePIgYjNpu2EWrt5JbApW/+=="
    value = [_message({"type": "thinking", "thinking": "x", "signature": sig})]
    decoded = wire.json.decode(_json(value))
    assert decoded[0].content[0] == wire.ThinkingBlock("x", signature=sig)
    assert sig.encode() in wire.json.encode(decoded)
    assert sig.encode() in wire.msgpack.encode(decoded)


def test_message_and_response_extras_are_kept() -> None:
    """Unknown keys on a message (id, model, ...) and on a ModelResponse are kept, fields typed
    (a ModelResponse's ``model`` is a typed field)."""
    value = [{"role": "user", "content": "hi", "id": "msg_1", "metadata": {"a": [1, 2]}}]
    decoded = wire.json.decode(_json(value))
    assert decoded[0].role == "user" and decoded[0].content == "hi"
    assert decoded[0].extra == {"id": "msg_1", "metadata": {"a": [1, 2]}}
    _all_trips(value)
    resp = {"message": {"role": "assistant", "content": "ok", "id": "m"},
            "stop_reason": "refusal", "usage": {"input_tokens": 1}, "model": "claude",
            "service_tier": "standard"}  # fmt: skip
    decoded_resp = wire.json.decode(_json(resp), type=wire.ModelResponse)
    assert decoded_resp.stop_reason == "refusal"
    assert decoded_resp.model == "claude"
    assert decoded_resp.extra == {"service_tier": "standard"}
    _all_trips(resp, wire.ModelResponse)


def test_reserved_names_in_a_payload_are_kept_as_unknown_data() -> None:
    """A payload using the codec's own bookkeeping key or tag is read as unknown data, kept."""
    value = [
        _message({"type": "text", "text": "x", "__minagent_extra__": {"a": 1}}),
        _message({"type": "__minagent_unknown__", "data": {"a": 1}}),
        {"role": "user", "content": "y", "__minagent_extra__": 5},
    ]
    decoded = wire.json.decode(_json(value))
    assert decoded[0].content[0].extra == {"__minagent_extra__": {"a": 1}}
    assert isinstance(decoded[1].content[0], wire.UnknownBlock)
    _all_trips(value)


def test_only_the_odd_message_goes_the_lossless_way() -> None:
    """In a long transcript with one unknown block, the known messages decode exactly as before."""
    known = [{"role": "user", "content": f"m{i}"} for i in range(50)]
    value = [*known[:25], _message(UNKNOWN_BLOCKS[0]), *known[25:]]
    decoded = wire.json.decode(_json(value))
    assert decoded[:25] == wire.json.decode(_json(known[:25]))
    assert isinstance(decoded[25].content[0], wire.UnknownBlock)
    _all_trips(value)


def test_to_reference_refuses_unknown_data() -> None:
    """The reference cannot hold unknown blocks or keys: to_reference raises with a path."""
    for value, path in (
        (
            [
                _message(
                    UNKNOWN_BLOCKS[0], {"type": "tool_use", "id": "a", "name": "b", "input": {}}
                )
            ],
            "$[0].content[0]",
        ),
        (
            [_message({"type": "tool_use", "id": "a", "name": "b", "input": {}, "caller": {}})],
            "$[0].content[0].caller",
        ),
        ([{"role": "user", "content": "x", "id": "m"}], "$[0]"),
    ):
        with pytest.raises(wire.ValidationError, match="reference cannot hold") as err:
            wire.to_reference(wire.json.decode(_json(value)))
        assert err.value.path == path


_TOOL = {"type": "tool_use", "id": "a", "name": "f"}


@pytest.mark.parametrize(
    ("value", "message", "path"),
    [
        ([_message({"type": "tool_use", "name": "f", "input": {}})],
         "Object missing required field `id`", "$[0].content[0]"),
        ([_message({"type": "text", "text": 3, "cache_control": {}})],
         "Expected `str`, got `int`", "$[0].content[0].text"),
        ([{"role": "developer", "content": "x", "id": "m"}],
         "Invalid enum value 'developer'", "$[0].role"),
        ([_message({"type": "thinking", "thinking": "x", "signature": None})],
         "Expected `str`, got `null`", "$[0].content[0].signature"),
        ([_message({"type": "image", "source": {"media_type": "x"}})],
         "Object missing required field `type`", "$[0].content[0].source"),
        ([_message({"type": "image", "source": {"type": 5}})],
         "Expected `str`, got `int`", "$[0].content[0].source.type"),
        ([_message({"type": "image", "source": 5})],
         "Expected `object`, got `int`", "$[0].content[0].source"),
        ([_message({"type": "image"})],
         "Object missing required field `source`", "$[0].content[0]"),
        ([_message({"no_type": 1})], "Object missing required field `type`", "$[0].content[0]"),
        ([_message({"type": 5})], "Expected `str`, got `int`", "$[0].content[0].type"),
        ([_message(5)], "Expected `object`, got `int`", "$[0].content[0]"),  # type: ignore[arg-type]
        ([{"role": "user", "content": "x"}, {"content": "y", "id": 1}],
         "Object missing required field `role`", "$[1]"),
        ([{"role": "user", "content": "x", "k": 1}, 5], "Expected `object`, got `int`", "$[1]"),
        ([_message({**_TOOL, "input": [1]})],
         "Expected `object`, got `array`", "$[0].content[0].input"),
        ([_message({"type": "text", "text": "a", "citations": [5], "x": 1})],
         "Expected `object`, got `int`", "$[0].content[0].citations[0]"),
        ([_message({"type": "text", "text": "a", "citations": {"a": 1}, "x": 1})],
         "Expected `array | null`, got `object`", "$[0].content[0].citations"),
        ([_message({**_TOOL, "input": {}, "x": 1}), {"role": 5, "content": "x", "k": 1}],
         "Expected `str`, got `int`", "$[1].role"),
        ({"role": "user", "content": "x", "k": 1}, "Expected `array`, got `object`", "$"),
    ],
)  # fmt: skip
def test_malformed_known_shapes_are_errors_not_unknown_data(
    value: Any, message: str, path: str
) -> None:
    """A broken known block or source, a missing field, an unknown role, a value where an object
    or array belongs: a ValidationError with msgspec's text and the exact path, on the lossless
    path (unknown keys beside it) as on the strict one, in both formats."""
    for fmt, data in ((wire.json, _json(value)), (wire.msgpack, msgspec.msgpack.encode(value))):
        with pytest.raises(wire.ValidationError) as err:
            fmt.decode(data)
        assert (err.value.message, err.value.path) == (message, path)


@pytest.mark.parametrize(
    ("value", "message", "path"),
    [
        ([{"role": "user", "content": "x", "k": 1}, msgspec.msgpack.Ext(5, b"x")],
         "Expected `object`, got `ext`", "$[1]"),
        ([{"role": "user", "content": "x", "k": 1}, b"\x00"],
         "Expected `object`, got `bytes`", "$[1]"),
        ([_message({**_TOOL, "input": {1: 2}})],
         "Expected `str` object keys, got 1", "$[0].content[0].input"),
    ],
)  # fmt: skip
def test_malformed_msgpack_only_shapes_name_the_type_as_msgspec_does(
    value: Any, message: str, path: str
) -> None:
    """Values only MessagePack has (an ext, bin, a non-string key) where the protocol wants an
    object: msgspec's own wording (``ext``, not the class name ``Ext``) and the exact path."""
    with pytest.raises(wire.ValidationError) as err:
        wire.msgpack.decode(msgspec.msgpack.encode(value))
    assert (err.value.message, err.value.path) == (message, path)


def test_extra_that_collides_with_a_field_is_refused_on_encode() -> None:
    """An Extra naming a known field cannot be written without ambiguity: EncodeError."""
    msg = wire.Message("user", [wire.TextBlock("a", extra=wire.Extra(text="b"))])
    with pytest.raises(wire.EncodeError) as err:
        wire.json.encode([msg])
    assert (err.value.message, err.value.path) == (
        "cannot write JSON: extra key 'text' collides with a field of TextBlock",
        "$[0].content[0].text",
    )


@pytest.mark.parametrize("fmt", [wire.json, wire.msgpack], ids=["json", "msgpack"])
def test_unknown_data_set_after_construction_is_checked_on_encode(fmt: Any) -> None:
    """Unknown data assigned after construction (Structs are mutable) is checked when written:
    an unknown block whose type is not a string, extra keys that are not strings."""
    name = "JSON" if fmt is wire.json else "MessagePack"
    block = wire.UnknownBlock(wire.Extra({"type": "future"}))
    block.data = wire.Extra({"type": 5})
    message = wire.Message("user", "a")
    message.extra = wire.Extra({1: 2})
    for obj, text, path in (
        ([wire.Message("user", [block])], "an unknown block or source needs a string 'type'",
         "$[0].content[0]"),
        (message, "extra keys must be strings, got 1", "$"),
    ):  # fmt: skip
        with pytest.raises(wire.EncodeError) as err:
            fmt.encode(obj)
        assert (err.value.message, err.value.path) == (f"cannot write {name}: {text}", path)


def test_a_text_tool_result_beside_unknown_data_is_written_back() -> None:
    """Lowering a message for its unknown block walks past a tool result whose content is
    text (not a Struct): the message is written back byte for byte."""
    value = [
        _message(
            {"type": "tool_result", "tool_use_id": "t", "content": "42"},
            {"type": "future", "n": 1},
        )
    ]
    for fmt, data in ((wire.json, _json(value)), (wire.msgpack, msgspec.msgpack.encode(value))):
        decoded = fmt.decode(data)
        assert type(decoded[0].content[1]) is wire.UnknownBlock
        assert fmt.encode(decoded) == (
            data if fmt is wire.msgpack else json.dumps(value, separators=(",", ":")).encode()
        )


def test_unknown_block_construction_is_checked() -> None:
    """UnknownBlock needs an Extra with a string type that is not a known block type."""
    block = wire.UnknownBlock(wire.Extra({"type": "future", "x": 1}))
    assert wire.json.encode(wire.Message("user", [block])) == (
        b'{"role":"user","content":[{"type":"future","x":1}]}'
    )
    for bad in (wire.Extra({"x": 1}), wire.Extra({"type": "text", "text": "t"})):
        with pytest.raises(TypeError):
            wire.UnknownBlock(bad)


def test_unknown_data_follows_the_value_rules() -> None:
    """Unknown data from MessagePack that JSON cannot hold (bin, NaN) is refused with a path."""
    for value in (b"\x00bin", float("nan")):
        packed = msgspec.msgpack.encode([_message({"type": "future", "blob": {"v": value}})])
        decoded = wire.msgpack.decode(packed)
        assert wire.msgpack.encode(decoded) == packed
        with pytest.raises(wire.EncodeError) as err:
            wire.json.encode(decoded)
        assert err.value.path == "$[0].content[0].blob.v"


# --- property tests: random unknown data injected into generated conversations ----------------

_KNOWN_NAMES = {"type", "role", "content", "tool_call_id", "is_error", "stop_reason", "usage"} | {
    key
    for cls in [*wire.blocks.KNOWN_BLOCKS.values(), *wire.blocks.KNOWN_SOURCES.values()]
    for key in cls.__struct_encode_fields__
}
extra_keys = s.short_text.filter(lambda k: k not in _KNOWN_NAMES)
extras = st.dictionaries(extra_keys, s.json_values(floats=True), max_size=3)
unknown_blocks = st.builds(
    lambda tag, body: {"type": tag, **body},
    s.short_text.filter(lambda t: t not in wire.blocks.KNOWN_BLOCK_TYPES),
    extras,
)


@st.composite
def conversations_with_unknowns(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Generated reference transcripts with unknown blocks and keys spliced in at random."""
    conv = [m.to_wire() for m in draw(s.conversations(floats=True))]
    for msg in conv:
        msg.update(draw(extras))
        if isinstance(msg["content"], list) or draw(st.booleans()):
            blocks = msg["content"] if isinstance(msg["content"], list) else []
            for block in blocks:
                block.update(draw(extras))
            for _ in range(draw(st.integers(0, 2))):
                blocks.insert(draw(st.integers(0, len(blocks))), draw(unknown_blocks))
            msg["content"] = blocks
    return conv


@given(conversations_with_unknowns())
def test_injected_unknowns_survive_every_trip(value: list[dict[str, Any]]) -> None:
    """Random unknown blocks and keys survive JSON, MessagePack and cross-format trips."""
    _all_trips(value)


# --- real provider payloads ---------------------------------------------------------------------


def _load(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


ANTHROPIC_REQUESTS = sorted(p.name for p in (DATA / "anthropic").glob("request_*.json"))
ANTHROPIC_RESPONSES = sorted(p.name for p in (DATA / "anthropic").glob("response_*.json"))


@pytest.mark.parametrize("name", ANTHROPIC_REQUESTS)
def test_anthropic_request_messages_are_ours(name: str) -> None:
    """The messages array of a real Anthropic request decodes and re-encodes to equal JSON."""
    messages = _load(f"anthropic/{name}")["messages"]
    _all_trips(messages)


@pytest.mark.parametrize("name", ANTHROPIC_RESPONSES)
def test_anthropic_response_is_a_message_with_extras(name: str) -> None:
    """A real Anthropic response body is an assistant Message plus extra keys, kept exactly."""
    body = _load(f"anthropic/{name}")
    decoded = wire.json.decode(_json(body), type=wire.Message)
    assert decoded.role == "assistant"
    assert decoded.extra is not msgspec.UNSET and "usage" in decoded.extra
    assert all(
        type(b) is not wire.UnknownBlock or b.type not in wire.blocks.KNOWN_BLOCK_TYPES
        for b in decoded.content
    )
    _all_trips(body, wire.Message)


def test_anthropic_thinking_and_web_search_are_typed_where_known() -> None:
    """Known blocks in real responses are typed (thinking with signature, text with citations)."""
    thinking = wire.json.decode(_json(_load("anthropic/response_thinking_tool_use.json")),
                                type=wire.Message)  # fmt: skip
    kinds = [type(b).__name__ for b in thinking.content]
    assert kinds == ["ThinkingBlock", "TextBlock", "ToolUseBlock"]
    web = wire.json.decode(_json(_load("anthropic/response_web_search_citations.json")),
                           type=wire.Message)  # fmt: skip
    kinds = [type(b).__name__ for b in web.content]
    assert kinds[:3] == ["ServerToolUseBlock", "WebSearchToolResultBlock", "TextBlock"]
    cited = [b for b in web.content if type(b) is wire.TextBlock and b.citations]
    assert cited and all(b.extra is msgspec.UNSET for b in web.content)
    assert cited[0].citations[0]["type"] == "web_search_result_location"


OPENAI_FILES = sorted(p.name for p in (DATA / "openai").glob("*.json"))


def _openai_messages(body: Any) -> list[Any]:
    if "choices" in body:
        return [choice["message"] for choice in body["choices"]]
    return list(body.get("messages", []))


@pytest.mark.parametrize("name", OPENAI_FILES)
def test_openai_messages_decode_where_their_shape_is_ours(name: str) -> None:
    """Each OpenAI message is ours (and round-trips), or is refused for a known reason with a path:
    the developer role, a null content, or an absent content (written back as "")."""
    for i, message in enumerate(_openai_messages(_load(f"openai/{name}"))):
        data = _json(message)
        if message["role"] not in ("system", "user", "assistant", "tool"):
            with pytest.raises(wire.ValidationError) as err:
                wire.json.decode(data, type=wire.Message)
            assert err.value.path == "$.role", (name, i)
        elif "content" in message and message["content"] is None:
            with pytest.raises(wire.ValidationError) as err:
                wire.json.decode(data, type=wire.Message)
            assert err.value.path == "$.content", (name, i)
        elif "content" not in message:
            decoded = wire.json.decode(data, type=wire.Message)
            assert json.loads(wire.json.encode(decoded)) == {**message, "content": ""}
        else:
            _all_trips(message, wire.Message)


@pytest.mark.parametrize(
    ("cls", "known", "nested", "json_fields"),
    [
        (wire.Message, {"content", "is_error", "role", "tool_call_id"},
         {"content": "_content"}, ()),
        (wire.ModelResponse, {"created", "id", "message", "model", "stop_reason", "usage"},
         {"message": "_message"}, ("usage",)),
        (wire.ToolUseBlock, {"cache_control", "caller", "id", "input", "name", "toolset_name",
                             "type"}, {}, ("input", "caller", "cache_control")),
        (wire.ImageBlock, {"cache_control", "source", "transformations", "type"},
         {"source": "_source"}, ("transformations", "cache_control")),
        (wire.ToolResultBlock, {"cache_control", "content", "is_error", "tool_use_id",
                                "toolset_name", "type"}, {"content": "_content"},
         ("cache_control",)),
    ],
)  # fmt: skip
def test_the_lossless_builder_knows_each_class_layout(
    cls: type, known: set[str], nested: dict[str, str], json_fields: tuple[str, ...]
) -> None:
    """Per class, the lossless builder's tables (built at import, so checked here directly):
    the wire keys it knows (the tag included, the ``extra`` field's key never), the builder of
    each Struct-holding field, and the JSON-valued fields, each checked by a one-field Struct
    of the field's own type."""
    from minagent.wire import _lossless
    from minagent.wire.blocks import EXTRA_KEY

    assert _lossless._known_keys(cls) == frozenset(known)
    assert EXTRA_KEY not in _lossless._known_keys(cls)
    builders, json_keys, types = _lossless._layout(cls)
    assert {key: b.__name__ for key, b in builders.items()} == nested
    assert json_keys == json_fields
    assert set(types) == set(json_fields)
    fields = {f.encode_name: f.type for f in msgspec.structs.fields(cls)}
    for key, struct in types.items():
        (only,) = msgspec.structs.fields(struct)
        assert (only.encode_name, only.type) == (key, fields[key])


_BIN = (
    "cannot write JSON: binary data (MessagePack bin) cannot be written as JSON inside generic data"
)


@pytest.mark.parametrize(
    ("block", "path"),
    [
        ({"type": "text", "text": "a", "citations": [{"k": b"\x00", "d": [[[[[[[[[1]]]]]]]]]}]},
         "$[0].content[0].citations[0].k"),
        ({**_TOOL, "input": {"d": [[[[[[[[[1]]]]]]]]], "k": b"\x00"}},
         "$[0].content[0].input.k"),
        ({**_TOOL, "input": {}, "x": [[[[[[[[[1]]]]]]]]], "k": b"\x00"},
         "$[0].content[0].k"),
    ],
)  # fmt: skip
def test_a_json_field_holding_bin_and_deep_values_is_kept_whole(
    block: dict[str, Any], path: str
) -> None:
    """A JSON-valued field, list (text citations) or object (a tool input), or unknown keys,
    holding MessagePack bin and nesting deeper than the typed levels stay typed: MessagePack
    writes them back byte for byte, JSON refuses the bin at its path."""
    data = msgspec.msgpack.encode([_message(block)])
    decoded = wire.msgpack.decode(data)
    assert type(decoded[0].content[0]) is not wire.UnknownBlock
    assert wire.msgpack.encode(decoded) == data
    with pytest.raises(wire.EncodeError) as err:
        wire.json.encode(decoded)
    assert (err.value.message, err.value.path) == (_BIN, path)


def test_an_unknown_source_is_kept_whole_in_both_formats() -> None:
    """An image source of a type no catalog names becomes an UnknownSource holding every key,
    and is written back byte for byte."""
    source = {"type": "future_source", "uri": "s3://b/k", "n": [1, {"deep": None}]}
    value = [_message({"type": "image", "source": source})]
    expected = [
        wire.Message("assistant", [wire.ImageBlock(source=wire.UnknownSource(wire.Extra(source)))])
    ]
    for fmt, data in ((wire.json, _json(value)), (wire.msgpack, msgspec.msgpack.encode(value))):
        decoded = fmt.decode(data)
        assert decoded == expected
        assert dict(decoded[0].content[0].source.data) == source
        compact = json.dumps(value, separators=(",", ":")).encode()
        assert fmt.encode(decoded) == (data if fmt is wire.msgpack else compact)
