"""Exact-value tests that kill mutants of the provider stream writers and translators (issue 30)."""

from __future__ import annotations

import json
from typing import Any

from minagent.providers._emit_anthropic import AnthropicWriter
from minagent.providers._emit_responses import ResponsesWriter


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
