"""Routes to a winning hand: how far a hand is from each, and what each is worth in a rule set.

A *route* is a family of complete hands that a rule set may pay differently:

==============  ==================================================================================
``plain``       any complete hand (melds and a pair; seven pairs where the rule set has them)
``all_pungs``   four pungs or kongs and a pair
``half_flush``  characters and honors only
``full_flush``  characters only
``seven_pairs`` seven pairs (rule sets that have them; no melds)
==============  ==================================================================================

:func:`route_distances` gives, for each route, the least number of tiles a hand must draw (each
replacing one of its tiles) to complete it -- the same distance as shanten + 1, restricted to the
route's targets -- from the per-suit distance rows of :mod:`simkit.hand.tables`.

:func:`route_values` asks the rule set's own scorer (:func:`simkit.scoring.score`, with the run's
options; it reads the item tables of ``simkit/scoring/items/``) what a typical hand of each route pays, concealed or not, self-drawn or on a discard, and
what a declaration (douque's Declare Ready and MIGI), a valued honor pung (douque's dragon and wind
pungs), a dealer's streak and a kong add. Those numbers are the only thing the value-aware policy
(:mod:`simkit.policies.value`) knows about scoring, so it plays every rule set from its own
table: a rule option that changes a value (e.g. ``migi_tai``) changes its play. A route a rule set
does not pay for is worth what its typical hand scores there, no more than a plain hand (so the
policy never goes out of its way for it); one that cannot occur (seven pairs in douque) is worth -1.
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import jit, stack_empty
from ..errors import SimkitError
from ..hand.shanten import seven_pairs_distance
from ..hand.tables import DIST_MASK, DIST_SHIFT, INF
from ..melds import MELD_CHOW, MELD_CONCEALED_KONG
from ..rules import resolve_rules
from ..scoring import score

__all__ = [
    "ROUTES",
    "PLAIN",
    "ALL_PUNGS",
    "HALF_FLUSH",
    "FULL_FLUSH",
    "SEVEN_PAIRS",
    "N_ROUTES",
    "FAR",
    "VALUE_FIELDS",
    "N_VALUES",
    "value_index",
    "route_values",
    "route_values_table",
    "meld_flags",
    "outside",
    "route_distances",
]

ROUTES = ("plain", "all_pungs", "half_flush", "full_flush", "seven_pairs")
PLAIN, ALL_PUNGS, HALF_FLUSH, FULL_FLUSH, SEVEN_PAIRS = range(5)
N_ROUTES = len(ROUTES)
FAR = 99  #: distance of a route the hand cannot take (e.g. a flush with a melded dot pung)

_CHARACTERS = 0  #: first kind of the characters
_HONORS = 27  #: first honor kind

#: the values :func:`route_values` returns, in order: ``route/concealed|open/discard|self`` for every
#: route, then the extras (points added to a win; 0 where the rule set has no such item)
VALUE_FIELDS = tuple(
    f"{route}/{c}/{w}" for route in ROUTES for c in ("open", "concealed") for w in ("discard", "self")
) + (
    "declare_ready/discard",
    "declare_ready/self",  # douque: Declare Ready won, over the same hand undeclared
    "migi/discard",
    "migi/self",  # douque: MIGI won
    "valued_honor_pung",  # douque: a dragon pung, or a pung of the seat or prevailing wind
    "per_streak",  # douque: what one more hand of the dealer's streak adds to every payment
    "concealed_kong",
    "exposed_kong",
    "added_kong",  # duel: the kong payments
)
N_VALUES = len(VALUE_FIELDS)


def value_index(route: int, concealed: bool, self_drawn: bool) -> int:
    """Index in :data:`VALUE_FIELDS` of a route's value (the jitted policy computes the same)."""
    return (route * 2 + int(concealed)) * 2 + int(self_drawn)


# ---------------------------------------------------------------------------------------------
# what each route pays: the rule set's own scorer on a typical hand of it

