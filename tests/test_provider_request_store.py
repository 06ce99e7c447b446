"""A decoded `Request` stored with msgspec and read back, and every adapter's stream classes."""

from __future__ import annotations

import msgspec
import pytest

from minagent import providers
from minagent.providers import gemini_stream
from minagent.providers._base import SETTINGS, Request, SettingValues

PLAIN_REQUESTS = {
    "openai_chat": b'{"model":"m","max_completion_tokens":5,"stop":"x","tools":[{"type":"function",'
    b'"function":{"name":"f","parameters":{"type":"object"}}}],"tool_choice":"required",'
    b'"messages":[{"role":"user","content":"hi"}]}',
    "anthropic": b'{"model":"m","max_tokens":5,"stop_sequences":["x"],"tools":[{"name":"f",'
    b'"input_schema":{"type":"object"}}],"tool_choice":{"type":"any"},"thinking":{"type":'
    b'"enabled","budget_tokens":2048},"messages":[{"role":"user","content":"hi"}]}',
}


@pytest.mark.parametrize("name", sorted(PLAIN_REQUESTS))
@pytest.mark.parametrize("fmt", [msgspec.json, msgspec.msgpack], ids=["json", "msgpack"])
def test_a_stored_request_reads_back_equal_and_writes_the_same_bytes(name: str, fmt) -> None:
    """A decoded request (plain messages, typed settings of every kind) stored with msgspec as
    JSON or MessagePack and read back as a `Request` equals the original, and its adapter
    writes it back byte for byte as it came, the settings spelled as the client spelled them."""
    adapter = providers.get(name)
    body = PLAIN_REQUESTS[name]
    request = adapter.decode_request(body)
    stored = fmt.decode(fmt.encode(request), type=Request)
    assert stored == request
    assert adapter.encode_request(stored) == adapter.encode_request(request) == body


def test_the_settings_tuple_follows_the_request_fields() -> None:
    """`SettingValues` holds, in `SETTINGS` order, the type of each typed setting of `Request`."""
    hints = {f.name: f.type for f in msgspec.structs.fields(Request)}
    assert list(SettingValues.__args__) == [hints[name] for name in SETTINGS]


def test_a_request_built_by_hand_stores_and_reads_back() -> None:
    """A `Request` built by hand (no decoded settings) survives a msgspec round trip unchanged."""
    request = Request(messages=[], model="m", max_tokens=5)
    assert msgspec.json.decode(msgspec.json.encode(request), type=Request) == request


@pytest.mark.parametrize("name", ["anthropic", "openai_chat", "openai_responses", "gemini"])
def test_every_adapter_names_its_stream_parser_and_accumulator(name: str) -> None:
    """The `Adapter` contract's ``StreamParser`` and ``StreamAccumulator`` exist for every format;
    Gemini's parser is the server-sent-events one, as its accumulator reads by default."""
    adapter = providers.get(name)
    module = __import__(f"minagent.providers.{name}_stream", fromlist=["x"])
    assert adapter.StreamParser is module.StreamParser
    assert adapter.StreamAccumulator is module.StreamAccumulator
    assert providers.get("gemini").StreamParser is gemini_stream.SSEChunkParser
