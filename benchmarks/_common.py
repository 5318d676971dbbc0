"""What every benchmark family shares: the options, the machine facts, the timing helper (best of
``repeat``), the rate format, the records and their JSON file, and the subprocess runner of the
side-by-side measurements (a neutral working directory, so that the child imports its own
installation's simkit, not the checkout's).

A family module defines ``FAMILY`` (its name), ``OPTIONS`` (the names of :data:`OPTIONS` it
takes) and ``run(args, rec)``, which prints its figures as before and adds each one to ``rec``
(a :class:`Records`); ``main_for(module)`` is its ``main``. The JSON file is one object:
``{"machine": {...}, "records": [{"family", "name", "value", "unit", "n", "repeat", "params"}, ...]}``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

#: Every option of the families: name -> (flag, argparse keywords). A family takes a subset.
OPTIONS = {
    "n": ("--n", dict(type=int, default=2_000_000, help="hands per simkit measurement")),
    "peer_n": ("--peer-n", dict(type=int, default=20_000, help="hands per mahjong-package measurement")),
    "peer_hands": (
        "--peer-hands",
        dict(
            type=int,
            default=200_000,
            help="136-tile hands per simkit and RiichiEnv measurement in the peer section; "
            "positions per rule set in the discard section",
        ),
    ),
    "repeat": ("--repeat", dict(type=int, default=3, help="runs per simkit measurement (best is kept)")),
    "seed": ("--seed", dict(type=int, default=2026)),
    "matches": ("--matches", dict(type=int, default=2000, help="greedy matches per engine measurement")),
    "compare_python": ("--compare-python", dict(help="python of another simkit installation to measure side by side")),
    "rounds": (
        "--rounds",
        dict(type=int, default=3, help="alternating rounds of fresh processes in the scoring and discard comparisons"),
    ),
    "rollouts": ("--rollouts", dict(type=int, default=20_000, help="continuations per action in the rollout section")),
    "rates": (
        "--rates",
        dict(
            action="store_true",
            help="print only this installation's figures as one JSON line (one side of a comparison)",
        ),
    ),
}


def add_options(ap: argparse.ArgumentParser, names) -> None:
    """Add the options ``names`` (keys of :data:`OPTIONS`) and ``--json`` to ``ap``."""
    for name in names:
        flag, kwargs = OPTIONS[name]
        ap.add_argument(flag, **kwargs)
    ap.add_argument("--json", metavar="OUT", help="also write the figures to OUT as JSON")


def best(fn, repeat: int) -> float:
    """The best (smallest) wall time in seconds of ``repeat`` calls of ``fn``."""
    best_time = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best_time = min(best_time, time.perf_counter() - t0)
    return best_time


def fmt(rate: float | None) -> str:
    if rate is None:
        return "-"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if rate >= scale:
            return f"{rate / scale:,.2f} {unit}/s"
    return f"{rate:,.0f} /s"


def run_neutral(cmd: list[str], **kwargs) -> str:
    """Run ``cmd`` in a neutral working directory (not the checkout: ``python -c`` imports from
    its working directory first) and return its standard output; a failure raises."""
    return subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=tempfile.gettempdir(), **kwargs).stdout


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parent,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def machine_facts(argv=None) -> dict:
    """Cores, architecture, numba's threads and threading layer, the versions of simkit, numba,
    numpy and python, the checkout's commit and the command line."""
    import numba

    import simkit

    try:
        from simkit._jit import threading_layer

        layer = threading_layer()
    except Exception:  # noqa: BLE001 - numba names its layer only after a parallel run
        layer = None
    return {
        "cores": os.cpu_count(),
        "arch": platform.machine(),
        "processor": platform.processor() or platform.machine(),
        "numba_threads": numba.get_num_threads(),
        "threading_layer": layer,
        "versions": {
            "simkit": simkit.__version__,
            "numba": numba.__version__,
            "numpy": np.__version__,
            "python": platform.python_version(),
        },
        "simkit_path": os.path.dirname(simkit.__file__),
        "commit": _git_commit(),
        "python": sys.executable,
        "command": [sys.executable, *sys.argv] if argv is None else [sys.executable, sys.argv[0], *argv],
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def print_header() -> None:
    """The machine and versions lines every run starts with."""
    import numba

    import simkit

    print("simkit bench")
    print(
        f"  machine      {os.cpu_count()} cores ({platform.processor() or platform.machine()}), "
        f"numba threads {numba.get_num_threads()}"
    )
    print(
        f"  versions     simkit {simkit.__version__}, numba {numba.__version__}, numpy {np.__version__}, "
        f"python {platform.python_version()}"
    )


class Records:
    """The figures of a run, as records ``{"family", "name", "value", "unit", "n", "repeat", "params"}``."""

    def __init__(self, repeat: int | None = None):
        self.family = None
        self.repeat = repeat
        self.records: list[dict] = []

    def add(self, name: str, value, unit: str, n=None, repeat=None, **params) -> None:
        self.records.append(
            {
                "family": self.family,
                "name": name,
                "value": None if value is None else float(value),
                "unit": unit,
                "n": None if n is None else int(n),
                "repeat": self.repeat if repeat is None else repeat,
                "params": {k: v for k, v in params.items() if v is not None},
            }
        )


def write_json(path, machine: dict, records: list[dict]) -> None:
    Path(path).write_text(json.dumps({"machine": machine, "records": records}, indent=1) + "\n", encoding="utf-8")


def main_for(module, argv=None) -> int:
    """The ``main`` of a family module: parse its options, print the header, run it, write JSON."""
    ap = argparse.ArgumentParser(description=(module.__doc__ or module.FAMILY).splitlines()[0])
    add_options(ap, module.OPTIONS)
    args = ap.parse_args(argv)
    if getattr(args, "rates", False):  # one side of a comparison: nothing but the JSON line
        return module.run(args, None) or 0
    print_header()
    rec = Records(getattr(args, "repeat", None))
    rec.family = module.FAMILY
    status = module.run(args, rec) or 0
    if args.json:
        write_json(args.json, machine_facts(argv), rec.records)
        print(f"\n  figures written to {args.json} ({len(rec.records)} records)")
    return status
