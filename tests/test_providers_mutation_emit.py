"""Exact-value tests that kill mutants of the provider stream writers and translators (issue 30)."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import msgspec
import pytest
from msgspec import UNSET

from minagent import providers
from minagent.providers import StreamError, anthropic, openai_chat
from minagent.providers import _chat_ext as CE
from minagent.providers import anthropic_stream as AS
from minagent.providers import openai_chat_stream as CS
from minagent.providers import translate as TR
from minagent.providers._base import Dropped, Unsupported, UnsupportedError
from minagent.providers._emit_anthropic import AnthropicWriter
from minagent.providers._emit_responses import ResponsesWriter
from minagent.providers._stream import UnknownEvent
from minagent.wire import blocks as wb
from minagent.wire.errors import EncodeError
from minagent.wire.extra import Extra
from minagent.wire.limits import Limits
from minagent.wire.messages import Message, ModelResponse


def ev(kind: str, data: str) -> bytes:
    """One SSE event as the writers spell it: ``event: kind`` then ``data: data``."""
    return b"event: " + kind.encode() + b"\ndata: " + data.encode() + b"\n\n"


# --- _emit_anthropic ------------------------------------------------------------------------------


def a_start(index: int, block: str) -> bytes:
    data = f'{{"type":"content_block_start","index":{index},"content_block":{block}}}'
    return ev("content_block_start", data)


def a_delta(index: int, delta: str) -> bytes:
    data = f'{{"type":"content_block_delta","index":{index},"delta":{delta}}}'
    return ev("content_block_delta", data)


def a_stop(index: int) -> bytes:
    return ev("content_block_stop", f'{{"type":"content_block_stop","index":{index}}}')


A_END = ev("message_stop", '{"type":"message_stop"}')


def test_anthropic_writer_header_and_text_exactly() -> None:
    """message_start holds id, type, role and model only (other header keys left out), the
    empty content, null stop fields and the header's usage (zero counts when it has none or a
    non-object); a text block is its start, one text_delta per piece and its stop."""
    w = AnthropicWriter()
    header = {"id": "m1", "type": "message", "role": "assistant", "model": "c", "created": 9}
    w.begin({**header, "usage": {"input_tokens": 3}})
    assert w.take() == ev(
        "message_start",
        '{"type":"message_start","message":{"id":"m1","type":"message","role":"assistant",'
        '"model":"c","content":[],"stop_reason":null,"stop_sequence":null,'
        '"usage":{"input_tokens":3}}}',
    )
    w.open_text()
    w.text("h\u00e9")
    w.text('"')
    w.close_text()
    w.open_text()
    w.close_text()
    assert w.take() == (
        a_start(0, '{"type":"text","text":""}')
        + a_delta(0, '{"type":"text_delta","text":"h\u00e9"}')
        + a_delta(0, '{"type":"text_delta","text":"\\""}')
        + a_stop(0)
        + a_start(1, '{"type":"text","text":""}')
        + a_stop(1)
    )
    zero = (
        '{"type":"message_start","message":{"content":[],"stop_reason":null,'
        '"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}'
    )
    for head in ({"usage": None}, {"usage": [1]}, {}):
        w = AnthropicWriter()
        w.begin(head)
        assert w.take() == ev("message_start", zero), head


def test_anthropic_writer_blocks_exactly() -> None:
    """Complete blocks the way the API streams them: text and signed thinking start empty and
    get one delta each (none for empty text or thinking; the signature always), tool inputs as
    one input_json_delta (none for {}), unsigned thinking, odd fields and other blocks whole in
    their start; indexes continue across calls; no content, no events."""
    w = AnthropicWriter()
    w.begin({})
    w.take()
    w.blocks({})
    w.blocks({"content": None})
    w.blocks({"content": []})
    assert w.take() == b""
    content: list[Any] = [
        {"type": "text", "text": "t", "citations": None},
        {"type": "text", "text": ""},
        {"type": "text", "text": 5},
        {"type": "thinking", "thinking": "th", "signature": "s"},
        {"type": "thinking", "thinking": "", "signature": "s2"},
        {"type": "thinking", "thinking": "u"},
        {"type": "thinking", "thinking": "v", "signature": None},
        {"type": "thinking", "thinking": None},
        {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": [1, "\u00e9"]}},
        {"type": "server_tool_use", "id": "t2", "name": "g", "input": {}},
        {"type": "server_tool_use", "id": "t4", "input": {"q": 1}},
        {"type": "tool_use", "id": "t3", "input": "x"},
        {"type": "redacted_thinking", "data": "d"},
        5,
    ]
    w.blocks({"content": content[:3]})
    w.blocks({"content": content[3:]})
    assert w.take() == (
        a_start(0, '{"type":"text","text":"","citations":null}')
        + a_delta(0, '{"type":"text_delta","text":"t"}')
        + a_stop(0)
        + a_start(1, '{"type":"text","text":""}')
        + a_stop(1)
        + a_start(2, '{"type":"text","text":5}')
        + a_stop(2)
        + a_start(3, '{"type":"thinking","thinking":"","signature":""}')
        + a_delta(3, '{"type":"thinking_delta","thinking":"th"}')
        + a_delta(3, '{"type":"signature_delta","signature":"s"}')
        + a_stop(3)
        + a_start(4, '{"type":"thinking","thinking":"","signature":""}')
        + a_delta(4, '{"type":"signature_delta","signature":"s2"}')
        + a_stop(4)
        + a_start(5, '{"type":"thinking","thinking":"u"}')
        + a_stop(5)
        + a_start(6, '{"type":"thinking","thinking":"v","signature":null}')
        + a_stop(6)
        + a_start(7, '{"type":"thinking","thinking":null}')
        + a_stop(7)
        + a_start(8, '{"type":"tool_use","id":"t1","name":"f","input":{}}')
        + a_delta(8, '{"type":"input_json_delta","partial_json":"{\\"a\\":[1,\\"\u00e9\\"]}"}')
        + a_stop(8)
        + a_start(9, '{"type":"server_tool_use","id":"t2","name":"g","input":{}}')
        + a_stop(9)
        + a_start(10, '{"type":"server_tool_use","id":"t4","input":{}}')
        + a_delta(10, '{"type":"input_json_delta","partial_json":"{\\"q\\":1}"}')
        + a_stop(10)
        + a_start(11, '{"type":"tool_use","id":"t3","input":"x"}')
        + a_stop(11)
        + a_start(12, '{"type":"redacted_thinking","data":"d"}')
        + a_stop(12)
        + a_start(13, "5")
        + a_stop(13)
    )
    assert content[0] == {"type": "text", "text": "t", "citations": None}
    assert content[3] == {"type": "thinking", "thinking": "th", "signature": "s"}
    assert content[8]["input"] == {"a": [1, "\u00e9"]}


def test_anthropic_writer_finish_exactly() -> None:
    """message_delta carries every top-level key but id, type, role, model, content and
    usage, plus id and model where they differ from message_start's, and the body's usage
    ({} when it has none or a non-object); then message_stop."""
    w = AnthropicWriter()
    w.begin({"id": "m1", "model": "c"})
    w.take()
    body = {
        "id": "m1",
        "model": "c2",
        "type": "message",
        "role": "assistant",
        "content": [1],
        "usage": {"output_tokens": 4},
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "container": {"id": "k"},
    }
    w.finish(body)
    assert w.take() == (
        ev(
            "message_delta",
            '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null,'
            '"container":{"id":"k"},"model":"c2"},"usage":{"output_tokens":4}}',
        )
        + A_END
    )
    w.finish({"id": "m2", "model": "c", "usage": None})
    assert w.take() == (
        ev("message_delta", '{"type":"message_delta","delta":{"id":"m2"},"usage":{}}') + A_END
    )
    w.finish({"usage": [1]})
    assert w.take() == (
        ev("message_delta", '{"type":"message_delta","delta":{},"usage":{}}') + A_END
    )
    w = AnthropicWriter()
    w.begin({})
    w.take()
    w.finish({"id": "x", "model": "y"})
    assert w.take() == (
        ev("message_delta", '{"type":"message_delta","delta":{"id":"x","model":"y"},"usage":{}}')
        + A_END
    )


# --- _emit_responses ------------------------------------------------------------------------------


def r_ev(kind: str, fields: str, seq: int) -> bytes:
    """A Responses event whose own keys come first, then ``type`` and ``sequence_number``."""
    return ev(kind, f'{{{fields},"type":"{kind}","sequence_number":{seq}}}')


def r_piece(kind: str, item: str, at: int, more: str, delta: str, seq: int) -> bytes:
    """A text or reasoning-text delta, spelled by the writer's prebuilt head."""
    data = (
        f'{{"type":"{kind}","item_id":"{item}","output_index":{at},"content_index":0,'
        f'{more}"delta":{delta},"sequence_number":{seq}}}'
    )
    return ev(kind, data)


def test_responses_writer_header_text_and_thinking_exactly() -> None:
    """response.created holds the header without usage, status in_progress and no output; a
    text block is a message item (id ``<response id>_msg_<output index>``) with an empty
    output_text part, deltas with logprobs, the done events with the joined text and the item
    completed; a thinking block a reasoning item (``_rs_``) the same way without logprobs or
    status; each block takes the next output index; sequence numbers count every event."""
    w = ResponsesWriter()
    w.begin({"id": "resp_1", "model": "g", "usage": {"x": 1}, "status": "queued"})
    assert w.take() == r_ev(
        "response.created",
        '"response":{"id":"resp_1","model":"g","status":"in_progress","output":[]}',
        0,
    )
    w.open_text()
    w.text("a")
    w.text('"')
    w.close_text()
    item = '"resp_1_msg_0"'
    where = f'"item_id":{item},"output_index":0,"content_index":0'
    part = '"type":"output_text","text":"a\\"","annotations":[]'
    assert w.take() == (
        r_ev(
            "response.output_item.added",
            '"output_index":0,"item":{"type":"message","status":"in_progress",'
            f'"role":"assistant","id":{item},"content":[]}}',
            1,
        )
        + r_ev(
            "response.content_part.added",
            where + ',"part":{"type":"output_text","text":"","annotations":[]}',
            2,
        )
        + r_piece("response.output_text.delta", "resp_1_msg_0", 0, '"logprobs":[],', '"a"', 3)
        + r_piece("response.output_text.delta", "resp_1_msg_0", 0, '"logprobs":[],', '"\\""', 4)
        + r_ev("response.output_text.done", where + ',"text":"a\\"","logprobs":[]', 5)
        + r_ev("response.content_part.done", where + f',"part":{{{part}}}', 6)
        + r_ev(
            "response.output_item.done",
            '"output_index":0,"item":{"type":"message","status":"completed",'
            f'"role":"assistant","id":{item},"content":[{{{part}}}]}}',
            7,
        )
    )
    w.open_thinking()
    w.thinking("t")
    w.thinking("u")
    w.close_thinking()
    where = '"item_id":"resp_1_rs_1","output_index":1,"content_index":0'
    assert w.take() == (
        r_ev(
            "response.output_item.added",
            '"output_index":1,"item":{"type":"reasoning","summary":[],"id":"resp_1_rs_1",'
            '"content":[]}',
            8,
        )
        + r_ev(
            "response.content_part.added", where + ',"part":{"type":"reasoning_text","text":""}', 9
        )
        + r_piece("response.reasoning_text.delta", "resp_1_rs_1", 1, "", '"t"', 10)
        + r_piece("response.reasoning_text.delta", "resp_1_rs_1", 1, "", '"u"', 11)
        + r_ev("response.reasoning_text.done", where + ',"text":"tu"', 12)
        + r_ev(
            "response.content_part.done",
            where + ',"part":{"type":"reasoning_text","text":"tu"}',
            13,
        )
        + r_ev(
            "response.output_item.done",
            '"output_index":1,"item":{"type":"reasoning","summary":[],"id":"resp_1_rs_1",'
            '"content":[{"type":"reasoning_text","text":"tu"}]}',
            14,
        )
    )
    empty = '"type":"output_text","text":"","annotations":[]'
    w.open_text()
    w.close_text()
    where = '"item_id":"resp_1_msg_2","output_index":2,"content_index":0'
    assert w.take() == (
        r_ev(
            "response.output_item.added",
            '"output_index":2,"item":{"type":"message","status":"in_progress",'
            '"role":"assistant","id":"resp_1_msg_2","content":[]}',
            15,
        )
        + r_ev("response.content_part.added", where + f',"part":{{{empty}}}', 16)
        + r_ev("response.output_text.done", where + ',"text":"","logprobs":[]', 17)
        + r_ev("response.content_part.done", where + f',"part":{{{empty}}}', 18)
        + r_ev(
            "response.output_item.done",
            '"output_index":2,"item":{"type":"message","status":"completed",'
            f'"role":"assistant","id":"resp_1_msg_2","content":[{{{empty}}}]}}',
            19,
        )
    )
    w = ResponsesWriter()
    w.begin({})
    w.open_text()
    assert w.take() == (
        r_ev("response.created", '"response":{"status":"in_progress","output":[]}', 0)
        + r_ev(
            "response.output_item.added",
            '"output_index":0,"item":{"type":"message","status":"in_progress",'
            '"role":"assistant","id":"_msg_0","content":[]}',
            1,
        )
        + r_ev(
            "response.content_part.added",
            f'"item_id":"_msg_0","output_index":0,"content_index":0,"part":{{{empty}}}',
            2,
        )
    )
    w.close_text()
    assert w.take() == (
        r_ev(
            "response.output_text.done",
            '"item_id":"_msg_0","output_index":0,"content_index":0,"text":"","logprobs":[]',
            3,
        )
        + r_ev(
            "response.content_part.done",
            f'"item_id":"_msg_0","output_index":0,"content_index":0,"part":{{{empty}}}',
            4,
        )
        + r_ev(
            "response.output_item.done",
            '"output_index":0,"item":{"type":"message","status":"completed",'
            f'"role":"assistant","id":"_msg_0","content":[{{{empty}}}]}}',
            5,
        )
    )


def test_responses_writer_blocks_and_terminal_events_exactly() -> None:
    """Complete items go out whole as output_item.added then .done at the next output index;
    no output, no events; the terminal event is response.incomplete or response.failed as the
    body's status says, else response.completed, with the body whole."""
    w = ResponsesWriter()
    w.begin({"id": "r"})
    w.take()
    w.blocks({})
    w.blocks({"output": None})
    w.blocks({"output": []})
    assert w.take() == b""
    w.blocks({"output": [{"type": "function_call", "id": "fc"}, {"type": "x"}]})
    w.open_text()
    assert w.take() == (
        r_ev(
            "response.output_item.added",
            '"output_index":0,"item":{"type":"function_call","id":"fc"}',
            1,
        )
        + r_ev(
            "response.output_item.done",
            '"output_index":0,"item":{"type":"function_call","id":"fc"}',
            2,
        )
        + r_ev("response.output_item.added", '"output_index":1,"item":{"type":"x"}', 3)
        + r_ev("response.output_item.done", '"output_index":1,"item":{"type":"x"}', 4)
        + r_ev(
            "response.output_item.added",
            '"output_index":2,"item":{"type":"message","status":"in_progress",'
            '"role":"assistant","id":"r_msg_2","content":[]}',
            5,
        )
        + r_ev(
            "response.content_part.added",
            '"item_id":"r_msg_2","output_index":2,"content_index":0,'
            '"part":{"type":"output_text","text":"","annotations":[]}',
            6,
        )
    )
    seq = 7
    for body, kind in [
        ({"status": "incomplete", "x": 1}, "response.incomplete"),
        ({"status": "failed"}, "response.failed"),
        ({"status": "completed"}, "response.completed"),
        ({"status": "cancelled"}, "response.completed"),
        ({}, "response.completed"),
    ]:
        w.finish(body)
        data = json.dumps(body, separators=(",", ":"))
        assert w.take() == r_ev(kind, f'"response":{data}', seq), body
        seq += 1


def test_responses_writer_can_think_only_for_its_own_rendering() -> None:
    """can_think is True only for one output item that is, but for its id, a reasoning item
    with an empty summary and one reasoning_text part."""
    w = ResponsesWriter()
    part = {"type": "reasoning_text", "text": "x"}
    item = {"type": "reasoning", "summary": [], "content": [part]}
    assert w.can_think({"output": [item]}) is True
    assert w.can_think({"output": [dict(item, id="rs_9")]}) is True
    for body in [
        {},
        {"output": (item,)},
        {"output": []},
        {"output": [item, item]},
        {"output": [5]},
        {"output": [dict(item, summary=[1])]},
        {"output": [dict(item, content=[{"type": "reasoning_text", "text": "y"}])]},
        {"output": [dict(item, status="completed")]},
    ]:
        assert w.can_think(body) is False, body


# --- openai_chat_stream ---------------------------------------------------------------------------


def c_event(*choices: dict[str, Any], **top: Any) -> bytes:
    """One ``chat.completion.chunk`` SSE event with these choices (id c, created 1, model m)."""
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    return b"data: " + json.dumps({**chunk, "choices": list(choices), **top}).encode() + b"\n\n"


def c_chunk(delta: Any, finish: Any = None, index: int = 0, **top: Any) -> bytes:
    """One ``chat.completion.chunk`` SSE event with one choice."""
    return c_event({"index": index, "delta": delta, "finish_reason": finish}, **top)


