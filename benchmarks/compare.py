"""Before/after: the engine figures measured side by side with another installation of simkit
(``--compare-python``, e.g. the previous commit installed in a second venv), the same matches in
alternating fresh processes, and the ratio (against the closed-loop engine, which has no ``deal=``,
both sides play its games: ``deal="dealer"``, for_two ``fold_passes_deal=False``).

Usage: ``python3 benchmarks/compare.py --compare-python /path/to/other/venv/bin/python [--matches 2000]
[--repeat 3] [--seed 2026] [--json OUT]``
"""

from __future__ import annotations

import sys

from _common import fmt as _fmt
from _common import main_for, run_neutral

FAMILY = "compare"
OPTIONS = ("compare_python", "matches", "seed", "repeat")


def run(args, rec) -> None:
    if not args.compare_python:
        raise SystemExit("bench: the compare family needs --compare-python")
    _side_by_side(args.compare_python, args.matches, args.seed, args.repeat, rec)


_SIDE_BY_SIDE = """
import inspect, sys, time
import simkit
from simkit import simulate_matches
rules, a, b, n, seed, closed_loop = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1"
kw = {}
if closed_loop and "deal" in inspect.signature(simulate_matches).parameters:
    # the closed-loop engine's games: the dealer deals, and (for_two) a fold keeps the deal
    kw["deal"] = "dealer"
    if rules == "for_two":
        rules = simkit.get_rules(rules, fold_passes_deal=False)
if isinstance(rules, str) and rules == "for_two" and "bid_timing" in simkit.get_rules(rules).to_dict()["options"]:
    # for_two's rules as an installation without the bid before the deal and the end phase plays them
    rules = simkit.get_rules("for_two", bid_timing="after_deal", end_phase="plain_draw")
simulate_matches(rules, (a, b), 64, seed=seed, **kw)  # compile or load, and start the threads
t0 = time.perf_counter()
r = simulate_matches(rules, (a, b), n, seed=seed, **kw)
dt = time.perf_counter() - t0
print(len(r["match"]) / dt, len(r["match"]), float(r["score_0"].sum()))
"""

_HAS_DEAL = "import inspect; from simkit import simulate_matches; print(int('deal' in inspect.signature(simulate_matches).parameters))"


def _side_by_side(other_python: str, matches: int, seed: int, repeat: int, rec=None) -> None:
    """Engine throughput of this installation and another one on the same matches, in alternating
    fresh processes (engine load excluded), best of ``repeat`` each, and the ratio: random against
    random, greedy against greedy and value against greedy in every rule set (``value`` is called through
    its function pointer with the view every user policy gets, ``greedy`` as a built-in).

    Against the closed-loop engine (before the state machine: ``simulate_matches`` has no ``deal``),
    both play its games: the dealer deals the wall (``deal="dealer"``) and for_two's fold keeps the
    deal (``fold_passes_deal=False``). Equal hand counts and score sums are required either way."""

    # run_neutral: not the checkout, `python -c` imports from its working directory first
    def version(python):
        return run_neutral([python, "-c", "import simkit, os; print(os.path.dirname(simkit.__file__))"]).strip()

    def has_deal(python):
        return run_neutral([python, "-c", _HAS_DEAL]).strip() == "1"

    closed_loop = not (has_deal(sys.executable) and has_deal(other_python))
    print(
        f"\n  side by side: this simkit ({version(sys.executable)}) vs {version(other_python)}"
        + (" (the closed-loop engine's games: deal='dealer', for_two fold_passes_deal=False)" if closed_loop else "")
    )
    print(f"  {'run':<38} {'this':>14} {'other':>14} {'ratio':>9}")
    runs = []
    for rules in ("douque", "night_market", "duel", "for_two"):
        n = matches // 2 if rules == "for_two" else matches
        runs += [
            (rules, ("random", "random"), n),
            (rules, ("greedy", "greedy"), n),
            (rules, ("value", "greedy"), n // 2),
        ]
    for rules, pair, n in runs:
        best = {}
        sums = {}
        for _ in range(repeat):
            for python in (sys.executable, other_python):
                out = run_neutral(
                    [python, "-c", _SIDE_BY_SIDE, rules, *pair, str(n), str(seed), str(int(closed_loop))]
                ).split()
                best[python] = max(best.get(python, 0.0), float(out[0]))
                sums[python] = (out[1], out[2])
        if sums[sys.executable] != sums[other_python]:
            raise SystemExit(f"bench: the two installations played different games ({sums})")
        ours, theirs = best[sys.executable], best[other_python]
        label = f"{rules} {pair[0]} vs {pair[1]}, {n:,} matches"
        print(f"  {label:<38} {_fmt(ours):>14} {_fmt(theirs):>14} {ours / theirs:>8.3f}x")
        if rec is not None:
            params = dict(rules=rules, pair=f"{pair[0]} vs {pair[1]}", matches=n, closed_loop=closed_loop)
            hands = int(sums[sys.executable][0])
            rec.add("whole hands/s, this", ours, "hands/s", n=hands, **params)
            rec.add("whole hands/s, other", theirs, "hands/s", n=hands, **params)
            rec.add("whole hands/s, this / other", ours / theirs, "ratio", n=hands, **params)


if __name__ == "__main__":
    sys.exit(main_for(sys.modules[__name__]))
