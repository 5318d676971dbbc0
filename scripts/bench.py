"""simkit throughput benchmark: every figure measured in this run, nothing asserted.

Prints the machine (cores, numba threading layer, versions), the compile/table-load time, and the
batch-kernel throughput on the douque tile set:

* win checks/s on dealt 14-tile hands;
* shanten/s on dealt 13-tile hands (and 14-tile);
* waits/s on ready 13-tile hands (random complete hands minus one tile);
* the public batch calls (``simkit.is_win_batch``, ``shanten_batch``, ``waits_batch``: every row
  checked) against those kernels on the same hands, as a ratio of times;
* deals/s of deal + dealer win check + non-dealer waits, fused in one kernel;
* scored winning hands/s: random complete hands (no melds), a random winning tile from the hand,
  self-drawn or not, random winds, through the douque tai kernel (best split, single wait, items);
  the same for night_market, duel (fan kernels) and for_two (combination points), each on its own
  tile set (random complete hands of that rule set, random self-draw and last-tile flags);
* full hands/s of the douque engine, greedy vs greedy and random vs random (whole matches,
  compile time reported separately), and greedy vs greedy for night_market, duel and for_two
  (whole matches of their default ``match_hands``);
* the Parquet share of a greedy and a random run: the time ``simkit.simulate`` spends building the
  Arrow columns and writing the Parquet shards, over the run's time, with the engine alone on the
  same matches measured alternately beside it (``--only end-to-end`` runs just this);
* the cost of the decision log (``--decisions``): the engine and ``simkit.simulate`` to Parquet on
  the same matches with and without it, measured alternately (``--only end-to-end`` runs this after
  the Parquet share, ``--only decisions`` alone);
* whole hands/s of ``value`` against ``greedy`` in every rule set, beside greedy against greedy on
  the same matches (``--only policies`` runs just this);
* rollouts per second of ``simkit.rollouts`` from an early and a late douque position
  (``--only rollouts`` runs just this);
* agent steps per second of the vector environment ``simkit.envs.VectorEnv`` (douque, 4,096 tables):
  random legal actions chosen in numpy and ``step``, in self-play and against greedy, and ``step``
  alone (``--only vector`` runs just this);
* compiling (``--compile``): in a fresh cache directory, the seconds to the first hand of a new
  process for the rule set's engine (cold, then warm), for a fresh trivial policy in its own module
  and for an edit of that module (the engine is compiled once per rule set; a policy compiles
  only itself);
* before/after (``--compare-python PATH``): the engine figures measured side by side with another
  installation of simkit (e.g. the previous commit installed in a second venv), the same matches in
  alternating fresh processes, and the ratio (against the closed-loop engine, which has no
  ``deal=``, both sides play its games: ``deal="dealer"``, for_two ``fold_passes_deal=False``); ``--only scoring`` measures the scored winning
  hands/s of every rule set (the workloads above) the same way, ``--rounds`` rounds of alternating
  fresh processes, and prints the best of each with the ratio (the other python runs this script
  against its own simkit: ``--only scoring-rates`` prints one JSON line);
* ``--only discards``: the discard evaluation that greedy (``LIVE_TIES``), ``value`` (``LIVE_BEST``)
  and greedy's claims (``LIVE_NONE``) run at every decision (``discard_eval_kernel``), ns per call
  on one thread, on ``--peer-hands`` positions per rule set (half dealt 14-tile hands, half ready
  hands with 0-4 exposed melds plus a random tile, where many discards tie; each call's time
  includes folding its 34 shanten and live counts into a checksum, the same work on both sides); with
  ``--compare-python``, side by side with another installation in ``--rounds`` alternating rounds
  of fresh processes (``--only discard-rates``: one JSON line), the same positions and answers.

The PyPI ``mahjong`` package does the same work on the same hands (a subset, it is slower) and the
ratio simkit / mahjong is printed beside each figure. simkit runs on all cores, as a user would run
it; the package is single-threaded pure Python. Each simkit figure is the best of ``--repeat`` runs.

Then the peer section (``--only peers`` runs just this): win check (14 tiles), shanten (13 tiles)
and shanten (14 tiles) on ``--peer-hands`` dealt hands of the 136-tile set (``for_two``: 34 kinds,
standard form, no melds) through simkit's batch kernels at 1 and 2 threads, its public batch calls
(``simkit.is_win_batch``, ``simkit.shanten_batch``; every row checked) at 1 and 2 threads,
RiichiEnv (``riichienv.calculate_shanten``, from the optional ``bench`` extra:
``pip install -e '.[bench]'``; without it a note says so and the rest is measured) and the
``mahjong`` package (the first ``--peer-n`` hands), and waits on random ready hands (simkit's
kernel and ``simkit.waits_batch`` only), every answer checked against simkit's on every
hand measured (the bench stops on the first disagreement); in ns per hand per core, with the ratios
public call / kernel, the kernel's 2-thread speed-up and peer / kernel.

Usage: ``python scripts/bench.py [--n 2000000] [--peer-n 20000] [--peer-hands 200000] [--repeat 3] [--compile]
[--compare-python /path/to/other/venv/bin/python] [--rounds 3]
[--only compile|compare|scoring|discards|end-to-end|rollouts|decisions|vector|peers|policies]``
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _fmt(rate: float | None) -> str:
    if rate is None:
        return "-"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if rate >= scale:
            return f"{rate / scale:,.2f} {unit}/s"
    return f"{rate:,.0f} /s"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2_000_000, help="hands per simkit measurement")
    ap.add_argument("--peer-n", type=int, default=20_000, help="hands per mahjong-package measurement")
    ap.add_argument("--peer-hands", type=int, default=200_000,
                    help="136-tile hands per simkit and RiichiEnv measurement in the peer section")
    ap.add_argument("--repeat", type=int, default=3, help="runs per simkit measurement (best is kept)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--matches", type=int, default=2000, help="greedy matches per engine measurement")
    ap.add_argument("--compile", action="store_true", help="measure compile times in a fresh cache directory")
    ap.add_argument("--compare-python", help="python of another simkit installation to measure side by side")
    ap.add_argument("--only", choices=("compile", "compare", "scoring", "scoring-rates", "discards", "discard-rates", "end-to-end", "rollouts",
                                           "decisions", "vector", "peers", "policies"),
                    help="run only that section (scoring-rates, discard-rates: this installation's figures as JSON, for "
                         "scoring and discards)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds of fresh processes in the scoring comparison")
    ap.add_argument("--rollouts", type=int, default=20_000, help="continuations per action in the rollout section")
    args = ap.parse_args(argv)

    import numba

    import simkit
    from simkit._jit import threading_layer
    from simkit.engine.deal import deal_check_kernel, deal_hands, wall_template
    from simkit.hand.sample import random_ready_hands
    from simkit.hand.shanten import shanten_batch_kernel
    from simkit.hand.tables import hand_tables, load_tables
    from simkit.hand.waits import waits_batch_kernel
    from simkit.hand.win import is_win_batch_kernel

    if args.only == "scoring-rates":  # one side of --only scoring: nothing but the JSON line
        import json

        rates = _scoring_rates(args.n, args.seed, args.repeat)
        print(json.dumps({"simkit": os.path.dirname(simkit.__file__), **rates}))
        return 0
    if args.only == "discard-rates":  # one side of --only discards: nothing but the JSON line
        import json

        rates = _discard_rates(args.peer_hands, args.seed, args.repeat)
        print(json.dumps({"simkit": os.path.dirname(simkit.__file__), **rates}))
        return 0
    rules = simkit.get_rules("douque")
    print("simkit bench")
    print(f"  machine      {os.cpu_count()} cores ({platform.processor() or platform.machine()}), numba threads {numba.get_num_threads()}")
    print(f"  versions     simkit {simkit.__version__}, numba {numba.__version__}, numpy {np.__version__}, python {platform.python_version()}")
    if args.only == "compile":
        _compile_times("douque")
        return 0
    if args.only == "compare":
        if not args.compare_python:
            raise SystemExit("bench: --only compare needs --compare-python")
        _side_by_side(args.compare_python, args.matches, args.seed, args.repeat)
        return 0

    if args.only == "scoring":
        if not args.compare_python:
            raise SystemExit("bench: --only scoring needs --compare-python")
        _scoring_side_by_side(args.compare_python, args.n, args.seed, args.repeat, args.rounds)
        return 0
    if args.only == "discards":
        _discard_section(args.compare_python, args.peer_hands, args.seed, args.repeat, args.rounds)
        return 0
    if args.only == "rollouts":
        _rollout_rates(args.rollouts, args.repeat)
        return 0
    if args.only == "vector":
        _vector_rates(args.repeat)
        return 0
    if args.only == "policies":
        _policy_rates(args.matches, args.seed, args.repeat)
        return 0
    if args.only == "peers":
        _peer_section(args.peer_hands, args.peer_n, args.seed, args.repeat)
        return 0
    if args.only in ("end-to-end", "decisions"):  # the greedy and random runs of the engine figures, into Parquet
        runs = [(("greedy", "greedy"), args.matches), (("random", "random"), max(1, args.matches // 4))]
        if args.only == "end-to-end":
            _end_to_end(rules, runs, args.seed, args.repeat)
        _decision_cost(rules, runs, args.seed, args.repeat)
        return 0
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
    api_ratios = _api_ratios({
        "win": (lambda: is_win_batch_kernel(dealer, k, t, out_b), lambda: simkit.is_win_batch(dealer, rules=rules)),
        "shanten 13": (lambda: shanten_batch_kernel(other, k, t, out_s), lambda: simkit.shanten_batch(other, rules=rules)),
        "shanten 14": (lambda: shanten_batch_kernel(dealer, k, t, out_s), lambda: simkit.shanten_batch(dealer, rules=rules)),
        "waits": (lambda: waits_batch_kernel(ready, k, no_melds, t, out_i), lambda: simkit.waits_batch(ready, rules=rules)),
    }, args.repeat)

    r_score = n / _best(score_all, args.repeat)
    if (s_tai < 0).any():
        raise SystemExit("bench: a generated hand was not complete")
    r_rule_sets = _rule_set_scoring_rates(n, args.seed, args.repeat)

    from simkit.engine.matches import simulate_matches

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
    print("  public batch call / its kernel (the same hands, all threads, measured alternately; every row checked): "
          + ", ".join(f"{name} {ratio:.2f}x" for name, ratio in api_ratios.items()))
    _end_to_end(rules, [(pair, n_matches) for pair, (_, _, n_matches) in engine.items()], args.seed, args.repeat)
    _decision_cost(rules, [(pair, n_matches) for pair, (_, _, n_matches) in engine.items()], args.seed, args.repeat)
    if "error" in peer:
        print(f"\n  mahjong package not measured: {peer['error']}")
    else:
        print(
            f"\n  mahjong {peer['version']} on the first {args.peer_n:,} of the same hands, one thread: "
            "Agari.is_agari, Shanten.calculate_shanten_for_regular_hand, waits = is_agari over the 18 kinds."
        )
    _peer_section(args.peer_hands, args.peer_n, args.seed, args.repeat)
    _policy_rates(args.matches, args.seed, args.repeat)
    _rollout_rates(args.rollouts, args.repeat)
    _vector_rates(args.repeat)
    if args.compile:
        _compile_times("douque")
    if args.compare_python:
        _side_by_side(args.compare_python, args.matches, args.seed, args.repeat)
    return 0


def _policy_rates(matches: int, seed: int, repeat: int) -> None:
    """Whole hands/s (whole matches, all threads, best of ``repeat``) of value against greedy and of
    greedy against greedy on the same matches, per rule set; the first call of each compiles or
    loads, outside the timing."""
    from simkit.engine.matches import simulate_matches

    print(f"\n  built-in policies: whole hands/s against greedy, {matches:,} matches per run (night_market, duel, for_two: "
          f"{matches // 2:,}), best of {repeat}")
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
        print(f"  {rules:<14} {_fmt(rates['value']):>16} {_fmt(rates['greedy']):>17} {rates['value'] / rates['greedy']:>6.2f}x")


#: The rollout section's positions: early (the dealer's first decision, 14 different kinds, so 14
#: candidate discards) and late (1-shanten after a draw, 22 tiles left; from a greedy match).
ROLLOUT_POSITIONS = {
    "early (first discard, 14 candidates)": "douque: hand 1357m19p1234567z9m; drawn 9m; dealer",
    "late (1-shanten, 22 tiles left)": (
        "douque: hand 1456789m2556677z; drawn 1m; opponent_melds pung 999p; river 9p* 1z 5m 6m 9m 1z 3m 5m; "
        "opponent_river 1p 1z 2z 1z 1m 4z 4z 2z; tiles_left 22; dealer; phase draw; stable_wall"
    ),
}


def _rollout_rates(n: int, repeat: int) -> None:
    """Rollouts per second (one continuation of one action, played to the end of the hand by
    greedy against greedy, on all threads) from an early and a late douque position, best of
    ``repeat``; compile excluded."""
    import simkit

    print(f"\n  rollouts: simkit.rollouts, greedy continuations to the end of the hand, {n:,} per action, "
          f"all threads, best of {repeat}")
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
    print("  peers (published, not measured here): RiichiEnv's port of nekobean's riichi expected-score calculator, "
          "18 us at tenpai and 129 us at 2-shanten per call: one player, no opponent, an exact recursion over "
          "draws; a simkit rollout plays both players to the end of the hand under the rule set's scoring.")


def _vector_rates(repeat: int, n_envs: int = 4096, steps: int = 300) -> None:
    """Agent steps per second of ``simkit.envs.VectorEnv`` (douque, ``n_envs`` tables, all threads):
    the whole loop -- random legal actions chosen in numpy (``random_legal_actions``), then
    ``step`` -- and ``step`` alone, in self-play and against greedy; best of ``repeat`` runs of
    ``steps`` steps, compile and reset excluded."""
    import simkit.envs as E

    print(f"\n  vector environment: douque, {n_envs:,} tables, all threads, {steps} steps, best of {repeat}")
    print(f"  {'opponent':<24} {'whole loop':>14} {'step alone':>14}")
    for opponent in (None, "greedy"):
        env = E.VectorEnv("douque", n_envs, opponent=opponent, seed=1)
        rng = np.random.default_rng(0)
        obs, masks, _ = env.reset()
        env.step(E.random_legal_actions(masks, rng))  # compile or load
        best_loop = best_step = 0.0
        for _ in range(repeat):
            obs, masks, _ = env.reset()
            in_step = 0.0
            t0 = time.perf_counter()
            for _ in range(steps):
                actions = E.random_legal_actions(masks, rng)
                t1 = time.perf_counter()
                obs, masks, rewards, terminated, truncated, info = env.step(actions)
                in_step += time.perf_counter() - t1
            total = time.perf_counter() - t0
            best_loop = max(best_loop, steps * n_envs / total)
            best_step = max(best_step, steps * n_envs / in_step)
        label = "none (self-play)" if opponent is None else opponent
        print(f"  {label:<24} {_fmt(best_loop):>14} {_fmt(best_step):>14}")
    print("  peers (published, not measured here): Mahjax, about 2M steps/s for four-player riichi on eight A100 GPUs.")


_FIRST_HAND = """
import sys, time
t0 = time.perf_counter()
import importlib
sys.path.insert(0, sys.argv[1])
from simkit.engine.matches import simulate_matches
policy = importlib.import_module(sys.argv[2]).policy if sys.argv[2] != "-" else "greedy"
simulate_matches(sys.argv[3], (policy, "greedy"), 1, seed=0)
print(time.perf_counter() - t0)
"""

_TRIVIAL_POLICY = """from simkit._jit import jit
from simkit.engine import actions as A


