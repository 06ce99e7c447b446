"""The wheel as PyPI would get it: its name, license, URLs, entry point and typing marker."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_carries_the_name_license_and_urls(tmp_path: Path) -> None:
    """``pip wheel .`` builds minagent_wire-VERSION-py3-none-any.whl whose metadata names the
    distribution minagent-wire with the SPDX license MIT, the LICENSE file, the project URLs
    and the supported Pythons; it installs the import package ``minagent`` (typed) and the
    ``minagent`` command."""
    from minagent import __version__

    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    (wheel,) = tmp_path.glob("*.whl")
    assert wheel.name == f"minagent_wire-{__version__}-py3-none-any.whl"
    info = f"minagent_wire-{__version__}.dist-info"
    with zipfile.ZipFile(wheel) as zf:
        meta = Parser().parsestr(zf.read(f"{info}/METADATA").decode())
        names = set(zf.namelist())
        license_text = zf.read(f"{info}/licenses/LICENSE").decode()
        entry_points = zf.read(f"{info}/entry_points.txt").decode()
    assert (meta["Name"], meta["Version"]) == ("minagent-wire", __version__)
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    assert license_text == (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License\n")
    assert meta["Requires-Python"] == ">=3.10"
    assert meta.get_all("Project-URL") == [
        "Homepage, https://minagent.dev",
        "Documentation, https://minagent.dev/docs/",
        "Changelog, https://minagent.dev/docs/changelog/",
        "Wire schema, https://minagent.dev/schema/wire-1.json",
    ]
    assert meta["Author"] == "The minagent maintainers"
    assert "Typing :: Typed" in meta.get_all("Classifier")
    assert {
        "minagent/__init__.py",
        "minagent/py.typed",
        "minagent/cli/_common.py",
        "minagent/wire/schema.json",
    } <= names
    assert not any(n.startswith(("tests/", "docs/", "examples/")) for n in names)
    assert "minagent = minagent.cli:main" in entry_points.splitlines()
