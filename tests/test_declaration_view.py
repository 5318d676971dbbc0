"""When each player declared (douque), as a policy sees it: ``View.declared_at`` /
``View.opp_declared_at`` and the observation's ``river_declared`` / ``opp_river_declared`` are
the river index of the declaring discard, checked against the declarations seen while stepping
matches from Python (the river's length when the DECLARE action was applied)."""

from __future__ import annotations

import numpy as np
import pytest

from simkit._jit import jit
from simkit.engine import actions as A
from simkit.engine.observation import OBSERVATION_LAYOUT
from simkit.envs import encode_observation
from simkit.play.matches import simulate_matches
from simkit.play.position import Position, PositionError
from simkit.play.stepper import GameState
from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy


@jit
def _greedy_telling_declarations(view, legal, params, rng):
    """greedy, recording in its counters where each player declared."""
    view.counters[0] = view.declared_at
    view.counters[1] = view.opp_declared_at
    return greedy_policy(view, legal, params, rng)


def _stepped(seed: int, matches: int):
    """Every decision of the matches stepped from Python: (player, declared_at, opp_declared_at)
    from the declarations seen, and the view's values."""
    expected, seen = [], []
    for m in range(matches):
        s = GameState.new_match("douque", seed=seed, match=m)
        while True:
            at = [-1, -1]
            while not s.over:
                p = s.player
                view = s.view()
                expected.append((p, at[p], at[1 - p]))
                seen.append((p, view.declared_at, view.opp_declared_at))
                obs = encode_observation(s, p, True)
                for name, i in (("river_declared", at[p]), ("opp_river_declared", at[1 - p])):
                    part = obs[OBSERVATION_LAYOUT[name]]
                    assert part.sum() == (i >= 0) and (i < 0 or part[i] == 1)
                action = int(_greedy_telling_declarations(view, s.legal, GREEDY_DEFAULTS, s.policy_stream()))
                if A.DECLARE <= action < A.DECLARE + 34:
                    at[p] = int(s.table.n_river[p])  # the discard about to be made
                s.apply(action)
            if not s.next_hand():
                break
    return expected, seen


def test_the_view_says_where_each_player_declared():
    expected, seen = _stepped(seed=11, matches=6)
    assert seen == expected
    assert any(e[1] >= 0 or e[2] >= 0 for e in expected)  # greedy declared in these matches


def test_the_engine_gives_policies_the_same_values():
    res = simulate_matches(
        "douque", ((_greedy_telling_declarations, GREEDY_DEFAULTS), "greedy"), 6, seed=11, decisions=True
    )
    log = res["decisions"]
    mine = np.asarray(log["player"]) == 0
    expected, _ = _stepped(seed=11, matches=6)
    want = np.array([(e[1], e[2]) for e in expected if e[0] == 0], np.float64)
    got = np.stack([np.asarray(log["counter_0"])[mine], np.asarray(log["counter_1"])[mine]], axis=1)
    np.testing.assert_array_equal(got, want)


def test_a_position_says_where_a_player_declared():
    common = dict(
        hand="123456789m1122z",
        river="9p 1p 5z",
        opponent_river="3z 4z 6z 7z",
        dealer=False,
        opponent_declared=1,
        phase="discard",
    )
    assert Position("douque", **common).state().view().opp_declared_at == 3  # default: the last discard
    p = Position("douque", opponent_declared_at=1, **common)
    assert p.state().view().opp_declared_at == 1 and "opponent_declared_at 1" in str(p)
    assert Position.from_string(str(p)) == p
    with pytest.raises(PositionError, match="opponent_declared_at"):
        Position("douque", opponent_declared_at=4, **common)
    with pytest.raises(PositionError, match="has not declared"):
        Position("douque", **{**common, "opponent_declared": 0}, opponent_declared_at=1)
