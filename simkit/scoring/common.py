"""Pieces the scoring kernels of every rule set share: scratch space, the tie-break, meld codes.

Every scoring kernel looks at every arrangement of a winning hand (a split of its concealed part,
and where it matters the part holding the winning tile), scores each into a candidate item vector
and keeps the best: the largest total, ties going to the lexicographically largest item vector in
the rule set's item order (:func:`better`). The choice therefore never depends on the order in
which splits are enumerated.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ..hand.split import MAX_SPLITS, PART_CHOW, SCRATCH
from .douque import ScoreWork

__all__ = [
    "ScoreWork",
    "new_work",
    "better",
    "holds",
    "first_holding",
    "MELD_PUNG",
    "MELD_KONG",
    "MELD_ADDED",
    "MELD_CONCEALED",
    "MELD_CHOW",
    "EAST",
    "WHITE",
]

MELD_PUNG, MELD_KONG, MELD_ADDED, MELD_CONCEALED, MELD_CHOW = 0, 1, 2, 3, 4  #: simkit.melds codes
EAST = 27  #: first wind kind (East South West North = 27-30)
WHITE = 31  #: first dragon kind (White Green Red = 31-33)


def new_work(n_items: int, dtype=np.int64) -> ScoreWork:
    """Fresh scratch arrays for a scoring kernel with ``n_items`` items of ``dtype``."""
    return ScoreWork(
        np.zeros((MAX_SPLITS, 5, 2), np.int8),
        np.zeros(n_items, dtype),
        np.zeros(34, np.uint8),
        np.zeros(34, np.uint8),
        np.zeros(2, np.int64),
        np.zeros(SCRATCH, np.int64),
    )


@jit(inline="always")
def better(cand, items):  # pragma: no cover - compiled
    """Whether item vector ``cand`` beats ``items``: a larger sum, or an equal sum and a
    lexicographically larger vector."""
    a = cand[0] - cand[0]
    b = a
    n = cand.shape[0]
    for i in range(n):
        a += cand[i]
        b += items[i]
    if a != b:
        return a > b
    for i in range(n):
        if cand[i] != items[i]:
            return cand[i] > items[i]
    return False


@jit(inline="always")
def holds(ptype, pkind, tile):  # pragma: no cover - compiled
    """Whether a split part ``(ptype, pkind)`` contains a tile of kind ``tile``."""
    if ptype == PART_CHOW:
        return pkind <= tile <= pkind + 2
    return pkind == tile


@jit(inline="always")
def first_holding(splits, s, n_parts, tile):  # pragma: no cover - compiled
    """Index of the first part of split ``s`` that contains ``tile`` (-1 if none)."""
    for v in range(n_parts):
        if holds(splits[s, v, 0], splits[s, v, 1], tile):
            return v
    return -1
