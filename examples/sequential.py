"""Sequential decisions on value vs greedy: how many duplicate matches an anytime-valid confidence
sequence needs to decide, against the fixed-size z-test of the same level and power. Writes the
results as JSON, the table of docs/decisions.md (between its markers) and the figure.

    python3 examples/sequential.py --json docs/decisions.json --write docs/decisions.md \
        --figure docs/figures/sequential.png

Everything follows from the seed: the same command gives the same decisions on any machine (the
timings excepted) whatever the thread or worker count.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path

import simkit

BEGIN, END = "<!-- decisions:begin -->", "<!-- decisions:end -->"


def run(plan, a, b, seed, block, max_matches, alpha, power, workers):
    """One :func:`simkit.decide` per ``(rule set, margin)`` of ``plan``: ``(rows for the JSON, decisions)``."""
    rows, decisions = [], []
    for rules in dict.fromkeys(r for r, _ in plan):  # compile the engine and the replay first: not timed
        simkit.decide(a, b, rules, seed=seed, block=2, max_matches=2, workers=workers)
    for rules, margin in plan:
        d = simkit.decide(
            a,
            b,
            rules,
            margin=margin,
            seed=seed,
            alpha=alpha,
            power=power,
            block=block,
            max_matches=max_matches,
            workers=workers,
            progress=True,
        )
        print(d, flush=True)
        decisions.append(d)
        row = d.to_dict()
        row["trace"] = d.trace.to_dict(orient="list")  # columns, shorter than rows
        rows.append(row)
    return rows, decisions


def table(results: dict) -> str:
    """The Markdown table of the results, with the command that produced them."""
    lines = [
        "| rule set | margin | decision | matches (sequential) | matches (fixed-size z-test) "
        "| a - b per hand | confidence sequence | seconds |",
        "|---|---:|---|---:|---:|---:|---|---:|",
    ]
    for r in results["decisions"]:
        fixed = "-" if r["fixed_matches"] is None else f"{math.ceil(r['fixed_matches']):,}"
        lines.append(
            f"| {r['rules']} | {r['margin']:g} | {r['decision']} | {r['matches']:,} | {fixed} "
            f"| {r['estimate']:+.1f} | [{r['low']:+.1f}, {r['high']:+.1f}] | {r['seconds']:.0f} |"
        )
    r0 = results["decisions"][0]
    lines += [
        "",
        f"{r0['a']} against {r0['b']}, alpha {r0['alpha']:g}, looks every {r0['block']} matches up to "
        f"{r0['max_matches']:,}, luck-corrected; the fixed-size test is two-sided at the same alpha with "
        f"power {r0['power']:g} against the difference observed at the stop.",
        "",
        f"Produced by `{results['command']}`.",
    ]
    return "\n".join(lines)


def replace_block(page: str, results: dict) -> str:
    """``page`` with the text between its markers replaced by :func:`table`."""
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(page):
        raise ValueError(f"the page has no {BEGIN} ... {END} block")
    return pattern.sub(lambda _: f"{BEGIN}\n{table(results)}\n{END}", page)


def figure(decisions, path) -> None:
    """One panel per decision: the confidence sequence narrowing, the margin, the stop, the fixed-size n."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = min(2, len(decisions))
    rows = math.ceil(len(decisions) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(6.5 * cols, 3.6 * rows + 0.6), squeeze=False)
    for ax, d in zip(axes.flat, decisions):
        d.plot(ax, legend=False)
        fixed = f"{math.ceil(d.fixed_matches):,}" if math.isfinite(d.fixed_matches) else "-"
        ax.set_title(f"{d.rules}, margin {d.margin:g}: {d.decision} at {d.matches:,} (fixed-size {fixed})")
    for ax in list(axes.flat)[len(decisions) :]:
        ax.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    labels = [label.split(":")[0] if label.startswith(("margin", "stop", "fixed-size")) else label for label in labels]
    labels = [label.split(" ")[0] if label.startswith("margin") else label for label in labels]
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize="small", frameon=False)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--decisions",
        default="douque:0,douque:40,duel:0,duel:5",
        help="RULES:MARGIN pairs, comma-separated (a margin per hand is in its rule set's unit)",
    )
    p.add_argument("--a", default="value")
    p.add_argument("--b", default="greedy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--block", type=int, default=20)
    p.add_argument("--max-matches", type=int, default=2000)
    p.add_argument("--alpha", type=float, default=0.05)
    p.add_argument("--power", type=float, default=0.9)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--json", default=None, help="write the results here")
    p.add_argument("--write", default=None, help="replace the table between the markers of this page")
    p.add_argument("--figure", default=None, help="draw the confidence sequences here (PNG)")
    args = p.parse_args(argv)
    plan = [(r, float(m)) for r, m in (item.split(":") for item in args.decisions.split(","))]
    rows, decisions = run(
        plan,
        args.a,
        args.b,
        args.seed,
        args.block,
        args.max_matches,
        args.alpha,
        args.power,
        args.workers,
    )
    command = "python3 examples/sequential.py" + "".join(
        f" --{k.replace('_', '-')} {v}"
        for k, v in vars(args).items()
        if k not in ("json", "write", "figure", "workers") and v != p.get_default(k)
    )
    results = {"decisions": rows, "command": command}
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    if args.write:
        page = Path(args.write)
        page.write_text(replace_block(page.read_text(), results))
    if args.figure:
        figure(decisions, args.figure)
    print(table(results))


if __name__ == "__main__":
    main()
