"""Each rule set as the engine plays it: its :class:`~simkit.engine.table.Game` data and its settle function.

The state machine (:mod:`simkit.engine.table`) is the same for every rule set. What it needs from a
rule set is

* a :class:`~simkit.engine.table.Game`: flags and scalars from the rule set's module constants
  (tiles kept back, chow claims, robbing an added kong) and options (streak cap, match length, fee,
  chips), plus what only douque has (Declare Ready / MIGI, Skipped Win / Skipped Pung, four
  rounds) and only for_two has (bid and follow, and whether a fold passes the deal);
* a jitted **settle** function, called once at the end of every hand::

      settle(T, winner, win_type, win_tile, replacement, last_tile, last_discard, t, sp, row, floats)

  It scores a win with the rule set's kernel (:mod:`simkit.scoring`), leaving the items in
  ``T.items``; writes the rule set's value columns (``hand_tai`` / ``dealer_tai``, ``fan``,
  ``multiple``, ``combination_points``) into the int row ``row`` / float row ``floats``; and puts
  what is owed into ``T.money`` (``M_POINTS``: the win payment, payer to winner, or for_two's fold
  payment; ``M_KONG0`` / ``M_KONG1``: duel's kong payments to player 0 / 1). The engine then
  applies the chip limit and the fee and fills the payment columns. ``replacement``, ``last_tile``:
  a self-draw on a kong replacement / on the last drawable tile; ``last_discard``: a win on the
  discard made after the last drawable tile was drawn.

:func:`engine_spec` gathers all of it for :mod:`simkit.play.runtime`.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from .._jit import jit
from ..errors import InputValueError
from ..hand.waits import waits_kernel
from ..rules import duel as duel_rules
from ..rules import for_two as for_two_rules
from ..rules import require_rules
from ..scoring import douque as sc_douque
from ..scoring import duel as sc_duel
from ..scoring import for_two as sc_for_two
from ..scoring import night_market as sc_night_market
from ..scoring.core import MELD_CONCEALED
from .table import (
    END_PHASE_DRAW_ON,
    END_PHASE_NONE,
    END_PHASE_ONE_PICK,
    EV_WIN,
    F_COMBINATION,
    JOKER_TILE,
    M_KONG0,
    M_KONG1,
    M_POINTS,
    R_DEALER_TAI,
    R_FAN,
    R_HAND_TAI,
    R_MULTIPLE,
    S_BID,
    S_DEALER,
    S_DISCARDS,
    S_NO_CALL,
    S_PREVAILING,
    S_STREAK,
    S_WIN_TILE,
    WALL_DEALER_FIRST,
    WALL_SEAT_SHARED,
    WALL_SEAT_STABLE,
    WIN_FOLD,
    WIN_ROBBED,
    WIN_SELF,
    Game,
    _log,
)

__all__ = [
    "EngineSpec",
    "engine_spec",
    "game_of",
    "wall_design",
    "wall_settings",
    "WALL_DESIGNS",
    "DEALS",
    "WALLS",
    "settle_douque",
    "settle_night_market",
    "settle_duel",
    "settle_for_two",
    "NO_STREAK_CAP",
]

NO_STREAK_CAP = 1 << 62  #: streak cap of the rule sets without one
#: the Game fields of a rule set without chips: money in float coins, nothing capped
_NO_CHIPS = dict(money_unit=0, chips=0, fee_numerator=0, fee_denominator=1)
#: for_two's option end_phase as the engine's Game.end_phase
_END_PHASES = {
    "plain_draw": END_PHASE_NONE,
    "ready_pick_last_8": END_PHASE_ONE_PICK,
    "ready_draw_last_8": END_PHASE_DRAW_ON,
}


@jit
def settle_douque(
    T, winner, win_type, win_tile, replacement, last_tile, last_discard, t, sp, row, floats
):  # pragma: no cover
    """docs/rules/douque.md, Tai items: hand tai (first-turn hands from the table state), dealer tai ``1 + 2 x
    streak``, payment ``base + tai_value x (hand tai + dealer tai)``."""
    row[R_HAND_TAI] = 0
    row[R_DEALER_TAI] = 0
    if winner < 0:
        return
    self_drawn = win_type == WIN_SELF
    robbing = win_type == WIN_ROBBED
    dealer = T.sc[S_DEALER]
    first = 0
    if T.sc[S_NO_CALL] and not T.acted[winner] and not robbing and T.declared[winner] == 0:
        if winner == dealer and self_drawn and T.n_river[winner] == 0:
            first = 1  # heavenly: the dealt 14
        elif winner != dealer and self_drawn and T.n_river[winner] == 0:
            first = 2  # earthly: the first draw
        elif winner != dealer and not self_drawn and T.n_river[dealer] == 1 and T.sc[S_DISCARDS] == 1:
            first = 3  # human: the dealer's first discard
    if first != 0:
        replacement = False
        last_tile = False
    hand_tai = sc_douque.score_kernel(
        T.hand[winner],
        win_tile,
        T.melds[winner],
        T.n_melds[winner],
        self_drawn,
        robbing,
        replacement,
        last_tile,
        first,
        T.declared[winner],
        T.seat[winner],
        T.sc[S_PREVAILING],
        t,
        sp,
        T.work,
        T.items,
    )
    dealer_tai = 1 + 2 * T.sc[S_STREAK]
    row[R_HAND_TAI] = hand_tai
    row[R_DEALER_TAI] = dealer_tai
    T.money[M_POINTS] = sp.base + sp.tai_value * (hand_tai + dealer_tai)


@jit
def settle_night_market(
    T, winner, win_type, win_tile, replacement, last_tile, last_discard, t, sp, row, floats
):  # pragma: no cover
    """night_market.md: the fan of the best split (Hai Di Lao Yue on the last tile, He Di Lao Yu on
    the last discard), payment ``base + fan_value x fan``."""
    row[R_FAN] = 0
    if winner < 0:
        return
    fan = sc_night_market.score_kernel(
        T.hand[winner],
        win_tile,
        T.melds[winner],
        T.n_melds[winner],
        win_type == WIN_SELF,
        last_tile,
        last_discard,
        t,
        sp,
        T.work,
        T.items,
    )
    row[R_FAN] = fan
    T.money[M_POINTS] = sc_night_market.payment(fan, sp)


@jit(inline="always")
def _no_call(T):  # pragma: no cover - compiled
    """duel.md's "before any call" (Earthly Hand): nobody has called a discard. A concealed kong is
    declared, not called -- the rules file tells calls and declared kongs apart ("no calls, no
    declared kongs" for seven pairs) -- so unlike douque's S_NO_CALL ("nobody has made any pung or
    kong") the dealer's concealed kongs do not count; any other meld (pung, exposed or added kong,
    chow) was made on a called tile."""
    for p in range(2):
        for m in range(T.n_melds[p]):
            if T.melds[p, m, 0] != MELD_CONCEALED:
                return False
    return True


@jit
def settle_duel(
    T, winner, win_type, win_tile, replacement, last_tile, last_discard, t, sp, row, floats
):  # pragma: no cover
    """duel.md: the fan (Heavenly / Earthly Hand from the table state), the multiple, the win
    payment ``multiple x stake``, and both players' kong payments (whoever wins, and on a draw; a
    robbed added kong is a pung again and earns nothing). In coins, or with chips in whole money
    units (``sp.money_unit``; the engine's :func:`~simkit.engine.table._pay_chips` counts them)."""
    row[R_FAN] = 0
    row[R_MULTIPLE] = 0
    if winner >= 0:
        self_drawn = win_type == WIN_SELF
        first = 0
        if self_drawn and T.n_river[winner] == 0 and not T.acted[winner] and T.n_melds[winner] == 0:
            if winner == T.sc[S_DEALER]:
                first = 1  # heavenly: the dealer's dealt 14
            elif _no_call(T):
                first = 2  # earthly: the first draw, before any call (a concealed kong is no call)
        if first != 0:
            replacement = False
            last_tile = False
        fan = sc_duel.score_kernel(
            T.hand[winner],
            win_tile,
            T.melds[winner],
            T.n_melds[winner],
            self_drawn,
            win_type == WIN_ROBBED,
            replacement,
            last_tile,
            first,
            t,
            sp,
            T.work,
            T.items,
        )
        row[R_FAN] = fan
        row[R_MULTIPLE] = sc_duel.win_multiple(fan, sp)
        if sp.money_unit:  # with chips: in whole money units, exact (simkit.rules.duel.money_unit)
            T.money[M_POINTS] = sc_duel.win_multiple(fan, sp) * sp.stake_units
        else:
            T.money[M_POINTS] = sc_duel.win_payment(fan, sp)
    if sp.money_unit:
        T.money[M_KONG0] = sc_duel.kong_units(T.melds[0], T.n_melds[0]) * sp.stake_units
        T.money[M_KONG1] = sc_duel.kong_units(T.melds[1], T.n_melds[1]) * sp.stake_units
    else:
        T.money[M_KONG0] = sc_duel.kong_payment(T.melds[0], T.n_melds[0], sp)
        T.money[M_KONG1] = sc_duel.kong_payment(T.melds[1], T.n_melds[1], sp)


@jit(internal=True)
def _joker_stands_for(T, p, t, sp):  # pragma: no cover - compiled
    """for_two's end phase: player ``p`` (ready, 13 - 3k tiles) won on a joker. The joker stands for
    the winning kind that scores most (self-drawn; ties: the lowest kind), which is added to the
    hand, recorded as the win tile (``S_WIN_TILE``) and logged as the win."""
    hand = T.hand[p]
    w = waits_kernel(hand, T.n_melds[p], T.meld_counts[p], t)
    best = -1
    best_points = -1.0
    for k in range(34):
        if (w >> k) & 1:
            hand[k] += 1
            points = sc_for_two.score_kernel(hand, k, T.melds[p], T.n_melds[p], True, t, sp, T.work, T.items)
            hand[k] -= 1
            if points > best_points:
                best_points = points
                best = k
    hand[best] += 1
    T.sc[S_WIN_TILE] = best
    _log(T.sc, T.log, EV_WIN, p, best, WIN_SELF)
    return best


@jit
def settle_for_two(
    T, winner, win_type, win_tile, replacement, last_tile, last_discard, t, sp, row, floats
):  # pragma: no cover
    """for_two.md: the combination points of the best split, payment ``bid x stake x points`` (times
    the self-draw multiplier); a fold pays ``fold_payment x stake`` to the banker. A win on an
    end-phase joker (``win_tile`` :data:`~simkit.engine.table.JOKER_TILE`) is a self-draw on the kind
    it stands for (:func:`_joker_stands_for`)."""
    floats[F_COMBINATION] = 0.0
    if win_type == WIN_FOLD:
        T.money[M_POINTS] = sc_for_two.fold_payment(sp)
        return
    if winner < 0:
        return
    if win_tile == JOKER_TILE:
        win_tile = _joker_stands_for(T, winner, t, sp)
    self_drawn = win_type == WIN_SELF
    points = sc_for_two.score_kernel(
        T.hand[winner],
        win_tile,
        T.melds[winner],
        T.n_melds[winner],
        self_drawn,
        t,
        sp,
        T.work,
        T.items,
    )
    floats[F_COMBINATION] = points
    T.money[M_POINTS] = sc_for_two.payment(points, T.sc[S_BID], self_drawn, sp)


def game_of(rules) -> Game:
    """The :class:`~simkit.engine.table.Game` of a rule set (a Rules object)."""
    rules = require_rules(rules, "game_of")
    o = rules.options
    missing = [
        label
        for label, on in (
            ("pung claims", rules.claim_pung),
            ("exposed kong claims", rules.claim_exposed_kong),
            ("concealed kongs", rules.concealed_kong),
            ("added kongs", rules.added_kong),
        )
        if not on
    ]
    if missing or rules.dealer_tiles != 14 or rules.hand_tiles != 13:
        raise InputValueError(
            f"the engine cannot play rule set '{rules.name}': it always deals 14 + 13 tiles and allows "
            f"pung and exposed kong claims, concealed and added kongs"
        )
    douque = rules.name == "douque"
    if douque:
        cap = int(o.streak_cap)
        return Game(
            kept_back=int(rules.kept_back),
            claim_chow=bool(rules.claim_chow),
            robbing=bool(rules.robbing_kong),
            declare=True,
            skipped_win=True,
            skipped_pung=2 if o.skipped_pung == "turn" else 1,
            bidding=False,
            fold_passes_deal=False,
            streak_cap=cap,
            dealer_turns=8,
            match_hands=8 * (cap + 1),
            rounds=True,
            fee=0.0,
            **_NO_CHIPS,
        )
    duel = rules.name == "duel"
    money = duel_rules.money_unit(o) if duel else None
    return Game(
        kept_back=int(rules.kept_back),
        claim_chow=bool(rules.claim_chow),
        robbing=bool(rules.robbing_kong),
        declare=False,
        skipped_win=False,
        skipped_pung=0,
        bidding=rules.name == "for_two",
        fold_passes_deal=bool(o.fold_passes_deal) if rules.name == "for_two" else False,
        blind_bid=rules.name == "for_two" and o.bid_timing == "before_deal",
        end_phase=_END_PHASES[o.end_phase] if rules.name == "for_two" else END_PHASE_NONE,
        end_jokers=for_two_rules.END_PHASE_JOKERS if rules.name == "for_two" else 0,
        streak_cap=NO_STREAK_CAP,
        dealer_turns=0,
        match_hands=int(o.match_hands),
        rounds=False,
        fee=float(o.fee) if duel else 0.0,
        **(
            _NO_CHIPS
            if money is None
            else dict(
                money_unit=money.per_coin,
                chips=money.chips,
                fee_numerator=money.fee_numerator,
                fee_denominator=money.fee_denominator,
            )
        ),
    )


class EngineSpec(NamedTuple):
    """Everything the engine kernels take for one rule set (from :func:`engine_spec`)."""

    rules: object  #: the Rules
    game: Game
    sp: object  #: the scoring module's params (``params_of(rules)``)
    settle: Callable  #: the settle function
    items_proto: np.ndarray  #: zeros of the scoring kernel's item vector (its length and dtype)
    item_names: tuple  #: the item columns, in kernel order
    item_dtype: type  #: dtype of the ``items`` result column (the scoring module's ITEM_DTYPE)
    max_hands: int  #: hand rows a match can need


_SETTLE = {
    "douque": (settle_douque, sc_douque, np.int64),
    "night_market": (settle_night_market, sc_night_market, np.int64),
    "duel": (settle_duel, sc_duel, np.int64),
    "for_two": (settle_for_two, sc_for_two, np.float64),
}


#: the wall designs by (deal, wall) setting (see :func:`simkit.engine.table._lay_out_seat_streams`)
WALL_DESIGNS = {
    ("dealer", "shared"): WALL_DEALER_FIRST,
    ("seat", "shared"): WALL_SEAT_SHARED,
    ("seat", "stable"): WALL_SEAT_STABLE,
}
DEALS = ("seat", "dealer")  #: values of the ``deal`` setting, the default first
WALLS = ("stable", "shared")  #: values of the ``wall`` setting, the default first


def wall_design(deal=None, wall=None) -> int:
    """The engine's wall design (``WALL_*`` of :mod:`simkit.engine.table`) for a run's settings.

    ``deal``: ``"seat"`` (each seat's tiles, dealt and drawn, come from its own stream of the
    shuffled wall, whoever deals: in a duplicate run the tiles follow the policies) or ``"dealer"``
    (the dealer takes the wall's first 14 tiles: simkit's original deal). ``wall``: ``"stable"``
    (each seat draws only from its own stream, so claims shift nobody's draws; needs the deal
    "seat") or ``"shared"`` (one wall drawn in turn). ``None`` takes the default (:data:`DEALS`,
    :data:`WALLS`; ``"shared"`` when the deal is ``"dealer"``).
    """
    for name, value, allowed in (("deal", deal, DEALS), ("wall", wall, WALLS)):
        if value is not None and (not isinstance(value, str) or value not in allowed):
            raise InputValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    deal = DEALS[0] if deal is None else deal
    if wall is None:
        wall = "shared" if deal == "dealer" else WALLS[0]
    if (deal, wall) not in WALL_DESIGNS:
        raise InputValueError(
            f"wall={wall!r} needs deal='seat' (stable walls are the seats' own streams); got deal={deal!r}"
        )
    return WALL_DESIGNS[deal, wall]


def wall_settings(design: int) -> tuple[str, str]:
    """``(deal, wall)`` of a wall design code (the inverse of :func:`wall_design`)."""
    return next(k for k, v in WALL_DESIGNS.items() if v == design)


def engine_spec(rules, deal=None, wall=None) -> EngineSpec:
    """The :class:`EngineSpec` of a rule set (a Rules object), with the run's wall design
    (:func:`wall_design`)."""
    rules = require_rules(rules, "engine_spec")
    if rules.name not in _SETTLE:
        raise InputValueError(f"the engine has no settle function for rule set '{rules.name}'")
    settle, module, work_dtype = _SETTLE[rules.name]
    game = game_of(rules)._replace(wall=wall_design(deal, wall))
    return EngineSpec(
        rules,
        game,
        module.params_of(rules),
        settle,
        np.zeros(module.N_ITEMS, work_dtype),
        tuple(module.ITEM_NAMES),
        module.ITEM_DTYPE,
        int(game.match_hands),
    )
