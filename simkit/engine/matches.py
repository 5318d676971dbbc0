"""``simulate_matches``: whole douque matches on all cores, results as numpy columns."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import SimkitError
from ..hand.tables import hand_tables
from ..rules import resolve_rules
from ..scoring import douque as sc_douque
from . import douque as eng
from .deal import wall_template
from .policies import POLICIES

__all__ = ["simulate_matches", "resolve_policy"]


def resolve_policy(policy):
    """``(jitted function, params float64[])`` of a policy given by name, function, or (function, params)."""
    if isinstance(policy, str):
        if policy not in POLICIES:
            raise SimkitError(f"unknown policy {policy!r}; built-in policies: {', '.join(POLICIES)}")
        fn, params = POLICIES[policy]
        return fn, np.asarray(params, np.float64)
    if isinstance(policy, tuple) and len(policy) == 2:
        fn, params = policy
        return _check_fn(fn), np.ascontiguousarray(params, dtype=np.float64).reshape(-1)
    return _check_fn(policy), np.zeros(0, np.float64)


def _check_fn(fn):
    if not hasattr(fn, "py_func"):
        raise SimkitError(
            f"a policy must be a jitted function (numba.njit / simkit._jit.jit) or a built-in name, got {fn!r}"
        )
    return fn


def simulate_matches(
    rules="douque",
    policies: Sequence = ("greedy", "greedy"),
    n_matches: int = 1000,
    seed: int = 0,
    *,
    start: int = 0,
    check: bool = False,
) -> dict:
    """Play ``n_matches`` complete matches (four rounds) and return one row per hand.

    Parameters
    ----------
    rules : str or Rules
        ``"douque"`` (with any options).
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
        Check invariants (tiles conserved, hand sizes, kept-back tiles) after every step; slower.

    Returns
    -------
    dict of numpy arrays, one entry per hand: ``match``, ``hand``, ``prevailing_wind`` (kind),
    ``dealer``, ``streak``, ``seat_wind_0`` (player 0's seat wind kind), ``winner`` / ``payer``
    (-1 on a draw), ``win_type`` (0 draw, 1 self-drawn, 2 discard, 3 robbed kong), ``win_tile``,
    ``hand_tai``, ``dealer_tai``, ``points`` (what the payer pays), ``score_0`` / ``score_1``
    (each player's result), ``turns``, ``tiles_left``, ``kongs_*``, ``declared_*`` (0/1 ready/2
    MIGI), ``skipped_wins_*``, ``dealer_turn`` (0 first, 1 second dealer of the round), and
    ``items`` (int16[n_hands, N_ITEMS], columns :data:`simkit.scoring.ITEM_NAMES`).
    """
    rules = resolve_rules(rules)
    if rules.name != "douque":
        raise SimkitError(f"the engine plays douque; rule set '{rules.name}' is not implemented yet")
    if len(policies) != 2:
        raise SimkitError(f"policies must name two players' policies, got {len(policies)}")
    for name, value in (("n_matches", n_matches), ("seed", seed), ("start", start)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < (1 if name == "n_matches" else 0):
            raise SimkitError(f"{name} must be {'a positive' if name == 'n_matches' else 'a non-negative'} integer, got {value!r}")
    (f0, p0), (f1, p1) = resolve_policy(policies[0]), resolve_policy(policies[1])
    cap = int(rules.options.streak_cap)
    max_hands = 8 * (cap + 1)
    ints = np.zeros((n_matches, max_hands, eng.N_RESULT_INT), np.int64)
    items = np.zeros((n_matches, max_hands, sc_douque.N_ITEMS), np.int16)
    points = np.zeros((n_matches, max_hands), np.float64)
    n_hands = np.zeros(n_matches, np.int64)
    eng.play_matches_kernel(
        np.uint64(seed), int(start), int(n_matches), wall_template(rules), hand_tables(rules), sc_douque.params_of(rules),
        cap, rules.options.skipped_pung == "turn", bool(check), p0, p1, f0, f1, ints, items, points, n_hands,
    )
    keep = np.arange(max_hands)[None, :] < n_hands[:, None]
    rows = ints[keep]
    out = {name: rows[:, i] for i, name in enumerate(eng.RESULT_FIELDS)}
    out["points"] = points[keep]
    winner = out["winner"]
    out["score_0"] = np.where(winner == 0, out["points"], np.where(out["payer"] == 0, -out["points"], 0.0))
    out["score_1"] = -out["score_0"]
    out["items"] = items[keep]
    return out
