"""The same run on a Dask cluster (simkit.runs.dask_cluster): identical shards, and a killed worker's
chunks are rerun so the dataset is still complete and identical.

The cluster tests are ``slow``: every worker process compiles the engine anew (numba does not
cache kernels that take the policies as function arguments), about a minute per worker on 2 cores.
Run them with ``python3 -m pytest -m slow tests/test_distributed.py``.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from simkit import datasets
from simkit.errors import SimkitError
from simkit.runs.simulation import simulate

distributed = pytest.importorskip("distributed")

GG = ("greedy", "greedy")
RUN = dict(policies=GG, matches=120, seed=21, chunk_matches=6)


def _shards(path):
    return {p.name: p.read_bytes() for p in sorted(Path(path).glob("part-*.parquet"))}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("dask") / "local"
    simulate(out, **RUN)
    return out


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        silence_logs=50,
    )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.mark.slow
def test_dask_run_is_identical_to_the_local_run(local_run, client, tmp_path):
    out = tmp_path / "dask"
    result = simulate(out, scheduler=client, **RUN)
    assert result.shards == 20 and result.computed_chunks == 20
    assert _shards(out) == _shards(local_run)
    manifest = datasets.read_manifest(out)
    assert manifest["status"] == "complete" and manifest["invocations"][-1]["scheduler"] == "client"


@pytest.mark.slow
def test_a_killed_worker_is_replaced_and_the_dataset_is_identical(local_run, client, tmp_path):
    out = tmp_path / "killed"
    pids = client.run(os.getpid)  # worker address -> process id
    outcome = {}

    def run():
        try:
            outcome["result"] = simulate(out, scheduler=client, **RUN)
        except BaseException as e:  # pragma: no cover - reported below
            outcome["error"] = e

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 300
    while not list(out.glob("part-*.parquet")) and time.monotonic() < deadline and thread.is_alive():
        time.sleep(0.05)
    assert thread.is_alive(), "the run ended before a worker could be killed"
    victim = sorted(pids.values())[0]
    os.kill(victim, signal.SIGKILL)  # mid-run: chunks are queued on both workers
    thread.join(600)
    assert "error" not in outcome, outcome.get("error")
    assert outcome["result"].shards == 20
    assert _shards(out) == _shards(local_run)
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    assert victim not in client.run(os.getpid).values()  # the nanny started a new worker process


def test_bad_scheduler_is_one_clear_error(tmp_path, monkeypatch, capsys):
    import simkit.runs.dask_cluster
    from simkit.cli import main

    monkeypatch.setattr(simkit.runs.dask_cluster, "CONNECT_TIMEOUT", "1s")
    with pytest.raises(SimkitError, match="scheduler"):
        simulate(tmp_path / "x", scheduler=123, **RUN)
    with pytest.raises(SimkitError, match="cannot connect to the Dask scheduler"):
        simulate(tmp_path / "y", scheduler="tcp://127.0.0.1:9", **RUN)
    assert not (tmp_path / "y").exists()  # nothing written before the cluster is reached
    code = main(["simulate", "--scheduler", "tcp://127.0.0.1:9", "--matches", "5", "--out", str(tmp_path / "z")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "cannot connect to the Dask scheduler" in err[0]


@pytest.mark.slow
def test_hands_target_on_dask_leaves_no_temporary_files(client, tmp_path):
    out = tmp_path / "hands"
    result = simulate(out, scheduler=client, policies=GG, hands=150, seed=21, chunk_matches=3)
    local = simulate(tmp_path / "hands-local", policies=GG, hands=150, seed=21, chunk_matches=3)
    assert result.rows == local.rows >= 150
    assert _shards(out) == _shards(tmp_path / "hands-local")
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.slow
def test_search_on_dask_is_identical_to_the_local_run(client, tmp_path):
    """The search policy travels to Dask workers with its continuation and plays the same games."""
    run = dict(rules="duel", policies=("search{worlds=6,min_worlds=3}", "value"), matches=4, seed=5, chunk_matches=1)
    simulate(tmp_path / "local", **run)
    simulate(tmp_path / "dask", scheduler=client, **run)
    assert _shards(tmp_path / "dask") == _shards(tmp_path / "local")
