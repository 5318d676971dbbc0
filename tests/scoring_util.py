"""Helpers of the scoring tests: the one adapter through which the hand-worked tests of every rule
set (tests/test_scoring_<rule set>.py) score a hand, with the pure-Python reference or with
``simkit.score``, and the batch helpers used by the random comparisons."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

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


MELD_SIZES = {"pung": 3, "kong": 4, "added_kong": 4, "concealed_kong": 4}


def meld_string(meld) -> str:
    """A meld as simkit writes it: a meld string ('pung 222m') as it is, a (type, tile) pair
    (('pung', '2m'), the lowest tile of a chow) as its meld string."""
    if isinstance(meld, str):
        return meld
    typ, tile = meld
    if typ == "chow":
        return meld_text(typ, kind(tile))
    return f"{typ} {tile[0] * MELD_SIZES[typ]}{tile[1]}"


def simkit_result(rule_set: str, hand, win, melds=(), options=None, **kw):
    """``simkit.score`` under ``rule_set`` with ``options``; returns the Score."""
    import simkit

    rules = simkit.get_rules(rule_set, **(options or {}))
    return simkit.score(hand, win, [meld_string(m) for m in melds], rules=rules, **kw)


# ------------------------------------------------------------------ one adapter, four rule sets

#: The pure-Python reference scorer of each rule set (a module with ``ref_score``).
REFERENCE_MODULES = {
    "douque": "reference_scoring",
    "night_market": "reference_scoring_night_market",
    "duel": "reference_scoring_duel",
    "for_two": "reference_scoring_for_two",
}


def _split_part(text: str) -> tuple[str, int]:
    """'chow 456m*' -> ('chow', 3): a part of ``Score.split`` as the references write it."""
    from simkit.tiles import parse_tile_list

    shape, tiles = text.rstrip("*").split()
    return shape, parse_tile_list(tiles)[0]


def _douque_fields(r, n_melds: int) -> dict:
    concealed = r.split[n_melds:]
    (win_part,) = [_split_part(x) for x in concealed if x.endswith("*")]
    return dict(
        items=r.items,
        hand_tai=r.hand_tai,
        dealer_tai=r.dealer_tai,
        total_tai=r.total_tai,
        points=r.points,
        split=tuple(sorted(_split_part(x) for x in concealed)),
        win_part=win_part,
    )


def _night_market_fields(r, n_melds: int) -> dict:
    assert r.fan == sum(r.items.values())
    return dict(items=r.items, fan=r.fan, points=r.points)


def _duel_fields(r, n_melds: int) -> dict:
    assert r.fan == sum(r.items.values()) and r.points == r.win_payment + r.kong_payment
    return dict(
        items=r.items,
        fan=r.fan,
        multiple=r.multiple,
        win_payment=r.win_payment,
        kong_payment=r.kong_payment,
        points=r.points,
        fee=r.fee,
    )


def _for_two_fields(r, n_melds: int) -> dict:
    assert r.combination_points == sum(r.items.values())
    return dict(items=r.items, combination_points=r.combination_points, points=r.points)


#: What a rule set's hand-worked tests read of a ``simkit.Score``, under the keys of its reference's
#: result (each also checks the Score's own sums).
SIMKIT_FIELDS = {
    "douque": _douque_fields,
    "night_market": _night_market_fields,
    "duel": _duel_fields,
    "for_two": _for_two_fields,
}

IMPLEMENTATIONS = ("reference", "simkit")


class ScoringAdapter:
    """Scores hands of one rule set with the implementation under test: the pure-Python reference
    (``REFERENCE_MODULES``) or ``simkit.score`` (the numba kernel), the same dict either way.

    A test module binds its names once::

        ADAPTER = ScoringAdapter("duel")
        implementation, score, items = ADAPTER.implementation, ADAPTER.score, ADAPTER.items

    ``implementation`` is an autouse fixture over :data:`IMPLEMENTATIONS`, so every test of the
    module runs against both (ids ``[reference]`` and ``[simkit]``); a test that needs to know which
    one it runs against takes ``implementation`` as an argument.

    ``score(hand, win, melds=(), options=None, **flags)``: ``hand`` the concealed tiles including the
    winning tile, ``win`` the winning tile, ``melds`` meld strings (``"pung 222m"``) or (type,
    lowest tile) pairs (``("pung", "2m")``), ``options`` the rule set's options, ``flags`` the win
    flags of ``simkit.score`` / ``ref_score``. Bad input raises ``ValueError`` in both.
    """

    def __init__(self, rule_set: str):
        self.rule_set = rule_set
        try:
            self.reference = importlib.import_module(REFERENCE_MODULES[rule_set])
        except ImportError:
            self.reference = importlib.import_module(f"tests.{REFERENCE_MODULES[rule_set]}")
        self._fields = SIMKIT_FIELDS[rule_set]
        self.current = "reference"

        @pytest.fixture(autouse=True, params=IMPLEMENTATIONS)
        def implementation(request):
            """Run every test against the reference scorer and against simkit.score (the kernel)."""
            self.current = request.param
            yield request.param
            self.current = "reference"

        self.implementation = implementation

    def score(self, hand: str, win: str, melds=(), options=None, **kw) -> dict:
        melds = [meld_string(m) for m in melds]
        if self.current == "simkit":
            r = simkit_result(self.rule_set, hand, win, melds, options, **kw)
            assert r.rule_set == self.rule_set
            return self._fields(r, len(melds))
        return self.reference.ref_score(ref.parse_hand(hand), kind(win), ref_melds(melds), options=options, **kw)

    def items(self, hand: str, win: str, melds=(), **kw) -> dict:
        return self.score(hand, win, melds, **kw)["items"]


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
