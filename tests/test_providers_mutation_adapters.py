"""Provider adapters (`_base`, `_toolkit`, `gemini`, `openai_responses`, `anthropic`,
`openai_chat`): exact values pinned where mutation testing found the suite silent
(docs/mutation.md, "Provider adapters, second run")."""

from __future__ import annotations

import hashlib
import sys
from typing import Any

import msgspec
import pytest
from msgspec import UNSET, UnsetType

from minagent.providers import _base as B
from minagent.wire import Extra, Message, TextBlock, ThinkingBlock, ToolUseBlock
from minagent.wire.errors import DecodeError, EncodeError, ValidationError
from minagent.wire.limits import Limits
from minagent.wire.messages import ModelResponse

# --- _base -------------------------------------------------------------------------------


def _msgs() -> list[Message]:
    return [Message(role="user", content="x")]


def test_unsupported_policy_refuses_an_unknown_name() -> None:
    """`Unsupported` names the bad policy and both good ones."""
    with pytest.raises(ValueError) as err:
        B.Unsupported("keep")  # type: ignore[arg-type]
    assert str(err.value) == "unsupported= must be 'error' or 'drop', not 'keep'"


def test_unsupported_keeps_its_policy_list_and_renames() -> None:
    """The policy, the caller's own list (the same object) and one `Renames` made once."""
    into: list[B.Dropped] = []
    drop = B.Unsupported("drop", into)
    assert drop.policy == "drop" and drop.dropped is into
    assert B.Unsupported().policy == "error" and B.Unsupported().dropped == []
    first = drop.renaming()
    assert type(first) is B.Renames and drop.renaming() is first and drop.renames is first
    given = B.Renames()
    assert B.Unsupported("error", None, given).renaming() is given


def test_report_key_lists_null_empty_and_metadata_and_refuses_content() -> None:
    """A null, an empty list and metadata are listed as metadata with their suffix; content
    is refused under "error" with its exact text and path."""
    policy = B.Unsupported("error")
    policy.report_key("$.a", "key 'a'", None)
    policy.report_key("$.b", "key 'b'", [])
    policy.report_key("$.c", "key 'c'", 3, metadata=True)
    assert policy.dropped == [
        B.Dropped("$.a", "key 'a' (null)", "metadata"),
        B.Dropped("$.b", "key 'b' (empty list)", "metadata"),
        B.Dropped("$.c", "key 'c'", "metadata"),
    ]
    with pytest.raises(B.UnsupportedError) as err:
        policy.report_key("$.d", "key 'd'", [1])
    assert (err.value.message, err.value.path) == ("the target format cannot hold key 'd'", "$.d")
    drop = B.Unsupported("drop")
    drop.report_key("$.e", "key 'e'", ())
    drop.report_key("$.f", "key 'f'", 0)
    assert drop.dropped == [B.Dropped("$.e", "key 'e'"), B.Dropped("$.f", "key 'f'")]
    assert drop.dropped[0].kind == "content"


def test_request_keys_lists_set_settings_then_options() -> None:
    """`Request.keys()`: the typed settings that are set, in SETTINGS order, then options."""
    req = B.Request(messages=_msgs(), stream=False, model="m", options={"seed": 1, "n": 2})
    assert req.keys() == ["model", "stream", "seed", "n"]
    assert B.Request(messages=_msgs()).keys() == []


def test_as_request_returns_the_same_request_when_nothing_applies() -> None:
    """No options and no defaults: the request itself; options only: a new one."""
    req = B.Request(messages=_msgs(), model="a")
    assert B.as_request(req, {}) is req
    assert B.as_request(req, {}, {}) is req
    assert B.as_request(req, {}, {"model": "z"}) is req  # set: the default does not apply
    out = B.as_request(req, {"max_tokens": 5})
    assert out == B.Request(messages=_msgs(), model="a", max_tokens=5) and req.max_tokens is None


def test_as_request_errors_say_what() -> None:
    """A bad request, a bad keyword and bad defaults each raise TypeError with the exact text."""
    with pytest.raises(TypeError) as err:
        B.as_request("nope", {})  # type: ignore[arg-type]
    assert str(err.value) == "expected a Request or a list of Message, got str"
    with pytest.raises(TypeError) as err:
        B.as_request(_msgs(), {}, [("model", "x")])  # type: ignore[arg-type]
    assert str(err.value) == "defaults= must be a mapping, not list"
    with pytest.raises(TypeError) as err:
        B.as_request(_msgs(), {}, lambda model: 3)  # type: ignore[arg-type,return-value]
    assert str(err.value) == "defaults= must be a mapping, not int"


def test_as_request_defaults_fill_only_what_is_unset() -> None:
    """Defaults fill an unset setting and an absent option key; a function gets the model."""
    seen: list[Any] = []

    def table(model: str | None) -> dict[str, Any]:
        seen.append(model)
        return {"max_tokens": 9, "model": "other", "seed": 4, "n": 7}

    req = B.Request(messages=_msgs(), model="m", options={"n": 1})
    out = B.as_request(req, {"temperature": 0.5}, table)
    assert seen == ["m"]
    assert out == B.Request(
        messages=_msgs(), model="m", max_tokens=9, temperature=0.5, options={"n": 1, "seed": 4}
    )
    # an option named like a setting blocks its default too
    req2 = B.Request(messages=_msgs(), options={"max_tokens": 3})
    assert B.as_request(req2, {}, {"max_tokens": 9}) is req2
    listed = B.as_request(_msgs(), {"n": 2}, {"max_tokens": 1, "n": 5, "x": None})
    assert listed == B.Request(messages=_msgs(), max_tokens=1, options={"n": 2, "x": None})


def test_renames_repr_and_truth() -> None:
    """`Renames` shows both maps and is true once anything was rewritten."""
    r = B.Renames()
    assert repr(r) == "Renames(names={}, ids={})" and not r
    r.id("a.b")
    assert repr(r) == "Renames(names={}, ids={'a_b': 'a.b'})" and bool(r) is True
    n = B.Renames()
    n.name("c d")
    assert bool(n) is True and n.names == {"c_d": "c d"}


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def test_fit_rewrites_exactly() -> None:
    """The rewrite, the hash suffix of a collision and of an overlong value, limits, Gemini's
    leading letter, and a name that fits kept."""
    r = B.Renames()
    assert r.name("ok-Name_1") == "ok-Name_1" and r.names == {}
    assert r.name("a.b") == "a_b"
    assert r.name("a:b") == "a_b_" + _digest("a:b")
    assert r.name("a.b") == "a_b"  # the same value, the same rewrite
    long = "y" * 70
    assert r.name(long) == "y" * 55 + "_" + _digest(long)
    assert r.name("z" * 64) == "z" * 64  # at the limit: kept
    assert r.name("w" * 20, limit=12) == "www_" + _digest("w" * 20)
    assert r.names == {
        "a_b": "a.b",
        "a_b_" + _digest("a:b"): "a:b",
        "y" * 55 + "_" + _digest(long): long,
        "www_" + _digest("w" * 20): "w" * 20,
    }
    ids = B.Renames()
    assert ids.id("") == "_"
    assert ids.id("x" * 100) == "x" * 100  # no limit on ids by default
    assert ids.id("é") == "__" + _digest("é")  # "_" was taken by the rewrite of ""
    assert ids.ids == {"_": "", "__" + _digest("é"): "é"}
    g = B.Renames()
    assert g.name("1abc", target="gemini") == "_1abc"
    assert g.name("a.b:c-d", target="gemini") == "a.b:c-d"
    assert g.name("é", target="gemini") == "_"
    assert g.names == {"_1abc": "1abc", "_": "é"}


def test_fit_a_value_equal_to_an_earlier_rewrite_is_rewritten_itself() -> None:
    """A client name that equals another name's rewrite gets a hash, so both come back."""
    r = B.Renames()
    assert r.name("a.b") == "a_b"
    assert r.name("a_b") == "a_b_" + _digest("a_b")
    assert r.names == {"a_b": "a.b", "a_b_" + _digest("a_b"): "a_b"}
    # a fitting value taken before as itself stays itself
    s = B.Renames()
    assert s.name("q") == "q" and s.name("q") == "q" and s.names == {}


def _resp(content: Any) -> ModelResponse:
    return ModelResponse(message=Message(role="assistant", content=content))


def test_restore_gives_names_and_ids_back() -> None:
    """Rewritten tool calls get their originals; other blocks and an unchanged response stay
    the same objects."""
    r = B.Renames()
    r.name("w.x")
    r.id("c:1")
    text = TextBlock("hi")
    call = ToolUseBlock(id="c_1", name="w_x", input={"a": 1})
    other = ToolUseBlock(id="k", name="plain", input={})
    only_id = ToolUseBlock(id="c_1", name="plain", input={})
    resp = _resp([text, call, other, only_id])
    back = r.restore(resp)
    assert back.message.content == [
        text,
        ToolUseBlock(id="c:1", name="w.x", input={"a": 1}),
        other,
        ToolUseBlock(id="c:1", name="plain", input={}),
    ]
    assert back.message.content[0] is text and back.message.content[2] is other
    assert resp.message.content[1] is call  # the input is not changed
    same = _resp([text, other])
    assert r.restore(same) is same
    as_str = _resp("c_1")
    assert r.restore(as_str) is as_str
    empty = B.Renames()
    assert empty.restore(resp) is resp
    names_only = B.Renames()
    names_only.name("w.x")
    assert names_only.restore(_resp([call])).message.content == [
        ToolUseBlock(id="c_1", name="w.x", input={"a": 1})
    ]
    ids_only = B.Renames()
    ids_only.id("c:1")
    assert ids_only.restore(_resp([call])).message.content == [
        ToolUseBlock(id="c:1", name="w_x", input={"a": 1})
    ]