@jit
def policy(view, legal, params, rng):
    # wins when it can, else the first legal action ({edit})
    if legal[A.WIN]:
        return A.WIN
    for a in range(A.N_ACTIONS):
        if legal[a]:
            return a
    return -1
"""


def _patient_policy(edit: str) -> str:
    """The example policy of ``simkit/engine/policies.py``'s docstring (greedy without claims,
    declaring only with two or more winning kinds) as a module defining ``policy``."""
    import textwrap

    from simkit.engine import policies

    doc = policies.__doc__
    code = textwrap.dedent(doc[doc.index("    import numpy as np") : doc.index("(This exact policy")])
    return code.replace("def patient(", "def policy(") + f"\n# {edit}\n"


def _compile_times(rules: str) -> None:
    """Seconds to the first hand in fresh processes with a fresh cache directory: the rule set's
    engine cold and warm, a new trivial policy, and an edit of its module."""
    import subprocess
    import tempfile
    from pathlib import Path

    print(f"\n  compiling ({rules}; fresh processes, fresh cache directory; seconds to the first hand, import included)")
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, SIMKIT_CACHE_DIR=str(Path(tmp) / "cache"), NUMBA_CACHE_DIR=str(Path(tmp) / "numba"))
        module = Path(tmp) / "bench_trivial_policy.py"

        def first_hand(policy_module: str) -> float:
            out = subprocess.run(
                [sys.executable, "-c", _FIRST_HAND, tmp, policy_module, rules], env=env, capture_output=True,
                text=True, check=True,
            )
            return float(out.stdout.strip().splitlines()[-1])

        patient = Path(tmp) / "bench_patient_policy.py"
        steps = [("engine and built-in policies, cold", "-", None, None),
                 ("engine, warm (loaded from the cache)", "-", None, None),
                 ("a new trivial policy (its own module)", "bench_trivial_policy", module, _TRIVIAL_POLICY.format(edit="new")),
                 ("an edit of the trivial policy's module", "bench_trivial_policy", module, _TRIVIAL_POLICY.format(edit="edited")),
                 ("a new policy calling greedy and waits", "bench_patient_policy", patient, _patient_policy("new")),
                 ("the same policy, loaded", "bench_patient_policy", None, None),
                 ("an edit of its module", "bench_patient_policy", patient, _patient_policy("edited"))]
        for label, mod, path, text in steps:
            if path is not None:
                path.write_text(text)
                time.sleep(1.1)  # numba's cache keys on the source's modification time (seconds)
            print(f"  {label:<46} {first_hand(mod):>8.1f} s")


_SIDE_BY_SIDE = """
import inspect, sys, time
import simkit
from simkit.engine.matches import simulate_matches
rules, a, b, n, seed, closed_loop = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1"
kw = {}
if closed_loop and "deal" in inspect.signature(simulate_matches).parameters:
    # the closed-loop engine's games: the dealer deals, and (for_two) a fold keeps the deal
    kw["deal"] = "dealer"
    if rules == "for_two":
        rules = simkit.get_rules(rules, fold_passes_deal=False)
