"""The work of one chunk of a run, in whatever process computes it (this one, a worker of
``--workers``, a Dask worker): the job a run hands to its workers, the chunk's rows as an Arrow
table written as a temporary shard with its metadata, warming the engine up, and a worker
process's set-up (it ends itself and removes its temporary files when the run's process dies)."""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
import pyarrow as pa

from .. import datasets
from ..engine.compiled import also_first
from ..play.matches import simulate_matches

#: Matches per engine call inside a chunk (progress granularity; does not affect the data).
ENGINE_BATCH = 500

__all__ = [
    "ENGINE_BATCH",
    "ChunkJob",
    "chunk_table",
    "shard_meta",
    "compute_chunk",
    "warm_engine",
    "worker_init",
    "watch_parent",
]


@dataclass
class ChunkJob:
    """Everything a process needs to compute chunks (picklable for worker processes)."""

    spec: dict
    rules: object
    #: the two Policy objects: a worker unpickles each as the very function it names, declaration
    #: included, and builds the vector it plays from the run's rule set (Policy.engine_params)
    policies: tuple
    directory: str
    columns: tuple | None = None  # a resumed run's columns (its shards'), which new shards keep

    @property
    def chunk_matches(self) -> int:
        return self.spec["chunk_matches"]


def chunk_table(job: ChunkJob, first: int, n: int, on_batch=None, on_decisions=None):
    """Rows of matches ``[first, first + n)`` as an Arrow table, the rows of each match (int64[n]),
    and, in a run with decisions, the decision log of those matches as a second table (else None).
    With ``on_decisions`` the log comes in parts instead, one per engine call in order, each as
    ``on_decisions(part)``, ``part()`` making its table (so that the caller can make and write it
    while the engine plays on); the third item is then None."""

    spec = job.spec
    decisions = spec.get("decisions", False)
    schema = None
    labels = [p["label"] for p in spec["policies"]]
    pols = list(job.policies)
    copies = [(0, pols, labels)]
    if spec["duplicate"]:
        copies.append((1, pols[::-1], labels[::-1]))
    batches = []
    decision_parts = []
    match_rows = np.zeros(n, np.int64)
    for a in range(first, first + n, ENGINE_BATCH):
        m = min(ENGINE_BATCH, first + n - a)
        parts = []
        keys = []
        logs = []
        for copy, players, names in copies:
            res = simulate_matches(
                job.rules, players, m, spec["seed"], start=a, decisions=decisions, **datasets.wall_settings_of(spec)
            )
            if decisions:
                logs.append((res.pop("decisions"), copy))
            schema = schema or datasets.schema_for(job.rules, res, columns=job.columns)
            parts.append(
                datasets.rows_to_batch(res, schema, seed=spec["seed"], copy=copy, policy_labels=names, rules=job.rules)
            )
            keys.append(np.asarray(res["match"], np.int64) * 2 + copy)
            match_rows += np.bincount(np.asarray(res["match"]) - first, minlength=n)
        batches.extend(_in_match_order(parts, keys))
        if logs:
            part = _decision_part(logs, spec["seed"], decisions == "observations")
            if on_decisions is not None:
                on_decisions(part)
            else:
                decision_parts.append(part())
        if on_batch is not None:
            on_batch(sum(len(p) for p in parts), m)
    decision_table = None
    if decisions and on_decisions is None:
        schema_d = datasets.decision_schema(decisions == "observations")
        decision_table = pa.concat_tables([pa.Table.from_batches([], schema=schema_d), *decision_parts])
    return pa.Table.from_batches(batches, schema=schema), match_rows, decision_table


def _in_match_order(pieces, keys) -> list:
    """The record batches of the copies of one engine call in (match, copy, hand) order (``keys``:
    each row's ``match * 2 + copy``)."""
    if len(pieces) == 1:
        return [pieces[0]]
    order = np.argsort(np.concatenate(keys), kind="stable")
    return pa.Table.from_batches(pieces).take(pa.array(order)).combine_chunks().to_batches()


def _decision_part(logs, seed: int, observations: bool):
    """A function making the table of one engine call's decision logs (``[(log, copy)]``), in
    (match, copy, hand, step) order."""

    def part() -> pa.Table:
        pieces = [datasets.decisions_to_batch(log, seed=seed, copy=copy) for log, copy in logs]
        keys = [np.asarray(log["match"], np.int64) * 2 + copy for log, copy in logs]
        return pa.Table.from_batches(_in_match_order(pieces, keys), schema=datasets.decision_schema(observations))

    return part


def shard_meta(job: ChunkJob, chunk: int, first: int, matches: int, rows: int, table: str | None = None) -> dict:
    meta = {
        "format": datasets.FORMAT,
        "spec": job.spec,
        "chunk": chunk,
        "first_match": first,
        "matches": matches,
        "rows": rows,
        "versions": datasets.versions(),
    }
    if table is not None:
        meta["table"] = table  # "decisions": a decision shard (a shard of the hands has no such key)
    return meta