def c_body(*chunks: bytes) -> dict[str, Any]:
    """The body a Chat StreamAccumulator builds from these chunks."""
    acc = CS.StreamAccumulator()
    for chunk in chunks:
        acc.feed(chunk)
    return acc.body()


def c_message(*deltas: Any) -> dict[str, Any]:
    """The first choice's message accumulated from one delta per chunk."""
    message: dict[str, Any] = c_body(*(c_chunk(d) for d in deltas))["choices"][0]["message"]
    return message


TB = "thinking_blocks"


def test_chat_thinking_blocks_join_by_index_exactly() -> None:
    """thinking_blocks deltas join per block index: thinking text appended, an empty signature
    skipped and a real one set, null values and the index left out, other keys kept, entries
    that are not objects kept in place; a new index opens a new block after the others."""
    assert c_message(
        {TB: [5, {"type": "thinking", "thinking": "a", "index": 0, "x": None}]},
        {TB: [{"type": "redacted_thinking", "data": "R", "index": 1}]},
        {TB: [{"type": "thinking", "thinking": "b", "index": 0, "signature": ""}]},
        {TB: [{"type": "thinking", "signature": "s", "index": 0, "more": 1}]},
    ) == {
        "role": "assistant",
        "content": None,
        "refusal": None,
        TB: [
            5,
            {"type": "thinking", "thinking": "ab", "signature": "s", "more": 1},
            {"type": "redacted_thinking", "data": "R"},
        ],
    }


def test_chat_thinking_blocks_without_index_continue_the_last_unsigned_one() -> None:
    """A thinking entry without an index continues the last thinking block while it is
    unsigned (also one opened by index), else opens a new one; other types always open a new
    block; a thinking block gets "thinking": "" when none came; a non-string thinking value
    is set as it came."""
    assert c_message(
        {TB: [{"type": "thinking", "thinking": "x"}]},
        {TB: [{"type": "thinking", "thinking": "y"}]},
        {TB: [{"type": "thinking", "signature": "sx"}]},
        {TB: [{"type": "thinking", "thinking": "z"}]},
    )[TB] == [
        {"type": "thinking", "thinking": "xy", "signature": "sx"},
        {"type": "thinking", "thinking": "z"},
    ]
    assert c_message(
        {TB: [{"type": "redacted_thinking", "data": "d"}]},
        {TB: [{"type": "thinking"}]},
        {TB: [{"type": "redacted_thinking"}]},
        {TB: [{"thinking": 5}]},
    )[TB] == [
        {"type": "redacted_thinking", "data": "d"},
        {"type": "thinking", "thinking": ""},
        {"type": "redacted_thinking"},
        {"type": None, "thinking": 5},
    ]
    assert c_message(
        {TB: [{"type": "thinking", "thinking": "a", "index": 0}]},
        {TB: [{"type": "thinking", "thinking": "b"}]},
    )[TB] == [{"type": "thinking", "thinking": "ab"}]
    assert c_message(
        {TB: [{"type": "text", "thinking": "a"}]},
        {TB: [{"type": "text", "thinking": "b"}]},
    )[TB] == [{"type": "text", "thinking": "a"}, {"type": "text", "thinking": "b"}]


def test_chat_logprobs_join_per_key_without_touching_the_events() -> None:
    """Logprobs lists join per key across chunks (a key first null, then a list, starts from
    that list); a non-list value is kept from the first chunk that had its key; the lists of
    the events returned by feed are never changed by later chunks."""
    acc = CS.StreamAccumulator()
    logprobs = [
        {"content": [1], "refusal": None, "x": "v"},
        {"content": [2], "refusal": [3], "x": "w", "y": 7},
        {"refusal": [4], "content": [5]},
    ]
    events = []
    for more in logprobs:
        events += acc.feed(c_event({"index": 0, "delta": {}, "logprobs": more}))
    assert acc.body()["choices"][0]["logprobs"] == {
        "content": [1, 2, 5],
        "refusal": [3, 4],
        "x": "v",
        "y": 7,
    }
    assert [e.choices[0].logprobs for e in events] == [
        {"content": [1], "refusal": None, "x": "v"},
        {"content": [2], "refusal": [3], "x": "w", "y": 7},
        {"refusal": [4], "content": [5]},
    ]


def test_chat_tool_call_without_index_then_with_index_zero_is_one_call() -> None:
    """The first tool call piece without an index is call 0, so a piece for index 0 continues
    it."""
    call = {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{"}}
    message = c_message(
        {"tool_calls": [call]}, {"tool_calls": [{"index": 0, "function": {"arguments": "}"}}]}
    )
    assert message["tool_calls"] == [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    ]


def test_chat_chunk_key_tables_name_each_struct_field() -> None:
    """The key tables used to cut unknown keys out of a chunk are the Structs' JSON field
    names, without the hidden unknown-keys field (built at import, so checked here)."""
    assert CS._names(CS.ChatChunk) == {
        "id",
        "choices",
        "created",
        "model",
        "object",
        "system_fingerprint",
        "service_tier",
        "usage",
        "obfuscation",
        "error",
    }
    assert CS._names(CS.ChoiceDelta) == {"index", "delta", "logprobs", "finish_reason"}
    assert CS._names(CS.Delta) == {"role", "content", "refusal", "tool_calls"}
    assert CS._names(CS.ToolCallDelta) == {"index", "id", "type", "function"}
    assert tuple(
        CS._names(c) for c in (CS.ChatChunk, CS.ChoiceDelta, CS.Delta, CS.ToolCallDelta)
    ) == (CS._TOP, CS._CHOICE, CS._DELTA, CS._CALL)


def test_chat_thinking_entries_empty_signature_and_type_of_a_continued_block() -> None:
    """An empty signature is skipped (the block stays unsigned, so a piece without an index
    continues it) while the entry's other keys, before or after it, still apply ("data": ""
    kept); the continued block is the last one, not the one before it; a block keeps the type
    it was opened with."""
    assert c_message(
        {TB: [{"type": "redacted_thinking", "data": "d"}]},
        {TB: [{"type": "thinking", "signature": "", "thinking": "a", "data": ""}]},
        {TB: [{"type": "thinking", "thinking": "b"}]},
    )[TB] == [
        {"type": "redacted_thinking", "data": "d"},
        {"type": "thinking", "thinking": "ab", "data": ""},
    ]
    assert c_message(
        {TB: [{"type": "thinking", "thinking": "a", "index": 0}]},
        {TB: [{"type": "redacted_thinking", "data": "x", "index": 0}]},
    )[TB] == [{"type": "thinking", "thinking": "a", "data": "x"}]


def test_chat_tool_calls_without_index_continue_only_the_same_id() -> None:
    """A tool call piece without an index continues the last call when it has the same id
    (also the first call), else opens the next call; a call whose pieces carry no id or type
    has id "" and type "function"."""
    calls = c_message(
        {"tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{"}}]},
        {"tool_calls": [{"id": "a", "function": {"arguments": "}"}}]},
        {"tool_calls": [{"id": "b", "type": "custom", "function": {"name": "g"}}]},
        {"tool_calls": [{"function": {"arguments": "[]"}}]},
        {"tool_calls": [{"index": 7, "function": {"name": "h", "arguments": ""}}]},
    )["tool_calls"]
    assert calls == [
        {"id": "a", "type": "function", "function": {"name": "f", "arguments": "{}"}},
        {"id": "b", "type": "custom", "function": {"name": "g", "arguments": ""}},
        {"id": "", "type": "function", "function": {"name": "", "arguments": "[]"}},
        {"id": "", "type": "function", "function": {"name": "h", "arguments": ""}},
    ]


# --- anthropic_stream -----------------------------------------------------------------------------


def as_ev(data: dict[str, Any]) -> bytes:
    """One Anthropic SSE event (``event:`` named by the data's type)."""
    return b"event: " + data["type"].encode() + b"\ndata: " + json.dumps(data).encode() + b"\n\n"


AS_START = {
    "type": "message_start",
    "message": {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "c",
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 5, "cache_read_input_tokens": 2},
    },
}
AS_TEXT = {"type": "text", "text": ""}


