"""The discard evaluation that greedy (``LIVE_TIES``), ``value`` (``LIVE_BEST``) and greedy's claims
(``LIVE_NONE``) run at every decision (``discard_eval_kernel``): ns per call on one thread, on
``--peer-hands`` positions per rule set (half dealt 14-tile hands, half ready hands with 0-4 exposed
melds plus a random tile, where many discards tie; each call's time includes folding its 34
shanten and live counts into a checksum, the same work on both sides). With ``--compare-python``,
side by side with another installation in ``--rounds`` alternating rounds of fresh processes (the
other python runs this file with ``--rates``: one JSON line), the same positions and answers.

Usage: ``python3 benchmarks/discards.py [--peer-hands 200000] [--repeat 3] [--seed 2026]
[--compare-python PY] [--rounds 3] [--rates] [--json OUT]``
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
from _common import main_for, run_neutral

FAMILY = "discards"
OPTIONS = ("peer_hands", "seed", "repeat", "compare_python", "rounds", "rates")


def run(args, rec) -> None:
    if args.rates:  # one side of the comparison: nothing but the JSON line
        import simkit

        rates = _discard_rates(args.peer_hands, args.seed, args.repeat)
        print(json.dumps({"simkit": os.path.dirname(simkit.__file__), **rates}))
        return
    _discard_section(args.compare_python, args.peer_hands, args.seed, args.repeat, args.rounds, rec)


_DISCARD_MODES = ("LIVE_TIES", "LIVE_BEST", "LIVE_NONE")


def _discard_positions(rules, n: int, seed: int):
    """``n`` positions of ``rules`` for the discard evaluation: half dealt 14-tile hands, half ready
    hands with 0-4 exposed melds plus a random tile of the tile set (at most 4 copies), where many
    discards tie; the copies seen are the hand's. (hands uint8[n, 34], melds int64[n], seen int64[n, 34])."""
    import simkit

    m = n // 2
    dealt, _ = simkit.deal_hands(m, seed=seed, rules=rules)
    rng = np.random.default_rng(seed)
    ks = rng.integers(0, 5, n - m)
    ready, _ = simkit.random_ready_hands(n - m, seed=seed + 1, rules=rules, n_melds=ks)
    kinds = np.asarray(rules.kinds)
    for i in range(len(ready)):
        room = kinds[ready[i, kinds] < 4]
        ready[i, room[rng.integers(len(room))]] += 1
    hands = np.concatenate([dealt, ready]).astype(np.uint8)
    melds = np.concatenate([np.zeros(m, np.int64), ks.astype(np.int64)])
    return hands, melds, hands.astype(np.int64)


def _discard_rates(n: int, seed: int, repeat: int) -> dict:
    """ns per ``discard_eval_kernel`` call on one thread, per rule set and live mode, best of
    ``repeat`` (compile excluded), and a checksum of every answer (shanten and live counts)."""
    import numba

    import simkit
    from simkit._jit import borrow
    from simkit.hand.shanten import LIVE_BEST, LIVE_NONE, LIVE_TIES, discard_eval_kernel
    from simkit.hand.tables import borrowed_hand_tables, hand_tables

    @numba.njit(cache=False)
    def run(hands, melds, seen, t, mode):  # pragma: no cover - compiled
        rows = borrow(hands)
        tb = borrowed_hand_tables(t)
        sh = np.empty(34, np.int64)
        live = np.empty(34, np.int64)
        total = 0
        for i in range(rows.shape[0]):
            total += discard_eval_kernel(rows[i], melds[i], tb, seen[i], sh, live, mode)
            for k in range(34):
                total = (total * 31 + sh[k] * 7 + live[k]) % 1000000007
        return total

    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    rates = {}
    try:
        for name in ("douque", "night_market", "duel", "for_two"):
            rules = simkit.get_rules(name)
            t = hand_tables(rules)
            hands, melds, seen = _discard_positions(rules, n, seed)
            for mode_name in _DISCARD_MODES:
                mode = np.int64({"LIVE_TIES": LIVE_TIES, "LIVE_BEST": LIVE_BEST, "LIVE_NONE": LIVE_NONE}[mode_name])
                check = run(hands[:8], melds[:8], seen[:8], t, mode)  # compile
                best = float("inf")
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    check = run(hands, melds, seen, t, mode)
                    best = min(best, time.perf_counter() - t0)
                rates[f"{name} {mode_name}"] = (best / n * 1e9, int(check))
    finally:
        numba.set_num_threads(threads)
    return rates


def _discard_section(other_python: str | None, n: int, seed: int, repeat: int, rounds: int, rec=None) -> None:
    """The discard evaluation's ns per call (:func:`_discard_rates`) in this installation, or side
    by side with ``other_python``'s in ``rounds`` alternating rounds of fresh processes (best of all
    rounds; the two must give the same answers), with the ratio other / this."""
    # run_neutral: not the checkout, the child must import its own installation's simkit
    pythons = [sys.executable] + ([other_python] if other_python else [])
    best: dict = {}
    where = {}
    for _ in range(rounds if other_python else 1):
        for python in pythons:
            out = run_neutral(
                [
                    python,
                    os.path.abspath(__file__),
                    "--rates",
                    "--peer-hands",
                    str(n),
                    "--seed",
                    str(seed),
                    "--repeat",
                    str(repeat),
                ]
            )
            record = json.loads(out.strip().splitlines()[-1])
            where[python] = record.pop("simkit")
            for key, (ns, check) in record.items():
                old = best.get((python, key))
                best[(python, key)] = (min(ns, old[0]) if old else ns, check)
    print(
        f"\n  discard evaluation (discard_eval_kernel), one thread, {n:,} positions per rule set "
        f"(half dealt, half ready + a tile with 0-4 melds), ns per call, best of {repeat}"
        + (f" in each of {rounds} alternating rounds of fresh processes" if other_python else "")
    )
    if other_python:
        print(f"  this simkit ({where[sys.executable]}) vs {where[other_python]}")
    print(f"  {'rule set, live mode':<38} {'this':>10}" + (f" {'other':>10} {'ratio':>9}" if other_python else ""))
    for name in ("douque", "night_market", "duel", "for_two"):
        for mode_name in _DISCARD_MODES:
            key = f"{name} {mode_name}"
            ours, check = best[(sys.executable, key)]
            line = f"  {key:<38} {ours:>10.0f}"
            params = dict(rules=name, mode=mode_name)
            if rec is not None:
                rec.add("discard evaluation, this", ours, "ns/call", n=n, **params)
            if other_python:
                theirs, other_check = best[(other_python, key)]
                if other_check != check:
                    raise SystemExit(f"bench: the two installations' discard evaluations differ on {key}")
                line += f" {theirs:>10.0f} {theirs / ours:>8.3f}x"
                if rec is not None:
                    rec.add("discard evaluation, other", theirs, "ns/call", n=n, **params)
                    rec.add("discard evaluation, other / this", theirs / ours, "ratio", n=n, **params)
            print(line)


if __name__ == "__main__":
    sys.exit(main_for(sys.modules[__name__]))
