"""Provider adapters and streams: exact values pinned where mutation testing found the suite
silent (docs/mutation.md, "Providers")."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from msgspec import UNSET

from minagent.providers import StreamError, _stream
from minagent.providers import _helpers as H
from minagent.providers import gemini as GA
from minagent.providers import gemini_stream as GS
from minagent.providers import openai_responses as RA
from minagent.providers import openai_responses_stream as RS
from minagent.providers._sse import SSEEvent, SSEParser
from minagent.providers._stream import UnknownEvent
from minagent.wire import (
    Base64Source,
    EncodeError,
    Extra,
    TextBlock,
    ToolUseBlock,
    UnknownBlock,
    ValidationError,
)
from minagent.wire.errors import WireError
from minagent.wire.limits import Limits

DATA = Path(__file__).parent / "data"
RESPONSES = DATA / "provider-examples-responses"
GEMINI = DATA / "provider-examples-gemini"


def sse(data: dict[str, Any], event: str | None = None) -> bytes:
    """One SSE event named after the object's ``type``."""
    return f"event: {event or data.get('type')}\ndata: {json.dumps(data)}\n\n".encode()


def r_events(*events: dict[str, Any]) -> bytes:
    """Responses events as one SSE byte string."""
    return b"".join(sse(e) for e in events)


_RESP = {
    "id": "resp_1",
    "object": "response",
    "status": "in_progress",
    "model": "gpt",
    "output": [],
}


def r_created(**extra: Any) -> dict[str, Any]:
    return {"type": "response.created", "response": {**_RESP, **extra}}


def r_added(
    at: int, item: dict[str, Any], kind: str = "response.output_item.added"
) -> dict[str, Any]:
    return {"type": kind, "output_index": at, "item": item}


def r_part(at: int, index: int, part: dict[str, Any], kind: str = "content_part") -> dict[str, Any]:
    key = "content_index" if kind == "content_part" else "summary_index"
    return {"type": f"response.{kind}.added", "output_index": at, key: index, "part": part}


def r_delta(name: str, at: int, delta: str, **keys: Any) -> dict[str, Any]:
    return {"type": f"response.{name}.delta", "output_index": at, "delta": delta, **keys}


def r_done(
    status: str = "completed", output: list[Any] | None = None, **extra: Any
) -> dict[str, Any]:
    kind = {"completed": "response.completed"}.get(status, f"response.{status}")
    body = {**_RESP, "status": status, "output": output or [], **extra}
    return {"type": kind, "response": body}


def r_fail(*events: dict[str, Any]) -> tuple[StreamError, RS.StreamAccumulator]:
    """The StreamError feeding ``events`` raises, and the accumulator it left."""
    acc = RS.StreamAccumulator()
    with pytest.raises(StreamError) as err:
        acc.feed(r_events(*events))
    return err.value, acc


_MSG = {"type": "message", "id": "m1", "status": "in_progress", "role": "assistant", "content": []}
_TEXT = {"type": "output_text", "text": "", "annotations": []}


# --- openai_responses_stream ---------------------------------------------------------------------


def test_responses_error_event_text_and_object() -> None:
    """An error event raises "error event: <message repr>" at its index, with the event object."""
    event = {"type": "error", "code": "server_error", "message": "boom"}
    err, acc = r_fail(r_created(), event)
    assert (str(err.message), err.frame, err.error) == ("error event: 'boom'", 1, event)
    assert acc.events == 2


def test_responses_snapshot_and_terminal_must_hold_an_object() -> None:
    """A snapshot or terminal event whose response is not an object is refused by name."""
    err, _ = r_fail({"type": "response.in_progress", "response": 5})
    assert (err.message, err.frame) == (
        "response.in_progress: 'response' must be an object, not int",
        0,
    )
    err, _ = r_fail(r_created(), {"type": "response.incomplete", "response": None})
    assert (err.message, err.frame) == (
        "response.incomplete: 'response' must be an object, not null",
        1,
    )
    err, _ = r_fail(r_created(), {"type": "response.output_item.added", "output_index": 0})
    assert err.message == "response.output_item.added: 'item' must be an object, not null"


def test_responses_event_type_must_be_a_string() -> None:
    """An event without a string type is refused naming the SSE event."""
    acc = RS.StreamAccumulator()
    with pytest.raises(StreamError) as err:
        acc.feed(b'event: odd\ndata: {"type": 7}\n\n')
    assert (err.value.message, err.value.frame) == (
        "event 'odd': 'type' must be a string, not int",
        0,
    )


def test_responses_negative_and_non_integer_indexes() -> None:
    """Output, content and annotation indexes must be non-negative integers."""
    err, _ = r_fail(r_created(), r_added(-1, _MSG))
    assert err.message == "response.output_item.added: 'output_index' must not be negative, got -1"
    err, _ = r_fail(r_created(), r_added(0, _MSG), r_part(0, -2, _TEXT))
    assert (
        err.message == "response.content_part.added: 'content_index' must not be negative, got -2"
    )
    err, _ = r_fail(r_created(), {**r_added(0, _MSG), "output_index": True})
    assert err.message == "response.output_item.added: 'output_index' must be an integer, not bool"
    assert err.frame == 1


def test_responses_deltas_for_missing_or_other_items() -> None:
    """A delta for an item never added, or of another type, is refused with the exact reason."""
    err, _ = r_fail(r_created(), r_delta("output_text", 3, "x", content_index=0))
    assert (err.message, err.frame) == (
        "response.output_text.delta for output item 3, which was never added",
        1,
    )
    call = {"type": "function_call", "call_id": "c", "name": "f", "arguments": ""}
    err, _ = r_fail(r_created(), r_added(0, call), r_delta("output_text", 0, "x", content_index=0))
    assert err.message == (
        "response.output_text.delta for output item 0, a 'function_call' item"
        " (it goes to a 'message' item)"
    )
    assert err.frame == 2
    err, _ = r_fail(r_created(), r_added(0, call), r_delta("function_call_arguments", -1, "x"))
    assert (err.message, err.frame) == (
        "response.function_call_arguments.delta: 'output_index' must not be negative, got -1",
        2,
    )
    err, _ = r_fail(
        r_created(),
        r_added(0, _MSG),
        r_part(0, 0, _TEXT),
        r_delta("output_text", 0, None, content_index=0),
    )  # type: ignore[arg-type]
    assert (err.message, err.frame) == (
        "response.output_text.delta: 'delta' must be a string, not null",
        3,
    )
    err, _ = r_fail(r_created(), r_added(0, _MSG), r_delta("function_call_arguments", 0, "{"))
    assert err.message == (
        "response.function_call_arguments.delta for output item 0, a 'message' item"
        " (it goes to a 'function_call' item)"
    )
    err, _ = r_fail(r_created(), r_part(2, 0, _TEXT))
    assert err.message == "response.content_part.added for output item 2, which was never added"


def test_responses_deltas_for_missing_or_other_parts() -> None:
    """A text delta for a part never added, or of another type, is refused with the reason."""
    head = [r_created(), r_added(0, _MSG)]
    err, _ = r_fail(*head, r_delta("output_text", 0, "x", content_index=0))
    assert (err.message, err.frame) == (
        "response.output_text.delta for part 0 of its item, which was never added",
        2,
    )
    refusal = {"type": "refusal", "refusal": ""}
    err, _ = r_fail(*head, r_part(0, 0, refusal), r_delta("output_text", 0, "x", content_index=0))
    assert err.message == (
        "response.output_text.delta for part 0 of its item, a 'refusal' part"
        " (it goes to a 'output_text' part)"
    )
    odd = r_added(0, {**_MSG, "content": ["plain"]})
    err, _ = r_fail(r_created(), odd, r_delta("output_text", 0, "x", content_index=0))
    assert err.message == (
        "response.output_text.delta for part 0 of its item, a 'str' part"
        " (it goes to a 'output_text' part)"
    )
    err, _ = r_fail(r_created(), r_added(0, {**_MSG, "content": "x"}), r_part(0, 0, _TEXT))
    assert (
        err.message == "response.content_part.added: the item's 'content' must be an array, not str"
    )


def test_responses_text_delta_into_a_bad_part_list_or_index() -> None:
    """A text delta into an item whose part list is not an array, or at a negative part
    index, is refused naming the delta event and its index."""
    err, _ = r_fail(
        r_created(),
        r_added(0, {**_MSG, "content": {}}),
        r_delta("output_text", 0, "x", content_index=0),
    )
    assert (err.message, err.frame) == (
        "response.output_text.delta: the item's 'content' must be an array, not dict",
        2,
    )
    err, _ = r_fail(
        r_created(),
        r_added(0, _MSG),
        r_part(0, 0, _TEXT),
        r_delta("output_text", 0, "x", content_index=-1),
    )
    assert (err.message, err.frame) == (
        "response.output_text.delta: 'content_index' must not be negative, got -1",
        3,
    )