def test_check_size_at_and_past_the_limit() -> None:
    """Exactly max_size passes; one more is refused with both numbers; a non-sized input too."""
    limits = Limits(max_size=4)
    B.check_size(b"1234", limits)
    B.check_size("1234", limits)
    with pytest.raises(DecodeError) as err:
        B.check_size(b"12345", limits)
    assert (err.value.message, err.value.path) == (
        "the input is 5 bytes, longer than the limit of 4 (Limits.max_size)",
        "$",
    )
    with pytest.raises(DecodeError) as err:
        B.check_size(5, limits)
    assert (err.value.message, err.value.path) == ("expected bytes or str, got int", "$")
    B.check_size(b"x" * 10)  # the default limits


def test_deep_retries_once_with_more_room_and_restores_the_limit() -> None:
    """A call that hits the recursion limit once is retried with the limit raised by 4,000;
    twice: EncodeError; the limit is back afterwards."""
    before = sys.getrecursionlimit()
    limits: list[int] = []

    def once() -> str:
        limits.append(sys.getrecursionlimit())
        if len(limits) == 1:
            raise RecursionError
        return "ok"

    assert B.deep(once) == "ok"
    assert limits == [before, before + 4000] and sys.getrecursionlimit() == before

    def always() -> None:
        raise RecursionError

    with pytest.raises(EncodeError) as err:
        B.deep(always)
    assert err.value.message == "a value is nested too deep to write"
    assert sys.getrecursionlimit() == before
    assert B.deep(lambda: 7) == 7


def test_decode_json_errors_are_ours_and_located() -> None:
    """Invalid JSON, invalid text and a wrong shape each raise our error at the given path."""
    with pytest.raises(DecodeError) as err:
        B.decode_json(b"[1,", "$.body")
    assert err.value.path == "$.body" and err.value.message.startswith("invalid JSON: ")
    assert err.value.message == "invalid JSON: Input data was truncated"
    with pytest.raises(DecodeError) as err:
        B.decode_json("\ud800", "$.t")
    assert err.value.path == "$.t" and err.value.message.startswith("invalid text: ")
    with pytest.raises(ValidationError) as err:
        B.decode_json(b'[1, "x"]', "$.q", msgspec.json.Decoder(list[int]))
    assert (err.value.path, err.value.message) == ("$.q[1]", "Expected `int`, got `str`")
    assert B.decode_json(b'{"a": [1]}', "$") == {"a": [1]}


def test_decode_json_retries_deep_input_with_more_room() -> None:
    """A RecursionError on the first decode is retried with the limit raised by 4,000."""
    before = sys.getrecursionlimit()
    seen: list[int] = []

    class Once:
        def decode(self, data: Any) -> Any:
            seen.append(sys.getrecursionlimit())
            if len(seen) == 1:
                raise RecursionError
            return data

    assert B.decode_json(b"1", "$", Once()) == b"1"
    assert seen == [before, before + 4000] and sys.getrecursionlimit() == before

    class Always:
        def decode(self, data: Any) -> Any:
            raise RecursionError

    with pytest.raises(DecodeError) as err:
        B.decode_json(b"1", "$.p", Always())
    assert (err.value.message, err.value.path) == ("invalid JSON: nesting too deep", "$.p")
    assert sys.getrecursionlimit() == before


def test_decode_messages_puts_errors_under_the_path() -> None:
    """A bad message is reported under the caller's path."""
    with pytest.raises(ValidationError) as err:
        B.decode_messages(b'[{"role": "user", "content": 3}]', "$.messages")
    assert err.value.path == "$.messages[0].content"
    assert B.decode_messages(b'[{"role":"user","content":"x"}]', "$") == _msgs()


def test_encode_json_errors_say_what() -> None:
    """Unwritable objects, unlowered extra and NaN each raise EncodeError with the exact text."""
    with pytest.raises(EncodeError) as err:
        B.encode_json({"a": object()})
    assert err.value.message == "cannot write JSON: cannot write objects of type object"
    with pytest.raises(EncodeError) as err:
        B.encode_json({"a": Extra(x=1)})
    assert err.value.message == "internal: a block with extra keys was not lowered"
    with pytest.raises(EncodeError) as err:
        B.encode_json({"a": [float("nan")]})
    assert err.value.path == "$.a[0]"
    assert B.encode_json({"a": [1, None]}) == b'{"a":[1,null]}'


def test_encode_json_refuses_past_max_depth_with_its_path() -> None:
    """A value deeper than the default max_depth is refused where it gets too deep."""
    depth = Limits().max_depth
    value: Any = 0
    for _ in range(depth + 5):
        value = [value]
    with pytest.raises(EncodeError) as err:
        B.encode_json(value)
    assert err.value.message == (
        f"cannot write JSON: nesting deeper than max_depth={depth} (decoding refuses it)"
    )
    assert err.value.path is not None and err.value.path.startswith("$[0][0]")


def test_flatten_usage_without_renames_nests_and_keeps_others() -> None:
    """The inlined path: ints kept, nested objects dotted (two levels), the rest aside."""
    usage = {"a": 1, "b": {"c": 2, "d": {"e": 3, "f": "s"}}, "g": {}, "h": True, "i": 1.5}
    counters, other = B.flatten_usage(usage)
    assert counters == {"a": 1, "b.c": 2, "b.d.e": 3}
    assert other == {"b.d.f": "s", "g": {}, "h": True, "i": 1.5}
    assert B.flatten_usage(usage, {}) == (counters, other)
    counters, other = B.flatten_usage({"x": {"y": 1}, "z": 2}, {"x.y": "xy", "z": "zz"})
    assert (counters, other) == ({"xy": 1, "zz": 2}, {})


def test_unflatten_usage_refuses_a_key_under_a_non_object() -> None:
    """``a`` = 1 and ``a.b`` cannot both be written back: the exact error."""
    assert B.unflatten_usage({"a.b": 1, "a.c": 2}) == {"a": {"b": 1, "c": 2}}
    assert B.unflatten_usage({"n": 1}, None, {"n": "x.y"}) == {"x": {"y": 1}}
    assert B.unflatten_usage({"n": 1}, {"o": None}) == {"n": 1, "o": None}
    with pytest.raises(ValidationError) as err:
        B.unflatten_usage({"a": 1, "a.b": 2})
    assert err.value.message == "usage key 'a.b' nests under a non-object"


class _Fake(msgspec.Struct, tag_field="type", tag="fake"):
    """A block with a required field, an optional one, a signature and extra."""

    text: str
    cache_control: dict[str, Any] | UnsetType = UNSET
    signature: str | UnsetType = UNSET
    extra: Extra | UnsetType = UNSET


class _NoExtra(msgspec.Struct):
    """A block without extra."""

    text: str
    note: str | UnsetType = UNSET


def test_core_and_optional_fields_of_a_block_class() -> None:
    """The core: required fields, ``type``, ``extra``, and a signature; optional: the rest,
    ``extra`` last."""
    assert B._core(_Fake) == frozenset({"text", "type", "extra", "signature"})
    assert B._optional(_Fake) == ("cache_control", "extra")
    assert B._core(_NoExtra) == frozenset({"text", "type", "extra"})
    assert B._optional(_NoExtra) == ("note",)
    assert B._OPTIONAL[_NoExtra] == ("note",)
    assert B._core(ThinkingBlock) == frozenset({"thinking", "type", "extra", "signature"})


def test_bare_block_hint_block_keys_and_without_keys() -> None:
    """bare is false for any optional field or extra; block_hint spares a reasoning item on a
    thinking block only; without_keys leaves a block with none of the names as it was."""
    assert B.bare(_Fake("x")) is True
    assert B.bare(_Fake("x", signature="s")) is True
    assert B.bare(_Fake("x", cache_control={})) is False
    assert B.bare(_Fake("x", extra=Extra(a=1))) is False
    assert B.bare(_NoExtra("x", note="n")) is False and B.bare(_NoExtra("x")) is True
    assert B.block_hint("openai_item", TextBlock("x")) is True
    assert B.block_hint("openai_item", ThinkingBlock("t")) is False
    assert B.block_hint("type_absent", ThinkingBlock("t")) is True
    assert B.block_hint("other", TextBlock("x")) is False
    assert B.block_hint("openai_item", object()) is True
    assert B.block_keys(_NoExtra("x", note="n")) == {"note": "n"}
    block = _Fake("x", extra=Extra(a=1))
    assert B.without_keys(block, {"b", "text"}) is block
    assert B.without_keys(_NoExtra("x", note="n"), {"note"}) == _NoExtra("x")
    out = B.without_keys(_Fake("x", extra=Extra(a=1, b=2)), {"a"})
    assert out == _Fake("x", extra=Extra(b=2)) and type(out.extra) is Extra


# --- _toolkit ----------------------------------------------------------------------------

from minagent.providers import _toolkit as K  # noqa: E402
from minagent.wire import UnknownBlock  # noqa: E402


def test_source_of_and_is_own() -> None:
    """The SOURCE hint read from an extra; a non-string hint is no source; neutral ownership."""
    assert K.source_of(UNSET) is None
    assert K.source_of(Extra(a=1)) is None
    assert K.source_of(Extra(from_provider="gemini")) == "gemini"
    assert K.source_of(Extra(from_provider=3)) is None
    assert K.is_own(UNSET, "x") is False and K.is_own(UNSET, "x", True) is True
    assert K.is_own(Extra(a=1), "x") is False and K.is_own(Extra(a=1), "x", True) is True
    assert K.is_own(Extra(from_provider="x"), "x") is True
    assert K.is_own(Extra(from_provider="y"), "x") is False
    assert K.is_own(Extra(from_provider="y"), "x", True) is False
    assert K.is_own(Extra(from_provider=1), "x", True) is True
    assert K.is_own(Extra(from_provider=1), "x") is False


