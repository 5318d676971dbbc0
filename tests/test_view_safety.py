"""A policy cannot change the game through its view: a policy called through its pointer gets a
view of copies of the engine's arrays (its hand, both players' melds and rivers), refreshed before
each of its decisions, so whatever it writes there the game is untouched."""

from __future__ import annotations

import numpy as np
import pytest

from simkit._jit import jit
from simkit.play.matches import simulate_matches


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
def _writes_counters(view, legal, params, rng):
    view.counters[0] = 7.0  # the one writable array
    return _first_legal(legal)


@jit
def _first_legal_only(view, legal, params, rng):
    return _first_legal(legal)


@pytest.mark.parametrize("policy", [_writes_hand, _writes_opponent_river, _writes_melds])
def test_what_a_policy_writes_into_its_view_never_reaches_the_game(policy):
    """Invariant checks off (``check=False``), a policy writing into its view plays exactly the
    games of one that writes nothing: its view's arrays are copies."""
    a = simulate_matches("douque", (policy, "greedy"), 20, seed=1, check=False)
    b = simulate_matches("douque", (_first_legal_only, "greedy"), 20, seed=1, check=True)
    for key in ("winner", "points", "score_0", "turns", "win_tile"):
        assert np.array_equal(a[key], b[key]), key


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


def test_a_python_policys_view_is_copies():
    """From Python (the step API) the view's arrays are copies: what a policy writes into them
    never reaches the state."""
    from simkit.play.stepper import GameState

    s = GameState.new_match("douque", seed=3)
    view = s.view()
    before = (s.table.hand.copy(), s.table.melds.copy(), s.table.river.copy())
    for array in (view.hand, view.melds, view.opp_melds, view.river, view.opp_river):
        array[...] = 3
    assert all(np.array_equal(x, y) for x, y in zip((s.table.hand, s.table.melds, s.table.river), before))
