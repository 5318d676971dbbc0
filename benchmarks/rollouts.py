"""Rollouts per second of ``simkit.rollouts`` from an early and a late douque position (greedy
continuations to the end of the hand, all threads, best of ``--repeat``, compile excluded).

Usage: ``python3 benchmarks/rollouts.py [--rollouts 20000] [--repeat 3] [--json OUT]``
"""

from __future__ import annotations

import sys
import time

from _common import fmt as _fmt
from _common import main_for

FAMILY = "rollouts"
OPTIONS = ("rollouts", "repeat")


def run(args, rec) -> None:
    _rollout_rates(args.rollouts, args.repeat, rec)


#: The rollout section's positions: early (the dealer's first decision, 14 different kinds, so 14
#: candidate discards) and late (1-shanten after a draw, 22 tiles left; from a greedy match).
ROLLOUT_POSITIONS = {
    "early (first discard, 14 candidates)": "douque: hand 1357m19p1234567z9m; drawn 9m; dealer",
    "late (1-shanten, 22 tiles left)": (
        "douque: hand 1456789m2556677z; drawn 1m; opponent_melds pung 999p; river 9p* 1z 5m 6m 9m 1z 3m 5m; "
        "opponent_river 1p 1z 2z 1z 1m 4z 4z 2z; tiles_left 22; dealer; phase draw; stable_wall"
    ),
}


def _rollout_rates(n: int, repeat: int, rec=None) -> None:
    """Rollouts per second (one continuation of one action, played to the end of the hand by
    greedy against greedy, on all threads) from an early and a late douque position, best of
    ``repeat``; compile excluded."""
    import simkit

    print(
        f"\n  rollouts: simkit.rollouts, greedy continuations to the end of the hand, {n:,} per action, "
        f"all threads, best of {repeat}"
    )
    for label, text in ROLLOUT_POSITIONS.items():
        try:
            pos = simkit.Position.from_string(text)
        except simkit.SimkitError as exc:
            print(f"  {label:<38} position refused: {exc}")
            continue
        simkit.rollouts(pos, n=8)  # compile or load
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            df = simkit.rollouts(pos, n=n)
            best = min(best, time.perf_counter() - t0)
        total = n * len(df)
        print(f"  {label:<38} {_fmt(total / best):>14}   ({len(df)} actions, {best * 1e6 / total:.1f} us per rollout)")
        if rec is not None:
            rec.add(f"rollouts/s, {label}", total / best, "rollouts/s", n=total, position=text, per_action=n)
    print(
        "  peers (published, not measured here): RiichiEnv's port of nekobean's riichi expected-score calculator, "
        "18 us at tenpai and 129 us at 2-shanten per call: one player, no opponent, an exact recursion over "
        "draws; a simkit rollout plays both players to the end of the hand under the rule set's scoring."
    )


if __name__ == "__main__":
    sys.exit(main_for(sys.modules[__name__]))