if isinstance(rules, str) and rules == "for_two" and "bid_timing" in simkit.get_rules(rules).to_dict()["options"]:
    # for_two's rules as an installation without the bid before the deal and the end phase plays them
    rules = simkit.get_rules("for_two", bid_timing="after_deal", end_phase="plain_draw")
simulate_matches(rules, (a, b), 64, seed=seed, **kw)  # compile or load, and start the threads
t0 = time.perf_counter()
r = simulate_matches(rules, (a, b), n, seed=seed, **kw)
dt = time.perf_counter() - t0
print(len(r["match"]) / dt, len(r["match"]), float(r["score_0"].sum()))
"""

_HAS_DEAL = "import inspect; from simkit.engine.matches import simulate_matches; print(int('deal' in inspect.signature(simulate_matches).parameters))"


def _side_by_side(other_python: str, matches: int, seed: int, repeat: int) -> None:
    """Engine throughput of this installation and another one on the same matches, in alternating
    fresh processes (engine load excluded), best of ``repeat`` each, and the ratio: random in douque,
    greedy against greedy and value against greedy in every rule set (``value`` is called through
    its function pointer with the view every user policy gets, ``greedy`` as a built-in).

    Against the closed-loop engine (before the state machine: ``simulate_matches`` has no ``deal``),
    both play its games: the dealer deals the wall (``deal="dealer"``) and for_two's fold keeps the
    deal (``fold_passes_deal=False``). Equal hand counts and score sums are required either way."""
    import subprocess

    import tempfile

    neutral = tempfile.gettempdir()  # not the checkout: `python -c` imports from its working directory first

    def version(python):
        return subprocess.run([python, "-c", "import simkit, os; print(os.path.dirname(simkit.__file__))"],
                              capture_output=True, text=True, check=True, cwd=neutral).stdout.strip()

    def has_deal(python):
        return subprocess.run([python, "-c", _HAS_DEAL], capture_output=True, text=True, check=True,
                              cwd=neutral).stdout.strip() == "1"

    closed_loop = not (has_deal(sys.executable) and has_deal(other_python))
    print(f"\n  side by side: this simkit ({version(sys.executable)}) vs {version(other_python)}"
          + (" (the closed-loop engine's games: deal='dealer', for_two fold_passes_deal=False)" if closed_loop else ""))
    print(f"  {'run':<38} {'this':>14} {'other':>14} {'ratio':>9}")
    runs = [("douque", ("random", "random"), matches)]
    for rules in ("douque", "night_market", "duel", "for_two"):
        n = matches // 2 if rules == "for_two" else matches
        runs += [(rules, ("greedy", "greedy"), n), (rules, ("value", "greedy"), n // 2)]
    for rules, pair, n in runs:
        best = {}
        sums = {}
        for _ in range(repeat):
            for python in (sys.executable, other_python):
                out = subprocess.run([python, "-c", _SIDE_BY_SIDE, rules, *pair, str(n), str(seed), str(int(closed_loop))],
                                     capture_output=True, text=True, check=True, cwd=neutral).stdout.split()
                best[python] = max(best.get(python, 0.0), float(out[0]))
                sums[python] = (out[1], out[2])
        if sums[sys.executable] != sums[other_python]:
            raise SystemExit(f"bench: the two installations played different games ({sums})")
        ours, theirs = best[sys.executable], best[other_python]
        label = f"{rules} {pair[0]} vs {pair[1]}, {n:,} matches"
        print(f"  {label:<38} {_fmt(ours):>14} {_fmt(theirs):>14} {ours / theirs:>8.3f}x")


def _end_to_end(rules, runs, seed: int, repeat: int) -> None:
    """The Parquet share of a run: ``simkit.simulate`` into Parquet shards in a temporary directory
    (one process, default chunking) against ``simulate_matches`` alone on the same matches, the two
    measured alternately in this process (best of ``repeat`` each), for each ``(pair, matches)`` of
    ``runs``.

    The Parquet share is the time of the best run spent in the Parquet path, timed directly
    (``io.rows_to_batch``: the Arrow columns and the notation; ``io.write_shard``: LZ4 Parquet and
    fsync), over the run's time. Beside it, ``1 - engine time / run time``: everything the run does
    besides playing (the Parquet path, the manifest, checks, the engine in 500-match calls); on a
    busy machine this difference of two timings is the noisier figure.
    """
    import tempfile
    from pathlib import Path

    from simkit import io
    from simkit.engine.matches import simulate_matches
    from simkit.simulate import simulate

    spent = {"columns": 0.0, "file": 0.0}

    def timed(fn, key):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[key] += time.perf_counter() - t0

        return wrapper

    print(f"\n  end to end: simkit.simulate to Parquet (temp dir, 1 process) vs the engine alone, same matches, "
          f"measured alternately, best of {repeat}")
    print(f"  {'run':<38} {'engine only':>14} {'to Parquet':>14} {'Parquet share':>14}   "
          "(of which Arrow columns, Parquet file; run minus engine)")
    originals = io.rows_to_batch, io.write_shard
    io.rows_to_batch, io.write_shard = timed(originals[0], "columns"), timed(originals[1], "file")
    try:
        for pair, n_matches in runs:
            best_engine = best_run = float("inf")
            parts = (0.0, 0.0)
            with tempfile.TemporaryDirectory() as tmp:
                simulate(Path(tmp) / "warm", rules=rules, policies=pair, matches=1, seed=seed)
                for i in range(repeat):
                    t0 = time.perf_counter()
                    hands = len(simulate_matches(rules, pair, n_matches, seed=seed)["match"])
                    best_engine = min(best_engine, time.perf_counter() - t0)
                    spent.update(columns=0.0, file=0.0)
                    t0 = time.perf_counter()
                    result = simulate(Path(tmp) / f"run{i}", rules=rules, policies=pair, matches=n_matches, seed=seed)
                    elapsed = time.perf_counter() - t0
                    if elapsed < best_run:
                        best_run, parts = elapsed, (spent["columns"], spent["file"])
            if result.rows != hands:
                raise SystemExit(f"bench: simulate wrote {result.rows} rows, the engine returned {hands}")
            share = sum(parts) / best_run
            label = f"{pair[0]} vs {pair[1]}, {n_matches:,} matches"
            print(
                f"  {label:<38} {_fmt(hands / best_engine):>14} {_fmt(hands / best_run):>14} {share:>13.1%}"
                f"   ({parts[0] / best_run:.1%}, {parts[1] / best_run:.1%}; {1 - best_engine / best_run:.1%})"
            )
    finally:
        io.rows_to_batch, io.write_shard = originals


def _decision_cost(rules, runs, seed: int, repeat: int) -> None:
    """The cost of the decision log (``simulate(..., decisions=True)``, ``--decisions``): the engine
    alone (``simulate_matches``) with and without ``decisions=True``, and ``simkit.simulate`` to
    Parquet (temp dir, 1 process, default chunking) with and without it, on the same matches, the
    variants measured alternately in this process (best of ``repeat`` each), for each
    ``(pair, matches)`` of ``runs``; the cost is ``time with / time without - 1``. Beside it: the
    decisions per hand and the decision shards' bytes per decision (LZ4 Parquet).
    """
    import tempfile
    from pathlib import Path

    from simkit.engine.matches import simulate_matches
    from simkit.simulate import simulate

    print(f"\n  decision log (--decisions): the same matches with and without it, measured alternately, best of {repeat}")
    print(f"  {'run':<38} {'engine':>11} {'+ log':>11} {'cost':>7}   {'to Parquet':>11} {'+ log':>11} {'cost':>7}"
          "   decisions/hand, bytes/decision")
    for pair, n_matches in runs:
        best = {}
        with tempfile.TemporaryDirectory() as tmp:
            for on in (False, True):  # compile or load every variant first
                simulate_matches(rules, pair, 1, seed=seed, decisions=on)
                simulate(Path(tmp) / f"warm{on}", rules=rules, policies=pair, matches=1, seed=seed, decisions=on)
            for i in range(repeat):
                for on in (False, True):
                    t0 = time.perf_counter()
                    res = simulate_matches(rules, pair, n_matches, seed=seed, decisions=on)
                    key = ("engine", on)
                    best[key] = min(best.get(key, float("inf")), time.perf_counter() - t0)
                    hands = len(res["match"])
                    if on:
                        n_decisions = len(res["decisions"]["match"])
                    del res
                for on in (False, True):
                    t0 = time.perf_counter()
                    out = Path(tmp) / f"run{i}{'d' if on else ''}"
                    result = simulate(out, rules=rules, policies=pair, matches=n_matches, seed=seed, decisions=on)
                    key = ("parquet", on)
                    best[key] = min(best.get(key, float("inf")), time.perf_counter() - t0)
                    if result.rows != hands:
                        raise SystemExit(f"bench: simulate wrote {result.rows} rows, the engine returned {hands}")
            size = sum(p.stat().st_size for p in (out / "_decisions").glob("part-*.parquet"))
        label = f"{pair[0]} vs {pair[1]}, {n_matches:,} matches"
        e0, e1, w0, w1 = best["engine", False], best["engine", True], best["parquet", False], best["parquet", True]
        print(
            f"  {label:<38} {_fmt(hands / e0):>11} {_fmt(hands / e1):>11} {e1 / e0 - 1:>7.1%}   "
            f"{_fmt(hands / w0):>11} {_fmt(hands / w1):>11} {w1 / w0 - 1:>7.1%}   "
            f"{n_decisions / hands:.1f}, {size / n_decisions:.1f}"
        )


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
            complete[:m], win_tile[:m], s_melds[:m], s_k[:m], s_self[:m], s_false[:m], s_false[:m], s_false[:m],
            s_zero[:m], s_zero[:m], s_seat[:m], s_prev[:m], t, s_params, s_items[:m], s_tai[:m],
        )

    return score_all, s_tai


def _scoring_rates(n: int, seed: int, repeat: int) -> dict:
    """Scored hands/s of every rule set's batch kernel in this process (the workloads of the main
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