def as_bs(i: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": i, "content_block": block}


def as_bd(i: Any, delta: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": i, "delta": delta}


def as_stop(i: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": i}


def as_refusal(*events: Any, close: bool = False) -> tuple[str, int | None, Any]:
    """The StreamError (text, frame, .error) an Anthropic accumulator raises on ``events``
    (fed one per chunk; then close() or body())."""
    acc = AS.StreamAccumulator()
    with pytest.raises(StreamError) as info:
        for event in events:
            acc.feed(as_ev(event) if type(event) is dict else event)
        acc.close() if close else acc.body()
    return str(info.value), info.value.frame, info.value.error


def test_anthropic_stream_refusals_exactly() -> None:
    """Every refusal of the Anthropic accumulator, its exact text and event index: events
    before message_start, a second one, block indexes out of order, deltas and stops for
    blocks not started or stopped, deltas for the wrong block type, fields of the wrong type,
    error events (with .error), known events of the wrong shape, events without a type, data
    after message_stop, a stream cut before message_start or message_stop."""
    tool = {"type": "tool_use", "id": "t", "name": "f", "input": {}}
    text = {"type": "text_delta", "text": "x"}
    cases: list[tuple[tuple[Any, ...], str, int, Any]] = [
        ((AS_START, AS_START), "a second message_start", 1, None),
        ((as_bs(0, AS_TEXT),), "content_block_start before message_start", 0, None),
        (({"type": "message_delta", "delta": {}},), "message_delta before message_start", 0, None),
        (({"type": "message_stop"},), "message_stop before message_start", 0, None),
        ((AS_START, as_bs(1, AS_TEXT)), "content_block_start index 1, expected 0", 1, None),
        ((AS_START, as_stop(0)), "content_block_stop for block 0, which has not started", 1, None),
        (
            (AS_START, as_bs(0, AS_TEXT), as_stop(0), as_stop(0)),
            "content_block_stop for block 0, which has stopped",
            3,
            None,
        ),
        (
            (AS_START, as_bs(0, AS_TEXT), as_stop(0), as_bd(0, text)),
            "content_block_delta for block 0, which has stopped",
            3,
            None,
        ),
        (
            (AS_START, as_bd(-1, text)),
            "content_block_delta for block -1, which has not started",
            1,
            None,
        ),
        (
            (AS_START, as_bs(0, AS_TEXT), as_bd(-1, text)),
            "content_block_delta for block -1, which has not started",
            2,
            None,
        ),
        (
            (AS_START, as_bd(0, text)),
            "content_block_delta for block 0, which has not started",
            1,
            None,
        ),
        (
            (AS_START, as_bs(0, tool), as_bd(0, text)),
            "a text_delta for block 0, a tool_use block (it goes to a text block)",
            2,
            None,
        ),
        (
            (AS_START, as_bs(0, AS_TEXT), as_bd(0, {"type": "thinking_delta", "thinking": "x"})),
            "a thinking_delta for block 0, a text block (it goes to a thinking block)",
            2,
            None,
        ),
        (
            (
                AS_START,
                as_bs(0, AS_TEXT),
                as_bd(0, {"type": "input_json_delta", "partial_json": "x"}),
            ),
            "a input_json_delta for block 0, a text block (it goes to a mcp_tool_use or"
            " server_tool_use or tool_use block)",
            2,
            None,
        ),
        (
            (
                AS_START,
                as_bs(0, {"type": "text", "text": "", "citations": 5}),
                as_bd(0, {"type": "citations_delta", "citation": {"a": 1}}),
            ),
            "block 0's citations must be an array, not int",
            2,
            None,
        ),
        (
            ({"type": "message_start", "message": {"content": 5}},),
            "message.content must be an array, not int",
            0,
            None,
        ),
        (
            ({"type": "message_start", "message": {"content": [5]}},),
            "message.content[0] must be an object, not int",
            0,
            None,
        ),
        (
            ({"type": "message_start", "message": {"content": [{"type": 5}]}},),
            "message.content[0].type must be a string, not int",
            0,
            None,
        ),
        (
            ({"type": "message_start", "message": {"content": [{"type": "text", "text": 5}]}},),
            "message.content[0].text must be a string, not int",
            0,
            None,
        ),
        (
            (AS_START, as_bs(0, {"type": "thinking", "thinking": None})),
            "content_block.thinking must be a string, not null",
            1,
            None,
        ),
        (
            (AS_START, {"type": "error", "error": {"type": "overloaded_error", "message": "Over"}}),
            "error event: Over",
            1,
            {"type": "overloaded_error", "message": "Over"},
        ),
        ((AS_START, {"type": "error", "error": "boom"}), "error event: boom", 1, "boom"),
        (
            (AS_START, {"type": "error", "error": {"type": "x"}}),
            "error event: {'type': 'x'}",
            1,
            {"type": "x"},
        ),
        ((AS_START, {"type": "error", "error": 5}), "error event: 5", 1, 5),
        (
            (AS_START, {"type": "message_delta", "delta": 5}),
            "a message_delta event of the wrong shape: {'type': 'message_delta', 'delta': 5}",
            1,
            None,
        ),
        (
            (AS_START, as_bs(0, AS_TEXT), as_bd(0, {"type": "text_delta", "text": 5})),
            "a content_block_delta event of the wrong shape: {'type': 'content_block_delta',"
            " 'index': 0, 'delta': {'type': 'text_delta', 'text': 5}}",
            2,
            None,
        ),
        (
            (AS_START, as_bs(0, AS_TEXT), as_bd("0", {"type": "odd"})),
            "a content_block_delta event of the wrong shape: {'type': 'content_block_delta',"
            " 'index': '0', 'delta': {'type': 'odd'}}",
            2,
            None,
        ),
        (
            (AS_START, as_bs(0, AS_TEXT), as_bd(0, {"type": 5})),
            "a content_block_delta event of the wrong shape: {'type': 'content_block_delta',"
            " 'index': 0, 'delta': {'type': 5}}",
            2,
            None,
        ),
        (
            (AS_START, as_bs(0, AS_TEXT), as_bd(0, "odd")),
            "a content_block_delta event of the wrong shape: {'type': 'content_block_delta',"
            " 'index': 0, 'delta': 'odd'}",
            2,
            None,
        ),
        (
            (AS_START, as_bs(0, AS_TEXT), as_bd(3, {"type": "odd", "x": "y"})),
            "content_block_delta for block 3, which has not started",
            2,
            None,
        ),
        (
            (b'event: x\ndata: {"type":5}\n\n',),
            "event 'x': 'type' must be a string, not int",
            0,
            None,
        ),
        (
            (b'event: x\ndata: {"n":1}\n\n',),
            "event 'x': 'type' must be a string, not null",
            0,
            None,
        ),
        (
            (AS_START, {"type": "message_stop"}, {"type": "ping"}),
            "data after the end of the stream (message_stop at event 1)",
            2,
            None,
        ),
    ]
    for events, message, frame, error in cases:
        assert as_refusal(*events) == (f"{message} (frame {frame})", frame, error), events
    assert as_refusal() == ("a response before message_start (frame 0)", 0, None)
    assert as_refusal(close=True) == ("the stream ended before message_start (frame 0)", 0, None)
    assert as_refusal(AS_START, close=True) == (
        "the stream ended before message_stop (frame 1)",
        1,
        None,
    )


def test_anthropic_stream_accumulates_every_block_kind_exactly() -> None:
    """The body: message_start's own blocks first; text joined onto the start's text (or onto
    nothing); citations appended to a list the block had or gets; thinking and its
    signature (replacing the start's); tool, server-tool and MCP inputs parsed from the
    joined JSON pieces, or kept raw when not an object or cut short; other deltas' strings
    appended and other values replaced; usage counters from message_delta, a null keeping
    message_start's value."""
    message = dict(
        AS_START["message"],  # type: ignore[arg-type]
        content=[{"type": "text", "text": "pre"}, {"type": "tool_use", "id": "a", "input": {}}],
    )
    pieces = [{"type": "input_json_delta", "partial_json": p} for p in ('{"a":', "[1]}")]
    mcp = {"type": "mcp_tool_use", "id": "u", "name": "h", "server_name": "srv", "input": {}}
    events = [
        {"type": "message_start", "message": message},
        as_bs(2, {"type": "text", "text": "Hi "}),
        as_bd(2, {"type": "text_delta", "text": "there"}),
        as_bd(2, {"type": "citations_delta", "citation": {"n": 1}}),
        as_bd(2, {"type": "citations_delta", "citation": {"n": 2}}),
        as_stop(2),
        as_bs(3, {"type": "thinking", "thinking": "", "signature": "old"}),
        as_bd(3, {"type": "thinking_delta", "thinking": "hm"}),
        as_bd(3, {"type": "signature_delta", "signature": "sig"}),
        as_stop(3),
        as_bs(4, {"type": "tool_use", "id": "t", "name": "g", "input": {}}),
        as_bd(4, pieces[0]),
        as_bd(4, pieces[1]),
        as_stop(4),
        as_bs(5, {"type": "server_tool_use", "id": "s", "name": "web", "input": {"q": 0}}),
        as_stop(5),
        as_bs(6, mcp),
        as_bd(6, {"type": "input_json_delta", "partial_json": "[1]"}),
        as_stop(6),
        as_bs(7, {"type": "text", "text": "", "citations": [{"n": 0}]}),
        as_bd(7, {"type": "citations_delta", "citation": {"n": 3}}),
        as_stop(7),
        as_bs(8, {"type": "compaction", "content": "a", "n": 1, "z": None}),
        as_bd(8, {"type": "compaction_delta", "content": "b", "n": "s", "z": "t", "w": [1]}),
        as_stop(8),
        as_bs(9, {"type": "tool_use", "id": "v", "name": "h", "input": {}}),
        as_bd(9, {"type": "input_json_delta", "partial_json": '{"cut'}),
        as_bs(10, {"type": "text"}),
        as_bd(10, {"type": "text_delta", "text": "k"}),
        {
            "type": "message_delta",
            "delta": {"stop_reason": "max_tokens", "stop_sequence": None},
            "usage": {"output_tokens": 9, "input_tokens": None, "cache_read_input_tokens": None},
        },
    ]
    acc = AS.StreamAccumulator()
    for event in events:
        acc.feed(as_ev(event))
    assert acc.body() == {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "c",
        "content": [
            {"type": "text", "text": "pre"},
            {"type": "tool_use", "id": "a", "input": {}},
            {"type": "text", "text": "Hi there", "citations": [{"n": 1}, {"n": 2}]},
            {"type": "thinking", "thinking": "hm", "signature": "sig"},
            {"type": "tool_use", "id": "t", "name": "g", "input": {"a": [1]}},
            {"type": "server_tool_use", "id": "s", "name": "web", "input": {"q": 0}},
            dict(mcp, arguments="[1]"),
            {"type": "text", "text": "", "citations": [{"n": 0}, {"n": 3}]},
            {"type": "compaction", "content": "ab", "n": "s", "z": "t", "w": [1]},
            {"type": "tool_use", "id": "v", "name": "h", "input": {}, "arguments": '{"cut'},
            {"type": "text", "text": "k"},
        ],
        "stop_reason": "max_tokens",
        "usage": {"input_tokens": 5, "cache_read_input_tokens": 2, "output_tokens": 9},
        "stop_sequence": None,
    }
    assert events[1]["content_block"] == {"type": "text", "text": "Hi "}


def test_anthropic_stream_usage_content_and_stop_reason_edges() -> None:
    """message_start without content (null) starts empty; usage that is not an object is
    replaced by message_delta's; no stop reason yet reads as ""; the limits given reach the
    parser; after message_stop even a text piece for an open block is refused."""
    acc = AS.StreamAccumulator()
    acc.feed(
        as_ev({"type": "message_start", "message": {"id": "m", "model": "c", "content": None}})
    )
    assert acc.body() == {"id": "m", "model": "c", "content": []}
    assert acc.response().stop_reason == ""
    acc = AS.StreamAccumulator()
    acc.feed(as_ev(dict(AS_START, message=dict(AS_START["message"], usage=5))))  # type: ignore[arg-type]
    acc.feed(as_ev({"type": "message_delta", "delta": {}, "usage": {"output_tokens": 1}}))
    assert acc.body()["usage"] == {"output_tokens": 1}
    acc = AS.StreamAccumulator(Limits(max_size=100))
    with pytest.raises(StreamError) as info:
        acc.feed(as_ev(AS_START))
    assert str(info.value) == (
        "the stream is longer than the limit of 100 bytes (Limits.max_size) (frame 0)"
    )
    acc = AS.StreamAccumulator()
    events = acc.feed(as_ev(AS_START) + as_ev(as_bs(0, AS_TEXT)))
    events += acc.feed(as_ev(as_bd(0, {"type": "text_delta", "text": "a"})))
    acc.feed(as_ev({"type": "message_stop"}))
    with pytest.raises(StreamError) as info:
        acc.apply(events[-1])
    assert str(info.value) == (
        "an event after the end of the stream (message_stop at event 3) (frame 4)"
    )
    assert acc.body()["content"] == [{"type": "text", "text": "a"}]


def test_anthropic_stream_unknown_events_in_one_chunk_keep_their_own_data() -> None:
    """Several events in one chunk, some of unknown types between known ones: each unknown
    event is kept with its own data and index, and the known ones apply."""
    chunk = b"".join(
        as_ev(e)
        for e in [
            AS_START,
            {"type": "odd_a", "n": 1},
            {"type": "ping"},
            {"type": "odd_b", "n": 2},
            as_bs(0, AS_TEXT),
            {"type": "odd_c", "n": 3},
        ]
    )
    acc = AS.StreamAccumulator()
    acc.feed(chunk)
    assert acc.unknown == [
        UnknownEvent("odd_a", {"type": "odd_a", "n": 1}, "anthropic", 1),
        UnknownEvent("odd_b", {"type": "odd_b", "n": 2}, "anthropic", 3),
        UnknownEvent("odd_c", {"type": "odd_c", "n": 3}, "anthropic", 5),
    ]
    assert acc.body()["content"] == [AS_TEXT]


def c_refusal(*chunks: bytes) -> tuple[str, int | None, Any]:
    """The StreamError (text, frame, .error) a Chat accumulator raises on ``chunks``, or at
    ``body()`` after them."""
    acc = CS.StreamAccumulator()
    with pytest.raises(StreamError) as info:
        for chunk in chunks:
            acc.feed(chunk)
        acc.body()
    return str(info.value), info.value.frame, info.value.error


def c_raw(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def test_chat_stream_refusals_exactly() -> None:
    """The Chat accumulator's refusals, text, event index and .error: an error object (its
    message, or the whole error when it has none or is not an object), also beside every
    chunk key; a chunk of the wrong shape (also with unknown keys, which takes the slow
    path); bad JSON; a body before any chunk; an event that is not a chunk."""
    top = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    error = {"message": "boom", "type": "x"}
    assert c_refusal(c_raw({"error": error})) == ("error event: boom (frame 0)", 0, error)
    late = {"message": "late"}
    assert c_refusal(c_raw({**top, "choices": [], "error": late})) == (
        "error event: late (frame 0)",
        0,
        late,
    )
    assert c_refusal(c_event(), c_raw({"error": 5})) == ("error event: 5 (frame 1)", 1, 5)
    assert c_refusal(c_raw({"error": {"type": "x"}})) == (
        "error event: {'type': 'x'} (frame 0)",
        0,
        {"type": "x"},
    )
    assert c_refusal(c_raw({**top, "id": 5, "choices": []})) == (
        "chunk: Expected `str`, got `int` - at `$.id` (frame 0)",
        0,
        None,
    )
    for extra in ({}, {"x": 1}):
        assert c_refusal(c_raw({**top, "choices": [5], **extra})) == (
            "chunk: Expected `object`, got `int` - at `$.choices[0]` (frame 0)",
            0,
            None,
        )
    assert c_refusal(b"data: {bad\n\n") == (
        "chunk: invalid JSON: JSON is malformed: object keys must be strings (byte 1) (frame 0)",
        0,
        None,
    )
    assert c_refusal() == ("no chunk received yet (frame 0)", 0, None)
    acc = CS.StreamAccumulator()
    with pytest.raises(StreamError) as info:
        acc.apply(5)
    assert (str(info.value), info.value.frame) == ("not a ChatChunk: int (frame 0)", 0)


def test_chat_stream_joins_every_field_and_unknown_key_exactly() -> None:
    """The body: role as sent, content parts then text as one more part, refusal pieces
    joined, tool call names and arguments joined (a null function adds nothing), the first
    chunk's system_fingerprint and service_tier, the last non-null usage; unknown keys at
    every level: top-level and choice keys replaced by later ones, message and tool-call
    strings joined, objects merged key by key (strings inside joined at message level), a
    call's keys going to the call of their own index (or the last call without one); a key
    named like the hidden unknown-keys field kept."""
    hidden = "(minagent: unknown keys)"
    first = {"index": 0, "id": "a", "function": {"name": "get_", "arguments": "{"}}
    body = c_body(
        c_event(
            {
                "index": 0,
                "delta": {
                    "role": "x",
                    "content": [{"type": "text", "text": "p"}],
                    "refusal": "no",
                    "reasoning_content": "r",
                    "psf": {"s": "a", "d": {"k": "1"}},
                },
                "extra_c": "e1",
            },
            system_fingerprint="fp",
            service_tier="t",
            usage={"total_tokens": 1},
            x_top="a",
            x_obj={"a": 1, "s": "a"},
            **{hidden: 1},
        ),
        c_event(
            {
                "index": 0,
                "delta": {
                    "content": "q",
                    "refusal": "pe",
                    "reasoning_content": "s",
                    "psf": {"s": "b", "d": {"k": "2"}},
                    "tool_calls": [
                        {**first, "extra_content": "x"},
                        {"index": 1, "id": "b", "function": None},
                    ],
                },
                "extra_c": "e2",
            },
            usage=None,
            x_top="b",
            x_obj={"b": 2, "s": "b"},
            system_fingerprint="fp2",
            service_tier="t2",
        ),
        c_chunk(
            {
                "tool_calls": [
                    {"index": 0, "function": {"name": "weather", "arguments": "}"}},
                    {"id": "b", "extra_content": {"n": 1}},
                ]
            }
        ),
        c_chunk({"tool_calls": [{"index": 0, "extra_content": "y"}, {"index": 1}]}, usage=None),
        c_chunk({"tool_calls": [{"id": "b", "extra_content": {"m": 2}}]}, "stop"),
    )
    assert body == {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "x",
                    "content": [{"type": "text", "text": "p"}, {"type": "text", "text": "q"}],
                    "refusal": "nope",
                    "reasoning_content": "rs",
                    "psf": {"s": "ab", "d": {"k": "12"}},
                    "tool_calls": [
                        {
                            "id": "a",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": "{}"},
                            "extra_content": "xy",
                        },
                        {
                            "id": "b",
                            "type": "function",
                            "function": {"name": "", "arguments": ""},
                            "extra_content": {"n": 1, "m": 2},
                        },
                    ],
                },
                "logprobs": None,
                "finish_reason": "stop",
                "extra_c": "e2",
            }
        ],
        "usage": {"total_tokens": 1},
        "service_tier": "t",
        "system_fingerprint": "fp",
        "x_top": "b",
        "x_obj": {"a": 1, "s": "b", "b": 2},
        hidden: 1,
    }


def test_chat_stream_bodies_without_choices_or_finish() -> None:
    """A stream with no choice gives one empty assistant choice (finish_reason ""); text
    without a finish reason gives finish_reason ""; no usage, no usage key."""
    base = {"id": "c", "object": "chat.completion", "created": 1, "model": "m"}
    empty = {"role": "assistant", "content": None, "refusal": None}
    assert c_body(c_event()) == {
        **base,
        "choices": [{"index": 0, "message": empty, "logprobs": None, "finish_reason": ""}],
    }
    assert c_body(c_chunk({"content": "a"}), c_event(usage=None)) == {
        **base,
        "choices": [
            {
                "index": 0,
                "message": dict(empty, content="a"),
                "logprobs": None,
                "finish_reason": "",
            }
        ],
    }


def test_chat_stream_key_named_like_the_hidden_field_alone_is_kept() -> None:
    """A chunk whose only key outside the chunk shape is named like the hidden unknown-keys
    field still keeps it as an unknown top-level key."""
    hidden = "(minagent: unknown keys)"
    assert c_body(c_event(**{hidden: [1]}))[hidden] == [1]


# --- _chat_ext ------------------------------------------------------------------------------------


CITE = {
    "type": "char_location",
    "cited_text": "c",
    "document_index": 0,
    "start_char_index": 0,
    "end_char_index": 1,
}


def ce_blocks(*content: dict[str, Any]) -> list[Any]:
    """Anthropic content blocks as the neutral blocks the Anthropic adapter reads."""
    body = {"id": "m", "type": "message", "role": "assistant", "model": "c"}
    body["stop_reason"] = "end_turn"
    usage = {"input_tokens": 1, "output_tokens": 1}
    data = json.dumps({**body, "content": list(content), "usage": usage})
    return list(anthropic.decode_response(data).message.content)


def ce_split(content: list[Any], **options: Any) -> tuple[list[Any], Any]:
    """`_chat_ext.split` of Anthropic blocks: the plain blocks and the extension keys as JSON."""
    policy = options.pop("policy", Unsupported())
    plain, fields = CE.split(content, "$.m", policy, True, lambda b: False, **options)
    return plain, json.loads(msgspec.json.encode(fields))


def ce_back(plain: list[Any], fields: dict[str, Any]) -> Any:
    """`_chat_ext.blocks_of` for what `split` gave (text joined, the plain tool calls)."""
    text = "".join(b.text for b in plain if type(b) is wb.TextBlock)
    calls = [b for b in plain if type(b) is wb.ToolUseBlock]
    return CE.blocks_of(
        fields.get(CE.REASONING, UNSET),
        fields.get(CE.THINKING, UNSET),
        fields.get(CE.PSF, UNSET),
        text,
        calls,
        "$.m",
    )


def test_chat_ext_writes_every_block_kind_and_its_order_exactly() -> None:
    """Thinking, citations, server tool calls (a typed caller in the call's own
    provider_specific_fields) and whole blocks by list (compaction, web search and fetch
    results, other tool results, any other block) go to the extension keys; the order is
    written when it is not the default one; reading the keys back gives the same blocks."""
    content = ce_blocks(
        {"type": "compaction", "content": "summary"},
        {"type": "thinking", "thinking": "hm", "signature": "s1"},
        {"type": "redacted_thinking", "data": "R"},
        {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"q": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []},
        {
            "type": "server_tool_use",
            "id": "srv_2",
            "name": "code_execution",
            "input": {},
            "caller": {"type": "direct"},
        },
        {"type": "code_execution_tool_result", "tool_use_id": "srv_2", "content": {"type": "x"}},
        {"type": "web_fetch_tool_result", "tool_use_id": "srv_9", "content": {}},
        {"type": "container_upload", "file_id": "f"},
        {"type": "text", "text": "Intro. "},
        {"type": "text", "text": "Cited.", "citations": [CITE]},
        {"type": "text", "text": " Tail"},
        {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}},
    )
    plain, fields = ce_split(content)
    assert plain == [
        wb.TextBlock("Intro. "),
        wb.TextBlock("Cited."),
        wb.TextBlock(" Tail"),
        content[-1],
    ]
    assert fields == {
        "reasoning_content": "hm",
        "thinking_blocks": [
            {"type": "thinking", "thinking": "hm", "signature": "s1"},
            {"type": "redacted_thinking", "data": "R"},
        ],
        "provider_specific_fields": {
            "citations": [[{**CITE, "supported_text": "Cited."}]],
            "server_tool_calls": [
                {
                    "id": "srv_1",
                    "type": "function",
                    "function": {"name": "web_search", "arguments": '{"q":"q"}'},
                },
                {
                    "id": "srv_2",
                    "type": "function",
                    "function": {"name": "code_execution", "arguments": "{}"},
                    "provider_specific_fields": {"caller": {"type": "direct"}},
                },
            ],
            "compaction_blocks": [{"type": "compaction", "content": "summary"}],
            "content_blocks": [{"type": "container_upload", "file_id": "f"}],
            "web_search_results": [
                {"type": "web_search_tool_result", "tool_use_id": "srv_1", "content": []},
                {"type": "web_fetch_tool_result", "tool_use_id": "srv_9", "content": {}},
            ],
            "tool_results": [
                {
                    "type": "code_execution_tool_result",
                    "tool_use_id": "srv_2",
                    "content": {"type": "x"},
                }
            ],
            "minagent_order": [
                "compaction_blocks",
                "thinking",
                "thinking",
                "server_tool_use",
                "web_search_results",
                "server_tool_use",
                "tool_results",
                "web_search_results",
                "content_blocks",
                "text:7",
                "cited:6",
                "text:5",
                "tool_use",
            ],
        },
    }
    assert ce_back(plain, fields) == (content, {})


