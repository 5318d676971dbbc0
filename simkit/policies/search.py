"""The built-in ``search`` policy: determinized Monte Carlo search (PIMC) over the engine.

At a decision with more than one legal action, ``search`` draws worlds consistent with what it has
seen (:mod:`simkit.engine.beliefs`: the opponent's concealed tiles and the wall order, uniform
over the unseen tiles, a declared opponent ready), plays every candidate action in each world to
the end of the hand -- the candidate, then its **continuation** policy for both players
(``value`` by default) -- and takes the action with the best mean result for itself (score less
fee, the rule set's payment unit). With ``last_discard``, a world must also agree with the
opponent's last discard: their hand then was their hand in the world plus that tile, and the
continuation -- the model of the opponent -- asked to discard from it must choose that tile (up to
64 draws, then the last is kept); it is the one step of "weighted by how likely the opponent's own
play made them" that needs no unseen history. Candidates meet the same worlds and the same policy streams
(common random numbers), so they are compared pair by pair; after ``min_worlds`` worlds a
candidate whose mean difference to the leader is below it by more than ``z`` standard errors
drops out, and the decision ends when one is left or after ``worlds`` worlds. A forced decision
costs nothing; with ``always_win`` a win is taken at once.

It runs inside the engine (:func:`simkit.engine.step._search_action`), on every thread, through
every door a policy goes through (``simulate``, workers, Dask, ``replay``, ``rollouts`` /
``advise`` as a continuation), and it is reproducible as any policy is: each decision draws one
number from the player's stream and the worlds and playouts follow from it. Its continuation is
any jitted policy that does not search itself, with its parameters::

    "search"                                 # value as the continuation, the default budget
    "search{worlds=256,z=2}"                 # a larger budget, a looser bar
    "search{continuation=greedy{declare=0}}"  # another continuation

``simkit.as_policy("search").with_continuation(p)`` does the same from Python. With decisions
logged, ``counter_0`` is the worlds a decision searched, ``counter_1`` the candidates left and
``counter_2`` the worlds redrawn to agree with the opponent's last discard.
"""

from __future__ import annotations

from typing import NamedTuple

from ..engine import table as G
from .spec import Param, PolicyError, policy

__all__ = ["search_policy", "SEARCH_DEFAULTS", "SearchCall"]


@policy(
    worlds=Param(64, int, low=1, high=100_000, doc="worlds searched per decision at most (the budget)"),
    min_worlds=Param(
        16, int, low=2, high=100_000, doc="worlds searched before any candidate is dropped (above worlds: none is)"
    ),
    z=Param(3.0, float, low=0.0, high=100.0, doc="standard errors below the leader that drop a candidate"),
    always_win=Param(True, bool, doc="take a win at once, unsearched"),
    keep_shanten=Param(True, bool, doc="leave out discards that raise the hand's shanten (unless the default)"),
    last_discard=Param(
        True, bool, doc="draw worlds in which the continuation would have made the opponent's last discard"
    ),
    continuation="value",
)
def search_policy(view, legal, params, rng):
    """Determinized Monte Carlo search (see :mod:`simkit.policies.search`); it runs inside the engine."""
    raise PolicyError(
        "the search policy runs inside the engine (simulate, replay, rollouts); it cannot be asked from Python "
        "with a view, because it plays the hand out from the table"
    )


_NAMES = ("worlds", "min_worlds", "z", "always_win", "keep_shanten", "last_discard")  # the engine's SEARCH_* order
assert tuple(n for n, _ in search_policy.simkit_policy_spec.params) == _NAMES
assert G.N_SEARCH_PARAMS == len(_NAMES) + 1 and G.SEARCH_CONTINUATION == len(_NAMES)

SEARCH_DEFAULTS = search_policy.simkit_policy_spec.defaults


class SearchCall(NamedTuple):
    """How the engine calls a search player: its continuation's function, through the same pointer
    any policy's goes (:func:`simkit.play.runtime.policy_calls`); the search itself is the engine's."""

    continuation: object

    def __call__(self, view, legal, params, rng):
        return search_policy(view, legal, params, rng)  # from Python: the search cannot run (it says why)
