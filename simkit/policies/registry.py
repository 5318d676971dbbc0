"""The built-in policies by name -- ``random``, ``greedy``, ``value`` and ``search`` -- with their default
parameters, and the built-in learned agents -- ``learned`` -- with their files: the one place they
are listed (:data:`simkit.policies.spec.BUILT_IN` and :data:`~simkit.policies.spec.AGENT_FILES`
are filled from here, so a policy text such as ``"value{declare=0}"`` or ``"learned"`` resolves)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .basic import GREEDY_DEFAULTS, greedy_policy, random_policy
from .search import SEARCH_DEFAULTS, search_policy
from .spec import AGENT_FILES, BUILT_IN
from .value import VALUE_DEFAULTS, value_policy

__all__ = ["POLICIES", "AGENTS"]

#: built-in policies by name, with their default parameters
POLICIES = {
    "random": (random_policy, np.zeros(0)),
    "greedy": (greedy_policy, GREEDY_DEFAULTS),
    "value": (value_policy, VALUE_DEFAULTS),
    "search": (search_policy, SEARCH_DEFAULTS),
}
BUILT_IN.update({name: fn for name, (fn, _) in POLICIES.items()})

#: built-in learned agents by name: the policy file shipped in simkit/policies/agents/ (trained by
#: examples/train_learned.py; each refuses a rule set other than its own)
AGENTS = {"learned": Path(__file__).resolve().parent / "agents" / "learned-douque.npz"}
AGENT_FILES.update({name: str(path) for name, path in AGENTS.items()})
