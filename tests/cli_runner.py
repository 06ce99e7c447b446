"""Run the ``minagent`` command inside the test process, with its own stdin, stdout and stderr.

A subprocess per test cost most of the CLI tests' time (interpreter start and imports). The
tests that are about the process itself (the entry point, a terminal, memory, missing optional
libraries, the bench's collector settings) still spawn one.
"""

from __future__ import annotations

import io
import subprocess
import sys

from minagent import cli


def run_cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """``minagent ARGS`` in-process: exit code and the bytes written to stdout and stderr."""
    out, err = io.BytesIO(), io.BytesIO()
    streams = (
        io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8"),
        io.TextIOWrapper(out, encoding="utf-8", write_through=True),
        io.TextIOWrapper(err, encoding="utf-8", write_through=True),
    )
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = streams
    try:
        try:
            code = cli.main(list(args))
        except SystemExit as exit_:  # argparse: --help, --version, bad usage
            code = exit_.code if isinstance(exit_.code, int) else int(exit_.code is not None)
        for stream in streams[1:]:
            stream.flush()
        stdout, stderr = out.getvalue(), err.getvalue()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return subprocess.CompletedProcess(["minagent", *args], code, stdout, stderr)


def run_cli_text(*args: str) -> subprocess.CompletedProcess[str]:
    """`run_cli` with stdout and stderr decoded as UTF-8."""
    proc = run_cli(*args)
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode()
    )
