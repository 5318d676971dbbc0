"""The built-in ``value`` policy: plays for expected points under the rule set's own scoring, and defends.

``greedy`` (:mod:`simkit.policies.basic`) plays for speed alone. ``value`` weighs the routes open
to its hand (:mod:`simkit.policies.routes`: plain, all pungs, half flush, full flush, seven pairs) by
what the rule set pays for each -- read from the rule set's scorer with the run's options
(:func:`~simkit.policies.routes.route_values`, appended to its parameters through
``rules_data``) -- against how far each is:

* **estimate.** A concealed part ``h`` (13 - 3k tiles) is worth ``max over routes r`` of
  ``value(r) * speed ** (distance(r) - 1)``, where ``distance`` is the tiles ``h`` must still draw
  (shanten + 1 for the plain route), ``value(r)`` mixes the self-drawn and discard payments of
  the route (``self_draw_share``), concealed or not as ``h``'s melds are, plus what the dealer's
  streak and douque's valued honor pungs add; routes that need more draws than are left are out;
* **discards**: the discard whose remaining hand is worth most; ties (the same route at the same
  distance) go to the most live tiles that lower shanten, as ``greedy``;
* **claims** (pung, chow, exposed kong): only when the best hand after the claim (open) is worth
  more than the hand kept concealed (by ``claim_margin``). So it claims in douque, where the
  concealed bonus is one tai, and rarely in night_market and duel, where a concealed hand pays
  several times as much;
* **declarations** (douque): when the declared plain win (MIGI's or Declare Ready's tai added) is
  worth at least the hand kept free, whose richer routes stay open; and only with a live wait (at
  least ``declare_live`` unseen winning tiles for Declare Ready, which locks the hand for less);
* **kongs** (concealed, added, exposed): when the hand after the kong, plus what the kong pays
  (duel's kong payments), is worth at least the hand without it;
* **defence**: when the opponent has declared (douque) or shows ``threat_melds`` melds, and its
  own hand is at least ``defend_at`` from ready, it discards the tile least likely to deal in: one
  the rules make safe (:func:`~simkit.policies.helpers.safe_against_discard_win`), else one
  through which the fewest waits can pass given the tiles it cannot see;
* **for_two's bid and follow**: by the hand's shanten, at ``bid3_at``, ``bid2_at`` and
  ``fold_at``; before the deal (no tiles to judge) by ``blind_bid`` and ``blind_fold_at``
  (:func:`~simkit.policies.basic.bid_or_follow`).

It always wins when it can, as ``greedy`` does.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit, stack_empty
from ..engine import actions as A
from ..hand.shanten import LIVE_BEST, LIVE_NONE, discard_eval_kernel, shanten_kernel
from ..hand.waits import waits_kernel
from ..melds import MELD_CHOW
from .basic import bid_or_follow, bid_params
from .helpers import (
    copy_hand,
    first_legal,
    hidden_counts,
    is_bid,
    is_follow,
    is_reaction,
    move_chow_tiles,
    own_meld_counts,
    runs_through,
    safe_against_discard_win,
    visible_counts,
)
from .routes import FAR, N_ROUTES, PLAIN, VALUE_FIELDS, meld_flags, outside, route_distances, route_values
from .spec import Param, policy, spec_of

__all__ = ["value_policy", "VALUE_DEFAULTS"]

# positions of the named parameters in the params vector; the route values follow them
_SPEED, _SELF_SHARE, _CLAIM_MARGIN, _DEFEND_AT, _THREAT_MELDS, _DECLARE_LIVE, _KONG, _BID3, _BID2, _FOLD = range(10)
_BLIND_BID, _BLIND_FOLD = 10, 11
_N_NAMED = 12
# positions of the extras within the route values (routes.VALUE_FIELDS)
_V_DECLARE = N_ROUTES * 4
_V_MIGI = _V_DECLARE + 2
_V_HONOR = _V_DECLARE + 4
_V_STREAK = _V_DECLARE + 5
_V_KONG = _V_DECLARE + 6  #: the kong payments: concealed, exposed, added
assert VALUE_FIELDS[_V_DECLARE] == "declare_ready/discard" and VALUE_FIELDS[_V_STREAK] == "per_streak"
assert VALUE_FIELDS[_V_KONG : _V_KONG + 3] == ("concealed_kong", "exposed_kong", "added_kong")

_DRAGONS = (31, 32, 33)


@jit(inline="always")
def _value_at(params, route, concealed, share):  # pragma: no cover - compiled
    i = _N_NAMED + (route * 2 + (1 if concealed else 0)) * 2
    vd = params[i]
    vs = params[i + 1]
    if vd < 0:
        return -1.0
    return (1.0 - share) * vd + share * vs


@jit
def _honor_bonus(hand, melds, n_melds, view, params):  # pragma: no cover - compiled
    """douque: the valued honor pungs (dragons, seat and prevailing wind) held or melded, a pair
    counting half."""
    per = params[_N_NAMED + _V_HONOR]
    if per == 0.0:
        return 0.0
    total = 0.0
    for j in range(5):
        k = _DRAGONS[j] if j < 3 else (view.seat_wind if j == 3 else view.prevailing_wind)
        if j == 4 and k == view.seat_wind:
            continue
        held = np.int64(hand[k])
        for m in range(n_melds):
            if melds[m, 1] == k and melds[m, 0] != MELD_CHOW:
                held = 3
        if held >= 3:
            total += per
        elif held == 2:
            total += 0.5 * per
    return total


@jit
def _worth(
    hand, n_melds, concealed, chow, out_m, out_mz, plain_distance, view, params, bonus, dist
):  # pragma: no cover - compiled
    """The estimate of a concealed part of 13 - 3k tiles: max over routes of value x speed^(distance - 1)."""
    route_distances(hand, n_melds, chow, out_m, out_mz, plain_distance, view.tables, dist)
    speed = params[_SPEED]
    share = params[_SELF_SHARE]
    draws = (view.tiles_left + 1) // 2
    extra = bonus + params[_N_NAMED + _V_STREAK] * view.streak
    best = 0.0
    for r in range(N_ROUTES):
        d = dist[r]
        if d >= FAR or d - 1 > draws:
            continue
        v = _value_at(params, r, concealed, share)
        if v < 0:
            continue
        ev = (v + extra) * speed ** (d - 1)
        if ev > best:
            best = ev
    return best


@jit
def _danger(view, k, hidden):  # pragma: no cover - compiled
    """How many kinds of wait could pass through a discard of ``k`` (0: the rules make it safe):
    a pair or single wait needs a hidden ``k``, a pung wait two, a chow wait the run's other
    two kinds."""
    if safe_against_discard_win(view, k):
        return 0
    n = runs_through(view, k, hidden)
    if 1 <= k and view.tables.chow_start[k - 1] and hidden[k - 1] > 0 and hidden[k + 1] > 0:
        n += 1  # the middle of a run: also the two-sided wait's
    if hidden[k] >= 1:
        n += 1
    if hidden[k] >= 2:
        n += 1
    return n


@jit
def _best_discard(
    view, legal, params, hand, n_melds, concealed, chow, out_m, out_mz, bonus, defend
):  # pragma: no cover - compiled
    """(discard kind, shanten after it, its estimate) of a 14 - 3k tile ``hand``."""
    t = view.tables
    visible = stack_empty(34, np.int64)
    visible_counts(view, visible)
    sh = stack_empty(34, np.int64)
    live = stack_empty(34, np.int64)
    least = discard_eval_kernel(hand, n_melds, t, visible, sh, live, np.int64(LIVE_BEST))
    dist = stack_empty(N_ROUTES, np.int64)
    hidden = stack_empty(34, np.int64)
    defending = False
    if defend and least >= params[_DEFEND_AT]:
        defending = True
        hidden_counts(view, hidden)
    best = -1
    best_key = -1.0
    best_live = -2
    best_danger = 1 << 30
    best_sh = 99
    for k in range(34):
        if not legal[A.DISCARD + k] or hand[k] == 0:
            continue
        hand[k] -= 1
        ev = _worth(hand, n_melds, concealed, chow, out_m, out_mz, sh[k] + 1, view, params, bonus, dist)
        hand[k] += 1
        danger = _danger(view, k, hidden) if defending else 0
        lv = live[k]
        better = False
        if danger != best_danger:
            better = danger < best_danger
        elif ev != best_key:
            better = ev > best_key
        elif lv != best_live:
            better = lv > best_live
        if better:
            best = k
            best_key = ev
            best_live = lv
            best_danger = danger
            best_sh = sh[k]
    return best, best_sh, best_key


@jit
def _claim_worth(
    view, params, hand, n_melds, chow, out_m, out_mz, bonus, dist, sh, live
):  # pragma: no cover - compiled
    """The estimate after a claim whose tiles have left ``hand`` (14 - 3k tiles with the new meld):
    its best discard's."""
    t = view.tables
    discard_eval_kernel(hand, n_melds, t, live, sh, live, np.int64(LIVE_NONE))
    best = 0.0
    for k in range(34):
        if hand[k] == 0:
            continue
        hand[k] -= 1
        ev = _worth(hand, n_melds, False, chow, out_m, out_mz, sh[k] + 1, view, params, bonus, dist)
        hand[k] += 1
        if ev > best:
            best = ev
    return best


