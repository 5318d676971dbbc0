"""simkit._jit.borrow: a reference-count-free view that reads and writes the owner's memory."""

from __future__ import annotations

import numpy as np

from simkit._jit import borrow, jit


@jit
def _fill_through_borrowed(a, b):  # pragma: no cover - compiled
    v = borrow(a)
    w = borrow(b)
    v[0, 1] = 5
    row = v[1]  # a view of a borrowed array is borrowed too
    row[2] = 7
    return v.shape[0], v.shape[1], v.sum(), w[-1]


def test_borrowed_views_share_memory_and_shape():
    a = np.zeros((2, 3), np.int64)
    b = np.arange(4, dtype=np.uint8)
    n0, n1, total, last = _fill_through_borrowed(a, b)
    assert (n0, n1, total, last) == (2, 3, 12, 3)
    assert a[0, 1] == 5 and a[1, 2] == 7


_NRT_SOURCE = """
import numpy as np
from simkit._jit import borrow, jit


@jit(cache=False)
def inner(v, pair):
    return v.sum() + pair[1][0]


@jit(cache=False)
def f(n):
    a = np.ones(n)
    b = a[1:]
    pair = (a, b)
    s = 0.0
    for i in range(3):
        d = np.empty(n)
        d[:] = pair[1][0]
        s += inner(borrow(d), pair) + inner(d, (b, d))
    return s, a
"""

_NRT_CHECK = """
import sys, types
from numba.core.runtime import rtsys, _nrt_python
from simkit import _jit
assert _jit.NULL_CHECKED_REFCOUNTS
_nrt_python.memsys_enable_stats()
def null_tests(name):
    module = types.ModuleType(name)
    exec(compile(sys.argv[1], "<nrt_test>", "exec"), module.__dict__)
    before = _jit.NULL_CHECKED_EMITTED
    module.f(1)
    return module, _jit.NULL_CHECKED_EMITTED - before
_, plain = null_tests("plain_nrt_test")
module, checked = null_tests(_jit._NULL_CHECKED_IN + "nrt_test")
assert plain == 0 and checked > 0, (plain, checked)  # only the engine-instance module got the tests
before = rtsys.get_allocation_stats()
for i in range(100):
    x = module.f(10)
del x
after = rtsys.get_allocation_stats()
print(after.alloc - before.alloc, after.free - before.free, after.mi_alloc - before.mi_alloc, after.mi_free - before.mi_free)
"""


def test_reference_counts_stay_balanced_with_null_checked_calls():
    """In the engine instances' functions simkit._jit emits reference-count calls behind an inline
    NULL test: arrays made, sliced, put in tuples, borrowed and dropped there are all freed
    (numba's allocation statistics, in a fresh process so that enabling them does not slow this
    one; the functions live in a module named like an engine instance, so they get the test)."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _NRT_CHECK, _NRT_SOURCE], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    alloc, free, mi_alloc, mi_free = map(int, out.stdout.split())
    assert alloc == free == mi_alloc == mi_free == 400
