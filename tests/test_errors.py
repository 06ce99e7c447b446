"""The one way errors move: `WireError.located` / `under` keep class, fields and cause."""

from __future__ import annotations

import errno

import pytest

from minagent import wire
from minagent.wire.stream import FrameTooLargeError, StreamIOError, TornTail, TornTailError


def test_str_names_line_frame_and_path_in_that_order() -> None:
    """The message says where: line, then frame, then path; nothing added when none is known."""
    assert str(wire.DecodeError("bad")) == "bad"
    assert str(wire.DecodeError("bad", path="$[1]")) == "bad (at $[1])"
    err = wire.ValidationError("bad", path="$.a", line=3, frame=2)
    assert str(err) == "bad (line 3, frame 2, at $.a)"
    assert (err.message, err.path, err.line, err.frame) == ("bad", "$.a", 3, 2)


def test_located_keeps_class_fields_and_cause() -> None:
    """located() names a frame or line and keeps the subclass, its fields and the cause."""
    cause = OSError(errno.EPIPE, "Broken pipe")
    err = StreamIOError.wrap("cannot send frames", cause, 10)
    moved = err.located(frame=4)
    assert type(moved) is StreamIOError and moved is not err
    assert (moved.errno, moved.strerror, moved.offset, moved.frame) == (
        errno.EPIPE,
        "Broken pipe",
        10,
        4,
    )
    assert moved.__cause__ is cause
    assert str(moved) == "cannot send frames at byte offset 10: Broken pipe (frame 4)"
    big = FrameTooLargeError("too big", frame=1, size=9, limit=8, offset=0).located(line=2)
    assert (big.frame, big.line, big.size, big.limit, big.offset) == (1, 2, 9, 8, 0)
    tail = TornTail(offset=5, data=b"{", line=2, reason="no trailing newline", size=1)
    torn = TornTailError.of(tail, "cut", messages=[]).located(frame=0)
    assert (torn.tail, torn.offset, torn.messages, torn.line, torn.frame) == (tail, 5, [], 2, 0)


def test_under_moves_the_path_below_a_base() -> None:
    """under() puts ``$.x`` below ``$[3]`` as ``$[3].x``; an error without a path lands at the
    base; line and frame stay."""
    err = wire.ValidationError("bad", path="$.content[0]", line=7)
    moved = err.under("$[3]")
    assert (type(moved), moved.path, moved.line, moved.message) == (
        wire.ValidationError,
        "$[3].content[0]",
        7,
        "bad",
    )
    assert wire.DecodeError("bad").under("$[0]").path == "$[0]"
    assert wire.DecodeError("bad", path="$").under("$.messages").path == "$.messages"


def test_unknown_field_is_refused() -> None:
    """A keyword the class does not declare is a TypeError, not silently dropped."""
    with pytest.raises(TypeError, match="DecodeError has no field 'size'"):
        wire.DecodeError("bad", size=3)


@pytest.mark.parametrize("fmt", [wire.json, wire.msgpack])
def test_a_bad_value_inside_a_dict_field_is_named_by_its_key(fmt: object) -> None:
    """msgspec says ``$.usage[...]`` for a bad value in a dict; our path names the key, also
    when an earlier key is fine and in a list decode, for both formats (found by the fuzz
    properties' path check)."""
    import msgspec

    encode = msgspec.json.encode if fmt is wire.json else msgspec.msgpack.encode
    response = {
        "message": {"role": "assistant", "content": "x"},
        "stop_reason": "end_turn",
        "usage": {"output_tokens": 3, "cache read": 1, "input_tokens": [[12]]},
    }
    with pytest.raises(wire.ValidationError) as info:
        fmt.decode(encode(response), type=wire.ModelResponse)  # type: ignore[attr-defined]
    assert (info.value.message, info.value.path) == (
        "Expected `int`, got `array`",
        "$.usage.input_tokens",
    )
    with pytest.raises(wire.ValidationError) as info:
        fmt.decode(encode([response, response]), type=list[wire.ModelResponse])  # type: ignore[attr-defined]
    assert info.value.path == "$[0].usage.input_tokens"


