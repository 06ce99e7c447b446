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


def test_fit_a_kept_name_is_never_taken_by_a_rewrite() -> None:
    """A name kept as it is (``a_b``) is taken: a later ``a.b`` gets a hash, not ``a_b``."""
    r = B.Renames()
    assert r.name("a_b") == "a_b"
    assert r.name("a.b") == "a_b_" + _digest("a.b")


def test_fit_at_the_limit_and_with_a_lone_surrogate() -> None:
    """A rewrite exactly at the limit is kept whole; a value holding a lone surrogate (from
    JSON ``\\ud800``) is hashed through ``surrogatepass``."""
    r = B.Renames()
    value = "a." + "b" * 62
    assert r.name(value) == "a_" + "b" * 62
    odd = "a\ud800b"
    assert r.name("a_b") == "a_b"
    assert r.name(odd) == "a_b_" + _digest(odd)


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


def test_decode_json_without_room_for_the_retry_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where this stack cannot hold 4,000 more levels, deep input is refused at once, with
    its path, and the limit is not raised."""
    before = sys.getrecursionlimit()
    monkeypatch.setattr(B._stack, "room_here", lambda: before + 3999)
    seen: list[int] = []

    class Deep:
        def decode(self, data: Any) -> Any:
            seen.append(sys.getrecursionlimit())
            raise RecursionError

    with pytest.raises(DecodeError) as err:
        B.decode_json(b"1", "$.x", Deep())
    assert (err.value.message, err.value.path) == ("invalid JSON: nesting too deep", "$.x")
    assert seen == [before] and sys.getrecursionlimit() == before
    monkeypatch.setattr(B._stack, "room_here", lambda: before + 4000)
    with pytest.raises(DecodeError):
        B.decode_json(b"1", "$.x", Deep())
    assert seen == [before, before, before + 4000]


def test_decode_json_retry_failing_otherwise_keeps_the_path() -> None:
    """A retry that fails with invalid JSON reports it at the caller's path."""

    class ThenBad:
        calls = 0

        def decode(self, data: Any) -> Any:
            ThenBad.calls += 1
            if ThenBad.calls == 1:
                raise RecursionError
            raise msgspec.DecodeError("bad")

    with pytest.raises(DecodeError) as err:
        B.decode_json(b"1", "$.p", ThenBad())
    assert (err.value.message, err.value.path) == ("invalid JSON: bad", "$.p")


def test_decode_messages_uses_the_callers_limits() -> None:
    """The caller's limits apply (max_size here), under the caller's path."""
    with pytest.raises(DecodeError) as err:
        B.decode_messages(b'[{"role":"user","content":"xx"}]', "$.q", Limits(max_size=10))
    assert (err.value.message, err.value.path) == (
        "JSON input of 32 bytes is over the limit max_size=10",
        "$.q",
    )


def test_lowered_refuses_unsafe_unknown_data_at_its_path() -> None:
    """A NaN in a block's extra cannot be JSON: refused where it is."""
    with pytest.raises(EncodeError) as err:
        B.lowered([TextBlock("x", extra=Extra(a=float("nan")))], "$.m")
    assert (err.value.message, err.value.path) == ("nan cannot be written as JSON", "$.m[0].a")
    assert B.lowered([TextBlock("x", extra=Extra(a=1))], "$.m") == [
        {"type": "text", "text": "x", "a": 1}
    ]


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


# --- openai_responses --------------------------------------------------------------------

from minagent.providers import openai_responses as RA  # noqa: E402


def _r_req(body: dict[str, Any]) -> B.Request:
    return RA.decode_request(json.dumps(body).encode())


def _r_enc(req: Any, **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(RA.encode_request(req, **kw))
    return out


def test_responses_read_settings_exactly() -> None:
    """Every typed setting read, and the values that stay options."""
    req = _r_req(
        {
            "model": "m",
            "temperature": 1,
            "top_p": 0.5,
            "user": "u",
            "metadata": {"a": "b"},
            "stream": True,
            "max_output_tokens": 9,
            "tools": [{"type": "function", "name": "f", "parameters": {}, "strict": True}],
            "tool_choice": {"type": "function", "name": "f"},
            "parallel_tool_calls": False,
            "text": {
                "format": {"type": "json_schema", "name": "n", "schema": {"s": 1}, "strict": False}
            },
            "reasoning": {"effort": "low"},
            "input": "hi",
        }
    )
    assert (
        req.model,
        req.temperature,
        req.top_p,
        req.user,
        req.metadata,
        req.stream,
        req.max_tokens,
    ) == ("m", 1, 0.5, "u", {"a": "b"}, True, 9)
    assert req.tools == [B.Tool(name="f", parameters={}, strict=True)]
    assert req.tool_choice == B.ToolChoice(mode="tool", name="f", parallel=False)
    assert req.response_format == B.ResponseFormat(
        type="json_schema", name="n", schema={"s": 1}, strict=False
    )
    assert req.reasoning == B.Reasoning(effort="low")
    assert req.options == {} and req.messages == [Message(role="user", content="hi")]
    for text, want in (
        ({"format": {"type": "text"}}, B.ResponseFormat(type="text")),
        ({"format": {"type": "json_object"}}, B.ResponseFormat(type="json")),
        (
            {"format": {"type": "json_schema", "name": "n", "schema": {}}},
            B.ResponseFormat(type="json_schema", name="n", schema={}),
        ),
    ):
        assert _r_req({"text": text}).response_format == want
    for text in (
        {"format": {"type": "xml"}},
        {"format": {"type": "text"}, "verbosity": "low"},
        {"format": {"type": "json_schema", "name": 1, "schema": {}}},
        {"format": {"type": "json_schema", "name": "n", "schema": []}},
        {"format": {"type": "json_schema", "name": "n", "schema": {}, "strict": 1}},
        {"format": {"type": "json_object", "name": "n", "schema": {}}},
        {"format": {"type": "json_schema", "name": "n"}},
    ):
        assert _r_req({"text": text}).options == {"text": text}
    for choice in (
        {"type": "function"},
        {"type": "custom", "name": "f"},
        {"type": "function", "name": 1},
    ):
        assert _r_req({"tool_choice": choice}).options == {"tool_choice": choice}
    for tools in ([{"type": "web_search"}], [{"type": "custom", "name": "f"}]):
        assert _r_req({"tools": tools}).options == {"tools": tools}
    for reasoning in ({"effort": 1}, {"effort": "low", "summary": "auto"}):
        assert _r_req({"reasoning": reasoning}).options == {"reasoning": reasoning}
    assert _r_req({"max_output_tokens": 1.0}).options == {"max_output_tokens": 1.0}


def test_responses_write_settings_exactly() -> None:
    """Every neutral setting spelled for Responses, and what is listed or refused."""
    policy = B.Unsupported()
    out = RA.write_settings(
        {
            "model": "m",
            "max_tokens": 3,
            "stop": ["x"],
            "tools": [B.Tool(name="a.b", description="d")],
            "tool_choice": B.ToolChoice(mode="tool", name="a.b", parallel=True),
            "response_format": B.ResponseFormat(type="json_schema"),
            "reasoning": B.Reasoning(budget_tokens=2048),
            "temperature": 0.5,
        },
        policy,
    )
    assert out == {
        "model": "m",
        "temperature": 0.5,
        "max_output_tokens": 3,
        "tools": [
            {
                "type": "function",
                "name": "a_b",
                "description": "d",
                "strict": False,
                "parameters": None,
            }
        ],
        "tool_choice": {"type": "function", "name": "a_b"},
        "parallel_tool_calls": True,
        "text": {"format": {"type": "json_schema", "name": "response", "schema": {}}},
        "reasoning": {"effort": "medium"},
    }
    assert list(out)[:2] == ["model", "temperature"]
    assert policy.dropped == [
        B.Dropped("$.stop", "stop sequences (the Responses API has none)", "metadata")
    ]
    assert policy.renames is not None and policy.renames.names == {"a_b": "a.b"}
    assert RA.write_settings({"reasoning": B.Reasoning(budget_tokens=-1)}, B.Unsupported()) == {}
    assert RA.write_settings(
        {
            "response_format": B.ResponseFormat(
                type="json_schema", name="n", schema={"a": 1}, strict=True
            )
        },
        policy,
    ) == {
        "text": {"format": {"type": "json_schema", "name": "n", "schema": {"a": 1}, "strict": True}}
    }
    assert RA.write_settings({"response_format": B.ResponseFormat(type="text")}, policy) == {
        "text": {"format": {"type": "text"}}
    }
    assert RA.write_settings({"response_format": B.ResponseFormat(type="json")}, policy) == {
        "text": {"format": {"type": "json_object"}}
    }
    assert RA.write_settings(
        {"tools": [B.Tool(name="f", parameters={"p": 1}, strict=True)]}, policy
    ) == {"tools": [{"type": "function", "name": "f", "parameters": {"p": 1}, "strict": True}]}
    with pytest.raises(B.UnsupportedError) as err:
        RA.write_settings({"odd": 1}, B.Unsupported())
    assert (err.value.message, err.value.path) == (
        "the target format cannot hold the setting 'odd' (no Responses API spelling)",
        "$.odd",
    )


def test_responses_decode_items_exactly() -> None:
    """Instructions, easy and long assistant messages, runs of assistant items, tool outputs,
    input parts, and each refusal's text and path."""
    req = _r_req(
        {
            "instructions": "sys",
            "input": [
                {"role": "developer", "content": "dev"},
                {"role": "assistant", "content": "a1"},
                {
                    "type": "message",
                    "role": "user",
                    "content": [
                        {"type": "input_text", "text": "t", "x": 1},
                        {"type": "input_image", "image_url": "https://i/p.png", "detail": "auto"},
                        {
                            "type": "input_image",
                            "image_url": "data:image/png;base64,aGk=",
                            "detail": "low",
                        },
                        {
                            "type": "input_file",
                            "file_data": "data:application/pdf;base64,aGk=",
                            "filename": "f.pdf",
                        },
                        {"type": "input_file", "file_url": "https://f/x.pdf"},
                        {"type": "input_file", "file_data": "nope"},
                        {"type": "input_audio", "data": "x"},
                    ],
                },
                {"role": "assistant", "content": "a2", "id": "m1"},
                {
                    "type": "function_call",
                    "call_id": "c",
                    "name": "f",
                    "arguments": '{"a": 1}',
                    "id": "fc",
                },
                {
                    "type": "reasoning",
                    "id": "r",
                    "summary": [
                        {"type": "summary_text", "text": "s1"},
                        {"type": "summary_text", "text": "s2"},
                    ],
                },
                {"type": "web_search_call", "id": "w"},
                {"type": "function_call_output", "call_id": "c", "output": "o", "status": "done"},
                {
                    "type": "function_call_output",
                    "call_id": "c",
                    "output": [{"type": "input_text", "text": "p"}],
                },
                {
                    "role": "assistant",
                    "content": [
                        {"type": "output_text", "text": "x"},
                        {"type": "refusal", "refusal": "no"},
                    ],
                },
                {"type": "message", "role": "assistant", "content": []},
            ],
        }
    )
    m = req.messages
    assert m[0] == Message(role="system", content="sys")
    assert m[1] == Message(
        role="system", content="dev", extra=Extra(developer=True, from_provider="openai_responses")
    )
    assert m[2] == Message(role="assistant", content="a1")
    assert m[3].content == [
        TextBlock("t", extra=Extra(x=1)),
        ImageBlock(UrlSource("https://i/p.png")),
        ImageBlock(Base64Source("image/png", b"hi"), extra=Extra(detail="low")),
        DocumentBlock(Base64Source("application/pdf", b"hi"), extra=Extra(filename="f.pdf")),
        DocumentBlock(UrlSource("https://f/x.pdf")),
        UnknownBlock(Extra(type="input_file", file_data="nope")),
        UnknownBlock(Extra(type="input_audio", data="x")),
    ]
    assert m[4].content == [
        TextBlock("a2", extra=Extra(openai_item={"id": "m1", "content": ""})),
        ToolUseBlock(
            id="c",
            name="f",
            input={"a": 1},
            extra=Extra(openai_item={"id": "fc"}, arguments='{"a": 1}'),
        ),
        ThinkingBlock(
            "s1\n\ns2",
            extra=Extra(
                openai_item={
                    "id": "r",
                    "summary": [
                        {"type": "summary_text", "text": "s1"},
                        {"type": "summary_text", "text": "s2"},
                    ],
                }
            ),
        ),
        UnknownBlock(Extra(type="web_search_call", id="w")),
    ]
    assert m[5] == Message(
        role="tool",
        content="o",
        tool_call_id="c",
        extra=Extra(status="done", from_provider="openai_responses"),
    )
    assert m[6] == Message(role="tool", content=[TextBlock("p")], tool_call_id="c")
    assert m[7].content == [
        TextBlock("x", extra=Extra(openai_item={})),
        UnknownBlock(Extra(type="refusal", refusal="no")),
        UnknownBlock(Extra(type="message", role="assistant", content=[])),
    ]
    assert len(m) == 8
    again = _r_enc(req)
    assert again["instructions"] == "sys" and again["input"][0] == {
        "role": "developer",
        "content": "dev",
    }


def test_responses_decode_refusals() -> None:
    """Each malformed item or part: the exact message and path."""
    cases = [
        ({"role": "tool", "content": "x"}, "unknown message role 'tool'", "$.input[0].role"),
        ({"role": "user"}, "a message needs 'content'", "$.input[0]"),
        (
            {"type": "function_call_output", "call_id": "c"},
            "a function_call_output needs 'output'",
            "$.input[0]",
        ),
        (
            {"role": "user", "content": [{"type": "input_text", "text": 1}]},
            "an input_text part needs a string 'text'",
            "$.input[0].content[0].text",
        ),
        (
            {"role": "user", "content": [{"text": "x"}]},
            "a content part needs a string 'type'",
            "$.input[0].content[0].type",
        ),
        ({"type": 3}, "an item needs a string 'type'", "$.input[0].type"),
        (
            {"role": "assistant", "content": [{"type": "output_text", "text": None}]},
            "an output_text part needs a string 'text'",
            "$.input[0].content[0].text",
        ),
    ]
    for item, message, path in cases:
        with pytest.raises(ValidationError) as err:
            _r_req({"input": [item]})
        assert (err.value.message, err.value.path) == (message, path)


def test_responses_reasoning_text_and_stop_reason() -> None:
    """Reasoning text from content first, else summaries; each status to a stop reason."""
    assert (
        RA.reasoning_text(
            {"content": [{"text": "a"}, {"x": 1}, "s", {"text": "b"}], "summary": [{"text": "z"}]}
        )
        == "a\n\nb"
    )
    assert RA.reasoning_text({"content": [], "summary": [{"text": "z"}]}) == "z"
    assert RA.reasoning_text({"summary": 3}) == ""
    assert RA.reasoning_text({}) == ""
    call = [ToolUseBlock(id="i", name="n", input={})]
    assert RA.stop_reason({"status": "completed"}, call) == "tool_use"
    assert RA.stop_reason({"status": "completed"}, [TextBlock("x")]) == "end_turn"
    inc = lambda d: {"status": "incomplete", "incomplete_details": d}  # noqa: E731
    assert RA.stop_reason(inc({"reason": "max_output_tokens"}), []) == "max_tokens"
    assert RA.stop_reason(inc({"reason": "content_filter"}), []) == "refusal"
    assert RA.stop_reason(inc({"reason": "other"}), []) == "incomplete:other"
    assert RA.stop_reason(inc({"reason": 1}), []) == "incomplete"
    assert RA.stop_reason(inc(None), []) == "incomplete"
    assert RA.stop_reason({"status": "failed"}, []) == "failed"
    assert RA.stop_reason({"status": 1}, []) == "end_turn"
    assert RA.stop_reason({}, call) == "end_turn"


def test_responses_response_decoded_exactly() -> None:
    """Output items, usage with cache reads, typed fields, the rest kept."""
    body = {
        "id": "r",
        "object": "response",
        "created_at": 7,
        "model": "m",
        "status": "completed",
        "output": [
            {
                "type": "message",
                "id": "msg",
                "status": "completed",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": "a", "annotations": []},
                    {"type": "output_text", "text": "b", "annotations": []},
                ],
            }
        ],
        "usage": {
            "input_tokens": 10,
            "output_tokens": 2,
            "input_tokens_details": {"cached_tokens": 4},
            "output_tokens_details": {"reasoning_tokens": 1},
            "total_tokens": 12,
        },
    }
    resp = RA.decode_response(json.dumps(body).encode())
    assert (resp.id, resp.created, resp.model, resp.stop_reason) == ("r", 7, "m", "end_turn")
    assert resp.usage == {
        "input_tokens": 6,
        "output_tokens": 2,
        "cache_read_input_tokens": 4,
        "reasoning_tokens": 1,
        "total_tokens": 12,
    }
    assert resp.message.content == [
        TextBlock(
            "a",
            extra=Extra(
                openai_item={"type": "message", "id": "msg", "status": "completed"}, annotations=[]
            ),
        ),
        TextBlock("b", extra=Extra(annotations=[])),
    ]
    assert dict(resp.extra) == {
        "object": "response",
        "status": "completed",
        "from_provider": "openai_responses",
    }
    assert json.loads(RA.encode_response(resp)) == body
    bad = RA.decode_response(b'{"created_at": "x", "usage": null}')
    assert bad.created is UNSET and dict(bad.extra) == {
        "created_at": "x",
        "usage_extra": None,
        "from_provider": "openai_responses",
    }
    assert json.loads(RA.encode_response(bad)) == {"created_at": "x", "output": [], "usage": None}


