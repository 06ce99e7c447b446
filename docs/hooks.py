"""mkdocs hooks: put the repository's own Markdown files (README, changelog, benchmark and fuzzing
notes, license) into the site as pages, and make every page's links work in the site.

Links are written for the repository (GitHub renders them from where the file lies): in the site
a link to another included file goes to its page, a link into docs/ to that page, a link to any
other file of the repository becomes its name in code (the site does not hold the source tree),
and a link to nothing is left as it is, for mkdocs to report (strict mode fails on it).
Fence options the example tests read (``test="skip"``) are removed before rendering.
"""

from __future__ import annotations

import ast
import posixpath
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]

INCLUDED = {
    "index.md": "README.md",
    "changelog.md": "CHANGELOG.md",
    "benchmarks.md": "bench/README.md",
    "fuzzing.md": "fuzz/README.md",
    "license.md": "LICENSE",
}
"""Site page -> the repository file it shows."""

ASSETS = {"throughput.png": "bench/throughput.png"}
"""Site file -> the repository file copied there (images the included pages show)."""

PAGE_OF = {source: page for page, source in INCLUDED.items()} | {
    source: page for page, source in ASSETS.items()
}

_FENCE = re.compile(r"^(\s*```+.*)$", re.M)
_LINK = re.compile(r"(!?)\[([^\]\n]*)\]\(([^)\s]+)\)")
_FENCE_OPTION = re.compile(r'^(\s*```+\s*\w+)(?:\s+\w+="[^"]*")+\s*$', re.M)


def _content(page: str) -> str:
    source = ROOT / INCLUDED[page]
    text = source.read_text(encoding="utf-8")
    if page == "license.md":
        return f"# License\n\n```text\n{text}```\n"
    return text


def on_files(files: Files, config: Any) -> Files:
    """Add the included pages and their images to the site."""
    for page in INCLUDED:
        files.append(File.generated(config, page, content=_content(page)))
    for name, source in ASSETS.items():
        files.append(File.generated(config, name, abs_src_path=str(ROOT / source)))
    return files


def _source_of(src_uri: str) -> str:
    """The repository path of a page's Markdown."""
    return INCLUDED.get(src_uri, f"docs/{src_uri}")


def _target(link: str, source: str, src_uri: str) -> str | None:
    """``link`` (written in ``source``) as a link of the page ``src_uri``; None if the site does
    not hold what it points at."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", link) or link.startswith("#"):
        return link
    path, hash_, anchor = link.partition("#")
    repo = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
    if repo in PAGE_OF:
        site = PAGE_OF[repo]
    elif repo.startswith("docs/") and (ROOT / repo).is_file():
        site = repo.removeprefix("docs/")
    else:
        return None
    here = posixpath.dirname(src_uri) or "."
    return posixpath.relpath(site, here) + hash_ + anchor


def _rewrite(text: str, source: str, src_uri: str) -> str:
    def link(match: re.Match[str]) -> str:
        bang, label, target = match.groups()
        site = _target(target, source, src_uri)
        if site is not None:
            return f"{bang}[{label}]({site})"
        repo = posixpath.normpath(posixpath.join(posixpath.dirname(source), target))
        if not (ROOT / repo.partition("#")[0]).exists():
            return match.group(0)  # broken: left for mkdocs to report (strict: an error)
        if label.strip("`") == target or label.strip("`") == repo:
            return f"`{repo}`"
        return f"{label} (`{repo}` in the repository)"

    parts = _FENCE.split(text)  # text, fence line, text, fence line, ...
    inside = False
    for i, part in enumerate(parts):
        if i % 2:
            inside = not inside
        elif not inside:
            parts[i] = _LINK.sub(link, part)
    return "".join(parts)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Rewrite the page's links for the site and drop the example tests' fence options."""
    src_uri = page.file.src_uri
    markdown = _rewrite(markdown, _source_of(src_uri), src_uri)
    return _FENCE_OPTION.sub(r"\1", markdown)


def _public_names(module: str) -> list[str]:
    """The ``__all__`` of ``module``, read from its source (nothing is imported)."""
    base = ROOT / "src" / Path(*module.split("."))
    path = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return [ast.literal_eval(e) for e in node.value.elts]  # type: ignore[attr-defined]
    return []


def on_post_build(config: Any) -> None:
    """Fail the build unless every name in the ``__all__`` of every module the API reference
    renders (``::: module``) has its entry in the built page."""
    missing = []
    for page in sorted((ROOT / "docs" / "reference").glob("*.md")):
        built = Path(config["site_dir"]) / "reference"
        html = (built / ("" if page.stem == "index" else page.stem) / "index.html").read_text(
            encoding="utf-8"
        )
        for module in re.findall(r"^::: ([\w.]+)", page.read_text(encoding="utf-8"), re.M):
            missing += [
                f"{module}.{name}"
                for name in _public_names(module)
                if f'id="{module}.{name}"' not in html
            ]
    if missing:
        raise PluginError(f"the API reference lacks {len(missing)} public names: {missing}")
