"""Provider request encode without base64 work (issue 28 item 4).

Base64 text a request arrived with goes back as the same text, with no decode and re-encode
(`Base64Source.from_base64` / `Base64Source.base64`, the adapters' ``Spliced`` output); bytes
built in Python are still encoded, and the NaN check still covers the rest of the request.
"""

from __future__ import annotations

import base64
import json
import os
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minagent.providers import _helpers
from minagent.providers import anthropic as A
from minagent.providers import gemini as G
from minagent.providers import openai_chat as C
from minagent.providers import openai_responses as R
from minagent.providers._base import SOURCE, Request, Spliced, Unsupported, encode_json
from minagent.wire import (
    Base64Source,
    DocumentBlock,
    EncodeError,
    Extra,
    FileSource,
    ImageBlock,
    Message,
    TextBlock,
    ToolUseBlock,
    UrlSource,
    ValidationError,
)
from minagent.wire.blocks import keep_base64, kept_base64

ADAPTERS = {"anthropic": A, "openai_chat": C, "openai_responses": R, "gemini": G}

QR = "QR=="
"""Non-canonical base64: its padding bits are not zero; it reads as b"A", written "QQ=="."""


def _image_text(n: int, seed: int = 7) -> str:
    return base64.b64encode(random.Random(seed).randbytes(n)).decode()


def _anthropic_body(*texts: str) -> dict[str, Any]:
    images = [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": t}}
        for t in texts
    ]
    return {
        "model": "claude-x",
        "max_tokens": 16,
        "messages": [{"role": "user", "content": [*images, {"type": "text", "text": "null"}]}],
    }


def _compact(obj: Any) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def _no_encode(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every base64 encode the adapters could run fail."""

    def refuse(*args: Any, **kwargs: Any) -> bytes:
        raise AssertionError("base64 was encoded")

    monkeypatch.setattr(_helpers.binascii, "b2a_base64", refuse)


# --- Base64Source keeps its text ----------------------------------------------------------------


def test_from_base64_keeps_the_exact_text() -> None:
    """from_base64 gives the bytes and keeps the text, canonical or not; the kept text is not a
    field: equality and repr see the bytes only."""
    source = Base64Source.from_base64("image/png", QR)
    assert (source.data, source.base64, kept_base64(source)) == (b"A", QR, QR.encode())
    assert source == Base64Source("image/png", b"A")
    assert repr(source) == "Base64Source(media_type='image/png', data=b'A')"
    assert Base64Source.from_base64("a", "/+8=").base64 == "/+8="


def test_from_base64_refuses_what_is_not_standard_base64() -> None:
    """Another alphabet, missing padding, whitespace, JSON escapes, non-ASCII and non-str
    input are refused with ValidationError."""
    for text in ("QQ", "_-8=", "Q Q==", "QQ==\n", "\\/w==", "é", 'QQ=="', "QQ==QQ=="):
        with pytest.raises(ValidationError) as err:
            Base64Source.from_base64("a", text)
        assert err.value.message == "invalid base64 text (expected standard base64 with padding)"
    with pytest.raises(ValidationError) as err:
        Base64Source.from_base64("a", b"QQ==")  # type: ignore[arg-type]
    assert err.value.message == "expected base64 text (a str), got bytes"


def test_new_bytes_drop_the_kept_text() -> None:
    """Setting data to other bytes drops the text (the new bytes are encoded); a copy made by
    msgspec.structs.replace encodes its bytes; bytes built in Python keep no text."""
    source = Base64Source.from_base64("a", QR)
    assert msgspec.structs.replace(source).base64 == "QQ=="
    source.data = b"AB"
    assert (source.base64, kept_base64(source)) == ("QUI=", None)
    assert Base64Source("a", b"A").base64 == "QQ=="
    assert kept_base64(Base64Source("a", b"A")) is None


def test_keep_base64_checks_the_length() -> None:
    """keep_base64 records text only if its length matches the bytes (4 per 3, padded)."""
    source = Base64Source("a", b"AB")
    keep_base64(source, "QUI")
    assert kept_base64(source) is None
    keep_base64(source, "QUJ=")
    assert kept_base64(source) == b"QUJ="


# --- encode_json splices --------------------------------------------------------------------------


def test_encode_json_splices_pieces_in_order() -> None:
    """Each Spliced value is written as its head and body, in output order, between the rest."""
    value = {"a": Spliced(b"QUI="), "b": [Spliced(b"QQ==", b"data:x;base64,"), "t", None]}
    assert encode_json(value) == b'{"a":"QUI=","b":["data:x;base64,QQ==","t",null]}'
    assert encode_json(Spliced(memoryview(b"xQQ==y")[1:-1])) == b'"QQ=="'


def test_nan_refused_with_an_image_spliced_in() -> None:
    """A NaN beside a spliced image is still refused with its path; the text of a spliced body
    is never looked at for null."""
    value = {"img": Spliced(b"bnVsbA=="), "input": {"x": float("nan")}}
    with pytest.raises(EncodeError) as err:
        encode_json(value)
    assert err.value.path == "$.input.x"
    assert encode_json([Spliced(b"null")]) == b'["null"]'


# --- every adapter writes the text back -----------------------------------------------------------


def test_anthropic_writes_non_canonical_base64_back_exactly() -> None:
    """An Anthropic request with non-canonical base64 comes back byte for byte (it used to be
    rewritten "QQ=="), and the image bytes are those the text holds."""
    body = _compact(_anthropic_body(QR, "QUJ="))
    req = A.decode_request(body)
    sources = [b.source for b in req.messages[0].content[:2]]  # type: ignore[union-attr]
    assert [s.data for s in sources] == [b"A", b"AB"]
    assert A.encode_request(req) == body


def test_anthropic_base64_in_tool_results_and_documents_kept() -> None:
    """Base64 inside a tool_result's content and a document comes back as written."""
    PDF = "QUJ="
    body = {
        "model": "m",
        "max_tokens": 1,
        "messages": [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [
                            {
                                "type": "image",
                                "source": {"type": "base64", "media_type": "image/png", "data": QR},
                            }
                        ],
                    },
                    {
                        "type": "document",
                        "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
                    },
                ],
            },
        ],
    }
    raw = _compact(body)
    assert A.encode_request(A.decode_request(raw)) == raw