def test_responses_encode_request_exactly() -> None:
    """Instructions only from a plain first system message; roles, parts and tool outputs."""
    msgs = [
        Message(role="system", content="s"),
        Message(role="user", content="u"),
        Message(role="system", content="late", extra=Extra(developer=True)),
        Message(
            role="user",
            content=[
                TextBlock("t"),
                ImageBlock(Base64Source("image/png", b"hi")),
                ImageBlock(UrlSource("https://x/i.png"), extra=Extra(detail="high", file_id="f")),
                DocumentBlock(Base64Source("application/pdf", b"hi"), extra=Extra(filename="a")),
                DocumentBlock(UrlSource("https://x/d.pdf")),
            ],
        ),
        Message(role="tool", content="o", tool_call_id="c"),
        Message(
            role="tool",
            content=[TextBlock("p")],
            tool_call_id="d",
            extra=Extra(id="x", status="s", other=1),
        ),
    ]
    dropped: list[B.Dropped] = []
    out = _r_enc(msgs, dropped=dropped)
    assert out == {
        "instructions": "s",
        "input": [
            {"role": "user", "content": "u"},
            {"role": "developer", "content": "late"},
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "t"},
                    {
                        "type": "input_image",
                        "image_url": "data:image/png;base64,aGk=",
                        "detail": "auto",
                    },
                    {
                        "type": "input_image",
                        "image_url": "https://x/i.png",
                        "detail": "high",
                        "file_id": "f",
                    },
                    {
                        "type": "input_file",
                        "file_data": "data:application/pdf;base64,aGk=",
                        "filename": "a",
                    },
                    {"type": "input_file", "file_url": "https://x/d.pdf"},
                ],
            },
            {"type": "function_call_output", "call_id": "c", "output": "o"},
            {
                "type": "function_call_output",
                "call_id": "d",
                "output": [{"type": "input_text", "text": "p"}],
                "id": "x",
                "status": "s",
            },
        ],
    }
    assert dropped == [B.Dropped("$.messages[5].other", "the message key 'other'", "metadata")]
    first_user = _r_enc([Message(role="user", content="u")])
    assert first_user == {"input": [{"role": "user", "content": "u"}]}
    taken = _r_enc(
        B.Request(messages=[Message(role="system", content="s")], options={"instructions": "given"})
    )
    assert taken == {"instructions": "given", "input": [{"role": "system", "content": "s"}]}
    sys_extra = _r_enc([Message(role="system", content="s", extra=Extra(id="i"))])
    assert sys_extra == {"input": [{"role": "system", "content": "s", "id": "i"}]}
    sys_list = _r_enc([Message(role="system", content=[TextBlock("s")])])
    assert sys_list == {
        "input": [{"role": "system", "content": [{"type": "input_text", "text": "s"}]}]
    }


def test_responses_encode_request_refusals() -> None:
    """Each refusal: its exact text and path; under drop, the tool message goes."""
    from minagent.wire import FileSource, ToolResultBlock

    def refused(msgs: list[Message]) -> tuple[str, str | None]:
        with pytest.raises(B.UnsupportedError) as err:
            RA.encode_request(msgs)
        return err.value.message, err.value.path

    pre = "the target format cannot hold "
    u = lambda *b: Message(role="user", content=list(b))  # noqa: E731
    assert refused([u(ImageBlock(FileSource("f")))]) == (
        pre + "a 'file' source",
        "$.messages[0].content[0].source",
    )
    assert refused([u(DocumentBlock(FileSource("f")))]) == (
        pre + "a 'file' source",
        "$.messages[0].content[0].source",
    )
    assert refused([u(ImageBlock(UrlSource("u", extra=Extra(citations=[1]))))]) == (
        pre + "the key 'citations' on a source",
        "$.messages[0].content[0].source.citations",
    )
    assert refused([u(UnknownBlock(Extra(type="z")))]) == (
        pre + "a 'z' block from another provider (no such block here)",
        "$.messages[0].content[0]",
    )
    assert refused([u(ToolResultBlock(tool_use_id="t", content="c"))]) == (
        pre + "a tool_result block in a Responses message",
        "$.messages[0].content[0]",
    )
    assert refused([u(ThinkingBlock("t"))]) == (
        pre + "a thinking block in a Responses message",
        "$.messages[0].content[0]",
    )
    assert refused([Message(role="tool", content="x")]) == (
        pre + "a tool message without tool_call_id",
        "$.messages[0]",
    )
    assert refused([Message(role="tool", content="x", tool_call_id="c", is_error=True)]) == (
        pre + "is_error on a tool result (function_call_output has none)",
        "$.messages[0].is_error",
    )
    dropped: list[B.Dropped] = []
    out = _r_enc(
        [Message(role="tool", content="x"), u(UnknownBlock(Extra(type="z")))],
        unsupported="drop",
        dropped=dropped,
    )
    assert out == {"input": [{"role": "user", "content": []}]}
    own = Message(
        role="user",
        content=[UnknownBlock(Extra(type="input_audio", d=1))],
        extra=Extra(from_provider="openai_responses"),
    )
    assert _r_enc([own]) == {
        "input": [{"role": "user", "content": [{"type": "input_audio", "d": 1}]}]
    }
    assert _r_enc(
        [
            Message(
                role="user",
                content=[TextBlock("x", extra=Extra(a=1))],
                extra=Extra(from_provider="openai_responses"),
            )
        ]
    ) == {"input": [{"role": "user", "content": [{"type": "input_text", "text": "x", "a": 1}]}]}


def test_responses_encode_assistant_turns() -> None:
    """Assistant blocks as items: fast calls fitted, text runs joined into one message item,
    reasoning refused or kept, foreign blocks refused, redacted thinking listed."""
    pre = "the target format cannot hold "
    a = lambda *b, **kw: Message(role="assistant", content=list(b), **kw)  # noqa: E731
    out = _r_enc(
        [
            Message(role="user", content="u"),
            a(
                TextBlock("x"),
                TextBlock("y"),
                ToolUseBlock(id="c", name="w.x", input={"a": 1}),
                TextBlock("z"),
                ToolUseBlock(id="d", name="f", input={}, extra=Extra(arguments="{ }")),
                RedactedThinkingBlock("r"),
            ),
        ],
        dropped=(dropped := []),
    )
    assert out["input"][1:] == [
        {"role": "assistant", "content": "x"},
        {"role": "assistant", "content": "y"},
        {"type": "function_call", "call_id": "c", "name": "w_x", "arguments": '{"a":1}'},
        {"role": "assistant", "content": "z"},
        {"type": "function_call", "call_id": "d", "name": "f", "arguments": "{ }"},
    ]
    assert dropped == [
        B.Dropped(
            "$.messages[1].content[5]",
            "a redacted thinking block (encrypted for Anthropic alone)",
            "metadata",
        )
    ]
    with pytest.raises(B.UnsupportedError) as err:
        RA.encode_request([a(ThinkingBlock("t", signature="s"))])
    assert (err.value.message, err.value.path) == (
        pre + "thinking with a signature not issued by OpenAI (a reasoning item needs its id)",
        "$.messages[0].content[0]",
    )
    with pytest.raises(B.UnsupportedError) as err:
        RA.encode_request([a(ThinkingBlock("t"))])
    assert (
        err.value.message == pre + "thinking not issued by OpenAI (a reasoning item needs its id)"
    )
    from minagent.wire import ToolResultBlock

    with pytest.raises(B.UnsupportedError) as err:
        RA.encode_request([a(ToolResultBlock(tool_use_id="t", content="c"))])
    assert (err.value.message, err.value.path) == (
        pre + "a tool_result block in an assistant turn",
        "$.messages[0].content[0]",
    )
    with pytest.raises(B.UnsupportedError) as err:
        RA.encode_request([a(UnknownBlock(Extra(type="z")))])
    assert err.value.message == pre + "a 'z' block from another provider (no such block here)"
    d2: list[B.Dropped] = []
    _r_enc([a(TextBlock("x"), extra=Extra(k=1))], dropped=d2)
    assert d2 == [B.Dropped("$.messages[0].k", "the message key 'k'", "metadata")]
    d3: list[B.Dropped] = []
    _r_enc([a(TextBlock("x"), extra=Extra(k=1, from_provider="openai_responses"))], dropped=d3)
    assert d3 == [
        B.Dropped("$.messages[0]", "message keys on an assistant turn of several items", "metadata")
    ]
    assert _r_enc([Message(role="assistant", content="s", extra=Extra(id="i"))]) == {
        "input": [{"role": "assistant", "content": "s", "id": "i"}]
    }


def test_responses_reasoning_round_trip_and_changes() -> None:
    """An own reasoning item goes back whole; changed text or a signature is refused."""
    body = {
        "input": [
            {
                "type": "reasoning",
                "id": "r",
                "content": [{"type": "reasoning_text", "text": "think"}],
                "encrypted_content": "e",
            },
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        ]
    }
    req = _r_req(body)
    assert _r_enc(req)["input"] == body["input"]
    block = req.messages[0].content[0]
    changed = msgspec.structs.replace(block, thinking="other")
    req2 = msgspec.structs.replace(
        req, messages=[Message(role="assistant", content=[changed], extra=req.messages[0].extra)]
    )
    with pytest.raises(B.UnsupportedError) as err:
        RA.encode_request(req2)
    assert (err.value.message, err.value.path) == (
        "the target format cannot hold reasoning text changed from its reasoning item",
        "$.messages[0].content[0].thinking",
    )
    signed = msgspec.structs.replace(block, signature="s")
    req3 = msgspec.structs.replace(
        req, messages=[Message(role="assistant", content=[signed], extra=req.messages[0].extra)]
    )
    with pytest.raises(B.UnsupportedError) as err:
        RA.encode_request(req3)
    assert (err.value.message, err.value.path) == (
        "the target format cannot hold a thinking signature (Anthropic) on a reasoning item",
        "$.messages[0].content[0].signature",
    )


