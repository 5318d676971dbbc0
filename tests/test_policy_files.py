"""Learned policies in files: a network saved with ``save_policy`` plays, through every door a policy
goes through, the action a plain numpy forward pass chooses; runs record the file, not the
weights; a replay refuses a file that changed; a bad file is refused in one line."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

import simkit
from simkit import datasets
from simkit.analysis import compare, load
from simkit.cli import main
from simkit.engine.actions import N_ACTIONS
from simkit.envs import OBSERVATION_SIZE, encode_view
from simkit.play.stepper import GameState
from simkit.policies.network import network_policy, network_scores
from simkit.policies.spec import PolicyError, as_policy, from_record
from simkit.runs.simulation import simulate
from simkit.tournament import round_robin


def random_layers(seed, hidden=()):
    rng = np.random.default_rng(seed)
    sizes = [OBSERVATION_SIZE, *hidden, N_ACTIONS]
    return [(rng.normal(size=(a, b)) * 0.3, rng.normal(size=b) * 0.1) for a, b in zip(sizes, sizes[1:])]


def numpy_scores(layers, x, activation):
    """The reference forward pass: float32 weights as stored, float64 arithmetic."""
    a = x.astype(np.float64)
    for i, (w, b) in enumerate(layers):
        a = a @ w.astype(np.float32).astype(np.float64) + b.astype(np.float32).astype(np.float64)
        if i < len(layers) - 1:
            a = np.maximum(a, 0.0) if activation == "relu" else np.tanh(a)
    return a


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    path = tmp_path_factory.mktemp("agents") / "mlp.npz"
    simkit.save_policy(path, random_layers(1, (16,)), label="mlp16", rules="douque", notes={"trained": "no"})
    return path


@pytest.mark.parametrize(
    "hidden, activation, rules", [((), "relu", "duel"), ((16,), "relu", "douque"), ((8, 8), "tanh", "for_two")]
)
def test_the_engine_plays_the_numpy_forward_pass(tmp_path, hidden, activation, rules):
    layers = random_layers(len(hidden), hidden)
    path = simkit.save_policy(tmp_path / "a.npz", layers, label="net", activation=activation)
    p = simkit.load_policy(path)
    assert p.source.architecture == ("linear" if not hidden else "mlp") and p.source.rules is None
    scores = np.empty(N_ACTIONS)
    checked = 0
    s = GameState.new_match(rules, seed=2)
    while True:
        while not s.over:
            view, legal = s.view(), s.legal
            x = encode_view(view)
            ref = numpy_scores(layers, x, activation)
            network_scores(p.params, x, scores)
            np.testing.assert_allclose(scores, ref, rtol=1e-9, atol=1e-9)
            masked = np.where(legal > 0, ref, -np.inf)
            action = int(network_policy(view, legal, p.params, s.policy_stream()))
            assert legal[action]
            if np.ptp(np.sort(masked)[-2:]) > 1e-6:  # no near tie
                assert action == int(masked.argmax())
            checked += 1
            s.apply(action)
        if not s.next_hand():
            break
    assert checked > 20

    # inside the engine: the same games as asking the network from Python at every decision
    def from_python(view, legal, params, rng):
        return network_policy(view, legal, p.params, rng)

    engine = simkit.simulate_matches(rules, (p, "greedy"), 3, seed=4)
    python = simkit.simulate_matches(rules, (from_python, "greedy"), 3, seed=4)
    assert len(engine["score_0"]) >= 3 and np.array_equal(python["score_0"], engine["score_0"])


def test_a_file_round_trips_and_labels_itself_briefly(agent, tmp_path, capsys):
    p = simkit.load_policy(agent)
    assert p.label == "mlp16" and p.source.sizes == (OBSERVATION_SIZE, 16, N_ACTIONS)
    assert p.source.notes == {"trained": "no"} and p.source.rules == "douque"
    assert len(p.params) == 3 + 3 + OBSERVATION_SIZE * 16 + 16 + 16 * N_ACTIONS + N_ACTIONS
    assert as_policy(f"bot={agent}").label == "bot" and as_policy(str(agent)) == p
    assert simkit.load_policy(agent, label="other").label == "other"
    record = p.record()
    assert record == {
        "label": "mlp16",
        "name": "simkit.policies.network:network_policy",
        "file": str(agent.resolve()),
        "sha256": p.source.sha256,
        "trained_for": "douque",
    }
    assert from_record(record) == p
    again = pickle.loads(pickle.dumps(p))
    assert again == p and again.source == p.source
    # a function with a long vector is named by its length and a hash, not every number
    long = as_policy((network_policy, p.params))
    assert long.label.startswith("network_policy[n=") and len(long.label) < 60
    assert main(["policies", str(agent)]) == 0
    shown = capsys.readouterr().out
    assert "mlp16: a learned policy" in shown and f"{OBSERVATION_SIZE} -> 16 -> 148" in shown and "trained: no" in shown


def test_a_run_records_the_file_and_replays_it(agent, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "--policies", f"bot={agent},greedy", "--matches", "6", "--duplicate", "--seed", "3",
                 "--chunk-matches", "2", "--out", str(out), "--quiet"]) == 0  # fmt: skip
    manifest = (out / "_simkit.json").read_text()
    assert len(manifest) < 20_000
    record = datasets.read_manifest(out)["spec"]["policies"][0]
    assert record["label"] == "bot" and record["file"] == str(agent.resolve()) and "params" not in record
    df = load(out)
    assert set(df["policy_0"]) == {"bot", "greedy"}
    run = datasets.open_run(out)
    row = df.iloc[2]
    assert run.replay(row).row["points"] == row["points"]
    assert compare(out, correct_luck=True) is not None
    # the same run from Python, with two worker processes: the same bytes
    two = simulate(tmp_path / "two", rules="douque", policies=(f"bot={agent}", "greedy"), matches=6,
                   duplicate=True, seed=3, workers=2, chunk_matches=2, progress=False)  # fmt: skip
    shards = sorted(p.read_bytes() for p in out.glob("part-*.parquet"))
    assert len(shards) == 3 and sorted(p.read_bytes() for p in two.path.glob("part-*.parquet")) == shards
    # the file changes: replay refuses, unless told
    simkit.save_policy(agent, random_layers(9, (16,)), label="mlp16", rules="douque")
    with pytest.raises(simkit.SimkitError, match="changed since the run"):
        run.replay(row)
    run.replay(row, allow_changed=True)
    assert main(["replay", str(out), "--row", "2"]) == 2
    assert "--allow-changed" in capsys.readouterr().err


def test_a_round_robin_takes_policy_files(agent, tmp_path):
    t = round_robin([str(agent), "greedy"], rules=["douque"], matches=4, seed=1, directory=tmp_path)
    assert "mlp16" in str(t)


def test_bad_files_and_layers_are_refused_in_one_line(agent, tmp_path):
    with pytest.raises(PolicyError, match="does not exist"):
        simkit.load_policy(tmp_path / "none.npz")
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(PolicyError, match="is not a simkit policy file"):
        simkit.load_policy(tmp_path / "text.npz")
    with np.load(agent) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta["observation_layout"][0][1] = 35
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "layout.npz", **arrays)
    with pytest.raises(PolicyError, match=r"another observation layout \(fields that differ: hand\)"):
        simkit.load_policy(tmp_path / "layout.npz")
    with pytest.raises(PolicyError, match="trained for douque.*this run plays duel"):
        simkit.simulate_matches("duel", (str(agent), "greedy"), 1)
    with pytest.raises(PolicyError, match=r"layer 0 has weights \(3, 4\)"):
        simkit.save_policy(tmp_path / "x.npz", [(np.zeros((3, 4)), np.zeros(4))], label="x")
    with pytest.raises(PolicyError, match="the last layer has 16 outputs"):
        simkit.save_policy(tmp_path / "x.npz", random_layers(0, (16,))[:1], label="x")
    with pytest.raises(PolicyError, match="ends in .npz"):
        simkit.save_policy(tmp_path / "x.bin", random_layers(0), label="x")
    with pytest.raises(PolicyError, match="activation is one of relu, tanh"):
        simkit.save_policy(tmp_path / "x.npz", random_layers(0), label="x", activation="gelu")
    with pytest.raises(PolicyError, match="a policy label"):
        simkit.save_policy(tmp_path / "x.npz", random_layers(0), label="two words")
    assert not (tmp_path / "x.npz").exists()


def test_a_temperature_samples_the_legal_actions_from_the_policy_stream(tmp_path):
    layers = random_layers(3)
    warm = simkit.load_policy(simkit.save_policy(tmp_path / "t.npz", layers, label="warm", temperature=50.0))
    cold = simkit.load_policy(simkit.save_policy(tmp_path / "c.npz", layers, label="cold"))
    assert warm.source.temperature == 50.0
    s = GameState.new_match("duel", seed=6)
    view, legal = s.view(), s.legal
    stream = s.policy_stream().copy()
    sampled = [int(network_policy(view, legal, warm.params, stream)) for _ in range(200)]
    assert all(legal[a] for a in sampled) and len(set(sampled)) > 3
    assert {int(network_policy(view, legal, cold.params, stream)) for _ in range(20)} == {
        int(np.where(legal > 0, numpy_scores(layers, encode_view(view), "relu"), -np.inf).argmax())
    }
    one = simkit.simulate_matches("duel", (warm, "greedy"), 4, seed=6)
    two = simkit.simulate_matches("duel", (warm, "greedy"), 4, seed=6)
    assert np.array_equal(one["score_0"], two["score_0"])


def test_the_built_in_learned_agent_loads_by_name_and_keeps_to_its_rule_set(tmp_path):
    from simkit.policies.registry import AGENTS

    learned = as_policy("learned")
    assert learned.label == "learned" and learned.source.rules == "douque"
    assert learned.source.path == str(AGENTS["learned"]) and AGENTS["learned"].stat().st_size < 4_000_000
    assert as_policy("bot=learned").label == "bot"
    # shown by its name, not by where this installation keeps its file
    assert learned.text() == repr(learned)[8:-2] == "learned" and as_policy("bot=learned").text() == "bot=learned"
    assert as_policy(learned.text()) == learned
    record = learned.record()
    assert record["agent"] == "learned" and "params" not in record
    # found by name wherever simkit is installed, and still checked against the run's SHA-256
    assert from_record({**record, "file": str(tmp_path / "elsewhere.npz")}) == learned
    with pytest.raises(PolicyError, match="changed since the run"):
        from_record({**record, "sha256": "0" * 64})
    with pytest.raises(PolicyError, match="learned agent: it takes no parameters"):
        as_policy("learned{x=1}")
    with pytest.raises(PolicyError, match="trained for douque.*this run plays duel"):
        simkit.simulate_matches("duel", ("learned", "greedy"), 1)
    hands = simkit.simulate_matches("douque", ("learned", "greedy"), 2, seed=3)
    assert len(hands["match"]) >= 2
