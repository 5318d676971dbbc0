"""examples/train_pg.py: returns to go per episode, legal sampling, a policy-gradient step in the
right direction, and a short run that prints the untrained starting point."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

_PATH = Path(__file__).resolve().parents[1] / "examples" / "train_pg.py"
spec = importlib.util.spec_from_file_location("train_pg", _PATH)
train_pg = importlib.util.module_from_spec(spec)
spec.loader.exec_module(train_pg)


def test_returns_to_go_stop_at_episode_ends_and_leave_unfinished_steps_out():
    rewards = np.array([[0.0, 1.0], [2.0, 0.0], [3.0, 5.0], [4.0, 0.0]])
    terminated = np.array([[False, True], [True, False], [False, False], [False, True]])
    g = train_pg.returns_to_go(rewards, terminated)
    assert g[0, 0] == 2.0 and g[1, 0] == 2.0  # episode ending at step 1
    assert np.isnan(g[2, 0]) and np.isnan(g[3, 0])  # not finished within the horizon
    assert g[0, 1] == 1.0 and g[1, 1] == 5.0 and g[2, 1] == 5.0 and g[3, 1] == 0.0


def test_the_policy_samples_legal_actions_and_learns_what_paid():
    rng = np.random.default_rng(0)
    policy = train_pg.LinearPolicy(4, 5, 0.05, rng)
    obs = rng.random((200, 4), dtype=np.float32)
    masks = np.zeros((200, 5), np.int8)
    masks[:, [1, 3]] = 1
    actions = policy.act(obs, masks)
    assert set(np.unique(actions)) <= {1, 3}
    before = policy.probabilities(obs, masks)[:, 3].mean()
    adv = np.where(actions == 3, 1.0, -1.0).astype(np.float32)
    for _ in range(20):
        policy.update(obs, masks, actions, adv)
    assert policy.probabilities(obs, masks)[:, 3].mean() > before + 0.2


def test_a_short_run_reports_the_untrained_policy_first_and_saves_a_policy(capsys, tmp_path):
    import simkit

    pytest.importorskip("matplotlib")
    saved = tmp_path / "pg.npz"
    args = ["--minutes", "0.02", "--envs", "8", "--horizon", "8", "--report", "0.5", "--save", str(saved)]
    assert train_pg.main(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("train_pg: douque, a linear softmax policy against random, 8 tables")
    assert "untrained" in out[2]
    pg = simkit.load_policy(saved)
    assert pg.label == "pg" and pg.source.rules == "douque" and pg.source.architecture == "linear"
    hands = simkit.simulate_matches("douque", (pg, "random"), 2, seed=1)
    assert len(hands["match"]) >= 2