def test_responses_encode_response_from_another_provider() -> None:
    """Required keys filled, text in the long form, reasoning as a reasoning item, usage
    with its required keys, status from the stop reason, foreign keys listed."""
    resp = ModelResponse(
        message=Message(
            role="assistant",
            content=[
                ThinkingBlock("t", signature="sig"),
                TextBlock("a"),
                TextBlock("b"),
                ToolUseBlock(id="c", name="w.x", input={}),
            ],
        ),
        stop_reason="max_tokens",
        id="i",
        model="m",
        created=5,
        usage={"input_tokens": 3, "cache_read_input_tokens": 1, "zz": 2},
        extra=Extra(system_fingerprint="f"),
    )
    dropped: list[B.Dropped] = []
    out = json.loads(RA.encode_response(resp, dropped=dropped))
    assert out == {
        "id": "i",
        "object": "response",
        "created_at": 5,
        "status": "incomplete",
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"},
        "model": "m",
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "output": [
            {
                "type": "reasoning",
                "id": "rs_minagent_0",
                "summary": [],
                "content": [{"type": "reasoning_text", "text": "t"}],
            },
            {
                "role": "assistant",
                "type": "message",
                "id": "msg_minagent",
                "status": "completed",
                "content": [
                    {"type": "output_text", "text": "a", "annotations": []},
                    {"type": "output_text", "text": "b", "annotations": []},
                ],
            },
            {"type": "function_call", "call_id": "c", "name": "w.x", "arguments": "{}"},
        ],
        "usage": {
            "input_tokens": 4,
            "output_tokens": 0,
            "input_tokens_details": {"cached_tokens": 1, "cache_write_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 4,
        },
    }
    assert dropped == [
        B.Dropped("$.system_fingerprint", "the response key 'system_fingerprint'", "metadata"),
        B.Dropped(
            "$.message.content[0].signature",
            "a thinking signature (readable by its issuer alone)",
            "metadata",
        ),
        B.Dropped("$.usage.zz", "the usage counter 'zz'", "metadata"),
    ]
    plain = json.loads(
        RA.encode_response(ModelResponse(message=Message(role="assistant", content="hello")))
    )
    assert plain["id"] == "resp_minagent" and plain["model"] == ""
    assert type(plain["created_at"]) is int and plain["status"] == "completed"
    assert plain["output"] == [
        {
            "role": "assistant",
            "type": "message",
            "id": "msg_minagent",
            "status": "completed",
            "content": [{"type": "output_text", "text": "hello", "annotations": []}],
        }
    ]
    assert "usage" not in plain
    empty = json.loads(
        RA.encode_response(ModelResponse(message=Message(role="assistant", content="")))
    )
    assert empty["output"] == []
    used = json.loads(
        RA.encode_response(
            ModelResponse(
                message=Message(role="assistant", content=""),
                usage={"output_tokens": 2},
                extra=Extra(usage_extra={"x": 1}),
            )
        )
    )
    assert used["usage"] == {
        "output_tokens": 2,
        "input_tokens": 0,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 2,
    }


def test_responses_status_for_each_reason() -> None:
    """Every neutral stop reason to status and incomplete_details."""

    def status(reason: str) -> dict[str, Any]:
        d: list[B.Dropped] = []
        body = json.loads(
            RA.encode_response(
                ModelResponse(message=Message(role="assistant", content="x"), stop_reason=reason),
                dropped=d,
            )
        )
        return {
            "status": body["status"],
            "details": body["incomplete_details"],
            "listed": [x.what for x in d],
        }

    assert status("stop_sequence") == {"status": "completed", "details": None, "listed": []}
    assert status("pause_turn") == {"status": "completed", "details": None, "listed": []}
    assert status("model_context_window_exceeded") == {
        "status": "incomplete",
        "details": {"reason": "max_output_tokens"},
        "listed": [],
    }
    assert status("refusal") == {
        "status": "incomplete",
        "details": {"reason": "content_filter"},
        "listed": [],
    }
    assert status("incomplete:content_filter") == {
        "status": "incomplete",
        "details": {"reason": "content_filter"},
        "listed": [],
    }
    assert status("incomplete") == {"status": "incomplete", "details": None, "listed": []}
    assert status("failed") == {"status": "failed", "details": None, "listed": []}
    assert status("MALFORMED") == {
        "status": "completed",
        "details": None,
        "listed": ["the stop reason 'MALFORMED' (written as 'completed')"],
    }
    assert RA._status_for("end_turn", B.Unsupported()) == {
        "status": "completed",
        "incomplete_details": None,
    }
    assert RA._status_for("tool_use", B.Unsupported()) == {
        "status": "completed",
        "incomplete_details": None,
    }
    assert RA._status_for("max_tokens", B.Unsupported()) == {
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
    }
    assert RA._status_for("incomplete:max_output_tokens", B.Unsupported()) == {
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
    }


# --- anthropic ---------------------------------------------------------------------------

from minagent.providers import anthropic as AA  # noqa: E402


def _a_req(body: dict[str, Any]) -> B.Request:
    return AA.decode_request(json.dumps(body).encode())


def _a_enc(req: Any, **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(AA.encode_request(req, **kw))
    return out


def _foreign(messages: list[Message], **settings: Any) -> B.Request:
    """A request another adapter decoded (the API's rules apply to it)."""
    return B.Request(messages=messages, provider="openai_chat", **settings)


def test_anthropic_read_settings_exactly() -> None:
    """Every typed setting read, and the values that stay options."""
    req = _a_req(
        {
            "model": "m",
            "max_tokens": 5,
            "temperature": 1,
            "top_p": 0.9,
            "stream": True,
            "stop_sequences": ["x"],
            "messages": [],
            "tools": [{"name": "f", "input_schema": {"type": "object"}, "description": "d"}],
            "tool_choice": {"type": "tool", "name": "f", "disable_parallel_tool_use": True},
            "thinking": {"type": "enabled", "budget_tokens": 2000},
            "output_config": {"format": {"type": "json_schema", "schema": {"s": 1}}},
            "metadata": {"user_id": "u"},
        }
    )
    assert (req.model, req.max_tokens, req.temperature, req.top_p, req.stream, req.stop) == (
        "m",
        5,
        1,
        0.9,
        True,
        ["x"],
    )
    assert req.tools == [B.Tool(name="f", description="d", parameters={"type": "object"})]
    assert req.tool_choice == B.ToolChoice(mode="tool", name="f", parallel=False)
    assert req.reasoning == B.Reasoning(budget_tokens=2000)
    assert req.response_format == B.ResponseFormat(type="json_schema", schema={"s": 1})
    assert req.user == "u" and req.options == {}
    for choice, want in (
        ({"type": "auto"}, B.ToolChoice(mode="auto")),
        (
            {"type": "any", "disable_parallel_tool_use": False},
            B.ToolChoice(mode="any", parallel=True),
        ),
        ({"type": "none"}, B.ToolChoice(mode="none")),
    ):
        assert _a_req({"messages": [], "tool_choice": choice}).tool_choice == want
    for choice in (
        {"type": "tool"},
        {"type": "auto", "name": "f"},
        {"type": "other"},
        {"type": "auto", "disable_parallel_tool_use": 1},
        {"type": "tool", "name": 1},
        {"name": "f"},
    ):
        assert _a_req({"messages": [], "tool_choice": choice}).options == {"tool_choice": choice}
    for thinking in (
        {"type": "disabled"},
        {"type": "enabled", "budget_tokens": 1.5},
        {"type": "enabled"},
    ):
        assert _a_req({"messages": [], "thinking": thinking}).options == {"thinking": thinking}
    for config in (
        {"format": {"type": "json_schema", "schema": []}},
        {"format": {"type": "json", "schema": {}}},
        {"format": {"type": "json_schema"}},
        {"effort": "low"},
    ):
        assert _a_req({"messages": [], "output_config": config}).options == {
            "output_config": config
        }
    for meta in ({"user_id": 1}, {"user_id": "u", "x": 1}, {}):
        assert _a_req({"messages": [], "metadata": meta}).options == {"metadata": meta}
    assert _a_req({"messages": [], "stop_sequences": "x"}).options == {"stop_sequences": "x"}


def test_anthropic_write_settings_exactly() -> None:
    """Each neutral setting spelled for the Messages API, with what is listed or refused."""
    p = B.Unsupported()
    out = AA.write_settings(
        {
            "model": "m",
            "max_tokens": 8000,
            "stop": ("s",),
            "user": "u",
            "tools": [
                B.Tool(name="a.b"),
                B.Tool(name="c", parameters={"properties": {}}),
                B.Tool(name="d", parameters={"type": "object", "x": 1}, description="dd"),
            ],
            "tool_choice": B.ToolChoice(mode="auto", parallel=True),
            "reasoning": B.Reasoning(effort="high"),
            "response_format": B.ResponseFormat(
                type="json_schema", schema={"k": 1}, name="n", strict=False
            ),
            "metadata": {"user_id": "x", "tag": 1},
        },
        p,
    )
    assert out == {
        "model": "m",
        "max_tokens": 8000,
        "tools": [
            {"name": "a_b", "input_schema": {"type": "object", "properties": {}}},
            {"name": "c", "input_schema": {"type": "object", "properties": {}}},
            {"name": "d", "description": "dd", "input_schema": {"type": "object", "x": 1}},
        ],
        "stop_sequences": ["s"],
        "tool_choice": {"type": "auto", "disable_parallel_tool_use": False},
        "thinking": {"type": "enabled", "budget_tokens": 4096},
        "output_config": {"format": {"type": "json_schema", "schema": {"k": 1}}},
        "metadata": {"user_id": "u"},
    }
    assert p.dropped == [
        B.Dropped(
            "$.response_format.name", "the schema's name (no Messages API field)", "metadata"
        ),
        B.Dropped(
            "$.response_format.strict", "strict: false (the schema is always kept)", "metadata"
        ),
        B.Dropped("$.metadata.user_id", "metadata.user_id beside user (user wins)", "metadata"),
        B.Dropped(
            "$.metadata.tag",
            "the metadata key 'tag' (Messages API metadata holds only user_id)",
            "metadata",
        ),
    ]
    with pytest.raises(B.UnsupportedError) as err:
        AA.write_settings({"odd": 1}, B.Unsupported())
    assert (err.value.message, err.value.path) == (
        "the target format cannot hold the setting 'odd' (no Messages API spelling)",
        "$.odd",
    )
    with pytest.raises(B.UnsupportedError) as err:
        AA.write_settings({"response_format": B.ResponseFormat(type="json")}, B.Unsupported())
    assert (err.value.message, err.value.path) == (
        "the target format cannot hold a JSON answer without a schema (the API takes one)",
        "$.response_format",
    )
    with pytest.raises(B.UnsupportedError):
        AA.write_settings(
            {"response_format": B.ResponseFormat(type="json_schema")}, B.Unsupported()
        )
    q = B.Unsupported()
    assert AA.write_settings({"response_format": B.ResponseFormat(type="text")}, q) == {}
    assert AA.write_settings({"metadata": {"user_id": "x"}}, q) == {"metadata": {"user_id": "x"}}
    assert AA.write_settings({"metadata": {"user_id": 3}}, q) == {}
    assert AA.write_settings(
        {"response_format": B.ResponseFormat(type="json_schema", schema={}, strict=True)}, q
    ) == {"output_config": {"format": {"type": "json_schema", "schema": {}}}}
    assert q.dropped == [
        B.Dropped(
            "$.metadata.user_id",
            "the metadata key 'user_id' (Messages API metadata holds only user_id)",
            "metadata",
        )
    ]


def test_anthropic_tool_choice_out() -> None:
    """Modes, a named tool fitted, parallel as its inverse, parallel beside none listed."""
    p = B.Unsupported()
    w = lambda c: AA.write_settings({"tool_choice": c}, p)  # noqa: E731
    assert w(B.ToolChoice()) == {}
    assert w(B.ToolChoice(parallel=False)) == {
        "tool_choice": {"type": "auto", "disable_parallel_tool_use": True}
    }
    assert w(B.ToolChoice(mode="tool", name="x.y")) == {
        "tool_choice": {"type": "tool", "name": "x_y"}
    }
    assert w(B.ToolChoice(mode="tool")) == {"tool_choice": {"type": "tool", "name": "_"}}
    assert w(B.ToolChoice(mode="none", parallel=True)) == {"tool_choice": {"type": "none"}}
    assert p.dropped == [
        B.Dropped("$.tool_choice.parallel", "parallel tool calls with no tool calls", "metadata")
    ]


def test_anthropic_thinking_out_fitted() -> None:
    """The budget from an effort or tokens, fitted to [1024, max_tokens - 1], disabled at 0,
    a dynamic budget listed, no room listed, and the sampling rules beside thinking."""

    def w(fields: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        p = B.Unsupported()
        out = AA.write_settings(fields, p)
        return out, [(d.path, d.what) for d in p.dropped]

    R = B.Reasoning
    assert w({"reasoning": R(budget_tokens=0)}) == ({"thinking": {"type": "disabled"}}, [])
    assert w({"reasoning": R(budget_tokens=-1)}) == (
        {},
        [("$.reasoning.budget_tokens", "a dynamic thinking budget (no spelling here)")],
    )
    assert w({"reasoning": R(effort="odd")}) == (
        {},
        [("$.reasoning.effort", "the reasoning effort 'odd' (no budget)")],
    )
    assert w({"max_tokens": 4096, "reasoning": R(budget_tokens=500)}) == (
        {"max_tokens": 4096, "thinking": {"type": "enabled", "budget_tokens": 1024}},
        [
            (
                "$.reasoning.budget_tokens",
                "the thinking budget 500, written as 1024 (at least 1024, below max_tokens)",
            )
        ],
    )
    assert w({"max_tokens": 2000, "reasoning": R(budget_tokens=5000)}) == (
        {"max_tokens": 2000, "thinking": {"type": "enabled", "budget_tokens": 1999}},
        [
            (
                "$.reasoning.budget_tokens",
                "the thinking budget 5000, written as 1999 (at least 1024, below max_tokens)",
            )
        ],
    )
    assert w({"max_tokens": 1025, "reasoning": R(budget_tokens=1024)}) == (
        {"max_tokens": 1025, "thinking": {"type": "enabled", "budget_tokens": 1024}},
        [],
    )
    assert w({"max_tokens": 1024, "reasoning": R(budget_tokens=1024)}) == (
        {"max_tokens": 1024},
        [("$.reasoning", "thinking (max_tokens 1024 leaves no room for a budget of 1024)")],
    )
    assert w({"max_tokens": 3000, "reasoning": R(budget_tokens=2999)}) == (
        {"max_tokens": 3000, "thinking": {"type": "enabled", "budget_tokens": 2999}},
        [],
    )
    assert w({"temperature": 0.5, "top_p": 0.9, "reasoning": R(budget_tokens=2000)}) == (
        {"thinking": {"type": "enabled", "budget_tokens": 2000}},
        [
            ("$.temperature", "the temperature (with thinking the API takes only 1)"),
            ("$.top_p", "top_p (with thinking the API takes 0.95 to 1)"),
        ],
    )
    assert w({"temperature": 1, "top_p": 0.95, "reasoning": R(budget_tokens=2000)}) == (
        {"temperature": 1, "top_p": 0.95, "thinking": {"type": "enabled", "budget_tokens": 2000}},
        [],
    )
    for mode in ("any", "tool"):
        out, listed = w(
            {
                "tool_choice": B.ToolChoice(mode=mode, name="f"),
                "temperature": 0.5,
                "reasoning": R(budget_tokens=2000),
            }
        )
        assert "thinking" not in out and out["temperature"] == 0.5
        assert listed == [
            ("$.reasoning", "thinking beside a forced tool call (the API refuses both)")
        ]
    out, listed = w(
        {
            "tool_choice": B.ToolChoice(mode="auto"),
            "temperature": 0.5,
            "reasoning": R(budget_tokens=2000),
        }
    )
    assert out == {
        "tool_choice": {"type": "auto"},
        "thinking": {"type": "enabled", "budget_tokens": 2000},
    }
    assert w({"temperature": 0.5, "reasoning": R(budget_tokens=0)}) == (
        {"temperature": 0.5, "thinking": {"type": "disabled"}},
        [],
    )


def test_anthropic_decode_request_refusals() -> None:
    """Each malformed request: the exact message and path."""
    cases = [
        ({"model": "m"}, "a request needs 'messages'", "$"),
        (
            {"messages": [{"role": "tool", "content": "x"}]},
            "role 'tool' is not a Messages API role",
            "$.messages[0]",
        ),
        (
            {"messages": [{"role": "user", "content": "x", "tool_call_id": "i"}]},
            "role 'user' is not a Messages API role",
            "$.messages[0]",
        ),
        (
            {"messages": [{"role": "user", "content": "x", "is_error": False}]},
            "role 'user' is not a Messages API role",
            "$.messages[0]",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "k": 1,
                        "content": [{"type": "tool_result", "tool_use_id": "t"}],
                    }
                ]
            },
            "unknown keys ['k'] on a user message with tool results",
            "$.messages[0]",
        ),
    ]
    for body, message, path in cases:
        with pytest.raises(ValidationError) as err:
            _a_req(body)
        assert (err.value.message, err.value.path) == (message, path)
    with pytest.raises(ValidationError) as err:
        _a_req({"system": 3, "messages": []})
    assert err.value.path is not None and err.value.path.startswith("$.system")


def test_anthropic_new_turns_and_tool_splits() -> None:
    """Two user turns stay two; tool results split a user message around its text."""
    req = _a_req(
        {
            "messages": [
                {"role": "user", "content": "a"},
                {"role": "user", "content": [{"type": "text", "text": "b"}]},
                {"role": "assistant", "content": "c"},
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "t", "content": "r"},
                        {"type": "text", "text": "d"},
                        {"type": "tool_result", "tool_use_id": "u", "is_error": False},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": "v",
                            "content": [{"type": "text", "text": "x"}],
                        }
                    ],
                },
                {"role": "user", "content": [{"type": "text", "text": "e"}]},
                {"role": "user", "content": "f"},
            ]
        }
    )
    m = req.messages
    assert m[0] == Message(role="user", content="a")
    assert m[1] == Message(role="user", content=[TextBlock("b")])
    assert m[3] == Message(role="tool", content="r", tool_call_id="t")
    assert m[4] == Message(role="user", content=[TextBlock("d")])
    assert m[5] == Message(
        role="tool", content="", tool_call_id="u", is_error=False, extra=Extra(content_absent=True)
    )
    assert m[6] == Message(
        role="tool", content=[TextBlock("x")], tool_call_id="v", extra=Extra(new_turn=True)
    )
    assert m[7] == Message(role="user", content=[TextBlock("e")], extra=Extra(new_turn=True))
    assert m[8] == Message(role="user", content="f")
    assert len(m) == 9
    body = _a_enc(req)
    assert [
        len(x["content"]) if type(x["content"]) is list else x["content"] for x in body["messages"]
    ] == ["a", 1, "c", 3, 1, 1, "f"]


