"""SessionLog: save and resume, torn tails and repair, one writer at a time, SIGKILL safety."""

from __future__ import annotations

import errno
import multiprocessing
import os
import random
import signal
import stat
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from minagent import wire
from minagent.bench import corpus
from minagent.wire.stream import (
    LineTooLongError,
    LogChangedError,
    LogLockedError,
    LogMovedError,
    SessionLog,
    StreamIOError,
    TornTail,
    TornTailError,
)
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


def test_a_torn_tail_after_megabytes_of_lines_is_numbered_exactly(tmp_path: Path) -> None:
    """The torn tail's line number counts every line before it, read in 1 MiB blocks: a log of
    2,600 lines (about 2.6 MB) and a torn last line reports line 2,601."""
    whole = wire.json.encode_lines([wire.Message("user", "x" * 1000)] * 2600)
    assert len(whole) > 2 << 20
    path = tmp_path / "big.jsonl"
    path.write_bytes(whole + b'{"role":"us')
    with SessionLog(path) as log:
        assert log.tail == TornTail(len(whole), b'{"role":"us', 2601, "no trailing newline", 11)


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
        assert isinstance(info.value, wire.WireError)
        assert str(info.value) == (
            f"session log {str(path)!r} is already open for writing (by this or another "
            f"process); one writer at a time: {os.strerror(info.value.errno)}"
        )
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
    path = tmp_path / "missing-dir" / "x.jsonl"
    with pytest.raises(wire.WireError) as info:
        SessionLog(path)
    assert isinstance(info.value, OSError) and info.value.errno == errno.ENOENT
    assert str(info.value) == f"cannot open session log {str(path)!r}: {os.strerror(errno.ENOENT)}"


def test_a_new_log_is_created_readable_by_all_writable_by_its_owner(tmp_path: Path) -> None:
    """A new log file gets mode 0o666 less the umask (0o644 under umask 022), like open()."""
    old = os.umask(0o022)
    try:
        SessionLog(tmp_path / "new.jsonl").close()
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.jsonl").stat().st_mode) == 0o644


def test_a_bad_last_line_whose_newline_is_read_alone_is_not_called_cut(tmp_path: Path) -> None:
    """When the last read of the log is the final newline alone (the file is one byte past the
    read size), a bad last line is still a whole line: ValidationError, not TruncatedError."""
    from minagent.wire.stream._chunks import DEFAULT_CHUNK_SIZE

    bad = b'{"role":"robot","content":"x"}\n'
    head = b'{"role":"user","content":"'
    filler = DEFAULT_CHUNK_SIZE + 1 - len(bad) - len(head) - len(b'"}\n')
    path = tmp_path / "edge.jsonl"
    path.write_bytes(head + b"a" * filler + b'"}\n' + bad)
    assert path.stat().st_size == DEFAULT_CHUNK_SIZE + 1
    with SessionLog(path) as log, pytest.raises(wire.ValidationError) as info:
        log.read()
    assert type(info.value) is wire.ValidationError and info.value.line == 2


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


# --- issue 12: nothing committed is ever lost ---------------------------------------------------


def _deep_message(depth: int) -> wire.Message:
    """A message whose tool input holds arrays nested so that the line is ``depth`` deep."""
    value: list[Any] = []
    for _ in range(depth - 5):  # the message, content, block and input take 4 levels
        value = [value]
    return wire.Message(
        role="assistant", content=[wire.ToolUseBlock(id="t", name="f", input={"v": value})]
    )


def _at_stack_depth(frames: int, call: Callable[[], Any]) -> Any:
    """``call()`` run ``frames`` Python frames deeper than here."""
    if frames:
        return _at_stack_depth(frames - 1, call)
    return call()


def test_deep_message_reads_back_from_a_deep_stack(tmp_path: Path) -> None:
    """A 960-deep message appended is whole when reopened 300 frames deep; repair keeps it."""
    path = tmp_path / "deep.jsonl"
    message = _deep_message(960)
    with SessionLog(path) as log:
        log.append(message)
    size = path.stat().st_size

    def reopen() -> tuple[TornTail | None, TornTail | None, bytes]:
        with SessionLog(path) as log:  # (== on 960-deep values would recurse: compare bytes)
            return log.tail, log.repair(), wire.json.encode_lines(log.read())

    assert _at_stack_depth(300, reopen) == (None, None, path.read_bytes())
    assert path.stat().st_size == size == len(wire.json.encode_lines([message]))


