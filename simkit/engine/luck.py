"""The luck of the draw: what every draw of a hand could have been, for luck-corrected estimates.

A draw is the game's only chance event after the deal: given everything on the table (both hands,
melds, rivers) the tiles not yet drawn lie in the wall in uniformly random order -- under every
wall design, since the wall is a uniform shuffle and which end a player draws from is decided by
play, not by the tiles -- so the drawn tile is a uniform draw from the wall's remaining tiles
(kept-back tiles included). :func:`draw_records` replays matches in the compiled engine, exactly
as they were played (same streams, same policies), and records at every decision after a draw
(``PHASE_DRAW``: a draw or a kong's replacement) the drawer's situation and, for every tile the
draw could have been, how far the drawer's hand would then be from complete: its shanten
(``-1`` complete) grouped into :data:`N_DRAW_CLASSES` classes (complete, ready, 1, 2, 3 or more
from ready), counted over the remaining tiles. :mod:`simkit.analysis.luck` turns these records
into the luck terms of a control variate (AIVAT-style) that removes most of the draws' luck from a
comparison without biasing it.

A record is a row of ``int32[N_DRAW_COLUMNS]``, columns ``L_*`` below.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit
from ..errors import InputValueError
from ..hand.shanten import shanten_kernel
from ..hand.tables import hand_tables
from . import game as G
from .actions import N_ACTIONS
from .compiled import policy_type, prepared
from .deal import wall_template
from .runtime import EngineError, engine_for, error_text, is_jitted, match_executor, policy_calls, thread_count

__all__ = ["N_DRAW_CLASSES", "N_DRAW_COLUMNS", "draw_class", "record_draw", "draw_records", "DrawRecords"]

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
L_CLASS_COUNTS = 8  #: columns 8..12: the remaining tiles (the drawn one included) by the class they give
N_DRAW_COLUMNS = L_CLASS_COUNTS + N_DRAW_CLASSES


@jit(inline="always")
def draw_class(shanten):  # pragma: no cover - compiled
    """The class of a hand by its shanten: 0 complete, 1 ready, 2, 3 and 4 for 1, 2, 3+ from ready."""
    return min(shanten, 3) + 1


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
    rec[L_MATCH] = match
    rec[L_HAND] = hand
    rec[L_PLAYER] = p
    rec[L_DECLARED] = 1 if T.declared[p] else 0
    rec[L_OPP_DECLARED] = 1 if T.declared[1 - p] else 0
    rec[L_OPP_SHANTEN] = shanten_kernel(T.hand[1 - p], T.n_melds[1 - p], t, work)
    rec[L_TILES_LEFT] = sc[G.S_BACK] - sc[G.S_FRONT] + 1 - sc[G.S_KEPT_BACK]


class DrawRecords(NamedTuple):
    """What :func:`draw_records` returns."""

    records: np.ndarray  #: int32[n, N_DRAW_COLUMNS] in play order (L_MATCH counted from the call's start)
    results: np.ndarray  #: float64[n_matches, max_hands, 2]: each seat's result (score - fee) of every hand
    n_hands: np.ndarray  #: int64[n_matches]: the hands each match played


#: Draw records a block's buffer gets per match before the first block of a rule set has run
#: (then the most seen per match, with a margin); a block that overflows is played again.
DRAWS_PER_MATCH = 1024
_draw_rates: dict = {}


def draw_records(spec, call0, call1, seed: int, start: int, n_matches: int, progress=None) -> DrawRecords:
    """Replay matches ``start .. start + n_matches - 1`` of ``seed`` with the policies
    ``call0`` / ``call1`` (``(function, params)``, jitted) under ``spec`` (rules and wall design),
    on all cores, and record every draw (:func:`record_draw`); ``progress`` (a
    :func:`simkit.progress.progress_bar`, optional) is advanced by the matches of every block."""

    (f0, p0), (f1, p1) = call0, call1
    if not (is_jitted(f0) and is_jitted(f1)):
        raise InputValueError(
            "the luck of the draw is measured by replaying the run in the compiled engine: "
            "its policies must be jitted (a plain-Python policy cannot be replayed there)"
        )
    engine = engine_for(spec)
    kinds, fn0, fn1 = policy_calls(f0, f1)
    template, tables = wall_template(spec.rules), hand_tables(spec.rules)
    results = np.zeros((n_matches, spec.max_hands, 2), np.float64)
    n_hands = np.zeros(n_matches, np.int64)
    errors = np.zeros((n_matches, 5), np.int64)
    error_legal = np.zeros((n_matches, N_ACTIONS), np.bool_)
    key = spec.rules.name

    def args_of(a, b, capacity):
        table = G.new_table(len(template), spec.items_proto)
        return (
            table,
            np.uint64(seed),
            int(start + a),
            int(b - a),
            template,
            tables,
            spec.game,
            spec.sp,
            kinds,
            fn0,
            fn1,
            p0,
            p1,
            np.zeros((capacity, N_DRAW_COLUMNS), np.int32),
            np.zeros(1, np.int64),
            results[a:b],
            n_hands[a:b],
            errors[a:b],
            error_legal[a:b],
        )

    kernel = prepared(engine.draw_luck_kernel, args_of(0, 1, 1), (9, 10), policy_type(spec))

    def run(a, b):
        capacity = max(64, int((b - a) * _draw_rates.get(key, DRAWS_PER_MATCH) * 1.25))
        while True:
            args = args_of(a, b, capacity)
            kernel(*args)
            count = int(args[14][0])
            if count <= capacity:
                _draw_rates[key] = max(_draw_rates.get(key, 0), count / (b - a))
                recs = args[13][:count]
                recs[:, L_MATCH] += a  # counted from the call's first match
                if progress is not None:
                    progress.update(b - a)
                return recs
            capacity = count  # the same games again, with room for every draw

    threads = thread_count()
    size = max(16, -(-n_matches // (4 * threads)))
    blocks = [(a, min(a + size, n_matches)) for a in range(0, n_matches, size)]
    if threads == 1 or len(blocks) == 1:
        parts = [run(a, b) for a, b in blocks]
    else:
        parts = [f.result() for f in [match_executor(threads).submit(run, a, b) for a, b in blocks]]
    bad = np.flatnonzero(errors[:, 0])
    if len(bad):
        code, action, player, phase, tile = (int(v) for v in errors[bad[0]])
        raise EngineError(
            error_text(
                code,
                action,
                f"match {start + int(bad[0])} of seed {seed} (replayed for its draws)",
                player,
                phase,
                tile,
                error_legal[bad[0]],
            )
        )
    return DrawRecords(np.concatenate(parts), results, n_hands)
