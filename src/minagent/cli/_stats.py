"""``minagent stats FILE``: what a transcript holds, counted in one streaming pass."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Any

from .. import wire
from ..wire.errors import WireError
from ..wire.stream import encode_frames
from ._common import DIST, EXIT_ERROR, EXIT_OK, Subparsers, command, open_input, plural, strict
from ._formats import FORMATS, ReadNotes, format_for

__all__ = ["Stats", "add_stats"]

_TYPES = {"auto": None, "message": wire.Message, "response": wire.ModelResponse}


def add_stats(sub: Subparsers) -> None:
    """Add the ``stats`` subcommand."""
    p = sub.add_parser(
        "stats",
        help="count messages, blocks, tool calls, bytes and usage in a file",
        description="Messages by role, content blocks by type (unknown types by name), tool "
        "calls by tool name, the size as a JSON transcript and as framed MessagePack, and "
        "usage totals for ModelResponses. Blank lines of a JSON Lines file are skipped and "
        "counted. Streams: constant memory.",
    )
    strict(p)
    p.add_argument("file", metavar="FILE", help="file to read ('-': stdin)")
    p.add_argument("--from", dest="source", choices=list(FORMATS), help="input format")
    p.add_argument("--type", choices=list(_TYPES), default="auto", help="record type")
    p.add_argument(
        "--format",
        dest="report",
        choices=["text", "json"],
        default="text",
        help=f"text: tables (needs rich: pip install '{DIST}[cli]'); json: one document",
    )
    p.set_defaults(handler=_stats)


class Stats:
    """Counters over the records of one file."""

    def __init__(self) -> None:
        self.records = 0
        self.responses = 0
        self.roles: Counter[str] = Counter()
        self.blocks: Counter[str] = Counter()
        self.unknown: Counter[str] = Counter()
        self.tools: Counter[str] = Counter()
        self.stop_reasons: Counter[str] = Counter()
        self.usage: Counter[str] = Counter()
        self.json_bytes: int | None = 2  # "[" and "]"
        self.msgpack_bytes = 0
        self.notes = ReadNotes()

    def add(self, batch: list[Any]) -> None:
        """Count one batch of decoded records."""
        for record in batch:
            message = record
            if isinstance(record, wire.ModelResponse):
                self.responses += 1
                self.stop_reasons[record.stop_reason] += 1
                self.usage.update(record.usage)
                message = record.message
            self.roles[message.role] += 1
            content = message.content
            if isinstance(content, str):
                self.blocks["(string content)"] += 1
                continue
            for block in content:
                kind = block.type
                if isinstance(block, wire.UnknownBlock):
                    self.unknown[kind] += 1
                    name = block.data.get("name")
                else:
                    self.blocks[kind] += 1
                    name = getattr(block, "name", None)
                if kind.endswith("tool_use") and isinstance(name, str):
                    self.tools[name] += 1
        if self.json_bytes is not None and batch:
            try:
                self.json_bytes += len(wire.json.encode(batch)) - 2 + (self.records > 0)
            except WireError:
                self.json_bytes = None  # a record JSON cannot hold (MessagePack-only values)
        self.msgpack_bytes += len(encode_frames(batch)) if batch else 0
        self.records += len(batch)

    def to_json(self) -> dict[str, Any]:
        """The counters as one JSON-ready dict."""
        return {
            "records": self.records,
            "blank_lines": self.notes.blank_lines,
            "model_responses": self.responses,
            "roles": dict(self.roles.most_common()),
            "blocks": dict(self.blocks.most_common()),
            "unknown_blocks": dict(self.unknown.most_common()),
            "tool_calls": dict(self.tools.most_common()),
            "stop_reasons": dict(self.stop_reasons.most_common()),
            "usage": dict(sorted(self.usage.items())),
            "bytes": {"json": self.json_bytes, "msgpack": self.msgpack_bytes},
        }


@command
def _stats(args: argparse.Namespace) -> int:
    fmt = format_for(args.file, args.source, "input")
    if args.report == "text":
        try:
            import rich  # noqa: F401
        except ImportError:
            print(
                f"minagent stats: the tables need rich (pip install '{DIST}[cli]'); "
                "or use --format json",
                file=sys.stderr,
            )
            return EXIT_ERROR
    stats = Stats()

    def stop(err: WireError) -> None:
        raise err

    with open_input(args.file) as file:
        try:
            for batch in fmt.read(file, _TYPES[args.type], stop, stats.notes):
                stats.add(batch)
        except WireError as err:
            print(
                f"minagent stats: {args.file}: {err} (run minagent validate for every error)",
                file=sys.stderr,
            )
            return EXIT_ERROR
    if args.report == "json":
        print(json.dumps({"file": args.file, "format": fmt.name, **stats.to_json()}, indent=2))
    else:
        _print_tables(args.file, fmt.name, stats)
    return EXIT_OK


def _print_tables(name: str, fmt: str, stats: Stats) -> None:
    from rich import box
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False)
    notes = [plural(stats.responses, "ModelResponse")] if stats.responses else []
    notes += [stats.notes.describe()] if stats.notes.blank_lines else []
    what = plural(stats.records, "record") + (f" ({'; '.join(notes)})" if notes else "")
    console.print(f"{name} ({fmt}): {what}", soft_wrap=True)

    def table(header: str, rows: list[tuple[str, str]], value: str = "count") -> None:
        if not rows:
            return
        t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        t.add_column(header)
        t.add_column(value, justify="right")
        for row in rows:
            t.add_row(*row)
        console.print()
        console.print(t)

    def counts(counter: Counter[str], unknown: Counter[str] | None = None) -> list[tuple[str, str]]:
        rows = [(k, f"{n:,}") for k, n in counter.most_common()]
        return rows + [
            (f"{k} (unknown)", f"{n:,}") for k, n in (unknown or Counter()).most_common()
        ]

    table("messages by role", counts(stats.roles))
    table("content blocks by type", counts(stats.blocks, stats.unknown))
    table("tool calls by tool", counts(stats.tools))
    table("stop reasons", counts(stats.stop_reasons))
    table("usage totals", [(k, f"{n:,}") for k, n in sorted(stats.usage.items())], "tokens")
    json_size = "-" if stats.json_bytes is None else f"{stats.json_bytes:,}"
    table(
        "size as",
        [("JSON transcript", json_size), ("framed MessagePack", f"{stats.msgpack_bytes:,}")],
        "bytes",
    )
