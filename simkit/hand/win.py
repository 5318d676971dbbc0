"""Win check kernels: is a concealed part, next to ``k`` exposed melds, a complete hand?

A concealed part with ``k`` exposed melds is complete when it splits into ``4 - k`` melds (pungs;
chows within a suit) and one pair, or -- in rule sets with seven pairs and ``k == 0`` -- into seven
pairs, four identical tiles counting as two pairs. The concealed part must then hold ``14 - 3k``
tiles (a kong's fourth tile sits in its meld, not in the concealed part).

Groups (:mod:`simkit.hand.tables`): a suit is looked up by its base-5 code; the pung-only group is
complete when no kind holds 1 or 4 tiles and at most one holds 2 (its pair).
"""

import numpy as np

from .._jit import borrow, jit, pjit, prange
from .tables import COMPLETE, borrowed_hand_tables

__all__ = [
    "suit_code",
    "pung_group",
    "pung_complete",
    "pung_has_pair",
    "is_seven_pairs",
    "is_win_kernel",
    "is_win_batch_kernel",
]

_HIST_POW = np.array([0, 1, 10, 100, 1000], np.int64)  #: histogram code weight of a kind holding 0..4 tiles


@jit(inline="always")
def suit_code(counts, base):  # pragma: no cover - compiled
    """``(base-5 code, tiles)`` of the suit whose rank 1 is kind ``base``."""
    code = np.int64(0)
    size = np.int64(0)
    p = np.int64(1)
    for r in range(9):
        c = np.int64(counts[base + r])
        code += c * p
        size += c
        p *= 5
    return code, size


@jit(inline="always")
def pung_group(counts, t):  # pragma: no cover - compiled
    """``(histogram code, tiles)`` of the pung-only group."""
    h = np.int64(0)
    size = np.int64(0)
    for i in range(t.n_pung):
        c = counts[t.pung_kinds[i]]
        h += _HIST_POW[c]
        size += c
    return h, size


@jit(inline="always")
def pung_complete(h):  # pragma: no cover - compiled
    """Whether a pung-only group with histogram code ``h`` is pungs plus at most one pair."""
    return h % 10 == 0 and h < 1000 and (h // 10) % 10 <= 1


@jit(inline="always")
def pung_has_pair(h):  # pragma: no cover - compiled
    """Whether a pung-only group with histogram code ``h`` holds exactly one kind of 2 tiles."""
    return (h // 10) % 10 == 1


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
    h, total = pung_group(counts, t)
    ok = pung_complete(h)
    pairs = 1 if pung_has_pair(h) else 0
    if ok:
        for s in range(t.n_suits):
            code, size = suit_code(counts, t.suit_base[s])
            total += size
            if not (t.info[code] & COMPLETE):
                ok = False
                break
            if size % 3 == 2:
                pairs += 1
    if ok and pairs == 1 and total == 14 - 3 * n_melds:
        return True
    if t.seven_pairs and n_melds == 0:
        return is_seven_pairs(counts, t)
    return False


@pjit
def is_win_batch_kernel(counts, n_melds, t, out):  # pragma: no cover - compiled
    """Batch win check: ``counts`` uint8[N, 34], ``n_melds`` int64[N], ``out`` bool[N]."""
    rows = borrow(counts)  # no reference counts per row and call (see borrowed_hand_tables)
    tb = borrowed_hand_tables(t)
    for i in prange(counts.shape[0]):
        out[i] = is_win_kernel(rows[i], n_melds[i], tb)
