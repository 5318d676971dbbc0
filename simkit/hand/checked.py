"""Batch kernels that check their input rows in the same parallel pass as they compute them.

The public batch calls (:func:`simkit.is_win_batch`, :func:`simkit.waits_batch`,
:func:`simkit.shanten_batch`) must refuse bad rows with an error naming the row and the problem.
Checking the values in numpy before the kernel took a single-threaded pass or three over the array
(the row sums most of all) and cost about three times the win-check kernel itself. Here every row is checked just before it is computed, on the thread that computes it,
while it is in cache: the kernels of :mod:`simkit.hand.win`, :mod:`simkit.hand.waits` and
:mod:`simkit.hand.shanten` are called only on rows that pass, so a bad row never reaches a table
lookup.

These are the only hand kernels that look at their input's values; the plain ``*_batch_kernel`` s
keep to the house rule (they never validate) and serve the engine and the benchmark.

Each kernel takes ``counts`` uint8[N, 34] (C-contiguous), ``n_melds`` int64 of N values, or of one
value shared by every row (``per_row`` False), and ``outside`` uint8[34] (255 for a kind the rule
set lacks, 0 for one it has). It fills ``first`` int64[chunks, N_CHECKS] (chunks = ceil(N / CHUNK)):
entry ``[c, check]`` is the first row of chunk ``c`` that fails ``check`` (rows ascend within a
chunk), or N when none does; ``first.min(axis=0)`` is then the first failing row of each check over
the whole batch. Rows that fail any check are left uncomputed (their output is 0).
"""

import numpy as np

from .._jit import borrow, jit, pjit, prange
from .shanten import CHUNK, shanten_of_counts
from .tables import borrowed_hand_tables
from .waits import waits_kernel
from .win import is_win_kernel

__all__ = [
    "BAD_COUNT",
    "BAD_KIND",
    "BAD_MELDS",
    "BAD_SIZE",
    "BAD_MELD_COUNT",
    "BAD_MELD_KIND",
    "BAD_OVER",
    "N_CHECKS",
    "first_bad_rows",
    "narrow_kernel",
    "is_win_checked_kernel",
    "waits_checked_kernel",
    "shanten_checked_kernel",
]

BAD_COUNT = 0  #: check: a count above 4
BAD_KIND = 1  #: check: a tile of a kind the rule set lacks
BAD_MELDS = 2  #: check: n_melds outside 0-4
BAD_SIZE = 3  #: check: a concealed part of a size the call does not take with that n_melds
BAD_MELD_COUNT = 4  #: check (waits, meld_counts): a meld count above 4
BAD_MELD_KIND = 5  #: check (waits, meld_counts): a meld tile of a kind the rule set lacks
BAD_OVER = 6  #: check (waits, meld_counts): more than 4 copies of a kind, concealed part and melds together
N_CHECKS = 7  #: columns of ``first``


