"""simkit's numba tricks stay inside simkit: every patch the engine counts on is active on the
numba this project pins, and none of them changes how numba compiles or caches a user's own code."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest


def test_every_patch_the_engine_counts_on_is_active():
    """On the pinned numba every opt-in trick of simkit._jit takes effect: a numba whose internals
    moved would switch one off silently (same results, slower or a slower compile)."""
    from numba.core import errors

    from simkit import _jit

    active = {
        name: getattr(_jit, name)
        for name in ("REFCOUNT_FREE", "LLVM_INLINE", "INLINE_COPY", "FLAGS_COMPARE", "INLINE_FRONTEND", "BY_SYMBOL")
    }
    if getattr(errors, "HighlightColorScheme", None) is not None and getattr(errors, "Style", None) is not None:
        active["ERROR_MARKUP"] = _jit.ERROR_MARKUP  # only where numba marks errors up with colorama
    assert all(active.values()), {name: on for name, on in active.items() if not on}


_USER_CODE = r'''
import types
import numba, numpy as np
from numba.core import config, inline_closurecall
before = config.CACHE_DIR
import simkit
from simkit import _jit

seen = []  # whether a simkit compile was in progress at each translation of an inlined function
_translate = inline_closurecall.InlineWorker.run_untyped_passes
def counting(self, func, *args, **kwargs):
    seen.append((func.__module__, _jit.in_simkit_compile()))
    return _translate(self, func, *args, **kwargs)
inline_closurecall.InlineWorker.run_untyped_passes = counting

SOURCE = """
def clip_sum(a, lo, hi):
    s = 0
    for i in range(a.shape[0]):
        s += min(max(a[i], lo), hi)
    return s

def three_sites(a):
    return clip_sum(a, 0, 5) * 100 + clip_sum(a, 2, 3) * 10 + clip_sum(a[::2], -1, 9)
"""

def build(module_name, decorate, inline):
    module = types.ModuleType(module_name)
    exec(SOURCE, module.__dict__)
    module.clip_sum = decorate(inline=inline)(module.clip_sum)
    module.three_sites = decorate()(module.three_sites)
    return module.three_sites

a = np.array([-3, 1, 4, 7, 2, 9, 0], np.int64)
user = build("user_policies", lambda **kw: numba.njit(cache=False, **kw), "always")
ours = build("simkit._scope_probe", lambda **kw: _jit.jit(cache=False, **kw), "always")
print(user(a), ours(a))
print(sum(1 for m, _ in seen if m == "user_policies"), any(on for m, on in seen if m == "user_policies"))
print(sum(1 for m, _ in seen if m == "simkit._scope_probe"), all(on for m, on in seen if m == "simkit._scope_probe"))
print(before == config.CACHE_DIR)
'''


def test_a_user_function_is_compiled_as_numba_compiles_it():
    """A user's own kernel with an ``inline="always"`` callee at three sites: numba translates the
    callee at every site as it does without simkit (simkit's translate-once patch is off outside
    simkit's compiles), while the same code as a simkit kernel is translated once, inside a simkit
    compile; both give the same value; importing simkit leaves numba's cache setting alone."""
    out = subprocess.run([sys.executable, "-c", _USER_CODE], capture_output=True, text=True, timeout=None)
    assert out.returncode == 0, out.stderr
    values, user, ours, settings = out.stdout.split("\n")[:4]
    a, b = values.split()
    assert a == b
    assert user.split() == ["3", "False"]
    assert ours.split() == ["1", "True"]
    assert settings == "True"


_CACHED_USER_FUNCTION = """
import numba

@numba.njit(cache=True)
def twice(x):
    return 2 * x
"""


def test_a_user_s_cached_function_is_cached_where_numba_puts_it(tmp_path):
    """A user's ``@numba.njit(cache=True)`` function in their own module, imported beside simkit:
    numba caches it in ``__pycache__`` next to the module, not in simkit's cache directory."""
    (tmp_path / "mine.py").write_text(textwrap.dedent(_CACHED_USER_FUNCTION))
    cache = tmp_path / "simkit-cache"
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, SIMKIT_CACHE_DIR=str(cache), PYTHONPATH=path)
    env.pop("NUMBA_CACHE_DIR", None)
    code = "import simkit, mine; print(mine.twice(21))"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["42"]
    assert list((tmp_path / "__pycache__").glob("mine.twice-*.nbi"))
    assert not [p for p in cache.rglob("*") if "mine" in p.name]


def test_simkit_s_caches_are_outside_the_package(tmp_path, monkeypatch):
    """simkit's caches (generated engines, numba's compiled code, the hand tables) default to
    ``~/.cache/simkit`` (``$XDG_CACHE_HOME/simkit``) and move with ``SIMKIT_CACHE_DIR``; none of them
    is inside the package."""
    import simkit
    from simkit import _cache
    from simkit.hand import tables

    package = os.path.dirname(os.path.abspath(simkit.__file__))
    monkeypatch.delenv("SIMKIT_CACHE_DIR", raising=False)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _cache.cache_dir() == tmp_path / "xdg" / "simkit"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert _cache.cache_dir() == _cache.Path.home() / ".cache" / "simkit"
    monkeypatch.setenv("SIMKIT_CACHE_DIR", str(tmp_path / "mine"))
    for where in (_cache.cache_dir(), _cache.engine_dir(), _cache.numba_cache_dir(), tables.cache_dir()):
        assert str(where).startswith(str(tmp_path / "mine"))
        assert not str(where).startswith(package)


@pytest.mark.parametrize("fast", ["values", "__eq__", "__hash__"])
def test_flags_compare_is_numba_s_own_outside_simkit_compiles(fast):
    """Outside a simkit compile numba's compile flags use numba's own methods."""
    from numba.core import targetconfig
    from numba.core.compiler import Flags

    from simkit import _jit

    assert not _jit.in_simkit_compile()
    patched = getattr(targetconfig.TargetConfig, fast)
    a, b = Flags(), Flags()
    a.nrt = True
    b.nrt = True
    if fast == "values":
        assert patched(a) == patched.__wrapped__(a) == patched.fast(a)
    elif fast == "__eq__":
        assert patched(a, b) is True and patched.fast(a, b) is True
    else:
        assert patched(a) == patched.fast(a)
