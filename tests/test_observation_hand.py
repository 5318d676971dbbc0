"""The observation's hand features -- the hand's shanten, each discard's shanten and live tiles, each
claim's shanten -- against their definitions computed with the reference shanten, at every
decision of whole matches in each rule set, for the deciding player and the other."""

from __future__ import annotations

import numpy as np
import pytest
from reference_observation import reference_hand_features

from simkit.envs import OBSERVATION_LAYOUT, encode_view
from simkit.play.stepper import GameState
from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy

RULE_SETS = ("douque", "night_market", "duel", "for_two")


@pytest.mark.parametrize("rules", RULE_SETS)
def test_the_hand_features_are_their_definitions(rules):
    rng = np.random.default_rng(3)
    L = OBSERVATION_LAYOUT
    checked = claims = 0
    s = GameState.new_match(rules, seed=8)
    while checked < 160:
        while not s.over:
            p = s.player
            for who in (p, 1 - p):
                view = s.view(who)
                obs = encode_view(view)
                ref = reference_hand_features(
                    view.hand, int(view.n_melds), obs[L["visible"]].astype(np.int64), int(view.phase),
                    int(view.tile), s.rules,
                )  # fmt: skip
                for name, value in ref.items():
                    np.testing.assert_array_equal(obs[L[name]], np.float32(value), err_msg=f"{rules} {name}")
                claims += bool(ref["claim_shanten"].any())
                checked += 1
            if rng.random() < 0.7:
                action = greedy_policy(s.view(), s.legal, GREEDY_DEFAULTS, s.policy_stream())
            else:
                action = rng.choice(s.legal_actions())
            s.apply(int(action))
        if not s.next_hand():
            s = GameState.new_match(rules, seed=8, match=checked)
    assert claims > 0