def first_bad_rows(n: int) -> np.ndarray:
    """A fresh ``first`` array for a batch of ``n`` rows: int64[ceil(n / CHUNK), N_CHECKS], all ``n``."""
    return np.full(((n + CHUNK - 1) // CHUNK, N_CHECKS), n, np.int64)


@pjit
def narrow_kernel(counts, out):  # pragma: no cover - compiled
    """``counts`` (N, 34) of any integer type into ``out`` uint8[N, 34], a value outside 0..4 as
    255 (which the checked kernels refuse as a count above 4): one parallel pass instead of a
    single-threaded range check and a cast."""
    for i in prange(counts.shape[0]):
        for k in range(34):
            x = counts[i, k]
            out[i, k] = x if 0 <= x <= 4 else 255


@jit(inline="always")
def _note(first, c, check, i):  # pragma: no cover - compiled
    if first[c, check] > i:
        first[c, check] = i


@jit(inline="always")
def _row_passes(counts, i, m, outside, size_a, size_b):  # pragma: no cover - compiled
    """Whether row ``i`` passes every check, ``m`` its n_melds (the fast test, exact).

    In 8-bit arithmetic: a count ``x`` is at most 4 exactly when ``(x + 3) | x`` has no bit above
    the third (5-7 carry into bit 3; 8 and more have such a bit already, 253-255 too); a tile of a
    missing kind (``outside[k]`` = 255, ``1 <= x <= 4``) shifted left by three sets one of those
    bits. The total wraps at 256, but only a row with a count above 4 can reach it.
    """
    hi = np.uint8(0)
    total = np.uint8(0)
    for k in range(34):
        x = counts[i, k]
        hi = np.uint8(hi | np.uint8(x + 3) | x | np.uint8((x & outside[k]) << 3))
        total = np.uint8(total + x)
    if hi & 0xF8 or m < 0 or m > 4:
        return False
    return total == size_a - 3 * m or total == size_b - 3 * m


@jit
def _note_row(counts, i, m, outside, size_a, size_b, first, c):  # pragma: no cover - compiled
    """Row ``i`` failed: note in ``first[c]`` each check it fails (plain arithmetic, off the fast path)."""
    top = 0
    off = 0
    total = 0
    for k in range(34):
        x = np.int64(counts[i, k])
        top = max(top, x)
        off |= x & np.int64(outside[k])
        total += x
    if top > 4:
        _note(first, c, BAD_COUNT, i)
    if off:
        _note(first, c, BAD_KIND, i)
    if m < 0 or m > 4:
        _note(first, c, BAD_MELDS, i)
    elif total != size_a - 3 * m and total != size_b - 3 * m:
        _note(first, c, BAD_SIZE, i)


@jit(inline="always")
def _check_row(counts, i, n_melds, per_row, outside, size_a, size_b, first, c):  # pragma: no cover - compiled
    """Row ``i``'s n_melds when it passes every check, else -1 (its failed checks noted in ``first[c]``)."""
    m = n_melds[i] if per_row else n_melds[0]
    if _row_passes(counts, i, m, outside, size_a, size_b):
        return m
    _note_row(counts, i, m, outside, size_a, size_b, first, c)
    return np.int64(-1)


@pjit
def is_win_checked_kernel(counts, n_melds, per_row, outside, t, out, first):  # pragma: no cover - compiled
    """Checked batch win check: rows of ``14 - 3 * n_melds`` tiles; ``out`` bool[N]."""
    n = counts.shape[0]
    rows = borrow(counts)  # no reference counts per row and call (see borrowed_hand_tables)
    tb = borrowed_hand_tables(t)
    for c in prange((n + CHUNK - 1) // CHUNK):
        for i in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            m = _check_row(counts, i, n_melds, per_row, outside, 14, 14, first, c)
            out[i] = is_win_kernel(rows[i], m, tb) if m >= 0 else False


@pjit
def shanten_checked_kernel(counts, n_melds, per_row, outside, t, out, first):  # pragma: no cover - compiled
    """Checked batch shanten: rows of ``13 - 3 * n_melds`` or ``14 - 3 * n_melds`` tiles; ``out`` int8[N]."""
    n = counts.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        _shanten_checked_rows(counts, n_melds, per_row, outside, t, out, first, c, c * CHUNK, min(n, (c + 1) * CHUNK))


@jit
def _shanten_checked_rows(counts, n_melds, per_row, outside, t, out, first, c, lo, hi):  # pragma: no cover - compiled
    """:func:`shanten_checked_kernel` on rows ``lo <= i < hi`` (chunk ``c``), the rows and tables
    borrowed in this loop's own function (as :func:`~simkit.hand.shanten._shanten_rows`)."""
    rows = borrow(counts)
    tb = borrowed_hand_tables(t)
    for i in range(lo, hi):
        m = _check_row(counts, i, n_melds, per_row, outside, 13, 14, first, c)
        out[i] = shanten_of_counts(rows[i], m, tb) if m >= 0 else 0


@pjit
def waits_checked_kernel(
    counts, n_melds, per_row, meld_counts, has_melds, outside, t, out, first
):  # pragma: no cover - compiled
    """Checked batch waits: rows of ``13 - 3 * n_melds`` tiles; ``out`` int64[N] bitmasks.

    ``meld_counts`` uint8[N, 34] when ``has_melds``, else any uint8[1, 34] of zeros (shared by
    every row): the tiles in each player's own melds, checked too (counts 0-4, kinds of the rule
    set, at most 4 copies of a kind with the concealed part).
    """
    n = counts.shape[0]
    rows = borrow(counts)
    melds = borrow(meld_counts)
    tb = borrowed_hand_tables(t)
    for c in prange((n + CHUNK - 1) // CHUNK):
        for i in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            m = _check_row(counts, i, n_melds, per_row, outside, 13, 13, first, c)
            r = i if has_melds else 0
            if has_melds:
                top = np.uint8(0)
                off = np.uint8(0)
                both = np.int64(0)
                for k in range(34):
                    y = meld_counts[i, k]
                    top = max(top, y)
                    off |= y & outside[k]
                    both = max(both, np.int64(y) + np.int64(counts[i, k]))
                if top > 4:
                    _note(first, c, BAD_MELD_COUNT, i)
                    m = -1
                if off:
                    _note(first, c, BAD_MELD_KIND, i)
                    m = -1
                if both > 4:
                    _note(first, c, BAD_OVER, i)
                    m = -1
            out[i] = waits_kernel(rows[i], m, melds[r], tb) if m >= 0 else 0
