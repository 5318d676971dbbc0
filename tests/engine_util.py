"""Helpers for engine tests: hand-built walls, scripted policies, and positions valued by playing
out every order of their unseen tiles."""

from __future__ import annotations

import numpy as np

import simkit
from simkit._jit import jit
from simkit.engine import actions as A
from simkit.engine.rng import bounded, next_u64


def build_wall(dealer: str, other: str, draws: str = "", replacements: str = "", rules="douque") -> np.ndarray:
    """A wall (kinds) of ``rules`` dealing ``dealer`` (14 tiles) and ``other`` (13), then ``draws``
    from the front in order, with ``replacements`` taken from the tail in order (the first
    replacement is the last tile of the wall). Every other tile fills the middle in a fixed order."""
    rules = simkit.rules.resolve_rules(rules)
    d = simkit.tiles.parse_tile_list(dealer, rules)
    o = simkit.tiles.parse_tile_list(other, rules)
    f = simkit.tiles.parse_tile_list(draws, rules) if draws else []
    r = simkit.tiles.parse_tile_list(replacements, rules) if replacements else []
    assert len(d) == 14 and len(o) == 13, (len(d), len(o))
    left = {k: 4 for k in rules.kinds}
    for k in d + o + f + r:
        left[k] -= 1
        assert left[k] >= 0, f"more than 4 of {simkit.tile_name(k)}"
    middle = [k for k in sorted(left) for _ in range(left[k])]
    wall = d + o + f + middle + r[::-1]
    assert len(wall) == rules.n_tiles
    return np.array(wall, np.int8)


#: what a scripted policy does past its script (params[1]); PASSIVE_WINS: passive, but wins when it can
GREEDY, RANDOM, PASSIVE, PASSIVE_WINS = 0, 1, 2, 3


@jit
def _passive(view, legal):
    """Never wins or claims: bids 1 and follows, passes on every tile, discards the drawn tile (or
    the lowest kind after a claim), so a hand runs until the wall is exhausted."""
    if view.phase == A.PHASE_BID:
        return A.BID
    if view.phase == A.PHASE_FOLLOW:
        return A.FOLLOW
    if view.phase == A.PHASE_REACT or view.phase == A.PHASE_ROB:
        return A.PASS
    if view.tile >= 0 and legal[A.DISCARD + view.tile]:
        return A.DISCARD + view.tile
    for a in range(34):
        if legal[A.DISCARD + a]:
            return A.DISCARD + a
    return -1


@jit
def scripted_policy(view, legal, params, rng):
    """Plays the script ``params[2:]`` in order, ``params[0]`` being the position in it (the policy
    keeps its state in its params array). Each entry is an action code; -1 means "the fallback's
    choice"; -2 "the first legal action". Past the end of the script: the fallback ``params[1]``
    (GREEDY, RANDOM = the built-in random policy, PASSIVE = :func:`_passive`, PASSIVE_WINS).

    With ``params[0] < 0`` there is no script and nothing is written: the params array can then be
    shared by matches played in parallel (:func:`fallback`)."""
    if params[0] >= 0:
        i = np.int64(params[0])
        params[0] = i + 1
        j = i + 2
        if j < params.shape[0] and params[j] >= 0:
            return np.int64(params[j])
        if j < params.shape[0] and params[j] == -2:
            for a in range(legal.shape[0]):
                if legal[a]:
                    return a
    if params[1] == RANDOM:
        return simkit.policies.basic.random_policy(view, legal, params, rng)
    if params[1] == PASSIVE:
        return _passive(view, legal)
    if params[1] == PASSIVE_WINS:
        return A.WIN if legal[A.WIN] else _passive(view, legal)
    return simkit.policies.basic.greedy_policy(view, legal, np.ones(3), rng)


@jit
def holding_policy(view, legal, params, rng):
    """Greedy's discards with no claim, no kong and no win, so that ready hands last into for_two's
    end phase (where a win is taken for the player); with ``params[0]`` 1 it first draws 1 to 4
    numbers from its stream (the same actions, another use of the stream). ``params[1:]``: greedy's."""
    if params[0] != 0:
        for _ in range(1 + bounded(rng, 4)):
            next_u64(rng)
    legal[A.WIN] = False  # the policy's copy of the mask
    return simkit.policies.basic.greedy_policy(view, legal, params[1:], rng)


def holding(noisy=False) -> tuple:
    """``(holding_policy, params)``: greedy without claims, kongs or wins (``noisy``: drawing extra
    numbers from its stream)."""
    greedy = simkit.policies.basic.GREEDY_DEFAULTS
    return holding_policy, np.r_[1.0 if noisy else 0.0, 0.0, 0.0, 0.0, greedy[3:]]


def script(*actions, then=GREEDY) -> tuple:
    """``(scripted_policy, params)`` playing ``actions`` (codes of :mod:`simkit.engine.actions`),
    then ``then`` (GREEDY, RANDOM, PASSIVE or PASSIVE_WINS)."""
    return scripted_policy, np.array((0.0, float(then)) + tuple(float(a) for a in actions), np.float64)


def fallback(then) -> tuple:
    """``(scripted_policy, params)`` with no script: plays exactly like the built-in ``random``
    (RANDOM; same stream, same choices) or ``greedy`` with claims, declarations and kongs (GREEDY),
    or PASSIVE. Engine tests use it instead of the built-in names so that one compiled engine per
    rule set serves both the scripted scenarios and the many-match runs (each policy pair compiles
    the engine anew, about 30 s)."""
    return scripted_policy, np.array((-1.0, float(then)), np.float64)


def distinct_orders(tiles) -> list[tuple]:
    """Every distinct ordering of a multiset of kinds (each equally likely under a uniform shuffle)."""
    counts = {}
    for k in sorted(int(t) for t in tiles):
        counts[k] = counts.get(k, 0) + 1
    out = []

    def rec(prefix):
        if len(prefix) == len(tiles):
            out.append(tuple(prefix))
            return
        for k in counts:
            if counts[k]:
                counts[k] -= 1
                prefix.append(k)
                rec(prefix)
                prefix.pop()
                counts[k] += 1

    rec([])
    return out


def value_by_playing_every_order(pos, codes, policies=("greedy", "greedy")) -> tuple[np.ndarray, int]:
    """The viewer's mean result (score minus fee) of each action in ``codes`` at position ``pos``
    over every distinct order of its unseen tiles (the opponent's hand first, then the wall), each
    played out from Python; a declared opponent's orders count only when their hand is ready.
    The slow, obviously correct value :func:`simkit.play.exact.exact` computes. Returns the
    values and the number of orders counted."""
    d = pos._derived
    n_opp = int(d["opp_concealed"])
    totals = np.zeros(len(codes))
    counted = 0
    for seq in distinct_orders(np.repeat(np.arange(34), d["unseen"])):
        opp = np.array(seq[:n_opp])
        if pos.opponent_declared and simkit.shanten(np.bincount(opp, minlength=34), rules=d["rules"]) != 0:
            continue
        counted += 1
        for j, code in enumerate(codes):
            s = pos.state(opponent_hand=opp, wall=np.array(seq[n_opp:], np.int8), check=False)
            s.apply(int(code))
            s.play_out(*policies)
            totals[j] += s.row["score_0"] - s.row.get("fee_0", 0.0)
    return totals / counted, counted
