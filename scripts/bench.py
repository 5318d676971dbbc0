"""simkit throughput benchmark: every figure measured in this run, nothing asserted.

The measurements live in ``benchmarks/``, one module per figure family (each runnable alone, each
writing its figures as JSON with ``--json OUT``); ``benchmarks/run_all.py`` runs them all into one
file and ``benchmarks/compare_results.py A.json B.json`` compares two runs. This script keeps the
older command line working: ``--only X`` runs the family X, and without ``--only`` it runs the
kernels table, end to end, the decision log, peers, policies, rollouts and the vector environment
(then compile with ``--compile`` and the side-by-side engine figures with ``--compare-python``).

``--only`` maps to families: compile, compare, scoring, discards, end-to-end (end_to_end, then
decisions), rollouts, decisions, vector, peers, policies; scoring-rates and discard-rates print this
installation's scoring or discard figures as one JSON line (``benchmarks/scoring.py --rates``,
``benchmarks/discards.py --rates``). ``--only scoring`` without ``--compare-python`` measures this
installation's scored hands/s alone.

Usage: ``python scripts/bench.py [--n 2000000] [--peer-n 20000] [--peer-hands 200000] [--repeat 3] [--compile]
[--compare-python /path/to/other/venv/bin/python] [--rounds 3] [--json OUT]
[--only compile|compare|scoring|discards|end-to-end|rollouts|decisions|vector|peers|policies]``
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

#: ``--only`` -> the families it runs, in order
ONLY = {
    "compile": ("compile",),
    "compare": ("compare",),
    "scoring": ("scoring",),
    "discards": ("discards",),
    "end-to-end": ("end_to_end", "decisions"),
    "rollouts": ("rollouts",),
    "decisions": ("decisions",),
    "vector": ("vector",),
    "peers": ("peers",),
    "policies": ("policies",),
}
DEFAULT = ("kernels", "end_to_end", "decisions", "peers", "policies", "rollouts", "vector")


def main(argv=None) -> int:
    sys.path.insert(0, str(BENCHMARKS))
    import run_all
    from _common import OPTIONS, add_options

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_options(ap, [name for name in OPTIONS if name != "rates"])
    ap.add_argument("--compile", action="store_true", help="measure compile times in a fresh cache directory")
    ap.add_argument(
        "--only",
        choices=(*ONLY, "scoring-rates", "discard-rates"),
        help="run only that section (scoring-rates, discard-rates: this installation's figures as JSON, for "
        "scoring and discards)",
    )
    args = ap.parse_args(argv)
    args.rates = args.only in ("scoring-rates", "discard-rates")
    if args.rates:  # one side of a comparison: nothing but the JSON line
        module = importlib.import_module("scoring" if args.only == "scoring-rates" else "discards")
        module.run(args, None)
        return 0
    if args.only == "compare" and not args.compare_python:
        raise SystemExit("bench: --only compare needs --compare-python")
    if args.only:
        families = ONLY[args.only]
    else:
        families = DEFAULT + (("compile",) if args.compile else ()) + (("compare",) if args.compare_python else ())
    run_all.run_families(families, args, argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
