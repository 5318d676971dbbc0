"""simkit's modules import each other in one direction: no import circle, counting the imports
inside functions too (an import moved into a function to dodge a circle is still a circle)."""

from __future__ import annotations

import ast
from pathlib import Path

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


def test_the_engine_s_runtime_sits_below_the_doors_users_call():
    """The step API, positions, rollouts and the luck correction build on the engine's runtime;
    it imports none of them (nor the user's door, :mod:`simkit.engine.matches`)."""
    graph = _graph()
    doors = {
        "simkit.engine.matches",
        "simkit.engine.state",
        "simkit.engine.position",
        "simkit.engine.rollouts",
        "simkit.engine.luck",
        "simkit.simulate",
        "simkit.envs",
    }
    seen, todo = set(), ["simkit.engine.runtime"]
    while todo:  # everything the runtime imports, directly or not
        for w in graph[todo.pop()] - seen:
            seen.add(w)
            todo.append(w)
    assert not seen & doors, seen & doors
    for door in ("simkit.engine.state", "simkit.engine.rollouts", "simkit.engine.matches"):
        assert "simkit.engine.runtime" in graph[door]
