"""Run mutmut's mutants in children forked from one warm pytest process.

mutmut 3 forks a child per mutant, but on a shared two-core machine each child still spends
5-12 s starting pytest and importing the suite. This runner collects the tests once, freezes the
warm heap, and for every mutant forks a child that runs only the tests mutmut's stats run mapped
to the mutated function (fastest first, stopping at the first failure), after the tests of the
files given with ``--first``.

Usage, inside ``mutants/`` after ``mutmut run`` has written ``mutmut-stats.json`` (a first
``mutmut run`` that is stopped once it starts testing mutants is enough)::

    mutmut results --all true | awk '{print $1}' | tr -d : | grep anthropic > names.txt
    PYTHONPATH=src python ../tools/mutation_fork.py out.txt 60 names.txt \\
        --first tests/test_providers_mutation_adapters.py -- -p no:cacheprovider -q TESTS...

``out.txt`` gets one line per mutant: ``<code> <name> <seconds>``, where code 1 is caught (a
test failed), 0 survived, 124 timed out (killed after TIMEOUT seconds of wall clock; run it
again by hand before counting it) and 33 means no test reaches the function. Lines are
appended, so a stopped run is resumed by removing the names already in ``out.txt``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import signal
import sys
import time

import pytest
from _pytest.runner import runtestprotocol

NO_TESTS = 33
TIMED_OUT = 124


def _parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """The runner's own arguments, and pytest's after ``--``."""
    if "--" not in argv:
        raise SystemExit(
            "usage: mutation_fork.py OUT TIMEOUT NAMES [--first FILE]... -- PYTEST_ARGS"
        )
    cut = argv.index("--")
    parser = argparse.ArgumentParser(prog="mutation_fork.py")
    parser.add_argument("out", help="file the results are appended to")
    parser.add_argument("timeout", type=float, help="wall-clock seconds per mutant")
    parser.add_argument("names", help="file with one mutant name per line")
    parser.add_argument(
        "--first", action="append", default=[], help="test file whose items run for every mutant"
    )
    return parser.parse_args(argv[:cut]), argv[cut + 1 :]


def _wait(pid: int, timeout: float, start: float) -> int:
    """The child's exit code, or TIMED_OUT after killing it."""
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.time() - start > timeout:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return TIMED_OUT
        time.sleep(0.005)


def _run_items(name: str, items: list[pytest.Item]) -> None:
    """In the child: switch the mutant on, run the items, exit 1 at the first failure."""
    os.environ["MUTANT_UNDER_TEST"] = name
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    for item in items:
        try:
            reports = runtestprotocol(item, log=False, nextitem=None)
        except BaseException:
            os._exit(1)
        if any(report.failed for report in reports):
            os._exit(1)
    os._exit(0)


class Runner:
    """A pytest plugin that replaces the test loop with one forked child per mutant."""

    def __init__(self, args: argparse.Namespace) -> None:
        with open("mutmut-stats.json") as f:
            stats = json.load(f)
        self.by_function: dict[str, list[str]] = stats["tests_by_mangled_function_name"]
        self.duration: dict[str, float] = stats["duration_by_test"]
        self.args = args

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session: pytest.Session) -> bool:
        items = {item.nodeid: item for item in session.items}
        first = [i for n, i in items.items() if any(n.startswith(f) for f in self.args.first)]
        with open(self.args.names) as f:
            names = [n.strip() for n in f if n.strip()]
        gc.collect()
        gc.freeze()  # children share the warm heap; the collector copies none of it
        with open(self.args.out, "a") as out:
            for name in names:
                function = name.partition("__mutmut_")[0]
                mapped = sorted(
                    (n for n in self.by_function.get(function, ()) if n in items),
                    key=lambda n: self.duration.get(n, 1.0),
                )
                chosen = first + [items[n] for n in mapped if items[n] not in first]
                start = time.time()
                if not chosen:
                    code = NO_TESTS
                else:
                    pid = os.fork()
                    if pid == 0:
                        _run_items(name, chosen)
                    code = _wait(pid, self.args.timeout, start)
                out.write(f"{code} {name} {time.time() - start:.1f}\n")
                out.flush()
        return True


def main() -> int:
    args, pytest_args = _parse(sys.argv[1:])
    return int(pytest.main(pytest_args, plugins=[Runner(args)]))


if __name__ == "__main__":
    sys.exit(main())
