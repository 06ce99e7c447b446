"""The seed's dataclass reference: round trips, the two documented changes, stdlib-only import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from minagent.types import Message, ModelResponse, ToolCall

ROOT = Path(__file__).resolve().parents[1]

SEED_OUTPUT = (
    '[{"content": "你是一个只做加法的助手。", "role": "system"}, '
    '{"content": "1 + 2 等于多少？", "role": "user"}, '
    '{"content": [{"id": "call_1", "input": {"a": 1, "b": 2}, "name": "add", "type": "tool_use"}], '
    '"role": "assistant"}, {"content": "3", "role": "tool", "tool_call_id": "call_1"}, '
    '{"content": "结果是 3。", "role": "assistant"}]\n'
    "roundtrip OK: 5 messages\n"
)

SEED_CONVERSATION = [
    Message(role="system", content="你是一个只做加法的助手。"),
    Message(role="user", content="1 + 2 等于多少？"),
    Message(
        role="assistant",
        content="",
        tool_calls=[ToolCall(id="call_1", name="add", arguments={"a": 1, "b": 2})],
    ),
    Message(role="tool", content="3", tool_call_id="call_1"),
    Message(role="assistant", content="结果是 3。"),
]

FORMS = {
    "plain text": Message(role="user", content="hello"),
    "tool calls without text": Message(
        role="assistant",
        tool_calls=[
            ToolCall(id="c1", name="search", arguments={"q": "x", "opts": {"n": [1, 2]}}),
            ToolCall(id="c2", name="noop", arguments={}),
        ],
    ),
    "tool calls with text": Message(
        role="assistant",
        content="Let me check.",
        tool_calls=[ToolCall(id="c1", name="search", arguments={"q": "x"})],
    ),
    "tool result": Message(role="tool", content="42", tool_call_id="c1"),
    "empty content": Message(role="assistant", content=""),
    "empty tool result": Message(role="tool", content="", tool_call_id=""),
    "cjk and emoji": Message(role="user", content="你好，世界 🌍👩‍💻 ñ é"),
    "system": Message(role="system", content="Be brief."),
}


def run_seed_script() -> str:
    """Run examples/seed_roundtrip.py in a fresh interpreter and return its stdout."""
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "seed_roundtrip.py")],
        capture_output=True,
        check=True,
        env={"PYTHONIOENCODING": "utf-8", "PATH": ""},
    )
    return proc.stdout.decode("utf-8")


def test_seed_script_prints_the_chapters_two_lines_exactly() -> None:
    """The seed's offline script prints exactly what the chapter prints, byte for byte."""
    assert run_seed_script() == SEED_OUTPUT


@pytest.mark.parametrize("name", sorted(FORMS))
def test_message_round_trip_through_json(name: str) -> None:
    """Every message form survives to_wire -> json -> from_wire and re-encodes identically."""
    msg = FORMS[name]
    wire = msg.to_wire()
    back = Message.from_wire(json.loads(json.dumps(wire, ensure_ascii=False)))
    assert back == msg
    assert back.to_wire() == wire


def test_text_is_kept_before_tool_use_blocks() -> None:
    """A message with text and tool calls emits a text block first (the seed dropped it)."""
    wire = FORMS["tool calls with text"].to_wire()
    assert wire["content"] == [
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "c1", "name": "search", "input": {"q": "x"}},
    ]


def test_empty_string_is_not_missing() -> None:
    """content "" stays "" and tool_call_id is absent (never null) when unset."""
    wire = Message(role="assistant").to_wire()
    assert wire == {"role": "assistant", "content": ""}
    assert Message.from_wire({"role": "user"}).content == ""
    assert Message.from_wire({"role": "tool", "content": "", "tool_call_id": ""}).tool_call_id == ""


def test_from_wire_of_seed_output_equals_the_original_objects() -> None:
    """Message.from_wire over the seed's printed JSON gives back the five original messages."""
    payload = json.loads(SEED_OUTPUT.splitlines()[0])
    assert [Message.from_wire(w) for w in payload] == SEED_CONVERSATION


def test_model_response_round_trip() -> None:
    """ModelResponse has the {"message","stop_reason","usage"} wire shape and round-trips."""
    resp = ModelResponse(
        message=FORMS["tool calls with text"],
        stop_reason="tool_use",
        usage={"input_tokens": 12, "output_tokens": 3, "cache_read_input_tokens": 0},
    )
    wire = resp.to_wire()
    assert set(wire) == {"message", "stop_reason", "usage"}
    assert wire["usage"] is not resp.usage
    back = ModelResponse.from_wire(json.loads(json.dumps(wire)))
    assert back == resp
    assert ModelResponse.from_wire({"message": {"role": "assistant"}}) == ModelResponse(
        message=Message(role="assistant")
    )


def test_types_imports_only_the_standard_library() -> None:
    """import minagent.types pulls in nothing outside the standard library (msgspec included)."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import minagent.types\n"
        "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
        "outside = sorted(m for m in new if m != 'minagent' and m not in sys.stdlib_module_names)\n"
        "print(outside)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