def test_foreign_key_extra_and_block_texts() -> None:
    """Content keys are refused, others listed; hints and ``skip`` are passed over; a foreign
    block's text names its kind and source."""
    policy = B.Unsupported("drop")
    K.foreign_key(policy, "$.k", "key 'seed'", "seed", 1)
    K.foreign_key(policy, "$.c", "key 'citations'", "citations", [1])
    K.foreign_extra(
        policy,
        {"from_provider": "x", "developer": True, "id": "i", "refusal": "no", "s": 1},
        "$.m",
        "the message key",
        frozenset({"s"}),
    )
    K.foreign_block(policy, "$.b", "image", "gemini")
    K.foreign_block(policy, "$.c", "doc", None)
    assert policy.dropped == [
        B.Dropped("$.k", "key 'seed'", "metadata"),
        B.Dropped("$.c", "key 'citations'"),
        B.Dropped("$.m.id", "the message key 'id'", "metadata"),
        B.Dropped("$.m.refusal", "the message key 'refusal'"),
        B.Dropped("$.b", "a 'image' block from gemini (no such block here)"),
        B.Dropped("$.c", "a 'doc' block (no such block here)"),
    ]


def test_tagged_marks_only_messages_with_unnamed_data() -> None:
    """The hint is added when the message has keys of its own, a block with extra, or an
    unknown block; a plain message stays neutral."""
    assert K.tagged({}, [TextBlock("x")], "p") is UNSET
    assert K.tagged({}, "text", "p") is UNSET
    assert K.tagged({}, [], "p") is UNSET
    out = K.tagged({}, [TextBlock("x"), TextBlock("y", extra=Extra(a=1))], "p")
    assert type(out) is Extra and dict(out) == {"from_provider": "p"}
    unknown = UnknownBlock(Extra(type="z"))
    assert dict(K.tagged({}, [unknown], "p")) == {"from_provider": "p"}
    assert dict(K.tagged({"k": 1}, "text", "p")) == {"k": 1, "from_provider": "p"}
    assert dict(K.tagged({"k": 1}, [TextBlock("x")], "p")) == {"k": 1, "from_provider": "p"}


def test_unknown_block_errors() -> None:
    """No string type: an error at ``.type``; a known type with the wrong fields: named."""
    assert K.unknown_block({"type": "zz", "a": 1}, "$.b").type == "zz"
    with pytest.raises(ValidationError) as err:
        K.unknown_block({"type": 3}, "$.b")
    assert (err.value.message, err.value.path) == ("expected a string 'type'", "$.b.type")
    with pytest.raises(ValidationError) as err:
        K.unknown_block({"a": 3}, "$.b")
    assert err.value.path == "$.b.type"
    with pytest.raises(ValidationError) as err:
        K.unknown_block({"type": "text", "text": 1}, "$.q")
    assert err.value.path == "$.q"
    assert err.value.message.startswith("not a valid 'text' object: ")


def test_json_type_predicates() -> None:
    """Strings, ints (not bools), numbers, string arrays, exact key sets."""
    assert [K.is_str(v) for v in ("a", 1, None)] == [True, False, False]
    assert [K.is_int(v) for v in (1, True, 1.0)] == [True, False, False]
    assert [K.is_number(v) for v in (1, 1.5, True, "1")] == [True, True, False, False]
    assert [K.is_strings(v) for v in (["a"], [], ["a", 1], ("a",))] == [True, True, False, False]
    assert K.has_keys({"a": 1}, {"a"}) is True
    assert K.has_keys({"a": 1, "b": 2}, {"a"}) is False
    assert K.has_keys({"a": 1, "b": 2}, {"a"}, {"b"}) is True
    assert K.has_keys({"b": 2}, {"a"}, {"b"}) is False
    assert K.has_keys([("a", 1)], {"a"}) is False


def test_settings_reader_takes_once_and_only_good_values() -> None:
    """A key passing ``ok`` moves to the field (converted) and its spelling; a failing or
    second key for a field that is set stays in options."""
    options = {"a": "1", "b": 2, "c": 3}
    reader = K.SettingsReader(options)
    assert reader.options is options
    assert reader.take("a", "f", K.is_str, int) is True
    assert reader.take("b", "f", K.is_int) is False  # the field is set
    assert reader.take("c", "g", K.is_str) is False  # not a string
    assert reader.take("zz", "h", K.is_str) is False
    assert reader.take("c", "g", K.is_int) is True
    assert reader.fields == {"f": 1, "g": 3}
    assert reader.spelling == {"a": "1", "c": 3}
    assert options == {"b": 2}


def _reader(options: dict[str, Any]) -> K.SettingsReader:
    reader = K.SettingsReader(options)
    K.take_same(reader, ("model", "max_tokens", "temperature", "top_p", "user", "metadata"))
    reader.take("stream", "stream", lambda v: type(v) is bool)
    return reader


def test_decoded_request_keeps_spelling_and_a_separate_copy() -> None:
    """The request carries the provider, the spelling, the options left and the settings as
    decoded (in SETTINGS order); without settings, a tuple of Nones."""
    meta = {"k": [1]}
    req = K.decoded_request(_msgs(), {"model": "m", "metadata": meta, "seed": 1}, "p", _reader)
    assert req.provider == "p" and req.model == "m" and req.options == {"seed": 1}
    assert req.spelling == {"model": "m", "metadata": meta}
    assert req.decoded == ("m",) + (None,) * 9 + ({"k": [1]}, None)
    assert req.decoded[10] is not meta
    empty = K.decoded_request(_msgs(), {"seed": 1}, "p", _reader)
    assert empty.decoded == (None,) * 12 and empty.spelling == {}


def test_typed_settings_and_settings_tuple() -> None:
    """The set settings by name; the tuple in SETTINGS order."""
    req = B.Request(messages=_msgs(), model="m", stream=True)
    assert K.typed_settings(req) == {"model": "m", "stream": True}
    assert K._settings_tuple({"stream": 1, "model": 2}) == (2,) + (None,) * 10 + (1,)


def _write(fields: dict[str, Any], policy: B.Unsupported) -> dict[str, Any]:
    return {"x_" + k: v for k, v in fields.items()}


def test_encode_settings_by_provenance() -> None:
    """Own and unchanged: the spelling then the options; own and changed: written anew over
    the options; by hand: options under the typed settings; another adapter's: options
    reported (content refused, others listed)."""
    req = K.decoded_request(_msgs(), {"model": "m", "seed": 1}, "p", _reader)
    policy = B.Unsupported("drop")
    out = K.encode_settings(req, "p", _reader, _write, policy)
    assert out == {"model": "m", "seed": 1} and list(out) == ["model", "seed"]
    assert out is not req.options
    bare_req = K.decoded_request(_msgs(), {"seed": 1}, "p", _reader)
    out = K.encode_settings(bare_req, "p", _reader, _write, policy)
    assert out == {"seed": 1} and out is not bare_req.options
    changed = msgspec.structs.replace(req, model="n")
    assert K.encode_settings(changed, "p", _reader, _write, policy) == {"x_model": "n", "seed": 1}
    hand = B.Request(messages=_msgs(), model="h", options={"x_model": "o", "n": 1})
    assert K.encode_settings(hand, "q", _reader, _write, policy) == {"x_model": "h", "n": 1}
    other = K.decoded_request(_msgs(), {"model": "m", "seed": 1, "tools": []}, "p", _reader)
    assert K.encode_settings(other, "q", _reader, _write, policy) == {"x_model": "m"}
    assert policy.dropped == [
        B.Dropped("$.options.seed", "the p option 'seed' (no spelling here)", "metadata"),
        B.Dropped(
            "$.options.tools", "the p option 'tools' (no spelling here) (empty list)", "metadata"
        ),
    ]
    strict = B.Unsupported("error")
    tools = K.decoded_request(_msgs(), {"tools": [1]}, "p", _reader)
    with pytest.raises(B.UnsupportedError) as err:
        K.encode_settings(tools, "q", _reader, _write, strict)
    assert err.value.path == "$.options.tools"


def test_merged_joins_objects_one_level() -> None:
    """An empty body gives a copy of options; objects both hold merge; the rest is replaced."""
    options = {"g": {"b": 2}, "x": 1}
    out = K.merged({}, options)
    assert out == options and out is not options
    body = {"g": {"a": 1, "b": 0}, "x": {"y": 1}, "z": 3}
    assert K.merged(body, options) == {"g": {"a": 1, "b": 2}, "x": 1, "z": 3}
    assert K.merged({"g": 1}, {"g": {"a": 1}}) == {"g": {"a": 1}}


