"""The batch-kernel and engine throughput table on the douque tile set, next to the PyPI ``mahjong``
package on the same hands (a subset, it is slower; single-threaded pure Python):

* win checks/s on dealt 14-tile hands;
* shanten/s on dealt 13-tile hands (and 14-tile);
* waits/s on ready 13-tile hands (random complete hands minus one tile);
* the public batch calls (``simkit.is_win_batch``, ``shanten_batch``, ``waits_batch``: every row
  checked) against those kernels on the same hands, as a ratio of times;
* deals/s of deal + dealer win check + non-dealer waits, fused in one kernel;
* scored winning hands/s of every rule set (the workloads of ``benchmarks/scoring.py``);
* full hands/s of the douque engine, greedy vs greedy and random vs random (whole matches,
  compile time reported separately), and greedy vs greedy for night_market, duel and for_two
  (whole matches of their default ``match_hands``).

simkit runs on all cores, as a user would run it. Each simkit figure is the best of ``--repeat`` runs.

Usage: ``python3 benchmarks/kernels.py [--n 2000000] [--peer-n 20000] [--matches 2000] [--repeat 3]
[--seed 2026] [--json OUT]``
"""

from __future__ import annotations

import sys
import time

import numpy as np
from _common import best as _best
from _common import fmt as _fmt
from _common import main_for
from scoring import _douque_scoring, _rule_set_scoring_rates

FAMILY = "kernels"
OPTIONS = ("n", "peer_n", "matches", "seed", "repeat")


