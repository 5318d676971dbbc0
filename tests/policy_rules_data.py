"""A user policy that reads its rule set (``rules_data``), as a module worker processes can import.

``rule_reader`` chooses among the legal actions by the numbers its rule set gives it, a different
entry at every decision: a vector that lacked them, or held other numbers, would play other games.
"""

import numpy as np

from simkit._jit import jit
from simkit.engine import actions as A
from simkit.policies.routes import route_values
from simkit.policies.spec import Param, policy


@policy(rules_data=route_values, shift=Param(0, int, low=0, high=100, doc="added to the entry read"))
@jit
def rule_reader(view, legal, params, rng):
    """The ``j``-th legal action, ``j`` from entry ``1 + (decision % entries)`` of the rule set's
    route values (after its one named parameter)."""
    if legal[A.WIN]:
        return A.WIN
    n_legal = 0
    for a in range(A.N_ACTIONS):
        n_legal += legal[a]
    entries = len(params) - 1
    at = 1 + (view.n_river + view.opp_n_river + view.tiles_left) % entries
    j = (np.int64(abs(params[at]) * 7.0) + np.int64(params[0])) % n_legal
    for a in range(A.N_ACTIONS):
        if legal[a]:
            if j == 0:
                return a
            j -= 1
    return -1
