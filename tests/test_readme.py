"""Every Python example in the README, in docs/ and in examples/ runs on its own and prints exactly
what its ``#>`` lines say (pytest-examples, as pydantic checks its docs); the test command, the
install lines and the API reference cannot drift from the code.

``pytest tests/test_readme.py --update-examples`` rewrites the ``#>`` lines from what the
examples print (review the diff: a changed value is a changed behaviour).
"""

from __future__ import annotations

import re
import traceback
from pathlib import Path

import pytest
from pytest_examples import CodeExample, EvalExample, find_examples

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
LINE_LENGTH = 100


def _examples() -> list[CodeExample]:
    found = [*find_examples(README), *find_examples(DOCS)]
    return [ex for ex in found if ex.prefix_settings().get("test") != "skip"]


def _id(example: CodeExample) -> str:
    return f"{example.path.relative_to(ROOT)}:{example.start_line}"


def _check(example: CodeExample, eval_example: EvalExample) -> None:
    """Run ``example`` and check (or, with ``--update-examples``, rewrite) its ``#>`` lines.

    An exception the example raises is reported as a plain failure naming the file and line:
    the traceback pytest-examples rebuilds for it makes pytest 9 stop the whole session with an
    INTERNALERROR instead."""
    eval_example.set_config(line_length=LINE_LENGTH, quotes="either")
    try:
        if eval_example.update_examples:
            eval_example.run_print_update(example)
        else:
            eval_example.run_print_check(example)
    except Exception as err:
        line = None
        tb = err.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == str(example.path):
                line = tb.tb_lineno
            tb = tb.tb_next
        where = f"{example.path.name}:{line or example.start_line}"
        what = "".join(traceback.format_exception_only(type(err), err)).strip()
        raise AssertionError(f"the example at {where} raised {what}") from None


@pytest.mark.parametrize("example", _examples(), ids=_id)
def test_docs_example_prints_what_it_says(
    example: CodeExample,
    eval_example: EvalExample,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    """One ```python block of README.md or docs/, run alone in an empty folder (the Redis
    examples talk to the test redis-server through ``REDIS_URL``): it runs, and each ``#>``
    line is exactly what the ``print`` above it printed."""
    monkeypatch.chdir(tmp_path)
    if "redis" in example.source:
        monkeypatch.setenv("REDIS_URL", request.getfixturevalue("redis_url"))
    _check(example, eval_example)


_DOUBLE, _SINGLE = '"' * 3, "'" * 3
_OUTPUT_BLOCK = re.compile(rf"^( *print\(.*\)\n)( *){_DOUBLE}\n(.*?)\n\2{_DOUBLE}$", re.M | re.S)


@pytest.mark.parametrize("script", sorted((ROOT / "examples").glob("*.py")), ids=lambda p: p.name)
def test_example_script_prints_what_it_says(
    script: Path, eval_example: EvalExample, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each examples/*.py runs on its own and prints what its output comments say (it has
    some). The scripts are formatted by ruff, which writes pytest-examples' ``#>`` as ``# >``
    and the triple single quotes around a long output (after its print) as triple double
    quotes: both are read back as pytest-examples writes them."""
    source = re.sub(r"^( *)# > ", r"\1#> ", script.read_text(encoding="utf-8"), flags=re.M)
    source = _OUTPUT_BLOCK.sub(rf"\1\2{_SINGLE}\n\3\n\2{_SINGLE}", source)
    assert re.search(r"^ *#> ", source, re.M), f"{script.name} checks no printed value"
    monkeypatch.chdir(tmp_path)
    _check(CodeExample.create(source, path=script), eval_example)


def test_every_readme_block_is_checked() -> None:
    """No Python block of the README is skipped, and at least the tour's ten are found."""
    blocks = re.findall(r"^```python\n", README.read_text(encoding="utf-8"), re.M)
    found = [ex for ex in _examples() if ex.path == README]
    assert len(found) == len(blocks) >= 10


def test_a_wrong_printed_value_fails(eval_example: EvalExample, tmp_path: Path) -> None:
    """The check is real: a ``#>`` line that differs from what is printed fails the test."""
    example = CodeExample.create("print(1 + 1)\n#> 3\n", path=tmp_path / "wrong.md")
    with pytest.raises(pytest.fail.Exception, match="Print output changed"):
        _check(example, eval_example)


def test_ci_runs_the_readme_test_command_exactly() -> None:
    """.ci/run's command is the README's test command (the ```sh block after "Tests,") and its
    sessions, the docs build among them, exist in noxfile.py, so that CI and the README cannot
    drift apart."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"\nTests,.*?```sh\n(.*?)\n```", text, re.S)
    assert block is not None
    command = block.group(1)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip("\n").splitlines()
    assert ci[-1] == command
    sessions = command.split("nox -s ", 1)[1].split()
    assert sessions == ["tests", "properties", "lowest", "docs"]
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    for name in sessions:
        assert re.search(rf"^def {name}\(session: nox\.Session\)", noxfile, re.M), name


def test_install_lines_name_the_distribution() -> None:
    """Every ``pip install`` of the package, in the README, docs/ and the command's messages,
    names the distribution of pyproject.toml (``minagent`` on PyPI is another project)."""
    project = (ROOT / "pyproject.toml").read_text(encoding="utf-8").split("\n[project]\n", 1)[1]
    dist = re.search(r'^name = "(.*)"$', project, re.M).group(1)  # type: ignore[union-attr]
    assert dist == "minagent-wire"
    texts = {p: p.read_text(encoding="utf-8") for p in [README, *DOCS.rglob("*.md")]}
    texts |= {p: p.read_text(encoding="utf-8") for p in (ROOT / "src").rglob("*.py")}
    installs = [
        (path.name, m.group(1))
        for path, text in texts.items()
        for m in re.finditer(r"pip install (?:-\w+ )*'?(minagent[\w-]*)", text)
    ]
    assert installs, "no install line found"
    assert [i for i in installs if i[1] != dist] == []


PUBLIC_MODULES = sorted(
    ".".join(p.relative_to(ROOT / "src").with_suffix("").parts).removesuffix(".__init__")
    for p in (ROOT / "src" / "minagent").rglob("*.py")
    if not any(part.startswith("_") for part in p.relative_to(ROOT / "src").parts[:-1])
    and (p.name == "__init__.py" or not p.name.startswith("_"))
    and p.parent.name != "bench"
)


def test_the_api_reference_covers_every_public_module() -> None:
    """docs/reference/ renders (``::: module``) every public module of minagent, each once;
    mkdocstrings lists every public name of each (its ``__all__``), and the strict build fails
    on a reference that does not resolve."""
    rendered = [
        m.group(1)
        for page in sorted((DOCS / "reference").glob("*.md"))
        for m in re.finditer(r"^::: ([\w.]+)", page.read_text(encoding="utf-8"), re.M)
    ]
    assert sorted(rendered) == PUBLIC_MODULES