def compute_chunk(job: ChunkJob, chunk: int, first: int, n: int, on_batch=None):
    """Compute a chunk and write it as a temporary shard: ``(tmp path, rows, rows per match,
    decisions)``, ``decisions`` None or, in a run with decisions, ``(tmp path, rows)`` of the chunk's
    decision shard (a temporary file in ``_decisions/``).

    The decision shard is written part by part (:class:`~simkit.datasets.ShardWriter`, a row group
    per engine call) by a thread of its own while the engine plays the chunk's next matches and
    this thread writes the hands: the log's Arrow columns and Parquet pages then take the time a
    core would otherwise spend waiting. Its bytes depend only on the chunk."""
    if not job.spec.get("decisions", False):
        table, match_rows, _ = chunk_table(job, first, n, on_batch)
        tmp = datasets.write_shard(job.directory, chunk, table, shard_meta(job, chunk, first, n, table.num_rows))
        return str(tmp), table.num_rows, match_rows, None
    place = Path(job.directory) / datasets.DECISIONS_DIR
    place.mkdir(exist_ok=True)
    writer = datasets.ShardWriter(place, chunk, datasets.decision_schema(job.spec["decisions"] == "observations"))
    written = []
    try:
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="simkit-decisions", initializer=_yield_cores) as pool:
            try:
                table, match_rows, _ = chunk_table(
                    job,
                    first,
                    n,
                    on_batch,
                    on_decisions=lambda part: written.append(pool.submit(_write_part, writer, part)),
                )
                tmp = datasets.write_shard(
                    job.directory, chunk, table, shard_meta(job, chunk, first, n, table.num_rows)
                )
                for future in written:
                    future.result()
            except BaseException:
                for future in written:
                    future.cancel()
                raise
        dtmp = writer.close(shard_meta(job, chunk, first, n, writer.rows, "decisions"))
    except BaseException:
        writer.abort()
        raise
    return str(tmp), table.num_rows, match_rows, (str(dtmp), writer.rows)


def _write_part(writer, part) -> None:
    writer.write(part())


def _yield_cores() -> None:
    """Lower this thread's priority (Linux: a thread has its own nice value) so that it runs on
    the cores the engine's threads leave idle: while the engine plays, this process's thread
    writes the chunk's rows, and at its end. Elsewhere it runs as it is."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


#: Seconds between a worker's checks that the process running the simulation is still alive.
PARENT_POLL = 0.2


def set_parent_death_signal(sig) -> None:
    """Linux: have the kernel send ``sig`` to this process when its parent dies (``PR_SET_PDEATHSIG``)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, int(sig), 0, 0, 0)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):  # pragma: no cover
        pass


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (a killed parent not yet reaped)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            state = f.read().rsplit(b")", 1)[1].split()[0]
        return state not in (b"Z", b"X")
    except FileNotFoundError:
        return False
    except (OSError, IndexError):  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True


def watch_parent(owner: int, directory) -> None:
    """A worker's daemon thread: when the simulating process ``owner`` is gone (ended by any signal,
    ``kill -9`` included, and its pool with it), remove this worker's temporary files and end the
    worker at once."""
    parent = os.getppid()
    while True:
        if os.getppid() != parent or not process_alive(owner):
            if directory is not None:
                with contextlib.suppress(OSError):
                    datasets.clean_temporary(directory, pid=os.getpid())
            os._exit(1)
        time.sleep(PARENT_POLL)


def worker_init(threads: int, method: str, owner: int | None = None, directory=None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and stops the workers
    if owner is not None:
        # The worker's parent is the forkserver, which exits when the simulating process dies: the
        # kernel then sends SIGTERM (removing this worker's temporary files first, below), and a
        # watcher thread checks the simulating process itself every PARENT_POLL seconds.
        def on_term(signum, frame):
            if directory is not None:
                with contextlib.suppress(OSError):
                    datasets.clean_temporary(directory, pid=os.getpid())
            os._exit(1)

        signal.signal(signal.SIGTERM, on_term)
        set_parent_death_signal(signal.SIGTERM)
        threading.Thread(target=watch_parent, args=(owner, directory), daemon=True, name="simkit-parent-watch").start()
    # This process was not forked, so numba needs no inter-process lock to start its threads; with
    # the default method ("fork") it would take a named semaphore that a terminated worker leaks.
    multiprocessing.set_start_method(method, force=True)
    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))


def warm_engine(job: ChunkJob) -> float:
    """Compile the engine for the run's rule set (and the policies that are not built in) and the
    row-building kernels of :mod:`simkit.datasets`, or load them from the cache, with one throw-away
    match; seconds taken."""
    t0 = time.perf_counter()
    decisions = job.spec.get("decisions", False)
    with also_first(datasets.writer_kernels()):  # on a cold start, while the helper compiles the hand kernels
        res = simulate_matches(
            job.rules,
            tuple(job.policies),
            1,
            job.spec["seed"],
            decisions=decisions,
            **datasets.wall_settings_of(job.spec),
        )
    if decisions:
        datasets.decisions_to_batch(res.pop("decisions"), seed=job.spec["seed"], copy=0)
    labels = [p["label"] for p in job.spec["policies"]]
    datasets.rows_to_batch(
        res, datasets.schema_for(job.rules, res), seed=job.spec["seed"], copy=0, policy_labels=labels, rules=job.rules
    )
    return time.perf_counter() - t0
