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
    """Run the whole test suite (benchmarks once each, untimed) against an installed package.

    The Redis Streams tests start a real ``redis-server``: installed with apt-get when missing.
    """
    _ensure_redis_server(session)
    session.install("-e", ".[test,bench]")
    session.run("pytest", "--benchmark-disable", "-q", *session.posargs)


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
        "-e", ".[bench,plot,peers,redis]", *[d for d in EXTRAS["lint"] if d.startswith("mypy")]
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