def test_chat_ext_default_order_is_not_written() -> None:
    """Blocks in the default order (compaction, thinking, each server call with the results
    answering it from every list, the other whole blocks by list, the text split at its
    citations, the tool calls) are written without minagent_order and read back the same."""
    content = ce_blocks(
        {"type": "compaction", "content": "a"},
        {"type": "thinking", "thinking": "x", "signature": "s"},
        {"type": "thinking", "thinking": "y"},
        {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {}},
        {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []},
        {"type": "code_execution_tool_result", "tool_use_id": "s1", "content": {}},
        {"type": "server_tool_use", "id": "s2", "name": "web_fetch", "input": {}},
        {"type": "web_fetch_tool_result", "tool_use_id": "s2", "content": {}},
        {"type": "container_upload", "file_id": "f"},
        {"type": "web_search_tool_result", "tool_use_id": "s9", "content": []},
        {"type": "bash_code_execution_tool_result", "tool_use_id": "s8", "content": {}},
        {"type": "text", "text": "a "},
        {"type": "text", "text": "b", "citations": [CITE]},
        {"type": "text", "text": "c", "citations": [CITE, CITE]},
        {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
        {"type": "tool_use", "id": "t2", "name": "g", "input": {}},
    )
    plain, fields = ce_split(content)
    psf = fields["provider_specific_fields"]
    assert "minagent_order" not in psf
    assert fields["reasoning_content"] == "xy"
    assert fields["thinking_blocks"][1] == {"type": "thinking", "thinking": "y"}
    assert psf["citations"] == [
        [{**CITE, "supported_text": "b"}],
        [{**CITE, "supported_text": "c"}, {**CITE, "supported_text": "c"}],
    ]
    assert [b["tool_use_id"] for b in psf["web_search_results"]] == ["s1", "s2", "s9"]
    assert [b["tool_use_id"] for b in psf["tool_results"]] == ["s1", "s8"]
    assert ce_back(plain, fields) == (content, {})


def test_chat_ext_thinking_keys_written_back_or_listed() -> None:
    """A thinking or redacted block's other keys go into its entry when the message came from
    the extension (own), else each is listed as metadata at its path; bookkeeping hints are
    neither; keys the entry has already stay the entry's."""
    thinking = wb.ThinkingBlock("t", signature="s", extra=Extra({"index": 0, "openai_item": 1}))
    redacted = wb.RedactedThinkingBlock("d", extra=Extra({"index": 1, "content_list": True}))
    content = [wb.TextBlock("a"), thinking, redacted]
    skip = lambda b: type(b) is wb.TextBlock  # noqa: E731
    plain, fields = CE.split(content, "$.m", Unsupported(), True, skip, True)
    assert plain == [content[0]]
    assert fields == {
        "reasoning_content": "t",
        "thinking_blocks": [
            {"type": "thinking", "thinking": "t", "signature": "s", "index": 0, "openai_item": 1},
            {"type": "redacted_thinking", "data": "d", "index": 1},
        ],
        "provider_specific_fields": {"minagent_order": ["thinking", "thinking"]},
    }
    policy = Unsupported()
    plain, fields = CE.split(content, "$.m", policy, True, skip)
    assert plain == [content[0]]
    assert fields["thinking_blocks"] == [
        {"type": "thinking", "thinking": "t", "signature": "s"},
        {"type": "redacted_thinking", "data": "d"},
    ]
    assert policy.dropped == [
        Dropped("$.m.content[1].index", "the key 'index' on a thinking block", "metadata"),
        Dropped(
            "$.m.content[1].openai_item", "the key 'openai_item' on a thinking block", "metadata"
        ),
        Dropped("$.m.content[2].index", "the key 'index' on a redacted_thinking block", "metadata"),
    ]


def test_chat_ext_blocks_chat_writes_itself() -> None:
    """Without Anthropic blocks (blocks_ok False), server calls and other blocks stay with the
    plain blocks, as do text-like blocks (an image) always; a server call carrying keys of its
    own goes whole to content_blocks; thinking (or citations) alone fill the keys, the order
    written when it is not the default one."""
    server = wb.ServerToolUseBlock(id="s", name="web_search", input={})
    odd = wb.ServerToolUseBlock(id="s2", name="web_search", input={}, extra=Extra({"x": 1}))
    image = ce_blocks(
        {"type": "image", "source": {"type": "url", "url": "https://x.example/i.png"}}
    )[0]
    result = ce_blocks({"type": "web_search_tool_result", "tool_use_id": "s", "content": []})[0]
    content = [wb.TextBlock("a"), server, odd, image, result]
    never = lambda b: False  # noqa: E731
    assert CE.split(content, "$", Unsupported(), False, never) == (content, {})
    assert CE.split(content, "$", Unsupported(), True, never) == (
        [content[0], image],
        {
            "provider_specific_fields": {
                "server_tool_calls": [
                    {
                        "id": "s",
                        "type": "function",
                        "function": {"name": "web_search", "arguments": "{}"},
                    }
                ],
                "content_blocks": [
                    {
                        "type": "server_tool_use",
                        "id": "s2",
                        "name": "web_search",
                        "input": {},
                        "x": 1,
                    }
                ],
                "web_search_results": [result],
                "minagent_order": [
                    "text:1",
                    "server_tool_use",
                    "content_blocks",
                    "web_search_results",
                ],
            }
        },
    )
    thinking = wb.ThinkingBlock("t")
    assert CE.split([thinking, wb.TextBlock("a")], "$", Unsupported(), True, never)[1] == {
        "reasoning_content": "t",
        "thinking_blocks": [{"type": "thinking", "thinking": "t"}],
    }
    assert CE.split([wb.TextBlock("a"), thinking], "$", Unsupported(), True, never)[1] == {
        "reasoning_content": "t",
        "thinking_blocks": [{"type": "thinking", "thinking": "t"}],
        "provider_specific_fields": {"minagent_order": ["text:1", "thinking"]},
    }
    cited = wb.TextBlock("a", citations=[CITE])
    assert CE.split([cited, server], "$", Unsupported(), True, never)[1] == {
        "provider_specific_fields": {
            "citations": [[{**CITE, "supported_text": "a"}]],
            "server_tool_calls": [
                {
                    "id": "s",
                    "type": "function",
                    "function": {"name": "web_search", "arguments": "{}"},
                }
            ],
            "minagent_order": ["cited:1", "server_tool_use"],
        }
    }


def test_chat_ext_stop_reason_and_call_fields() -> None:
    """put_stop_reason adds stop_reason to the message's provider_specific_fields (a new
    object, the other keys kept; one that is not an object replaced); call_fields gives the
    typed call keys that are set; lift_call turns a call's provider_specific_fields of typed
    keys only into those fields (other extra keys kept), and leaves every other block as it
    is."""
    for message, psf in [
        ({}, {"stop_reason": "pause_turn"}),
        ({CE.PSF: {"a": 1}}, {"a": 1, "stop_reason": "pause_turn"}),
        ({CE.PSF: 5}, {"stop_reason": "pause_turn"}),
    ]:
        before = message.get(CE.PSF)
        CE.put_stop_reason(message, "pause_turn")
        assert message == {CE.PSF: psf}
        assert before in ({"a": 1}, 5, None)
    caller = {"type": "direct"}
    typed = wb.ToolUseBlock(id="a", name="f", input={}, caller=caller, cache_control={"t": 1})
    assert CE.call_fields(typed) == {"caller": caller, "cache_control": {"t": 1}}
    assert CE.call_fields(wb.ToolUseBlock(id="a", name="f", input={})) == {}

    def call(extra: Any) -> Any:
        return wb.ToolUseBlock(id="a", name="f", input={"k": 1}, extra=extra)

    assert CE.lift_call(call(Extra({CE.PSF: {"caller": caller}, "x": 1}))) == wb.ToolUseBlock(
        id="a", name="f", input={"k": 1}, caller=caller, extra=Extra({"x": 1})
    )
    both = {"caller": caller, "toolset_name": "ts"}
    assert CE.lift_call(call(Extra({CE.PSF: both}))) == wb.ToolUseBlock(
        id="a", name="f", input={"k": 1}, caller=caller, toolset_name="ts"
    )
    for block in [
        call(UNSET),
        call(Extra({"x": 1})),
        call(Extra({CE.PSF: 5})),
        call(Extra({CE.PSF: {}})),
        call(Extra({CE.PSF: {"caller": caller, "other": 1}})),
        call(Extra({CE.PSF: {"cache_control": 5}})),
        wb.UnknownBlock(Extra({"type": "tool_call", CE.PSF: {"caller": caller}})),
    ]:
        assert CE.lift_call(block) is block, block


def test_chat_ext_reading_refuses_what_would_not_write_back() -> None:
    """blocks_of gives None for keys that are not the extension's shapes: thinking entries of
    the wrong types, reasoning that is not their joined text, provider_specific_fields that
    is not an object, server calls of the wrong shape, an order that is not a list or names
    what is not there; LiteLLM's citations: null stays the message's own key."""
    t = {"type": "thinking", "thinking": "x"}
    ok = [t, {"type": "thinking", "thinking": "y", "signature": "s"}]
    assert CE._thinking_in(ok) is ok
    assert CE._thinking_in([{"type": "redacted_thinking", "data": "d"}]) == [
        {"type": "redacted_thinking", "data": "d"}
    ]
    for bad in [
        5,
        [5],
        [{"type": "thinking", "thinking": 5}],
        [{"type": "thinking", "thinking": "x", "signature": 5}],
        [{"type": "redacted_thinking", "data": 5}],
        [{"type": "other", "data": "d"}],
    ]:
        with pytest.raises(CE._Fail):
            CE._thinking_in(bad)
    fn = {"name": "web_search", "arguments": '{"q":1}'}
    good = {"id": "s", "type": "function", "function": fn}
    fields = {"caller": {"type": "direct"}, "cache_control": {"type": "ephemeral"}}
    assert CE._server_in([good, {**good, CE.PSF: fields}]) == [
        {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {"q": 1}},
        {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {"q": 1}, **fields},
    ]
    for bad in [
        5,
        [5],
        [{**good, "type": "custom"}],
        [{**good, "function": {"name": 5, "arguments": "{}"}}],
        [{**good, "function": {"name": "f"}}],
        [{**good, "function": {"name": "f", "arguments": "[1]"}}],
        [{**good, "function": {"name": "f", "arguments": "{"}}],
        [{**good, CE.PSF: 5}],
        [{**good, CE.PSF: {"other": 1}}],
    ]:
        with pytest.raises(CE._Fail):
            CE._server_in(bad)
    assert CE.blocks_of(UNSET, UNSET, {"citations": None}, "a", [], "$") == (
        [wb.TextBlock("a")],
        {"citations": None},
    )
    assert CE.blocks_of("x", [t], UNSET, None, [], "$") == ([wb.ThinkingBlock("x")], {})
    assert CE.blocks_of("xy", [t], UNSET, "a", [], "$") is None
    assert CE.blocks_of("x", [t], 5, "a", [], "$") is None
    assert CE.blocks_of("x", [t], {CE.ORDER: "thinking"}, "a", [], "$") is None
    assert CE.blocks_of("x", [5], UNSET, "a", [], "$") is None
    cites = [[{**CITE, "supported_text": "zz"}]]
    assert CE.blocks_of(UNSET, UNSET, {"citations": cites}, "a", [], "$") is None
    assert CE.blocks_of(UNSET, UNSET, {"server_tool_calls": [good]}, "a", [], "$") == (
        [wb.ServerToolUseBlock(id="s", name="web_search", input={"q": 1}), wb.TextBlock("a")],
        {},
    )
    odd = {**good, CE.PSF: {"caller": 5}}  # the extension's shape, not a typed block's
    assert CE.blocks_of(UNSET, UNSET, {"server_tool_calls": [odd]}, "a", [], "$") is None
    bad_result = {"web_search_results": [{"type": "web_search_tool_result", "content": []}]}
    assert CE.blocks_of(UNSET, UNSET, bad_result, "a", [], "$") is None
    assert CE._typed([], "$") == []


def test_chat_ext_segments_and_walk_exactly() -> None:
    """The text's default tokens: each citation group found in order from where the last one
    ended (a repeated text found again further on), the text between and after as plain
    tokens; None for a group that is not a non-empty list of objects with a string
    supported_text found in the text. The walk reads the tokens back, or None when they do
    not use the text, citations and queues exactly."""

    def group(text: str) -> list[dict[str, Any]]:
        return [{"supported_text": text}]

    assert CE._segments("X X", [group("X"), group("X")]) == ["cited:1", "text:1", "cited:1"]
    assert CE._segments("XaX tail", [group("X"), group("X")]) == [
        "cited:1",
        "text:1",
        "cited:1",
        "text:5",
    ]
    assert CE._segments("ab", []) == ["text:2"]
    assert CE._segments("", []) == []
    for bad in ([5], [[]], [[5]], [[{"supported_text": 5}]], [group("Z")]):
        assert CE._segments("X X", bad) is None, bad
    assert CE._default_order(0, "a", [], ["s"], {}, 1) == ["server_tool_use", "text:1", "tool_use"]
    text = wb.TextBlock
    assert CE._walk(["text:1", "cited:1"], {}, "ab", [group("b")]) == [
        text("a"),
        text("b", citations=[{}]),
    ]
    call = wb.ToolUseBlock(id="t", name="f", input={})
    assert CE._walk(["tool_use"], {"tool_use": [call]}, "", []) == [call]
    for order, queues, body, cites in [
        ([5], {}, "a", []),
        (["text:x"], {}, "a", []),
        (["text:2"], {}, "a", []),
        (["text:1"], {}, "ab", []),
        (["cited:1"], {}, "a", []),
        (["cited:1"], {}, "a", [5]),
        (["cited:1"], {}, "a", [[{"supported_text": "b"}]]),
        (["cited:1"], {}, "a", [[{"supported_text": "a"}, {"supported_text": "b"}]]),
        (["cited:1"], {}, "a", [[5]]),
        (["text:1"], {}, "a", [group("a")]),
        (["tool_use"], {"tool_use": []}, "", []),
        (["other"], {}, "", []),
        ([], {"tool_use": [call]}, "", []),
    ]:
        assert CE._walk(order, queues, body, list(cites)) is None, order


def test_chat_response_with_extension_keys_and_a_custom_tool_call_round_trips() -> None:
    """An assistant message with provider_specific_fields and a tool call that is not a
    function call decodes (the call kept whole) and is written back exactly; it used to raise
    AttributeError from the extension's reading of the calls."""
    call = {"id": "c1", "type": "custom", "custom": {"name": "x", "input": "y"}}
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [call],
        "provider_specific_fields": {"a": 1},
    }
    choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": "tool_calls"}
    body = {"id": "c", "object": "chat.completion", "created": 1, "model": "m"}
    body["choices"] = [choice]
    response = openai_chat.decode_response(json.dumps(body))
    assert response.message.content == [wb.UnknownBlock(Extra(call))]
    assert json.loads(openai_chat.encode_response(response)) == body


def test_chat_ext_hints_skipped_all_call_keys_lifted_unsafe_blocks_refused() -> None:
    """A bookkeeping hint before another key is skipped and the key after it still written;
    a call with all three typed keys is lifted; a whole block holding a value JSON cannot
    hold is refused with its path."""
    redacted = wb.RedactedThinkingBlock("d", extra=Extra({"content_list": True, "index": 1}))
    never = lambda b: False  # noqa: E731
    assert CE.split([redacted], "$", Unsupported(), True, never, True)[1] == {
        "reasoning_content": "",
        "thinking_blocks": [{"type": "redacted_thinking", "data": "d", "index": 1}],
    }
    keys = {"caller": {"type": "direct"}, "cache_control": {"type": "ephemeral"}}
    keys["toolset_name"] = "ts"
    block = wb.ToolUseBlock(id="a", name="f", input={}, extra=Extra({CE.PSF: keys}))
    assert CE.lift_call(block) == wb.ToolUseBlock(id="a", name="f", input={}, **keys)
    odd = wb.UnknownBlock(Extra({"type": "x", "v": float("nan")}))
    with pytest.raises(EncodeError) as info:
        CE.split([odd], "$.m", Unsupported(), True, never)
    assert str(info.value) == "nan cannot be written as JSON (at $.m.content[0].v)"


# --- translate ------------------------------------------------------------------------------------


def test_stream_body_per_target_exactly() -> None:
    """stream_body: Chat choices get logprobs, and messages content and refusal, as null where
    absent (other values kept, a message that is not an object left alone, no choices an
    empty list); Gemini's first candidate gets its text parts merged and finishReason STOP
    when absent (the others, and bodies without a first candidate object, unchanged);
    Anthropic and Responses bodies are copied unchanged. The body given is never changed."""
    chat = {
        "id": "x",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "a"}},
            {"index": 1, "message": None, "logprobs": 5},
        ],
    }
    assert TR.stream_body("openai_chat", chat) == {
        "id": "x",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "a", "refusal": None},
                "logprobs": None,
            },
            {"index": 1, "message": None, "logprobs": 5},
        ],
    }
    assert chat["choices"][0] == {"index": 0, "message": {"role": "assistant", "content": "a"}}
    assert TR.stream_body("openai_chat", {"id": "x"}) == {"id": "x", "choices": []}
    parts = [{"text": "a"}, {"text": ""}, {"text": "b"}]
    gemini = {"candidates": [{"content": {"role": "model", "parts": parts}}, {"index": 1}]}
    assert TR.stream_body("gemini", {**gemini, "x": 1}) == {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "ab"}]}, "finishReason": "STOP"},
            {"index": 1},
        ],
        "x": 1,
    }
    assert gemini["candidates"][0] == {"content": {"role": "model", "parts": parts}}
    done = {"candidates": [{"content": {"parts": [{"text": "a"}]}, "finishReason": "MAX_TOKENS"}]}
    assert TR.stream_body("gemini", done) == {
        "candidates": [{"finishReason": "MAX_TOKENS", "content": {"parts": [{"text": "a"}]}}]
    }
    for body in ({"candidates": []}, {"candidates": 5}, {"candidates": [5]}, {}):
        out = TR.stream_body("gemini", body)
        assert out == body and out is not body
    for target in ("anthropic", "openai_responses"):
        body = {"a": 1, "choices": [], "candidates": [{}]}
        out = TR.stream_body(target, body)
        assert out == body and out is not body


def test_translator_refuses_bad_arguments_exactly() -> None:
    """Unknown formats (source or target, the known ones listed), a bad unsupported policy,
    sse=False for a source other than Gemini, and chunks that are not bytes are refused with
    their own messages."""
    known = "anthropic, gemini, openai_chat, openai_responses"
    for args, message in [
        (("nope", "anthropic"), f"unknown source format 'nope'; one of: {known}"),
        (("anthropic", "nope"), f"unknown target format 'nope'; one of: {known}"),
    ]:
        with pytest.raises(ValueError) as info:
            TR.StreamTranslator(*args)
        assert str(info.value) == message
    with pytest.raises(ValueError) as info:
        TR.StreamTranslator("anthropic", "gemini", unsupported="x")  # type: ignore[arg-type]
    assert str(info.value) == "unsupported must be 'error' or 'drop', not 'x'"
    with pytest.raises(ValueError) as info:
        TR.StreamTranslator("anthropic", "gemini", sse=False)
    assert str(info.value) == "sse=False is for a Gemini source only, not 'anthropic'"
    translator = TR.StreamTranslator("anthropic", "gemini")
    with pytest.raises(TypeError) as type_info:
        translator.feed("text")  # type: ignore[arg-type]
    assert str(type_info.value) == "a stream chunk must be bytes, not str"
    for blocked in (TR._nothing, lambda: TR._nothing_more()):
        with pytest.raises(AssertionError) as failed:
            blocked("x") if blocked is TR._nothing else blocked()
        assert str(failed.value) == "no block is open"


