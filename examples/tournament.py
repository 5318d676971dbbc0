"""Round robin of the built-in policies in duplicate play, in every rule set.

Plays every pair of ``--policies`` (default: random, greedy, value) as ``--duplicate`` runs of
``--matches`` matches in every rule set of ``--rules`` (:func:`simkit.tournament.round_robin`; runs
under ``--out``, reused when complete, finished when interrupted), prints per rule set the matrix of
the row policy's result minus the column's per hand with 95% intervals clustered by match, the pair
table, and what each rule set rewards (the items where ``value`` outscores ``greedy`` most), and
saves the heat map (``--figure``).

Usage::

    python3 examples/tournament.py [--matches 2000] [--seed 0] [--rules douque,night_market,duel,for_two]
                                  [--policies random,greedy,value] [--out data/tournament]
                                  [--figure notebooks/figures/tournament.png]
"""

from __future__ import annotations

import argparse
import time

from simkit.policies.spec import split_policies
from simkit.tournament import POLICIES, RULE_SETS, item_edges, plot_tournament, round_robin


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=2000, help="duplicate matches per pair and rule set")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rules", default=",".join(RULE_SETS))
    ap.add_argument(
        "--policies", default=",".join(POLICIES), help="policies in the command line's syntax, comma-separated"
    )
    ap.add_argument("--out", default="data/tournament", help="directory of the runs")
    ap.add_argument("--figure", default=None, help="save the heat map here (PNG)")
    ap.add_argument("--progress", action="store_true")
    args = ap.parse_args(argv)
    rules = [r.strip() for r in args.rules.split(",") if r.strip()]
    policies = split_policies(args.policies)
    t0 = time.perf_counter()
    t = round_robin(policies, rules, matches=args.matches, seed=args.seed, directory=args.out, progress=args.progress)
    print(
        f"round robin of {', '.join(t.policies)}: {args.matches:,} duplicate matches per pair, seed {args.seed} "
        f"({time.perf_counter() - t0:.0f} s)"
    )
    for r in t.rules:
        print(f"\n{r}: row policy's result minus the column's, per hand [95% interval, clustered by match]")
        mean, low, high = t.matrix(r, "mean"), t.matrix(r, "low"), t.matrix(r, "high")
        width = max(len(p) for p in t.policies) + 2
        print(" " * width + "".join(f"{p:>34}" for p in t.policies))
        for a in t.policies:
            cells = []
            for b in t.policies:
                cells.append("-" if a == b else f"{mean.loc[a, b]:+.3f} [{low.loc[a, b]:+.3f}, {high.loc[a, b]:+.3f}]")
            print(f"{a:<{width}}" + "".join(f"{c:>34}" for c in cells))
    pairs = t.table[t.table["mean"] >= 0][
        ["rules", "policy", "opponent", "mean", "low", "high", "hands", "variance_reduction"]
    ]
    print("\npairs (the winner first):")
    print(pairs.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    if "value" in t.policies and "greedy" in t.policies:
        edges = item_edges(t, "value", "greedy", top=5)
        print(
            "\nwhat each rule set rewards: the items where value's and greedy's scoring differ most "
            "(value per hand = the item's tai/fan/points summed over the policy's wins / its hands)"
        )
        print(edges.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    if args.figure:
        import matplotlib

        matplotlib.use("Agg")
        axes = plot_tournament(t)
        axes[0].figure.savefig(args.figure, dpi=110)
        print(f"\nheat map: {args.figure}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
