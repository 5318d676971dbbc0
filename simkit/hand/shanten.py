"""Shanten kernels: how far a concealed part is from complete.

Shanten is ``d - 1`` where ``d`` is the least number of tiles that must be drawn (each replacing one
tile of the hand) to reach a complete hand: the minimum over complete targets ``t`` (``4 - k`` melds
and a pair, or seven pairs where the rule set has them and ``k == 0``; only kinds of the tile set;
at most 4 copies of a kind) of ``sum max(t - counts, 0)``. So -1 = complete, 0 = ready. As in the
``mahjong`` package, tiles in exposed melds do not count against the 4-copy limit of the target.

The regular form is a min-plus combination, over the groups, of the per-group distance rows of
:mod:`simkit.hand.tables`; seven pairs has a closed form.

The small helpers on rows (tuples) are compiled once each and inlined by LLVM
(``jit(inline_in_llvm=True)``), not by numba at every call site: the same machine code, and the
discard evaluation compiles in about half the time.
"""

import numpy as np

from .._jit import borrow, jit, pjit, prange, stack_empty
from .._words import lowest_set_bit, popcount64
from .tables import DIST_MASK, DIST_SHIFT, HIST_ADD, HIST_REMOVE, INF, borrowed_hand_tables
from .win import pung_group, suit_code

_HIST_W = np.array([0, 1, 10, 100, 1000], np.int64)  #: histogram code weight of 0..4 tiles
#: the packed suit row's field offsets and masks as compile-time constants (entry 0 is always 0)
_S1, _S2, _S3, _S4, _S5, _S6, _S7, _S8, _S9 = (int(x) for x in DIST_SHIFT[1:])
_M1, _M2, _M3, _M4, _M5, _M6, _M7, _M8, _M9 = (int(x) for x in DIST_MASK[1:])

__all__ = [
    "shanten_kernel",
    "shanten_batch_kernel",
    "seven_pairs_distance",
    "discard_eval_kernel",
    "least_shanten_after_discard",
    "LIVE_NONE",
    "LIVE_ALL",
    "LIVE_BEST",
    "LIVE_TIES",
]


@jit(inline="always")
def seven_pairs_distance(counts, t):  # pragma: no cover - compiled
    """Tiles to add to reach seven pairs (four identical tiles count as two pairs). Reads the 34
    counts directly, not through ``t.kinds`` (a gather): a hand holds no kind outside its tile set."""
    pairs = 0
    odd = 0
    for k in range(34):
        c = counts[k]
        pairs += c >> 1
        odd += c & 1
    return _seven_from(pairs, odd)


@jit(internal=True, inline_in_llvm=True)
def _suit_row(t, code):  # pragma: no cover - compiled
    """The suit's packed distance row ``t.dist[code]`` as a tuple of its 10 entries (``j = 2m + p``)."""
    return _packed_row(np.int64(t.dist[code]))


@jit(internal=True, inline_in_llvm=True)
def _packed_row(w):  # pragma: no cover - compiled
    """A packed suit distance row (a ``t.dist`` entry) as a tuple of its 10 entries."""
    return (
        np.int64(0),
        (w >> _S1) & _M1,
        (w >> _S2) & _M2,
        (w >> _S3) & _M3,
        (w >> _S4) & _M4,
        (w >> _S5) & _M5,
        (w >> _S6) & _M6,
        (w >> _S7) & _M7,
        (w >> _S8) & _M8,
        (w >> _S9) & _M9,
    )


@jit(internal=True, inline_in_llvm=True)
def _pung_row(t, h):  # pragma: no cover - compiled
    """The pung-only group's distance row ``t.hdist[h]`` (histogram code ``h``) as a tuple."""
    r = t.hdist[h]
    return (
        np.int64(r[0]),
        np.int64(r[1]),
        np.int64(r[2]),
        np.int64(r[3]),
        np.int64(r[4]),
        np.int64(r[5]),
        np.int64(r[6]),
        np.int64(r[7]),
        np.int64(r[8]),
        np.int64(r[9]),
    )


@jit(internal=True, inline_in_llvm=True)
def _row_product(a, b):  # pragma: no cover - compiled
    """Min-plus product of two (melds, pair) rows: entry ``2m + p`` is the least ``a[2m1 + p1] +
    b[2(m - m1) + (p - p1)]`` over ``m1 <= m``, ``p1 <= p`` (at most 4 melds and one pair). Written out
    term by term, on tuples, so that the rows stay in registers: no loop bounds, no branches."""
    e0 = a[0] + b[0]
    e1 = min(a[0] + b[1], a[1] + b[0])
    e2 = min(a[0] + b[2], a[2] + b[0])
    e3 = min(a[0] + b[3], a[1] + b[2], a[2] + b[1], a[3] + b[0])
    e4 = min(a[0] + b[4], a[2] + b[2], a[4] + b[0])
    e5 = min(a[0] + b[5], a[1] + b[4], a[2] + b[3], a[3] + b[2], a[4] + b[1], a[5] + b[0])
    e6 = min(a[0] + b[6], a[2] + b[4], a[4] + b[2], a[6] + b[0])
    e7 = min(a[0] + b[7], a[1] + b[6], a[2] + b[5], a[3] + b[4], a[4] + b[3], a[5] + b[2], a[6] + b[1], a[7] + b[0])
    e8 = min(a[0] + b[8], a[2] + b[6], a[4] + b[4], a[6] + b[2], a[8] + b[0])
    e9 = min(
        a[0] + b[9],
        a[1] + b[8],
        a[2] + b[7],
        a[3] + b[6],
        a[4] + b[5],
        a[5] + b[4],
        a[6] + b[3],
        a[7] + b[2],
        a[8] + b[1],
        a[9] + b[0],
    )
    return (e0, e1, e2, e3, e4, e5, e6, e7, e8, e9)