def test_anthropic_typed_tool_result_block() -> None:
    """A ToolResultBlock of the catalog: its fields, no content marked absent."""
    from minagent.wire import ToolResultBlock

    assert AA._tool_message(
        ToolResultBlock(tool_use_id="t", content="c", is_error=True), "$"
    ) == Message(role="tool", content="c", tool_call_id="t", is_error=True)
    assert AA._tool_message(ToolResultBlock(tool_use_id="t"), "$") == Message(
        role="tool", content="", tool_call_id="t", extra=Extra(content_absent=True)
    )
    assert AA._as_dict(TextBlock("x", cache_control={"type": "ephemeral"})) == {
        "type": "text",
        "text": "x",
        "cache_control": {"type": "ephemeral"},
    }
    assert AA._as_dict(UnknownBlock(Extra(type="z", a=1))) == {"type": "z", "a": 1}


def test_anthropic_would_join_and_listed() -> None:
    """When the encoder would join a message to the one before."""
    tool = Message(role="tool", content="x", tool_call_id="t")
    user_list = Message(role="user", content=[TextBlock("a")])
    user_str = Message(role="user", content="a")
    hinted = Message(role="user", content=[TextBlock("a")], extra=Extra(new_turn=True))
    keyed = Message(role="user", content=[TextBlock("a")], extra=Extra(k=1))
    assert AA._would_join(tool, tool) and AA._would_join(user_list, tool)
    assert not AA._would_join(user_str, tool)
    assert AA._would_join(tool, user_list) and AA._would_join(tool, hinted)
    assert not AA._would_join(tool, keyed) and not AA._would_join(tool, user_str)
    assert not AA._would_join(user_list, user_list)
    assert not AA._would_join(Message(role="assistant", content=[TextBlock("a")]), tool)
    assert not AA._listed(Message(role="user", content=[]))
    assert AA._hinted(user_str, "h") == Message(role="user", content="a", extra=Extra(h=True))
    assert AA._hinted(keyed, "h").extra == Extra(k=1, h=True)


def test_anthropic_response_slow_path_errors() -> None:
    """The slow path's refusals, exactly; and what it keeps."""
    cases = [
        ({"type": "message"}, "a response needs 'content'", "$"),
        (
            {"content": [], "type": "msg", "stop_reason": "x"},
            "a response's 'type' must be 'message'",
            "$.type",
        ),
        (
            {"content": [], "role": "user", "stop_reason": "x"},
            "a response's 'role' must be 'assistant'",
            "$.role",
        ),
        ({"content": []}, "'stop_reason' must be a string", "$.stop_reason"),
        ({"content": [], "stop_reason": "x", "usage": []}, "'usage' must be an object", "$.usage"),
    ]
    for body, message, path in cases:
        with pytest.raises(ValidationError) as err:
            AA.decode_response(json.dumps(body).encode())
        assert (err.value.message, err.value.path) == (message, path)
    resp = AA.decode_response(
        json.dumps(
            {
                "content": [{"type": "text", "text": "a"}],
                "stop_reason": "end_turn",
                "id": 3,
                "model": "m",
                "usage": {"input_tokens": 1, "service_tier": "s"},
                "z": 1,
            }
        ).encode()
    )
    assert (resp.id, resp.model, resp.usage, resp.stop_reason) == (
        UNSET,
        "m",
        {"input_tokens": 1},
        "end_turn",
    )
    assert dict(resp.extra) == {
        "from_provider": "anthropic",
        "id": 3,
        "z": 1,
        "usage_extra": {"service_tier": "s"},
    }
    minimal = AA.decode_response(b'{"content": [], "stop_reason": "x"}')
    assert minimal.usage == {} and dict(minimal.extra) == {"from_provider": "anthropic"}
    with pytest.raises(ValidationError) as err:
        AA.decode_response(b'{"content": [{"type": 1}], "stop_reason": "x"}')
    assert err.value.path is not None and err.value.path.startswith("$.content[0]")
    with pytest.raises(DecodeError) as err:
        AA.decode_response(b'{"content": [')
    assert err.value.path == "$"


def test_anthropic_response_fast_path_exactly() -> None:
    """The fast path: stop_details, container, usage extra, typed fields."""
    body = {
        "id": "i",
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "text", "text": "a"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 1,
            "output_tokens": 2,
            "cache_creation": {"e": 3},
            "service_tier": "standard",
        },
        "stop_details": {"k": 1},
        "container": None,
    }
    resp = AA.decode_response(json.dumps(body).encode())
    assert (resp.id, resp.model) == ("i", "m")
    assert resp.usage == {"input_tokens": 1, "output_tokens": 2, "cache_creation.e": 3}
    assert dict(resp.extra) == {
        "from_provider": "anthropic",
        "stop_sequence": None,
        "stop_details": {"k": 1},
        "container": None,
        "usage_extra": {"service_tier": "standard"},
    }
    assert resp.message == Message(role="assistant", content=[TextBlock("a")])
    assert json.loads(AA.encode_response(resp)) == body
    short = dict(body, usage={"input_tokens": 1})
    del short["stop_details"], short["container"]
    plain = AA.decode_response(json.dumps(short).encode())
    assert dict(plain.extra) == {"from_provider": "anthropic", "stop_sequence": None}


def _a_fix(messages: list[Message], **kw: Any) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    dropped: list[B.Dropped] = []
    settings = {k: kw.pop(k) for k in list(kw) if k in B.SETTINGS}
    body = _a_enc(_foreign(messages, **settings), dropped=dropped, unsupported="drop", **kw)
    return body, [(d.path, d.what) for d in dropped]


def test_anthropic_max_tokens_default_only_when_unset() -> None:
    """4096 for another provider's request or one by hand without max_tokens; never over an
    option, a setting, or a request this adapter decoded."""
    msgs = [Message(role="user", content="x")]
    assert _a_enc(msgs)["max_tokens"] == 4096
    assert _a_enc(_foreign(msgs))["max_tokens"] == 4096
    assert _a_enc(_foreign(msgs, max_tokens=7))["max_tokens"] == 7
    assert _a_enc(B.Request(messages=msgs, options={"max_tokens": 9}))["max_tokens"] == 9
    assert "max_tokens" not in _a_enc(_a_req({"messages": [{"role": "user", "content": "x"}]}))
    assert _a_enc(msgs, defaults={"max_tokens": 3})["max_tokens"] == 3


def test_anthropic_fix_rules_for_another_providers_request() -> None:
    """Empty messages and text left out, a prefill stripped, tool ids and names fitted, tool
    results that answer nothing refused, tools derived from the history."""
    body, listed = _a_fix(
        [
            Message(role="system", content=" "),
            Message(role="user", content="hi"),
            Message(role="user", content=""),
            Message(
                role="assistant",
                content=[TextBlock(" "), ToolUseBlock(id="c:1", name="w.x", input={})],
            ),
            Message(role="tool", content=" ", tool_call_id="c:1"),
            Message(role="tool", content="late", tool_call_id="zz"),
            Message(role="assistant", content="Sure,  "),
        ],
        tool_choice=B.ToolChoice(mode="auto"),
    )
    assert body == {
        "max_tokens": 4096,
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "c_1", "name": "w_x", "input": {}}],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c_1"}]},
            {"role": "assistant", "content": "Sure,"},
        ],
        "tools": [{"name": "w_x", "input_schema": {"type": "object"}}],
        "tool_choice": {"type": "none"},
    }
    assert listed == [
        ("$.messages[0]", "an empty system prompt (the API refuses empty text)"),
        ("$.messages[2]", "an empty user message (the API takes none)"),
        ("$.messages[3].content[0]", "an empty text block (the API refuses whitespace-only text)"),
        ("$.messages[4].content", "a tool result of whitespace only (no text)"),
        (
            "$.messages[5]",
            "a tool result answering no tool call of the assistant turn before "
            "it (the API refuses it)",
        ),
        (
            "$.messages[6].content",
            "the trailing whitespace of the final assistant turn (the API refuses it)",
        ),
        ("$.tool_choice", "a tool choice without tools (tools offered for the history only)"),
    ]


def test_anthropic_prefill_of_blocks_and_empty_prefill() -> None:
    """A final block prefill is stripped in its last text; an all-space one is dropped."""
    body, listed = _a_fix(
        [
            Message(role="user", content="q"),
            Message(role="assistant", content=[TextBlock("a"), TextBlock("b  ")]),
        ]
    )
    assert body["messages"][-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
    }
    assert listed == [
        (
            "$.messages[1].content[1]",
            "the trailing whitespace of the final assistant turn (the API refuses it)",
        )
    ]
    body, listed = _a_fix(
        [Message(role="user", content="q"), Message(role="assistant", content="   ")]
    )
    assert body["messages"] == [{"role": "user", "content": "q"}]
    assert listed == [("$.messages[1]", "an empty assistant message (the API takes none)")]
    assert AA._prefill("x ", "$", B.Unsupported()) == "x"
    assert AA._prefill([], "$", B.Unsupported()) == []
    kept = [{"type": "tool_use", "id": "i"}]
    assert AA._prefill(kept, "$", B.Unsupported()) is kept
    done = [{"type": "text", "text": "ok"}]
    assert AA._prefill(done, "$", B.Unsupported()) is done
    p = B.Unsupported()
    assert AA._prefill(
        [{"type": "text", "text": "a"}, {"type": "text", "text": " "}], "$.m", p
    ) == [{"type": "text", "text": "a"}]
    assert p.dropped == [
        B.Dropped(
            "$.m.content[1]",
            "the trailing whitespace of the final assistant turn (the API refuses it)",
            "metadata",
        )
    ]
    assert AA._prefill([TextBlock("z ")], "$", B.Unsupported()) == [TextBlock("z")]
    assert AA._call_ids(
        [
            ToolUseBlock(id="a", name="n", input={}),
            {"type": "tool_use", "id": 5},
            {"type": "text"},
            TextBlock("x"),
        ]
    ) == ["a", "5"]
    assert AA._call_ids("x") == []


def test_anthropic_request_with_no_messages_left_is_refused() -> None:
    """Another provider's request whose every message is left out has nothing to send."""
    with pytest.raises(B.UnsupportedError) as err:
        AA.encode_request(_foreign([Message(role="user", content=" ")]))
    assert (err.value.message, err.value.path) == (
        "the target format cannot hold a request with no messages (the Messages API needs at "
        "least one)",
        "$.messages",
    )
    assert _a_enc([Message(role="user", content=" ")])["messages"] == [
        {"role": "user", "content": " "}
    ]


def test_anthropic_tool_choice_without_tools_and_thinking_history() -> None:
    """A tool choice with no tools at all is left out; thinking is left out when the last
    tool-calling turn has no thinking block first."""
    body, listed = _a_fix(
        [Message(role="user", content="q")], tool_choice=B.ToolChoice(mode="auto")
    )
    assert "tool_choice" not in body
    assert listed == [("$.tool_choice", "a tool choice without tools (the API refuses it)")]
    call = ToolUseBlock(id="c", name="f", input={})
    msgs = [
        Message(role="user", content="q"),
        Message(role="assistant", content=[call]),
        Message(role="tool", content="r", tool_call_id="c"),
    ]
    body, listed = _a_fix(msgs, reasoning=B.Reasoning(budget_tokens=2000), tools=[B.Tool(name="f")])
    assert "thinking" not in body
    assert listed == [
        ("$.reasoning", "thinking (the last tool-calling assistant turn has no thinking block)")
    ]
    signed = [
        Message(role="user", content="q"),
        Message(role="assistant", content=[ThinkingBlock("t", signature="s"), call]),
        Message(role="tool", content="r", tool_call_id="c"),
    ]
    body, listed = _a_fix(
        signed, reasoning=B.Reasoning(budget_tokens=2000), tools=[B.Tool(name="f")]
    )
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2000} and listed == []
    redacted = [
        Message(role="user", content="q"),
        Message(role="assistant", content=[RedactedThinkingBlock("r"), call]),
        Message(role="tool", content="r", tool_call_id="c"),
    ]
    body, _ = _a_fix(redacted, reasoning=B.Reasoning(budget_tokens=2000), tools=[B.Tool(name="f")])
    assert "thinking" in body
    text_last = [
        Message(role="user", content="q"),
        Message(role="assistant", content="a"),
        Message(role="user", content="more"),
    ]
    body, _ = _a_fix(text_last, reasoning=B.Reasoning(budget_tokens=2000))
    assert "thinking" in body
    earlier = [
        *msgs,
        Message(role="assistant", content=[TextBlock("fine")]),
        Message(role="user", content="ok"),
    ]
    body, _ = _a_fix(earlier, reasoning=B.Reasoning(budget_tokens=2000), tools=[B.Tool(name="f")])
    assert "thinking" in body
    body, _ = _a_fix(msgs, reasoning=B.Reasoning(budget_tokens=0), tools=[B.Tool(name="f")])
    assert body["thinking"] == {"type": "disabled"}


def test_anthropic_system_messages() -> None:
    """One string system message is a string; several are text blocks; keys and non-text
    blocks reported."""
    p = B.Unsupported("drop")
    assert AA._system([Message(role="system", content="a")], p) == "a"
    assert AA._system(
        [
            Message(role="system", content="a"),
            Message(role="system", content=[TextBlock("b"), ThinkingBlock("t")]),
            Message(role="system", content="c", extra=Extra(k=1, from_provider="q")),
        ],
        p,
    ) == [{"type": "text", "text": "a"}, TextBlock("b"), {"type": "text", "text": "c"}]
    assert p.dropped == [
        B.Dropped("$.messages[1].content[1]", "a thinking block in the system prompt (text only)"),
        B.Dropped("$.messages[2].k", "the message key 'k'", "metadata"),
    ]
    q = B.Unsupported()
    AA._system([Message(role="system", content="x", extra=Extra(k=1))], q)
    assert q.dropped == [
        B.Dropped(
            "$.messages[0]",
            "message keys on a system message (the system prompt has none)",
            "metadata",
        )
    ]
    assert AA._system([Message(role="system", content="")], B.Unsupported(), True) is None
    assert AA._system([Message(role="system", content="")], B.Unsupported()) == ""
    assert AA._system([Message(role="system", content=[])], B.Unsupported()) == []


