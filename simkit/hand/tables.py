"""Lookup tables for hand analysis.

A hand splits into independent *groups* of kinds: melds never cross from one group to another.
Every rule set's tile set is made of

* one to three **suits** (characters always; dots and bamboo in ``for_two``): 9 ranks, chows allowed;
* one **pung-only group**: the kinds among which no chow exists -- the seven honors, plus, in
  ``douque``, the 1 and 9 of dots (its only dots). It has exactly 7 or 9 kinds.

Suits are keyed by their **base-5 code** ``sum c_r * 5**r`` (``c_r`` tiles of rank ``r``):

``dist[code]`` (uint32)
    the distance row, packed: ``d(m, p)`` is the least number of tiles that must be *added* to the
    suit so that it contains ``m`` melds (0-4) and ``p`` pairs (0-1), at most 4 copies per kind:
    ``min over targets t of sum_r max(t_r - c_r, 0)``. Entry ``j = 2m + p`` sits at bit
    ``DIST_SHIFT[j]``, ``DIST_BITS[j]`` wide (``d <= 3m + 2p`` fits; ``d(0, 0) = 0`` takes no bits), so
    a row is 4 bytes and the table 7.5 MiB: it stays in cache, which matters more than the unpacking.
    :func:`unpack_dist` gives the plain ``uint8[n, 10]`` rows. Shanten is a min-plus combination of
    these rows over the groups (:mod:`simkit.hand.shanten`).
``info[code]`` (uint16)
    bit :data:`COMPLETE` set when the suit is exactly ``n // 3`` melds (+ a pair when ``n % 3 == 2``),
    for ``n <= 14`` tiles (a hand never has more than 4 melds and a pair); bits 0-8: the ranks whose
    addition makes the suit complete (its waits).

In a pung-only group every kind plays the same role, so its distance row depends only on how many of
its kinds hold 1, 2, 3 and 4 tiles. It is keyed by the **histogram code** ``sum_k 10**(c_k - 1)``
over kinds with ``c_k > 0`` (decimal digits n1, n2, n3, n4): ``hdist[size][hcode, 2*m + p]`` for
groups of 7 and 9 kinds. Its completeness and waits are arithmetic (:mod:`simkit.hand.win`).
How a tile added to or removed from one of its kinds moves the row depends only on the histogram
code and that kind's count: :func:`hist_moves` tabulates it next to the rows when a rule set's
layout is made.

All tables are built once (about a second) by :func:`build_tables` and cached on disk as ``.npy``
files in :func:`cache_dir`; later processes only load them. ``scripts/build_tables.py`` rebuilds them.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .._cache import cache_dir as _cache_dir
from .._jit import borrow, jit
from ..rules import resolve_rules

__all__ = [
    "INF",
    "COMPLETE",
    "WAIT_MASK",
    "TABLES_VERSION",
    "HIST_POW",
    "HandTables",
    "Tables",
    "build_tables",
    "load_tables",
    "cache_dir",
    "hand_tables",
    "hand_tables_stand_in",
    "borrowed_hand_tables",
    "layout_tables",
    "suit_tables",
    "hist_code",
    "pack_dist",
    "unpack_dist",
    "DIST_SHIFT",
    "DIST_MASK",
    "hist_moves",
    "HIST_ADD",
    "HIST_REMOVE",
]

INF = 255  #: dist value meaning "no target with that many melds/pairs exists"
#: width in bits of packed suit distance entry j = 2m + p (value <= 3m + 2p)
DIST_BITS = np.array([0, 2, 2, 3, 3, 4, 4, 4, 4, 4], np.int64)
#: bit offset of packed suit distance entry j
DIST_SHIFT = np.concatenate([[0], np.cumsum(DIST_BITS)[:-1]]).astype(np.int64)
#: mask of packed suit distance entry j (after shifting)
DIST_MASK = (1 << DIST_BITS) - 1
COMPLETE = 1 << 9  #: info bit: the suit is complete (melds, plus a pair when n % 3 == 2)
WAIT_MASK = (1 << 9) - 1  #: info bits 0-8: ranks that complete the suit

#: bump when the table layout or meaning changes; old cache files are then ignored
TABLES_VERSION = 4

#: histogram code weight of a kind holding 0..4 tiles
HIST_POW = np.array([0, 1, 10, 100, 1000], np.int64)
HIST_SIZE = 10_000  #: number of histogram codes (4 decimal digits)
PUNG_GROUP_SIZES = (7, 9)  #: sizes of pung-only groups that have a histogram table


class Tables(NamedTuple):
    """The raw tables (shared by all rule sets)."""

    dist: np.ndarray  #: uint32[5**9], packed distance rows of suits by base-5 code
    info: np.ndarray  #: uint16[5**9], suits by base-5 code
    hdist7: np.ndarray  #: uint8[10000, 10], pung-only group of 7 kinds by histogram code
    hdist9: np.ndarray  #: uint8[10000, 10], pung-only group of 9 kinds by histogram code


class HandTables(NamedTuple):
    """Everything the hand kernels need for one rule set: tables and its group layout.

    Attributes
    ----------
    dist, info : uint32[5**9], uint16[5**9]
        Packed distance rows and completeness/wait words of suits (see module docstring).
    hdist : uint16[10000, 20]
        Histogram distance rows for this tile set's pung-only group size (columns 0-9), then
        how a tile moves them (:func:`hist_moves`): ``hdist[h, HIST_ADD + c]`` the slot mask of
        the entries that adding a tile to a kind of ``c`` tiles lowers, ``hdist[h, HIST_REMOVE +
        c]`` of those removing one from a kind of ``c`` tiles leaves as they are. (In the same
        array, not one more: every kernel call passes the tables array by array, each array in
        several words.)
    kinds : int64[n]
        Kind indices of the tile set, ascending.
    suit_base : int64[3]
        First kind of each suit (0, 9, 18), padded with -1.
    n_suits : int
        Number of suits with chows (1-3).
    pung_kinds : int64[9]
        Kinds of the pung-only group, padded with -1.
    n_pung : int
        Number of kinds in the pung-only group (7 or 9).
    chow_start : bool[34]
        Kinds that can start a chow (ranks 1-7 of a suit).
    seven_pairs : bool
        Whether seven pairs is a winning form (only with no exposed melds).
    """

    dist: np.ndarray
    info: np.ndarray
    hdist: np.ndarray
    kinds: np.ndarray
    suit_base: np.ndarray
    n_suits: int
    pung_kinds: np.ndarray
    n_pung: int
    chow_start: np.ndarray
    seven_pairs: bool


@jit(inline="always")
def borrowed_hand_tables(t):  # pragma: no cover - compiled
    """``t`` with every array borrowed (:func:`simkit._jit.borrow`: no reference counts). Kernels
    that pass the tables on to other functions row after row take them so: the tables are shared
    read-only and outlive every call, and two atomic reference-count operations per array per
    call (contended across threads) would cost more than the hand analysis itself."""
    return HandTables(
        borrow(t.dist),
        borrow(t.info),
        borrow(t.hdist),
        borrow(t.kinds),
        borrow(t.suit_base),
        t.n_suits,
        borrow(t.pung_kinds),
        t.n_pung,
        borrow(t.chow_start),
        t.seven_pairs,
    )


# ---------------------------------------------------------------------------------------------
# building


def _complete_codes(ranks: int, chows: bool) -> np.ndarray:
    """Codes of every complete configuration of ``ranks`` kinds: <= 4 melds, <= 1 pair, <= 4 copies."""
    melds = [(r, r, r) for r in range(ranks)]
    if chows:
        melds += [(r, r + 1, r + 2) for r in range(ranks - 2)]
    codes = set()
    for n_melds in range(5):
        for combo in itertools.combinations_with_replacement(melds, n_melds):
            base = [0] * ranks
            for meld in combo:
                for r in meld:
                    base[r] += 1
            for pair in [None, *range(ranks)]:
                counts = list(base)
                if pair is not None:
                    counts[pair] += 2
                if max(counts) <= 4:
                    codes.add(sum(c * 5**r for r, c in enumerate(counts)))
    return np.array(sorted(codes), dtype=np.int64)


@jit
def _fill_tables(ranks, complete_codes, dist, info):  # pragma: no cover - compiled
    """Fill ``dist`` and ``info`` for every base-5 code of ``ranks`` kinds.

    ``sup[code]`` bit ``2m+p`` says the code contains a complete (m, p) configuration; it is the OR
    over removing one tile, so codes are visited upwards. ``dist`` is 0 where ``sup`` is set, else
    1 + the least ``dist`` after adding one tile (a kind below 4 copies), visited downwards: an
    optimal target has some kind above the hand's count, and adding that tile saves exactly one.
    """
    size = 5**ranks
    pow5 = np.empty(ranks, np.int64)
    p = 1
    for r in range(ranks):
        pow5[r] = p
        p *= 5
    exact = np.zeros(size, np.bool_)
    for code in complete_codes:
        exact[code] = True
    counts = np.zeros(ranks, np.int64)
    sup = np.zeros(size, np.int64)
    for code in range(size):
        x = code
        n = 0
        for r in range(ranks):
            counts[r] = x % 5
            n += counts[r]
            x //= 5
        bits = 0
        if exact[code]:
            bits |= 1 << (2 * (n // 3) + (n % 3) // 2)
        for r in range(ranks):
            if counts[r] > 0:
                bits |= sup[code - pow5[r]]
        sup[code] = bits
    for code in range(size - 1, -1, -1):
        x = code
        n = 0
        for r in range(ranks):
            counts[r] = x % 5
            n += counts[r]
            x //= 5
        for j in range(10):
            if (sup[code] >> j) & 1:
                dist[code, j] = 0
                continue
            best = INF
            for r in range(ranks):
                if counts[r] < 4:
                    v = dist[code + pow5[r], j]
                    if v < best:
                        best = v
            dist[code, j] = INF if best >= INF - 1 else best + 1
        word = 0
        if exact[code]:
            word |= COMPLETE
        if n % 3 != 0:
            for r in range(ranks):
                if counts[r] < 4 and exact[code + pow5[r]]:
                    word |= 1 << r
        info[code] = word


def suit_tables(ranks: int, chows: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(dist, info)`` of every base-5 code of ``ranks`` kinds, with or without chows."""
    dist = np.empty((5**ranks, 10), np.uint8)
    info = np.empty(5**ranks, np.uint16)
    _fill_tables(ranks, _complete_codes(ranks, chows), dist, info)
    return dist, info


