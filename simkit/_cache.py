"""Where simkit keeps what it builds at first use (lookup tables, compiled engines)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir"]


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
