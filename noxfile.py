"""Developer sessions: ``nox`` runs the tests; ``nox -s lint typing`` checks style and types.

Extras are read from ``pyproject.toml`` so the dependency lists live in one place.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nox
import tomllib

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True

ROOT = Path(__file__).parent
EXTRAS: dict[str, list[str]] = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
    "optional-dependencies"
]


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
    then check the golden vectors from JavaScript (Node.js: ``npm ci`` from the committed lock).

    The Redis Streams tests start a real ``redis-server``: installed with apt-get when missing.
    """
    _ensure_redis_server(session)
    session.install("-e", ".[test,bench,plot,cli]")
    session.run("pytest", "--benchmark-disable", "-q", *session.posargs)
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
