"""The same simulation on a Dask cluster (``simkit simulate --scheduler ADDRESS``).

:func:`simkit.simulate` splits a run into chunks of matches; each chunk's rows depend only on the
master seed and its match range. Here every chunk becomes one Dask task that simulates its match range
and writes its own temporary shard into the run directory, which must therefore be on a filesystem
every worker and the client share (a network filesystem, or this machine for a ``LocalCluster``). The
client commits the shards in chunk order exactly as a local run does, so the dataset is identical to a
local run with the same seed, and ``--resume`` works the same way.

Failures: Dask reruns the task of a worker that dies (its temporary file is ignored and removed at the
end of the run); a task that raises is retried ``retries`` times before the run stops with the error.
A chunk whose workers keep dying (Dask's ``KilledWorker``) stops the run with one line
``simkit: error: ...``; the committed shards are kept and listed, and ``--resume`` finishes the run.
The workers of a LocalCluster this module starts end with the simulating process, however it ends
(``kill -9`` included), removing their temporary files first (:func:`watch_owner`).

Each worker compiles (or loads from numba's cache) the engine once, before its first chunk
(:func:`warm_worker`, run on every worker when the run starts), and runs numba on its own threads:
``numba_threads`` per task, by default the worker's cores divided by its task threads.
"""

from __future__ import annotations

import os
import threading
import time

import numba

from ..errors import InputValueError, RunError
from .chunk_job import compute_chunk, warm_engine, watch_parent

__all__ = ["DaskExecutor", "connect", "close", "warm_worker", "watch_owner"]

LOCAL = "local"  #: ``--scheduler local``: start a LocalCluster on this machine
CONNECT_TIMEOUT = "10s"  #: how long to try reaching a scheduler address


def _import_distributed():
    try:
        import distributed
    except ImportError:  # pragma: no cover - dask is a dependency
        raise RunError("running on a Dask cluster needs dask.distributed: pip install 'dask[distributed]'") from None
    return distributed


def connect(scheduler, n_workers: int | None = None):
    """A ``distributed.Client`` for ``scheduler``: an address (``tcp://host:8786``), ``"local"``
    (a new LocalCluster of ``n_workers`` processes with one task thread each), or a Client.

    Returns ``(client, owned, label)``; ``owned`` is True when this function started the client
    (and its cluster), which the caller then closes; ``label`` is what the run manifest records.
    """
    distributed = _import_distributed()
    if isinstance(scheduler, distributed.Client):
        return scheduler, False, "client"
    if not isinstance(scheduler, str) or not scheduler:
        raise InputValueError(
            f"scheduler must be a Dask scheduler address, 'local' or a distributed.Client, got {scheduler!r}"
        )
    if scheduler == LOCAL:
        workers = n_workers or max(1, os.cpu_count() or 1)
        cluster = distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=50,  # CRITICAL only: failures are reported in one line
        )
        client = distributed.Client(cluster)
        client.cluster_owned = cluster  # closed with the client by the caller
        return client, True, LOCAL
    try:
        client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as e:
        raise RunError(f"cannot connect to the Dask scheduler at {scheduler}: {e}") from None
    return client, True, scheduler


def close(client) -> None:
    """Close a client :func:`connect` started, and its LocalCluster if it started one."""
    cluster = getattr(client, "cluster_owned", None)
    client.close()
    if cluster is not None:
        cluster.close()


def warm_worker(job) -> float:
    """Compile or load the engine for ``job`` in this worker (:func:`simkit.runs.chunk_job.warm_engine`);
    seconds taken."""
    return warm_engine(job)


def watch_owner(owner: int, directory) -> int:
    """Run on a worker of a LocalCluster on this machine: end the worker (removing its temporary
    files in ``directory``) when the process ``owner`` running the simulation is gone. Returns the
    worker's process id."""

    if not any(t.name == "simkit-parent-watch" for t in threading.enumerate()):
        threading.Thread(target=watch_parent, args=(owner, directory), daemon=True, name="simkit-parent-watch").start()
    return os.getpid()


def _run_chunk(job, chunk: int, first: int, n: int, numba_threads: int):
    """One Dask task: set this task thread's numba threads, then compute and write the chunk's shard."""

    numba.set_num_threads(max(1, min(numba_threads, numba.config.NUMBA_NUM_THREADS)))
    return compute_chunk(job, chunk, first, n)


class DaskExecutor:
    """The ``submit``/``shutdown`` interface :func:`simkit.simulate` uses for worker pools, on Dask.

    ``submit`` returns a ``distributed.Future`` (``result()`` and ``cancel()`` like a
    ``concurrent.futures.Future``). Tasks are impure (each writes a file) and retried ``retries``
    times when they raise; a task whose worker dies is rerun by the scheduler.
    """

    def __init__(self, client, job, *, retries: int = 2, numba_threads: int | None = None):
        self.client = client
        self.retries = retries
        info = client.scheduler_info()
        workers = info.get("workers", {})
        if not workers:
            client.wait_for_workers(1, timeout=60)
            workers = client.scheduler_info().get("workers", {})
        self.n_workers = len(workers)
        self.task_threads = sum(w.get("nthreads", 1) for w in workers.values()) or 1
        if numba_threads is None:
            # cores of a worker's machine shared by its task threads (LocalCluster: cores // workers)
            cores = os.cpu_count() or 1
            per_worker = max(1, self.task_threads // max(1, self.n_workers))
            numba_threads = max(1, cores // max(1, self.n_workers * per_worker))
        self.numba_threads = numba_threads
        if getattr(client, "cluster_owned", None) is not None:  # our LocalCluster: its workers die with us
            client.run(watch_owner, os.getpid(), job.directory)
        client.run(warm_worker, job)  # every worker compiles or loads the engine once, up front
        self._prefix = f"simkit-chunk-{os.getpid()}-{id(self)}-"

    @property
    def window(self) -> int:
        """Chunks in flight: two per task thread, so no worker waits for the client."""
        return 2 * self.task_threads

    def submit(self, fn, job, chunk, first, n):
        return self.client.submit(
            _run_chunk,
            job,
            chunk,
            first,
            n,
            self.numba_threads,
            pure=False,
            retries=self.retries,
            key=f"{self._prefix}{chunk}",
        )

    def shutdown(self, wait: bool = True, cancel_futures: bool = False, timeout: float = 120.0) -> None:
        """With ``wait``, let chunks still running on the workers (cancelled ones beyond a hands
        target) end, so that their temporary files exist before the run removes them. The client
        (and any cluster it started) is closed by the run."""
        if not wait:
            return

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                running = [
                    k for keys in self.client.processing().values() for k in keys if str(k).startswith(self._prefix)
                ]
            except Exception:  # the cluster is going away: nothing left to wait for
                return
            if not running:
                return
            time.sleep(0.1)
