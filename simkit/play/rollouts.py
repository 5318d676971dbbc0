"""Rollouts: which discard, claim or declaration is best at a position, by Monte Carlo.

:func:`rollouts` plays, for every legal action of the deciding player at a
:class:`~simkit.play.position.Position` (or the actions given), ``n`` continuations to the end of
the hand (or of the match: ``to="match"``) with the rollout policies, in the compiled engine on all cores
(:func:`simkit.engine.step.rollouts_kernel`). Continuation ``i`` resamples what the player cannot
see -- the opponent's concealed tiles and the order of the wall -- uniformly from the unseen tiles
(for a declared opponent: uniformly among the completions that leave them ready) from the stream
``(seed, i)``, and plays every candidate action from that same completion with the same policy
streams (common random numbers), so the differences between actions are paired: the interval of
a difference is much narrower than those of the two means.

The result is a tidy DataFrame, one row per action, best first (highest mean result)::

    import simkit
    pos = simkit.Position.from_string("douque: hand 1112345m6789p1z3z 3z; drawn 3z; dealer")
    simkit.rollouts(pos, n=20_000)
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..engine import actions as A
from ..engine import table as eng
from ..engine.compiled import policy_type, prepared, search_type
from ..engine.deal import wall_template
from ..errors import SimkitError, check_int
from ..hand.tables import hand_tables
from ..policies.spec import as_policy
from ..tiles import format_tile_list, parse_tile_list
from .position import COMPLETION_STREAM, as_position
from .runtime import (
    EngineError,
    engine_for,
    error_text,
    policy_calls,
    prepare_match,
    run_blocks,
    searches,
)

__all__ = ["rollouts", "action_text", "parse_action", "action_codes", "RolloutError"]

#: Rollouts per block of work handed to a thread (a block's cost hides the per-call overhead).
BLOCK = 256


class RolloutError(SimkitError, ValueError):
    """Bad arguments to :func:`rollouts` (the message names the problem)."""


# ---------------------------------------------------------------------------------------------
# actions in notation


def action_text(action: int, tile: int, rules) -> str:
    """An action in notation: ``discard 6z``, ``declare 3m`` (declare ready and discard it),
    ``concealed kong 5m``, ``added kong 2z``, ``win``, ``pung``, ``kong``, ``pass``, ``chow 345m``
    (the run the claimed ``tile`` completes), ``bid 2``, ``follow``, ``fold``."""
    a = int(action)
    for base, label in (
        (A.DISCARD, "discard"),
        (A.DECLARE, "declare"),
        (A.CONCEALED_KONG, "concealed kong"),
        (A.ADDED_KONG, "added kong"),
    ):
        if base <= a < base + 34:
            return f"{label} {format_tile_list([a - base])}"
    if A.CHOW <= a < A.CHOW + 3:
        start = int(tile) - (a - A.CHOW)
        return "chow " + format_tile_list([start, start + 1, start + 2])
    if A.BID <= a < A.BID + 3:
        return f"bid {a - A.BID + 1}"
    names = {A.WIN: "win", A.PUNG: "pung", A.KONG: "kong", A.PASS: "pass", A.FOLLOW: "follow", A.FOLD: "fold"}
    if a in names:
        return names[a]
    raise RolloutError(f"not an action code: {action}")


def parse_action(text, tile: int, rules) -> int:
    """The action code of ``text`` (:func:`action_text`'s notation, or a code)."""
    if isinstance(text, (int, np.integer)) and not isinstance(text, bool):
        if not 0 <= int(text) < A.N_ACTIONS:
            raise RolloutError(f"not an action code: {text}")
        return int(text)
    if not isinstance(text, str):
        raise RolloutError(f"an action is notation such as 'discard 6z' or a code, got {text!r}")
    t = " ".join(text.strip().lower().split())
    simple = {"win": A.WIN, "pung": A.PUNG, "kong": A.KONG, "pass": A.PASS, "follow": A.FOLLOW, "fold": A.FOLD}
    if t in simple:
        return simple[t]
    m = re.fullmatch(r"bid ([123])", t)
    if m:
        return A.BID + int(m.group(1)) - 1
    m = re.fullmatch(r"(discard|declare|concealed kong|added kong|chow) (\S+)", t)
    if m:
        try:
            kinds = parse_tile_list(m.group(2), rules)
        except ValueError as exc:
            raise RolloutError(f"action {text!r}: {exc}") from None
        kind, what = kinds[0], m.group(1)
        if what == "chow":
            if len(kinds) != 3 or kinds[1] != kinds[0] + 1 or kinds[2] != kinds[0] + 2 or not 0 <= tile - kinds[0] <= 2:
                raise RolloutError(f"action {text!r}: a chow is the run of three the claimed tile completes")
            return A.CHOW + (tile - kinds[0])
        if len(kinds) != 1:
            raise RolloutError(f"action {text!r}: name one tile")
        base = {
            "discard": A.DISCARD,
            "declare": A.DECLARE,
            "concealed kong": A.CONCEALED_KONG,
            "added kong": A.ADDED_KONG,
        }[what]
        return base + kind
    raise RolloutError(
        f"cannot read action {text!r}: expected e.g. 'discard 6z', 'declare 3m', 'win', 'pung', 'kong', 'pass', "
        "'chow 345m', 'concealed kong 5m', 'added kong 2z', 'bid 2', 'follow', 'fold'"
    )


def action_codes(T, tile: int, rules, actions, error=RolloutError) -> list[int]:
    """The codes of ``actions`` (notation or codes; every legal action when None) at the decision
    of Table ``T``, each checked to be legal (``error`` names what is not)."""
    legal = np.flatnonzero(T.legal)
    if len(legal) == 0:
        raise error("the position has no legal action")
    if actions is None:
        return [int(a) for a in legal]
    if isinstance(actions, (str, int)) or not hasattr(actions, "__iter__"):
        actions = [actions]
    codes = []
    for a in actions:
        try:
            code = parse_action(a, tile, rules)
        except RolloutError as exc:
            raise error(str(exc)) from None
        if not T.legal[code]:
            shown = ", ".join(action_text(c, tile, rules) for c in legal)
            raise error(f"{action_text(code, tile, rules)} is not legal at this position (legal: {shown})")
        if code not in codes:
            codes.append(code)
    if not codes:
        raise error("actions is empty")
    return codes


# ---------------------------------------------------------------------------------------------
# the rollouts


def rollouts(
    position,
    n: int = 10_000,
    policies=("greedy", "greedy"),
    actions=None,
    seed: int = 0,
    *,
    to: str = "hand",
    threads: int | None = None,
):
    """Expected result of each action at ``position`` by ``n`` paired continuations per action.

    Parameters
    ----------
    position : Position or str
        The deciding player's position (:class:`simkit.Position`, or its notation string for
        :meth:`Position.from_string`). The deciding player is the viewer (player 0).
    n : int
        Continuations per action.
    policies : pair
        The rollout policies of the viewer (after the first action) and of the opponent: anything
        :func:`simkit.simulate_matches` takes (names with parameters, jitted functions).
    actions : sequence, optional
        The actions to compare (notation such as ``"discard 6z"``, or codes); default every legal
        action.
    seed : int
        Continuation ``i`` draws its completion and the policies' streams from ``(seed, i)``: the
        same arguments give the same numbers whatever the thread count.
    to : "hand" or "match"
        Play each continuation to the end of the hand (default), or on to the end of the match:
        the match's next hands (from the position's ``hand_number``, ``dealerships``, ``score``
        and ``opponent_score``) are dealt from the streams of match ``i`` of ``seed``, the same for
        every action, and ``mean`` is the viewer's change of balance to the match's end. The rates
        are of the position's hand either way. The players' chips (rule sets that play for chips)
        start at the rule set's starting chips.
    threads : int, optional
        Threads to run on (default: numba's thread count).

    Returns
    -------
    pandas.DataFrame
        One row per action, best first: ``action``, ``code``, ``rollouts``, ``win_rate``,
        ``self_draw_rate``, ``deal_in_rate`` (the viewer pays the opponent's win on their discard
        or robbed kong), ``draw_rate`` (no winner), ``mean``, ``mean_low``, ``mean_high`` (the
        viewer's result per hand -- score minus fee, in the rule set's payment unit -- with a 95%
        interval; with ``to="match"`` to the end of the match), ``diff``, ``diff_low``,
        ``diff_high`` (paired difference to the best action, 95% interval). ``df.attrs``: rules
        (name and options), position, policies, seed, n, to, value (what ``mean`` measures).
    """
    import pandas as pd

    position = as_position(position, RolloutError)
    n = check_int(n, "n", 1, 10**9, RolloutError)
    seed = check_int(seed, "seed", 0, 2**63 - 1, RolloutError)
    if threads is not None:
        threads = check_int(threads, "threads", 1, 1024, RolloutError)
    if to not in ("hand", "match"):
        raise RolloutError(f"to must be 'hand' or 'match', got {to!r}")
    rules = position._derived["rules"]  # resolved when the position was checked
    spec, f0, p0, f1, p1 = prepare_match(rules, policies, "dealer", "shared")
    spec = position._derived["spec"]  # the position's own wall design (stable_wall or not)
    state = position.state(seed, check=False)
    T = state._T
    tile = int(T.sc[eng.S_TILE])
    codes = action_codes(T, tile, rules, actions)
    d = position._derived
    unseen = np.ascontiguousarray(d["unseen"], np.int64)
    n_opp = int(d["opp_concealed"])
    opp_ready = bool(position.opponent_declared)
    engine = engine_for(spec, searches(f0, f1))
    kinds, fn0, fn1, search = policy_calls(f0, f1, spec)
    codes_arr = np.array(codes, np.int64)
    results = np.empty((n, len(codes), 4), np.float64)
    errors = np.zeros((n, 5), np.int64)

    tables = hand_tables(rules)
    template = wall_template(rules)
    template_len = len(T.wall)

    def args_of(a: int, b: int) -> tuple:
        work = eng.new_table(template_len, spec.items_proto)
        return (
            T,
            work,
            unseen,
            n_opp,
            opp_ready,
            np.uint64(seed),
            COMPLETION_STREAM,
            a,
            b - a,
            codes_arr,
            tables,
            spec.game,
            spec.sp,
            kinds,
            fn0,
            fn1,
            p0,
            p1,
            search,
            results[a:b],
            errors[a:b],
            template,
            to == "match",
        )

    pt = policy_type(spec)
    kernel = prepared(engine.rollouts_kernel, args_of(0, 1), {14: pt, 15: pt, 18: search_type(spec)})
    run_blocks(kernel, args_of, n, BLOCK, threads)
    if (errors[:, 0] == -1).any():
        raise RolloutError(
            "the opponent is declared ready, but no completion of the unseen tiles in 100,000 draws leaves them ready: "
            "check the position (their melds and the tiles seen)"
        )
    bad = np.flatnonzero(errors[:, 0])
    if len(bad):
        code, action, player, phase, tl = (int(v) for v in errors[bad[0]])
        raise EngineError(
            error_text(
                code, action, f"rollout {int(bad[0])} (seed {seed})", player, phase, tl, np.zeros(A.N_ACTIONS, np.bool_)
            )
        )
    return _table(results, codes, tile, rules, position, policies, seed, n, to, pd)


def _table(results, codes, tile, rules, position, policies, seed, n, to, pd):
    value = results[:, :, 0]
    winner, win_type, payer = results[:, :, 1], results[:, :, 2], results[:, :, 3]
    mean = value.mean(axis=0)
    half = 1.959963984540054 * value.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.full(len(codes), np.nan)
    best = int(np.argmax(mean))
    diff = value - value[:, [best]]
    dmean = diff.mean(axis=0)
    dhalf = 1.959963984540054 * diff.std(axis=0, ddof=1) / math.sqrt(n) if n > 1 else np.full(len(codes), np.nan)
    df = pd.DataFrame(
        {
            "action": [action_text(c, tile, rules) for c in codes],
            "code": codes,
            "rollouts": n,
            "win_rate": (winner == 0).mean(axis=0),
            "self_draw_rate": ((winner == 0) & (win_type == eng.WIN_SELF)).mean(axis=0),
            "deal_in_rate": ((winner == 1) & (payer == 0) & (win_type != eng.WIN_SELF)).mean(axis=0),
            "draw_rate": (winner < 0).mean(axis=0),
            "mean": mean,
            "mean_low": mean - half,
            "mean_high": mean + half,
            "diff": dmean,
            "diff_low": dmean - dhalf,
            "diff_high": dmean + dhalf,
        }
    )
    df = df.sort_values("mean", ascending=False, kind="stable").reset_index(drop=True)
    df.attrs.update(
        rules=rules.name,
        options=rules.to_dict(),
        position=str(position),
        seed=seed,
        n=n,
        to=to,
        policies=[_policy_text(p) for p in policies],
        value=(
            "the viewer's result per hand (score minus fee), in the rule set's payment unit"
            if to == "hand"
            else "the viewer's change of balance from the position to the end of the match, in the rule set's payment unit"
        ),
    )
    return df


def _policy_text(p) -> str:
    return as_policy(p).text()
