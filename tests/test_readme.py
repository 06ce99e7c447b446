"""The README's quick tour runs as written (every python block, in order, in one namespace), and
every line it marks ``# True`` / ``# False`` evaluates to exactly that."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
_CLAIM = re.compile(r"^(?P<expr>[^#\s].*?)\s+#\s*(?P<value>True|False)[ \t]*$", re.M)


def _asserted(block: str) -> tuple[str, list[str]]:
    """The block with each ``expr  # True`` line turned into ``assert (expr) is True``."""
    claims: list[str] = []

    def claim(match: re.Match[str]) -> str:
        claims.append(match.group(0))
        expr, value = match.group("expr"), match.group("value")
        return f"assert ({expr}) is {value}, {expr!r}"

    return _CLAIM.sub(claim, block), claims


def test_readme_python_blocks_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, redis_url: str
) -> None:
    """Every ```python block of README.md executes (files land in a temp dir; the Redis example
    talks to the test redis-server through ``REDIS_URL``), and each ``# True`` claim holds."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 5
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("REDIS_URL", redis_url)
    namespace: dict[str, object] = {"__name__": "readme"}
    claims: list[str] = []
    for block in blocks:
        code, found = _asserted(block)
        claims += found
        exec(compile(code, str(README), "exec"), namespace)
    marked = [
        line
        for block in blocks
        for line in block.splitlines()
        if re.search(r"#\s*(True|False)\s*$", line)
    ]
    assert claims == marked  # every marked line was asserted, none skipped


def test_a_false_claim_fails() -> None:
    """The rewrite asserts: a line claiming ``# True`` that is false raises AssertionError."""
    code, claims = _asserted("x = 1\nx == 2  # True\n")
    assert claims == ["x == 2  # True"]
    with pytest.raises(AssertionError, match="x == 2"):
        exec(compile(code, "<claim>", "exec"), {})


def test_ci_runs_the_readme_test_command_exactly() -> None:
    """.ci/run's command is the README's test command (the ```sh block after "Tests,") and its
    sessions exist in noxfile.py, so that CI and the README cannot drift apart."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"\nTests,.*?```sh\n(.*?)\n```", text, re.S)
    assert block is not None
    command = block.group(1)
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8").rstrip("\n").splitlines()
    assert ci[-1] == command
    sessions = command.split("nox -s ", 1)[1].split()
    assert sessions == ["tests", "properties", "lowest"]
    noxfile = (README.parent / "noxfile.py").read_text(encoding="utf-8")
    for name in sessions:
        assert re.search(rf"^def {name}\(session: nox\.Session\)", noxfile, re.M), name
