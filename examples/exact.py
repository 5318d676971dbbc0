"""Exact values of late positions: rollouts converging to them, and a race draw by draw.

Left: the three best discards of a late douque position (a declared opponent, two drawable
tiles), their rollout means with 95% intervals as the rollouts grow (one seed, so each count
extends the one before), and their exact values (:func:`simkit.exact`). Right: the race of two
declared douque hands (:func:`simkit.race`), summed over the opponent's ready hands: each
player's chance to win at each draw, and the chance the hand gets there.

Usage::

    python3 examples/exact.py [--figure docs/figures/exact.png]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import simkit
from simkit.play.exact import completions

LATE = (
    "douque: hand 13577m133456z; drawn 6z; melds pung 444m; opponent_melds pung 333m; river 5z 5z 1p 6m 8m 8m "
    "1m 1m 6z 3z 3m* 8m 7m 5z 4z 9m 2z 9p; opponent_river 2z 2m 1p 4z 4m* 1z 5m 2m 6m 4m 4z 1p 6z 8m 3z 7z 2z "
    "9p 9p; tiles_left 2; not_dealer; phase draw; stable_wall; opponent_declared_at 12; opponent_declared 1"
)
RACE = (
    "douque: hand 224447789m55z; drawn 7m; melds pung 111m; opponent_melds pung 666m, pung 222z; river 1p 1z 3z "
    "4z 6m* 9m 6m 7z 3z 2z* 9p 6z 9m 4m 7m 3m 6z 2z; opponent_river 1z 3z 4z 6z 3m 3m 1m* 1p 6z 7m 4z 9p 1p 7z "
    "1z 9p 1p 3z; tiles_left 4; dealer; phase draw; stable_wall; declared_at 7; opponent_declared_at 9; "
    "declared 1; opponent_declared 1"
)
COUNTS = (250, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--figure", default="docs/figures/exact.png")
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args(argv)
    pos = simkit.Position.from_string(LATE)
    t0 = time.perf_counter()
    ex = simkit.exact(pos)
    print(f"exact: {completions(pos)}, {ex.attrs['playouts']:,} hands played in {time.perf_counter() - t0:.1f} s")
    print(ex[["action", "mean", "win_rate", "deal_in_rate", "draw_rate"]].head(5).to_string(index=False))
    best = list(ex["action"][:3])
    trace = {a: [] for a in best}
    for n in COUNTS:
        ro = simkit.rollouts(pos, n=n, actions=best, seed=args.seed).set_index("action")
        for a in best:
            trace[a].append((ro.loc[a, "mean"], ro.loc[a, "mean_low"], ro.loc[a, "mean_high"]))
    print("\nrollouts (mean [95%]) against the exact value, by number of rollouts:")
    for a in best:
        exact_value = float(ex.set_index("action").loc[a, "mean"])
        cells = ", ".join(f"{n:,}: {m:.2f} [{lo:.2f}, {hi:.2f}]" for n, (m, lo, hi) in zip(COUNTS, trace[a]))
        print(f"  {a} (exact {exact_value:.3f}): {cells}")
    t0 = time.perf_counter()
    race = simkit.race(RACE)
    print(f"\n{race}\n({race.playouts:,} playouts in {time.perf_counter() - t0:.1f} s)")
    print(race.turns.to_string(index=False, float_format=lambda x: f"{x:.4f}"))

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12.5, 4.4), layout="constrained")
    for i, a in enumerate(best):
        m, lo, hi = (np.array(x) for x in zip(*trace[a]))
        shift = np.array(COUNTS) * (1 + 0.06 * (i - 1))  # side by side, not on top of each other
        left.errorbar(shift, m, yerr=[m - lo, hi - m], fmt="o", ms=4, capsize=2, color=f"C{i}", label=a)
        left.axhline(float(ex.set_index("action").loc[a, "mean"]), color=f"C{i}", ls="--", lw=1)
    left.set_xscale("log")
    left.set_xlabel("rollouts per action")
    left.set_ylabel("expected result, points per hand")
    left.set_title(f"late douque position: rollouts (95%) and exact values (dashed)\n{completions(pos)}", fontsize=9)
    left.legend(fontsize=8)
    t = race.turns
    x = np.arange(len(t))
    viewer = t["self_draw"] + t["on_discard"]
    opponent = t["opponent_self_draw"] + t["opponent_on_discard"]
    right.bar(x - 0.2, viewer, 0.4, label=f"viewer wins ({race.win:.1%})")
    right.bar(x + 0.2, opponent, 0.4, label=f"opponent wins ({race.opponent_win:.1%})")
    right.plot(x, t["reached"], "k.-", lw=1, label="hand reaches this draw")
    right.set_xticks(x, list(t["draw"][:-1]) + ["exhaustive\ndraw"])
    right.set_xlabel("draw (0: the tile the viewer holds)")
    right.set_ylabel("probability")
    right.set_title(
        f"race of two declared douque hands, {race.opponent_hands} opponent hands\n"
        f"exhaustive draw {race.draw:.1%}, viewer's expected result {race.mean:+.1f} points",
        fontsize=9,
    )
    right.legend(fontsize=8)
    fig.savefig(args.figure, dpi=110)
    print(f"\nfigure: {args.figure}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
