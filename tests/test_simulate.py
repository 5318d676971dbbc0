"""simkit.runs.simulation and `simkit simulate` / `simkit summarize`: reproducible, resumable Parquet runs.

Only the greedy/greedy and random/random engine specialisations are used (each new policy pair
costs a numba compile).
"""

from __future__ import annotations

import importlib
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

import simkit
from simkit import datasets
from simkit.analysis import summarize
from simkit.cli import main
from simkit.errors import InputValueError, RunError
from simkit.runs import local_workers
from simkit.runs.simulation import SimulationResult, default_out, simulate

GG = ("greedy", "greedy")


def _sim_module():
    # the module (simkit.simulate is also the function's name in the package namespace)
    return importlib.import_module("simkit.runs.simulation")


def _table(path):
    return datasets.open_run(path).read()


def _shard_bytes(path):
    return {p.name: p.read_bytes() for p in sorted(Path(path).glob("part-*.parquet"))}


@pytest.fixture(scope="module")
def base_run(tmp_path_factory):
    """60 greedy matches in chunks of 25 (the last one partial), one process."""
    out = tmp_path_factory.mktemp("runs") / "base"
    result = simulate(out, policies=GG, matches=60, seed=5, chunk_matches=25)
    return out, result


def test_base_run_layout_and_manifest(base_run):
    out, result = base_run
    assert result.matches == 60 and result.shards == 3 and result.computed_chunks == 3
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == [
        datasets.COMMON_METADATA,
        datasets.MANIFEST,
        "part-000000.parquet",
        "part-000001.parquet",
        "part-000002.parquet",
    ]
    manifest = datasets.read_manifest(out)
    assert manifest["status"] == "complete" and manifest["rows"] == result.rows
    spec = manifest["spec"]
    assert spec["seed"] == 5 and spec["target"] == {"matches": 60} and spec["chunk_matches"] == 25
    assert spec["rules"] == simkit.get_rules("douque").to_dict()
    assert [p["label"] for p in spec["policies"]] == ["greedy", "greedy"] and spec["policies"][0]["params"]
    assert set(manifest["versions"]) >= {"simkit", "numba", "numpy", "pyarrow"}
    assert manifest["invocations"][0]["command"]
    table = _table(out)
    assert table.num_rows == result.rows
    match = table.column("match").to_numpy()
    assert match[0] == 0 and match[-1] == 59 and (np.diff(match) >= 0).all()
    # every shard describes its run in its key-value metadata; _common_metadata holds the manifest
    meta = datasets.shard_metadata(out / "part-000002.parquet")
    assert meta["spec"] == spec and meta["first_match"] == 50 and meta["matches"] == 10
    common = pq.read_schema(out / datasets.COMMON_METADATA).metadata[b"simkit"]
    assert b'"command"' in common and str(result.rows).encode() in common
    # the same rows as the engine
    res = simkit.simulate_matches("douque", GG, 60, seed=5)
    for name in ("winner", "hand_tai", "points", "turns", "streak"):
        assert (table.column(name).to_numpy() == res[name]).all()


def _thread_workers(monkeypatch):
    """Run the worker-pool path with threads: same scheduling, ordering and commit code as worker
    processes, without each process compiling the engine again (numba releases the GIL)."""
    import concurrent.futures as cf

    monkeypatch.setattr(local_workers, "process_pool", lambda workers, directory=None: cf.ThreadPoolExecutor(workers))


def test_same_data_for_any_chunk_size_and_worker_pool(base_run, tmp_path, monkeypatch):
    out, _ = base_run
    simulate(tmp_path / "c7", policies=GG, matches=60, seed=5, chunk_matches=7)
    assert _table(tmp_path / "c7").equals(_table(out))
    assert len(_shard_bytes(tmp_path / "c7")) == 9
    _thread_workers(monkeypatch)
    simulate(tmp_path / "pool", policies=GG, matches=60, seed=5, chunk_matches=25, workers=3)
    assert _shard_bytes(tmp_path / "pool") == _shard_bytes(out)  # byte-identical files


