"""Decoder limits (`minagent.wire.Limits`): size, nesting depth, huge length headers."""

from __future__ import annotations

import dataclasses
import struct
import sys
import tracemalloc
from typing import Any

import msgspec
import pytest

from minagent import wire
from minagent.wire import Limits, Message, ModelResponse, _codec, _depth, _mpreader
from minagent.wire.limits import DEFAULT

from . import interpreter

TYPES = [Message, list[Message], ModelResponse, list[ModelResponse]]
FORMATS = [wire.json, wire.msgpack]


def tool_message(value: Any) -> dict[str, Any]:
    """A message dict whose tool input is ``{"v": value}`` (the input sits at depth 4)."""
    block = {"type": "tool_use", "id": "t", "name": "f", "input": {"v": value}}
    return {"role": "assistant", "content": [block]}


def nested(depth: int) -> Any:
    """``depth`` nested arrays: ``[[...]]``."""
    value: list[Any] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_defaults_are_documented_figures() -> None:
    """The defaults: 64 MiB input, depth 1000, 16 MiB frames, 64 MiB lines; `Limits` in wire."""
    assert DEFAULT == Limits() == Limits(64 << 20, 1000, 16 << 20, 64 << 20)
    assert wire.__all__.count("Limits") == 1
    assert dataclasses.replace(DEFAULT, max_depth=8).max_size == DEFAULT.max_size


@pytest.mark.parametrize("bad", [0, -1, 1.5, "9", True])
def test_limits_refuse_non_positive_or_non_int(bad: Any) -> None:
    """Every figure must be a positive int."""
    for field in ("max_size", "max_depth", "max_frame", "max_line", "max_event"):
        with pytest.raises(ValueError, match=field):
            Limits(**{field: bad})


@pytest.mark.parametrize("fmt", FORMATS)
def test_input_over_max_size_is_refused_before_parsing(fmt: Any) -> None:
    """One byte over max_size is a DecodeError at $; exactly max_size is decoded."""
    data = fmt.encode([Message(role="user", content="hello")])
    assert fmt.decode(data, limits=Limits(max_size=len(data))) == fmt.decode(data)
    with pytest.raises(wire.DecodeError, match="max_size") as info:
        fmt.decode(data, limits=Limits(max_size=len(data) - 1))
    assert info.value.path == "$"
    with pytest.raises(wire.DecodeError, match="max_size"):  # even garbage is not parsed
        fmt.decode(b"\xc1" * 11, limits=Limits(max_size=10))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("extra", [{}, {"cache_control": {"type": "ephemeral"}}])
def test_max_depth_is_exact_on_fast_and_lossless_paths(fmt: Any, extra: dict[str, Any]) -> None:
    """A tool input nested to exactly max_depth decodes; one level more is a DecodeError."""
    limit = 12
    for value_depth, ok in ((limit - 4, True), (limit - 3, False)):  # the input is at depth 4
        message = {**tool_message(nested(value_depth)), **extra}
        data = msgspec.json.encode(message) if fmt is wire.json else msgspec.msgpack.encode(message)
        if ok:
            assert fmt.decode(data, type=Message, limits=Limits(max_depth=limit))
        else:
            with pytest.raises(wire.DecodeError, match="max_depth=12") as info:
                fmt.decode(data, type=Message, limits=Limits(max_depth=limit))
            assert info.value.path == "$.content[0].input.v" + "[0]" * 8


_ODD = {"role": "user", "content": "hi", "x_unknown": 1}  # sends a list down the lossless path


