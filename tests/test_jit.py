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
