"""Shared fixtures: tile sets of the four rule sets and random hand generators (numpy, not simkit)."""

from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # `import reference`, `import oracle`

import simkit  # noqa: E402

RULE_NAMES = ("douque", "night_market", "duel", "for_two")


def random_hands(rng: np.random.Generator, kinds, n: int, sizes=(13, 14), melds=False, chows=False):
    """Random concealed parts, with random exposed melds if ``melds``, from a 4-copy wall of ``kinds``.

    Returns ``(counts uint8[n, 34], n_melds int64[n], meld_counts uint8[n, 34])``. Each hand gets
    ``k`` melds (0-4, uniform, when ``melds``), each a pung, a kong or (if ``chows``) a chow of
    tiles still in the wall; its concealed part is ``size - 3k`` tiles drawn uniformly from what is
    left, ``size`` uniform over ``sizes``.
    """
    kinds = [int(k) for k in kinds]
    template = np.repeat(np.array(kinds), 4)
    copy_index = np.tile(np.arange(4), len(kinds))
    meld_counts = np.zeros((n, 34), np.uint8)
    ks = np.zeros(n, np.int64)
    if melds:
        py = random.Random(int(rng.integers(2**63)))
        kind_set = set(kinds)
        chow_starts = [k for k in kinds if k < 27 and k % 9 <= 6 and {k + 1, k + 2} <= kind_set] if chows else []
        for i in range(n):
            k = py.randrange(5)
            left = {kind: 4 for kind in kinds}
            made = 0
            while made < k:
                shape = py.randrange(3 if chow_starts else 2)
                if shape == 2:
                    s = py.choice(chow_starts)
                    if all(left[s + d] for d in range(3)):
                        for d in range(3):
                            left[s + d] -= 1
                            meld_counts[i, s + d] += 1
                        made += 1
                else:
                    kind = py.choice(kinds)
                    need = 3 + shape
                    if left[kind] >= need:
                        left[kind] -= need
                        meld_counts[i, kind] += need
                        made += 1
            ks[i] = k
    size = rng.choice(np.asarray(sizes), size=n) - 3 * ks
    keys = rng.random((n, len(template)))
    keys[copy_index[None, :] < meld_counts[:, template]] = 2.0  # tiles sitting in melds
    order = np.argsort(keys, axis=1)[:, :14]
    take = np.arange(14)[None, :] < size[:, None]
    flat = (template[order] + 34 * np.arange(n)[:, None])[take]
    counts = np.bincount(flat, minlength=34 * n).reshape(n, 34).astype(np.uint8)
    return counts, ks, meld_counts


@pytest.fixture(scope="session")
def all_rules():
    return {name: simkit.get_rules(name) for name in RULE_NAMES}


def one_suit_vectors(total: int) -> np.ndarray:
    """Every 9-rank count vector (each count 0-4) with ``total`` tiles, as uint8[n, 9]."""
    rows = [c for c in itertools.product(range(5), repeat=9) if sum(c) == total]
    return np.array(rows, np.uint8)
