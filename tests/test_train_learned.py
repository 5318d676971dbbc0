"""examples/train_learned.py: the masked MLP's gradient is the log-likelihood's, cloning learns a
rule, and (slow) a tiny run goes from value's decisions to a saved, loadable policy."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

_PATH = Path(__file__).resolve().parents[1] / "examples" / "train_learned.py"
spec = importlib.util.spec_from_file_location("train_learned", _PATH)
train_learned = importlib.util.module_from_spec(spec)
spec.loader.exec_module(train_learned)


def test_the_update_follows_the_gradient_of_the_masked_log_likelihood():
    rng = np.random.default_rng(0)
    net = train_learned.MaskedMLP([5, 4, 3], rng)
    x = rng.normal(size=(6, 5)).astype(np.float32)
    legal = np.array([[1, 1, 0], [1, 0, 1], [1, 1, 1]] * 2, bool)
    actions = np.array([1, 2, 0, 0, 2, 2])
    w = np.float32(1.0)
    before = net.copy()
    net.update(x, legal, actions, np.full(6, w), lr=1e-3)
    # Adam's first step moves each weight by about lr against the sign of its gradient
    for k, (W0, W1) in enumerate(zip(before.W, net.W)):
        for i, j in ((0, 0), (1, 2), (3, 1)):
            if j >= W0.shape[1] or i >= W0.shape[0]:
                continue
            probe = before.copy()
            g = (
                loss_of(probe, k, i, j, 1e-3, x, legal, actions) - loss_of(probe, k, i, j, -1e-3, x, legal, actions)
            ) / 2e-3
            if abs(g) > 1e-4:
                assert np.sign(W1[i, j] - W0[i, j]) == -np.sign(g)
    assert (net.sample(x, legal, rng) >= 0).all() and legal[np.arange(6), net.sample(x, legal, rng)].all()


def loss_of(net, k, i, j, eps, x, legal, actions):
    net.W[k][i, j] += eps
    p = net.probabilities(x, legal)
    net.W[k][i, j] -= eps
    return float(-np.log(p[np.arange(len(actions)), actions]).mean())


def test_cloning_learns_a_rule_and_folds_the_standardisation_into_the_first_layer():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 6)).astype(np.float32) * 5 + 2
    legal = np.ones((3000, 3), bool)
    actions = (X[:, 0] > 2).astype(np.int64) * 2  # action 2 when the first input is high, else 0
    curve = {"cloning": []}
    net, mean, scale, _ = train_learned.behaviour_cloning(X, legal, actions, np.arange(3000), [8], 6, 3e-2, rng, curve)
    assert curve["cloning"][-1]["held_out_accuracy"] > 0.95
    layers = net.layers(mean, scale)
    raw = X @ layers[0][0] + layers[0][1]
    scores = np.maximum(raw, 0) @ layers[1][0] + layers[1][1]
    assert (scores.argmax(axis=1) == net.best(((X - mean) / scale).astype(np.float32), legal)).mean() > 0.999


@pytest.mark.slow
def test_a_tiny_run_saves_a_policy_that_plays_and_trains_the_same_network_again(tmp_path):
    import simkit

    def train(where):
        out, curve = where / "agent.npz", where / "curve.json"
        args = ["--matches", "6", "--epochs", "1", "--pg-updates", "2", "--envs", "8", "--horizon", "4",
                "--select-matches", "2", "--eval-matches", "2", "--work", str(where / "work"), "--out", str(out),
                "--curve", str(curve)]  # fmt: skip
        assert train_learned.main(args) == 0
        return out, json.loads(curve.read_text())

    out, data = train(tmp_path / "first")
    agent = simkit.load_policy(out)
    assert agent.label == "learned" and agent.source.rules == "douque"
    assert data["chosen"] in ("cloned", "fine_tuned") and len(data["cloning"]) == 1
    assert set(data["results"]) == {"greedy", "value"}
    notes = agent.source.notes
    assert notes["trained_by"] == (
        "python3 examples/train_learned.py --matches 6 --epochs 1 --pg-updates 2 --envs 8 --horizon 4 "
        "--select-matches 2 --eval-matches 2"
    )  # the options that decide the network, not where its files went
    again, _ = train(tmp_path / "again")
    with np.load(out) as a, np.load(again) as b:
        assert sorted(a.files) == sorted(b.files)
        for name in a.files:
            assert np.array_equal(a[name], b[name]), name