def test_same_format_passes_bytes_through() -> None:
    """A same-format translator returns each chunk as bytes (from bytearray or memoryview
    too), nothing at close or as pending, and still checks the stream."""
    translator = TR.StreamTranslator("anthropic", "anthropic", dropped=[])
    first = as_ev(AS_START)
    assert translator.feed(bytearray(first[:10])) == first[:10]
    assert translator.feed(memoryview(first[10:])) == first[10:]
    rest = as_ev(as_bs(0, AS_TEXT)) + as_ev(as_stop(0)) + as_ev({"type": "message_stop"})
    assert translator.feed(rest) == rest
    assert translator.close() == b""
    assert translator.pending() == b""
    cut = TR.StreamTranslator("anthropic", "anthropic")
    cut.feed(first)
    with pytest.raises(StreamError) as info:
        cut.close()
    assert str(info.value) == "the stream ended before message_stop (frame 1)"


def test_translator_keeps_its_formats_list_and_limits() -> None:
    """source and target are kept; dropped is a new list unless one is given (then that very
    list is filled); the limits reach the source accumulator, for a Gemini source too."""
    translator = TR.StreamTranslator("gemini", "anthropic")
    assert (translator.source, translator.target, translator.dropped) == (
        "gemini",
        "anthropic",
        [],
    )
    mine: list[Dropped] = []
    assert TR.StreamTranslator("anthropic", "gemini", dropped=mine).dropped is mine
    for source, sse in (("gemini", True), ("gemini", False), ("anthropic", True)):
        small = TR.StreamTranslator(source, "openai_chat", limits=Limits(max_size=8), sse=sse)
        with pytest.raises(StreamError) as info:
            small.feed(b"0123456789")
        assert str(info.value) == (
            "the stream is longer than the limit of 8 bytes (Limits.max_size) (frame 0)"
        ), source


def g_event(obj: dict[str, Any], end: bytes = b"\r\r") -> bytes:
    """One Gemini SSE event with a CR line end (``\\r\\r``: complete only at close, since a
    final CR may still be followed by LF)."""
    return b"data: " + json.dumps(obj).encode() + end


def g_text(text: str, **more: Any) -> dict[str, Any]:
    content = {"role": "model", "parts": [{"text": text}]}
    return {"candidates": [{"content": content, **more}], "modelVersion": "v", "responseId": "r"}


def chat_chunk(delta: str, finish: str = "null", logprobs: str = "") -> bytes:
    """A Chat chunk of the translated Gemini stream (id r, created 7, model v)."""
    top = '"id":"r","object":"chat.completion.chunk","created":7,"model":"v"'
    choice = f'{{"index":0,{logprobs}"delta":{delta},"finish_reason":{finish}}}'
    return f'data: {{{top},"choices":[{choice}]}}\n\n'.encode()


def test_translator_reads_the_events_completed_at_close() -> None:
    """An event the source stream completes only at close (a CR stream's last event) is
    read like any other: its text goes out before the end."""
    translator = TR.StreamTranslator("gemini", "openai_chat", unsupported="drop", created=7)
    data = g_event(g_text("a")) + g_event(g_text("b", finishReason="STOP"))
    assert translator.feed(data) == (
        chat_chunk('{"role":"assistant"}')
        + chat_chunk('{"content":""}')
        + chat_chunk('{"content":"a"}')
    )
    usage = '"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}'
    top = '"id":"r","object":"chat.completion.chunk","created":7,"model":"v"'
    assert translator.close() == (
        chat_chunk('{"content":"b"}')
        + chat_chunk("{}", '"stop"', '"logprobs":null,')
        + f'data: {{{top},"choices":[],{usage}}}\n\n'.encode()
        + b"data: [DONE]\n\n"
    )


def test_translator_end_keeps_the_creation_time_of_the_start() -> None:
    """A source without a creation time: the time the target header chose is the one the
    end carries too, even when the clock moved on in between."""
    clock = iter(range(100, 10_000, 100))
    saved = openai_chat.time
    openai_chat.time = SimpleNamespace(time=lambda: float(next(clock)))  # type: ignore[assignment]
    try:
        translator = TR.StreamTranslator("anthropic", "openai_chat")
        out = translator.feed(as_ev(AS_START) + as_ev(as_bs(0, AS_TEXT)))
        out += translator.feed(as_ev(as_bd(0, {"type": "text_delta", "text": "hi"})))
        end = [as_stop(0), {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}]
        out += translator.feed(b"".join(as_ev(e) for e in [*end, {"type": "message_stop"}]))
        out += translator.close()
    finally:
        openai_chat.time = saved
    chunks = [json.loads(line[6:]) for line in out.split(b"\n\n") if line.startswith(b"data: {")]
    assert [c["created"] for c in chunks] == [100] * 5


CHAT_EXPECTED = {
    "anthropic": (
        '{"type":"message_start","message":{"id":"c1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}',
        '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}',
        '{"type":"content_block_stop","index":0}',
        '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":3,"output_tokens":1}}',
        '{"type":"message_stop"}',
    ),
    "openai_responses": (
        '{"response":{"id":"c1","object":"response","created_at":5,"status":"in_progress","error":null,"incomplete_details":null,"model":"m","parallel_tool_calls":true,"tool_choice":"auto","tools":[],"output":[]},"type":"response.created","sequence_number":0}',
        '{"output_index":0,"item":{"type":"message","status":"in_progress","role":"assistant","id":"c1_msg_0","content":[]},"type":"response.output_item.added","sequence_number":1}',
        '{"item_id":"c1_msg_0","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]},"type":"response.content_part.added","sequence_number":2}',
        '{"type":"response.output_text.delta","item_id":"c1_msg_0","output_index":0,"content_index":0,"logprobs":[],"delta":"Hi","sequence_number":3}',
        '{"item_id":"c1_msg_0","output_index":0,"content_index":0,"text":"Hi","logprobs":[],"type":"response.output_text.done","sequence_number":4}',
        '{"item_id":"c1_msg_0","output_index":0,"content_index":0,"part":{"type":"output_text","text":"Hi","annotations":[]},"type":"response.content_part.done","sequence_number":5}',
        '{"output_index":0,"item":{"type":"message","status":"completed","role":"assistant","id":"c1_msg_0","content":[{"type":"output_text","text":"Hi","annotations":[]}]},"type":"response.output_item.done","sequence_number":6}',
        '{"response":{"id":"c1","object":"response","created_at":5,"status":"completed","error":null,"incomplete_details":null,"model":"m","parallel_tool_calls":true,"tool_choice":"auto","tools":[],"output":[{"role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[]}],"type":"message","id":"msg_minagent","status":"completed"}],"usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4,"input_tokens_details":{"cached_tokens":0,"cache_write_tokens":0},"output_tokens_details":{"reasoning_tokens":0}}},"type":"response.completed","sequence_number":7}',
    ),
    "gemini": (
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},"index":0}],"modelVersion":"m","responseId":"c1"}',
        '{"modelVersion":"m","responseId":"c1","usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1,"totalTokenCount":4},"candidates":[{"index":0,"content":{"role":"model"},"finishReason":"STOP"}]}',
    ),
}


def chat_source() -> bytes:
    """A short OpenAI Chat stream: role, text "Hi", finish stop, usage, [DONE]."""

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return c_raw(
            {
                "id": "c1",
                "object": "chat.completion.chunk",
                "created": 5,
                "model": "m",
                "choices": [choice],
            }
        )

    usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    top = {"id": "c1", "object": "chat.completion.chunk", "created": 5, "model": "m"}
    return (
        chunk({"role": "assistant", "content": ""})
        + chunk({"content": "Hi"})
        + chunk({}, "stop")
        + c_raw({**top, "choices": [], "usage": usage})
        + b"data: [DONE]\n\n"
    )


def test_chat_stream_translates_to_each_target_exactly() -> None:
    """A Chat stream to each other format, event by event: the header from the source's
    id, model and creation time, the text live, the end with the stop reason and usage; the
    metadata each target has no place for listed."""
    for target, events in CHAT_EXPECTED.items():
        dropped: list[Dropped] = []
        translator = TR.StreamTranslator("openai_chat", target, unsupported="drop", dropped=dropped)
        out = translator.feed(chat_source()) + translator.close()
        data = [
            line[6:].rstrip(b"\r").decode() for line in out.split(b"\n") if line[:6] == b"data: "
        ]
        assert data == list(events), target
        paths = [d.path for d in dropped]
        assert (
            paths
            == {
                "anthropic": ["$.object", "$.logprobs", "$.message.refusal", "$.created"],
                "openai_responses": ["$.object", "$.logprobs", "$.message.refusal"],
                "gemini": ["$.object", "$.logprobs", "$.created"],
            }[target]
        )
    first = TR.StreamTranslator("openai_chat", "anthropic", unsupported="drop")
    assert first.feed(chat_source()).startswith(b"event: message_start\ndata: ")


RS_EVENTS: list[dict[str, Any]] = [
    {
        "type": "response.created",
        "response": {
            "id": "r1",
            "object": "response",
            "created_at": 9,
            "status": "in_progress",
            "model": "g",
            "output": [],
        },
        "sequence_number": 0,
    },
    {
        "type": "response.output_item.added",
        "output_index": 0,
        "item": {
            "type": "reasoning",
            "id": "rs1",
            "summary": [{"type": "summary_text", "text": "think"}],
        },
        "sequence_number": 1,
    },
    {
        "type": "response.output_item.done",
        "output_index": 0,
        "item": {
            "type": "reasoning",
            "id": "rs1",
            "summary": [{"type": "summary_text", "text": "think"}],
        },
        "sequence_number": 2,
    },
    {
        "type": "response.output_item.added",
        "output_index": 1,
        "item": {
            "type": "message",
            "id": "m1",
            "status": "in_progress",
            "role": "assistant",
            "content": [],
        },
        "sequence_number": 3,
    },
    {
        "type": "response.content_part.added",
        "output_index": 1,
        "item_id": "m1",
        "content_index": 0,
        "part": {"type": "output_text", "text": "", "annotations": []},
        "sequence_number": 4,
    },
    {
        "type": "response.output_text.delta",
        "output_index": 1,
        "item_id": "m1",
        "content_index": 0,
        "delta": "Hel",
        "sequence_number": 5,
    },
    {
        "type": "response.output_text.delta",
        "output_index": 1,
        "item_id": "m1",
        "content_index": 0,
        "delta": "lo",
        "sequence_number": 6,
    },
    {
        "type": "response.output_text.done",
        "output_index": 1,
        "item_id": "m1",
        "content_index": 0,
        "text": "Hello!",
        "sequence_number": 7,
    },
    {
        "type": "response.content_part.done",
        "output_index": 1,
        "item_id": "m1",
        "content_index": 0,
        "part": {"type": "output_text", "text": "Hello!", "annotations": []},
        "sequence_number": 8,
    },
    {
        "type": "response.output_item.done",
        "output_index": 1,
        "item": {
            "type": "message",
            "id": "m1",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Hello!", "annotations": []}],
        },
        "sequence_number": 9,
    },
    {
        "type": "response.output_item.added",
        "output_index": 2,
        "item": {
            "type": "function_call",
            "id": "fc1",
            "call_id": "call_1",
            "name": "f",
            "arguments": "",
            "status": "in_progress",
        },
        "sequence_number": 10,
    },
    {
        "type": "response.output_item.done",
        "output_index": 2,
        "item": {
            "type": "function_call",
            "id": "fc1",
            "call_id": "call_1",
            "name": "f",
            "arguments": "{}",
            "status": "completed",
        },
        "sequence_number": 11,
    },
    {
        "type": "response.completed",
        "response": {
            "id": "r1",
            "object": "response",
            "created_at": 9,
            "status": "completed",
            "model": "g",
            "output": [
                {
                    "type": "reasoning",
                    "id": "rs1",
                    "summary": [{"type": "summary_text", "text": "think"}],
                },
                {
                    "type": "message",
                    "id": "m1",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "output_text", "text": "Hello!", "annotations": []}],
                },
                {
                    "type": "function_call",
                    "id": "fc1",
                    "call_id": "call_1",
                    "name": "f",
                    "arguments": "{}",
                    "status": "completed",
                },
            ],
            "usage": {"input_tokens": 2, "output_tokens": 3, "total_tokens": 5},
        },
        "sequence_number": 12,
    },
]
RS_STREAM = b"".join(
    b"event: " + e["type"].encode() + b"\ndata: " + json.dumps(e).encode() + b"\n\n"
    for e in RS_EVENTS
)
"""A Responses stream: a reasoning item, a message (deltas "Hel", "lo"; done text "Hello!"),
a function call, response.completed."""
AS_STREAM: list[dict[str, Any]] = [
    {
        "type": "message_start",
        "message": {
            "id": "m",
            "type": "message",
            "role": "assistant",
            "model": "c",
            "content": [],
            "stop_reason": None,
            "usage": {"input_tokens": 1, "output_tokens": 0},
        },
    },
    {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "thinking", "thinking": "", "signature": ""},
    },
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "thinking_delta", "thinking": "Hm"},
    },
    {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "signature_delta", "signature": "sig"},
    },
    {"type": "content_block_stop", "index": 0},
    {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": "A"}},
    {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "b"}},
    {"type": "content_block_stop", "index": 1},
    {
        "type": "content_block_start",
        "index": 2,
        "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}},
    },
    {
        "type": "content_block_delta",
        "index": 2,
        "delta": {"type": "input_json_delta", "partial_json": '{"x":1}'},
    },
    {"type": "content_block_stop", "index": 2},
    {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}},
    {"type": "message_stop"},
]
"""An Anthropic stream: signed thinking, text "A" + "b", a tool call, stop reason tool_use."""