@pytest.mark.parametrize("leaf", [b"\xd6\xff\x00\x00\x00\x01", b"\x07"], ids=["timestamp", "int"])
@pytest.mark.parametrize("in_list", [False, True], ids=["message", "list-element"])
@pytest.mark.parametrize("limit", [12, DEFAULT.max_depth], ids=["small", "default"])
def test_max_depth_is_exact_on_the_msgpack_timestamp_path(
    leaf: bytes, in_list: bool, limit: int
) -> None:
    """The timestamp reader enforces max_depth itself, counting as msgspec's path does: a tool
    input at exactly the limit decodes, one level more is refused with the codec's text, the
    user's max_depth and the exact container (as for a plain leaf), also for an element of a
    list the lossless path reads one by one (it said ``max_depth=12`` for a limit of 13, at
    ``$[1]``), and with the default limits, where no walk over the result follows."""
    message = tool_message({"k": None})  # None: the last byte, replaced by the nested arrays
    prefix = msgspec.msgpack.encode([_ODD, message] if in_list else message)[:-1]
    tp = list[Message] if in_list else Message
    fits = limit - 5 - in_list  # arrays below {"k": ...}, which sits at depth 5 in a message
    for levels in (fits, fits + 1):
        data = prefix + b"\x91" * levels + leaf
        if levels == fits:
            decoded = wire.msgpack.decode(data, type=tp, limits=Limits(max_depth=limit))
            value = (decoded[1] if in_list else decoded).content[0].input["v"]["k"]
            assert _depth.nesting(value) == levels
            continue
        with pytest.raises(wire.DecodeError) as info:
            wire.msgpack.decode(data, type=tp, limits=Limits(max_depth=limit))
        assert (info.value.message, info.value.path) == (
            f"invalid MessagePack: nesting deeper than max_depth={limit} "
            "or the interpreter's recursion limit",
            ("$[1]" if in_list else "$") + ".content[0].input.v.k" + "[0]" * (levels - 1),
        )


@pytest.mark.parametrize("tp", TYPES)
@pytest.mark.parametrize("depth", [2_000, 100_000])
def test_deep_nesting_is_a_decode_error_never_recursion_error(tp: Any, depth: int) -> None:
    """Nesting beyond any limit, bare or in a tool input, is a DecodeError in both formats."""
    json_docs = [b"[" * depth + b"]" * depth, b'{"a":' * depth + b"1" + b"}" * depth]
    mp_docs = [b"\x91" * depth + b"\x90", b"\x81\xa1a" * depth + b"\x01"]
    prefix = msgspec.json.encode(tool_message(None))[: -len(b"null}}]}")]
    json_docs.append(prefix + json_docs[0] + b"}}]}")
    stamp = b"\xd6\xff\x00\x00\x00\x01"  # a timestamp sends MessagePack through our own reader
    mp_docs.append(msgspec.msgpack.encode(tool_message(None))[:-1] + b"\x91" * depth + stamp)
    for fmt, docs in ((wire.json, json_docs), (wire.msgpack, mp_docs)):
        for doc in docs:
            with pytest.raises(wire.WireError) as info:
                fmt.decode(doc, type=tp)
            assert isinstance(info.value, (wire.DecodeError, wire.ValidationError))
            if isinstance(info.value, wire.DecodeError):
                assert "max_depth" in info.value.message or "truncated" in info.value.message


@pytest.mark.parametrize(
    "header",
    [
        "dd-ff-ff-ff-ff",  # array32
        "df-ff-ff-ff-ff",  # map32
        "db-ff-ff-ff-ff",  # str32
        "c6-ff-ff-ff-ff",  # bin32
        "c9-ff-ff-ff-ff-01",  # ext32
        "c9-ff-ff-ff-ff-ff",  # ext32 of type -1 (a timestamp header: our own reader)
        "dc-ff-ff",  # array16
    ],
)
@pytest.mark.parametrize("tp", TYPES)
def test_huge_msgpack_headers_are_refused_without_allocating(header: str, tp: Any) -> None:
    """A header claiming 4 GiB in a short buffer is a WireError; peak memory stays tiny."""
    head = bytes.fromhex(header.replace("-", ""))
    docs = [head + b"\xc0" * 8, msgspec.msgpack.encode(tool_message(None))[:-1] + head]
    for doc in docs:
        tracemalloc.start()
        try:
            with pytest.raises(wire.WireError):
                wire.msgpack.decode(doc, type=tp)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 1 << 20, f"{peak} bytes allocated for a {len(doc)}-byte input"


# --- issue 12 item 10: the CPython 3.12+ depth path, forced on this interpreter -------------------

INPUT_AT = {Message: 4, list[Message]: 5, ModelResponse: 5, list[ModelResponse]: 6}
PREFIX = {
    Message: "$.content[0].input.v",
    list[Message]: "$[0].content[0].input.v",
    ModelResponse: "$.message.content[0].input.v",
    list[ModelResponse]: "$[0].message.content[0].input.v",
}