def test_anthropic_tool_results_written() -> None:
    """A tool result's content, is_error, keys, a foreign block in it refused; own kept."""
    p = B.Unsupported("drop")
    msg = Message(
        role="tool",
        content=[TextBlock("a"), ThinkingBlock("t", signature="s")],
        tool_call_id="i",
        is_error=False,
        extra=Extra(cache_control={"type": "ephemeral"}, zz=1, from_provider="q"),
    )
    assert AA._tool_result(msg, "$.m", p, False) == {
        "type": "tool_result",
        "tool_use_id": "i",
        "content": [TextBlock("a")],
        "is_error": False,
        "cache_control": {"type": "ephemeral"},
    }
    assert p.dropped == [
        B.Dropped("$.m.content[1]", "a thinking block in a tool result"),
        B.Dropped("$.m.zz", "the key 'zz' on a tool result", "metadata"),
    ]
    own = Message(role="tool", content=[ThinkingBlock("t", signature="s")], tool_call_id="i")
    assert AA._tool_result(own, "$", B.Unsupported(), True)["content"] == [
        ThinkingBlock("t", signature="s")
    ]
    absent = Message(role="tool", content="", tool_call_id="i", extra=Extra(content_absent=True))
    assert AA._tool_result(absent, "$", B.Unsupported(), True) == {
        "type": "tool_result",
        "tool_use_id": "i",
    }
    empty = Message(role="tool", content="", tool_call_id="i")
    assert AA._tool_result(empty, "$", B.Unsupported(), True) == {
        "type": "tool_result",
        "tool_use_id": "i",
        "content": "",
    }
    assert AA._tool_result(empty, "$", B.Unsupported(), False, True) == {
        "type": "tool_result",
        "tool_use_id": "i",
    }
    blocks_empty = Message(role="tool", content=[TextBlock(" ")], tool_call_id="i")
    assert AA._tool_result(blocks_empty, "$", B.Unsupported(), False, True) == {
        "type": "tool_result",
        "tool_use_id": "i",
    }
    with pytest.raises(B.UnsupportedError) as err:
        AA._tool_result(Message(role="tool", content="x"), "$.t", B.Unsupported(), True)
    assert (err.value.message, err.value.path) == (
        "the target format cannot hold a tool message without tool_call_id",
        "$.t",
    )


def test_anthropic_content_checks() -> None:
    """Unsigned thinking refused; another provider's blocks checked: source keys listed,
    unknown sources and foreign blocks refused, block keys outside the API's listed."""
    from minagent.wire import TextSource, UnknownSource

    with pytest.raises(B.UnsupportedError) as err:
        AA._content([ThinkingBlock("t")], "$.m", B.Unsupported())
    assert (err.value.message, err.value.path) == (
        "the target format cannot hold a thinking block without a signature (Anthropic takes "
        "back only thinking it signed)",
        "$.m.content[0]",
    )
    plain = [
        TextBlock("a"),
        ThinkingBlock("t", signature="s"),
        RedactedThinkingBlock("r"),
        ImageBlock(UrlSource("u")),
        DocumentBlock(UrlSource("d")),
    ]  # (base64 data is rewritten for the splice: not plain)
    assert AA._content(plain, "$", B.Unsupported()) is plain
    assert AA._content(plain, "$", B.Unsupported(), False, True) is plain
    p = B.Unsupported("drop")
    out = AA._content(
        [
            ImageBlock(UrlSource("u", extra=Extra(k=1))),
            ImageBlock(UnknownSource(Extra(type="weird"))),
            DocumentBlock(UnknownSource(Extra(type="file", file_id="f"))),
            TextBlock(
                "t",
                extra=Extra(citations=[], zz=1, type_absent=True),
                cache_control={"type": "ephemeral"},
            ),
            UnknownBlock(Extra(type="gemini_part", x=1)),
            ToolUseBlock(id="i", name="n", input={}, extra=Extra(caller={"a": 1})),
        ],
        "$.m",
        p,
        False,
    )
    assert json.loads(B.encode_json(out)) == [
        {"type": "image", "source": {"type": "url", "url": "u"}},
        {"type": "document", "source": {"type": "file", "file_id": "f"}},
        {"type": "text", "text": "t", "cache_control": {"type": "ephemeral"}, "citations": []},
        {"type": "tool_use", "id": "i", "name": "n", "input": {}, "caller": {"a": 1}},
    ]
    assert p.dropped == [
        B.Dropped("$.m.content[0].source.k", "the key 'k' on a source", "metadata"),
        B.Dropped("$.m.content[1].source", "a 'weird' source"),
        B.Dropped("$.m.content[3].zz", "the key 'zz' on a text block", "metadata"),
        B.Dropped(
            "$.m.content[4]", "a 'gemini_part' block from another provider (no such block here)"
        ),
    ]
    text_doc = DocumentBlock(TextSource(media_type="text/plain", data="x"))
    assert json.loads(B.encode_json(AA._content([text_doc], "$", B.Unsupported(), False))) == [
        {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "x"}}
    ]


def test_anthropic_catalog_blocks_from_another_provider() -> None:
    """A typed catalog block: kept when it is an Anthropic block, refused otherwise."""
    from minagent.wire import ToolResultBlock

    p = B.Unsupported("drop")
    tr = ToolResultBlock(tool_use_id="t", content="c")
    assert AA._checked_block(tr, "$.b", p) is tr
    assert p.dropped == []
    text = TextBlock("x", extra=Extra(citations=[]))
    assert AA._checked_block(text, "$.b", p) is text
    bare_text = TextBlock("x")
    assert AA._checked_block(bare_text, "$.b", p) is bare_text


def test_anthropic_media_for_another_provider() -> None:
    """Base64 media types the API takes kept; text documents as text sources (a non-plain
    type listed, non-UTF-8 refused); other types refused."""
    from minagent.wire import TextSource

    p = B.Unsupported("drop")
    png = ImageBlock(Base64Source("image/png", b"x"))
    assert AA._media(png, "$", p) is png
    url = ImageBlock(UrlSource("u"))
    assert AA._media(url, "$", p) is url
    md = DocumentBlock(Base64Source("text/markdown", "é".encode(), extra=Extra(k=1)))
    assert AA._media(md, "$.d", p) == DocumentBlock(
        TextSource(media_type="text/plain", data="é", extra=Extra(k=1))
    )
    txt = DocumentBlock(Base64Source("text/plain; charset=utf-8", b"x"))
    assert AA._media(txt, "$.t", p) == DocumentBlock(TextSource(media_type="text/plain", data="x"))
    assert AA._media(DocumentBlock(Base64Source("text/plain", b"\xff")), "$.u", p) is None
    assert AA._media(ImageBlock(Base64Source("image/bmp", b"x")), "$.i", p) is None
    assert AA._media(DocumentBlock(Base64Source("image/png", b"x")), "$.j", p) is None
    assert p.dropped == [
        B.Dropped(
            "$.d.source.media_type", "the media type text/markdown (sent as text)", "metadata"
        ),
        B.Dropped("$.u", "a text/plain document that is not UTF-8 text"),
        B.Dropped("$.i", "an image block of type image/bmp (no such media here)"),
        B.Dropped("$.j", "a document block of type image/png (no such media here)"),
    ]
    body, listed = _a_fix(
        [
            Message(
                role="user", content=[ImageBlock(Base64Source("image/bmp", b"x")), TextBlock("t")]
            )
        ]
    )
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "t"}]}]
    assert listed == [
        ("$.messages[0].content[0]", "an image block of type image/bmp (no such media here)")
    ]
    body, _ = _a_fix([Message(role="user", content=[ImageBlock(Base64Source("image/png", b"x"))])])
    assert body["messages"][0]["content"][0]["source"]["media_type"] == "image/png"


def test_anthropic_fits_tool_calls_in_another_providers_history() -> None:
    """Ids and names outside the API's patterns are rewritten in the call and its result."""
    r = B.Renames()
    body = _a_enc(
        _foreign(
            [
                Message(role="user", content="q"),
                Message(
                    role="assistant",
                    content=[
                        ToolUseBlock(id="a:1", name="f.g", input={}),
                        ToolUseBlock(id="ok", name="fine", input={}),
                    ],
                ),
                Message(role="tool", content="r", tool_call_id="a:1"),
                Message(role="tool", content="s", tool_call_id="ok"),
            ],
            tools=[B.Tool(name="f.g"), B.Tool(name="fine")],
        ),
        renames=r,
    )
    assert body["messages"][1]["content"] == [
        {"type": "tool_use", "id": "a_1", "name": "f_g", "input": {}},
        {"type": "tool_use", "id": "ok", "name": "fine", "input": {}},
    ]
    assert body["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "a_1", "content": "r"},
        {"type": "tool_result", "tool_use_id": "ok", "content": "s"},
    ]
    assert r.names == {"f_g": "f.g"} and r.ids == {"a_1": "a:1"}


def test_anthropic_joins_user_turns_after_tool_results() -> None:
    """A user list after tool results joins their turn, unless it starts a new turn or has
    keys; tool results after a user list join it."""
    t = Message(role="tool", content="r", tool_call_id="c")
    u = Message(role="user", content=[TextBlock("u")])
    body = _a_enc([t, u, t])
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "c", "content": "r"},
                {"type": "text", "text": "u"},
                {"type": "tool_result", "tool_use_id": "c", "content": "r"},
            ],
        }
    ]
    nt = Message(role="user", content=[TextBlock("u")], extra=Extra(new_turn=True))
    assert len(_a_enc([t, nt])["messages"]) == 2
    keyed = Message(role="user", content=[TextBlock("u")], extra=Extra(k=1))
    out = _a_enc([t, keyed, t])["messages"]
    assert len(out) == 3 and out[1] == {
        "role": "user",
        "content": [{"type": "text", "text": "u"}],
        "k": 1,
    }
    tn = Message(role="tool", content="r", tool_call_id="c", extra=Extra(new_turn=True))
    assert len(_a_enc([t, tn])["messages"]) == 2
    assert len(_a_enc([Message(role="user", content="s"), t])["messages"]) == 2
    assert len(_a_enc([Message(role="user", content=[]), t])["messages"]) == 2
    caller = [TextBlock("u")]
    _a_enc([Message(role="user", content=caller), t])
    assert caller == [TextBlock("u")]


def test_anthropic_encode_response_from_another_provider() -> None:
    """An id made up, the stop reason mapped, foreign keys and counters listed, usage kept
    for the API's counters and groups."""
    resp = ModelResponse(
        message=Message(
            role="assistant", content="hi", extra=Extra(refusal=None, from_provider="openai_chat")
        ),
        stop_reason="incomplete:max_output_tokens",
        created=5,
        usage={
            "input_tokens": 3,
            "cache_creation.ephemeral_5m_input_tokens": 1,
            "total_tokens": 9,
            "reasoning_tokens": 2,
        },
        extra=Extra(
            from_provider="openai_chat",
            system_fingerprint="f",
            usage_extra={"service_tier": "x", "server_tool_use": {}, "odd": 1},
        ),
    )
    dropped: list[B.Dropped] = []
    out = json.loads(AA.encode_response(resp, dropped=dropped, model="m"))
    ident = out.pop("id")
    assert ident.startswith("msg_") and len(ident) == 28
    assert out == {
        "type": "message",
        "role": "assistant",
        "model": "m",
        "content": [{"type": "text", "text": "hi"}],
        "stop_reason": "max_tokens",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 3,
            "cache_creation": {"ephemeral_5m_input_tokens": 1},
            "output_tokens": 0,
            "service_tier": "x",
            "server_tool_use": {},
        },
    }
    assert [(d.path, d.what) for d in dropped] == [
        ("$.system_fingerprint", "the response key 'system_fingerprint'"),
        ("$.message.refusal", "the message key 'refusal' (null)"),
        ("$.created", "the creation time (a Messages response has none)"),
        (
            "$.stop_reason",
            "the stop reason 'incomplete:max_output_tokens' (written as 'max_tokens')",
        ),
        ("$.usage.reasoning_tokens", "the usage counter 'reasoning_tokens'"),
        ("$.usage_extra.odd", "the usage entry 'odd'"),
    ]


def test_anthropic_encode_response_own_and_neutral() -> None:
    """A neutral response: its keys back, created listed (a Messages response has no such
    key), fields fill only what is missing; a usage that is not an object listed; empty
    content."""
    resp = ModelResponse(
        message=Message(role="assistant", content=""),
        stop_reason="weird",
        id="i",
        created=4,
        extra=Extra(model="x", stop_sequence="s", k=1, usage_extra=3),
    )
    dropped: list[B.Dropped] = []
    out = json.loads(AA.encode_response(resp, dropped=dropped, id="other", z=2))
    assert out == {
        "id": "i",
        "type": "message",
        "role": "assistant",
        "model": "x",
        "content": [],
        "stop_reason": "weird",
        "stop_sequence": "s",
        "usage": {"input_tokens": 0, "output_tokens": 0},
        "k": 1,
        "z": 2,
    }
    assert dropped == [
        B.Dropped("$.usage_extra", "a usage that is not an object", "metadata"),
        B.Dropped("$.created", "the creation time (a Messages response has none)", "metadata"),
    ]
    keyed = ModelResponse(message=Message(role="assistant", content="a", extra=Extra(k=1)))
    d2: list[B.Dropped] = []
    out2 = json.loads(AA.encode_response(keyed, dropped=d2))
    assert out2["model"] is None and out2["usage"] == {"input_tokens": 0, "output_tokens": 0}
    assert d2 == [
        B.Dropped("$.message", "message keys on a response message (it has none here)", "metadata")
    ]
    with_id = ModelResponse(
        message=Message(role="assistant", content="a"), extra=Extra(id="given", model="mm")
    )
    out3 = json.loads(AA.encode_response(with_id))
    assert (out3["id"], out3["model"]) == ("given", "mm")
    typed = ModelResponse(
        message=Message(role="assistant", content="a"),
        id="t",
        model="tm",
        extra=Extra(id="given", model="mm"),
    )
    out4 = json.loads(AA.encode_response(typed))
    assert (out4["id"], out4["model"]) == ("t", "tm") and list(out4).count("id") == 1


# --- openai_chat -------------------------------------------------------------------------

from minagent.providers import openai_chat as CA  # noqa: E402


def _c_req(body: dict[str, Any]) -> B.Request:
    return CA.decode_request(json.dumps(body).encode())