_ANN = "response.output_text.annotation.added"


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (
            r_delta("function_call_arguments", 5, "x"),
            "response.function_call_arguments.delta for output item 5, which was never added",
        ),
        (
            r_part(-1, 0, _TEXT),
            "response.content_part.added: 'output_index' must not be negative, got -1",
        ),
        (
            r_part(4, 0, _TEXT),
            "response.content_part.added for output item 4, which was never added",
        ),
        (
            r_part(0, 0, {"type": "output_text", "text": ""}, kind="reasoning_summary_part"),
            "response.reasoning_summary_part.added: the item's 'summary' must be an array, not int",
        ),
        (
            {"type": "response.content_part.added", "output_index": 0, "content_index": 0},
            "response.content_part.added: 'part' must be an object, not null",
        ),
        (
            r_part(0, -3, _TEXT),
            "response.content_part.added: 'content_index' must not be negative, got -3",
        ),
        (
            {"type": _ANN, "output_index": 9, "content_index": 0, "annotation_index": 0},
            f"{_ANN} for output item 9, which was never added",
        ),
        (
            {"type": _ANN, "output_index": 0, "content_index": 0, "annotation_index": -1},
            f"{_ANN}: 'annotation_index' must not be negative, got -1",
        ),
    ],
)
def test_responses_refusals_name_the_event_and_its_index(bad: dict[str, Any], message: str) -> None:
    """Each malformed part or index event is refused with its exact reason at its index (3)."""
    item = {**_MSG, "summary": 7, "content": [dict(_TEXT)]}
    err, acc = r_fail(
        r_created(), r_added(0, item), {"type": "response.in_progress", "response": _RESP}, bad
    )
    assert (err.message, err.frame) == (message, 3)
    assert acc.events == 4


def test_responses_part_index_gap_and_replacement() -> None:
    """A part at the next index is appended, at an existing one replaces it, past the end is a
    gap error naming the count."""
    acc = RS.StreamAccumulator()
    acc.feed(r_events(r_created(), r_added(0, _MSG), r_part(0, 0, _TEXT)))
    acc.feed(r_events(r_part(0, 0, {**_TEXT, "text": "new"})))
    assert acc.output()[0]["content"] == [{"type": "output_text", "text": "new", "annotations": []}]
    with pytest.raises(StreamError) as err:
        acc.feed(r_events(r_part(0, 2, _TEXT)))
    assert err.value.message == (
        "response.content_part.added: index 2 leaves a gap after 1 entries"
    )
    assert err.value.frame == 4


def test_responses_missing_part_list_is_created() -> None:
    """An item added without a part list gets one from its first part event."""
    acc = RS.StreamAccumulator()
    item = {"type": "message", "id": "m", "role": "assistant", "status": "in_progress"}
    acc.feed(r_events(r_created(), r_added(0, item), r_part(0, 0, _TEXT)))
    acc.feed(r_events(r_delta("output_text", 0, "hi", content_index=0)))
    assert acc.output() == [{**item, "content": [{**_TEXT, "text": "hi"}]}]


def test_responses_annotations_added_in_place() -> None:
    """Annotation events fill the part's annotations by index (creating the list if absent)."""
    note = {"type": "url_citation", "url": "https://a.example", "start_index": 0, "end_index": 1}
    other = {**note, "url": "https://b.example"}
    acc = RS.StreamAccumulator()
    acc.feed(
        r_events(r_created(), r_added(0, _MSG), r_part(0, 0, {"type": "output_text", "text": "a"}))
    )
    ann = "response.output_text.annotation.added"
    base = {"type": ann, "output_index": 0, "content_index": 0}
    acc.feed(r_events({**base, "annotation_index": 0, "annotation": note}))
    acc.feed(r_events({**base, "annotation_index": 1, "annotation": other}))
    acc.feed(r_events({**base, "annotation_index": 0, "annotation": other}))
    assert acc.output()[0]["content"][0]["annotations"] == [other, other]
    with pytest.raises(StreamError) as err:
        acc.feed(r_events({**base, "annotation_index": 3, "annotation": note}))
    assert (err.value.message, err.value.frame) == (
        f"{ann}: index 3 leaves a gap after 2 entries",
        6,
    )
    acc = RS.StreamAccumulator()
    bad = {"type": "output_text", "text": "a", "annotations": "x"}
    acc.feed(r_events(r_created(), r_added(0, _MSG), r_part(0, 0, bad)))
    with pytest.raises(StreamError) as err:
        acc.feed(r_events({**base, "annotation_index": 0, "annotation": note}))
    assert (err.value.message, err.value.frame) == (
        f"{ann}: the part's 'annotations' must be an array, not str",
        3,
    )


def test_responses_events_are_not_changed_by_later_deltas() -> None:
    """Deltas grow the accumulator's own copies: the added item and part events stay as sent."""
    item = {**_MSG, "content": [{"type": "output_text", "text": "a", "annotations": []}]}
    added, part = (
        r_added(0, item),
        r_part(0, 1, {"type": "output_text", "text": "", "annotations": []}),
    )
    parser_events = RS.StreamParser().feed(r_events(r_created(), added, part))
    acc = RS.StreamAccumulator()
    for event in parser_events:
        acc.apply(event)
    note = {"type": "file_citation", "file_id": "f", "index": 0}
    base = {"output_index": 0, "content_index": 0}
    for event in RS.StreamParser().feed(
        r_events(
            r_delta("output_text", 0, "b", content_index=0),
            r_delta("output_text", 0, "c", content_index=1),
            {
                "type": "response.output_text.annotation.added",
                **base,
                "annotation_index": 0,
                "annotation": note,
            },
        )
    ):
        acc.apply(event)
    assert parser_events[1].data["item"]["content"] == [
        {"type": "output_text", "text": "a", "annotations": []}
    ]
    assert parser_events[2].data["part"] == {"type": "output_text", "text": "", "annotations": []}
    summary = {"type": "summary_text", "text": "s"}
    reasoning = r_added(1, {"type": "reasoning", "id": "r", "summary": [summary]})
    events = RS.StreamParser().feed(
        r_events(reasoning, r_delta("reasoning_summary_text", 1, "t", summary_index=0))
    )
    for event in events:
        acc.apply(event)
    assert events[0].data["item"]["summary"] == [{"type": "summary_text", "text": "s"}]
    assert acc.output()[1]["summary"] == [{"type": "summary_text", "text": "st"}]
    assert acc.output()[0]["content"] == [
        {"type": "output_text", "text": "ab", "annotations": [note]},
        {"type": "output_text", "text": "c", "annotations": []},
    ]


def test_responses_reasoning_summary_and_text_parts() -> None:
    """Summary parts and reasoning text grow from their deltas; ``.done`` sets the whole text."""
    item = {"type": "reasoning", "id": "rs", "summary": []}
    summary = {"type": "summary_text", "text": ""}
    acc = RS.StreamAccumulator()
    acc.feed(
        r_events(
            r_created(),
            r_added(0, item),
            r_part(0, 0, summary, kind="reasoning_summary_part"),
            r_delta("reasoning_summary_text", 0, "Think", summary_index=0),
            r_delta("reasoning_summary_text", 0, "ing", summary_index=0),
            r_part(0, 0, {"type": "reasoning_text", "text": "a"}),
            r_delta("reasoning_text", 0, "b", content_index=0),
        )
    )
    assert acc.output() == [
        {
            "type": "reasoning",
            "id": "rs",
            "summary": [{"type": "summary_text", "text": "Thinking"}],
            "content": [{"type": "reasoning_text", "text": "ab"}],
        }
    ]
    done = {
        "type": "response.reasoning_summary_text.done",
        "output_index": 0,
        "summary_index": 0,
        "text": "Whole",
    }
    acc.feed(r_events(done))
    assert acc.output()[0]["summary"] == [{"type": "summary_text", "text": "Whole"}]
    assert acc.events == 8 and acc.unknown == []


@pytest.mark.parametrize(
    ("name", "item_type", "field"),
    [
        ("function_call_arguments", "function_call", "arguments"),
        ("custom_tool_call_input", "custom_tool_call", "input"),
        ("mcp_call_arguments", "mcp_call", "arguments"),
        ("code_interpreter_call_code", "code_interpreter_call", "code"),
    ],
)
def test_responses_item_text_deltas_and_done(name: str, item_type: str, field: str) -> None:
    """Each tool item's text grows from its own delta event and is set whole by its done event."""
    acc = RS.StreamAccumulator()
    acc.feed(r_events(r_created(), r_added(0, {"type": item_type, "id": "i"})))
    acc.feed(r_events(r_delta(name, 0, "ab"), r_delta(name, 0, "c")))
    assert acc.output() == [{"type": item_type, "id": "i", field: "abc"}]
    acc.feed(r_events({"type": f"response.{name}.done", "output_index": 0, field: "xyz"}))
    assert acc.output() == [{"type": item_type, "id": "i", field: "xyz"}]
    with pytest.raises(StreamError) as err:
        acc.feed(r_events({"type": f"response.{name}.done", "output_index": 0}))
    assert (err.value.message, err.value.frame) == (
        f"response.{name}.done: {field!r} must be a string, not null",
        5,
    )
    with pytest.raises(StreamError) as err:
        acc.feed(r_events({"type": f"response.{name}.delta", "output_index": 0, "delta": 1}))
    assert (err.value.message, err.value.frame) == (
        f"response.{name}.delta: 'delta' must be a string, not int",
        6,
    )


def test_responses_delta_onto_a_non_string_field() -> None:
    """A delta onto a field that holds no string is refused naming the field."""
    acc = RS.StreamAccumulator()
    acc.feed(r_events(r_created(), r_added(0, {"type": "function_call", "arguments": None})))
    with pytest.raises(StreamError) as err:
        acc.feed(r_events(r_delta("function_call_arguments", 0, "{")))
    assert err.value.message == (
        "response.function_call_arguments.delta: the existing 'arguments' must be a string,"
        " not null"
    )
    assert err.value.frame == 2