@pytest.fixture(params=[False, True], ids=["guard", "3.12-path"])
def py312(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Run the test on this interpreter's path, and again with the 3.12+ depth path forced."""
    if request.param:
        monkeypatch.setattr(_codec, "_GUARD_BEFORE_3_12", False)
    return bool(request.param)


def _shaped(tp: Any, value: Any) -> Any:
    message = tool_message(value)
    if tp in (ModelResponse, list[ModelResponse]):
        message = {"message": message, "stop_reason": "end_turn", "usage": {}}
    return [message] if tp in (list[Message], list[ModelResponse]) else message


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("tp", TYPES)
@pytest.mark.parametrize("limit", [5, 13, 14, 200])
def test_max_depth_is_exact_on_either_depth_path(
    py312: bool, fmt: Any, tp: Any, limit: int
) -> None:
    """Tool input values nesting to exactly max_depth decode; one level more is refused at the
    exact path: below, at and above the depth the typed shape bounds, on both depth paths."""
    ok_arrays = limit - INPUT_AT[tp]
    enc = msgspec.json.encode if fmt is wire.json else msgspec.msgpack.encode
    if ok_arrays >= 1:
        data = enc(_shaped(tp, nested(ok_arrays)))
        assert fmt.encode(fmt.decode(data, type=tp, limits=Limits(max_depth=limit))) == data
    data = enc(_shaped(tp, nested(max(ok_arrays, 0) + 1)))
    with pytest.raises(wire.DecodeError, match=f"max_depth={limit}") as info:
        fmt.decode(data, type=tp, limits=Limits(max_depth=limit))
    expected = PREFIX[tp] + "[0]" * ok_arrays if ok_arrays >= 0 else None
    if expected is not None:
        assert info.value.path == expected


def test_lines_keep_max_depth_on_the_3_12_path(py312: bool) -> None:
    """decode_lines and LineDecoder enforce max_depth per line, naming line and path."""
    from minagent.wire.stream import LineDecoder

    good = msgspec.json.encode(tool_message(nested(16)))  # depth 20
    bad = msgspec.json.encode(tool_message(nested(17)))
    data = b"\n".join([good, good, bad, good]) + b"\n"
    limits = Limits(max_depth=20)
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode_lines(data, limits=limits)
    assert (info.value.line, info.value.path) == (3, "$.content[0].input.v" + "[0]" * 16)
    decoder = LineDecoder(limits=limits)
    assert len(decoder.feed(data)) == 2
    with pytest.raises(wire.DecodeError):
        decoder.finish()
    assert len(decoder.finish()) == 1


def _walk_calls(call: Any) -> int:
    """How many calls ``call()`` makes into the depth walk (`too_deep` and its helpers)."""
    count = 0
    walk = {"too_deep", "_children", "nesting"}

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event == "call" and frame.f_code.co_name in walk:
            count += 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return count


@pytest.mark.parametrize("family", ["tool-heavy", "text-heavy", "multilingual"])
def test_3_12_path_walks_nothing_with_default_limits(
    monkeypatch: pytest.MonkeyPatch, family: str
) -> None:
    """Forced 3.12+ path, default limits: no reader walks the decoded values (main walked
    every value of every decode there). Lossless-path input (unknown data) is still walked."""
    from minagent.bench import corpus
    from minagent.wire.stream import FrameDecoder, encode_frames

    monkeypatch.setattr(_codec, "_GUARD_BEFORE_3_12", False)
    messages = wire.json.decode(corpus.json_bytes(corpus.transcript(family, 300)))
    as_json, as_mp = wire.json.encode(messages), wire.msgpack.encode(messages)
    lines, frames = wire.json.encode_lines(messages), encode_frames(messages)
    calls = [
        _walk_calls(lambda: wire.json.decode(as_json)),
        _walk_calls(lambda: wire.msgpack.decode(as_mp)),
        _walk_calls(lambda: wire.json.decode_lines(lines)),
        _walk_calls(lambda: FrameDecoder().feed(frames)),
    ]
    assert calls == [0, 0, 0, 0]


def mixed(depth: int) -> Any:
    """``depth`` levels alternating arrays and objects, each with a scalar after the deeper
    value (``[{"a": [..., 0], "b": 1}, 2]``), so a walk meets scalars before the depths."""
    value: Any = "leaf"
    for level in range(depth):
        value = {"a": value, "b": level} if level % 2 else [value, level]
    return value


def _mixed_path(depth: int, levels: int) -> str:
    """The path of the container ``levels`` deep inside `mixed(depth)` (1: the outermost)."""
    return "".join(".a" if level % 2 else "[0]" for level in range(depth - 1, depth - levels, -1))


@pytest.mark.parametrize("fmt", FORMATS)
def test_deep_tool_inputs_stay_on_the_fast_path_measured_exactly(
    monkeypatch: pytest.MonkeyPatch, fmt: Any
) -> None:
    """A tool input nested far past the typed levels decodes on the fast path (msgspec keeps
    what the `Deep` hook returns: no lossless decode), round-trips byte for byte, and, on the
    forced 3.12+ path with max_depth exactly its depth, the hook's measure proves it within the
    limit (no exact walk); one level more is refused at the exact path."""
    slow: list[Any] = []
    walks: list[Any] = []
    original_slow, original_walk = _codec.Codec._decode_slow, _codec._depth.too_deep
    monkeypatch.setattr(
        _codec.Codec, "_decode_slow", lambda self, *a: slow.append(a) or original_slow(self, *a)
    )
    monkeypatch.setattr(_codec._depth, "too_deep", lambda *a: walks.append(a) or original_walk(*a))
    monkeypatch.setattr(_codec, "_GUARD_BEFORE_3_12", False)
    enc = msgspec.json.encode if fmt is wire.json else msgspec.msgpack.encode
    limit = 4 + 30  # the input object sits at depth 4
    data = enc(tool_message(mixed(30)))
    decoded = fmt.decode(data, type=Message, limits=Limits(max_depth=limit))
    assert decoded.content[0].input == {"v": mixed(30)}
    assert fmt.encode(decoded) == data
    assert (len(slow), len(walks)) == (0, 0)
    with pytest.raises(wire.DecodeError, match=f"max_depth={limit}") as info:
        fmt.decode(enc(tool_message(mixed(31))), type=Message, limits=Limits(max_depth=limit))
    assert info.value.path == "$.content[0].input.v" + _mixed_path(31, 31)
    assert (len(slow), len(walks)) == (0, 1)


# --- issue 12 item 8: decode bombs ----------------------------------------------------------------


def _collections(call: Any) -> list[int]:
    """The generations of the garbage collections that ran during ``call()``."""
    import gc

    seen: list[int] = []

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            seen.append(info["generation"])

    gc.callbacks.append(callback)
    try:
        call()
    finally:
        gc.callbacks.remove(callback)
    return seen


@pytest.mark.parametrize("fmt", FORMATS)
def test_dense_containers_decode_without_collector_passes(fmt: Any) -> None:
    """A million one-item arrays in a tool input decode with the collector paused (main ran some
    1,500 collections over the new lists); the collector is on again after."""
    import gc

    count = 1 << 20
    message = tool_message([[None]] * count)
    data = msgspec.json.encode(message) if fmt is wire.json else msgspec.msgpack.encode(message)
    result: list[Any] = []
    seen = _collections(lambda: result.append(fmt.decode(data, type=Message)))
    # at most the one collection due once the collector is back on; which generation it is depends
    # on what earlier tests left in the older generations (a full run has seen [2])
    assert len(seen) <= 1, seen
    assert len(result[0].content[0].input["v"]) == count
    assert gc.isenabled()
    gc.disable()
    try:
        fmt.decode(data, type=Message)
        assert not gc.isenabled()  # a collector the caller turned off stays off
    finally:
        gc.enable()


@pytest.mark.parametrize(
    ("item", "name"),
    [
        (b"\x80", "{}"),
        (b"\x90", "[]"),
        (b"\x81\xa0\x80", "{'': {}}"),
        (b"\x81\xa0\x81\xa0\xc0", "{'': {'': nil}}"),
    ],
)
def test_dense_msgpack_is_refused_before_decoding(item: bytes, name: str) -> None:
    """MessagePack packed with small maps or arrays (60-85x its size as Python objects) is a
    DecodeError at $ before it is decoded, in a tool input and in a frame (main decoded it)."""
    from minagent.wire.stream import FrameDecoder

    count = (3 << 20) // len(item) // 2
    payload = struct.pack(">BI", 0xDD, count) + item * count
    head = msgspec.msgpack.encode(tool_message(0))[:-1]
    data = head + payload
    with pytest.raises(wire.DecodeError, match="more than 60x their size in memory") as info:
        wire.msgpack.decode(data, type=Message)
    assert info.value.path == "$"
    frame = struct.pack(">I", len(data)) + data
    with pytest.raises(wire.DecodeError, match="60x") as info:
        FrameDecoder().feed(frame)
    assert info.value.frame == 0


@pytest.mark.parametrize("bad", [False, True], ids=["valid", "bad-third"])
def test_a_list_too_deep_to_split_is_read_whole_by_the_timestamp_reader(bad: bool) -> None:
    """A MessagePack list whose second message nests just under max_depth with a timestamp:
    splitting it into elements meets the recursion guard, so the exact reader reads it whole
    and each message is built from that; a bad third message is named at its path."""
    stamp = b"\xd6\xff\x00\x00\x00\x01"
    levels = DEFAULT.max_depth - 10
    deep = msgspec.msgpack.encode({"role": "user", "content": [{"type": "x", "v": None}]})
    third = {"role": 5 if bad else "user", "content": "x"}
    data = (
        b"\x93"
        + msgspec.msgpack.encode(_ODD)
        + deep[:-1]
        + b"\x91" * levels
        + stamp
        + msgspec.msgpack.encode(third)
    )
    if bad:
        with pytest.raises(wire.ValidationError) as info:
            wire.msgpack.decode(data)
        assert (info.value.message, info.value.path) == ("Expected `str`, got `int`", "$[2].role")
        return
    decoded = wire.msgpack.decode(data)
    assert [m.role for m in decoded] == ["user", "user", "user"]
    value = decoded[1].content[0].data["v"]
    assert _depth.nesting(value) == levels
    assert wire.msgpack.encode(decoded) == data


def _dense_input(items: bytes, size: int, per: int = 1) -> bytes:
    """A message whose tool input is one array of ``items`` (``per`` MessagePack items)
    repeated to about ``size`` bytes."""
    count = size // len(items)
    head = msgspec.msgpack.encode(tool_message(0))[:-1]
    return head + struct.pack(">BI", 0xDD, count * per) + items * count


def test_dense_input_passed_as_a_memoryview_of_any_format_is_refused() -> None:
    """The density check measures a memoryview in bytes and reads it as bytes: a dense input
    handed over as a view of 8-byte items is refused as the bytes are."""
    data = _dense_input(b"\x80", _mpreader.DENSE_FROM + (64 << 10))
    data += b"\xc0" * (-len(data) % 8)  # trailing bytes: refused before they matter
    for view in (memoryview(data), memoryview(data).cast("Q")):
        with pytest.raises(wire.DecodeError, match="more than 60x their size in memory"):
            wire.msgpack.decode(view, type=Message)


def test_dense_windows_alone_do_not_refuse_an_affordable_input() -> None:
    """An input whose windows look dense (every other byte an empty array) but whose objects
    take about 36x its size passes the density check and decodes."""
    data = _dense_input(b"\x90\x00", _mpreader.DENSE_FROM + (64 << 10), per=2)
    decoded = wire.msgpack.decode(data, type=Message)
    items = decoded.content[0].input["v"]
    assert len(items) == (_mpreader.DENSE_FROM + (64 << 10))
    assert items[:4] == [[], 0, [], 0]


def test_large_real_msgpack_passes_the_density_check() -> None:
    """A 1.7 MB real transcript (over the size the check starts at) decodes, under 64x."""
    from minagent.bench import corpus

    data = corpus.msgpack_bytes(corpus.transcript("tool-heavy", 15000))
    assert len(data) > _mpreader.DENSE_FROM
    tracemalloc.start()
    try:
        result = wire.msgpack.decode(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (len(result), peak < 64 * len(data)) == (15000, True)


def _deep_input(levels: int) -> bytes:
    return (
        b'[{"role":"user","content":[{"type":"tool_use","id":"t","name":"f","input":{"v":'
        + b"[" * levels
        + b"1"
        + b"]" * levels
        + b"}}]}]"
    )


def _too_deep_text(max_depth: int) -> str:
    return (
        f"invalid JSON: nesting deeper than max_depth={max_depth} "
        "or the interpreter's recursion limit"
    )


@pytest.mark.parametrize("levels", [2030, 2200])
def test_a_max_depth_past_the_recursion_limit_is_held_exactly(levels: int) -> None:
    """With ``max_depth`` above the interpreter's recursion limit, 1980 levels decode and more
    than 2000 are refused naming the first level past the limit: whether the decode with
    headroom (up to CPython 3.11, whose guard counts the caller's frames) finished (2030) or
    ran out too (2200), or the guard lies past these levels (3.13). Where the guard is a fixed
    count below them (3.12: about 1500, measured here), it refuses each at ``$``."""
    limits = wire.Limits(max_depth=2000)
    deepest = 2200 + 5  # containers: the input's array, message, content, block, tool input
    if interpreter.guard_counts_python_frames() or interpreter.msgspec_guard() > deepest + 50:
        assert len(wire.json.decode(_deep_input(1980), limits=limits)) == 1
        with pytest.raises(wire.DecodeError) as info:
            wire.json.decode(_deep_input(levels), limits=limits)
        assert (info.value.message, info.value.path) == (
            _too_deep_text(2000),
            "$[0].content[0].input.v" + "[0]" * 1995,
        )
        return
    assert interpreter.msgspec_guard() < 1980 - 50
    for nesting in (1980, levels):
        with pytest.raises(wire.DecodeError) as info:
            wire.json.decode(_deep_input(nesting), limits=limits)
        assert (info.value.message, info.value.path) == (_too_deep_text(2000), "$")


def test_the_forced_312_path_refuses_at_the_guard_naming_the_root(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On the CPython 3.12+ path (forced here), msgspec's own guard stopping the decode is
    refused at once with the limit's text, at ``$`` (no headroom retry): 20 levels past where
    this interpreter's guard stops a decode (measured), with a max_depth past them."""
    from minagent.wire import _codec

    monkeypatch.setattr(_codec, "_GUARD_BEFORE_3_12", False)
    levels = interpreter.msgspec_guard() + 20
    limit = levels + 100
    with pytest.raises(wire.DecodeError) as info:
        wire.json.decode(_deep_input(levels), limits=wire.Limits(max_depth=limit))
    assert (info.value.message, info.value.path) == (_too_deep_text(limit), "$")


_HOLDERS = {
    "unknown-block": (b'{"type":"x","v":', "$[1].content[0].v[0]"),
    "tool-input": (
        b'{"type":"tool_use","id":"a","name":"b","input":{"v":',
        "$[1].content[0].input.v[0]",
    ),
}


def _refused_at(holder: str, levels: int) -> str:
    """How ``[odd message, message whose block holds `levels` nested arrays]`` fares with the
    default limits: "ok", "walk" (refused past max_depth inside the element by the depth walk)
    or the path msgspec's recursion guard was reported at. The block is unknown (the element
    is read through the lossless builder) or a tool_use (read strictly, in a chunk)."""
    start, walked = _HOLDERS[holder]
    data = (
        b'[{"role":"user","content":"hi","x_unknown":1},{"role":"user","content":['
        + start
        + b"[" * levels
        + b"]" * levels
        + b"}" * start.count(b"{")
        + b"]}]"
    )
    try:
        wire.json.decode(data)
    except wire.DecodeError as err:
        assert err.message == (
            "invalid JSON: nesting deeper than max_depth=1000 or the interpreter's recursion limit"
        )
        assert err.path is not None
        return "walk" if err.path.startswith(walked) else err.path
    return "ok"


@pytest.mark.parametrize("holder", list(_HOLDERS))
def test_the_guard_met_in_one_element_names_that_element(py312: bool, holder: str) -> None:
    """Just below the nesting at which splitting the list into elements hits the recursion
    guard (refused at ``$``), decoding the element itself is what hits it where the guard
    counts the caller's frames (up to CPython 3.11; measured here): the element is read a few
    frames deeper, and refused at ``$[1]``. Where the guard is a fixed count past max_depth
    (3.12+), every refusal there names element 1: by the depth walk inside it, or at ``$[1]``.
    On either depth path, whether the element is read strictly in a chunk or through the
    lossless builder."""
    lo, hi = 500, 20_000  # a nesting refused at "$" just past one that is not, by bisection
    while lo < hi:
        mid = (lo + hi) // 2
        if _refused_at(holder, mid) == "$":
            hi = mid
        else:
            lo = mid + 1
    below = [_refused_at(holder, levels) for levels in range(lo - 12, lo)]
    if interpreter.guard_counts_python_frames():
        assert "$[1]" in below
    else:  # a fixed count of levels (3.12: about 1500, 3.13: 10,000), past max_depth
        assert set(below) <= {"walk", "$[1]"} and below[0] == "walk"
