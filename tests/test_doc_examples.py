"""Every code block of the README and the documentation runs, and the documentation site builds.

* Each file's fenced ```python blocks (README.md, docs/**/*.md) run in order, in one namespace, in
  a temporary working directory holding a copy of ``data/sample/`` (the examples' small dataset).
  Each block is written to a file first (in pytest's cache directory, rewritten only when it
  changes) and compiled under that file's name, so that a policy a block decorates with
  ``simkit.jit`` is cached by numba like one in a module.
* The ``simkit`` command lines of ```bash blocks whose subcommand needs no engine (``hand``,
  ``score``, ``rules``, ``policies``) run through ``simkit.cli.main`` and must exit with 0; the
  others (simulations, Dask, rollouts) are shown with their full sizes and are not run here.
* A block that is not meant to run (printed output, a directory listing) is fenced ```text.
* A python block whose first line is ``# requires: mod, mod (...)`` uses packages of an optional
  extra: it runs alone, in its own namespace, when they import, and is skipped naming the missing
  one when they do not (the other blocks of its page run without it).
* What the docs print or tabulate is what the code does: the observation layout table of
  ``docs/rl.md``, the printed lines promised in ``docs/step-api.md``, and the worked policy of
  ``docs/policies.md``, which must play the games of ``tests/policy_examples.py``.
* ``mkdocs build --strict`` builds the site into a temporary directory.

Examples are kept tiny (a few matches, a few hands), so the module runs in well under a minute with
a warm numba cache.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
DOC_FILES = [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))] if DOCS.is_dir() else [ROOT / "README.md"]

#: a fence at the start of a line: ```lang, the block, ``` (blocks are never indented in the docs)
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
#: the subcommands of the command-line examples that run here (no engine, no files written)
CHEAP_COMMANDS = {"hand", "score", "rules", "policies"}


#: the first line of a block that needs optional packages: ``# requires: duckdb, polars (...)``
REQUIRES = re.compile(r"\A# requires: ([\w, ]+?)\s*(?:\(.*\))?$", re.MULTILINE)


def required_modules(code: str) -> list[str]:
    """The modules a block's ``# requires:`` first line names (none without it)."""
    m = REQUIRES.match(code)
    return [name.strip() for name in m.group(1).split(",") if name.strip()] if m else []


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT))


def fenced_blocks(path: Path, languages: tuple[str, ...]) -> list[tuple[int, str]]:
    """(first line number, code) of each block of ``path`` fenced with one of ``languages``."""
    text = path.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        if m.group(1) in languages:
            out.append((text.count("\n", 0, m.start(2)) + 1, m.group(2)))
    return out


def _files_with(languages: tuple[str, ...]) -> list:
    return [pytest.param(p, id=_name(p)) for p in DOC_FILES if fenced_blocks(p, languages)]