def _scoring_side_by_side(other_python: str, n: int, seed: int, repeat: int, rounds: int) -> None:
    """Scored hands/s per rule set of this installation and another one (``other_python``, which
    runs this script's :func:`_scoring_rates` against its own simkit), in alternating fresh
    processes, ``rounds`` rounds of best-of-``repeat`` each; the best of all, and the ratio."""
    import json
    import subprocess
    import tempfile

    neutral = tempfile.gettempdir()  # not the checkout: the child must import its own installation's simkit
    best: dict = {}
    where = {}
    for _ in range(rounds):
        for python in (sys.executable, other_python):
            out = subprocess.run([python, os.path.abspath(__file__), "--only", "scoring-rates", "--n", str(n),
                                  "--seed", str(seed), "--repeat", str(repeat)],
                                 capture_output=True, text=True, check=True, cwd=neutral).stdout
            record = json.loads(out.strip().splitlines()[-1])
            where[python] = record.pop("simkit")
            for name, rate in record.items():
                best[(python, name)] = max(best.get((python, name), 0.0), rate)
    print(f"\n  scoring side by side: this simkit ({where[sys.executable]}) vs {where[other_python]}")
    print(f"  {n:,} random complete hands per figure; {rounds} alternating rounds of fresh processes, best of {repeat} each")
    print(f"  {'scored winning hands':<38} {'this':>14} {'other':>14} {'ratio':>9}")
    for name in ("douque", "night_market", "duel", "for_two"):
        ours, theirs = best[(sys.executable, name)], best[(other_python, name)]
        print(f"  {name:<38} {_fmt(ours):>14} {_fmt(theirs):>14} {ours / theirs:>8.3f}x")


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