TRANSLATED = {
    ("openai_responses", "anthropic"): (
        '{"type":"message_start","message":{"id":"r1","type":"message","role":"assistant","model":"g","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}',
        '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}',
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo"}}',
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"!"}}',
        '{"type":"content_block_stop","index":0}',
        '{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"call_1","name":"f","input":{}}}',
        '{"type":"content_block_stop","index":1}',
        '{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":2,"output_tokens":3}}',
        '{"type":"message_stop"}',
    ),
    ("openai_responses", "openai_chat"): (
        '{"id":"r1","object":"chat.completion.chunk","created":9,"model":"g","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}',
        '{"id":"r1","object":"chat.completion.chunk","created":9,"model":"g","choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]}',
        '{"id":"r1","object":"chat.completion.chunk","created":9,"model":"g","choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}',
        '{"id":"r1","object":"chat.completion.chunk","created":9,"model":"g","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}',
        '{"id":"r1","object":"chat.completion.chunk","created":9,"model":"g","choices":[{"index":0,"delta":{"content":"!"},"finish_reason":null}]}',
        '{"id":"r1","object":"chat.completion.chunk","created":9,"model":"g","choices":[{"index":0,"delta":{"tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{}"},"index":0}]},"finish_reason":null}]}',
        '{"id":"r1","object":"chat.completion.chunk","created":9,"model":"g","choices":[{"index":0,"logprobs":null,"delta":{},"finish_reason":"tool_calls"}]}',
        '{"id":"r1","object":"chat.completion.chunk","created":9,"model":"g","choices":[],"usage":{"prompt_tokens":2,"completion_tokens":3,"total_tokens":5}}',
        "[DONE]",
    ),
    ("openai_responses", "gemini"): (
        '{"modelVersion":"g","responseId":"r1","candidates":[{"content":{"role":"model","parts":[{"text":"think","thought":true}]},"index":0}]}',
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"Hel"}]},"index":0}],"modelVersion":"g","responseId":"r1"}',
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"lo"}]},"index":0}],"modelVersion":"g","responseId":"r1"}',
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"!"}]},"index":0}],"modelVersion":"g","responseId":"r1"}',
        '{"modelVersion":"g","responseId":"r1","candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{},"id":"call_1"}}]},"index":0}]}',
        '{"modelVersion":"g","responseId":"r1","usageMetadata":{"promptTokenCount":2,"candidatesTokenCount":3,"totalTokenCount":5},"candidates":[{"index":0,"content":{"role":"model"},"finishReason":"STOP"}]}',
    ),
    ("anthropic", "openai_responses"): (
        '{"response":{"id":"m","object":"response","created_at":7,"status":"in_progress","error":null,"incomplete_details":null,"model":"c","parallel_tool_calls":true,"tool_choice":"auto","tools":[],"output":[]},"type":"response.created","sequence_number":0}',
        '{"output_index":0,"item":{"type":"reasoning","summary":[],"id":"m_rs_0","content":[]},"type":"response.output_item.added","sequence_number":1}',
        '{"item_id":"m_rs_0","output_index":0,"content_index":0,"part":{"type":"reasoning_text","text":""},"type":"response.content_part.added","sequence_number":2}',
        '{"type":"response.reasoning_text.delta","item_id":"m_rs_0","output_index":0,"content_index":0,"delta":"Hm","sequence_number":3}',
        '{"item_id":"m_rs_0","output_index":0,"content_index":0,"text":"Hm","type":"response.reasoning_text.done","sequence_number":4}',
        '{"item_id":"m_rs_0","output_index":0,"content_index":0,"part":{"type":"reasoning_text","text":"Hm"},"type":"response.content_part.done","sequence_number":5}',
        '{"output_index":0,"item":{"type":"reasoning","summary":[],"id":"m_rs_0","content":[{"type":"reasoning_text","text":"Hm"}]},"type":"response.output_item.done","sequence_number":6}',
        '{"output_index":1,"item":{"type":"message","status":"in_progress","role":"assistant","id":"m_msg_1","content":[]},"type":"response.output_item.added","sequence_number":7}',
        '{"item_id":"m_msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]},"type":"response.content_part.added","sequence_number":8}',
        '{"type":"response.output_text.delta","item_id":"m_msg_1","output_index":1,"content_index":0,"logprobs":[],"delta":"A","sequence_number":9}',
        '{"type":"response.output_text.delta","item_id":"m_msg_1","output_index":1,"content_index":0,"logprobs":[],"delta":"b","sequence_number":10}',
        '{"item_id":"m_msg_1","output_index":1,"content_index":0,"text":"Ab","logprobs":[],"type":"response.output_text.done","sequence_number":11}',
        '{"item_id":"m_msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"Ab","annotations":[]},"type":"response.content_part.done","sequence_number":12}',
        '{"output_index":1,"item":{"type":"message","status":"completed","role":"assistant","id":"m_msg_1","content":[{"type":"output_text","text":"Ab","annotations":[]}]},"type":"response.output_item.done","sequence_number":13}',
        '{"output_index":2,"item":{"type":"function_call","call_id":"t","name":"f","arguments":"{\\"x\\":1}"},"type":"response.output_item.added","sequence_number":14}',
        '{"output_index":2,"item":{"type":"function_call","call_id":"t","name":"f","arguments":"{\\"x\\":1}"},"type":"response.output_item.done","sequence_number":15}',
        '{"response":{"id":"m","object":"response","created_at":7,"status":"completed","error":null,"incomplete_details":null,"model":"c","parallel_tool_calls":true,"tool_choice":"auto","tools":[],"output":[{"type":"reasoning","id":"rs_minagent_0","summary":[],"content":[{"type":"reasoning_text","text":"Hm"}]},{"role":"assistant","content":[{"type":"output_text","text":"Ab","annotations":[]}],"type":"message","id":"msg_minagent","status":"completed"},{"type":"function_call","call_id":"t","name":"f","arguments":"{\\"x\\":1}"}],"usage":{"input_tokens":1,"output_tokens":5,"input_tokens_details":{"cached_tokens":0,"cache_write_tokens":0},"output_tokens_details":{"reasoning_tokens":0},"total_tokens":6}},"type":"response.completed","sequence_number":16}',
    ),
    ("anthropic", "gemini"): (
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"Hm","thought":true}]},"index":0}],"modelVersion":"c","responseId":"m"}',
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"A"}]},"index":0}],"modelVersion":"c","responseId":"m"}',
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"b"}]},"index":0}],"modelVersion":"c","responseId":"m"}',
        '{"modelVersion":"c","responseId":"m","candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{"x":1},"id":"t"}}]},"index":0}]}',
        '{"modelVersion":"c","responseId":"m","usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":5},"candidates":[{"index":0,"content":{"role":"model"},"finishReason":"STOP"}]}',
    ),
    ("anthropic", "openai_chat"): (
        '{"id":"m","object":"chat.completion.chunk","created":7,"model":"c","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}',
        '{"id":"m","object":"chat.completion.chunk","created":7,"model":"c","choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]}',
        '{"id":"m","object":"chat.completion.chunk","created":7,"model":"c","choices":[{"index":0,"delta":{"content":"A"},"finish_reason":null}]}',
        '{"id":"m","object":"chat.completion.chunk","created":7,"model":"c","choices":[{"index":0,"delta":{"content":"b"},"finish_reason":null}]}',
        '{"id":"m","object":"chat.completion.chunk","created":7,"model":"c","choices":[{"index":0,"delta":{"tool_calls":[{"id":"t","type":"function","function":{"name":"f","arguments":"{\\"x\\":1}"},"index":0}]},"finish_reason":null}]}',
        '{"id":"m","object":"chat.completion.chunk","created":7,"model":"c","choices":[{"index":0,"logprobs":null,"delta":{},"finish_reason":"tool_calls"}]}',
        '{"id":"m","object":"chat.completion.chunk","created":7,"model":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":5,"total_tokens":6}}',
        "[DONE]",
    ),
}


def test_streams_with_thinking_tools_and_items_translate_exactly() -> None:
    """A Responses stream (a reasoning item, a message whose done text adds to its deltas, a
    function call) and an Anthropic stream (signed thinking, text starting in its block
    start, a tool call) to each other format, event by event: text live (the rest of the
    done text caught up), thinking live where the target has a place for it (Responses
    reasoning text, Gemini thought parts), complete blocks whole once done."""
    streams = {
        "openai_responses": RS_STREAM,
        "anthropic": b"".join(as_ev(e) for e in AS_STREAM),
    }
    for (source, target), events in TRANSLATED.items():
        fields = {"created": 7} if source == "anthropic" else {}
        translator = TR.StreamTranslator(source, target, unsupported="drop", **fields)
        out = translator.feed(streams[source]) + translator.close()
        data = [
            line[6:].rstrip(b"\r").decode() for line in out.split(b"\n") if line[:6] == b"data: "
        ]
        assert data == list(events), (source, target)


GEMINI_CHUNKS: list[dict[str, Any]] = [
    {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "Plan", "thought": True}]}}
        ],
        "modelVersion": "v",
        "responseId": "r",
    },
    {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"text": " more", "thought": True, "thoughtSignature": "c2ln"}],
                }
            }
        ],
        "modelVersion": "v",
        "responseId": "r",
    },
    {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]}}],
        "modelVersion": "v",
        "responseId": "r",
    },
    {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": " there"},
                        {"functionCall": {"name": "f", "args": {"a": 1}}},
                    ],
                }
            }
        ],
        "modelVersion": "v",
        "responseId": "r",
    },
    {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "end"}]}, "finishReason": "STOP"}
        ],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 2, "totalTokenCount": 3},
        "modelVersion": "v",
        "responseId": "r",
    },
]
CHAT_CHOICES: list[dict[str, Any]] = [
    {
        "index": 0,
        "delta": {"role": "assistant", "content": None, "reasoning_content": "Think"},
        "finish_reason": None,
    },
    {"index": 0, "delta": {"reasoning_content": "ing"}, "finish_reason": None},
    {"index": 0, "delta": {"content": "Ans"}, "finish_reason": None},
    {"index": 0, "delta": {"content": "wer"}, "finish_reason": None},
    {
        "index": 0,
        "delta": {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "c",
                    "type": "function",
                    "function": {"name": "f", "arguments": "{}"},
                }
            ]
        },
        "finish_reason": None,
    },
    {"index": 0, "delta": {}, "finish_reason": "tool_calls"},
]
TRANSLATED_MORE = {
    ("gemini", "anthropic"): (
        '{"type":"message_start","message":{"id":"r","type":"message","role":"assistant","model":"v","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}',
        '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}',
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" there"}}',
        '{"type":"content_block_stop","index":0}',
        '{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"minagent-gemini-0-2","name":"f","input":{}}}',
        '{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"a\\":1}"}}',
        '{"type":"content_block_stop","index":1}',
        '{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}',
        '{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"end"}}',
        '{"type":"content_block_stop","index":2}',
        '{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":1,"output_tokens":2}}',
        '{"type":"message_stop"}',
    ),
    ("gemini", "openai_responses"): (
        '{"response":{"id":"r","object":"response","created_at":7,"status":"in_progress","error":null,"incomplete_details":null,"model":"v","parallel_tool_calls":true,"tool_choice":"auto","tools":[],"output":[]},"type":"response.created","sequence_number":0}',
        '{"output_index":0,"item":{"type":"reasoning","summary":[],"id":"r_rs_0","content":[]},"type":"response.output_item.added","sequence_number":1}',
        '{"item_id":"r_rs_0","output_index":0,"content_index":0,"part":{"type":"reasoning_text","text":""},"type":"response.content_part.added","sequence_number":2}',
        '{"type":"response.reasoning_text.delta","item_id":"r_rs_0","output_index":0,"content_index":0,"delta":"Plan","sequence_number":3}',
        '{"type":"response.reasoning_text.delta","item_id":"r_rs_0","output_index":0,"content_index":0,"delta":" more","sequence_number":4}',  # noqa: E501
        '{"item_id":"r_rs_0","output_index":0,"content_index":0,"text":"Plan more","type":"response.reasoning_text.done","sequence_number":5}',  # noqa: E501
        '{"item_id":"r_rs_0","output_index":0,"content_index":0,"part":{"type":"reasoning_text","text":"Plan more"},"type":"response.content_part.done","sequence_number":6}',  # noqa: E501
        '{"output_index":0,"item":{"type":"reasoning","summary":[],"id":"r_rs_0","content":[{"type":"reasoning_text","text":"Plan more"}]},"type":"response.output_item.done","sequence_number":7}',  # noqa: E501
        '{"output_index":1,"item":{"type":"message","status":"in_progress","role":"assistant","id":"r_msg_1","content":[]},"type":"response.output_item.added","sequence_number":8}',
        '{"item_id":"r_msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]},"type":"response.content_part.added","sequence_number":9}',
        '{"type":"response.output_text.delta","item_id":"r_msg_1","output_index":1,"content_index":0,"logprobs":[],"delta":"Hi","sequence_number":10}',
        '{"type":"response.output_text.delta","item_id":"r_msg_1","output_index":1,"content_index":0,"logprobs":[],"delta":" there","sequence_number":11}',  # noqa: E501
        '{"item_id":"r_msg_1","output_index":1,"content_index":0,"text":"Hi there","logprobs":[],"type":"response.output_text.done","sequence_number":12}',  # noqa: E501
        '{"item_id":"r_msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"Hi there","annotations":[]},"type":"response.content_part.done","sequence_number":13}',  # noqa: E501
        '{"output_index":1,"item":{"type":"message","status":"completed","role":"assistant","id":"r_msg_1","content":[{"type":"output_text","text":"Hi there","annotations":[]}]},"type":"response.output_item.done","sequence_number":14}',  # noqa: E501
        '{"output_index":2,"item":{"type":"function_call","call_id":"minagent-gemini-0-2","name":"f","arguments":"{\\"a\\":1}"},"type":"response.output_item.added","sequence_number":15}',
        '{"output_index":2,"item":{"type":"function_call","call_id":"minagent-gemini-0-2","name":"f","arguments":"{\\"a\\":1}"},"type":"response.output_item.done","sequence_number":16}',
        '{"output_index":3,"item":{"type":"message","status":"in_progress","role":"assistant","id":"r_msg_3","content":[]},"type":"response.output_item.added","sequence_number":17}',
        '{"item_id":"r_msg_3","output_index":3,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]},"type":"response.content_part.added","sequence_number":18}',
        '{"type":"response.output_text.delta","item_id":"r_msg_3","output_index":3,"content_index":0,"logprobs":[],"delta":"end","sequence_number":19}',
        '{"item_id":"r_msg_3","output_index":3,"content_index":0,"text":"end","logprobs":[],"type":"response.output_text.done","sequence_number":20}',
        '{"item_id":"r_msg_3","output_index":3,"content_index":0,"part":{"type":"output_text","text":"end","annotations":[]},"type":"response.content_part.done","sequence_number":21}',
        '{"output_index":3,"item":{"type":"message","status":"completed","role":"assistant","id":"r_msg_3","content":[{"type":"output_text","text":"end","annotations":[]}]},"type":"response.output_item.done","sequence_number":22}',
        '{"response":{"id":"r","object":"response","created_at":7,"status":"completed","error":null,"incomplete_details":null,"model":"v","parallel_tool_calls":true,"tool_choice":"auto","tools":[],"output":[{"type":"reasoning","id":"rs_minagent_0","summary":[],"content":[{"type":"reasoning_text","text":"Plan more"}]},{"role":"assistant","content":[{"type":"output_text","text":"Hi there","annotations":[]}],"type":"message","id":"msg_minagent","status":"completed"},{"type":"function_call","call_id":"minagent-gemini-0-2","name":"f","arguments":"{\\"a\\":1}"},{"role":"assistant","content":[{"type":"output_text","text":"end","annotations":[]}],"type":"message","id":"msg_minagent","status":"completed"}],"usage":{"input_tokens":1,"output_tokens":2,"total_tokens":3,"input_tokens_details":{"cached_tokens":0,"cache_write_tokens":0},"output_tokens_details":{"reasoning_tokens":0}}},"type":"response.completed","sequence_number":23}',  # noqa: E501
    ),
    ("gemini", "openai_chat"): (
        '{"id":"r","object":"chat.completion.chunk","created":7,"model":"v","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}',
        '{"id":"r","object":"chat.completion.chunk","created":7,"model":"v","choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]}',
        '{"id":"r","object":"chat.completion.chunk","created":7,"model":"v","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}',
        '{"id":"r","object":"chat.completion.chunk","created":7,"model":"v","choices":[{"index":0,"delta":{"content":" there"},"finish_reason":null}]}',  # noqa: E501
        '{"id":"r","object":"chat.completion.chunk","created":7,"model":"v","choices":[{"index":0,"delta":{"tool_calls":[{"id":"minagent-gemini-0-2","type":"function","function":{"name":"f","arguments":"{\\"a\\":1}"},"index":0}]},"finish_reason":null}]}',
        '{"id":"r","object":"chat.completion.chunk","created":7,"model":"v","choices":[{"index":0,"delta":{"content":"end"},"finish_reason":null}]}',
        '{"id":"r","object":"chat.completion.chunk","created":7,"model":"v","choices":[{"index":0,"logprobs":null,"delta":{},"finish_reason":"tool_calls"}]}',
        '{"id":"r","object":"chat.completion.chunk","created":7,"model":"v","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}',
        "[DONE]",
    ),
    ("openai_chat", "anthropic"): (
        '{"type":"message_start","message":{"id":"c1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}',
        '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Ans"}}',
        '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"wer"}}',
        '{"type":"content_block_stop","index":0}',
        '{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"c","name":"f","input":{}}}',
        '{"type":"content_block_stop","index":1}',
        '{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":0,"output_tokens":0}}',
        '{"type":"message_stop"}',
    ),
    ("openai_chat", "openai_responses"): (
        '{"response":{"id":"c1","object":"response","created_at":5,"status":"in_progress","error":null,"incomplete_details":null,"model":"m","parallel_tool_calls":true,"tool_choice":"auto","tools":[],"output":[]},"type":"response.created","sequence_number":0}',
        '{"output_index":0,"item":{"type":"reasoning","id":"rs_minagent_0","summary":[],"content":[{"type":"reasoning_text","text":"Thinking"}]},"type":"response.output_item.added","sequence_number":1}',
        '{"output_index":0,"item":{"type":"reasoning","id":"rs_minagent_0","summary":[],"content":[{"type":"reasoning_text","text":"Thinking"}]},"type":"response.output_item.done","sequence_number":2}',
        '{"output_index":1,"item":{"type":"message","status":"in_progress","role":"assistant","id":"c1_msg_1","content":[]},"type":"response.output_item.added","sequence_number":3}',
        '{"item_id":"c1_msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]},"type":"response.content_part.added","sequence_number":4}',
        '{"type":"response.output_text.delta","item_id":"c1_msg_1","output_index":1,"content_index":0,"logprobs":[],"delta":"Ans","sequence_number":5}',
        '{"type":"response.output_text.delta","item_id":"c1_msg_1","output_index":1,"content_index":0,"logprobs":[],"delta":"wer","sequence_number":6}',
        '{"item_id":"c1_msg_1","output_index":1,"content_index":0,"text":"Answer","logprobs":[],"type":"response.output_text.done","sequence_number":7}',
        '{"item_id":"c1_msg_1","output_index":1,"content_index":0,"part":{"type":"output_text","text":"Answer","annotations":[]},"type":"response.content_part.done","sequence_number":8}',
        '{"output_index":1,"item":{"type":"message","status":"completed","role":"assistant","id":"c1_msg_1","content":[{"type":"output_text","text":"Answer","annotations":[]}]},"type":"response.output_item.done","sequence_number":9}',
        '{"output_index":2,"item":{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},"type":"response.output_item.added","sequence_number":10}',
        '{"output_index":2,"item":{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},"type":"response.output_item.done","sequence_number":11}',
        '{"response":{"id":"c1","object":"response","created_at":5,"status":"completed","error":null,"incomplete_details":null,"model":"m","parallel_tool_calls":true,"tool_choice":"auto","tools":[],"output":[{"type":"reasoning","id":"rs_minagent_0","summary":[],"content":[{"type":"reasoning_text","text":"Thinking"}]},{"role":"assistant","content":[{"type":"output_text","text":"Answer","annotations":[]}],"type":"message","id":"msg_minagent","status":"completed"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}]},"type":"response.completed","sequence_number":12}',
    ),
    ("openai_chat", "gemini"): (
        '{"modelVersion":"m","responseId":"c1","candidates":[{"content":{"role":"model","parts":[{"text":"Thinking","thought":true}]},"index":0}]}',
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"Ans"}]},"index":0}],"modelVersion":"m","responseId":"c1"}',
        '{"candidates":[{"content":{"role":"model","parts":[{"text":"wer"}]},"index":0}],"modelVersion":"m","responseId":"c1"}',
        '{"modelVersion":"m","responseId":"c1","candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"f","args":{},"id":"c"}}]},"index":0}]}',
        '{"modelVersion":"m","responseId":"c1","candidates":[{"index":0,"content":{"role":"model"},"finishReason":"STOP"}]}',
    ),
}