@jit
def _react(view, legal, params, hand):  # pragma: no cover - compiled
    """On the opponent's discard: the claim worth most, if it beats passing by ``claim_margin``."""
    if not (legal[A.PUNG] or legal[A.KONG] or legal[A.CHOW] or legal[A.CHOW + 1] or legal[A.CHOW + 2]):
        return A.PASS  # nothing to weigh (an added kong to rob, when not a win, is only passed)
    t = view.tables
    x = view.tile
    opened, chow, out_m, out_mz = meld_flags(view.melds, view.n_melds)
    work = stack_empty(20, np.int64)
    dist = stack_empty(N_ROUTES, np.int64)
    now = shanten_kernel(hand, view.n_melds, t, work)
    bonus = _honor_bonus(hand, view.melds, view.n_melds, view, params)
    keep = _worth(hand, view.n_melds, not opened, chow, out_m, out_mz, now + 1, view, params, bonus, dist)
    bar = keep * (1.0 + params[_CLAIM_MARGIN])
    choice = A.PASS
    best = bar
    sh = stack_empty(34, np.int64)
    live = stack_empty(34, np.int64)
    k1 = view.n_melds + 1
    x_m, x_mz = outside(x)
    m_out = out_m or x_m
    mz_out = out_mz or x_mz
    if legal[A.KONG] and params[_KONG] != 0:
        hand[x] -= 3
        after = shanten_kernel(hand, k1, t, work)
        ev = _worth(hand, k1, False, chow, m_out, mz_out, after + 1, view, params, bonus, dist)
        ev += params[_N_NAMED + _V_KONG + 1]  # the exposed kong's payment (duel)
        hand[x] += 3
        if ev > best:
            best = ev
            choice = A.KONG
    if legal[A.PUNG]:
        hand[x] -= 2
        ev = _claim_worth(view, params, hand, k1, chow, m_out, mz_out, bonus, dist, sh, live)
        hand[x] += 2
        if ev > best:
            best = ev
            choice = A.PUNG
    for j in range(3):
        if legal[A.CHOW + j]:
            move_chow_tiles(hand, x, j, -1)
            ev = _claim_worth(view, params, hand, k1, True, m_out, mz_out, bonus, dist, sh, live)
            move_chow_tiles(hand, x, j, 1)
            if ev > best:
                best = ev
                choice = A.CHOW + j
    return choice


