"""Helpers for engine tests: hand-built walls and scripted policies."""

from __future__ import annotations

import numpy as np

import simkit
from simkit._jit import jit
from simkit.engine import actions as A


def build_wall(dealer: str, other: str, draws: str = "", replacements: str = "", rules="douque") -> np.ndarray:
    """A douque wall (kinds) dealing ``dealer`` (14 tiles) and ``other`` (13), then ``draws`` from the
    front in order, with ``replacements`` taken from the tail in order (the first replacement is the
    last tile of the wall). Every other tile fills the middle in a fixed order."""
    rules = simkit.get_rules(rules)
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


@jit
def scripted_policy(view, legal, params, rng):
    """Plays the script ``params[1:]`` in order, ``params[0]`` being the position in it (the policy
    keeps its state in its params array). Each entry is an action code; -1 means "greedy's
    choice"; -2 "the first legal action". Past the end of the script: greedy."""
    i = np.int64(params[0])
    params[0] = i + 1
    j = i + 1
    if j < params.shape[0] and params[j] >= 0:
        return np.int64(params[j])
    if j < params.shape[0] and params[j] == -2:
        for a in range(legal.shape[0]):
            if legal[a]:
                return a
    return simkit.engine.policies.greedy_policy(view, legal, np.ones(3), rng)


def script(*actions) -> tuple:
    """``(scripted_policy, params)`` playing ``actions`` (codes of :mod:`simkit.engine.actions`)."""
    return scripted_policy, np.array((0.0,) + tuple(float(a) for a in actions), np.float64)
