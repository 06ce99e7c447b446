"""Developer sessions: ``nox`` runs the tests; ``nox -s lint typing`` checks style and types.

``nox -s tests`` runs the suite on every Python the package claims (`PYTHONS`, the classifiers in
``pyproject.toml``): the whole of it, benchmarks once each and the Node.js vector check on
`FULL`, the tests alone on the others. Interpreters are found on PATH as ``python3.X``, or else
through pyenv (`_add_pyenv_pythons`), so a fresh machine whose pyenv holds them needs no setup.

Extras are read from ``pyproject.toml`` so the dependency lists live in one place.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import nox
import tomllib

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True

ROOT = Path(__file__).parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
EXTRAS: dict[str, list[str]] = PROJECT["optional-dependencies"]


PYTHONS = ("3.10", "3.11", "3.12", "3.13")
"""The Pythons the suite runs on: exactly the ``Programming Language :: Python :: 3.X``
classifiers of pyproject.toml (tests/test_pyversions.py holds the two together)."""
FULL = "3.11"
"""The Python that runs the whole suite (benchmarks once each, the property search, the Node.js
vector check); the others run tests/ alone."""
LOWEST = PYTHONS[0]
"""``nox -s lowest`` runs on the oldest Python, the one the lowest dependencies must support."""


def _add_pyenv_pythons() -> None:
    """Put the newest pyenv interpreter of each of `PYTHONS` that PATH does not hold as a working
    ``python3.X`` first on PATH, so nox finds it. pyenv's shims answer ``python3.12`` only when
    pyenv was told to use that version, so a shim on PATH is not enough."""
    pyenv = shutil.which("pyenv")
    if pyenv is None:
        return
    try:
        listed = subprocess.run(
            [pyenv, "versions", "--bare"], capture_output=True, text=True, check=True
        ).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        return
    folders = []
    for version in PYTHONS:
        if _works(f"python{version}"):
            continue
        found = [v for v in listed if re.fullmatch(rf"{re.escape(version)}\.\d+", v)]
        if found:
            newest = max(found, key=lambda v: int(v.rsplit(".", 1)[1]))
            prefix = subprocess.run(
                [pyenv, "prefix", newest], capture_output=True, text=True, check=False
            ).stdout.strip()
            if prefix:
                folders.append(str(Path(prefix) / "bin"))
    if folders:
        os.environ["PATH"] = os.pathsep.join([*folders, os.environ.get("PATH", "")])


def _works(command: str) -> bool:
    """Whether ``command`` on PATH runs (a pyenv shim of an unselected version does not)."""
    if shutil.which(command) is None:
        return False
    try:
        return subprocess.run([command, "-c", ""], capture_output=True, check=False).returncode == 0
    except OSError:
        return False


_add_pyenv_pythons()


def _requirements(session: nox.Session, *extras: str) -> list[str]:
    """The requirements of ``extras`` (pip drops those whose markers exclude the session's
    Python: google-genai's lower bound differs on 3.10)."""
    return list(dict.fromkeys(r for extra in extras for r in EXTRAS[extra]))


def _install(session: nox.Session, *extras: str) -> None:
    """Install the package (editable) and ``extras``, for the session's Python."""
    session.install("-e", ".", *_requirements(session, *extras))


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


@nox.session(python=list(PYTHONS))
def tests(session: nox.Session) -> None:
    """Run the test suite against an installed package, one pytest-xdist worker per core: on
    `FULL` the whole of it (benchmarks once each, untimed), then the golden vectors from
    JavaScript (Node.js: ``npm ci`` from the committed lock); on the other Pythons tests/.

    The Redis Streams tests start a real ``redis-server``: installed with apt-get when missing.
    """
    _ensure_redis_server(session)
    _install(session, "test", "bench", "plot", "cli")
    where = [] if session.python == FULL else ["tests"]
    session.run(
        "pytest", "--benchmark-disable", "-q", "-n", "auto", *where, *session.posargs,
        env=WRITE_BYTECODE,
    )  # fmt: skip
    if session.python == FULL:
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


@nox.session(python=FULL, default=False)
def properties(session: nox.Session) -> None:
    """The property tests alone (``-m property``), with 300 hypothesis examples each unless
    MINAGENT_EXAMPLES says otherwise: the deep search the quick default run (25) leaves out.
    Part of the README's test command, so CI runs it on every submission."""
    _ensure_redis_server(session)
    _install(session, "test", "bench", "plot", "cli")
    examples = {"MINAGENT_EXAMPLES": os.environ.get("MINAGENT_EXAMPLES", "300"), **WRITE_BYTECODE}
    session.run(
        "pytest", "-m", "property", "--benchmark-disable", "-q", "-n", "auto",
        "-p", "no:cacheprovider", *session.posargs, env=examples,
    )  # fmt: skip


@nox.session(python=LOWEST, default=False)
def lowest(session: nox.Session) -> None:
    """The suite on the oldest Python (`LOWEST`) against the lowest versions pyproject.toml
    allows there: the dependencies and the test and cli extras pinned to their lower bounds
    (pip's equivalent of uv's ``--resolution lowest-direct``; markers pick 3.10's), with 10
    hypothesis examples per property (this session checks the versions; searching for inputs is
    the job of `properties`). The bench and plot extras resolve freely:
    the suite runs their code once (untimed), and matplotlib's lowest release predates the numpy
    it would be installed with."""
    _ensure_redis_server(session)
    pinned = PROJECT["dependencies"] + _requirements(session, "test", "cli")
    session.install(*_lowest(pinned), "-e", ".", *_requirements(session, "bench", "plot"))
    session.run("pip", "list", "--format=freeze")
    examples = {"MINAGENT_EXAMPLES": os.environ.get("MINAGENT_EXAMPLES", "10"), **WRITE_BYTECODE}
    session.run(
        "pytest", "--benchmark-disable", "-q", "-n", "auto", "-p", "no:cacheprovider",
        *session.posargs, env=examples,
    )  # fmt: skip


@nox.session(default=False)
def mutation(session: nox.Session) -> None:
    """Mutation testing of the wire core, lazy, the CLI and the providers with mutmut (modules
    and tests: [tool.mutmut] in pyproject.toml). ``nox -s mutation -- 'minagent.wire._fallback*'``
    mutates one module; then ``mutmut results`` / ``mutmut show NAME`` inside .nox's venv list
    the survivors.
    Hypothesis runs 10 examples per property unless MINAGENT_EXAMPLES says otherwise."""
    session.install("-e", ".[test,bench,cli]", "mutmut>=3.8,<4")
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