def run(args, rec) -> None:
    import simkit
    from simkit._jit import threading_layer
    from simkit.engine.deal import deal_check_kernel, deal_hands, wall_template
    from simkit.hand.sample import random_ready_hands
    from simkit.hand.shanten import shanten_batch_kernel
    from simkit.hand.tables import hand_tables, load_tables
    from simkit.hand.waits import waits_batch_kernel
    from simkit.hand.win import is_win_batch_kernel

    rules = simkit.get_rules("douque")
    t0 = time.perf_counter()
    load_tables()
    t_tables = time.perf_counter() - t0
    t = hand_tables(rules)

    n = args.n
    dealer, other = deal_hands(n, seed=args.seed, rules=rules)
    ready, _ = random_ready_hands(n, seed=args.seed, rules=rules)
    k = np.zeros(n, np.int64)
    no_melds = np.zeros_like(other)
    out_b = np.empty(n, np.bool_)
    out_i = np.empty(n, np.int64)
    out_s = np.empty(n, np.int8)
    template = wall_template(rules)
    dw = np.empty(n, np.bool_)
    dk = np.empty(n, np.int8)
    ds = np.empty(0, np.int8)

    score_all, s_tai = _douque_scoring(rules, t, n, args.seed)

    # compile (or load from numba's cache) every kernel on a tiny input first
    t0 = time.perf_counter()
    is_win_batch_kernel(dealer[:8], k[:8], t, out_b[:8])
    waits_batch_kernel(ready[:8], k[:8], no_melds[:8], t, out_i[:8])
    shanten_batch_kernel(other[:8], k[:8], t, out_s[:8])
    deal_check_kernel(args.seed, 0, 8, template, t, False, dw, dk, ds, ds)
    score_all(8)
    t_compile = time.perf_counter() - t0
    print(f"  threading    numba layer {threading_layer()}")
    print(f"  start-up     tables {t_tables:.2f} s, kernels compile/load {t_compile:.2f} s (excluded below)")
    print(f"  workload     douque tile set (72 tiles); {n:,} hands per simkit figure, best of {args.repeat}")
    print()

    rows = []
    r_win = n / _best(lambda: is_win_batch_kernel(dealer, k, t, out_b), args.repeat)
    r_sh13 = n / _best(lambda: shanten_batch_kernel(other, k, t, out_s), args.repeat)
    r_sh14 = n / _best(lambda: shanten_batch_kernel(dealer, k, t, out_s), args.repeat)
    r_waits = n / _best(lambda: waits_batch_kernel(ready, k, no_melds, t, out_i), args.repeat)
    r_deal = n / _best(lambda: deal_check_kernel(args.seed, 0, n, template, t, False, dw, dk, ds, ds), args.repeat)
    api_ratios = _api_ratios(
        {
            "win": (lambda: is_win_batch_kernel(dealer, k, t, out_b), lambda: simkit.is_win_batch(dealer, rules=rules)),
            "shanten 13": (
                lambda: shanten_batch_kernel(other, k, t, out_s),
                lambda: simkit.shanten_batch(other, rules=rules),
            ),
            "shanten 14": (
                lambda: shanten_batch_kernel(dealer, k, t, out_s),
                lambda: simkit.shanten_batch(dealer, rules=rules),
            ),
            "waits": (
                lambda: waits_batch_kernel(ready, k, no_melds, t, out_i),
                lambda: simkit.waits_batch(ready, rules=rules),
            ),
        },
        args.repeat,
    )

    r_score = n / _best(score_all, args.repeat)
    if (s_tai < 0).any():
        raise SystemExit("bench: a generated hand was not complete")
    r_rule_sets = _rule_set_scoring_rates(n, args.seed, args.repeat)

    from simkit.play.matches import simulate_matches

    t0 = time.perf_counter()
    simulate_matches(rules, ("greedy", "greedy"), 1, seed=args.seed)
    simulate_matches(rules, ("random", "random"), 1, seed=args.seed)
    t_engine_compile = time.perf_counter() - t0
    engine = {}
    for pair, n_matches in ((("greedy", "greedy"), args.matches), (("random", "random"), max(1, args.matches // 4))):
        best, hands = float("inf"), 0
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            res = simulate_matches(rules, pair, n_matches, seed=args.seed)
            best = min(best, time.perf_counter() - t0)
            hands = len(res["match"])
        engine[pair] = (hands / best, hands, n_matches)
    engine_rule_sets = {}
    for name in ("night_market", "duel", "for_two"):
        t0 = time.perf_counter()
        simulate_matches(name, ("greedy", "greedy"), 1, seed=args.seed)
        t_engine_compile += time.perf_counter() - t0
        best, hands = float("inf"), 0
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            res = simulate_matches(name, ("greedy", "greedy"), args.matches, seed=args.seed)
            best = min(best, time.perf_counter() - t0)
            hands = len(res["match"])
        engine_rule_sets[name] = (hands / best, hands, args.matches)

    peer = _peer_rates(dealer, other, ready, args.peer_n)
    rows.append(("win checks (dealt 14 tiles)", r_win, peer.get("win")))
    rows.append(("shanten (dealt 13 tiles)", r_sh13, peer.get("shanten13")))
    rows.append(("shanten (dealt 14 tiles)", r_sh14, peer.get("shanten14")))
    rows.append(("waits (ready 13 tiles)", r_waits, peer.get("waits")))
    rows.append(("deal + dealer win + non-dealer waits", r_deal, None))
    rows.append(("scored winning hands (douque tai)", r_score, None))
    for name, rate in r_rule_sets.items():
        rows.append((f"scored winning hands ({name})", rate, None))
    for pair, (rate, _, _) in engine.items():
        rows.append((f"full hands, {pair[0]} vs {pair[1]}", rate, None))
    for name, (rate, _, _) in engine_rule_sets.items():
        rows.append((f"full hands, greedy ({name})", rate, None))

    print(f"  {'figure':<38} {'simkit':>14} {'mahjong pkg':>14} {'ratio':>9}")
    for name, ours, theirs in rows:
        ratio = f"{ours / theirs:,.0f}x" if theirs else "-"
        print(f"  {name:<38} {_fmt(ours):>14} {_fmt(theirs):>14} {ratio:>9}")
    for pair, (_, hands, n_matches) in engine.items():
        print(f"  engine: {pair[0]} vs {pair[1]}: {n_matches:,} whole matches ({hands:,} hands) per run")
    for name, (_, hands, n_matches) in engine_rule_sets.items():
        print(f"  engine: greedy vs greedy, {name}: {n_matches:,} whole matches ({hands:,} hands) per run")
    print(f"  engine compile/load (excluded): {t_engine_compile:.1f} s")
    print(
        "  public batch call / its kernel (the same hands, all threads, measured alternately; every row checked): "
        + ", ".join(f"{name} {ratio:.2f}x" for name, ratio in api_ratios.items())
    )
    if "error" in peer:
        print(f"\n  mahjong package not measured: {peer['error']}")
    else:
        print(
            f"\n  mahjong {peer['version']} on the first {args.peer_n:,} of the same hands, one thread: "
            "Agari.is_agari, Shanten.calculate_shanten_for_regular_hand, waits = is_agari over the 18 kinds."
        )
    if rec is not None:
        rec.add("tables load", t_tables, "s", repeat=1)
        rec.add("kernels compile/load", t_compile, "s", repeat=1)
        rec.add("engine compile/load", t_engine_compile, "s", repeat=1)
        for name, ours, theirs, key in zip(
            (
                "win checks (dealt 14 tiles)",
                "shanten (dealt 13 tiles)",
                "shanten (dealt 14 tiles)",
                "waits (ready 13 tiles)",
                "deal + dealer win + non-dealer waits",
            ),
            (r_win, r_sh13, r_sh14, r_waits, r_deal),
            [peer.get(k) for k in ("win", "shanten13", "shanten14", "waits")] + [None],
            ("win", "shanten13", "shanten14", "waits", None),
        ):
            rec.add(name, ours, "hands/s", n=n, rules="douque")
            if theirs:
                rec.add(
                    f"{name}, mahjong package",
                    theirs,
                    "hands/s",
                    n=args.peer_n,
                    repeat=1,
                    rules="douque",
                    version=peer["version"],
                )
        for name, rate in {"douque": r_score, **r_rule_sets}.items():
            rec.add("scored winning hands", rate, "hands/s", n=n, rules=name)
        for pair, (rate, hands, n_matches) in engine.items():
            rec.add(
                "full hands",
                rate,
                "hands/s",
                n=hands,
                rules="douque",
                pair=f"{pair[0]} vs {pair[1]}",
                matches=n_matches,
            )
        for name, (rate, hands, n_matches) in engine_rule_sets.items():
            rec.add("full hands", rate, "hands/s", n=hands, rules=name, pair="greedy vs greedy", matches=n_matches)
        for name, ratio in api_ratios.items():
            rec.add(f"public batch call / kernel, {name}", ratio, "ratio", n=n, rules="douque")


def _api_ratios(pairs: dict, repeat: int) -> dict:
    """For each ``name: (kernel call, public call)``, the best time of the public call over the best
    time of the kernel, the two called alternately ``repeat`` times (once each before, untimed)."""
    ratios = {}
    for name, (kernel, public) in pairs.items():
        kernel(), public()
        best = [float("inf"), float("inf")]
        for _ in range(repeat):
            for j, fn in enumerate((kernel, public)):
                t0 = time.perf_counter()
                fn()
                best[j] = min(best[j], time.perf_counter() - t0)
        ratios[name] = best[1] / best[0]
    return ratios


def _peer_rates(dealer, other, ready, m: int) -> dict:
    try:
        from importlib.metadata import version

        from mahjong.agari import Agari
        from mahjong.shanten import Shanten
    except ImportError as exc:  # the dev extra is not installed
        return {"error": str(exc)}
    kinds = [k for k in range(34) if dealer[:, k].any() or other[:, k].any()]
    d = [row.tolist() for row in dealer[:m]]
    o = [row.tolist() for row in other[:m]]
    r = [row.tolist() for row in ready[:m]]
    agari = Agari()
    shanten = Shanten.calculate_shanten_for_regular_hand

    def waits_of(hand):
        found = []
        for kind in kinds:
            if hand[kind] < 4:
                hand[kind] += 1
                if agari.is_agari(hand):
                    found.append(kind)
                hand[kind] -= 1
        return found

    rates = {"version": version("mahjong")}
    t0 = time.perf_counter()
    for h in d:
        agari.is_agari(h)
    rates["win"] = m / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    for h in o:
        shanten(h)
    rates["shanten13"] = m / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    for h in d:
        shanten(h)
    rates["shanten14"] = m / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    for h in r:
        waits_of(h)
    rates["waits"] = m / (time.perf_counter() - t0)
    return rates


if __name__ == "__main__":
    sys.exit(main_for(sys.modules[__name__]))
