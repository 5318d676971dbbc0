"""Where simkit keeps what it builds at first use (lookup tables, compiled engines, numba's
compiled code)."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import numba

__all__ = ["cache_dir", "source_hash", "cache_root", "engine_dir", "numba_cache_dir"]

_PACKAGE = Path(__file__).resolve().parent
_source_hash: str | None = None


def cache_dir() -> Path:
    """Where simkit keeps what it builds: ``$SIMKIT_CACHE_DIR`` if set, else ``simkit`` in
    ``$XDG_CACHE_HOME`` (``~/.cache/simkit`` by default); never inside the package."""
    env = os.environ.get("SIMKIT_CACHE_DIR")
    if env:
        return Path(env)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "simkit"


def source_hash() -> str:
    """Hash of simkit's sources (the item tables included) and the numba / Python versions
    (computed once per process)."""
    global _source_hash
    if _source_hash is None:
        h = hashlib.sha256(f"{numba.__version__} {sys.version}".encode())
        for path in sorted([*_PACKAGE.rglob("*.py"), *_PACKAGE.rglob("*.toml")]):  # .toml: the item tables
            if "_compiled" in path.parts:
                continue  # the generated engine instances themselves
            h.update(str(path.relative_to(_PACKAGE)).encode())
            h.update(path.read_bytes())
        _source_hash = h.hexdigest()
    return _source_hash


def cache_root() -> Path:
    """Where generated engine instances (and, without ``NUMBA_CACHE_DIR``, numba's cache) live:
    :func:`cache_dir`."""
    return cache_dir()


def engine_dir() -> Path:
    """The directory of this version of simkit's sources under :func:`cache_root`:
    ``engine-<source hash>``."""
    return cache_root() / f"engine-{source_hash()[:16]}"


def numba_cache_dir() -> Path:
    """numba's cache for this version of simkit's sources: ``$NUMBA_CACHE_DIR/simkit-<source hash>``
    when ``NUMBA_CACHE_DIR`` is set, else ``numba`` inside the version's engine directory.

    numba keys a cached function on its own source file only: a kernel cached before a change to
    a function it calls (in another file) would be loaded with the old callee compiled into it. A
    directory per version of the sources (which :func:`simkit._jit` gives numba before any kernel
    is defined) never holds code compiled from other sources."""
    user = os.environ.get("NUMBA_CACHE_DIR")
    if user:
        return Path(user) / f"simkit-{source_hash()[:16]}"
    return engine_dir() / "numba"