def test_anthropic_base64_inside_a_content_source_kept() -> None:
    """An image inside a document's content source (with and without an unknown key on the
    image) comes back as written."""
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": QR}}
    for extra in ({}, {"future_key": 1}):
        source = {"type": "content", "content": [{**image, **extra}, {"type": "text", "text": "t"}]}
        body = {
            "model": "m",
            "max_tokens": 1,
            "messages": [{"role": "user", "content": [{"type": "document", "source": source}]}],
        }
        raw = _compact(body)
        assert A.encode_request(A.decode_request(raw)) == raw, extra


@pytest.mark.parametrize("target", sorted(ADAPTERS))
def test_every_adapter_writes_kept_text_without_encoding(
    target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request decoded from Anthropic JSON, encoded by every adapter, holds the exact base64
    text it arrived with (non-canonical too), with base64 encoding disabled."""
    text = _image_text(3000)
    req = A.decode_request(_compact(_anthropic_body(QR, text)))
    _no_encode(monkeypatch)
    out = ADAPTERS[target].encode_request(req).decode()
    assert out.count(QR) == 1 and out.count(text) == 1
    assert out.index(QR) < out.index(text)


@pytest.mark.parametrize("target", sorted(ADAPTERS))
def test_bytes_built_in_python_are_encoded(target: str) -> None:
    """A source built from bytes is written as their standard base64, by every adapter."""
    data = random.Random(3).randbytes(1000)
    req = Request(
        messages=[Message(role="user", content=[ImageBlock(Base64Source("image/png", data))])],
        model="m",
        max_tokens=4,
    )
    out = ADAPTERS[target].encode_request(req).decode()
    assert out.count(base64.b64encode(data).decode()) == 1


def test_openai_chat_data_url_comes_back_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Chat Completions data URL comes back byte for byte, without a base64 encode."""
    text = _image_text(999)
    url = f"data:image/jpeg;base64,{text}"
    body = _compact(
        {
            "model": "gpt",
            "messages": [
                {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}
            ],
        }
    )
    req = C.decode_request(body)
    assert req.messages[0].content[0].source.data == base64.b64decode(text)  # type: ignore[union-attr]
    _no_encode(monkeypatch)
    assert C.encode_request(req) == body


def test_responses_input_file_comes_back_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Responses input_file data URL and an input_image come back byte for byte."""
    text = _image_text(600)
    part_file = {"type": "input_file", "file_data": f"data:application/pdf;base64,{text}"}
    part_image = {"type": "input_image", "image_url": f"data:image/png;base64,{text}"}
    body = {"model": "m", "input": [{"role": "user", "content": [part_file, part_image]}]}
    req = R.decode_request(_compact(body))
    assert type(req.messages[0].content[0]) is DocumentBlock  # type: ignore[index]
    _no_encode(monkeypatch)
    out = json.loads(R.encode_request(req))
    assert out["input"][0]["content"][0] == part_file
    assert out["input"][0]["content"][1]["image_url"] == part_image["image_url"]


def test_gemini_inline_data_comes_back_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    """Gemini inlineData comes back byte for byte, without a base64 encode."""
    text = _image_text(1201)
    part = {"inlineData": {"mimeType": "image/webp", "data": text}}
    body = _compact({"contents": [{"role": "user", "parts": [part]}]})
    req = G.decode_request(body)
    _no_encode(monkeypatch)
    assert G.encode_request(req) == body


# --- round trips ----------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(data=st.binary(max_size=300), source=st.sampled_from(sorted(ADAPTERS)))
def test_round_trip_through_every_adapter(data: bytes, source: str) -> None:
    """Bytes sent by one adapter and read back by every adapter are the same bytes, written as
    the same text at every hop."""
    text = base64.b64encode(data).decode()
    req = Request(
        messages=[
            Message(role="user", content=[ImageBlock(Base64Source("image/png", data))]),
        ],
        model="m",
        max_tokens=4,
    )
    first = ADAPTERS[source].decode_request(ADAPTERS[source].encode_request(req))
    for name, target in ADAPTERS.items():
        out = target.encode_request(first)
        assert text in out.decode(), name
        back = target.decode_request(out)
        block = back.messages[0].content[0]  # type: ignore[index]
        assert type(block) is ImageBlock and block.source.data == data, name  # type: ignore[union-attr]


def test_a_large_image_request_round_trips_exactly_through_every_adapter() -> None:
    """A 200 kB image with a tool call and text: each adapter's own encode of its decode is
    byte-identical to its first encode."""
    data = os.urandom(200_000)
    req = Request(
        messages=[
            Message(role="user", content=[TextBlock("look"), ImageBlock(Base64Source("a", data))]),
            Message(role="assistant", content=[ToolUseBlock("t1", "f", {"x": 1.5})]),
            Message(role="tool", content="ok", tool_call_id="t1"),
        ],
        model="m",
        max_tokens=4,
    )
    for name, adapter in ADAPTERS.items():
        first = adapter.encode_request(req)
        assert adapter.encode_request(adapter.decode_request(first)) == first, name


# --- Chat Completions: the commonest messages, written directly ----------------------------------

_CHAT_REQUESTS = sorted(
    [
        *Path(__file__, "..", "data", "provider-examples", "openai").resolve().glob("request_*"),
        *Path(__file__, "..", "data", "provider-real", "openai_chat").resolve().glob("request_*"),
        *Path(__file__, "..", "data", "provider-dialects").resolve().glob("request_*.json"),
    ]
)


def _general(msg: Message, i: int, ext: bool) -> Any:
    return C._encode_message(msg, f"$.messages[{i}]", Unsupported(), ext=ext)


def _written(message: Any) -> bytes:
    """A written message as its JSON bytes (parts may be Structs or Spliced data URLs)."""
    return encode_json(message)


def test_direct_messages_of_recordings_written_as_the_general_path_writes_them() -> None:
    """For every message of every Chat Completions request recording, the direct writer gives
    either nothing (not its case) or the bytes the general path writes; it takes the
    recordings' developer message, tool-call turns and user messages of text and image parts."""
    taken = 0
    assert len(_CHAT_REQUESTS) > 10
    for path in _CHAT_REQUESTS:
        for i, msg in enumerate(C.decode_request(path.read_bytes()).messages):
            fast = C._direct_message(msg, i)
            if fast is not None:
                taken += 1
                written = _written(fast)
                assert written == _written(_general(msg, i, True)), path.name
                assert written == _written(_general(msg, i, False)), path.name
    assert taken == 7  # a developer message, two tool-call turns, four user messages of parts


_TAG = {SOURCE: "openai_chat"}
_CALL = ToolUseBlock("c1", "f", {"a": [1, "x"]})


@pytest.mark.parametrize(
    ("msg", "taken"),
    [
        (Message("system", "be brief", extra=Extra({**_TAG, "developer": True})), True),
        (Message("system", "be brief", extra=Extra(_TAG)), False),
        (Message("system", "hi", extra=Extra({**_TAG, "developer": True, "name": "b"})), False),
        (Message("system", [TextBlock("x")], extra=Extra({**_TAG, "developer": True})), False),
        (Message("assistant", [_CALL], extra=Extra({**_TAG, "content_absent": True})), True),
        (Message("assistant", [_CALL, _CALL], extra=Extra(_TAG)), True),
        (Message("assistant", [_CALL], extra=Extra({"content_absent": True})), False),
        (Message("assistant", [_CALL], extra=Extra({SOURCE: "gemini"})), False),
        (Message("assistant", [_CALL], extra=Extra({**_TAG, "content_list": True})), False),
        (Message("assistant", [_CALL, TextBlock("t")], extra=Extra(_TAG)), False),
        (
            Message(
                "assistant",
                [ToolUseBlock("c1", "f", {}, cache_control={"type": "ephemeral"})],
                extra=Extra(_TAG),
            ),
            False,
        ),
        (
            Message(
                "assistant",
                [ToolUseBlock("c1", "f", {}, extra=Extra({"arguments": "{ }"}))],
                extra=Extra(_TAG),
            ),
            False,
        ),
        (Message("assistant", [], extra=Extra(_TAG)), False),
        (Message("user", [TextBlock("t"), ImageBlock(UrlSource("https://x/a.png"))]), True),
        (Message("user", [ImageBlock(Base64Source("image/png", b"A")), TextBlock("t")]), True),
        (Message("user", [TextBlock("t", cache_control={"type": "ephemeral"})]), False),
        (Message("user", [ImageBlock(UrlSource("u", extra=Extra({"detail": "low"})))]), False),
        (Message("user", [ImageBlock(UrlSource("u"), extra=Extra({"detail": "low"}))]), False),
        (Message("user", [ImageBlock(FileSource("file-1"))]), False),
        (Message("user", [DocumentBlock(Base64Source("application/pdf", b"A"))]), False),
        (Message("assistant", [TextBlock("t"), ImageBlock(UrlSource("u"))]), False),
        (Message("user", [TextBlock("t")], is_error=True), False),
        (Message("user", "text"), False),
    ],
)
def test_direct_message_cases(msg: Message, taken: bool) -> None:
    """The direct writer takes exactly a tagged developer message with string content, a tagged
    turn of plain tool calls (content absent or null) and an untagged user message of plain
    text and image parts, and writes the bytes the general path writes."""
    fast = C._direct_message(msg, 0)
    assert (fast is not None) is taken
    if fast is not None:
        assert _written(fast) == _written(_general(msg, 0, True))


def test_direct_tool_call_refuses_a_nan_with_its_path() -> None:
    """A NaN in a plain tool call's input is refused at its path, as by the general path."""
    call = ToolUseBlock("c", "f", {"x": float("nan")})
    msg = Message("assistant", [TextBlock("t"), call], extra=Extra(_TAG))
    calls_only = Message("assistant", [_CALL, call], extra=Extra(_TAG))
    for m in (msg, calls_only):
        with pytest.raises(EncodeError) as err:
            C.encode_request(Request(messages=[Message("user", "q"), m], model="m"))
        assert err.value.path == "$.messages[1].content[1].input.x"
