"""Where simkit keeps what it builds at first use (lookup tables, compiled engines, numba's
compiled code)."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

__all__ = ["cache_dir", "source_hash", "compiled_root", "numba_cache_dir"]

_PACKAGE = Path(__file__).resolve().parent
_source_hash: str | None = None


def cache_dir(in_tree: Path) -> Path:
    """``$SIMKIT_CACHE_DIR`` if set; otherwise ``in_tree`` (a directory inside the package) when it
    can be created and written (editable installs, fresh clones), else ``~/.cache/simkit``."""
    env = os.environ.get("SIMKIT_CACHE_DIR")
    if env:
        return Path(env)
    try:
        in_tree.mkdir(exist_ok=True)
        if os.access(in_tree, os.W_OK):
            return in_tree
    except OSError:
        pass
    return Path.home() / ".cache" / "simkit"


def source_hash() -> str:
    """Hash of simkit's sources (the item tables included) and the numba / Python versions
    (computed once per process)."""
    global _source_hash
    if _source_hash is None:
        import numba

        h = hashlib.sha256(f"{numba.__version__} {sys.version}".encode())
        for path in sorted([*_PACKAGE.rglob("*.py"), *_PACKAGE.rglob("*.toml")]):  # .toml: the item tables
            if "_compiled" in path.parts:
                continue  # the generated engine instances themselves
            h.update(str(path.relative_to(_PACKAGE)).encode())
            h.update(path.read_bytes())
        _source_hash = h.hexdigest()
    return _source_hash


def compiled_root() -> Path:
    """Where generated engine instances live: ``$SIMKIT_CACHE_DIR`` if set, else
    ``simkit/engine/_compiled`` when writable, else ``~/.cache/simkit``; each source version in a
    directory ``engine-<source hash>``."""
    return cache_dir(_PACKAGE / "engine" / "_compiled")


def numba_cache_dir() -> Path:
    """numba's cache for this version of simkit's sources: ``$NUMBA_CACHE_DIR/simkit-<source hash>``
    when ``NUMBA_CACHE_DIR`` is set, else ``numba`` inside the version's engine directory.

    numba keys a cached function on its own source file only: a kernel cached before a change to
    a function it calls (in another file) would be loaded with the old callee compiled into it. A
    directory per version of the sources (which :func:`simkit._jit` gives numba before any kernel
    is defined) never holds code compiled from other sources."""
    key = source_hash()[:16]
    user = os.environ.get("NUMBA_CACHE_DIR")
    if user:
        return Path(user) / f"simkit-{key}"
    return compiled_root() / f"engine-{key}" / "numba"
