"""scripts/profile_compile.py and scripts/profile_engine.py: the compile-time accounting (exclusive
and inclusive times of nested compiles, LLVM finalize per library, numba's inlining sites) on small
functions compiled here, and the names the engine profile prints for numba's mangled symbols."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numba
import numpy as np


def _script(name):
    path = Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


profile_compile = _script("profile_compile")
profile_engine = _script("profile_engine")


def test_compile_profile_splits_nested_compiles_and_counts_inlining_sites():
    @numba.njit(inline="always")
    def twice(x):
        return 2 * x

    @numba.njit
    def inner(a):
        s = 0.0
        for v in a:
            s += v * v
        return s

    @numba.njit
    def outer(a):
        return inner(a) + twice(a[0]) + twice(a[1])

    profile = profile_compile.CompileProfile(inlines=True)
    with profile.active():
        assert outer(np.arange(3.0)) == 5.0 + 0.0 + 2.0
    names = {name.rsplit(".", 1)[-1] for name in profile.exclusive}
    assert {"outer", "inner"} <= names
    outer_name = next(n for n in profile.inclusive if n.endswith("outer"))
    inner_name = next(n for n in profile.inclusive if n.endswith("inner"))
    # outer's compile holds inner's: inclusive = own (exclusive) + nested
    assert profile.inclusive[outer_name] >= profile.exclusive[outer_name] + profile.inclusive[inner_name] - 1e-6
    assert profile.inclusive[inner_name] > 0
    assert sum(profile.finalize.values()) > 0
    assert profile.inline_sites[next(n for n in profile.inline_sites if n.endswith("twice"))] == 2
    report = profile.report(10)
    assert "outer" in report and "inlined by numba at more than one site" in report


def test_compile_profile_restores_numba_when_done():
    from numba.core import codegen, inline_closurecall

    finalize = codegen.CPUCodeLibrary.finalize
    inline_ir = inline_closurecall.InlineWorker.inline_ir
    with profile_compile.CompileProfile(inlines=True).active():
        assert codegen.CPUCodeLibrary.finalize is not finalize
    assert codegen.CPUCodeLibrary.finalize is finalize
    assert inline_closurecall.InlineWorker.inline_ir is inline_ir


def test_engine_profile_names_numba_symbols_by_their_python_names():
    short = profile_engine.short_name
    mangled = (
        "_ZN6simkit4hand7shanten19discard_eval_kernelB4v229B56c8tJTIeFIjxB2IKSgI4CrvSCKg1MMbCQQPKkLTj8gMFYBFOOlH7AIpoAE5"
        "ArrayIhLi1E1C7mutable7alignedEx"
    )
    assert short(mangled) == "simkit.hand.shanten.discard_eval_kernel"
    assert short("_ZN42_simkit_engine_settle_for_two_fa8b411d9d6c19play_matches_kernelB3v12B56c8tJTIe") == (
        "_simkit_engine_settle_for_two_fa8b411d9d6c.play_matches_kernel"
    )
    assert short("_ZN5numba7cpython8builtins6ol_min12_3clocals_3e4implB3v34B68c8t") == (
        "numba.cpython.builtins.ol_min.<locals>.impl"
    )
    assert short("cfunc._ZN6simkit4hand3win13is_win_kernelB3v82") == "cfunc simkit.hand.win.is_win_kernel"
    assert short("_PyEval_EvalFrameDefault") == "_PyEval_EvalFrameDefault"


def test_engine_profile_maps_a_compiled_library_s_functions_to_their_addresses(tmp_path):
    @numba.njit(cache=False)
    def square(x):
        return x * x

    assert square(3) == 9
    library = next(iter(square.overloads.values())).library
    symbols = profile_engine.library_symbols(library, str(tmp_path))
    by_name = {name: (address, size) for address, size, name in symbols}
    plain = [
        n
        for n in by_name
        if profile_engine.short_name(n).endswith("<locals>.square")
        and not profile_engine.short_name(n).startswith(("cpython.", "cfunc "))
    ]
    assert len(plain) == 1, sorted(by_name)  # the function itself, besides its two wrappers
    entry = plain[0]
    assert by_name[entry][0] == library.get_pointer_to_function(entry)
    assert by_name[entry][1] > 0
