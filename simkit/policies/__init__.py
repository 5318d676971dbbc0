"""Policies: who chooses each action.

* :mod:`~simkit.policies.spec`: a policy's declaration (:class:`Policy`, :class:`Param`, the text
  syntax ``"greedy{declare=0}"``, the signature check);
* :mod:`~simkit.policies.basic`: the built-in ``random`` and ``greedy``;
* :mod:`~simkit.policies.value`: the built-in ``value`` (with :mod:`~simkit.policies.routes`, the
  scoring routes it values a hand by);
* :mod:`~simkit.policies.helpers`: jitted helpers for policy writers (shanten and live tiles per
  discard, visible and hidden counts, waits, phases);
* :mod:`~simkit.policies.registry`: the built-ins by name, the one place they are listed;
* :mod:`~simkit.policies.modules`: ``module:function`` policies, found, checked and hashed;
* :mod:`~simkit.policies.network`, :mod:`~simkit.policies.files` and
  :mod:`~simkit.policies.archive`: learned networks, their files and how a file is read safely.

A policy is a jitted function ``policy(view, legal, params, rng) -> action`` over the engine's
:class:`~simkit.engine.actions.View`; see the policies page of the docs for writing one.
"""

from .basic import GREEDY_DEFAULTS, count_waits_after, greedy_policy, random_policy
from .registry import POLICIES
from .spec import Param, Policy, PolicyError, as_policy, policy
from .value import VALUE_DEFAULTS, value_policy

__all__ = [
    "policy",
    "Param",
    "Policy",
    "PolicyError",
    "as_policy",
    "POLICIES",
    "random_policy",
    "greedy_policy",
    "value_policy",
    "count_waits_after",
    "GREEDY_DEFAULTS",
    "VALUE_DEFAULTS",
]
