"""Decision logs (simulate_matches(decisions=True), simulate(decisions=True),
``simkit simulate --decisions``, ``analysis.load(path, table="decisions")``).

The log must not change the games (the rows are identical with and without it), must hold exactly
the decisions the engine took (one row per decision, replayed with the step API), its shanten
against ``simkit.shanten`` on the replayed hands, a policy's user counters, and survive a block
overflow. On disk it is a second dataset in ``RUN/_decisions/`` under the manifest's checks.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

import simkit
from simkit import analysis, datasets
from simkit._jit import jit
from simkit.engine import actions as A
from simkit.engine import table as eng
from simkit.melds import MELD_TYPES
from simkit.play import runtime
from simkit.play.stepper import GameState
from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy
from simkit.runs.simulation import simulate
from simkit.tiles import TILE_NAMES

GG = ("greedy", "greedy")
RR = ("random", "random")


@jit
def counting_greedy(view, legal, params, rng):  # pragma: no cover - compiled
    """greedy's action; writes its own view of the decision into the user counters (and reads
    counter 3 back, which the engine zeroes before every decision)."""
    n = 0
    for a in range(legal.shape[0]):
        if legal[a]:
            n += 1
    view.counters[0] = n
    view.counters[1] = view.phase
    view.counters[2] = view.tile
    view.counters[3] = view.counters[3] + 1.5
    return greedy_policy(view, legal, GREEDY_DEFAULTS, rng)


def py_greedy(view, legal, params, rng):
    """A plain Python policy (asked from Python at every decision) playing greedy's games."""
    view.counters[2] = 7.0
    return int(greedy_policy(view, legal, GREEDY_DEFAULTS, rng))


def _same_rows(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k]), k


def _check_log_shape(rows: dict, log: dict) -> None:
    """One log row per decision: each hand's rows are its ``turns`` decisions, steps 0..turns-1, in
    the order of the hands' rows."""
    key = log["deal_id"] * 2 + (log["copy"] if "copy" in log else 0)
    hands_key = ((rows["match"] << 16) | rows["hand"]) * 2 + (rows["copy"] if "copy" in rows else 0)
    change = np.flatnonzero(np.diff(key)) + 1
    starts = np.concatenate([[0], change])
    assert np.array_equal(key[starts], hands_key)  # every hand, in the order of the rows
    counts = np.diff(np.concatenate([starts, [len(key)]]))
    assert np.array_equal(counts, rows["turns"])
    assert np.array_equal(log["step"], np.concatenate([np.arange(n) for n in counts]))


# ---------------------------------------------------------------------------------------------
# the engine


