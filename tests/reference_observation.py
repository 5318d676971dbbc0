"""The observation and full-information state of simkit.envs, encoded in plain Python from the
documented layout: the reference the compiled encoders (simkit.engine.observation) are compared
with."""

from __future__ import annotations

import numpy as np
from reference import ref_shanten

from simkit.engine import actions as A
from simkit.engine import table as eng
from simkit.engine.observation import OBSERVATION_LAYOUT, OBSERVATION_SIZE, state_layout

_MELD_TILES = {0: 3, 1: 4, 2: 4, 3: 4}  # pung, kong, added kong, concealed kong; 4: chow


def _meld_tiles(melds, n, out):
    for code, kind in melds[:n]:
        if code == 4:
            out[kind : kind + 3] += 1
        else:
            out[kind] += _MELD_TILES[int(code)]


def reference_observation(state, p: int, deciding: bool) -> np.ndarray:
    """The observation vector of player ``p`` of a hand in play (a GameState; see the module docstring)."""
    L = OBSERVATION_LAYOUT
    T = state.table
    sc = T.sc
    q = 1 - p
    o = np.zeros(OBSERVATION_SIZE, np.float32)
    o[L["hand"]] = T.hand[p]
    m = np.zeros(34, np.float32)
    _meld_tiles(T.melds[p], int(T.n_melds[p]), m)
    o[L["melds"]] = m
    om = np.zeros(34, np.float32)
    _meld_tiles(T.melds[q], int(T.n_melds[q]), om)
    o[L["opp_melds"]] = om
    n_own, n_opp = int(T.n_river[p]), int(T.n_river[q])
    own = T.river[p, :n_own].astype(np.int64)
    opp = T.river[q, :n_opp].astype(np.int64)
    o[L["river"]] = np.bincount(own, minlength=34)
    o[L["opp_river"]] = np.bincount(opp, minlength=34)
    o[L["visible"]] = o[L["hand"]] + m + om + o[L["river"]] + o[L["opp_river"]]
    o[L["river_order"]][:n_own] = own + 1
    o[L["opp_river_order"]][:n_opp] = opp + 1
    o[L["river_claimed"]][:n_own] = T.claimed[p, :n_own]
    o[L["opp_river_claimed"]][:n_opp] = T.claimed[q, :n_opp]
    phase = int(sc[eng.S_PHASE]) if deciding else A.PHASE_OVER
    o[L["phase"].start + min(max(phase, 0), A.PHASE_OVER)] = 1
    tile = int(sc[eng.S_TILE]) if deciding else -1
    o[L["tile"].start + (tile if 0 <= tile < 34 else 34)] = 1
    o[L["tiles_left"]] = sc[eng.S_BACK] - sc[eng.S_FRONT] + 1 - sc[eng.S_KEPT_BACK]
    o[L["seat_wind"].start + int(T.seat[p]) - 27] = 1
    o[L["prevailing_wind"].start + int(sc[eng.S_PREVAILING]) - 27] = 1
    o[L["dealer"]] = 1.0 if sc[eng.S_DEALER] == p else 0.0
    o[L["streak"]] = sc[eng.S_STREAK]
    o[L["declared"].start + int(T.declared[p])] = 1
    o[L["opp_declared"].start + int(T.declared[q])] = 1
    o[L["bid"]] = sc[eng.S_BID]
    o[L["score"]] = T.purse[eng.P_BALANCE0 + p]
    o[L["opp_score"]] = T.purse[eng.P_BALANCE0 + q]
    mask = int(T.skip_win[p])
    o[L["skipped_win"]] = [(mask >> k) & 1 for k in range(34)]
    for name, player in (("river_declared", p), ("opp_river_declared", q)):
        if T.declared[player]:
            o[L[name].start + int(T.sc[eng.S_DECLARED_AT + player])] = 1
    features = reference_hand_features(
        T.hand[p], int(T.n_melds[p]), o[L["visible"]].astype(np.int64), phase, tile, state.rules
    )
    for name, value in features.items():
        o[L[name]] = value
    return o


def reference_hand_features(hand, n_melds, visible, phase, tile, rules) -> dict:
    """The hand features from their definitions (simkit.engine.observation's docstring)."""
    kinds = sorted(int(k) for k in rules.kinds)
    seven = bool(rules.seven_pairs)
    one = np.eye(34, dtype=np.int64)

    def sh(counts, k):
        return ref_shanten(counts, k, kinds, seven)

    def least_after_discard(counts, k):
        return min(sh(counts - one[d], k) for d in range(34) if counts[d])

    hand = np.asarray(hand, np.int64)
    out = {"shanten": 0.0, "discard_shanten": np.zeros(34), "discard_live": np.zeros(34), "claim_shanten": np.zeros(4)}
    size = int(hand.sum())
    if size == 14 - 3 * n_melds:
        after = {d: sh(hand - one[d], n_melds) for d in range(34) if hand[d]}
        least = min(after.values())
        out["shanten"] = least
        for d, s in after.items():
            left = hand - one[d]
            out["discard_shanten"][d] = s - least + 1
            out["discard_live"][d] = sum(
                4 - visible[x] for x in kinds if visible[x] < 4 and left[x] < 4 and sh(left + one[x], n_melds) < s
            )
        return out
    if size != 13 - 3 * n_melds:  # no hand yet (for_two's blind bid)
        return out
    now = sh(hand, n_melds)
    out["shanten"] = now
    if phase == A.PHASE_REACT and 0 <= tile < 34:
        if hand[tile] >= 2:
            out["claim_shanten"][0] = least_after_discard(hand - 2 * one[tile], n_melds + 1) - now + 2
        for j in range(3):
            start = tile - j
            if tile < 27 and start >= 0 and start // 9 == tile // 9 == (start + 2) // 9:
                others = [start + d for d in range(3) if start + d != tile]
                if all(hand[o] for o in others):
                    left = hand - one[others[0]] - one[others[1]]
                    out["claim_shanten"][1 + j] = least_after_discard(left, n_melds + 1) - now + 2
    return out


def reference_state(T) -> np.ndarray:
    """Both hands, the tiles still in the wall per kind and in order from the next draw, and the
    next draws from the front and the tail (the full-information state)."""
    L = state_layout(len(T.wall))
    o = np.zeros(L["back"].stop, np.float32)
    o[L["hand0"]] = T.hand[0]
    o[L["hand1"]] = T.hand[1]
    front, back = int(T.sc[eng.S_FRONT]), int(T.sc[eng.S_BACK])
    rest = T.wall[front : back + 1].astype(np.int64)
    o[L["wall_counts"]] = np.bincount(rest, minlength=34)
    o[L["wall_order"]][: len(rest)] = rest + 1
    o[L["front"]] = front
    o[L["back"]] = back
    return o
