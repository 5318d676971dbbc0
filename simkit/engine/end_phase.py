"""for_two's end phase: the jokers among the kept-back tiles, and the ready players' picks.

The rule (``simkit.rules.for_two``, option ``end_phase``; docs/rules/for_two.md): when a player must
draw and only the kept-back tiles remain, the ready players pick from them; two of them
(``Game.end_jokers``) are jokers, which complete any wait.

**The jokers are placed at the deal**, from the wall's stream (:func:`joker_slots`, called by
``simkit.engine.step._begin_hand`` right after the shuffle and the dice): which of the
``Game.kept_back`` picks of the end phase are jokers, ``Game.end_jokers`` of them uniformly, kept
in ``sc[S_END_JOKERS]`` (bit ``k``: the ``k``-th pick is a joker). No policy's stream is read, so
no policy can predict a joker, how many numbers a policy draws changes nothing, and the two copies
of a duplicate deal (the same wall's stream) have the same jokers. The law of each pick is the
documented one: the first is a joker with probability 2 / 8, the next, given none so far, 2 / 7,
and so on; a pick that is not a joker takes the next tile of the wall.

**Who picks** (:func:`end_picker`): the ready players -- the same for the whole end phase, since a
pick that does not win leaves the hand as it was -- in turn from the one due to draw (the opponent
of the last discarder): once each (:data:`~simkit.engine.table.END_PHASE_ONE_PICK`), or on and on
until one wins or the kept-back tiles are gone (:data:`~simkit.engine.table.END_PHASE_DRAW_ON`).
A player who is not ready never picks.

``simkit.engine.step`` leaves the end phase pending (``PENDING_END_PHASE``) and plays it in
``_advance`` with :func:`end_phase_step`; the luck replay (``draw_luck_kernel``) records each pick
before playing it (:func:`simkit.engine.luck.record_end_pick`).
"""

from __future__ import annotations

import numpy as np

from .._jit import jit
from ..hand.waits import waits_kernel
from . import table as G
from .rng import bounded

__all__ = ["joker_slots", "end_picker", "end_pick", "end_phase_step", "NO_WIN"]

NO_WIN = -1  #: what :func:`end_pick` returns for a pick that is neither a joker nor a waited tile


@jit
def joker_slots(state, kept_back, jokers):  # pragma: no cover - compiled
    """``jokers`` of the ``kept_back`` slots, uniformly, drawn from ``state`` (uint64[1]): an int64
    bit mask, bit ``k`` for slot ``k``. Draw ``j`` picks the ``r``-th free slot, ``r`` uniform
    among the ``kept_back - j`` left, so every set of slots has the same probability."""
    slots = np.int64(0)
    for j in range(jokers):
        r = bounded(state, kept_back - j)
        for k in range(kept_back):
            if (slots >> k) & 1 == 0:
                if r == 0:
                    slots |= np.int64(1) << k
                    break
                r -= 1
    return slots


@jit(internal=True)
def end_picker(T, t, game):  # pragma: no cover - compiled
    """The player due to pick next in the pending end phase, or -1 when it is over: a pick won, no
    player is ready, every ready player has picked once (``END_PHASE_ONE_PICK``), or no kept-back
    tile is left. ``sc[S_CURRENT]`` is the player due to draw when it began; the picks so far are
    ``game.kept_back - sc[S_KEPT_BACK]`` (each pick lowers the kept-back count)."""
    sc = T.sc
    if sc[G.S_PHASE] != G.PENDING_END_PHASE or sc[G.S_BACK] - sc[G.S_FRONT] + 1 <= 0:
        return -1
    first = sc[G.S_CURRENT]
    second = 1 - first
    ready_first = waits_kernel(T.hand[first], T.n_melds[first], T.meld_counts[first], t) != 0
    ready_second = waits_kernel(T.hand[second], T.n_melds[second], T.meld_counts[second], t) != 0
    n_ready = (1 if ready_first else 0) + (1 if ready_second else 0)
    picks = game.kept_back - sc[G.S_KEPT_BACK]
    if n_ready == 0 or (game.end_phase == G.END_PHASE_ONE_PICK and picks >= n_ready):
        return -1
    if n_ready == 1:
        return first if ready_first else second
    return first if picks % 2 == 0 else second


@jit(internal=True)
def set_aside(T, p, x):  # pragma: no cover - compiled
    """``p``'s picked tile ``x`` goes to their river, out of play (nobody may claim it or win on
    it: the end phase asks nobody)."""
    n = T.n_river[p]
    T.river[p, n] = x
    T.claimed[p, n] = False
    T.n_river[p] = n + 1
    G._log(T.sc, T.log, G.EV_DISCARD, p, x, 0)


@jit(internal=True)
def end_pick(T, t, game, q):  # pragma: no cover - compiled
    """Ready player ``q`` picks the next kept-back tile (the next tile of the wall, from their end
    with stable walls). Returns the winning tile: the tile itself when the hand waits on it (it joins
    the hand), ``JOKER_TILE`` when the pick is a joker (the tile is set aside; the kind it stands
    for is chosen when the hand is settled), :data:`NO_WIN` otherwise (the tile is set aside)."""
    sc = T.sc
    waits = waits_kernel(T.hand[q], T.n_melds[q], T.meld_counts[q], t)
    joker = (sc[G.S_END_JOKERS] >> (game.kept_back - sc[G.S_KEPT_BACK])) & 1 != 0
    drawn = G._draw(T, q)
    sc[G.S_KEPT_BACK] -= 1
    G._log(sc, T.log, G.EV_DRAW, q, drawn, 2 if joker else 1)
    if joker:
        set_aside(T, q, drawn)
        return G.JOKER_TILE
    if (waits >> drawn) & 1:
        T.hand[q, drawn] += 1
        G._log(sc, T.log, G.EV_WIN, q, drawn, G.WIN_SELF)
        return drawn
    set_aside(T, q, drawn)
    return NO_WIN


@jit(internal=True)
def _end_hand(sc, winner, win_tile):  # pragma: no cover - compiled
    """The end phase ends the hand: a self-drawn win of ``winner`` on ``win_tile``, or (``winner``
    -1) a draw; it is then settled as any other end."""
    sc[G.S_WINNER] = winner
    sc[G.S_PAYER] = 1 - winner if winner >= 0 else -1
    sc[G.S_WIN_TYPE] = G.WIN_SELF if winner >= 0 else G.WIN_DRAW
    sc[G.S_WIN_TILE] = win_tile
    sc[G.S_PHASE] = G.PENDING_SETTLE


@jit(internal=True)
def end_phase_step(T, t, game):  # pragma: no cover - compiled
    """One step of the pending end phase: :func:`end_picker`'s player picks (:func:`end_pick`; a
    win ends the hand), or, when nobody picks any more, the hand is drawn. Returns the picker, or -1
    once the end phase is over. Each pick lowers the kept-back count, so the drawable count stays 0
    and the engine's invariants hold (checked after each pick when ``sc[S_CHECK]`` is set)."""
    sc = T.sc
    q = end_picker(T, t, game)
    if q < 0:
        if sc[G.S_PHASE] == G.PENDING_END_PHASE:
            _end_hand(sc, -1, -1)
        return -1
    win = end_pick(T, t, game, q)
    if win != NO_WIN:
        _end_hand(sc, q, win)
    elif sc[G.S_CHECK] and not G._check(T, q, np.bool_(False)):
        _end_hand(sc, -1, -1)
    return q