@jit
def _best_kong(view, legal, params, hand, opened, chow, out_m, out_mz, bonus, keep):  # pragma: no cover - compiled
    """The concealed or added kong whose hand after it (before the replacement draw), plus the
    kong's payment (duel), is worth at least ``keep`` (the best discard's estimate), or -1."""
    t = view.tables
    work = stack_empty(20, np.int64)
    dist = stack_empty(N_ROUTES, np.int64)
    best = -1
    best_ev = keep
    for x in range(34):
        for base in (A.CONCEALED_KONG, A.ADDED_KONG):
            if legal[base + x]:
                concealed_kong = base == A.CONCEALED_KONG
                removed = 4 if concealed_kong else 1
                k1 = view.n_melds + (1 if concealed_kong else 0)
                x_m, x_mz = outside(x)
                m_out = out_m or (concealed_kong and x_m)
                mz_out = out_mz or (concealed_kong and x_mz)
                hand[x] -= removed
                after = shanten_kernel(hand, k1, t, work)
                ev = _worth(hand, k1, not opened, chow, m_out, mz_out, after + 1, view, params, bonus, dist)
                hand[x] += removed
                ev += params[_N_NAMED + (_V_KONG if concealed_kong else _V_KONG + 2)]
                if ev >= best_ev:
                    best = base + x
                    best_ev = ev
    return best


