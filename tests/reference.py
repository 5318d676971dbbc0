"""Slow, obviously-correct pure-Python reference for the simkit hand kernels.

Nothing here imports ``simkit``; the numba kernels are tested *against* this module.

Conventions
-----------
* A hand is a length-34 sequence of ints: the count of each tile kind.
  Kind index: m1-9 = 0..8, p1-9 = 9..17, s1-9 = 18..26, honors z1-7 = 27..33
  (East South West North White Green Red).
* A **chow** is three consecutive ranks of one of the suits m, p, s (never wrapping,
  never honors); a **pung** is three identical tiles; a **pair** two identical tiles.
* ``kinds``: the tile kinds that exist in the rule set (douque: ``DOUQUE_KINDS``;
  night_market / duel: ``MZ_KINDS``; for_two: ``ALL_KINDS``).  A target hand never
  contains a tile of a kind outside ``kinds`` (so e.g. in douque no p-chow is possible,
  because 2p-8p do not exist).
* ``n_melds`` = k exposed melds already made (0..4).  The concealed part must then
  complete 4-k melds + 1 pair, i.e. a complete concealed part has 14-3k tiles and a
  waiting one 13-3k tiles.
* ``seven_pairs=True`` (duel) additionally allows seven pairs when k == 0: 14 tiles,
  every count even; four identical tiles count as two pairs.

Functions
---------
``ref_is_win``, ``ref_splits``, ``ref_waits``, ``ref_shanten`` (see their docstrings).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Sequence

import numpy as np

N_KINDS = 34
ALL_KINDS: tuple[int, ...] = tuple(range(34))
#: douque: m1-9, p1, p9, z1-7 (72 tiles)
DOUQUE_KINDS: tuple[int, ...] = tuple(range(9)) + (9, 17) + tuple(range(27, 34))
#: night_market / duel: m1-9, z1-7
MZ_KINDS: tuple[int, ...] = tuple(range(9)) + tuple(range(27, 34))

#: the four groups no meld can cross: (first kind, last kind + 1, chows allowed)
GROUPS: tuple[tuple[int, int, bool], ...] = ((0, 9, True), (9, 18, True), (18, 27, True), (27, 34, False))

_SUIT_TEXT = "mpsz"


# --------------------------------------------------------------------------- helpers


def _counts_tuple(counts: Sequence[int]) -> tuple[int, ...]:
    c = tuple(counts.tolist()) if isinstance(counts, np.ndarray) else tuple(map(int, counts))
    if len(c) != N_KINDS:
        raise ValueError(f"a hand is a length-34 count vector, got length {len(c)}")
    if min(c) < 0:
        raise ValueError("negative tile count")
    return c


def _kinds_frozenset(kinds: Iterable[int]) -> frozenset[int]:
    if isinstance(kinds, (range, tuple, frozenset)):
        return _kinds_frozenset_cached(kinds)
    return _kinds_frozenset_cached(tuple(kinds))


@functools.lru_cache(maxsize=256)
def _kinds_frozenset_cached(kinds: range | tuple | frozenset) -> frozenset[int]:
    ks = frozenset(map(int, kinds))
    if ks and (min(ks) < 0 or max(ks) >= N_KINDS):
        raise ValueError("kind index out of range 0..33")
    return ks


@functools.lru_cache(maxsize=256)
def _missing_kinds(ks: frozenset[int]) -> tuple[int, ...]:
    """The kinds 0..33 not in ``ks``."""
    return tuple(i for i in range(N_KINDS) if i not in ks)


def _check_n_melds(n_melds: int) -> int:
    k = int(n_melds)
    if not 0 <= k <= 4:
        raise ValueError(f"n_melds must be 0..4, got {n_melds}")
    return k


def chow_starts_ok(i: int) -> bool:
    """True iff a chow may start at kind ``i`` (i, i+1, i+2 in the same suit m/p/s)."""
    return i < 27 and i % 9 <= 6


def parse_hand(text: str) -> list[int]:
    """``"123m19p55z"`` -> length-34 counts. Digits apply to the next suit letter."""
    counts = [0] * N_KINDS
    pending: list[int] = []
    for ch in text.replace(" ", ""):
        if ch.isdigit():
            pending.append(int(ch))
        elif ch in _SUIT_TEXT:
            base = 9 * _SUIT_TEXT.index(ch)
            for d in pending:
                top = 7 if ch == "z" else 9
                if not 1 <= d <= top:
                    raise ValueError(f"bad tile {d}{ch}")
                counts[base + d - 1] += 1
            pending = []
        else:
            raise ValueError(f"bad character {ch!r} in {text!r}")
    if pending:
        raise ValueError(f"digits without suit letter in {text!r}")
    return counts


def hand_text(counts: Sequence[int]) -> str:
    """Inverse of :func:`parse_hand` (for messages)."""
    out = []
    for g, suit in enumerate(_SUIT_TEXT):
        digits = "".join(str(r + 1) * int(counts[9 * g + r]) for r in range(7 if suit == "z" else 9))
        if digits:
            out.append(digits + suit)
    return "".join(out)


# --------------------------------------------------------------------------- is_win


@functools.lru_cache(maxsize=1 << 18)
def _decomposes(c: tuple[int, ...], need_pair: bool, first: int = 0) -> bool:
    """Can ``c`` be split exactly into melds (pung/chow) plus ``need_pair`` pairs (0 or 1)?

    ``c`` holds the counts of the consecutive kinds ``first, first+1, ...`` (the whole hand
    with first=0, or one group m/p/s/z).  Plain recursion: the lowest kind present must be
    used by some item, and the only items that can contain it are a pair of it, a pung of
    it, or the chow starting at it.
    """
    for i, x in enumerate(c):
        if x:
            break
    else:
        return not need_pair
    lst = list(c)
    if need_pair and c[i] >= 2:
        lst[i] -= 2
        if _decomposes(tuple(lst), False, first):
            return True
        lst[i] += 2
    if c[i] >= 3:
        lst[i] -= 3
        if _decomposes(tuple(lst), need_pair, first):
            return True
        lst[i] += 3
    if chow_starts_ok(first + i) and c[i + 1] and c[i + 2]:
        lst[i] -= 1
        lst[i + 1] -= 1
        lst[i + 2] -= 1
        if _decomposes(tuple(lst), need_pair, first):
            return True
    return False


def _is_seven_pairs(c: tuple[int, ...]) -> bool:
    """14 tiles, every count even (0, 2 or 4; a 4 counts as two pairs)."""
    return sum(c) == 14 and all(x % 2 == 0 for x in c)


def ref_is_win(
    counts: Sequence[int],
    n_melds: int = 0,
    kinds: Iterable[int] = ALL_KINDS,
    seven_pairs: bool = False,
) -> bool:
    """True iff the concealed ``counts`` are a complete hand.

    Complete = total is 14-3k (k = ``n_melds``) and the tiles split into 4-k melds
    (pung or chow) + one pair, every tile of a kind in ``kinds``; or, if ``seven_pairs``
    and k == 0, 14 tiles with every count even (four identical tiles = two pairs).
    A wrong total gives False.
    """
    return _is_win(_counts_tuple(counts), _check_n_melds(n_melds), _kinds_frozenset(kinds), bool(seven_pairs))


def _is_win(c: tuple[int, ...], k: int, ks: frozenset[int], seven_pairs: bool) -> bool:
    """:func:`ref_is_win` on already-validated arguments."""
    if sum(c) != 14 - 3 * k:
        return False
    if any(c[i] for i in _missing_kinds(ks)):  # a tile of a kind outside ks
        return False
    if seven_pairs and k == 0 and _is_seven_pairs(c):
        return True
    # 14-3k tiles = one pair + (12-3k)/3 = 4-k melds, so "melds + exactly one pair" suffices,
    # i.e. _decomposes(c, True).  Same answer, faster (smaller memo keys, shared across hands):
    # no meld or pair crosses the groups m/p/s/z, so some group holds the pair and splits into
    # melds + pair while every other group splits into melds alone.
    parts = [(c[lo:hi], lo) for lo, hi, _chows in GROUPS]
    no_pair = [_decomposes(part, False, lo) for part, lo in parts]
    return any(
        _decomposes(part, True, lo) and all(no_pair[h] for h in range(len(parts)) if h != g)
        for g, (part, lo) in enumerate(parts)
    )


# --------------------------------------------------------------------------- splits


@functools.lru_cache(maxsize=1 << 18)
def _all_splits(c: tuple[int, ...], need_pair: bool) -> frozenset[tuple]:
    """All multisets (as sorted tuples) of items splitting ``c`` into melds + need_pair pairs."""
    i = next((j for j, x in enumerate(c) if x), None)
    if i is None:
        return frozenset({()}) if not need_pair else frozenset()
    found: set[tuple] = set()

    def extend(item: tuple, rest: list[int], pair_left: bool) -> None:
        for sub in _all_splits(tuple(rest), pair_left):
            found.add(tuple(sorted(sub + (item,))))

    if need_pair and c[i] >= 2:
        rest = list(c)
        rest[i] -= 2
        extend(("pair", i), rest, False)
    if c[i] >= 3:
        rest = list(c)
        rest[i] -= 3
        extend(("pung", i), rest, need_pair)
    if chow_starts_ok(i) and c[i + 1] and c[i + 2]:
        rest = list(c)
        rest[i] -= 1
        rest[i + 1] -= 1
        rest[i + 2] -= 1
        extend(("chow", i), rest, need_pair)
    return frozenset(found)


def ref_splits(counts: Sequence[int], n_melds: int = 0) -> set[tuple]:
    """Every distinct split of a complete concealed part into 4-k melds + one pair.

    Each split is a sorted tuple of ``("pung", kind)``, ``("chow", first_kind)`` and
    ``("pair", kind)``; two splits are the same iff these multisets are equal
    (111222333m -> {three pungs + ..., three 123m chows + ...}).  Seven pairs are not
    included.  Empty set if the total is not 14-3k or there is no split.
    """
    c = _counts_tuple(counts)
    k = _check_n_melds(n_melds)
    if sum(c) != 14 - 3 * k:
        return set()
    return set(_all_splits(c, True))


# --------------------------------------------------------------------------- waits


def ref_waits(
    counts: Sequence[int],
    n_melds: int = 0,
    meld_counts: Sequence[int] | None = None,
    kinds: Iterable[int] = ALL_KINDS,
    seven_pairs: bool = False,
) -> set[int]:
    """Winning kinds for a concealed part of 13-3k tiles.

    The set of t in ``kinds`` such that ``counts`` + one t is a win (:func:`ref_is_win`
    with the same ``n_melds``, ``kinds``, ``seven_pairs``), excluding every t of which the
    player already holds 4 copies in ``counts`` + ``meld_counts`` (the tiles of the
    player's exposed melds, default none).  Raises ValueError for a wrong total.
    """
    c = _counts_tuple(counts)
    k = _check_n_melds(n_melds)
    ks = _kinds_frozenset(kinds)
    mc = (0,) * N_KINDS if meld_counts is None else _counts_tuple(meld_counts)
    if sum(c) != 13 - 3 * k:
        raise ValueError(f"ref_waits needs 13-3k = {13 - 3 * k} concealed tiles, got {sum(c)}")
    waits: set[int] = set()
    for t in sorted(ks):
        if c[t] + mc[t] >= 4:
            continue
        plus = list(c)
        plus[t] += 1
        if _is_win(tuple(plus), k, ks, bool(seven_pairs)):  # == ref_is_win(plus, k, ks, seven_pairs)
            waits.add(t)
    return waits


# --------------------------------------------------------------------------- shanten
#
# Literal definition: shanten = min over complete targets T of sum_i max(T_i - c_i, 0), - 1.
# cost(T) = |T| - sum_i min(T_i, c_i).  For one group (m, p, s or z) the best target of each
# shape (m melds, p pairs) is found by evaluating sum_i min(T_i, c_i) with numpy over the
# explicitly enumerated list of all that group's targets.

_MAX_MELDS = 4


@functools.lru_cache(maxsize=None)
def _group_targets(group_kinds: tuple[int, ...], chows: bool) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """Every target configuration of one group, explicitly enumerated.

    ``group_kinds``: the kinds of this group that exist (absolute indices, all in one group);
    ``chows``: whether chows are allowed in this group (m/p/s yes, z no).

    Returns ``(targets_t, starts, present)``: ``targets_t`` is a (len(group_kinds), N) int8
    array whose column r is target r (its count of each of group_kinds); the columns are
    grouped by shape s = 2*m + p (m melds, p in {0,1} pairs), in increasing s, distinct
    within a shape; ``present`` lists the shapes that have at least one target and
    ``starts`` their first columns.  Every column is a count vector <= 4 per kind that is
    exactly m melds + p pairs of kinds in group_kinds, and every such vector is a column.
    """
    pos = {kind: j for j, kind in enumerate(group_kinds)}
    melds: list[tuple[int, ...]] = [(kind,) * 3 for kind in group_kinds]
    if chows:
        melds += [
            (kind, kind + 1, kind + 2)
            for kind in group_kinds
            if chow_starts_ok(kind) and kind + 1 in pos and kind + 2 in pos
        ]
    pairs: list[tuple[int, ...]] = [()] + [(kind, kind) for kind in group_kinds]
    by_shape: list[set[tuple[int, ...]]] = [set() for _ in range(2 * (_MAX_MELDS + 1))]
    for m in range(_MAX_MELDS + 1):
        for chosen in itertools.combinations_with_replacement(melds, m):
            for pair in pairs:
                vec = [0] * len(group_kinds)
                for tile in itertools.chain(pair, *chosen):
                    vec[pos[tile]] += 1
                if max(vec, default=0) <= 4:
                    by_shape[2 * m + (1 if pair else 0)].add(tuple(vec))
    rows: list[tuple[int, ...]] = []
    starts: list[int] = []  # first row of each shape that has targets
    present: list[int] = []  # those shapes
    for s, vecs in enumerate(by_shape):
        if vecs:
            starts.append(len(rows))
            present.append(s)
            rows.extend(sorted(vecs))
    targets = np.array(rows, dtype=np.int8).reshape(len(rows), len(group_kinds))
    # transposed (kind-major) so that the per-hand sum over kinds is a few long vector ops
    return np.ascontiguousarray(targets.T), np.array(starts, dtype=np.intp), tuple(present)


_INF = 1 << 30
_N_SHAPES = 2 * (_MAX_MELDS + 1)


def _shape_size(s: int) -> int:
    """Tiles in a target of shape s = 2*m + p: 3m + 2p."""
    return 3 * (s // 2) + 2 * (s % 2)


@functools.lru_cache(maxsize=1 << 18)
def _group_costs(group_kinds: tuple[int, ...], chows: bool, group_counts: tuple[int, ...]) -> tuple[int, ...]:
    """For each shape s = 2*m + p (0..9): min over this group's targets T of that shape of
    sum_i max(T_i - c_i, 0) = |T| - sum_i min(T_i, c_i)  (``_INF`` if no target has shape s)."""
    if not group_kinds:  # a group with no existing kind: only the empty target
        return (0,) + (_INF,) * (_N_SHAPES - 1)
    targets_t, starts, present = _group_targets(group_kinds, chows)
    overlap = np.zeros(targets_t.shape[1], dtype=np.int8)  # sum_i min(T_i, c_i), every target
    for row, c_i in zip(targets_t, group_counts):
        if c_i:  # (a kind the hand lacks adds min(T_i, 0) = 0)
            overlap += np.minimum(row, min(c_i, 4))  # (T_i <= 4)
    best_overlap = np.maximum.reduceat(overlap, starts)  # max within each present shape
    out = [_INF] * _N_SHAPES
    for s, ov in zip(present, best_overlap.tolist()):
        out[s] = _shape_size(s) - int(ov)
    return tuple(out)


@functools.lru_cache(maxsize=256)
def _groups_in(ks: frozenset[int]) -> tuple[tuple[tuple[int, ...], bool], ...]:
    """For each group m/p/s/z: (its kinds that are in ks, chows allowed)."""
    return tuple((tuple(i for i in range(lo, hi) if i in ks), chows) for lo, hi, chows in GROUPS)


def _regular_deficit(c: tuple[int, ...], k: int, ks: frozenset[int]) -> int:
    """min over complete regular targets (4-k melds + 1 pair over ks, counts <= 4) of
    sum_i max(T_i - c_i, 0).

    Groups are combined by a min-plus over shapes s = 2*melds + pairs: the target of the
    whole hand is the union of one target per group, and its cost is the sum of theirs.
    """
    final = 2 * (4 - k) + 1  # shape of a complete concealed part: 4-k melds, 1 pair
    best = [0] + [_INF] * final  # best[s]: min cost over the groups so far, total shape s
    *first_groups, (last_gk, last_chows) = _groups_in(ks)
    for gk, chows in first_groups:
        costs = _group_costs(gk, chows, tuple([c[i] for i in gk]))
        shapes = [(s1, cost) for s1, cost in enumerate(costs) if cost < _INF]
        nxt = [_INF] * (final + 1)
        for s0, base in enumerate(best):
            if base >= _INF:
                continue
            for s1, cost in shapes:
                s = s0 + s1
                if s > final or (s0 % 2 and s1 % 2):  # too many melds / more than one pair
                    continue
                if base + cost < nxt[s]:
                    nxt[s] = base + cost
        best = nxt
    # last group: only the total shape `final` is wanted
    costs = _group_costs(last_gk, last_chows, tuple([c[i] for i in last_gk]))
    return min([best[s0] + costs[final - s0] for s0 in range(final + 1) if not (s0 % 2 and (final - s0) % 2)])


def _seven_pairs_deficit(c: tuple[int, ...], ks: frozenset[int]) -> int:
    """min over seven-pairs targets (each kind in ks: 0, 2 or 4 copies; 14 tiles) of
    sum_i max(T_i - c_i, 0).  Tiny DP over kinds: state = pairs placed so far."""
    best = [0] + [_INF] * 7
    for i in sorted(ks):
        nxt = [_INF] * 8
        for placed, base in enumerate(best):
            if base >= _INF:
                continue
            for n_pairs in (0, 1, 2):  # target count 0, 2, 4
                if placed + n_pairs <= 7:
                    cost = base + max(2 * n_pairs - c[i], 0)
                    if cost < nxt[placed + n_pairs]:
                        nxt[placed + n_pairs] = cost
        best = nxt
    return best[7]


def ref_shanten(
    counts: Sequence[int],
    n_melds: int = 0,
    kinds: Iterable[int] = ALL_KINDS,
    seven_pairs: bool = False,
) -> int:
    """Shanten number of a concealed part of 13-3k or 14-3k tiles (else ValueError).

    Definition (implemented literally)::

        shanten = min over complete targets T of  sum_i max(T_i - counts_i, 0)  - 1

    where a complete target T is a 14-3k tile count vector over ``kinds`` with every
    count <= 4 that splits into 4-k melds + 1 pair, or, if ``seven_pairs`` and k == 0,
    seven pairs (a kind with 4 copies = two pairs).

    Why this is the definition: sum_i max(T_i - c_i, 0) is the number of tiles of T the
    hand lacks, i.e. the number of draws (each paired with a discard of a tile not in T;
    a 13-tile hand has one free slot) needed to turn the hand into T.  So the minimum is
    the fewest tiles that must still arrive to be complete; "ready" (one tile away) is 0
    and complete is -1.  Only concealed tiles count against the 4-copy limit of T; tiles
    in exposed melds (and the opponent's / discarded tiles) are ignored, the same
    convention as the ``mahjong`` package.

    Implementation: melds never cross the groups m / p / s / z and the cost is a sum over
    kinds, so each group's every target configuration (m melds, p pairs) is enumerated
    once (cached per group kinds), the best overlap with the hand is found vectorised,
    and the groups are combined by a min-plus over (melds, pairs).
    """
    c = _counts_tuple(counts)
    k = _check_n_melds(n_melds)
    ks = _kinds_frozenset(kinds)
    n = 4 - k
    if sum(c) not in (3 * n + 1, 3 * n + 2):
        raise ValueError(f"ref_shanten needs {3 * n + 1} or {3 * n + 2} concealed tiles, got {sum(c)}")
    deficit = _regular_deficit(c, k, ks)
    if seven_pairs and k == 0:
        deficit = min(deficit, _seven_pairs_deficit(c, ks))
    if deficit >= _INF:
        raise ValueError("no complete target exists over these kinds")
    return deficit - 1


def clear_caches() -> None:
    """Drop memoised results (for timing)."""
    _decomposes.cache_clear()
    _all_splits.cache_clear()
    _group_costs.cache_clear()