def test_append_refuses_a_line_read_would_refuse(tmp_path: Path) -> None:
    """A line over the log's limits (size, depth) is refused by append, file untouched."""
    path = tmp_path / "limits.jsonl"
    first = wire.Message(role="user", content="hi")
    with SessionLog(path, limits=wire.Limits(max_size=1000, max_depth=40)) as log:
        log.append(first)
        before = path.read_bytes()
        big = wire.Message(role="user", content="x" * 1000)
        with pytest.raises(wire.EncodeError, match="would not read this line back") as info:
            log.append([first, big])
        assert (info.value.line, type(info.value.__cause__).__name__) == (2, "LineTooLongError")
        with pytest.raises(wire.EncodeError) as info:
            log.append([_deep_message(41)])
        assert (info.value.line, info.value.path) == (1, "$.content[0].input.v" + "[0]" * 36)
        log.append(_deep_message(40))
        assert path.read_bytes() == before + wire.json.encode_lines([_deep_message(40)])
    with SessionLog(path, limits=wire.Limits(max_size=1000, max_depth=40)) as log:
        assert log.tail is None and log.read() == [first, _deep_message(40)]


def test_65_mib_message_is_refused_by_append_not_cut_on_reopen(tmp_path: Path) -> None:
    """With the default limits a 65 MiB message is refused on append; nothing is ever cut."""
    path = tmp_path / "big.jsonl"
    with SessionLog(path) as log:
        log.append(wire.Message(role="user", content="hi"))
        with pytest.raises(wire.EncodeError, match="longer than the limit of 67108864 bytes"):
            log.append(wire.Message(role="user", content="x" * (65 << 20)))
    assert path.read_bytes() == b'{"role":"user","content":"hi"}\n'


def _line_of(size: int, i: int) -> wire.Message:
    """A message whose JSON line is exactly ``size`` bytes, newline included."""
    bare = len(wire.json.encode(wire.Message(role="user", content=f"{i:06d}"))) + 1
    return wire.Message(role="user", content=f"{i:06d}" + "x" * (size - bare))


def _append_on_full_disk(path: str, room: int, count: int, queue: Any) -> None:
    """Child: the file may grow by ``room`` bytes (RLIMIT_FSIZE); append, report, retry."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    batch = [_line_of(4096, i) for i in range(count)]
    with SessionLog(path) as log:
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (log.size + room, hard))
        try:
            log.append(batch)
            queue.put(("appended", None, None, None))
            return
        except StreamIOError as err:
            failed = (err.errno, log.tail, os.path.getsize(path))
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        log.append(batch)  # the retry
        queue.put(("failed", *failed))


@pytest.mark.parametrize("room", [2 * 4096, 2 * 4096 + 100, 1])
def test_append_on_a_full_disk_changes_nothing(tmp_path: Path, room: int) -> None:
    """A batch append cut short by a full disk (a real child, RLIMIT_FSIZE) leaves the log
    exactly as before; the retry then writes the batch once."""
    path = tmp_path / "full.jsonl"
    with SessionLog(path) as log:
        log.append(corpus_messages("tool-heavy", 3))
    before = path.read_bytes()
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_append_on_full_disk, args=(str(path), room, 5, queue))
    proc.start()
    outcome = queue.get(timeout=60)
    proc.join(30)
    assert proc.exitcode == 0
    assert outcome == ("failed", errno.EFBIG, None, len(before))
    batch = wire.json.encode_lines([_line_of(4096, i) for i in range(5)])
    assert len(batch) == 5 * 4096
    assert path.read_bytes() == before + batch
    with SessionLog(path) as log:
        assert log.read() == corpus_messages("tool-heavy", 3) + [
            _line_of(4096, i) for i in range(5)
        ]


def test_long_torn_tail_is_not_read_into_memory(tmp_path: Path) -> None:
    """Opening a log with a 256 MiB torn tail (sparse) holds 64 KiB of it, not the whole."""
    path = tmp_path / "tail.jsonl"
    whole = wire.json.encode_lines(corpus_messages("tool-heavy", 3))
    path.write_bytes(whole)
    with path.open("r+b") as f:
        f.truncate(len(whole) + (256 << 20))  # a tail of zeros without newline
    tracemalloc.start()
    try:
        with SessionLog(path) as log:
            tail = log.tail
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert tail == TornTail(len(whole), b"\x00" * TAIL_KEPT, 4, "no trailing newline", 256 << 20)
    assert peak < 4 * TAIL_KEPT


def test_read_refuses_a_line_over_max_line(tmp_path: Path) -> None:
    """read() holds each line to the log's limits: a long line is LineTooLongError by number."""
    path = tmp_path / "long.jsonl"
    lines = [wire.Message(role="user", content=c) for c in ("a", "b" * 2000, "c")]
    path.write_bytes(wire.json.encode_lines(lines))
    with SessionLog(path, limits=wire.Limits(max_line=1000)) as log:
        with pytest.raises(LineTooLongError) as info:
            log.read()
        assert (info.value.line, info.value.offset, info.value.limit) == (2, 30, 1000)
    with SessionLog(path) as log:
        assert log.read() == lines


