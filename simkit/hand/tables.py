"""Per-group lookup tables for hand analysis, keyed by base-5 codes.

A hand splits into independent *groups* of kinds: melds never cross from one group to another.
Every rule set's tile set is made of groups of three types:

* ``CHOW9``: a full 9-rank suit where chows exist (characters always; dots and bamboo in ``for_two``);
* ``PUNG7``: the seven honors (pungs and pairs only);
* ``PUNG2``: two kinds with no chow between them (``douque``'s 1 and 9 dots, the only dots it has).

The counts of one group, rank ``r`` holding ``c_r`` tiles, have the base-5 code ``sum c_r * 5**r``.
For every code of every group type the tables hold

``dist[code, 2*m + p]`` (uint8)
    the least number of tiles that must be *added* to the group so that it contains ``m`` melds
    (0-4) and ``p`` pairs (0-1) with at most 4 copies per kind, i.e. ``min over targets t of
    sum_r max(t_r - c_r, 0)``; :data:`INF` when no such target exists. Shanten is a min-plus
    combination of these rows over the groups (:mod:`simkit.hand.shanten`).
``info[code]`` (uint16)
    bit :data:`COMPLETE` set when the group is exactly ``n // 3`` melds (+ a pair when
    ``n % 3 == 2``); bits 0-8: the ranks whose addition makes the group complete (waits).

Tables are built once (a few seconds) by :func:`build_tables` and cached on disk as ``.npy`` files in
:func:`cache_dir`; later processes only load them. ``scripts/build_tables.py`` rebuilds them.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .._jit import jit

__all__ = [
    "CHOW9",
    "PUNG7",
    "PUNG2",
    "GROUP_TYPES",
    "INF",
    "COMPLETE",
    "TABLES_VERSION",
    "HandTables",
    "load_tables",
    "build_tables",
    "cache_dir",
    "hand_tables",
    "layout_tables",
]

CHOW9 = 0  #: group type: 9 ranks, chows allowed
PUNG7 = 1  #: group type: 7 kinds, pungs and pairs only (honors)
PUNG2 = 2  #: group type: 2 kinds, pungs and pairs only (douque's 1p, 9p)

#: (ranks, chows allowed) of each group type, indexed by type id
GROUP_TYPES = ((9, True), (7, False), (2, False))

INF = 255  #: dist value meaning "no target with that many melds/pairs exists"
COMPLETE = 1 << 9  #: info bit: the group is complete (melds, plus a pair when n % 3 == 2)
WAIT_MASK = (1 << 9) - 1  #: info bits 0-8: ranks that complete the group

#: bump when the table layout or meaning changes; old cache files are then ignored
TABLES_VERSION = 1

_SIZES = tuple(5**ranks for ranks, _ in GROUP_TYPES)
_OFFSETS = tuple(int(x) for x in np.concatenate([[0], np.cumsum(_SIZES)[:-1]]))


class HandTables(NamedTuple):
    """Everything the hand kernels need for one rule set: the shared tables and its group layout.

    Attributes
    ----------
    dist : uint8[n_codes, 10]
        Distance rows of all group types, concatenated (see module docstring).
    info : uint16[n_codes]
        Completeness bit and wait ranks of all group types, concatenated.
    kinds : int64[n]
        Kind indices of the rule set's tile set, ascending.
    kind_group : int64[34]
        Group index of each kind, -1 for kinds outside the tile set.
    kind_pow : int64[34]
        ``5**rank`` of each kind inside its group (0 outside the tile set).
    group_offset : int64[4]
        Offset of each group's table inside ``dist``/``info``.
    group_kinds : int64[4, 9]
        Kind of each rank of each group, -1 where a rank does not exist.
    n_groups : int
        Number of groups (2-4).
    chow_start : bool[34]
        Kinds that can start a chow (ranks 1-7 of a CHOW9 group).
    seven_pairs : bool
        Whether seven pairs is a winning form (only with no exposed melds).
    """

    dist: np.ndarray
    info: np.ndarray
    kinds: np.ndarray
    kind_group: np.ndarray
    kind_pow: np.ndarray
    group_offset: np.ndarray
    group_kinds: np.ndarray
    n_groups: int
    chow_start: np.ndarray
    seven_pairs: bool


# ---------------------------------------------------------------------------------------------
# building


def _complete_codes(ranks: int, chows: bool) -> np.ndarray:
    """Codes of every complete group configuration (<= 4 melds, <= 1 pair, <= 4 copies per rank)."""
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
                if max(counts, default=0) <= 4:
                    codes.add(sum(c * 5**r for r, c in enumerate(counts)))
    return np.array(sorted(codes), dtype=np.int64)


@jit
def _fill_tables(ranks, complete_codes, dist, info):  # pragma: no cover - compiled
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
    # sup[code] bit j=2m+p: the group contains a complete (m, p) configuration.
    sup = np.zeros(size, np.uint16)
    for code in range(size):
        x = code
        n = 0
        for r in range(ranks):
            counts[r] = x % 5
            n += counts[r]
            x //= 5
        bits = np.uint16(0)
        if exact[code] and n % 3 != 1:
            bits |= np.uint16(1 << (2 * (n // 3) + (n % 3) // 2))
        for r in range(ranks):
            if counts[r] > 0:
                bits |= sup[code - pow5[r]]
        sup[code] = bits
    # dist[code, j] = 0 if contained, else 1 + min over one added tile.
    for code in range(size - 1, -1, -1):
        x = code
        for r in range(ranks):
            counts[r] = x % 5
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
        # info: completeness and wait ranks
        n = 0
        for r in range(ranks):
            n += counts[r]
        word = 0
        if exact[code] and n % 3 != 1:
            word |= COMPLETE
        if n % 3 != 0:
            for r in range(ranks):
                if counts[r] < 4 and exact[code + pow5[r]]:
                    word |= 1 << r
        info[code] = word


def build_tables() -> tuple[np.ndarray, np.ndarray]:
    """Build the ``dist`` and ``info`` tables of every group type from scratch (a few seconds).

    Returns
    -------
    dist : uint8[sum(5**ranks), 10]
    info : uint16[sum(5**ranks)]
    """
    total = sum(_SIZES)
    dist = np.empty((total, 10), np.uint8)
    info = np.empty(total, np.uint16)
    for (ranks, chows), offset, size in zip(GROUP_TYPES, _OFFSETS, _SIZES):
        _fill_tables(
            ranks, _complete_codes(ranks, chows), dist[offset : offset + size], info[offset : offset + size]
        )
    return dist, info


# ---------------------------------------------------------------------------------------------
# disk cache


def cache_dir() -> Path:
    """Directory holding the cached tables.

    ``$SIMKIT_CACHE_DIR`` if set; otherwise ``simkit/hand/_tables`` next to this file when that is
    writable (editable installs), else ``~/.cache/simkit``.
    """
    env = os.environ.get("SIMKIT_CACHE_DIR")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent / "_tables"
    try:
        here.mkdir(exist_ok=True)
        if os.access(here, os.W_OK):
            return here
    except OSError:
        pass
    return Path.home() / ".cache" / "simkit"


def _paths(directory: Path) -> tuple[Path, Path]:
    return (
        directory / f"hand_dist_v{TABLES_VERSION}.npy",
        directory / f"hand_info_v{TABLES_VERSION}.npy",
    )


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


_LOADED: tuple[np.ndarray, np.ndarray] | None = None


def load_tables(rebuild: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The ``(dist, info)`` tables: from memory, else from the disk cache, else built and cached.

    A cached file with the wrong shape or dtype (or ``rebuild=True``) is rebuilt.
    """
    global _LOADED
    if _LOADED is not None and not rebuild:
        return _LOADED
    dist_path, info_path = _paths(cache_dir())
    total = sum(_SIZES)
    tables = None
    if not rebuild and dist_path.exists() and info_path.exists():
        try:
            dist = np.load(dist_path)
            info = np.load(info_path)
            if dist.shape == (total, 10) and dist.dtype == np.uint8 and info.shape == (total,) and info.dtype == np.uint16:
                tables = (dist, info)
        except (OSError, ValueError):
            tables = None
    if tables is None:
        tables = build_tables()
        try:
            _save_atomic(dist_path, tables[0])
            _save_atomic(info_path, tables[1])
        except OSError:  # read-only everywhere: keep them in memory only
            pass
    _LOADED = tables
    return tables