@pytest.mark.parametrize("pair,n", [(GG, 60), (RR, 20)])
def test_rows_are_identical_with_and_without_decisions(pair, n):
    off = simkit.simulate_matches("douque", pair, n, seed=5)
    on = simkit.simulate_matches("douque", pair, n, seed=5, decisions=True)
    log = on.pop("decisions")
    _same_rows(off, on)
    _check_log_shape(on, log)
    assert set(log) == {
        "deal_id",
        "match",
        "hand",
        "step",
        "player",
        "phase",
        "tile",
        "action",
        "n_legal",
        "shanten_before",
        "shanten_after",
        "counter_0",
        "counter_1",
        "counter_2",
        "counter_3",
    }
    assert np.array_equal(log["deal_id"], (log["match"] << 16) | log["hand"])
    assert (log["n_legal"] >= 1).all() and (log["counter_0"] == 0).all()
    won = log["action"] == A.WIN
    assert (log["shanten_after"][won] == -1).all()
    self_drawn = won & (log["phase"] == A.PHASE_DRAW)
    assert (log["shanten_before"][self_drawn] == -1).all()  # a complete hand
    assert (log["shanten_before"][won & ~self_drawn] == 0).all()  # ready, on the opponent's tile
    assert won.sum() == (on["winner"] >= 0).sum()
    # a split into calls gives the same log (a match's decisions depend on (seed, match) only)
    a = simkit.simulate_matches("douque", pair, n // 2, seed=5, decisions=True)["decisions"]
    b = simkit.simulate_matches("douque", pair, n - n // 2, seed=5, start=n // 2, decisions=True)["decisions"]
    for k in log:
        assert np.array_equal(log[k], np.concatenate([a[k], b[k]])), k


def test_duplicate_log_has_both_copies_in_row_order():
    off = simkit.simulate_matches("douque", GG, 12, seed=2, duplicate=True)
    on = simkit.simulate_matches("douque", GG, 12, seed=2, duplicate=True, decisions=True)
    log = on.pop("decisions")
    _same_rows(off, on)
    assert set(np.unique(log["copy"])) == {0, 1}
    _check_log_shape(on, log)


def _melds_text(melds, n):
    out = []
    for code, kind in melds[:n]:
        code, kind = int(code), int(kind)
        kinds = (
            [kind, kind + 1, kind + 2]
            if MELD_TYPES[code] == "chow"
            else [kind] * (4 if "kong" in MELD_TYPES[code] else 3)
        )
        out.append(f"{MELD_TYPES[code]} " + "".join(TILE_NAMES[k][0] for k in kinds) + TILE_NAMES[kinds[0]][1])
    return out


def _shanten_after(hand, melds, phase, tile, action, rules):
    """The shanten right after ``action``, from simkit.shanten on the hand as the action leaves it."""
    hand = hand.astype(np.int64).copy()
    melds = list(melds)
    if action == A.WIN:
        return -1
    if action < A.DECLARE + 34:
        hand[action % 34] -= 1
    elif action < A.ADDED_KONG:
        k = action - A.CONCEALED_KONG
        hand[k] -= 4
        melds.append("concealed_kong " + TILE_NAMES[k][0] * 4 + TILE_NAMES[k][1])
    elif action < A.ADDED_KONG + 34:  # the pung becomes a kong: as many melds
        hand[action - A.ADDED_KONG] -= 1
    elif action == A.PUNG:
        hand[tile] -= 2
        melds.append("pung " + TILE_NAMES[tile][0] * 3 + TILE_NAMES[tile][1])
    elif action == A.KONG:
        hand[tile] -= 3
        melds.append("kong " + TILE_NAMES[tile][0] * 4 + TILE_NAMES[tile][1])
    elif A.CHOW <= action < A.CHOW + 3:
        s = tile - (action - A.CHOW)
        for d in range(3):
            if s + d != tile:
                hand[s + d] -= 1
        melds.append("chow " + "".join(TILE_NAMES[s + d][0] for d in range(3)) + TILE_NAMES[s][1])
    return simkit.shanten(hand, melds, rules)


@pytest.mark.parametrize(
    "name",
    [
        "douque",
        "for_two",  # for_two: bids, follows, folds and chows
        pytest.param("night_market", marks=pytest.mark.slow),
        pytest.param("duel", marks=pytest.mark.slow),
    ],
)
def test_log_replays_the_matches_with_the_step_api_and_its_shanten_is_simkit_shanten(name):
    """Each logged decision, applied in order to GameState.new_match of its match, is legal, stands
    at the logged player / phase / tile with the logged number of legal actions, and plays the
    same hands (their rows); shanten before and after against simkit.shanten on those hands."""
    n = 4
    res = simkit.simulate_matches(name, GG, n, seed=11, decisions=True)
    log = res.pop("decisions")
    off = simkit.simulate_matches(name, GG, n, seed=11)
    _same_rows(off, res)
    _check_log_shape(res, log)
    rules = simkit.get_rules(name)
    i = 0
    row_i = 0
    checked_after = 0
    for m in range(n):
        state = GameState.new_match(name, seed=11, match=m)
        while True:
            while not state.over:
                T = state.table
                p = state.player
                assert (log["match"][i], log["hand"][i]) == (m, int(T.sc[eng.S_HAND_NUMBER]))
                assert (log["player"][i], log["phase"][i], log["tile"][i]) == (p, state.phase, state.tile)
                legal = state.legal
                action = int(log["action"][i])
                assert legal[action] and log["n_legal"][i] == legal.sum()
                hand = T.hand[p].copy()
                melds = _melds_text(T.melds[p], int(T.n_melds[p]))
                if hand.sum() == 0:  # for_two's bid and follow before the deal: no tiles, no shanten (-2)
                    assert state.phase in (A.PHASE_BID, A.PHASE_FOLLOW)
                    assert log["shanten_before"][i] == log["shanten_after"][i] == -2
                else:
                    assert log["shanten_before"][i] == simkit.shanten(hand, melds, rules)
                    assert log["shanten_after"][i] == _shanten_after(
                        hand, melds, state.phase, state.tile, action, rules
                    )
                checked_after += action not in (A.PASS,) and action != A.WIN
                state.apply(action)
                i += 1
            for k in ("match", "hand", "winner", "turns", "score_0", "hand_tai"):
                assert state.row[k] == res[k][row_i], k
            row_i += 1
            if not state.next_hand():
                break
    assert i == len(log["match"]) and row_i == len(res["match"]) and checked_after > 100


def test_a_python_policy_logs_the_same_decisions_as_the_engine():
    """The Python path (every decision asked from Python through GameState) logs what the engine
    logs for the same games (the counters a policy writes included)."""
    engine = simkit.simulate_matches("douque", GG, 3, seed=4, decisions=True)
    python = simkit.simulate_matches("douque", (py_greedy, "greedy"), 3, seed=4, decisions=True)
    le, lp = engine.pop("decisions"), python.pop("decisions")
    _same_rows(engine, python)
    assert (lp["counter_2"][lp["player"] == 0] == 7.0).all() and (lp["counter_2"][lp["player"] == 1] == 0).all()
    lp["counter_2"][:] = 0.0
    _same_rows(le, lp)


def test_counters_written_by_a_jitted_policy_come_through():
    base = simkit.simulate_matches("douque", GG, 30, seed=9)
    res = simkit.simulate_matches("douque", (counting_greedy, counting_greedy), 30, seed=9, decisions=True)
    log = res.pop("decisions")
    _same_rows(base, res)  # the counters change nothing
    assert np.array_equal(log["counter_0"], log["n_legal"])
    assert np.array_equal(log["counter_1"], log["phase"])
    assert np.array_equal(log["counter_2"], log["tile"])
    assert (log["counter_3"] == 1.5).all()  # zeroed before every decision
    # only the deciding player's counters are logged: a counting policy against greedy
    mixed = simkit.simulate_matches("douque", (counting_greedy, "greedy"), 30, seed=9, decisions=True)["decisions"]
    assert (mixed["counter_3"][mixed["player"] == 0] == 1.5).all()
    assert (mixed["counter_3"][mixed["player"] == 1] == 0).all()


def test_a_block_whose_log_overflows_is_replayed_into_the_same_log(monkeypatch):
    full = simkit.simulate_matches("douque", RR, 40, seed=6, decisions=True)
    grown = []

    def tiny(key, n_matches):
        grown.append(n_matches)
        return 1

    monkeypatch.setattr(runtime, "_decision_capacity", tiny)
    small = simkit.simulate_matches("douque", RR, 40, seed=6, decisions=True)
    assert len(grown) > 1  # several blocks, each overflowing once
    _same_rows(full.pop("decisions"), small.pop("decisions"))
    _same_rows(full, small)


def test_a_fresh_table_logs_nothing():
    spec = simkit.engine.rulesets.engine_spec(simkit.get_rules("douque"))
    T = eng.new_table(136, spec.items_proto)
    assert T.decisions.shape == (0, eng.N_DECISION_INT) and T.decision_counters.shape == (0, eng.N_COUNTERS)
    assert (
        T.sc[eng.S_DECISIONS] == 0 and eng.N_SC == 41
    )  # with S_CHIPS0/1 (duel's exact chips), S_DECLARED_AT and S_END_JOKERS
    view = GameState.new_match("douque", seed=1).view()
    assert view.counters.shape == (4,) and not view.counters.any()


# ---------------------------------------------------------------------------------------------
# datasets


def _files(path: Path) -> dict:
    out = {p.name: p.read_bytes() for p in sorted(path.glob("part-*.parquet"))}
    out.update({f"_decisions/{p.name}": p.read_bytes() for p in sorted((path / "_decisions").glob("part-*.parquet"))})
    return out


@pytest.fixture(scope="module")
def decided_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("dec") / "run"
    simulate(out, policies=GG, matches=50, seed=3, chunk_matches=20, decisions=True)
    return out


def test_a_run_with_decisions_has_a_second_dataset(decided_run):
    df = analysis.load(decided_run)
    dec = analysis.load(decided_run, table="decisions")
    manifest = datasets.read_manifest(decided_run)
    assert manifest["spec"]["decisions"] is True
    assert len(dec) == df["turns"].sum() == manifest["decision_rows"]
    assert [e["decisions"]["file"] for e in manifest["shards"]] == [
        f"_decisions/part-00000{c}.parquet" for c in range(3)
    ]
    assert sum(e["decisions"]["rows"] for e in manifest["shards"]) == len(dec)
    # plain pandas reads the hands only; the decisions are their own dataset
    assert len(pd.read_parquet(decided_run)) == len(df)
    assert len(pd.read_parquet(decided_run / "_decisions")) == len(dec)
    # deal_id (with copy) joins each decision to its hand
    per_hand = dec.groupby(["deal_id", "copy"]).size().rename("n").reset_index()
    joined = df[["deal_id", "copy", "turns"]].merge(per_hand, on=["deal_id", "copy"], how="outer", validate="1:1")
    assert (joined["n"] == joined["turns"]).all()
    # the same values as simulate_matches, readable categories beside the codes
    log = simkit.simulate_matches("douque", GG, 50, seed=3, decisions=True)["decisions"]
    for k in ("deal_id", "match", "hand", "step", "player", "n_legal", "shanten_before", "shanten_after"):
        assert np.array_equal(dec[k].to_numpy(), log[k]), k
    assert np.array_equal(dec["action_code"].to_numpy(), log["action"])
    assert list(dec["action"].astype(str)) == [A.action_name(a) for a in log["action"]]
    assert list(dec["phase"].astype(str)) == [A.PHASE_NAMES[p] for p in log["phase"]]
    tiles = dec["tile"].astype(object).where(dec["tile"].notna(), None)
    assert list(tiles) == [TILE_NAMES[t] if t >= 0 else None for t in log["tile"]]
    assert {"discard 1m", "win", "pass"} <= set(dec["action"].astype(str))
    assert dec.attrs["table"] == "decisions" and (dec["seed"] == 3).all()
    # columns and filters as for the hands
    wins = analysis.load(
        decided_run, table="decisions", columns=["deal_id", "action"], filters=[("action_code", "==", A.WIN)]
    )
    assert list(wins.columns) == ["deal_id", "action"] and len(wins) == (df["winner"] >= 0).sum()


def test_a_run_without_decisions_says_to_rerun_with_decisions(tmp_path):
    out = tmp_path / "plain"
    simulate(out, policies=GG, matches=5, seed=1)
    assert datasets.read_manifest(out)["spec"]["decisions"] is False and not (out / "_decisions").exists()
    with pytest.raises(datasets.DatasetError) as info:
        analysis.load(out, table="decisions")
    assert "--decisions" in str(info.value) and len(str(info.value).splitlines()) == 1
    with pytest.raises(simkit.SimkitError, match="table must be"):
        analysis.load(out, table="hand")
    # a decision shard in a run without decisions is a stray file
    (out / "_decisions").mkdir()
    (out / "_decisions" / "part-000000.parquet").write_bytes((out / "part-000000.parquet").read_bytes())
    with pytest.raises(datasets.DatasetError, match="run has no decisions"):
        analysis.load(out)


def _copy_run(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_missing_resized_corrupt_or_extra_decision_shards_are_refused(decided_run, tmp_path):
    # missing: every reader refuses, naming the file
    run = _copy_run(decided_run, tmp_path / "missing")
    (run / "_decisions" / "part-000001.parquet").unlink()
    for read in (datasets.open_run, analysis.load, lambda p: analysis.load(p, table="decisions")):
        with pytest.raises(datasets.DatasetError, match=r"_decisions/part-000001.parquet is missing"):
            read(run)
    with pytest.raises(datasets.DatasetError, match="missing"):
        simulate(run, resume=True)
    # corrupt (same size): the decisions refuse to load, resume refuses
    run = _copy_run(decided_run, tmp_path / "corrupt")
    path = run / "_decisions" / "part-000002.parquet"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(datasets.DatasetError, match=r"_decisions/part-000002.parquet is corrupt"):
        analysis.load(run, table="decisions")
    with pytest.raises(datasets.DatasetError, match="corrupt"):
        simulate(run, resume=True)
    # resized
    run = _copy_run(decided_run, tmp_path / "resized")
    with open(run / "_decisions" / "part-000000.parquet", "ab") as f:
        f.write(b"x")
    with pytest.raises(datasets.DatasetError, match="bytes, the manifest lists"):
        analysis.load(run, table="decisions")
    # extra: a stray shard or another chunk's in _decisions
    run = _copy_run(decided_run, tmp_path / "extra")
    (run / "_decisions" / "part-000007.parquet").write_bytes((run / "_decisions" / "part-000000.parquet").read_bytes())
    with pytest.raises(datasets.DatasetError, match="part-000007.parquet"):
        analysis.load(run)
    # a hands shard in _decisions is foreign
    run = _copy_run(decided_run, tmp_path / "swapped")
    (run / "_decisions" / "part-000003.parquet").write_bytes((run / "part-000000.parquet").read_bytes())
    with pytest.raises(datasets.DatasetError, match="part-000003.parquet"):
        analysis.load(run, table="decisions")
    # a manifest listing a chunk without its decision shard is malformed
    run = _copy_run(decided_run, tmp_path / "unlisted")
    manifest = json.loads((run / datasets.MANIFEST).read_text())
    del manifest["shards"][1]["decisions"]
    (run / datasets.MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(datasets.DatasetError, match="without its decision shard"):
        datasets.open_run(run)


class _Killed(BaseException):
    pass


def test_an_interrupted_run_with_decisions_resumes_to_the_same_bytes(decided_run, tmp_path, monkeypatch):
    """Killed after chunk 1's decision shard was committed but before its shard was: resume (which
    keeps the decisions setting) gives the same files as the uninterrupted run."""
    out = tmp_path / "k"
    commit = datasets.commit_shard
    calls = []

    def dying_commit(tmp, directory, chunk):
        calls.append((Path(directory).name, chunk))
        if len(calls) == 4:  # chunk 1's shard, its decision shard already in place
            raise _Killed()
        return commit(tmp, directory, chunk)

    monkeypatch.setattr(datasets, "commit_shard", dying_commit)
    monkeypatch.setattr(datasets, "clean_temporary", lambda directory, pid=None: 0)  # a killed process cleans nothing
    with pytest.raises(_Killed):
        simulate(out, policies=GG, matches=50, seed=3, chunk_matches=20, decisions=True)
    monkeypatch.undo()
    assert calls[2] == ("_decisions", 1)
    assert (out / "_decisions" / "part-000001.parquet").exists() and not (out / "part-000001.parquet").exists()
    assert [p for p in out.iterdir() if p.name.endswith(".tmp")]
    with pytest.warns(UserWarning, match="not complete"):
        assert len(analysis.load(out, table="decisions")) > 0  # the listed chunk
    with pytest.raises(simkit.SimkitError, match="decisions"):
        simulate(out, resume=True, decisions=False)
    resumed = simulate(out, resume=True)
    assert resumed.computed_chunks == 2
    assert _files(out) == _files(decided_run)
    assert not [p for p in out.rglob("*.tmp")]


def test_overwrite_replaces_decision_shards_and_hands_targets_cut_them(decided_run, tmp_path):
    run = _copy_run(decided_run, tmp_path / "ow")
    simulate(run, policies=GG, matches=10, seed=1, overwrite=True)
    assert not (run / "_decisions").exists() and datasets.open_run(run).decision_shards == ()
    simulate(run, policies=GG, hands=300, seed=1, chunk_matches=8, overwrite=True, decisions=True)
    df, dec = analysis.load(run), analysis.load(run, table="decisions")
    assert len(dec) == df["turns"].sum() and dec["match"].max() == df["match"].max()
    # a stray file in _decisions is not overwritten
    (run / "_decisions" / "notes.txt").write_text("mine")
    with pytest.raises(simkit.SimkitError, match="notes.txt"):
        simulate(run, policies=GG, matches=10, seed=1, overwrite=True)


def test_duplicate_run_with_decisions(tmp_path):
    out = tmp_path / "dup"
    simulate(out, policies=("greedy", "random"), matches=8, seed=2, duplicate=True, chunk_matches=5, decisions=True)
    df, dec = analysis.load(out), analysis.load(out, table="decisions")
    per_hand = dec.groupby(["deal_id", "copy"], sort=False).size().to_numpy()
    assert np.array_equal(per_hand, df["turns"].to_numpy())  # same order: (match, copy, hand)
    log = simkit.simulate_matches("douque", ("greedy", "random"), 8, seed=2, duplicate=True, decisions=True)[
        "decisions"
    ]
    assert np.array_equal(dec["copy"].to_numpy(), log["copy"]) and np.array_equal(
        dec["action_code"].to_numpy(), log["action"]
    )


def test_cli_decisions(tmp_path):
    out = tmp_path / "cli"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "simkit",
            "simulate",
            "--matches",
            "6",
            "--seed",
            "4",
            "--decisions",
            "--out",
            str(out),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr
    dec = analysis.load(out, table="decisions")
    assert len(dec) == analysis.load(out)["turns"].sum()
    assert pq.read_schema(out / "_decisions" / "part-000000.parquet").names == [
        c for c, *_ in datasets.DECISION_COLUMNS
    ]
    # a resume without the flag keeps the setting; with it on a run without decisions, refused
    plain = tmp_path / "plain"
    proc = subprocess.run(
        [sys.executable, "-m", "simkit", "simulate", "--matches", "3", "--out", str(plain), "--quiet"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "simkit", "simulate", "--out", str(plain), "--resume", "--decisions"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 2 and "decisions" in proc.stderr


_NRT_CHECK = """
from numba.core.runtime import rtsys, _nrt_python
_nrt_python.memsys_enable_stats()
from simkit.play.matches import simulate_matches

for pair in (("random", "random"), ("greedy", "random")):
    simulate_matches("douque", pair, 2, seed=0, decisions=True)  # compile / load first
    before = rtsys.get_allocation_stats()
    log = simulate_matches("douque", pair, 20, seed=1, decisions=True)["decisions"]
    after = rtsys.get_allocation_stats()
    print(len(log["match"]), after.alloc - before.alloc, after.free - before.free)
"""


def test_logging_allocates_nothing_per_decision_and_frees_everything():
    """The hand loop runs without reference counts, and so does the logging it calls (its scratch
    is on the stack): whole matches with decisions allocate no block per decision, and free every
    block they allocate (as tests/test_jit.py checks without them)."""
    out = subprocess.run([sys.executable, "-c", _NRT_CHECK], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    for line in out.stdout.splitlines():
        decisions, alloc, free = (int(v) for v in line.split())
        assert decisions > 1000 and alloc < decisions // 10 and alloc == free, line
