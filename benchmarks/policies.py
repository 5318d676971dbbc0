"""Built-in policies: whole hands/s of ``value`` against ``greedy`` in every rule set, beside greedy
against greedy on the same matches (whole matches, all threads, best of ``--repeat``); and learned
policies (:mod:`simkit.policies.network`, a linear network and an MLP with random weights): their
whole hands/s against greedy in douque and the cost of one decision (encoding the view, then the
network), timed in a compiled loop over the observations of real decisions.

Usage: ``python3 benchmarks/policies.py [--matches 2000] [--repeat 3] [--seed 2026] [--json OUT]``
"""

from __future__ import annotations

import sys
import time

from _common import fmt as _fmt
from _common import main_for

FAMILY = "policies"
OPTIONS = ("matches", "seed", "repeat")


def run(args, rec) -> None:
    _policy_rates(args.matches, args.seed, args.repeat, rec)
    _network_costs(args.matches, args.seed, args.repeat, rec)


#: the learned policies timed: label -> hidden layer widths
NETWORKS = {"linear": (), "mlp64": (64,), "mlp128x64": (128, 64)}


def _network_costs(matches: int, seed: int, repeat: int, rec=None) -> None:
    """Learned policies with random weights (``NETWORKS``): whole hands/s against greedy in douque
    (best of ``repeat``), and per decision the cost of :func:`~simkit.envs.encode_view` and of the
    network's scores (:func:`~simkit.policies.network.network_scores`), each timed in a compiled
    loop over 2,000 decisions of greedy play (best of ``repeat``)."""
    import tempfile
    from pathlib import Path

    import numpy as np

    from simkit import load_policy, save_policy
    from simkit._jit import jit
    from simkit.engine.actions import N_ACTIONS
    from simkit.envs import OBSERVATION_SIZE, encode_view, encode_view_into
    from simkit.play.matches import simulate_matches
    from simkit.play.stepper import GameState
    from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy
    from simkit.policies.network import network_scores

    @jit
    def encode_all(view, out, times):  # pragma: no cover - compiled
        for _ in range(times):
            encode_view_into(view, out)

    @jit
    def score_all(params, X, out):  # pragma: no cover - compiled
        for i in range(X.shape[0]):
            network_scores(params, X[i], out)

    views = []
    s = GameState.new_match("douque", seed=seed)
    while len(views) < 2000:
        while not s.over:
            views.append(encode_view(s.view()))
            s.apply(int(greedy_policy(s.view(), s.legal, GREEDY_DEFAULTS, s.policy_stream())))
        if not s.next_hand():
            s = GameState.new_match("douque", seed=seed, match=len(views))
    X = np.array(views[:2000], np.float32)
    out = np.empty(OBSERVATION_SIZE, np.float32)
    view = s.view()
    encode_all(view, out, 1)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        encode_all(view, out, 20_000)
        best = min(best, (time.perf_counter() - t0) / 20_000)
    encode_ns = best * 1e9
    print(
        f"\n  learned policies (random weights): whole hands/s against greedy, douque, {matches:,} matches, best of "
        f"{repeat}; per decision: encode_view {encode_ns:,.0f} ns (mean non-zero inputs {np.count_nonzero(X) / len(X):.0f})"
    )
    print(f"  {'network':<12} {'parameters':>11} {'hands/s':>10} {'vs greedy':>10} {'network ns/decision':>20}")
    if rec is not None:
        rec.add("encode_view", encode_ns, "ns/decision", rules="douque")
    simulate_matches("douque", ("greedy", "greedy"), 1, seed=seed)
    greedy_best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = simulate_matches("douque", ("greedy", "greedy"), matches, seed=seed)
        greedy_best = min(greedy_best, time.perf_counter() - t0)
    greedy_rate = len(res["match"]) / greedy_best
    rng = np.random.default_rng(seed)
    scores = np.empty(N_ACTIONS)
    with tempfile.TemporaryDirectory() as tmp:
        for label, hidden in NETWORKS.items():
            sizes = [OBSERVATION_SIZE, *hidden, N_ACTIONS]
            layers = [(rng.normal(size=(a, b)) * 0.1, rng.normal(size=b) * 0.1) for a, b in zip(sizes, sizes[1:])]
            p = load_policy(save_policy(Path(tmp) / f"{label}.npz", layers, label=label))
            score_all(p.params, X[:1], scores)
            net = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                score_all(p.params, X, scores)
                net = min(net, (time.perf_counter() - t0) / len(X))
            simulate_matches("douque", (p, "greedy"), 1, seed=seed)
            best = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                res = simulate_matches("douque", (p, "greedy"), matches, seed=seed)
                best = min(best, time.perf_counter() - t0)
            rate = len(res["match"]) / best
            print(
                f"  {label:<12} {len(p.params):>11,} {_fmt(rate):>10} {rate / greedy_rate:>9.2f}x {net * 1e9:>20,.0f}"
            )
            if rec is not None:
                rec.add(f"whole hands/s, {label} vs greedy", rate, "hands/s", rules="douque", matches=matches)
                rec.add(f"network scores, {label}", net * 1e9, "ns/decision", parameters=len(p.params))


def _policy_rates(matches: int, seed: int, repeat: int, rec=None) -> None:
    """Whole hands/s (whole matches, all threads, best of ``repeat``) of value against greedy and of
    greedy against greedy on the same matches, per rule set; the first call of each compiles or
    loads, outside the timing."""
    from simkit.play.matches import simulate_matches

    print(
        f"\n  built-in policies: whole hands/s against greedy, {matches:,} matches per run (night_market, duel, for_two: "
        f"{matches // 2:,}), best of {repeat}"
    )
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
            if rec is not None:
                rec.add(
                    f"whole hands/s, {pair[0]} vs {pair[1]}", hands / best, "hands/s", n=hands, rules=rules, matches=n
                )
        print(
            f"  {rules:<14} {_fmt(rates['value']):>16} {_fmt(rates['greedy']):>17} {rates['value'] / rates['greedy']:>6.2f}x"
        )
        if rec is not None:
            rec.add("value / greedy", rates["value"] / rates["greedy"], "ratio", rules=rules, matches=n)


if __name__ == "__main__":
    sys.exit(main_for(sys.modules[__name__]))
