"""Dealing: a wall per hand from a counter-based stream, and batch deals for statistics.

The wall of a hand is a uniformly random permutation of the rule set's tiles drawn from stream
``(seed, index, 0)`` (:mod:`simkit.engine.rng`). The dealer receives wall positions ``0..13`` and the
opponent ``14..26``; draws continue from the front. :func:`deal_stats` deals many hands on all cores
and reports how often the dealer's 14 tiles are complete and the opponent's 13 are ready.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit, pjit, prange
from ..errors import check_int
from ..hand.shanten import shanten_kernel
from ..hand.tables import hand_tables
from ..hand.waits import popcount, waits_kernel
from ..hand.win import is_win_kernel
from ..rules import resolve_rules
from .rng import bounded, new_stream, stream_key

__all__ = ["wall_template", "shuffle_wall", "deal_hands", "DealStats", "deal_stats", "deal_check_kernel"]


def wall_template(rules) -> np.ndarray:
    """The rule set's tiles as kinds, 4 of each, ascending: int8[n_tiles]."""
    rules = resolve_rules(rules)
    return np.repeat(np.asarray(rules.kinds, np.int8), 4)


@jit(inline="always")
def shuffle_wall(state, wall, n_first):  # pragma: no cover - compiled
    """Fisher-Yates: make ``wall[:n_first]`` a uniform random draw (in order) from ``wall``.

    With ``n_first == len(wall)`` the whole wall is a uniform random permutation.
    """
    n = wall.shape[0]
    for i in range(min(n_first, n - 1)):
        j = i + bounded(state, n - i)
        tmp = wall[i]
        wall[i] = wall[j]
        wall[j] = tmp


@pjit
def _deal_hands_kernel(seed, start, template, dealer, other):  # pragma: no cover - compiled
    for i in prange(dealer.shape[0]):
        state = new_stream(seed, start + i, 0)
        wall = template.copy()
        shuffle_wall(state, wall, 27)
        for k in range(34):
            dealer[i, k] = 0
            other[i, k] = 0
        for p in range(14):
            dealer[i, wall[p]] += 1
        for p in range(14, 27):
            other[i, wall[p]] += 1


def deal_hands(n: int, seed: int = 0, rules="douque", start: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Deal ``n`` hands: the dealer's 14 tiles and the opponent's 13, as uint8[n, 34] counts.

    Hand ``i`` uses stream ``(seed, start + i, 0)``, so any slice can be re-dealt on its own.
    """
    n, seed, start = _check_counts(n, seed, start)
    template = wall_template(rules)
    dealer, other = _alloc(n, (((34,), np.uint8), ((34,), np.uint8)))
    _deal_hands_kernel(seed, start, template, dealer, other)
    return dealer, other


CHUNK = 256  #: deals per work unit of the batch kernels (scratch allocated once per unit)


@pjit
def deal_check_kernel(
    seed, start, n, template, t, with_shanten, win, wait_kinds, shanten_d, shanten_o
):  # pragma: no cover
    """Deal ``n`` hands; check the dealer's 14 tiles for a win and the opponent's 13 for waits.

    Outputs (length n): ``win`` bool, ``wait_kinds`` int8 (number of winning kinds of the
    opponent's 13 tiles). With ``with_shanten``, also ``shanten_d``/``shanten_o`` int8 (length n;
    ignored otherwise).
    """
    for chunk in prange((n + CHUNK - 1) // CHUNK):
        wall = np.empty_like(template)
        d = np.empty(34, np.uint8)
        o = np.empty(34, np.uint8)
        no_melds = np.zeros(34, np.uint8)
        work = np.empty(20, np.int64)
        state = np.empty(1, np.uint64)
        for i in range(chunk * CHUNK, min(n, (chunk + 1) * CHUNK)):
            state[0] = stream_key(seed, start + i, 0)
            wall[:] = template
            shuffle_wall(state, wall, 27)
            d[:] = 0
            o[:] = 0
            for p in range(14):
                d[wall[p]] += 1
            for p in range(14, 27):
                o[wall[p]] += 1
            win[i] = is_win_kernel(d, 0, t)
            wait_kinds[i] = popcount(waits_kernel(o, 0, no_melds, t))
            if with_shanten:
                shanten_d[i] = shanten_kernel(d, 0, t, work)
                shanten_o[i] = shanten_kernel(o, 0, t, work)


class DealStats(NamedTuple):
    """Per-hand results of :func:`deal_stats` (arrays of length n)."""

    dealer_win: np.ndarray
    other_wait_kinds: np.ndarray
    dealer_shanten: np.ndarray
    other_shanten: np.ndarray


def deal_stats(n: int, seed: int = 0, rules="douque", start: int = 0) -> DealStats:
    """Deal ``n`` hands on all cores and analyse both starting hands (no arrays of hands kept)."""
    n, seed, start = _check_counts(n, seed, start)
    rules = resolve_rules(rules)
    out = DealStats(*_alloc(n, (((), np.bool_), ((), np.int8), ((), np.int8), ((), np.int8))))
    deal_check_kernel(seed, start, n, wall_template(rules), hand_tables(rules), True, *out)
    return out


def _check_counts(n, seed, start):
    """Validate ``n`` (at least 1), ``seed`` and ``start``: integers whose hand indices
    ``start .. start + n - 1`` stay below 2**63 (the streams' counters)."""

    n = check_int(n, "n", 1, 2**63 - 1, ValueError)
    seed = check_int(seed, "seed", 0, 2**63 - 1, ValueError)
    start = check_int(start, "start", 0, 2**63 - 1, ValueError)
    if start + n > 2**63:
        raise ValueError(f"start + n must be at most 2**63 (hand indices are below 2**63), got {start} + {n}")
    return n, seed, start


def _alloc(n: int, shapes_dtypes):
    """The output arrays of ``n`` hands, or one line saying they do not fit in memory."""
    try:
        return tuple(np.empty((n,) + shape, dtype) for shape, dtype in shapes_dtypes)
    except MemoryError:
        size = n * sum(int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize for shape, dtype in shapes_dtypes)
        raise ValueError(
            f"n={n} hands need {size / 2**30:,.1f} GiB of arrays, more than this machine gives; "
            "deal fewer at a time (start= continues a sequence)"
        ) from None
