"""Exact values: the expected result of each action at a position, without Monte Carlo.

Late in a hand few tiles are left to draw, and what the deciding player cannot see -- the
opponent's concealed tiles and the order of the wall -- has few arrangements that matter. With the
policies fixed, :func:`exact` enumerates them all and weighs each by its probability:

* **the opponent's hand**: every multiset of their concealed tiles from the unseen tiles, weighted
  by the number of ways to take it (the product over kinds of ``C(unseen, held)``); a declared
  opponent's hand is restricted to the ready ones, as :func:`simkit.rollouts` draws it;
* **the wall**: given the hand, every order of the remaining tiles is equally likely, and only the
  positions the hand draws from matter. The engine plays the hand with the positions fixed so far;
  where it drew from a position not fixed yet, that position is split over the kinds that can lie
  there (probability: count / tiles left), and a playout that drew only fixed positions is the exact
  value of every order that agrees with it (:func:`simkit.engine.step.exact_kernel`).

The result has the columns of :func:`simkit.rollouts` (the intervals collapse to the value) and
converges to nothing: it *is* the limit the rollouts approach, for policies that draw no random
numbers (``greedy``, ``value``). A policy that does (``random``) keeps its streams fixed, the same
for every arrangement: the value is then exact over the tiles for those streams.

:func:`completions` counts the arrangements first (the opponent's hands times the orders of the
drawable tiles), so a position with too many is refused at once, with the count.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..engine import actions as A
from ..engine import table as eng
from ..engine.compiled import policy_type, prepared, search_type
from ..errors import SimkitError, check_int
from ..hand import shanten_batch
from ..hand.tables import hand_tables
from ..policies.spec import as_policy
from ..tiles import format_tile_list, parse_tile_list
from .position import Position, as_position
from .rollouts import action_codes, action_text
from .runtime import (
    EngineError,
    engine_for,
    error_text,
    policy_calls,
    prepare_match,
    run_blocks,
    searches,
)

__all__ = [
    "exact",
    "warm_exact",
    "completions",
    "opponent_hands",
    "given_hand",
    "Completions",
    "ExactError",
    "MAX_COMPLETIONS",
    "ENUMERATED_HANDS",
]

#: the most arrangements :func:`exact` enumerates unless told otherwise (about a minute of play
#: on one core for short late hands)
MAX_COMPLETIONS = 2_000_000

#: opponent hands per block of work handed to a thread
BLOCK = 64

#: the most opponent hands (ready or not) enumerated, to count a position's completions or to
#: find a declared opponent's ready hands: beyond it a position is refused without enumerating
ENUMERATED_HANDS = 1_000_000


class ExactError(SimkitError, ValueError):
    """A position :func:`exact` cannot (or should not) enumerate, or bad arguments."""


class Completions(NamedTuple):
    """What :func:`exact` would enumerate at a position: ``total`` arrangements, the
    ``opponent_hands`` among them, the ``drawable`` tiles whose order is enumerated; ``counted`` is
    False when the opponent has more possible hands than are worth enumerating to count the orders
    (then ``total`` and ``opponent_hands`` are the number of their hands, ready or not)."""

    total: int
    opponent_hands: int
    drawable: int
    counted: bool = True

    def __str__(self) -> str:
        if not self.counted:
            return f"{self.opponent_hands:,} possible opponent hands (too many to count the completions)"
        return (
            f"{self.total:,} completions ({self.opponent_hands:,} opponent hands x the orders of "
            f"{self.drawable} drawable tile{'s' if self.drawable != 1 else ''})"
        )


def _multiset_count(counts: np.ndarray, size: int) -> int:
    """How many multisets of ``size`` tiles can be taken from ``counts`` (exact integers)."""
    poly = [1] + [0] * size
    for c in counts:
        if c == 0:
            continue
        nxt = [0] * (size + 1)
        for s, v in enumerate(poly):
            if v:
                for j in range(min(int(c), size - s) + 1):
                    nxt[s + j] += v
        poly = nxt
    return poly[size]


def _sequence_counts(rest: np.ndarray, length: int) -> np.ndarray:
    """Distinct sequences of ``length`` tiles drawn from each row of ``rest`` int64[m, 34]: the
    coefficient ``length! [x^length]`` of the product over kinds of ``sum_{j <= count} x^j / j!``."""
    m = len(rest)
    poly = np.zeros((m, length + 1))
    poly[:, 0] = 1.0
    inv_fact = np.array([1.0 / math.factorial(j) for j in range(length + 1)])
    for k in range(34):
        c = rest[:, k]
        if not c.any():
            continue
        nxt = np.zeros_like(poly)
        for j in range(length + 1):
            term = np.where(c >= j, inv_fact[j], 0.0)
            if not term.any():
                break
            nxt[:, j:] += poly[:, : length + 1 - j] * term[:, None]
        poly = nxt
    return np.rint(poly[:, length] * math.factorial(length))


def _opponent_hands(unseen: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Every multiset of ``size`` tiles from ``unseen`` as counts uint8[m, 34], and the number of
    ways to take each (the product over kinds of ``C(unseen, held)``), float64[m]."""
    kinds = [k for k in range(34) if unseen[k]]
    rows, ways = [], []
    held = [0] * len(kinds)
    suffix = np.cumsum([int(unseen[k]) for k in kinds][::-1])[::-1].tolist() + [0]

    def walk(i: int, need: int, w: int) -> None:
        if need == 0:
            row = np.zeros(34, np.uint8)
            for j in range(i):
                row[kinds[j]] = held[j]
            rows.append(row)
            ways.append(w)
            return
        if i == len(kinds) or suffix[i] < need:
            return
        c = int(unseen[kinds[i]])
        for j in range(min(c, need), -1, -1):
            held[i] = j
            walk(i + 1, need - j, w * math.comb(c, j))
        held[i] = 0

    walk(0, size, 1)
    if not rows:
        return np.zeros((0, 34), np.uint8), np.zeros(0)
    return np.array(rows, np.uint8), np.array(ways, np.float64)


