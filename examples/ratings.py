"""Ratings of the built-in policies: a round robin of random, greedy and value in duplicate play,
payment ratings with 95% bootstrap intervals per rule set, and the figure of docs/ratings.md.

    python3 examples/ratings.py --matches 300 --figure docs/figures/ratings.png

Plays every pair (:func:`simkit.tournament.round_robin`; the runs go under ``--out``, reused when
complete), prints the matrices, the payment ratings (luck-corrected) and the Bradley-Terry ratings
of the deals won, and draws the payment ratings. Everything follows from the seeds: the same
command gives the same numbers on any machine.
"""

from __future__ import annotations

import argparse
import time

import matplotlib

from simkit.evaluation import plot_ratings
from simkit.tournament import round_robin


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=300, help="duplicate matches per pair and rule set")
    ap.add_argument("--seed", type=int, default=0, help="master seed of the runs")
    ap.add_argument("--rules", default="douque,duel")
    ap.add_argument("--policies", default="random,greedy,value")
    ap.add_argument("--out", default="data/tournament", help="directory of the runs")
    ap.add_argument("--figure", default=None, help="save the ratings plot here (PNG)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    t = round_robin(
        args.policies.split(","), args.rules.split(","), matches=args.matches, seed=args.seed, directory=args.out
    )
    played = time.perf_counter() - t0
    rated = t.ratings(n_boot=2000, seed=0)
    print(t.text(rated))
    print(f"\n(played in {played:.0f} s, rated in {time.perf_counter() - t0 - played:.0f} s)")
    deals = t.ratings(method="bradley_terry", n_boot=2000, seed=0)
    print("\nBradley-Terry ratings of the deals won (log-odds, mean zero):")
    print(deals.to_string(index=False, float_format=lambda x: f"{x:+.3f}"))
    if args.figure:
        matplotlib.use("Agg")
        axes = plot_ratings(rated)
        axes[0].figure.savefig(args.figure, dpi=110)
        print(f"\nfigure: {args.figure}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
