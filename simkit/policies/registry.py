"""The built-in policies by name -- ``random``, ``greedy``, ``value`` and ``search`` -- with their default
parameters: the one place they are listed (:data:`simkit.policies.spec.BUILT_IN` is filled
from here, so a policy text such as ``"value{declare=0}"`` resolves to the function)."""

from __future__ import annotations

import numpy as np

from .basic import GREEDY_DEFAULTS, greedy_policy, random_policy
from .search import SEARCH_DEFAULTS, search_policy
from .spec import BUILT_IN
from .value import VALUE_DEFAULTS, value_policy

__all__ = ["POLICIES"]

#: built-in policies by name, with their default parameters
POLICIES = {
    "random": (random_policy, np.zeros(0)),
    "greedy": (greedy_policy, GREEDY_DEFAULTS),
    "value": (value_policy, VALUE_DEFAULTS),
    "search": (search_policy, SEARCH_DEFAULTS),
}
BUILT_IN.update({name: fn for name, (fn, _) in POLICIES.items()})
