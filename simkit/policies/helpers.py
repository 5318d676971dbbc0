"""A policy writer's toolkit: what a policy usually wants to know about its :class:`~simkit.engine.actions.View`.

Every helper is jitted (:func:`simkit._jit.jit`), so it can be called inside a jitted policy, and
from plain Python with a view of :meth:`simkit.GameState.view` (the first call with such a view
compiles a version for it). The built-in policies (:mod:`simkit.policies.basic`) use these same
helpers. Arrays passed as ``out`` are filled in place: 34 entries, one per tile kind. None of them
allocates: their own scratch is on the stack (:func:`simkit._jit.stack_empty`), which a policy
called at every decision can use too (``hand = stack_empty(34, np.uint8); copy_hand(view, hand)``).

==================================  ===============================================================
:func:`visible_counts`              copies of each kind in the player's sight (hand, melds, rivers)
:func:`hidden_counts`               at most how many copies of each kind the player cannot see
:func:`own_meld_counts`             tiles of each kind in the player's own melds
:func:`copy_hand`                   a scratch copy of the player's concealed tiles, to change
:func:`opponent_discarded`          copies of each kind in the opponent's river
:func:`shanten_of`                  shanten of the player's concealed hand (with their melds)
:func:`discard_table`               per discard: shanten after it and live tiles that improve it
:func:`hand_waits`                  bitmask of the winning kinds of a ready hand (13 - 3k tiles)
:func:`waits_after_discard`         the same after discarding one kind (14 - 3k tiles)
:func:`safe_against_discard_win`    whether the rules guarantee the opponent cannot win on a kind
:func:`runs_through`                the chows through a kind whose other tiles may be hidden
:func:`move_chow_tiles`             take a chow's two own tiles out of a hand (or put them back)
:func:`opponent_declaration`        0 none, 1 Declare Ready, 2 MIGI (douque)
:func:`is_own_turn` ...             the phase helpers: own turn, reaction, bid, follow-or-fold
:func:`legal_discards`              which kinds may be discarded now
:func:`first_legal`                 the lowest legal action (a locked hand's only choice)
==================================  ===============================================================

:func:`~simkit.hand.waits.popcount` (re-exported) counts the kinds of a waits bitmask.
"""

from __future__ import annotations

import numpy as np

from .._jit import jit, stack_empty
from ..engine import actions as A
from ..hand.shanten import LIVE_ALL, LIVE_BEST, LIVE_NONE, LIVE_TIES, discard_eval_kernel, shanten_kernel
from ..hand.waits import popcount, waits_kernel

__all__ = [
    "LIVE_NONE",
    "LIVE_ALL",
    "LIVE_BEST",
    "LIVE_TIES",
    "visible_counts",
    "hidden_counts",
    "copy_hand",
    "own_meld_counts",
    "opponent_discarded",
    "shanten_of",
    "discard_table",
    "hand_waits",
    "waits_after_discard",
    "safe_against_discard_win",
    "runs_through",
    "move_chow_tiles",
    "opponent_declaration",
    "is_own_turn",
    "is_reaction",
    "is_bid",
    "is_follow",
    "legal_discards",
    "first_legal",
    "popcount",
]


@jit(inline="always")
def _add_meld_tiles(melds, n_melds, out):  # pragma: no cover - compiled
    """Add the tiles of melds ``(type code, kind)`` to the counts ``out`` (a chow is kind..kind+2)."""
    for m in range(n_melds):
        code = melds[m, 0]
        kind = melds[m, 1]
        if code == 4:
            out[kind] += 1
            out[kind + 1] += 1
            out[kind + 2] += 1
        else:
            out[kind] += 3 if code == 0 else 4