def test_enum_stop_reason_maps_and_lists() -> None:
    """An allowed reason is kept silently; a mapped one and the fallback are listed with both
    values; ``incomplete:<why>`` maps by ``incomplete`` unless the table names it."""
    policy = B.Unsupported()
    allowed = K.ANTHROPIC_STOP_REASONS
    table = K.ANTHROPIC_FOREIGN_STOP
    assert K.enum_stop_reason("tool_use", allowed, table, "end_turn", policy) == "tool_use"
    assert K.enum_stop_reason("incomplete:x", allowed, table, "end_turn", policy) == "max_tokens"
    assert K.enum_stop_reason("OTHER", allowed, table, "end_turn", policy) == "refusal"
    assert K.enum_stop_reason("weird", allowed, table, "fb", policy) == "fb"
    assert K.enum_stop_reason("incomplete:y", allowed, {"incomplete:y": "q"}, "f", policy) == "q"
    assert K.enum_stop_reason("incomplete", allowed, {}, "f", policy) == "f"
    assert policy.dropped == [
        B.Dropped(
            "$.stop_reason", "the stop reason 'incomplete:x' (written as 'max_tokens')", "metadata"
        ),
        B.Dropped("$.stop_reason", "the stop reason 'OTHER' (written as 'refusal')", "metadata"),
        B.Dropped("$.stop_reason", "the stop reason 'weird' (written as 'fb')", "metadata"),
        B.Dropped("$.stop_reason", "the stop reason 'incomplete:y' (written as 'q')", "metadata"),
        B.Dropped("$.stop_reason", "the stop reason 'incomplete' (written as 'f')", "metadata"),
    ]


def test_with_fields_fills_only_unset_fields() -> None:
    """id/model/created fill what is unset; a set one is kept; another name is a TypeError."""
    resp = ModelResponse(message=Message(role="assistant", content="x"), model="m")
    assert K.with_fields(resp, {}) is resp
    assert K.with_fields(resp, {"model": "n"}) is resp
    out = K.with_fields(resp, {"id": "i", "created": 5, "model": "n"})
    assert (out.id, out.created, out.model) == ("i", 5, "m")
    with pytest.raises(TypeError) as err:
        K.with_fields(resp, {"id": "i", "usage": 1})
    assert str(err.value) == "encode_response() got an unexpected field 'usage'"


def test_kept_keys_for_messages_and_blocks() -> None:
    """Hints never written for a message; own keys all kept; allowed kept; the rest reported
    with the message's or the block's wording; a block's bookkeeping left out silently."""
    policy = B.Unsupported("drop")
    keys = {"from_provider": "x", "a": 1, "refusal": "r", "id": None}
    assert K.kept_keys(keys, frozenset({"a"}), False, policy, "$.m") == {"a": 1}
    assert K.kept_keys(keys, frozenset(), True, policy, "$.n") == {
        "a": 1,
        "refusal": "r",
        "id": None,
    }
    block = TextBlock("t")
    bkeys = {"type_absent": True, "openai_item": {}, "b": 2, "citations": [1]}
    assert K.kept_keys(bkeys, frozenset({"b"}), False, policy, "$.b", "", block) == {"b": 2}
    assert K.kept_keys(bkeys, frozenset(), True, policy, "$.c", "", block) == bkeys
    thinking = ThinkingBlock("t")
    assert (
        K.kept_keys({"openai_item": {"k": 1}}, frozenset(), False, policy, "$.t", "", thinking)
        == {}
    )
    assert K.kept_keys({"from_provider": "p"}, frozenset(), False, policy, "$.h", "", block) == {}
    assert policy.dropped == [
        B.Dropped("$.m.refusal", "the message key 'refusal'"),
        B.Dropped("$.m.id", "the message key 'id' (null)", "metadata"),
        B.Dropped("$.b.citations", "the key 'citations' on a text block"),
        B.Dropped("$.t.openai_item", "the key 'openai_item' on a thinking block", "metadata"),
        B.Dropped("$.h.from_provider", "the key 'from_provider' on a text block", "metadata"),
    ]


def test_message_keys_and_block_extra() -> None:
    """A message without extra has no keys; with extra, by its source; a block's keys from
    block_keys or the ones given."""
    policy = B.Unsupported("drop")
    assert K.message_keys(Message(role="user", content="x"), "p", frozenset(), policy, "$") == {}
    own = Message(role="user", content="x", extra=Extra(from_provider="p", k=1))
    assert K.message_keys(own, "p", frozenset(), policy, "$") == {"k": 1}
    other = Message(role="user", content="x", extra=Extra(from_provider="q", k=1))
    assert K.message_keys(other, "p", frozenset(), policy, "$.m") == {}
    assert policy.dropped == [B.Dropped("$.m.k", "the message key 'k'", "metadata")]
    block = TextBlock("t", extra=Extra(z=1))
    assert K.block_extra(block, frozenset({"z"}), False, policy, "$.b") == {"z": 1}
    assert K.block_extra(TextBlock("t"), frozenset(), False, policy, "$.b") == {}
    assert K.block_extra(block, frozenset(), True, policy, "$.b", {"w": 2}) == {"w": 2}
    assert K.block_extra(block, frozenset(), True, policy, "$.b", {}) == {}


def test_uncached_and_foreign_usage() -> None:
    """Cache reads subtracted or added back only with both counters; foreign counters and
    entries listed by name."""
    c = {"input_tokens": 10, "cache_read_input_tokens": 3}
    K.uncached(c, -1)
    assert c["input_tokens"] == 7
    K.uncached(c, 1)
    assert c["input_tokens"] == 10
    only = {"input_tokens": 10}
    K.uncached(only, -1)
    assert only == {"input_tokens": 10}
    policy = B.Unsupported()
    kept = K.foreign_usage({"a": 1, "b": 2}, {"x": None}, frozenset({"a"}), policy)
    assert kept == {"a": 1}
    K.foreign_usage({}, 5, frozenset(), policy)
    K.foreign_usage({}, None, frozenset(), policy)
    assert policy.dropped == [
        B.Dropped("$.usage.b", "the usage counter 'b'", "metadata"),
        B.Dropped("$.usage_extra.x", "the usage entry 'x'", "metadata"),
        B.Dropped("$.usage_extra", "a usage that is not an object", "metadata"),
    ]


def test_decoder_and_encoders_are_named_and_check_size() -> None:
    """The public functions carry the body's doc, module and name; the decoder checks the
    size of bytes over the limit and of text; the encoders build the request and policy."""

    def read(data: Any, limits: Limits) -> Any:
        """Doc of read."""
        return (data, limits.max_size)

    dec = K.decoder(read, "decode_thing")
    assert (dec.__name__, dec.__qualname__, dec.__doc__) == (
        "decode_thing",
        "decode_thing",
        "Doc of read.",
    )
    assert dec.__module__ == __name__
    assert dec(b"abc", limits=Limits(max_size=3)) == (b"abc", 3)
    with pytest.raises(DecodeError) as err:
        dec(b"abcd", limits=Limits(max_size=3))
    assert err.value.message.startswith("the input is 4 bytes")
    with pytest.raises(DecodeError):
        dec("abcd", limits=Limits(max_size=3))
    with pytest.raises(DecodeError) as err:
        dec(None)
    assert err.value.message == "expected bytes or str, got NoneType"
    seen: list[Any] = []

    def write(req: Any, policy: Any) -> bytes:
        """Doc of write."""
        seen.append((req, policy.policy, policy.dropped, policy.renames))
        return b"x"

    enc = K.request_encoder(write)
    assert enc.__name__ == "encode_request" and enc.__doc__ == "Doc of write."
    into: list[B.Dropped] = []
    r = B.Renames()
    assert (
        enc(_msgs(), unsupported="drop", dropped=into, defaults={"seed": 1}, renames=r, model="m")
        == b"x"
    )
    assert seen == [(B.Request(messages=_msgs(), model="m", options={"seed": 1}), "drop", into, r)]
    assert seen[0][2] is into
    enc(_msgs())
    assert seen[1][1:] == ("error", [], None)

    def write_r(resp: Any, policy: Any, fields: Any) -> bytes:
        """Doc of write_r."""
        seen.append((resp, policy.policy, policy.dropped, fields))
        return b"y"

    renc = K.response_encoder(write_r)
    assert renc.__name__ == "encode_response" and renc.__doc__ == "Doc of write_r."
    resp = _resp("x")
    assert renc(resp, unsupported="drop", dropped=into, id="i") == b"y"
    assert seen[2] == (resp, "drop", into, {"id": "i"}) and seen[2][2] is into
    renc(resp)
    assert seen[3] == (resp, "error", [], {})


def test_response_decoder_restores_names() -> None:
    """``renames`` gives the tool calls their names back; without it the response as read."""

    def read(data: Any, limits: Limits) -> ModelResponse:
        """Doc."""
        return _resp([ToolUseBlock(id="i", name="a_b", input={})])

    dec = K.response_decoder(read)
    assert dec.__name__ == "decode_response" and dec.__doc__ == "Doc."
    r = B.Renames()
    r.name("a.b")
    assert dec(b"{}").message.content[0].name == "a_b"  # type: ignore[index,union-attr]
    assert dec(b"{}", renames=r).message.content[0].name == "a.b"  # type: ignore[index,union-attr]
    with pytest.raises(DecodeError):
        dec(b"{}", limits=Limits(max_size=1))