def test_responses_progress_events_counted_unknown_kept() -> None:
    """Built-in tools' progress events are counted and dropped; other unknown types are kept
    whole as UnknownEvent with the provider and their index, in order."""
    progress = {"type": "response.web_search_call.searching", "output_index": 0, "item_id": "w"}
    odd = {"type": "response.audio.delta", "delta": "AAA"}
    other = {"type": "rate_limits.updated", "rate_limits": []}
    named = {"type": "response.file_search_call_x.done"}
    acc = RS.StreamAccumulator()
    acc.feed(r_events(r_created(), progress, odd, other, named))
    assert acc.events == 5
    assert acc.unknown == [
        UnknownEvent("response.audio.delta", odd, "openai_responses", 2),
        UnknownEvent("rate_limits.updated", other, "openai_responses", 3),
        UnknownEvent("response.file_search_call_x.done", named, "openai_responses", 4),
    ]


def test_responses_terminal_events_end_the_stream() -> None:
    """completed, incomplete and failed each end the stream: an event after them is refused
    naming the terminal event's index."""
    for status in ("completed", "incomplete", "failed"):
        parser = RS.StreamParser()
        parser.feed(r_events(r_created(), r_done(status)))
        assert parser.ended == 1
        with pytest.raises(StreamError) as err:
            parser.feed(r_events(r_created()))
        assert err.value.message == (
            "data after the end of the stream (the terminal response event at event 1)"
        )
        assert err.value.frame == 2


def test_responses_cut_stream_names_what_is_missing() -> None:
    """A stream without its terminal event fails at close naming response.completed."""
    acc = RS.StreamAccumulator()
    acc.feed(r_events(r_created(), r_added(0, _MSG)))
    with pytest.raises(StreamError) as err:
        acc.close()
    assert (err.value.message, err.value.frame) == (
        "the stream ended before response.completed",
        2,
    )


def test_responses_body_prefers_terminal_output_else_built_items() -> None:
    """body(): the terminal snapshot as it is when its output is non-empty; with an empty
    output, the items built from the events; before it, the latest snapshot with them."""
    built = {**_MSG, "content": [{**_TEXT, "text": "built"}]}
    final_item = {**_MSG, "status": "completed", "content": [{**_TEXT, "text": "final"}]}
    events = [r_created(), r_added(0, built)]
    acc = RS.StreamAccumulator()
    acc.feed(
        r_events(*events, {"type": "response.in_progress", "response": {**_RESP, "model": "m2"}})
    )
    assert acc.body() == {**_RESP, "model": "m2", "output": [built]}
    acc.feed(r_events(r_done(output=[final_item], usage=None)))
    assert acc.body() == {**_RESP, "status": "completed", "output": [final_item], "usage": None}
    assert acc.close().message.text == "final"
    acc = RS.StreamAccumulator()
    acc.feed(r_events(*events, r_done(output=[])))
    assert acc.body() == {**_RESP, "status": "completed", "output": [built]}
    assert acc.close().message.text == "built"


def test_responses_output_orders_items_by_index() -> None:
    """Items added out of order come out sorted by their output index."""
    acc = RS.StreamAccumulator()
    a = {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"}
    b = {"type": "function_call", "call_id": "b", "name": "g", "arguments": "{}"}
    acc.feed(r_events(r_created(), r_added(1, b), r_added(0, a)))
    assert acc.output() == [a, b]


def test_responses_incomplete_accumulates_to_max_tokens() -> None:
    """A stream ending in response.incomplete (max_output_tokens) closes to max_tokens."""
    item = {**_MSG, "status": "incomplete", "content": [{**_TEXT, "text": "cut"}]}
    details = {"reason": "max_output_tokens"}
    resp = RS.accumulate(
        [
            r_events(
                r_created(),
                r_added(0, item),
                r_done("incomplete", [item], incomplete_details=details),
            )
        ]
    )
    assert (resp.stop_reason, resp.message.text) == ("max_tokens", "cut")


def test_responses_accumulate_equals_the_adapter_on_the_recording() -> None:
    """accumulate() of the recorded text stream, split in 7-byte chunks, equals the adapter's
    decode of its terminal snapshot."""
    raw = (RESPONSES / "stream_text.sse").read_bytes()
    final = next(e for e in RS.StreamParser().feed(raw) if e.type == "response.completed")
    resp = RS.accumulate([raw[i : i + 7] for i in range(0, len(raw), 7)])
    assert resp == RA.response_from_dict(final.data["response"])


# --- gemini_stream -------------------------------------------------------------------------------


def g_sse(*chunks: dict[str, Any]) -> bytes:
    """Gemini chunks as an ``alt=sse`` stream."""
    return b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)


def g_array(*chunks: dict[str, Any]) -> bytes:
    """Gemini chunks as the default JSON-array stream."""
    return ("[" + "\r\n,\r\n".join(json.dumps(c) for c in chunks) + "]").encode()


def g_parts(*parts: Any, finish: str | None = None, index: int | None = 0) -> dict[str, Any]:
    """One chunk of one candidate holding ``parts``."""
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if index is not None:
        candidate["index"] = index
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate]}


def g_body(*chunks: dict[str, Any], sse: bool = True) -> dict[str, Any]:
    """The body the accumulator merges from ``chunks``."""
    acc = GS.StreamAccumulator(sse=sse)
    acc.feed(g_sse(*chunks) if sse else g_array(*chunks))
    return acc.body()


def g_refused(data: bytes, *, sse: bool = False, close: bool = False) -> StreamError:
    acc = GS.StreamAccumulator(sse=sse)
    with pytest.raises(StreamError) as err:
        acc.feed(data)
        if close:
            acc.close()
    return err.value


def test_gemini_array_elements_and_offsets() -> None:
    """The array framing hands out each element's exact bytes, index and stream offset, with
    brackets, braces and escaped quotes inside strings ignored."""
    one = b'{"":"x]}\\"{["}'
    two = b'{"b":[{"c":[1,{}]}],"d":"\\\\"}'
    three = b'{"":""}'
    data = b" [\r\n" + one + b"\r\n,\r\n" + two + b"," + three + b"]\n"
    framing = GS._ArrayFraming(Limits())
    events = framing.feed(data)
    assert events == [
        SSEEvent("message", one, 0, 4),
        SSEEvent("message", two, 1, 4 + len(one) + 5),
        SSEEvent("message", three, 2, 4 + len(one) + 5 + len(two) + 1),
    ]
    framing = GS._ArrayFraming(Limits())
    assert framing.feed(b'[{"":[]}]') == [SSEEvent("message", b'{"":[]}', 0, 1)]
    assert framing.close() == []
    for size in (1, 2, 3, 5):
        framing = GS._ArrayFraming(Limits())
        got = [e for i in range(0, len(data), size) for e in framing.feed(data[i : i + size])]
        assert got == events, size


def test_gemini_array_framing_errors() -> None:
    """A JSON-array stream is refused with the exact reason and chunk index."""
    err = g_refused(b' {"candidates":[]}')
    assert (err.message, err.frame) == ("a JSON-array stream must start with '['", 0)
    err = g_refused(b'[{"candidates":[]} x')
    assert (err.message, err.frame) == ("unexpected byte 'x' between chunks", 1)
    err = g_refused(b'[{"a":1}] ]')
    assert (err.message, err.frame) == ("data after the closing ']'", 1)
    err = g_refused(b'[{"a":1},{"b":', close=True)
    assert (err.message, err.frame) == ("the stream ended before the closing ']'", 1)
    err = g_refused(b"", close=True)
    assert (err.message, err.frame) == ("the stream ended before the closing ']'", 0)
    err = g_refused(b"[1]")
    assert (err.message, err.frame) == ("unexpected byte '1' between chunks", 0)


def test_gemini_array_chunk_longer_than_the_limit() -> None:
    """An array element past max_event is refused naming its start byte and size, both while it
    still arrives and when it ends; one exactly at the limit is accepted."""
    element = b'{"candidates":[],"pad":"' + b"x" * 40 + b'"}'
    n = len(element)
    acc = GS.StreamAccumulator(sse=False, limits=Limits(max_event=n))
    acc.feed(b"[" + element + b"," + element + b"]")
    assert acc.chunks == 2
    small = Limits(max_event=n - 1)
    acc = GS.StreamAccumulator(sse=False, limits=small)
    with pytest.raises(StreamError) as err:
        acc.feed(b'[{"a":1}, ' + element + b"]")
    assert (err.value.message, err.value.frame) == (
        f"the chunk starting at byte 10 is longer than the limit of {n - 1} bytes ({n} bytes so"
        " far); raise Limits.max_event to accept it",
        1,
    )
    assert ([c.data for c in err.value.received], acc.chunks) == ([{"a": 1}], 1)
    acc = GS.StreamAccumulator(sse=False, limits=Limits(max_event=30))
    with pytest.raises(StreamError) as err:
        acc.feed(b'[{"a":1},{"pad":"' + b"x" * 40)
    assert (len(err.value.received), acc.chunks) == (1, 1)  # the chunk before: applied
    assert err.value.received[0].data == {"a": 1}
    assert (err.value.message, err.value.frame) == (
        "the chunk starting at byte 9 is longer than the limit of 30 bytes (48 bytes so far);"
        " raise Limits.max_event to accept it",
        1,
    )
    acc = GS.StreamAccumulator(sse=False, limits=Limits(max_event=30))
    acc.feed(b'[{"a":1},{"pad":"' + b"x" * 22)
    assert acc.chunks == 1  # 30 bytes of the second chunk so far: not yet too long
    with pytest.raises(StreamError):
        acc.feed(b"x")


