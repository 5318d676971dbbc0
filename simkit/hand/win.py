"""Win check kernels: is a concealed part, next to ``k`` exposed melds, a complete hand?

A concealed part with ``k`` exposed melds is complete when it splits into ``4 - k`` melds (pungs;
chows within a suit) and one pair, or -- in rule sets with seven pairs and ``k == 0`` -- into seven
pairs, four identical tiles counting as two pairs. The concealed part must then hold ``14 - 3k``
tiles (a kong's fourth tile sits in its meld, not in the concealed part).
"""

import numpy as np

from .._jit import jit, pjit, prange
from .tables import COMPLETE

__all__ = ["is_win_kernel", "is_win_batch_kernel", "group_code", "is_seven_pairs"]


@jit(inline="always")
def group_code(counts, t, g):  # pragma: no cover - compiled
    """``(code, size)`` of group ``g``: its table index (offset included) and its number of tiles."""
    code = t.group_offset[g]
    size = np.int64(0)
    p = np.int64(1)
    for r in range(9):
        k = t.group_kinds[g, r]
        if k < 0:
            break
        c = np.int64(counts[k])
        code += c * p
        size += c
        p *= 5
    return code, size


@jit(inline="always")
def is_seven_pairs(counts, t):  # pragma: no cover - compiled
    """Seven pairs: 14 tiles, every count even (4 identical = two pairs)."""
    total = 0
    for i in range(t.kinds.shape[0]):
        c = counts[t.kinds[i]]
        if c & 1:
            return False
        total += c
    return total == 14


@jit
def is_win_kernel(counts, n_melds, t):  # pragma: no cover - compiled
    """Whether ``counts`` (uint8[34], concealed part) completes a hand with ``n_melds`` exposed melds.

    Parameters
    ----------
    counts : uint8[34]
    n_melds : int
        Exposed (or declared) melds, 0-4.
    t : HandTables
    """
    pairs = 0
    total = 0
    ok = True
    for g in range(t.n_groups):
        code, size = group_code(counts, t, g)
        total += size
        r = size % 3
        if r == 1 or not (t.info[code] & COMPLETE):
            ok = False
            break
        if r == 2:
            pairs += 1
    if ok and pairs == 1 and total == 14 - 3 * n_melds:
        return True
    if t.seven_pairs and n_melds == 0:
        return is_seven_pairs(counts, t)
    return False


@pjit
def is_win_batch_kernel(counts, n_melds, t, out):  # pragma: no cover - compiled
    """Batch win check: ``counts`` uint8[N, 34], ``n_melds`` int64[N], ``out`` bool[N]."""
    for i in prange(counts.shape[0]):
        out[i] = is_win_kernel(counts[i], n_melds[i], t)
