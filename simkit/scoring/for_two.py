"""Mahjong for 2 scoring (rules/for_two.md, Scoring (I)): combinations, kernel, payment.

Items
-----
A winning hand is one of the five basic combinations of the source's table (four melds + a pair:
4 pungs, 3 pungs + 1 chow, 2 + 2, 1 + 3, 4 chows; kongs count as pungs). :data:`ITEMS` names them,
in the source's order; the item of the scored combination holds its combination points (option
``combination_points``, 5 4 3 2 1 by default) and the others 0, so the items sum to the
combination points and each dataset row carries the points it was scored with. The loser pays
``bid * stake * combination points``, times ``self_drawn_multiplier`` (2) for a self-draw
(:func:`payment`); an opponent who does not follow the bid pays ``fold_payment * stake``
(:func:`fold_payment`).

Decisions where for_two.md leaves room (the reference scorer ``tests/reference_scoring_for_two.py``
was written from the rules file with the same decisions):

* Claimed chows and concealed chows count alike; so do claimed, concealed and kong "pungs".
* Best split: the combination with the most points over every split of the concealed part; ties
  (possible only with custom points) go to the lexicographically largest item vector, i.e. the
  combination with more pungs. Where the winning tile sits changes nothing; the scored split marks
  the first part holding it.
* The self-draw doubling is a factor on the payment, not an item; nothing else (replacement, last
  tile, robbing, which the rule set does not have) changes the score.
* Item values are float64 (the points option takes any positive numbers); the kernel returns the
  combination points as a float.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit, pjit, prange
from .core import Item, ScoreWork, best_arrangement, item_total, tally_melds, work_of

__all__ = [
    "ITEMS",
    "ITEM_NAMES",
    "N_ITEMS",
    "ITEM_DTYPE",
    "VALUES",
    "REPLACES",
    "ForTwoParams",
    "params_of",
    "values_of",
    "new_work",
    "score_kernel",
    "score_batch_kernel",
    "payment",
    "fold_payment",
]

ITEMS: tuple[Item, ...] = (
    Item("four_pungs", "11 111 111 111 111", "combination_points[0] (5)", "pair + 4 pungs/kongs"),
    Item("three_pungs_one_chow", "11 111 111 111 123", "combination_points[1] (4)", "pair + 3 pungs + 1 chow"),
    Item("two_pungs_two_chows", "11 111 111 123 123", "combination_points[2] (3)", "pair + 2 pungs + 2 chows"),
    Item("one_pung_three_chows", "11 111 123 123 123", "combination_points[3] (2)", "pair + 1 pung + 3 chows"),
    Item("four_chows", "11 123 123 123 123", "combination_points[4] (1)", "pair + 4 chows"),
)
ITEM_NAMES: tuple[str, ...] = tuple(item.name for item in ITEMS)
N_ITEMS = len(ITEMS)  #: length of the item vector (item ``i`` is the combination with ``i`` chows)
ITEM_DTYPE = np.float64  #: dtype of the item columns of :func:`score_batch_kernel`
#: points of each combination at the default options (option ``combination_points``: :func:`values_of`)
VALUES = np.array([5.0, 4.0, 3.0, 2.0, 1.0], np.float64)
#: the items each item replaces: none (a hand is scored as exactly one combination)
REPLACES: dict[str, tuple[str, ...]] = {}


class ForTwoParams(NamedTuple):
    """The scoring and payment options, for the kernels (from :func:`params_of`)."""

    stake: float  #: coins per stake unit
    combination_points: np.ndarray  #: float64[5], points of the combination with i chows
    self_drawn_multiplier: float  #: factor on the payment of a self-drawn win
    fold_payment: float  #: stakes the opponent pays the banker when not following the bid


def params_of(rules) -> ForTwoParams:
    """Kernel parameters of a for_two :class:`~simkit.rules.Rules`."""
    o = rules.options
    points = np.array([float(x) for x in o.combination_points], np.float64)
    return ForTwoParams(float(o.stake), points, float(o.self_drawn_multiplier), float(o.fold_payment))


def values_of(rules) -> np.ndarray:
    """The points of each combination (:data:`ITEMS` order) under the options of a for_two Rules."""
    return params_of(rules).combination_points.copy()


def new_work() -> ScoreWork:
    """Fresh scratch arrays for :func:`score_kernel`."""
    return work_of(np.zeros(N_ITEMS, np.float64))


@jit
def payment(points, bid, self_drawn, p):  # pragma: no cover - compiled
    """What the loser pays: ``bid * p.stake * points``, times ``p.self_drawn_multiplier`` when
    self-drawn (float)."""
    x = bid * p.stake * points
    if self_drawn:
        x *= p.self_drawn_multiplier
    return x


@jit
def fold_payment(p):  # pragma: no cover - compiled
    """What an opponent who does not follow the bid pays the banker: ``p.fold_payment * p.stake``."""
    return p.fold_payment * p.stake


@jit(inline="always")
def _score_arrangement(a, hand, cand):  # pragma: no cover - compiled
    """The combination of one split: its points at the index of its number of chows, 0 elsewhere
    (``hand``: the combination points)."""
    for i in range(N_ITEMS):
        cand[i] = 0.0
    cand[a.chows] = hand[a.chows]


@jit
def score_kernel(counts, win_tile, melds, n_melds, self_drawn, t, p, work, items):  # pragma: no cover - compiled
    """Score a complete for_two hand; returns its combination points and fills ``items``.

    Parameters
    ----------
    counts : uint8[34]
        Concealed tiles including the winning tile (``14 - 3 * n_melds``); must be complete.
    win_tile : int
        Kind of the winning tile (only marks the scored split).
    melds : int array (>= n_melds, 2)
        Rows ``(meld type code, lowest kind)`` as in :mod:`simkit.melds` (chows included).
    self_drawn : bool
        Not used by the points (only by :func:`payment`); taken for a uniform signature.
    t : HandTables
    p : ForTwoParams
    work : ScoreWork
        From :func:`new_work` (float64 candidate vector). On return ``work.choice`` holds
        (split, part of the winning tile) of the scored split in ``work.splits``.
    items : float64 array (N_ITEMS,)
        Output: the scored combination's points at its index, 0 elsewhere. Returns -1.0 (items
        zero) if not complete.
    """
    for i in range(N_ITEMS):
        items[i] = 0.0
    mt = tally_melds(melds, n_melds)
    if not best_arrangement(
        _score_arrangement, False, False, counts, n_melds, win_tile, not self_drawn, mt, t, work, items,
        p.combination_points,
    ):
        return -1.0
    return item_total(items, 0.0)


@pjit
def score_batch_kernel(counts, win_tile, melds, n_melds, self_drawn, t, p, items, points):  # pragma: no cover - compiled
    """Score N hands on all cores: arrays of length N (``counts`` (N, 34), ``melds`` (N, 4, 2)),
    ``items`` float64[N, N_ITEMS] and ``points`` float64[N] out (-1 for a hand that is not
    complete)."""
    n = counts.shape[0]
    chunk = 256
    for c in prange((n + chunk - 1) // chunk):
        work = work_of(np.zeros(N_ITEMS, np.float64))
        for i in range(c * chunk, min(n, (c + 1) * chunk)):
            points[i] = score_kernel(counts[i], win_tile[i], melds[i], n_melds[i], self_drawn[i], t, p, work, items[i])
