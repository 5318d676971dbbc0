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

Full-information state (:data:`STATE_LAYOUT`, for centralised critics; seen from player 0):
``hand0`` / ``hand1`` (34 each): both concealed hands; ``wall_counts`` (34): the tiles still in the
wall (every tile not yet drawn, the kept-back end included), per kind; ``wall_order``
(``wall_length``): those tiles in order from the next draw to the tail, kind + 1 (zeros after the
tail); ``front`` / ``back``: the wall indices of the next draw from the front and from the tail
(replacements).
"""

from __future__ import annotations

from simkit._jit import jit
from simkit.engine import actions as A
from simkit.engine import table as G

__all__ = [
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "encode_observation_kernel",
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


@jit
def encode_observation_kernel(T, p, deciding, out):  # pragma: no cover - compiled
    """Write player ``p``'s observation of the Table ``T`` into ``out`` (float32[OBSERVATION_SIZE]);
    ``deciding``: whether ``p`` is the player to decide (else the phase reads PHASE_OVER and the
    tile none)."""
    sc = T.sc
    q = 1 - p
    for i in range(out.shape[0]):
        out[i] = 0.0
    for k in range(34):
        out[_HAND + k] = T.hand[p, k]
    _add_meld_tiles(T.melds[p], T.n_melds[p], out, _MELDS)
    _add_meld_tiles(T.melds[q], T.n_melds[q], out, _OPP_MELDS)
    n_own = T.n_river[p]
    n_opp = T.n_river[q]
    for i in range(n_own):
        x = T.river[p, i]
        out[_RIVER + x] += 1.0
        out[_RIVER_ORDER + i] = x + 1
        out[_RIVER_CLAIMED + i] = 1.0 if T.claimed[p, i] else 0.0
    for i in range(n_opp):
        x = T.river[q, i]
        out[_OPP_RIVER + x] += 1.0
        out[_OPP_RIVER_ORDER + i] = x + 1
        out[_OPP_RIVER_CLAIMED + i] = 1.0 if T.claimed[q, i] else 0.0
    for k in range(34):
        out[_VISIBLE + k] = (
            out[_HAND + k] + out[_MELDS + k] + out[_OPP_MELDS + k] + out[_RIVER + k] + out[_OPP_RIVER + k]
        )
    phase = sc[G.S_PHASE] if deciding else A.PHASE_OVER
    out[_PHASE + min(max(phase, 0), A.PHASE_OVER)] = 1.0
    tile = sc[G.S_TILE] if deciding else -1
    out[_TILE + (tile if 0 <= tile < 34 else 34)] = 1.0
    out[_TILES_LEFT] = sc[G.S_BACK] - sc[G.S_FRONT] + 1 - sc[G.S_KEPT_BACK]
    out[_SEAT_WIND + T.seat[p] - 27] = 1.0
    out[_PREVAILING_WIND + sc[G.S_PREVAILING] - 27] = 1.0
    out[_DEALER] = 1.0 if sc[G.S_DEALER] == p else 0.0
    out[_STREAK] = sc[G.S_STREAK]
    out[_DECLARED + T.declared[p]] = 1.0
    out[_OPP_DECLARED + T.declared[q]] = 1.0
    out[_BID] = sc[G.S_BID]
    out[_SCORE] = T.purse[G.P_BALANCE0 + p]
    out[_OPP_SCORE] = T.purse[G.P_BALANCE0 + q]
    mask = T.skip_win[p]
    for k in range(34):
        out[_SKIPPED_WIN + k] = (mask >> k) & 1
    if T.declared[p]:
        out[_RIVER_DECLARED + sc[G.S_DECLARED_AT + p]] = 1.0
    if T.declared[q]:
        out[_OPP_RIVER_DECLARED + sc[G.S_DECLARED_AT + q]] = 1.0


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
