"""Douque tai scoring (docs/rules/douque.md, Tai items and Payment): the item table, the numba kernel, and its parameters.

Items
-----
:data:`ITEMS` (the table ``items/douque.toml``: name, label, tai as written, condition, value,
replaced_by) is the one place the scoring items are named. Each name is stable snake_case: it is a
column of every simulation dataset. ``dragon_pung`` scores 1 tai per dragon pung or kong; the Tai items'
merges of All Honors with a dragon or wind pattern are items of their own (``all_honors_...``,
worth the sum minus 4) that replace both parts.

Decisions where douque.md leaves room (the reference scorer in ``tests/reference_scoring.py`` was
written from the rules file with the same decisions):

* A kong of any kind counts as a pung for every pung-based item. A pung of the concealed part is
  concealed unless the winning tile completed it on a discard win (a discard, a robbed kong tile, a
  Human Hand); a concealed kong is a concealed pung; claimed pungs, exposed and added kongs are not.
* Best split: over every split of the concealed part and every place the winning tile can take in
  it, the most hand tai; ties go to the arrangement whose item vector (in :data:`ITEM_NAMES` order)
  is lexicographically largest, so the choice never depends on enumeration order.
* Single Wait: the hand before the winning tile had exactly one winning kind (the waits kernel,
  which never counts a kind the winner holds 4 of). Not with Heavenly Hand; with Fully Melded only
  when ``fully_melded_single_wait``.
* Fully Melded: four melds that are pungs or exposed/added kongs (a concealed kong is not melded),
  won on a discard (a robbed kong tile counts as a discard).
* Seat Wind and Prevailing Wind stack on one pung. Little/Big Three Dragons replace every Dragon
  Pung; Little/Big Four Winds replace Seat and Prevailing Wind.
* Half Flush needs exactly one suit (characters, or the 1/9 dots) and at least one honor; Full
  Flush is characters only; All Honors is honors only.
* Out with Replacement Tile and Last Tile Draw need a self-draw and may stack. Dealer tai is
  ``1 + 2 * streak``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit, pjit, prange
from ..hand.waits import popcount, waits_kernel
from .core import (
    EAST,
    RULE_SET_SCORING,
    WHITE,
    Item,
    ScoreWork,
    batch_chunks,
    best_arrangement,
    item_table,
    item_total,
    meld_tiles,
    score_chunk,
    tally_melds,
    tile_suits,
    work_factory,
)

__all__ = [*RULE_SET_SCORING, "Item", "DouqueParams", "ScoreWork", "FIRST_TURNS", "DECLARATIONS"]

#: the item table (``items/douque.toml``: one row per item, :class:`~simkit.scoring.core.Item`), the
#: item names (dataset columns), their number (the length of the item vector), their values at the
#: default options (:func:`values_of` gives them under a rule set's options), in table order, and
#: what each item replaces (``{item: items not scored beside it}``)
ITEMS, ITEM_NAMES, N_ITEMS, VALUES, REPLACES = item_table("douque", np.int64)
# item indices (the kernel's vector positions)
SELF_DRAWN, CONCEALED_HAND, FULLY_CONCEALED, SEAT_WIND, PREVAILING_WIND, DRAGON_PUNG = range(6)
SINGLE_WAIT, REPLACEMENT_TILE, ROBBING_THE_KONG, LAST_TILE_DRAW, FULLY_MELDED = range(6, 11)
THREE_CONCEALED, FOUR_CONCEALED, ALL_PUNGS, HALF_FLUSH, FULL_FLUSH = range(11, 16)
LITTLE_DRAGONS, BIG_DRAGONS, LITTLE_WINDS, BIG_WINDS = range(16, 20)
ALL_HONORS, AH_LITTLE_DRAGONS, AH_BIG_DRAGONS, AH_LITTLE_WINDS, AH_BIG_WINDS = range(20, 25)
HEAVENLY, EARTHLY, HUMAN, MIGI, DECLARE_READY = range(25, 30)

ITEM_DTYPE = np.int16  #: dtype of the item columns of :func:`score_batch_kernel`


#: first_turn codes of the kernel: index in this tuple
FIRST_TURNS = (None, "heavenly", "earthly", "human")
#: declared codes of the kernel: index in this tuple
DECLARATIONS = (None, "ready", "migi")


class DouqueParams(NamedTuple):
    """The scoring options, as scalars for the kernel (from :func:`params_of`)."""

    heavenly_tai: int
    human_tai: int
    migi_tai: int
    declare_ready_tai: int
    fully_melded_single_wait: bool
    base: float
    tai_value: float


def params_of(rules) -> DouqueParams:
    """Kernel parameters of a douque :class:`~simkit.rules.Rules`."""
    o = rules.options
    return DouqueParams(
        int(o.heavenly_tai),
        int(o.human_tai),
        int(o.migi_tai),
        int(o.declare_ready_tai),
        bool(o.fully_melded_single_wait),
        float(o.base),
        float(o.tai_value),
    )


def values_of(rules) -> np.ndarray:
    """The tai of each item (:data:`ITEMS` order) under the options of a douque Rules."""
    p = params_of(rules)
    values = VALUES.copy()
    values[[HEAVENLY, HUMAN, MIGI, DECLARE_READY]] = p.heavenly_tai, p.human_tai, p.migi_tai, p.declare_ready_tai
    return values


new_work = work_factory(N_ITEMS, np.int64)  #: fresh scratch arrays for :func:`score_kernel`


@jit(inline="always")
def _score_arrangement(a, hand, cand):  # pragma: no cover - compiled
    """The tai of one arrangement that depend on it (docs/rules/douque.md, Tai items): winds, dragons, pungs, flushes, honors.
    ``hand``: (characters, dots, honors present, seat wind, prevailing wind)."""
    has_m, has_p, has_z, seat_wind, prevailing_wind = hand
    for i in (SEAT_WIND, PREVAILING_WIND, DRAGON_PUNG):
        cand[i] = 0
    for i in range(THREE_CONCEALED, AH_BIG_WINDS + 1):
        cand[i] = 0
    dragons = -1
    if a.dragons == 3:
        dragons = BIG_DRAGONS
    elif a.dragons == 2 and a.pair >= WHITE:
        dragons = LITTLE_DRAGONS
    winds = -1
    if a.winds == 4:
        winds = BIG_WINDS
    elif a.winds == 3 and EAST <= a.pair < WHITE:
        winds = LITTLE_WINDS
    if not has_m and not has_p:  # All Honors merges with a dragon or wind pattern
        if dragons == LITTLE_DRAGONS:
            cand[AH_LITTLE_DRAGONS] = VALUES[AH_LITTLE_DRAGONS]
        elif dragons == BIG_DRAGONS:
            cand[AH_BIG_DRAGONS] = VALUES[AH_BIG_DRAGONS]
        elif winds == LITTLE_WINDS:
            cand[AH_LITTLE_WINDS] = VALUES[AH_LITTLE_WINDS]
        elif winds == BIG_WINDS:
            cand[AH_BIG_WINDS] = VALUES[AH_BIG_WINDS]
        else:
            cand[ALL_HONORS] = VALUES[ALL_HONORS]
    else:
        if dragons >= 0:
            cand[dragons] = VALUES[dragons]
        else:
            cand[DRAGON_PUNG] = a.dragons * VALUES[DRAGON_PUNG]
        if winds >= 0:
            cand[winds] = VALUES[winds]
        else:
            cand[SEAT_WIND] = VALUES[SEAT_WIND] if (a.pung_kinds >> seat_wind) & 1 else 0
            cand[PREVAILING_WIND] = VALUES[PREVAILING_WIND] if (a.pung_kinds >> prevailing_wind) & 1 else 0
        if a.chows == 0:
            cand[ALL_PUNGS] = VALUES[ALL_PUNGS]
        if has_m and not has_p and not has_z:
            cand[FULL_FLUSH] = VALUES[FULL_FLUSH]
        elif has_z and (has_m != has_p):
            cand[HALF_FLUSH] = VALUES[HALF_FLUSH]
    if a.concealed_pungs >= 4:
        cand[FOUR_CONCEALED] = VALUES[FOUR_CONCEALED]
    elif a.concealed_pungs == 3:
        cand[THREE_CONCEALED] = VALUES[THREE_CONCEALED]


@jit(called_by_symbol=True)
def score_kernel(
    counts,
    win_tile,
    melds,
    n_melds,
    self_drawn,
    robbing_kong,
    replacement,
    last_tile,
    first_turn,
    declared,
    seat_wind,
    prevailing_wind,
    t,
    p,
    work,
    items,
):  # pragma: no cover - compiled
    """Score a complete douque hand; returns the hand tai and fills ``items`` (int[N_ITEMS]).

    ``counts``, ``win_tile``, ``melds``, ``n_melds``, ``t``, ``work``, ``items``: as every rule set's
    (:mod:`simkit.scoring.core`); ``p``: :class:`DouqueParams`.

    Parameters
    ----------
    self_drawn, robbing_kong, replacement, last_tile : bool
    first_turn, declared : int
        Codes, indices into :data:`FIRST_TURNS` and :data:`DECLARATIONS`.
    seat_wind, prevailing_wind : int
        Kinds (27 East ... 30 North).
    """
    for i in range(N_ITEMS):
        items[i] = 0
    mt = tally_melds(melds, n_melds)
    meld_tiles(melds, n_melds, work.meld_counts)
    has_m, has_p, has_z = tile_suits(counts, work.meld_counts)
    # --- win items (independent of the arrangement)
    cand = work.cand
    for i in range(N_ITEMS):
        cand[i] = 0
    heavenly_or_earthly = first_turn == 1 or first_turn == 2
    concealed = mt.claimed == 0
    if self_drawn and not heavenly_or_earthly:
        cand[SELF_DRAWN] = VALUES[SELF_DRAWN]
        if concealed:
            cand[FULLY_CONCEALED] = VALUES[FULLY_CONCEALED]
    if concealed and first_turn == 0:
        cand[CONCEALED_HAND] = VALUES[CONCEALED_HAND]
    if replacement and self_drawn and mt.kongs > 0:
        cand[REPLACEMENT_TILE] = VALUES[REPLACEMENT_TILE]
    if robbing_kong and not self_drawn:
        cand[ROBBING_THE_KONG] = VALUES[ROBBING_THE_KONG]
    if last_tile and self_drawn:
        cand[LAST_TILE_DRAW] = VALUES[LAST_TILE_DRAW]
    fully_melded = n_melds == 4 and mt.claimed == 4 and not self_drawn
    if fully_melded:
        cand[FULLY_MELDED] = VALUES[FULLY_MELDED]
    if first_turn != 1 and not (fully_melded and not p.fully_melded_single_wait):
        for k in range(34):
            work.ready[k] = counts[k]
        work.ready[win_tile] -= 1
        if popcount(waits_kernel(work.ready, n_melds, work.meld_counts, t)) == 1:
            cand[SINGLE_WAIT] = VALUES[SINGLE_WAIT]
    if first_turn == 1:
        cand[HEAVENLY] = p.heavenly_tai
    elif first_turn == 2:
        cand[EARTHLY] = VALUES[EARTHLY]
    elif first_turn == 3:
        cand[HUMAN] = p.human_tai
    if declared == 2:
        cand[MIGI] = p.migi_tai
    elif declared == 1:
        cand[DECLARE_READY] = p.declare_ready_tai
    # --- every split, every place of the winning tile
    hand = (has_m, has_p, has_z, seat_wind, prevailing_wind)
    if not best_arrangement(
        _score_arrangement,
        True,
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
        hand,
    ):
        return np.int64(-1)
    return item_total(items, np.int64(0))


@jit(inline="always")
def _score_row(i, work, rows):  # pragma: no cover - compiled
    """Hand ``i`` of a batch (:func:`score_batch_kernel`'s arrays) through :func:`score_kernel`."""
    (
        counts,
        win_tile,
        melds,
        n_melds,
        self_drawn,
        robbing_kong,
        replacement,
        last_tile,
        first_turn,
        declared,
        seat_wind,
        prevailing_wind,
        t,
        p,
        items,
    ) = rows
    return score_kernel(
        counts[i],
        win_tile[i],
        melds[i],
        n_melds[i],
        self_drawn[i],
        robbing_kong[i],
        replacement[i],
        last_tile[i],
        first_turn[i],
        declared[i],
        seat_wind[i],
        prevailing_wind[i],
        t,
        p,
        work,
        items[i],
    )


@pjit
def score_batch_kernel(
    counts,
    win_tile,
    melds,
    n_melds,
    self_drawn,
    robbing_kong,
    replacement,
    last_tile,
    first_turn,
    declared,
    seat_wind,
    prevailing_wind,
    t,
    p,
    items,
    hand_tai,
):  # pragma: no cover - compiled
    """Score N hands on all cores (the batch layout of :mod:`simkit.scoring.core`): ``hand_tai`` int16[N]."""
    for c in prange(batch_chunks(counts.shape[0])):
        rows = (
            counts,
            win_tile,
            melds,
            n_melds,
            self_drawn,
            robbing_kong,
            replacement,
            last_tile,
            first_turn,
            declared,
            seat_wind,
            prevailing_wind,
            t,
            p,
            items,
        )
        score_chunk(_score_row, c, counts.shape[0], np.zeros(N_ITEMS, np.int64), rows, hand_tai)
