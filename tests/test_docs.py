"""The documentation cannot rot: its code runs, its includes resolve, and the site builds.

Every fenced ``python`` block on every page under ``docs/`` is one of two things:

* an include of a file from ``examples/``, which ``tests/test_examples.py`` runs; here the
  file (and the ``:section``, if named) must exist. Both forms of ``pymdownx.snippets`` count:
  one line per file (``--8<-- "examples/counter.py"``), or the block form, a line ``--8<--``
  above and below the file names. The block form is what these pages use: it is not Python, so
  ``ruff format`` (which formats Python blocks in Markdown) leaves it alone;
* code, executed here: the blocks of one page run in order in one namespace, as a reader would
  run them, from the repository root. A block may be skipped only when an HTML comment
  ``<!-- no-run: <why> -->`` stands on the line right above its fence (for code that truly
  cannot run offline, such as a call to a real provider API), and the reason is required.

Other blocks (``sh``, ``console``, ``json``) are not executed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(path.relative_to(ROOT).as_posix() for path in DOCS.rglob("*.md"))
PYTHON = {"python", "py"}

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\n]*?)[ \t]*$")
_INCLUDE = re.compile(r'^--8<-- "(?P<path>[^":]+)(?::(?P<section>[\w-]+))?"$')
_INCLUDED = re.compile(
    r"^(?P<path>[^\s\"':]+)(?::(?P<section>[\w-]+))?$"
)  # a line of the block form
_SNIPPETS = "--8<--"
_NO_RUN = re.compile(r"^\s*<!--\s*no-run:\s*(?P<why>.*?)\s*-->\s*$")


class Block(NamedTuple):
    page: str
    line: int  # 1-based line of the first line of code (the line after the opening fence)
    lang: str
    code: str
    no_run: str | None  # the reason given in <!-- no-run: ... -->, if any

    @property
    def includes(self) -> list[re.Match[str]] | None:
        """The included files, when the block is nothing but includes; else None."""
        lines = [line.strip() for line in self.code.splitlines() if line.strip()]
        if len(lines) >= 3 and lines[0] == lines[-1] == _SNIPPETS:
            matches = [_INCLUDED.match(line) for line in lines[1:-1]]
        else:
            matches = [_INCLUDE.match(line) for line in lines]
        if lines and all(matches):
            return [m for m in matches if m is not None]
        return None

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def blocks_of(page: str) -> list[Block]:
    """Every fenced block of a page, with its language and the code dedented."""
    lines = (ROOT / page).read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if opening is None:
            i += 1
            continue
        indent, fence = opening["indent"], opening["fence"]
        lang = opening["info"].split()[0].lower() if opening["info"] else ""
        end = i + 1
        while end < len(lines):
            closing = _FENCE.match(lines[end])
            if (
                closing is not None
                and closing["fence"][0] == fence[0]
                and len(closing["fence"]) >= len(fence)
                and not closing["info"]
            ):
                break
            end += 1
        assert end < len(lines), f"{page}:{i + 1}: unclosed code fence"
        code = "\n".join(line.removeprefix(indent) for line in lines[i + 1 : end])
        above = _NO_RUN.match(lines[i - 1]) if i > 0 else None
        found.append(Block(page, i + 2, lang, code, above["why"] if above else None))
        i = end + 1
    return found


ALL_BLOCKS = [block for page in PAGES for block in blocks_of(page)]
PYTHON_BLOCKS = [block for block in ALL_BLOCKS if block.lang in PYTHON]
INCLUDE_BLOCKS = [block for block in PYTHON_BLOCKS if block.includes is not None]
CODE_PAGES = sorted({b.page for b in PYTHON_BLOCKS if b.includes is None and b.no_run is None})


def test_the_docs_have_code_of_both_kinds() -> None:
    # Guards the parser itself: if it stopped finding blocks, every other test would pass.
    assert "docs/getting-started.md" in CODE_PAGES
    assert any(block.page == "docs/getting-started.md" for block in INCLUDE_BLOCKS)


@pytest.mark.parametrize("block", INCLUDE_BLOCKS, ids=str)
def test_included_code_comes_from_an_example(block: Block) -> None:
    for match in block.includes or []:
        path, section = match["path"], match["section"]
        assert path.startswith("examples/"), f"{block}: include {path} from examples/"
        source = ROOT / path
        assert source.is_file(), f"{block}: {path} does not exist"
        if section:
            text = source.read_text(encoding="utf-8")
            assert f"# --8<-- [start:{section}]" in text, f"{block}: no section {section!r}"
            assert f"# --8<-- [end:{section}]" in text, f"{block}: section {section!r} not closed"


@pytest.mark.parametrize("block", [b for b in PYTHON_BLOCKS if b.includes is None], ids=str)
def test_code_blocks_are_either_includes_or_code(block: Block) -> None:
    # A block that mixes include lines with code would be half-run here, half-shown there.
    assert "--8<--" not in block.code, f"{block}: put includes in a block of their own"
    if block.no_run is not None:
        assert block.no_run, f"{block}: <!-- no-run: ... --> needs a reason"


@pytest.mark.parametrize("page", CODE_PAGES)
def test_page_code_runs(page: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    # A real module in sys.modules, as for a script: typing.get_type_hints resolves string
    # annotations (``from __future__ import annotations``) through it.
    module = types.ModuleType("docs_" + re.sub(r"\W", "_", page.removeprefix("docs/")[:-3]))
    monkeypatch.setitem(sys.modules, module.__name__, module)
    namespace = module.__dict__
    ran = 0
    for block in blocks_of(page):
        if block.lang not in PYTHON or block.includes is not None or block.no_run is not None:
            continue
        # Padding with blank lines makes a traceback point at the line of the page.
        source = "\n" * (block.line - 1) + block.code
        exec(compile(source, str(ROOT / page), "exec"), namespace)
        ran += 1
    assert ran > 0


def test_mkdocs_build_is_strict_clean(tmp_path: Path) -> None:
    for module in ("mkdocs", "material", "mkdocstrings_handlers.python"):
        pytest.importorskip(
            module, reason="the docs extra is not installed: pip install -e '.[docs]'"
        )
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--config-file",
            str(ROOT / "mkdocs.yml"),
            "--site-dir",
            str(tmp_path / "site"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert completed.returncode == 0, completed.stderr
    for page in ("index.html", "getting-started/index.html", "api/index.html"):
        assert (tmp_path / "site" / page).is_file(), page
