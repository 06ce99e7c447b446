"""Import cost: what a fresh process pays before minagent does anything.

Each case runs in a new interpreter, ``repeat`` times (default 10), interleaved (case 1, case 2,
..., then again), and the median is kept:

- ``import`` cases time the import statement itself inside the child (its CPU time,
  ``time.process_time`` around it, so neither the interpreter's start-up nor other processes'
  load on a shared machine is counted);
- ``command`` cases take the child's whole CPU time (user + system, from ``os.wait4``), start-up
  included, since that is what a CLI call or a serverless cold start pays.

`self_times` runs ``python -X importtime`` once and lists the modules with the largest own
(exclusive) import time. Ratios are taken within one run.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path

__all__ = ["COMMANDS", "IMPORTS", "ImportCost", "measure", "self_times", "table"]

IMPORTS = ("msgspec", "minagent.wire", "minagent.wire.json")
"""Modules whose import is timed inside a fresh interpreter."""

COMMANDS: tuple[tuple[str, ...], ...] = (
    ("-c", "pass"),
    ("-m", "minagent.cli", "--version"),
    ("-m", "minagent.cli", "--help"),
    ("-m", "minagent.cli", "schema", "-o", os.devnull),
)
"""Interpreter arguments whose whole CPU time is taken (``-c pass``: start-up alone)."""


@dataclass(frozen=True)
class ImportCost:
    """The median of one case over fresh processes."""

    case: str
    kind: str
    """``"import"`` (the import statement's CPU time) or ``"command"`` (the process's CPU)."""
    seconds: float
    runs: int


def _env() -> dict[str, str]:
    """The child's environment: this process's, with the directory minagent is imported from
    first on PYTHONPATH (so the child times the same code)."""
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
    return env


def _import_seconds(module: str, env: dict[str, str]) -> float:
    code = (
        "import time\nstarted = time.process_time()\n"
        f"import {module}\nprint(time.process_time() - started)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return float(out.stdout)


def _command_seconds(args: Sequence[str], env: dict[str, str]) -> float:
    with open(os.devnull, "wb") as sink:
        proc = subprocess.Popen([sys.executable, *args], env=env, stdout=sink, stderr=sink)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} exited with {proc.returncode}")
    return usage.ru_utime + usage.ru_stime


def measure(
    repeat: int = 10,
    imports: Sequence[str] = IMPORTS,
    commands: Sequence[Sequence[str]] = COMMANDS,
    progress: Callable[[str], None] = lambda _: None,
) -> list[ImportCost]:
    """Time every case in ``repeat`` fresh processes each, interleaved; medians."""
    env = _env()
    cases: list[tuple[str, str, Callable[[], float]]] = [
        (f"import {m}", "import", partial(_import_seconds, m, env)) for m in imports
    ]
    cases += [
        (f"python {' '.join(a)}", "command", partial(_command_seconds, a, env)) for a in commands
    ]
    samples: list[list[float]] = [[] for _ in cases]
    for r in range(repeat):
        progress(f"imports: round {r + 1} of {repeat}")
        for k, (_, _, run) in enumerate(cases):
            samples[k].append(run())
    return [
        ImportCost(name, kind, statistics.median(s), len(s))
        for (name, kind, _), s in zip(cases, samples, strict=True)
    ]


def self_times(module: str = "minagent.wire", top: int = 8) -> list[tuple[str, float]]:
    """The ``top`` modules with the largest own import time (seconds) when a fresh interpreter
    imports ``module`` (``python -X importtime``, one run)."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    rows: list[tuple[str, float]] = []
    for line in out.stderr.splitlines():
        parts = line.split("|")
        if len(parts) != 3 or not parts[0].startswith("import time:"):
            continue
        try:
            own = int(parts[0].removeprefix("import time:").strip())
        except ValueError:  # the header line
            continue
        rows.append((parts[2].strip(), own / 1e6))
    return sorted(rows, key=lambda row: -row[1])[:top]


def table(costs: list[ImportCost], own: list[tuple[str, float]] | None = None) -> str:
    """The costs as text, with ``import minagent.wire`` over ``import msgspec`` when both ran."""
    by = {c.case: c for c in costs}
    runs = max((c.runs for c in costs), default=0)
    out = [f"Import cost (fresh processes, median of {runs}, interleaved):"]
    width = max((len(c.case) for c in costs), default=0)
    for c in costs:
        what = "CPU of the import" if c.kind == "import" else "process CPU, start-up included"
        out.append(f"  {c.case:<{width}}  {c.seconds * 1e3:7.1f} ms  ({what})")
    base, wire = by.get("import msgspec"), by.get("import minagent.wire")
    if base is not None and wire is not None and base.seconds > 0:
        out.append(f"  import minagent.wire / import msgspec: {wire.seconds / base.seconds:.2f}x")
    if own:
        out.append("Largest own import times of `import minagent.wire` (-X importtime, one run):")
        out += [f"  {name:<40} {seconds * 1e3:6.1f} ms" for name, seconds in own]
    return "\n".join(out)
