"""How much each duplicate design narrows the interval of a paired comparison.

Plays greedy against greedy-without-declarations (douque by default) as ``--duplicate`` runs of
``--matches`` matches with each wall design -- the original deal (the dealer takes the wall's first
14 tiles), the deal "seat" on a shared wall (tiles follow the policies), and the deal "seat" with
stable walls -- through :func:`simkit.simulate` and :func:`simkit.analysis.compare`, and prints
per design the difference per hand and per match with their 95% intervals (clustered by match)
and the variance reduction of pairing (unpaired / paired variance; above 1 pairing helped). The
last design is then compared again with the luck of the draw removed (``compare(run,
correct_luck=True)``, :mod:`simkit.analysis.luck`): its variance reduction is that of pairing and
correction together, against independent runs without correction.

The last column is the variance reduction on hand 0 alone, where both copies are in step (same
dealer seat, streak and balances): with deterministic policies what is left there is what the
policies' different decisions make of the same tiles, so it bounds what any deal of the tiles can
achieve on this comparison -- without correcting the luck of the draws that follow.

Usage::

    python3 examples/bench_duplicate.py [--matches 5000] [--seed 0] [--rules douque] [--off declarations|kongs|claims]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import simkit
from simkit.analysis import compare
from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy

OFF = {"claims": 0, "declarations": 1, "kongs": 2}  #: greedy's parameters (GREEDY_DEFAULTS) turned off

DESIGNS = (
    ("dealer", "shared", "original deal (dealer takes 14)"),
    ("seat", "shared", "tiles follow the policies"),
    ("seat", "stable", "tiles follow the policies, stable walls"),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rules", default="douque")
    ap.add_argument(
        "--off",
        choices=tuple(OFF),
        default="declarations",
        help="what greedy's opponent does not do (default declarations: douque's Declare Ready)",
    )
    args = ap.parse_args()
    params = GREEDY_DEFAULTS.copy()
    params[OFF[args.off]] = 0.0
    other = (greedy_policy, params)
    print(f"greedy vs greedy without {args.off}, {args.rules}, {args.matches:,} duplicate matches, seed {args.seed}")
    print(
        f"{'design':<42}{'hands':>9}{'per hand [95% interval]':>28}{'per match [95% interval]':>30}"
        f"{'reduction':>11}{'per match':>11}{'hand 0':>8}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for deal, wall, name in DESIGNS:
            t0 = time.perf_counter()
            run = simkit.simulate(
                Path(tmp) / f"{deal}-{wall}",
                rules=args.rules,
                policies=("greedy", other),
                matches=args.matches,
                seed=args.seed,
                duplicate=True,
                deal=deal,
                wall=wall,
            )
            c = compare(run.path)
            _row(name, c, c, t0)
        t0 = time.perf_counter()
        _row("... and the luck of the draw removed", compare(run.path, correct_luck=True), c, t0)


def _row(name, c, raw, t0) -> None:
    """One design's line; ``raw``: the same run compared without correction (hand 0's unpaired variance)."""
    h0, r0 = c.deals[c.deals["hand"] == 0], raw.deals[raw.deals["hand"] == 0]
    hand0 = (r0["a_side"].var() + r0["b_side"].var()) / (h0["a_side"] + h0["b_side"]).var()
    ph, pm = c.per_hand, c.per_match
    print(
        f"{name:<42}{c.rows:>9,}{ph[0]:>9.2f} [{ph[1]:6.2f}, {ph[2]:6.2f}]{pm[0]:>11.1f} [{pm[1]:7.1f}, {pm[2]:7.1f}]"
        f"{c.per_hand_variance_reduction:>10.2f}x{c.per_match_variance_reduction:>10.2f}x{hand0:>7.2f}x"
        f"   ({time.perf_counter() - t0:.0f} s)",
        flush=True,
    )


if __name__ == "__main__":
    main()