@pytest.mark.parametrize("how", ["renamed over", "removed"])
def test_replaced_or_removed_log_refuses_appends(tmp_path: Path, how: str) -> None:
    """After a rotation (rename over) or an unlink, append raises LogMovedError; nothing is
    written to the old file or the new one, and a new log at the path works."""
    path = tmp_path / "rot.jsonl"
    first = wire.Message(role="user", content="first")
    with SessionLog(path) as log:
        log.append(first)
        old = path.read_bytes()
        moved = tmp_path / "rot.jsonl.1"
        os.rename(path, moved)
        if how == "renamed over":
            path.write_bytes(b"")
        else:
            moved.unlink()
        with pytest.raises(LogMovedError) as info:
            log.append(wire.Message(role="user", content="second"))
        assert str(info.value) == (
            f"session log {str(path)!r} was replaced while open (renamed over, e.g. by log "
            "rotation); nothing written: open the path again"
            if how == "renamed over"
            else f"session log {str(path)!r} was removed while open; nothing written: "
            + os.strerror(errno.ENOENT)
        )
        assert os.fstat(log._fd).st_size == len(old)
        with SessionLog(path) as fresh:  # the new file at the path is a log of its own
            fresh.append(first)
    assert path.read_bytes() == old


def test_torn_tail_errors_say_what_was_refused_and_show_the_bytes(tmp_path: Path) -> None:
    """Iterating, reading (lazily too) and appending a torn log raise TornTailError with the
    exact text: what was refused, where the torn line starts, why, its size and its first 60
    bytes (then ``...``), and repair(); reading keeps the whole lines before it."""
    messages = corpus_messages("tool-heavy", 3)
    whole = wire.json.encode_lines(messages[:2])
    path = tmp_path / "torn.jsonl"
    for torn in (b'{"role":"user"', b'{"role":"user","content":"' + b"x" * 80):
        path.write_bytes(whole + torn)
        shown = repr(torn[:60]) + ("..." if len(torn) > 60 else "")
        tail = f"torn last line at byte offset {len(whole)} (no trailing newline; {len(torn)} "
        tail += f"bytes: {shown}); repair() truncates it"
        with SessionLog(path) as log:
            for call, what, kept in (
                (lambda: list(log), "the session log ends in a torn line", None),
                (log.read, "the session log ends in a torn line", messages[:2]),
                (lambda: log.read(lazy=True), "the session log ends in a torn line", "lazy"),
                (lambda: log.append(messages[2]), "cannot append to the session log", None),
            ):
                with pytest.raises(TornTailError) as info:
                    call()
                err = info.value
                assert err.message == f"{what}: {tail}"
                assert (err.line, err.offset, err.tail) == (3, len(whole), log.tail)
                if kept == "lazy":
                    assert [m.message for m in err.messages] == messages[:2]
                else:
                    assert err.messages == kept
        assert path.read_bytes() == whole + torn  # nothing was written


