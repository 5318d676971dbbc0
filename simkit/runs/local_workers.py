"""The local back end of a run: worker processes on this machine, each playing whole chunks
(:func:`simkit.runs.chunk_job.compute_chunk`), started fresh (forkserver, else spawn) and stopped
at once on an interrupt or an error. The Dask back end is :mod:`simkit.runs.dask_cluster`."""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing as mp
import os

from .chunk_job import worker_init

__all__ = ["process_pool", "stop_workers"]


def process_pool(workers: int, directory=None):
    """``workers`` fresh processes (forkserver, else spawn), each with ``cores // workers`` numba threads.

    Fresh processes, not forks: a process that has run numba's OpenMP threads cannot fork safely.
    Each worker compiles (or loads) the engine itself before its first chunk.
    """

    method = "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"
    threads = max(1, (os.cpu_count() or 1) // workers)
    return cf.ProcessPoolExecutor(
        workers,
        mp_context=mp.get_context(method),
        initializer=worker_init,
        initargs=(threads, method, os.getpid(), directory),
    )


def stop_workers(executor, pending) -> None:
    """Stop worker processes started by this run at once (an interrupt or an error): cancel queued
    chunks and terminate the processes; their temporary files are removed by the caller."""
    if executor is None:
        return
    for _, fut in pending:
        if fut is not None:
            fut.cancel()
    processes = list(getattr(executor, "_processes", {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for p in processes:  # chunks beyond the target, or an interrupted run: end them now (SIGKILL: a
        if p.is_alive():  # worker busy in the engine would run a SIGTERM handler only after its batch)
            p.kill()
    for p in processes:
        p.join(timeout=10)
