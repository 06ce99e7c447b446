"""Developer sessions: ``nox`` runs the tests; ``nox -s lint typing`` checks style and types.

Extras are read from ``pyproject.toml`` so the dependency lists live in one place.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import nox
import tomllib

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True

ROOT = Path(__file__).parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
EXTRAS: dict[str, list[str]] = PROJECT["optional-dependencies"]


WRITE_BYTECODE = {"PYTHONDONTWRITEBYTECODE": ""}
"""Environment for pytest: compiled modules (pytest's rewritten test modules among them) are
cached in ``__pycache__`` (ignored by git) even where the shell sets PYTHONDONTWRITEBYTECODE;
rewriting and compiling the tests again costs each worker about 3 s of every run."""


def _lowest(requirements: list[str]) -> list[str]:
    """``name>=x`` -> ``name==x``: the lowest version each requirement allows."""
    return [re.sub(r">=", "==", r, count=1) for r in requirements if ">=" in r]


def _ensure_redis_server(session: nox.Session) -> None:
    """Install Debian's redis-server when it is missing; fail loudly if that does not work."""
    if shutil.which("redis-server"):
        return
    sudo = ["sudo"] if os.geteuid() != 0 and shutil.which("sudo") else []
    session.run(*sudo, "apt-get", "update", external=True)
    session.run(*sudo, "apt-get", "install", "-y", "redis-server", external=True)
    if not shutil.which("redis-server"):
        session.error("redis-server is still missing after apt-get install -y redis-server")


@nox.session
def tests(session: nox.Session) -> None:
    """Run the whole test suite (benchmarks once each, untimed) against an installed package,
    one pytest-xdist worker per core, then check the golden vectors from JavaScript (Node.js:
    ``npm ci`` from the committed lock).

    The Redis Streams tests start a real ``redis-server``: installed with apt-get when missing.
    """
    _ensure_redis_server(session)
    session.install("-e", ".[test,bench,plot,cli]")
    session.run(
        "pytest", "--benchmark-disable", "-q", "-n", "auto", *session.posargs, env=WRITE_BYTECODE
    )
    node_vectors(session)


def node_vectors(session: nox.Session) -> None:
    """tests/node/check_vectors.mjs over tests/vectors/; fails loudly if node or npm is missing."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            session.error(
                f"{tool} not found: the golden vectors are checked with Node.js 20+ and npm "
                "(install them, e.g. apt-get install nodejs npm)"
            )
    folder = str(ROOT / "tests" / "node")
    session.run("npm", "ci", "--no-audit", "--no-fund", "--prefix", folder, external=True)
    session.run("node", str(ROOT / "tests" / "node" / "check_vectors.mjs"), external=True)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff check and ruff format --check over the whole tree."""
    session.install(*[d for d in EXTRAS["lint"] if d.startswith("ruff")])
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typing(session: nox.Session) -> None:
    """mypy --strict over src/ (with the optional benchmark peers, whose types bench/ uses)."""
    session.install(
        "-e",
        ".[bench,plot,peers,redis,cli]",
        *[d for d in EXTRAS["lint"] if d.startswith("mypy")],
    )
    session.run("mypy", "--strict", "src")


@nox.session(default=False)
def bench(session: nox.Session) -> None:
    """Time the pytest-benchmark suite and save the JSON under .benchmarks/."""
    session.install("-e", ".[test,bench,plot]")
    session.run(
        "pytest",
        "bench",
        "--benchmark-only",
        "--benchmark-autosave",
        "--benchmark-group-by=group",
        *session.posargs,
    )


@nox.session(default=False)
def properties(session: nox.Session) -> None:
    """The property tests alone (``-m property``), with 300 hypothesis examples each unless
    MINAGENT_EXAMPLES says otherwise: the deep search the quick default run (25) leaves out.
    Part of the README's test command, so CI runs it on every submission."""
    _ensure_redis_server(session)
    session.install("-e", ".[test,bench,plot,cli]")
    examples = {"MINAGENT_EXAMPLES": os.environ.get("MINAGENT_EXAMPLES", "300"), **WRITE_BYTECODE}
    session.run(
        "pytest", "-m", "property", "--benchmark-disable", "-q", "-n", "auto",
        "-p", "no:cacheprovider", *session.posargs, env=examples,
    )  # fmt: skip


@nox.session(default=False)
def lowest(session: nox.Session) -> None:
    """The suite against the lowest versions pyproject.toml allows: the dependencies and the test
    and cli extras pinned to their lower bounds (pip's equivalent of uv's ``--resolution
    lowest-direct``), with 10 hypothesis examples per property (this session checks the versions;
    searching for inputs is the job of `properties`). The bench and plot extras resolve freely:
    the suite runs their code once (untimed), and matplotlib's lowest release predates the numpy
    it would be installed with."""
    _ensure_redis_server(session)
    pins = _lowest(PROJECT["dependencies"] + EXTRAS["test"] + EXTRAS["cli"])
    session.install(*pins, "-e", ".[test,bench,plot,cli]")
    session.run("pip", "list", "--format=freeze")
    examples = {"MINAGENT_EXAMPLES": os.environ.get("MINAGENT_EXAMPLES", "10"), **WRITE_BYTECODE}
    session.run(
        "pytest", "--benchmark-disable", "-q", "-n", "auto", "-p", "no:cacheprovider",
        *session.posargs, env=examples,
    )  # fmt: skip


@nox.session(default=False)
def mutation(session: nox.Session) -> None:
    """Mutation testing of the wire core with mutmut (modules and tests: [tool.mutmut] in
    pyproject.toml). ``nox -s mutation -- 'minagent.wire._fallback*'`` mutates one module;
    then ``mutmut results`` / ``mutmut show NAME`` inside .nox's venv list the survivors.
    Hypothesis runs 10 examples per property unless MINAGENT_EXAMPLES says otherwise."""
    session.install("-e", ".[test,bench]", "mutmut>=3.8,<4")
    examples = {"MINAGENT_EXAMPLES": os.environ.get("MINAGENT_EXAMPLES", "10")}
    session.run("mutmut", "run", "--max-children", "2", *session.posargs, env=examples)
    session.run("mutmut", "export-cicd-stats")


@nox.session(default=False)
def docs(session: nox.Session) -> None:
    """Build the documentation site (mkdocs.yml: mkdocs-material, the API reference from the
    docstrings by mkdocstrings) into build/site/ in strict mode: a broken link, anchor or
    reference, or a public name missing from the API reference, fails the build. Part of the
    README's test command."""
    session.install(*EXTRAS["docs"])
    session.run(
        "mkdocs", "build", "--strict", "--clean", *session.posargs,
        env={"NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