def completions(position, limit: int | None = None) -> Completions:
    """How many arrangements of the unseen tiles :func:`exact` enumerates at ``position``.

    The count is the opponent's possible hands (for a declared opponent, those that are ready)
    times, for each, the distinct orders of the drawable tiles; a kong's replacement from the back
    of the wall can add a few. Nothing is played, but the hands are enumerated to count the orders:
    when the opponent has more possible hands (ready or not) than ``limit`` (at most
    :data:`ENUMERATED_HANDS`), they are only counted and ``counted`` is False.
    """
    position = as_position(position, ExactError)
    d = position._derived
    unseen = np.asarray(d["unseen"], np.int64)
    size = int(d["opp_concealed"])
    drawable = int(d["tiles_left"])
    n_hands = _multiset_count(unseen, size)
    if n_hands > min(ENUMERATED_HANDS, limit or ENUMERATED_HANDS):
        return Completions(n_hands, n_hands, drawable, counted=False)
    hands, _ = opponent_hands(position)
    if len(hands) == 0:
        return Completions(0, 0, drawable)
    rest = unseen[None, :] - hands.astype(np.int64)
    orders = _sequence_counts(rest, min(drawable, int(rest[0].sum())))
    return Completions(int(orders.sum()), len(hands), drawable)


def opponent_hands(position, ready: bool | None = None, limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The opponent's possible concealed hands at ``position`` and their probabilities.

    Every multiset of the opponent's concealed tiles from the unseen tiles, weighted by the number
    of ways to take it (the product over kinds of ``C(unseen, held)``), normalised; with ``ready``
    (default: when the opponent has declared) only the ready hands. ``limit``: refuse
    (:class:`ExactError`) more hands than this before enumerating them.

    Returns
    -------
    hands : uint8[m, 34]
    weights : float64[m], summing to 1 (empty when no hand qualifies)
    """
    position = as_position(position, ExactError)
    d = position._derived
    unseen = np.asarray(d["unseen"], np.int64)
    size = int(d["opp_concealed"])
    if limit is not None:
        n = _multiset_count(unseen, size)
        if n > limit:
            raise ExactError(f"the opponent has {n:,} possible hands of the unseen tiles, more than {limit:,}")
    hands, ways = _opponent_hands(unseen, size)
    if (position.opponent_declared if ready is None else ready) and len(hands):
        keep = shanten_batch(hands, len(d["melds"][1]), d["rules"]) == 0
        hands, ways = hands[keep], ways[keep]
    if len(hands):
        ways = ways / ways.sum()
    return hands, ways


def warm_exact(position, policies=("greedy", "greedy")) -> None:
    """Compile (or load from the cache) what :func:`exact` runs for ``position``'s rule set and
    ``policies``, enumerating nothing: so a caller can say how long the start-up took apart from
    the enumeration."""
    _exact(as_position(position, ExactError), policies, None, 0, MAX_COMPLETIONS, None, compile_only=True)


def exact(
    position,
    policies=("greedy", "greedy"),
    actions=None,
    seed: int = 0,
    *,
    opponent_hand=None,
    to: str = "hand",
    max_completions: int = MAX_COMPLETIONS,
    threads: int | None = None,
):
    """The exact expected result of each action at ``position``, over every arrangement of the
    tiles the deciding player cannot see, with the policies fixed.

    Parameters
    ----------
    position : Position or str
        The deciding player's position (the viewer, player 0), as :func:`simkit.rollouts` takes it.
    policies : pair
        The viewer's policy after the first action and the opponent's, as for rollouts.
    actions : sequence, optional
        The actions to value (notation or codes); default every legal action.
    seed : int
        The policies' streams, ``(seed, 0, 1 + p)``, the same for every arrangement (they matter
        only to a policy that draws random numbers).
    opponent_hand : str or sequence, optional
        The opponent's concealed tiles (notation or kinds), when they are known: then only the
        orders of the wall are enumerated.
    to : "hand"
        Only the end of the hand: the next hands of a match are dealt from a fresh wall, far too
        many to enumerate.
    max_completions : int
        Refuse (:class:`ExactError`, with the count) a position with more arrangements than this.
    threads : int, optional
        Threads to run on (default: numba's thread count).

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`simkit.rollouts`, one row per action, best first, with
        ``completions`` in place of ``rollouts``; the intervals are the values themselves.
        ``df.attrs``: as rollouts', plus ``exact=True``, ``completions``, ``opponent_hands`` and
        ``playouts`` (hands played).
    """
    position = as_position(position, ExactError)
    seed = check_int(seed, "seed", 0, 2**63 - 1, ExactError)
    max_completions = check_int(max_completions, "max_completions", 1, 10**12, ExactError)
    if threads is not None:
        threads = check_int(threads, "threads", 1, 1024, ExactError)
    if to != "hand":
        raise ExactError(
            f"exact values go to the end of the hand (to='hand'), got to={to!r}: the match's next hands "
            "are dealt from a fresh wall, too many to enumerate (use simkit.rollouts)"
        )
    known = None if opponent_hand is None else given_hand(position, opponent_hand, ExactError)
    return _exact(position, policies, actions, seed, max_completions, threads, known=known)


def given_hand(position: Position, hand, error=ExactError) -> np.ndarray:
    """The opponent's concealed hand ``hand`` (notation or kinds) at ``position`` as counts
    int64[34], checked: the right number of tiles, all of them unseen by the viewer."""
    d = position._derived
    try:
        kinds = parse_tile_list(hand, d["rules"]) if isinstance(hand, str) else [int(k) for k in hand]
    except (ValueError, TypeError) as exc:
        raise error(f"opponent_hand: {exc}") from None
    if any(not 0 <= k < 34 for k in kinds):
        raise error(f"opponent_hand: kinds are 0-33, got {kinds}")
    counts = np.bincount(np.asarray(kinds, np.int64), minlength=34)
    if counts.sum() != d["opp_concealed"]:
        raise error(f"opponent_hand must have {d['opp_concealed']} tiles, got {int(counts.sum())}")
    over = np.flatnonzero(counts > d["unseen"])
    if len(over):
        raise error(f"opponent_hand holds tiles the viewer can see: {format_tile_list(over)}")
    return counts


def _exact(position, policies, actions, seed, max_completions, threads, compile_only=False, known=None):
    import pandas as pd

    d = position._derived
    rules, spec = d["rules"], d["spec"]
    if spec.game.end_phase:
        raise ExactError(
            f"{rules.name}'s end phase (end_phase={rules.options.end_phase!r}) hides jokers at random "
            "among the kept-back tiles: exact values need end_phase='plain_draw' (or use simkit.rollouts)"
        )
    if compile_only:  # one hand, any: the types are what compiles
        unseen = np.asarray(d["unseen"], np.int64)
        tiles = np.repeat(np.arange(34), unseen)[: int(d["opp_concealed"])]
        hands, weights = np.bincount(tiles, minlength=34).astype(np.uint8)[None, :], np.ones(1)
        count = Completions(1, 1, int(d["tiles_left"]))
    elif known is not None:
        rest = np.asarray(d["unseen"], np.int64) - known
        orders = _sequence_counts(rest[None, :], min(int(d["tiles_left"]), int(rest.sum())))
        count = Completions(int(orders[0]), 1, int(d["tiles_left"]))
        if count.total > max_completions:
            raise ExactError(
                f"the position has {count}, more than max_completions={max_completions:,}: "
                "use simkit.rollouts, or raise max_completions"
            )
        hands, weights = known.astype(np.uint8)[None, :], np.ones(1)
    else:
        count = completions(position)
        if not count.counted:
            raise ExactError(
                f"the opponent has {count.opponent_hands:,} possible hands, too many to enumerate "
                f"(at most {ENUMERATED_HANDS:,}): use simkit.rollouts"
            )
        if count.total > max_completions:
            raise ExactError(
                f"the position has {count}, more than max_completions={max_completions:,}: "
                "use simkit.rollouts, or raise max_completions"
            )
        hands, weights = opponent_hands(position)
    if len(hands) == 0:
        raise ExactError(
            "the opponent is declared ready, but no hand of the unseen tiles leaves them ready: "
            "check the position (their melds and the tiles seen)"
        )
    _, f0, p0, f1, p1 = prepare_match(rules, policies, "dealer", "shared")
    state = position.state(seed, check=False)
    T = state._T
    tile = int(T.sc[eng.S_TILE])
    codes = action_codes(T, tile, rules, actions, ExactError)
    engine = engine_for(spec, searches(f0, f1))
    kinds, fn0, fn1, search = policy_calls(f0, f1, spec)
    unseen = np.ascontiguousarray(d["unseen"], np.int64)
    codes_arr = np.array(codes, np.int64)
    m = len(hands)
    results = np.zeros((m, len(codes), 5), np.float64)
    playouts = np.zeros(m, np.int64)
    errors = np.zeros((m, 5), np.int64)
    tables = hand_tables(rules)

    def args_of(a: int, b: int) -> tuple:
        work = eng.new_table(len(T.wall), spec.items_proto)
        return (
            T,
            work,
            hands,
            unseen,
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
            playouts[a:b],
            errors[a:b],
        )

    pt = policy_type(spec)
    kernel = prepared(engine.exact_kernel, args_of(0, 1), {11: pt, 12: pt, 15: search_type(spec)})
    if compile_only:
        return None
    run_blocks(kernel, args_of, m, BLOCK, threads)
    bad = np.flatnonzero(errors[:, 0])
    if len(bad):
        code, action, player, phase, tl = (int(v) for v in errors[bad[0]])
        raise EngineError(
            error_text(code, action, "an exact enumeration", player, phase, tl, np.zeros(A.N_ACTIONS, np.bool_))
        )
    totals = np.einsum("m,mak->ak", weights, results)
    mean = totals[:, 0]
    best = int(np.argmax(mean))
    diff = mean - mean[best]
    df = pd.DataFrame(
        {
            "action": [action_text(c, tile, rules) for c in codes],
            "code": codes,
            "completions": count.total,
            "win_rate": totals[:, 1],
            "self_draw_rate": totals[:, 2],
            "deal_in_rate": totals[:, 3],
            "draw_rate": totals[:, 4],
            "mean": mean,
            "mean_low": mean,
            "mean_high": mean,
            "diff": diff,
            "diff_low": diff,
            "diff_high": diff,
        }
    )
    df = df.sort_values("mean", ascending=False, kind="stable").reset_index(drop=True)
    df.attrs.update(
        rules=rules.name,
        options=rules.to_dict(),
        position=str(position),
        seed=seed,
        to="hand",
        policies=[_policy_text(p) for p in policies],
        value="the viewer's result per hand (score minus fee), in the rule set's payment unit",
        exact=True,
        completions=count.total,
        opponent_hands=m,
        playouts=int(playouts.sum()),
    )
    return df


def _policy_text(p) -> str:
    return as_policy(p).text()