def test_openai_choice_read_and_written() -> None:
    """Mode strings, a named tool and parallel_tool_calls read into one ToolChoice; bad values
    stay as options; and written back."""

    def named(v: Any) -> bool:
        return type(v) is dict and "name" in v

    def name_of(v: Any) -> str:
        return str(v["name"])

    for options, want in (
        ({"tool_choice": "required"}, B.ToolChoice(mode="any")),
        ({"tool_choice": "none"}, B.ToolChoice(mode="none")),
        ({"tool_choice": {"name": "f"}}, B.ToolChoice(mode="tool", name="f")),
        ({"parallel_tool_calls": False}, B.ToolChoice(parallel=False)),
        (
            {"tool_choice": "auto", "parallel_tool_calls": True},
            B.ToolChoice(mode="auto", parallel=True),
        ),
    ):
        reader = K.SettingsReader(dict(options))
        K.take_openai_choice(reader, named, name_of)
        assert reader.fields == {"tool_choice": want} and reader.options == {}
    reader = K.SettingsReader({"tool_choice": "sometimes", "parallel_tool_calls": 1})
    K.take_openai_choice(reader, named, name_of)
    assert reader.fields == {} and reader.options == {
        "tool_choice": "sometimes",
        "parallel_tool_calls": 1,
    }
    out: dict[str, Any] = {}
    K.put_openai_choice(B.ToolChoice(mode="tool", name="f"), lambda n: {"n": n}, out)
    assert out == {"tool_choice": {"n": "f"}}
    out = {}
    K.put_openai_choice(B.ToolChoice(mode="tool"), lambda n: {"n": n}, out)
    assert out == {"tool_choice": {"n": ""}}
    out = {}
    K.put_openai_choice(B.ToolChoice(mode="any", parallel=False), lambda n: n, out)
    assert out == {"tool_choice": "required", "parallel_tool_calls": False}
    out = {}
    K.put_openai_choice(B.ToolChoice(), lambda n: n, out)
    assert out == {}


def test_usage_in_and_typed_fields() -> None:
    """The usage popped, renamed and uncached, the rest in usage_extra; a non-object kept as
    it came; typed fields popped only with the right type."""
    extra: dict[str, Any] = {"usage": {"p": 10, "c": 4, "t": "s"}, "k": 1}
    assert K.usage_in(extra, "usage", {"p": "input_tokens", "c": "cache_read_input_tokens"}) == {
        "input_tokens": 6,
        "cache_read_input_tokens": 4,
    }
    assert extra == {"k": 1, "usage_extra": {"t": "s"}}
    plain: dict[str, Any] = {"usage": {"p": 1}}
    assert K.usage_in(plain, "usage", {}) == {"p": 1} and plain == {}
    odd: dict[str, Any] = {"usage": None}
    assert K.usage_in(odd, "usage", {}) == {} and odd == {"usage_extra": None}
    assert K.usage_in({}, "usage", {}) == {}
    extra = {"id": "i", "model": 3, "created": 5}
    spec = (("id", "id", str), ("model", "model", str), ("created", "created", int))
    assert K.typed_fields(extra, spec) == {"id": "i", "created": 5}
    assert extra == {"model": 3}


def test_take_same_tool_ok_tool_from_take_tools() -> None:
    """Neutral-named settings by JSON type; function tools held exactly or all left."""
    reader = K.SettingsReader(
        {
            "model": 1,
            "max_tokens": True,
            "temperature": 1,
            "top_p": 0.5,
            "user": "u",
            "metadata": {},
            "stream": False,
        }
    )
    K.take_same(
        reader, ("model", "max_tokens", "temperature", "top_p", "user", "metadata", "stream")
    )
    assert reader.fields == {
        "temperature": 1,
        "top_p": 0.5,
        "user": "u",
        "metadata": {},
        "stream": False,
    }
    assert reader.options == {"model": 1, "max_tokens": True}
    req = {"name"}
    assert K.tool_ok({"name": "f"}, req, "parameters") is True
    assert (
        K.tool_ok(
            {"name": "f", "description": "d", "parameters": {}, "strict": True}, req, "parameters"
        )
        is True
    )
    assert K.tool_ok({"name": 1}, req, "parameters") is False
    assert K.tool_ok({"name": "f", "description": 1}, req, "parameters") is False
    assert K.tool_ok({"name": "f", "parameters": []}, req, "parameters") is False
    assert K.tool_ok({"name": "f", "strict": 1}, req, "parameters") is False
    assert K.tool_ok({"name": "f", "other": 1}, req, "parameters") is False
    assert K.tool_ok({"name": "f", "type": "function"}, {"name", "type"}, "parameters") is True
    assert K.tool_from(
        {"name": "f", "description": "d", "s": {"a": 1}, "strict": False}, "s"
    ) == B.Tool(name="f", description="d", parameters={"a": 1}, strict=False)
    assert K.tool_from({"name": "f"}, "s") == B.Tool(name="f")
    ok = lambda t: K.tool_ok(t, req, "s")  # noqa: E731
    reader = K.SettingsReader({"tools": [{"name": "a"}, {"name": "b", "s": {}}]})
    K.take_tools(reader, ok, lambda t: K.tool_from(t, "s"))
    assert reader.fields == {"tools": [B.Tool(name="a"), B.Tool(name="b", parameters={})]}
    reader = K.SettingsReader({"tools": [{"name": "a"}, {"x": 1}]})
    K.take_tools(reader, ok, lambda t: K.tool_from(t, "s"))
    assert reader.fields == {} and reader.options == {"tools": [{"name": "a"}, {"x": 1}]}
    reader = K.SettingsReader({"tools": {"name": "a"}})
    K.take_tools(reader, ok, lambda t: K.tool_from(t, "s"))
    assert reader.fields == {}


def test_usage_object_and_tool_fields() -> None:
    """A colliding usage is refused at $.usage; a Tool written with each optional key."""
    assert K.usage_object({"a.b": 1}, {"c": None}, {"a.b": "x.y"}) == {"x": {"y": 1}, "c": None}
    with pytest.raises(B.UnsupportedError) as err:
        K.usage_object({"a": 1, "a.b": 2}, {})
    assert (err.value.message, err.value.path) == (
        "usage key 'a.b' nests under a non-object",
        "$.usage",
    )
    tool = B.Tool(name="f", description="d", parameters={"a": 1}, strict=True)
    assert K.tool_fields(tool, "s") == {
        "name": "f",
        "description": "d",
        "s": {"a": 1},
        "strict": True,
    }
    assert K.tool_fields(tool, "s", strict=False) == {
        "name": "f",
        "description": "d",
        "s": {"a": 1},
    }
    assert K.tool_fields(B.Tool(name="f"), "s") == {"name": "f"}
    assert K.tool_fields(B.Tool(name="f"), "s", {}) == {"name": "f", "s": {}}
    assert K.tool_fields(B.Tool(name="f", strict=False), "s") == {"name": "f", "strict": False}


def test_effort_and_budget_each_way() -> None:
    """Effort from a budget at each floor, and a budget from each effort, with what is listed."""
    p = B.Unsupported()
    R = B.Reasoning
    assert [K.effort(R(budget_tokens=t), p) for t in (1, 2047, 2048, 4095, 4096, 10**6)] == [
        "low",
        "low",
        "medium",
        "medium",
        "high",
        "high",
    ]
    assert K.effort(R(budget_tokens=0), p) == "none"
    assert K.effort(R(), p) is None
    assert K.effort(R(budget_tokens=-1), p) is None
    assert K.effort(R(effort="max", budget_tokens=5), p) == "max"
    assert K.effort(R(effort="low"), p) == "low"
    assert [K.budget(R(effort=e), p) for e in K.EFFORT_BUDGETS] == [
        1024,
        1024,
        2048,
        4096,
        8192,
        16384,
    ]
    assert K.budget(R(effort="none"), p) == 0
    assert K.budget(R(), p) is None
    assert K.budget(R(effort="wild"), p) is None
    assert K.budget(R(budget_tokens=7, effort="low"), p) == 7
    assert K.budget(R(budget_tokens=7), p) == 7
    assert p.dropped == [
        B.Dropped("$.reasoning.budget_tokens", "the thinking budget -1 (no effort)", "metadata"),
        B.Dropped("$.reasoning.budget_tokens", "a reasoning budget beside an effort", "metadata"),
        B.Dropped("$.reasoning.effort", "the reasoning effort 'wild' (no budget)", "metadata"),
        B.Dropped("$.reasoning.effort", "a reasoning effort beside a budget", "metadata"),
    ]


def test_spelled_alike_splits() -> None:
    """Settings split into those spelled like the neutral names and the rest."""
    assert K.spelled_alike({"a": 1, "b": 2, "c": 3}, ("a", "c")) == ({"a": 1, "c": 3}, {"b": 2})


# --- gemini ------------------------------------------------------------------------------

import json  # noqa: E402

from minagent.providers import gemini as G  # noqa: E402
from minagent.wire import (  # noqa: E402
    Base64Source,
    DocumentBlock,
    ImageBlock,
    RedactedThinkingBlock,
    UrlSource,
)


def _g_req(body: dict[str, Any]) -> B.Request:
    return G.decode_request(json.dumps(body).encode())


