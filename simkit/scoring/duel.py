"""Mahjong Duel fan scoring (docs/rules/duel.md, Fan and Payment): items, kernel, multiple, kongs, fee.

Items
-----
:data:`ITEMS` (the table ``items/duel.toml``) names the patterns of the fan table, in its order (Heavenly and Earthly Hand are two
items); each name is stable snake_case (a dataset column). The fan of a win is the sum of its
items. The loser pays ``min(2 ** (fan - 1), multiple_cap) * stake`` for the win
(:func:`win_multiple`, :func:`win_payment`); kong payments come on top, whoever wins and on a draw,
never capped (:func:`kong_units`, :func:`kong_payment`: exposed 2, added 1, concealed 4 x stake,
paid by the opponent to the kong's owner); whoever receives coins pays ``fee`` of what they receive
(:func:`receiver_fee`). The chip limit (``chips``) is match state and left to the engine
(``DuelParams.chips`` carries it, ``inf`` for unlimited), which counts money exactly in whole
units when chips are set (``DuelParams.money_unit``; :func:`simkit.rules.duel.money_unit`).

Decisions where duel.md leaves room (the reference scorer ``tests/reference_scoring_duel.py`` was
written from the rules file and its source with the same decisions):

* Win (1) is scored on every win except Heavenly / Earthly Hand, which are "8 fan flat, with nothing
  else added": then the only item is ``heavenly_hand`` or ``earthly_hand`` (8) and the fan is 8.
  Both need no melds (dealt 14 tiles; first draw before any call) and a self-draw. A concealed
  kong is declared, not called: the dealer's concealed kong before the non-dealer's first draw
  does not cancel Earthly Hand (the engine decides when it applies: ``_no_call`` in
  :mod:`simkit.engine.rulesets`).
* Concealed (1): no pung, exposed or added kong among the winner's melds (concealed kongs fine), on
  a self-draw or a discard win; it stacks with Self-drawn and with Seven pairs (seven pairs is
  always concealed).
* A kong of any kind counts as a pung for All pungs, Big three dragons, Little and Big four winds.
* Seven pairs (3) / Luxury seven pairs (5, replaces Seven pairs): 14 concealed tiles, no melds at
  all, every kind an even count; luxury when a kind is held 4 times (two pairs). A hand that is
  both seven pairs and four melds + a pair scores its better arrangement. Full flush and All
  honours are tile conditions and apply to seven pairs too; the pung patterns do not.
* Best split: over every split (and seven pairs), the most fan; ties go to the arrangement whose
  item vector (:data:`ITEM_NAMES` order) is lexicographically largest. Where the winning tile
  sits does not change the fan; the scored split marks the first part holding it.
* Every pattern stacks unless the table says it replaces another (as in the source's third worked
  example: Win + Self-drawn + All pungs + Big three dragons + All honours = 22).
* Win on a kong: self-drawn on a kong replacement (the winner has a kong). Last tile: self-drawn on
  the last tile of the wall. They stack when the replacement is the last tile. Robbing the kong: a
  win on the opponent's added-kong tile, a discard win.
* Kong payments are counted from the kong's type as it stands: a robbed added kong is a pung again
  (the engine turns it back), so it earns nothing.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit, pjit, prange
from ..rules.duel import money_unit
from .core import (
    EAST,
    MELD_ADDED,
    MELD_CONCEALED,
    MELD_KONG,
    RULE_SET_SCORING,
    WHITE,
    batch_chunks,
    best_arrangement,
    fixed_values,
    item_table,
    item_total,
    score_chunk,
    tally_melds,
    work_factory,
)

__all__ = [
    *RULE_SET_SCORING,
    "FIRST_TURNS",
    "KONG_UNITS",
    "DuelParams",
    "win_multiple",
    "win_payment",
    "kong_units",
    "kong_payment",
    "receiver_fee",
]

#: the item table (``items/duel.toml``: one row per item, :class:`~simkit.scoring.core.Item`), the
#: item names (dataset columns), their number (the length of the item vector), their values at the
#: default options (:func:`values_of` gives them under a rule set's options), in table order, and
#: what each item replaces (``{item: items not scored beside it}``)
ITEMS, ITEM_NAMES, N_ITEMS, VALUES, REPLACES = item_table("duel", np.int64)
# item indices (the kernel's vector positions)
WIN, SELF_DRAWN, CONCEALED_HAND = range(3)  # every win, how it was won
ALL_PUNGS, FULL_FLUSH, SEVEN_PAIRS, LUXURY_SEVEN_PAIRS, BIG_DRAGONS, LITTLE_WINDS, BIG_WINDS, ALL_HONORS = range(3, 11)
REPLACEMENT_TILE, LAST_TILE, ROBBING = range(11, 14)  # the winning tile's circumstances
HEAVENLY, EARTHLY = range(14, 16)  # 8 fan flat

ITEM_DTYPE = np.int16  #: dtype of the item columns of :func:`score_batch_kernel`


#: first_turn codes of the kernel: index in this tuple
FIRST_TURNS = (None, "heavenly", "earthly")
#: kong payment in stakes per meld type code (pung, exposed kong, added kong, concealed kong, chow)
KONG_UNITS = (0, 2, 1, 4, 0)


class DuelParams(NamedTuple):
    """The payment options, as scalars for the kernels (from :func:`params_of`)."""

    stake: float  #: coins per multiple
    fee: float  #: share of what a player receives that they pay as a fee
    multiple_cap: int  #: largest multiple paid for a win
    chips: float  #: coins each player has at the table (``inf``: unlimited); the engine's business
    money_unit: int  #: with chips: money units per coin (:func:`simkit.rules.duel.money_unit`); 0 without
    stake_units: int  #: with chips: the stake in money units (what the engine is owed in); 0 without


def params_of(rules) -> DuelParams:
    """Kernel parameters of a duel :class:`~simkit.rules.Rules`."""
    o = rules.options
    chips = np.inf if o.chips is None else float(o.chips)
    money = money_unit(o)
    per_coin, stake_units = (0, 0) if money is None else (money.per_coin, money.stake)
    return DuelParams(float(o.stake), float(o.fee), int(o.multiple_cap), chips, per_coin, stake_units)


values_of = fixed_values(VALUES)  #: the fan of each item; the options do not change them


new_work = work_factory(N_ITEMS, np.int64)  #: fresh scratch arrays for :func:`score_kernel`


@jit
def win_multiple(fan, p):  # pragma: no cover - compiled
    """``min(2 ** (fan - 1), p.multiple_cap)`` for ``fan >= 1`` (int64, no overflow)."""
    m = np.int64(1)
    for _ in range(fan - 1):
        if m >= p.multiple_cap:
            break
        m *= 2
    return min(m, np.int64(p.multiple_cap))


@jit
def win_payment(fan, p):  # pragma: no cover - compiled
    """What the loser pays for the win itself: ``win_multiple(fan, p) * p.stake`` (float)."""
    return win_multiple(fan, p) * p.stake


@jit
def kong_units(melds, n_melds):  # pragma: no cover - compiled
    """Kong payment of one player's melds in stakes: exposed 2, added 1, concealed 4 each."""
    units = np.int64(0)
    for m in range(n_melds):
        code = melds[m, 0]
        if code == MELD_KONG:
            units += 2
        elif code == MELD_ADDED:
            units += 1
        elif code == MELD_CONCEALED:
            units += 4
    return units


