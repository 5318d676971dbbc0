"""The draws of matches replayed in the compiled engine, for the luck correction: every draw's
record (:func:`simkit.engine.luck.record_draw`) and every hand's result, on all cores."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engine import table as G
from ..engine.actions import N_ACTIONS
from ..engine.compiled import policy_type, prepared, search_type
from ..engine.deal import wall_template
from ..engine.luck import L_MATCH, N_DRAW_COLUMNS
from ..errors import InputValueError
from ..hand.tables import hand_tables
from .runtime import (
    EngineError,
    engine_for,
    error_text,
    is_jitted,
    match_executor,
    policy_calls,
    searches,
    thread_count,
)

__all__ = ["draw_records", "DrawRecords"]


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
    engine = engine_for(spec, searches(f0, f1))
    kinds, fn0, fn1, search = policy_calls(f0, f1, spec)
    template, tables = wall_template(spec.rules), hand_tables(spec.rules)
    results = np.zeros((n_matches, spec.max_hands, 2), np.float64)
    n_hands = np.zeros(n_matches, np.int64)
    errors = np.zeros((n_matches, 5), np.int64)
    error_legal = np.zeros((n_matches, N_ACTIONS), np.bool_)
    key = spec.rules.name

    def args_of(a, b, records, n_records):
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
            search,
            records,
            n_records,
            results[a:b],
            n_hands[a:b],
            errors[a:b],
            error_legal[a:b],
        )

    pt = policy_type(spec)
    kernel = prepared(
        engine.draw_luck_kernel,
        args_of(0, 1, np.zeros((1, N_DRAW_COLUMNS), np.int32), np.zeros(1, np.int64)),
        {9: pt, 10: pt, 13: search_type(spec)},
    )

    def run(a, b):
        capacity = max(64, int((b - a) * _draw_rates.get(key, DRAWS_PER_MATCH) * 1.25))
        while True:
            records, n_records = np.zeros((capacity, N_DRAW_COLUMNS), np.int32), np.zeros(1, np.int64)
            kernel(*args_of(a, b, records, n_records))
            count = int(n_records[0])
            if count <= capacity:
                _draw_rates[key] = max(_draw_rates.get(key, 0), count / (b - a))
                recs = records[:count]
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