def _discard_section(other_python: str | None, n: int, seed: int, repeat: int, rounds: int) -> None:
    """The discard evaluation's ns per call (:func:`_discard_rates`) in this installation, or side
    by side with ``other_python``'s in ``rounds`` alternating rounds of fresh processes (best of all
    rounds; the two must give the same answers), with the ratio other / this."""
    import json
    import subprocess
    import tempfile

    neutral = tempfile.gettempdir()  # not the checkout: the child must import its own installation's simkit
    pythons = [sys.executable] + ([other_python] if other_python else [])
    best: dict = {}
    where = {}
    for _ in range(rounds if other_python else 1):
        for python in pythons:
            out = subprocess.run([python, os.path.abspath(__file__), "--only", "discard-rates", "--peer-hands", str(n),
                                  "--seed", str(seed), "--repeat", str(repeat)],
                                 capture_output=True, text=True, check=True, cwd=neutral).stdout
            record = json.loads(out.strip().splitlines()[-1])
            where[python] = record.pop("simkit")
            for key, (ns, check) in record.items():
                old = best.get((python, key))
                best[(python, key)] = (min(ns, old[0]) if old else ns, check)
    print(f"\n  discard evaluation (discard_eval_kernel), one thread, {n:,} positions per rule set "
          f"(half dealt, half ready + a tile with 0-4 melds), ns per call, best of {repeat}"
          + (f" in each of {rounds} alternating rounds of fresh processes" if other_python else ""))
    if other_python:
        print(f"  this simkit ({where[sys.executable]}) vs {where[other_python]}")
    print(f"  {'rule set, live mode':<38} {'this':>10}" + (f" {'other':>10} {'ratio':>9}" if other_python else ""))
    for name in ("douque", "night_market", "duel", "for_two"):
        for mode_name in _DISCARD_MODES:
            key = f"{name} {mode_name}"
            ours, check = best[(sys.executable, key)]
            line = f"  {key:<38} {ours:>10.0f}"
            if other_python:
                theirs, other_check = best[(other_python, key)]
                if other_check != check:
                    raise SystemExit(f"bench: the two installations' discard evaluations differ on {key}")
                line += f" {theirs:>10.0f} {theirs / ours:>8.3f}x"
            print(line)


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
                    hands[:m], win[:m], melds[:m], k[:m], self_drawn[:m], last[:m], false[:m], t, p, items[:m], value[:m]
                )
        elif name == "duel":
            def run(m=n):
                duel.score_batch_kernel(
                    hands[:m], win[:m], melds[:m], k[:m], self_drawn[:m], false[:m], false[:m], last[:m], k[:m], t, p,
                    items[:m], value[:m],
                )
        else:
            def run(m=n):
                for_two.score_batch_kernel(hands[:m], win[:m], melds[:m], k[:m], self_drawn[:m], t, p, items[:m], value[:m])
        run(8)
        rates[name] = n / _best(run, repeat)
        if (value < 0).any():
            raise SystemExit(f"bench: a generated {name} hand was not complete")
    return rates


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