def _c_enc(req: Any, **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(CA.encode_request(req, **kw))
    return out


def test_chat_finish_reason_each_way() -> None:
    """Neutral and foreign stop reasons to a finish_reason in the SDK's enum."""
    f = CA.finish_reason
    assert [
        f(r, False) for r in ("end_turn", "stop_sequence", "tool_use", "max_tokens", "refusal")
    ] == ["stop", "stop", "tool_calls", "length", "content_filter"]
    assert f("OTHER", False) == "content_filter" and f("pause_turn", True) == "length"
    assert f("incomplete:x", False) == "length"
    assert f("weird", False) == "stop" and f("weird", True) == "tool_calls"
    assert f(None, True) == "tool_calls"


def test_chat_read_settings_exactly() -> None:
    """Every typed setting read, both max-token spellings, and what stays an option."""
    req = _c_req(
        {
            "messages": [],
            "model": "m",
            "temperature": 1,
            "top_p": 0.5,
            "user": "u",
            "metadata": {"a": "b"},
            "stream": False,
            "max_completion_tokens": 9,
            "max_tokens": 8,
            "stop": "x",
            "reasoning_effort": "low",
            "tools": [
                {"type": "function", "function": {"name": "f", "parameters": {}}},
                {"function": {"name": "g"}},
            ],
            "tool_choice": {"type": "function", "function": {"name": "f"}},
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "n", "schema": {}, "strict": True},
            },
        }
    )
    assert (
        req.model,
        req.temperature,
        req.top_p,
        req.user,
        req.metadata,
        req.stream,
        req.max_tokens,
        req.stop,
    ) == ("m", 1, 0.5, "u", {"a": "b"}, False, 9, ["x"])
    assert req.spelling["max_tokens"] == 8 and req.spelling["stop"] == "x"
    assert req.reasoning == B.Reasoning(effort="low")
    assert req.tools == [B.Tool(name="f", parameters={}), B.Tool(name="g")]
    assert req.tool_choice == B.ToolChoice(mode="tool", name="f")
    assert req.response_format == B.ResponseFormat(
        type="json_schema", name="n", schema={}, strict=True
    )
    assert req.options == {}
    assert _c_req({"messages": [], "max_tokens": 3}).max_tokens == 3
    both = _c_req({"messages": [], "max_completion_tokens": 3, "max_tokens": "x"})
    assert both.max_tokens == 3 and both.options == {"max_tokens": "x"}
    assert _c_req({"messages": [], "stop": ["a", "b"]}).stop == ["a", "b"]
    for fmt, want in (
        ({"type": "text"}, B.ResponseFormat(type="text")),
        ({"type": "json_object"}, B.ResponseFormat(type="json")),
        (
            {"type": "json_schema", "json_schema": {"name": "n"}},
            B.ResponseFormat(type="json_schema", name="n"),
        ),
    ):
        assert _c_req({"messages": [], "response_format": fmt}).response_format == want
    for fmt in (
        {"type": "xml"},
        {"type": "json_schema"},
        {"type": "json_schema", "json_schema": {"name": 1}},
        {"type": "json_schema", "json_schema": {"name": "n", "schema": []}},
        {"type": "json_schema", "json_schema": {"name": "n", "strict": 1}},
        {"type": "json_schema", "json_schema": {"name": "n", "x": 1}},
        {"type": "json_object", "json_schema": {"name": "n"}},
    ):
        assert _c_req({"messages": [], "response_format": fmt}).options == {"response_format": fmt}
    for choice in (
        {"type": "function", "function": {"name": 1}},
        {"type": "function", "function": {"name": "f", "x": 1}},
        {"type": "custom", "function": {"name": "f"}},
        {"type": "function"},
    ):
        assert _c_req({"messages": [], "tool_choice": choice}).options == {"tool_choice": choice}
    for tools in (
        [{"type": "custom", "function": {"name": "f"}}],
        [{"type": "function", "function": {"name": "f"}, "x": 1}],
        [{"type": "function", "function": {"name": 1}}],
    ):
        assert _c_req({"messages": [], "tools": tools}).options == {"tools": tools}
    for stop in (1, ["a", 1]):
        assert _c_req({"messages": [], "stop": stop}).options == {"stop": stop}
    assert _c_req({"messages": [], "reasoning_effort": 1}).options == {"reasoning_effort": 1}
    with pytest.raises(ValidationError) as err:
        _c_req({"model": "m"})
    assert (err.value.message, err.value.path) == ("a request needs 'messages'", "$")


def test_chat_write_settings_exactly() -> None:
    """Each neutral setting spelled for Chat Completions, and what is refused."""
    p = B.Unsupported()
    out = CA.write_settings(
        {
            "model": "m",
            "max_tokens": 3,
            "temperature": 1,
            "top_p": 0.5,
            "user": "u",
            "metadata": {"a": "b"},
            "stream": True,
            "stop": ("x",),
            "tools": [B.Tool(name="a.b", description="d", parameters={"p": 1}, strict=False)],
            "tool_choice": B.ToolChoice(mode="tool", name="a.b", parallel=False),
            "response_format": B.ResponseFormat(
                type="json_schema", name="n", schema={"s": 1}, strict=True
            ),
            "reasoning": B.Reasoning(effort="high", budget_tokens=3),
        },
        p,
    )
    assert out == {
        "model": "m",
        "max_tokens": 3,
        "temperature": 1,
        "top_p": 0.5,
        "user": "u",
        "metadata": {"a": "b"},
        "stream": True,
        "stop": ["x"],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "a_b",
                    "description": "d",
                    "parameters": {"p": 1},
                    "strict": False,
                },
            }
        ],
        "tool_choice": {"type": "function", "function": {"name": "a_b"}},
        "parallel_tool_calls": False,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "n", "schema": {"s": 1}, "strict": True},
        },
        "reasoning_effort": "high",
    }
    assert p.dropped == [
        B.Dropped("$.reasoning.budget_tokens", "a reasoning budget beside an effort", "metadata")
    ]
    for fmt, want in (
        (B.ResponseFormat(type="text"), {"type": "text"}),
        (B.ResponseFormat(type="json"), {"type": "json_object"}),
        (
            B.ResponseFormat(type="json_schema"),
            {"type": "json_schema", "json_schema": {"name": "response"}},
        ),
    ):
        assert CA.write_settings({"response_format": fmt}, p) == {"response_format": want}
    with pytest.raises(B.UnsupportedError) as err:
        CA.write_settings({"odd": 1}, B.Unsupported())
    assert (err.value.message, err.value.path) == (
        "the target format cannot hold the setting 'odd' (no Chat Completions spelling)",
        "$.odd",
    )


def test_chat_fast_messages_exactly() -> None:
    """The Struct path: developer, content absent or null, calls beside text, names, refusals,
    image detail, and the cases that fall back to the general path."""
    req = _c_req(
        {
            "messages": [
                {"role": "developer", "content": "d", "name": "n"},
                {"role": "assistant"},
                {"role": "assistant", "content": None},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": "c",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "assistant", "content": "t", "tool_calls": [], "refusal": None},
                {"role": "assistant", "tool_calls": []},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "a"},
                        {"type": "image_url", "image_url": {"url": "https://i", "detail": "low"}},
                        {"type": "image_url", "image_url": {"url": "https://j"}},
                    ],
                },
                {"role": "tool", "tool_call_id": "c", "content": "r"},
            ]
        }
    )
    m = req.messages
    own = "openai_chat"
    assert m[0] == Message(
        role="system", content="d", extra=Extra(developer=True, name="n", from_provider=own)
    )
    assert m[1] == Message(
        role="assistant", content="", extra=Extra(content_absent=True, from_provider=own)
    )
    assert m[2] == Message(role="assistant", content=[])
    assert m[3] == Message(
        role="assistant",
        content=[ToolUseBlock(id="c", name="f", input={})],
        extra=Extra(content_absent="", from_provider=own),
    )
    assert m[4] == Message(
        role="assistant",
        content=[TextBlock("t")],
        extra=Extra(tool_calls=[], refusal=None, from_provider=own),
    )
    assert m[5] == Message(
        role="assistant",
        content=[],
        extra=Extra(content_absent=True, tool_calls=[], from_provider=own),
    )
    assert m[6].content == [
        TextBlock("a"),
        ImageBlock(UrlSource("https://i"), extra=Extra(detail="low")),
        ImageBlock(UrlSource("https://j")),
    ]
    assert m[7] == Message(role="tool", content="r", tool_call_id="c")
    assert json.loads(CA.encode_request(req))["messages"] == json.loads(
        json.dumps(
            [
                {"role": "developer", "content": "d", "name": "n"},
                {"role": "assistant"},
                {"role": "assistant", "content": None},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {
                            "id": "c",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "assistant", "content": "t", "tool_calls": [], "refusal": None},
                {"role": "assistant", "tool_calls": []},
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "a"},
                        {"type": "image_url", "image_url": {"url": "https://i", "detail": "low"}},
                        {"type": "image_url", "image_url": {"url": "https://j"}},
                    ],
                },
                {"role": "tool", "tool_call_id": "c", "content": "r"},
            ]
        )
    )
    kept = _c_req({"messages": [{"role": "user", "content": "x", "tool_call_id": "c"}]})
    assert kept.messages[0].extra == Extra(tool_call_id="c", from_provider=own)
    with pytest.raises(ValidationError) as err:
        _c_req({"messages": [{"role": "tool", "content": "x"}]})
    assert (err.value.message, err.value.path) == (
        "a tool message needs a string 'tool_call_id'",
        "$.messages[0]",
    )
    calls_on_user = _c_req({"messages": [{"role": "user", "content": "x", "tool_calls": []}]})
    assert calls_on_user.messages[0].extra == Extra(tool_calls=[], from_provider=own)


def test_chat_general_messages_exactly() -> None:
    """The general path: roles, content shapes, tool calls kept whole, and each refusal."""
    cases = [
        ({"role": "robot", "content": "x"}, "unsupported role 'robot'", "$.messages[0].role"),
        ({"content": "x"}, "unsupported role None", "$.messages[0].role"),
        (
            {"role": "user", "content": 3},
            "'content' must be a string, an array or null",
            "$.messages[0]",
        ),
        (
            {"role": "assistant", "content": "x", "tool_calls": {}},
            "'tool_calls' must be an array",
            "$.messages[0].tool_calls",
        ),
        (
            {"role": "assistant", "content": "x", "tool_calls": [3]},
            "a tool call must be an object",
            "$.messages[0].tool_calls[0]",
        ),
        (
            {"role": "user", "content": [3]},
            "a content part must be an object with a string 'type'",
            "$.messages[0].content[0]",
        ),
        (
            {"role": "user", "content": [{"type": "text", "text": 3}]},
            "a text part needs a string 'text'",
            "$.messages[0].content[0].text",
        ),
    ]
    for msg, message, path in cases:
        with pytest.raises(ValidationError) as err:
            _c_req({"messages": [msg]})
        assert (err.value.message, err.value.path) == (message, path)
    req = _c_req(
        {
            "messages": [
                {"role": "assistant", "content": None, "tool_calls": None},
                {
                    "role": "assistant",
                    "content": "x",
                    "tool_calls": [
                        {"id": "a", "function": {"name": "f", "arguments": "{}"}},
                        {
                            "id": "b",
                            "type": "function",
                            "index": 0,
                            "function": {"name": "g", "arguments": "{}", "extra": 1},
                        },
                        {"id": "c", "type": "custom", "custom": {"name": "h", "input": "x"}},
                        {"type": "function", "function": {"name": "i"}},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": "t", "cache_control": {"k": 1}},
                        {
                            "type": "image_url",
                            "image_url": {"url": "u"},
                            "cache_control": {"type": "ephemeral"},
                        },
                        {"type": "image_url", "image_url": {"url": 3}},
                        {
                            "type": "file",
                            "file": {
                                "file_data": "data:application/pdf;base64,aGk=",
                                "filename": "f",
                            },
                        },
                        {"type": "file", "file": {"file_id": "x"}},
                        {"type": "thinking", "thinking": "t"},
                    ],
                },
            ]
        }
    )
    m = req.messages
    assert m[0] == Message(
        role="assistant", content=[], extra=Extra(tool_calls=None, from_provider="openai_chat")
    )
    assert m[1].content == [
        TextBlock("x"),
        ToolUseBlock(id="a", name="f", input={}, extra=Extra(type_absent=True)),
        ToolUseBlock(id="b", name="g", input={}, extra=Extra(index=0, function_keys={"extra": 1})),
        UnknownBlock(Extra(id="c", type="custom", custom={"name": "h", "input": "x"})),
        UnknownBlock(
            Extra(
                type="openai_chat_tool_call", call={"type": "function", "function": {"name": "i"}}
            )
        ),
    ]
    assert m[2].content == [
        TextBlock("t", extra=Extra(cache_control={"k": 1})),
        ImageBlock(UrlSource("u"), cache_control={"type": "ephemeral"}),
        UnknownBlock(Extra(type="image_url", image_url={"url": 3})),
        DocumentBlock(Base64Source("application/pdf", b"hi"), extra=Extra(filename="f")),
        UnknownBlock(Extra(type="file", file={"file_id": "x"})),
        UnknownBlock(Extra(type="openai_chat_part", part={"type": "thinking", "thinking": "t"})),
    ]
    assert m[2].extra == Extra(from_provider="openai_chat")


def test_chat_sources_and_arguments() -> None:
    """Data URLs with canonical base64 become bytes; everything else stays a URL; arguments
    kept as text when not compact or not an object."""
    assert CA._source("data:image/png;base64,aGk=") == Base64Source("image/png", b"hi")
    for url in (
        "data:image/png;base64,QR==",
        "data:;base64,aGk=",
        "data:image/png,aGk=",
        "data:image/png;x=1;base64,aGk=",
        "data:image/png;base64",
        "https://x",
        "data:image/png;base64,a\u00e9",
    ):
        assert CA._source(url) == UrlSource(url)
    assert CA._tool_use("i", "n", '{"a":1}') == ToolUseBlock(id="i", name="n", input={"a": 1})
    assert CA._tool_use("i", "n", '{"a": 1}') == ToolUseBlock(
        id="i", name="n", input={"a": 1}, extra=Extra(arguments='{"a": 1}')
    )
    assert CA._tool_use("i", "n", "[1]") == ToolUseBlock(
        id="i", name="n", input={}, extra=Extra(arguments="[1]")
    )
    assert CA._tool_use("i", "n", '{"a":') == ToolUseBlock(
        id="i", name="n", input={}, extra=Extra(arguments='{"a":')
    )


def _chat_body(**kw: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "hi"},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
    }
    body.update(kw)
    return body