@jit(inline="always")
def visible_counts(view, out):  # pragma: no cover - compiled
    """Copies of each kind the player can see: own hand and melds, both players' melds, both rivers.

    Parameters
    ----------
    view : View
    out : int64[34]
        Filled with the counts.

    Notes
    -----
    A discard that was claimed stays in its river (the view does not mark it) and is also a tile
    of the claimer's meld, so it is counted twice here: a kind of a claimed pung or kong, or one
    of a claimed chow's kinds, may count one more than the copies in sight (even above 4). This
    is the count ``greedy`` ranks live tiles by. :func:`hidden_counts` corrects it where a rule
    must hold for sure.
    """
    for k in range(34):
        out[k] = view.hand[k]
    _add_meld_tiles(view.melds, view.n_melds, out)
    _add_meld_tiles(view.opp_melds, view.opp_n_melds, out)
    for i in range(view.n_river):
        out[view.river[i]] += 1
    for i in range(view.opp_n_river):
        out[view.opp_river[i]] += 1


@jit(inline="always")
def _uncount_claims(melds, n_melds, other_river, n_other, out):  # pragma: no cover - compiled
    """Subtract from ``out`` every copy that may be a claimed discard counted twice: one per pung or
    kong claimed from ``other_river`` (codes 0 pung, 1 exposed kong, 2 added kong: a claimed pung
    first), and, for a chow, one for each of its kinds the other river holds (the view does not say
    which tile was claimed, so this may subtract one too many)."""
    for m in range(n_melds):
        code = melds[m, 0]
        kind = melds[m, 1]
        if code <= 2:
            out[kind] -= 1
        elif code == 4:
            for d in range(3):
                held = False
                for i in range(n_other):
                    if other_river[i] == kind + d:
                        held = True
                        break
                if held:
                    out[kind + d] -= 1


@jit
def hidden_counts(view, out):  # pragma: no cover - compiled
    """At most how many copies of each kind the player cannot see (the opponent's concealed tiles,
    the wall and any tiles kept back): ``4 - visible`` with each claimed discard counted once.

    Parameters
    ----------
    view : View
    out : int64[34]
        Filled with the bounds (0 for kinds outside the rule set's tile set).

    Notes
    -----
    Exact unless a chow was claimed: the view does not record which tile of the run came from the
    river, so every kind of the run found in the other player's river is taken as possibly claimed
    (the bound may then be one above the truth for those kinds, never below it).
    """
    visible_counts(view, out)
    _uncount_claims(view.melds, view.n_melds, view.opp_river, view.opp_n_river, out)
    _uncount_claims(view.opp_melds, view.opp_n_melds, view.river, view.n_river, out)
    in_set = stack_empty(34, np.bool_)
    for k in range(34):
        in_set[k] = False
    t = view.tables
    for i in range(t.kinds.shape[0]):
        in_set[t.kinds[i]] = True
    for k in range(34):
        out[k] = max(0, 4 - out[k]) if in_set[k] else 0


@jit
def own_meld_counts(view, out):  # pragma: no cover - compiled
    """Tiles of each kind in the player's own melds (``out``: int array of 34, e.g. uint8 for
    :func:`~simkit.hand.waits.waits_kernel`)."""
    for k in range(34):
        out[k] = 0
    _add_meld_tiles(view.melds, view.n_melds, out)


@jit
def opponent_discarded(view, out):  # pragma: no cover - compiled
    """Copies of each kind in the opponent's river (``out``: int64[34]); claimed discards included.

    Having discarded a kind does not stop the opponent from winning on it in any rule set (see
    :func:`safe_against_discard_win`): this is information for a heuristic, not a guarantee.
    Returns the number of the opponent's discards.
    """
    for k in range(34):
        out[k] = 0
    for i in range(view.opp_n_river):
        out[view.opp_river[i]] += 1
    return view.opp_n_river


@jit(inline="always")
def copy_hand(view, out):  # pragma: no cover - compiled
    """``out[k] = view.hand[k]`` for the 34 kinds: a scratch copy of the hand to change (e.g.
    ``stack_empty(34, np.uint8)``), element by element (a slice assignment compiles numba's shape
    checks into every caller)."""
    for k in range(34):
        out[k] = view.hand[k]


@jit(inline="always")
def shanten_of(view):  # pragma: no cover - compiled
    """Shanten of the player's concealed hand with their melds: -1 complete, 0 ready, ...

    Counts seven pairs where the rule set has them. The hand has 14 - 3k tiles on the player's
    turn and 13 - 3k otherwise (both are valid).
    """
    work = stack_empty(20, np.int64)
    return shanten_kernel(view.hand, view.n_melds, view.tables, work)