def test_a_short_write_is_completed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When the OS takes fewer bytes than asked (a signal, a full pipe), append writes the rest:
    the file holds every line once, in order."""
    from minagent.wire.stream import _log

    real_write = os.write
    sizes: list[int] = []

    def seven_at_a_time(fd: int, data: bytes) -> int:
        sizes.append(len(data))
        return real_write(fd, bytes(data[:7]))

    messages = corpus_messages("tool-heavy", 3)
    path = tmp_path / "short.jsonl"
    with SessionLog(path) as log:
        monkeypatch.setattr(_log.os, "write", seven_at_a_time)
        log.append(messages)
        monkeypatch.setattr(_log.os, "write", real_write)
        assert log.read() == messages
    data = wire.json.encode_lines(messages)
    assert path.read_bytes() == data
    assert sizes == list(range(len(data), 0, -7))  # each call asks for what is still unwritten


def _cut_inside_a_line(path: Path, whole: bytes) -> bytes:
    """Another process truncates the log 10 bytes into its last line; the bytes left."""
    start = whole.rstrip(b"\n").rfind(b"\n") + 1
    with open(path, "r+b") as f:
        f.truncate(start + 10)
    return whole[: start + 10]


def _half_a_line(path: Path, whole: bytes) -> bytes:
    """Another process writes half a line after the log's last one; the bytes now there."""
    with open(path, "ab") as f:
        f.write(b'{"role":"us')
    return whole + b'{"role":"us'


@pytest.mark.parametrize("change", [_cut_inside_a_line, _half_a_line], ids=["cut", "half"])
def test_a_log_torn_from_outside_refuses_appends_and_repair_cuts_the_torn_line(
    tmp_path: Path, change: Callable[[Path, bytes], bytes]
) -> None:
    """Truncated inside a line or given half a line by another process while open: append
    raises LogChangedError (exact text) and writes nothing, the torn line becomes .tail, read
    reports it, repair() cuts exactly it, and every later append reads back after reopening."""
    messages = corpus_messages("tool-heavy", 6)
    path = tmp_path / "s.jsonl"
    with SessionLog(path) as log:
        log.append(messages[:4])
        whole = path.read_bytes()
        now = change(path, whole)
        start = now.rfind(b"\n") + 1
        torn = TornTail(
            start, now[start:], now.count(b"\n") + 1, "no trailing newline", len(now) - start
        )
        with pytest.raises(LogChangedError) as info:
            log.append(messages[4])
        assert str(info.value) == (
            f"session log {str(path)!r} was changed from outside while open: it ends at byte "
            f"{len(now)}, not at byte {len(whole)} where this log left it, inside line "
            f"{torn.line} (from byte offset {start}); nothing written: repair() cuts the torn "
            "line"
        )
        assert (info.value.offset, info.value.errno) == (start, None)
        assert isinstance(info.value, StreamIOError)
        assert path.read_bytes() == now  # nothing written
        assert log.tail == torn
        with pytest.raises(TornTailError) as read_err:
            log.read()
        assert read_err.value.messages == wire.json.decode_lines(now[:start])
        assert log.repair() == torn
        assert path.read_bytes() == now[:start]
        log.append(messages[4:])
    with SessionLog(path) as log:
        assert log.read() == wire.json.decode_lines(now[:start]) + messages[4:]


@pytest.mark.parametrize("how", ["truncated at a line end", "whole lines added", "emptied"])
def test_a_log_changed_from_outside_that_ends_in_a_newline_is_appended_to(
    tmp_path: Path, how: str
) -> None:
    """A file another process changed but left ending in a newline (or empty) cannot merge a
    line: append writes after what is there, and the log reads back as the file holds it."""
    messages = corpus_messages("tool-heavy", 6)
    path = tmp_path / "s.jsonl"
    with SessionLog(path) as log:
        log.append(messages[:3])
        lines = wire.json.encode_lines(messages[:3])
        if how == "truncated at a line end":
            with open(path, "r+b") as f:
                f.truncate(lines.find(b"\n") + 1)
            before = messages[:1]
        elif how == "whole lines added":
            with open(path, "ab") as f:
                f.write(wire.json.encode_lines(messages[3:4]))
            before = messages[:4]
        else:
            with open(path, "r+b") as f:
                f.truncate(0)
            before = []
        log.append(messages[4])
        log.append(messages[5])
        assert log.tail is None
        assert log.read() == [*before, messages[4], messages[5]]
    assert path.read_bytes() == wire.json.encode_lines([*before, *messages[4:]])


