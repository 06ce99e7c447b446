"""``minagent bench``: time minagent against the reference and the peers on a built-in corpus.

Examples: ``minagent bench`` (every family, 300 messages, JSON and MessagePack; then the import
cost, fresh processes, median of 10); ``minagent bench --size all --plot throughput.png --json
bench.json``; ``minagent bench --imports`` (the import cost alone); ``minagent bench --family
gateway`` (OpenAI Chat <-> Anthropic translation beside LiteLLM: timings and acceptance).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ._common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, Subparsers, command, strict

__all__ = ["add_bench"]


def _sizes(text: str) -> list[int]:
    from ..bench.corpus import SIZES

    if text == "all":
        return list(SIZES)
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected 'all' or integers like 300,15000: {text!r}"
        ) from None
    if any(n < 1 or n > 100_000 for n in sizes):
        raise argparse.ArgumentTypeError("sizes must be between 1 and 100000 messages")
    return sizes


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer: {text!r}")
    return value


def add_bench(sub: Subparsers) -> None:
    """Add the ``bench`` subcommand."""
    from ..bench.corpus import FAMILIES

    p = sub.add_parser(
        "bench",
        help="time minagent against the reference and peers on a built-in corpus",
        description="Check every installed implementation against the reference on a seeded "
        "corpus, then time them side by side (interleaved repetitions, medians) and print "
        "time per transcript, MB/s, messages/s and speed-up against the reference.",
    )
    p.add_argument(
        "--family",
        action="append",
        choices=[*FAMILIES, "providers", "gateway"],
        help="corpus family (repeatable; default: "
        + ", ".join(FAMILIES)
        + "); 'providers', not in the default, times the provider adapters; 'gateway' alone "
        "times and checks OpenAI Chat <-> Anthropic translation beside LiteLLM (the default "
        "run ends with it)",
    )
    p.add_argument(
        "--size",
        type=_sizes,
        default=[300],
        metavar="N[,N...]|all",
        help="messages per transcript (default: 300; 'all' = 5,300,15000)",
    )
    p.add_argument(
        "--format",
        choices=["json", "msgpack", "both"],
        default="both",
        help="wire format (default: both)",
    )
    p.add_argument(
        "--repeat", type=_positive, default=7, help="interleaved repetitions per case (default: 7)"
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="3 repetitions, no memory or collector measurement (a smoke test)",
    )
    p.add_argument(
        "--no-gc",
        action="store_true",
        help="skip the collector measurement at 15,000 tool-heavy messages",
    )
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the results as JSON")
    p.add_argument("--lazy", action="store_true", help="time lazy against eager decoding instead")
    p.add_argument(
        "--imports",
        action="store_true",
        help="time only the import cost (fresh processes; a full run prints it last too)",
    )
    p.add_argument(
        "--plot",
        type=Path,
        metavar="FILE.png",
        help="also draw a chart (needs matplotlib: pip install 'minagent-wire[plot]')",
    )
    strict(p)
    p.set_defaults(handler=_bench)


@command
def _bench(args: argparse.Namespace) -> int:
    from ..bench import imports, report, runner
    from ..bench.corpus import FAMILIES
    from ..bench.lazy import report as lazy_table

    if args.family and "providers" in args.family:
        from ..bench.providers import command

        return command(args)
    if args.family and "gateway" in args.family:
        from ..bench.gateway import command as gateway_command

        return gateway_command(args)
    if args.plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print(
                "minagent bench: --plot needs matplotlib (pip install 'minagent-wire[plot]')",
                file=sys.stderr,
            )
            return EXIT_ERROR
    for path in (args.json, args.plot):
        if path is not None and not path.parent.is_dir():
            print(f"minagent bench: no such directory: {path.parent}", file=sys.stderr)
            return EXIT_USAGE
    families = args.family or list(FAMILIES)
    formats = ("json", "msgpack") if args.format == "both" else (args.format,)
    repeat = 3 if args.quick else args.repeat
    started = time.perf_counter()
    tty = sys.stderr.isatty()

    def progress(text: str) -> None:
        line = f"[{time.perf_counter() - started:5.1f}s] {text}"
        print(
            f"\r{line:<72}" if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True
        )

    if args.lazy:  # minagent.bench.lazy: eager / lazy ratios, memory at 15,000 unless --quick
        print(lazy_table(families, args.size, formats, repeat, memory=not args.quick))
        return EXIT_OK
    import_rounds = 3 if args.quick else 10
    if args.imports:
        print(
            imports.table(imports.measure(import_rounds, progress=progress), imports.self_times())
        )
        return EXIT_OK
    result = runner.run(
        families,
        args.size,
        formats,
        repeat=repeat,
        memory=not args.quick,
        gc_size=None if args.quick or args.no_gc else 15_000,
        progress=progress,
    )
    if tty:
        print(file=sys.stderr)
    print(report.table(result))
    print(report.summary(result))
    costs = imports.measure(import_rounds, progress=progress)
    if tty:
        print(file=sys.stderr)
    print()
    print(imports.table(costs, imports.self_times()))
    if not args.family:  # the default run ends with the gateway family (LiteLLM if installed)
        from ..bench import gateway

        text = gateway.section(repeat, progress)
        if tty:
            print(file=sys.stderr)
        print()
        print(text)
    settings = {
        "families": families,
        "sizes": args.size,
        "formats": list(formats),
        "repeat": repeat,
        "seconds": round(time.perf_counter() - started, 1),
    }
    if args.json is not None:
        report.write_json(result, settings, args.json, costs)
    if args.plot is not None:
        report.plot(result, args.plot)
    return EXIT_OK
