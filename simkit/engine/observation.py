"""What a player may know, as a fixed-shape float32 vector, and the full-information state beside it:
the encodings of the reinforcement-learning environments (:mod:`simkit.envs`), compiled so that the
vector environment encodes a whole batch of tables inside the engine.

Observation (:data:`OBSERVATION_LAYOUT`, name -> slice, in this order):

* ``hand`` (34): own concealed tiles, copies per kind; ``melds`` (34): tiles in own melds;
  ``opp_melds`` (34): tiles in the opponent's melds; ``river`` / ``opp_river`` (34 each): discards
  per kind; ``visible`` (34): every copy in sight (hand, both melds, both rivers);
* ``river_order`` / ``opp_river_order`` (``MAX_RIVER`` each): the discards in order, kind + 1 (0:
  none yet), with ``river_claimed`` / ``opp_river_claimed`` (``MAX_RIVER``) 1 where the other
  player claimed that discard;
* ``phase`` (7, one-hot over ``actions.PHASE_*``; ``PHASE_OVER`` when the player does not decide),
  ``tile`` (35, one-hot: the tile concerned, the last entry for none);
* ``tiles_left``, ``seat_wind`` (4, one-hot E S W N), ``prevailing_wind`` (4), ``dealer``,
  ``streak``, ``declared`` (3, one-hot none / ready / MIGI), ``opp_declared`` (3), ``bid``
  (for_two), ``score`` and ``opp_score`` (each player's result in the match so far, the rule set's
  payment unit), ``skipped_win`` (34: the kinds under one's own Skipped Win);
* ``river_declared`` / ``opp_river_declared`` (``MAX_RIVER`` each): 1 at the discard that declared
  (douque), so the discards a locked hand made are those after it.
* hand features, what the player could work out from its own hand and what it sees (the rule
  set's shanten, :func:`~simkit.hand.shanten.shanten_kernel`): ``shanten`` (1): the hand's
  shanten -- with ``14 - 3k`` tiles (the player is to discard) the least over its discards;
  ``discard_shanten`` (34): with ``14 - 3k`` tiles, for each kind held, the shanten after
  discarding it minus that least, plus 1 (1: a best discard; 0: not held, or ``13 - 3k`` tiles);
  ``discard_live`` (34): with it, the unseen copies (4 minus those in sight) of the kinds that
  would then lower that shanten; ``claim_shanten`` (4): on the opponent's discard, for a pung and
  the chows with the tile lowest, middle and highest, the least shanten after the claim and a
  discard, minus the hand's shanten now, plus 2 (1: the claim brings the hand one tile closer;
  0: the hand cannot make that meld, whatever the rule set allows).

Full-information state (:data:`STATE_LAYOUT`, for centralised critics; seen from player 0):
``hand0`` / ``hand1`` (34 each): both concealed hands; ``wall_counts`` (34): the tiles still in the
wall (every tile not yet drawn, the kept-back end included), per kind; ``wall_order``
(``wall_length``): those tiles in order from the next draw to the tail, kind + 1 (zeros after the
tail); ``front`` / ``back``: the wall indices of the next draw from the front and from the tail
(replacements).
"""

from __future__ import annotations

import numpy as np

from simkit._jit import jit, stack_empty
from simkit.engine import actions as A
from simkit.engine import table as G
from simkit.hand.shanten import LIVE_ALL, LIVE_NONE, discard_eval_kernel, shanten_kernel

__all__ = [
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "encode_observation_kernel",
    "encode_view",
    "encode_view_into",
    "encode_logged_kernel",
    "state_layout",
    "state_size",
    "encode_state_kernel",
]