def _g_enc(req: Any, **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(G.encode_request(req, **kw))
    return out


def test_gemini_write_settings_each_setting() -> None:
    """Every neutral setting spelled for Gemini, and what is listed for the rest."""
    policy = B.Unsupported()
    fields = {
        "model": "m",
        "max_tokens": 5,
        "temperature": 0.5,
        "top_p": 0.25,
        "stop": ("a",),
        "reasoning": B.Reasoning(effort="high"),
        "response_format": B.ResponseFormat(
            type="json_schema", schema={"a": 1}, name="n", strict=True
        ),
        "tools": [B.Tool(name="f.g", description="d", parameters={"p": 1}, strict=True)],
        "tool_choice": B.ToolChoice(mode="tool", name="f.g", parallel=True),
        "metadata": {"k": 1},
        "user": "u",
        "stream": True,
    }
    out = G.write_settings(fields, policy)
    assert out == {
        "tools": [
            {"functionDeclarations": [{"name": "f.g", "description": "d", "parameters": {"p": 1}}]}
        ],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f.g"]}},
        "generationConfig": {
            "maxOutputTokens": 5,
            "temperature": 0.5,
            "topP": 0.25,
            "stopSequences": ["a"],
            "thinkingConfig": {"thinkingBudget": 4096},
            "responseMimeType": "application/json",
            "responseJsonSchema": {"a": 1},
        },
    }
    assert policy.dropped == [
        B.Dropped("$.model", "the model (Gemini takes it in the URL)", "metadata"),
        B.Dropped("$.response_format.name", "the schema's name (no Gemini field)", "metadata"),
        B.Dropped("$.response_format.strict", "strict (no Gemini field)", "metadata"),
        B.Dropped("$.tools.strict", "strict on the tool 'f.g' (no Gemini field)", "metadata"),
        B.Dropped("$.tool_choice.parallel", "parallel tool calls (no switch here)", "metadata"),
        B.Dropped(
            "$.metadata", "metadata (labels are Vertex AI's, not the Gemini API's)", "metadata"
        ),
        B.Dropped("$.user", "the end-user id (no Gemini field)", "metadata"),
        B.Dropped("$.stream", "stream (Gemini streams by endpoint, not by a key)", "metadata"),
    ]
    with pytest.raises(B.UnsupportedError) as err:
        G.write_settings({"bogus": 1}, B.Unsupported())
    assert (err.value.message, err.value.path) == (
        "the target format cannot hold the setting 'bogus' (no Gemini spelling)",
        "$.bogus",
    )


def test_gemini_write_settings_small_cases() -> None:
    """A mode, no mode, text and json formats, an effort with no budget, a fitted name."""
    p = B.Unsupported()
    assert G.write_settings({"tool_choice": B.ToolChoice(mode="none")}, p) == {
        "toolConfig": {"functionCallingConfig": {"mode": "NONE"}}
    }
    assert G.write_settings({"tool_choice": B.ToolChoice(parallel=False)}, p) == {}
    assert G.write_settings({"tool_choice": B.ToolChoice(mode="tool")}, p) == {
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["_"]}}
    }
    assert G.write_settings({"response_format": B.ResponseFormat(type="text")}, p) == {}
    assert G.write_settings({"response_format": B.ResponseFormat(type="json")}, p) == {
        "generationConfig": {"responseMimeType": "application/json"}
    }
    assert G.write_settings({"response_format": B.ResponseFormat(type="json_schema")}, p) == {
        "generationConfig": {"responseMimeType": "application/json"}
    }
    assert G.write_settings({"reasoning": B.Reasoning(effort="odd")}, p) == {}
    assert G.write_settings({"reasoning": B.Reasoning(effort="none")}, p) == {
        "generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}
    }
    assert G.write_settings({"tools": [B.Tool(name="1x")]}, p) == {
        "tools": [{"functionDeclarations": [{"name": "_1x"}]}]
    }


def test_gemini_read_settings_exactly() -> None:
    """Typed settings out of the body and generationConfig; what fails stays an option."""
    req = _g_req(
        {
            "model": "g",
            "contents": [],
            "generationConfig": {
                "maxOutputTokens": 3,
                "temperature": 1,
                "topP": 0.5,
                "stopSequences": ["x"],
                "thinkingConfig": {"thinkingBudget": 7},
                "responseMimeType": "application/json",
                "responseJsonSchema": {"t": 1},
                "seed": 2,
            },
            "tools": [
                {"functionDeclarations": [{"name": "f", "description": "d", "parameters": {}}]}
            ],
            "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f"]}},
            "labels": {"a": "b"},
        }
    )
    assert (req.model, req.max_tokens, req.temperature, req.top_p, req.stop) == (
        "g",
        3,
        1,
        0.5,
        ["x"],
    )
    assert req.reasoning == B.Reasoning(budget_tokens=7)
    assert req.response_format == B.ResponseFormat(type="json_schema", schema={"t": 1})
    assert req.tools == [B.Tool(name="f", description="d", parameters={})]
    assert req.tool_choice == B.ToolChoice(mode="tool", name="f")
    assert req.metadata == {"a": "b"}
    assert req.options == {"generationConfig": {"seed": 2}}
    assert req.spelling["generationConfig"] == {
        "maxOutputTokens": 3,
        "temperature": 1,
        "topP": 0.5,
        "stopSequences": ["x"],
        "thinkingConfig": {"thinkingBudget": 7},
        "responseJsonSchema": {"t": 1},
        "responseMimeType": "application/json",
    }
    only = _g_req({"generationConfig": {"maxOutputTokens": 3}})
    assert only.options == {} and only.max_tokens == 3
    none = _g_req({"generationConfig": {"seed": 1}})
    assert none.options == {"generationConfig": {"seed": 1}} and none.spelling == {}
    plain = _g_req({"generationConfig": {"responseMimeType": "application/json"}})
    assert plain.response_format == B.ResponseFormat(type="json")
    for config in (
        {"responseMimeType": "application/json", "responseSchema": {}},
        {"responseMimeType": "application/json", "responseJsonSchema": 3},
        {"responseMimeType": "text/plain"},
    ):
        kept = _g_req({"generationConfig": config})
        assert kept.response_format is None and kept.options == {"generationConfig": config}
    for mode, want in (("AUTO", "auto"), ("ANY", "any"), ("NONE", "none")):
        r = _g_req({"toolConfig": {"functionCallingConfig": {"mode": mode}}})
        assert r.tool_choice == B.ToolChoice(mode=want)
    for config in (
        {"functionCallingConfig": {"mode": "SOME"}},
        {"functionCallingConfig": {"mode": "AUTO", "allowedFunctionNames": ["f"]}},
        {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["f", "g"]}},
        {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [1]}},
        {"functionCallingConfig": {"mode": "ANY"}, "x": 1},
    ):
        assert _g_req({"toolConfig": config}).options == {"toolConfig": config}
    for tools in (
        [{"functionDeclarations": [{"name": "f"}]}, {"functionDeclarations": []}],
        [{"functionDeclarations": [{"name": 1}]}],
        [{"functionDeclarations": [{"name": "f", "description": 1}]}],
        [{"functionDeclarations": [{"name": "f", "parameters": []}]}],
        [{"functionDeclarations": [{"name": "f", "strict": True}]}],
        [{"functionDeclarations": {"name": "f"}}],
        [{"functionDeclarations": [], "googleSearch": {}}],
        {"functionDeclarations": []},
    ):
        assert _g_req({"tools": tools}).options == {"tools": tools}
    bad_thinking = {"thinkingConfig": {"thinkingBudget": 1.5}}
    assert _g_req({"generationConfig": bad_thinking}).reasoning is None
    assert _g_req({"labels": []}).metadata is None


def test_gemini_decode_request_messages() -> None:
    """System instruction, roles, a run of user parts split by function responses, new turns."""
    req = _g_req(
        {
            "systemInstruction": {"role": "system", "parts": [{"text": "s"}]},
            "contents": [
                {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"name": "f", "args": {"a": 1}}},
                        {"functionCall": {"name": "f"}},
                    ],
                },
                {
                    "parts": [
                        {"text": "before"},
                        {"functionResponse": {"name": "f", "response": {"output": "o"}}},
                    ]
                },
                {
                    "role": "user",
                    "parts": [
                        {"functionResponse": {"name": "f", "response": {"error": "e"}}},
                        {"text": "after"},
                    ],
                },
                {"role": "user", "parts": []},
            ],
        }
    )
    assert req.options == {"systemInstruction": {"role": "system"}}
    m = req.messages
    assert m[0] == Message(role="system", content="s")
    assert m[1].content == [
        ToolUseBlock(id="minagent-gemini-0-0", name="f", input={"a": 1}),
        ToolUseBlock(id="minagent-gemini-0-1", name="f", input={}, extra=Extra(args_absent=True)),
    ]
    assert m[2] == Message(role="user", content="before", extra=UNSET)
    assert m[3] == Message(role="tool", content="o", tool_call_id="minagent-gemini-0-0")
    assert m[4] == Message(
        role="tool",
        content="e",
        tool_call_id="minagent-gemini-0-1",
        is_error=True,
        extra=Extra(new_turn=True),
    )
    assert m[5] == Message(role="user", content="after")
    assert m[6] == Message(role="user", content=[])
    assert len(m) == 7
    two = _g_req(
        {
            "contents": [
                {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"name": "f", "id": "a"}},
                        {"functionCall": {"name": "f", "id": "b"}},
                    ],
                },
                {
                    "role": "user",
                    "parts": [{"functionResponse": {"id": "a", "name": "f", "response": {}}}],
                },
                {
                    "role": "user",
                    "parts": [{"functionResponse": {"id": "b", "name": "f", "response": {}}}],
                },
            ]
        }
    )
    assert two.messages[1].extra == Extra(gemini_response="object", from_provider="gemini")
    assert two.messages[2].extra == Extra(
        gemini_response="object", from_provider="gemini", new_turn=True
    )
    with pytest.raises(ValidationError) as err:
        _g_req({"contents": [{"role": "system", "parts": []}]})
    assert (err.value.message, err.value.path) == ("unknown role 'system'", "$.contents[0].role")
    with pytest.raises(ValidationError) as err:
        _g_req({"contents": [{"role": 1}]})
    assert err.value.message == "unknown role 1"
    with pytest.raises(ValidationError) as err:
        _g_req({"contents": [{"parts": [{"functionResponse": {"name": "f"}}]}]})
    assert (err.value.message, err.value.path) == (
        "a functionResponse for 'f' answers no earlier functionCall and has no id",
        "$.contents[0].parts[0].functionResponse",
    )
    sys_only = _g_req({"systemInstruction": {"parts": [{"text": "a"}, {"text": "b"}]}})
    assert (
        sys_only.messages == [Message(role="system", content=[TextBlock("a"), TextBlock("b")])]
        and sys_only.options == {}
    )


