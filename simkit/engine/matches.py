"""``simulate_matches``: whole douque matches on all cores, results as numpy columns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import SimkitError
from ..hand.tables import hand_tables
from ..rules import resolve_rules
from ..scoring import douque as sc_douque
from . import douque as eng
from .deal import wall_template
from .policies import POLICIES

__all__ = ["EngineError", "simulate_matches", "resolve_policy", "replay", "play_hand", "HandRecord"]


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


class EngineError(SimkitError, RuntimeError):
    """The engine stopped a match: a policy returned an illegal action, or an invariant broke."""


def _error_text(code: int, detail: int, where: str) -> str:
    from .actions import action_name

    text = eng.ERROR_MESSAGES[code] if 0 < code < len(eng.ERROR_MESSAGES) else f"engine error {code}"
    if code == 1 and detail >= 0:
        try:
            text += f" ({action_name(detail)})"
        except ValueError:
            text += f" (code {detail})"
    return f"{text} in {where}"


def _common(rules, policies):
    rules = resolve_rules(rules)
    if rules.name != "douque":
        raise SimkitError(f"the engine plays douque; rule set '{rules.name}' is not implemented yet")
    if len(policies) != 2:
        raise SimkitError(f"policies must name two players' policies, got {len(policies)}")
    (f0, p0), (f1, p1) = resolve_policy(policies[0]), resolve_policy(policies[1])
    return rules, f0, p0, f1, p1


def _rows(ints, items, points, hands, melds, n):
    rows = ints[:n]
    out = {name: rows[:, i] for i, name in enumerate(eng.RESULT_FIELDS)}
    out["points"] = points[:n]
    winner = out["winner"]
    out["score_0"] = np.where(winner == 0, out["points"], np.where(out["payer"] == 0, -out["points"], 0.0))
    out["score_1"] = -out["score_0"]
    out["items"] = items[:n]
    out["win_hand"] = hands[:n]
    out["win_melds"] = melds[:n]
    return out


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
    MIGI), ``skipped_wins_*``, ``dealer_turn`` (0 first, 1 second dealer of the round),
    ``items`` (int16[n_hands, N_ITEMS], columns :data:`simkit.scoring.ITEM_NAMES`), ``win_hand``
    (uint8[n_hands, 34], the winner's concealed tiles with the winning tile; zeros on a draw) and
    ``win_melds`` (int8[n_hands, 4, 2], the winner's melds as (type code of :mod:`simkit.melds`,
    kind), -1 in unused slots and on a draw).
    """
    rules, f0, p0, f1, p1 = _common(rules, policies)
    for name, value in (("n_matches", n_matches), ("seed", seed), ("start", start)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < (1 if name == "n_matches" else 0):
            raise SimkitError(f"{name} must be {'a positive' if name == 'n_matches' else 'a non-negative'} integer, got {value!r}")
    cap = int(rules.options.streak_cap)
    max_hands = 8 * (cap + 1)
    ints = np.zeros((n_matches, max_hands, eng.N_RESULT_INT), np.int64)
    items = np.zeros((n_matches, max_hands, sc_douque.N_ITEMS), np.int16)
    points = np.zeros((n_matches, max_hands), np.float64)
    hands = np.zeros((n_matches, max_hands, 34), np.uint8)
    melds = np.zeros((n_matches, max_hands, 4, 2), np.int8)
    n_hands = np.zeros(n_matches, np.int64)
    errors = np.zeros((n_matches, 2), np.int64)
    eng.play_matches_kernel(
        np.uint64(seed), int(start), int(n_matches), wall_template(rules), hand_tables(rules), sc_douque.params_of(rules),
        cap, rules.options.skipped_pung == "turn", bool(check), p0, p1, f0, f1, ints, items, points, hands, melds, n_hands, errors,
    )
    bad = np.flatnonzero(errors[:, 0])
    if len(bad):
        i = int(bad[0])
        h = int(n_hands[i]) - 1
        raise EngineError(_error_text(int(errors[i, 0]), int(errors[i, 1]), f"match {start + i}, hand {h} (seed {seed})"))
    keep = np.arange(max_hands)[None, :] < n_hands[:, None]
    return _rows(ints[keep], items[keep], points[keep], hands[keep], melds[keep], int(keep.sum()))


@dataclass(frozen=True)
class HandRecord:
    """One hand's result row and its events, as replayed or played from a given wall."""

    row: dict
    events: list  #: (event name, player, tile kind or -1, extra)
    wall: np.ndarray  #: the hand's wall as dealt (kinds)
    items: dict  #: the winner's scored items

    def lines(self) -> list[str]:
        """The events in tile notation, one per line, as ``simkit replay`` prints them."""
        from ..tiles import format_tiles, tile_name

        wind = {27: "East", 28: "South", 29: "West", 30: "North"}
        dealer = int(self.row["dealer"])
        dealt = [np.bincount(self.wall[14:27], minlength=34), np.bincount(self.wall[14:27], minlength=34)]
        dealt[dealer] = np.bincount(self.wall[:14], minlength=34)
        seat0 = int(self.row["seat_wind_0"])
        seats = [wind.get(seat0, "?"), "West" if seat0 == 27 else "East"]
        out = [
            f"{wind.get(int(self.row['prevailing_wind']), '?')} round, dealer player {dealer}, streak {int(self.row['streak'])}",
            f"deal: player 0 ({seats[0]}) {format_tiles(dealt[0])}; player 1 ({seats[1]}) {format_tiles(dealt[1])}",
        ]
        for name, player, tile, extra in self.events:
            if name == "deal":
                continue
            tile_text = tile_name(tile) if tile >= 0 else ""
            if name == "declare":
                out.append(f"player {player} declares {'MIGI' if extra == 2 else 'ready'} and discards {tile_text}")
            elif name == "skipped win":
                kinds = [tile_name(k) for k in range(34) if (extra >> k) & 1]
                out.append(f"player {player} skips a win on {tile_text or 'the deal'} (waits {' '.join(kinds)})")
            elif name == "win":
                how = {1: "self-drawn", 2: "on a discard", 3: "robbing the kong"}[extra]
                out.append(f"player {player} wins {how} on {tile_text}")
            elif name == "exhaustive draw":
                out.append(f"exhaustive draw ({extra} drawable tiles left)")
            else:
                out.append(f"player {player} {name} {tile_text}")
        if self.items:
            out.append("items: " + ", ".join(f"{k} {v}" for k, v in self.items.items()))
            out.append(
                f"hand tai {int(self.row['hand_tai'])}, dealer tai {int(self.row['dealer_tai'])}, "
                f"payment {float(self.row['points']):g} points"
            )
        return out


def _record(rules, row_ints, items_row, points, hand_row, melds_row, log, n_log, wall) -> HandRecord:
    row = {name: int(row_ints[i]) for i, name in enumerate(eng.RESULT_FIELDS)}
    row["points"] = float(points)
    row["win_hand"] = np.asarray(hand_row).copy()
    row["win_melds"] = np.asarray(melds_row).copy()
    events = [(eng.EVENT_NAMES[int(k)], int(p), int(t), int(e)) for k, p, t, e in log[:n_log]]
    items = {name: int(items_row[i]) for i, name in enumerate(sc_douque.ITEM_NAMES) if items_row[i]}
    return HandRecord(row=row, events=events, wall=np.asarray(wall).copy(), items=items)


def replay(seed: int, match: int, hand: int, rules="douque", policies: Sequence = ("greedy", "greedy")) -> HandRecord:
    """Replay hand ``hand`` of match ``match`` of a run with ``seed``: its row and every event.

    The result is identical to what :func:`simulate_matches` did (same streams, same policies).
    """
    rules, f0, p0, f1, p1 = _common(rules, policies)
    for name, value in (("seed", seed), ("match", match), ("hand", hand)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise SimkitError(f"{name} must be a non-negative integer, got {value!r}")
    cap = int(rules.options.streak_cap)
    max_hands = 8 * (cap + 1)
    ints = np.zeros((max_hands, eng.N_RESULT_INT), np.int64)
    items = np.zeros((max_hands, sc_douque.N_ITEMS), np.int16)
    points = np.zeros(max_hands, np.float64)
    hands = np.zeros((max_hands, 34), np.uint8)
    melds = np.zeros((max_hands, 4, 2), np.int8)
    template = wall_template(rules)
    wall = np.zeros(len(template), np.int8)
    log = np.zeros((eng.MAX_LOG, 4), np.int64)
    n_log = eng.replay_kernel(
        np.uint64(seed), int(match), int(hand), template, hand_tables(rules), sc_douque.params_of(rules), cap,
        rules.options.skipped_pung == "turn", p0, p1, f0, f1, ints, items, points, hands, melds, wall, log,
    )
    if n_log < -1:
        raise EngineError(_error_text(-1 - n_log, -1, f"match {match}, hand {hand} (seed {seed})"))
    if n_log < 0:
        raise SimkitError(f"match {match} of seed {seed} has fewer than {hand + 1} hands")
    return _record(rules, ints[hand], items[hand], points[hand], hands[hand], melds[hand], log, n_log, wall)


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
    or an array of kinds; it must hold exactly the rule set's tiles.
    """
    from ..tiles import parse_tile_list

    rules, f0, p0, f1, p1 = _common(rules, policies)
    kinds = np.asarray(parse_tile_list(wall, rules) if isinstance(wall, str) else wall, np.int8)
    template = wall_template(rules)
    if kinds.shape != template.shape or not np.array_equal(np.sort(kinds), np.sort(template)):
        raise SimkitError(f"the wall must hold exactly the {len(template)} tiles of rule set '{rules.name}'")
    prevailing = {"E": 27, "S": 28, "W": 29, "N": 30}.get(prevailing_wind)
    if prevailing is None:
        raise SimkitError(f"prevailing_wind must be one of E, S, W, N, got {prevailing_wind!r}")
    row = np.zeros(eng.N_RESULT_INT, np.int64)
    items = np.zeros(sc_douque.N_ITEMS, np.int16)
    hand_row = np.zeros(34, np.uint8)
    melds_row = np.zeros((4, 2), np.int8)
    log = np.zeros((eng.MAX_LOG, 4), np.int64)
    sp = sc_douque.params_of(rules)
    n_log = eng.play_hand_kernel(
        kinds, int(dealer), bool(dealer_east), int(streak), prevailing, hand_tables(rules), sp,
        rules.options.skipped_pung == "turn", bool(check), p0, p1, f0, f1, np.uint64(seed), row, items, hand_row, melds_row, log,
    )
    if n_log < 0:
        raise EngineError(_error_text(-n_log, -1, "the hand from the given wall"))
    points = sp.base + sp.tai_value * (row[eng.R_HAND_TAI] + row[eng.R_DEALER_TAI]) if row[eng.R_WINNER] >= 0 else 0.0
    return _record(rules, row, items, points, hand_row, melds_row, log, n_log, kinds)
