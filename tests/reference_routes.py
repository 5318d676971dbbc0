"""Plain reference for the route distances of :mod:`simkit.policies.routes`, by brute force.

The distance of a concealed part ``c`` to a route is the least ``sum_x max(T[x] - c[x], 0)`` over
every complete target ``T`` of the route (``need`` melds and a pair of the route's shapes, at most
4 copies of a kind). Every target is listed explicitly (as rows of a numpy array), so the minimum is
plainly over all of them; nothing is shared with the kernels.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

CHARACTERS = list(range(9))
HONORS = list(range(27, 34))


def _meld_shapes(kinds, chows: bool) -> list[tuple[int, ...]]:
    shapes = [(k, k, k) for k in kinds]
    if chows:
        shapes += [(k, k + 1, k + 2) for k in kinds if k % 9 <= 6 and k < 27 and k + 2 in kinds]
    return shapes


@lru_cache(maxsize=None)
def targets(route: str, kinds: tuple, need: int) -> np.ndarray:
    """int8[n, 34]: every complete target of ``route`` with ``need`` melds and a pair over ``kinds``."""
    kinds = list(kinds)
    if route == "all_pungs":
        meld_kinds, chows = kinds, False
    elif route == "full_flush":
        meld_kinds, chows = [k for k in kinds if k in CHARACTERS], True
    elif route == "half_flush":
        meld_kinds, chows = [k for k in kinds if k in CHARACTERS or k in HONORS], True
    elif route == "seven_pairs":
        rows = set()
        for pairs in itertools.combinations_with_replacement(kinds, 7):
            t = np.zeros(34, np.int8)
            for k in pairs:
                t[k] += 2
            if t.max() <= 4:
                rows.add(t.tobytes())
        return np.array([np.frombuffer(r, np.int8) for r in sorted(rows)])
    else:
        raise ValueError(route)
    shapes = _meld_shapes(meld_kinds, chows)
    rows = set()
    for melds in itertools.combinations_with_replacement(shapes, need):
        base = np.zeros(34, np.int8)
        for m in melds:
            for k in m:
                base[k] += 1
        if base.max() > 4:
            continue
        for p in meld_kinds:
            t = base.copy()
            t[p] += 2
            if t.max() <= 4:
                rows.add(t.tobytes())
    return np.array([np.frombuffer(r, np.int8) for r in sorted(rows)])


def route_distance(route: str, counts, kinds, need: int) -> int:
    """Tiles the concealed part ``counts`` (34 ints) must draw to complete ``route``."""
    t = targets(route, tuple(sorted(int(k) for k in kinds)), need).astype(np.int64)
    c = np.asarray(counts, np.int64)
    return int(np.maximum(t - c, 0).sum(axis=1).min())
