"""``simulate_matches``, ``replay``, ``play_hand``: whole matches of any rule set on all cores,
results as numpy columns (the engine: :mod:`simkit.engine.table`; each rule set's data and settle
function: :mod:`simkit.engine.rulesets`)."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from ..engine import table as eng
from ..errors import InputValueError, check_flag, check_int, show
from ..rules import resolve_rules
from .position import WIND_LETTERS
from .runtime import (
    EngineError,
    HandRecord,
    PolicyCompileError,
    compile_policy,
    decision_columns,
    decisions_setting,
    engine_for,
    hand_record,
    is_jitted,
    prepare_match,
    raise_first_error,
    resolve_policy,
    result_buffers,
    result_columns,
    run_matches,
)
from .stepper import GameState, streak_limit, wall_kinds

__all__ = [
    "EngineError",
    "PolicyCompileError",
    "simulate_matches",
    "resolve_policy",
    "compile_policy",
    "replay",
    "play_hand",
    "HandRecord",
    "engine_for",
]


def simulate_matches(
    rules="douque",
    policies: Sequence = ("greedy", "greedy"),
    n_matches: int = 1000,
    seed: int = 0,
    *,
    start: int = 0,
    check: bool = False,
    duplicate: bool = False,
    deal: str | None = None,
    wall: str | None = None,
    decisions: bool | str = False,
) -> dict:
    """Play ``n_matches`` complete matches and return one row per hand.

    A douque match is four rounds (docs/rules/douque.md, Dealer, streak, rounds, match); a night_market, duel or for_two match is
    ``match_hands`` hands (rule option, 16 by default), and a duel match also ends when a player
    has no chips left (option ``chips``).

    Parameters
    ----------
    rules : str or Rules
        ``"douque"``, ``"night_market"``, ``"duel"`` or ``"for_two"`` (with any options).
    policies : pair
        Player 0's and player 1's policies: a built-in name (``"random"``, ``"greedy"``), a
        jitted policy function, or ``(function, params)``.
    n_matches : int
    seed : int
        Master seed; match ``i`` uses streams derived from ``(seed, start + i)`` only, so results do
        not depend on thread count or on how matches are split into calls.
    start : int
        Index of the first match (to continue a run).
    check : bool
        Check invariants (tiles conserved, hand sizes, kept-back tiles, payments zero-sum after
        fees and chips never below zero) after every step; slower.
    duplicate : bool
        Play every match twice: copy 0 with ``policies``, copy 1 with the seats swapped, on the same
        streams; the rows get a ``copy`` column (0 or 1) and come in (match, copy, hand) order.
    deal, wall : str, optional
        The wall design (:func:`simkit.engine.rulesets.wall_design`): ``deal="seat"`` (default: each
        seat's tiles from its own stream, so in a duplicate run the tiles follow the policies) or
        ``"dealer"`` (the original deal), ``wall="stable"`` (default with the deal "seat": each seat
        draws from its own stream) or ``"shared"``.
    decisions : bool or "observations"
        Also log every decision taken: the result gets a ``"decisions"`` entry (below); with
        ``"observations"`` it also holds what each decider saw (below). The games and the rows are
        the same either way.

    Returns
    -------
    dict of numpy arrays, one entry per hand (every rule set has every column; a column that does
    not apply to the rule set is 0):

    * ``match``, ``hand``, ``prevailing_wind`` (kind; always East outside douque), ``dealer``,
      ``streak`` (hands the dealer has kept the deal), ``seat_wind_0`` (player 0's seat wind kind),
      ``dealer_turn`` (douque: 0 first, 1 second dealer of the round; elsewhere the parity of the
      dealer changes so far);
    * ``winner`` (-1 on a draw or a fold), ``payer`` (-1 on a draw; on a fold the opponent, who pays
      the banker), ``win_type`` (0 draw, 1 self-drawn, 2 discard, 3 robbed kong, 4 for_two fold),
      ``win_tile``;
    * the value of the win: ``hand_tai`` and ``dealer_tai`` (douque), ``fan`` (night_market, duel),
      ``multiple`` (duel: ``min(2^(fan-1), multiple_cap)``), ``combination_points`` (for_two,
      float), ``bid`` (for_two: the banker's bid 1-3);
    * payments (float): ``points`` (what the payer paid the winner for the win -- for_two's fold:
      the fold payment to the banker -- after duel's chip limit), ``kong_payment_0`` /
      ``kong_payment_1`` (duel: what each player received for their kongs), ``score_0`` /
      ``score_1`` (what each player received from the opponent minus what they paid them, win and
      kong payments together: ``score_1 == -score_0``), ``fee_0`` / ``fee_1`` (duel: the fee each
      paid on what they received), ``balance_0`` / ``balance_1`` (each player's result in the match
      after this hand, ``sum(score - fee)``; with ``chips`` a player has ``chips + balance`` left,
      counted exactly in whole money units: :func:`simkit.rules.duel.money_unit`);
    * ``turns`` (decisions), ``tiles_left`` (drawable tiles left), ``kongs_*``, ``declared_*``
      (douque: 0/1 ready/2 MIGI), ``skipped_wins_*`` (douque);
    * ``items`` ([n_hands, N_ITEMS], the rule set's item columns in the order of
      :func:`simkit.scoring.item_names_of`; int16, float64 for for_two; zeros without a winner),
      ``win_hand`` (uint8[n_hands, 34], the winner's concealed tiles with the winning tile; zeros
      without a winner) and ``win_melds`` (int8[n_hands, 4, 2], the winner's melds as (type code
      of :mod:`simkit.melds`, kind; a chow's lowest kind), -1 in unused slots and without a winner).

    With ``decisions=True``, ``"decisions"``: a dict of numpy columns, one entry per decision taken,
    in the order played (with ``duplicate``: (match, copy, hand) order and a ``copy`` column):
    ``deal_id`` (``match << 16 | hand``, as the runs' rows), ``match``, ``hand``, ``step`` (the
    decision's index in its hand; a hand's decisions number its ``turns``), ``player`` (the deciding
    player), ``phase`` (``PHASE_*`` of :mod:`simkit.engine.actions`), ``tile`` (the tile concerned:
    the drawn tile, the opponent's discard or added tile; -1 if none), ``action`` (the action code),
    ``n_legal`` (legal actions), ``shanten_before`` / ``shanten_after`` (the deciding player's
    shanten at the decision and right after the action, before any draw it leads to; -1 after a win:
    :func:`simkit.engine.table.decision_stats`), ``counter_0`` .. ``counter_3`` (what the policy
    wrote in ``view.counters``; 0 otherwise). With ``decisions="observations"`` also the decider's
    legal mask, bit-packed (``legal``, uint8[n, 19]: ``numpy.unpackbits(legal, axis=1,
    count=N_ACTIONS, bitorder="little")``), and what their view held beyond the log's columns,
    ``view_<name>`` for the :class:`~simkit.engine.actions.View`'s ``hand`` (uint8[n, 34]), ``melds``
    and ``opp_melds`` (int8[n, 8], (type code, kind) pairs, -1 after the last), ``n_river``,
    ``opp_n_river``, ``tiles_left``, ``seat_wind``, ``prevailing_wind``, ``dealer``, ``streak``,
    ``declared``, ``opp_declared``, ``declared_at``, ``opp_declared_at``, ``bid``, ``skipped_win``,
    ``score`` and ``opp_score`` (the rivers follow from the hand's logged discards and claims:
    :func:`simkit.analysis.decision_arrays` turns a run's log into observations).
    """
    spec, f0, p0, f1, p1 = prepare_match(resolve_rules(rules), policies, deal, wall)
    for name, value in (("n_matches", n_matches), ("seed", seed), ("start", start)):
        if (
            isinstance(value, (bool, np.bool_))
            or not isinstance(value, (int, np.integer))
            or value < (1 if name == "n_matches" else 0)
        ):
            raise InputValueError(
                f"{name} must be {'a positive' if name == 'n_matches' else 'a non-negative'} integer, got {show(value)}"
            )
    _check_ids(seed, start, n_matches)
    check_flag(check, "check")
    if not isinstance(duplicate, (bool, np.bool_)):
        raise InputValueError(f"duplicate must be True or False, got {show(duplicate)}")
    decisions = decisions_setting(decisions)
    _check_memory(spec, n_matches * (2 if duplicate else 1))
    if not duplicate:
        return _simulate_copy(spec, (f0, p0), (f1, p1), n_matches, seed, start, check, decisions)
    copies = [
        _simulate_copy(spec, *calls, n_matches, seed, start, check, decisions)
        for calls in (((f0, p0), (f1, p1)), ((f1, p1), (f0, p0)))
    ]
    logs = [rows.pop("decisions") for rows in copies] if decisions else None
    out = _interleave_copies(copies)
    if decisions:
        out["decisions"] = _interleave_copies(logs)
    return out


def _interleave_copies(copies) -> dict:
    """The columns of the two copies of a duplicate call with a ``copy`` column, in (match, copy,
    original) order."""
    for c, rows in enumerate(copies):
        rows["copy"] = np.full(len(rows["match"]), c, np.int8)
    order = np.lexsort(
        (
            np.concatenate([np.arange(len(r["match"])) for r in copies]),
            np.concatenate([r["copy"] for r in copies]),
            np.concatenate([r["match"] for r in copies]),
        )
    )
    return {name: np.concatenate([r[name] for r in copies])[order] for name in copies[0]}


def _check_ids(seed, start, n_matches=1, what="start") -> None:
    """Seeds and match ids are below 2**63 (the match column is int64; the streams' counters)."""
    if seed >= 2**63:
        raise InputValueError(f"seed must be below 2**63, got {show(seed)}")
    if start + n_matches > 2**63:
        raise InputValueError(
            f"match ids must stay below 2**63: {what}={show(start)} with n_matches={show(n_matches)} goes beyond"
        )


def _check_memory(spec, n_matches: int) -> None:
    """Refuse, in one line, a call whose result rows cannot fit in this machine's memory."""

    row = 8 * (eng.N_RESULT_INT + eng.N_RESULT_FLOAT) + 8 * len(spec.item_names) + 34 + 8
    need = n_matches * spec.max_hands * row
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return
    if need > total:
        raise InputValueError(
            f"n_matches={n_matches:,} needs up to {need / 2**30:,.1f} GiB of result rows, more than this machine's "
            f"{total / 2**30:,.1f} GiB; play them in smaller calls (start= continues a run)"
        )


def _simulate_copy(spec, call0, call1, n_matches, seed, start, check, decisions=False) -> dict:
    """The rows of :func:`simulate_matches` for one seating."""
    (f0, p0), (f1, p1) = call0, call1
    if not (is_jitted(f0) and is_jitted(f1)):
        return _simulate_in_python(spec, call0, call1, n_matches, seed, start, check, decisions)
    bufs, n_hands, errors, error_legal, _, _, _, *log = run_matches(
        spec, f0, p0, f1, p1, seed, start, n_matches, check, decisions=decisions
    )
    raise_first_error(errors, error_legal, n_hands, start, seed)
    rows = result_columns(*bufs)
    if decisions:
        rows["decisions"] = log[0]
    return rows


def _play_out_logged(state, calls, log, observing) -> None:
    """``state.play_out`` with Python policies, logging each decision into ``log`` (a list of
    (int16[N_DECISION_INT] row, float64[N_COUNTERS] counters, uint8[N_OBSERVED] observed facts or
    None)) as the engine logs it (``observing``: with the observed facts)."""
    while not state.over:
        f, params = calls[state.player]
        view = state.view()
        action = f(view, state.legal, params, state.policy_stream())
        record = state._decision_record(action, observing)
        if record is not None:
            row, _, observed = record
            log.append((row, np.array(view.counters, np.float64), observed))
        state.apply(action)


def _simulate_in_python(spec, call0, call1, n_matches, seed, start, check, decisions=False) -> dict:
    """:func:`simulate_matches` with a plain Python policy: every decision asked from Python
    through the step API (:class:`~simkit.play.stepper.GameState`), the same engine and streams."""

    rows = []
    log = []
    for i in range(n_matches):
        state = GameState.new_match(spec, seed, start + i, check=check)
        while True:
            try:
                if decisions:
                    _play_out_logged(state, (call0, call1), log, decisions == "observations")
                else:
                    state._play_out_with(call0, call1)
            except EngineError as exc:
                h = int(state._T.sc[eng.S_HAND_NUMBER])
                raise EngineError(
                    str(exc).replace("this state", f"match {start + i}, hand {h} (seed {seed})")
                ) from None
            rows.append(state.result_arrays())
            if not state.next_hand():
                break
    bufs = result_buffers(spec, len(rows))
    for j, row in enumerate(rows):
        for b, v in zip(bufs, row):
            b[j] = v
    out = result_columns(*bufs)
    if decisions:
        out["decisions"] = decision_columns(
            bufs[0],
            np.array([r[0] for r in log], np.int16).reshape(-1, eng.N_DECISION_INT),
            np.array([r[1] for r in log], np.float64).reshape(-1, eng.N_COUNTERS),
            np.array([r[2] for r in log], np.uint8).reshape(-1, eng.N_OBSERVED)
            if decisions == "observations"
            else None,
        )
    return out


def replay(
    seed: int,
    match: int,
    hand: int,
    rules="douque",
    policies: Sequence = ("greedy", "greedy"),
    *,
    deal: str | None = None,
    wall: str | None = None,
) -> HandRecord:
    """Replay hand ``hand`` of match ``match`` of a run with ``seed``: its row and every event.

    The result is identical to what :func:`simulate_matches` did (same rules, wall design, streams
    and policies; the match is replayed from its start, so balances and chips are too).
    """
    spec, f0, p0, f1, p1 = prepare_match(resolve_rules(rules), policies, deal, wall)
    for name, value in (("seed", seed), ("match", match), ("hand", hand)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
            raise InputValueError(f"{name} must be a non-negative integer, got {show(value)}")
    _check_ids(seed, match, 1, "match")
    bufs, n_hands, errors, error_legal, wall, log, n_log = run_matches(
        spec, f0, p0, f1, p1, seed, match, 1, False, log_hand=min(hand, spec.max_hands)
    )
    raise_first_error(errors, error_legal, n_hands, match, seed)
    if n_hands[0] <= hand:
        n = int(n_hands[0])
        raise InputValueError(
            f"match {match} of seed {seed} has {n} hand{'s' if n != 1 else ''} (0 to {n - 1}); there is no hand {hand}"
        )
    return hand_record(spec, *(b[hand] for b in bufs), log, n_log, wall)


def play_hand(
    wall,
    *,
    dealer: int = 0,
    dealer_east: bool = True,
    streak: int = 0,
    prevailing_wind: str = "E",
    rules="douque",
    policies: Sequence = ("greedy", "greedy"),
    seed: int = 0,
    check: bool = True,
) -> HandRecord:
    """Play one hand from a given wall (a scenario): the dealer takes wall[0:14], the opponent
    wall[14:27], draws continue from wall[27] and kong replacements come from the end.

    ``wall``: tile notation in wall order (``"1m 1m 2m ..."`` is read as kinds in the order written)
    or an array of kinds; it must hold exactly the rule set's tiles. Balances start at zero (duel:
    each player has ``chips`` at the table). for_two hands start with the bid and follow decisions.
    """

    spec, f0, p0, f1, p1 = prepare_match(resolve_rules(rules), policies)
    kinds = wall_kinds(wall, spec.rules)  # checked before anything enters numba

    prevailing = WIND_LETTERS.get(prevailing_wind) if isinstance(prevailing_wind, str) else None
    if prevailing is None:
        raise InputValueError(f"prevailing_wind must be one of E, S, W, N, got {show(prevailing_wind)}")
    dealer = check_int(dealer, "dealer", 0, 1)
    streak = check_int(streak, "streak", 0, streak_limit(spec))
    check_flag(dealer_east, "dealer_east")
    check_flag(check, "check")
    seed = check_int(seed, "seed", 0, 2**63 - 1)
    state = GameState.from_wall(
        spec,
        kinds,
        dealer=int(dealer),
        dealer_east=bool(dealer_east),
        streak=int(streak),
        prevailing=prevailing,
        seed=seed,
        check=check,
    )
    if state.error:
        raise EngineError(state.error_text("the hand from the given wall"))
    try:
        state.play_out((f0, p0), (f1, p1))
    except EngineError as exc:
        raise EngineError(str(exc).replace("this state", "the hand from the given wall")) from None
    return state.record()
