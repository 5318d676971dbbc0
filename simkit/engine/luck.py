"""The luck of the draw: what every draw of a hand could have been, for luck-corrected estimates.

A draw is the game's chance event after the deal (for_two's end-phase picks are the other, below):
given everything on the table (both hands,
melds, rivers) the tiles not yet drawn lie in the wall in uniformly random order -- under every
wall design, since the wall is a uniform shuffle and which end a player draws from is decided by
play, not by the tiles -- so the drawn tile is a uniform draw from the wall's remaining tiles
(kept-back tiles included). :func:`simkit.play.draw_luck.draw_records` replays matches in the compiled engine, exactly
as they were played (same streams, same policies), and records at every decision after a draw
(``PHASE_DRAW``: a draw or a kong's replacement) the drawer's situation and, for every tile the
draw could have been, how far the drawer's hand would then be from complete: its shanten
(``-1`` complete) grouped into :data:`N_DRAW_CLASSES` classes (complete, ready, 1, 2, 3 or more
from ready), counted over the remaining tiles. :mod:`simkit.analysis.luck` turns these records
into the luck terms of a control variate (AIVAT-style) that removes most of the draws' luck from a
comparison without biasing it.

A pick of for_two's end phase (:mod:`simkit.engine.end_phase`) is recorded too, before it is made
(:func:`record_end_pick`): the picker's hand either completes (a joker, or a tile it waits on) or
stays ready (any other tile is set aside), so its record has two classes. Nobody has seen a joker
before a pick (the first one ends the hand) and the jokers lie uniformly among the kept-back slots
not yet picked, independently of the wall's order, so with ``J`` jokers, ``S`` slots and ``R``
tiles left, of which ``W`` are waited on, the pick completes the hand with probability
``J / S + (1 - J / S) * W / R``: the record counts ``J * R + (S - J) * W`` for class 0 and
``(S - J) * (R - W)`` for class 1 (out of ``S * R``).

A record is a row of ``int32[N_DRAW_COLUMNS]``, columns ``L_*`` below.
"""

from __future__ import annotations

from .._jit import jit
from ..hand.shanten import shanten_kernel
from ..hand.waits import waits_kernel
from . import table as G

__all__ = ["N_DRAW_CLASSES", "N_DRAW_COLUMNS", "draw_class", "record_draw", "record_end_pick"]

#: Draw classes: the drawer's hand after the draw is complete (0), ready (1), or 1, 2, 3+ from ready.
N_DRAW_CLASSES = 5

# the columns of a draw record
L_MATCH = 0  #: the match, counted from the first of the call (``start``)
L_HAND = 1  #: the hand of the match
L_PLAYER = 2  #: the drawer's seat
L_DECLARED = 3  #: 1 if the drawer had declared (Declare Ready, MIGI) before the draw
L_OPP_DECLARED = 4  #: 1 if the opponent had
L_OPP_SHANTEN = 5  #: the opponent's shanten (concealed tiles and melds)
L_TILES_LEFT = 6  #: tiles left to draw after this draw (kept-back tiles not counted)
L_CLASS = 7  #: the class of the tile drawn (draw_class of the drawer's hand with it)
L_END_PHASE = 8  #: 1 for a pick of for_two's end phase (record_end_pick), 0 for a draw
L_CLASS_COUNTS = 9  #: columns 9..13: the remaining tiles (the drawn one included) by the class they give
N_DRAW_COLUMNS = L_CLASS_COUNTS + N_DRAW_CLASSES


@jit(inline="always")
def draw_class(shanten):  # pragma: no cover - compiled
    """The class of a hand by its shanten: 0 complete, 1 ready, 2, 3 and 4 for 1, 2, 3+ from ready."""
    return min(shanten, 3) + 1


@jit(inline="always")
def _record_situation(T, t, p, match, hand, rec, work):  # pragma: no cover - compiled
    """The fields of a chance record that say who meets it, where: the match and hand, player ``p``,
    both declarations and the opponent's shanten."""
    rec[L_MATCH] = match
    rec[L_HAND] = hand
    rec[L_PLAYER] = p
    rec[L_DECLARED] = 1 if T.declared[p] else 0
    rec[L_OPP_DECLARED] = 1 if T.declared[1 - p] else 0
    rec[L_OPP_SHANTEN] = shanten_kernel(T.hand[1 - p], T.n_melds[1 - p], t, work)


@jit(internal=True)
def record_draw(T, t, match, hand, rec, remaining, trial, work):  # pragma: no cover - compiled
    """Fill the draw record ``rec`` (int32[N_DRAW_COLUMNS]) of the decision in Table ``T``, which
    stands after player ``sc[S_PLAYER]`` drew ``sc[S_TILE]``; ``remaining`` and ``trial`` (uint8[34])
    and ``work`` (int64[20], the shanten kernel's) are scratch."""
    sc = T.sc
    p = sc[G.S_PLAYER]
    drawn = sc[G.S_TILE]
    for k in range(34):
        remaining[k] = 0
        trial[k] = T.hand[p, k]
    for j in range(sc[G.S_FRONT], sc[G.S_BACK] + 1):
        remaining[T.wall[j]] += 1
    remaining[drawn] += 1  # what the draw was taken from
    trial[drawn] -= 1
    for c in range(N_DRAW_CLASSES):
        rec[L_CLASS_COUNTS + c] = 0
    n_melds = T.n_melds[p]
    for k in range(34):
        if remaining[k] == 0:
            continue
        trial[k] += 1
        c = draw_class(shanten_kernel(trial, n_melds, t, work))
        trial[k] -= 1
        rec[L_CLASS_COUNTS + c] += remaining[k]
        if k == drawn:
            rec[L_CLASS] = c
    _record_situation(T, t, p, match, hand, rec, work)
    rec[L_TILES_LEFT] = sc[G.S_BACK] - sc[G.S_FRONT] + 1 - sc[G.S_KEPT_BACK]
    rec[L_END_PHASE] = 0


@jit(internal=True)
def record_end_pick(T, t, game, q, match, hand, rec, work):  # pragma: no cover - compiled
    """Fill the record ``rec`` (int32[N_DRAW_COLUMNS]) of the end-phase pick ready player ``q`` is
    about to make in Table ``T`` (the module's docstring gives its two classes' counts); its class
    (``L_CLASS``: 0 a win, 1 not) is the caller's to write once the pick is made. ``work``
    (int64[20]) is the shanten kernel's scratch."""
    sc = T.sc
    waits = waits_kernel(T.hand[q], T.n_melds[q], T.meld_counts[q], t)
    tiles = sc[G.S_BACK] - sc[G.S_FRONT] + 1
    waited = 0
    for j in range(sc[G.S_FRONT], sc[G.S_BACK] + 1):
        waited += (waits >> T.wall[j]) & 1
    slots = sc[G.S_KEPT_BACK]
    jokers = game.end_jokers  # none seen yet: the first ends the hand
    for c in range(N_DRAW_CLASSES):
        rec[L_CLASS_COUNTS + c] = 0
    rec[L_CLASS_COUNTS] = jokers * tiles + (slots - jokers) * waited
    rec[L_CLASS_COUNTS + 1] = (slots - jokers) * (tiles - waited)
    rec[L_CLASS] = 1
    _record_situation(T, t, q, match, hand, rec, work)
    rec[L_TILES_LEFT] = 0
    rec[L_END_PHASE] = 1
