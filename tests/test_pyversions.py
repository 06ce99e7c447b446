"""The Pythons the package claims are the Pythons the test command runs on."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _nox_constant(name: str) -> object:
    """The literal value noxfile.py assigns to ``name`` (read without importing nox)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text())
    for node in tree.body:
        targets = [getattr(t, "id", None) for t in getattr(node, "targets", [])]
        if isinstance(node, ast.Assign) and targets == [name]:
            return ast.literal_eval(node.value)
    raise AssertionError(f"noxfile.py assigns no {name}")


def test_classifiers_list_exactly_the_pythons_the_sessions_run() -> None:
    """pyproject.toml's ``Python :: 3.X`` classifiers are noxfile's PYTHONS, its
    requires-python starts at the oldest of them, and ``lowest`` runs there."""
    text = (ROOT / "pyproject.toml").read_text()
    claimed = re.findall(r'"Programming Language :: Python :: (3\.\d+)"', text)
    pythons = _nox_constant("PYTHONS")
    assert claimed == list(pythons) == ["3.10", "3.11", "3.12", "3.13"]
    assert re.search(r'^requires-python = ">=(3\.\d+)"$', text, re.M).group(1) == pythons[0]
    source = (ROOT / "noxfile.py").read_text()
    assert "LOWEST = PYTHONS[0]" in source and "@nox.session(python=LOWEST" in source
    assert "@nox.session(python=list(PYTHONS))\ndef tests(" in source


def test_ci_runs_the_readme_command_over_the_matrix() -> None:
    """.ci/run runs ``nox -s tests properties lowest docs``, which selects every tests-3.X
    session."""
    run = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert run == "python -m pip install -q nox && nox -s tests properties lowest docs"
