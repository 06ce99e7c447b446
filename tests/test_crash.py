"""A writer SIGKILLed in the middle of an append, at a chosen byte: the torn tail is exactly the
bytes that reached the file, and repair() leaves every whole message.

The child process lowers its file size limit (RLIMIT_FSIZE) to the chosen byte: the kernel then
writes the append only up to that byte (a short write), and the next write raises SIGXFSZ, whose
handler SIGKILLs the process. Nothing in the library is replaced: the append is torn by the
operating system, at a byte the test picks.
"""

from __future__ import annotations

import errno
import multiprocessing
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from minagent import wire
from minagent.wire.stream import SessionLog, StreamIOError

pytestmark = pytest.mark.skipif(
    sys.platform == "win32" or not hasattr(os, "fork"), reason="needs fork, rlimits and SIGKILL"
)

FIRST = [wire.Message("user", "whole before the crash")]
BATCH = [
    wire.Message("assistant", "one ✓"),
    wire.Message("user", "two, a longer line " * 3),
    wire.Message("assistant", "three"),
]


def _append_until(path: str, limit: int) -> None:
    """Child: append BATCH with the file limited to ``limit`` bytes; SIGKILL on SIGXFSZ."""
    import resource

    log = SessionLog(path)
    signal.signal(signal.SIGXFSZ, lambda *_: os.kill(os.getpid(), signal.SIGKILL))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
    log.append(BATCH)
    os._exit(0)  # not reached: the append cannot finish below the limit


def _cuts() -> list[int]:
    """Bytes to stop at: inside the first line of the batch, one byte into the second, the
    byte before its newline, inside a multi-byte character, one short of the end."""
    head = len(wire.json.encode_lines(FIRST))
    batch = wire.json.encode_lines(BATCH)
    first_end = batch.index(b"\n") + 1
    second_end = batch.index(b"\n", first_end) + 1
    check = batch.index("✓".encode()) + 1  # between the bytes of one character
    return [head + n for n in (5, first_end + 1, second_end - 1, check, len(batch) - 1)]


@pytest.mark.parametrize("cut", _cuts())
def test_sigkill_mid_append_leaves_exactly_the_torn_tail(tmp_path: Path, cut: int) -> None:
    """Killed after ``cut`` bytes of the file were written, mid-append: the file is exactly the
    first ``cut`` bytes of the whole log, the tail is the partial line, repair cuts only it."""
    path = tmp_path / "crash.jsonl"
    with SessionLog(path) as log:
        log.append(FIRST)
    whole = wire.json.encode_lines(FIRST + BATCH)
    proc = multiprocessing.get_context("fork").Process(target=_append_until, args=(str(path), cut))
    proc.start()
    proc.join(30)
    assert proc.exitcode == -signal.SIGKILL
    data = path.read_bytes()
    assert data == whole[:cut]  # the kill landed mid-append, at the chosen byte
    start = data.rfind(b"\n") + 1
    assert start < len(data) < whole.index(b"\n", start) + 1  # it ends inside a line
    complete = data.count(b"\n")
    with SessionLog(path) as log:
        tail = log.tail
        assert tail is not None
        assert (tail.offset, tail.line, tail.data) == (start, complete + 1, data[start:])
        with pytest.raises(wire.stream.TornTailError):
            log.append(FIRST)
        assert log.repair() == tail
        assert log.tail is None
        assert log.read() == (FIRST + BATCH)[:complete]
        log.append(BATCH[-1])
    assert path.read_bytes() == whole[:start] + wire.json.encode_lines(BATCH[-1:])


def _append_short(path: str, limit: int, conn: Any) -> None:
    """Child: the same append under the limit, SIGXFSZ ignored: report what append raised."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    with SessionLog(path) as log:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
        try:
            log.append(BATCH)
        except StreamIOError as err:
            tail = log.tail
            conn.send((err.errno, err.offset, str(err), tail and (tail.offset, tail.data)))
        else:
            conn.send(None)
    conn.close()


@pytest.mark.parametrize("cut", _cuts()[:2])
def test_short_write_then_failure_is_undone(tmp_path: Path, cut: int) -> None:
    """The OS takes only part of the append (a short write), then refuses the rest (EFBIG):
    append raises StreamIOError at the size before it, and the partial line is cut away."""
    path = tmp_path / "short.jsonl"
    with SessionLog(path) as log:
        log.append(FIRST)
    here, there = multiprocessing.get_context("fork").Pipe()
    proc = multiprocessing.get_context("fork").Process(
        target=_append_short, args=(str(path), cut, there)
    )
    proc.start()
    report = here.recv()
    proc.join(30)
    head = len(wire.json.encode_lines(FIRST))
    assert report == (
        errno.EFBIG,
        head,
        f"cannot append to the session log at byte offset {head}: {os.strerror(errno.EFBIG)}",
        None,
    )
    assert path.read_bytes() == wire.json.encode_lines(FIRST)