# ---------------------------------------------------------------------------------------------
# peers on the 136-tile set (issue 23, point 1)


def _special_forms(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distances of seven pairs (seven different kinds paired) and thirteen orphans, as riichi
    counts them (RiichiEnv and the ``mahjong`` package): shanten ``6 - pairs + max(0, 7 - kinds)``
    and ``13 - terminal and honor kinds held - (a pair of one of them)``."""
    held = counts > 0
    seven = 6 - (counts >= 2).sum(axis=1) + np.maximum(0, 7 - held.sum(axis=1))
    orphans = np.array([0, 8, 9, 17, 18, 26, 27, 28, 29, 30, 31, 32, 33])
    thirteen = 13 - held[:, orphans].sum(axis=1) - (counts[:, orphans] >= 2).any(axis=1)
    return seven.astype(np.int64), thirteen.astype(np.int64)


def _tile_ids(counts: np.ndarray) -> list[list[int]]:
    """Each hand as the list of its 136-tile ids (``4 * kind + copy``), RiichiEnv's input."""
    flat = counts.ravel().astype(np.int64)
    kinds = np.repeat(np.tile(np.arange(34, dtype=np.int64), len(counts)), flat)
    starts = np.repeat(np.cumsum(flat) - flat, flat)
    ids = 4 * kinds + (np.arange(len(kinds)) - starts)
    return ids.reshape(len(counts), -1).tolist()


def _disagree(what: str, peer: str, hands: np.ndarray, ours: np.ndarray, theirs: np.ndarray) -> None:
    """Stop the bench, naming the first hand on which ``peer`` and simkit differ."""
    from simkit.tiles import format_tiles

    bad = np.flatnonzero(np.asarray(ours) != np.asarray(theirs))
    if len(bad):
        i = int(bad[0])
        raise SystemExit(
            f"bench: {peer} and simkit disagree on {what} for {len(bad):,} hand{'s' if len(bad) > 1 else ''}; first, hand {i} "
            f"{format_tiles(hands[i])}: simkit {ours[i]}, {peer} {theirs[i]}"
        )


def _peer_section(n: int, mahjong_n: int, seed: int, repeat: int) -> None:
    """Win check and shanten on the 136-tile set (``for_two``: 34 kinds, standard form, no melds):
    ``n`` dealt 14-tile and 13-tile hands through simkit's kernels at 1 and 2 threads, its public
    batch calls at 1 and 2 threads (and waits on ``n`` random ready hands, simkit only), RiichiEnv (``riichienv.calculate_shanten``, its fastest call
    reachable from Python; a win is shanten -1) and, on the first ``mahjong_n`` hands, the
    ``mahjong`` package; every answer checked against simkit's on every hand measured. Figures are
    ns per hand per core (wall time x threads / hands), best of ``repeat``; at each thread count
    the kernel and its public call are measured in turn within each repeat."""
    import numba

    import simkit
    from simkit.hand.sample import random_ready_hands
    from simkit.hand.shanten import shanten_batch_kernel
    from simkit.hand.tables import hand_tables
    from simkit.hand.waits import waits_batch_kernel
    from simkit.hand.win import is_win_batch_kernel

    rules = simkit.get_rules("for_two")
    t = hand_tables(rules)
    h14, h13 = simkit.deal_hands(n, seed=seed, rules=rules)
    ready, _ = random_ready_hands(n, seed=seed, rules=rules)
    k = np.zeros(n, np.int64)
    no_melds = np.zeros_like(ready)
    win = np.empty(n, np.bool_)
    sh13 = np.empty(n, np.int8)
    sh14 = np.empty(n, np.int8)
    waits = np.empty(n, np.int64)
    threads = sorted({1, min(2, numba.config.NUMBA_NUM_THREADS)})
    print(f"\n  peers: win check and shanten on the 136-tile set (for_two: 34 kinds, standard form, no melds), "
          f"{n:,} dealt 14- and 13-tile hands, best of {repeat}; ns per hand per core (wall x threads / hands)")
    peer_figures = ("win check, 14 tiles", "shanten, 13 tiles", "shanten, 14 tiles")
    figures = peer_figures + ("waits, ready 13 tiles",)  # waits: simkit only (its API against its kernel)
    hands = {"win check, 14 tiles": h14, "shanten, 13 tiles": h13, "shanten, 14 tiles": h14,
             "waits, ready 13 tiles": ready}
    kernel = {
        "win check, 14 tiles": lambda: is_win_batch_kernel(h14, k, t, win),
        "shanten, 13 tiles": lambda: shanten_batch_kernel(h13, k, t, sh13),
        "shanten, 14 tiles": lambda: shanten_batch_kernel(h14, k, t, sh14),
        "waits, ready 13 tiles": lambda: waits_batch_kernel(ready, k, no_melds, t, waits),
    }
    api = {
        "win check, 14 tiles": lambda: simkit.is_win_batch(h14, rules=rules),
        "shanten, 13 tiles": lambda: simkit.shanten_batch(h13, rules=rules),
        "shanten, 14 tiles": lambda: simkit.shanten_batch(h14, rules=rules),
        "waits, ready 13 tiles": lambda: simkit.waits_batch(ready, rules=rules),
    }
    columns = {}  # (column, figure) -> best seconds
    default_threads = numba.get_num_threads()
    try:
        for fig in figures:  # compile or load first
            kernel[fig]()
            api[fig]()
        for th in threads:  # the kernel and its public call alternate; the thread count changes once
            numba.set_num_threads(th)
            for fig in figures:
                kernel[fig]()  # untimed: the first calls after a change of thread count wake the pool
            for _ in range(repeat):
                for fig in figures:
                    for col, fn in ((f"kernel {th}t", kernel[fig]), (f"API {th}t", api[fig])):
                        t0 = time.perf_counter()
                        fn()
                        dt = (time.perf_counter() - t0) * th
                        columns[col, fig] = min(columns.get((col, fig), float("inf")), dt)
    finally:
        numba.set_num_threads(default_threads)
    ours = {"win check, 14 tiles": win.copy(), "shanten, 13 tiles": sh13.astype(np.int64),
            "shanten, 14 tiles": sh14.astype(np.int64), "waits, ready 13 tiles": waits.copy()}
    for fig in figures:  # the public calls agree with the kernels
        _disagree(fig, "simkit's public batch call", hands[fig], ours[fig], api[fig]())
    notes = []
    m = min(mahjong_n, n)
    seven = {fig: _special_forms(hands[fig]) for fig in peer_figures}
    peers = {"RiichiEnv": _riichienv_times(hands, peer_figures, ours, seven, repeat, notes),
             "mahjong": _mahjong_times(hands, peer_figures, ours, m, notes)}
    names = [f"kernel {th}t" for th in threads] + [f"API {th}t" for th in threads]
    header = names + [f"RiichiEnv {peers['RiichiEnv'].get('version', '')}".strip(),
                      f"mahjong {peers['mahjong'].get('version', '')}".strip()]
    print("  (kernel: simkit's batch kernel; API: simkit's public batch call, rows checked; Nt: N threads)")
    print(f"  {'ns per hand per core':<22}" + "".join(f"{h:>17}" for h in header))
    for fig in figures:
        cells = [f"{columns[c, fig] * 1e9 / n:>17,.1f}" for c in names]
        for peer in ("RiichiEnv", "mahjong"):
            v = peers[peer].get(fig)
            cells.append(f"{v:>17,.1f}" if v is not None else f"{'-':>17}")
        print(f"  {fig:<22}" + "".join(cells))
    print(f"  {'ratios':<22}   API / kernel (1 thread; {threads[-1]} threads), 2-thread speed-up of the kernel "
          "(throughput), peer / simkit kernel at 1 thread")
    for fig in figures:
        k1 = columns["kernel 1t", fig]
        api_r = "; ".join(f"{columns[f'API {th}t', fig] / columns[f'kernel {th}t', fig]:.2f}x" for th in threads)
        speedup = f"{threads[-1] * k1 / columns[f'kernel {threads[-1]}t', fig]:.2f}x" if len(threads) > 1 else "-"
        rel = []
        for peer in ("RiichiEnv", "mahjong"):
            v = peers[peer].get(fig)
            rel.append(f"{peer} {v / (k1 * 1e9 / n):,.1f}x" if v is not None else f"{peer} -")
        print(f"  {fig:<22}   API/kernel {api_r}, speed-up {speedup}, {', '.join(rel)}")
    for note in notes:
        print(f"  {note}")


def _riichienv_times(hands, figures, ours, special, repeat: int, notes: list) -> dict:
    """ns per call of ``riichienv.calculate_shanten`` on every hand, best of ``repeat`` (a Python
    loop over prepared lists of tile ids); its answers checked against simkit's: RiichiEnv counts
    seven pairs and thirteen orphans too, taking them when the regular form is above 0, so simkit's
    regular-form figure is combined with the two closed forms the same way before comparing."""
    try:
        from importlib.metadata import version

        from riichienv import calculate_shanten
    except ImportError:
        notes.append("RiichiEnv not measured: it is not installed (pip install -e '.[bench]' in the checkout, "
                     "or pip install riichienv).")
        return {}
    out = {"version": version("riichienv")}
    ids = {}
    for fig in figures:
        key = id(hands[fig])
        if key not in ids:
            ids[key] = _tile_ids(hands[fig])
    calculate_shanten([])
    empty = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(100_000):
            calculate_shanten([])
        empty = min(empty, (time.perf_counter() - t0) / 100_000)
    specials = 0
    for fig in figures:
        lists = ids[id(hands[fig])]
        best = float("inf")
        for _ in range(repeat):
            t0 = time.perf_counter()
            got = [calculate_shanten(h) for h in lists]
            best = min(best, time.perf_counter() - t0)
        got = np.array(got, np.int64)
        seven, thirteen = special[fig]
        # simkit's regular form (the win check: the same hands' shanten, its wins checked against it)
        regular = ours["shanten, 14 tiles"] if fig.startswith("win") else ours[fig]
        expected = np.where(regular <= 0, regular, np.minimum(regular, np.minimum(seven, thirteen)))
        if fig.startswith("win"):
            _disagree(fig, "simkit's shanten (-1)", hands[fig], ours[fig], regular == -1)
            _disagree(fig, "RiichiEnv", hands[fig], expected == -1, got == -1)
        else:
            specials += int((expected != regular).sum())
            _disagree(fig, "RiichiEnv", hands[fig], expected, got)
        out[fig] = best * 1e9 / len(lists)
    notes.append(
        f"RiichiEnv {out['version']}: riichienv.calculate_shanten(list of 136-tile ids) in a Python loop, every hand "
        f"(a win is -1); an empty call costs {empty * 1e9:.0f} ns. It counts seven pairs and thirteen orphans too: "
        f"checked against simkit's regular form combined with their closed forms ({specials:,} shanten answers "
        "decided by them); all agree."
    )
    return out


def _mahjong_times(hands, figures, ours, m: int, notes: list) -> dict:
    """ns per call of the ``mahjong`` package on the first ``m`` hands (one run: it is slow):
    ``Agari.is_agari`` (which counts seven pairs and thirteen orphans too, so those complete hands
    are allowed for) and ``Shanten.calculate_shanten_for_regular_hand``, checked against simkit."""
    try:
        from importlib.metadata import version

        from mahjong.agari import Agari
        from mahjong.shanten import Shanten
    except ImportError as exc:
        notes.append(f"mahjong package not measured: {exc} (pip install mahjong)")
        return {}
    out = {"version": version("mahjong")}
    for fig in figures:
        lists = [row.tolist() for row in hands[fig][:m]]
        fn = Agari.is_agari if fig.startswith("win") else Shanten.calculate_shanten_for_regular_hand
        t0 = time.perf_counter()
        got = [fn(h) for h in lists]
        out[fig] = (time.perf_counter() - t0) * 1e9 / m
        if fig.startswith("win"):
            seven, thirteen = _special_forms(hands[fig][:m])
            expected = ours[fig][:m] | (seven < 0) | (thirteen < 0)
            _disagree(fig, "the mahjong package", hands[fig][:m], expected, np.array(got, bool))
        else:
            _disagree(fig, "the mahjong package", hands[fig][:m], ours[fig][:m], np.array(got, np.int64))
    notes.append(f"mahjong {out['version']}: Agari.is_agari and Shanten.calculate_shanten_for_regular_hand on the first "
                 f"{m:,} hands, one run, one thread; all agree.")
    return out


if __name__ == "__main__":
    sys.exit(main())
