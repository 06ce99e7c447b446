"""Responses and Gemini request encode: the direct writers (issue 28 item 4).

`openai_responses._direct_items`, `gemini._direct_parts` and `gemini._direct_response` write
the commonest messages without the general path's checks. Each takes a message only when the
general path would write it without a report, and must then write the same bytes. These tests
encode every request recording in ``tests/data`` (decoded by its own adapter, then written by
Responses and by Gemini) and hypothesis-generated requests both ways (``direct=False`` is the
general path alone) and compare everything a caller sees: the bytes or the error (its class,
message and path), the ``dropped`` list and the renames.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from msgspec import UNSET

from minagent.providers import anthropic as A
from minagent.providers import gemini as G
from minagent.providers import openai_chat as C
from minagent.providers import openai_responses as R
from minagent.providers._base import NEW_TURN, SOURCE, Renames, Request, Unsupported
from minagent.wire import (
    Base64Source,
    DocumentBlock,
    Extra,
    FileSource,
    ImageBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    UnknownBlock,
    UrlSource,
    WireError,
)

DATA = Path(__file__).resolve().parent / "data"

SOURCES = {
    "provider-examples/anthropic": A,
    "provider-real/anthropic": A,
    "provider-examples/openai": C,
    "provider-real/openai_chat": C,
    "provider-dialects": C,
    "provider-examples-responses": R,
    "provider-real/openai_responses": R,
    "provider-examples-gemini": G,
    "provider-real/gemini": G,
}
"""Every folder of request recordings, with the adapter that reads them."""

RECORDINGS = sorted(
    (path, module)
    for sub, module in SOURCES.items()
    for path in (DATA / sub).glob("request_*.json")
)

TARGETS = {"openai_responses": R, "gemini": G}


def _outcome(target: Any, request: Request, policy: str, direct: bool) -> tuple[Any, ...]:
    """What a caller of ``target.encode_request`` sees: the bytes or the error, the dropped
    list and the renames."""
    dropped: list[Any] = []
    renames = Renames()
    try:
        out: Any = target._encode_request(request, Unsupported(policy, dropped, renames), direct)
    except WireError as err:
        out = (type(err).__name__, err.message, err.path)
    return out, dropped, renames.names, renames.ids


def _same_both_ways(target: Any, request: Request) -> bytes | None:
    """Assert the direct writers change nothing a caller sees, under either policy; the bytes
    written under ``drop``."""
    for policy in ("error", "drop"):
        fast = _outcome(target, request, policy, True)
        assert fast == _outcome(target, request, policy, False), policy
    written = fast[0]
    return written if type(written) is bytes else None


def test_every_recording_list_is_there() -> None:
    """Every recording folder holds request recordings (58 in all), so none is skipped."""
    for sub in SOURCES:
        assert list((DATA / sub).glob("request_*.json")), sub
    assert len(RECORDINGS) == 58


@pytest.mark.parametrize("target", sorted(TARGETS))
@pytest.mark.parametrize(("path", "source"), RECORDINGS, ids=[p.name for p, _ in RECORDINGS])
def test_recordings_written_the_same_both_ways(path: Path, source: Any, target: str) -> None:
    """Every request recording, read by its own adapter and written by Responses or Gemini,
    gives the same bytes (or error), dropped list and renames with the direct writers as
    through the general path alone."""
    _same_both_ways(TARGETS[target], source.decode_request(path.read_bytes()))


def _messages_taken(target: Any, request: Request) -> int:
    """How many messages of ``request`` the direct writers take."""
    policy = Unsupported("drop")
    if target is R:
        return sum(
            R._direct_items(msg, i, policy) is not None for i, msg in enumerate(request.messages)
        )
    names: dict[str, str] = {}
    taken = 0
    for msg in request.messages:
        own = msg.extra is not UNSET
        if msg.role == "tool":
            taken += G._direct_response(msg, names) is not None
        elif not own or dict(msg.extra) == {SOURCE: G.NAME}:
            system = msg.role == "system"
            taken += G._direct_parts(msg.content, own, system, names, policy) is not None
    return taken


def test_direct_writers_take_every_message_of_their_own_recordings() -> None:
    """Every message of every Responses and Gemini request recording (25 recordings, 65
    messages: reasoning items, built-in tool items, calls with item keys or thought signatures,
    tool outputs and function responses, user parts, kept Gemini parts) is one the direct
    writers take, so none of them falls back to the general path."""
    recordings = messages = 0
    for path, source in RECORDINGS:
        if source in (R, G):
            request = source.decode_request(path.read_bytes())
            assert _messages_taken(source, request) == len(request.messages), path.name
            recordings += 1
            messages += len(request.messages)
    assert (recordings, messages) == (25, 65)


def test_recorded_turns_written_exactly_as_they_came() -> None:
    """Every Responses and Gemini request recording, read and written by its own adapter (the
    direct writers taking all its messages), comes back as the JSON value it was."""
    for path, source in RECORDINGS:
        if source not in (R, G):
            continue
        body = path.read_bytes()
        written = source.encode_request(source.decode_request(body))
        assert json.loads(written) == json.loads(body), path.name


# --- hypothesis: requests of the shapes the direct writers take, and of their edges --------------

_R_TAG = {SOURCE: R.NAME}
_G_TAG = {SOURCE: G.NAME}

texts = st.sampled_from(["", "hi", "two words", "ünï", "{}", '{"a":1}', "[1]", "x\ny"])
names_ = st.sampled_from(["get", "weather.get", "a" * 70, "f-1", "9lives"])
ids = st.sampled_from(["call_1", "call_2", "minagent-gemini-0", "functions.get:0", "c"])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(texts, inner, max_size=3),
    max_leaves=6,
)
item_keys = st.dictionaries(
    st.sampled_from(["id", "status", "type", "role", "content", "summary", "phase"]),
    json_values,
    max_size=3,
)


@st.composite
def reasoning_keys(draw: Any) -> tuple[str, dict[str, Any]]:
    """A reasoning item's keys and the thinking they give (or another text, sometimes)."""
    summary = draw(st.lists(texts, max_size=3))
    keys = {"id": "rs_1", "summary": [{"type": "summary_text", "text": t} for t in summary]}
    if draw(st.booleans()):
        keys["encrypted_content"] = "gAAAA" + draw(texts)
    thinking = "\n\n".join(summary) if draw(st.integers(0, 4)) else draw(texts)
    return thinking, keys