@jit
def _live_waits(view, k, hidden):  # pragma: no cover - compiled
    """Unseen copies of the kinds that win after discarding ``k`` (0 when not ready)."""
    h = stack_empty(34, np.uint8)
    copy_hand(view, h)
    h[k] -= 1
    mc = stack_empty(34, np.uint8)
    own_meld_counts(view, mc)
    w = waits_kernel(h, view.n_melds, mc, view.tables)
    n = 0
    for x in range(34):
        if (w >> x) & 1:
            n += hidden[x]
    return n


@jit
def _declare(view, params, k, ev, bonus, concealed):  # pragma: no cover - compiled
    """douque: declare with the discard ``k`` (the hand is then ready) when the declared plain win,
    bonus included, is worth at least the estimate ``ev`` of the hand kept free (a route worth
    more may still be open), and enough unseen tiles win: one for MIGI (docs/rules/douque.md, Declare Ready and MIGI: the first
    four discards, nobody has melded), ``declare_live`` for Declare Ready."""
    migi = view.n_river + view.opp_n_river < 4 and view.n_melds == 0 and view.opp_n_melds == 0
    share = params[_SELF_SHARE]
    at = _N_NAMED + (_V_MIGI if migi else _V_DECLARE)
    extra = (1.0 - share) * params[at] + share * params[at + 1]
    if extra <= 0:
        return False
    hidden = stack_empty(34, np.int64)
    hidden_counts(view, hidden)
    if _live_waits(view, k, hidden) < (1 if migi else params[_DECLARE_LIVE]):
        return False
    locked = _value_at(params, PLAIN, concealed, share) + bonus + params[_N_NAMED + _V_STREAK] * view.streak + extra
    return locked >= ev


@policy(
    name="value",
    rules_data=route_values,
    speed=Param(
        0.4, float, low=0.0, high=1.0, doc="weight of each further tile a route needs (value x speed^(tiles - 1))"
    ),
    self_draw_share=Param(
        0.5, float, low=0.0, high=1.0, doc="share of its wins it expects to self-draw (mixes the two payments)"
    ),
    claim_margin=Param(
        0.0, float, low=-1.0, high=10.0, doc="claim when the open hand is worth (1 + this) x the concealed one"
    ),
    defend_at=Param(
        3, int, low=0, high=14, doc="against a ready-looking opponent, defend when its own shanten is at least this"
    ),
    threat_melds=Param(
        3, int, low=1, high=5, doc="an opponent with this many melds looks ready (5: only a declaration)"
    ),
    declare_live=Param(
        4, int, low=0, high=136, doc="douque: Declare Ready only when at least this many unseen tiles win (MIGI: one)"
    ),
    kong=Param(True, bool, doc="make kongs (concealed, added, exposed) when worth it; 0: never"),
    **bid_params(bid3_at=1, bid2_at=3, fold_at=7),
)
@jit
def value_policy(view, legal, params, rng):  # pragma: no cover - compiled
    """Expected points over the routes to a win, with claims, declarations and defence by value
    (module docstring). ``params``: the named parameters, then the rule set's route values."""
    if legal[A.WIN]:
        return A.WIN
    hand = stack_empty(34, np.uint8)
    copy_hand(view, hand)
    if is_reaction(view):
        return _react(view, legal, params, hand)
    if is_bid(view) or is_follow(view):
        return bid_or_follow(view, params[_BID3], params[_BID2], params[_FOLD], params[_BLIND_BID], params[_BLIND_FOLD])
    first = first_legal(legal)
    if view.declared != 0:
        return first  # locked hand: the drawn tile goes out (or the automatic added kong)
    opened, chow, out_m, out_mz = meld_flags(view.melds, view.n_melds)
    bonus = _honor_bonus(hand, view.melds, view.n_melds, view, params)
    threat = view.opp_declared != 0 or view.opp_n_melds >= params[_THREAT_MELDS]
    k, sh, ev = _best_discard(view, legal, params, hand, view.n_melds, not opened, chow, out_m, out_mz, bonus, threat)
    if params[_KONG] != 0:
        kong = _best_kong(view, legal, params, hand, opened, chow, out_m, out_mz, bonus, ev)
        if kong >= 0:
            return kong
    if k < 0:
        return first
    if legal[A.DECLARE + k] and _declare(view, params, k, ev, bonus, not opened):
        return A.DECLARE + k
    return A.DISCARD + k


#: value's named parameters at their defaults (the route values are appended per rule set)
VALUE_DEFAULTS = spec_of(value_policy).defaults