def test_gemini_tool_message_keys() -> None:
    """functionResponse keys: the known ones flat, others under functionResponse, part keys
    beside; an id answers its call and the next id-less one answers the next."""
    req = _g_req(
        {
            "contents": [
                {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"name": "f", "id": "x"}},
                        {"functionCall": {"name": "f"}},
                    ],
                },
                {
                    "role": "user",
                    "parts": [
                        {
                            "functionResponse": {
                                "id": "x",
                                "name": "f",
                                "response": {"output": 1},
                                "willContinue": True,
                                "odd": 2,
                            },
                            "thoughtSignature": "t",
                        },
                        {"functionResponse": {"name": "f", "response": {"output": "o", "more": 1}}},
                    ],
                },
            ]
        }
    )
    first, second = req.messages[1], req.messages[2]
    assert first.tool_call_id == "x" and first.content == '{"output":1}'
    assert dict(first.extra) == {
        "thoughtSignature": "t",
        "willContinue": True,
        "functionResponse": {"odd": 2},
        "gemini_response": "object",
        "from_provider": "gemini",
    }
    assert second.tool_call_id == "minagent-gemini-0-1"
    assert second.content == '{"output":"o","more":1}'
    back = _g_enc(req)
    assert back["contents"][1]["parts"] == [
        {
            "functionResponse": {
                "id": "x",
                "name": "f",
                "response": {"output": 1},
                "willContinue": True,
                "odd": 2,
            },
            "thoughtSignature": "t",
        },
        {"functionResponse": {"name": "f", "response": {"output": "o", "more": 1}}},
    ]


def test_gemini_parts_decoded_exactly() -> None:
    """Each part kind: thought, inline image/document/other, file data with a guessed or a
    kept mime, calls outside a model turn, parts with two data keys."""
    pdf = "JVBERg=="
    req = _g_req(
        {
            "contents": [
                {
                    "role": "user",
                    "parts": [
                        {"text": "t", "thought": True, "thoughtSignature": "s"},
                        {"text": "u", "thought": False},
                        {"inlineData": {"mimeType": "image/png", "data": "iVBO", "x": 1}},
                        {"inlineData": {"mimeType": "application/pdf", "data": pdf}},
                        {"inlineData": {"mimeType": "text/plain", "data": "aGk="}},
                        {"inlineData": {"mimeType": "audio/wav", "data": "aGk="}},
                        {"inlineData": {"mimeType": "image/png", "data": "QR=="}},
                        {"inlineData": {"mimeType": 1, "data": "aGk="}},
                        {"fileData": {"mimeType": "image/png", "fileUri": "https://a/b.png?x=1"}},
                        {"fileData": {"mimeType": "image/jpeg", "fileUri": "https://a/b.png"}},
                        {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://a/b"}},
                        {"fileData": {"mimeType": "video/mp4", "fileUri": "gs://a/b.mp4"}},
                        {"fileData": {"fileUri": "gs://a/b.png"}},
                        {"functionCall": {"name": "f"}},
                        {"text": "a", "inlineData": {}},
                        {"text": 3},
                    ],
                }
            ]
        }
    )
    blocks = req.messages[0].content
    unknown = lambda part: UnknownBlock(Extra(type="gemini_part", **part))  # noqa: E731
    assert blocks == [
        ThinkingBlock("t", extra=Extra(thoughtSignature="s")),
        TextBlock("u", extra=Extra(thought=False)),
        ImageBlock(Base64Source("image/png", b"\x89PN", extra=Extra(x=1))),
        DocumentBlock(Base64Source("application/pdf", b"%PDF")),
        DocumentBlock(Base64Source("text/plain", b"hi")),
        unknown({"inlineData": {"mimeType": "audio/wav", "data": "aGk="}}),
        unknown({"inlineData": {"mimeType": "image/png", "data": "QR=="}}),
        unknown({"inlineData": {"mimeType": 1, "data": "aGk="}}),
        ImageBlock(UrlSource("https://a/b.png?x=1")),
        ImageBlock(UrlSource("https://a/b.png", extra=Extra(mimeType="image/jpeg"))),
        DocumentBlock(UrlSource("gs://a/b", extra=Extra(mimeType="application/pdf"))),
        unknown({"fileData": {"mimeType": "video/mp4", "fileUri": "gs://a/b.mp4"}}),
        unknown({"fileData": {"fileUri": "gs://a/b.png"}}),
        unknown({"functionCall": {"name": "f"}}),
        unknown({"text": "a", "inlineData": {}}),
        unknown({"text": 3}),
    ]
    assert _g_enc(req)["contents"][0]["parts"][1] == {"text": "u", "thought": False}


def test_gemini_response_decoded_exactly() -> None:
    """Candidates, finish reasons, a blocked prompt, usage and typed fields."""
    body = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "f", "args": {}}}],
                },
                "finishReason": "STOP",
                "index": 0,
            },
            {"x": 1},
        ],
        "usageMetadata": {
            "promptTokenCount": 10,
            "cachedContentTokenCount": 4,
            "candidatesTokenCount": 2,
            "thoughtsTokenCount": 1,
            "totalTokenCount": 13,
            "trafficType": "ON_DEMAND",
        },
        "responseId": "r",
        "modelVersion": "v",
        "createTime": "t",
    }
    resp = G.decode_response(json.dumps(body).encode())
    assert resp.stop_reason == "tool_use"
    assert resp.message.content == [ToolUseBlock(id="minagent-gemini-0-0", name="f", input={})]
    assert resp.usage == {
        "input_tokens": 6,
        "cache_read_input_tokens": 4,
        "output_tokens": 2,
        "reasoning_tokens": 1,
        "total_tokens": 13,
    }
    assert (resp.id, resp.model) == ("r", "v")
    assert dict(resp.extra) == {
        "candidates": [
            {"content": {"role": "model"}, "finishReason": "STOP", "index": 0},
            {"x": 1},
        ],
        "createTime": "t",
        "usage_extra": {"trafficType": "ON_DEMAND"},
        "from_provider": "gemini",
    }
    assert json.loads(G.encode_response(resp)) == body
    for finish, want in (
        ("MAX_TOKENS", "max_tokens"),
        ("SAFETY", "refusal"),
        ("OTHER", "OTHER"),
        ("STOP", "end_turn"),
    ):
        r = G.decode_response(
            json.dumps(
                {"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": finish}]}
            ).encode()
        )
        assert r.stop_reason == want and r.message.content == [TextBlock("x")]
    blocked = G.decode_response(b'{"promptFeedback": {"blockReason": "SAFETY"}}')
    assert blocked.stop_reason == "refusal" and blocked.message.content == []
    assert G.decode_response(b'{"promptFeedback": {}}').stop_reason == "end_turn"
    assert G.decode_response(b'{"candidates": []}').stop_reason == "end_turn"
    nofinish = G.decode_response(b'{"candidates": [{"finishReason": 1}]}')
    assert nofinish.stop_reason == "end_turn"
    odd = G.decode_response(b'{"usageMetadata": 3, "responseId": 1}')
    assert odd.usage == {} and odd.id is UNSET
    assert dict(odd.extra) == {"usage_extra": 3, "responseId": 1, "from_provider": "gemini"}


def test_gemini_encode_request_messages() -> None:
    """System messages join systemInstruction over its options; tool messages share a content
    unless a new turn starts; an empty foreign turn is listed and left out."""
    msgs = [
        Message(role="system", content="a"),
        Message(role="system", content=[TextBlock("b")], extra=Extra(k=1)),
        Message(
            role="assistant",
            content=[
                ToolUseBlock(id="c1", name="f", input={}),
                ToolUseBlock(id="minagent-gemini-0-1", name="g", input={"x": 1}),
            ],
        ),
        Message(role="tool", content="r1", tool_call_id="c1"),
        Message(
            role="tool",
            content=[TextBlock("r"), TextBlock("2")],
            tool_call_id="minagent-gemini-0-1",
            is_error=True,
        ),
        Message(
            role="tool",
            content="r3",
            tool_call_id="c1",
            extra=Extra(new_turn=True, from_provider="gemini"),
        ),
        Message(role="user", content=[RedactedThinkingBlock("zz")]),
        Message(role="assistant", content="done"),
    ]
    dropped: list[B.Dropped] = []
    req = B.Request(messages=msgs, options={"systemInstruction": {"role": "x"}})
    out = _g_enc(req, dropped=dropped)
    assert out == {
        "systemInstruction": {"role": "x", "parts": [{"text": "a"}, {"text": "b"}]},
        "contents": [
            {
                "role": "model",
                "parts": [
                    {"functionCall": {"name": "f", "args": {}, "id": "c1"}},
                    {"functionCall": {"name": "g", "args": {"x": 1}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"id": "c1", "name": "f", "response": {"output": "r1"}}},
                    {"functionResponse": {"name": "g", "response": {"error": "r2"}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"id": "c1", "name": "f", "response": {"output": "r3"}}}
                ],
            },
            {"role": "model", "parts": [{"text": "done"}]},
        ],
    }
    assert dropped == [
        B.Dropped("$.messages[1].k", "the message key 'k'", "metadata"),
        B.Dropped(
            "$.messages[6].content[0]",
            "a redacted thinking block (encrypted for Anthropic alone)",
            "metadata",
        ),
        B.Dropped(
            "$.messages[6]", "a turn left without parts (Gemini refuses an empty one)", "metadata"
        ),
    ]
    assert _g_enc([Message(role="user", content="x")]) == {
        "contents": [{"role": "user", "parts": [{"text": "x"}]}]
    }
    own_empty = Message(role="user", content=[], extra=Extra(from_provider="gemini", k=2))
    assert _g_enc([own_empty])["contents"] == [{"role": "user", "parts": [], "k": 2}]
    base = B.Request(
        messages=[Message(role="system", content="s")], options={"systemInstruction": 3}
    )
    assert _g_enc(base)["systemInstruction"] == {"parts": [{"text": "s"}]}