def test_gemini_and_chat_streams_with_thinking_and_tools_translate_exactly() -> None:
    """A Gemini stream (thought parts, the second signed, text in two chunks, a function call
    beside text, more text with the finish) and a Chat stream (reasoning_content before the
    text, a tool call) to each other format, event by event, under the drop policy."""
    streams = {
        "gemini": b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in GEMINI_CHUNKS),
        "openai_chat": b"".join(c_event(choice, id="c1", created=5) for choice in CHAT_CHOICES)
        + b"data: [DONE]\n\n",
    }
    for (source, target), events in TRANSLATED_MORE.items():
        fields = {"created": 7} if source == "gemini" else {}
        translator = TR.StreamTranslator(source, target, unsupported="drop", **fields)
        out = translator.feed(streams[source]) + translator.close()
        data = [
            line[6:].rstrip(b"\r").decode() for line in out.split(b"\n") if line[:6] == b"data: "
        ]
        assert data == list(events), (source, target)


RS_MORE: list[dict[str, Any]] = [
    {
        "type": "response.created",
        "response": {
            "id": "r1",
            "object": "response",
            "created_at": 9,
            "status": "in_progress",
            "model": "g",
            "output": [],
        },
        "sequence_number": 0,
    },
    {
        "type": "response.output_item.added",
        "output_index": 0,
        "item": {
            "type": "message",
            "id": "m1",
            "status": "in_progress",
            "role": "assistant",
            "content": [],
        },
        "sequence_number": 1,
    },
    {
        "type": "response.content_part.added",
        "output_index": 0,
        "item_id": "m1",
        "content_index": 0,
        "part": {"type": "output_text", "text": "", "annotations": []},
        "sequence_number": 2,
    },
    {
        "type": "response.output_text.delta",
        "output_index": 0,
        "item_id": "m1",
        "content_index": 0,
        "delta": "a",
        "sequence_number": 3,
    },
    {
        "type": "response.output_text.delta",
        "output_index": 0,
        "item_id": "m1",
        "content_index": 0,
        "delta": "b",
        "sequence_number": 4,
    },
    {
        "type": "response.output_text.done",
        "output_index": 0,
        "item_id": "m1",
        "content_index": 0,
        "text": "ab",
        "sequence_number": 5,
    },
    {
        "type": "response.content_part.done",
        "output_index": 0,
        "item_id": "m1",
        "content_index": 0,
        "part": {"type": "output_text", "text": "ab", "annotations": []},
        "sequence_number": 6,
    },
    {
        "type": "response.content_part.added",
        "output_index": 0,
        "item_id": "m1",
        "content_index": 1,
        "part": {"type": "output_text", "text": "", "annotations": []},
        "sequence_number": 7,
    },
    {
        "type": "response.output_text.delta",
        "output_index": 0,
        "item_id": "m1",
        "content_index": 1,
        "delta": "c",
        "sequence_number": 8,
    },
    {
        "type": "response.output_text.delta",
        "output_index": 0,
        "item_id": "m1",
        "content_index": 1,
        "delta": "d",
        "sequence_number": 9,
    },
    {
        "type": "response.output_text.annotation.added",
        "output_index": 0,
        "item_id": "m1",
        "content_index": 1,
        "annotation_index": 0,
        "annotation": {
            "type": "url_citation",
            "url": "https://a.example",
            "title": "A",
            "start_index": 0,
            "end_index": 1,
        },
        "sequence_number": 10,
    },
    {
        "type": "response.output_text.done",
        "output_index": 0,
        "item_id": "m1",
        "content_index": 1,
        "text": "cd",
        "sequence_number": 11,
    },
    {
        "type": "response.content_part.done",
        "output_index": 0,
        "item_id": "m1",
        "content_index": 1,
        "part": {
            "type": "output_text",
            "text": "cd",
            "annotations": [
                {
                    "type": "url_citation",
                    "url": "https://a.example",
                    "title": "A",
                    "start_index": 0,
                    "end_index": 1,
                }
            ],
        },
        "sequence_number": 12,
    },
    {
        "type": "response.output_item.done",
        "output_index": 0,
        "item": {
            "type": "message",
            "id": "m1",
            "status": "completed",
            "role": "assistant",
            "content": [
                {"type": "output_text", "text": "ab", "annotations": []},
                {
                    "type": "output_text",
                    "text": "cd",
                    "annotations": [
                        {
                            "type": "url_citation",
                            "url": "https://a.example",
                            "title": "A",
                            "start_index": 0,
                            "end_index": 1,
                        }
                    ],
                },
            ],
        },
        "sequence_number": 13,
    },
    {
        "type": "response.output_item.added",
        "output_index": 1,
        "item": {
            "type": "message",
            "id": "m2",
            "status": "in_progress",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "pre", "annotations": []}],
        },
        "sequence_number": 14,
    },
    {
        "type": "response.content_part.added",
        "output_index": 1,
        "item_id": "m2",
        "content_index": 1,
        "part": {"type": "output_text", "text": "", "annotations": []},
        "sequence_number": 15,
    },
    {
        "type": "response.output_text.delta",
        "output_index": 1,
        "item_id": "m2",
        "content_index": 1,
        "delta": "x",
        "sequence_number": 16,
    },
    {
        "type": "response.output_text.done",
        "output_index": 1,
        "item_id": "m2",
        "content_index": 1,
        "text": "x",
        "sequence_number": 17,
    },
    {
        "type": "response.content_part.done",
        "output_index": 1,
        "item_id": "m2",
        "content_index": 1,
        "part": {"type": "output_text", "text": "x", "annotations": []},
        "sequence_number": 18,
    },
    {
        "type": "response.output_item.done",
        "output_index": 1,
        "item": {
            "type": "message",
            "id": "m2",
            "status": "completed",
            "role": "assistant",
            "content": [
                {"type": "output_text", "text": "pre", "annotations": []},
                {"type": "output_text", "text": "x", "annotations": []},
            ],
        },
        "sequence_number": 19,
    },
    {
        "type": "response.output_item.added",
        "output_index": 2,
        "item": {
            "type": "message",
            "id": "m3",
            "status": "in_progress",
            "role": "assistant",
            "content": [],
        },
        "sequence_number": 20,
    },
    {
        "type": "response.content_part.added",
        "output_index": 2,
        "item_id": "m3",
        "content_index": 0,
        "part": {"type": "refusal", "refusal": ""},
        "sequence_number": 21,
    },
    {
        "type": "response.refusal.delta",
        "output_index": 2,
        "item_id": "m3",
        "content_index": 0,
        "delta": "no",
        "sequence_number": 22,
    },
    {
        "type": "response.content_part.done",
        "output_index": 2,
        "item_id": "m3",
        "content_index": 0,
        "part": {"type": "refusal", "refusal": "no"},
        "sequence_number": 23,
    },
    {
        "type": "response.output_item.done",
        "output_index": 2,
        "item": {
            "type": "message",
            "id": "m3",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "refusal", "refusal": "no"}],
        },
        "sequence_number": 24,
    },
    {
        "type": "response.completed",
        "response": {
            "id": "r1",
            "object": "response",
            "created_at": 9,
            "status": "completed",
            "model": "g",
            "output": [
                {
                    "type": "message",
                    "id": "m1",
                    "status": "completed",
                    "role": "assistant",
                    "content": [
                        {"type": "output_text", "text": "ab", "annotations": []},
                        {
                            "type": "output_text",
                            "text": "cd",
                            "annotations": [
                                {
                                    "type": "url_citation",
                                    "url": "https://a.example",
                                    "title": "A",
                                    "start_index": 0,
                                    "end_index": 1,
                                }
                            ],
                        },
                    ],
                },
                {
                    "type": "message",
                    "id": "m2",
                    "status": "completed",
                    "role": "assistant",
                    "content": [
                        {"type": "output_text", "text": "pre", "annotations": []},
                        {"type": "output_text", "text": "x", "annotations": []},
                    ],
                },
                {
                    "type": "message",
                    "id": "m3",
                    "status": "completed",
                    "role": "assistant",
                    "content": [{"type": "refusal", "refusal": "no"}],
                },
            ],
            "usage": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
        },
        "sequence_number": 25,
    },
]
RS_MORE_ANTHROPIC = (
    '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"}}',
    '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"b"}}',
    '{"type":"content_block_stop","index":0}',
    '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}',
    '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"c"}}',
    '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"d"}}',
    '{"type":"content_block_stop","index":1}',
    '{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}',
    '{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"pre"}}',
    '{"type":"content_block_stop","index":2}',
    '{"type":"content_block_start","index":3,"content_block":{"type":"text","text":""}}',
    '{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"x"}}',
    '{"type":"content_block_stop","index":3}',
    '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":1,"output_tokens":2}}',
    '{"type":"message_stop"}',
)


def rs_bytes(events: list[dict[str, Any]]) -> list[bytes]:
    """Responses events as SSE bytes, one per event."""
    return [
        b"event: " + e["type"].encode() + b"\ndata: " + json.dumps(e).encode() + b"\n\n"
        for e in events
    ]


def test_responses_parts_annotations_refusals_and_items_with_content() -> None:
    """A Responses source: response.created alone gives the header at once; each empty
    output_text part of a message that started without content goes live (two parts, two
    blocks); a message that started with content, and a refusal part, go whole when done;
    an annotation closes the live text; what the target has no place for is listed."""
    dropped: list[Dropped] = []
    translator = TR.StreamTranslator("openai_responses", "anthropic", unsupported="drop")
    translator.dropped = dropped
    chunks = rs_bytes(RS_MORE)
    assert translator.feed(chunks[0]) == ev(
        "message_start",
        '{"type":"message_start","message":{"id":"r1","type":"message","role":"assistant",'
        '"model":"g","content":[],"stop_reason":null,"stop_sequence":null,'
        '"usage":{"input_tokens":0,"output_tokens":0}}}',
    )
    out = b"".join(translator.feed(chunk) for chunk in chunks[1:]) + translator.close()
    data = [line[6:].decode() for line in out.split(b"\n") if line[:6] == b"data: "]
    assert data == list(RS_MORE_ANTHROPIC)
    assert [d.path for d in dropped] == [
        "$.object",
        "$.status",
        "$.created",
        "$.message.content[0].annotations",
        "$.message.content[1].annotations",
        "$.message.content[2].annotations",
        "$.message.content[3].annotations",
        "$.message.content[4]",
    ]


def test_responses_text_after_an_annotation_is_not_lost() -> None:
    """A text delta after an annotation.added event of the same part reaches the target (the
    annotation closed the live block and counted it as sent, so the rest of its text was never
    sent: found by the mutation run)."""
    events = [dict(e) for e in RS_MORE]
    at = next(i for i, e in enumerate(events) if e["type"].endswith("annotation.added"))
    events[at - 1], events[at] = events[at], events[at - 1]  # the "d" delta after it
    out = TR.StreamTranslator("openai_responses", "anthropic", unsupported="drop")
    data = b"".join(out.feed(chunk) for chunk in rs_bytes(events)) + out.close()
    text = [b.text for b in providers.get("anthropic").accumulate([data]).message.content]
    assert text == ["ab", "cd", "pre", "x"]


def test_translation_refusals_name_the_whole_response_and_the_event() -> None:
    """A done text that does not continue the deltas already sent is refused at its event
    (the bytes before it pending); content the target cannot hold is refused when its block
    completes, with its path in the whole response (also for thinking, where the target
    cannot take it piece by piece)."""
    created = {"id": "r1", "object": "response", "created_at": 9, "status": "in_progress"}
    message = {"type": "message", "id": "m1", "status": "in_progress", "role": "assistant"}
    where = {"output_index": 0, "item_id": "m1", "content_index": 0}
    events = [
        {"type": "response.created", "response": {**created, "model": "g", "output": []}},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {**message, "content": []},
        },
        {
            "type": "response.content_part.added",
            **where,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
        {"type": "response.output_text.delta", **where, "delta": "ab"},
        {"type": "response.output_text.done", **where, "text": "xy"},
    ]
    for i, e in enumerate(events):
        e["sequence_number"] = i
    translator = TR.StreamTranslator("openai_responses", "anthropic")
    with pytest.raises(StreamError) as info:
        translator.feed(b"".join(rs_bytes(events)))
    assert (str(info.value), info.value.frame) == (
        "the done event's text does not continue the text of its deltas, which were already"
        " translated (frame 4)",
        4,
    )
    assert translator.pending().endswith(b'"delta":{"type":"text_delta","text":"ab"}}\n\n')
    text = [AS_START, as_bs(0, {"type": "text", "text": "hi"}), as_stop(0)]
    server = {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}}
    thinking = {"type": "thinking", "thinking": "", "signature": ""}
    for blocks, what, path in [
        (
            [*text, as_bs(1, server), as_stop(1)],
            "a server_tool_use block in an assistant message",
            "$.message.content[1]",
        ),
        (
            [
                AS_START,
                as_bs(0, thinking),
                as_bd(0, {"type": "thinking_delta", "thinking": "hm"}),
                as_bd(0, {"type": "signature_delta", "signature": "s"}),
                as_stop(0),
            ],
            "a thinking block in an assistant message",
            "$.message.content[0]",
        ),
    ]:
        translator = TR.StreamTranslator("anthropic", "openai_chat")
        with pytest.raises(UnsupportedError) as refused:
            translator.feed(b"".join(as_ev(e) for e in blocks))
        assert (str(refused.value), refused.value.path) == (
            f"the target format cannot hold {what} (at {path})",
            path,
        )


def test_translate_stream_yields_each_chunk_then_the_end_or_the_error() -> None:
    """translate_stream yields the target bytes of each chunk (none when empty) then the end;
    on a failure, first the bytes of the events before it, then the error; options reach the
    translator."""
    chunks = [as_ev(AS_START), b"", as_ev(as_bs(0, AS_TEXT)), as_ev(as_stop(0))]
    chunks.append(as_ev({"type": "message_stop"}))
    dropped: list[Dropped] = []
    options = {"id": "x", "created": 5, "unsupported": "drop"}
    got = list(TR.translate_stream(chunks, "anthropic", "openai_chat", dropped=dropped, **options))
    translator = TR.StreamTranslator("anthropic", "openai_chat", **options)  # type: ignore[arg-type]
    want = [translator.feed(chunk) for chunk in chunks] + [translator.close()]
    assert got == [w for w in want if w] and len(got) == 3
    assert dropped == translator.dropped and [d.path for d in dropped] == ["$.stop_reason"]
    bad = [as_ev(AS_START) + as_ev(as_bs(0, AS_TEXT)) + b"event: x\ndata: {bad\n\n"]
    stream = TR.translate_stream(bad, "anthropic", "openai_chat")
    first = next(stream)
    assert first.startswith(b'data: {"id":"m","object":"chat.completion.chunk"')
    with pytest.raises(StreamError) as info:
        next(stream)
    assert info.value.frame == 2


def test_lookups_are_made_once_and_kept() -> None:
    """The target encoders, header functions, source accumulators and Anthropic event classes
    are looked up on first use and kept."""
    from minagent.providers import anthropic_stream, gemini, gemini_stream

    tables = (TR._ENCODERS, TR._HEADERS, TR._ACCUMULATORS)
    saved = [dict(t) for t in tables]
    events = TR._ANTHROPIC_EVENTS
    try:
        for table in tables:
            table.clear()
        assert TR._encoder("gemini") is gemini.encode_response
        assert TR._header_function("openai_chat") is openai_chat.stream_header
        assert TR._header_function("gemini") is None
        assert TR._accumulator("gemini") is gemini_stream.StreamAccumulator
        assert tables == (
            {"gemini": gemini.encode_response},
            {"openai_chat": openai_chat.stream_header, "gemini": None},
            {"gemini": gemini_stream.StreamAccumulator},
        )
        assert TR._encoder("gemini") is gemini.encode_response
        TR._ANTHROPIC_EVENTS = ()
        out = TR.StreamTranslator("anthropic", "gemini").feed(as_ev(AS_START))
        assert out == b""
        assert (
            anthropic_stream.ContentBlockDelta,
            anthropic_stream.ContentBlockStart,
            anthropic_stream.ContentBlockStop,
            anthropic_stream.MessageStart,
            anthropic_stream.TextDelta,
            anthropic_stream.ThinkingDelta,
        ) == TR._ANTHROPIC_EVENTS
    finally:
        for table, old in zip(tables, saved, strict=True):
            table.clear()
            table.update(old)
        TR._ANTHROPIC_EVENTS = events