def extras(keys: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), keys.map(Extra))


block_keys = st.dictionaries(
    st.sampled_from(
        [
            R.ITEM_KEY,
            "annotations",
            "logprobs",
            "detail",
            "file_id",
            "filename",
            "thoughtSignature",
            "thought",
            "args_absent",
            "arguments",
            "other",
            "citations_hint",
        ]
    ),
    st.one_of(json_values, item_keys),
    max_size=3,
)


def _opt(extra: Any) -> dict[str, Any]:
    return {} if extra is None else {"extra": extra}


@st.composite
def blocks(draw: Any) -> Any:
    kind = draw(st.integers(0, 9))
    extra = draw(extras(block_keys))
    if kind == 0:
        more = {"cache_control": {"type": "ephemeral"}} if draw(st.integers(0, 9)) == 0 else {}
        return TextBlock(draw(texts), **more, **_opt(extra))
    if kind == 1:
        more = {"caller": {"type": "direct"}} if draw(st.integers(0, 9)) == 0 else {}
        args = draw(st.dictionaries(texts, json_values, max_size=2))
        if extra is not None and "arguments" in extra and draw(st.booleans()):
            extra = Extra({**extra, "arguments": json.dumps(args)})
        return ToolUseBlock(draw(ids), draw(names_), args, **more, **_opt(extra))
    if kind == 2:
        thinking, keys = draw(reasoning_keys())
        mode = draw(st.integers(0, 4))
        if mode == 0:
            return ThinkingBlock(thinking, signature="sig")
        if mode == 1:
            return ThinkingBlock(thinking, **_opt(extra))
        return ThinkingBlock(thinking, extra=Extra({R.ITEM_KEY: keys}))
    if kind == 3:
        data = {"type": draw(st.sampled_from(["web_search_call", "gemini_part", "input_text"]))}
        data.update(draw(st.dictionaries(st.sampled_from(["id", R.ITEM_KEY, "x"]), json_values)))
        return UnknownBlock(Extra(data))
    if kind in (4, 5):
        source = draw(
            st.sampled_from(
                [
                    UrlSource("https://x/a.png"),
                    UrlSource("https://x/a"),
                    UrlSource("https://x/a.pdf", extra=Extra({"mimeType": "application/pdf"})),
                    Base64Source("image/png", b"\x00\x01"),
                    Base64Source("application/pdf", b"%PDF"),
                    FileSource("file-1"),
                ]
            )
        )
        cls = ImageBlock if kind == 4 else DocumentBlock
        return cls(source, **_opt(extra))
    if kind == 6:
        return RedactedThinkingBlock("opaque")
    return TextBlock(draw(texts))