@jit(internal=True, inline_in_llvm=True)
def _complete(a, b, need):  # pragma: no cover - compiled
    """Least ``a[2m1 + p1] + b[2(need - m1) + 1 - p1]``: the distance of two groups' rows to ``need``
    melds and the pair between them (capped at ``INF``)."""
    d = np.int64(INF)
    for m1 in range(5):
        if m1 <= need:
            d = min(d, a[2 * m1] + b[2 * (need - m1) + 1], a[2 * m1 + 1] + b[2 * (need - m1)])
    return d


@jit(called_by_symbol=True)
def shanten_kernel(counts, n_melds, t, work):  # pragma: no cover - compiled
    """Shanten of ``counts`` (uint8[34]) with ``n_melds`` exposed melds; -2 for a hand of wrong size.

    Valid sizes are ``13 - 3k`` and ``14 - 3k`` tiles of the rule set's tile set (kinds outside it
    hold none, as the public calls check). ``work`` is int64[20] scratch space (unused since the
    rows became tuples; kept for the callers' signature). :func:`shanten_of_counts`, called by its
    own machine code (other kernels call this function, not a copy of it)."""
    return shanten_of_counts(counts, n_melds, t)


@jit(internal=True, inline_in_llvm=True)
def shanten_of_counts(counts, n_melds, t):  # pragma: no cover - compiled
    """:func:`shanten_kernel`'s answer, inlined where it is called: the batch kernels, which call it
    once per row, take it so (a call passes every table array by array, as much work as the
    shanten itself).

    The pung-only group's row and the suits' rows but the last are combined by
    :func:`_row_product`; the last suit only has to complete ``(4 - k)`` melds and the pair
    (:func:`_complete`). Entries for more melds than needed are computed too (constant work, no
    branches) and never read.
    """
    need = 4 - n_melds
    h, total = pung_group(counts, t)
    c0, size = suit_code(counts, t.suit_base[0])
    total += size
    if t.n_suits == 3:
        c1, s1 = suit_code(counts, t.suit_base[1])
        c2, s2 = suit_code(counts, t.suit_base[2])
        total += s1 + s2
        if total != 3 * need + 1 and total != 3 * need + 2:
            return np.int64(-2)
        rest = _row_product(_row_product(_pung_row(t, h), _suit_row(t, c0)), _suit_row(t, c1))
        d = _complete(rest, _suit_row(t, c2), need)
    else:
        rest = _pung_row(t, h)
        for s in range(1, t.n_suits):  # two suits: no rule set has them, the layout allows them
            c, sz = suit_code(counts, t.suit_base[s - 1])
            rest = _row_product(rest, _suit_row(t, c))
            c0, size = suit_code(counts, t.suit_base[s])
            total += size
        if total != 3 * need + 1 and total != 3 * need + 2:
            return np.int64(-2)
        d = _complete(rest, _suit_row(t, c0), need)
    if t.seven_pairs and n_melds == 0:
        d7 = seven_pairs_distance(counts, t)
        if d7 < d:
            d = d7
    return d - 1


@jit(inline="always")
def least_shanten_after_discard(counts, n_melds, t, work):  # pragma: no cover - compiled
    """The least shanten of ``counts - k`` over the held kinds ``k`` of a ``14 - 3k`` tile hand
    (what :func:`discard_eval_kernel` returns, without the per-discard table), from one
    :func:`shanten_kernel` call: ``max(shanten(counts), 0)``.

    Why: for any complete target ``T`` of the hand's size, ``counts`` misses as many tiles of ``T``
    as it holds beyond ``T``. If it misses ``m > 0``, discarding a tile it holds beyond ``T``
    leaves ``m`` missing, and no discard misses fewer; so the least distance over discards is the
    14-tile distance, for each form and so for their minimum. A complete hand (shanten -1) is ready
    after any discard (shanten 0). ``work`` as in :func:`shanten_kernel`."""
    return max(shanten_kernel(counts, n_melds, t, work), np.int64(0))


CHUNK = 1024  #: rows per work unit in batch kernels (scratch is allocated once per chunk)