@jit(inline="always")
def discard_table(view, sh_out, live_out, live_mode=LIVE_ALL):  # pragma: no cover - compiled
    """For every kind, the shanten after discarding it and the live tiles that would then lower it.

    Parameters
    ----------
    view : View
        On the player's own turn (14 - 3k tiles in hand).
    sh_out, live_out : int64[34]
        Filled: ``sh_out[k]`` the shanten after discarding ``k`` (99 where ``k`` is not held);
        ``live_out[k]`` the number of unseen copies (``4 -`` :func:`visible_counts`) of the kinds
        that would lower that shanten, or -1 where not computed.
    live_mode : int
        :data:`LIVE_ALL` (default: every held kind), :data:`LIVE_BEST` (only the discards of least
        shanten), :data:`LIVE_TIES` (as LIVE_BEST but only when two or more tie) or
        :data:`LIVE_NONE`.

    Returns
    -------
    int
        The least shanten over the discards.

    Notes
    -----
    Wraps :func:`~simkit.hand.shanten.discard_eval_kernel` with :func:`visible_counts`. Whether a
    discard is legal is ``legal[DISCARD + k]``, not this table.
    """
    visible = stack_empty(34, np.int64)
    visible_counts(view, visible)
    return discard_eval_kernel(view.hand, view.n_melds, view.tables, visible, sh_out, live_out, np.int64(live_mode))


@jit
def hand_waits(view):  # pragma: no cover - compiled
    """Bitmask of the kinds that complete the player's hand (bit ``k`` set: kind ``k`` wins).

    For a concealed part of 13 - 3k tiles (0 for any other size, e.g. 14 - 3k on the player's own
    turn: use :func:`waits_after_discard`). A kind of which the player holds all 4 copies (hand
    and own melds) is never a winning tile. Count the kinds with :func:`popcount`.
    """
    mc = stack_empty(34, np.uint8)
    own_meld_counts(view, mc)
    return waits_kernel(view.hand, view.n_melds, mc, view.tables)


@jit
def waits_after_discard(view, k):  # pragma: no cover - compiled
    """Bitmask of the winning kinds of the player's hand after discarding one ``k`` (0 when ``k``
    is not held, or when the hand is not ready after that discard)."""
    if view.hand[k] == 0:
        return np.int64(0)
    hand = stack_empty(34, np.uint8)
    copy_hand(view, hand)
    hand[k] -= 1
    mc = stack_empty(34, np.uint8)
    own_meld_counts(view, mc)
    return waits_kernel(hand, view.n_melds, mc, view.tables)


@jit
def safe_against_discard_win(view, k):  # pragma: no cover - compiled
    """Whether the rules guarantee that the opponent cannot win on a discard (or robbed added
    tile) of kind ``k`` now, whatever tiles they hold.

    True when no concealed hand the opponent could hold is completed by ``k``: a winning hand is
    melds and a pair (seven pairs where the rule set has them), so ``k`` can complete it only as
    part of a pair, a pung or seven pairs -- which needs a ``k`` among the opponent's concealed
    tiles -- or of a chow through ``k`` (kinds of a suit with chows in the rule set's tile set,
    and only while the opponent has at least 4 concealed tiles), which needs the run's other two
    kinds there. With 4 copies of each kind (every rule set's tiles, docs/rules), a kind none of whose
    copies is hidden from the player (:func:`hidden_counts`) cannot be there.

    Why nothing else: no rule set forbids winning on a kind one has discarded oneself (there is
    no furiten in douque.md, night_market.md, duel.md or for_two.md), so the opponent's river
    proves nothing by itself. douque's Skipped Win (docs/rules/douque.md, Skipped Win and Skipped Pung) does stop a player who
    declined a win from winning at all, but the view cannot tell whether the opponent declined
    one or is still under one (it is lifted when they play a tile outside the recorded wait set,
    which may be the tile they just discarded if it was not the drawn tile). A MIGI declarer
    (docs/rules/douque.md, Declare Ready and MIGI) "always wins on a winning tile" with a locked hand, so a kind they let pass after
    declaring is not one of their waits -- unless they were already under a Skipped Win from
    before the declaration (the engine then does not offer the win: ``game._legal_react``), which
    the view does not show either. So those are strong hints (see :func:`opponent_discarded`,
    :func:`opponent_declaration`), not guarantees.
    """
    hidden = stack_empty(34, np.int64)
    hidden_counts(view, hidden)
    if hidden[k] > 0:
        return False  # the opponent may hold a k: a pair or seven-pairs wait on k is possible
    concealed = 13 - 3 * view.opp_n_melds
    if concealed < 4:
        return True  # a single concealed tile (4 melds): only a pair wait
    return runs_through(view, k, hidden) == 0


