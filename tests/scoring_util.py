"""Helpers of the rule-set scoring tests: one call that scores a hand with the pure-Python reference
or with ``simkit.score``, and the batch adapter used by the random comparisons."""

from __future__ import annotations

import numpy as np

try:  # tests/ on sys.path (conftest.py) ...
    import reference as ref
except ImportError:  # ... or tests as a package
    from tests import reference as ref

MELD_CODES = {"pung": 0, "kong": 1, "added_kong": 2, "concealed_kong": 3, "chow": 4}


def kind(text: str) -> int:
    """'5m' -> 4, '7z' -> 33."""
    (i,) = [i for i, x in enumerate(ref.parse_hand(text)) if x]
    return i


def ref_melds(melds) -> list[tuple[str, int]]:
    """Meld strings ('pung 222m', 'chow 345m') as the references' (type, lowest kind) pairs."""
    out = []
    for text in melds:
        typ, tiles = text.split()
        counts = ref.parse_hand(tiles)
        out.append((typ, min(i for i, x in enumerate(counts) if x)))
    return out


def meld_text(typ: str, k: int) -> str:
    """A reference meld (type, lowest kind) as a simkit meld string."""
    suit = "mpsz"[k // 9]
    rank = k % 9 + 1
    if typ == "chow":
        return f"chow {rank}{rank + 1}{rank + 2}{suit}"
    return f"{typ} {str(rank) * (3 if typ == 'pung' else 4)}{suit}"


def simkit_result(rule_set: str, hand, win, melds=(), options=None, **kw):
    """``simkit.score`` under ``rule_set`` with ``options``; returns the Score."""
    import simkit

    rules = simkit.get_rules(rule_set, **(options or {}))
    return simkit.score(hand, win, list(melds), rules=rules, **kw)


def batch_arrays(cases):
    """Counts uint8[N, 34], win int[N], melds int[N, 4, 2], n_melds int[N] of reference cases."""
    n = len(cases)
    counts = np.array([c["counts"] for c in cases], np.uint8)
    melds = np.zeros((n, 4, 2), np.int64)
    for i, c in enumerate(cases):
        for j, (typ, k) in enumerate(c["melds"]):
            melds[i, j] = (MELD_CODES[typ], k)
    win = np.array([c["win_tile"] for c in cases], np.int64)
    n_melds = np.array([len(c["melds"]) for c in cases], np.int64)
    return counts, win, melds, n_melds


def flag(cases, key, default=False):
    """One flag of every case as an array."""
    return np.array([c.get(key, default) for c in cases])


def options_groups(cases) -> dict:
    """Indices of the cases grouped by their options (one Rules object per group)."""
    groups: dict = {}
    for i, c in enumerate(cases):
        key = tuple(sorted(c.get("options", {}).items()))
        groups.setdefault(key, []).append(i)
    return groups
