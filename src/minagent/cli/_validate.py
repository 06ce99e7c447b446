"""``minagent validate FILE...``: check every record, report every bad one, summary last."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

from .. import wire
from ..wire.errors import WireError
from ._common import (
    EXIT_ERROR,
    EXIT_OK,
    STDIO,
    Subparsers,
    UsageError,
    command,
    open_input,
    plural,
    strict,
)
from ._formats import FORMATS, ReadNotes, format_for

__all__ = ["add_validate"]

_TYPES = {"auto": None, "message": wire.Message, "response": wire.ModelResponse}


def add_validate(sub: Subparsers) -> None:
    """Add the ``validate`` subcommand."""
    p = sub.add_parser(
        "validate",
        help="check every record of one or more files",
        description="Decode every record of each FILE and report every one that is bad (file, "
        "line or frame, JSON path, what was wrong), not only the first; a summary line comes "
        "last. Blank lines of JSON Lines files are skipped and counted. Exit 0 if all are "
        "good, 1 if any is bad.",
    )
    strict(p)
    p.add_argument("files", metavar="FILE", nargs="+", help="files to check ('-': stdin)")
    p.add_argument("--from", dest="source", choices=list(FORMATS), help="format of every FILE")
    p.add_argument("--type", choices=list(_TYPES), default="auto", help="record type")
    p.add_argument(
        "--format",
        dest="report",
        choices=["text", "json"],
        default="text",
        help="report format (json: one document on stdout)",
    )
    p.set_defaults(handler=_validate)


def _problem(err: WireError) -> dict[str, Any]:
    return {
        "line": err.line,
        "frame": err.frame,
        "path": err.path,
        "error": type(err).__name__,
        "message": err.message,
    }


def _where(name: str, err: WireError) -> str:
    parts = [name]
    if err.line is not None:
        parts.append(f"line {err.line}")
    if err.frame is not None:
        parts.append(f"frame {err.frame}")
    if err.path is not None:
        parts.append(err.path)
    return ": ".join(parts)


def _check(name: str, fmt_name: str | None, tp: Any, text: bool) -> dict[str, Any]:
    """Read every record of one file. In text mode each problem is printed as it is found (the
    report streams, in constant memory); otherwise the problems are collected for the document.
    """
    fmt = format_for(name, fmt_name, "input")
    problems: list[dict[str, Any]] = []
    bad = 0

    def report(err: WireError) -> None:
        if text:
            print(f"{_where(name, err)}: {type(err).__name__}: {err.message}")
        else:
            problems.append(_problem(err))

    def on_error(err: WireError) -> None:
        nonlocal bad
        bad += 1
        report(err)

    fatal: WireError | None = None
    good = 0
    notes = ReadNotes()
    with open_input(name) as file:
        try:
            for batch in fmt.read(file, tp, on_error, notes):
                good += len(batch)
        except WireError as err:
            fatal = err
            if text:
                report(err)
    return {
        "file": name,
        "format": fmt.name,
        "records": good + bad,
        "bad": bad,
        "blank_lines": notes.blank_lines,
        "errors": problems,
        "fatal": None if fatal is None else _problem(fatal),
        "ok": not bad and fatal is None,
    }


@command
def _validate(args: argparse.Namespace) -> int:
    tp = _TYPES[args.type]
    for name in args.files:  # usage errors first, before any output
        format_for(name, args.source, "input")
        if name != STDIO and not os.path.isfile(name):
            raise UsageError(f"no such file: {name}")
    text = args.report == "text"
    results = [_check(name, args.source, tp, text) for name in args.files]
    records = sum(r["records"] for r in results)
    bad = sum(r["bad"] for r in results)
    blank = ReadNotes(sum(r["blank_lines"] for r in results))
    broken = [r["file"] for r in results if r["fatal"] is not None]
    ok = all(r["ok"] for r in results)
    if not text:
        doc = {
            "ok": ok,
            "files": results,
            "records": records,
            "bad": bad,
            "blank_lines": blank.blank_lines,
        }
        print(json.dumps(doc, indent=2, ensure_ascii=False))
    else:
        summary = f"{plural(len(results), 'file')}, {plural(records, 'record')}, {bad:,} bad"
        if blank.blank_lines:
            summary += f", {blank.describe()}"
        if broken:
            summary += f", {len(broken)} unreadable to the end ({', '.join(broken)})"
        print(("ok: " if ok else "FAILED: ") + summary)
    return EXIT_OK if ok else EXIT_ERROR
