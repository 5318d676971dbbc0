"""``simkit.analysis.decision_values``: each legal action's rollout value at sampled decisions of a
run, the decision replayed from the run's own log and checked against its logged observation."""

from __future__ import annotations

import numpy as np
import pytest

import simkit
from simkit import analysis, datasets
from simkit.engine import actions as A
from simkit.play.position import position_of
from simkit.play.stepper import GameState


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    path = tmp_path_factory.mktemp("values") / "run"
    simkit.simulate(
        path, policies=("value", "greedy"), matches=2, seed=5, duplicate=True, decisions="observations", progress=False
    )
    return path


def _replayed(path, row):
    """The state of decision ``row`` of ``decision_arrays(path)``, replayed by hand."""
    d = analysis.decision_arrays(path)
    same = np.flatnonzero((d["match"] == d["match"][row]) & (d["copy"] == d["copy"][row]))
    s = GameState.new_match("douque", 5, int(d["match"][row]))
    for r in same:
        if s.over:
            s.next_hand()
        if r == row:
            return s
        s.apply(int(d["action"][r]))
    raise AssertionError("not reached")


def test_each_legal_action_is_valued_by_the_rollouts_of_the_replayed_decision(run):
    v = analysis.decision_values(run, sample=5, rollouts=40, seed=3, progress=False)
    d = analysis.decision_arrays(run)
    rows = v["decision"]
    assert len(rows) == 5 and (np.diff(rows) > 0).all() and v["rollouts"] == 40
    assert np.array_equal(v["observation"], d["observation"][rows]) and np.array_equal(v["legal"], d["legal"][rows])
    assert np.array_equal(v["action"], d["action"][rows])
    assert (d["n_legal"][rows] > 1).all()
    for j, row in enumerate(rows):
        legal = v["legal"][j]
        assert np.isfinite(v["q"][j][legal]).all() and np.isnan(v["q"][j][~legal]).all()
        assert (v["q_low"][j][legal] <= v["q"][j][legal]).all() and (v["q"][j][legal] <= v["q_high"][j][legal]).all()
    # the first decision's values are simkit.rollouts' at the position replayed by hand (seed + 0)
    df = simkit.rollouts(position_of(_replayed(run, int(rows[0]))), n=40, seed=3)
    assert np.array_equal(v["q"][0][df["code"].to_numpy()], df["mean"].to_numpy())
    again = analysis.decision_values(run, decisions=rows, rollouts=40, seed=3, progress=False)
    for key in ("decision", "q", "q_low", "q_high"):
        assert np.array_equal(again[key], v[key], equal_nan=key != "decision"), key


def test_filters_follow_decision_arrays(run):
    v = analysis.decision_values(run, policy="greedy", sample=3, rollouts=10, progress=False)
    d = analysis.decision_arrays(run, policy="greedy")
    assert (d["policy"][v["decision"]] == "greedy").all()
    assert np.array_equal(v["observation"], d["observation"][v["decision"]])
    v1 = analysis.decision_values(run, player=1, decisions=[0, 1], rollouts=10, progress=False)
    d1 = analysis.decision_arrays(run, player=1)
    assert np.array_equal(v1["observation"], d1["observation"][:2])


def test_a_replay_that_misses_the_logged_decision_is_an_error(run, monkeypatch):
    other = GameState.new_match

    def another_deal(rules, seed, match, **kwargs):
        return other(rules, seed + 1, match, **kwargs)

    monkeypatch.setattr(GameState, "new_match", staticmethod(another_deal))
    with pytest.raises(datasets.DatasetError, match="does not reach its logged decision"):
        analysis.decision_values(run, sample=2, rollouts=10, progress=False)


def test_bad_requests_are_named(run, tmp_path):
    with pytest.raises(simkit.SimkitError, match="sample"):
        analysis.decision_values(run, sample=0)
    with pytest.raises(simkit.SimkitError, match="decisions are rows 0 to"):
        analysis.decision_values(run, decisions=[10**6], progress=False)
    d = analysis.decision_arrays(run)
    at_a_position = np.isin(d["phase"], (A.PHASE_DRAW, A.PHASE_PUNG, A.PHASE_REACT))
    if not at_a_position.all():  # douque has no other phase; the check stands for for_two's bids
        with pytest.raises(simkit.SimkitError, match="rollouts value a decision"):
            analysis.decision_values(run, decisions=[int(np.flatnonzero(~at_a_position)[0])], progress=False)
    plain = tmp_path / "plain"
    simkit.simulate(plain, matches=1, seed=1, decisions=True, progress=False)
    with pytest.raises(datasets.DatasetError, match="no observations"):
        analysis.decision_values(plain)