def test_the_fences_are_closed_and_named():
    """Every fence opens with a language and is closed, so no code hides in an unnamed block."""
    for path in DOC_FILES:
        text = path.read_text(encoding="utf-8")
        fences = re.findall(r"^```([\w-]*)", text, re.MULTILINE)
        assert len(fences) % 2 == 0, f"{_name(path)}: a ``` fence is not closed"
        openings = fences[0::2]
        assert all(openings), f"{_name(path)}: a block without a language (use ```text for output)"
        assert not any(fences[1::2]), f"{_name(path)}: a closing fence carries a language"


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A temporary working directory with a copy of the sample dataset, on ``sys.path``."""
    shutil.copytree(ROOT / "data" / "sample", tmp_path / "data" / "sample")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    import matplotlib

    matplotlib.use("Agg")
    yield tmp_path
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture
def block_dir(request, tmp_path):
    """Where the blocks' source files go: a stable directory, so that numba finds the policies it
    compiled from them in its cache on the next run (a temporary one without pytest's cache)."""
    cache = getattr(request.config, "cache", None)
    return Path(cache.mkdir("doc_examples")) if cache is not None else tmp_path


def run_blocks(path: Path, block_dir: Path) -> dict:
    """Run the python blocks of ``path`` in order in one namespace: that of a module registered in
    ``sys.modules`` while they run (numba, loading a cached policy, imports its module)."""
    name = "doc_" + re.sub(r"\W", "_", str(path.relative_to(ROOT).with_suffix("")))
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        for i, (line, code) in enumerate(fenced_blocks(path, ("python",))):
            if required_modules(code):  # run on their own by test_blocks_with_optional_packages_run
                continue
            # the block's own file, padded so that a traceback's line number is the Markdown file's
            source = block_dir / f"{name}_{i}.py"
            text = "\n" * (line - 1) + code
            if not source.is_file() or source.read_text(encoding="utf-8") != text:
                source.write_text(text, encoding="utf-8")
            try:
                exec(compile(text, str(source), "exec"), module.__dict__)  # noqa: S102 -- the docs' own code
            except Exception as exc:
                raise AssertionError(f"{_name(path)}, the python block at line {line} failed: {exc!r}") from exc
    finally:
        sys.modules.pop(name, None)
    return module.__dict__


@pytest.mark.parametrize("path", _files_with(("python",)))
def test_python_blocks_run(path, workdir, block_dir):
    run_blocks(path, block_dir)


def _optional_blocks() -> list:
    return [
        pytest.param(path, line, code, id=f"{_name(path)}:{line}")
        for path in DOC_FILES
        for line, code in fenced_blocks(path, ("python",))
        if required_modules(code)
    ]


@pytest.mark.parametrize("path,line,code", _optional_blocks())
def test_blocks_with_optional_packages_run(path, line, code, workdir):
    """A block of an optional extra runs when its packages import; skipped, naming them, if not."""
    import importlib.util

    missing = [name for name in required_modules(code) if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"{_name(path)}, line {line} needs {', '.join(missing)}, not installed ({code.splitlines()[0]})")
    namespace = {"__name__": "doc_optional_block"}
    try:
        exec(compile("\n" * (line - 1) + code, str(path), "exec"), namespace)  # noqa: S102 -- the docs' own code
    except Exception as exc:
        raise AssertionError(f"{_name(path)}, the python block at line {line} failed: {exc!r}") from exc


def test_a_requires_line_names_modules():
    assert required_modules('# requires: duckdb, polars (pip install -e ".[query]")\nimport duckdb') == [
        "duckdb",
        "polars",
    ]
    assert required_modules("import duckdb\n# requires: duckdb") == []
    assert _optional_blocks(), "the datasets page shows DuckDB and polars queries"


def _cheap_command_lines(path: Path) -> list[tuple[int, list[str]]]:
    out = []
    for line, code in fenced_blocks(path, ("bash", "console")):
        for k, text in enumerate(code.splitlines()):
            words = shlex.split(text, comments=True)
            if len(words) >= 2 and words[0] == "simkit" and words[1] in CHEAP_COMMANDS:
                out.append((line + k, words[1:]))
    return out


@pytest.mark.parametrize("path", [p for p in _files_with(("bash", "console")) if _cheap_command_lines(p.values[0])])
def test_command_lines_run(path, workdir, capsys):
    from simkit.cli import main

    for line, argv in _cheap_command_lines(path):
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 0, f"{_name(path)}, line {line}: simkit {' '.join(argv)} exited {code}: {err}"


def _block_with(path: Path, text: str) -> str:
    (code,) = [code for _, code in fenced_blocks(path, ("python",)) if text in code]
    return code


def test_the_observation_layout_table_is_the_layout():
    import simkit.envs as E

    page = (DOCS / "rl.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \| (\d+):(\d+) \|", page, re.MULTILINE)
    assert {name: slice(int(a), int(b)) for name, a, b in rows} == E.OBSERVATION_LAYOUT
    assert f"float32[{E.OBSERVATION_SIZE}]" in page


def test_the_step_api_page_prints_what_it_says(workdir, capsys):
    """The block of docs/step-api.md that starts from a Position prints the ``# ...`` lines it
    shows (after the page's earlier blocks, which make its imports)."""
    namespace: dict = {"__name__": "doc_step_api_output"}
    for _, code in fenced_blocks(DOCS / "step-api.md", ("python",)):
        capsys.readouterr()
        exec(compile(code, "docs/step-api.md", "exec"), namespace)  # noqa: S102 -- the docs' own code
        if "Position.from_string" in code:
            printed = capsys.readouterr().out.splitlines()
            promised = [line[2:] for line in code.splitlines() if line.startswith("# ")]
            assert promised and printed == promised
            return
    raise AssertionError("docs/step-api.md has no block starting from Position.from_string")


def test_the_worked_policy_is_the_tested_one(block_dir, monkeypatch):
    """The ``cautious`` block of docs/policies.md, imported as a module, plays the games of
    tests/policy_examples.py (the version tests/test_toolkit.py measures)."""
    import importlib

    import numpy as np
    import policy_examples

    import simkit

    source = block_dir / "doc_cautious.py"
    code = _block_with(DOCS / "policies.md", "def cautious(")
    if not source.is_file() or source.read_text(encoding="utf-8") != code:
        source.write_text(code, encoding="utf-8")
    monkeypatch.syspath_prepend(str(block_dir))
    try:
        mod = importlib.import_module("doc_cautious")
        a = simkit.simulate_matches("douque", ((mod.cautious, {"push": 0}), "greedy"), 20, seed=3)
        b = simkit.simulate_matches("douque", ((policy_examples.cautious, {"push": 0}), "greedy"), 20, seed=3)
        for key in ("winner", "points", "turns", "score_0"):
            assert np.array_equal(a[key], b[key]), key
    finally:
        sys.modules.pop("doc_cautious", None)


def test_readme_is_the_front_door():
    """The README stays short, and its links to files of the repository resolve."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    targets = [t for t in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text) if not re.match(r"[a-z]+:", t)]
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_docs_build_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -e '.[docs]')")
    pytest.importorskip("mkdocstrings", reason="mkdocstrings is not installed (pip install -e '.[docs]')")
    done = subprocess.run(
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
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "site" / "index.html").is_file()
