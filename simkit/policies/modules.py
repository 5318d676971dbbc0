"""Policies named ``module:function``: finding the function, checking it is a policy, and hashing
the module's source without running it.

A ``module:function`` policy text imports ``module`` (as ``import module`` would), so it runs that
module's code, like any plugin. What it names must be a policy: a jitted function (``simkit.jit``
or a numba dispatcher), or a plain Python function defined in that very module and taking
``(view, legal, params, rng)`` by name -- not a function imported into it (``os.path:join``), a
catch-all ``f(*args)`` (``subprocess:call``), a builtin, a C function or a class.

A run records the SHA-256 of the source file of each such policy's module;
:func:`module_source_sha256` finds that file from the module's import spec, the way ``import``
would, without executing the module or its parent packages, so that a replay can compare the hash
before it imports anything.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import inspect
import sys
import types

from numba.core.dispatcher import Dispatcher

from ..errors import PolicyError

__all__ = ["function_in_module", "module_source_sha256", "file_sha256"]


def file_sha256(path) -> str | None:
    """The SHA-256 of the file ``path``, or None when it cannot be read."""
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except (OSError, TypeError, ValueError):
        return None


def _spec_without_import(module_name: str):
    """The import spec of ``module_name`` as ``import`` would find it, without executing the module
    or any of its parent packages (a parent already imported gives its search path); None when no
    finder knows it."""
    known = sys.modules.get(module_name)
    if known is not None:
        return getattr(known, "__spec__", None)
    path = None
    parts = module_name.split(".")
    spec = None
    for i in range(len(parts)):
        name = ".".join(parts[: i + 1])
        loaded = sys.modules.get(name)
        if loaded is not None and i < len(parts) - 1:
            path = getattr(loaded, "__path__", None)
            if path is None:
                return None
            continue
        spec = None
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if find is None:
                continue
            try:
                spec = find(name, path)
            except (ImportError, ValueError, TypeError, AttributeError):
                spec = None
            if spec is not None:
                break
        if spec is None:
            return None
        if i < len(parts) - 1:
            path = spec.submodule_search_locations
            if path is None:  # a module, not a package: it has no submodules
                return None
    return spec


def module_source_sha256(module_name: str) -> str | None:
    """The SHA-256 of the source file of ``module_name`` (the file ``import`` would execute),
    found without importing it; None when it has no source file (not found, builtin, compiled)."""
    spec = _spec_without_import(module_name)
    origin = getattr(spec, "origin", None) if spec is not None else None
    if not origin or not getattr(spec, "has_location", False):
        return None
    if not origin.endswith(tuple(importlib.machinery.SOURCE_SUFFIXES)):
        return None
    return file_sha256(origin)


def _positional_count(fn) -> int:
    """How many named positional parameters ``fn`` has (a ``*args`` catch-all does not count)."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    try:
        return sum(1 for p in inspect.signature(fn).parameters.values() if p.kind in kinds)
    except (TypeError, ValueError):
        return 0


def function_in_module(name: str):
    """The policy function ``module:function`` names (``function`` may be dotted, e.g. a static
    method), imported; a one-line PolicyError when the module cannot be imported, lacks the name,
    or the name is not a policy (see the module docstring)."""
    module_name, attr = name.split(":", 1)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise PolicyError(f"policy {name}: cannot import module {module_name!r} ({exc})") from None
    obj = module
    for part in attr.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            raise PolicyError(f"policy {name}: module {module_name} has no {attr!r}")
    if isinstance(obj, Dispatcher) and isinstance(getattr(obj, "py_func", None), types.FunctionType):
        return obj
    if isinstance(obj, types.FunctionType):
        if obj.__module__ != module_name:
            raise PolicyError(
                f"policy {name}: {attr} is defined in {obj.__module__}, not in {module_name}; a Python policy "
                "is named by the module that defines it"
            )
        if _positional_count(obj) < 4:
            raise PolicyError(
                f"policy {name}: {attr}{inspect.signature(obj)} does not take (view, legal, params, rng) by name"
            )
        return obj
    kind = "a class" if isinstance(obj, type) else f"a {type(obj).__name__}"
    raise PolicyError(
        f"policy {name}: {attr} is {kind}, not a policy; a policy is a jitted function (simkit.jit) or a "
        "Python function policy(view, legal, params, rng) -> action defined in that module"
    )