@pytest.mark.slow
def test_same_bytes_with_two_worker_processes(base_run, tmp_path):
    """Real worker processes (each compiles the engine first: about a minute on 2 cores)."""
    out, _ = base_run
    simulate(tmp_path / "w2", policies=GG, matches=60, seed=5, chunk_matches=25, workers=2)
    assert _shard_bytes(tmp_path / "w2") == _shard_bytes(out)  # byte-identical files
    simulate(tmp_path / "h2", policies=GG, hands=500, seed=2, chunk_matches=50, workers=2)
    simulate(tmp_path / "h1", policies=GG, hands=500, seed=2, chunk_matches=9)
    assert _table(tmp_path / "h2").equals(_table(tmp_path / "h1"))


def test_hands_target_is_whole_matches_and_independent_of_chunking(tmp_path, monkeypatch):
    n = 500
    a = simulate(tmp_path / "a", policies=GG, hands=n, seed=2, chunk_matches=9)
    _thread_workers(monkeypatch)  # chunks beyond the target are computed, then dropped
    b = simulate(tmp_path / "b", policies=GG, hands=n, seed=2, chunk_matches=4, workers=4)
    ta, tb = _table(tmp_path / "a"), _table(tmp_path / "b")
    assert ta.equals(tb) and a.rows == b.rows == ta.num_rows and a.matches == b.matches
    match = ta.column("match").to_numpy()
    last = match == match[-1]
    assert ta.num_rows >= n > ta.num_rows - last.sum()  # the smallest number of whole matches
    assert match[-1] == a.matches - 1
    assert not [p for p in (tmp_path / "b").iterdir() if p.name.endswith(".tmp")]
    assert len(_shard_bytes(tmp_path / "b")) == b.shards == -(-b.matches // 4)


def test_duplicate_pairs_rows_by_deal(tmp_path):
    simulate(tmp_path / "d", policies=GG, matches=12, seed=4, duplicate=True, chunk_matches=5)
    df = datasets.read_run(tmp_path / "d")
    key = list(zip(df["match"], df["copy"], df["hand"]))
    assert key == sorted(key)  # (match, copy, hand) order
    c0 = df[df["copy"] == 0].reset_index(drop=True)
    c1 = df[df["copy"] == 1].reset_index(drop=True)
    # same walls and the same policy in both seats: the swapped copy replays the same hands
    cols = [c for c in df.columns if c != "copy"]
    assert c0[cols].equals(c1[cols])
    assert set(c0["deal_id"]) == set(c1["deal_id"])
    single = datasets.read_run(simulate(tmp_path / "s", policies=GG, matches=12, seed=4).path)
    assert single.drop(columns="copy").equals(c0.drop(columns="copy"))


def test_rows_replay(base_run):
    out, _ = base_run
    run = datasets.open_run(out)
    df = run.to_pandas()
    picks = [0, len(df) - 1]
    won = df.index[df["winner"] >= 0]
    picks += [won[0], won[len(won) // 2]] + list(df.index[df["win_melds"].fillna("").str.len() > 0][:1])
    picks += list(df.index[df["winner"] < 0][:1])
    for i in picks:
        row = df.loc[i]
        record = run.replay(row)
        rec = record.row
        for name in (
            "match",
            "hand",
            "dealer",
            "streak",
            "winner",
            "payer",
            "hand_tai",
            "dealer_tai",
            "turns",
            "tiles_left",
        ):
            assert rec[name] == row[name], (i, name)
        assert rec["points"] == row["points"]
        assert datasets.WIN_TYPES[rec["win_type"]] == row["win_type"]
        if row["winner"] >= 0:
            assert simkit.tile_name(rec["win_tile"]) == row["win_tile"]
            assert record.items == {k[5:]: int(v) for k, v in row.items() if k.startswith("item_") and v}
            if "win_hand" in rec:
                assert simkit.format_tiles(rec["win_hand"]) == row["win_hand"]


def test_existing_output_is_refused_overwritten_or_resumed(base_run, tmp_path):
    out = tmp_path / "r"
    simulate(out, policies=GG, matches=10, seed=1, chunk_matches=5)
    with pytest.raises(simkit.SimkitError, match="already exists.*--resume.*--overwrite"):
        simulate(out, policies=GG, matches=10, seed=1, chunk_matches=5)
    again = simulate(out, resume=True)  # complete already: nothing to compute
    assert again.computed_chunks == 0 and again.rows == _table(out).num_rows
    with pytest.raises(simkit.SimkitError, match="seed 2 differs"):
        simulate(out, seed=2, resume=True)
    redone = simulate(out, policies=GG, matches=12, seed=1, overwrite=True)
    assert redone.matches == 12 and datasets.read_manifest(out)["spec"]["target"] == {"matches": 12}
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    with pytest.raises(simkit.SimkitError, match="not a simkit dataset"):
        simulate(other, matches=1, overwrite=True)
    assert (other / "keep.txt").read_text() == "mine"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert simulate(empty, policies=GG, matches=2).matches == 2  # an empty directory is fine


def _wait_for_shard(proc, out, timeout=120):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if out.is_dir() and any(out.glob("part-*.parquet")):
            return
        if proc.poll() is not None:
            raise AssertionError(f"the run ended before a shard appeared: {proc.stderr.read()}")
        time.sleep(0.005)
    raise AssertionError("no shard appeared")


class _Killed(BaseException):
    """Stands for SIGKILL in the in-process test: nothing after it runs in the 'killed' call."""


def test_run_killed_between_shards_resumes_to_the_same_bytes(tmp_path, monkeypatch):
    """The state SIGKILL leaves (manifest 'running', some shards, a half-written temporary file) is
    finished by resume into the same files as an uninterrupted run. The real SIGKILL of a
    subprocess is test_killed_subprocess_resumes_to_the_uninterrupted_result (slow)."""
    out = tmp_path / "k"
    commit = datasets.commit_shard
    calls = []

    def dying_commit(tmp, directory, chunk):
        if len(calls) == 3:
            Path(tmp).write_bytes(Path(tmp).read_bytes()[:100])  # killed while writing the next shard
            raise _Killed()
        calls.append(chunk)
        return commit(tmp, directory, chunk)

    monkeypatch.setattr(datasets, "commit_shard", dying_commit)
    monkeypatch.setattr(datasets, "clean_temporary", lambda directory: 0)  # a killed process cleans nothing
    with pytest.raises(_Killed):
        simulate(out, policies=GG, matches=70, seed=8, chunk_matches=10)
    monkeypatch.undo()
    assert datasets.read_manifest(out)["status"] == "running"
    assert sorted(p.name for p in out.glob("part-*")) == [datasets.shard_name(c) for c in range(3)]
    assert [p for p in out.iterdir() if p.name.endswith(".tmp")]  # the torn temporary file
    with pytest.raises(simkit.SimkitError, match="already exists"):
        simulate(out, policies=GG, matches=70, seed=8, chunk_matches=10)
    resumed = simulate(out, resume=True)
    assert resumed.computed_chunks == 4 and resumed.shards == 7
    clean = simulate(tmp_path / "clean", policies=GG, matches=70, seed=8, chunk_matches=10)
    assert _shard_bytes(out) == _shard_bytes(clean.path)
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    assert default_out(datasets.read_manifest(out)["spec"]).name == "douque_greedy-greedy_seed8_70matches"


def _wait_for_shard(proc, out, timeout=600):
    t0 = time.time()
    while time.time() - t0 < timeout:
        if out.is_dir() and any(out.glob("part-*.parquet")):
            return
        if proc.poll() is not None:
            raise AssertionError(f"the run ended before a shard appeared: {proc.stderr.read()}")
        time.sleep(0.005)
    raise AssertionError("no shard appeared")


@pytest.mark.slow
def test_killed_subprocess_resumes_to_the_uninterrupted_result(tmp_path):
    """`python -m simkit simulate` interrupted by Ctrl-C, then SIGKILLed, then resumed: the same
    shard files as a clean run. (Slow: each subprocess compiles the engine first.)"""
    out = tmp_path / "killed"
    argv = [
        sys.executable,
        "-m",
        "simkit",
        "simulate",
        "--out",
        str(out),
        "--matches",
        "1500",
        "--seed",
        "9",
        "--chunk-matches",
        "15",
        "--policies",
        "greedy,greedy",
        "--quiet",
    ]
    # Ctrl-C: complete shards kept, no temporary files, exit 130 and a hint to resume
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for_shard(proc, out)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "--resume" in err and len(err.strip().splitlines()) == 1
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    # SIGKILL, at whatever point the run has reached: only complete shards are visible
    n_before = len(list(out.glob("part-*.parquet")))
    proc = subprocess.Popen(
        argv[:-1] + ["--resume", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    t0 = time.time()
    while len(list(out.glob("part-*.parquet"))) <= n_before and time.time() - t0 < 600 and proc.poll() is None:
        time.sleep(0.005)
    proc.kill()
    proc.wait(timeout=30)
    manifest = datasets.read_manifest(out)
    shards = sorted(out.glob("part-*.parquet"))
    assert manifest["status"] == "running" and n_before < len(shards) < 100, "the run was not cut short"
    for p in shards:  # every visible shard is complete
        assert pq.ParquetFile(p).metadata.num_rows == datasets.shard_metadata(p)["rows"]
    # resume with only --out: the settings come from the manifest
    done = subprocess.run(
        [sys.executable, "-m", "simkit", "simulate", "--out", str(out), "--resume", "--quiet"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    assert datasets.read_manifest(out)["status"] == "complete" and len(datasets.read_manifest(out)["invocations"]) == 3
    clean = simulate(tmp_path / "clean", policies=GG, matches=1500, seed=9, chunk_matches=15)
    assert _shard_bytes(out) == _shard_bytes(clean.path)
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


def test_default_run_and_summarize(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "--quiet"]) == 0
    out = capsys.readouterr().out
    path = Path("data/runs/douque_greedy-greedy_seed0_2000matches")
    assert str(path) in out and "2,000 matches" in out
    assert default_out(datasets.read_manifest(path)["spec"]) == path
    assert main(["summarize", str(path)]) == 0
    text = capsys.readouterr().out
    for words in (
        "rows",
        "2,000 matches",
        "player 0 wins",
        "dealer wins",
        "exhaustive draws",
        "mean hand tai",
        "payment (points)",
        "clustered by match",
        "most frequent items",
    ):
        assert words in text, words
    assert len([line for line in text.splitlines() if line.startswith("  ") and "%" in line and "   " in line]) >= 10
    summary = summarize(path)
    assert summary.rows == datasets.read_manifest(path)["rows"] and summary.matches == 2000
    assert summary.wins.sum() + summary.draws == summary.rows
    lo, hi = summary.points[1:]
    assert lo < summary.points[0] < hi


def test_summarize_refuses_a_non_dataset(tmp_path, capsys):
    assert _exit_code(["summarize", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not a simkit dataset" in err and len(err.strip().splitlines()) == 1
    assert _exit_code(["summarize", str(tmp_path / "nope")]) == 2
    assert "no such directory" in capsys.readouterr().err


def test_summarize_compares_policies_in_a_duplicate_run(tmp_path):
    simulate(tmp_path / "d", policies=("random", "random"), matches=6, seed=1, duplicate=True)
    text = summarize(tmp_path / "d").table()
    assert "seats swapped" in text and "both copies" in text


def _exit_code(argv) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own errors
        return exc.code


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--rules", "riichi"], "unknown rule set"),
        (["--rules", "night_market", "--option", "migi_tai=4"], "migi_tai"),  # a douque option
        (["--option", "nope=1"], "nope"),
        (["--option", "migi_tai=x"], "migi_tai"),
        (["--option", "migi_tai"], "KEY=VALUE"),
        (["--policies", "greedy,nope"], "unknown policy"),
        (["--policies", "greedy"], "two policies"),
        (["--matches", "0"], "positive integer"),
        (["--matches", "-3"], "positive integer"),
        (["--hands", "0"], "positive integer"),
        (["--hands", "ten"], "positive integer"),
        (["--matches", "5", "--hands", "50"], "not allowed with"),
        (["--workers", "0"], "positive integer"),
        (["--chunk-matches", "0"], "positive integer"),
        (["--seed", "-1"], "seed"),
        (["--overwrite", "--resume"], "not allowed with"),
        (["--resume"], "no such directory"),
        (["--out", "{file}/sub"], "cannot create output directory"),
        (["--out", "{file}"], "not a directory"),
        (["--out", "{run}"], "already exists"),
        (["--out", "{run}", "--resume", "--seed", "3"], "differs"),
    ],
)
def test_bad_arguments_are_one_line_exit_2(base_run, tmp_path, capsys, argv, words):
    (tmp_path / "file").write_text("x")
    subs = {"{file}": str(tmp_path / "file"), "{run}": str(base_run[0])}
    argv = [next((a.replace(k, v) for k, v in subs.items() if k in a), a) for a in argv]
    if "--out" not in argv:
        argv += ["--out", str(tmp_path / "out")]
    assert _exit_code(["simulate", "--quiet"] + argv) == 2
    err = capsys.readouterr().err
    assert words in err, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("simkit: error:")
    assert not (tmp_path / "out").exists()  # nothing written for a bad argument


def test_help_of_the_new_commands(capsys):
    for cmd in ("simulate", "summarize"):
        with pytest.raises(SystemExit) as exc:
            main([cmd, "--help"])
        assert exc.value.code == 0
    assert "--duplicate" in capsys.readouterr().out


@pytest.mark.parametrize("rules", ["douque", "night_market", "duel", "for_two"])
def test_a_dataset_keeps_the_result_columns_of_its_rule_set(tmp_path, rules):
    """The engine returns every rule set's columns (zero where they do not apply); a dataset keeps the
    shared ones and its rule set's own (``Rules.result_columns``), nothing else."""
    from simkit.engine.table import FLOAT_FIELDS, RESULT_FIELDS

    run = simulate(tmp_path / "r", rules=rules, policies=GG, matches=3, seed=1)
    names = set(datasets.open_run(run.path).schema.names)
    own = set(simkit.get_rules(rules).result_columns)
    particular = {"fan", "multiple", "bid", "kong_payment_0", "kong_payment_1", "fee_0", "fee_1", "combination_points"}
    assert particular <= set(RESULT_FIELDS) | set(FLOAT_FIELDS)
    assert names & particular == own
    assert {"balance_0", "balance_1"} <= names
    assert (
        own
        == {
            "douque": set(),
            "night_market": {"fan"},
            "for_two": {"bid", "combination_points"},
            "duel": {"fan", "multiple", "kong_payment_0", "kong_payment_1", "fee_0", "fee_1"},
        }[rules]
    )


def test_resume_keeps_the_columns_of_a_run_begun_by_an_earlier_version(tmp_path, monkeypatch):
    """A run whose first shards carry every engine column (as runs written before datasets kept only
    their rule set's columns) is resumed with the same columns in its new shards: one schema."""
    out = tmp_path / "old"
    every = ("fan", "multiple", "bid", "kong_payment_0", "kong_payment_1", "fee_0", "fee_1", "combination_points")
    monkeypatch.setattr(datasets.schema, "SHARED_RESULT_COLUMNS", datasets.SHARED_RESULT_COLUMNS + every)
    commit = datasets.commit_shard
    calls = []

    def dying_commit(tmp, directory, chunk):
        if len(calls) == 2:
            raise _Killed()
        calls.append(chunk)
        return commit(tmp, directory, chunk)

    monkeypatch.setattr(datasets, "commit_shard", dying_commit)
    with pytest.raises(_Killed):
        simulate(out, policies=GG, matches=40, seed=3, chunk_matches=10)
    monkeypatch.undo()
    old_names = pq.read_schema(out / datasets.shard_name(0)).names
    assert "fan" in old_names
    resumed = simulate(out, resume=True)
    assert resumed.computed_chunks == 2
    for c in range(4):
        assert pq.read_schema(out / datasets.shard_name(c)).names == old_names
    df = simkit.analysis.load(out)
    assert len(df) == resumed.rows and (df["fan"] == 0).all()
    fresh = simulate(tmp_path / "new", policies=GG, matches=40, seed=3, chunk_matches=10)
    assert "fan" not in datasets.open_run(fresh.path).schema.names
    assert df.drop(columns=list(every)).equals(simkit.analysis.load(fresh.path))


# ---------------------------------------------------------------------------------------------
# resume refuses a policy that changed since the run began


def _files_of(path) -> dict:
    """Every file under ``path`` with its bytes and modification time."""
    return {str(p.relative_to(path)): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(path.rglob("*"))}


def _layers(seed):
    from simkit.engine.actions import N_ACTIONS
    from simkit.envs import OBSERVATION_SIZE

    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(OBSERVATION_SIZE, N_ACTIONS)) * 0.3, rng.normal(size=N_ACTIONS) * 0.1)]


def test_resume_refuses_a_policy_file_replaced_since_the_run_began(tmp_path, capsys):
    """A run begun with q.npz, the file then overwritten with other weights: --resume (with or
    without --policies, from Python or the command) refuses in one line naming the policy, the file
    and both SHA-256 prefixes, and writes nothing; the run's weights put back, it finishes."""
    q = tmp_path / "q.npz"
    simkit.save_policy(q, _layers(1), label="q")
    first = datasets.file_digest(q)
    out = tmp_path / "run"
    simulate(out, policies=(str(q), "greedy"), matches=6, chunk_matches=2, seed=1, until=2)
    kept = q.read_bytes()
    simkit.save_policy(q, _layers(2), label="q")
    now = datasets.file_digest(q)
    before = _files_of(out)
    for policies in ((str(q), "greedy"), None):
        with pytest.raises(RunError) as info:
            simulate(out, policies=policies, resume=True)
        text = str(info.value)
        assert "\n" not in text and "'q'" in text and str(q) in text, text
        assert first[:12] in text and now[:12] in text and "changed since the run began" in text
    for extra in (["--policies", f"{q},greedy"], []):
        assert _exit_code(["simulate", "--out", str(out), "--resume", "--quiet", *extra]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and err.startswith("simkit: error: cannot resume"), err
        assert first[:12] in err and now[:12] in err
    assert _files_of(out) == before  # nothing written, not even the lock
    q.write_bytes(kept)
    assert simulate(out, resume=True).matches == 6


def test_resume_refuses_a_policy_module_whose_source_changed(tmp_path, monkeypatch):
    """A ``module:function`` policy whose module was edited since the run began: resume refuses,
    naming the policy, the module's file and both source hashes, and writes nothing."""
    name = f"resumed_policies_{abs(hash(str(tmp_path))) % 10**8}"
    source = tmp_path / f"{name}.py"
    source.write_text(
        "from simkit._jit import jit\n"
        "from simkit.policies.basic import greedy_policy\n\n\n"
        "@jit\n"
        "def steady(view, legal, params, rng):\n"
        "    return greedy_policy(view, legal, params, rng)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        out = tmp_path / "run"
        simulate(out, policies=(f"{name}:steady", "greedy"), matches=4, chunk_matches=2, seed=1, until=2)
        recorded = datasets.read_manifest(out)["spec"]["policies"][0]["source_sha256"]
        with open(source, "a") as f:
            f.write("# plays differently now\n")
        before = _files_of(out)
        for policies in ((f"{name}:steady", "greedy"), None):
            with pytest.raises(RunError) as info:
                simulate(out, policies=policies, resume=True)
            text = str(info.value)
            assert "'steady'" in text and str(source) in text and recorded[:12] in text, text
        assert _files_of(out) == before
    finally:
        sys.modules.pop(name, None)


# ---------------------------------------------------------------------------------------------
# what simulate reports: start-up apart from play, a reused run said to be reused


def test_the_policies_compile_is_start_up_not_play(tmp_path, monkeypatch):
    """Compiling the policies for the engine (on a policy's first use, numba's compile) is counted
    as start-up, like the engine's, so the rate is the play's."""
    sim = _sim_module()
    real = sim.prepare_match

    def slow(*args, **kwargs):  # a policy's first compile
        time.sleep(3.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(sim, "prepare_match", slow)
    result = simulate(tmp_path / "r", policies=GG, matches=4, seed=2)
    assert result.startup_seconds >= 3.0 and result.play_seconds < result.seconds - 3.0
    assert result.hands_per_second == result.computed_rows / result.play_seconds


def _printed(monkeypatch, capsys, result, argv=()):
    monkeypatch.setattr("simkit.cli.simulate", lambda *args, **kwargs: result)
    assert main(["simulate", "--out", str(result.path), "--quiet", *argv]) == 0
    return capsys.readouterr().out.splitlines()[0]


def test_the_final_line_reports_start_up_apart_from_play(tmp_path, monkeypatch, capsys):
    result = SimulationResult(
        path=tmp_path / "r", rows=33_000, matches=2000, shards=1, computed_chunks=1, seconds=34.0,
        computed_rows=32_000, startup_seconds=30.0,
    )  # fmt: skip
    line = _printed(monkeypatch, capsys, result)
    assert "start-up 30.0 s, then 32,000 hands in 4.0 s, 8,000 hands/s" in line, line
    line = _printed(monkeypatch, capsys, result, ["--workers", "2"])
    assert "8,000 hands/s, the workers' start-up included" in line, line


def test_a_reused_run_is_said_to_be_reused_without_a_rate(tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["simulate", "--out", str(out), "--matches", "3", "--quiet"]) == 0
    assert "hands/s" in capsys.readouterr().out
    assert main(["simulate", "--out", str(out), "--resume", "--quiet"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert "reused" in line and "hands/s" not in line and "3 matches" in line, line
    again = simulate(out, resume=True)
    assert again.reused and np.isnan(again.hands_per_second)


# ---------------------------------------------------------------------------------------------
# output paths and counts on the command line


@pytest.mark.parametrize("command", ["simulate", "exploit greedy", "decide greedy random", "tournament"])
def test_an_empty_out_is_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys, command):
    monkeypatch.chdir(tmp_path)
    assert _exit_code([*command.split(), "--out", ""]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "argument --out" in err and "empty" in err, err
    assert list(tmp_path.iterdir()) == []


def test_an_empty_out_is_refused_by_simulate(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputValueError, match="empty"):
        simulate("", policies=GG, matches=2)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "text, value",
    [("10", 10), ("1,000", 1000), ("10_000", 10_000), ("1,000,000", 10**6), ("2_000_000", 2 * 10**6), ("+7", 7)],
)
def test_counts_take_thousands_separators_in_groups_of_three(text, value):
    from simkit.cli import build_parser

    assert build_parser().parse_args(["simulate", "--matches", text]).matches == value


@pytest.mark.parametrize("text", ["1,0", "1_0", "10,00", "1,000_000", ",100", "100,", "1,,000", "1__000", "1e3"])
def test_a_misplaced_separator_is_refused_naming_the_flag(tmp_path, capsys, text):
    assert _exit_code(["simulate", "--matches", text, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "argument --matches" in err and repr(text) in err, err
    assert not (tmp_path / "out").exists()
