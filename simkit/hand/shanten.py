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

_HIST_W = np.array([0, 1, 10, 100, 1000], np.int64)  #: histogram code weight of 0..4 tiles

__all__ = ["shanten_kernel", "shanten_batch_kernel", "seven_pairs_distance", "discard_eval_kernel", "LIVE_NONE", "LIVE_ALL", "LIVE_BEST"]


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


# ---------------------------------------------------------------------------------------------
# every discard at once: shanten after it and the live tiles that would improve it


@jit(inline="always")
def _suit_row(dist, code, rows, g):  # pragma: no cover - compiled
    word = np.int64(dist[code])
    for j in range(10):
        rows[g, j] = (word >> DIST_SHIFT[j]) & DIST_MASK[j]


@jit(inline="always")
def _hist_row(hdist, h, rows, g):  # pragma: no cover - compiled
    for j in range(10):
        rows[g, j] = hdist[h, j]


@jit(inline="always")
def _combine(a, b, out, need):  # pragma: no cover - compiled
    """Min-plus combination of two (melds, pair) rows, melds capped at ``need``."""
    for j in range(10):
        out[j] = INF
    for m1 in range(need + 1):
        for p1 in range(2):
            x = a[2 * m1 + p1]
            if x >= INF:
                continue
            for m2 in range(need + 1 - m1):
                for p2 in range(2 - p1):
                    v = x + b[2 * m2 + p2]
                    j = 2 * (m1 + m2) + p1 + p2
                    if v < out[j]:
                        out[j] = v


@jit(inline="always")
def _final(rest, row, need):  # pragma: no cover - compiled
    """Least distance to (need melds, 1 pair) from the rest's row and one group's row."""
    d = np.int64(INF)
    for m1 in range(need + 1):
        for p1 in range(2):
            v = rest[2 * m1 + p1] + row[2 * (need - m1) + 1 - p1]
            if v < d:
                d = v
    return d


@jit
def _leave_one_out(rows, n_groups, need, rest, tmp):  # pragma: no cover - compiled
    """rest[g] = min-plus combination of every group's row except g's."""
    for g in range(n_groups):
        first = True
        for h in range(n_groups):
            if h == g:
                continue
            if first:
                for j in range(10):
                    rest[g, j] = rows[h, j]
                first = False
            else:
                _combine(rest[g], rows[h], tmp, need)
                for j in range(10):
                    rest[g, j] = tmp[j]


LIVE_NONE = 0  #: discard_eval_kernel: no live-tile counts
LIVE_ALL = 1  #: discard_eval_kernel: live-tile counts for every discard
LIVE_BEST = 2  #: discard_eval_kernel: live-tile counts only for the discards of least shanten
LIVE_TIES = 3  #: discard_eval_kernel: as LIVE_BEST, but only when two or more discards tie for it


@jit
def discard_eval_kernel(counts, n_melds, t, visible, sh_out, live_out, live_mode):  # pragma: no cover - compiled
    """For every kind ``k`` held in a ``14 - 3k`` tile hand: the shanten after discarding ``k``
    (``sh_out[k]``) and the number of live tiles that would then lower it (``live_out[k]``: over the
    tile set's kinds ``x``, ``4 - visible[x]`` for each ``x`` that lowers the shanten).

    ``visible`` int[34]: copies of each kind the player can see (hand included). ``live_mode``:
    :data:`LIVE_NONE`, :data:`LIVE_ALL`, :data:`LIVE_BEST` (only the discards of least shanten) or
    :data:`LIVE_TIES` (as LIVE_BEST when two or more kinds tie for least shanten, else none: all a
    "least shanten, then most live tiles" choice needs). Kinds not held get ``sh_out = 99``;
    ``live_out = -1`` where not computed. Returns the least shanten. The result equals evaluating
    :func:`shanten_kernel` on every hand ``counts - k`` and ``counts - k + x``, but each step changes
    one group only, so it recombines cached group rows instead of recomputing everything.
    """
    need = 4 - n_melds
    n_groups = 1 + t.n_suits  # group 0: the pung-only group; 1..: the suits
    rows = np.empty((4, 10), np.int64)
    rest = np.empty((4, 10), np.int64)
    tmp = np.empty((1, 10), np.int64)
    saved = np.empty(10, np.int64)
    codes = np.empty(4, np.int64)
    work = np.empty(34, np.int64)
    kind_group = np.full(34, -1, np.int64)
    kind_pow = np.zeros(34, np.int64)
    for i in range(t.n_pung):
        kind_group[t.pung_kinds[i]] = 0
    for s in range(t.n_suits):
        p = 1
        for r in range(9):
            kind_group[t.suit_base[s] + r] = 1 + s
            kind_pow[t.suit_base[s] + r] = p
            p *= 5
    h, _ = pung_group(counts, t)
    codes[0] = h
    _hist_row(t.hdist, h, rows, 0)
    for s in range(t.n_suits):
        code, _ = suit_code(counts, t.suit_base[s])
        codes[1 + s] = code
        _suit_row(t.dist, code, rows, 1 + s)
    for k in range(34):
        work[k] = counts[k]
    seven = t.seven_pairs and n_melds == 0
    best = 99
    for k in range(34):
        sh_out[k] = 99
        live_out[k] = -1
    for rnd in range(2):
        if rnd == 1 and live_mode == LIVE_NONE:
            break
        if rnd == 1 and live_mode == LIVE_TIES:
            n_best = 0
            for k in range(34):
                if sh_out[k] == best:
                    n_best += 1
            if n_best < 2:
                break
        for k in range(34):
            if counts[k] == 0 or kind_group[k] < 0:
                continue
            if rnd == 1 and live_mode != LIVE_ALL and sh_out[k] != best:
                continue
            g = kind_group[k]
            for j in range(10):
                saved[j] = rows[g, j]
            if g == 0:
                c = work[k]
                hk = codes[0] - _HIST_W[c] + _HIST_W[c - 1]
                _hist_row(t.hdist, hk, rows, 0)
            else:
                hk = codes[g] - kind_pow[k]
                _suit_row(t.dist, hk, rows, g)
            work[k] -= 1
            _leave_one_out(rows, n_groups, need, rest, tmp[0])
            if rnd == 0:
                d = _final(rest[0], rows[0], need)
                if seven:
                    d7 = seven_pairs_distance(work, t)
                    if d7 < d:
                        d = d7
                sh_out[k] = d - 1
                if d - 1 < best:
                    best = d - 1
            else:
                d = sh_out[k] + 1
                live = 0
                for u in range(t.kinds.shape[0]):
                    x = t.kinds[u]
                    if visible[x] >= 4 or work[x] >= 4:
                        continue
                    gx = kind_group[x]
                    if gx == 0:
                        base = hk if g == 0 else codes[0]
                        c = work[x]
                        _hist_row(t.hdist, base - _HIST_W[c] + _HIST_W[c + 1], tmp, 0)
                    else:
                        base = hk if g == gx else codes[gx]
                        _suit_row(t.dist, base + kind_pow[x], tmp, 0)
                    dx = _final(rest[gx], tmp[0], need)
                    if seven:
                        work[x] += 1
                        d7 = seven_pairs_distance(work, t)
                        work[x] -= 1
                        if d7 < dx:
                            dx = d7
                    if dx < d:
                        live += 4 - visible[x]
                live_out[k] = live
            work[k] += 1
            for j in range(10):
                rows[g, j] = saved[j]
    return best