@pjit
def shanten_batch_kernel(counts, n_melds, t, out):  # pragma: no cover - compiled
    """Batch shanten: ``counts`` uint8[N, 34], ``n_melds`` int64[N], ``out`` int8/int64[N]."""
    n = counts.shape[0]
    for c in prange((n + CHUNK - 1) // CHUNK):
        _shanten_rows(counts, n_melds, t, out, c * CHUNK, min(n, (c + 1) * CHUNK))


@jit
def _shanten_rows(counts, n_melds, t, out, lo, hi):  # pragma: no cover - compiled
    """``out[i]`` = the shanten of row ``i`` for ``lo <= i < hi``. The rows and the tables are
    borrowed here, in the function that loops over them (no reference counts per row and call,
    see borrowed_hand_tables): borrowed outside and passed into the parallel loop's body, they
    cost about a seventh more per hand."""
    rows = borrow(counts)
    tb = borrowed_hand_tables(t)
    for i in range(lo, hi):
        out[i] = shanten_of_counts(rows[i], n_melds[i], tb)


# ---------------------------------------------------------------------------------------------
# every discard at once: shanten after it and the live tiles that would improve it
#
# All scratch of discard_eval_kernel sits in one int64 buffer on its stack (stack_empty). Distance
# rows are 10 consecutive entries (entry j = 2m + p); "slot masks" have bit j set for row entry j.
_ROWS = 0  #: rows of the hand's groups (group 0: pung-only, 1..: suits), 4 rows
_PAIR = 40  #: leave-two-out: every group's row but g's and h's, row 4 * g + h for g < h (16 rows)
_CODES = 200  #: group codes of the hand (histogram code, then base-5 suit codes), 4 entries
_MASK = 204  #: per group: slots its row is given by some least-distance assignment, 4 entries
_HW = 212  #: pung-only group: summed weights (_WT) of its kinds of c tiles, c = 0..3
_XDIFF = 216  #: per suit kind x: packed row of its suit minus that row after adding x (each field
#: 0 or 1: whether adding x lowers that entry), 34 entries
_WT = 250  #: per kind x: 4 - visible[x] when x may be added (visible[x] < 4, hand[x] < 4), else 0
_MEMO = 284  #: per group h: key (slot mask, seven pairs) of its last live count for a discard outside
#: h, then (at _MEMO + 4 + h) that count
_DREG = 292  #: per kind k: regular-form distance after discarding k, 34 entries
_KW = 326  #: as _HW after the discard (when the discard is in the pung-only group)
_KSH = 330  #: round 1, entry c: shanten after discarding a pung-only kind of c tiles (99 for c = 0),
#: entry 4 + c: its regular-form distance
_COMP = 339  #: row g: the leave-one-out row rest[g] (every group's row but g's) reversed, entry j =
#: rest[g][2 * need + 1 - j] (INF past it), 4 rows
_SEL = 379  #: scratch list of kinds (round 1: held ranks of a suit; round 2: discards to count for)
_GMEMO = 413  #: per group g: the row key of its last discard evaluated (-1: none), then the other
#: groups' slot masks for it (4 entries): they depend on the discard only through g's new row
_WORD = 433  #: round 1: the packed rows after the discards of _SEL's kinds, 34 entries
_KROW = 467  #: _best_by_targets: per suit kind k held, the packed row of its suit after discarding k (34)
_BUF = 501

_NEUTRAL = (0, INF, INF, INF, INF, INF, INF, INF, INF, INF)  #: the row of no group (min-plus identity)
_POW5 = np.array([5**r for r in range(9)], np.int64)  #: base-5 code weight of each rank


@jit(internal=True, inline_in_llvm=True)
def _buf_row(buf, a):  # pragma: no cover - compiled
    """The 10 entries ``buf[a:a + 10]`` as a tuple."""
    return (
        buf[a],
        buf[a + 1],
        buf[a + 2],
        buf[a + 3],
        buf[a + 4],
        buf[a + 5],
        buf[a + 6],
        buf[a + 7],
        buf[a + 8],
        buf[a + 9],
    )


@jit(internal=True, inline_in_llvm=True)
def _reversed_at(x, top):  # pragma: no cover - compiled
    """The row ``x`` reversed about ``top`` (odd, 1..9): entry ``j`` is ``x[top - j]`` for ``j <= top``,
    ``INF`` past it (what completes entry ``j`` of another row to ``top``)."""
    f = np.int64(INF)
    if top == 9:
        return (x[9], x[8], x[7], x[6], x[5], x[4], x[3], x[2], x[1], x[0])
    if top == 7:
        return (x[7], x[6], x[5], x[4], x[3], x[2], x[1], x[0], f, f)
    if top == 5:
        return (x[5], x[4], x[3], x[2], x[1], x[0], f, f, f, f)
    if top == 3:
        return (x[3], x[2], x[1], x[0], f, f, f, f, f, f)
    return (x[1], x[0], f, f, f, f, f, f, f, f)


@jit(internal=True, inline_in_llvm=True)
def _min_sum(a, b):  # pragma: no cover - compiled
    """Least ``a[j] + b[j]``: a row completed by a reversed one (:func:`_reversed_at`)."""
    return min(
        a[0] + b[0],
        a[1] + b[1],
        a[2] + b[2],
        a[3] + b[3],
        a[4] + b[4],
        a[5] + b[5],
        a[6] + b[6],
        a[7] + b[7],
        a[8] + b[8],
        a[9] + b[9],
    )


@jit(internal=True, inline_in_llvm=True)
def _equal_mask(a, b, d):  # pragma: no cover - compiled
    """Slot mask: bit ``j`` set where ``a[j] + b[j] == d``."""
    return (
        np.int64(a[0] + b[0] == d)
        | np.int64(a[1] + b[1] == d) << 1
        | np.int64(a[2] + b[2] == d) << 2
        | np.int64(a[3] + b[3] == d) << 3
        | np.int64(a[4] + b[4] == d) << 4
        | np.int64(a[5] + b[5] == d) << 5
        | np.int64(a[6] + b[6] == d) << 6
        | np.int64(a[7] + b[7] == d) << 7
        | np.int64(a[8] + b[8] == d) << 8
        | np.int64(a[9] + b[9] == d) << 9
    )


@jit(internal=True, inline_in_llvm=True)
def _put_row(buf, o, e):  # pragma: no cover - compiled
    """``buf[o:o + 10]`` = the tuple ``e``."""
    buf[o], buf[o + 1], buf[o + 2], buf[o + 3], buf[o + 4] = e[0], e[1], e[2], e[3], e[4]
    buf[o + 5], buf[o + 6], buf[o + 7], buf[o + 8], buf[o + 9] = e[5], e[6], e[7], e[8], e[9]


@jit(internal=True, inline_in_llvm=True)
def _packed_bits(mask):  # pragma: no cover - compiled
    """Slot mask -> the lowest bit of each of its slots' fields in a packed suit row (slot 0 has no
    field: its distance is always 0, so no tile lowers it)."""
    return (
        ((mask >> 1) & 1) << _S1
        | ((mask >> 2) & 1) << _S2
        | ((mask >> 3) & 1) << _S3
        | ((mask >> 4) & 1) << _S4
        | ((mask >> 5) & 1) << _S5
        | ((mask >> 6) & 1) << _S6
        | ((mask >> 7) & 1) << _S7
        | ((mask >> 8) & 1) << _S8
        | ((mask >> 9) & 1) << _S9
    )  # branch-free: which slots are set is unpredictable


@jit(internal=True, inline_in_llvm=True)
def _seven_from(pairs, odd):  # pragma: no cover - compiled
    """:func:`seven_pairs_distance` from the number of pairs and of kinds with an odd count."""
    need = 7 - pairs
    if need <= 0:
        return 0
    if need <= odd:
        return need
    return odd + 2 * (need - odd)


@jit(internal=True, inline_in_llvm=True)
def _discard_row(counts, t, buf, g, i):  # pragma: no cover - compiled
    """(code, row) of group ``g`` after discarding its ``i``-th kind."""
    if g == 0:
        c = np.int64(counts[t.pung_kinds[i]])
        hk = buf[_CODES] - _HIST_W[c] + _HIST_W[c - 1]
        return hk, _pung_row(t, hk)
    hk = buf[_CODES + g] - _POW5[i]
    return hk, _suit_row(t, hk)


_SLOT_SHIFT = np.array(DIST_SHIFT, np.int64)  #: bit of a packed suit row's entry j (its field's lowest)
_MAX_BEST = 160  #: room for the whole hand's least-distance slot assignments (at most 140)


@jit(internal=True, inline_in_llvm=True, refcounts=False)
def _best_by_targets(
    counts, t, visible, sh_out, live_out, live_mode, d_whole, buf, n_groups, top, d_regular, seven, pairs, odd
):  # pragma: no cover - compiled
    """:func:`discard_eval_kernel` for ``LIVE_BEST`` / ``LIVE_TIES`` when the whole hand ``H``
    (14 - 3k tiles) is ``d_whole >= 1`` tiles from complete: every held kind's shanten after its
    discard, and the live tiles of the least-shanten discards. Returns the least shanten.

    A target ``T`` (a complete hand of the form's shape) misses ``missing(H, T)`` of its tiles.
    Removing a tile ``k`` that ``H`` holds beyond ``T`` costs nothing against ``T``, any other
    removal costs one; adding ``x`` saves one when ``T`` has more ``x`` than the hand. So the
    least-shanten discards are the ``k`` held beyond some best target of ``H`` (``missing =
    d_whole``), which leave ``d_whole`` to go (shanten ``d_whole - 1``); every other discard
    leaves one more. After a least-shanten discard ``k``, ``x`` lowers the shanten iff some best
    target ``T`` of ``H`` holds fewer ``k`` than ``H`` and more ``x``. No row is recombined per
    discard: the regular form's best targets are the least-distance assignments ``A`` of
    (melds, pair) slots to the groups, each group then any of its best targets for its slot. Per
    group and slot ``b`` the kinds that some best target leaves over (its *surplus*:
    ``dist(code - k)[b] == dist(code)[b]``; pung-only group:
    :func:`~simkit.hand.tables.hist_moves`) and those it lacks (its *deficit*: ``dist(code +
    x)[b] < dist(code)[b]``) are 34-bit kind masks; an assignment's surplus and deficit are their
    unions. For a discard ``k`` of group ``g``, the tiles of the other groups that lower are the
    union of the deficits of the assignments whose surplus holds ``k``; those of ``g`` itself must
    come from one target with ``k``: ``x`` with ``dist(code - k + x)[b] < dist(code - k)[b]`` at
    a slot ``b`` of those assignments (only ``x`` of those slots' deficits can). Seven pairs by
    its counts, as in the general round. Live counts are then a weighted popcount (the weights'
    three bit planes).

    ``d_regular``: the regular form's distance of ``H`` when it reaches ``d_whole``, else -1."""
    best = d_whole - 1
    sur = stack_empty(40, np.int64)  # per group g and slot b (10g + b): surplus, then deficit kinds
    dfc = stack_empty(40, np.int64)
    a_sur = stack_empty(_MAX_BEST, np.int64)  # per best assignment: surplus, deficit, slots (4 bits each)
    a_dfc = stack_empty(_MAX_BEST, np.int64)
    a_slots = stack_empty(_MAX_BEST, np.int64)
    # weights: bit planes of 4 - visible[x] over the kinds x that may be added
    plane1 = np.int64(0)
    plane2 = np.int64(0)
    plane4 = np.int64(0)
    odd_kinds = np.int64(0)
    tile_set = np.int64(0)
    for u in range(t.kinds.shape[0]):
        tile_set |= np.int64(1) << t.kinds[u]
    for x in range(34):  # every kind, masked by the tile set after (no gathers through t.kinds)
        c = np.int64(counts[x])
        v = np.int64(visible[x])
        w = (np.int64(4) - v) * np.int64(c < 4) * np.int64(v < 4)
        bit = np.int64(1) << x
        plane1 |= bit * (w & 1)
        plane2 |= bit * ((w >> 1) & 1)
        plane4 |= bit * ((w >> 2) & 1)
        odd_kinds |= bit * (c & 1)
    plane1 &= tile_set
    plane2 &= tile_set
    plane4 &= tile_set
    odd_kinds &= tile_set
    # the pung-only group's kinds by count
    by_count = stack_empty(5, np.int64)
    for c in range(5):
        by_count[c] = 0
    for u in range(t.n_pung):
        x = t.pung_kinds[u]
        by_count[counts[x]] |= np.int64(1) << x
    h0 = buf[_CODES]
    n_assign = 0
    if d_regular >= 0:
        opt = stack_empty(4, np.int64)  # per group: the slots some least-distance assignment gives it
        for g in range(4):
            opt[g] = 1  # a missing suit: the empty slot
        for g in range(n_groups):
            opt[g] = _equal_mask(_buf_row(buf, _ROWS + 10 * g), _buf_row(buf, _COMP + 10 * g), d_regular)
        # surplus and deficit kinds per group and slot some assignment gives it
        for b in range(10):  # the pung-only group
            if (opt[0] >> b) & 1:
                s_mask = np.int64(0)
                d_mask = np.int64(0)
                for c in range(5):
                    s_mask |= by_count[c] * ((np.int64(t.hdist[h0, HIST_REMOVE + c]) >> b) & 1)
                    d_mask |= by_count[c] * ((np.int64(t.hdist[h0, HIST_ADD + c]) >> b) & 1)
                sur[b] = s_mask
                dfc[b] = d_mask
        kept = stack_empty(9, np.int64)  # per rank: packed fields 1 where removing it keeps the entry
        lowered = stack_empty(9, np.int64)  # per rank: packed fields 1 where adding it lowers the entry
        for g in range(1, n_groups):
            base = t.suit_base[g - 1]
            code = buf[_CODES + g]
            w = np.int64(t.dist[code])
            held = np.int64(0)
            for r in range(9):  # removing a tile raises an entry by 0 or 1, adding one lowers it by 0 or 1
                c = np.int64(counts[base + r])
                held |= np.int64(c > 0) << r
                buf[_KROW + base + r] = np.int64(t.dist[code - _POW5[r] if c > 0 else code])
                kept[r] = ~(buf[_KROW + base + r] - w) if c > 0 else np.int64(0)
                lowered[r] = w - np.int64(t.dist[code + _POW5[r] if c < 4 else code])
            for b in range(10):
                if (opt[g] >> b) & 1:
                    if b == 0:  # the empty target: every held tile is left over, none lacking
                        sur[10 * g] = held << base
                        dfc[10 * g] = 0
                        continue
                    sh = _SLOT_SHIFT[b]
                    s_mask = np.int64(0)
                    d_mask = np.int64(0)
                    for r in range(9):
                        s_mask |= ((kept[r] >> sh) & 1) << r
                        d_mask |= ((lowered[r] >> sh) & 1) << r
                    sur[10 * g + b] = s_mask << base
                    dfc[10 * g + b] = d_mask << base
        for g in range(n_groups, 4):  # a missing suit's empty slot: nothing left over or lacking
            sur[10 * g] = 0
            dfc[10 * g] = 0
        # the least-distance assignments (a missing suit has the neutral row and only its empty
        # slot): three groups' slots chosen, the fourth's follows
        w0 = opt[0]
        while w0:  # over the set bits (slots) only: which are set is unpredictable
            b0 = lowest_set_bit(w0)
            w0 &= w0 - 1
            w1 = opt[1]
            while w1:
                b1 = lowest_set_bit(w1)
                w1 &= w1 - 1
                w2 = opt[2]
                while w2:
                    b2 = lowest_set_bit(w2)
                    w2 &= w2 - 1
                    b3 = top - b0 - b1 - b2
                    ok = (b3 >= 0) & (b3 <= 9) & ((b0 & 1) + (b1 & 1) + (b2 & 1) + (b3 & 1) == 1)
                    if not ok or not (opt[3] >> b3) & 1:
                        continue
                    if (
                        buf[_ROWS + b0] + buf[_ROWS + 10 + b1] + buf[_ROWS + 20 + b2] + buf[_ROWS + 30 + b3]
                        != d_regular
                    ):
                        continue
                    a_sur[n_assign] = sur[b0] | sur[10 + b1] | sur[20 + b2] | sur[30 + b3]
                    a_dfc[n_assign] = dfc[b0] | dfc[10 + b1] | dfc[20 + b2] | dfc[30 + b3]
                    a_slots[n_assign] = b0 | b1 << 4 | b2 << 8 | b3 << 12
                    n_assign += 1
    # the least-shanten discards: left over by a best regular target, or by a best seven pairs
    # (then only its count matters)
    regular_best = np.int64(0)
    for a in range(n_assign):
        regular_best |= a_sur[a]
    seven_best = stack_empty(5, np.int64)  # by the discard's count: 1 when it is such a discard
    seven_best[0] = 0
    for c in range(1, 5):
        seven_best[c] = np.int64(
            seven and _seven_from(pairs - (c >> 1) + ((c - 1) >> 1), odd - (c & 1) + ((c - 1) & 1)) == d_whole
        )
    best_kinds = np.int64(0)
    for k in range(34):
        c = np.int64(counts[k])
        is_best = ((regular_best >> k) & 1) | seven_best[c] if c > 0 else np.int64(0)
        sh_out[k] = 99 if c == 0 else (best if is_best else d_whole)
        best_kinds |= is_best << k
    if live_mode == LIVE_TIES and popcount64(best_kinds) < 2:
        return best
    groups = stack_empty(4, np.int64)  # each group's kinds
    sel = stack_empty(34, np.int64)  # the discards to count for, as 16 * group + index in the group
    n_sel = 0
    for g in range(n_groups):
        n_kinds = t.n_pung if g == 0 else 9
        group = np.int64(0)
        for i in range(n_kinds):
            k = t.pung_kinds[i] if g == 0 else t.suit_base[g - 1] + i
            group |= np.int64(1) << k
            sel[n_sel] = 16 * g + i
            n_sel += (best_kinds >> k) & 1
        groups[g] = group
    for v in range(n_sel):
        g = sel[v] >> 4
        i = sel[v] & 15
        k = t.pung_kinds[i] if g == 0 else t.suit_base[g - 1] + i
        c = np.int64(counts[k])
        bit_k = np.int64(1) << k
        lowers = np.int64(0)
        own = np.int64(0)  # slots of g in the assignments whose surplus holds k
        for a in range(n_assign):  # branch-free: whether k is left over is unpredictable
            hit = -((a_sur[a] >> k) & 1)
            lowers |= a_dfc[a] & hit
            own |= (np.int64(1) << ((a_slots[a] >> (4 * g)) & 15)) & hit
        lowers &= ~groups[g]
        own &= ~np.int64(1)  # nothing lowers the empty target
        if own != 0:
            if g == 0:
                hk = h0 - _HIST_W[c] + _HIST_W[c - 1]
                for cc in range(4):
                    hit = -np.int64((np.int64(t.hdist[hk, HIST_ADD + cc]) & own) != 0)
                    lowers |= by_count[cc] & ~bit_k & hit
            else:
                base = t.suit_base[g - 1]
                code = buf[_CODES + g] - _POW5[i]
                w1 = buf[_KROW + k]
                bits = _packed_bits(own)
                # only kinds some best target of the suit at those slots lacks can lower (a target
                # that leaves k over and lacks x lacks x): usually a few of the nine
                slots = own
                maybe = np.int64(0)
                while slots:
                    b = lowest_set_bit(slots)
                    slots &= slots - 1
                    maybe |= dfc[10 * g + b]
                maybe = (maybe >> base) & 511
                while maybe:
                    r = lowest_set_bit(maybe)
                    maybe &= maybe - 1
                    x = base + r
                    cx = np.int64(counts[x]) - np.int64(x == k)
                    up = code + _POW5[r] if cx < 4 else code
                    lowers |= np.int64(((w1 - np.int64(t.dist[up])) & bits) != 0) << x
        sev7 = np.int64(0)
        if seven:
            need7 = 7 - (pairs - (c >> 1) + ((c - 1) >> 1))
            odd7 = odd - (c & 1) + ((c - 1) & 1)
            if need7 > 0 and _seven_from(7 - need7, odd7) == d_whole:
                sev7 = tile_set if need7 > odd7 else (odd_kinds ^ bit_k)
        lowers |= sev7
        others = lowers & ~bit_k
        live = popcount64(others & plane1) + 2 * popcount64(others & plane2) + 4 * popcount64(others & plane4)
        if lowers & bit_k and visible[k] < 4:
            live += 4 - visible[k]
        live_out[k] = live
    return best


LIVE_NONE = 0  #: discard_eval_kernel: no live-tile counts
LIVE_ALL = 1  #: discard_eval_kernel: live-tile counts for every discard
LIVE_BEST = 2  #: discard_eval_kernel: live-tile counts only for the discards of least shanten
LIVE_TIES = 3  #: discard_eval_kernel: as LIVE_BEST, but only when two or more discards tie for it


@jit(called_by_symbol=True, refcounts=False)  # it owns no array (its scratch is on the stack)
def discard_eval_kernel(counts, n_melds, t, visible, sh_out, live_out, live_mode):  # pragma: no cover - compiled
    """For every kind ``k`` held in a ``14 - 3k`` tile hand: the shanten after discarding ``k``
    (``sh_out[k]``) and the number of live tiles that would then lower it (``live_out[k]``: over the
    tile set's kinds ``x`` with ``visible[x] < 4`` and fewer than 4 copies left in the hand,
    ``4 - visible[x]`` for each such ``x`` that lowers the shanten).

    ``visible`` int[34]: copies of each kind the player can see (hand included). ``live_mode``:
    :data:`LIVE_NONE`, :data:`LIVE_ALL`, :data:`LIVE_BEST` (only the discards of least shanten) or
    :data:`LIVE_TIES` (as LIVE_BEST when two or more kinds tie for least shanten, else none: all a
    "least shanten, then most live tiles" choice needs). Kinds not held get ``sh_out = 99``;
    ``live_out = -1`` where not computed. Returns the least shanten. The result equals evaluating
    :func:`shanten_kernel` on every hand ``counts - k`` and ``counts - k + x`` (tested against that
    definition), but no group rows are recombined per discard or per added tile:

    * Shanten after discarding ``k`` (of group ``g``): the leave-one-out rows ``rest[g]`` (every
      group but ``g`` combined; from prefix and suffix products of the rows, as tuples in
      registers, missing suits padded with the neutral row) are built once, then it is one
      final step with ``g``'s new row (pung-only kinds: once per count, as every kind of ``c``
      tiles gives the same row). Seven pairs (pairs and odd counts) is updated arithmetically.
    * Live tiles: adding a tile lowers each entry of its group's row by 0 or 1 and leaves the
      other rows alone. So if ``D`` is the regular distance after the discard, adding ``x`` gives
      ``D - 1`` iff some assignment of (melds, pair) slots to the groups that reaches ``D`` gives
      ``x``'s group a slot its row is lowered at. ``g``'s slots in such assignments are the ``b``
      with ``row_g[b] + rest[g][complement of b] == D``; another group ``h``'s are the ``j`` with
      ``row_h[j] + (g's new row x leave-two-out(g, h))[complement of j] == D`` (a min-plus
      product: every group but ``h`` after the discard; the six leave-two-out rows are made once
      when live tiles are counted, and discards leaving ``g`` the same row share these slots).
      Which slots adding ``x`` lowers is one table lookup (suits: the packed row
      difference, whose fields are 0 or 1; pung-only kinds: per count), made once per call for the
      groups a discard leaves alone, whose live count is also reused while their slots and the
      seven pairs case stay the same. Seven pairs drops by one iff it is above 0 and ``x`` has an
      odd count or there are fewer odd counts than missing pairs. The shanten is
      ``min(regular, seven pairs) - 1``, so ``x`` lowers it iff it lowers a form that reaches the
      minimum.

    With ``LIVE_BEST`` or ``LIVE_TIES`` (what the built-in policies ask for) and a hand that is not
    complete, none of that: every discard's shanten and the least-shanten discards' live tiles come
    from the whole hand's best targets (:func:`_best_by_targets`); the rounds above serve
    ``LIVE_NONE``, ``LIVE_ALL`` and complete hands.

    Loops over kinds select held kinds and sum weights without data-dependent branches where they
    can: which kinds a hand holds is unpredictable, and mispredicted branches would cost more than
    the arithmetic.
    """
    need = 4 - n_melds
    n_suits = t.n_suits
    n_groups = 1 + n_suits  # group 0: the pung-only group; 1..: the suits
    buf = stack_empty(_BUF, np.int64)
    h0, _ = pung_group(counts, t)
    buf[_CODES] = h0
    r0 = _pung_row(t, h0)
    c1, _ = suit_code(counts, t.suit_base[0])
    r1 = _suit_row(t, c1)
    r2 = _NEUTRAL
    r3 = _NEUTRAL
    buf[_CODES + 1] = c1
    if n_suits > 1:
        c2, _ = suit_code(counts, t.suit_base[1])
        buf[_CODES + 2] = c2
        r2 = _suit_row(t, c2)
    if n_suits > 2:
        c3, _ = suit_code(counts, t.suit_base[2])
        buf[_CODES + 3] = c3
        r3 = _suit_row(t, c3)
    _put_row(buf, _ROWS, r0)
    _put_row(buf, _ROWS + 10, r1)
    _put_row(buf, _ROWS + 20, r2)
    _put_row(buf, _ROWS + 30, r3)
    top = 2 * need + 1  # (melds, pair) entry j of a group pairs with entry top - j of its rest row
    # the leave-one-out rows rest[g], stored as complements (loops over the 10 entries then have
    # fixed bounds)
    p2 = _NEUTRAL
    s2 = _NEUTRAL
    if n_groups == 2:  # each group's rest row is the other's row
        comp0 = _reversed_at(r1, top)
        _put_row(buf, _COMP + 10, _reversed_at(r0, top))
    else:  # rest[g] = P_g S_(g+1): prefix products P_i (rows 0..i-1), suffix products S_i (rows i..)
        p2 = _row_product(r0, r1)
        s2 = _row_product(r2, r3)
        comp0 = _reversed_at(_row_product(r1, s2), top)
        _put_row(buf, _COMP + 10, _reversed_at(_row_product(r0, s2), top))
        _put_row(buf, _COMP + 20, _reversed_at(_row_product(p2, r3), top))
        _put_row(buf, _COMP + 30, _reversed_at(_row_product(p2, r2), top))
    _put_row(buf, _COMP, comp0)
    seven = t.seven_pairs and n_melds == 0
    pairs = 0
    odd = 0
    if seven:
        for u in range(t.kinds.shape[0]):
            c = np.int64(counts[t.kinds[u]])
            pairs += c >> 1
            odd += c & 1
    for k in range(34):
        sh_out[k] = 99
        live_out[k] = -1

    if live_mode == LIVE_BEST or live_mode == LIVE_TIES:
        # live tiles only for the least-shanten discards: when the 14 tiles are not complete, all
        # of it from the whole hand's best targets (_best_by_targets), no row recombined per discard
        d_regular = min(np.int64(INF), _min_sum(_buf_row(buf, _ROWS), _buf_row(buf, _COMP)))
        d_whole = d_regular
        if seven:
            d_whole = min(d_whole, _seven_from(pairs, odd))
        if d_whole >= 1:
            return _best_by_targets(
                counts,
                t,
                visible,
                sh_out,
                live_out,
                live_mode,
                d_whole,
                buf,
                n_groups,
                top,
                d_regular if d_regular == d_whole else -1,
                seven,
                pairs,
                odd,
            )

    # round 1: shanten after each discard (selections below are branch-free: which kinds are held
    # is unpredictable, and mispredicted branches would dominate)
    best = 99
    present = 0  # the pung-only group: discarding any kind of c tiles gives the same hand shape
    for i in range(t.n_pung):
        present |= 1 << counts[t.pung_kinds[i]]
    buf[_KSH] = 99  # _KSH + c: shanten after discarding a pung-only kind of c tiles (99: none held)
    for c in range(1, 5):
        if (present >> c) & 1:
            d = min(np.int64(INF), _min_sum(_pung_row(t, h0 - _HIST_W[c] + _HIST_W[c - 1]), comp0))
            buf[_KSH + 4 + c] = d  # the regular form's distance
            if seven:
                d = min(d, _seven_from(pairs - (c >> 1) + ((c - 1) >> 1), odd - (c & 1) + ((c - 1) & 1)))
            buf[_KSH + c] = d - 1
            best = min(best, d - 1)
    for i in range(t.n_pung):
        k = t.pung_kinds[i]
        sh_out[k] = buf[_KSH + counts[k]]
        buf[_DREG + k] = buf[_KSH + 4 + counts[k]]
    n_held = 0  # the held suit kinds, as 16 * suit + rank
    for s in range(n_suits):
        base = t.suit_base[s]
        for r in range(9):
            buf[_SEL + n_held] = 16 * s + r
            n_held += counts[base + r] > 0
    for u in range(n_held):  # their suits' rows after the discard: the table loads miss the cache,
        s = buf[_SEL + u] >> 4  # so they are issued together, before any waits on one
        buf[_WORD + u] = t.dist[buf[_CODES + 1 + s] - _POW5[buf[_SEL + u] & 15]]
    for u in range(n_held):
        s = buf[_SEL + u] >> 4
        k = t.suit_base[s] + (buf[_SEL + u] & 15)
        c = np.int64(counts[k])
        d = min(np.int64(INF), _min_sum(_packed_row(buf[_WORD + u]), _buf_row(buf, _COMP + 10 * (1 + s))))
        buf[_DREG + k] = d
        if seven:
            d = min(d, _seven_from(pairs - (c >> 1) + ((c - 1) >> 1), odd - (c & 1) + ((c - 1) & 1)))
        sh_out[k] = d - 1
        best = min(best, d - 1)

    # round 2: live tiles that lower it
    if live_mode == LIVE_NONE:
        return best
    if live_mode == LIVE_TIES:
        n_best = 0
        for k in range(34):
            n_best += sh_out[k] == best
        if n_best < 2:
            return best
    for g in range(n_groups):
        buf[_MEMO + g] = -1
        buf[_GMEMO + 5 * g] = -1
    if n_groups > 2:  # leave-two-out rows, row 4 * g + h (g < h): every group's row but g's and h's
        _put_row(buf, _PAIR + 10, s2)  # (a missing third suit has the neutral row)
        _put_row(buf, _PAIR + 20, _row_product(r1, r3))
        _put_row(buf, _PAIR + 30, _row_product(r1, r2))
        _put_row(buf, _PAIR + 60, _row_product(r0, r3))
        _put_row(buf, _PAIR + 70, _row_product(r0, r2))
        _put_row(buf, _PAIR + 110, p2)
    for c in range(4):
        buf[_HW + c] = 0
    for u in range(t.n_pung):  # weights of the pung-only kinds, by count
        x = t.pung_kinds[u]
        c = np.int64(counts[x])
        buf[_WT + x] = 0
        if c < 4 and visible[x] < 4:
            buf[_WT + x] = 4 - visible[x]
            buf[_HW + c] += 4 - visible[x]
    for s in range(n_suits):
        base = t.suit_base[s]
        code = buf[_CODES + 1 + s]
        w0 = np.int64(t.dist[code])
        for r in range(9):
            x = base + r
            buf[_WT + x] = 0
            if counts[x] < 4:
                if visible[x] < 4:
                    buf[_WT + x] = 4 - visible[x]
                buf[_XDIFF + x] = w0 - np.int64(t.dist[code + _POW5[r]])

    every = np.int64(live_mode == LIVE_ALL)
    n_sel = 0  # the discards to count live tiles for, as 16 * group + index in the group
    for g in range(n_groups):
        n_kinds = t.n_pung if g == 0 else 9
        for i in range(n_kinds):
            k = t.pung_kinds[i] if g == 0 else t.suit_base[g - 1] + i
            buf[_SEL + n_sel] = 16 * g + i
            n_sel += (np.int64(sh_out[k] == best) | every) & np.int64(counts[k] > 0)
    for v in range(n_sel):
        g = buf[_SEL + v] >> 4
        i = buf[_SEL + v] & 15
        k = t.pung_kinds[i] if g == 0 else t.suit_base[g - 1] + i
        c = np.int64(counts[k])
        hk, rg = _discard_row(counts, t, buf, g, i)
        hk_row = hk if g == 0 else np.int64(t.dist[hk])  # determines g's new row (suits: the packed row)
        m = sh_out[k] + 1
        d = buf[_DREG + k]
        for h in range(n_groups):
            buf[_MASK + h] = 0
        if d == m and d < INF:  # the regular form reaches the minimum: its slots
            mg = _equal_mask(rg, _buf_row(buf, _COMP + 10 * g), d)
            buf[_MASK + g] = mg
            if n_groups == 2:  # the other group takes the complement of g's slot
                mh = np.int64(0)
                for j in range(top + 1):
                    mh |= ((mg >> j) & np.int64(buf[_COMP + 10 * g + j] < INF)) << (top - j)
                buf[_MASK + 1 - g] = mh
            elif buf[_GMEMO + 5 * g] == hk_row:  # the same new row of g as its last discard: same slots
                for h in range(n_groups):
                    if h != g:
                        buf[_MASK + h] = buf[_GMEMO + 5 * g + 1 + h]
            else:  # h's slots: j with row_h[j] + (every group but h, g's new row included)[top - j] == d
                buf[_GMEMO + 5 * g] = hk_row
                for h in range(n_groups):
                    if h == g:
                        continue
                    x = _row_product(rg, _buf_row(buf, _PAIR + 10 * (4 * min(g, h) + max(g, h))))
                    mh = _equal_mask(_buf_row(buf, _ROWS + 10 * h), _reversed_at(x, top), d)
                    buf[_MASK + h] = mh
                    buf[_GMEMO + 5 * g + 1 + h] = mh
        sev = False
        all7 = False
        odd_sev = np.int64(0)  # 1 where an odd count (after the discard) means x lowers seven pairs
        if seven:
            need7 = 7 - (pairs - (c >> 1) + ((c - 1) >> 1))
            odd7 = odd - (c & 1) + ((c - 1) & 1)
            sev = need7 > 0 and _seven_from(7 - need7, odd7) == m
            all7 = sev and need7 > odd7  # then any tile lowers seven pairs
            odd_sev = np.int64(sev)
        wk = 0  # weight of k itself (one copy fewer in the hand)
        if visible[k] < 4:
            wk = 4 - visible[k]
        live = 0
        for h in range(n_groups):
            mask = buf[_MASK + h] & ~np.int64(1)
            if mask == 0 and not sev:
                continue
            if all7:  # every tile counts
                n_x = t.n_pung if h == 0 else 9
                for u in range(n_x):
                    x = t.pung_kinds[u] if h == 0 else t.suit_base[h - 1] + u
                    live += wk if x == k else buf[_WT + x]
                continue
            bits = mask if h == 0 else _packed_bits(mask)
            if h != g:  # depends on the discard only through (mask, sev): memoized
                key = mask | (np.int64(sev) << 10)
                if buf[_MEMO + h] != key:
                    part = 0
                    if h == 0:  # by count: every kind of c tiles lowers the same slots
                        for cc in range(4):  # what adding a tile to a kind of cc tiles lowers: tabulated
                            hit = np.int64((np.int64(t.hdist[h0, HIST_ADD + cc]) & bits) != 0) | (odd_sev & cc)
                            part += buf[_HW + cc] * (hit & 1)
                    else:
                        for r in range(9):
                            x = t.suit_base[h - 1] + r
                            hit = np.int64((buf[_XDIFF + x] & bits) != 0) | (odd_sev & np.int64(counts[x]))
                            part += buf[_WT + x] * (hit & 1)  # (_XDIFF is unset where _WT is 0)
                    buf[_MEMO + h] = key
                    buf[_MEMO + 4 + h] = part
                live += buf[_MEMO + 4 + h]
            elif g == 0:  # by count, k moved from c to c - 1 tiles
                for cc in range(4):
                    buf[_KW + cc] = buf[_HW + cc]
                if c < 4:
                    buf[_KW + c] -= buf[_WT + k]
                buf[_KW + c - 1] += wk
                for cc in range(4):
                    w = buf[_KW + cc]  # 0 where no kind holds cc tiles (its table entry is 0 too)
                    hit = np.int64((np.int64(t.hdist[hk, HIST_ADD + cc]) & bits) != 0) | (odd_sev & cc)
                    live += w * (hit & 1)
            else:
                base = t.suit_base[g - 1]
                w0 = np.int64(t.dist[hk])
                for r in range(9):
                    x = base + r
                    cx = np.int64(counts[x])
                    w = buf[_WT + x]
                    if x == k:
                        cx -= 1
                        w = wk
                    # x may be added (w != 0) only below 4 copies: otherwise look at hk itself
                    code = hk + _POW5[r] if w != 0 else hk
                    hit = np.int64(((w0 - np.int64(t.dist[code])) & bits) != 0) | (odd_sev & cx)
                    live += w * (hit & 1)
        live_out[k] = live
    return best