_PARTS = (
    ("hand", 34),
    ("melds", 34),
    ("opp_melds", 34),
    ("river", 34),
    ("opp_river", 34),
    ("visible", 34),
    ("river_order", G.MAX_RIVER),
    ("opp_river_order", G.MAX_RIVER),
    ("river_claimed", G.MAX_RIVER),
    ("opp_river_claimed", G.MAX_RIVER),
    ("phase", 7),
    ("tile", 35),
    ("tiles_left", 1),
    ("seat_wind", 4),
    ("prevailing_wind", 4),
    ("dealer", 1),
    ("streak", 1),
    ("declared", 3),
    ("opp_declared", 3),
    ("bid", 1),
    ("score", 1),
    ("opp_score", 1),
    ("skipped_win", 34),
    ("river_declared", G.MAX_RIVER),
    ("opp_river_declared", G.MAX_RIVER),
    ("shanten", 1),
    ("discard_shanten", 34),
    ("discard_live", 34),
    ("claim_shanten", 4),
)


def _slices(parts) -> dict:
    out, start = {}, 0
    for name, size in parts:
        out[name] = slice(start, start + size)
        start += size
    return out


#: name -> slice of the observation vector (see the module docstring).
OBSERVATION_LAYOUT = _slices(_PARTS)
#: Length of the observation vector.
OBSERVATION_SIZE = max(s.stop for s in OBSERVATION_LAYOUT.values())

# offsets as module constants (numba reads them as compile-time constants)
_L = OBSERVATION_LAYOUT
_HAND, _MELDS, _OPP_MELDS = _L["hand"].start, _L["melds"].start, _L["opp_melds"].start
_RIVER, _OPP_RIVER, _VISIBLE = _L["river"].start, _L["opp_river"].start, _L["visible"].start
_RIVER_ORDER, _OPP_RIVER_ORDER = _L["river_order"].start, _L["opp_river_order"].start
_RIVER_CLAIMED, _OPP_RIVER_CLAIMED = _L["river_claimed"].start, _L["opp_river_claimed"].start
_PHASE, _TILE, _TILES_LEFT = _L["phase"].start, _L["tile"].start, _L["tiles_left"].start
_SEAT_WIND, _PREVAILING_WIND = _L["seat_wind"].start, _L["prevailing_wind"].start
_DEALER, _STREAK, _DECLARED, _OPP_DECLARED = (
    _L["dealer"].start,
    _L["streak"].start,
    _L["declared"].start,
    _L["opp_declared"].start,
)
_BID, _SCORE, _OPP_SCORE, _SKIPPED_WIN = (
    _L["bid"].start,
    _L["score"].start,
    _L["opp_score"].start,
    _L["skipped_win"].start,
)
_RIVER_DECLARED, _OPP_RIVER_DECLARED = _L["river_declared"].start, _L["opp_river_declared"].start
_SHANTEN, _DISCARD_SHANTEN = _L["shanten"].start, _L["discard_shanten"].start
_DISCARD_LIVE, _CLAIM_SHANTEN = _L["discard_live"].start, _L["claim_shanten"].start


@jit(inline="always")
def _add_meld_tiles(melds, n, out, at):  # pragma: no cover - compiled
    """Add the tiles of the first ``n`` melds (code 0 pung, 1-3 kongs, 4 chow) to ``out[at:at + 34]``."""
    for i in range(n):
        code = melds[i, 0]
        kind = melds[i, 1]
        if code == 4:
            for k in range(3):
                out[at + kind + k] += 1.0
        else:
            out[at + kind] += 3.0 if code == 0 else 4.0


@jit(inline="always")
def _least_after_claim(hand, take_a, take_b, n_melds, t, visible, sh, live):  # pragma: no cover - compiled
    """The least shanten after taking one tile each of the kinds ``take_a`` and ``take_b`` from
    ``hand`` into a meld and discarding."""
    counts = stack_empty(34, np.uint8)
    for k in range(34):
        counts[k] = hand[k]
    counts[take_a] -= 1
    counts[take_b] -= 1
    return discard_eval_kernel(counts, n_melds + 1, t, visible, sh, live, np.int64(LIVE_NONE))


