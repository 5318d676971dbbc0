"""The cost of the decision log: the engine and ``simkit.simulate`` to Parquet on the same douque
matches without it, with the plain log (``decisions=True``, ``--decisions``) and with the
observation log (``decisions="observations"``, ``--decisions observations``), measured alternately;
beside them the decisions per hand and each log's bytes per decision.

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

#: the logs measured: (setting of ``decisions=``, the figures' word for it)
LOGS = ((True, "decision log"), ("observations", "observation log"))


def run(args, rec) -> None:
    import simkit

    _decision_cost(simkit.get_rules("douque"), engine_runs(args.matches), args.seed, args.repeat, rec)


def _decision_cost(rules, runs, seed: int, repeat: int, rec=None) -> None:
    """The cost of each decision log: the engine alone (``simulate_matches``) and ``simkit.simulate``
    to Parquet (temp dir, 1 process, default chunking) without a log and with each of
    :data:`LOGS`, on the same matches, the variants measured alternately in this process (best of
    ``repeat`` each), for each ``(pair, matches)`` of ``runs``; the cost is ``time with / time
    without - 1``. Beside it: the decisions per hand and each log's bytes per decision (its
    decision shards, LZ4 Parquet).
    """
    import tempfile
    from pathlib import Path

    from simkit.play.matches import simulate_matches
    from simkit.runs.simulation import simulate

    settings = (False, *(setting for setting, _ in LOGS))
    print(f"\n  decision logs: the same matches without and with each, measured alternately, best of {repeat}")
    print(
        f"  {'run':<38} {'log':<16} {'engine':>11} {'+ log':>11} {'cost':>7}   {'to Parquet':>11} {'+ log':>11} "
        f"{'cost':>7}   decisions/hand, bytes/decision"
    )
    for pair, n_matches in runs:
        best = {}
        size = {}
        with tempfile.TemporaryDirectory() as tmp:
            for setting in settings:  # compile or load every variant first
                simulate_matches(rules, pair, 1, seed=seed, decisions=setting)
                simulate(
                    Path(tmp) / f"warm{setting}", rules=rules, policies=pair, matches=1, seed=seed, decisions=setting
                )
            for i in range(repeat):
                for setting in settings:
                    t0 = time.perf_counter()
                    res = simulate_matches(rules, pair, n_matches, seed=seed, decisions=setting)
                    key = ("engine", setting)
                    best[key] = min(best.get(key, float("inf")), time.perf_counter() - t0)
                    hands = len(res["match"])
                    if setting:
                        n_decisions = len(res["decisions"]["match"])
                    del res
                for setting in settings:
                    t0 = time.perf_counter()
                    out = Path(tmp) / f"run{i}{setting}"
                    result = simulate(out, rules=rules, policies=pair, matches=n_matches, seed=seed, decisions=setting)
                    key = ("parquet", setting)
                    best[key] = min(best.get(key, float("inf")), time.perf_counter() - t0)
                    if result.rows != hands:
                        raise SystemExit(f"bench: simulate wrote {result.rows} rows, the engine returned {hands}")
                    if setting:
                        size[setting] = sum(p.stat().st_size for p in (out / "_decisions").glob("part-*.parquet"))
        label = f"{pair[0]} vs {pair[1]}, {n_matches:,} matches"
        e0, w0 = best["engine", False], best["parquet", False]
        params = dict(rules=rules.name, pair=f"{pair[0]} vs {pair[1]}", matches=n_matches)
        if rec is not None:
            rec.add("whole hands/s, engine", hands / e0, "hands/s", n=hands, **params)
            rec.add("whole hands/s, to Parquet", hands / w0, "hands/s", n=hands, **params)
            rec.add("decisions per hand", n_decisions / hands, "decisions/hand", n=hands, repeat=1, **params)
        for setting, word in LOGS:
            e1, w1 = best["engine", setting], best["parquet", setting]
            print(
                f"  {label:<38} {word:<16} {_fmt(hands / e0):>11} {_fmt(hands / e1):>11} {e1 / e0 - 1:>7.1%}   "
                f"{_fmt(hands / w0):>11} {_fmt(hands / w1):>11} {w1 / w0 - 1:>7.1%}   "
                f"{n_decisions / hands:.1f}, {size[setting] / n_decisions:.1f}"
            )
            if rec is not None:
                rec.add(f"whole hands/s, engine + {word}", hands / e1, "hands/s", n=hands, **params)
                rec.add(f"{word} cost, engine", e1 / e0 - 1, "fraction", n=hands, **params)
                rec.add(f"whole hands/s, to Parquet + {word}", hands / w1, "hands/s", n=hands, **params)
                rec.add(f"{word} cost, to Parquet", w1 / w0 - 1, "fraction", n=hands, **params)
                rec.add(
                    f"bytes per decision, {word}",
                    size[setting] / n_decisions,
                    "bytes",
                    n=n_decisions,
                    repeat=1,
                    **params,
                )


if __name__ == "__main__":
    sys.exit(main_for(sys.modules[__name__]))
