"""Shanten kernels: how far a concealed part is from complete.

Shanten is ``d - 1`` where ``d`` is the least number of tiles that must be drawn (each replacing one
tile of the hand) to reach a complete hand: the minimum over complete targets ``t`` (``4 - k`` melds
and a pair, or seven pairs where the rule set has them and ``k == 0``; only kinds of the tile set;
at most 4 copies of a kind) of ``sum max(t - counts, 0)``. So -1 = complete, 0 = ready. As in the
``mahjong`` package, tiles in exposed melds do not count against the 4-copy limit of the target.

The regular form is a min-plus combination, over the groups, of the per-group distance rows of
:mod:`simkit.hand.tables`; seven pairs has a closed form.
"""

import numpy as np

from .._jit import jit, pjit, prange
from .tables import DIST_MASK, DIST_SHIFT, INF
from .win import pung_group, suit_code

__all__ = ["shanten_kernel", "shanten_batch_kernel", "seven_pairs_distance"]


@jit(inline="always")
def seven_pairs_distance(counts, t):  # pragma: no cover - compiled
    """Tiles to add to reach seven pairs (four identical tiles count as two pairs)."""
    pairs = 0
    odd = 0
    for i in range(t.kinds.shape[0]):
        c = counts[t.kinds[i]]
        pairs += c >> 1
        odd += c & 1
    need = 7 - pairs
    if need <= 0:
        return 0
    if need <= odd:
        return need
    return odd + 2 * (need - odd)


@jit
def shanten_kernel(counts, n_melds, t, work):  # pragma: no cover - compiled
    """Shanten of ``counts`` (uint8[34]) with ``n_melds`` exposed melds; -2 for a hand of wrong size.

    Valid sizes are ``13 - 3k`` and ``14 - 3k`` tiles. ``work`` is int64[20] scratch space.
    The pung-only group's row starts the min-plus combination; each suit but the last is folded in
    over all (melds, pair) splits; the last suit only has to complete ``(4 - k)`` melds and the pair.
    (No array views here: each would cost a reference-count update per call.)
    """
    need = 4 - n_melds
    h, total = pung_group(counts, t)
    for j in range(10):
        work[j] = t.hdist[h, j]
    last = t.n_suits - 1
    for s in range(last):
        code, size = suit_code(counts, t.suit_base[s])
        total += size
        for j in range(10):
            work[10 + j] = INF
        word = np.int64(t.dist[code])
        for m1 in range(need + 1):
            for p1 in range(2):
                a = work[2 * m1 + p1]
                if a >= INF:
                    continue
                for m2 in range(need + 1 - m1):
                    for p2 in range(2 - p1):
                        j2 = 2 * m2 + p2
                        v = a + ((word >> DIST_SHIFT[j2]) & DIST_MASK[j2])
                        j = 10 + 2 * (m1 + m2) + p1 + p2
                        if v < work[j]:
                            work[j] = v
        for j in range(10):
            work[j] = work[10 + j]
    code, size = suit_code(counts, t.suit_base[last])
    total += size
    if total != 3 * need + 1 and total != 3 * need + 2:
        return np.int64(-2)
    d = np.int64(INF)
    word = np.int64(t.dist[code])
    for m1 in range(need + 1):
        for p1 in range(2):
            j2 = 2 * (need - m1) + 1 - p1
            v = work[2 * m1 + p1] + ((word >> DIST_SHIFT[j2]) & DIST_MASK[j2])
            if v < d:
                d = v
    if t.seven_pairs and n_melds == 0:
        d7 = seven_pairs_distance(counts, t)
        if d7 < d:
            d = d7
    return d - 1


CHUNK = 1024  #: rows per work unit in batch kernels (scratch is allocated once per chunk)


@pjit
def shanten_batch_kernel(counts, n_melds, t, out):  # pragma: no cover - compiled
    """Batch shanten: ``counts`` uint8[N, 34], ``n_melds`` int64[N], ``out`` int8/int64[N]."""
    n = counts.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        work = np.empty(20, np.int64)
        for i in range(c * CHUNK, min(n, (c + 1) * CHUNK)):
            out[i] = shanten_kernel(counts[i], n_melds[i], t, work)