@jit
def kong_payment(melds, n_melds, p):  # pragma: no cover - compiled
    """What the opponent pays the owner of ``melds`` for its kongs: ``kong_units * p.stake``."""
    return kong_units(melds, n_melds) * p.stake


@jit
def receiver_fee(received, p):  # pragma: no cover - compiled
    """The fee a player pays on coins received: ``received * p.fee``."""
    return received * p.fee


@jit(inline="always")
def _score_arrangement(a, hand, cand):  # pragma: no cover - compiled
    """The fan of one arrangement that depend on it: Seven pairs / Luxury seven pairs, All pungs,
    Big three dragons, Little and Big four winds (``hand`` is empty)."""
    cand[SEVEN_PAIRS] = 0
    cand[LUXURY_SEVEN_PAIRS] = 0
    if a.seven_pairs:
        cand[LUXURY_SEVEN_PAIRS if a.luxury else SEVEN_PAIRS] = VALUES[LUXURY_SEVEN_PAIRS if a.luxury else SEVEN_PAIRS]
        cand[ALL_PUNGS] = 0
        cand[BIG_DRAGONS] = 0
        cand[BIG_WINDS] = 0
        cand[LITTLE_WINDS] = 0
        return
    cand[ALL_PUNGS] = VALUES[ALL_PUNGS] if a.chows == 0 else 0
    cand[BIG_DRAGONS] = VALUES[BIG_DRAGONS] if a.dragons == 3 else 0
    cand[BIG_WINDS] = VALUES[BIG_WINDS] if a.winds == 4 else 0
    cand[LITTLE_WINDS] = VALUES[LITTLE_WINDS] if (a.winds == 3 and EAST <= a.pair < WHITE) else 0


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
    t,
    p,
    work,
    items,
):  # pragma: no cover - compiled
    """Score a complete duel hand; returns the fan and fills ``items`` (int[N_ITEMS]).

    ``counts`` (four melds + a pair, or seven pairs with no melds), ``win_tile``, ``melds``,
    ``n_melds``, ``t`` (the duel tables, with seven pairs), ``work``, ``items``: as every rule set's
    (:mod:`simkit.scoring.core`); ``p``: :class:`DuelParams`, not used by the fan (only by the
    payment functions).

    Parameters
    ----------
    self_drawn, robbing_kong, replacement, last_tile : bool
        Self-draw; win on the opponent's added-kong tile; self-draw on a kong replacement;
        self-draw on the last tile of the wall.
    first_turn : int
        Code, index into :data:`FIRST_TURNS` (0 none, 1 heavenly, 2 earthly).
    """
    for i in range(N_ITEMS):
        items[i] = 0
    mt = tally_melds(melds, n_melds)
    has_m = False
    has_z = mt.honor_pungs > 0
    for m in range(n_melds):
        if melds[m, 1] < EAST:
            has_m = True
    for k in range(34):
        if counts[k]:
            if k < EAST:
                has_m = True
            else:
                has_z = True
    # --- items independent of the arrangement
    cand = work.cand
    for i in range(N_ITEMS):
        cand[i] = 0
    cand[WIN] = VALUES[WIN]
    if self_drawn:
        cand[SELF_DRAWN] = VALUES[SELF_DRAWN]
        if replacement and mt.kongs > 0:
            cand[REPLACEMENT_TILE] = VALUES[REPLACEMENT_TILE]
        if last_tile:
            cand[LAST_TILE] = VALUES[LAST_TILE]
    elif robbing_kong:
        cand[ROBBING] = VALUES[ROBBING]
    if mt.claimed == 0:
        cand[CONCEALED_HAND] = VALUES[CONCEALED_HAND]
    if not has_z:
        cand[FULL_FLUSH] = VALUES[FULL_FLUSH]
    if not has_m:
        cand[ALL_HONORS] = VALUES[ALL_HONORS]
    # --- seven pairs, then every split (where the winning tile sits does not change the fan)
    if not best_arrangement(
        _score_arrangement,
        False,
        True,
        counts,
        n_melds,
        win_tile,
        not self_drawn,
        mt,
        t,
        work,
        items,
        N_ITEMS,
        (),
    ):
        return np.int64(-1)
    if first_turn == 1 or first_turn == 2:
        for i in range(N_ITEMS):
            items[i] = 0
        items[HEAVENLY if first_turn == 1 else EARTHLY] = VALUES[HEAVENLY if first_turn == 1 else EARTHLY]
    return item_total(items, np.int64(0))


@jit(inline="always")
def _score_row(i, work, rows):  # pragma: no cover - compiled
    """Hand ``i`` of a batch (:func:`score_batch_kernel`'s arrays) through :func:`score_kernel`."""
    (counts, win_tile, melds, n_melds, self_drawn, robbing_kong, replacement, last_tile, first_turn, t, p, items) = rows
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
    t,
    p,
    items,
    fan,
):  # pragma: no cover - compiled
    """Score N duel hands on all cores (the batch layout of :mod:`simkit.scoring.core`)."""
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
            t,
            p,
            items,
        )
        score_chunk(_score_row, c, counts.shape[0], np.zeros(N_ITEMS, np.int64), rows, fan)
