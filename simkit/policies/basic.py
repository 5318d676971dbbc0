"""Built-in policies, and how to write your own.

A policy is a jitted function with the signature ::

    policy(view, legal, params, rng) -> int

* ``view`` (:class:`simkit.engine.actions.View`): what the deciding player may know -- own hand
  and melds, both rivers, the opponent's melds and declaration, tiles left, winds, streak, the
  decision phase and the tile concerned. Treat its arrays as read-only.
* ``legal``: bool[N_ACTIONS], the legal actions (codes in :mod:`simkit.engine.actions`).
* ``params``: float64 array of the policy's parameters (whatever it needs; may be empty).
* ``rng``: uint64[1] stream state for :func:`simkit.engine.rng.bounded` / ``uniform``; drawing
  from it keeps runs reproducible.

It returns an action code where ``legal`` is True (``legal`` is the policy's own copy: the engine
checks the action against its own mask). Write it with :func:`simkit._jit.jit` (or
``numba.njit``) and pass the function itself to :func:`simkit.simulate_matches`: the engine,
compiled once per rule set, calls it through a function pointer, so only the policy is compiled
(seconds). A plain Python function with the same signature works too (asked from Python at every
decision, through :class:`simkit.GameState`: slower, the same games). For example, a
policy that never claims, declares only with two or more winning kinds, and otherwise plays like
``greedy``::

    import numpy as np
    from simkit._jit import jit
    from simkit.engine import actions as A
    from simkit.policies import greedy_policy, count_waits_after

    @jit
    def patient(view, legal, params, rng):
        if legal[A.WIN]:
            return A.WIN
        if view.phase == A.PHASE_REACT or view.phase == A.PHASE_ROB:
            return A.PASS
        a = greedy_policy(view, legal, np.zeros(3), rng)  # claim=0, declare=0, kong=0
        k = a - A.DISCARD
        if 0 <= k < 34 and legal[A.DECLARE + k] and count_waits_after(view, k) >= 2:
            return A.DECLARE + k
        return a

(This exact policy is tested in ``tests/test_engine.py``.) The helpers a policy usually needs --
shanten and live tiles per discard, visible and hidden tile counts, waits, the opponent's river
and declaration, tiles safe by the rules, the phases -- are in :mod:`simkit.policies.helpers`; the
built-in policies use them too.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit, stack_empty
from .._words import word_at
from ..engine import actions as A
from ..engine.actions import uniform_legal_action
from ..hand.shanten import least_shanten_after_discard, shanten_kernel
from .helpers import (
    LIVE_TIES,
    copy_hand,
    discard_table,
    first_legal,
    is_bid,
    is_follow,
    is_reaction,
    move_chow_tiles,
    popcount,
    shanten_of,
    waits_after_discard,
)
from .spec import Param, policy

__all__ = ["random_policy", "greedy_policy", "count_waits_after", "GREEDY_DEFAULTS"]

#: the built-ins' bid before the deal (for_two's ``bid_timing="before_deal"``), and the bid from
#: which they fold one (4: they always follow); see :func:`bid_or_follow`. Measured with the
#: defaults' rules: the banker (14 tiles, first to act) gains about 0.08 stake per unit of bid and
#: hand with greedy on both sides, 0.05 with value, so the banker bids 3 and the opponent follows
#: (following loses about 0.2 stake at a bid of 3; folding pays 1).
BLIND_BID = 3
BLIND_FOLD_AT = 4

#: greedy's parameters: [claim pungs/chows/kongs, declare ready, make kongs from the hand (1 = yes),
#: bid 3 at dealt shanten <= this, bid 2 at <= this, fold when shanten + bid >= this, the bid
#: before the deal, fold a bid before the deal of at least this] (for_two's bid and follow: see
#: :func:`greedy_policy`)
GREEDY_DEFAULTS = np.array([1.0, 1.0, 1.0, 1.0, 2.0, 7.0, BLIND_BID, BLIND_FOLD_AT])


@policy(name="random")
@jit
def random_policy(view, legal, params, rng):  # pragma: no cover - compiled
    """Uniform over the legal actions (the engine's fuzzer): :func:`uniform_legal_action`."""
    return uniform_legal_action(legal, rng)


@jit
def count_waits_after(view, k):  # pragma: no cover - compiled
    """Number of winning kinds of the player's hand after discarding ``k``
    (``popcount(``:func:`~simkit.policies.helpers.waits_after_discard```)``)."""
    return popcount(waits_after_discard(view, k))


_NO_DISCARD = 1 << 40  #: _best_discard's key of a kind that is not a legal discard


@jit(inline="always")
def _best_discard(view, legal):  # pragma: no cover - compiled
    """(discard kind, shanten after it): least shanten, then most live improving tiles, then lowest kind.

    Live improving tiles are counted only when two or more discards tie for least shanten
    (:func:`~simkit.policies.helpers.discard_table` with ``LIVE_TIES``).
    """
    sh = stack_empty(34, np.int64)
    live = stack_empty(34, np.int64)
    discard_table(view, sh, live, LIVE_TIES)
    # the first legal k of least (shanten, -live), without a branch per kind (which kinds are
    # legal and tie is unpredictable): one key, shanten * 1024 - live (live is -1 .. 136), and a
    # strict "less" keeps the lowest kind; the start key is that of (99, -1), which nothing beats
    # by equalling it, as before
    best = -1
    best_key = 99 * 1024 + 1
    for k in range(34):
        key = sh[k] * 1024 - live[k]  # loaded whether legal or not: a select, not a branch on legal
        key = key if legal[A.DISCARD + k] else _NO_DISCARD
        better = key < best_key
        best = k if better else best
        best_key = key if better else best_key
    return best, sh[best] if best >= 0 else 99


@jit(inline="always")
def _any_kong(legal):  # pragma: no cover - compiled
    """Whether a concealed or added kong is legal: the 68 bytes of their actions read as nine
    words (:mod:`simkit._words`; the last overlaps the eighth), not a branch per action."""
    if legal.shape[0] != A.N_ACTIONS:
        for a in range(A.CONCEALED_KONG, A.ADDED_KONG + 34):
            if legal[a]:
                return True
        return False
    any_set = word_at(legal, A.ADDED_KONG + 26)
    for a in range(A.CONCEALED_KONG, A.ADDED_KONG + 26, 8):
        any_set |= word_at(legal, a)
    return any_set != 0


@jit(inline="always")
def _chow_or(choice, best_sh, view, legal, hand, work):  # pragma: no cover - compiled
    """The legal chow of the discard ``view.tile`` leaving the least shanten after its discard, if
    that is below ``best_sh``; otherwise ``choice``."""
    x = view.tile
    for j in range(3):
        if legal[A.CHOW + j]:
            move_chow_tiles(hand, x, j, -1)
            after = least_shanten_after_discard(hand, view.n_melds + 1, view.tables, work)
            move_chow_tiles(hand, x, j, 1)
            if after < best_sh:
                best_sh = after
                choice = A.CHOW + j
    return choice


@jit(inline="always")
def bid_or_follow(view, three, two, fold_at, blind_bid, blind_fold_at):  # pragma: no cover - compiled
    """for_two's bid and follow by the hand's shanten: bid 3 when the dealt 14 tiles are at most
    ``three`` from ready, 2 when at most ``two``, else 1; fold when the 13 tiles' shanten plus the
    bid reaches ``fold_at``. Before the deal (option ``bid_timing="before_deal"``: the view holds
    no tiles) there is no hand to judge: bid ``blind_bid``, fold a bid of at least
    ``blind_fold_at`` (4: always follow)."""
    blind = True
    for k in range(34):
        if view.hand[k] != 0:
            blind = False
    if blind:
        if is_bid(view):
            return A.BID + min(max(np.int64(blind_bid), 1), 3) - 1
        return A.FOLD if view.bid >= blind_fold_at else A.FOLLOW
    sh = shanten_of(view)
    if is_bid(view):
        b = 2 if sh <= three else (1 if sh <= two else 0)
        return A.BID + b
    return A.FOLD if sh + view.bid >= fold_at else A.FOLLOW


def bid_params(
    bid3_at: int, bid2_at: int, fold_at: int, blind_bid: int = BLIND_BID, blind_fold_at: int = BLIND_FOLD_AT
) -> dict:
    """The named parameters of :func:`bid_or_follow`'s thresholds, with these defaults (for a
    policy's ``@policy(...)``)."""
    return dict(
        bid3_at=Param(
            bid3_at, int, low=-1, high=13, doc="for_two: bid 3 when the dealt hand's shanten is at most this"
        ),
        bid2_at=Param(bid2_at, int, low=-1, high=13, doc="for_two: else bid 2 when it is at most this"),
        fold_at=Param(
            fold_at, int, low=0, high=20, doc="for_two: fold when the hand's shanten plus the bid reaches this"
        ),
        blind_bid=Param(blind_bid, int, low=1, high=3, doc="for_two, bid before the deal: the bid (1, 2 or 3)"),
        blind_fold_at=Param(
            blind_fold_at,
            int,
            low=1,
            high=4,
            doc="for_two, bid before the deal: fold a bid of at least this (4: always follow)",
        ),
    )


@jit(inline="always")
def _bid_or_follow(view, legal, params):  # pragma: no cover - compiled
    """greedy's for_two decisions: :func:`bid_or_follow` at ``params[3:6]`` (by default bid 3 at
    shanten 1, 2 at shanten 2; fold at shanten 4 against a bid of 3, 5 against 2, 6 against 1)."""
    three = params[3] if params.shape[0] > 3 else 1.0  # the GREEDY_DEFAULTS values
    two = params[4] if params.shape[0] > 4 else 2.0
    fold_at = params[5] if params.shape[0] > 5 else 7.0
    blind_bid = params[6] if params.shape[0] > 6 else BLIND_BID
    blind_fold_at = params[7] if params.shape[0] > 7 else BLIND_FOLD_AT
    return bid_or_follow(view, three, two, fold_at, blind_bid, blind_fold_at)


@policy(
    name="greedy",
    claim=Param(True, bool, doc="claim pungs, chows and kongs that do not worsen shanten"),
    declare=Param(True, bool, doc="declare ready (douque: MIGI when it may) as soon as the hand is ready"),
    kong=Param(True, bool, doc="make concealed and added kongs that do not worsen shanten"),
    **bid_params(bid3_at=1, bid2_at=2, fold_at=7),
)
@jit(refcounts=False)  # it allocates nothing (its scratch is on the stack) and owns no array
def greedy_policy(view, legal, params, rng):  # pragma: no cover - compiled
    """Win whenever possible; discard to the least shanten (ties: most live tiles that improve);
    claim a pung, chow or kong, or make a kong, only when it does not worsen shanten (between a
    pung and a chow, the one leaving the least shanten; ties: the pung); declare ready (MIGI when
    its conditions hold) as soon as the hand is ready. Shanten counts seven pairs where the rule
    set has them. for_two: bid by the shanten of the dealt hand, follow unless the hand is far
    from ready for the bid; before the deal, a fixed bid and follow (:func:`_bid_or_follow`).

    ``params``: [claim, declare, kong] each 1 (yes) or 0 (no), then the three for_two thresholds;
    see :data:`GREEDY_DEFAULTS` (missing entries: claims, declarations and kongs off, thresholds at
    their defaults).
    """
    if legal[A.WIN]:
        return A.WIN
    claim = params.shape[0] > 0 and params[0] != 0
    declare = params.shape[0] > 1 and params[1] != 0
    kong = params.shape[0] > 2 and params[2] != 0
    t = view.tables
    if is_reaction(view):
        if not claim:
            return A.PASS
        chows = legal[A.CHOW] or legal[A.CHOW + 1] or legal[A.CHOW + 2]
        if not (legal[A.PUNG] or legal[A.KONG] or chows):
            return A.PASS
        work = stack_empty(20, np.int64)
        hand = stack_empty(34, np.uint8)
        copy_hand(view, hand)
        x = view.tile
        now = shanten_of(view)
        if legal[A.KONG] and kong:
            hand[x] -= 3
            after = shanten_kernel(hand, view.n_melds + 1, t, work)
            hand[x] += 3
            if after <= now:
                return A.KONG
        choice = A.PASS
        best_sh = now + 1  # a claim must not worsen shanten
        if legal[A.PUNG]:
            hand[x] -= 2
            best = least_shanten_after_discard(hand, view.n_melds + 1, t, work)
            hand[x] += 2
            if best <= now:
                if not chows:
                    return A.PUNG
                choice = A.PUNG  # unless a chow leaves less
                best_sh = best
        if chows:  # (one call site: _chow_or is inlined)
            choice = _chow_or(choice, best_sh, view, legal, hand, work)
        return choice
    if is_bid(view) or is_follow(view):
        return _bid_or_follow(view, legal, params)
    # after a draw or a pung
    first = first_legal(legal)
    if view.declared != 0:
        return first  # locked hand: the drawn tile goes out (or the automatic added kong)
    k, sh = _best_discard(view, legal)
    if kong and _any_kong(legal):
        work = stack_empty(20, np.int64)
        hand = stack_empty(34, np.uint8)
        copy_hand(view, hand)
        for x in range(34):
            for base in (A.CONCEALED_KONG, A.ADDED_KONG):
                if legal[base + x]:
                    removed = 4 if base == A.CONCEALED_KONG else 1
                    hand[x] -= removed
                    extra = 1 if base == A.CONCEALED_KONG else 0
                    after = shanten_kernel(hand, view.n_melds + extra, t, work)
                    hand[x] += removed
                    if after <= sh:
                        return base + x
    if k < 0:
        return first
    if declare and legal[A.DECLARE + k]:
        return A.DECLARE + k
    return A.DISCARD + k