def test_gemini_encode_request_refusals() -> None:
    """Exact refusals: a non-text system block, a tool message without id or call, a
    non-text block in a tool result, unknown and foreign blocks, sources."""

    def refused(msgs: list[Message]) -> tuple[str, str | None]:
        with pytest.raises(B.UnsupportedError) as err:
            G.encode_request(msgs)
        return err.value.message, err.value.path

    pre = "the target format cannot hold "
    assert refused([Message(role="system", content=[ThinkingBlock("t")])]) == (
        pre + "a thinking block in the system instruction",
        "$.messages[0].content[0]",
    )
    assert refused(
        [Message(role="system", content=[ToolUseBlock(id="i", name="n", input={})])]
    ) == (pre + "a tool_use block in the system instruction", "$.messages[0].content[0]")
    assert refused([Message(role="tool", content="x")]) == (
        pre + "a tool message without tool_call_id",
        "$.messages[0]",
    )
    assert refused([Message(role="tool", content="x", tool_call_id="q")]) == (
        pre + "a tool result answering no earlier tool call (Gemini needs the function name)",
        "$.messages[0].tool_call_id",
    )
    call = Message(role="assistant", content=[ToolUseBlock(id="q", name="f", input={})])
    assert refused(
        [call, Message(role="tool", content=[ImageBlock(UrlSource("u.png"))], tool_call_id="q")]
    ) == (pre + "an image block in a tool result", "$.messages[1].content[0]")
    assert refused([Message(role="user", content=[UnknownBlock(Extra(type="zz"))])]) == (
        pre + "a 'zz' block from another provider (no such block here)",
        "$.messages[0].content[0]",
    )
    own_unknown = Message(
        role="user", content=[UnknownBlock(Extra(type="zz"))], extra=Extra(from_provider="gemini")
    )
    assert refused([own_unknown]) == (
        pre + "a 'zz' block (no such block here)",
        "$.messages[0].content[0]",
    )
    assert refused([Message(role="user", content=[ImageBlock(UrlSource("https://a/b"))])]) == (
        pre + "a URL source whose media type is unknown (fileData needs one)",
        "$.messages[0].content[0].source",
    )
    from minagent.wire import FileSource

    assert refused([Message(role="user", content=[DocumentBlock(FileSource("f1"))])]) == (
        pre + "a 'file' source",
        "$.messages[0].content[0].source",
    )
    from minagent.wire import ToolResultBlock

    assert refused(
        [Message(role="user", content=[ToolResultBlock(tool_use_id="x", content="c")])]
    ) == (pre + "a tool_result block (not a Gemini part)", "$.messages[0].content[0]")


def test_gemini_encode_blocks_with_keys() -> None:
    """Parts with keys: a text's own keys, a thinking signature listed, a call's args_absent,
    media with source keys (own kept, foreign listed), a fitted foreign name."""
    own = Extra(from_provider="gemini")
    msgs = [
        Message(
            role="assistant",
            content=[
                TextBlock("t", extra=Extra(thoughtSignature="s", other=1)),
                ThinkingBlock("th", signature="sig"),
                ToolUseBlock(
                    id="minagent-gemini-0-2", name="f", input={}, extra=Extra(args_absent=True)
                ),
                ToolUseBlock(id="c", name="f", input={"a": 1}, extra=Extra(args_absent=True)),
                ToolUseBlock(id="d", name="w.x!", input={}, extra=Extra(thought=True)),
            ],
        ),
        Message(
            role="user",
            content=[
                ImageBlock(Base64Source("image/png", b"hi", extra=Extra(mimeType="m", k=1))),
                ImageBlock(UrlSource("https://a/b.png", extra=Extra(mimeType="image/gif"))),
                DocumentBlock(UrlSource("https://a/b.pdf"), extra=Extra(thoughtSignature="x")),
            ],
        ),
    ]
    dropped: list[B.Dropped] = []
    out = _g_enc(msgs, unsupported="drop", dropped=dropped)
    assert out["contents"] == [
        {
            "role": "model",
            "parts": [
                {"text": "t", "thoughtSignature": "s"},
                {"text": "th", "thought": True},
                {"functionCall": {"name": "f"}},
                {"functionCall": {"name": "f", "args": {"a": 1}, "id": "c"}},
                {"functionCall": {"name": "w.x_", "args": {}, "id": "d"}, "thought": True},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"inlineData": {"mimeType": "m", "data": "aGk="}},
                {"fileData": {"mimeType": "image/gif", "fileUri": "https://a/b.png"}},
                {
                    "fileData": {"mimeType": "application/pdf", "fileUri": "https://a/b.pdf"},
                    "thoughtSignature": "x",
                },
            ],
        },
    ]
    assert dropped == [
        B.Dropped("$.messages[0].content[0].other", "the key 'other' on a text block", "metadata"),
        B.Dropped(
            "$.messages[0].content[1].signature",
            "a thinking signature (Anthropic's; Gemini signs its own)",
            "metadata",
        ),
        B.Dropped("$.messages[1].content[0].source.k", "the key 'k' on a source", "metadata"),
    ]
    own_msgs = [
        Message(
            role="user",
            content=[
                ImageBlock(Base64Source("image/png", b"hi", extra=Extra(k=1))),
                UnknownBlock(Extra(type="gemini_part", executableCode={"code": "x"})),
            ],
            extra=own,
        )
    ]
    assert _g_enc(own_msgs)["contents"][0]["parts"] == [
        {"inlineData": {"mimeType": "image/png", "data": "aGk=", "k": 1}},
        {"executableCode": {"code": "x"}},
    ]


def _g_resp(**kw: Any) -> ModelResponse:
    kw.setdefault("message", Message(role="assistant", content=[TextBlock("x")]))
    return ModelResponse(**kw)


def test_gemini_encode_response_foreign_and_own() -> None:
    """Another provider's response: keys listed, created listed, finish reasons mapped, usage
    kept for known counters; Gemini's own: keys back, a null usage back."""
    dropped: list[B.Dropped] = []
    resp = _g_resp(
        stop_reason="max_tokens",
        created=5,
        id="i",
        model="m",
        usage={"input_tokens": 3, "cache_read_input_tokens": 2, "odd": 1},
        extra=Extra(system_fingerprint="f", usage_extra={"t": 1}),
    )
    out = json.loads(G.encode_response(resp, dropped=dropped))
    assert out == {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "x"}]},
                "index": 0,
                "finishReason": "MAX_TOKENS",
            }
        ],
        "usageMetadata": {"promptTokenCount": 5, "cachedContentTokenCount": 2},
        "modelVersion": "m",
        "responseId": "i",
    }
    assert dropped == [
        B.Dropped("$.system_fingerprint", "the response key 'system_fingerprint'", "metadata"),
        B.Dropped("$.created", "the creation time (Gemini writes createTime text)", "metadata"),
        B.Dropped("$.usage.odd", "the usage counter 'odd'", "metadata"),
        B.Dropped("$.usage_extra.t", "the usage entry 't'", "metadata"),
    ]
    for reason, finish in (
        ("end_turn", None),
        ("tool_use", None),
        ("refusal", "SAFETY"),
        ("stop_sequence", "STOP"),
        ("incomplete:content_filter", "SAFETY"),
        ("weird", "OTHER"),
        ("RECITATION", "RECITATION"),
    ):
        d: list[B.Dropped] = []
        body = json.loads(G.encode_response(_g_resp(stop_reason=reason), dropped=d))
        assert body["candidates"][0].get("finishReason") == finish
        assert [x.path for x in d] == (["$.stop_reason"] if reason == "weird" else [])
    own = G.decode_response(
        b'{"candidates": [{"content": {"role": "model", "parts": [{"text": "a"}]},'
        b' "finishReason": "STOP"}], "usageMetadata": null}'
    )
    assert json.loads(G.encode_response(own)) == {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "a"}]}, "finishReason": "STOP"}
        ],
        "usageMetadata": None,
    }
    changed = msgspec.structs.replace(own, stop_reason="max_tokens")
    assert json.loads(G.encode_response(changed))["candidates"][0]["finishReason"] == "MAX_TOKENS"
    empty = _g_resp(message=Message(role="assistant", content=[]))
    assert json.loads(G.encode_response(empty)) == {
        "candidates": [{"content": {"role": "model"}, "index": 0}]
    }
    nocontent = G.decode_response(b'{"candidates": [{"finishReason": "STOP"}]}')
    assert json.loads(G.encode_response(nocontent)) == {"candidates": [{"finishReason": "STOP"}]}
    with_parts = msgspec.structs.replace(nocontent, message=Message(role="assistant", content="hi"))
    assert json.loads(G.encode_response(with_parts)) == {
        "candidates": [
            {"finishReason": "STOP", "content": {"role": "model", "parts": [{"text": "hi"}]}}
        ]
    }
    filled = G.encode_response(empty, id="z", model="q")
    assert json.loads(filled)["responseId"] == "z" and json.loads(filled)["modelVersion"] == "q"