@jit
def runs_through(view, k, hidden):  # pragma: no cover - compiled
    """How many chows (runs of the rule set's suits with chows) through kind ``k`` have both other
    kinds among ``hidden`` (:func:`hidden_counts`): the runs whose other two tiles the opponent may
    hold, so that ``k`` may complete them."""
    t = view.tables
    n = 0
    for s in range(max(0, k - 2), min(k, 31) + 1):
        if t.chow_start[s]:
            ok = True
            for d in range(3):
                if s + d != k and hidden[s + d] == 0:
                    ok = False
            if ok:
                n += 1
    return n


@jit(inline="always")
def move_chow_tiles(hand, x, j, delta):  # pragma: no cover - compiled
    """Add ``delta`` to the two tiles of ``hand`` that claim ``x`` as the ``j``-th (0 lowest) tile of
    a chow (``delta = -1`` takes them out for the meld, ``+1`` puts them back)."""
    s = x - j
    for d in range(3):
        if d != j:
            hand[s + d] += delta


@jit
def opponent_declaration(view):  # pragma: no cover - compiled
    """The opponent's declaration: 0 none, 1 Declare Ready, 2 MIGI (docs/rules/douque.md, Declare Ready and MIGI; always 0 in
    the other rule sets). A declared hand is locked and ready."""
    return view.opp_declared


@jit(inline="always")
def is_own_turn(view):  # pragma: no cover - compiled
    """Whether the player is on their turn with 14 - 3k tiles (after a draw or a replacement:
    ``PHASE_DRAW``; after a pung or chow: ``PHASE_PUNG``): win, kong, discard or declare."""
    return view.phase == A.PHASE_DRAW or view.phase == A.PHASE_PUNG


@jit(inline="always")
def is_reaction(view):  # pragma: no cover - compiled
    """Whether the player is asked about the opponent's tile ``view.tile``: their discard
    (``PHASE_REACT``: win, pung, chow, kong or pass) or added kong (``PHASE_ROB``: win or pass)."""
    return view.phase == A.PHASE_REACT or view.phase == A.PHASE_ROB


@jit(inline="always")
def is_bid(view):  # pragma: no cover - compiled
    """Whether the player is the for_two banker bidding (``PHASE_BID``: ``BID + b`` bids b + 1)."""
    return view.phase == A.PHASE_BID


@jit(inline="always")
def is_follow(view):  # pragma: no cover - compiled
    """Whether the player answers the for_two banker's bid ``view.bid`` (``PHASE_FOLLOW``:
    ``FOLLOW`` or ``FOLD``)."""
    return view.phase == A.PHASE_FOLLOW


@jit(inline="always")
def first_legal(legal):  # pragma: no cover - compiled
    """The lowest legal action code (-1 when none): on a declared, locked hand the only choice --
    the drawn tile's discard, or the automatic added kong."""
    for a in range(legal.shape[0]):
        if legal[a]:
            return a
    return -1


@jit
def legal_discards(legal, out):  # pragma: no cover - compiled
    """``out[k]`` (bool[34]) = whether discarding ``k`` is legal (``legal[DISCARD + k]``); returns
    how many are. (Declaring with a discard is ``legal[DECLARE + k]``.)"""
    n = 0
    for k in range(34):
        out[k] = legal[A.DISCARD + k]
        n += out[k]
    return n
