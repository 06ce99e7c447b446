"""SessionLog: save and resume, torn tails and repair, one writer at a time, SIGKILL safety."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from minagent import wire
from minagent.bench import corpus
from minagent.wire.stream import LogLockedError, SessionLog, TornTail, TornTailError
from minagent.wire.stream._errors import TAIL_KEPT


def corpus_messages(family: str, size: int) -> list[wire.Message]:
    """The corpus transcript of ``family`` as Structs (decoded from its JSON)."""
    return wire.json.decode(corpus.json_bytes(corpus.transcript(family, size)))


def test_append_read_resume(tmp_path: Path) -> None:
    """Messages appended one or many at a time read back, also after closing and reopening."""
    messages = corpus_messages("rich", 50)
    path = tmp_path / "session.jsonl"
    with SessionLog(path) as log:
        assert log.read() == [] and log.tail is None
        log.append(messages[0])
        log.append(messages[1:30])
        assert log.read() == messages[:30]
    with SessionLog(path) as log:
        assert log.read() == messages[:30]
        log.append(tuple(messages[30:]))
        assert list(log) == messages
    assert path.read_bytes() == wire.json.encode_lines(messages)


def test_durable(tmp_path: Path) -> None:
    """durable=True appends and reads back the same (each append is fsynced)."""
    messages = corpus_messages("tool-heavy", 10)
    with SessionLog(tmp_path / "d.jsonl", durable=True) as log:
        for m in messages:
            log.append(m)
        assert log.durable and log.read() == messages


def test_model_responses(tmp_path: Path) -> None:
    """A log of ModelResponses (type=wire.ModelResponse) reads back."""
    responses = [wire.ModelResponse(message=m) for m in corpus_messages("tool-heavy", 5)]
    with SessionLog(tmp_path / "r.jsonl", type=wire.ModelResponse) as log:
        log.append(responses)
        assert log.read() == responses


@pytest.mark.parametrize("cut", [1, 17, -1])
def test_torn_tail_is_reported_and_repaired(tmp_path: Path, cut: int) -> None:
    """A last line without newline is reported (bytes, offset, line) and repair cuts exactly it."""
    messages = corpus_messages("tool-heavy", 8)
    whole = wire.json.encode_lines(messages[:7])
    torn = wire.json.encode_lines(messages[7:])[:cut]
    path = tmp_path / "torn.jsonl"
    path.write_bytes(whole + torn)
    with SessionLog(path) as log:
        assert log.tail == TornTail(len(whole), torn, 8, "no trailing newline", len(torn))
        with pytest.raises(TornTailError) as info:
            log.read()
        err = info.value
        assert (err.offset, err.line, err.messages) == (len(whole), 8, messages[:7])
        assert f"byte offset {len(whole)}" in str(err)
        with pytest.raises(TornTailError):
            log.append(messages[7])
        assert path.read_bytes() == whole + torn  # nothing touched before repair
        assert log.repair() == TornTail(len(whole), torn, 8, "no trailing newline", len(torn))
        assert path.read_bytes() == whole
        assert log.repair() is None
        log.append(messages[7])
        assert log.read() == messages


def test_whole_bad_last_line_is_reported_never_cut(tmp_path: Path) -> None:
    """A last line that ends in a newline is whole: read() names it, repair() never cuts it."""
    whole = wire.json.encode_lines(corpus_messages("tool-heavy", 3))
    path = tmp_path / "bad.jsonl"
    path.write_bytes(whole + b"\x00\x00\x00\n")
    with SessionLog(path) as log:
        assert log.tail is None and log.repair() is None
        with pytest.raises(wire.DecodeError) as info:
            log.read()
        assert info.value.line == 4
    assert path.read_bytes() == whole + b"\x00\x00\x00\n"


def test_bad_line_in_the_middle_is_not_repairable(tmp_path: Path) -> None:
    """Corruption before the last line is an error naming the line; repair() never touches it."""
    lines = [wire.json.encode(m) + b"\n" for m in corpus_messages("tool-heavy", 5)]
    lines[2] = b'{"role": "user", "content": oops}\n'
    path = tmp_path / "mid.jsonl"
    path.write_bytes(b"".join(lines))
    with SessionLog(path) as log:
        assert log.tail is None and log.repair() is None
        with pytest.raises(wire.DecodeError) as info:
            log.read()
        assert info.value.line == 3
    assert path.read_bytes() == b"".join(lines)


def test_second_writer_in_process_is_refused(tmp_path: Path) -> None:
    """A second SessionLog on the same path gets LogLockedError until the first closes."""
    path = tmp_path / "one.jsonl"
    with SessionLog(path) as log:
        with pytest.raises(LogLockedError) as info:
            SessionLog(path)
        assert isinstance(info.value, wire.WireError) and "one writer" in str(info.value)
        log.append(wire.Message(role="user", content="still fine"))
    with SessionLog(path) as again:
        assert again.read() == [wire.Message(role="user", content="still fine")]


def test_second_writer_in_another_process_is_refused(tmp_path: Path) -> None:
    """Another process cannot open a log this process holds."""
    path = tmp_path / "two.jsonl"
    code = (
        "import sys\nfrom minagent.wire.stream import SessionLog, LogLockedError\n"
        "try:\n    SessionLog(sys.argv[1])\nexcept LogLockedError:\n    print('locked')\n"
    )
    with SessionLog(path):
        out = subprocess.run(
            [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60
        )
    assert out.stdout.strip() == "locked", out.stderr


def test_closed_log_refuses_use(tmp_path: Path) -> None:
    """A closed log raises a WireError instead of touching a stale file descriptor."""
    log = SessionLog(tmp_path / "c.jsonl")
    log.close()
    log.close()
    assert log.closed
    with pytest.raises(wire.WireError):
        log.append(wire.Message(role="user"))


def test_open_errors_are_wire_errors(tmp_path: Path) -> None:
    """A path that cannot be opened raises StreamIOError carrying the OS errno."""
    with pytest.raises(wire.WireError) as info:
        SessionLog(tmp_path / "missing-dir" / "x.jsonl")
    assert isinstance(info.value, OSError) and info.value.errno is not None


# --- SIGKILL at random moments ------------------------------------------------------------------

_SIZES = (40, 40, 400, 40_000, 700_000, 2_000_000)
_PER_LIFE = 8


def _message(i: int) -> wire.Message:
    """Message ``i`` of the kill test: deterministic, from a few bytes to 2 MB."""
    size = random.Random(i).choice(_SIZES)
    role = "user" if i % 2 else "assistant"
    return wire.Message(role=role, content=f"{i}:" + "é🚀abc"[i % 5] * size)


def _writer(path: str, ready: multiprocessing.synchronize.Event) -> None:  # pragma: no cover
    """Resume the log and append messages until killed (then idle, still holding the lock)."""
    with SessionLog(path) as log:
        start = len(log.read())
        ready.set()
        for i in range(start, start + _PER_LIFE):
            log.append(_message(i))
        signal.pause()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork and SIGKILL")
def test_sigkill_never_loses_a_complete_message(tmp_path: Path) -> None:
    """Killed at random moments, a writer leaves whole messages and at most one torn tail."""
    ctx = multiprocessing.get_context("fork")
    rng = random.Random(8)
    lines: dict[int, bytes] = {}

    def line(i: int) -> bytes:
        if i not in lines:
            lines[i] = wire.json.encode_lines([_message(i)])
        return lines[i]

    torn = 0
    for group in range(5):
        path = tmp_path / f"kill{group}.jsonl"
        for life in range(6):
            ready = ctx.Event()
            proc = ctx.Process(target=_writer, args=(str(path), ready))
            proc.start()
            assert ready.wait(30)
            if life % 2:
                time.sleep(rng.uniform(0, 0.012))
            else:  # the moment the file starts growing: often in the middle of a write
                size = path.stat().st_size
                deadline = time.monotonic() + 5
                while path.stat().st_size == size and time.monotonic() < deadline:
                    pass
            os.kill(proc.pid, signal.SIGKILL)
            proc.join(30)
            assert proc.exitcode == -signal.SIGKILL
            data = path.read_bytes()
            complete = data.count(b"\n")
            cut = data.rfind(b"\n") + 1
            assert data[:cut] == b"".join(line(i) for i in range(complete))
            assert line(complete).startswith(data[cut:])  # the tail is a prefix of the next
            with SessionLog(path) as log:
                if cut < len(data):
                    torn += 1
                    assert log.tail is not None
                    assert (log.tail.offset, log.tail.line) == (cut, complete + 1)
                    assert log.tail.data == data[cut : cut + TAIL_KEPT]
                    assert log.tail.size == len(data) - cut
                    log.repair()
                else:
                    assert log.tail is None
            assert path.read_bytes() == data[:cut]
        with SessionLog(path) as log:
            assert log.read() == [_message(i) for i in range(complete)]
    print(f"torn tails repaired: {torn} of 30 kills")