def test_chat_fast_response_exactly() -> None:
    """The Struct path: content beside calls, refusal and annotations, tiers, usage with cached
    and nested counters, no usage; and a choice that is not the assistant's."""
    body = _chat_body(
        choices=[
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": "",
                    "refusal": None,
                    "annotations": [],
                    "tool_calls": [
                        {
                            "id": "t",
                            "type": "function",
                            "function": {"name": "f", "arguments": "{}"},
                        }
                    ],
                },
                "logprobs": None,
                "finish_reason": "tool_calls",
            }
        ],
        usage={
            "prompt_tokens": 10,
            "completion_tokens": 2,
            "total_tokens": 12,
            "prompt_tokens_details": {"cached_tokens": 4, "audio_tokens": None},
            "completion_tokens_details": {"reasoning_tokens": 1, "deep": {"x": 1, "y": "s"}},
        },
        service_tier="default",
        system_fingerprint="fp",
    )
    resp = CA.decode_response(json.dumps(body).encode())
    assert (resp.id, resp.model, resp.created, resp.stop_reason) == ("c", "m", 1, "tool_use")
    assert resp.usage == {
        "input_tokens": 6,
        "output_tokens": 2,
        "total_tokens": 12,
        "cache_read_input_tokens": 4,
        "reasoning_tokens": 1,
        "completion_tokens_details.deep.x": 1,
    }
    assert dict(resp.extra) == {
        "from_provider": "openai_chat",
        "object": "chat.completion",
        "logprobs": None,
        "service_tier": "default",
        "system_fingerprint": "fp",
        "usage_extra": {
            "prompt_tokens_details.audio_tokens": None,
            "completion_tokens_details.deep.y": "s",
        },
    }
    assert resp.message == Message(
        role="assistant",
        content=[ToolUseBlock(id="t", name="f", input={})],
        extra=Extra(content_absent="", refusal=None, annotations=[], from_provider="openai_chat"),
    )
    assert json.loads(CA.encode_response(resp)) == body
    plain = CA.decode_response(json.dumps(_chat_body()).encode())
    assert plain.message == Message(role="assistant", content="hi")
    assert dict(plain.extra)["usage_absent"] is True and plain.usage == {}
    assert json.loads(CA.encode_response(plain)) == _chat_body()
    null = CA.decode_response(
        json.dumps(
            _chat_body(
                choices=[
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": None},
                        "logprobs": None,
                        "finish_reason": "length",
                    }
                ]
            )
        ).encode()
    )
    assert null.message.content == [] and null.stop_reason == "max_tokens"
    empty_calls = CA.decode_response(
        json.dumps(
            _chat_body(
                choices=[
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": None, "tool_calls": []},
                        "logprobs": None,
                        "finish_reason": "stop",
                    }
                ]
            )
        ).encode()
    )
    assert empty_calls.message.content == [] and empty_calls.message.extra == Extra(
        tool_calls=[], from_provider="openai_chat"
    )
    with pytest.raises(ValidationError) as err:
        CA.decode_response(
            json.dumps(
                _chat_body(
                    choices=[
                        {
                            "index": 0,
                            "message": {"role": "user", "content": "x"},
                            "logprobs": None,
                            "finish_reason": "stop",
                        }
                    ]
                )
            ).encode()
        )
    assert (err.value.message, err.value.path) == (
        "the first choice must be an assistant message",
        "$.choices[0]",
    )
    with pytest.raises(ValidationError) as err:
        CA.decode_response(
            json.dumps(
                _chat_body(
                    choices=[
                        {
                            "index": 1,
                            "message": {"role": "assistant", "content": "x"},
                            "logprobs": None,
                            "finish_reason": "stop",
                        }
                    ]
                )
            ).encode()
        )
    assert err.value.path == "$.choices[0]"
    custom = _chat_body(
        choices=[
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "t", "type": "custom", "function": {"name": "f", "arguments": "x"}}
                    ],
                },
                "logprobs": None,
                "finish_reason": "tool_calls",
            }
        ]
    )
    got = CA.decode_response(json.dumps(custom).encode())
    assert got.message.content == [
        UnknownBlock(Extra(id="t", type="custom", function={"name": "f", "arguments": "x"}))
    ]


def test_chat_general_response_exactly() -> None:
    """The general path: its refusals, extra choices and keys, odd usage."""
    cases = [
        ({"choices": []}, "a response needs a non-empty 'choices' array", "$"),
        ({"choices": [3]}, "a choice needs a 'message' object", "$.choices[0]"),
        (
            {"choices": [{"message": {"role": "assistant"}, "index": 2}]},
            "the first choice must have index 0",
            "$.choices[0]",
        ),
        (
            {"choices": [{"message": {"role": "user", "content": "x"}}]},
            "a choice's message must be an assistant message",
            "$",
        ),
        (
            {"choices": [{"message": {"role": "assistant", "content": "x"}}]},
            "'finish_reason' must be a string",
            "$.choices[0].finish_reason",
        ),
    ]
    for body, message, path in cases:
        with pytest.raises(ValidationError) as err:
            CA.decode_response(json.dumps(body).encode())
        assert (err.value.message, err.value.path) == (message, path)
    body = {
        "id": 1,
        "model": "m",
        "created": "x",
        "choices": [
            {
                "message": {"role": "assistant", "content": [{"type": "text", "text": "a"}]},
                "finish_reason": "eos",
                "logprobs": {"c": 1},
                "seed": 5,
            },
            {"index": 1, "message": {"role": "assistant", "content": "b"}},
        ],
        "usage": 7,
    }
    resp = CA.decode_response(json.dumps(body).encode())
    assert (resp.id, resp.model, resp.created, resp.stop_reason) == (UNSET, "m", UNSET, "eos")
    assert dict(resp.extra) == {
        "from_provider": "openai_chat",
        "id": 1,
        "created": "x",
        "logprobs": {"c": 1},
        "choice_extra": {"seed": 5},
        "choices": [{"index": 1, "message": {"role": "assistant", "content": "b"}}],
        "usage_extra": {"": 7},
    }
    assert resp.message.content == [TextBlock("a")]
    assert dict(resp.message.extra) == {"content_list": True, "from_provider": "openai_chat"}
    obj = CA.decode_response(
        json.dumps(
            {
                "choices": [
                    {"message": {"role": "assistant", "content": "a"}, "finish_reason": "stop"}
                ],
                "usage": {"prompt_tokens": 1, "x": "y"},
            }
        ).encode()
    )
    assert obj.usage == {"input_tokens": 1} and dict(obj.extra)["usage_extra"] == {"x": "y"}
    assert "usage_absent" not in dict(obj.extra)


def test_chat_decode_choices_each() -> None:
    """n > 1: one response per choice, usage on the first only, errors located by choice."""
    body = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "a"}, "finish_reason": "stop"},
            {
                "index": 1,
                "message": {"role": "assistant", "content": "b"},
                "finish_reason": "length",
            },
        ],
        "usage": {"prompt_tokens": 1},
    }
    first, second = CA.decode_choices(json.dumps(body).encode())
    assert (first.message.content, second.message.content) == ("a", "b")
    assert (first.stop_reason, second.stop_reason) == ("end_turn", "max_tokens")
    assert first.usage == {"input_tokens": 1} and second.usage == {}
    assert dict(second.extra)["usage_absent"] is True
    with pytest.raises(ValidationError) as err:
        CA.decode_choices(b'{"choices": 3}')
    assert (err.value.message, err.value.path) == ("a response needs a 'choices' array", "$")
    bad = dict(body, choices=[body["choices"][0], {"message": {"role": "assistant"}}])
    with pytest.raises(ValidationError) as err:
        CA.decode_choices(json.dumps(bad).encode())
    assert (err.value.message, err.value.path) == (
        "'finish_reason' must be a string",
        "$.choices[1]",
    )
    with pytest.raises(ValidationError) as err:
        CA.decode_choices(b'{"choices": [3]}')
    assert (err.value.message, err.value.path) == (
        "a choice needs a 'message' object",
        "$.choices[0]",
    )


GEMINI_REQUEST_ERRORS = [
    (b"[1]", "expected an object, got array", "$"),
    (b"{", "invalid JSON: Input data was truncated", "$"),
    (b'{"systemInstruction": 1}', "expected an object, got number", "$.systemInstruction"),
    (
        b'{"systemInstruction": {"parts": 1}}',
        "expected an array, got number",
        "$.systemInstruction.parts",
    ),
    (
        b'{"systemInstruction": {"parts": [1]}}',
        "expected an object, got number",
        "$.systemInstruction.parts[0]",
    ),
    (b'{"contents": 1}', "expected an array, got number", "$.contents"),
    (b'{"contents": [1]}', "expected an object, got number", "$.contents[0]"),
    (b'{"contents": [{"parts": 1}]}', "expected an array, got number", "$.contents[0].parts"),
    (b'{"contents": [{"parts": [1]}]}', "expected an object, got number", "$.contents[0].parts[0]"),
    (
        b'{"contents": [{"role": "model", "parts": [1]}]}',
        "expected an object, got number",
        "$.contents[0].parts[0]",
    ),
    (
        b'{"contents": [{"parts": [{"functionResponse": 1}]}]}',
        "expected an object, got number",
        "$.contents[0].parts[0].functionResponse",
    ),
    (
        b'{"contents": [{"parts": [{"functionResponse": {"name": 1}}]}]}',
        "expected a string, got number",
        "$.contents[0].parts[0].functionResponse.name",
    ),
    (
        b'{"contents": [{"parts": [{"functionResponse":'
        b' {"name": "f", "id": "x", "response": 1}}]}]}',
        "expected an object, got number",
        "$.contents[0].parts[0].functionResponse.response",
    ),
]

GEMINI_RESPONSE_ERRORS = [
    (b"[1]", "expected an object, got array", "$"),
    (b"{", "invalid JSON: Input data was truncated", "$"),
    (b'{"candidates": 1}', "expected an array, got number", "$.candidates"),
    (b'{"candidates": [1]}', "expected an object, got number", "$.candidates[0]"),
    (
        b'{"candidates": [{"content": 1}]}',
        "expected an object, got number",
        "$.candidates[0].content",
    ),
    (
        b'{"candidates": [{"content": {"parts": 1}}]}',
        "expected an array, got number",
        "$.candidates[0].content.parts",
    ),
    (
        b'{"candidates": [{"content": {"parts": [1]}}]}',
        "expected an object, got number",
        "$.candidates[0].content.parts[0]",
    ),
]


def test_gemini_decode_errors_say_where() -> None:
    """Each malformed Gemini request and response: the exact message and JSON path."""
    for data, message, path in GEMINI_REQUEST_ERRORS:
        with pytest.raises((ValidationError, DecodeError)) as err:
            G.decode_request(data)
        assert (err.value.message, err.value.path) == (message, path), data
    for data, message, path in GEMINI_RESPONSE_ERRORS:
        with pytest.raises((ValidationError, DecodeError)) as err:
            G.decode_response(data)
        assert (err.value.message, err.value.path) == (message, path), data


def test_gemini_system_instruction_shapes() -> None:
    """A system instruction without parts is an empty system message; one whose part has its
    own keys is tagged as Gemini's; the error path of a bad system part."""
    req = _g_req({"systemInstruction": {"role": "system"}})
    assert req.messages == [Message(role="system", content=[])]
    assert req.options == {"systemInstruction": {"role": "system"}}
    tagged = _g_req({"systemInstruction": {"parts": [{"text": "a", "x": 1}]}})
    assert tagged.messages == [
        Message(
            role="system",
            content=[TextBlock("a", extra=Extra(x=1))],
            extra=Extra(from_provider="gemini"),
        )
    ]
    unknown = _g_req({"systemInstruction": {"parts": [{"inlineData": 1}]}})
    assert unknown.messages[0].content == [UnknownBlock(Extra(type="gemini_part", inlineData=1))]


def test_gemini_new_turn_only_between_two_tool_contents() -> None:
    """The first tool content starts no new turn; the second, right after, does; the
    request names its provider and writes its model back as it came; a functionResponse
    answering no call in the request keeps its function name (it was refused on the way
    back, "answering no earlier tool call")."""
    fr = lambda ident: {  # noqa: E731
        "parts": [
            {
                "functionResponse": {
                    "id": ident,
                    "name": "f",
                    "response": {"output": "o"},
                }
            }
        ]
    }
    req = _g_req({"model": "m", "contents": [fr("a"), fr("b")]})
    assert req.provider == "gemini"
    own = "gemini"
    assert req.messages == [
        Message(
            role="tool", content="o", tool_call_id="a", extra=Extra(name="f", from_provider=own)
        ),
        Message(
            role="tool",
            content="o",
            tool_call_id="b",
            extra=Extra(name="f", from_provider=own, new_turn=True),
        ),
    ]
    assert _g_enc(req) == {
        "model": "m",
        "contents": [fr("a") | {"role": "user"}, fr("b") | {"role": "user"}],
    }


def test_gemini_a_bare_declaration_is_a_tool() -> None:
    """A function declaration with a name alone (no description, no parameters) is a Tool."""
    req = _g_req({"tools": [{"functionDeclarations": [{"name": "f"}]}]})
    assert req.tools == [B.Tool(name="f")] and req.options == {}


def test_gemini_names_fitted_to_64() -> None:
    """A forced tool's name and a declared tool's name over 64 characters are cut with a
    hash, alike."""
    long = "x" * 70
    fitted = "x" * 55 + "_" + _digest(long)
    p = B.Unsupported()
    out = G.write_settings(
        {"tools": [B.Tool(name=long)], "tool_choice": B.ToolChoice(mode="tool", name=long)}, p
    )
    assert out == {
        "tools": [{"functionDeclarations": [{"name": fitted}]}],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [fitted]}},
    }


def test_gemini_contents_without_parts_and_runs_around_responses() -> None:
    """Contents without parts are empty messages; text with keys before a function response
    is its own tagged message; text after it starts a new run; a response's own id wins over
    the call it answers by name."""
    req = _g_req(
        {
            "contents": [
                {"role": "user"},
                {"role": "model"},
                {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "f", "id": "x", "args": {}}}],
                },
                {
                    "role": "user",
                    "parts": [
                        {"text": "a", "k": 1},
                        {"functionResponse": {"id": "y", "name": "f", "response": {"output": "o"}}},
                        {"text": "b"},
                    ],
                },
            ]
        }
    )
    own = "gemini"
    assert req.messages == [
        Message(role="user", content=[]),
        Message(role="assistant", content=[]),
        Message(role="assistant", content=[ToolUseBlock(id="x", name="f", input={})]),
        Message(
            role="user", content=[TextBlock("a", extra=Extra(k=1))], extra=Extra(from_provider=own)
        ),
        Message(role="tool", content="o", tool_call_id="y"),
        Message(role="user", content="b"),
    ]


def test_gemini_media_parts_keep_their_part_keys() -> None:
    """Keys beside inlineData / fileData ride on the block; a URL with two ``?`` is guessed
    from what precedes the first; a call whose args are not an object is kept whole."""
    req = _g_req(
        {
            "contents": [
                {
                    "role": "model",
                    "parts": [
                        {"inlineData": {"mimeType": "image/png", "data": "aGk="}, "k": 1},
                        {"inlineData": {"mimeType": "application/pdf", "data": "aGk="}, "k": 2},
                        {
                            "fileData": {
                                "mimeType": "image/png",
                                "fileUri": "https://a/b.png?x=1?y",
                            },
                            "k": 3,
                        },
                        {
                            "fileData": {"mimeType": "application/pdf", "fileUri": "gs://b.pdf"},
                            "k": 4,
                        },
                        {"functionCall": {"name": "f", "args": 1}},
                    ],
                }
            ]
        }
    )
    assert req.messages[0].content == [
        ImageBlock(Base64Source("image/png", b"hi"), extra=Extra(k=1)),
        DocumentBlock(Base64Source("application/pdf", b"hi"), extra=Extra(k=2)),
        ImageBlock(UrlSource("https://a/b.png?x=1?y"), extra=Extra(k=3)),
        DocumentBlock(UrlSource("gs://b.pdf"), extra=Extra(k=4)),
        UnknownBlock(Extra(type="gemini_part", functionCall={"name": "f", "args": 1})),
    ]


def test_gemini_tool_message_after_a_plain_turn() -> None:
    """A tool message after a plain string turn opens its own user content."""
    out = _g_enc(
        [
            Message(role="user", content="q"),
            Message(
                role="tool",
                content="r",
                tool_call_id="c",
                extra=Extra(name="f", from_provider="gemini"),
            ),
        ]
    )
    assert out["contents"] == [
        {"role": "user", "parts": [{"text": "q"}]},
        {
            "role": "user",
            "parts": [{"functionResponse": {"id": "c", "name": "f", "response": {"output": "r"}}}],
        },
    ]