def test_gemini_array_errors_keep_the_chunks_before() -> None:
    """A framing error after good chunks of the same feed returns those chunks in .received
    and the accumulator applies them."""
    for tail, message in [
        (b"]x", "data after the closing ']'"),
        (b" x", "unexpected byte 'x' between chunks"),
    ]:
        acc = GS.StreamAccumulator(sse=False)
        with pytest.raises(StreamError) as err:
            acc.feed(b'[{"a":1},{"b":2}' + tail)
        assert (err.value.message, err.value.frame) == (message, 2)
        assert ([c.data for c in err.value.received], acc.chunks) == ([{"a": 1}, {"b": 2}], 2)
    err = g_refused(b'{"a":1}')
    assert (err.message, err.received) == ("a JSON-array stream must start with '['", [])


def test_accumulate_functions_take_limits() -> None:
    """accumulate() of each stream module applies the limits it is given."""
    small = Limits(max_event=20)
    with pytest.raises(StreamError) as err:
        GS.accumulate([g_array({"pad": "x" * 30})], sse=False, limits=small)
    assert err.value.message.startswith("the chunk starting at byte 1 is longer than the limit")
    with pytest.raises(StreamError) as err:
        GS.accumulate([g_sse({"pad": "x" * 30})], limits=small)
    assert err.value.message.startswith("the event starting at byte 0 is longer than the limit")
    with pytest.raises(StreamError) as err:
        RS.accumulate([r_events(r_created())], limits=small)
    assert err.value.message.startswith("the event starting at byte 0 is longer than the limit")


def test_gemini_parser_chunks_and_bad_json() -> None:
    """The SSE chunk parser gives each chunk its index and object; bad JSON is refused naming
    "chunk" and its index; the accumulator applies max_size to the whole stream."""
    data = g_sse({"a": 1}, {"b": [2]})
    assert GS.SSEChunkParser().feed(data) == [
        GS.GeminiChunk(0, {"a": 1}),
        GS.GeminiChunk(1, {"b": [2]}),
    ]
    with pytest.raises(StreamError) as err:
        GS.SSEChunkParser().feed(data + b"data: [1]\r\n\r\n")
    assert (err.value.message, err.value.frame) == ("chunk: not a JSON object", 2)
    acc = GS.StreamAccumulator(limits=Limits(max_size=len(data) - 1))
    with pytest.raises(StreamError) as err:
        acc.feed(data)
    assert err.value.message == (
        f"the stream is longer than the limit of {len(data) - 1} bytes (Limits.max_size)"
    )


def test_gemini_sse_error_chunk() -> None:
    """An SSE chunk holding an error object raises "error chunk: <repr>" with the object."""
    error = {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}
    acc = GS.StreamAccumulator()
    with pytest.raises(StreamError) as err:
        acc.feed(g_sse(g_parts({"text": "a"}), {"error": error}))
    assert (err.value.message, err.value.frame, err.value.error) == (
        f"error chunk: {error!r}",
        1,
        error,
    )
    assert acc.chunks == 1


def test_gemini_parts_merge_rules() -> None:
    """Text of one kind joins; thought and text stay apart; a signed part ends its run; empty
    unsigned text adds nothing; other parts are appended as copies."""
    call = {"functionCall": {"name": "f", "args": {}}}
    body = g_body(
        g_parts({"text": "a", "thought": True}),
        g_parts({"text": "b", "thought": True}, {"text": ""}),
        g_parts({"text": "c"}, {"text": "d", "thoughtSignature": "c2ln"}),
        g_parts({"text": "e"}, call, {"text": "", "thoughtSignature": "eA=="}),
        g_parts({"text": "f", "extra": 1}, {"text": "g"}, {"text": 5}, "odd"),
        g_parts({"text": "h"}, {"text": "i", "extra": 2}, finish="STOP"),
    )
    assert body["candidates"] == [
        {
            "index": 0,
            "finishReason": "STOP",
            "content": {
                "role": "model",
                "parts": [
                    {"text": "ab", "thought": True},
                    {"text": "cd", "thoughtSignature": "c2ln"},
                    {"text": "e"},
                    call,
                    {"text": "", "thoughtSignature": "eA=="},
                    {"text": "f", "extra": 1},
                    {"text": "g"},
                    {"text": 5},
                    "odd",
                    {"text": "h"},
                    {"text": "i", "extra": 2},
                ],
            },
        }
    ]


def test_gemini_text_after_a_non_text_part_starts_a_new_part() -> None:
    """Text following a call, a thought=False part or a null-thought part is not joined to a
    part of another kind."""
    body = g_body(
        g_parts({"text": "a", "thought": False}),
        g_parts({"text": "b"}),
        g_parts({"text": "c", "thought": False}, finish="STOP"),
    )
    assert body["candidates"][0]["content"]["parts"] == [
        {"text": "a", "thought": False},
        {"text": "b"},
        {"text": "c", "thought": False},
    ]


def test_gemini_merged_parts_do_not_alias_the_chunks() -> None:
    """The merged parts are copies: joining text does not change the chunk's own part, and
    each body() gives new part objects."""
    first = {"text": "a"}
    acc = GS.StreamAccumulator()
    chunk = {"candidates": [{"index": 0, "content": {"parts": [first]}}]}
    acc.apply(GS.GeminiChunk(0, chunk))
    acc.apply(
        GS.GeminiChunk(1, {"candidates": [{"index": 0, "content": {"parts": [{"text": "b"}]}}]})
    )
    assert first == {"text": "a"}
    body = acc.body()
    body["candidates"][0]["content"]["parts"][0]["text"] = "changed"
    assert acc.body()["candidates"][0]["content"]["parts"] == [{"text": "ab"}]


def test_gemini_candidate_keys_latest_and_content_kept() -> None:
    """Candidate keys take their latest value; the content's own keys too; a content that is not
    an object is kept as it came until an object arrives."""
    body = g_body(
        {"candidates": [{"index": 0, "content": None, "avgLogprobs": -1}]},
        {"candidates": [{"index": 0, "content": None, "avgLogprobs": -2}]},
    )
    assert body["candidates"] == [{"index": 0, "content": None, "avgLogprobs": -2}]
    body = g_body(
        {"candidates": [{"index": 0, "content": {"role": "model", "parts": [{"text": "a"}]}}]},
        {"candidates": [{"index": 0, "content": "x"}]},
        {"candidates": [{"index": 0, "content": {"role": "m2", "parts": "notalist"}}]},
        {
            "candidates": [
                {"index": 0, "content": {"parts": [{"text": "b"}]}, "finishReason": "STOP"}
            ]
        },
    )
    assert body["candidates"] == [
        {
            "index": 0,
            "finishReason": "STOP",
            "content": {"role": "m2", "parts": [{"text": "ab"}]},
        }
    ]
    body = g_body({"candidates": [{"index": 0, "content": {"role": "model"}, "finishReason": "X"}]})
    assert body["candidates"] == [{"index": 0, "finishReason": "X", "content": {"role": "model"}}]


def test_gemini_top_level_keys_and_candidate_index() -> None:
    """Top-level keys take their latest value; candidates merge by their index (their position
    when absent) and come out sorted; candidates that are not a list are kept as they came."""
    body = g_body(
        {"candidates": [g_parts({"text": "b"}, index=1)["candidates"][0]], "modelVersion": "v1"},
        {"candidates": [g_parts({"text": "a"}, index=None)["candidates"][0]], "responseId": "r"},
        {"modelVersion": "v2", "usageMetadata": {"totalTokenCount": 3}},
    )
    assert body == {
        "modelVersion": "v2",
        "responseId": "r",
        "usageMetadata": {"totalTokenCount": 3},
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "a"}]}},
            {"index": 1, "content": {"role": "model", "parts": [{"text": "b"}]}},
        ],
    }
    assert g_body({"candidates": 5, "x": 1}) == {"candidates": 5, "x": 1}
    assert g_body({"x": 1}) == {"x": 1}
    assert g_body({"candidates": [], "x": 1}) == {"x": 1}


def test_gemini_content_kept_as_it_came_or_absent() -> None:
    """A candidate's content that is not an object is kept as it came (until an object
    arrives); a candidate without content gets none; an empty parts list adds no parts key."""
    assert g_body({"candidates": [{"index": 0, "content": "x"}]}) == {
        "candidates": [{"index": 0, "content": "x"}]
    }
    assert g_body({"candidates": [{"index": 0, "finishReason": "STOP"}]}) == {
        "candidates": [{"index": 0, "finishReason": "STOP"}]
    }
    assert g_body({"candidates": [{"index": 0, "content": {"role": "model", "parts": []}}]}) == {
        "candidates": [{"index": 0, "content": {"role": "model"}}]
    }


def test_gemini_parts_that_are_not_an_array_are_not_dropped() -> None:
    """A chunk whose content.parts is not an array is refused as the adapter refuses it."""
    chunk = {"candidates": [{"content": {"role": "model", "parts": 5}, "finishReason": "STOP"}]}
    with pytest.raises(ValidationError):
        GA.response_from_dict(chunk)
    with pytest.raises(StreamError) as err:
        GS.accumulate([g_sse(chunk)])
    assert err.value.message == (
        "the accumulated response is malformed: expected an array, got number"
        " (at $.candidates[0].content.parts)"
    )


