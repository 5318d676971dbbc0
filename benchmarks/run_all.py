"""Run every benchmark family (or the ones named by ``--families``) in one process, print their
figures and write them all to one JSON file (``--json``).

The families, in the order they run: kernels (the batch kernels and the engine next to the
``mahjong`` package), scoring, discards, end_to_end (the Parquet share), decisions (the decision
log's cost), peers (the 136-tile set beside RiichiEnv and ``mahjong``), policies, rollouts, vector,
compile (fresh processes, a fresh cache directory) and compare (side by side with
``--compare-python``; skipped without it; with it, scoring and discards are measured side by side
too).

Usage: ``python3 benchmarks/run_all.py [--families kernels,peers,...] [--n 2000000] [--peer-n 20000]
[--peer-hands 200000] [--matches 2000] [--repeat 3] [--seed 2026] [--rollouts 20000] [--rounds 3]
[--compare-python PY] [--json results.json]``
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # the family modules, when imported from elsewhere

from _common import OPTIONS, Records, add_options, machine_facts, print_header, write_json  # noqa: E402

FAMILIES = (
    "kernels",
    "scoring",
    "discards",
    "end_to_end",
    "decisions",
    "peers",
    "policies",
    "rollouts",
    "vector",
    "compile",
    "compare",
)


def run_families(families, args, argv=None) -> list[dict]:
    """Run ``families`` (names of :data:`FAMILIES`) with the options ``args`` (an argparse namespace
    with every option of :data:`_common.OPTIONS`), printing their figures; write them to
    ``args.json`` when it is set; return the records."""
    print_header()
    rec = Records(args.repeat)
    for family in families:
        module = importlib.import_module(family)
        if family == "compare" and not args.compare_python:
            print("\n  compare: not measured (it needs --compare-python)")
            continue
        rec.family = module.FAMILY
        module.run(args, rec)
    if getattr(args, "json", None):
        write_json(args.json, machine_facts(argv), rec.records)
        print(f"\n  figures written to {args.json} ({len(rec.records)} records)")
    return rec.records


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--families",
        default=",".join(FAMILIES),
        help=f"comma-separated families to run, in this order (default: all of {', '.join(FAMILIES)})",
    )
    add_options(ap, [name for name in OPTIONS if name != "rates"])
    args = ap.parse_args(argv)
    args.rates = False
    families = [f.strip().replace("-", "_") for f in args.families.split(",") if f.strip()]
    unknown = sorted(set(families) - set(FAMILIES))
    if unknown:
        ap.error(f"unknown families {unknown}; choose from {', '.join(FAMILIES)}")
    run_families(families, args, argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
