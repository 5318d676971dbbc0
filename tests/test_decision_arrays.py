"""Observation logs (``simulate(..., decisions="observations")``, ``simkit simulate --decisions
observations``) and their reader ``simkit.analysis.decision_arrays``.

At every decision of the matches played, the arrays read back are the environments' observation of
the decider's view (``simkit.envs.encode_view``, bit for bit) and the legal mask, as the step API
replaying the logged actions sees them; the shards are the same bytes whatever the threads, workers
and chunking give the same arrays; a resumed run keeps the setting; bad values and runs without
observations get one-line errors.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

import simkit
from simkit import analysis, datasets
from simkit.engine import actions as A
from simkit.engine.observation import OBSERVATION_SIZE, encode_logged_kernel
from simkit.envs import encode_view
from simkit.hand.tables import hand_tables
from simkit.play.stepper import GameState
from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy
from simkit.runs.simulation import simulate

GR = ("greedy", "random")


def _decision_files(path: Path) -> dict:
    return {p.name: p.read_bytes() for p in sorted((path / "_decisions").glob("part-*.parquet"))}


def _replayed(rules, seed: int, matches, actions, players=None):
    """The step API's observation of the decider (encode_view of the view their policy gets), the
    legal mask and the decider at every decision of ``matches``, playing the logged ``actions`` in order."""
    obs, legal, who = [], [], []
    i = 0
    for m in matches:
        state = GameState.new_match(rules, seed=seed, match=m)
        while True:
            while not state.over:
                obs.append(encode_view(state.view()))
                legal.append(state.legal)
                who.append(state.player)
                state.apply(int(actions[i]))
                i += 1
            if not state.next_hand():
                break
    assert i == len(actions)
    return np.array(obs), np.array(legal), np.array(who)


@pytest.mark.parametrize(
    "name",
    [
        "douque",  # declarations (the declaring discard in the rivers), Skipped Win, robbing a kong
        "for_two",  # bids, follows, folds, chows, the end phase's tiles set aside
        pytest.param("night_market", marks=pytest.mark.slow),
        pytest.param("duel", marks=pytest.mark.slow),
    ],
)
def test_the_arrays_are_the_step_api_s_observation_and_mask_at_every_decision(name, tmp_path):
    out = tmp_path / "run"
    simulate(out, rules=name, policies=GR, matches=3, seed=7, chunk_matches=2, decisions="observations")
    d = analysis.decision_arrays(out)
    n = len(d["action"])
    assert d["observation"].shape == (n, OBSERVATION_SIZE) and d["observation"].dtype == np.float32
    assert d["legal"].shape == (n, A.N_ACTIONS) and d["legal"].dtype == np.bool_
    obs, legal, who = _replayed(name, 7, range(3), d["action"])
    assert np.array_equal(d["observation"].view(np.uint32), obs.view(np.uint32))  # bit for bit
    assert np.array_equal(d["legal"], legal) and np.array_equal(d["player"], who)
    assert d["legal"][np.arange(n), d["action"]].all()
    assert np.array_equal(d["n_legal"], legal.sum(axis=1))
    # the log's other columns are the plain log's
    log = simkit.simulate_matches(name, GR, 3, seed=7, decisions=True)["decisions"]
    for key in ("deal_id", "match", "hand", "step", "player", "phase", "tile", "action", "shanten_after"):
        assert np.array_equal(d[key], log[key]), key
    assert list(d["policy"]) == [GR[p] for p in d["player"]]


def test_the_engine_and_a_python_policy_log_the_same_observations():
    """A plain Python policy (asked through the step API) logs what the engine logs of the same games."""

    def py_greedy(view, legal, params, rng):
        return int(greedy_policy(view, legal, GREEDY_DEFAULTS, rng))

    engine = simkit.simulate_matches("douque", GR, 2, seed=4, decisions="observations")["decisions"]
    python = simkit.simulate_matches("douque", (py_greedy, "random"), 2, seed=4, decisions="observations")["decisions"]
    assert engine.keys() == python.keys() and "legal" in engine and "view_hand" in engine
    for key in engine:
        assert np.array_equal(engine[key], python[key]), key
    plain = simkit.simulate_matches("douque", GR, 2, seed=4, decisions=True)["decisions"]
    assert set(engine) - set(plain) == {"legal", *(k for k in engine if k.startswith("view_"))}


@pytest.fixture(scope="module")
def observed_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("obs") / "run"
    simulate(out, policies=GR, matches=8, seed=3, chunk_matches=3, duplicate=True, decisions="observations")
    return out


def test_same_seed_same_shards_whatever_the_threads_and_the_same_arrays_whatever_the_chunks(observed_run, tmp_path):
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        one = simulate(
            tmp_path / "one", policies=GR, matches=8, seed=3, chunk_matches=3, duplicate=True, decisions="observations"
        ).path
    finally:
        numba.set_num_threads(threads)
    assert _decision_files(one) == _decision_files(observed_run)
    other = simulate(
        tmp_path / "chunks", policies=GR, matches=8, seed=3, chunk_matches=5, duplicate=True, decisions="observations"
    ).path
    a, b = analysis.decision_arrays(observed_run), analysis.decision_arrays(other)
    assert a.keys() == b.keys()
    for key in a:
        assert np.array_equal(a[key], b[key]), key


@pytest.mark.slow
def test_same_seed_same_shards_whatever_the_workers(observed_run, tmp_path):
    two = simulate(
        tmp_path / "two",
        policies=GR,
        matches=8,
        seed=3,
        chunk_matches=3,
        duplicate=True,
        decisions="observations",
        workers=2,
    ).path
    assert _decision_files(two) == _decision_files(observed_run)


def test_filters_by_player_and_by_policy(observed_run):
    d = analysis.decision_arrays(observed_run)
    assert set(np.unique(d["copy"])) == {0, 1}
    assert (d["policy"] == np.where(d["copy"] == 0, np.array(GR)[d["player"]], np.array(GR)[1 - d["player"]])).all()
    for player in (0, 1):
        part = analysis.decision_arrays(observed_run, player=player)
        keep = d["player"] == player
        for key in d:
            assert np.array_equal(part[key], d[key][keep]), key
    greedy = analysis.decision_arrays(observed_run, policy="greedy")
    keep = d["policy"] == "greedy"
    assert 0 < keep.sum() < len(keep) and set(np.unique(greedy["player"])) == {0, 1}  # both seats in a duplicate run
    for key in d:
        assert np.array_equal(greedy[key], d[key][keep]), key
    with pytest.raises(simkit.SimkitError, match="player must be 0 or 1"):
        analysis.decision_arrays(observed_run, player=2)
    with pytest.raises(simkit.SimkitError, match="no policy 'value'"):
        analysis.decision_arrays(observed_run, policy="value")


def test_the_log_s_columns_in_the_run(observed_run):
    manifest = datasets.read_manifest(observed_run)
    assert manifest["spec"]["decisions"] == "observations"
    dec = analysis.load(observed_run, table="decisions")
    names = [c for c, *_ in datasets.DECISION_COLUMNS + datasets.OBSERVATION_COLUMNS]
    assert list(dec.columns) == names and len(dec) == manifest["decision_rows"]
    assert dec["view_hand"].map(len).eq(34).all() and dec["legal"].map(len).eq(19).all()
    d = analysis.decision_arrays(observed_run)
    assert np.array_equal(dec["action_code"].to_numpy(), d["action"])


def test_a_log_that_is_not_whole_is_refused_by_the_decoder():
    """The rivers are played out along each hand's decisions: a log with a decision missing does
    not follow its discards, and the decoder says where."""
    log = simkit.simulate_matches("douque", ("greedy", "greedy"), 1, seed=2, decisions="observations")["decisions"]

    def decode(keep):
        n = int(keep.sum())
        c = {k: v[keep] for k, v in log.items()}
        out = np.zeros((n, OBSERVATION_SIZE), np.float32)
        return encode_logged_kernel(
            c["deal_id"] * 2,
            c["player"].astype(np.int64),
            c["phase"].astype(np.int64),
            c["tile"].astype(np.int64),
            c["action"].astype(np.int64),
            c["view_hand"],
            c["view_melds"].reshape(n, 4, 2),
            c["view_opp_melds"].reshape(n, 4, 2),
            *(
                c[f"view_{name}"]
                for name in (
                    "n_river",
                    "opp_n_river",
                    "tiles_left",
                    "seat_wind",
                    "prevailing_wind",
                    "dealer",
                    "streak",
                    "declared",
                    "opp_declared",
                    "bid",
                    "score",
                    "opp_score",
                    "skipped_win",
                    "declared_at",
                    "opp_declared_at",
                )
            ),
            hand_tables(simkit.get_rules("douque")),
            np.arange(n),
            out,
        )

    whole = np.ones(len(log["action"]), np.bool_)
    assert decode(whole) == -1
    discard = int(np.flatnonzero(log["action"] < A.DECLARE + 34)[3])
    whole[discard] = False
    assert decode(whole) >= discard


def test_runs_without_observations_and_bad_values_say_what_to_do(tmp_path):
    plain = simulate(tmp_path / "plain", policies=GR, matches=2, seed=1, decisions=True).path
    none = simulate(tmp_path / "none", policies=GR, matches=2, seed=1).path
    for run, how in ((plain, "plain decision log"), (none, "without decision logging")):
        with pytest.raises(datasets.DatasetError) as info:
            analysis.decision_arrays(run)
        text = str(info.value)
        assert how in text and "--decisions observations" in text and len(text.splitlines()) == 1
    for bad in ("obs", 1, None, "True"):
        with pytest.raises(simkit.SimkitError) as info:
            simkit.simulate_matches("douque", GR, 1, decisions=bad)
        assert "decisions must be True, False or 'observations'" in str(info.value)
        assert len(str(info.value).splitlines()) == 1
    with pytest.raises(simkit.SimkitError, match="decisions must be True, False or 'observations'"):
        simulate(tmp_path / "bad", policies=GR, matches=2, decisions="plain")
    assert not (tmp_path / "bad").exists()


class _Killed(BaseException):
    pass


def test_a_resumed_run_keeps_its_observations(observed_run, tmp_path, monkeypatch):
    """Killed after its second chunk's decision shard was committed: a resume given no setting keeps
    the observations and gives the same bytes; a resume asking for another setting is refused."""
    out = tmp_path / "k"
    commit = datasets.commit_shard
    calls = []

    def dying_commit(tmp, directory, chunk):
        calls.append(chunk)
        if len(calls) == 4:  # chunk 1's shard, its decision shard already in place
            raise _Killed()
        return commit(tmp, directory, chunk)

    monkeypatch.setattr(datasets, "commit_shard", dying_commit)
    monkeypatch.setattr(datasets, "clean_temporary", lambda directory, pid=None: 0)
    with pytest.raises(_Killed):
        simulate(out, policies=GR, matches=8, seed=3, chunk_matches=3, duplicate=True, decisions="observations")
    monkeypatch.undo()
    for other in (True, False):
        with pytest.raises(simkit.SimkitError, match="decisions") as info:
            simulate(out, resume=True, decisions=other)
        assert len(str(info.value).splitlines()) == 1
    resumed = simulate(out, resume=True)
    assert resumed.computed_chunks == 2
    assert json.loads((out / datasets.MANIFEST).read_text())["spec"]["decisions"] == "observations"
    assert _decision_files(out) == _decision_files(observed_run)
    assert simulate(out, resume=True, decisions="observations").computed_chunks == 0


def test_cli_decisions_observations(tmp_path):
    out = tmp_path / "cli"

    def cli(*args):
        return subprocess.run(
            [sys.executable, "-m", "simkit", "simulate", "--out", str(out), "--quiet", *args],
            capture_output=True,
            text=True,
            timeout=900,
        )

    proc = cli("--matches", "2", "--seed", "4", "--decisions", "observations")
    assert proc.returncode == 0, proc.stderr
    assert datasets.read_manifest(out)["spec"]["decisions"] == "observations"
    assert analysis.decision_arrays(out)["observation"].shape[1] == OBSERVATION_SIZE
    proc = cli("--resume", "--decisions")  # --decisions alone is the plain log: not this run's setting
    assert proc.returncode == 2 and "decisions" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    proc = cli("--matches", "2", "--decisions", "everything")
    assert proc.returncode == 2 and "observations" in proc.stderr
