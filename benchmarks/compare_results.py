"""Compare two benchmark results (the JSON files of ``benchmarks/run_all.py --json`` or of a family's
``--json``), for two commits or two machines: the records are paired by family, name and params,
and each pair is printed with value A, value B and the ratio A / B; records in only one file are
listed after.

Usage: ``python3 benchmarks/compare_results.py A.json B.json``
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def load(path) -> tuple[dict, list[dict]]:
    """``(machine, records)`` of a result file (an object with ``records``, or a bare list of records)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if isinstance(data, list):
        machine = next((r for r in data if "machine" in r), {}).get("machine", {})
        return machine, [r for r in data if "name" in r]
    return data.get("machine", {}), list(data.get("records", []))


def key(record: dict) -> tuple:
    return (record.get("family"), record.get("name"), json.dumps(record.get("params", {}), sort_keys=True))


def pair(a: list[dict], b: list[dict]) -> tuple[list[tuple[dict, dict]], list[dict], list[dict]]:
    """``(pairs, only_a, only_b)``: records of ``a`` and ``b`` with the same key, in ``a``'s order
    (a key repeated in one file pairs its occurrences in order), and the records of one side only."""
    pending: dict = {}
    for r in b:
        pending.setdefault(key(r), []).append(r)
    pairs, only_a = [], []
    for r in a:
        match = pending.get(key(r))
        if match:
            pairs.append((r, match.pop(0)))
        else:
            only_a.append(r)
    only_b = [r for r in b if any(r is x for x in pending.get(key(r), []))]
    return pairs, only_a, only_b


def _label(record: dict) -> str:
    params = ", ".join(f"{k}={v}" for k, v in sorted(record.get("params", {}).items()))
    return f"{record.get('family')}: {record.get('name')}" + (f" [{params}]" if params else "")


def _value(v) -> str:
    if v is None:
        return "-"
    return f"{v:,.0f}" if abs(v) >= 1e4 else f"{v:,.4g}"


def compare(path_a, path_b, out=sys.stdout) -> tuple[list, list, list]:
    """Print the comparison of two result files; return :func:`pair`'s answer."""
    (machine_a, a), (machine_b, b) = load(path_a), load(path_b)
    pairs, only_a, only_b = pair(a, b)
    for side, path, machine in (("A", path_a, machine_a), ("B", path_b, machine_b)):
        v = machine.get("versions", {})
        print(
            f"{side}: {path}: commit {str(machine.get('commit'))[:12]}, {machine.get('cores')} cores "
            f"({machine.get('arch')}), numba threads {machine.get('numba_threads')}, simkit {v.get('simkit')}, "
            f"numba {v.get('numba')}, numpy {v.get('numpy')}, python {v.get('python')}",
            file=out,
        )
    width = min(max([len(_label(r)) for r, _ in pairs] + [6]), 90)  # a longer label overflows its column
    print(f"\n{'figure':<{width}}  {'A':>12}  {'B':>12}  {'A / B':>8}  unit", file=out)
    for ra, rb in pairs:
        va, vb = ra.get("value"), rb.get("value")
        ratio = f"{va / vb:.3f}" if va is not None and vb else "-"
        print(f"{_label(ra):<{width}}  {_value(va):>12}  {_value(vb):>12}  {ratio:>8}  {ra.get('unit', '')}", file=out)
    for side, records in (("A", only_a), ("B", only_b)):
        if records:
            print(f"\nonly in {side}:", file=out)
            for r in records:
                print(f"  {_label(r)}: {_value(r.get('value'))} {r.get('unit', '')}", file=out)
    return pairs, only_a, only_b


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("a", help="the first result (A)")
    ap.add_argument("b", help="the second result (B)")
    args = ap.parse_args(argv)
    compare(args.a, args.b)
    return 0


if __name__ == "__main__":
    sys.exit(main())
