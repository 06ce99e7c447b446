"""The command line's streaming readers (`minagent.cli._formats`): any chunking gives the same
records, and a broken JSON transcript is reported where it breaks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minagent import cli, wire
from minagent.cli._formats import FORMATS, ArraySplitter, ReadNotes
from minagent.wire.errors import WireError
from tests.budget import scaled

# Text with the characters a bracket scanner could trip on: quotes, backslashes, brackets.
tricky = st.text(st.sampled_from('"\\[]{},: aé😀\n\t\x00/'), max_size=12)
blocks = st.one_of(
    st.builds(wire.TextBlock, text=tricky),
    st.builds(
        wire.ToolUseBlock,
        id=tricky,
        name=tricky,
        input=st.dictionaries(tricky, st.lists(tricky, max_size=3) | tricky, max_size=3),
    ),
)
transcripts = st.lists(
    st.builds(
        wire.Message,
        role=st.sampled_from(["user", "assistant"]),
        content=tricky | st.lists(blocks, max_size=3),
    ),
    max_size=6,
)


class Trickle:
    """A binary reader that hands out at most ``sizes[i]`` bytes per call, like a slow pipe."""

    def __init__(self, data: bytes, sizes: list[int]) -> None:
        self._data, self._sizes, self._pos, self._call = data, sizes, 0, 0

    def read(self, n: int = -1) -> bytes:
        size = self._sizes[self._call % len(self._sizes)]
        self._call += 1
        chunk = self._data[self._pos : self._pos + min(n, size)]
        self._pos += len(chunk)
        return chunk


def _read(fmt: str, data: bytes, sizes: list[int], blank: int = 0) -> list[Any]:
    errors: list[WireError] = []
    out: list[Any] = []
    notes = ReadNotes()
    for batch in FORMATS[fmt].read(Trickle(data, sizes), None, errors.append, notes):  # type: ignore[arg-type]
        out += batch
    assert errors == []
    assert notes.blank_lines == blank
    return out


@settings(max_examples=scaled(150), deadline=None)
@given(transcripts, st.lists(st.integers(1, 40), min_size=1, max_size=8), st.booleans())
def test_the_array_splitter_finds_each_element_whatever_the_chunks(
    conv: list[wire.Message], sizes: list[int], spaced: bool
) -> None:
    """Elements come out whole, with their starting line, for any chunking and white space."""
    parts = [wire.json.encode(m) for m in conv]
    sep = b" ,\n  " if spaced else b","
    data, starts = b"\n[\n" if spaced else b"[", []
    for k, part in enumerate(parts):
        data += sep if k else b""
        starts.append(len(data))
        data += part
    data += b"\n]\n" if spaced else b"]"
    splitter = ArraySplitter()
    found: list[tuple[int, bytes]] = []
    pos, i = 0, 0
    while pos < len(data):
        step = sizes[i % len(sizes)]
        found += splitter.feed(data[pos : pos + step])
        pos, i = pos + step, i + 1
    splitter.finish()
    assert [raw for _, raw in found] == parts
    assert [line for line, _ in found] == [data.count(b"\n", 0, s) + 1 for s in starts]


@settings(max_examples=scaled(60), deadline=None)
@given(transcripts, st.lists(st.integers(1, 40), min_size=1, max_size=8))
def test_every_format_reads_the_same_records_whatever_the_chunks(
    conv: list[wire.Message], sizes: list[int]
) -> None:
    """JSON, JSON Lines and framed MessagePack readers give the transcript back, any chunking."""
    assert _read("json", wire.json.encode(conv), sizes) == conv
    assert _read("jsonl", wire.json.encode_lines(conv), sizes) == conv
    from minagent.wire.stream import encode_frames

    assert _read("msgpack", encode_frames(conv), sizes) == conv


@settings(max_examples=scaled(80), deadline=None)
@given(
    transcripts,
    st.lists(st.sampled_from([b"", b" ", b"\t\r", b"  \t"]), max_size=12),
    st.lists(st.integers(0, 12), max_size=12),
    st.sampled_from([b"", b"  ", b"\r"]),
    st.booleans(),
    st.lists(st.integers(1, 40), min_size=1, max_size=8),
)
def test_jsonl_blank_lines_are_counted_exactly_whatever_the_chunks(
    conv: list[wire.Message],
    blanks: list[bytes],
    where: list[int],
    tail: bytes,
    bad: bool,
    sizes: list[int],
) -> None:
    """Blank (empty or white-space) lines between the records, before the first, after the
    last and after the last newline are skipped and counted one each, for any chunking; also
    when a bad record sends the batch down the record-by-record path."""
    lines = [wire.json.encode(m) for m in conv] + ([b'{"role":"robot"}'] if bad else [])
    for blank, at in zip(blanks, where, strict=False):
        lines.insert(min(at, len(lines)), blank)
    data = b"".join(line + b"\n" for line in lines) + tail
    errors: list[WireError] = []
    notes = ReadNotes()
    out: list[Any] = []
    for batch in FORMATS["jsonl"].read(Trickle(data, sizes), None, errors.append, notes):  # type: ignore[arg-type]
        out += batch
    assert out == conv
    assert [e.line for e in errors] == ([lines.index(b'{"role":"robot"}') + 1] if bad else [])
    assert notes.blank_lines == len(blanks[: len(where)]) + (tail != b"")


BROKEN = {
    "not an array": (
        b'\n{"role":"user"}',
        "line 2: DecodeError: a JSON transcript is an array; it must start with '['",
    ),
    "scalar element": (
        b'[{"role":"user"},\n 3, {"role":"user"}]',
        "line 1: DecodeError: invalid JSON transcript: expected an object as element 1 of the "
        "array",
    ),
    "string element": (
        b'[{"role":"user"}, "x"]',
        "line 1: DecodeError: invalid JSON transcript: expected ] or an object as element 1 of "
        "the array",
    ),
    "missing comma": (
        b'[{"role":"user"}\n{"role":"user"}]',
        "line 1: DecodeError: invalid JSON transcript: expected an object as element 1 of the "
        "array",
    ),
    "trailing comma": (
        b'[{"role":"user"},\n]',
        "line 1: DecodeError: invalid JSON transcript: expected ] or an object as element 1 of "
        "the array",
    ),
    "data after the array": (
        b'[{"role":"user"}]\n[]',
        "line 2: DecodeError: data after the end of the JSON transcript",
    ),
    "cut short": (
        b'[{"role":"user"},\n{"role":"us',
        "line 2: TruncatedError: input ended inside the JSON transcript (after 1 element)",
    ),
    "empty": (b"  \n", "line 1: TruncatedError: empty input: a JSON transcript is an array"),
    "brace closes the array": (
        b'[{"role":"user"}}',
        "line 1: DecodeError: invalid JSON transcript: '}' closes '['",
    ),
    "mismatched brackets": (
        b'[{"role":"user"},\n{"a":[1}, {"role":"user"}]',
        "line 2: DecodeError: invalid JSON transcript: '}' closes '['",
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_a_broken_transcript_is_reported_where_it_breaks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str
) -> None:
    """validate names what is wrong with the array itself (exit 1), after the good records."""
    data, message = BROKEN[case]
    path = tmp_path / "t.json"
    path.write_bytes(data)
    assert cli.main(["validate", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert out[0] == f"{path}: {message}"
    assert out[1].startswith("FAILED: 1 file, ")
    assert out[1].endswith(f"0 bad, 1 unreadable to the end ({path})")


def test_an_empty_array_is_a_valid_empty_transcript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`[]` holds no records and is valid."""
    path = tmp_path / "t.json"
    path.write_bytes(b" [ ] \n")
    assert cli.main(["validate", str(path)]) == 0
    assert capsys.readouterr().out == "ok: 1 file, 0 records, 0 bad\n"


def test_validate_json_report_keeps_a_cut_file_apart_from_bad_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--format json: bad records under "errors", the error that stopped reading under "fatal"."""
    path = tmp_path / "t.json"
    path.write_bytes(b'[{"role":"x"},\n{"role":"user"}')
    assert cli.main(["validate", "--format", "json", str(path)]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["files"][0]["errors"] == [
        {
            "line": 1,
            "frame": None,
            "path": "$[0].role",
            "error": "ValidationError",
            "message": "Invalid enum value 'x'",
        }
    ]
    assert doc["files"][0]["fatal"] == {
        "line": 2,
        "frame": None,
        "path": None,
        "error": "TruncatedError",
        "message": "input ended inside the JSON transcript (after 2 elements)",
    }
    assert (doc["ok"], doc["records"], doc["bad"]) == (False, 2, 1)