def test_gemini_bad_candidates_are_refused() -> None:
    """A candidate that is not an object, or whose index is not an integer, is refused by
    position and chunk index."""
    acc = GS.StreamAccumulator()
    with pytest.raises(StreamError) as err:
        acc.feed(g_sse({"candidates": []}, {"candidates": [{"index": 0}, 7]}))
    assert (err.value.message, err.value.frame) == ("candidates[1] must be an object", 1)
    acc = GS.StreamAccumulator()
    with pytest.raises(StreamError) as err:
        acc.feed(g_sse({"candidates": [{"index": "0"}]}))
    assert (err.value.message, err.value.frame) == ("candidates[0].index must be an integer", 0)


def test_gemini_completeness() -> None:
    """close(): an empty stream names "before any chunk"; a blocked prompt or any candidate's
    finishReason completes it; otherwise it was cut between chunks."""
    acc = GS.StreamAccumulator()
    with pytest.raises(StreamError) as err:
        acc.close()
    assert (err.value.message, err.value.frame) == ("the stream ended before any chunk", 0)
    blocked = {"promptFeedback": {"blockReason": "SAFETY"}}
    assert GS.accumulate([g_sse(blocked)]).stop_reason == GA.response_from_dict(blocked).stop_reason
    for feedback in ({"promptFeedback": {"safetyRatings": []}}, {"promptFeedback": "SAFETY"}):
        acc = GS.StreamAccumulator()
        acc.feed(g_sse(feedback))
        with pytest.raises(StreamError) as err:
            acc.close()
        assert err.value.message == (
            "the stream ended before any candidate's finishReason (the stream was cut between"
            " chunks)"
        )
    two = g_sse(g_parts({"text": "a"}, index=0), g_parts({"text": "b"}, index=1, finish="STOP"))
    resp = GS.accumulate([two])
    assert resp.message.content == [TextBlock("a")]


def test_gemini_array_stream_equals_sse_on_the_recording() -> None:
    """The recorded web-search stream (10 chunks), framed as an array and fed 3 bytes at a time,
    gives the same response and chunk count as the SSE recording: one text block joined from
    every chunk's text."""
    path = DATA / "provider-real" / "gemini" / "stream_web_search.sse"
    data = path.read_bytes()
    chunks = [json.loads(line[6:]) for line in data.splitlines() if line.startswith(b"data: ")]
    acc = GS.StreamAccumulator()
    acc.feed(data)
    sse = acc.close()
    arr = g_array(*chunks)
    acc = GS.StreamAccumulator(sse=False)
    for i in range(0, len(arr), 3):
        acc.feed(arr[i : i + 3])
    assert acc.close() == sse
    assert acc.chunks == len(chunks)
    texts = [p["text"] for c in chunks for p in c["candidates"][0]["content"].get("parts", [])]
    assert (acc.chunks, sse.message.content) == (10, [TextBlock("".join(texts))])
    assert sse.stop_reason == "end_turn"


# --- _helpers ------------------------------------------------------------------------------------


def test_extra_dict_and_extra_or_unset() -> None:
    """extra_dict gives a new plain dict ({} when unset or absent); extra_or_unset wraps a
    non-empty dict without copying it and gives UNSET for an empty one."""
    block = TextBlock("a", extra=Extra({"k": 1}))
    got = H.extra_dict(block)
    assert (type(got), got) == (dict, {"k": 1})
    got["k"] = 2
    assert block.extra == {"k": 1}
    assert H.extra_dict(TextBlock("a")) == {} and H.extra_dict(object()) == {}
    data = {"x": [1]}
    extra = H.extra_or_unset(data)
    assert type(extra) is Extra and extra == {"x": [1]}
    data["y"] = 2
    assert extra == {"x": [1], "y": 2}  # the dict itself, not a copy
    assert H.extra_or_unset({}) is UNSET


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ({}, "object"),
        ([], "array"),
        ("", "string"),
        (True, "boolean"),
        (None, "null"),
        (0, "number"),
        (1.5, "number"),
    ],
)
def test_want_helpers_name_what_they_got(value: Any, kind: str) -> None:
    """want_dict / want_list / want_str pass their own type through and refuse any other with
    "expected <x>, got <kind>" at the path given."""
    for want, name, own in [
        (H.want_dict, "an object", dict),
        (H.want_list, "an array", list),
        (H.want_str, "a string", str),
    ]:
        if type(value) is own:
            assert want(value, "$.a") is value
            continue
        with pytest.raises(ValidationError) as err:
            want(value, "$.a[2]")
        assert (err.value.message, err.value.path) == (f"expected {name}, got {kind}", "$.a[2]")


def test_b64_exact() -> None:
    """Only canonical standard base64 gives its bytes; padding bits, missing padding, URL-safe
    letters or whitespace give None."""
    assert H.b64_exact("QQ==") == b"A"
    assert H.b64_exact("") == b""
    assert H.b64_exact("/+8=") == b"\xff\xef"
    for text in ("QR==", "QQ", "_-8=", "QQ==\n", "Q Q==", "é"):
        assert H.b64_exact(text) is None, text


def test_parse_data_url() -> None:
    """A data URL gives its media type and bytes only when it reads back exactly."""
    assert H.parse_data_url("data:image/png;base64,QQ==") == Base64Source("image/png", b"A")
    assert H.parse_data_url("data:a;base64,") == Base64Source("a", b"")
    for url in (
        "https://x/a.png",
        "DATA:image/png;base64,QQ==",
        "data:image/png;base64;QQ==",
        "data:image/png,QQ==",
        "data:;base64,QQ==",
        "data:image/png;charset=x;base64,QQ==",
        "data:image/png;base64,QR==",
        "xdata:image/png;base64,QQ==",
        "data:a,b;base64,QQ==",
        "data:image/png;base64,QQ==,QQ==",
    ):
        assert H.parse_data_url(url) is None, url


def test_data_url_written_once() -> None:
    """A plain media type gives a Spliced (its base64 put in after msgspec) that encode_json
    writes as the URL; one needing escaping gives a str; both decode to the same URL."""
    from minagent.providers._base import Spliced, encode_json

    raw = H.data_url(Base64Source("image/png", b"\xff\xef"))
    assert type(raw) is Spliced and encode_json([raw]) == b'["data:image/png;base64,/+8="]'
    plain = "AZaz09!#$&^_.+-/;= "
    raw = H.data_url(Base64Source(plain, b"A"))
    assert type(raw) is Spliced and encode_json(raw) == f'"data:{plain};base64,QQ=="'.encode()
    for media in ('a"b', "a\\b", "é", "a\nb", "a(b)"):
        text = H.data_url(Base64Source(media, b"A"))
        assert text == f"data:{media};base64,QQ==", media
    assert encode_json(H.base64_json(Base64Source("a", b"\xff\xef"))) == b'"/+8="'
    assert encode_json(H.base64_json(Base64Source("a", b""))) == b'""'


def test_json_text_compact_and_deep() -> None:
    """json_text writes compact JSON; a value nested past the recursion limit is written with
    more room, or refused with an EncodeError."""
    assert H.json_text({"a": [1, "é", None]}) == '{"a":[1,"é",null]}'
    depth = sys.getrecursionlimit() + 100
    value: Any = []
    for _ in range(depth):
        value = [value]
    assert H.json_text(value) == "[" * (depth + 1) + "]" * (depth + 1)
    for _ in range(depth * 200):
        value = [value]
    with pytest.raises(EncodeError) as err:
        H.json_text(value)
    assert err.value.message == "a value is nested too deep to write"


def test_parse_arguments_and_arguments_exact() -> None:
    """Compact JSON objects parse with nothing kept; any other text is kept as it came."""
    assert H.parse_arguments('{"a":1}') == ({"a": 1}, None)
    assert H.parse_arguments('{"a": 1}') == ({"a": 1}, '{"a": 1}')
    assert H.parse_arguments("[1]") == ({}, "[1]")
    assert H.parse_arguments('{"a":') == ({}, '{"a":')
    assert H.parse_arguments("[" * 100_000) == ({}, "[" * 100_000)
    assert H.arguments_exact('{"a": 1}', {"a": 1}) is True
    assert H.arguments_exact('{"a": 2}', {"a": 1}) is False
    assert H.arguments_exact("[1]", [1]) is False
    assert H.arguments_exact("{", {}) is False
    assert H.arguments_exact("[" * 100_000, {}) is False