#: a typical complete hand of each route ``(concealed tiles with the winning tile, melds when open,
#: winning tile)``; the mixed-suit hands differ by tile set (a dots pung where there are dots, else
#: two honor sets, so that no flush-like item applies). Every winning tile has two waiting kinds
#: (no single-wait item), and no honor pung is one douque values.
_TYPICAL = {
    "plain": {
        "dots": ("123m456m789m999p11p", "123m456m789m11p", ["pung 999p"], "4m"),
        "honors": ("123m456m789m222z66z", "123m456m789m66z", ["pung 222z"], "4m"),
    },
    "all_pungs": {
        "dots": ("111m555m999m999p11p", "111m555m11p", ["pung 999p", "pung 999m"], "1m"),
        "honors": ("111m555m999m222z66z", "111m555m66z", ["pung 222z", "pung 999m"], "1m"),
    },
    "half_flush": ("123m456m789m234m66z", "123m456m234m66z", ["pung 999m"], "4m"),
    "full_flush": ("123m456m789m234m99m", "123m456m234m99m", ["pung 888m"], "4m"),
    "seven_pairs": ("11m33m55m77m99m11z22z", None, None, "2z"),
}
_VALUED_HONOR = ("123m456m789m555z11p", "4m")  #: douque: plain with a White Dragon pung (dots rule sets)


def _points(hand, melds, win, rules, self_drawn, **flags) -> float:
    try:
        return float(score(hand, win, melds, rules=rules, self_drawn=self_drawn, **flags).points)
    except SimkitError:  # the hand cannot occur in this rule set (no seven pairs, no such tiles)
        return math.nan


def route_values(rules) -> np.ndarray:
    """float64[:data:`N_VALUES`]: what a win by each route pays in ``rules`` (a Rules object, with
    its options), from the rule set's own scorer (:func:`simkit.scoring.score`); see
    :data:`VALUE_FIELDS` and the module docstring. douque's payments are the non-dealer's at
    streak 0 (the dealer tai of 1 included); for_two's are at a bid of 1."""

    rules = resolve_rules(rules)
    kinds = set(int(k) for k in rules.kinds)
    tiles = "dots" if 9 + 8 in kinds else "honors"  # 9p: douque and for_two
    out = np.zeros(N_VALUES, np.float64)
    for r, route in enumerate(ROUTES):
        spec = _TYPICAL[route]
        concealed, open_hand, melds, win = spec[tiles] if isinstance(spec, dict) else spec
        for c, (hand, ms) in enumerate(((open_hand, melds), (concealed, []))):
            for w in (0, 1):
                out[value_index(r, bool(c), bool(w))] = (
                    math.nan if hand is None else _points(hand, ms, win, rules, bool(w))
                )
    plain = out[[value_index(PLAIN, c, w) for c in (0, 1) for w in (0, 1)]]
    for r in range(1, N_ROUTES):  # a route the rule set cannot score (e.g. seven pairs in douque): -1
        for c in (0, 1):
            for w in (0, 1):
                i = value_index(r, bool(c), bool(w))
                if math.isnan(out[i]):
                    out[i] = -1.0
    if rules.name == "douque":
        hand, _, _, win = _TYPICAL["plain"]["dots"]
        base = N_ROUTES * 4
        for w in (0, 1):
            undeclared = out[value_index(PLAIN, True, bool(w))]
            out[base + w] = _points(hand, [], win, rules, bool(w), declared="ready") - undeclared
            out[base + 2 + w] = _points(hand, [], win, rules, bool(w), declared="migi") - undeclared
        out[base + 4] = (
            _points(_VALUED_HONOR[0], [], _VALUED_HONOR[1], rules, False) - out[value_index(PLAIN, True, False)]
        )
        out[base + 5] = _points(hand, [], win, rules, False, streak=1) - out[value_index(PLAIN, True, False)]
    if rules.name == "duel":
        stake = float(rules.options.stake)
        out[N_ROUTES * 4 + 6 : N_ROUTES * 4 + 9] = (4 * stake, 2 * stake, 1 * stake)
    if np.isnan(plain).any():
        raise ValueError(f"route_values: the rule set {rules.name} could not score a plain hand")
    return out