# ---------------------------------------------------------------------------------------------
# rule set layout

_LAYOUT_CACHE: dict[tuple, HandTables] = {}


def _groups_of(kinds: tuple[int, ...]) -> list[tuple[int, list[int]]]:
    """Split a tile set into groups: (group type, kinds by rank)."""
    kind_set = set(kinds)
    groups = []
    for suit in range(3):
        suit_kinds = [k for k in range(9 * suit, 9 * suit + 9) if k in kind_set]
        if not suit_kinds:
            continue
        if len(suit_kinds) == 9:
            groups.append((CHOW9, suit_kinds))
        elif suit_kinds == [9 * suit, 9 * suit + 8]:
            groups.append((PUNG2, suit_kinds))
        else:
            raise ValueError(f"unsupported tile set for suit {'mps'[suit]}: kinds {suit_kinds}")
    honors = [k for k in range(27, 34) if k in kind_set]
    if honors:
        if len(honors) != 7:
            raise ValueError(f"unsupported honor set: kinds {honors}")
        groups.append((PUNG7, honors))
    return groups


def hand_tables(rules) -> HandTables:
    """The :class:`HandTables` of a rule set (name or Rules object), cached per tile set."""
    from ..rules import resolve_rules

    rules = resolve_rules(rules)
    return layout_tables(tuple(rules.kinds), bool(rules.seven_pairs))


def layout_tables(kinds: tuple[int, ...], seven_pairs: bool) -> HandTables:
    """The :class:`HandTables` of a tile set given as kind indices, cached."""
    key = (tuple(int(k) for k in kinds), bool(seven_pairs))
    cached = _LAYOUT_CACHE.get(key)
    if cached is not None:
        return cached
    dist, info = load_tables()
    kind_group = np.full(34, -1, np.int64)
    kind_pow = np.zeros(34, np.int64)
    group_offset = np.zeros(4, np.int64)
    group_kinds = np.full((4, 9), -1, np.int64)
    chow_start = np.zeros(34, np.bool_)
    groups = _groups_of(key[0])
    for g, (gtype, gkinds) in enumerate(groups):
        group_offset[g] = _OFFSETS[gtype]
        for rank, kind in enumerate(gkinds):
            kind_group[kind] = g
            kind_pow[kind] = 5**rank
            group_kinds[g, rank] = kind
            if gtype == CHOW9 and rank <= 6:
                chow_start[kind] = True
    tables = HandTables(
        dist=dist,
        info=info,
        kinds=np.array(key[0], np.int64),
        kind_group=kind_group,
        kind_pow=kind_pow,
        group_offset=group_offset,
        group_kinds=group_kinds,
        n_groups=len(groups),
        chow_start=chow_start,
        seven_pairs=key[1],
    )
    _LAYOUT_CACHE[key] = tables
    return tables