def test_tool_arguments() -> None:
    """The kept raw text while input still equals it; else compact JSON of input; an input that
    cannot be written is an EncodeError at <path>.input."""
    kept = Extra({"arguments": '{"a": 1}'})
    assert H.tool_arguments(ToolUseBlock("c", "f", {"a": 1}, extra=kept), "$") == '{"a": 1}'
    assert H.tool_arguments(ToolUseBlock("c", "f", {"a": 2}, extra=kept), "$") == '{"a":2}'
    bad = Extra({"arguments": "not json"})
    assert H.tool_arguments(ToolUseBlock("c", "f", {}, extra=bad), "$") == "not json"
    assert H.tool_arguments(ToolUseBlock("c", "f", {"b": 1}, extra=bad), "$") == '{"b":1}'
    odd = Extra({"arguments": 5})
    assert H.tool_arguments(ToolUseBlock("c", "f", {}, extra=odd), "$") == "{}"
    with pytest.raises(EncodeError) as err:
        H.tool_arguments(ToolUseBlock("c", "f", {"x": object()}), "$.m[1]")
    assert (err.value.path, err.value.message) == (
        "$.m[1].input",
        "cannot write tool input: Encoding objects of type object is unsupported",
    )
    deep: Any = {}
    for _ in range(sys.getrecursionlimit() * 100):
        deep = {"a": deep}
    with pytest.raises(EncodeError) as err:
        H.tool_arguments(ToolUseBlock("c", "f", deep), "$.m[0]")
    assert (err.value.path, err.value.message) == (
        "$.m[0].input",
        "a value is nested too deep to write",
    )


def test_article_and_block_kind() -> None:
    """a() picks the article from the first letter; block_kind names a block's wire type."""
    assert [H.a(w) for w in ("image", "assistant", "output", "thinking", "document")] == [
        "an image",
        "an assistant",
        "an output",
        "a thinking",
        "a document",
    ]
    assert H.block_kind(TextBlock("x")) == "text"
    assert H.block_kind(UnknownBlock(Extra({"type": "compaction", "x": 1}))) == "compaction"


def test_a_user_message_takes_a_not_an() -> None:
    """The refusal of a block a user message cannot hold says "in a user message"."""
    from minagent.providers import openai_chat
    from minagent.providers._base import UnsupportedError
    from minagent.wire import Message, ThinkingBlock

    msgs = [Message(role="user", content=[TextBlock("a"), ThinkingBlock("x", signature="s")])]
    with pytest.raises(UnsupportedError) as err:
        openai_chat.encode_request(msgs)
    assert err.value.message == "the target format cannot hold a thinking block in a user message"


# --- _stream -------------------------------------------------------------------------------------


def test_decode_event_errors_name_the_event() -> None:
    """decode_event refuses bad JSON, a non-object, deep nesting and invalid UTF-8 with one
    StreamError each, naming the event and its index."""
    cases = [
        (b"[1]", "event 'x': not a JSON object"),
        (b'{"a":', "event 'x': invalid JSON: Input data was truncated"),
        (b'{"a":' + b"[" * 100_000, "event 'x': invalid JSON: nesting too deep"),
    ]
    for data, message in cases:
        with pytest.raises(StreamError) as err:
            _stream.decode_event(data, 4, "event 'x'")
        assert (err.value.message, err.value.frame) == (message, 4), data
    assert _stream.decode_event(b'{"a":[1]}', 0, "e") == {"a": [1]}
    typed = msgspec.json.Decoder(list[int])
    assert _stream.decode_event(b"[1,2]", 0, "e", typed) == [1, 2]
    with pytest.raises(StreamError) as err:
        _stream.decode_event(b'["a"]', 2, "chunk", typed)
    assert err.value.message == "chunk: Expected `int`, got `str` - at `$[0]`"


def test_want_names_both_types() -> None:
    """want() passes its own type through and names what it got and wanted otherwise (bool is
    never an int)."""
    assert _stream.want(3, int, "x", 0) == 3
    for value, kind, message in [
        (True, int, "w must be an integer, not bool"),
        (None, dict, "w must be an object, not null"),
        ("a", list, "w must be an array, not str"),
        (1, str, "w must be a string, not int"),
        (1, float, "w must be float, not int"),
    ]:
        with pytest.raises(StreamError) as err:
            _stream.want(value, kind, "w", 9)
        assert (err.value.message, err.value.frame) == (message, 9)


def test_fail_keeps_received_only_when_given() -> None:
    """fail() gives a StreamError at the frame, with .received set only when passed."""
    err = _stream.fail("m", 3)
    assert (type(err), err.message, err.frame, err.received, err.error) == (
        StreamError,
        "m",
        3,
        [],
        None,
    )
    got = ["e"]
    assert _stream.fail("m", 0, got).received is got


def test_accumulator_refuses_a_stream_over_max_size() -> None:
    """The byte count is summed over feeds: the feed that passes max_size is refused naming the
    limit and the count of events applied; exactly max_size passes."""
    data = r_events(r_created())
    acc = RS.StreamAccumulator(Limits(max_size=len(data) + 5))
    acc.feed(data)
    acc.feed(b"\n" * 5)
    with pytest.raises(StreamError) as err:
        acc.feed(b"\n")
    assert (err.value.message, err.value.frame) == (
        f"the stream is longer than the limit of {len(data) + 5} bytes (Limits.max_size)",
        1,
    )


def test_accumulator_refuses_an_event_after_the_end() -> None:
    """An event applied after the terminal one is refused naming where the stream ended."""
    events = RS.StreamParser().feed(r_events(r_created(), r_done()))
    events += RS.StreamParser().feed(r_events(r_created()))
    acc = RS.StreamAccumulator()
    acc.apply(events[0])
    acc.apply(events[1])
    with pytest.raises(StreamError) as err:
        acc.apply(events[2])
    assert (err.value.message, err.value.frame) == (
        "an event after the end of the stream (the terminal response event at event 1)",
        2,
    )
    assert acc.events == 2


def test_each_sees_every_event_after_it_is_applied() -> None:
    """feed(each=) and close(each=) call back once per event, after applying it, also for the
    events replayed before an error."""
    seen: list[tuple[str, int]] = []
    acc = RS.StreamAccumulator()

    def each(event: Any) -> None:
        seen.append((event.type, acc.events))

    got = acc.feed(r_events(r_created(), r_added(0, _MSG)), each)
    assert [e.type for e in got] == ["response.created", "response.output_item.added"]
    assert seen == [("response.created", 1), ("response.output_item.added", 2)]
    with pytest.raises(StreamError):
        acc.feed(r_events(r_part(0, 0, _TEXT)) + b"data: {bad\n\n", each)
    assert seen[2:] == [("response.content_part.added", 3)]
    acc = GS.StreamAccumulator(sse=False)
    seen.clear()
    acc.feed(b'[{"candidates":[{"finishReason":"STOP"}]}]', each=lambda c: seen.append(c.index))
    assert acc.close(each=lambda c: seen.append(-1)).stop_reason == "end_turn"
    assert seen == [0]


def test_response_wraps_a_malformed_body() -> None:
    """An accumulated body the adapter cannot decode is a StreamError at the event count."""
    acc = GS.StreamAccumulator()
    acc.feed(g_sse({"candidates": [{"content": 5, "finishReason": "STOP"}]}))
    with pytest.raises(StreamError) as err:
        acc.close()
    assert (err.value.message, err.value.frame) == (
        "the accumulated response is malformed: expected an object, got number"
        " (at $.candidates[0].content)",
        1,
    )


def test_unknown_event_defaults() -> None:
    """An UnknownEvent made with type and data alone has no provider and index -1."""
    assert UnknownEvent("t", {"a": 1}) == UnknownEvent("t", {"a": 1}, "", -1)


# --- _sse ----------------------------------------------------------------------------------------


def sse_all(data: bytes, size: int = 0, limit: int | None = None) -> list[SSEEvent]:
    """Every event of ``data`` fed whole (``size`` 0) or in pieces of ``size`` bytes."""
    parser = SSEParser() if limit is None else SSEParser(Limits(max_event=limit))
    pieces = [data] if not size else [data[i : i + size] for i in range(0, len(data), size)]
    return [e for piece in pieces for e in parser.feed(piece)] + parser.close()


def test_sse_general_blocks_exactly() -> None:
    """Blocks of any shape: leading blank lines move the offset, every field is read (event,
    id, data joined with \\n, colons in values kept, one space dropped), retry and comments and
    unknown fields carry nothing, an id holding NUL is ignored, bad UTF-8 is replaced."""
    data = (
        b"data: a\n\n\n"
        b"event: e1\nid: 5\ndata: b:c\ndata:d\n\n"
        b": note\nretry: 3000\nfoo: bar\ndata\n\n"
        b"id: x\0y\nevent: \xff\nevent:  two\ndata:  sp\n\n"
        b"event: only\n\n"
        b"retry: 9\nevent: r\ndata: z\n\n"
    )
    expected = [
        SSEEvent("message", b"a", 0, 0),
        SSEEvent("e1", b"b:c\nd", 1, 10, "5"),
        SSEEvent("message", b"", 2, 44),
        SSEEvent(" two", b" sp", 3, 78),
        SSEEvent("r", b"z", 4, 131),
    ]
    assert sse_all(data) == expected
    assert sse_all(data, 1) == expected
    assert sse_all(data.replace(b"\n", b"\r\n")) == [
        SSEEvent(e.event, e.data, e.index, len(data[: e.offset].replace(b"\n", b"\r\n")), e.id)
        for e in expected
    ]
    assert sse_all(b"event: \xff\nid: 1\ndata: q\n\n") == [SSEEvent("\ufffd", b"q", 0, 0, "1")]
    assert sse_all(b"id: \xfe\ndata: q\n\n") == [SSEEvent("message", b"q", 0, 0, "\ufffd")]
    assert sse_all(b"data: 1\n\n\n\n\ndata: 2\n\n") == [
        SSEEvent("message", b"1", 0, 0),
        SSEEvent("message", b"2", 1, 12),
    ]


