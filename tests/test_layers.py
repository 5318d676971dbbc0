"""simkit's modules import each other in one direction: no import circle, counting the imports
inside functions too (an import moved into a function to dodge a circle is still a circle); each
room (package) imports only the rooms below it; and a function imports nothing but an optional or
heavy dependency kept off ``import simkit`` (the short list below)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import simkit

PACKAGE = Path(simkit.__file__).resolve().parent

#: circles not yet taken apart, each as the set of its modules (none): a circle that is not listed
#: here fails the test, and so does a listed one that no longer exists (so the list only shrinks)
KNOWN_CIRCLES: list = []


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(name: str, path: Path, modules: dict) -> set[str]:
    """The simkit modules that module ``name`` imports, anywhere in it (``from package import x``
    counts as importing the submodule ``x`` when there is one, else the package)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in modules else module for a in node.names]
        for target in targets:
            while target and target not in modules and "." in target:
                target = target.rpartition(".")[0]
            if target in modules and target != name:
                found.add(target)
    return found


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def test_no_import_circle_among_simkit_s_modules():
    circles = _circles(_graph())
    new = [sorted(c) for c in circles if c not in KNOWN_CIRCLES]
    gone = [sorted(c) for c in KNOWN_CIRCLES if c not in circles]
    assert not new, f"import circles: {new}"
    assert not gone, f"no longer circles (take them off KNOWN_CIRCLES): {gone}"


def test_the_circle_check_finds_a_planted_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _circles(graph) == [{"a", "b", "c"}]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_the_play_runtime_sits_below_the_doors_users_call():
    """The step API, positions, rollouts and the luck correction build on the play runtime;
    it imports none of them (nor the user's door, :mod:`simkit.play.matches`)."""
    graph = _graph()
    doors = {
        "simkit.play.matches",
        "simkit.play.stepper",
        "simkit.play.position",
        "simkit.play.rollouts",
        "simkit.play.draw_luck",
        "simkit.runs.simulation",
        "simkit.envs",
    }
    seen, todo = set(), ["simkit.play.runtime"]
    while todo:  # everything the runtime imports, directly or not
        for w in graph[todo.pop()] - seen:
            seen.add(w)
            todo.append(w)
    assert not seen & doors, seen & doors
    for door in ("simkit.play.stepper", "simkit.play.rollouts", "simkit.play.matches"):
        assert "simkit.play.runtime" in graph[door]


#: the rooms from the bottom up: a module of a room may import its own room and the rooms before it
#: (``simkit`` itself, the public API, and ``simkit.__main__`` sit on top and may import anything)
ROOMS = [
    [
        "simkit._version",
        "simkit._cache",
        "simkit._words",
        "simkit._jit",
        "simkit.errors",
        "simkit.tiles",
        "simkit.stats",
        "simkit.paths",
    ],
    ["simkit.engine.rng"],  # the counter-based streams: the engine's, and random hands' (simkit.hand.sample)
    ["simkit.rules"],
    ["simkit.melds"],
    ["simkit.hand"],
    ["simkit.scoring"],
    ["simkit.engine"],
    ["simkit.policies"],
    ["simkit.play"],
    ["simkit.envs", "simkit.datasets", "simkit.progress"],
    ["simkit.runs"],
    ["simkit.analysis"],
    ["simkit.evaluation"],  # strength and rankings: built on runs and their analysis
    ["simkit.tournament", "simkit.cli"],
]


def _room(module: str) -> int | None:
    for level, names in enumerate(ROOMS):
        if any(module == n or module.startswith(n + ".") for n in names):
            return level
    return None


def test_every_module_has_a_room():
    unplaced = [m for m in _modules() if _room(m) is None and m not in ("simkit", "simkit.__main__")]
    assert not unplaced, f"modules in no room of ROOMS: {unplaced}"


def test_rooms_import_only_the_rooms_below_them():
    upward = []
    for module, imported in _graph().items():
        if module in ("simkit", "simkit.__main__"):
            continue
        for target in imported:
            if target != "simkit" and _room(target) > _room(module):
                upward.append(f"{module} -> {target}")
    assert not upward, "imports of a room above: " + ", ".join(sorted(upward))


#: what a function may import (everything else is imported at the top of its module): optional
#: dependencies, and heavy ones kept off ``import simkit``; and numba internals a patch of
#: simkit/_jit.py reaches for inside its ``try`` (a numba without them switches the patch off,
#: which tests/test_numba_scope.py reports, rather than breaking ``import simkit``)
INNER_IMPORTS_ALLOWED = {
    "pandas",  # heavy: analysis and display import it when called
    "matplotlib",  # heavy: the plot helpers
    "gymnasium",  # optional (the rl extra): simkit.envs
    "pettingzoo",  # optional (the rl extra): simkit.envs
    "distributed",  # heavy: the Dask back end, when a cluster is used
    "dask",
    "ipywidgets",  # optional: the progress bar in Jupyter
    "tqdm.notebook",
    "numba.core",  # the guarded internals of the opt-in patches (simkit/_jit.py)
}


def _inner_imports(path: Path) -> list[str]:
    """``"line: module"`` of every import inside a function of the file."""
    found = []
    for fn in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.Import):
                    found += [(node.lineno, a.name) for a in node.names]
                elif isinstance(node, ast.ImportFrom):
                    found.append((node.lineno, "." * node.level + (node.module or "")))
    return sorted(set(found))


def _allowed(module: str) -> bool:
    return any(module == a or module.startswith(a + ".") for a in INNER_IMPORTS_ALLOWED)


def test_functions_import_only_optional_or_heavy_dependencies():
    offenders = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {module}"
        for name, path in sorted(_modules().items())
        for line, module in _inner_imports(path)
        if not _allowed(module)
    ]
    assert not offenders, "imports inside functions (move them to the top of the module):\n" + "\n".join(offenders)


def test_the_inner_import_check_finds_a_planted_import(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("import os\n\ndef f():\n    import json\n    import pandas\n    from . import tiles\n")
    assert [m for _, m in _inner_imports(planted) if not _allowed(m)] == ["json", "."]


@pytest.mark.parametrize(
    "old", ["simkit.io", "simkit.distributed", "simkit.chunk_job", "simkit.engine.policies", "simkit.engine.toolkit"]
)
def test_old_module_paths_are_gone(old):
    """Modules have one path: the names they had before the packages were arranged by concern are
    not aliases (never released), so an old import fails at once, not at its first attribute."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)
