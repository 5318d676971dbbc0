"""Scored winning hands/s of every rule set's batch kernel: random complete hands (no melds), a
random winning tile from the hand, self-drawn or not; douque through its tai kernel (best split,
single wait, items, random winds), night_market, duel (fan kernels) and for_two (combination
points) each on its own tile set (random self-draw and last-tile flags). Compile excluded.

With ``--compare-python``, side by side with another installation: ``--rounds`` rounds of
alternating fresh processes (the other python runs this file with ``--rates`` against its own
simkit, which prints one JSON line), the best of each and the ratio.

Usage: ``python3 benchmarks/scoring.py [--n 2000000] [--repeat 3] [--seed 2026]
[--compare-python PY] [--rounds 3] [--rates] [--json OUT]``
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
from _common import best as _best
from _common import fmt as _fmt
from _common import main_for, run_neutral

FAMILY = "scoring"
OPTIONS = ("n", "seed", "repeat", "compare_python", "rounds", "rates")


def run(args, rec) -> None:
    if args.rates:  # one side of the comparison: nothing but the JSON line
        import simkit

        rates = _scoring_rates(args.n, args.seed, args.repeat)
        print(json.dumps({"simkit": os.path.dirname(simkit.__file__), **rates}))
        return
    if args.compare_python:
        _scoring_side_by_side(args.compare_python, args.n, args.seed, args.repeat, args.rounds, rec)
        return
    rates = _scoring_rates(args.n, args.seed, args.repeat)
    print(f"\n  scoring: {args.n:,} random complete hands per figure, best of {args.repeat}")
    print(f"  {'scored winning hands':<38} {'this':>14}")
    for name, rate in rates.items():
        print(f"  {name:<38} {_fmt(rate):>14}")
        rec.add("scored winning hands/s", rate, "hands/s", n=args.n, rules=name)


def _douque_scoring(rules, t, n: int, seed: int):
    """The douque scoring workload: ``(score_all(m=n), hand_tai)``, where ``score_all`` scores the
    first ``m`` of ``n`` random complete hands (no melds, a random winning tile from the hand,
    self-drawn or not, random seat and prevailing winds) through the tai batch kernel."""
    import simkit
    from simkit.scoring import douque as douque_scoring

    complete = simkit.random_complete_hands(n, seed=seed, rules=rules)
    rng = np.random.default_rng(seed)
    cum = complete.cumsum(axis=1)
    win_tile = (cum <= rng.integers(0, 14, n)[:, None]).sum(axis=1).astype(np.int64)
    s_melds = np.zeros((n, 4, 2), np.int64)
    s_k = np.zeros(n, np.int64)
    s_self = rng.random(n) < 0.5
    s_false = np.zeros(n, np.bool_)
    s_zero = np.zeros(n, np.int64)
    s_seat = rng.choice([27, 29], n).astype(np.int64)
    s_prev = rng.integers(27, 31, n).astype(np.int64)
    s_items = np.zeros((n, douque_scoring.N_ITEMS), np.int16)
    s_tai = np.zeros(n, np.int16)
    s_params = douque_scoring.params_of(rules)

    def score_all(m=n):
        douque_scoring.score_batch_kernel(
            complete[:m],
            win_tile[:m],
            s_melds[:m],
            s_k[:m],
            s_self[:m],
            s_false[:m],
            s_false[:m],
            s_false[:m],
            s_zero[:m],
            s_zero[:m],
            s_seat[:m],
            s_prev[:m],
            t,
            s_params,
            s_items[:m],
            s_tai[:m],
        )

    return score_all, s_tai


def _scoring_rates(n: int, seed: int, repeat: int) -> dict:
    """Scored hands/s of every rule set's batch kernel in this process (the workloads of the kernels
    table: :func:`_douque_scoring` and :func:`_rule_set_scoring_rates`), compile excluded."""
    import simkit
    from simkit.hand.tables import hand_tables

    rules = simkit.get_rules("douque")
    score_all, tai = _douque_scoring(rules, hand_tables(rules), n, seed)
    score_all(8)
    rates = {"douque": n / _best(score_all, repeat)}
    if (tai < 0).any():
        raise SystemExit("bench: a generated hand was not complete")
    rates.update(_rule_set_scoring_rates(n, seed, repeat))
    return rates


def _scoring_side_by_side(other_python: str, n: int, seed: int, repeat: int, rounds: int, rec=None) -> None:
    """Scored hands/s per rule set of this installation and another one (``other_python``, which
    runs this script's :func:`_scoring_rates` against its own simkit), in alternating fresh
    processes, ``rounds`` rounds of best-of-``repeat`` each; the best of all, and the ratio."""
    # run_neutral: not the checkout, the child must import its own installation's simkit
    best: dict = {}
    where = {}
    for _ in range(rounds):
        for python in (sys.executable, other_python):
            out = run_neutral(
                [
                    python,
                    os.path.abspath(__file__),
                    "--rates",
                    "--n",
                    str(n),
                    "--seed",
                    str(seed),
                    "--repeat",
                    str(repeat),
                ]
            )
            record = json.loads(out.strip().splitlines()[-1])
            where[python] = record.pop("simkit")
            for name, rate in record.items():
                best[(python, name)] = max(best.get((python, name), 0.0), rate)
    print(f"\n  scoring side by side: this simkit ({where[sys.executable]}) vs {where[other_python]}")
    print(
        f"  {n:,} random complete hands per figure; {rounds} alternating rounds of fresh processes, best of {repeat} each"
    )
    print(f"  {'scored winning hands':<38} {'this':>14} {'other':>14} {'ratio':>9}")
    for name in ("douque", "night_market", "duel", "for_two"):
        ours, theirs = best[(sys.executable, name)], best[(other_python, name)]
        print(f"  {name:<38} {_fmt(ours):>14} {_fmt(theirs):>14} {ours / theirs:>8.3f}x")
        if rec is not None:
            params = dict(rules=name, rounds=rounds)
            rec.add("scored winning hands/s, this", ours, "hands/s", n=n, **params)
            rec.add("scored winning hands/s, other", theirs, "hands/s", n=n, **params)
            rec.add("scored winning hands/s, this / other", ours / theirs, "ratio", n=n, **params)


def _rule_set_scoring_rates(n: int, seed: int, repeat: int) -> dict:
    """Scored hands/s of the night_market, duel and for_two kernels: random complete hands of each
    tile set (no melds), a random winning tile from the hand, random self-draw / last-tile flags.
    Each kernel is compiled (or loaded) on 8 hands first, outside the timing."""
    import simkit
    from simkit.hand.tables import hand_tables
    from simkit.scoring import duel, for_two, night_market

    rates = {}
    for name, module in (("night_market", night_market), ("duel", duel), ("for_two", for_two)):
        rules = simkit.get_rules(name)
        t = hand_tables(rules)
        p = module.params_of(rules)
        hands = simkit.random_complete_hands(n, seed=seed, rules=rules)
        rng = np.random.default_rng(seed)
        win = (hands.cumsum(axis=1) <= rng.integers(0, 14, n)[:, None]).sum(axis=1).astype(np.int64)
        melds = np.zeros((n, 4, 2), np.int64)
        k = np.zeros(n, np.int64)
        self_drawn = rng.random(n) < 0.5
        last = self_drawn & (rng.random(n) < 0.1)
        false = np.zeros(n, np.bool_)
        items = np.zeros((n, module.N_ITEMS), module.ITEM_DTYPE)
        value = np.zeros(n, module.ITEM_DTYPE)
        if name == "night_market":

            def run(m=n):
                night_market.score_batch_kernel(
                    hands[:m],
                    win[:m],
                    melds[:m],
                    k[:m],
                    self_drawn[:m],
                    last[:m],
                    false[:m],
                    t,
                    p,
                    items[:m],
                    value[:m],
                )
        elif name == "duel":

            def run(m=n):
                duel.score_batch_kernel(
                    hands[:m],
                    win[:m],
                    melds[:m],
                    k[:m],
                    self_drawn[:m],
                    false[:m],
                    false[:m],
                    last[:m],
                    k[:m],
                    t,
                    p,
                    items[:m],
                    value[:m],
                )
        else:

            def run(m=n):
                for_two.score_batch_kernel(
                    hands[:m], win[:m], melds[:m], k[:m], self_drawn[:m], t, p, items[:m], value[:m]
                )

        run(8)
        rates[name] = n / _best(run, repeat)
        if (value < 0).any():
            raise SystemExit(f"bench: a generated {name} hand was not complete")
    return rates


if __name__ == "__main__":
    sys.exit(main_for(sys.modules[__name__]))