def sse_refusal(data: bytes, limit: int) -> tuple[str, int, list[SSEEvent]]:
    """The message, frame and received events of the StreamError ``data`` raises."""
    parser = SSEParser(Limits(max_event=limit))
    with pytest.raises(StreamError) as err:
        parser.feed(data)
    return err.value.message, err.value.frame, err.value.received


def test_sse_mixed_line_ends_and_odd_lines() -> None:
    """A stream mixing CR, LF and CRLF line ends reads each line once; a line starting with a
    space or naming an unknown field ("Xdata") after leading blank lines is ignored."""
    data = b"data: a\rdata: b\n\ndata: c\n\r\n\r"
    assert (
        sse_all(data)
        == sse_all(data, 1)
        == [
            SSEEvent("message", b"a\nb", 0, 0),
            SSEEvent("message", b"c", 1, 17),
        ]
    )
    data = b"data: a\n\n\n data: b\ndata: c\n\n\nXdata: q\ndata: r\n\n"
    assert sse_all(data) == [
        SSEEvent("message", b"a", 0, 0),
        SSEEvent("message", b"c", 1, 10),
        SSEEvent("message", b"r", 2, 29),
    ]


def test_sse_cr_stream_sizes_against_the_limit() -> None:
    """On the CR path an event is measured line by line, line ends included, from zero for
    each event: two events exactly at the limit pass; lines that add up past it, or an
    unfinished last line past it, are refused naming the event's start and size."""
    event = b"data: 12345\r"  # 12 bytes with its line end
    for size in (0, 1, 5):
        assert sse_all(event + b"\r" + event + b"\r", size, limit=12) == [
            SSEEvent("message", b"12345", 0, 0),
            SSEEvent("message", b"12345", 1, 13),
        ]
    too_long = (
        "the event starting at byte {} is longer than the limit of 20 bytes ({} bytes so far);"
    )
    tail = " raise Limits.max_event to accept it"
    assert sse_refusal(b"data: 1\rdata: 2\rdata: 3\r\r", 20) == (
        too_long.format(0, 24) + tail,
        0,
        [],
    )
    ok = [SSEEvent("message", b"ok", 0, 0)]
    assert sse_refusal(b"data: ok\r\rdata: 1\r" + b"x" * 20, 20) == (
        too_long.format(10, 28) + tail,
        1,
        ok,
    )
    assert sse_refusal(b"data: ok\r\r" + b"x" * 21, 20) == (too_long.format(10, 21) + tail, 1, ok)
    parser = SSEParser(Limits(max_event=20))
    assert parser.feed(b"data: ok\r\r" + b"x" * 20) == ok


@pytest.mark.parametrize(
    ("data", "start", "size"),
    [
        (b"data: x\n\n  ", 9, 2),
        (b"data: x\n\nX", 9, 1),
        (b"data: ok\n\n\ndata: x", 11, 7),
        (b"data: ok\r\rdata: 1\rdata: 2", 10, 15),
        (b"data: ok\n\n\r\n\r\ndata: x", 14, 7),
    ],
)
def test_sse_close_inside_an_event_names_its_start_and_size(
    data: bytes, start: int, size: int
) -> None:
    """A stream that stops inside an event (spaces and any other byte count, line ends before
    it do not) is refused at close naming where the event starts and its size."""
    parser = SSEParser()
    first = b"x" if data.startswith(b"data: x") else b"ok"
    assert parser.feed(data) == [SSEEvent("message", first, 0, 0)]
    with pytest.raises(StreamError) as err:
        parser.close()
    assert (err.value.message, err.value.frame) == (
        f"the stream ended inside an event starting at byte {start} ({size} bytes without the"
        " closing empty line)",
        1,
    )


def test_sse_fast_path_only_for_its_two_shapes() -> None:
    """The shortcut for "event: X\\ndata: Y" blocks gives what the full reading gives: a name
    never seen before (bad UTF-8 replaced) and its data; a second data line or another field
    after the name takes the full reading."""
    name = b"\xff\xfe-" + str(id(object())).encode()
    expected_name = "\ufffd\ufffd-" + name[3:].decode()
    data = (
        b"event: " + name + b"\ndata: 1\n\n"
        b"event: " + name + b"\ndata: 2\n\n"
        b"event: m\ndata: a\ndata: b\n\n"
        b"event: m\nXdata: y\n\n"
        b"event: m\nid: 4\n\n"
        b"data: c\ndata: d\n\n"
    )
    assert sse_all(data) == [
        SSEEvent(expected_name, b"1", 0, 0),
        SSEEvent(expected_name, b"2", 1, len(name) + 17),
        SSEEvent("m", b"a\nb", 2, 2 * len(name) + 34),
        SSEEvent("message", b"c\nd", 3, 2 * len(name) + 34 + 26 + 19 + 16),
    ]


def test_sse_lf_path_sizes_and_leading_blank_lines() -> None:
    """On the LF path: blank lines before the first event are skipped at once and not counted
    against the limit; a complete event over the limit is refused with its whole size, its
    start and the events before it, however many lines it has."""
    event = b"data: 12345678\n\n"  # 15 bytes with its last line end
    assert SSEParser(Limits(max_event=15)).feed(b"\n\n" + event) == [
        SSEEvent("message", b"12345678", 0, 2)
    ]
    assert SSEParser().feed(b"\n\ndata: x\n\n") == [SSEEvent("message", b"x", 0, 2)]
    too_long = (
        "the event starting at byte {} is longer than the limit of 20 bytes ({} bytes so far);"
    )
    tail = " raise Limits.max_event to accept it"
    assert sse_refusal(b"data: a\n" * 10 + b"\n", 20) == (too_long.format(0, 80) + tail, 0, [])
    assert sse_refusal(b"data: ok\n\ndata: " + b"x" * 30 + b"\n\n", 20) == (
        too_long.format(10, 37) + tail,
        1,
        [SSEEvent("message", b"ok", 0, 0)],
    )


def test_sse_unfinished_event_against_the_limit() -> None:
    """An event still arriving is measured without the blank lines before it: exactly at the
    limit it waits, one byte more is refused naming its start and size; a stream whose first
    line is empty (CR path) starts its first event after it."""
    parser = SSEParser(Limits(max_event=20))
    assert parser.feed(b"data: ok\n\n\ndata: " + b"x" * 14) == [SSEEvent("message", b"ok", 0, 0)]
    with pytest.raises(StreamError) as err:
        parser.feed(b"x")
    assert (err.value.message, err.value.frame) == (
        "the event starting at byte 11 is longer than the limit of 20 bytes (21 bytes so far);"
        " raise Limits.max_event to accept it",
        1,
    )
    assert sse_all(b"\r\ndata: x\r\n\r\n") == [SSEEvent("message", b"x", 0, 2)]
    assert sse_all(b"\rdata: x\r\r", 1) == [SSEEvent("message", b"x", 0, 1)]


