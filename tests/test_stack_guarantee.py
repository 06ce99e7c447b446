"""No input crashes the process: deep nesting decoded in a worker thread with a 1 MiB stack.

msgspec recurses in C until the interpreter's recursion guard stops it, and how deep that is
moves with the interpreter (about 1000 levels up to CPython 3.11, 1500 on 3.12, 10,000 on 3.13:
measured here, not assumed). On 3.13 a 1 MiB stack overflows (SIGSEGV) at about 3000 levels.
Each case runs in a child process, so a crash fails one test instead of killing pytest; the
child prints each decoder's name before running it, so a crash names the decoder.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import msgspec
import pytest

from minagent.wire import _stack

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="thread stack sizes: POSIX")

ROOT = Path(__file__).resolve().parent.parent
DEPTHS = [2_000, 5_000, 10_000, 100_000]
STACK = 1 << 20
SMALLEST = 512 << 10


def _deep_json(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


def _deep_msgpack(levels: int) -> bytes:
    return b"\x91" * levels + b"\x90"


def cases(levels: int) -> dict[str, Any]:
    """Name -> a call decoding input nested ``levels`` deep where each decoder recurses (a tool
    input, an unknown key, a provider event): every decoder of the package."""
    from minagent import wire
    from minagent.providers import (
        anthropic,
        anthropic_stream,
        gemini,
        gemini_stream,
        openai_chat,
        openai_chat_stream,
        openai_responses,
        openai_responses_stream,
    )
    from minagent.wire.stream import FrameDecoder, LineDecoder, encode_frames

    deep_j, deep_m = _deep_json(levels), _deep_msgpack(levels)
    tool = b'{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"v":'
    message_j = tool + deep_j + b"}}]}"
    odd_j = b'{"role":"user","content":"x","x_unknown":' + deep_j + b"}"
    packed = msgspec.msgpack.encode(
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f",
                                          "input": {"v": None}}]}
    )[:-1]  # fmt: skip
    message_m = packed + deep_m
    stamp_m = packed + b"\x91" * levels + b"\xd6\xff\x00\x00\x00\x01"  # our own reader
    response_j = b'{"message":' + message_j + b',"stop_reason":"end_turn","usage":{}}'
    unknown_top = b'{"x_deep":' + deep_j + b","
    frames = encode_frames([wire.Message("user", "hi")])

    def frame(payload: bytes) -> bytes:
        return len(payload).to_bytes(4, "big") + payload

    def sse(event: bytes) -> bytes:
        return b"data: " + event + b"\n\n"

    def stream(parser: Any, data: bytes) -> Any:
        out = parser.feed(data)
        return out, parser.close()

    deep: Any = []
    for _ in range(levels - 1):
        deep = [deep]
    built = [wire.Message("assistant", [wire.ToolUseBlock("t", "f", {"v": deep})])]
    response = wire.ModelResponse(built[0])
    anthropic_request = unknown_top + b'"model":"m","max_tokens":1,"messages":[]}'
    chat_request = unknown_top + b'"model":"m","messages":[]}'
    return {
        "json list": lambda: wire.json.decode(b"[" + message_j + b"]"),
        "json list, lossless element": lambda: wire.json.decode(b"[" + odd_j + b"]"),
        "json message": lambda: wire.json.decode(message_j, type=wire.Message),
        "json response": lambda: wire.json.decode(response_j, type=wire.ModelResponse),
        "json bare nesting": lambda: wire.json.decode(deep_j),
        "msgpack message": lambda: wire.msgpack.decode(message_m, type=wire.Message),
        "msgpack list": lambda: wire.msgpack.decode(b"\x91" + message_m),
        "msgpack timestamp reader": lambda: wire.msgpack.decode(stamp_m, type=wire.Message),
        "msgpack bare nesting": lambda: wire.msgpack.decode(deep_m),
        "json lines": lambda: wire.json.decode_lines(message_j + b"\n"),
        "line decoder": lambda: LineDecoder().feed(message_j + b"\n"),
        "frame decoder": lambda: FrameDecoder().feed(frames + frame(message_m)),
        "lazy json": lambda: wire.json.decode_lazy(b"[" + message_j + b"]")[0].role,
        "lazy json, message": lambda: wire.json.decode_lazy(b"[" + message_j + b"]")[0].message,
        "lazy msgpack": lambda: wire.msgpack.decode_lazy(b"\x91" + message_m)[0].tool_names,
        "json encode": lambda: wire.json.encode(built),
        "msgpack encode": lambda: wire.msgpack.encode(built),
        "anthropic encode": lambda: (
            anthropic.encode_request(built, model="m", max_tokens=1),
            anthropic.encode_response(response),
        ),
        "openai chat encode": lambda: (
            openai_chat.encode_request(built, model="m"),
            openai_chat.encode_response(response),
        ),
        "openai responses encode": lambda: (
            openai_responses.encode_request(built, model="m"),
            openai_responses.encode_response(response),
        ),
        "gemini encode": lambda: (gemini.encode_request(built), gemini.encode_response(response)),
        "anthropic request": lambda: anthropic.decode_request(anthropic_request),
        "anthropic response": lambda: anthropic.decode_response(
            unknown_top + b'"type":"message","role":"assistant","content":[]}'
        ),
        "anthropic stream": lambda: stream(
            anthropic_stream.StreamParser(),
            sse(b'{"type":"ping","x":' + deep_j + b"}"),
        ),
        "openai chat request": lambda: openai_chat.decode_request(chat_request),
        "openai chat response": lambda: openai_chat.decode_response(unknown_top + b'"choices":[]}'),
        "openai chat stream": lambda: stream(
            openai_chat_stream.StreamParser(), sse(b'{"x":' + deep_j + b',"choices":[]}')
        ),
        "openai responses request": lambda: openai_responses.decode_request(
            unknown_top + b'"model":"m","input":[]}'
        ),
        "openai responses response": lambda: openai_responses.decode_response(
            unknown_top + b'"output":[]}'
        ),
        "openai responses stream": lambda: stream(
            openai_responses_stream.StreamParser(),
            sse(b'{"type":"response.created","x":' + deep_j + b"}"),
        ),
        "gemini request": lambda: gemini.decode_request(unknown_top + b'"contents":[]}'),
        "gemini response": lambda: gemini.decode_response(unknown_top + b'"candidates":[]}'),
        "gemini sse stream": lambda: stream(
            gemini_stream.SSEChunkParser(), sse(b'{"x":' + deep_j + b"}")
        ),
        "gemini array stream": lambda: stream(
            gemini_stream.ArrayChunkParser(), b'[{"x":' + deep_j + b"}]"
        ),
    }


def child(levels: int, stack: int = STACK) -> None:
    """In a thread with a ``stack``-byte stack: run every case, printing ``name: outcome`` for
    each (``ok``, or the exception's class); a WireError (or none) is the only allowed one."""
    from minagent import wire

    threading.stack_size(stack)

    def run() -> None:
        for name, call in cases(levels).items():
            print(f"{name}: ", end="", flush=True)
            try:
                call()
            except wire.WireError as err:
                print(type(err).__name__, flush=True)
            except Exception as err:
                print(f"NOT OURS {type(err).__name__}: {err}"[:300], flush=True)
            else:
                print("ok", flush=True)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()


def _run_child(levels: int, stack: int) -> subprocess.CompletedProcess[str]:
    code = f"import sys; sys.path[:0] = {[str(ROOT / 'tests'), str(ROOT)]!r}; "
    code += f"from tests.test_stack_guarantee import child; child({levels}, {stack})"
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=False
    )


