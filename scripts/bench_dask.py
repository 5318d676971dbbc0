"""Hands/s of the same simulation run locally and on a local Dask cluster of 1 and 2 workers.

Prints, for one run size (greedy vs greedy douque by default): the plain run (one process, numba on
all cores), then ``simkit.simulate(..., scheduler=client)`` on a LocalCluster of 1 worker process
(numba on all cores) and of 2 worker processes (cores / 2 threads each). Cluster start-up and numba
compilation are excluded (each configuration first runs a small warm-up), so the difference is the
cost of distribution: task scheduling, pickling, and each worker writing its own shards.

    python3 scripts/bench_dask.py [--matches 2000] [--chunk-matches 100]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=2000)
    ap.add_argument("--chunk-matches", type=int, default=100)
    ap.add_argument("--policies", default="greedy,greedy")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)

    import distributed
    import numba

    from simkit.runs.simulation import simulate

    policies = tuple(args.policies.split(","))
    run = dict(policies=policies, matches=args.matches, seed=args.seed, chunk_matches=args.chunk_matches)
    warm = dict(policies=policies, matches=2, seed=args.seed, chunk_matches=1)
    cores = os.cpu_count() or 1
    print(
        f"simkit on a local Dask cluster: {args.matches:,} matches {policies[0]} vs {policies[1]}, "
        f"{args.chunk_matches} matches per chunk, {cores} cores, numba {numba.__version__}, "
        f"distributed {distributed.__version__}"
    )
    rates = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        simulate(tmp / "warm-local", **warm)
        t0 = time.perf_counter()
        res = simulate(tmp / "local", **run)
        dt = time.perf_counter() - t0
        rates["plain (1 process, all cores)"] = (res.rows / dt, res.rows, dt)
        for n_workers in (1, 2):
            cluster = distributed.LocalCluster(
                n_workers=n_workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=50,
            )
            client = distributed.Client(cluster)
            try:
                t_up = time.perf_counter()
                simulate(tmp / f"warm-dask{n_workers}", scheduler=client, **warm)
                startup = time.perf_counter() - t_up
                t0 = time.perf_counter()
                res = simulate(tmp / f"dask{n_workers}", scheduler=client, **run)
                dt = time.perf_counter() - t0
                label = f"Dask LocalCluster, {n_workers} worker{'s' if n_workers > 1 else ''}"
                rates[label] = (res.rows / dt, res.rows, dt)
                print(f"  ({label}: warm-up incl. compile/load on the workers {startup:.1f} s, excluded)")
            finally:
                client.close()
                cluster.close()
    base = rates["plain (1 process, all cores)"][0]
    for label, (rate, rows, dt) in rates.items():
        print(f"  {label:<34} {rate:>10,.0f} hands/s  ({rows:,} hands in {dt:.1f} s; {rate / base:.2f}x plain)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
