"""Built-in policies: whole hands/s of ``value`` against ``greedy`` in every rule set, beside greedy
against greedy on the same matches (whole matches, all threads, best of ``--repeat``).

Usage: ``python3 benchmarks/policies.py [--matches 2000] [--repeat 3] [--seed 2026] [--json OUT]``
"""

from __future__ import annotations

import sys
import time

from _common import fmt as _fmt
from _common import main_for

FAMILY = "policies"
OPTIONS = ("matches", "seed", "repeat")


def run(args, rec) -> None:
    _policy_rates(args.matches, args.seed, args.repeat, rec)


def _policy_rates(matches: int, seed: int, repeat: int, rec=None) -> None:
    """Whole hands/s (whole matches, all threads, best of ``repeat``) of value against greedy and of
    greedy against greedy on the same matches, per rule set; the first call of each compiles or
    loads, outside the timing."""
    from simkit.play.matches import simulate_matches

    print(
        f"\n  built-in policies: whole hands/s against greedy, {matches:,} matches per run (night_market, duel, for_two: "
        f"{matches // 2:,}), best of {repeat}"
    )
    print(f"  {'rule set':<14} {'value vs greedy':>16} {'greedy vs greedy':>17} {'ratio':>7}")
    for rules in ("douque", "night_market", "duel", "for_two"):
        n = matches if rules == "douque" else max(1, matches // 2)
        rates = {}
        for pair in (("value", "greedy"), ("greedy", "greedy")):
            simulate_matches(rules, pair, 1, seed=seed)
            best, hands = float("inf"), 0
            for _ in range(repeat):
                t0 = time.perf_counter()
                res = simulate_matches(rules, pair, n, seed=seed)
                best = min(best, time.perf_counter() - t0)
                hands = len(res["match"])
            rates[pair[0]] = hands / best
            if rec is not None:
                rec.add(
                    f"whole hands/s, {pair[0]} vs {pair[1]}", hands / best, "hands/s", n=hands, rules=rules, matches=n
                )
        print(
            f"  {rules:<14} {_fmt(rates['value']):>16} {_fmt(rates['greedy']):>17} {rates['value'] / rates['greedy']:>6.2f}x"
        )
        if rec is not None:
            rec.add("value / greedy", rates["value"] / rates["greedy"], "ratio", rules=rules, matches=n)


if __name__ == "__main__":
    sys.exit(main_for(sys.modules[__name__]))
