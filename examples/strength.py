"""Strength you can measure: exploitability lower bounds of random, greedy and value in every rule
set, how the bound on greedy moves with the responder's worlds per decision, and what the search
policy costs and wins against value. Writes the results as JSON, the tables of docs/strength.md
(between its markers) and the figure.

    python3 examples/strength.py --json docs/strength.json --write docs/strength.md \
        --figure docs/figures/strength.png

Everything follows from the seed: the same command gives the same numbers on any machine (the
timings excepted) whatever the thread count.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

import simkit
from simkit.analysis import compare, load
from simkit.evaluation.exploitability import responder
from simkit.play.runtime import thread_count

RULE_NAMES = ("douque", "night_market", "duel", "for_two")
BEGIN, END = "<!-- strength:begin -->", "<!-- strength:end -->"


def bound(target, rules, matches, seed, n_worlds, min_worlds, z, decisions=False):
    """Play the responder against ``target`` in duplicate; the luck-corrected bound, and costs."""
    resp = responder(target, worlds=n_worlds, min_worlds=min_worlds, z=z)
    tmp = Path(tempfile.mkdtemp(prefix="simkit-strength-"))
    try:
        t0 = time.perf_counter()
        simkit.simulate(
            tmp / "run",
            rules=rules,
            policies=(resp, target),
            matches=matches,
            seed=seed,
            duplicate=True,
            decisions=decisions,
        )
        play = time.perf_counter() - t0
        c = compare(tmp / "run", correct_luck=True)
        searched = None
        if decisions:
            dec = load(tmp / "run", columns=["copy", "player", "counter_0"], table="decisions")
            mine = dec["player"].to_numpy() == dec["copy"].to_numpy()  # the responder: player 0 of copy 0
            worlds = dec["counter_0"].to_numpy()
            searched = int((worlds[mine] > 0).sum())
            worlds_mean = float(worlds[mine & (worlds > 0)].mean())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out = {
        "target": target,
        "rules": rules,
        "worlds": n_worlds,
        "matches": matches,
        "hands": int(c.rows),
        "mean": c.per_hand[0] / 2,
        "low": c.per_hand[1] / 2,
        "high": c.per_hand[2] / 2,
        "variance_reduction": float(c.per_hand_variance_reduction),
        "play_seconds": play,
    }
    if decisions:
        out.update(searched_decisions=searched, worlds_per_searched_decision=worlds_mean)
    return out


def value_cost(rules, matches, seed):
    """Seconds per hand of value against value on all threads (the search's baseline)."""
    simkit.simulate_matches(rules, ("value", "value"), 2, seed=seed)
    t0 = time.perf_counter()
    d = simkit.simulate_matches(rules, ("value", "value"), matches, seed=seed)
    return (time.perf_counter() - t0) / len(d["winner"])


def run(args) -> dict:
    results = {"seed": args.seed, "threads": thread_count(), "bounds": [], "budgets": [], "search": []}

    def save():  # after every bound: a long run interrupted keeps what it measured
        if args.json:
            Path(args.json).write_text(json.dumps(results, indent=1) + "\n")

    for rules in args.rules:
        for target, matches in (("random", args.matches_random), ("greedy", args.matches_greedy)):
            r = bound(target, rules, matches, args.seed, args.worlds, args.min_worlds, args.z)
            results["bounds"].append(r)
            print(json.dumps(r), flush=True)
            save()
        r = bound("value", rules, args.matches_value, args.seed, args.worlds, args.min_worlds, args.z, decisions=True)
        r["value_seconds_per_hand"] = value_cost(rules, args.matches_value, args.seed)
        results["bounds"].append(r)
        results["search"].append(r)
        print(json.dumps(r), flush=True)
        save()
        for worlds in args.budgets:
            if worlds == args.worlds:
                r = next(b for b in results["bounds"] if b["rules"] == rules and b["target"] == "greedy")
            else:
                r = bound("greedy", rules, args.matches_greedy, args.seed, worlds, min(args.min_worlds, worlds), args.z)
                print(json.dumps(r), flush=True)
            results["budgets"].append(dict(r))
            save()
    return results


def _unit(rules) -> str:
    return "tai-based points" if rules == "douque" else "the rule set's payment unit"


def render(results) -> str:
    lines = [
        "| rule set | target | responder wins per hand | 95% interval | lower bound | hands | variance reduction |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results["bounds"]:
        lines.append(
            f"| {r['rules']} | {r['target']} | {r['mean']:.2f} | [{r['low']:.2f}, {r['high']:.2f}] | "
            f"**{r['low']:.2f}** | {r['hands']:,} | {r['variance_reduction']:.1f} |"
        )
    lines += ["", "The bound on greedy as the responder searches more worlds per decision:", ""]
    budgets = sorted({r["worlds"] for r in results["budgets"]})
    lines.append("| rule set | " + " | ".join(f"{w} worlds" for w in budgets) + " |")
    lines.append("|---|" + "---|" * len(budgets))
    for rules in dict.fromkeys(r["rules"] for r in results["budgets"]):
        cells = []
        for w in budgets:
            r = next((x for x in results["budgets"] if x["rules"] == rules and x["worlds"] == w), None)
            cells.append("not measured" if r is None else f"{r['mean']:.2f} [{r['low']:.2f}, {r['high']:.2f}]")
        lines.append(f"| {rules} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "`search` (its defaults: the responder with `value` as continuation) against `value`, and what it costs "
        f"on this machine ({results['threads']} threads; CPU time is the run's time on all of them):",
        "",
        "| rule set | search − value per hand (each side's result) | 95% interval | hands | searched decisions "
        "per hand | worlds per searched decision | CPU ms per searched decision | CPU ms per hand (value's) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results["search"]:
        threads = results["threads"]
        per_hand = r["play_seconds"] * threads / r["hands"] * 1000
        per_decision = r["play_seconds"] * threads / max(1, r["searched_decisions"]) * 1000
        lines.append(
            f"| {r['rules']} | {2 * r['mean']:.2f} | [{2 * r['low']:.2f}, {2 * r['high']:.2f}] | {r['hands']:,} | "
            f"{r['searched_decisions'] / r['hands']:.1f} | {r['worlds_per_searched_decision']:.1f} | "
            f"{per_decision:.1f} | {per_hand:.1f} ({r['value_seconds_per_hand'] * threads * 1000:.3f}) |"
        )
    return "\n".join(lines)


def replace_block(page: str, results) -> str:
    """``page`` with the tables of ``results`` (and the command that produced them) between its markers."""
    block = f"{BEGIN}\n\n{render(results)}\n\nProduced by `{results.get('command', '')}`.\n\n{END}"
    page, n = re.subn(re.escape(BEGIN) + ".*?" + re.escape(END), lambda m: block, page, flags=re.S)
    if n != 1:
        raise ValueError(f"the page has no {BEGIN} ... {END} block")
    return page


def figure(results, path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rule_sets = list(dict.fromkeys(r["rules"] for r in results["bounds"]))
    fig, axes = plt.subplots(2, len(rule_sets), figsize=(3.2 * len(rule_sets), 6.4), squeeze=False)
    for j, rules in enumerate(rule_sets):
        ax = axes[0, j]
        rows = [r for r in results["bounds"] if r["rules"] == rules]
        x = np.arange(len(rows))
        means = np.array([r["mean"] for r in rows])
        err = np.array([[r["mean"] - r["low"] for r in rows], [r["high"] - r["mean"] for r in rows]])
        ax.bar(x, means, color=["#bbbbbb", "#7fa7d9", "#2f6db3"][: len(rows)])
        ax.errorbar(x, means, yerr=err, fmt="none", ecolor="black", capsize=4)
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xticks(x, [r["target"] for r in rows])
        ax.set_title(rules)
        if j == 0:
            ax.set_ylabel("responder wins per hand\n(95% interval; the lower end is the bound)")
        ax = axes[1, j]
        rows = sorted((r for r in results["budgets"] if r["rules"] == rules), key=lambda r: r["worlds"])
        w = [r["worlds"] for r in rows]
        ax.errorbar(
            w,
            [r["mean"] for r in rows],
            yerr=[[r["mean"] - r["low"] for r in rows], [r["high"] - r["mean"] for r in rows]],
            marker="o",
            capsize=4,
            color="#7fa7d9",
        )
        ax.set_xscale("log", base=2)
        ax.set_xticks(w, [str(v) for v in w])
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xlabel("responder's worlds per decision")
        if j == 0:
            ax.set_ylabel("bound on greedy\n(responder wins per hand)")
    fig.suptitle("Exploitability lower bounds (local best response, duplicate, luck-corrected)")
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default=",".join(RULE_NAMES))
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--matches-random", type=int, default=30)
    ap.add_argument("--matches-greedy", type=int, default=40)
    ap.add_argument("--matches-value", type=int, default=60)
    ap.add_argument("--worlds", type=int, default=64)
    ap.add_argument("--min-worlds", type=int, default=16)
    ap.add_argument("--z", type=float, default=3.0)
    ap.add_argument("--budgets", default="16,64,128")
    ap.add_argument("--json", default=None, help="write the results here")
    ap.add_argument("--from-json", default=None, help="render these results instead of running")
    ap.add_argument("--write", default=None, help="write the tables into this page, between its markers")
    ap.add_argument("--figure", default=None, help="draw the figure here")
    args = ap.parse_args(argv)
    args.rules = [r.strip() for r in args.rules.split(",") if r.strip()]
    args.budgets = [int(b) for b in args.budgets.split(",")]
    if args.from_json:
        results = json.loads(Path(args.from_json).read_text())
    else:
        results = run(args)
        results["command"] = (
            f"python3 examples/strength.py --seed {args.seed} --matches-random {args.matches_random} "
            f"--matches-greedy {args.matches_greedy} --matches-value {args.matches_value} --worlds {args.worlds} "
            f"--budgets {','.join(map(str, args.budgets))}"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    print(render(results))
    if args.write:
        Path(args.write).write_text(replace_block(Path(args.write).read_text(), results))
    if args.figure:
        figure(results, args.figure)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
