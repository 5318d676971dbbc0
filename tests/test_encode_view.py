"""One encoder: the environments' observation of a player equals ``encode_view`` of that player's
View, at every decision of whole matches (scores carried from hand to hand included), in every
rule set; and a jitted policy can encode its view inside the engine."""

from __future__ import annotations

import numpy as np
import pytest

import simkit
from simkit.engine import actions as A
from simkit.envs import OBSERVATION_LAYOUT, OBSERVATION_SIZE, encode_observation, encode_view, encode_view_into
from simkit.play.stepper import GameState
from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy

RULE_SETS = ("douque", "night_market", "duel", "for_two")


@pytest.mark.parametrize("rules", RULE_SETS)
def test_the_environments_observation_is_encode_view_of_the_players_view(rules):
    rng = np.random.default_rng(7)
    checked = 0
    for match in range(2):
        s = GameState.new_match(rules, seed=3, match=match)
        while True:
            while not s.over:
                p = s.player
                for who, deciding in ((p, True), (1 - p, False)):
                    env = encode_observation(s, who, deciding)
                    view = s.view(who)
                    np.testing.assert_array_equal(env, encode_view(view))
                    out = np.full(OBSERVATION_SIZE, np.nan, np.float32)
                    encode_view_into(view, out)
                    np.testing.assert_array_equal(env, out)
                    checked += 1
                # greedy half the time (declarations, claims, wins), random legal actions otherwise
                if rng.random() < 0.5:
                    action = greedy_policy(s.view(), s.legal, GREEDY_DEFAULTS, s.policy_stream())
                else:
                    action = rng.choice(s.legal_actions())
                s.apply(int(action))
            if not s.next_hand():
                break
    assert checked > 200
    # the scores of earlier hands reach the view, so the match's stakes are in the observation
    score = OBSERVATION_LAYOUT["score"]
    assert encode_view(s.view(0))[score][0] == pytest.approx(s.table.purse[0])


@simkit.jit
def linear_policy(view, legal, params, rng):  # pragma: no cover - compiled
    """A linear policy on the observation: the legal action with the highest ``weights @ x``."""
    x = encode_view(view)
    best, best_value = -1, -np.inf
    for a in range(legal.shape[0]):
        if legal[a]:
            value = 0.0
            for j in range(x.shape[0]):
                value += params[a * x.shape[0] + j] * x[j]
            if value > best_value:
                best, best_value = a, value
    return best


def test_a_jitted_policy_encodes_its_view_in_the_engine():
    weights = np.random.default_rng(1).normal(size=A.N_ACTIONS * OBSERVATION_SIZE)
    rows = simkit.simulate_matches("duel", ((linear_policy, weights), "greedy"), 3, seed=5)
    again = simkit.simulate_matches("duel", ((linear_policy, weights), "greedy"), 3, seed=5)
    assert len(rows["winner"]) > 0 and np.array_equal(rows["score_0"], again["score_0"])
