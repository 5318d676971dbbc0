"""The Parquet share of a greedy and a random douque run: the time ``simkit.simulate`` spends building
the Arrow columns and writing the Parquet shards, over the run's time, with the engine alone on the
same matches measured alternately beside it.

Usage: ``python3 benchmarks/end_to_end.py [--matches 2000] [--repeat 3] [--seed 2026] [--json OUT]``
(random vs random plays a quarter of ``--matches``)
"""

from __future__ import annotations

import sys
import time

from _common import fmt as _fmt
from _common import main_for

FAMILY = "end_to_end"
OPTIONS = ("matches", "seed", "repeat")


def engine_runs(matches: int) -> list:
    """The greedy and random runs of the engine figures: ``[(pair, matches), ...]``."""
    return [(("greedy", "greedy"), matches), (("random", "random"), max(1, matches // 4))]


def run(args, rec) -> None:
    import simkit

    _end_to_end(simkit.get_rules("douque"), engine_runs(args.matches), args.seed, args.repeat, rec)


def _end_to_end(rules, runs, seed: int, repeat: int, rec=None) -> None:
    """The Parquet share of a run: ``simkit.simulate`` into Parquet shards in a temporary directory
    (one process, default chunking) against ``simulate_matches`` alone on the same matches, the two
    measured alternately in this process (best of ``repeat`` each), for each ``(pair, matches)`` of
    ``runs``.

    The Parquet share is the time of the best run spent in the Parquet path, timed directly
    (``datasets.rows_to_batch``: the Arrow columns and the notation; ``datasets.write_shard``: LZ4 Parquet and
    fsync), over the run's time. Beside it, ``1 - engine time / run time``: everything the run does
    besides playing (the Parquet path, the manifest, checks, the engine in 500-match calls); on a
    busy machine this difference of two timings is the noisier figure.
    """
    import tempfile
    from pathlib import Path

    from simkit import datasets
    from simkit.play.matches import simulate_matches
    from simkit.runs.simulation import simulate

    spent = {"columns": 0.0, "file": 0.0}

    def timed(fn, key):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[key] += time.perf_counter() - t0

        return wrapper

    print(
        f"\n  end to end: simkit.simulate to Parquet (temp dir, 1 process) vs the engine alone, same matches, "
        f"measured alternately, best of {repeat}"
    )
    print(
        f"  {'run':<38} {'engine only':>14} {'to Parquet':>14} {'Parquet share':>14}   "
        "(of which Arrow columns, Parquet file; run minus engine)"
    )
    originals = datasets.rows_to_batch, datasets.write_shard
    datasets.rows_to_batch, datasets.write_shard = timed(originals[0], "columns"), timed(originals[1], "file")
    try:
        for pair, n_matches in runs:
            best_engine = best_run = float("inf")
            parts = (0.0, 0.0)
            with tempfile.TemporaryDirectory() as tmp:
                simulate(Path(tmp) / "warm", rules=rules, policies=pair, matches=1, seed=seed)
                for i in range(repeat):
                    t0 = time.perf_counter()
                    hands = len(simulate_matches(rules, pair, n_matches, seed=seed)["match"])
                    best_engine = min(best_engine, time.perf_counter() - t0)
                    spent.update(columns=0.0, file=0.0)
                    t0 = time.perf_counter()
                    result = simulate(Path(tmp) / f"run{i}", rules=rules, policies=pair, matches=n_matches, seed=seed)
                    elapsed = time.perf_counter() - t0
                    if elapsed < best_run:
                        best_run, parts = elapsed, (spent["columns"], spent["file"])
            if result.rows != hands:
                raise SystemExit(f"bench: simulate wrote {result.rows} rows, the engine returned {hands}")
            share = sum(parts) / best_run
            label = f"{pair[0]} vs {pair[1]}, {n_matches:,} matches"
            print(
                f"  {label:<38} {_fmt(hands / best_engine):>14} {_fmt(hands / best_run):>14} {share:>13.1%}"
                f"   ({parts[0] / best_run:.1%}, {parts[1] / best_run:.1%}; {1 - best_engine / best_run:.1%})"
            )
            if rec is not None:
                params = dict(rules=rules.name, pair=f"{pair[0]} vs {pair[1]}", matches=n_matches)
                rec.add("whole hands/s, engine only", hands / best_engine, "hands/s", n=hands, **params)
                rec.add("whole hands/s, to Parquet", hands / best_run, "hands/s", n=hands, **params)
                rec.add("Parquet share", share, "fraction", n=hands, **params)
                rec.add("Arrow columns share", parts[0] / best_run, "fraction", n=hands, **params)
                rec.add("Parquet file share", parts[1] / best_run, "fraction", n=hands, **params)
                rec.add("run minus engine share", 1 - best_engine / best_run, "fraction", n=hands, **params)
    finally:
        datasets.rows_to_batch, datasets.write_shard = originals


if __name__ == "__main__":
    sys.exit(main_for(sys.modules[__name__]))