message_tags = st.sampled_from(
    [
        None,
        _R_TAG,
        _G_TAG,
        {**_R_TAG, "developer": True},
        {**_G_TAG, NEW_TURN: True},
        {G._RESPONSE_MARK: "object"},
        {G._RESPONSE_MARK: "object", **_G_TAG},
        {"name": "get"},
        {"status": "completed", **_R_TAG},
        {SOURCE: "anthropic"},
    ]
)


@st.composite
def messages(draw: Any) -> Message:
    role = draw(st.sampled_from(["user", "assistant", "system", "tool", "tool"]))
    tag = draw(message_tags)
    content: Any = draw(st.one_of(texts, st.lists(blocks(), max_size=4)))
    more: dict[str, Any] = {} if tag is None else {"extra": Extra(tag)}
    if role == "tool":
        if draw(st.integers(0, 5)):
            more["tool_call_id"] = draw(ids)
        if draw(st.integers(0, 3)) == 0:
            more["is_error"] = draw(st.booleans())
    return Message(role, content, **more)


@pytest.mark.parametrize("target", sorted(TARGETS))
@settings(max_examples=300, deadline=None)
@given(msgs=st.lists(messages(), min_size=1, max_size=6))
def test_generated_requests_written_the_same_both_ways(msgs: list[Message], target: str) -> None:
    """Generated requests (own and foreign tags, item keys, reasoning items whose text may
    differ, calls with raw arguments, kept parts, media of every source, tool results with and
    without an answered call) give the same bytes or error, dropped list and renames with the
    direct writers as through the general path alone."""
    _same_both_ways(TARGETS[target], Request(messages=msgs, model="m"))


# --- hypothesis: conversations in an adapter's own shape (what the direct writers take) --------


@st.composite
def own_blocks(draw: Any, tag: dict[str, str] | None) -> Any:
    """An assistant block as the adapter of ``tag`` reads one, now and then edited (a reasoning
    text changed, a key added)."""
    kind = draw(st.integers(0, 4))
    gemini = tag == _G_TAG
    if kind == 0:
        thinking, keys = draw(reasoning_keys())
        if gemini:
            return ThinkingBlock(thinking)
        return ThinkingBlock(thinking, extra=Extra({R.ITEM_KEY: keys}))
    if kind == 1:
        keys = draw(st.dictionaries(st.sampled_from(["id", "status", "type"]), texts, max_size=2))
        more = {"thoughtSignature": "c2ln"} if gemini else {R.ITEM_KEY: keys}
        if draw(st.booleans()):
            more = {**more, "annotations": []}
        return TextBlock(draw(texts), extra=Extra(more) if draw(st.booleans()) else UNSET)
    if kind == 2:
        args = draw(st.sampled_from([{}, {"a": 1}, {"q": "x", "n": None}]))
        more = draw(
            st.sampled_from(
                [
                    {},
                    {"thoughtSignature": "c2ln"},
                    {"args_absent": True},
                    {R.ITEM_KEY: {"id": "fc_1", "status": "completed"}},
                    {R.ITEM_KEY: {"status": None}, "arguments": json.dumps(args)},
                    {"arguments": json.dumps(args, indent=1)},
                ]
            )
        )
        ident = draw(st.sampled_from(["call_1", "call_2", G.ID_PREFIX + "3", "pyd_ai_4"]))
        return ToolUseBlock(ident, draw(names_), args, extra=Extra(more) if more else UNSET)
    if kind == 3:
        kind_ = "gemini_part" if gemini else draw(st.sampled_from(["web_search_call", "mcp_call"]))
        data = {"type": kind_, "id": "x_1", "status": "completed"}
        if gemini:
            data = {"type": kind_, "executableCode": {"code": "1+1"}}
        return UnknownBlock(Extra(data))
    return TextBlock(draw(texts))