def test_repair_cuts_the_tail_the_file_has_now(tmp_path: Path) -> None:
    """A torn tail found on open, then the file cut shorter from outside (inside an earlier
    line): repair() cuts that line, never extends the file with zeros at the old offset."""
    messages = corpus_messages("tool-heavy", 4)
    whole = wire.json.encode_lines(messages)
    path = tmp_path / "s.jsonl"
    path.write_bytes(whole + b'{"role"')
    with SessionLog(path) as log:
        assert log.tail is not None and log.tail.offset == len(whole)
        second = len(wire.json.encode_lines(messages[:1]))
        with open(path, "r+b") as f:
            f.truncate(second + 5)
        assert log.repair() == TornTail(
            second, whole[second : second + 5], 2, "no trailing newline", 5
        )
        assert path.read_bytes() == whole[:second]
        with open(path, "ab") as f:  # half a line again, after the repaired end
            f.write(b'{"ro')
        with pytest.raises(LogChangedError) as info:
            log.append(messages[1:])
        assert f"it ends at byte {second + 4}, not at byte {second} where" in str(info.value)
        assert log.repair() == TornTail(second, b'{"ro', 2, "no trailing newline", 4)
        log.append(messages[1:])
        assert log.read() == messages


def test_the_log_follows_where_it_left_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where this log left the file (named by LogChangedError) follows each way the log moves
    it: an append, a failed append undone, a repair, and a read that finds the file changed
    from outside."""
    from minagent.wire.stream import _log

    messages = corpus_messages("tool-heavy", 6)
    path = tmp_path / "s.jsonl"

    def changed(log: SessionLog, left: int) -> None:
        with open(path, "ab") as f:
            f.write(b'{"r')
        with pytest.raises(LogChangedError) as info:
            log.append(messages[5])
        assert f"it ends at byte {left + 3}, not at byte {left} where" in str(info.value)
        tail = log.repair()
        assert tail is not None and (tail.offset, tail.data, tail.size) == (left, b'{"r', 3)

    with SessionLog(path) as log:
        log.append(messages[:2])
        first = len(wire.json.encode_lines(messages[:2]))
        real_write = os.write

        def five_bytes_then_eio(fd: int, data: bytes) -> int:
            real_write(fd, bytes(data[:5]))
            raise OSError(errno.EIO, os.strerror(errno.EIO))

        monkeypatch.setattr(_log.os, "write", five_bytes_then_eio)
        with pytest.raises(StreamIOError):
            log.append(messages[2])
        monkeypatch.setattr(_log.os, "write", real_write)
        assert path.stat().st_size == first  # undone
        changed(log, first)
        with open(path, "ab") as f:
            f.write(wire.json.encode_lines(messages[3:4]))
        assert log.read() == [*messages[:2], messages[3]]
        changed(log, first + len(wire.json.encode_lines(messages[3:4])))
        log.append(messages[4])
    with SessionLog(path) as log:
        assert log.read() == [*messages[:2], *messages[3:5]]


def test_whole_lines_left_by_a_failed_undo_are_where_the_log_left_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch append whose first line reached the file before the write failed, and whose undo
    failed too: that whole line stays (read returns it), and the log counts the file as ending
    after it, as LogChangedError says when half a line is then added from outside."""
    from minagent.wire.stream import _log

    messages = corpus_messages("tool-heavy", 4)
    path = tmp_path / "s.jsonl"
    real_write = os.write
    line = wire.json.encode_lines(messages[1:2])

    def one_line_then_eio(fd: int, data: bytes) -> int:
        real_write(fd, bytes(data[: len(line)]))
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    def eio(*args: Any) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    with SessionLog(path) as log:
        log.append(messages[0])
        monkeypatch.setattr(_log.os, "write", one_line_then_eio)
        monkeypatch.setattr(_log.os, "ftruncate", eio)
        with pytest.raises(StreamIOError):
            log.append(messages[1:3])
        monkeypatch.undo()
        end = path.stat().st_size
        assert (log.tail, end) == (None, len(wire.json.encode_lines(messages[:2])))
        with open(path, "ab") as f:
            f.write(b'{"r')
        with pytest.raises(LogChangedError) as info:
            log.append(messages[3])
        assert f"it ends at byte {end + 3}, not at byte {end} where" in str(info.value)
        assert log.repair() is not None
        log.append(messages[3])
        assert log.read() == [messages[0], messages[1], messages[3]]