def hist_code(counts) -> int:
    """Histogram code of a pung-only group's counts: ``sum 10**(c - 1)`` over kinds with ``c > 0``."""
    return int(sum(HIST_POW[int(c)] for c in counts))


def _hist_table(size: int) -> np.ndarray:
    """Histogram distance rows of a pung-only group of ``size`` kinds, from its base-5 table."""
    dist, _ = suit_tables(size, chows=False)
    hdist = np.full((HIST_SIZE, 10), INF, np.uint8)
    for n in itertools.product(range(size + 1), repeat=4):
        if sum(n) > size:
            continue
        counts = [1] * n[0] + [2] * n[1] + [3] * n[2] + [4] * n[3]
        counts += [0] * (size - len(counts))
        code = sum(c * 5**r for r, c in enumerate(counts))
        hdist[hist_code(counts)] = dist[code]
    return hdist


HIST_ADD = 10  #: HandTables.hdist column of "add a tile to a kind of c tiles" (plus c, 0..3)
HIST_REMOVE = 15  #: HandTables.hdist column of "remove a tile from a kind of c tiles" (plus c, 1..4)


def hist_moves(hdist: np.ndarray, kinds: int) -> np.ndarray:
    """The histogram rows ``hdist`` (uint8[10000, 10]) of a pung-only group of ``kinds`` kinds with
    how a tile moves them, uint16[10000, 20]: columns 0-9 the rows, then slot masks.

    Bit ``j`` of column ``HIST_ADD + c`` (``c`` = 0..3) is set where adding a tile to one of the
    group's kinds holding ``c`` tiles lowers entry ``j`` of row ``h``; bit ``j`` of column
    ``HIST_REMOVE + c`` (``c`` = 1..4) where removing a tile from a kind holding ``c`` tiles leaves
    entry ``j`` as it is (bit 0: the empty target, always kept, never lowered). Zero where the code
    has no kind of ``c`` tiles (and in the unused columns ``HIST_ADD + 4`` and ``HIST_REMOVE``).
    For every group size the same way: the row moves only by the count of the kind touched."""
    size = hdist.shape[0]
    out = np.zeros((size, 20), np.uint16)
    if size == 0:  # the zero-size stand-ins of hand_tables_stand_in
        return out
    out[:, :10] = hdist
    h = np.arange(size)
    digit = [None] + [(h // 10 ** (c - 1)) % 10 for c in range(1, 5)]  # kinds holding c tiles
    digit[0] = kinds - sum(digit[1:])
    bits = (1 << np.arange(10)).astype(np.int64)
    rows = hdist.astype(np.int64)
    for c in range(5):
        if c < 4:  # add a tile to a kind of c tiles
            h2 = h - HIST_POW[c] + HIST_POW[c + 1]
            ok = (h2 < size) & (digit[c] > 0)
            lower = rows[np.minimum(h2, size - 1)] < rows
            lower[:, 0] = False
            out[:, HIST_ADD + c] = np.where(ok, (lower * bits).sum(axis=1), 0)
        if c > 0:
            h2 = h - HIST_POW[c] + HIST_POW[c - 1]
            same = rows[h2] == rows
            out[:, HIST_REMOVE + c] = np.where(digit[c] > 0, (same * bits).sum(axis=1), 0)
    return out


def pack_dist(rows: np.ndarray) -> np.ndarray:
    """Pack ``uint8[n, 10]`` suit distance rows into ``uint32[n]`` (see module docstring)."""
    rows = rows.astype(np.uint32)
    limit = 3 * (np.arange(10) // 2) + 2 * (np.arange(10) % 2)
    if (rows > limit).any():
        raise ValueError("distance above 3m + 2p: cannot pack")
    return (rows << DIST_SHIFT.astype(np.uint32)).sum(axis=1, dtype=np.uint32)


def unpack_dist(packed: np.ndarray) -> np.ndarray:
    """The ``uint8[n, 10]`` rows of packed suit distances."""
    packed = np.asarray(packed, np.uint32)[..., None]
    return ((packed >> DIST_SHIFT.astype(np.uint32)) & DIST_MASK.astype(np.uint32)).astype(np.uint8)


def build_tables() -> Tables:
    """Build every table from scratch (about a second)."""
    dist, info = suit_tables(9, chows=True)
    return Tables(pack_dist(dist), info, _hist_table(7), _hist_table(9))


# ---------------------------------------------------------------------------------------------
# disk cache


def cache_dir() -> Path:
    """Directory holding the cached tables: ``tables`` in simkit's cache directory
    (:func:`simkit._cache.cache_dir`: ``$SIMKIT_CACHE_DIR``, else ``~/.cache/simkit``)."""
    return _cache_dir() / "tables"


_SPECS = {  # field -> (shape, dtype)
    "dist": ((5**9,), np.uint32),
    "info": ((5**9,), np.uint16),
    "hdist7": ((HIST_SIZE, 10), np.uint8),
    "hdist9": ((HIST_SIZE, 10), np.uint8),
}


def _path(directory: Path, field: str) -> Path:
    return directory / f"hand_{field}_v{TABLES_VERSION}.npy"


def _save_atomic(path: Path, array: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            np.save(f, array)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _load_cached(directory: Path) -> Tables | None:
    arrays = {}
    for field, (shape, dtype) in _SPECS.items():
        path = _path(directory, field)
        try:
            arr = np.load(path)
        except (OSError, ValueError):
            return None
        if arr.shape != shape or arr.dtype != dtype:
            return None
        arrays[field] = arr
    return Tables(**arrays)


_LOADED: Tables | None = None


def load_tables(rebuild: bool = False) -> Tables:
    """The tables: from memory, else from the disk cache, else built and cached.

    A missing or malformed cache file (or ``rebuild=True``) triggers a rebuild.
    """
    global _LOADED
    if _LOADED is not None and not rebuild:
        return _LOADED
    directory = cache_dir()
    tables = None if rebuild else _load_cached(directory)
    if tables is None:
        tables = build_tables()
        try:
            for field in _SPECS:
                _save_atomic(_path(directory, field), getattr(tables, field))
        except OSError:  # nowhere writable: keep them in memory only
            pass
    _LOADED = tables
    _LAYOUT_CACHE.clear()
    return tables


# ---------------------------------------------------------------------------------------------
# rule set layout

_LAYOUT_CACHE: dict[tuple, HandTables] = {}


def _groups_of(kinds: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """``(suit base kinds, pung-only kinds)`` of a tile set; raises for shapes without tables."""
    kind_set = set(kinds)
    suits, pung_only = [], []
    for suit in range(3):
        suit_kinds = [k for k in range(9 * suit, 9 * suit + 9) if k in kind_set]
        if len(suit_kinds) == 9:
            suits.append(9 * suit)
        elif all(k % 9 in (0, 8) for k in suit_kinds):
            pung_only += suit_kinds
        else:
            raise ValueError(f"unsupported tile set: suit {'mps'[suit]} has kinds {suit_kinds}")
    pung_only += [k for k in range(27, 34) if k in kind_set]
    if not suits or len(pung_only) not in PUNG_GROUP_SIZES:
        raise ValueError(f"unsupported tile set: suits {suits}, kinds without chows {pung_only}")
    return suits, pung_only


def hand_tables(rules) -> HandTables:
    """The :class:`HandTables` of a rule set (name or Rules object), cached per tile set."""

    rules = resolve_rules(rules)
    return layout_tables(tuple(rules.kinds), bool(rules.seven_pairs))


def layout_tables(kinds: tuple[int, ...], seven_pairs: bool) -> HandTables:
    """The :class:`HandTables` of a tile set given as kind indices, cached."""
    key = _layout_key(kinds, seven_pairs)
    cached = _LAYOUT_CACHE.get(key)
    if cached is not None:
        return cached
    layout = _layout(key, load_tables())
    _LAYOUT_CACHE[key] = layout
    return layout


def hand_tables_stand_in(rules) -> HandTables:
    """The rule set's :class:`HandTables` layout on zero-size stand-ins of the tables (the same
    dtypes and dimensions), without building or loading them: ``numba.typeof`` of it is that of
    :func:`hand_tables` ``(rules)``. For the types of a kernel's arguments before the tables
    exist, e.g. in the helper process that compiles ahead on a cold start while this one builds
    them (:func:`simkit.engine.compiled.compile_ahead`)."""

    rules = resolve_rules(rules)
    key = _layout_key(rules.kinds, rules.seven_pairs)
    return _layout(
        key, Tables(**{field: np.zeros((0,) * len(shape), dtype) for field, (shape, dtype) in _SPECS.items()})
    )


def _layout_key(kinds, seven_pairs) -> tuple:
    """(sorted kinds, seven pairs): what a tile set's :class:`HandTables` layout depends on."""
    return tuple(sorted(int(k) for k in kinds)), bool(seven_pairs)


def _layout(key: tuple, tables: Tables) -> HandTables:
    """The :class:`HandTables` of the tile set ``key`` (sorted kinds, seven pairs) on ``tables``."""
    suits, pung_only = _groups_of(key[0])
    suit_base = np.full(3, -1, np.int64)
    suit_base[: len(suits)] = suits
    pung_kinds = np.full(9, -1, np.int64)
    pung_kinds[: len(pung_only)] = pung_only
    chow_start = np.zeros(34, np.bool_)
    for base in suits:
        chow_start[base : base + 7] = True
    layout = HandTables(
        dist=tables.dist,
        info=tables.info,
        hdist=hist_moves(tables.hdist7 if len(pung_only) == 7 else tables.hdist9, len(pung_only)),
        kinds=np.array(key[0], np.int64),
        suit_base=suit_base,
        n_suits=len(suits),
        pung_kinds=pung_kinds,
        n_pung=len(pung_only),
        chow_start=chow_start,
        seven_pairs=key[1],
    )
    return layout