@jit
def _hand_features(out, hand, n_melds, phase, tile, t):  # pragma: no cover - compiled
    """Write the hand features (``shanten``, ``discard_shanten``, ``discard_live``,
    ``claim_shanten``; see the module docstring) into ``out``, whose ``visible`` is already
    written. Not inlined: each encoder calls it once."""
    visible = stack_empty(34, np.int64)
    sh = stack_empty(34, np.int64)
    live = stack_empty(34, np.int64)
    size = 0
    for k in range(34):
        visible[k] = np.int64(out[_VISIBLE + k])
        size += hand[k]
    if size == 14 - 3 * n_melds:
        least = discard_eval_kernel(hand, n_melds, t, visible, sh, live, np.int64(LIVE_ALL))
        out[_SHANTEN] = least
        for k in range(34):
            if hand[k] > 0:
                out[_DISCARD_SHANTEN + k] = sh[k] - least + 1
                out[_DISCARD_LIVE + k] = live[k]
        return
    if size != 13 - 3 * n_melds:
        return
    work = stack_empty(20, np.int64)
    now = shanten_kernel(hand, n_melds, t, work)
    out[_SHANTEN] = now
    if phase != A.PHASE_REACT or tile < 0 or tile >= 34:
        return
    if hand[tile] >= 2:
        out[_CLAIM_SHANTEN] = _least_after_claim(hand, tile, tile, n_melds, t, visible, sh, live) - now + 2
    if tile < 27:
        for j in range(3):
            start = tile - j
            if start >= 0 and start // 9 == tile // 9 and (start + 2) // 9 == tile // 9:
                a = start if j != 0 else start + 1
                b = start + 2 if j != 2 else start + 1
                if hand[a] > 0 and hand[b] > 0:
                    after = _least_after_claim(hand, a, b, n_melds, t, visible, sh, live)
                    out[_CLAIM_SHANTEN + 1 + j] = after - now + 2


