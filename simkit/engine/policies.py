"""Built-in policies, and how to write your own.

A policy is a jitted function with the signature ::

    policy(view, legal, params, rng) -> int

* ``view`` (:class:`simkit.engine.actions.View`): what the deciding player may know -- own hand
  and melds, both rivers, the opponent's melds and declaration, tiles left, winds, streak, the
  decision phase and the tile concerned. Treat its arrays as read-only.
* ``legal``: bool[N_ACTIONS], the legal actions (codes in :mod:`simkit.engine.actions`).
* ``params``: float64 array of the policy's parameters (whatever it needs; may be empty).
* ``rng``: uint64[1] stream state for :func:`simkit.engine.rng.bounded` / ``uniform``; drawing
  from it keeps runs reproducible.

It returns an action code where ``legal`` is True. Write it with :func:`simkit._jit.jit` (or
``numba.njit``) and pass the function itself to :func:`simkit.simulate_matches`. For example, a
policy that never claims, declares only with two or more winning kinds, and otherwise plays like
``greedy``::

    import numpy as np
    from simkit._jit import jit
    from simkit.engine import actions as A
    from simkit.engine.policies import greedy_policy, count_waits_after

    @jit
    def patient(view, legal, params, rng):
        if legal[A.WIN]:
            return A.WIN
        if view.phase == A.PHASE_REACT or view.phase == A.PHASE_ROB:
            return A.PASS
        a = greedy_policy(view, legal, np.zeros(3), rng)  # claim=0, declare=0, kong=0
        k = a - A.DISCARD
        if 0 <= k < 34 and legal[A.DECLARE + k] and count_waits_after(view, k) >= 2:
            return A.DECLARE + k
        return a

(This exact policy is tested in ``tests/test_engine.py``.)
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ..hand.shanten import LIVE_NONE, LIVE_TIES, discard_eval_kernel, shanten_kernel
from ..hand.waits import popcount, waits_kernel
from . import actions as A
from .rng import bounded

__all__ = ["random_policy", "greedy_policy", "count_waits_after", "GREEDY_DEFAULTS", "POLICIES"]

#: greedy's parameters: claim pungs/kongs, declare ready, make kongs from the hand (1 = yes)
GREEDY_DEFAULTS = np.array([1.0, 1.0, 1.0])


@jit
def random_policy(view, legal, params, rng):  # pragma: no cover - compiled
    """Uniform over the legal actions (the engine's fuzzer)."""
    n = 0
    for a in range(legal.shape[0]):
        if legal[a]:
            n += 1
    j = bounded(rng, n)
    for a in range(legal.shape[0]):
        if legal[a]:
            if j == 0:
                return a
            j -= 1
    return -1


@jit(inline="always")
def _meld_counts(view, out):  # pragma: no cover - compiled
    for k in range(34):
        out[k] = 0
    for m in range(view.n_melds):
        out[view.melds[m, 1]] += 3 if view.melds[m, 0] == 0 else 4


@jit
def _visible(view, out):  # pragma: no cover - compiled
    """Copies of each kind the player can see: own hand and melds, all melds, both rivers."""
    for k in range(34):
        out[k] = view.hand[k]
    for m in range(view.n_melds):
        out[view.melds[m, 1]] += 3 if view.melds[m, 0] == 0 else 4
    for m in range(view.opp_n_melds):
        out[view.opp_melds[m, 1]] += 3 if view.opp_melds[m, 0] == 0 else 4
    for i in range(view.n_river):
        out[view.river[i]] += 1
    for i in range(view.opp_n_river):
        out[view.opp_river[i]] += 1


@jit
def count_waits_after(view, k):  # pragma: no cover - compiled
    """Number of winning kinds of the player's hand after discarding ``k``."""
    hand = view.hand.copy()
    hand[k] -= 1
    mc = np.empty(34, np.uint8)
    _meld_counts(view, mc)
    return popcount(waits_kernel(hand, view.n_melds, mc, view.tables))


@jit
def _best_discard(view, legal, work, hand):  # pragma: no cover - compiled
    """(discard kind, shanten after it): least shanten, then most live improving tiles, then lowest kind.

    Live improving tiles are counted only for the discards of least shanten.
    """
    visible = np.empty(34, np.int64)
    _visible(view, visible)
    sh = np.empty(34, np.int64)
    live = np.empty(34, np.int64)
    discard_eval_kernel(hand, view.n_melds, view.tables, visible, sh, live, LIVE_TIES)
    best = -1
    best_sh = 99
    best_live = -1
    for k in range(34):
        if not legal[A.DISCARD + k]:
            continue
        if sh[k] < best_sh or (sh[k] == best_sh and live[k] > best_live):
            best = k
            best_sh = sh[k]
            best_live = live[k]
    return best, best_sh


@jit
def greedy_policy(view, legal, params, rng):  # pragma: no cover - compiled
    """Win whenever possible; discard to the least shanten (ties: most live tiles that improve);
    claim a pung/kong or make a kong only when it does not worsen shanten; declare ready (MIGI
    when its conditions hold) as soon as the hand is ready.

    ``params``: [claim, declare, kong], each 1 (yes) or 0 (no); see :data:`GREEDY_DEFAULTS`.
    """
    if legal[A.WIN]:
        return A.WIN
    claim = params.shape[0] > 0 and params[0] != 0
    declare = params.shape[0] > 1 and params[1] != 0
    kong = params.shape[0] > 2 and params[2] != 0
    t = view.tables
    work = np.empty(20, np.int64)
    hand = view.hand.copy()
    if view.phase == A.PHASE_REACT or view.phase == A.PHASE_ROB:
        if not (legal[A.PUNG] or legal[A.KONG]) or not claim:
            return A.PASS
        x = view.tile
        now = shanten_kernel(hand, view.n_melds, t, work)
        if legal[A.KONG] and kong:
            hand[x] -= 3
            after = shanten_kernel(hand, view.n_melds + 1, t, work)
            hand[x] += 3
            if after <= now:
                return A.KONG
        if legal[A.PUNG]:
            hand[x] -= 2
            sh = np.empty(34, np.int64)
            live = np.empty(34, np.int64)
            best = discard_eval_kernel(hand, view.n_melds + 1, t, hand, sh, live, LIVE_NONE)
            hand[x] += 2
            if best <= now:
                return A.PUNG
        return A.PASS
    # after a draw or a pung
    first = -1
    for a in range(A.N_ACTIONS):
        if legal[a]:
            first = a
            break
    if view.declared != 0:
        return first  # locked hand: the drawn tile goes out (or the automatic added kong)
    k, sh = _best_discard(view, legal, work, hand)
    if kong:
        for x in range(34):
            for base in (A.CONCEALED_KONG, A.ADDED_KONG):
                if legal[base + x]:
                    removed = 4 if base == A.CONCEALED_KONG else 1
                    hand[x] -= removed
                    extra = 1 if base == A.CONCEALED_KONG else 0
                    after = shanten_kernel(hand, view.n_melds + extra, t, work)
                    hand[x] += removed
                    if after <= sh:
                        return base + x
    if k < 0:
        return first
    if declare and legal[A.DECLARE + k]:
        return A.DECLARE + k
    return A.DISCARD + k


#: built-in policies by name, with their default parameters
POLICIES = {
    "random": (random_policy, np.zeros(0)),
    "greedy": (greedy_policy, GREEDY_DEFAULTS),
}