@st.composite
def own_conversations(draw: Any) -> list[Message]:
    """A conversation as one adapter's decoder gives it (user parts, assistant turns, the tool
    results answering their calls), the adapter's tag sometimes left off."""
    tag = draw(st.sampled_from([_R_TAG, _G_TAG, None]))
    extra = Extra(tag) if tag is not None else UNSET
    out: list[Message] = []
    if draw(st.booleans()):
        out.append(Message("system", draw(texts)))
    for _ in range(draw(st.integers(1, 3))):
        parts = draw(
            st.lists(
                st.sampled_from(
                    [
                        TextBlock("look"),
                        ImageBlock(UrlSource("https://x/a.png")),
                        ImageBlock(Base64Source("image/png", b"\x89PNG")),
                        DocumentBlock(Base64Source("application/pdf", b"%PDF")),
                        DocumentBlock(
                            Base64Source("application/pdf", b"%PDF"),
                            extra=Extra({"filename": "a.pdf"}),
                        ),
                    ]
                ),
                max_size=3,
            )
        )
        out.append(Message("user", parts or draw(texts), extra=extra))
        turn = draw(st.lists(own_blocks(tag), min_size=1, max_size=4))
        out.append(Message("assistant", turn, extra=extra))
        for block in turn:
            if type(block) is ToolUseBlock and draw(st.integers(0, 5)):
                more = {G._RESPONSE_MARK: "object"} if draw(st.booleans()) else {}
                answer = draw(st.sampled_from(['{"return_value":"cars"}', "plain", "[1]", "{"]))
                tool_extra = Extra({**more, **(tag or {})}) if more or tag else UNSET
                error = {"is_error": True} if draw(st.integers(0, 5)) == 0 else {}
                out.append(
                    Message("tool", answer, tool_call_id=block.id, extra=tool_extra, **error)
                )
    return out


@pytest.mark.parametrize("target", sorted(TARGETS))
@settings(max_examples=300, deadline=None)
@given(msgs=own_conversations())
def test_generated_own_conversations_written_the_same_both_ways(
    msgs: list[Message], target: str
) -> None:
    """Conversations in an adapter's own shape (reasoning items whose text may have changed,
    calls with item keys, raw arguments, thought signatures or ``args_absent``, built-in items,
    kept Gemini parts, tool results answering them as objects or text, ids with Gemini's
    prefix) give the same bytes or error, dropped list and renames both ways."""
    _same_both_ways(TARGETS[target], Request(messages=msgs, model="m"))


# --- the NaN check beside spliced base64 ---------------------------------------------------------


def _long_request_with_an_image(tail: Any) -> Request:
    turns = [Message("user" if i % 2 == 0 else "assistant", "x" * 60) for i in range(200)]
    image = ImageBlock(Base64Source("image/png", b"\x89PNG" * 2000))
    return Request(messages=[*turns, Message("user", [image, TextBlock("what")]), tail], model="m")


@pytest.mark.parametrize("target", [A, C, R, G])
def test_spliced_output_is_never_walked(target: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long request (over `_finite.SCAN_UP_TO`) holding an image is written without the NaN
    walk, with or without a null value: the MessagePack look writes a `Spliced` as None
    (`_finite.FLOATLESS`) instead of giving way to the walk (which cost 2.5x the whole encode
    of 300 messages); the look runs once per encode."""
    from minagent.wire import _finite

    looks = []
    look = _finite.may_hold_nonfinite

    def walked(*args: Any, **kwargs: Any) -> bool:
        raise AssertionError("the objects were walked")

    def counted(obj: Any) -> bool:
        looks.append(obj)
        return look(obj)

    monkeypatch.setattr(_finite, "holds_nonfinite", walked)
    monkeypatch.setattr(_finite, "may_hold_nonfinite", counted)
    out = target.encode_request(_long_request_with_an_image(Message("user", "q")))
    assert len(out) > _finite.SCAN_UP_TO and b"null" not in out
    out = target.encode_request(_long_request_with_an_image(Message("user", "null")), x=None)
    assert b":null" in out and len(looks) == 2


@pytest.mark.parametrize(
    ("target", "path"),
    [
        (A, "$.messages[201].content[0].input.x"),
        (C, "$.messages[201].content[0].input.x"),
        (R, "$.messages[201].content[0].input.x"),
        (G, "$.contents[201].parts[0].functionCall.args.x"),  # args written as an object
    ],
)
def test_nan_beside_a_spliced_image_in_a_long_request_refused(target: Any, path: str) -> None:
    """A NaN in a tool input of a long request holding an image is still refused, with its
    path."""
    call = ToolUseBlock("c1", "f", {"x": float("nan")})
    request = _long_request_with_an_image(Message("assistant", [call]))
    with pytest.raises(WireError) as err:
        target.encode_request(request)
    assert (err.value.message, err.value.path) == (
        "cannot write JSON: nan cannot be written as JSON",
        path,
    )