def test_sse_event_names_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Event names of the event/data shortcut are decoded once into a cache of at most 64
    names, each kept as its decoded text."""
    from minagent.providers import _sse

    monkeypatch.setattr(_sse, "_NAMES", {})
    data = b"".join(b"event: n%d\ndata: {}\n\n" % i for i in range(70))
    events = SSEParser().feed(data)
    assert [e.event for e in events] == [f"n{i}" for i in range(70)]
    cached = _sse._NAMES
    assert cached == {b"n%d" % i: f"n{i}" for i in range(64)}


# --- _registry -----------------------------------------------------------------------------------


def test_adapter_passes_every_option_through() -> None:
    """An Adapter's functions pass limits, policies, dropped lists, defaults, renames and
    options to its module: the same results and refusals as calling the module."""
    from minagent import providers
    from minagent.providers import Renames, Request
    from minagent.providers import anthropic as AM
    from minagent.providers._base import UnsupportedError
    from minagent.providers._registry import Adapter
    from minagent.wire import Message, ModelResponse, ThinkingBlock

    made = Adapter("gemini", "G")
    assert (made.name, made.title, repr(made)) == ("gemini", "G", "<Adapter 'gemini': G>")
    adapter = providers.get("anthropic")
    assert repr(adapter) == "<Adapter 'anthropic': Anthropic Messages>"
    assert (adapter.name, adapter.title) == ("anthropic", "Anthropic Messages")
    assert adapter.module is AM and adapter.stream_module is providers.anthropic_stream
    assert adapter.StreamParser is providers.anthropic_stream.StreamParser
    assert adapter.StreamAccumulator is providers.anthropic_stream.StreamAccumulator
    body = b'{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}'
    small = Limits(max_size=10)
    for call in (adapter.decode_request, adapter.decode_response):
        with pytest.raises(WireError) as err:
            call(body, limits=small)
        assert "10" in err.value.message
    msgs = [Message(role="user", content=[TextBlock("a"), ThinkingBlock("x", signature="s")])]
    dropped: list[Any] = []
    chat = providers.get("openai_chat")
    out = chat.encode_request(msgs, unsupported="drop", dropped=dropped, model="m2")
    assert json.loads(out) == {
        "model": "m2",
        "messages": [{"role": "user", "content": [{"type": "text", "text": "a"}]}],
    }
    assert [d.path for d in dropped] == ["$.messages[0].content[1]"]
    with pytest.raises(UnsupportedError):
        chat.encode_request(msgs)
    req = Request(messages=[Message(role="user", content="hi")])
    filled = json.loads(adapter.encode_request(req, defaults={"max_tokens": 7, "model": "d"}))
    assert (filled["max_tokens"], filled["model"]) == (7, "d")
    renames = Renames()
    tool = {"type": "function", "function": {"name": "a.b", "parameters": {"type": "object"}}}
    chat_body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": [tool]}
    out = adapter.encode_request(
        chat.decode_request(json.dumps(chat_body).encode()), renames=renames
    )
    name = json.loads(out)["tools"][0]["name"]
    assert name != "a.b" and renames.names == {name: "a.b"}
    resp = ModelResponse(message=Message(role="assistant", content=[ToolUseBlock("c1", name, {})]))
    resp_body = chat.encode_response(resp, unsupported="drop", id="r9", model="m9")
    assert (json.loads(resp_body)["id"], json.loads(resp_body)["model"]) == ("r9", "m9")
    back = chat.decode_response(resp_body, renames=renames)
    assert back.message.content[0].name == "a.b"
    head = {"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    call = {
        "index": 0,
        "id": "c1",
        "type": "function",
        "function": {"name": name, "arguments": "{}"},
    }
    stream = sse(
        {
            **head,
            "choices": [
                {
                    "index": 0,
                    "delta": {"role": "assistant", "tool_calls": [call]},
                    "finish_reason": None,
                }
            ],
        },
        "x",
    ) + sse({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}, "x")
    stream = stream.replace(b"event: x\n", b"") + b"data: [DONE]\n\n"
    assert chat.accumulate([stream]).message.content[0].name == name
    assert chat.accumulate([stream], renames=renames).message.content[0].name == "a.b"
    with pytest.raises(StreamError) as serr:
        chat.accumulate([stream], limits=Limits(max_size=20))
    assert serr.value.message == "the stream is longer than the limit of 20 bytes (Limits.max_size)"
    with pytest.raises(ValueError) as info:
        providers.get("nope")
    assert str(info.value) == (
        "no provider adapter named 'nope'; known: anthropic, openai_chat, openai_responses, gemini"
    )
    with pytest.raises(ValueError) as info:
        providers.get([])  # type: ignore[arg-type]
    assert str(info.value).startswith("no provider adapter named []; known: ")


# --- _emit_gemini --------------------------------------------------------------------------------


def test_gemini_writer_chunks_exactly() -> None:
    """The Gemini writer's chunks, byte for byte: the response's modelVersion and responseId
    on every chunk, text and thought pieces, complete blocks, and the last chunk with every
    key of the body but the first candidate's parts (finishReason STOP when it has none)."""
    from minagent.providers._emit_gemini import GeminiWriter

    w = GeminiWriter()
    w.begin({})
    w.text("a")
    assert w.take() == (
        b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"a"}]},"index":0}]}'
        b"\r\n\r\n"
    )
    w.begin({"modelVersion": "v", "responseId": "r", "usageMetadata": {"a": 1}})
    top = b'"modelVersion":"v","responseId":"r"'
    w.text("h\u00e9")
    w.thinking('"q"')
    w.blocks({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {}}]}}]})
    w.blocks({"candidates": [{"content": {"role": "model", "parts": []}}]})
    w.blocks({})
    head = b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":'
    assert w.take() == (
        head
        + b'"h\xc3\xa9"}]},"index":0}],'
        + top
        + b"}\r\n\r\n"
        + head
        + b'"\\"q\\"","thought":true}]},"index":0}],'
        + top
        + b"}\r\n\r\n"
        b"data: {" + top + b',"candidates":[{"content":{"role":"model","parts":'
        b'[{"functionCall":{}}]},"index":0}]}\r\n\r\n'
    )
    first = {"content": {"role": "model", "parts": [1]}, "finishReason": "MAX_TOKENS", "index": 0}
    second = {"index": 1, "content": {"parts": []}}
    cases = [
        (
            {"candidates": [first, second], "usageMetadata": {"x": 1}, "modelVersion": "v2"},
            b'{"modelVersion":"v2","responseId":"r","usageMetadata":{"x":1},"candidates":'
            b'[{"finishReason":"MAX_TOKENS","index":0,"content":{"role":"model"}},'
            b'{"index":1,"content":{"parts":[]}}]}',
        ),
        (
            {"candidates": [{"content": "odd"}]},
            b"{" + top + b',"candidates":[{"content":"odd","finishReason":"STOP"}]}',
        ),
        (
            {"candidates": [{"index": 0}]},
            b"{" + top + b',"candidates":[{"index":0,"finishReason":"STOP"}]}',
        ),
        ({"candidates": 5}, b"{" + top + b',"candidates":5}'),
        ({"candidates": [5]}, b"{" + top + b',"candidates":[5]}'),
        ({"candidates": []}, b"{" + top + b',"candidates":[]}'),
        ({}, b"{" + top + b"}"),
    ]
    for body, chunk in cases:
        w.finish(body)
        assert w.take() == b"data: " + chunk + b"\r\n\r\n", body
    assert w.take() == b""


def test_adapter_modules_are_imported_once_into_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """An adapter imports its modules on first use and keeps them in the registry's cache."""
    from minagent import providers
    from minagent.providers import _registry

    monkeypatch.setattr(_registry, "_MODULES", {})
    adapter = providers.get("gemini")
    assert adapter.module is providers.gemini
    assert adapter.stream_module is providers.gemini_stream
    cached = _registry._MODULES
    assert cached == {
        "minagent.providers.gemini": providers.gemini,
        "minagent.providers.gemini_stream": providers.gemini_stream,
    }
    assert adapter.module is providers.gemini


# --- _emit_chat ----------------------------------------------------------------------------------


def test_chat_writer_chunks_exactly() -> None:
    """The OpenAI Chat writer's chunks, byte for byte: the header keys (defaults when absent,
    system_fingerprint and service_tier kept), the role delta, one empty content delta before
    the first text, text pieces, complete blocks with tool calls numbered across blocks, and
    the end: the first choice's keys, refusal and other message keys, response-level keys,
    further choices whole, usage, [DONE]."""
    from minagent.providers._emit_chat import ChatWriter

    def chunk(top: bytes, choice: bytes, more: bytes = b"") -> bytes:
        return b"data: {" + top + b',"choices":[' + choice + b"]" + more + b"}\n\n"

    def delta(top: bytes, body: bytes, finish: bytes = b"null") -> bytes:
        return chunk(top, b'{"index":0,"delta":' + body + b',"finish_reason":' + finish + b"}")

    w = ChatWriter()
    w.begin({})
    w.open_text()
    w.text("a")
    w.open_text()
    w.close_text()
    empty = b'"id":"","object":"chat.completion.chunk","created":0,"model":""'
    assert w.take() == (
        delta(empty, b'{"role":"assistant"}')
        + delta(empty, b'{"content":""}')
        + delta(empty, b'{"content":"a"}')
    )
    w = ChatWriter()
    head = {"id": "c", "created": 5, "model": "m", "system_fingerprint": "fp", "service_tier": "t"}
    w.begin({**head, "other": 1})
    top = (
        b'"id":"c","object":"chat.completion.chunk","created":5,"model":"m",'
        b'"system_fingerprint":"fp","service_tier":"t"'
    )
    w.blocks({"choices": [{"message": {"content": ""}}]})
    w.blocks({"choices": [{"message": {"content": "x", "tool_calls": [{"id": "1"}, {"id": "2"}]}}]})
    parts = [{"type": "text", "text": "p"}]
    w.blocks({"choices": [{"message": {"content": parts, "tool_calls": [{"id": "3"}]}}]})
    w.blocks({"choices": [{"message": {"content": []}}]})
    w.blocks({})
    assert w.take() == (
        delta(top, b'{"role":"assistant"}')
        + delta(top, b'{"content":""}')
        + delta(top, b'{"content":"x"}')
        + delta(top, b'{"tool_calls":[{"id":"1","index":0}]}')
        + delta(top, b'{"tool_calls":[{"id":"2","index":1}]}')
        + delta(top, b'{"content":[{"type":"text","text":"p"}]}')
        + delta(top, b'{"tool_calls":[{"id":"3","index":2}]}')
    )
    message = {"role": "assistant", "content": "x", "refusal": "no", "annotations": [1]}
    first = {"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}
    calls = {"content": "b", "tool_calls": [{"id": "a"}, {"id": "b"}]}
    body = {
        "choices": [first, {"message": calls}, {"index": 7, "message": None}],
        "usage": {"total_tokens": 3},
        "id": "zz",
        "extra_top": 2,
    }
    w.finish(body)
    assert w.take() == (
        chunk(
            top + b',"extra_top":2',
            b'{"index":0,"logprobs":null,"delta":{"annotations":[1],"refusal":"no"},'
            b'"finish_reason":"stop"}',
        )
        + chunk(
            top,
            b'{"index":1,"delta":{"content":"b","tool_calls":[{"id":"a","index":0},'
            b'{"id":"b","index":1}]}}',
        )
        + chunk(top, b'{"index":7,"delta":{}}')
        + b"data: {"
        + top
        + b',"choices":[],"usage":{"total_tokens":3}}\n\n'
        + b"data: [DONE]\n\n"
    )
    w.finish({"usage": None, "choices": [{"message": {"refusal": 5}}]})
    assert w.take() == delta(top, b"{}") + b"data: [DONE]\n\n"
    w.finish({})
    assert w.take() == delta(top, b"{}") + b"data: [DONE]\n\n"