def test_content_of_a_response_as_blocks() -> None:
    """A response's content as a list of blocks: a string is one text block (none when
    empty); a list is copied."""

    def response(content: Any) -> ModelResponse:
        return ModelResponse(message=Message(role="assistant", content=content))

    assert TR._content(response("hi")) == [wb.TextBlock("hi")]
    assert TR._content(response("")) == []
    blocks = [wb.TextBlock("a")]
    got = TR._content(response(blocks))
    assert got == blocks and got is not blocks


def test_responses_target_end_keeps_the_creation_time_of_the_start() -> None:
    """A source without a creation time to Responses: response.completed carries the
    created_at that response.created chose, even when the clock moved on in between."""
    from minagent.providers import openai_responses

    clock = iter(range(100, 10_000, 100))
    saved = openai_responses.time
    openai_responses.time = SimpleNamespace(time=lambda: float(next(clock)))  # type: ignore[assignment]
    try:
        translator = TR.StreamTranslator("anthropic", "openai_responses", unsupported="drop")
        end = [as_bs(0, AS_TEXT), as_stop(0), {"type": "message_stop"}]
        out = translator.feed(b"".join(as_ev(e) for e in [AS_START, *end]))
        out += translator.close()
    finally:
        openai_responses.time = saved
    stamps = [
        json.loads(line[6:])["response"]["created_at"]
        for line in out.split(b"\n")
        if line.startswith(b'data: {"response"')
    ]
    assert stamps == [100, 100]


GEMINI_MORE: list[dict[str, Any]] = [
    {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"text": "A", "thought": True, "thoughtSignature": "s1"}],
                }
            }
        ],
        "modelVersion": "v",
        "responseId": "r",
    },
    {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "B", "thought": True}]}}],
        "modelVersion": "v",
        "responseId": "r",
    },
    {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "C", "thought": True}]}}],
        "modelVersion": "v",
        "responseId": "r",
    },
    {"candidates": [], "modelVersion": "v", "responseId": "r"},
    {
        "candidates": [{"index": 1, "content": {"role": "model", "parts": [{"text": "zz"}]}}],
        "modelVersion": "v",
        "responseId": "r",
    },
    {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [{"functionCall": {"name": "f", "args": {}}}, {"text": "T"}],
                }
            }
        ],
        "modelVersion": "v",
        "responseId": "r",
    },
    {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "", "thoughtSignature": "s2"}]}}
        ],
        "modelVersion": "v",
        "responseId": "r",
    },
    {
        "candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}}],
        "modelVersion": "v",
        "responseId": "r",
    },
    {
        "candidates": [{"content": {"role": "model", "parts": [{"text": "U"}]}}],
        "modelVersion": "v",
        "responseId": "r",
    },
    {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": "F", "thought": False}]},
                "finishReason": "STOP",
            }
        ],
        "modelVersion": "v",
        "responseId": "r",
    },
]
GEMINI_MORE_OUT = {
    "openai_responses": (
        '{"response":{"id":"r","object":"response","created_at":7,"status":"in_progress","error":null,"incomplete_details":null,"model":"v","parallel_tool_calls":true,"tool_choice":"auto","tools":[],"output":[]},"type":"response.created","sequence_number":0}',
        '{"output_index":0,"item":{"type":"reasoning","summary":[],"id":"r_rs_0","content":[]},"type":"response.output_item.added","sequence_number":1}',
        '{"item_id":"r_rs_0","output_index":0,"content_index":0,"part":{"type":"reasoning_text","text":""},"type":"response.content_part.added","sequence_number":2}',
        '{"type":"response.reasoning_text.delta","item_id":"r_rs_0","output_index":0,"content_index":0,"delta":"A","sequence_number":3}',
        '{"item_id":"r_rs_0","output_index":0,"content_index":0,"text":"A","type":"response.reasoning_text.done","sequence_number":4}',
        '{"item_id":"r_rs_0","output_index":0,"content_index":0,"part":{"type":"reasoning_text","text":"A"},"type":"response.content_part.done","sequence_number":5}',
        '{"output_index":0,"item":{"type":"reasoning","summary":[],"id":"r_rs_0","content":[{"type":"reasoning_text","text":"A"}]},"type":"response.output_item.done","sequence_number":6}',
        '{"output_index":1,"item":{"type":"reasoning","summary":[],"id":"r_rs_1","content":[]},"type":"response.output_item.added","sequence_number":7}',
        '{"item_id":"r_rs_1","output_index":1,"content_index":0,"part":{"type":"reasoning_text","text":""},"type":"response.content_part.added","sequence_number":8}',
        '{"type":"response.reasoning_text.delta","item_id":"r_rs_1","output_index":1,"content_index":0,"delta":"B","sequence_number":9}',
        '{"type":"response.reasoning_text.delta","item_id":"r_rs_1","output_index":1,"content_index":0,"delta":"C","sequence_number":10}',
        '{"item_id":"r_rs_1","output_index":1,"content_index":0,"text":"BC","type":"response.reasoning_text.done","sequence_number":11}',
        '{"item_id":"r_rs_1","output_index":1,"content_index":0,"part":{"type":"reasoning_text","text":"BC"},"type":"response.content_part.done","sequence_number":12}',
        '{"output_index":1,"item":{"type":"reasoning","summary":[],"id":"r_rs_1","content":[{"type":"reasoning_text","text":"BC"}]},"type":"response.output_item.done","sequence_number":13}',
        '{"output_index":2,"item":{"type":"function_call","call_id":"minagent-gemini-0-2","name":"f","arguments":"{}"},"type":"response.output_item.added","sequence_number":14}',
        '{"output_index":2,"item":{"type":"function_call","call_id":"minagent-gemini-0-2","name":"f","arguments":"{}"},"type":"response.output_item.done","sequence_number":15}',
        '{"output_index":3,"item":{"type":"message","status":"in_progress","role":"assistant","id":"r_msg_3","content":[]},"type":"response.output_item.added","sequence_number":16}',
        '{"item_id":"r_msg_3","output_index":3,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]},"type":"response.content_part.added","sequence_number":17}',
        '{"type":"response.output_text.delta","item_id":"r_msg_3","output_index":3,"content_index":0,"logprobs":[],"delta":"T","sequence_number":18}',
        '{"type":"response.output_text.delta","item_id":"r_msg_3","output_index":3,"content_index":0,"logprobs":[],"delta":"","sequence_number":19}',
        '{"item_id":"r_msg_3","output_index":3,"content_index":0,"text":"T","logprobs":[],"type":"response.output_text.done","sequence_number":20}',
        '{"item_id":"r_msg_3","output_index":3,"content_index":0,"part":{"type":"output_text","text":"T","annotations":[]},"type":"response.content_part.done","sequence_number":21}',
        '{"output_index":3,"item":{"type":"message","status":"completed","role":"assistant","id":"r_msg_3","content":[{"type":"output_text","text":"T","annotations":[]}]},"type":"response.output_item.done","sequence_number":22}',
        '{"output_index":4,"item":{"type":"message","status":"in_progress","role":"assistant","id":"r_msg_4","content":[]},"type":"response.output_item.added","sequence_number":23}',
        '{"item_id":"r_msg_4","output_index":4,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]},"type":"response.content_part.added","sequence_number":24}',
        '{"type":"response.output_text.delta","item_id":"r_msg_4","output_index":4,"content_index":0,"logprobs":[],"delta":"U","sequence_number":25}',
        '{"item_id":"r_msg_4","output_index":4,"content_index":0,"text":"U","logprobs":[],"type":"response.output_text.done","sequence_number":26}',
        '{"item_id":"r_msg_4","output_index":4,"content_index":0,"part":{"type":"output_text","text":"U","annotations":[]},"type":"response.content_part.done","sequence_number":27}',
        '{"output_index":4,"item":{"type":"message","status":"completed","role":"assistant","id":"r_msg_4","content":[{"type":"output_text","text":"U","annotations":[]}]},"type":"response.output_item.done","sequence_number":28}',
        '{"output_index":5,"item":{"role":"assistant","content":[{"type":"output_text","text":"F","annotations":[]}],"type":"message","id":"msg_minagent","status":"completed"},"type":"response.output_item.added","sequence_number":29}',
        '{"output_index":5,"item":{"role":"assistant","content":[{"type":"output_text","text":"F","annotations":[]}],"type":"message","id":"msg_minagent","status":"completed"},"type":"response.output_item.done","sequence_number":30}',
        '{"response":{"id":"r","object":"response","created_at":7,"status":"completed","error":null,"incomplete_details":null,"model":"v","parallel_tool_calls":true,"tool_choice":"auto","tools":[],"output":[{"type":"reasoning","id":"rs_minagent_0","summary":[],"content":[{"type":"reasoning_text","text":"A"}]},{"type":"reasoning","id":"rs_minagent_1","summary":[],"content":[{"type":"reasoning_text","text":"BC"}]},{"type":"function_call","call_id":"minagent-gemini-0-2","name":"f","arguments":"{}"},{"role":"assistant","content":[{"type":"output_text","text":"T","annotations":[]},{"type":"output_text","text":"U","annotations":[]},{"type":"output_text","text":"F","annotations":[]}],"type":"message","id":"msg_minagent","status":"completed"}]},"type":"response.completed","sequence_number":31}',
    ),
    "anthropic": (
        '{"type":"message_start","message":{"id":"r","type":"message","role":"assistant","model":"v","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}',
        '{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"minagent-gemini-0-2","name":"f","input":{}}}',
        '{"type":"content_block_stop","index":0}',
        '{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}',
        '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"T"}}',
        '{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":""}}',
        '{"type":"content_block_stop","index":1}',
        '{"type":"content_block_start","index":2,"content_block":{"type":"text","text":""}}',
        '{"type":"content_block_delta","index":2,"delta":{"type":"text_delta","text":"U"}}',
        '{"type":"content_block_stop","index":2}',
        '{"type":"content_block_start","index":3,"content_block":{"type":"text","text":""}}',
        '{"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"F"}}',
        '{"type":"content_block_stop","index":3}',
        '{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":0,"output_tokens":0}}',
        '{"type":"message_stop"}',
    ),
}


def test_gemini_signatures_other_candidates_and_parts_after_a_call() -> None:
    """A Gemini source: a signed thought part is complete (the next thought starts a new
    part), unsigned thoughts merge; a chunk without candidates, or whose first candidate is
    another one, adds nothing live; a text part after a function call in one chunk goes live;
    a signature on an empty text part ends that part, an empty text part adds nothing; a
    part marked thought: false is no thought and does not go live as one."""
    data = b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in GEMINI_MORE)
    for target, events in GEMINI_MORE_OUT.items():
        fields = {"created": 7} if target == "openai_responses" else {}
        translator = TR.StreamTranslator("gemini", target, unsupported="drop", **fields)
        out = translator.feed(data) + translator.close()
        got = [
            line[6:].rstrip(b"\r").decode() for line in out.split(b"\n") if line[:6] == b"data: "
        ]
        assert got == list(events), target


def test_anthropic_thinking_text_in_its_start_and_text_with_keys() -> None:
    """An Anthropic thinking block whose start already holds text sends it first, live, to a
    target that takes thinking piece by piece; a text block whose start has other keys
    (citations) goes whole when it stops."""
    start = {"type": "thinking", "thinking": "pre", "signature": ""}
    events = [
        AS_START,
        as_bs(0, start),
        as_bd(0, {"type": "thinking_delta", "thinking": "x"}),
        as_bd(0, {"type": "signature_delta", "signature": "s"}),
        as_stop(0),
        as_bs(1, {"type": "text", "text": "", "citations": []}),
        as_bd(1, {"type": "text_delta", "text": "t"}),
        as_stop(1),
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 2},
        },
        {"type": "message_stop"},
    ]
    translator = TR.StreamTranslator("anthropic", "gemini", unsupported="drop")
    out = translator.feed(b"".join(as_ev(e) for e in events)) + translator.close()
    top = '"modelVersion":"c","responseId":"m"'

    def part(body: str) -> str:
        return (
            '{"candidates":[{"content":{"role":"model","parts":['
            + body
            + ']},"index":0}],'
            + top
            + "}"
        )

    assert [
        line[6:].rstrip(b"\r").decode() for line in out.split(b"\n") if line[:6] == b"data: "
    ] == [
        part('{"text":"pre","thought":true}'),
        part('{"text":"x","thought":true}'),
        "{"
        + top
        + ',"candidates":[{"content":{"role":"model","parts":[{"text":"t"}]},"index":0}]}',
        "{" + top + ',"usageMetadata":{"promptTokenCount":7,"cachedContentTokenCount":2,'
        '"candidatesTokenCount":2},"candidates":[{"index":0,"content":{"role":"model"},'
        '"finishReason":"STOP"}]}',
    ]


def test_chat_thinking_or_parts_after_the_text_are_refused_at_their_chunk() -> None:
    """reasoning_content or a list of content parts after the text started is refused at its
    chunk: they come before the text in the message, which was already translated."""
    first = c_chunk({"role": "assistant", "content": "a"})
    for second in ({"reasoning_content": "x"}, {"content": [{"type": "text", "text": "p"}]}):
        translator = TR.StreamTranslator("openai_chat", "anthropic")
        with pytest.raises(StreamError) as info:
            translator.feed(first + c_chunk(second))
        assert (str(info.value), info.value.frame) == (
            "thinking or content parts after the text started: they come before the text in"
            " the message, and the text was already translated (frame 1)",
            1,
        )


def test_responses_parts_with_text_or_annotations_are_not_live() -> None:
    """An output_text part that arrives with text or annotations already is not sent live:
    the message goes whole when its item is done."""
    for part in (
        {"type": "output_text", "text": "pre", "annotations": []},
        {"type": "output_text", "text": "", "annotations": [{"type": "file_citation"}]},
    ):
        events = [dict(e) for e in RS_MORE[:3]]
        events[2] = dict(events[2], part=part)
        events.append(dict(RS_MORE[3]))
        translator = TR.StreamTranslator("openai_responses", "anthropic", unsupported="drop")
        out = translator.feed(b"".join(rs_bytes(events)))
        assert out.count(b"event: ") == 1, part  # message_start only


def test_chat_other_choices_and_unknown_keys_after_the_text() -> None:
    """Only choice 0 is read live, wherever it stands in a chunk; an unknown delta key after
    the text started (not reasoning) is no reason to refuse."""
    data = (
        c_event(
            {"index": 1, "delta": {"role": "assistant", "content": "B"}},
            {"index": 0, "delta": {"role": "assistant", "content": "A"}},
        )
        + c_chunk({"content": "a", "x_note": "n"})
        + c_chunk({}, "stop")
        + b"data: [DONE]\n\n"
    )
    translator = TR.StreamTranslator("openai_chat", "anthropic", unsupported="drop")
    out = translator.feed(data) + translator.close()
    assert [line[6:].decode() for line in out.split(b"\n") if line[:6] == b"data: "][1:4] == [
        a_start(0, '{"type":"text","text":""}').split(b"data: ")[1].strip().decode(),
        a_delta(0, '{"type":"text_delta","text":"A"}').split(b"data: ")[1].strip().decode(),
        a_delta(0, '{"type":"text_delta","text":"a"}').split(b"data: ")[1].strip().decode(),
    ]


def test_anthropic_blocks_of_type_only_and_thinking_a_target_cannot_take() -> None:
    """A block holding only its type is not thinking (nothing live); thinking whose start holds
    text, for a target that cannot take thinking piece by piece, goes nowhere live and is
    dropped and listed under the drop policy."""
    events = [
        AS_START,
        as_bs(0, {"type": "odd"}),
        as_stop(0),
        as_bs(1, {"type": "thinking", "thinking": "pre", "signature": ""}),
        as_bd(1, {"type": "signature_delta", "signature": "s"}),
        as_stop(1),
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 2},
        },
        {"type": "message_stop"},
    ]
    dropped: list[Dropped] = []
    translator = TR.StreamTranslator(
        "anthropic", "openai_chat", unsupported="drop", dropped=dropped, created=5
    )
    out = translator.feed(b"".join(as_ev(e) for e in events)) + translator.close()
    head = '{"id":"m","object":"chat.completion.chunk","created":5,"model":"c","choices":'
    assert [line[6:].decode() for line in out.split(b"\n") if line[:6] == b"data: "] == [
        head + '[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}',
        head + '[{"index":0,"logprobs":null,"delta":{},"finish_reason":"stop"}]}',
        head + '[],"usage":{"prompt_tokens":7,"prompt_tokens_details":{"cached_tokens":2},'
        '"completion_tokens":2,"total_tokens":9}}',
        "[DONE]",
    ]
    assert [d.path for d in dropped] == ["$.message.content[0]", "$.message.content[1]"]
    translator = TR.StreamTranslator("anthropic", "gemini", unsupported="drop")
    out = translator.feed(b"".join(as_ev(e) for e in events)) + translator.close()
    assert out.count(b'"thought":true') == 1 and out.count(b"data: ") == 2


def test_a_type_only_block_is_refused_where_thinking_goes_live() -> None:
    """A block holding only its type, for a target that takes thinking piece by piece, is not
    taken for thinking: it is refused when it stops, with its path."""
    events = [AS_START, as_bs(0, {"type": "odd"}), as_stop(0)]
    translator = TR.StreamTranslator("anthropic", "gemini")
    with pytest.raises(UnsupportedError) as refused:
        translator.feed(b"".join(as_ev(e) for e in events))
    assert refused.value.path == "$.message.content[0]"
    assert str(refused.value) == (
        "the target format cannot hold a 'odd' block from another provider (no such block here)"
        " (at $.message.content[0])"
    )
