"""The built-in search policy: its text and records, its games (reproducible, anchored on its
continuation, stronger than it where the continuation is weak), and every door a policy goes
through (simulate with workers, replay, rollouts as a continuation)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import simkit
from simkit.analysis import compare
from simkit.cli import main
from simkit.engine import table as G
from simkit.policies.spec import PolicyError, as_policy, from_record

SMALL = "search{worlds=6,min_worlds=3}"


def test_text_labels_records_and_pickles_round_trip():
    p = as_policy("search{worlds=16,continuation=greedy{declare=0}}")
    assert p.continuation == as_policy("greedy{declare=0}")
    assert p.label == "search{worlds=16,continuation=greedy{declare=0}}"
    assert as_policy(p.text()) == p
    assert from_record(p.record()) == p
    assert pickle.loads(pickle.dumps(p)) == p
    default = as_policy("search")
    assert default.label == "search" and default.continuation == as_policy("value")
    assert default.with_continuation("random").label == "search{continuation=random}"
    # the engine's vector: the settings, the continuation's kind, its own vector (value: with its rules data)
    vec = default.engine_params(simkit.get_rules("douque"))
    value_vec = as_policy("value").engine_params(simkit.get_rules("douque"))
    assert np.array_equal(vec[G.N_SEARCH_PARAMS :], value_vec) and vec[G.SEARCH_CONTINUATION] == G.POLICY_FUNCTION


@pytest.mark.parametrize(
    "text, message",
    [
        ("search{continuation=search}", "searches too"),
        ("greedy{continuation=value}", "does not search"),
        ("search{continuation=nosuch}", "unknown policy"),
        ("search{worlds=0}", "worlds"),
        ("search{continuation=value{x=1}", "unbalanced braces"),
    ],
)
def test_bad_search_texts_are_refused_with_the_reason(text, message):
    with pytest.raises(PolicyError, match=message):
        as_policy(text)


def test_a_plain_python_continuation_is_refused():
    def py_policy(view, legal, params, rng):
        return int(np.flatnonzero(legal)[0])

    with pytest.raises(PolicyError, match="must be jitted"):
        as_policy("search").with_continuation(py_policy)


def test_without_worlds_enough_to_separate_it_plays_its_continuations_games():
    """Anchored: with fewer worlds than a difference needs, every decision is the continuation's
    (value draws nothing from its stream, so the games are value's exactly)."""
    a = simkit.simulate_matches("night_market", ("search{worlds=1}", "value"), 3, seed=4)
    b = simkit.simulate_matches("night_market", ("value", "value"), 3, seed=4)
    for col in ("winner", "score_0", "score_1", "turns"):
        assert np.array_equal(np.asarray(a[col]), np.asarray(b[col])), col


# for_two's search instance compiles only for this test: under the slow marker, to keep the default run short
@pytest.mark.parametrize("rules", ["douque", "night_market", "duel", pytest.param("for_two", marks=pytest.mark.slow)])
def test_search_is_reproducible_and_thread_count_free(rules, monkeypatch):
    a = simkit.simulate_matches(rules, (SMALL, "greedy"), 4, seed=9)
    import simkit.play.runtime as runtime

    monkeypatch.setattr(runtime, "thread_count", lambda: 1)
    b = simkit.simulate_matches(rules, (SMALL, "greedy"), 4, seed=9)
    for col in ("winner", "score_0", "score_1", "turns", "win_tile"):
        assert np.array_equal(np.asarray(a[col]), np.asarray(b[col])), col


def test_search_crushes_random_when_it_plays_out_with_random():
    """Where the continuation is weak the search gains the most: against random, with random
    playouts, the searching player wins far more than it loses (duplicate, luck-corrected)."""
    d = simkit.simulate_matches("duel", ("search{worlds=16,continuation=random}", "random"), 6, seed=2, duplicate=True)
    r0 = np.asarray(d["score_0"]) - np.asarray(d["fee_0"])
    r1 = np.asarray(d["score_1"]) - np.asarray(d["fee_1"])
    copy = np.asarray(d["copy"])
    diff = np.where(copy == 0, r0 - r1, r1 - r0)
    assert diff.mean() > 0.5 * np.abs(r0).mean()


def test_search_through_simulate_workers_replay_and_luck_correction(tmp_path):
    run0, run2 = tmp_path / "w1", tmp_path / "w2"
    pols = (SMALL, "greedy")
    simkit.simulate(run0, rules="duel", policies=pols, matches=4, seed=3, duplicate=True)
    simkit.simulate(run2, rules="duel", policies=pols, matches=4, seed=3, duplicate=True, workers=2, chunk_matches=1)
    a, b = simkit.analysis.load(run0), simkit.analysis.load(run2)
    assert a.drop(columns=[c for c in a.columns if c.startswith("_")]).equals(
        b.drop(columns=[c for c in b.columns if c.startswith("_")])
    )
    assert main(["replay", str(run0), "--row", "5"]) == 0
    c = compare(run0, correct_luck=True)
    assert c.luck_corrected and c.a == "search{worlds=6,min_worlds=3}"


def test_advise_with_search_as_the_continuation(capsys):
    pos = "douque: hand 1112345m678m9p1z3z 3z; drawn 3z; dealer"
    df = simkit.rollouts(pos, n=6, policies=(SMALL, SMALL), actions=["discard 9p", "discard 2m"])
    assert len(df) == 2 and np.isfinite(df["mean"]).all()
    assert df.attrs["policies"] == [SMALL, SMALL]
    code = main(
        ["advise", "1112345m678m9p1z3z3z", "--drawn", "3z", "--dealer", "-n", "4", "--continuation", SMALL]
        + ["--actions", "discard 9p; discard 1z"]
    )
    assert code == 0
    assert "discard 9p" in capsys.readouterr().out


def test_search_cannot_be_asked_from_python():
    s = simkit.GameState.new_match("duel", 1, 0)
    with pytest.raises(PolicyError, match="inside the engine"):
        as_policy("search").function(s.view(), s.legal, np.zeros(6), s.policy_stream())


def test_worlds_agree_with_the_opponents_last_discard_when_asked():
    """The decision log says how many worlds each search redrew (counter_2): some with
    ``last_discard``, none without; counter_0 the worlds searched, at most the budget."""

    def log(text):
        d = simkit.simulate_matches("night_market", (text, "value"), 2, seed=5, decisions=True)["decisions"]
        mine = np.asarray(d["player"]) == 0
        return np.asarray(d["counter_0"])[mine], np.asarray(d["counter_2"])[mine]

    worlds, redrawn = log("search{worlds=6,min_worlds=3}")
    assert worlds.max() <= 6 and (worlds > 0).any() and (redrawn > 0).any()
    worlds, redrawn = log("search{worlds=6,min_worlds=3,last_discard=0}")
    assert (worlds > 0).any() and not redrawn.any()
