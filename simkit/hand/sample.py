"""Random complete hands, for tests, benchmarks and ready-hand statistics.

A random complete concealed part with ``k`` exposed melds is ``4 - k`` melds drawn uniformly from
the rule set's meld shapes (a pung of any kind, a chow starting at any rank 1-7 of a suit) plus a
pair of a uniformly drawn kind, redrawn until no kind exceeds 4 copies. This is uniform over meld
*choices*, not over distinct hands; it reaches every complete hand.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit, pjit, prange
from ..engine.rng import bounded, new_stream
from ..errors import HandError, check_int
from ..rules import resolve_rules
from .api import _batch_melds
from .tables import hand_tables

__all__ = ["random_complete_kernel", "random_complete_hands", "random_ready_hands"]


@jit
def random_complete_kernel(state, t, n_melds, out):  # pragma: no cover - compiled
    """Fill ``out`` (uint8[34]) with a random complete concealed part for ``n_melds`` exposed melds."""
    n_kinds = t.kinds.shape[0]
    n_chows = 7 * t.n_suits
    while True:
        for k in range(34):
            out[k] = 0
        ok = True
        for _ in range(4 - n_melds):
            j = bounded(state, n_kinds + n_chows)
            if j < n_kinds:
                k = t.kinds[j]
                out[k] += 3
                if out[k] > 4:
                    ok = False
            else:
                j -= n_kinds
                k = t.suit_base[j // 7] + j % 7
                for d in range(3):
                    out[k + d] += 1
                    if out[k + d] > 4:
                        ok = False
        k = t.kinds[bounded(state, n_kinds)]
        out[k] += 2
        if out[k] > 4:
            ok = False
        if ok:
            return


@pjit
def _complete_batch(seed, n_melds, t, out):  # pragma: no cover - compiled
    for i in prange(out.shape[0]):
        state = new_stream(seed, i, 1)
        random_complete_kernel(state, t, n_melds[i], out[i])


@pjit
def _ready_batch(seed, n_melds, t, out, removed):  # pragma: no cover - compiled
    for i in prange(out.shape[0]):
        state = new_stream(seed, i, 2)
        random_complete_kernel(state, t, n_melds[i], out[i])
        j = bounded(state, 14 - 3 * n_melds[i])
        for k in range(34):
            c = np.int64(out[i, k])
            if j < c:
                out[i, k] -= 1
                removed[i] = k
                break
            j -= c


def _check(n, seed, n_melds, name):
    """Validate the arguments of the samplers: ``n`` 0 to 2**31, ``seed`` 0 to 2**63 - 1,
    ``n_melds`` integers 0-4 (scalar or n of them)."""

    n = check_int(n, f"{name}: n", 0, 2**31, HandError)
    seed = check_int(seed, f"{name}: seed", 0, 2**63 - 1, HandError)
    return n, seed, _batch_melds(n_melds, n, name)


def _empty(n: int, name: str) -> np.ndarray:
    try:
        return np.empty((n, 34), np.uint8)
    except MemoryError:
        raise HandError(f"{name}: n={n} hands do not fit in memory; ask for fewer at a time") from None


def random_complete_hands(n: int, seed: int = 0, rules="douque", n_melds=0) -> np.ndarray:
    """``n`` random complete concealed parts (uint8[n, 34]); ``n_melds`` int or int array (n,)."""
    n, seed, k = _check(n, seed, n_melds, "random_complete_hands")
    t = hand_tables(resolve_rules(rules))
    out = _empty(n, name="random_complete_hands")
    _complete_batch(np.uint64(seed), k, t, out)
    return out


def random_ready_hands(n: int, seed: int = 0, rules="douque", n_melds=0) -> tuple[np.ndarray, np.ndarray]:
    """``n`` ready concealed parts: random complete ones minus one random tile.

    Returns ``(counts uint8[n, 34], removed kind int64[n])``; the removed kind is always a wait
    unless the player would then hold all 4 copies of it.
    """
    n, seed, k = _check(n, seed, n_melds, "random_ready_hands")
    t = hand_tables(resolve_rules(rules))
    out = _empty(n, name="random_ready_hands")
    removed = np.empty(n, np.int64)
    _ready_batch(np.uint64(seed), k, t, out, removed)
    return out, removed
