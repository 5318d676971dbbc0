"""Mahjong for 2 scoring (docs/rules/for_two.md, Scoring (I)): combinations, kernel, payment.

Items
-----
A winning hand is one of the five basic combinations of the source's table (four melds + a pair:
4 pungs, 3 pungs + 1 chow, 2 + 2, 1 + 3, 4 chows; kongs count as pungs). :data:`ITEMS` (the table
``items/for_two.toml``) names them, in the source's order; the item of the scored combination holds its combination points (option
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
from .core import (
    RULE_SET_SCORING,
    batch_chunks,
    best_arrangement,
    item_table,
    item_total,
    score_chunk,
    tally_melds,
    work_factory,
)

__all__ = [*RULE_SET_SCORING, "ForTwoParams", "payment", "fold_payment"]

#: the item table (``items/for_two.toml``: one row per item, :class:`~simkit.scoring.core.Item`), the
#: item names (dataset columns), their number (the length of the item vector), their values at the
#: default options (:func:`values_of` gives them under a rule set's options), in table order, and
#: what each item replaces (``{item: items not scored beside it}``)
ITEMS, ITEM_NAMES, N_ITEMS, VALUES, REPLACES = item_table("for_two", np.float64)
ITEM_DTYPE = np.float64  #: dtype of the item columns of :func:`score_batch_kernel`


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


new_work = work_factory(N_ITEMS, np.float64)  #: fresh scratch arrays for :func:`score_kernel`


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


@jit(called_by_symbol=True)
def score_kernel(counts, win_tile, melds, n_melds, self_drawn, t, p, work, items):  # pragma: no cover - compiled
    """Score a complete for_two hand; returns its combination points and fills ``items``.

    ``counts``, ``win_tile`` (it only marks the scored split), ``melds``, ``n_melds``, ``t``,
    ``work`` (float64 candidate vector), ``items`` (float64: the scored combination's points at its
    index, 0 elsewhere; -1.0 is returned if not complete): as every rule set's
    (:mod:`simkit.scoring.core`); ``p``: :class:`ForTwoParams`.

    Parameters
    ----------
    self_drawn : bool
        Not used by the points (only by :func:`payment`); taken for a uniform signature.
    """
    for i in range(N_ITEMS):
        items[i] = 0.0
    mt = tally_melds(melds, n_melds)
    if not best_arrangement(
        _score_arrangement,
        False,
        False,
        counts,
        n_melds,
        win_tile,
        not self_drawn,
        mt,
        t,
        work,
        items,
        N_ITEMS,
        p.combination_points,
    ):
        return -1.0
    return item_total(items, 0.0)


@jit(inline="always")
def _score_row(i, work, rows):  # pragma: no cover - compiled
    """Hand ``i`` of a batch (:func:`score_batch_kernel`'s arrays) through :func:`score_kernel`."""
    counts, win_tile, melds, n_melds, self_drawn, t, p, items = rows
    return score_kernel(
        counts[i],
        win_tile[i],
        melds[i],
        n_melds[i],
        self_drawn[i],
        t,
        p,
        work,
        items[i],
    )


@pjit
def score_batch_kernel(
    counts, win_tile, melds, n_melds, self_drawn, t, p, items, points
):  # pragma: no cover - compiled
    """Score N hands on all cores (the batch layout of :mod:`simkit.scoring.core`): ``points`` float64[N]."""
    for c in prange(batch_chunks(counts.shape[0])):
        rows = (counts, win_tile, melds, n_melds, self_drawn, t, p, items)
        score_chunk(_score_row, c, counts.shape[0], np.zeros(N_ITEMS, np.float64), rows, points)