@pytest.mark.parametrize(
    ("levels", "stack"), [(levels, STACK) for levels in DEPTHS] + [(5_000, SMALLEST)]
)
def test_no_input_crashes_a_thread_with_a_1_mib_stack(levels: int, stack: int) -> None:
    """Every decoder (JSON, MessagePack, streams, lazy, each provider adapter) fed input nested
    ``levels`` deep, and every encoder given a value that deep, in a thread with a 1 MiB stack
    (and the smallest docs/hostile-input.md names) returns or raises our WireError: the child
    process exits 0 (not SIGSEGV) and names an outcome for every case."""
    proc = _run_child(levels, stack)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0, f"crashed ({proc.returncode}) in: {lines[-1:]}\n{proc.stderr}"
    names = list(cases(3))
    outcomes = dict(line.split(": ", 1) for line in lines)
    assert list(outcomes) == names
    assert [n for n, o in outcomes.items() if o.startswith("NOT OURS")] == [], outcomes


def _crash_depth(kind: str, stack: int) -> int:
    """The least nesting (to 20 levels) whose schema-less msgspec decode (``kind``: json or
    msgpack) overflows a thread with a ``stack``-byte stack, or 0 if the recursion guard stops
    it first up to 20,000 levels; by bisection, each try in a child process."""

    def crashes(levels: int) -> bool:
        code = (
            "import threading, msgspec\n"
            f"threading.stack_size({stack})\n"
            f"data = {(_deep_json(levels) if kind == 'json' else _deep_msgpack(levels))!r}\n"
            f"dec = msgspec.{kind}.Decoder()\n"
            "def run():\n"
            "    try: dec.decode(data)\n"
            "    except RecursionError: pass\n"
            "t = threading.Thread(target=run); t.start(); t.join()\n"
        )
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
        return proc.returncode != 0

    if not crashes(20_000):
        return 0
    lo, hi = 100, 20_000  # lo survives, hi crashes
    while hi - lo > 20:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if crashes(mid) else (mid, hi)
    return hi