def test_relocate_keeps_what_it_cannot_name() -> None:
    """Without the value, or when no single entry fails at that place, ``[...]`` stays."""
    import msgspec

    from minagent.wire._paths import relocate

    try:
        msgspec.convert({"a": {"k": "x"}}, dict[str, dict[str, int]])
    except msgspec.ValidationError as err:
        assert relocate(err, "$[2]").path == "$[2][...][...]"
        named = relocate(
            err, "$", {"a": {"k": "x"}}, lambda v: msgspec.convert(v, dict[str, dict[str, int]])
        )
        assert named.path == "$.a.k"
        always = relocate(err, "$", {"a": {"k": "x"}}, lambda v: None)
        assert always.path == "$[...][...]"


def test_relocate_names_keys_through_lists_and_keeps_what_it_cannot_walk() -> None:
    """Keys are named below list indices and other keys (``$.a[1].k``, the good entries before
    them skipped); a path that leaves the value, or a step it cannot parse, is kept from there
    on as msgspec wrote it."""
    import msgspec

    from minagent.wire._paths import relocate

    tp = dict[str, list[dict[str, int]]]
    value = {"ok": [{"z": 1}], "a": [{"j": 2}, {"i": 3, "k": "x"}]}
    try:
        msgspec.convert(value, tp)
    except msgspec.ValidationError as err:
        assert relocate(err, "$[4]", value, lambda v: msgspec.convert(v, tp)).path == (
            "$[4].a[1].k"
        )
        gone = relocate(err, "$", {"a": [{"k": "x"}]}, lambda v: msgspec.convert(v, tp))
        assert gone.path == "$.a[1][...]"  # no element 1 to walk into
        none = relocate(err, "$", {"a": []}, lambda v: msgspec.convert(v, tp))
        assert none.path == "$[...][1][...]"  # no entry fails alone: kept as written
    else:
        raise AssertionError("msgspec accepted a str for an int")
    odd = msgspec.ValidationError("Expected `int` - at `$[...]{odd}`")
    named = relocate(odd, "$", {"a": "x"}, lambda v: msgspec.convert(v, dict[str, int]))
    assert named.path == "$.a{odd}"


_MSG = '{"role":"user","content":"\ud800"}'
_SURROGATE_CASES = [
    (lambda d: wire.json.decode(d), f"[{_MSG}]", "$", None),
    (lambda d: wire.json.decode(d, type=wire.Message), _MSG, "$", None),
    (lambda d: wire.json.decode(d, type=wire.ModelResponse), f'{{"message":{_MSG}}}', "$", None),
    (lambda d: wire.json.decode_lines(d), _MSG + "\n", "$", 1),
    (lambda d: next(iter(wire.json.decode_lazy(d))).content, f"[{_MSG}]", "$[0]", None),
]


@pytest.mark.parametrize(
    ("decode", "text", "path", "line"),
    _SURROGATE_CASES,
    ids=["list", "message", "response", "lines", "lazy"],
)
def test_str_input_with_a_lone_surrogate_is_our_decode_error(
    decode: object, text: str, path: str, line: int | None
) -> None:
    """A ``str`` input holding a lone surrogate (no UTF-8 form) raises our DecodeError with
    msgspec's invalid-UTF-8 text and a path, on every decode entry point (it let the standard
    library's UnicodeEncodeError out of ``decode``)."""
    with pytest.raises(wire.DecodeError) as info:
        decode(text)  # type: ignore[operator]
    assert (info.value.message, info.value.path, info.value.line) == (
        "invalid JSON: Invalid UTF-8 encoded string",
        path,
        line,
    )


def test_str_input_cut_after_a_lone_surrogate_escape_says_which() -> None:
    """A ``str`` input cut short after a ``\\ud800`` escape gets the lone-surrogate hint, as the
    same bytes do."""
    text = '[{"role":"user","content":"\\ud800'
    for data in (text, text.encode()):
        with pytest.raises(wire.DecodeError) as info:
            wire.json.decode(data)
        assert info.value.message == (
            "invalid JSON: a \\u escape is a lone surrogate (not valid Unicode), or the input is "
            "truncated"
        )
