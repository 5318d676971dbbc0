"""The worked example of docs/policies.md ("A worked example: a policy that defends"), as a module
tests can import.

The docs write the decorators as ``simkit.policy``, ``simkit.Param`` and ``simkit.jit``; here they
come from where they live (:mod:`simkit.policies.spec`, :mod:`simkit._jit`).
"""

import numpy as np

from simkit._jit import jit
from simkit.engine import actions as A
from simkit.policies.basic import greedy_policy
from simkit.policies.helpers import (
    LIVE_ALL,
    discard_table,
    is_own_turn,
    opponent_declaration,
    opponent_discarded,
    safe_against_discard_win,
)
from simkit.policies.spec import Param, policy


@policy(
    push=Param(
        1, int, low=-1, high=8, doc="under threat, still play for the hand while its best shanten is at most this"
    ),
    claim=Param(True, bool, doc="claim pungs, chows and kongs (as greedy does) while there is no threat"),
)
@jit
def cautious(view, legal, params, rng):
    """greedy, until the opponent looks ready (declared, or three melds exposed): then no claims,
    and unless the hand is within ``push`` of ready, discard the safest tile."""
    push, claim = params[0], params[1] != 0  # in declaration order
    if legal[A.WIN]:
        return A.WIN
    threat = opponent_declaration(view) != 0 or view.opp_n_melds >= 3
    # greedy's own parameters: claim, declare, kong, then its for_two thresholds; under threat
    # neither claims nor declarations (a locked hand could not fold any more)
    calm = 0.0 if threat else 1.0
    g = np.array([calm if claim else 0.0, calm, 1.0, 1.0, 2.0, 7.0])
    if not threat or not is_own_turn(view) or view.declared != 0:
        return greedy_policy(view, legal, g, rng)
    sh = np.empty(34, np.int64)
    live = np.empty(34, np.int64)
    fold = discard_table(view, sh, live, LIVE_ALL) > push  # far from ready: give up the hand
    passed = np.empty(34, np.int64)
    opponent_discarded(view, passed)  # recomputed from the view at every decision: no state kept
    for i in range(view.n_river):  # and what they let pass from us
        passed[view.river[i]] += 1
    best, best_key = -1, np.int64(1) << 40
    for k in range(34):
        if legal[A.DISCARD + k]:
            # 0: the rules rule out a win on it; 1: the opponent let it pass before; 2: anything else
            danger = 0 if safe_against_discard_win(view, k) else (1 if passed[k] > 0 else 2)
            # folding: safest, then nearest ready, then most live; pushing: nearest ready, then safest
            key = (danger * 100 + sh[k]) * 1000 - live[k] if fold else (sh[k] * 100 + danger) * 1000 - live[k]
            if key < best_key:
                best, best_key = k, key
    return A.DISCARD + best
