"""Regenerate the sample dataset in ``data/sample/`` (the notebooks' and the README's small run).

2,000 whole douque matches, greedy vs greedy, seed 0 (the README's main job, about 32,000 hands in
one Parquet shard of about 2 MB), dealt with the original deal ("dealer", shared wall): the sample
was written before the wall designs existed, and the notebooks' numbers come from it; ``--deal seat``
(with ``--wall stable``) makes the same job with today's default design. The rows depend only on the arguments, so a rerun rewrites the
same rows (the manifest's times and command line change). Larger runs belong in ``data/runs/``
(ignored by git)::

    python3 scripts/make_sample.py                       # data/sample/
    python3 scripts/make_sample.py --matches 500 --out /tmp/sample
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=SAMPLE, help=f"run directory (default {SAMPLE.relative_to(ROOT)})")
    parser.add_argument("--matches", type=int, default=2000, help="matches (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    parser.add_argument("--deal", default="dealer", help="wall design: deal (default dealer, the sample's)")
    parser.add_argument("--wall", default=None, help="wall design: wall (default shared with the deal dealer)")
    args = parser.parse_args(argv)

    import simkit

    result = simkit.simulate(
        args.out,
        rules="douque",
        policies=("greedy", "greedy"),
        matches=args.matches,
        seed=args.seed,
        deal=args.deal,
        wall=args.wall,
        overwrite=True,
        command=["python3", "scripts/make_sample.py", *(argv if argv is not None else sys.argv[1:])],
    )
    size = sum(p.stat().st_size for p in Path(result.path).iterdir() if p.is_file() and not p.name.startswith("."))
    print(f"{result.path}: {result.rows:,} hands in {result.matches:,} matches, {size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
