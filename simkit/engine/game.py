"""The game engine: whole hands and whole matches in numba, for every rule set.

One state machine plays every rule set; what differs is data. :class:`Game` (built by
:func:`simkit.engine.rulesets.game_of` from a rule set's constants and options) holds the engine's
flags and scalars: tiles kept back, chow claims, robbing an added kong, douque's Declare Ready /
MIGI / Skipped Win / Skipped Pung, for_two's bid and follow, the dealer's streak cap, how long a
match is, the receiver fee and the chips at the table. The scoring of a hand's end is a jitted
*settle* function of the rule set (:mod:`simkit.engine.rulesets`), passed to the kernels like a
policy: it scores a win with the rule set's kernel (:mod:`simkit.scoring`) and says what is owed;
the engine then applies the chip limit and the fee (:func:`_pay`).

State is plain arrays (:class:`Table`), mutated in place; one table per match, reset per hand.
Mutable scalars live in ``Table.sc`` at the ``S_*`` indices. Policies decide at every decision point
(:mod:`simkit.engine.actions`); the engine computes the legal actions and applies the rules.

Compilation: the functions that take policies or the settle function as arguments (``_decide``,
``_play_hand``, ``_play_match`` and the three kernels) are compiled with ``cache=False``. numba
keys a cached overload by its argument types, and a jitted function passed as an argument is typed
by its dispatcher object, which differs in every process: such an overload is never found in the
cache of another process, and rewriting an index holding another process's keys fails
("ReferenceError: underlying object has vanished") once those rebuilt dispatchers are
garbage-collected. So each process compiles the engine once per (rule set, policy pair), about
20-30 s, whether or not the cache is warm; everything they call (hand and scoring kernels,
policies, settle functions) is cached as usual.

Randomness: hand ``h`` of match ``m`` shuffles its wall and rolls its dice from stream
``(seed, m, 4h)``; player ``p``'s policy draws from ``(seed, m, 4h + 1 + p)``; the first dealer of a
match comes from ``(seed, m, FIRST_DEALER_STREAM)``. So any hand is replayed from (seed, match,
hand) by replaying its match up to it.

Rules decided where douque.md is open:

* A Skipped Win on the dealer's dealt 14 tiles records every kind that completes the hand with one
  of its tiles removed (the union of the 13-tile wait sets).
* Declaring is allowed when the hand after the discard has at least one winning kind (a real wait).
* "Nobody has made any pung or kong" counts concealed kongs too (for MIGI and first-turn wins).
* On the last drawable tile's discard only a win is possible (no pung or kong): the hand then ends.
* A player still under a Skipped Win when declaring MIGI cannot win until it is lifted: the Skipped
  Win takes precedence over "a MIGI declarer can never skip a win".
* Declaring with the discard of the last drawable tile is allowed (it cannot change the outcome).
* A kong needs a drawable tile (none after the last one), so a kong replacement always exists; the
  exhaustive-draw branch after a kong is kept as a guard.

Rules decided where night_market.md, duel.md and for_two.md are open (every rule set):

* The discard made after the last drawable tile was drawn can only be won on, not claimed (as in
  douque and the Chinese Official rules night_market follows); the hand is then a draw. With no
  tiles kept back (night_market, duel) the last drawable tile is the last tile of the wall.
* A kong of any kind needs a drawable tile for its replacement, so none is legal after the last
  tile is drawn (the source rules say the hand is drawn when a player must draw from an empty wall).
* After a claimed chow, as after a pung, the claimer must discard (no kong, no self-draw win that
  turn); any tile may be discarded, the claimed kind included.
* Seats: the dice are rolled every hand as in douque (seat winds are recorded), but outside douque
  winds score nothing and the prevailing wind stays East.
* Dealer rotation: the dealer keeps the deal on a dealer win or a draw, otherwise it passes (all
  three files); the streak is recorded but has no cap and scores nothing. A match is
  ``match_hands`` hands (option; duel's match also ends when a player has no chips left).
* for_two: the tiles are dealt first, then the banker bids having seen the dealt 14 tiles, then
  the opponent follows or folds having seen the 13. A fold ends the hand at once: ``win_type``
  :data:`WIN_FOLD`, no winner, the opponent (``payer``) pays the banker ``fold_payment`` stakes, and
  the banker keeps the deal (as on a banker win).
* duel: Heavenly Hand needs the dealer's self-draw on the dealt 14 (no discard, no kong made);
  Earthly Hand the non-dealer's self-draw on the first draw with nobody having made any pung, chow
  or kong (concealed kongs included).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import borrow, jit, pjit, prange
from ..hand.tables import HandTables
from ..hand.shanten import shanten_kernel
from ..hand.waits import waits_kernel
from ..hand.win import is_win_kernel
from ..scoring.common import ScoreWork
from ..hand.split import MAX_SPLITS, SCRATCH
from . import actions as A
from .deal import shuffle_wall
from .rng import bounded, stream_key

__all__ = [
    "Game",
    "Table",
    "new_table",
    "play_matches_kernel",
    "replay_kernel",
    "play_hand_kernel",
    "EVENT_NAMES",
    "MAX_LOG",
    "ERROR_MESSAGES",
    "N_RESULT_INT",
    "RESULT_FIELDS",
    "N_RESULT_FLOAT",
    "FLOAT_FIELDS",
    "FIRST_DEALER_STREAM",
    "WIN_DRAW",
    "WIN_SELF",
    "WIN_DISCARD",
    "WIN_ROBBED",
    "WIN_FOLD",
    "MAX_RIVER",
]

MAX_RIVER = 64  #: capacity of a discard river (for_two's 101 drawable tiles: at most ~56 discards each)
FIRST_DEALER_STREAM = 1 << 40  #: sub-stream index of a match's first-dealer draw

WIN_DRAW = 0  #: win type: exhaustive draw
WIN_SELF = 1  #: win type: self-drawn
WIN_DISCARD = 2  #: win type: on a discard
WIN_ROBBED = 3  #: win type: robbing an added kong
WIN_FOLD = 4  #: win type (for_two): the opponent did not follow the bid; the hand was not played

_EAST = 27
_WEST = 29

# indices of Table.sc (mutable scalars)
S_FRONT = 0  #: next wall index drawn from the front
S_BACK = 1  #: next wall index drawn from the tail (replacements)
S_NO_CALL = 2  #: 1 while nobody has made any pung, chow or kong
S_DISCARDS = 3  #: discards made in this hand (both players)
S_TURNS = 4  #: decisions taken
S_DEALER = 5
S_STREAK = 6
S_PREVAILING = 7  #: prevailing wind kind
S_CHECK = 8  #: 1: check invariants after every step
S_LOGGING = 9  #: 1: record events in Table.log
S_NLOG = 10  #: events recorded
S_ERROR = 11  #: 0, or an ERR_* code: the match stopped there
S_ERROR_INFO = 12  #: detail of the error (the illegal action code)
S_KEPT_BACK = 13  #: tiles at the end of the wall that are never drawn (the rule set's)
S_BID = 14  #: for_two: the banker's bid of this hand (0 before the bid and in other rule sets)
N_SC = 15

# Table.purse (float64): the match's running balances and the chips at the table
P_BALANCE0 = 0  #: player 0's result in the match so far (received - paid - fees)
P_BALANCE1 = 1
P_CHIPS0 = 2  #: player 0's chips at the table (inf: unlimited)
P_CHIPS1 = 3

# Table.money (float64): what a settle function says is owed at the end of a hand
M_POINTS = 0  #: the win payment (payer -> winner), or for_two's fold payment (opponent -> banker)
M_KONG0 = 1  #: kong payment owed to player 0 by player 1
M_KONG1 = 2  #: kong payment owed to player 1 by player 0
N_MONEY = 3

# errors (kernels cannot raise from parallel code: they stop the match and report the code)
ERR_ILLEGAL_ACTION = 1  #: a policy returned an action that was not legal
ERR_TILES = 2  #: tiles not conserved
ERR_HAND_SIZE = 3  #: a hand of the wrong size
ERR_KEPT_BACK = 4  #: a draw from the kept-back tiles
ERR_LOCKED = 5  #: a declared (locked) hand changed other than by its drawn tile
ERR_SKIPPED_WIN = 6  #: a win while under Skipped Win
ERR_PAYMENT = 7  #: payments not zero-sum after fees, or a player's chips below zero
ERROR_MESSAGES = (
    "",
    "a policy returned an illegal action",
    "invariant broken: tiles not conserved",
    "invariant broken: a hand of the wrong size",
    "invariant broken: drew from the kept-back tiles",
    "invariant broken: a locked hand changed",
    "invariant broken: a win under Skipped Win",
    "invariant broken: payments not zero-sum after fees, or chips below zero",
)

MAX_LOG = 512  #: capacity of the event log of one hand
# event kinds of the log (player, tile, extra)
EV_DEAL, EV_DRAW, EV_REPLACEMENT, EV_DISCARD, EV_DECLARE, EV_PUNG, EV_KONG = range(7)
EV_CONCEALED_KONG, EV_ADDED_KONG, EV_SKIP_WIN, EV_SKIP_PUNG, EV_WIN, EV_DRAW_GAME = range(7, 13)
EV_CHOW, EV_BID, EV_FOLLOW, EV_FOLD = range(13, 17)
EVENT_NAMES = (
    "deal", "draw", "replacement", "discard", "declare", "pung", "kong", "concealed kong", "added kong",
    "skipped win", "skipped pung", "win", "exhaustive draw", "chow", "bid", "follow", "fold",
)

# result columns (int64), one row per hand
R_MATCH, R_HAND, R_PREVAILING, R_DEALER, R_STREAK, R_SEAT0, R_WINNER, R_PAYER, R_WIN_TYPE = range(9)
R_WIN_TILE, R_HAND_TAI, R_DEALER_TAI, R_TURNS, R_TILES_LEFT, R_KONGS0, R_KONGS1 = range(9, 16)
R_DECLARED0, R_DECLARED1, R_SKIPS0, R_SKIPS1, R_FIRST_DEALER_OF_ROUND = range(16, 21)
R_FAN, R_MULTIPLE, R_BID = range(21, 24)
N_RESULT_INT = 24
RESULT_FIELDS = (
    "match", "hand", "prevailing_wind", "dealer", "streak", "seat_wind_0", "winner", "payer", "win_type",
    "win_tile", "hand_tai", "dealer_tai", "turns", "tiles_left", "kongs_0", "kongs_1", "declared_0",
    "declared_1", "skipped_wins_0", "skipped_wins_1", "dealer_turn", "fan", "multiple", "bid",
)
# result columns (float64), one row per hand
F_POINTS, F_SCORE0, F_SCORE1, F_KONG0, F_KONG1, F_FEE0, F_FEE1, F_BALANCE0, F_BALANCE1, F_COMBINATION = range(10)
N_RESULT_FLOAT = 10
FLOAT_FIELDS = (
    "points", "score_0", "score_1", "kong_payment_0", "kong_payment_1", "fee_0", "fee_1", "balance_0",
    "balance_1", "combination_points",
)


class Game(NamedTuple):
    """A rule set as the engine sees it: flags and scalars (from :func:`simkit.engine.rulesets.game_of`)."""

    kept_back: int  #: tiles at the end of the wall never drawn
    claim_chow: bool  #: chows may be claimed from the opponent's discard
    robbing: bool  #: the opponent may win on the tile of an added kong
    declare: bool  #: Declare Ready / MIGI (douque §5): declare actions and locked hands
    skipped_win: bool  #: Skipped Win (douque §6): declining a win forbids winning until lifted
    skipped_pung: int  #: Skipped Pung: 0 none, 1 for the rest of the hand, 2 until the player's next turn
    bidding: bool  #: for_two: the banker bids, the opponent follows or folds
    streak_cap: int  #: after the hand at this streak the deal passes anyway
    dealer_turns: int  #: a match ends after this many dealer turns (0: no such limit)
    match_hands: int  #: a match ends after this many hands (also the row capacity of a match)
    rounds: bool  #: the prevailing wind moves every two dealer turns (douque); else always East
    fee: float  #: share of what a player receives that they pay as a fee
    chips: float  #: chips each player has at the table (inf: unlimited); a match ends at zero


class Table(NamedTuple):
    """All state of a match in progress (arrays mutated in place)."""

    wall: np.ndarray  #: int8[n_tiles], the shuffled wall
    hand: np.ndarray  #: uint8[2, 34], concealed tiles
    meld_counts: np.ndarray  #: uint8[2, 34], tiles in each player's melds
    melds: np.ndarray  #: int8[2, 4, 2], (type code, kind; a chow's lowest kind)
    n_melds: np.ndarray  #: int64[2]
    river: np.ndarray  #: int8[2, MAX_RIVER], discards in order
    claimed: np.ndarray  #: bool[2, MAX_RIVER], discard taken by the opponent
    n_river: np.ndarray  #: int64[2]
    declared: np.ndarray  #: int64[2], 0 / 1 ready / 2 MIGI
    skip_win: np.ndarray  #: int64[2], wait-set bitmask under Skipped Win (0 = none)
    skip_pung: np.ndarray  #: int64[2], kinds the player may not pung
    seat: np.ndarray  #: int64[2], seat wind kinds
    acted: np.ndarray  #: int64[2], 1 once the player discarded or made a kong
    kongs: np.ndarray  #: int64[2]
    skips: np.ndarray  #: int64[2], Skipped Wins this hand
    sc: np.ndarray  #: int64[N_SC], mutable scalars (S_* indices)
    legal: np.ndarray  #: bool[N_ACTIONS]
    rng: np.ndarray  #: uint64[3]: wall/dice stream, policy streams of players 0 and 1
    work: ScoreWork  #: scratch of the rule set's scoring kernel (``cand`` of its item dtype)
    items: np.ndarray  #: [N_ITEMS] of the rule set's item dtype, the last win's items
    tmp: np.ndarray  #: uint8[34] scratch
    log: np.ndarray  #: int64[MAX_LOG, 4] events (kind, player, tile, extra) when logging is on
    swork: np.ndarray  #: int64[20], scratch of the shanten kernel
    locked: np.ndarray  #: uint8[2, 34], a declared player's concealed tiles at declaration
    purse: np.ndarray  #: float64[4], balances and chips (P_* indices)
    money: np.ndarray  #: float64[N_MONEY], what the settle function says is owed (M_* indices)


@jit
def new_table(n_tiles, items_proto):  # pragma: no cover - compiled
    """A fresh :class:`Table` for a wall of ``n_tiles``; ``items_proto``: zeros of the rule set's
    item vector (length and dtype of its scoring kernel's items)."""
    return Table(
        np.zeros(n_tiles, np.int8),
        np.zeros((2, 34), np.uint8),
        np.zeros((2, 34), np.uint8),
        np.zeros((2, 4, 2), np.int8),
        np.zeros(2, np.int64),
        np.zeros((2, MAX_RIVER), np.int8),
        np.zeros((2, MAX_RIVER), np.bool_),
        np.zeros(2, np.int64),
        np.zeros(2, np.int64),
        np.zeros(2, np.int64),
        np.zeros(2, np.int64),
        np.zeros(2, np.int64),
        np.zeros(2, np.int64),
        np.zeros(2, np.int64),
        np.zeros(2, np.int64),
        np.zeros(N_SC, np.int64),
        np.zeros(A.N_ACTIONS, np.bool_),
        np.zeros(3, np.uint64),
        ScoreWork(
            np.zeros((MAX_SPLITS, 5, 2), np.int8),
            items_proto.copy(),
            np.zeros(34, np.uint8),
            np.zeros(34, np.uint8),
            np.zeros(2, np.int64),
            np.zeros(SCRATCH, np.int64),
        ),
        items_proto.copy(),
        np.zeros(34, np.uint8),
        np.zeros((MAX_LOG, 4), np.int64),
        np.zeros(20, np.int64),
        np.zeros((2, 34), np.uint8),
        np.zeros(4, np.float64),
        np.zeros(N_MONEY, np.float64),
    )


@jit
def borrowed_table(T):  # pragma: no cover - compiled
    """``T`` with every array borrowed (no reference counting): see :func:`simkit._jit.borrow`."""
    w = T.work
    return Table(
        borrow(T.wall), borrow(T.hand), borrow(T.meld_counts), borrow(T.melds), borrow(T.n_melds), borrow(T.river),
        borrow(T.claimed), borrow(T.n_river), borrow(T.declared), borrow(T.skip_win), borrow(T.skip_pung),
        borrow(T.seat), borrow(T.acted), borrow(T.kongs), borrow(T.skips), borrow(T.sc), borrow(T.legal),
        borrow(T.rng),
        ScoreWork(
            borrow(w.splits), borrow(w.cand), borrow(w.ready), borrow(w.meld_counts), borrow(w.choice),
            borrow(w.split_scratch),
        ),
        borrow(T.items), borrow(T.tmp), borrow(T.log), borrow(T.swork), borrow(T.locked), borrow(T.purse),
        borrow(T.money),
    )


@jit
def borrowed_hand_tables(t):  # pragma: no cover - compiled
    """``t`` with every array borrowed (shared read-only tables: no contended reference counts)."""
    return HandTables(
        borrow(t.dist), borrow(t.info), borrow(t.hdist), borrow(t.kinds), borrow(t.suit_base), t.n_suits,
        borrow(t.pung_kinds), t.n_pung, borrow(t.chow_start), t.seven_pairs,
    )


# ---------------------------------------------------------------------------------------------
# small helpers


@jit(inline="always")
def _log(sc, log, kind, player, tile, extra):  # pragma: no cover - compiled
    if sc[S_LOGGING]:
        n = sc[S_NLOG]
        if n < MAX_LOG:
            log[n, 0] = kind
            log[n, 1] = player
            log[n, 2] = tile
            log[n, 3] = extra
            sc[S_NLOG] = n + 1


@jit(inline="always")
def _tiles_left(sc):  # pragma: no cover - compiled
    return sc[S_BACK] - sc[S_FRONT] + 1 - sc[S_KEPT_BACK]


@jit(inline="always")
def _bit(kind):  # pragma: no cover - compiled
    return np.int64(1) << kind


@jit
def _waits_without(hand, n_melds, meld_counts, x, t):  # pragma: no cover - compiled
    """Waits of a 14 - 3k tile hand with one ``x`` removed."""
    hand[x] -= 1
    w = waits_kernel(hand, n_melds, meld_counts, t)
    hand[x] += 1
    return w


@jit
def _can_win_with(hand, n_melds, meld_counts, x, t):  # pragma: no cover - compiled
    """Whether ``x`` added to 13 - 3k concealed tiles completes the hand (ignoring Skipped Win)."""
    if hand[x] + meld_counts[x] >= 4:
        return False
    hand[x] += 1
    ok = is_win_kernel(hand, n_melds, t)
    hand[x] -= 1
    return ok


@jit(inline="always")
def _add_meld(melds, n_melds, p, mtype, kind):  # pragma: no cover - compiled
    k = n_melds[p]
    melds[p, k, 0] = mtype
    melds[p, k, 1] = kind
    n_melds[p] = k + 1


@jit(inline="always")
def _play_tile(skip_win, p, x):  # pragma: no cover - compiled
    """Player ``p`` plays ``x`` out of the hand on their turn: lifts a Skipped Win if x is outside it."""
    if skip_win[p] != 0 and not (skip_win[p] >> x) & 1:
        skip_win[p] = 0


@jit(inline="always")
def _draw_replacement(wall, sc, hand, log, p):  # pragma: no cover - compiled
    """Player ``p`` (concealed tiles ``hand``) draws a kong replacement from the tail; returns its kind."""
    drawn = wall[sc[S_BACK]]
    sc[S_BACK] -= 1
    hand[drawn] += 1
    _log(sc, log, EV_REPLACEMENT, p, drawn, 0)
    return drawn


@jit
def _check(T, p_holding, expect_extra):  # pragma: no cover - compiled
    """Invariants: every tile accounted for, hand sizes, nothing drawn from the kept-back tiles.

    Returns True when they hold; otherwise records the ERR_* code in T.sc[S_ERROR].
    """
    if _tiles_left(T.sc) < 0:
        T.sc[S_ERROR] = ERR_KEPT_BACK
        return False
    counts = np.zeros(34, np.int64)
    for i in range(T.sc[S_FRONT], T.sc[S_BACK] + 1):
        counts[T.wall[i]] += 1
    for q in range(2):
        for k in range(34):
            counts[k] += T.hand[q, k] + T.meld_counts[q, k]
        for i in range(T.n_river[q]):
            if not T.claimed[q, i]:
                counts[T.river[q, i]] += 1
        size = 0
        for k in range(34):
            size += T.hand[q, k]
        expected = 13 - 3 * T.n_melds[q] + (1 if (q == p_holding and expect_extra) else 0)
        if size != expected:
            T.sc[S_ERROR] = ERR_HAND_SIZE
            return False
        if T.declared[q]:
            # a locked hand is its tiles at declaration, plus at most the one drawn tile it holds
            extra = 0
            for k in range(34):
                d = np.int64(T.hand[q, k]) - np.int64(T.locked[q, k])
                if d < 0 or d > 1:
                    T.sc[S_ERROR] = ERR_LOCKED
                    return False
                extra += d
            if extra != (1 if (q == p_holding and expect_extra) else 0):
                T.sc[S_ERROR] = ERR_LOCKED
                return False
    total = 0
    for k in range(34):
        if counts[k] != 0 and counts[k] != 4:
            T.sc[S_ERROR] = ERR_TILES
            return False
        total += counts[k]
    if total != T.wall.shape[0]:
        T.sc[S_ERROR] = ERR_TILES
        return False
    return True


# ---------------------------------------------------------------------------------------------
# decisions


@jit(inline="always", cache=False)
def _decide(legal, sc, rng, view, p, params0, params1, policy0, policy1):  # pragma: no cover - compiled
    """Ask player ``p``'s policy; returns a legal action, or -1 after recording ERR_ILLEGAL_ACTION.

    Hot-path helpers take the arrays they use, not the whole :class:`Table`: numba passes every
    array of a tuple argument field by field (with its reference count), which made each call cost
    as much as a decision.
    """
    if p == 0:
        action = policy0(view, legal, params0, rng)
    else:
        action = policy1(view, legal, params1, rng)
    sc[S_TURNS] += 1
    if action < 0 or action >= A.N_ACTIONS or not legal[action]:
        sc[S_ERROR] = ERR_ILLEGAL_ACTION
        sc[S_ERROR_INFO] = action
        return -1
    return action


@jit(inline="always")
def _view(hand, melds, n_melds, river, n_river, declared, seat, skip_win, sc, p, phase, tile, t):  # pragma: no cover
    """The :class:`~simkit.engine.actions.View` of player ``p`` (arguments: the Table's arrays)."""
    q = 1 - p
    return A.View(
        phase, tile, hand[p], melds[p], n_melds[p], melds[q], n_melds[q], river[p], n_river[p], river[q], n_river[q],
        declared[p], declared[q], _tiles_left(sc), seat[p], sc[S_PREVAILING], sc[S_DEALER] == p, sc[S_STREAK],
        skip_win[p], t, sc[S_BID],
    )


@jit
def _legal_after_draw(legal, hand, melds, n_melds, meld_counts, declared, skip_win, last, drawn, phase, can_declare, swork, t):  # pragma: no cover
    """Fill ``legal`` for a player holding 14 - 3k tiles (drawn tile ``drawn``, -1 if none).

    ``hand``/``melds``/``meld_counts`` are the player's rows; ``last``: no drawable tile is left;
    ``can_declare``: the rule set has Declare Ready.
    """
    for a in range(A.N_ACTIONS):
        legal[a] = False
    if phase == A.PHASE_DRAW and skip_win == 0 and is_win_kernel(hand, n_melds, t):
        legal[A.WIN] = True
        if declared == 2:  # a MIGI declarer can never skip a win
            return
    if declared:
        # locked: the drawn tile goes out, or onto an exposed pung as an automatic added kong
        auto_kong = False
        if phase == A.PHASE_DRAW and drawn >= 0 and not last:
            for m in range(n_melds):
                if melds[m, 0] == 0 and melds[m, 1] == drawn:
                    auto_kong = True
        if auto_kong:
            legal[A.ADDED_KONG + drawn] = True
        elif drawn >= 0:
            legal[A.DISCARD + drawn] = True
        return
    for k in range(34):
        if hand[k] > 0:
            legal[A.DISCARD + k] = True
    if phase == A.PHASE_DRAW and not last:
        for k in range(34):
            if hand[k] == 4:
                legal[A.CONCEALED_KONG + k] = True
        for m in range(n_melds):
            if melds[m, 0] == 0 and hand[melds[m, 1]] > 0:
                legal[A.ADDED_KONG + melds[m, 1]] = True
    if not can_declare:
        return
    # declare: the hand after discarding k must have a real wait (only possible if the hand,
    # before that discard, is at most one tile from complete: a cheap shanten test first)
    if shanten_kernel(hand, n_melds, t, swork) > 0:
        return
    for k in range(34):
        if hand[k] > 0:
            hand[k] -= 1
            if waits_kernel(hand, n_melds, meld_counts, t) != 0:
                legal[A.DECLARE + k] = True
            hand[k] += 1


@jit
def _legal_react(legal, hand, meld_counts, n_melds, declared, skip_win, skip_pung, last, x, robbing, chow, t):  # pragma: no cover
    """Fill ``legal`` for a player (rows ``hand``, ...) facing the opponent's discard ``x`` (or added
    tile when ``robbing``); ``last``: no drawable tile is left; ``chow``: the rule set claims chows.

    Returns whether the player has anything but PASS (otherwise nobody asks them).
    """
    for a in range(A.N_ACTIONS):
        legal[a] = False
    any_option = False
    win = skip_win == 0 and _can_win_with(hand, n_melds, meld_counts, x, t)
    if win:
        legal[A.WIN] = True
        any_option = True
        if declared == 2:
            return True
    legal[A.PASS] = True
    if robbing or declared or last:
        return any_option
    if hand[x] >= 2 and not (skip_pung >> x) & 1:
        legal[A.PUNG] = True
        any_option = True
    if hand[x] >= 3:
        legal[A.KONG] = True
        any_option = True
    if chow and n_melds < 4:
        for j in range(3):
            s = x - j
            if s >= 0 and t.chow_start[s]:
                ok = True
                for d in range(3):
                    if d != j and hand[s + d] == 0:
                        ok = False
                if ok:
                    legal[A.CHOW + j] = True
                    any_option = True
    return any_option


# ---------------------------------------------------------------------------------------------
# one hand


@jit
def _shuffle_and_roll(T, template, dealer):  # pragma: no cover - compiled
    """Shuffle the wall and roll three dice: odd total, the dealer is East; even, West."""
    n = template.shape[0]
    for i in range(n):
        T.wall[i] = template[i]
    shuffle_wall(T.rng[0:1], T.wall, n)
    dice = bounded(T.rng[0:1], 6) + bounded(T.rng[0:1], 6) + bounded(T.rng[0:1], 6) + 3
    T.seat[dealer] = _EAST if dice % 2 == 1 else _WEST
    T.seat[1 - dealer] = _WEST if dice % 2 == 1 else _EAST


@jit
def _deal(T, dealer):  # pragma: no cover - compiled
    """Deal the wall in T.wall: 14 to the dealer (positions 0-13), 13 to the opponent (14-26)."""
    n = T.wall.shape[0]
    other = 1 - dealer
    for q in range(2):
        for k in range(34):
            T.hand[q, k] = 0
            T.meld_counts[q, k] = 0
        T.n_melds[q] = 0
        T.n_river[q] = 0
        T.declared[q] = 0
        T.skip_win[q] = 0
        T.skip_pung[q] = 0
        T.acted[q] = 0
        T.kongs[q] = 0
        T.skips[q] = 0
    for i in range(14):
        T.hand[dealer, T.wall[i]] += 1
    for i in range(14, 27):
        T.hand[other, T.wall[i]] += 1
    T.sc[S_FRONT] = 27
    T.sc[S_BACK] = n - 1
    T.sc[S_NO_CALL] = 1
    T.sc[S_DISCARDS] = 0
    T.sc[S_TURNS] = 0
    T.sc[S_NLOG] = 0
    T.sc[S_BID] = 0
    _log(T.sc, T.log, EV_DEAL, dealer, -1, T.seat[dealer])


@jit
def _pay(money, purse, sc, receiver, payer, fee, check, out):  # pragma: no cover - compiled
    """Settle what ``money`` says is owed; fill the float row ``out`` and update ``purse``.

    The win payment (``money[M_POINTS]``, ``payer`` -> ``receiver``) comes first, then each player's
    kong payment to the opponent; what a player pays in the hand is capped by their chips at the
    start of the settlement (coins received in the same settlement are not used). Each receiver
    pays ``fee`` of what they receive. ``score_p`` is what ``p`` received from the opponent minus
    what they paid them (zero-sum); ``balance_p`` accumulates ``score_p - fee_p`` over the match.
    """
    left0 = purse[P_CHIPS0]
    left1 = purse[P_CHIPS1]
    points = 0.0
    to0 = 0.0  # paid by player 1 to player 0
    to1 = 0.0
    if receiver >= 0:
        if payer == 0:
            points = min(money[M_POINTS], left0)
            left0 -= points
            to1 += points
        else:
            points = min(money[M_POINTS], left1)
            left1 -= points
            to0 += points
    kong0 = min(money[M_KONG0], left1)
    kong1 = min(money[M_KONG1], left0)
    to0 += kong0
    to1 += kong1
    fee0 = to0 * fee
    fee1 = to1 * fee
    score0 = to0 - to1
    score1 = to1 - to0
    purse[P_BALANCE0] += score0 - fee0
    purse[P_BALANCE1] += score1 - fee1
    purse[P_CHIPS0] = (purse[P_CHIPS0] - to1) + (to0 - fee0)
    purse[P_CHIPS1] = (purse[P_CHIPS1] - to0) + (to1 - fee1)
    out[F_POINTS] = points
    out[F_SCORE0] = score0
    out[F_SCORE1] = score1
    out[F_KONG0] = kong0
    out[F_KONG1] = kong1
    out[F_FEE0] = fee0
    out[F_FEE1] = fee1
    out[F_BALANCE0] = purse[P_BALANCE0]
    out[F_BALANCE1] = purse[P_BALANCE1]
    if check:
        if score0 + score1 != 0.0 or purse[P_CHIPS0] < 0.0 or purse[P_CHIPS1] < 0.0 or fee0 < 0.0 or fee1 < 0.0:
            sc[S_ERROR] = ERR_PAYMENT


@jit(cache=False)
def _play_hand(T, t, game, sp, settle, params0, params1, policy0, policy1, out, items_out, floats_out, hand_out, melds_out):  # pragma: no cover
    """Play one hand, dealt from ``wall`` with seats in ``seat``, to a win, a draw or (for_two) a fold.

    ``out`` int64[N_RESULT_INT] gets the row's fields (match-level fields are filled by the caller);
    ``items_out`` [N_ITEMS] the winner's items; ``floats_out`` float64[N_RESULT_FLOAT] the payments;
    ``hand_out`` uint8[34] the winner's concealed tiles (winning tile included) and ``melds_out``
    int8[4, 2] the winner's melds (type, kind; -1 when unused); both zero / -1 without a winner.
    ``settle`` is the rule set's settle function (:mod:`simkit.engine.rulesets`). Returns the winner
    (-1 on a draw or a fold).
    """
    acted, claimed, declared, hand, items, kongs, legal, locked, log, meld_counts, melds, n_melds, n_river, river, rng, sc, seat, skip_pung, skip_win, skips, swork, wall = T.acted, T.claimed, T.declared, T.hand, T.items, T.kongs, T.legal, T.locked, T.log, T.meld_counts, T.melds, T.n_melds, T.n_river, T.river, T.rng, T.sc, T.seat, T.skip_pung, T.skip_win, T.skips, T.swork, T.wall
    dealer = sc[S_DEALER]
    sc[S_KEPT_BACK] = game.kept_back
    _deal(T, dealer)
    check = sc[S_CHECK] != 0
    p = dealer
    phase = A.PHASE_DRAW
    drawn = -1  # the dealer's dealt 14 have no drawn tile
    replacement = False
    winner = -1
    payer = -1
    win_type = WIN_DRAW
    win_tile = -1
    win_replacement = False
    win_last = False  # a self-draw on the last drawable tile
    win_last_discard = False  # a win on the discard made after the last drawable tile was drawn
    playing = True
    if game.bidding:
        playing = False
        q = 1 - dealer
        if not check or _check(T, dealer, True):
            for a in range(A.N_ACTIONS):
                legal[a] = False
            for b in range(3):
                legal[A.BID + b] = True
            action = _decide(legal, sc, rng[1 + dealer : 2 + dealer], _view(hand, melds, n_melds, river, n_river, declared, seat, skip_win, sc, dealer, A.PHASE_BID, -1, t), dealer, params0, params1, policy0, policy1)
            if action >= 0:
                sc[S_BID] = 1 + action - A.BID
                _log(sc, log, EV_BID, dealer, -1, sc[S_BID])
                for a in range(A.N_ACTIONS):
                    legal[a] = False
                legal[A.FOLLOW] = True
                legal[A.FOLD] = True
                reply = _decide(legal, sc, rng[1 + q : 2 + q], _view(hand, melds, n_melds, river, n_river, declared, seat, skip_win, sc, q, A.PHASE_FOLLOW, -1, t), q, params0, params1, policy0, policy1)
                if reply == A.FOLLOW:
                    _log(sc, log, EV_FOLLOW, q, -1, sc[S_BID])
                    playing = True
                elif reply == A.FOLD:
                    _log(sc, log, EV_FOLD, q, -1, sc[S_BID])
                    payer = q
                    win_type = WIN_FOLD
    while playing:
        if check and not _check(T, p, True):
            break
        q = 1 - p
        last = _tiles_left(sc) <= 0
        if game.skipped_pung == 2 and phase == A.PHASE_DRAW:
            skip_pung[p] = 0  # 'turn': a skipped pung lasts until your next turn
        _legal_after_draw(
            legal, hand[p], melds[p], n_melds[p], meld_counts[p], declared[p], skip_win[p], last, drawn,
            phase, game.declare, swork, t,
        )
        action = _decide(legal, sc, rng[1 + p : 2 + p], _view(hand, melds, n_melds, river, n_river, declared, seat, skip_win, sc, p, phase, drawn, t), p, params0, params1, policy0, policy1)
        if action < 0:
            break
        if action == A.WIN:
            if check and skip_win[p] != 0:
                sc[S_ERROR] = ERR_SKIPPED_WIN
                break
            winner = p
            payer = q
            win_type = WIN_SELF
            win_tile = drawn
            if win_tile < 0:  # heavenly: any tile of the hand
                for k in range(34):
                    if hand[p, k] > 0:
                        win_tile = k
                        break
            win_replacement = replacement
            win_last = last
            _log(sc, log, EV_WIN, p, win_tile, WIN_SELF)
            break
        if legal[A.WIN] and phase == A.PHASE_DRAW and game.skipped_win:
            # declined a self-draw win: Skipped Win on the wait set of the hand before the draw
            if drawn >= 0:
                skip_win[p] |= _waits_without(hand[p], n_melds[p], meld_counts[p], drawn, t)
            else:
                for k in range(34):
                    if hand[p, k] > 0:
                        skip_win[p] |= _waits_without(hand[p], n_melds[p], meld_counts[p], k, t)
            skips[p] += 1
            _log(sc, log, EV_SKIP_WIN, p, drawn, skip_win[p])
        if action >= A.CONCEALED_KONG and action < A.ADDED_KONG + 34:
            x = action - A.CONCEALED_KONG if action < A.ADDED_KONG else action - A.ADDED_KONG
            _play_tile(skip_win, p, x)
            acted[p] = 1
            sc[S_NO_CALL] = 0
            kongs[p] += 1
            if action < A.ADDED_KONG:
                hand[p, x] -= 4
                meld_counts[p, x] += 4
                _add_meld(melds, n_melds, p, 3, x)
                _log(sc, log, EV_CONCEALED_KONG, p, x, 0)
            else:
                _log(sc, log, EV_ADDED_KONG, p, x, 0)
                hand[p, x] -= 1
                if game.robbing:
                    # the opponent may rob the added tile
                    _legal_react(
                        legal, hand[q], meld_counts[q], n_melds[q], declared[q], skip_win[q], skip_pung[q],
                        _tiles_left(sc) <= 0, x, True, False, t,
                    )
                    if legal[A.WIN]:
                        if check:
                            hand[p, x] += 1  # the tile is in flight: count it with its owner
                            ok = _check(T, p, True)
                            hand[p, x] -= 1
                            if not ok:
                                break
                        reply = _decide(legal, sc, rng[1 + q : 2 + q], _view(hand, melds, n_melds, river, n_river, declared, seat, skip_win, sc, q, A.PHASE_ROB, x, t), q, params0, params1, policy0, policy1)
                        if reply < 0:
                            break
                        if reply == A.WIN:
                            if check and skip_win[q] != 0:
                                sc[S_ERROR] = ERR_SKIPPED_WIN
                                break
                            hand[q, x] += 1
                            kongs[p] -= 1  # the kong is undone: the pung stays
                            winner = q
                            payer = p
                            win_type = WIN_ROBBED
                            win_tile = x
                            _log(sc, log, EV_WIN, q, x, WIN_ROBBED)
                            break
                        if game.skipped_win:
                            skip_win[q] |= waits_kernel(hand[q], n_melds[q], meld_counts[q], t)
                            skips[q] += 1
                            _log(sc, log, EV_SKIP_WIN, q, x, skip_win[q])
                for m in range(n_melds[p]):
                    if melds[p, m, 0] == 0 and melds[p, m, 1] == x:
                        melds[p, m, 0] = 2
                meld_counts[p, x] += 1
            # replacement from the tail
            if _tiles_left(sc) <= 0:
                break  # exhaustive draw: a replacement is needed and only the kept-back tiles remain
            drawn = _draw_replacement(wall, sc, hand[p], log, p)
            replacement = True
            phase = A.PHASE_DRAW
            continue
        # a discard (possibly with a declaration)
        declaring = action >= A.DECLARE and action < A.DECLARE + 34
        x = action - A.DECLARE if declaring else action - A.DISCARD
        if declaring:
            migi = sc[S_DISCARDS] < 4 and sc[S_NO_CALL] == 1
            declared[p] = 2 if migi else 1
        hand[p, x] -= 1
        if declaring:
            for k in range(34):
                locked[p, k] = hand[p, k]
        _play_tile(skip_win, p, x)
        acted[p] = 1
        river[p, n_river[p]] = x
        claimed[p, n_river[p]] = False
        n_river[p] += 1
        sc[S_DISCARDS] += 1
        _log(sc, log, EV_DECLARE if declaring else EV_DISCARD, p, x, declared[p])
        replacement = False
        if check and not _check(T, p, False):
            break
        # the opponent reacts
        last_discard = _tiles_left(sc) <= 0
        reply = A.PASS
        if _legal_react(
            legal, hand[q], meld_counts[q], n_melds[q], declared[q], skip_win[q], skip_pung[q],
            last_discard, x, False, game.claim_chow, t,
        ):
            reply = _decide(legal, sc, rng[1 + q : 2 + q], _view(hand, melds, n_melds, river, n_river, declared, seat, skip_win, sc, q, A.PHASE_REACT, x, t), q, params0, params1, policy0, policy1)
            if reply < 0:
                break
        if reply == A.WIN:
            if check and skip_win[q] != 0:
                sc[S_ERROR] = ERR_SKIPPED_WIN
                break
            hand[q, x] += 1
            claimed[p, n_river[p] - 1] = True
            winner = q
            payer = p
            win_type = WIN_DISCARD
            win_tile = x
            win_last_discard = last_discard
            _log(sc, log, EV_WIN, q, x, WIN_DISCARD)
            break
        if legal[A.WIN] and game.skipped_win:
            skip_win[q] |= waits_kernel(hand[q], n_melds[q], meld_counts[q], t)  # declined (passed, or claimed instead of winning)
            skips[q] += 1
            _log(sc, log, EV_SKIP_WIN, q, x, skip_win[q])
        if reply == A.PASS:
            if legal[A.PUNG] and game.skipped_pung != 0:
                skip_pung[q] |= _bit(x)
                _log(sc, log, EV_SKIP_PUNG, q, x, 0)
        elif reply == A.PUNG or reply == A.KONG:
            claimed[p, n_river[p] - 1] = True
            sc[S_NO_CALL] = 0
            if reply == A.PUNG:
                hand[q, x] -= 2
                meld_counts[q, x] += 3
                _add_meld(melds, n_melds, q, 0, x)
                _log(sc, log, EV_PUNG, q, x, 0)
                p = q
                phase = A.PHASE_PUNG
                drawn = -1
                continue
            hand[q, x] -= 3
            meld_counts[q, x] += 4
            _add_meld(melds, n_melds, q, 1, x)
            _log(sc, log, EV_KONG, q, x, 0)
            kongs[q] += 1
            acted[q] = 1
            p = q
            if _tiles_left(sc) <= 0:
                break
            drawn = _draw_replacement(wall, sc, hand[p], log, p)
            replacement = True
            phase = A.PHASE_DRAW
            continue
        else:
            # a chow: the discard is the (reply - CHOW)-th tile of the run
            j = reply - A.CHOW
            s = x - j
            claimed[p, n_river[p] - 1] = True
            sc[S_NO_CALL] = 0
            for d in range(3):
                if d != j:
                    hand[q, s + d] -= 1
                meld_counts[q, s + d] += 1
            _add_meld(melds, n_melds, q, 4, s)
            _log(sc, log, EV_CHOW, q, s, x)
            p = q
            phase = A.PHASE_PUNG
            drawn = -1
            continue
        # pass: the opponent draws, unless only the kept-back tiles remain
        if last or _tiles_left(sc) <= 0:
            break
        p = q
        drawn = wall[sc[S_FRONT]]
        sc[S_FRONT] += 1
        hand[p, drawn] += 1
        _log(sc, log, EV_DRAW, p, drawn, 0)
        phase = A.PHASE_DRAW
    if sc[S_ERROR]:
        return -1
    if winner < 0 and win_type == WIN_DRAW:
        _log(sc, log, EV_DRAW_GAME, -1, -1, _tiles_left(sc))
    money = T.money
    for i in range(N_MONEY):
        money[i] = 0.0
    settle(T, winner, win_type, win_tile, win_replacement, win_last, win_last_discard, t, sp, out, floats_out)
    receiver = winner if winner >= 0 else (dealer if win_type == WIN_FOLD else -1)
    _pay(money, T.purse, sc, receiver, payer, game.fee, check, floats_out)
    out[R_WINNER] = winner
    out[R_PAYER] = payer
    out[R_WIN_TYPE] = win_type
    out[R_WIN_TILE] = win_tile
    out[R_TURNS] = sc[S_TURNS]
    out[R_TILES_LEFT] = _tiles_left(sc)
    out[R_KONGS0] = kongs[0]
    out[R_KONGS1] = kongs[1]
    out[R_DECLARED0] = declared[0]
    out[R_DECLARED1] = declared[1]
    out[R_SKIPS0] = skips[0]
    out[R_SKIPS1] = skips[1]
    out[R_BID] = sc[S_BID]
    for i in range(items.shape[0]):
        items_out[i] = items[i] if winner >= 0 else 0
    for k in range(34):
        hand_out[k] = hand[winner, k] if winner >= 0 else 0
    for m in range(4):
        used = winner >= 0 and m < n_melds[winner]
        melds_out[m, 0] = melds[winner, m, 0] if used else -1
        melds_out[m, 1] = melds[winner, m, 1] if used else -1
    return winner


# ---------------------------------------------------------------------------------------------
# matches


@jit(cache=False)
def _play_match(seed, m, T, template, t, game, sp, settle, params0, params1, policy0, policy1, ints, items, floats, hands, melds, log_hand):  # pragma: no cover
    """Play match ``m`` into the rows of ``ints``/``items``/``floats``/``hands``/``melds``; returns the number of hands.

    With ``log_hand >= 0`` the events of that hand are recorded in ``T.log`` and the match stops
    after it (replay).
    """
    T.rng[0] = stream_key(seed, m, FIRST_DEALER_STREAM)
    dealer = bounded(T.rng[0:1], 2)
    streak = 0
    dealerships = 0  # completed dealer turns (douque: a round is two, the match eight)
    T.purse[P_BALANCE0] = 0.0
    T.purse[P_BALANCE1] = 0.0
    T.purse[P_CHIPS0] = game.chips
    T.purse[P_CHIPS1] = game.chips
    h = 0
    while h < game.match_hands and (game.dealer_turns == 0 or dealerships < game.dealer_turns):
        T.sc[S_DEALER] = dealer
        T.sc[S_STREAK] = streak
        T.sc[S_PREVAILING] = _EAST + (dealerships // 2 if game.rounds else 0)
        T.rng[0] = stream_key(seed, m, 4 * h)
        T.rng[1] = stream_key(seed, m, 4 * h + 1)
        T.rng[2] = stream_key(seed, m, 4 * h + 2)
        row = ints[h]
        _shuffle_and_roll(T, template, dealer)
        T.sc[S_LOGGING] = 1 if h == log_hand else 0
        winner = _play_hand(T, t, game, sp, settle, params0, params1, policy0, policy1, row, items[h], floats[h], hands[h], melds[h])
        row[R_MATCH] = m
        row[R_HAND] = h
        if T.sc[S_ERROR]:
            return h + 1
        row[R_PREVAILING] = T.sc[S_PREVAILING]
        row[R_DEALER] = dealer
        row[R_STREAK] = streak
        row[R_SEAT0] = T.seat[0]
        row[R_FIRST_DEALER_OF_ROUND] = dealerships % 2
        h += 1
        if h - 1 == log_hand:
            break
        if T.purse[P_CHIPS0] <= 0.0 or T.purse[P_CHIPS1] <= 0.0:
            break  # a player has no chips left
        keep = (winner == dealer or winner < 0) and streak < game.streak_cap
        if keep:
            streak += 1
        else:
            dealer = 1 - dealer
            streak = 0
            dealerships += 1
    return h


@pjit(cache=False)
def play_matches_kernel(seed, start, n_matches, template, t, game, sp, settle, items_proto, check, params0, params1, policy0, policy1, ints, items, floats, hands, melds, n_hands, errors):  # pragma: no cover
    """Play matches ``start .. start + n_matches - 1`` on all cores.

    ``ints`` int64[n_matches, max_hands, N_RESULT_INT], ``items`` [n_matches, max_hands, N_ITEMS]
    (the rule set's item dtype), ``floats`` float64[n_matches, max_hands, N_RESULT_FLOAT],
    ``hands`` uint8[n_matches, max_hands, 34] (winner's concealed tiles), ``melds``
    int8[n_matches, max_hands, 4, 2] (winner's melds), ``n_hands`` int64[n_matches] are filled per
    match; ``errors`` int64[n_matches, 2] gets (ERR_* code, detail), zero when the match completed.
    ``game``: :class:`Game`; ``sp``, ``settle``, ``items_proto``: the rule set's scoring parameters,
    settle function and zero item vector (:func:`simkit.engine.rulesets.engine_spec`).
    """
    for i in prange(n_matches):
        owner = new_table(template.shape[0], items_proto)
        T = borrowed_table(owner)
        T.sc[S_CHECK] = 1 if check else 0
        n_hands[i] = _play_match(
            seed, start + i, T, borrow(template), borrowed_hand_tables(t), game, sp, settle,
            borrow(params0), borrow(params1), policy0, policy1, ints[i], items[i], floats[i], hands[i], melds[i], -1,
        )
        errors[i, 0] = owner.sc[S_ERROR]  # the owner stays alive until the borrowed views are done
        errors[i, 1] = owner.sc[S_ERROR_INFO]


@jit(cache=False)
def replay_kernel(seed, m, hand, template, t, game, sp, settle, items_proto, params0, params1, policy0, policy1, ints, items, floats, hands, melds, wall_out, log_out):  # pragma: no cover
    """Replay match ``m`` up to hand ``hand``, recording that hand's events.

    Fills the rows of the hands played, the hand's dealt wall (``wall_out``) and its events
    (``log_out`` int64[MAX_LOG, 4]); returns the number of events (-1 if the match ended earlier,
    ``-1 - code`` on an engine error).
    """
    T = new_table(template.shape[0], items_proto)
    n = _play_match(seed, m, T, template, t, game, sp, settle, params0, params1, policy0, policy1, ints, items, floats, hands, melds, hand)
    if T.sc[S_ERROR]:
        return -1 - T.sc[S_ERROR]
    if n <= hand:
        return -1
    for i in range(T.wall.shape[0]):
        wall_out[i] = T.wall[i]
    for i in range(T.sc[S_NLOG]):
        for j in range(4):
            log_out[i, j] = T.log[i, j]
    return T.sc[S_NLOG]


@jit(cache=False)
def play_hand_kernel(wall, dealer, dealer_east, streak, prevailing, t, game, sp, settle, items_proto, check, params0, params1, policy0, policy1, seed, row, items_row, floats_row, hand_row, melds_row, log_out):  # pragma: no cover
    """Play one hand from a given wall (hand-built scenarios); returns the number of events logged
    (``-code`` on an engine error). Balances start at zero and chips at ``game.chips``."""
    T = new_table(wall.shape[0], items_proto)
    for i in range(wall.shape[0]):
        T.wall[i] = wall[i]
    T.seat[dealer] = _EAST if dealer_east else _WEST
    T.seat[1 - dealer] = _WEST if dealer_east else _EAST
    T.sc[S_DEALER] = dealer
    T.sc[S_STREAK] = streak
    T.sc[S_PREVAILING] = prevailing
    T.sc[S_CHECK] = 1 if check else 0
    T.sc[S_LOGGING] = 1
    T.rng[1] = stream_key(seed, 0, 1)
    T.rng[2] = stream_key(seed, 0, 2)
    T.purse[P_CHIPS0] = game.chips
    T.purse[P_CHIPS1] = game.chips
    _play_hand(T, t, game, sp, settle, params0, params1, policy0, policy1, row, items_row, floats_row, hand_row, melds_row)
    if T.sc[S_ERROR]:
        return -T.sc[S_ERROR]
    row[R_DEALER] = dealer
    row[R_STREAK] = streak
    row[R_PREVAILING] = prevailing
    row[R_SEAT0] = T.seat[0]
    for i in range(T.sc[S_NLOG]):
        for j in range(4):
            log_out[i, j] = T.log[i, j]
    return T.sc[S_NLOG]
