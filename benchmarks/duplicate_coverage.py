"""Coverage of compare's 95% intervals at a true difference of 0: the clustered and the bootstrap.

Two policies with the same law play one duplicate run with the luck correction: ``random`` and
``mirrored_random`` (below: uniform over the legal actions too, but the ``j``-th draw picks the
``j``-th legal action from the end), so A - B is 0 in expectation while the copies of a match
do not mirror each other (two labels of ``random`` would play the same games and give 0 exactly).
The run is split into independent blocks of ``size`` consecutive matches; on each block the
luck-corrected A - B per hand gets the clustered interval and the percentile match bootstrap,
and the table gives the share of blocks whose interval holds 0, with a Wilson 95% interval of that
share (the coverage's own uncertainty; few blocks at large sizes leave it wide).

    python3 benchmarks/duplicate_coverage.py --matches 8000 --sizes 100,300,1000

The luck correction's value table is fitted once on the whole run (cross-fitted by match parity),
so the blocks share it; it is a fixed function of 8,000 matches' draws.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import simkit
from simkit import analysis as A
from simkit.analysis.bootstrap import match_bootstrap
from simkit.engine import actions as ACT
from simkit.engine.rng import bounded
from simkit.stats import wilson_interval


@simkit.jit
def mirrored_random(view, legal, params, rng):  # pragma: no cover - compiled
    """Uniform over the legal actions, as ``random``, but draw ``j`` takes the ``j``-th from the end."""
    n = 0
    for a in range(ACT.N_ACTIONS):
        if legal[a]:
            n += 1
    j = n - 1 - bounded(rng, n)
    for a in range(ACT.N_ACTIONS):
        if legal[a]:
            if j == 0:
                return a
            j -= 1
    return -1


def coverage(totals, hands, size, resamples, seed):
    """Per block of ``size`` matches: (clustered holds 0, bootstrap holds 0, z of the estimate)."""
    rows = []
    for b in range(len(totals) // size):
        part = slice(b * size, (b + 1) * size)
        mean, low, high = A.clustered_mean(totals[part], hands[part])
        _, b_low, b_high = match_bootstrap(totals[part], hands[part], resamples=resamples, seed=seed + b)
        se = (high - low) / (2 * 1.959963984540054)
        rows.append((low <= 0 <= high, b_low <= 0 <= b_high, mean / se if se > 0 else 0.0))
    return np.array(rows, dtype=np.float64).reshape(-1, 3)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--matches", type=int, default=8000, help="matches of the one duplicate run (default 8,000)")
    p.add_argument("--sizes", default="100,300,1000", help="block sizes in matches (default 100,300,1000)")
    p.add_argument("--rules", default="douque")
    p.add_argument("--deal", default="seat", help="the run's deal (seat or dealer; default seat)")
    p.add_argument("--seed", type=int, default=0, help="seed of the run (the bootstrap's seeds follow it)")
    p.add_argument("--resamples", type=int, default=2000, help="bootstrap resamples per block (default 2,000)")
    p.add_argument("--out", default=None, help="the run's directory (default: a temporary one)")
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    args = p.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out) if args.out else Path(tmp) / "coverage"
        simkit.simulate(
            out,
            policies=("random", "mirror=duplicate_coverage:mirrored_random"),
            matches=args.matches,
            seed=args.seed,
            duplicate=True,
            rules=args.rules,
            deal=args.deal,
        )
        comparison = A.compare(out, correct_luck=True)
    totals = comparison.match_totals["total"].to_numpy()
    hands = comparison.match_totals["hands"].to_numpy()
    table = []
    for size in sizes:
        rows = coverage(totals, hands, size, args.resamples, args.seed)
        n = len(rows)
        entry = {"size": size, "blocks": n}
        for name, col in (("clustered", 0), ("bootstrap", 1)):
            k = int(rows[:, col].sum())
            low, high = wilson_interval(k, n) if n else (float("nan"), float("nan"))
            entry[name] = {"covered": k, "share": k / n if n else float("nan"), "low": low, "high": high}
        entry["max_abs_z"] = float(np.abs(rows[:, 2]).max()) if n else float("nan")
        table.append(entry)
    seconds = time.perf_counter() - t0
    head = (
        f"{args.rules}, random vs mirrored_random in duplicate (deal {args.deal}), luck corrected: "
        f"{args.matches:,} matches, {int(hands.sum()):,} hands, seed {args.seed}; {args.resamples:,} "
        f"bootstrap resamples per block; {seconds:.0f} s"
    )
    if args.json:
        print(json.dumps({"run": head, "table": table}, indent=1))
        return 0
    print(head)
    print(
        "| matches per block | blocks | clustered 95% holds 0 [Wilson 95%] | bootstrap 95% holds 0 [Wilson 95%] | largest abs z |"
    )
    print("|---:|---:|---:|---:|---:|")
    for e in table:
        cells = [
            f"{e[k]['share']:.0%} ({e[k]['covered']}/{e['blocks']}) [{e[k]['low']:.0%}, {e[k]['high']:.0%}]"
            for k in ("clustered", "bootstrap")
        ]
        print(f"| {e['size']:,} | {e['blocks']} | {cells[0]} | {cells[1]} | {e['max_abs_z']:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