@pytest.mark.parametrize("kind", ["json", "msgpack"])
def test_per_level_bound_covers_what_msgspec_takes(kind: str) -> None:
    """`_stack.PER_LEVEL` is at least the C stack msgspec takes per level here: measured by
    the nesting that overflows a 1 MiB thread (where the guard stops msgspec before the stack
    overflows, the stack is not what limits it and there is nothing to measure)."""
    crash = _crash_depth(kind, STACK)
    if crash == 0:
        assert _stack.guard_levels() * _stack.PER_LEVEL < STACK + _stack.MARGIN
        return
    assert STACK // crash < _stack.PER_LEVEL
    assert crash > _stack.room_for(STACK)


def test_room_is_read_from_the_thread_itself() -> None:
    """A thread started with a 1 MiB stack reports room for (1 MiB - margin) / PER_LEVEL
    levels; the main thread (8 MiB or more on Linux and macOS) for more than the guard."""
    seen: list[int] = []
    before = threading.stack_size(STACK)
    try:
        thread = threading.Thread(target=lambda: seen.append(_stack.room_here()))
        thread.start()
        thread.join()
    finally:
        threading.stack_size(before)
    assert seen == [_stack.room_for(STACK)] == [(STACK - _stack.MARGIN) // _stack.PER_LEVEL]
    if threading.current_thread() is threading.main_thread():
        assert _stack.room_here() > _stack.guard_levels()


@pytest.mark.parametrize("limit", ["unlimited", 1 << 20])
def test_the_main_thread_reads_its_stack_limit(limit: Any) -> None:
    """A process whose stack limit (RLIMIT_STACK) is unlimited or 1 MiB: its main thread's room
    follows it (an unlimited one holds the guard, whose measure stays bounded), and 50,000
    nested arrays are refused there, not a crash."""
    import resource

    value = resource.RLIM_INFINITY if limit == "unlimited" else limit

    def set_limit() -> None:
        resource.setrlimit(
            resource.RLIMIT_STACK, (value, resource.getrlimit(resource.RLIMIT_STACK)[1])
        )

    code = (
        "from minagent import wire\n"
        "from minagent.wire import _stack\n"
        "print(_stack.fits(None), _stack.guard_levels() <= 1 << 17)\n"
        "try:\n"
        "    wire.json.decode(b'[' * 50000 + b']' * 50000)\n"
        "except wire.DecodeError as err:\n"
        "    print(err.path)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True, text=True, check=False, preexec_fn=set_limit, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    roomy = limit == "unlimited" or _stack.guard_levels() <= _stack.room_for(limit)
    assert proc.stdout.split() == [str(roomy), "True", "$"]


def test_a_thread_of_unknown_stack_hands_deep_work_over(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the C library does not say how large a thread's stack is, the thread holds no
    level for sure: a short input is decoded there, a longer one (and any encode) on the
    worker, whose own room is its known stack; results and refusals come back the same."""
    monkeypatch.setattr(_stack, "_stack_size", lambda: None)
    from minagent import wire

    seen: list[Any] = []
    long_input = wire.json.encode([wire.Message("user", "x" * 500)])

    def run() -> None:
        seen.append((_stack.room_here(), _stack.fits(None), _stack.fits(_stack.SHORT)))
        seen.append(wire.json.decode(long_input)[0].content)
        try:
            wire.json.decode(b"[" * 50_000 + b"]" * 50_000)
        except wire.DecodeError as err:
            seen.append(err.path)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen == [(0, False, True), "x" * 500, "$"]
    assert _stack._WORKER_THREAD[0] is not None
    assert _stack._WORKER_THREAD[0].name == "minagent-deep-decode"