@jit(inline="always")
def _encode(
    out,
    phase,
    tile,
    hand,
    melds,
    n_melds,
    opp_melds,
    opp_n_melds,
    river,
    n_river,
    claimed,
    opp_river,
    opp_n_river,
    opp_claimed,
    tiles_left,
    seat_wind,
    prevailing_wind,
    dealer,
    streak,
    declared,
    opp_declared,
    bid,
    score,
    opp_score,
    skipped_win,
    declared_at,
    opp_declared_at,
    tables,
):  # pragma: no cover - compiled
    """The one encoder: write the observation (layout :data:`OBSERVATION_LAYOUT`) of what a player
    sees into ``out`` (float32[OBSERVATION_SIZE]). :func:`encode_view` reads its arguments from a
    policy's :class:`~simkit.engine.actions.View`, :func:`encode_observation_kernel` from the Table,
    so an agent's features inside a policy are the environments' observation."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    for k in range(34):
        out[_HAND + k] = hand[k]
    _add_meld_tiles(melds, n_melds, out, _MELDS)
    _add_meld_tiles(opp_melds, opp_n_melds, out, _OPP_MELDS)
    for i in range(n_river):
        x = river[i]
        out[_RIVER + x] += 1.0
        out[_RIVER_ORDER + i] = x + 1
        out[_RIVER_CLAIMED + i] = 1.0 if claimed[i] else 0.0
    for i in range(opp_n_river):
        x = opp_river[i]
        out[_OPP_RIVER + x] += 1.0
        out[_OPP_RIVER_ORDER + i] = x + 1
        out[_OPP_RIVER_CLAIMED + i] = 1.0 if opp_claimed[i] else 0.0
    for k in range(34):
        out[_VISIBLE + k] = (
            out[_HAND + k] + out[_MELDS + k] + out[_OPP_MELDS + k] + out[_RIVER + k] + out[_OPP_RIVER + k]
        )
    out[_PHASE + min(max(phase, 0), A.PHASE_OVER)] = 1.0
    out[_TILE + (tile if 0 <= tile < 34 else 34)] = 1.0
    out[_TILES_LEFT] = tiles_left
    out[_SEAT_WIND + seat_wind - 27] = 1.0
    out[_PREVAILING_WIND + prevailing_wind - 27] = 1.0
    out[_DEALER] = 1.0 if dealer else 0.0
    out[_STREAK] = streak
    out[_DECLARED + declared] = 1.0
    out[_OPP_DECLARED + opp_declared] = 1.0
    out[_BID] = bid
    out[_SCORE] = score
    out[_OPP_SCORE] = opp_score
    for k in range(34):
        out[_SKIPPED_WIN + k] = (skipped_win >> k) & 1
    if declared and declared_at >= 0:
        out[_RIVER_DECLARED + declared_at] = 1.0
    if opp_declared and opp_declared_at >= 0:
        out[_OPP_RIVER_DECLARED + opp_declared_at] = 1.0
    _hand_features(out, hand, n_melds, phase, tile, tables)


@jit
def encode_observation_kernel(T, t, p, deciding, out):  # pragma: no cover - compiled
    """Write player ``p``'s observation of the Table ``T`` (its rule set's hand tables ``t``) into
    ``out`` (float32[OBSERVATION_SIZE]);
    ``deciding``: whether ``p`` is the player to decide (else the phase reads PHASE_OVER and the
    tile none). The same encoder as :func:`encode_view` of ``p``'s view, read from the Table
    without copies."""
    sc = T.sc
    q = 1 - p
    _encode(
        out,
        sc[G.S_PHASE] if deciding else A.PHASE_OVER,
        sc[G.S_TILE] if deciding else -1,
        T.hand[p],
        T.melds[p],
        T.n_melds[p],
        T.melds[q],
        T.n_melds[q],
        T.river[p],
        T.n_river[p],
        T.claimed[p],
        T.river[q],
        T.n_river[q],
        T.claimed[q],
        sc[G.S_BACK] - sc[G.S_FRONT] + 1 - sc[G.S_KEPT_BACK],
        T.seat[p],
        sc[G.S_PREVAILING],
        sc[G.S_DEALER] == p,
        sc[G.S_STREAK],
        T.declared[p],
        T.declared[q],
        sc[G.S_BID],
        T.purse[G.P_BALANCE0 + p],
        T.purse[G.P_BALANCE0 + q],
        T.skip_win[p],
        sc[G.S_DECLARED_AT + p],
        sc[G.S_DECLARED_AT + q],
        t,
    )


@jit
def encode_view_into(view, out):  # pragma: no cover - compiled
    """Write the observation of ``view`` (a policy's :class:`~simkit.engine.actions.View`) into
    ``out`` (float32[OBSERVATION_SIZE]): exactly the environments' observation of the deciding
    player (:data:`OBSERVATION_LAYOUT`). Callable inside a jitted policy and from Python."""
    _encode(
        out,
        view.phase,
        view.tile,
        view.hand,
        view.melds,
        view.n_melds,
        view.opp_melds,
        view.opp_n_melds,
        view.river,
        view.n_river,
        view.river_claimed,
        view.opp_river,
        view.opp_n_river,
        view.opp_river_claimed,
        view.tiles_left,
        view.seat_wind,
        view.prevailing_wind,
        view.dealer,
        view.streak,
        view.declared,
        view.opp_declared,
        view.bid,
        view.score,
        view.opp_score,
        view.skipped_win,
        view.declared_at,
        view.opp_declared_at,
        view.tables,
    )


@jit
def encode_view(view):  # pragma: no cover - compiled
    """The observation of ``view`` as a new float32[OBSERVATION_SIZE] (:func:`encode_view_into`)."""
    out = np.zeros(OBSERVATION_SIZE, np.float32)
    encode_view_into(view, out)
    return out


@jit
def encode_logged_kernel(
    key,
    player,
    phase,
    tile,
    action,
    hand,
    melds,
    opp_melds,
    n_river,
    opp_n_river,
    tiles_left,
    seat_wind,
    prevailing_wind,
    dealer,
    streak,
    declared,
    opp_declared,
    bid,
    score,
    opp_score,
    skipped_win,
    declared_at,
    opp_declared_at,
    tables,
    rows,
    out,
):  # pragma: no cover - compiled
    """The observations of a run's logged decisions (``decisions="observations"``): decision ``i``'s
    into ``out[rows[i]]`` (float32[m, OBSERVATION_SIZE]; ``rows[i] < 0``: not wanted), by the one
    encoder (:func:`encode_view` of the decider's view gives the same vector).

    Every argument but ``rows`` and ``out`` is a column of the log, one entry per decision in the
    order played: ``key`` (int64, the same for the decisions of one hand: ``deal_id * 2 + copy``),
    the decision's ``player``, ``phase``, ``tile`` and ``action``, and the decider's observed facts
    (:data:`~simkit.engine.table.OBSERVED_FIELDS`; ``melds`` and ``opp_melds`` int8[n, 4, 2]). Both
    rivers are played out along each hand's decisions: a discard (with or without a declaration)
    goes to its player's river, and a win, pung, kong or chow on the opponent's discard claims it
    (the engine's only changes to a river between decisions; for_two's end phase sets tiles aside
    after the last decision). The whole hand must be given, in order: returns -1, or the index of
    the first decision whose river counts differ from the logged ones (a log not whole or not in
    order)."""
    n = key.shape[0]
    river = np.zeros((2, G.MAX_RIVER), np.int8)
    claimed = np.zeros((2, G.MAX_RIVER), np.bool_)
    count = np.zeros(2, np.int64)
    for i in range(n):
        if i == 0 or key[i] != key[i - 1]:
            count[0] = 0
            count[1] = 0
        p = player[i]
        q = 1 - p
        if count[p] != n_river[i] or count[q] != opp_n_river[i]:
            return i
        if rows[i] >= 0:
            n_own = 0
            n_opp = 0
            for m in range(4):
                if melds[i, m, 0] >= 0:
                    n_own += 1
                if opp_melds[i, m, 0] >= 0:
                    n_opp += 1
            _encode(
                out[rows[i]],
                phase[i],
                tile[i],
                hand[i],
                melds[i],
                n_own,
                opp_melds[i],
                n_opp,
                river[p],
                count[p],
                claimed[p],
                river[q],
                count[q],
                claimed[q],
                tiles_left[i],
                seat_wind[i],
                prevailing_wind[i],
                dealer[i] != 0,
                streak[i],
                declared[i],
                opp_declared[i],
                bid[i],
                score[i],
                opp_score[i],
                skipped_win[i],
                declared_at[i],
                opp_declared_at[i],
                tables,
            )
        a = action[i]
        if a >= A.DISCARD and a < A.DECLARE + 34:  # a discard, with or without a declaration
            river[p, count[p]] = a % 34
            claimed[p, count[p]] = False
            count[p] += 1
        elif phase[i] == A.PHASE_REACT and (
            a == A.WIN or a == A.PUNG or a == A.KONG or (a >= A.CHOW and a < A.CHOW + 3)
        ):
            claimed[q, count[q] - 1] = True
    return -1


def state_layout(wall_length: int) -> dict:
    """name -> slice of the full-information state of a rule set whose wall has ``wall_length``
    tiles (see the module docstring)."""
    return _slices(
        (("hand0", 34), ("hand1", 34), ("wall_counts", 34), ("wall_order", wall_length), ("front", 1), ("back", 1))
    )


def state_size(wall_length: int) -> int:
    """Length of the full-information state vector (:func:`state_layout`)."""
    return 34 * 3 + wall_length + 2


@jit
def encode_state_kernel(T, out):  # pragma: no cover - compiled
    """Write the full-information state of the Table ``T`` into ``out``
    (float32[state_size(len(T.wall))], :func:`state_layout`)."""
    sc = T.sc
    n = T.wall.shape[0]
    for i in range(out.shape[0]):
        out[i] = 0.0
    for k in range(34):
        out[k] = T.hand[0, k]
        out[34 + k] = T.hand[1, k]
    front = sc[G.S_FRONT]
    back = sc[G.S_BACK]
    for i in range(front, back + 1):
        x = T.wall[i]
        out[68 + x] += 1.0
        out[102 + i - front] = x + 1
    out[102 + n] = front
    out[103 + n] = back