def test_gemini_encode_own_and_foreign_keys_and_names() -> None:
    """An own system message's keys and text keys are Gemini's (kept, nothing listed); a
    foreign turn's keys are listed at their path; a foreign call's name is fitted, an own one
    kept; a tool message left out under drop does not stop the turns after it."""
    own = Extra(from_provider="gemini", k=1)
    dropped: list[B.Dropped] = []
    out = _g_enc(
        [
            Message(role="system", content=[TextBlock("s", extra=Extra(k=2))], extra=own),
            Message(role="user", content=[TextBlock("u")], extra=Extra(z=3)),
            Message(role="assistant", content=[ToolUseBlock(id="c", name="a b", input={})]),
            Message(
                role="assistant",
                content=[ToolUseBlock(id="d", name="a b", input={})],
                extra=Extra(from_provider="gemini"),
            ),
            Message(role="tool", content="x"),
            Message(role="user", content="last"),
        ],
        unsupported="drop",
        dropped=dropped,
    )
    assert out == {
        "systemInstruction": {"parts": [{"text": "s", "k": 2}]},
        "contents": [
            {"role": "user", "parts": [{"text": "u"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "a_b", "args": {}, "id": "c"}}]},
            {"role": "model", "parts": [{"functionCall": {"name": "a b", "args": {}, "id": "d"}}]},
            {"role": "user", "parts": [{"text": "last"}]},
        ],
    }
    assert dropped == [
        B.Dropped("$.messages[1].z", "the message key 'z'", "metadata"),
        B.Dropped("$.messages[4]", "a tool message without tool_call_id"),
    ]


def test_gemini_encode_parts_own_keys_names_and_sources() -> None:
    """Own thinking, call and media keep their keys and names; a foreign call's name is
    fitted to Gemini's pattern and length; a foreign media key is listed at its path, a
    content key on a source refused; a system block refused under drop leaves the rest; an
    object-marked result that is not JSON is written as output."""
    own = Extra(from_provider="gemini")
    long = "y" * 70
    out = _g_enc(
        [
            Message(
                role="assistant",
                content=[
                    ThinkingBlock("t", extra=Extra(k=1)),
                    ToolUseBlock(id="c", name="a b", input={}, extra=Extra(k=2)),
                    ImageBlock(UrlSource("https://a/b.png"), extra=Extra(k=3)),
                ],
                extra=own,
            ),
            Message(
                role="assistant",
                content=[
                    ToolUseBlock(id="d", name="1abc", input={}),
                    ToolUseBlock(id="e", name=long, input={}),
                    ToolUseBlock(id="f", name=long, input={}, extra=Extra(thought=True)),
                ],
            ),
            Message(
                role="tool",
                content="not json",
                tool_call_id="d",
                extra=Extra(gemini_response="object", from_provider="gemini"),
            ),
        ]
    )
    fitted = "y" * 55 + "_" + _digest(long)
    assert out["contents"] == [
        {
            "role": "model",
            "parts": [
                {"text": "t", "thought": True, "k": 1},
                {"functionCall": {"name": "a b", "args": {}, "id": "c"}, "k": 2},
                {"fileData": {"mimeType": "image/png", "fileUri": "https://a/b.png"}, "k": 3},
            ],
        },
        {
            "role": "model",
            "parts": [
                {"functionCall": {"name": "_1abc", "args": {}, "id": "d"}},
                {"functionCall": {"name": fitted, "args": {}, "id": "e"}},
                {"functionCall": {"name": fitted, "args": {}, "id": "f"}, "thought": True},
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "d",
                        "name": "_1abc",
                        "response": {"output": "not json"},
                    }
                }
            ],
        },
    ]
    dropped: list[B.Dropped] = []
    from minagent.wire import FileSource

    out = _g_enc(
        [
            Message(role="system", content=[ThinkingBlock("t"), TextBlock("b")]),
            Message(
                role="user",
                content=[
                    DocumentBlock(
                        UrlSource("https://a/b.pdf", extra=Extra(citations=[1])), extra=Extra(zz=1)
                    ),
                    DocumentBlock(FileSource("f1")),
                ],
            ),
        ],
        unsupported="drop",
        dropped=dropped,
    )
    assert out == {
        "systemInstruction": {"parts": [{"text": "b"}]},
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"fileData": {"mimeType": "application/pdf", "fileUri": "https://a/b.pdf"}}
                ],
            }
        ],
    }
    assert dropped == [
        B.Dropped("$.messages[0].content[0]", "a thinking block in the system instruction"),
        B.Dropped("$.messages[1].content[0].zz", "the key 'zz' on a document block", "metadata"),
        B.Dropped("$.messages[1].content[0].source.citations", "the key 'citations' on a source"),
        B.Dropped("$.messages[1].content[1].source", "a 'file' source"),
    ]


def test_gemini_tool_result_keys_written() -> None:
    """A foreign tool result's keys: hints skipped, part keys kept, the rest listed (content
    refused) at their path; the function name from the call."""
    dropped: list[B.Dropped] = []
    out = _g_enc(
        [
            Message(role="assistant", content=[ToolUseBlock(id="c", name="f", input={})]),
            Message(
                role="tool",
                content="r",
                tool_call_id="c",
                extra=Extra(
                    new_turn=True,
                    thoughtSignature="s",
                    functionResponse={"x": 1},
                    citations=[1],
                    odd=2,
                ),
            ),
        ],
        unsupported="drop",
        dropped=dropped,
    )
    assert out["contents"][1] == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {"id": "c", "name": "f", "response": {"output": "r"}},
                "thoughtSignature": "s",
            }
        ],
    }
    assert dropped == [
        B.Dropped(
            "$.messages[1].functionResponse",
            "the key 'functionResponse' on a tool result",
            "metadata",
        ),
        B.Dropped("$.messages[1].citations", "the key 'citations' on a tool result"),
        B.Dropped("$.messages[1].odd", "the key 'odd' on a tool result", "metadata"),
    ]


def test_gemini_response_candidates_kept_exactly() -> None:
    """An own response's empty candidate list gets the default candidate; a candidate's
    content keys come back beside its parts."""
    empty = G.decode_response(b'{"candidates": []}')
    assert json.loads(G.encode_response(empty)) == {
        "candidates": [{"content": {"role": "model"}, "index": 0}]
    }
    body = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "a"}], "x": 1}, "finishReason": "STOP"}
        ]
    }
    resp = G.decode_response(json.dumps(body).encode())
    assert json.loads(G.encode_response(resp)) == body


def test_gemini_changed_stop_reason_on_an_own_candidate() -> None:
    """An own candidate whose stop reason changed to one Gemini lacks is written OTHER, listed."""
    resp = G.decode_response(
        b'{"candidates": [{"content": {"role": "model", "parts": [{"text": "a"}]},'
        b' "finishReason": "STOP"}]}'
    )
    dropped: list[B.Dropped] = []
    out = json.loads(
        G.encode_response(msgspec.structs.replace(resp, stop_reason="weird"), dropped=dropped)
    )
    assert out["candidates"][0]["finishReason"] == "OTHER"
    assert dropped == [
        B.Dropped("$.stop_reason", "the stop reason 'weird' (written as 'OTHER')", "metadata")
    ]


def test_gemini_new_turn_flags_on_tool_contents() -> None:
    """Two contents of function responses: only the second starts a new turn; the request
    names its provider."""
    fr = {"functionResponse": {"id": "a", "name": "f", "response": {"output": "o"}}}
    req = _g_req({"contents": [{"parts": [fr]}, {"parts": [fr]}]})
    assert req.provider == "gemini"
    flags = [m.extra.get("new_turn") if m.extra is not UNSET else None for m in req.messages]
    assert flags == [None, True]
    assert [m.role for m in req.messages] == ["tool", "tool"]


def test_gemini_a_tool_message_first_opens_a_content() -> None:
    """A tool message before any other turn opens the first user content."""
    out = _g_enc(
        [
            Message(
                role="tool",
                content="r",
                tool_call_id="c",
                extra=Extra(name="f", from_provider="gemini"),
            )
        ]
    )
    assert out == {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"id": "c", "name": "f", "response": {"output": "r"}}}
                ],
            }
        ]
    }


def test_gemini_a_file_source_is_refused_alone() -> None:
    """A file source is refused as a whole; its keys are not listed one by one first."""
    from minagent.wire import FileSource

    dropped: list[B.Dropped] = []
    _g_enc(
        [Message(role="user", content=[DocumentBlock(FileSource("f", extra=Extra(k=1)))])],
        unsupported="drop",
        dropped=dropped,
    )
    assert dropped == [
        B.Dropped("$.messages[0].content[0].source", "a 'file' source"),
        B.Dropped(
            "$.messages[0]", "a turn left without parts (Gemini refuses an empty one)", "metadata"
        ),
    ]


def test_responses_decode_errors_and_provider() -> None:
    """A body or input of the wrong type: the exact message and path; a request names its
    provider."""
    for data, message, path in (
        (b"[1]", "expected an object, got array", "$"),
        (b'{"input": 3}', "expected an array, got number", "$.input"),
        (b'{"input": [3]}', "expected an object, got number", "$.input[0]"),
    ):
        with pytest.raises(ValidationError) as err:
            RA.decode_request(data)
        assert (err.value.message, err.value.path) == (message, path)
    for data, message, path in (
        (b"[1]", "expected an object, got array", "$"),
        (b'{"output": 3}', "expected an array, got number", "$.output"),
        (b'{"output": [3]}', "expected an object, got number", "$.output[0]"),
    ):
        with pytest.raises(ValidationError) as err:
            RA.decode_response(data)
        assert (err.value.message, err.value.path) == (message, path)
    assert _r_req({"input": []}).provider == "openai_responses"


def test_responses_settings_spelled_alike_and_names_fitted() -> None:
    """The six settings Responses spells like the neutral ones, written as they are; a tool
    name over 64 characters cut with a hash."""
    fields = {
        "model": "m",
        "temperature": 1,
        "top_p": 0.5,
        "user": "u",
        "metadata": {"a": 1},
        "stream": True,
    }
    assert RA.write_settings(dict(fields), B.Unsupported()) == fields
    long = "z" * 70
    out = RA.write_settings({"tools": [B.Tool(name=long)]}, B.Unsupported())
    assert out["tools"][0]["name"] == "z" * 55 + "_" + _digest(long)


def test_responses_single_assistant_items() -> None:
    """A lone easy assistant message keeps its item keys, tagged; an assistant-side item of
    another type with string content is no easy message: it is kept whole."""
    req = _r_req({"input": [{"role": "assistant", "content": "a", "id": "m"}]})
    assert req.messages == [
        Message(
            role="assistant", content="a", extra=Extra(id="m", from_provider="openai_responses")
        )
    ]
    odd = _r_req({"input": [{"type": "web_search_call", "id": "w", "content": "x"}]})
    assert odd.messages == [
        Message(
            role="assistant",
            content=[UnknownBlock(Extra(type="web_search_call", id="w", content="x"))],
            extra=Extra(from_provider="openai_responses"),
        )
    ]


def test_responses_input_items_errors_and_tags() -> None:
    """Content and output of the wrong type and bad call ids, by path; a system item is a
    system message; parts with keys tag their message."""
    for item, message, path in (
        ({"role": "user", "content": 3}, "expected an array, got number", "$.input[0]"),
        (
            {"type": "function_call_output", "call_id": 1, "output": "x"},
            "expected a string, got number",
            "$.input[0].call_id",
        ),
        (
            {"type": "function_call_output", "call_id": "c", "output": [{"type": 3}]},
            "a content part needs a string 'type'",
            "$.input[0].output[0].type",
        ),
        (
            {"type": "function_call_output", "call_id": "c", "output": 3},
            "expected an array, got number",
            "$.input[0].output",
        ),
    ):
        with pytest.raises(ValidationError) as err:
            _r_req({"input": [item]})
        assert (err.value.message, err.value.path) == (message, path)
    req = _r_req(
        {
            "input": [
                {"role": "system", "content": "s"},
                {"role": "user", "content": [{"type": "input_text", "text": "t", "x": 1}]},
            ]
        }
    )
    assert req.messages == [
        Message(role="system", content="s"),
        Message(
            role="user",
            content=[TextBlock("t", extra=Extra(x=1))],
            extra=Extra(from_provider="openai_responses"),
        ),
    ]


def test_responses_parts_exactly() -> None:
    """Part shapes: a non-object part, an image URL that is not a string, a file URL with
    keys, a part spelled like a known block with wrong fields, a refusal first in its item,
    an output part with keys."""
    with pytest.raises(ValidationError) as err:
        _r_req({"input": [{"role": "user", "content": [3]}]})
    assert (err.value.message, err.value.path) == (
        "expected an object, got number",
        "$.input[0].content[0]",
    )
    with pytest.raises(ValidationError) as err:
        _r_req({"input": [{"role": "user", "content": [{"type": "text", "text": 1}]}]})
    assert err.value.path == "$.input[0].content[0]"
    assert err.value.message.startswith("not a valid 'text' object: ")
    req = _r_req(
        {
            "input": [
                {
                    "role": "user",
                    "content": [
                        {"type": "input_image", "image_url": 3},
                        {"type": "input_file", "file_url": "u", "filename": "f"},
                    ],
                },
                {
                    "type": "message",
                    "role": "assistant",
                    "id": "m",
                    "content": [{"type": "refusal", "refusal": "no"}],
                },
                {
                    "type": "function_call_output",
                    "call_id": "c",
                    "output": [{"type": "input_text", "text": "p", "x": 1}],
                },
            ]
        }
    )
    assert req.messages[0].content == [
        UnknownBlock(Extra(type="input_image", image_url=3)),
        DocumentBlock(UrlSource("u"), extra=Extra(filename="f")),
    ]
    assert req.messages[1].content == [
        UnknownBlock(
            Extra(type="refusal", refusal="no", openai_item={"type": "message", "id": "m"})
        )
    ]
    assert req.messages[2] == Message(
        role="tool",
        content=[TextBlock("p", extra=Extra(x=1))],
        tool_call_id="c",
        extra=Extra(from_provider="openai_responses"),
    )


def test_responses_assistant_item_errors() -> None:
    """A function call with a bad name or arguments, and an item spelled like a known block
    with wrong fields, refused at their paths."""
    for item, message, path in (
        (
            {"type": "function_call", "call_id": "c", "name": 1, "arguments": "{}"},
            "expected a string, got number",
            "$.input[0].name",
        ),
        (
            {"type": "function_call", "call_id": "c", "name": "f", "arguments": 1},
            "expected a string, got number",
            "$.input[0].arguments",
        ),
        (
            {"type": "function_call", "call_id": 1, "name": "f", "arguments": "{}"},
            "expected a string, got number",
            "$.input[0].call_id",
        ),
    ):
        with pytest.raises(ValidationError) as err:
            _r_req({"input": [item]})
        assert (err.value.message, err.value.path) == (message, path)
    with pytest.raises(ValidationError) as err:
        _r_req({"input": [{"type": "text", "text": 1}]})
    assert err.value.path == "$.input[0]"
    assert err.value.message.startswith("not a valid 'text' object: ")


def test_responses_invalid_json_at_the_root() -> None:
    """Invalid JSON in a request or a response body is a DecodeError at ``$``."""
    for decode in (RA.decode_request, RA.decode_response):
        with pytest.raises(DecodeError) as err:
            decode(b"{")
        assert (err.value.message, err.value.path) == (
            "invalid JSON: Input data was truncated",
            "$",
        )


def test_responses_response_message_is_the_assistants() -> None:
    """The decoded response's message has the assistant role."""
    resp = RA.decode_response(b'{"output": []}')
    assert resp.message == Message(role="assistant", content=[])
