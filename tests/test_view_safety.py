"""A policy cannot change the game through its view: the engine hands it its own arrays typed
read-only, so a jitted policy that writes into them (or into the hand tables) does not compile and
is refused before any match, with the policy's file and line."""

from __future__ import annotations

import numpy as np
import pytest

from simkit._jit import jit
from simkit.engine.matches import PolicyCompileError, simulate_matches


@jit
def _first_legal(legal):
    for a in range(len(legal)):
        if legal[a]:
            return a
    return -1


@jit
def _writes_hand(view, legal, params, rng):
    view.hand[0] = 4  # the adversarial write: into the engine's state
    return _first_legal(legal)


@jit
def _writes_opponent_river(view, legal, params, rng):
    view.opp_river[0] = 3
    return _first_legal(legal)


@jit
def _writes_melds(view, legal, params, rng):
    view.melds[0, 0] = 1
    return _first_legal(legal)


@jit
def _writes_tables(view, legal, params, rng):
    view.tables.dist[0, 0] = 200
    return _first_legal(legal)


@jit
def _writes_counters(view, legal, params, rng):
    view.counters[0] = 7.0  # the one writable array
    return _first_legal(legal)


@pytest.mark.parametrize("policy", [_writes_hand, _writes_opponent_river, _writes_melds, _writes_tables])
def test_a_policy_that_writes_into_its_view_is_refused_before_any_match(policy):
    with pytest.raises(PolicyCompileError, match=r"does not compile: .*readonly array[\s\S]*test_view_safety.py"):
        simulate_matches("douque", (policy, "greedy"), 5, seed=1, check=False)


def test_the_counters_stay_writable_and_the_games_are_those_of_a_policy_that_writes_nothing():
    """The user counters are written and logged; the games are those of the first legal action
    (a policy that writes nothing chooses the same)."""

    @jit
    def first(view, legal, params, rng):
        return _first_legal(legal)

    a = simulate_matches("douque", (_writes_counters, "greedy"), 20, seed=4, decisions=True)
    b = simulate_matches("douque", (first, "greedy"), 20, seed=4)
    for key in ("winner", "points", "score_0", "turns"):
        assert np.array_equal(a[key], b[key])
    log = a["decisions"]
    mine = np.asarray(log["player"]) == 0
    assert (np.asarray(log["counter_0"])[mine] == 7.0).all()


def test_a_python_policys_view_is_read_only_copies():
    """From Python (the step API) the view's arrays are copies marked not writeable, as the engine's
    are typed read-only: writing fails where it is written, and the state is untouched."""
    from simkit.engine.state import GameState

    s = GameState.new_match("douque", seed=3)
    view = s.view()
    before = s.table.hand.copy()
    for array in (view.hand, view.melds, view.opp_melds, view.river, view.opp_river):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1
    view.counters[0] = 1.0
    assert np.array_equal(s.table.hand, before)
