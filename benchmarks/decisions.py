"""The cost of the decision log (``simulate(..., decisions=True)``, ``--decisions``): the engine and
``simkit.simulate`` to Parquet on the same douque matches with and without it, measured
alternately; beside it the decisions per hand and the decision shards' bytes per decision.

Usage: ``python3 benchmarks/decisions.py [--matches 2000] [--repeat 3] [--seed 2026] [--json OUT]``
(random vs random plays a quarter of ``--matches``)
"""

from __future__ import annotations

import sys
import time

from _common import fmt as _fmt
from _common import main_for
from end_to_end import engine_runs

FAMILY = "decisions"
OPTIONS = ("matches", "seed", "repeat")


def run(args, rec) -> None:
    import simkit

    _decision_cost(simkit.get_rules("douque"), engine_runs(args.matches), args.seed, args.repeat, rec)


def _decision_cost(rules, runs, seed: int, repeat: int, rec=None) -> None:
    """The cost of the decision log (``simulate(..., decisions=True)``, ``--decisions``): the engine
    alone (``simulate_matches``) with and without ``decisions=True``, and ``simkit.simulate`` to
    Parquet (temp dir, 1 process, default chunking) with and without it, on the same matches, the
    variants measured alternately in this process (best of ``repeat`` each), for each
    ``(pair, matches)`` of ``runs``; the cost is ``time with / time without - 1``. Beside it: the
    decisions per hand and the decision shards' bytes per decision (LZ4 Parquet).
    """
    import tempfile
    from pathlib import Path

    from simkit.play.matches import simulate_matches
    from simkit.runs.simulation import simulate

    print(
        f"\n  decision log (--decisions): the same matches with and without it, measured alternately, best of {repeat}"
    )
    print(
        f"  {'run':<38} {'engine':>11} {'+ log':>11} {'cost':>7}   {'to Parquet':>11} {'+ log':>11} {'cost':>7}"
        "   decisions/hand, bytes/decision"
    )
    for pair, n_matches in runs:
        best = {}
        with tempfile.TemporaryDirectory() as tmp:
            for on in (False, True):  # compile or load every variant first
                simulate_matches(rules, pair, 1, seed=seed, decisions=on)
                simulate(Path(tmp) / f"warm{on}", rules=rules, policies=pair, matches=1, seed=seed, decisions=on)
            for i in range(repeat):
                for on in (False, True):
                    t0 = time.perf_counter()
                    res = simulate_matches(rules, pair, n_matches, seed=seed, decisions=on)
                    key = ("engine", on)
                    best[key] = min(best.get(key, float("inf")), time.perf_counter() - t0)
                    hands = len(res["match"])
                    if on:
                        n_decisions = len(res["decisions"]["match"])
                    del res
                for on in (False, True):
                    t0 = time.perf_counter()
                    out = Path(tmp) / f"run{i}{'d' if on else ''}"
                    result = simulate(out, rules=rules, policies=pair, matches=n_matches, seed=seed, decisions=on)
                    key = ("parquet", on)
                    best[key] = min(best.get(key, float("inf")), time.perf_counter() - t0)
                    if result.rows != hands:
                        raise SystemExit(f"bench: simulate wrote {result.rows} rows, the engine returned {hands}")
            size = sum(p.stat().st_size for p in (out / "_decisions").glob("part-*.parquet"))
        label = f"{pair[0]} vs {pair[1]}, {n_matches:,} matches"
        e0, e1, w0, w1 = best["engine", False], best["engine", True], best["parquet", False], best["parquet", True]
        print(
            f"  {label:<38} {_fmt(hands / e0):>11} {_fmt(hands / e1):>11} {e1 / e0 - 1:>7.1%}   "
            f"{_fmt(hands / w0):>11} {_fmt(hands / w1):>11} {w1 / w0 - 1:>7.1%}   "
            f"{n_decisions / hands:.1f}, {size / n_decisions:.1f}"
        )
        if rec is not None:
            params = dict(rules=rules.name, pair=f"{pair[0]} vs {pair[1]}", matches=n_matches)
            rec.add("whole hands/s, engine", hands / e0, "hands/s", n=hands, **params)
            rec.add("whole hands/s, engine + log", hands / e1, "hands/s", n=hands, **params)
            rec.add("decision log cost, engine", e1 / e0 - 1, "fraction", n=hands, **params)
            rec.add("whole hands/s, to Parquet", hands / w0, "hands/s", n=hands, **params)
            rec.add("whole hands/s, to Parquet + log", hands / w1, "hands/s", n=hands, **params)
            rec.add("decision log cost, to Parquet", w1 / w0 - 1, "fraction", n=hands, **params)
            rec.add("decisions per hand", n_decisions / hands, "decisions/hand", n=hands, repeat=1, **params)
            rec.add("bytes per decision", size / n_decisions, "bytes", n=n_decisions, repeat=1, **params)


if __name__ == "__main__":
    sys.exit(main_for(sys.modules[__name__]))