def route_values_table(rules):
    """:func:`route_values` as a pandas Series indexed by :data:`VALUE_FIELDS` (to read them)."""
    import pandas as pd

    return pd.Series(route_values(rules), index=list(VALUE_FIELDS), name="points")


# ---------------------------------------------------------------------------------------------
# distances


@jit(inline="always")
def _field(word, j):  # pragma: no cover - compiled
    return (np.int64(word) >> DIST_SHIFT[j]) & DIST_MASK[j]


@jit
def meld_flags(melds, n_melds):  # pragma: no cover - compiled
    """``(open, chow, outside_characters, outside_characters_and_honors)`` of melds ``(code, kind)``:
    whether any is claimed or exposed (not a concealed kong), any is a chow, any holds a kind that
    is not a character, any a kind that is neither a character nor an honor."""
    opened = False
    chow = False
    out_m = False
    out_mz = False
    for m in range(n_melds):
        code = melds[m, 0]
        kind = melds[m, 1]
        if code != MELD_CONCEALED_KONG:
            opened = True
        if code == MELD_CHOW:
            chow = True
        m, mz = outside(kind)
        out_m |= m
        out_mz |= mz
    return opened, chow, out_m, out_mz


@jit(inline="always")
def outside(kind):  # pragma: no cover - compiled
    """``(outside_characters, outside_characters_and_honors)`` of one kind (as :func:`meld_flags`)."""
    return kind >= _CHARACTERS + 9, _CHARACTERS + 9 <= kind < _HONORS


@jit
def route_distances(hand, n_melds, chow, out_m, out_mz, plain_distance, t, out):  # pragma: no cover - compiled
    """Fill ``out`` (int64[N_ROUTES]) with the tiles ``hand`` (a concealed part of 13 - 3k tiles
    with ``n_melds`` melds) must draw to complete each route (:data:`FAR` where it cannot).

    ``chow``, ``out_m``, ``out_mz``: the melds' flags (:func:`meld_flags`); ``plain_distance``:
    shanten + 1 of the hand (the plain route, computed by the caller)."""
    need = 4 - n_melds
    out[PLAIN] = plain_distance
    # all pungs: the need + 1 fullest kinds hold the pungs and the pair
    if chow:
        out[ALL_PUNGS] = FAR
    else:
        top = stack_empty(5, np.int64)
        for j in range(5):
            top[j] = 0
        for i in range(t.kinds.shape[0]):
            c = np.int64(hand[t.kinds[i]])
            if c > 3:
                c = 3
            j = need
            if c > top[j]:
                while j > 0 and top[j - 1] < c:
                    top[j] = top[j - 1]
                    j -= 1
                top[j] = c
        pungs = np.int64(0)
        for j in range(need + 1):
            pungs += 3 - top[j]
        best = np.int64(FAR)
        for j in range(need + 1):
            d = pungs - (3 - top[j]) + max(2 - top[j], 0)
            if d < best:
                best = d
        out[ALL_PUNGS] = best
    # flushes: the characters' row, and the honors' (a pung-only row keyed by its histogram)
    code = np.int64(0)
    p = np.int64(1)
    for r in range(9):
        code += np.int64(hand[_CHARACTERS + r]) * p
        p *= 5
    word = t.dist[code]
    out[FULL_FLUSH] = FAR if out_m else _field(word, 2 * need + 1)
    if out_mz:
        out[HALF_FLUSH] = FAR
    else:
        h = np.int64(0)
        for k in range(_HONORS, 34):
            c = hand[k]
            if c > 0:
                h += np.int64(10) ** (c - 1)
        best = np.int64(FAR)
        for m1 in range(need + 1):
            for p1 in range(2):
                a = _field(word, 2 * m1 + p1)
                b = np.int64(t.hdist[h, 2 * (need - m1) + 1 - p1])
                if a < INF and b < INF and a + b < best:
                    best = a + b
        out[HALF_FLUSH] = best
    out[SEVEN_PAIRS] = seven_pairs_distance(hand, t) if (t.seven_pairs and n_melds == 0) else FAR
