"""``minagent convert IN OUT``: between JSON transcripts, JSON Lines, framed MessagePack (and
provider bodies, see `minagent.cli._formats.PROVIDER_ADAPTERS`), streaming in constant memory."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

from .. import wire
from ..providers import Request
from ..wire.errors import WireError
from ._common import (
    DIST,
    EXIT_ERROR,
    EXIT_OK,
    STDIO,
    Output,
    Subparsers,
    UsageError,
    command,
    open_input,
    open_output,
    plural,
    strict,
)
from ._formats import FORMATS, Format, ReadNotes, WriteOptions, format_for

__all__ = ["add_convert", "progress_reader"]

_TYPES = {"auto": None, "message": wire.Message, "response": wire.ModelResponse}


def add_convert(sub: Subparsers) -> None:
    """Add the ``convert`` subcommand."""
    width = max(len(name) for name in FORMATS)
    formats = "\n".join(
        f"  {f.name:<{width}}  {', '.join(f.extensions) or '--from/--to':<16} {f.summary}"
        for f in FORMATS.values()
    )
    p = sub.add_parser(
        "convert",
        help="convert between JSON, JSON Lines, framed MessagePack and provider bodies "
        "(Anthropic, OpenAI Chat and Responses, Gemini)",
        description="Convert a file of messages between formats, streaming in constant memory.\n"
        "Formats come from the file extensions or from --from / --to; '-' is stdin / stdout.\n"
        "Nothing is dropped: a record the target cannot hold stops the conversion (exit 1)\n"
        "and OUT is left as it was. Blank lines of a JSON Lines input are skipped and counted.\n"
        "\n"
        "OUT is never damaged: a file is written beside it and renamed into place at the end\n"
        "(an existing file keeps its mode, a new one gets 0666 less the umask; a symlink is\n"
        "written through to its target); FIFOs, devices, /dev/stdout and '-' are written\n"
        "directly. IN and OUT may be the same file. JSON on stdout ends with a newline.",
        epilog=f"formats:\n{formats}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    strict(p)
    p.add_argument("input", metavar="IN", help="input file ('-': stdin)")
    p.add_argument("output", metavar="OUT", help="output file ('-': stdout)")
    p.add_argument("--from", dest="source", choices=list(FORMATS), help="input format")
    p.add_argument("--to", dest="target", choices=list(FORMATS), help="output format")
    p.add_argument(
        "--type",
        choices=list(_TYPES),
        default="auto",
        help="record type (default: auto, from the first record: an object with 'message' "
        "and no 'role' is a ModelResponse)",
    )
    p.add_argument(
        "--canonical",
        action="store_true",
        help="sort keys at every level (byte-identical output for equal input)",
    )
    p.add_argument(
        "--messages-only",
        action="store_true",
        help="from a provider request to a transcript: write the messages and drop the other "
        "options (model, tools, ...), which a transcript cannot hold",
    )
    p.add_argument(
        "--drop-unsupported",
        action="store_true",
        help="to a provider format: drop what it cannot hold, listing each drop on stderr "
        "(default: stop with exit 1, naming it)",
    )
    p.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (there is none anyway unless stderr is a terminal and OUT a file)",
    )
    p.set_defaults(handler=_convert)


class _Counting:
    """A binary reader that reports how many bytes have been read."""

    def __init__(self, file: BinaryIO, advance: Any) -> None:
        self._file, self._advance = file, advance

    def read(self, n: int = -1) -> bytes:
        data = self._file.read(n)
        self._advance(len(data))
        return data


@contextlib.contextmanager
def progress_reader(file: BinaryIO, name: str, show: bool) -> Iterator[BinaryIO]:
    """``file``, wrapped so that a progress bar (rich) on stderr follows the bytes read, when
    ``show``; else ``file`` itself."""
    if not show:
        yield file
        return
    try:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )
    except ImportError:
        print(
            f"minagent convert: no progress bar without rich (pip install '{DIST}[cli]')",
            file=sys.stderr,
        )
        yield file
        return
    try:
        total: int | None = os.fstat(file.fileno()).st_size or None
    except (OSError, ValueError, AttributeError):
        total = None
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=Console(stderr=True)) as bar:
        task = bar.add_task(os.path.basename(name), total=total)
        yield _Counting(file, lambda n: bar.advance(task, n))  # type: ignore[misc]


@command
def _convert(args: argparse.Namespace) -> int:
    source = format_for(args.input, args.source, "input")
    target = format_for(args.output, args.target, "output")
    output = Output(args.output)
    if output.same_file(args.input) and (output.fd is not None or output.direct):
        raise UsageError(
            f"{args.input} is also OUT, and OUT ({args.output}) is written in place: "
            "convert to another file"
        )
    tp = _TYPES[args.type]
    if args.canonical and not target.streams:
        raise UsageError(
            f"--canonical applies to json, jsonl and msgpack outputs, not {target.name}"
        )
    if args.drop_unsupported and target.streams:
        raise UsageError("--drop-unsupported applies to provider outputs only")
    options = WriteOptions(args.canonical, "drop" if args.drop_unsupported else "error")
    show = (
        not args.no_progress
        and args.output != STDIO
        and args.input != STDIO
        and sys.stderr.isatty()
    )
    errors: list[WireError] = []

    def stop(err: WireError) -> None:
        raise err

    def note(text: str) -> None:
        print(f"minagent convert: {text}", file=sys.stderr)

    notes = ReadNotes()
    newline = output.fd is not None and (target.name == "json" or not target.streams)
    count = 0
    try:
        with (
            open_input(args.input) as raw,
            progress_reader(raw, args.input, show) as file,
            open_output(output, report=note) as out,
        ):
            writer = target.writer(out, options)
            for batch in source.read(file, tp, stop, notes):
                batch = _messages_only(batch, target, args.messages_only)
                writer.write(batch, count)
                count += len(batch)
            writer.close()
            if newline:
                out.write(b"\n")
    except WireError as err:
        errors.append(err)
    for item in options.dropped:
        note(f"dropped {item.what} (at {item.path})")
    if errors:
        note(f"{args.input}: {errors[0]}")
        return EXIT_ERROR
    records = plural(count, "record")
    if notes.blank_lines:
        records += f" ({notes.describe()})"
    note(f"{records}, {source.name} -> {target.name}")
    return EXIT_OK


def _messages_only(batch: list[Any], target: Format, messages_only: bool) -> list[Any]:
    """Unwrap provider `Request` records for a transcript target (refused unless asked)."""
    if not batch or not isinstance(batch[0], Request) or not target.streams:
        return batch
    out: list[Any] = []
    for request in batch:
        if request.keys() and not messages_only:
            keys = ", ".join(sorted(request.keys()))
            raise UsageError(
                f"a {target.name} file holds messages only; the request's other keys ({keys}) "
                "would be lost: pass --messages-only to drop them, or convert to a request format"
            )
        out += request.messages
    return out
