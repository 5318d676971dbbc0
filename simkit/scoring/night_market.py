"""Night-market fan scoring (docs/rules/night_market.md, Scoring): the item table, the kernel, the payment.

Items
-----
:data:`ITEMS` (the table ``items/night_market.toml``) names the 23 patterns of the fan table, in its order; each name is stable snake_case
(a dataset column) and each label carries the rules file's pinyin and Chinese name. The fan of a
win is the sum of its items; the loser pays ``base + fan_value * fan`` (:func:`payment`; 50 + 100
x fan by default). There is no minimum fan: a hand with no pattern scores 0 fan and pays 50.

Decisions where night_market.md leaves room (the reference scorer
``tests/reference_scoring_night_market.py`` was written from the rules file with the same decisions):

* Sets: a kong of any kind counts as a pung. A pung of the concealed part is concealed unless the
  winning tile completed it on a discard win; a concealed kong is a concealed pung; claimed pungs,
  chows, exposed and added kongs are claimed melds (an added kong grew from a claimed pung).
* Best split: over every split of the concealed part and every place the winning tile can take in
  it, the most fan; ties go to the arrangement whose item vector (:data:`ITEM_NAMES` order) is
  lexicographically largest.
* The wait items (Dan Diao, Bian Zhang, Kan Zhang) need the ready hand (the hand before the winning
  tile) to have had exactly one winning kind (the waits kernel: a kind the winner holds all 4 of is
  not a wait), and then depend on where the winning tile sits in the scored arrangement: the pair
  (Dan Diao), the 3 of 123 or the 7 of 789 (Bian Zhang), the middle of a chow (Kan Zhang). A tile
  completing a pung scores none of them. At most one of the three can hold (the tile sits in one
  part).
* Men Qing: no pung, chow, exposed or added kong among the melds, won on a discard. Bu Qiu Ren: the
  same melds condition, self-drawn; it replaces Zi Mo. Concealed kongs keep both.
* Quan Qiu Ren: four melds, each a pung, chow, exposed or added kong (a concealed kong is not
  claimed), won on a discard (the wait is then always a single pair wait); it replaces Dan Diao.
* Hai Di Lao Yue: ``last_tile`` (self-draw on the last tile of the wall); it replaces Zi Mo and
  stacks with Bu Qiu Ren (each replaces Zi Mo; neither replaces the other). He Di Lao Yu:
  ``last_discard`` (a win on the discard made after the last tile was drawn); stacks with Men Qing.
* Ping Hu: four chows (claimed or concealed) and a character pair (an honor pair is not Ping Hu).
* Shuang An Ke / Three concealed pungs / Si An Ke: exactly 2 / exactly 3 / 4 concealed pungs or
  kongs. Si An Ke replaces Three concealed pungs, Shuang An Ke, Peng Peng Hu and Men Qing.
* Cou Yi Se (literal reading): of the five sets (four melds and the pair), exactly one is of the
  other type, i.e. exactly one honor set among four character sets, or exactly one character set
  among four honor sets. Qing Yi Se (characters only) and Zi Yi Se (honors only) cannot meet it.
* Greater than 5 / Less than 5: every tile (hand and melds) is a character 6-9 / 1-4. They replace
  nothing, so they stack with Qing Yi Se (24).
* Zi Yi Se replaces Peng Peng Hu. Xiao San Yuan: two dragon pungs/kongs and a dragon pair; Xiao Si
  Xi: three wind pungs/kongs and a wind pair. Da San Yuan (three dragon pungs/kongs) replaces Xiao
  San Yuan; Da Si Xi (four wind pungs/kongs) replaces Xiao Si Xi and Peng Peng Hu. Every other
  pair of items stacks (e.g. Zi Yi Se + Da San Yuan + Si An Ke).
* No win on a robbed kong (the rule set has none), no first-turn or kong-replacement item: a win on a
  replacement tile is an ordinary self-draw (or Hai Di Lao Yue if it is the last tile).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit, pjit, prange
from ..hand.split import PART_CHOW, PART_PAIR
from ..hand.waits import popcount, waits_kernel
from .core import (
    EAST,
    RULE_SET_SCORING,
    WHITE,
    batch_chunks,
    best_arrangement,
    fixed_values,
    item_table,
    item_total,
    meld_tiles,
    score_chunk,
    tally_melds,
    work_factory,
)

__all__ = [*RULE_SET_SCORING, "NightMarketParams", "payment"]

#: the item table (``items/night_market.toml``: one row per item, :class:`~simkit.scoring.core.Item`), the
#: item names (dataset columns), their number (the length of the item vector), their values at the
#: default options (:func:`values_of` gives them under a rule set's options), in table order, and
#: what each item replaces (``{item: items not scored beside it}``)
ITEMS, ITEM_NAMES, N_ITEMS, VALUES, REPLACES = item_table("night_market", np.int64)
# item indices (the kernel's vector positions)
SELF_DRAWN, PAIR_WAIT, EDGE_WAIT, CLOSED_WAIT, CONCEALED_HAND, ALL_CHOWS, TWO_CONCEALED = range(7)
FULLY_CONCEALED, ALL_PUNGS, ONE_TYPE_BUT_ONE, FULLY_MELDED, LAST_TILE, LAST_DISCARD = range(7, 13)
GREATER_THAN_FIVE, LESS_THAN_FIVE, THREE_CONCEALED, FULL_FLUSH, ALL_HONORS, FOUR_CONCEALED = range(13, 19)
LITTLE_DRAGONS, LITTLE_WINDS, BIG_DRAGONS, BIG_WINDS = range(19, 23)

FAN = VALUES  #: the fan of each item (the options do not change them)
ITEM_DTYPE = np.int16  #: dtype of the item columns of :func:`score_batch_kernel`


class NightMarketParams(NamedTuple):
    """The scoring options, as scalars for the kernel (from :func:`params_of`)."""

    base: float  #: fixed part of every payment
    fan_value: float  #: points per fan


def params_of(rules) -> NightMarketParams:
    """Kernel parameters of a night_market :class:`~simkit.rules.Rules`."""
    o = rules.options
    return NightMarketParams(float(o.base), float(o.fan_value))


values_of = fixed_values(VALUES)  #: the fan of each item; the options do not change them


new_work = work_factory(N_ITEMS, np.int64)  #: fresh scratch arrays for :func:`score_kernel`


@jit
def payment(fan, p):  # pragma: no cover - compiled
    """What the loser pays the winner: ``p.base + p.fan_value * fan`` (float)."""
    return p.base + p.fan_value * fan


@jit(inline="always")
def _score_arrangement(a, hand, cand):  # pragma: no cover - compiled
    """The fan of one arrangement that depend on it: the wait items, concealed pungs, Men Qing,
    Ping Hu, Peng Peng Hu, Cou Yi Se and the dragon and wind patterns. ``hand``: (single wait,
    Quan Qiu Ren, nothing claimed, discard win, characters present, the winning kind)."""
    single, fully_melded, concealed, discard_win, has_m, win_tile = hand
    for i in (
        PAIR_WAIT,
        EDGE_WAIT,
        CLOSED_WAIT,
        CONCEALED_HAND,
        ALL_CHOWS,
        TWO_CONCEALED,
        ALL_PUNGS,
        ONE_TYPE_BUT_ONE,
        THREE_CONCEALED,
        FOUR_CONCEALED,
        LITTLE_DRAGONS,
        LITTLE_WINDS,
        BIG_DRAGONS,
        BIG_WINDS,
    ):
        cand[i] = 0
    if single:
        if a.win_part == PART_PAIR:
            if not fully_melded:
                cand[PAIR_WAIT] = FAN[PAIR_WAIT]
        elif a.win_part == PART_CHOW:
            wkind = a.win_kind
            if win_tile == wkind + 1:
                cand[CLOSED_WAIT] = FAN[CLOSED_WAIT]
            elif (win_tile == wkind + 2 and wkind % 9 == 0) or (win_tile == wkind and wkind % 9 == 6):
                cand[EDGE_WAIT] = FAN[EDGE_WAIT]
    hidden = a.concealed_pungs
    if hidden >= 4:
        cand[FOUR_CONCEALED] = FAN[FOUR_CONCEALED]
    else:
        if concealed and discard_win:
            cand[CONCEALED_HAND] = FAN[CONCEALED_HAND]
        if hidden == 3:
            cand[THREE_CONCEALED] = FAN[THREE_CONCEALED]
        elif hidden == 2:
            cand[TWO_CONCEALED] = FAN[TWO_CONCEALED]
    if a.chows == 4 and a.pair < 9:
        cand[ALL_CHOWS] = FAN[ALL_CHOWS]
    # Peng Peng Hu is replaced by Zi Yi Se (no character), Si An Ke and Da Si Xi
    if a.chows == 0 and has_m and hidden < 4 and a.winds < 4:
        cand[ALL_PUNGS] = FAN[ALL_PUNGS]
    if a.honor_sets == 1 or a.honor_sets == 4:
        cand[ONE_TYPE_BUT_ONE] = FAN[ONE_TYPE_BUT_ONE]
    if a.dragons == 3:
        cand[BIG_DRAGONS] = FAN[BIG_DRAGONS]
    elif a.dragons == 2 and a.pair >= WHITE:
        cand[LITTLE_DRAGONS] = FAN[LITTLE_DRAGONS]
    if a.winds == 4:
        cand[BIG_WINDS] = FAN[BIG_WINDS]
    elif a.winds == 3 and EAST <= a.pair < WHITE:
        cand[LITTLE_WINDS] = FAN[LITTLE_WINDS]


@jit(called_by_symbol=True)
def score_kernel(
    counts,
    win_tile,
    melds,
    n_melds,
    self_drawn,
    last_tile,
    last_discard,
    t,
    p,
    work,
    items,
):  # pragma: no cover - compiled
    """Score a complete night_market hand; returns the fan and fills ``items`` (int[N_ITEMS]).

    ``counts``, ``win_tile``, ``melds``, ``n_melds``, ``t``, ``work``, ``items``: as every rule set's
    (:mod:`simkit.scoring.core`); ``p``: :class:`NightMarketParams`, not used by the fan (only by
    :func:`payment`).

    Parameters
    ----------
    self_drawn : bool
        The winner drew the winning tile (else it is the opponent's discard).
    last_tile : bool
        Self-drawn on the last tile of the wall (Hai Di Lao Yue).
    last_discard : bool
        Won on the discard made after the last tile was drawn (He Di Lao Yu).
    """
    for i in range(N_ITEMS):
        items[i] = 0
    mt = tally_melds(melds, n_melds)
    meld_tiles(melds, n_melds, work.meld_counts)
    # --- tiles
    has_m = False
    has_z = False
    all_high = True  # every tile a character 6-9
    all_low = True  # every tile a character 1-4
    for k in range(34):
        if counts[k] + work.meld_counts[k]:
            if k < 9:
                has_m = True
                if k < 5:
                    all_high = False
                if k > 3:
                    all_low = False
            else:
                has_z = True
                all_high = False
                all_low = False
    # --- items independent of the arrangement
    cand = work.cand
    for i in range(N_ITEMS):
        cand[i] = 0
    concealed = mt.claimed == 0
    if self_drawn:
        if concealed:
            cand[FULLY_CONCEALED] = FAN[FULLY_CONCEALED]
        if last_tile:
            cand[LAST_TILE] = FAN[LAST_TILE]
        if not concealed and not last_tile:
            cand[SELF_DRAWN] = FAN[SELF_DRAWN]
    else:
        if last_discard:
            cand[LAST_DISCARD] = FAN[LAST_DISCARD]
    fully_melded = n_melds == 4 and mt.claimed == 4 and not self_drawn
    if fully_melded:
        cand[FULLY_MELDED] = FAN[FULLY_MELDED]
    if has_m and not has_z:
        cand[FULL_FLUSH] = FAN[FULL_FLUSH]
    if has_z and not has_m:
        cand[ALL_HONORS] = FAN[ALL_HONORS]
    if all_high:
        cand[GREATER_THAN_FIVE] = FAN[GREATER_THAN_FIVE]
    if all_low:
        cand[LESS_THAN_FIVE] = FAN[LESS_THAN_FIVE]
    for k in range(34):
        work.ready[k] = counts[k]
    work.ready[win_tile] -= 1
    single = popcount(waits_kernel(work.ready, n_melds, work.meld_counts, t)) == 1
    # --- every split, every place of the winning tile
    discard_win = not self_drawn
    hand = (single, fully_melded, concealed, discard_win, has_m, win_tile)
    if not best_arrangement(
        _score_arrangement,
        True,
        False,
        counts,
        n_melds,
        win_tile,
        discard_win,
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
    counts, win_tile, melds, n_melds, self_drawn, last_tile, last_discard, t, p, items = rows
    return score_kernel(
        counts[i],
        win_tile[i],
        melds[i],
        n_melds[i],
        self_drawn[i],
        last_tile[i],
        last_discard[i],
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
    last_tile,
    last_discard,
    t,
    p,
    items,
    fan,
):  # pragma: no cover - compiled
    """Score N night_market hands on all cores (the batch layout of :mod:`simkit.scoring.core`)."""
    for c in prange(batch_chunks(counts.shape[0])):
        rows = (counts, win_tile, melds, n_melds, self_drawn, last_tile, last_discard, t, p, items)
        score_chunk(_score_row, c, counts.shape[0], np.zeros(N_ITEMS, np.int64), rows, fan)
