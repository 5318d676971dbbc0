"""The game engine: whole hands and whole matches in numba, for every rule set.

One state machine plays every rule set; what differs is data. :class:`Game` (built by
:func:`simkit.engine.rulesets.game_of` from a rule set's constants and options) holds the engine's
flags and scalars: tiles kept back, chow claims, robbing an added kong, douque's Declare Ready /
MIGI / Skipped Win / Skipped Pung, for_two's bid and follow, the dealer's streak cap, how long a
match is, the receiver fee and the chips at the table. The scoring of a hand's end is a jitted
*settle* function of the rule set (:mod:`simkit.engine.rulesets`), bound into the engine like the
policies: it scores a win with the rule set's kernel (:mod:`simkit.scoring`) and says what is owed;
the engine then applies the chip limit and the fee (:func:`_pay`).

State is plain arrays (:class:`Table`), mutated in place; one table per match, reset per hand.
Mutable scalars live in ``Table.sc`` at the ``S_*`` indices. Policies decide at every decision point
(:mod:`simkit.engine.actions`); the engine computes the legal actions and applies the rules.

The functions bound to the players' policies and the rule set's settle function (``_decide``,
``_play_hand``, ``_play_match`` and the three kernels) are in :mod:`simkit.engine.step`, compiled
once per (settle, policy, policy) combination by :mod:`simkit.engine.compiled` and cached on disk
when the three functions are importable; this module holds everything else.

Randomness: hand ``h`` of match ``m`` shuffles its wall and rolls its dice from stream
``(seed, m, 4h)``; player ``p``'s policy draws from ``(seed, m, 4h + 1 + p)``; the first dealer of a
match comes from ``(seed, m, FIRST_DEALER_STREAM)``. So any hand is replayed from (seed, match,
hand) by replaying its match up to it. Which wall positions each player receives is the run's wall
design (``Game.wall``, ``WALL_*``): the original deal from the dealer, or each seat's own stream of
the wall with a shared or a stable wall (:func:`_lay_out_seat_streams`, :func:`_draw`).

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
  ``match_hands`` hands (option; duel's match also ends when a player has no chips left: with
  ``chips`` the chips at the table are counted exactly, in whole money units of
  :func:`simkit.rules.duel.money_unit`, so "none left" is exactly zero: :func:`_pay_chips`).
* for_two: the banker bids and the opponent follows or folds before the tiles are dealt (option
  ``bid_timing``; with ``"after_deal"`` the tiles are dealt first and the banker bids having seen
  the dealt 14, the opponent the 13). A fold ends the hand at once: ``win_type``
  :data:`WIN_FOLD`, no winner, the opponent (``payer``) pays the banker ``fold_payment`` stakes, and
  the deal passes (for_two.md: the banker keeps it on a banker win or a draw, "otherwise it
  passes"), or stays with the banker with ``fold_passes_deal=False``.
* duel: Heavenly Hand needs the dealer's self-draw on the dealt 14 (no discard, no kong made);
  Earthly Hand the non-dealer's self-draw on the first draw "before any call": nobody has called a
  discard; the dealer's concealed kongs do not cancel it (duel.md tells calls and declared kongs
  apart; douque's first-turn hands, "nobody has made any pung or kong", count them:
  :func:`simkit.engine.rulesets._no_call`, ``S_NO_CALL``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import borrow, jit, stack_empty
from .._words import BYTE_ONES, popcount64, set_word_at, word_at
from ..hand.shanten import shanten_kernel, shanten_of_counts
from ..hand.split import MAX_SPLITS, SCRATCH
from ..hand.tables import HandTables, borrowed_hand_tables  # noqa: F401 -- the engine reaches them as G.*
from ..hand.waits import waits_kernel
from ..hand.win import is_win_kernel
from ..scoring.core import ScoreWork
from . import actions as A
from .deal import shuffle_wall
from .rng import bounded

__all__ = [
    "Game",
    "Table",
    "new_table",
    "copy_table",
    "dealt_hands",
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
    "POLICY_FUNCTION",
    "POLICY_RANDOM",
    "POLICY_GREEDY",
    "POLICY_SEARCH",
    "SEARCH_WORLDS",
    "SEARCH_MIN_WORLDS",
    "SEARCH_Z",
    "SEARCH_ALWAYS_WIN",
    "SEARCH_KEEP_SHANTEN",
    "SEARCH_LAST_DISCARD",
    "SEARCH_CONTINUATION",
    "N_SEARCH_PARAMS",
    "copied_table",
    "DECISION_FIELDS",
    "N_DECISION_INT",
    "N_COUNTERS",
    "N_MEMO",
    "N_OBSERVED",
    "OBSERVED_FIELDS",
    "OBSERVED_SMALL",
    "decision_stats",
    "record_decision",
    "record_counters",
    "record_observed",
    "decision_record_kernel",
    "split_observed_kernel",
]

MAX_RIVER = 64  #: capacity of a discard river (for_two: at most 56 discards each, and 8 end-phase tiles set aside)
FIRST_DEALER_STREAM = 1 << 40  #: sub-stream index of a match's first-dealer draw

WIN_DRAW = 0  #: win type: exhaustive draw
WIN_SELF = 1  #: win type: self-drawn
WIN_DISCARD = 2  #: win type: on a discard
WIN_ROBBED = 3  #: win type: robbing an added kong
WIN_FOLD = 4  #: win type (for_two): the opponent did not follow the bid; the hand was not played
JOKER_TILE = -2  #: S_WIN_TILE of a for_two win on an end-phase joker, until settled (the kind it stands for)

_EAST = 27
_WEST = 29

# indices of Table.sc (mutable scalars)
S_FRONT = 0  #: next wall index drawn from the front
S_BACK = 1  #: next wall index drawn from the tail (replacements)
S_NO_CALL = 2  #: 1 while nobody has made any pung, chow or kong (concealed kongs too: douque's first-turn hands)
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
S_WALL = 15  #: the wall design of the match (WALL_*; from Game.wall, see _lay_out_seat_streams)
S_SHANTEN_LB = 16  #: S_SHANTEN_LB + p: a lower bound on player p's shanten (SHANTEN_UNKNOWN: none; see step.py)
# the decision the hand waits for (the state machine's position; see simkit/engine/step.py)
S_PLAYER = 18  #: the deciding player
S_PHASE = 19  #: PHASE_* of the decision; PHASE_OVER once the hand is over
S_TILE = 20  #: the tile concerned (the view's ``tile``)
S_CURRENT = 21  #: whose turn it is (the discarder or kong maker while the opponent reacts)
S_REPLACEMENT = 22  #: 1 while the current player's last draw was a kong replacement
# the hand's outcome, set when it ends
S_WINNER = 23  #: -1 on a draw or a fold
S_PAYER = 24
S_WIN_TYPE = 25  #: WIN_*
S_WIN_TILE = 26
S_WIN_REPLACEMENT = 27  #: a self-draw on a kong replacement
S_WIN_LAST = 28  #: a self-draw on the last drawable tile
S_WIN_LAST_DISCARD = 29  #: a win on the discard made after the last drawable tile was drawn
# the match
S_HAND_NUMBER = 30  #: index of the hand being played in its match
S_DEALERSHIPS = 31  #: completed dealer turns (douque: a round is two, the match eight)
S_MATCH_OVER = 32  #: 1 once the match has ended
S_ERROR_PHASE = 33  #: the phase of the decision whose action was refused
# decision logging (simulate(..., decisions=True); see record_decision)
S_DECISIONS = 34  #: 1: record every decision taken in Table.decisions / Table.decision_counters
S_N_DECISIONS = 35  #: decisions recorded so far on this Table (counted on past the capacity; see D_*)
# money counted exactly (duel with chips: Game.money_unit > 0; see _pay)
S_CHIPS0 = 36  #: player 0's chips at the table, in money units (exact; unused without chips)
S_CHIPS1 = 37
S_DECLARED_AT = 38  #: S_DECLARED_AT + p: the index in player p's river of their declaring discard (-1: none)
S_END_JOKERS = 40  #: for_two's end phase: bit k set when its k-th pick is a joker (placed at the deal)
N_SC = 41

# S_PHASE between a step and the next decision (resolved by play._advance, never seen outside)
PENDING_SETTLE = -1  #: the hand has ended and is to be settled
PENDING_TURN_DRAW = -2  #: S_CURRENT's turn after a draw of S_TILE (-1: the dealt 14) is to be set up
PENDING_TURN_CLAIM = -3  #: S_CURRENT's turn after a pung or chow is to be set up
PENDING_PASS = -4  #: S_PLAYER can only pass S_TILE, the opponent's discard: the pass is applied at once
PENDING_DEAL = -5  #: the wall in T.wall is to be dealt (a hand from a given wall)
PENDING_END_PHASE = -6  #: only the kept-back tiles remain, S_CURRENT due to draw: for_two's end phase is to be played

# operations of the engine instance's step_kernel (the step API: simkit/play/stepper.py)
OP_BEGIN_HAND = 0  #: deal the wall in T.wall and stop at the first decision
OP_STEP = 1  #: apply ``action``
OP_BEGIN_MATCH = 2  #: start match (seed, m) and deal its first hand
OP_NEXT_HAND = 3  #: after a settled hand: go on to the match's next hand (False when it is over)
OP_ADVANCE = 4  #: resolve a pending turn (a position after a draw or a claim)
OP_REACT = 5  #: S_PLAYER decides on S_TILE, the opponent's last discard (a position)
# wall designs (Table.sc[S_WALL], Game.wall): how the shuffled wall becomes the players' tiles
WALL_DEALER_FIRST = (
    0  #: deal "dealer": the dealer takes the wall's first 14 tiles, draws from the front (the original deal)
)
WALL_SEAT_SHARED = 1  #: deal "seat", wall "shared": each seat's tiles from its own stream, one wall drawn in turn
WALL_SEAT_STABLE = 2  #: deal "seat", wall "stable": each seat deals and draws from its own stream only
# for_two's end phase (Game.end_phase; simkit.engine.end_phase)
END_PHASE_NONE = 0  #: none: the hand is drawn when only the kept-back tiles remain
END_PHASE_ONE_PICK = 1  #: each ready player picks once (end_phase="ready_pick_last_8")
END_PHASE_DRAW_ON = 2  #: ready players pick in turn until one wins or the tiles run out ("ready_draw_last_8")
SHANTEN_UNKNOWN = -9  #: no bound known (a meld changed the hand); also "shanten not computed"

# Table.purse (float64): the match's running balances, in coins (the chips at the table, which
# must be exact, are counted in money units in Table.sc[S_CHIPS0 + p])
P_BALANCE0 = 0  #: player 0's result in the match so far (received - paid - fees)
P_BALANCE1 = 1

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
ERR_PAYMENT = 7  #: payments not zero-sum after fees, or a player's chips below zero (exact, in money units)
ERR_FALSE_WIN = 8  #: a win action on a hand that is not complete (the engine's own check)
ERROR_MESSAGES = (
    "",
    "a policy returned an illegal action",
    "invariant broken: tiles not conserved",
    "invariant broken: a hand of the wrong size",
    "invariant broken: drew from the kept-back tiles",
    "invariant broken: a locked hand changed",
    "invariant broken: a win under Skipped Win",
    "invariant broken: payments not zero-sum after fees, or chips below zero",
    "invariant broken: a win with a hand that is not complete",
)

# how the engine calls a player's policy (simkit/engine/step.py ``_ask``)
POLICY_FUNCTION = 0  #: through a function pointer, with a copy of the legal mask: any jitted policy
POLICY_RANDOM = 1  #: the built-in random policy, called directly
POLICY_GREEDY = 2  #: the built-in greedy policy, through its function pointer with the engine's legal mask
POLICY_SEARCH = 3  #: the built-in search policy: the engine searches, its continuation through the pointer

#: The search policy's settings at the head of its parameter vector (its continuation's follow):
#: worlds per decision at most, worlds before any candidate is dropped, the standard errors that
#: separate two, whether a win is taken at once, whether discards that raise shanten are left
#: out, whether worlds agree with the opponent's last discard, and the continuation's kind
#: (``POLICY_*``).
SEARCH_WORLDS, SEARCH_MIN_WORLDS, SEARCH_Z, SEARCH_ALWAYS_WIN, SEARCH_KEEP_SHANTEN, SEARCH_LAST_DISCARD = range(6)
SEARCH_CONTINUATION = 6
N_SEARCH_PARAMS = 7

MAX_LOG = 512  #: capacity of the event log of one hand
# event kinds of the log (player, tile, extra)
EV_DEAL, EV_DRAW, EV_REPLACEMENT, EV_DISCARD, EV_DECLARE, EV_PUNG, EV_KONG = range(7)
EV_CONCEALED_KONG, EV_ADDED_KONG, EV_SKIP_WIN, EV_SKIP_PUNG, EV_WIN, EV_DRAW_GAME = range(7, 13)
EV_CHOW, EV_BID, EV_FOLLOW, EV_FOLD = range(13, 17)
EVENT_NAMES = (
    "deal",
    "draw",
    "replacement",
    "discard",
    "declare",
    "pung",
    "kong",
    "concealed kong",
    "added kong",
    "skipped win",
    "skipped pung",
    "win",
    "exhaustive draw",
    "chow",
    "bid",
    "follow",
    "fold",
)

# result columns (int64), one row per hand
R_MATCH, R_HAND, R_PREVAILING, R_DEALER, R_STREAK, R_SEAT0, R_WINNER, R_PAYER, R_WIN_TYPE = range(9)
R_WIN_TILE, R_HAND_TAI, R_DEALER_TAI, R_TURNS, R_TILES_LEFT, R_KONGS0, R_KONGS1 = range(9, 16)
R_DECLARED0, R_DECLARED1, R_SKIPS0, R_SKIPS1, R_FIRST_DEALER_OF_ROUND = range(16, 21)
R_FAN, R_MULTIPLE, R_BID = range(21, 24)
N_RESULT_INT = 24
RESULT_FIELDS = (
    "match",
    "hand",
    "prevailing_wind",
    "dealer",
    "streak",
    "seat_wind_0",
    "winner",
    "payer",
    "win_type",
    "win_tile",
    "hand_tai",
    "dealer_tai",
    "turns",
    "tiles_left",
    "kongs_0",
    "kongs_1",
    "declared_0",
    "declared_1",
    "skipped_wins_0",
    "skipped_wins_1",
    "dealer_turn",
    "fan",
    "multiple",
    "bid",
)
# result columns (float64), one row per hand
F_POINTS, F_SCORE0, F_SCORE1, F_KONG0, F_KONG1, F_FEE0, F_FEE1, F_BALANCE0, F_BALANCE1, F_COMBINATION = range(10)
N_RESULT_FLOAT = 10
FLOAT_FIELDS = (
    "points",
    "score_0",
    "score_1",
    "kong_payment_0",
    "kong_payment_1",
    "fee_0",
    "fee_1",
    "balance_0",
    "balance_1",
    "combination_points",
)
# decision log (int16), one row per decision taken when sc[S_DECISIONS] is 1 (Table.decisions); the
# match and hand of a row are not stored: a hand's ``turns`` decisions are its rows, in the order played
D_PLAYER, D_PHASE, D_TILE, D_ACTION, D_N_LEGAL, D_SHANTEN_BEFORE, D_SHANTEN_AFTER = range(7)
N_DECISION_INT = 7
DECISION_FIELDS = (
    "player",
    "phase",
    "tile",
    "action",
    "n_legal",
    "shanten_before",
    "shanten_after",
)
# a player's shanten memo (Table.decision_memo[p]): the last hand the log computed after an action
MEMO_WORDS = 0  #: MEMO_WORDS .. + 4: the hand's 34 counts as the words at bytes 0, 8, 16, 24 and 26
MEMO_MELDS = 5  #: its melds (-1: nothing memorised)
MEMO_SHANTEN = 6  #: its shanten
N_MEMO = 7
# observed facts (Table.observed, uint8), one record per logged decision of a run with observations:
# what the deciding player's view holds beyond the decision log's phase, tile and actions (their
# rivers follow from the hand's logged discards and claims: simkit.engine.observation)
O_HAND = 0  #: 34 bytes: the decider's concealed tiles, copies per kind
O_MELDS = 34  #: 8 bytes: their melds, (type code, kind) as int8, (-1, -1) after the last
O_OPP_MELDS = 42  #: 8 bytes: the opponent's melds
O_LEGAL = 50  #: 19 bytes: the legal-action mask, bit a % 8 of byte a // 8 (numpy's little bit order)
O_N_RIVER = 69  #: discards the decider has made this hand
O_OPP_N_RIVER = 70  #: discards the opponent has made
O_TILES_LEFT = 71  #: 2 bytes, int16 little-endian: drawable tiles left
O_SEAT = 73  #: the decider's seat wind (kind)
O_PREVAILING = 74  #: the prevailing wind (kind)
O_DEALER = 75  #: 1 when the decider deals
O_DECLARED = 76  #: the decider's declaration (0 none, 1 ready, 2 MIGI)
O_OPP_DECLARED = 77
O_BID = 78  #: for_two: the banker's bid (0 before it)
O_DECLARED_AT = 79  #: int8: the decider's declaring discard's index in their river (-1: none)
O_OPP_DECLARED_AT = 80
O_STREAK = 81  #: 2 bytes, int16 little-endian: the dealer's streak
O_SKIPPED_WIN = 83  #: 5 bytes: the kinds under the decider's Skipped Win (bit k: kind k)
O_SCORE = 88  #: 8 bytes, float64: the decider's result in the match so far
O_OPP_SCORE = 96  #: 8 bytes, float64: the opponent's
N_OBSERVED = 104
#: the observed facts' fields, named as the :class:`~simkit.engine.actions.View`'s (``legal``: the
#: mask): (name, first byte, bytes, numpy dtype of a byte or value); ``hand``, ``melds``,
#: ``opp_melds`` and ``legal`` are byte strings (kind counts, int8 (type code, kind) pairs, mask
#: bits), ``skipped_win`` the 5 low bytes of an int64, the others one number each
OBSERVED_FIELDS = (
    ("hand", O_HAND, 34, "u1"),
    ("melds", O_MELDS, 8, "i1"),
    ("opp_melds", O_OPP_MELDS, 8, "i1"),
    ("legal", O_LEGAL, 19, "u1"),
    ("n_river", O_N_RIVER, 1, "i1"),
    ("opp_n_river", O_OPP_N_RIVER, 1, "i1"),
    ("tiles_left", O_TILES_LEFT, 2, "<i2"),
    ("seat_wind", O_SEAT, 1, "i1"),
    ("prevailing_wind", O_PREVAILING, 1, "i1"),
    ("dealer", O_DEALER, 1, "i1"),
    ("declared", O_DECLARED, 1, "i1"),
    ("opp_declared", O_OPP_DECLARED, 1, "i1"),
    ("bid", O_BID, 1, "i1"),
    ("declared_at", O_DECLARED_AT, 1, "i1"),
    ("opp_declared_at", O_OPP_DECLARED_AT, 1, "i1"),
    ("streak", O_STREAK, 2, "<i2"),
    ("skipped_win", O_SKIPPED_WIN, 5, "u1"),
    ("score", O_SCORE, 8, "<f8"),
    ("opp_score", O_OPP_SCORE, 8, "<f8"),
)
#: the one-byte observed facts, in the order of split_observed_kernel's ``small`` rows
OBSERVED_SMALL = (
    "n_river",
    "opp_n_river",
    "seat_wind",
    "prevailing_wind",
    "dealer",
    "declared",
    "opp_declared",
    "bid",
    "declared_at",
    "opp_declared_at",
)
_SMALL_AT = tuple(next(at for name, at, *_ in OBSERVED_FIELDS if name == wanted) for wanted in OBSERVED_SMALL)
N_COUNTERS = 4  #: user counters a policy can set per decision (View.counters)


class Game(NamedTuple):
    """A rule set as the engine sees it: flags and scalars (from :func:`simkit.engine.rulesets.game_of`)."""

    kept_back: int  #: tiles at the end of the wall never drawn
    claim_chow: bool  #: chows may be claimed from the opponent's discard
    robbing: bool  #: the opponent may win on the tile of an added kong
    declare: (
        bool  #: Declare Ready / MIGI (docs/rules/douque.md, Declare Ready and MIGI): declare actions and locked hands
    )
    skipped_win: bool  #: Skipped Win (docs/rules/douque.md, Skipped Win and Skipped Pung): declining a win forbids winning until lifted
    skipped_pung: int  #: Skipped Pung: 0 none, 1 for the rest of the hand, 2 until the player's next turn
    bidding: bool  #: for_two: the banker bids, the opponent follows or folds
    fold_passes_deal: bool  #: for_two (option): after a fold the deal passes; else the banker keeps it
    streak_cap: int  #: after the hand at this streak the deal passes anyway
    dealer_turns: int  #: a match ends after this many dealer turns (0: no such limit)
    match_hands: int  #: a match ends after this many hands (also the row capacity of a match)
    rounds: bool  #: the prevailing wind moves every two dealer turns (douque); else always East
    fee: float  #: share of what a player receives that they pay as a fee
    money_unit: int  #: duel with chips: money units per coin (simkit.rules.duel.money_unit); 0: unlimited chips, money in float coins
    chips: int  #: with money_unit: the chips each player has at the table, in money units; a match ends at zero
    fee_numerator: int  #: with money_unit: the fee as the exact fraction fee_numerator / fee_denominator
    fee_denominator: int
    wall: int = 0  #: the run's wall design, WALL_* (not a rule: how the shuffled wall is dealt)
    blind_bid: bool = False  #: for_two (option bid_timing): bid and follow before the tiles are dealt
    end_phase: int = 0  #: for_two (option end_phase): END_PHASE_*, how ready players pick from the kept-back tiles
    end_jokers: int = 0  #: with end_phase: jokers among the kept-back tiles


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
    purse: np.ndarray  #: float64[2], the players' balances in coins (P_* indices)
    money: np.ndarray  #: float64[N_MONEY], what the settle function says is owed (M_* indices)
    policy_legal: np.ndarray  #: bool[N_ACTIONS], the copy of ``legal`` a policy is given
    row: np.ndarray  #: int64[N_RESULT_INT], the result row of the hand (complete once it is over)
    row_floats: np.ndarray  #: float64[N_RESULT_FLOAT], its payments
    row_hand: np.ndarray  #: uint8[34], the winner's concealed tiles (zeros without a winner)
    row_melds: np.ndarray  #: int8[4, 2], the winner's melds (-1 when unused)
    ids: np.ndarray  #: uint64[2], the match's seed and index (its random streams' keys)
    counters: (
        np.ndarray
    )  #: float64[2, N_COUNTERS], each player's user counters (View.counters), zeroed before each decision
    decisions: np.ndarray  #: int16[capacity, N_DECISION_INT], the decision log (D_* columns; capacity 0: none)
    decision_counters: (
        np.ndarray
    )  #: float64[capacity, N_COUNTERS], the counters of each logged decision (0: not logged)
    decision_memo: np.ndarray  #: int64[2, N_MEMO], each player's last hand whose shanten the log computed
    observed: np.ndarray  #: uint8[capacity, N_OBSERVED], the observed facts of each logged decision (O_*; 0: none)


def new_table(n_tiles, items_proto):
    """A fresh :class:`Table` for a wall of ``n_tiles``; ``items_proto``: zeros of the rule set's
    item vector (length and dtype of its scoring kernel's items). Its decision log has capacity 0
    (:func:`simkit.play.runtime.run_matches` gives a block's Table a real one when decisions
    are logged). Plain numpy: it is only made in Python (a jitted version cost seconds of compile
    at every cold start for nothing)."""
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
        np.zeros(2, np.float64),
        np.zeros(N_MONEY, np.float64),
        np.zeros(A.N_ACTIONS, np.bool_),
        np.zeros(N_RESULT_INT, np.int64),
        np.zeros(N_RESULT_FLOAT, np.float64),
        np.zeros(34, np.uint8),
        np.zeros((4, 2), np.int8),
        np.zeros(2, np.uint64),
        np.zeros((2, N_COUNTERS), np.float64),
        np.zeros((0, N_DECISION_INT), np.int16),
        np.zeros((0, N_COUNTERS), np.float64),
        np.full((2, N_MEMO), -1, np.int64),
        np.zeros((0, N_OBSERVED), np.uint8),
    )


def new_tables(n, n_tiles, items_proto):
    """``n`` fresh Tables stacked field by field: a :class:`Table` whose every array has a leading
    axis of length ``n``, row ``i`` holding table ``i`` (:func:`table_of`). One allocation per field
    keeps the tables' states side by side in memory, and taking a table is a few views (fetching a
    Table from a typed list of ``n`` cost 0.56 us)."""
    T = new_table(n_tiles, items_proto)

    def stack(a):
        return np.repeat(np.asarray(a)[np.newaxis], n, axis=0)

    fields = [
        ScoreWork(*(stack(x) for x in T.work)) if name == "work" else stack(getattr(T, name)) for name in Table._fields
    ]
    return Table(*fields)


@jit(inline="always")
def table_of(B, i):  # pragma: no cover - compiled
    """Table ``i`` of the stacked Tables ``B`` (:func:`new_tables`): row ``i`` of each array, borrowed
    (no reference counting, see :func:`simkit._jit.borrow`)."""
    w = B.work
    return Table(
        borrow(B.wall[i]),
        borrow(B.hand[i]),
        borrow(B.meld_counts[i]),
        borrow(B.melds[i]),
        borrow(B.n_melds[i]),
        borrow(B.river[i]),
        borrow(B.claimed[i]),
        borrow(B.n_river[i]),
        borrow(B.declared[i]),
        borrow(B.skip_win[i]),
        borrow(B.skip_pung[i]),
        borrow(B.seat[i]),
        borrow(B.acted[i]),
        borrow(B.kongs[i]),
        borrow(B.skips[i]),
        borrow(B.sc[i]),
        borrow(B.legal[i]),
        borrow(B.rng[i]),
        ScoreWork(
            borrow(w.splits[i]),
            borrow(w.cand[i]),
            borrow(w.ready[i]),
            borrow(w.meld_counts[i]),
            borrow(w.choice[i]),
            borrow(w.split_scratch[i]),
        ),
        borrow(B.items[i]),
        borrow(B.tmp[i]),
        borrow(B.log[i]),
        borrow(B.swork[i]),
        borrow(B.locked[i]),
        borrow(B.purse[i]),
        borrow(B.money[i]),
        borrow(B.policy_legal[i]),
        borrow(B.row[i]),
        borrow(B.row_floats[i]),
        borrow(B.row_hand[i]),
        borrow(B.row_melds[i]),
        borrow(B.ids[i]),
        borrow(B.counters[i]),
        borrow(B.decisions[i]),
        borrow(B.decision_counters[i]),
        borrow(B.decision_memo[i]),
        borrow(B.observed[i]),
    )


@jit(internal=True)
def copied_table(T):  # pragma: no cover - compiled
    """A new Table with copies of ``T``'s arrays (an empty decision log): scratch a kernel plays
    out on, made inside the engine (the search's)."""
    w = T.work
    return Table(
        T.wall.copy(),
        T.hand.copy(),
        T.meld_counts.copy(),
        T.melds.copy(),
        T.n_melds.copy(),
        T.river.copy(),
        T.claimed.copy(),
        T.n_river.copy(),
        T.declared.copy(),
        T.skip_win.copy(),
        T.skip_pung.copy(),
        T.seat.copy(),
        T.acted.copy(),
        T.kongs.copy(),
        T.skips.copy(),
        T.sc.copy(),
        T.legal.copy(),
        T.rng.copy(),
        ScoreWork(
            w.splits.copy(),
            w.cand.copy(),
            w.ready.copy(),
            w.meld_counts.copy(),
            w.choice.copy(),
            w.split_scratch.copy(),
        ),
        T.items.copy(),
        T.tmp.copy(),
        T.log.copy(),
        T.swork.copy(),
        T.locked.copy(),
        T.purse.copy(),
        T.money.copy(),
        T.policy_legal.copy(),
        T.row.copy(),
        T.row_floats.copy(),
        T.row_hand.copy(),
        T.row_melds.copy(),
        T.ids.copy(),
        T.counters.copy(),
        T.decisions[:0].copy(),
        T.decision_counters[:0].copy(),
        T.decision_memo.copy(),
        T.observed[:0].copy(),
    )


@jit(internal=True)  # only kernels call it: no Python entry point (boxing a Table of 35 arrays)
def borrowed_table(T):  # pragma: no cover - compiled
    """``T`` with every array borrowed (no reference counting): see :func:`simkit._jit.borrow`."""
    w = T.work
    return Table(
        borrow(T.wall),
        borrow(T.hand),
        borrow(T.meld_counts),
        borrow(T.melds),
        borrow(T.n_melds),
        borrow(T.river),
        borrow(T.claimed),
        borrow(T.n_river),
        borrow(T.declared),
        borrow(T.skip_win),
        borrow(T.skip_pung),
        borrow(T.seat),
        borrow(T.acted),
        borrow(T.kongs),
        borrow(T.skips),
        borrow(T.sc),
        borrow(T.legal),
        borrow(T.rng),
        ScoreWork(
            borrow(w.splits),
            borrow(w.cand),
            borrow(w.ready),
            borrow(w.meld_counts),
            borrow(w.choice),
            borrow(w.split_scratch),
        ),
        borrow(T.items),
        borrow(T.tmp),
        borrow(T.log),
        borrow(T.swork),
        borrow(T.locked),
        borrow(T.purse),
        borrow(T.money),
        borrow(T.policy_legal),
        borrow(T.row),
        borrow(T.row_floats),
        borrow(T.row_hand),
        borrow(T.row_melds),
        borrow(T.ids),
        borrow(T.counters),
        borrow(T.decisions),
        borrow(T.decision_counters),
        borrow(T.decision_memo),
        borrow(T.observed),
    )


def copy_table(src, dst) -> None:
    """Copy the state of ``src`` into ``dst`` (two Tables of one rule set and wall size; the
    scoring scratch excepted). Plain numpy: it runs outside the kernels."""
    for name in Table._fields:
        if name != "work":
            np.copyto(getattr(dst, name), getattr(src, name))


# ---------------------------------------------------------------------------------------------
# small helpers


@jit(internal=True, inline_in_llvm=True)
def _log(sc, log, kind, player, tile, extra):  # pragma: no cover - compiled
    """Append an event ``(kind, player, tile, extra)`` to ``log`` when the hand is logged.

    Compiled once and inlined by LLVM (``inline_in_llvm``), not by numba at each of its 18 call
    sites in the engine's step: numba typed and lowered its body at every site (17 in ``_apply``)."""
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


@jit(internal=True)
def _waits_without(hand, n_melds, meld_counts, x, t):  # pragma: no cover - compiled
    """Waits of a 14 - 3k tile hand with one ``x`` removed."""
    hand[x] -= 1
    w = waits_kernel(hand, n_melds, meld_counts, t)
    hand[x] += 1
    return w


@jit(internal=True)
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


@jit(internal=True)
def _draw_replacement(T, p):  # pragma: no cover - compiled
    """Player ``p`` draws a kong replacement: from the tail of the wall, or with stable walls the
    next tile of their own stream (:func:`_draw`); returns its kind."""
    sc = T.sc
    if sc[S_WALL] == WALL_SEAT_STABLE:
        drawn = _draw(T, p)
    else:
        drawn = T.wall[sc[S_BACK]]
        sc[S_BACK] -= 1
    T.hand[p, drawn] += 1
    _log(sc, T.log, EV_REPLACEMENT, p, drawn, 0)
    return drawn


@jit(called_by_symbol=True)
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


@jit(inline="always")
def _view(
    hand, melds, n_melds, river, n_river, declared, seat, skip_win, sc, p, phase, tile, t, counters, claimed, purse
):  # pragma: no cover
    """The :class:`~simkit.engine.actions.View` of player ``p`` (arguments: the Table's arrays, or for
    a policy called through its pointer, copies of them: :func:`copy_for_view`)."""
    q = 1 - p
    return A.View(
        phase,
        tile,
        hand[p],
        melds[p],
        n_melds[p],
        melds[q],
        n_melds[q],
        river[p],
        n_river[p],
        river[q],
        n_river[q],
        declared[p],
        declared[q],
        _tiles_left(sc),
        seat[p],
        sc[S_PREVAILING],
        sc[S_DEALER] == p,
        sc[S_STREAK],
        skip_win[p],
        t,
        sc[S_BID],
        counters[p],
        sc[S_DECLARED_AT + p],
        sc[S_DECLARED_AT + q],
        claimed[p],
        claimed[q],
        purse[P_BALANCE0 + p],
        purse[P_BALANCE0 + q],
    )


@jit(inline="always")
def copy_for_view(T, p, hand, melds, river, claimed):  # pragma: no cover - compiled
    """Copy what player ``p``'s view shows of the Table into the caller's scratch: their concealed
    tiles into ``hand`` (uint8[2, 34], row p), both players' melds into ``melds`` (int8[2, 4, 2]),
    discards into ``river`` (int8[2, MAX_RIVER]) and which were claimed into ``claimed``
    (bool[2, MAX_RIVER]): the arrays of the view a policy called through its pointer gets, so that
    whatever it writes there the game is untouched."""
    q = 1 - p
    for k in range(34):
        hand[p, k] = T.hand[p, k]
    for x in (p, q):
        for i in range(4):
            melds[x, i, 0] = T.melds[x, i, 0]
            melds[x, i, 1] = T.melds[x, i, 1]
        for i in range(MAX_RIVER):  # the whole row, as the Table holds it: no uninitialised scratch in view
            river[x, i] = T.river[x, i]
            claimed[x, i] = T.claimed[x, i]


@jit(inline="always")
def _same_hand(hand, n_melds, memo):  # pragma: no cover - compiled
    """Whether ``memo`` (int64[N_MEMO]) holds ``hand`` (uint8[34]) with ``n_melds`` melds."""
    return (
        memo[MEMO_MELDS] == n_melds
        and memo[MEMO_WORDS] == np.int64(word_at(hand, 0))
        and memo[MEMO_WORDS + 1] == np.int64(word_at(hand, 8))
        and memo[MEMO_WORDS + 2] == np.int64(word_at(hand, 16))
        and memo[MEMO_WORDS + 3] == np.int64(word_at(hand, 24))
        and memo[MEMO_WORDS + 4] == np.int64(word_at(hand, 26))
    )


@jit(inline="always")
def _memorise(hand, n_melds, shanten, memo):  # pragma: no cover - compiled
    for i in range(4):
        memo[MEMO_WORDS + i] = np.int64(word_at(hand, 8 * i))
    memo[MEMO_WORDS + 4] = np.int64(word_at(hand, 26))
    memo[MEMO_MELDS] = n_melds
    memo[MEMO_SHANTEN] = shanten


@jit(inline="always")
def decision_stats(hand, n_melds, phase, tile, action, legal, t, scratch, memo):  # pragma: no cover - compiled
    """``(n_legal, shanten_before, shanten_after)`` of a decision: the number of legal actions, the
    deciding player's shanten at the decision (``hand``: their concealed tiles, uint8[34], and
    ``n_melds`` melds; 14 - 3k tiles after a draw or claim and at the bid, 13 - 3k on the opponent's
    discard or added tile and at the follow) and right after ``action``, before anything it leads to
    (a replacement draw after a kong, the next draw after a pass): -1 after a win; the hand less the
    discard (a declaration's too), the kong's tiles (one more meld for a concealed or exposed kong),
    the tiles of a pung or chow with the claimed ``tile`` (one more meld); unchanged after a pass,
    a bid, follow or fold. Shanten counts seven pairs where the rule set has them
    (:func:`~simkit.hand.shanten.shanten_kernel`); -9 (:data:`SHANTEN_UNKNOWN`) for an action that
    is not legal (the engine then stops the match). ``scratch`` uint8[34] is the caller's scratch;
    ``hand`` is not changed.

    ``memo`` (int64[N_MEMO], the player's row of ``Table.decision_memo``) holds the hand the player
    was left with after their last logged action and its shanten: a shanten is a function of the
    tiles and the melds alone, so a hand equal to it is not computed again (on the opponent's
    discard, after a claim, after discarding the drawn tile). The hand after ``action`` replaces it.
    """
    n_legal = np.int64(0)
    for k in range(0, A.N_ACTIONS - 4, 8):
        n_legal += popcount64(word_at(legal, k))
    n_legal += popcount64(word_at(legal, A.N_ACTIONS - 8) >> np.uint64(32))
    if _same_hand(hand, n_melds, memo):
        before = memo[MEMO_SHANTEN]
    else:
        before = shanten_of_counts(hand, n_melds, t)
    if action < 0 or action >= A.N_ACTIONS or not legal[action]:
        return n_legal, before, np.int64(SHANTEN_UNKNOWN)
    if action == A.WIN:
        return n_legal, before, np.int64(-1)
    for k in (0, 8, 16, 24, 26):
        set_word_at(scratch, k, word_at(hand, k))
    melds_after = n_melds
    if action < A.DECLARE + 34:  # a discard, with or without a declaration
        scratch[action % 34] -= 1
    elif action < A.ADDED_KONG:  # concealed kong
        scratch[action - A.CONCEALED_KONG] -= 4
        melds_after += 1
    elif action < A.ADDED_KONG + 34:  # added kong: the pung becomes a kong
        scratch[action - A.ADDED_KONG] -= 1
    elif action == A.PUNG:
        scratch[tile] -= 2
        melds_after += 1
    elif action == A.KONG:
        scratch[tile] -= 3
        melds_after += 1
    elif action >= A.CHOW and action < A.CHOW + 3:
        j = action - A.CHOW
        for d in range(3):
            if d != j:
                scratch[tile - j + d] -= 1
        melds_after += 1
    else:  # pass, bid, follow, fold: the hand is unchanged
        _memorise(hand, n_melds, before, memo)
        return n_legal, before, before
    if _same_hand(scratch, melds_after, memo):
        return n_legal, before, memo[MEMO_SHANTEN]
    after = shanten_of_counts(scratch, melds_after, t)
    _memorise(scratch, melds_after, after, memo)
    return n_legal, before, after


@jit(internal=True, refcounts=False)
def record_decision(sc, hand, n_melds, legal, memo, row, t, action):  # pragma: no cover
    """Log the decision the Table (its arrays ``sc``, ``hand``, ...) stands at and the ``action``
    taken, before it is applied: the D_* columns into ``row`` (int16[N_DECISION_INT]).

    A function of its own, called only when decisions are logged (the hand loop tests
    ``sc[S_DECISIONS]``): it gets the arrays it reads rather than the whole Table (a call passes
    every array of its arguments), allocates nothing (its scratch is on the stack) and so runs
    without reference counts, as the hand loop does."""
    p = sc[S_PLAYER]
    phase = sc[S_PHASE]
    tile = sc[S_TILE]
    scratch = stack_empty(34, np.uint8)
    n_legal, before, after = decision_stats(hand[p], n_melds[p], phase, tile, action, legal, t, scratch, memo[p])
    row[D_PLAYER] = p
    row[D_PHASE] = phase
    row[D_TILE] = tile
    row[D_ACTION] = action
    row[D_N_LEGAL] = n_legal
    row[D_SHANTEN_BEFORE] = before
    row[D_SHANTEN_AFTER] = after


@jit(inline="always")
def record_counters(sc, counters, out):  # pragma: no cover - compiled
    """The deciding player's user counters (``counters``: the Table's) into ``out`` (float64[N_COUNTERS])."""
    p = sc[S_PLAYER]
    for i in range(N_COUNTERS):
        out[i] = counters[p, i]


@jit(inline="always")
def _put_int(out, at, value, n):  # pragma: no cover - compiled
    """``value``'s ``n`` low bytes into ``out[at:at + n]``, little-endian."""
    v = np.int64(value)
    for i in range(n):
        out[at + i] = np.uint8((v >> (8 * i)) & 0xFF)


@jit(inline="always")
def _put_float(out, at, value):  # pragma: no cover - compiled
    """The float64 ``value``'s 8 bytes into ``out[at:at + 8]`` (the machine's order: little-endian)."""
    cell = stack_empty(1, np.float64)
    cell[0] = value
    raw = cell.view(np.uint8)
    for i in range(8):
        out[at + i] = raw[i]


@jit(internal=True, refcounts=False)
def record_observed(sc, hand, melds, n_melds, n_river, declared, seat, skip_win, legal, purse, out):  # pragma: no cover
    """Log what the deciding player's view holds beyond the decision log's columns (the O_* layout):
    their tiles, both players' melds, the legal-action mask (bit-packed), the counts of both rivers
    and the view's scalars, into ``out`` (uint8[N_OBSERVED]). Called, like :func:`record_decision`,
    only in a run with observations; the rivers themselves follow from the logged discards and
    claims of the hand (:func:`simkit.engine.observation.encode_logged_kernel`)."""
    p = sc[S_PLAYER]
    q = 1 - p
    own = hand[p]
    for k in (0, 8, 16, 24, 26):
        set_word_at(out, O_HAND + k, word_at(own, k))
    for i in range(4):
        mine = i < n_melds[p]
        theirs = i < n_melds[q]
        for j in range(2):
            out[O_MELDS + 2 * i + j] = np.uint8(melds[p, i, j] & 0xFF) if mine else np.uint8(0xFF)
            out[O_OPP_MELDS + 2 * i + j] = np.uint8(melds[q, i, j] & 0xFF) if theirs else np.uint8(0xFF)
    # each 0/1 byte's bit lands in the top byte of the product, byte b at bit b (no carries)
    spread = np.uint64(0x0102040810204080)
    for k in range(18):
        out[O_LEGAL + k] = np.uint8((word_at(legal, 8 * k) * spread) >> np.uint64(56))
    out[O_LEGAL + 18] = np.uint8(((word_at(legal, A.N_ACTIONS - 8) >> np.uint64(32)) * spread) >> np.uint64(56))
    out[O_N_RIVER] = n_river[p]
    out[O_OPP_N_RIVER] = n_river[q]
    _put_int(out, O_TILES_LEFT, _tiles_left(sc), 2)
    out[O_SEAT] = seat[p]
    out[O_PREVAILING] = sc[S_PREVAILING]
    out[O_DEALER] = 1 if sc[S_DEALER] == p else 0
    out[O_DECLARED] = declared[p]
    out[O_OPP_DECLARED] = declared[q]
    out[O_BID] = sc[S_BID]
    _put_int(out, O_DECLARED_AT, sc[S_DECLARED_AT + p], 1)
    _put_int(out, O_OPP_DECLARED_AT, sc[S_DECLARED_AT + q], 1)
    _put_int(out, O_STREAK, sc[S_STREAK], 2)
    _put_int(out, O_SKIPPED_WIN, skip_win[p], 5)
    _put_float(out, O_SCORE, purse[P_BALANCE0 + p])
    _put_float(out, O_OPP_SCORE, purse[P_BALANCE0 + q])


@jit
def split_observed_kernel(observed, hand, melds, opp_melds, legal, small, wide, floats):  # pragma: no cover - compiled
    """The observed facts (uint8[n, N_OBSERVED], the O_* records) as columns, in one pass: the byte
    strings into ``hand`` (uint8[n, 34]), ``melds`` and ``opp_melds`` (uint8[n, 8]) and ``legal``
    (uint8[n, 19]); the one-byte fields into the rows of ``small`` (int8[len(OBSERVED_SMALL), n],
    in that order); ``tiles_left``, ``streak`` and ``skipped_win`` into ``wide`` (int64[3, n]);
    ``score`` and ``opp_score`` into ``floats`` (float64[2, n])."""
    n = observed.shape[0]
    for i in range(n):
        r = observed[i]
        for k in (0, 8, 16, 24, 26):
            set_word_at(hand[i], k, word_at(r, O_HAND + k))
        set_word_at(melds[i], 0, word_at(r, O_MELDS))
        set_word_at(opp_melds[i], 0, word_at(r, O_OPP_MELDS))
        for k in (0, 8, 11):
            set_word_at(legal[i], k, word_at(r, O_LEGAL + k))
        for j in range(len(_SMALL_AT)):
            small[j, i] = np.int8(r[_SMALL_AT[j]])
        wide[0, i] = np.int16(np.int64(r[O_TILES_LEFT]) | (np.int64(r[O_TILES_LEFT + 1]) << 8))
        wide[1, i] = np.int16(np.int64(r[O_STREAK]) | (np.int64(r[O_STREAK + 1]) << 8))
        bits = np.int64(0)
        for k in range(5):
            bits |= np.int64(r[O_SKIPPED_WIN + k]) << (8 * k)
        wide[2, i] = bits
        for j in range(2):
            at = O_SCORE if j == 0 else O_OPP_SCORE
            cell = floats[j, i : i + 1].view(np.uint8)
            for k in range(8):
                cell[k] = r[at + k]


@jit
def decision_record_kernel(T, t, action, row, counters_row, observed_row):  # pragma: no cover - compiled
    """The engine's log of the decision ``T`` stands at with ``action`` (:func:`record_decision`,
    and :func:`record_observed` when ``observed_row`` has room), for the step API: a Python
    policy's decisions are logged as the engine logs its own."""
    record_decision(T.sc, T.hand, T.n_melds, T.legal, T.decision_memo, row, t, action)
    record_counters(T.sc, T.counters, counters_row)
    if observed_row.shape[0] == N_OBSERVED:
        record_observed(
            T.sc, T.hand, T.melds, T.n_melds, T.n_river, T.declared, T.seat, T.skip_win, T.legal, T.purse, observed_row
        )


@jit(inline="always")
def _legal_after_draw(
    legal, hand, melds, n_melds, meld_counts, declared, skip_win, last, drawn, phase, lb, can_declare, swork, t
):  # pragma: no cover
    """Fill ``legal`` for a player holding 14 - 3k tiles (drawn tile ``drawn``, -1 if none).

    ``hand``/``melds``/``meld_counts`` are the player's rows; ``last``: no drawable tile is left;
    ``lb``: a lower bound on the hand's shanten (:data:`SHANTEN_UNKNOWN` if none); ``can_declare``:
    the rule set has Declare Ready. An undeclared hand's shanten is computed when the bound allows
    a ready or complete hand (``lb <= 0``); a complete hand has shanten -1, so the win check is
    skipped when the shanten (or the bound) is 0 or more. Returns the shanten when it was computed,
    else :data:`SHANTEN_UNKNOWN`. Inlined into the engine's hand loop, like :func:`_legal_react`:
    there it runs without reference counts (see :mod:`simkit.engine.step`).
    """
    for a in range(A.N_ACTIONS):
        legal[a] = False
    sh = SHANTEN_UNKNOWN
    if not declared and lb <= 0:
        sh = shanten_kernel(hand, n_melds, t, swork)
    may_win = sh == -1 or (sh == SHANTEN_UNKNOWN and lb <= -1)
    if phase == A.PHASE_DRAW and skip_win == 0 and may_win and is_win_kernel(hand, n_melds, t):
        legal[A.WIN] = True
        if declared == 2:  # a MIGI declarer can never skip a win
            return sh
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
        return sh
    # legal[DISCARD + k] = hand[k] != 0 and legal[CONCEALED_KONG + k] = hand[k] == 4, eight kinds
    # at a time: a count (0 to 4) is nonzero where one of its three low bits is set, 4 where bit 2
    # is; the last word (kinds 26-33) overlaps the one before and writes the same bytes again
    kong = phase == A.PHASE_DRAW and not last
    for k in (0, 8, 16, 24, 26):
        w = word_at(hand, k)
        set_word_at(legal, A.DISCARD + k, (w | (w >> np.uint64(1)) | (w >> np.uint64(2))) & BYTE_ONES)
        if kong:
            set_word_at(legal, A.CONCEALED_KONG + k, (w >> np.uint64(2)) & BYTE_ONES)
    if kong:
        for m in range(n_melds):
            if melds[m, 0] == 0 and hand[melds[m, 1]] > 0:
                legal[A.ADDED_KONG + melds[m, 1]] = True
    # declare: the hand after discarding k must have a real wait (only possible at shanten 0 or -1)
    if not can_declare or sh == SHANTEN_UNKNOWN or sh > 0:
        return sh
    for k in range(34):
        if hand[k] > 0:
            hand[k] -= 1
            if waits_kernel(hand, n_melds, meld_counts, t) != 0:
                legal[A.DECLARE + k] = True
            hand[k] += 1
    return sh


@jit(inline="always")
def _legal_react(
    legal, hand, meld_counts, n_melds, declared, skip_win, skip_pung, last, x, robbing, chow, lb, t
):  # pragma: no cover
    """Fill ``legal`` for a player (rows ``hand``, ...) facing the opponent's discard ``x`` (or added
    tile when ``robbing``); ``last``: no drawable tile is left; ``chow``: the rule set claims chows;
    ``lb``: a lower bound on the player's shanten (no win is possible unless it is 0 or less).

    Returns whether the player has anything but PASS (otherwise nobody asks them).
    """
    for a in range(A.N_ACTIONS):
        legal[a] = False
    any_option = False
    win = skip_win == 0 and lb <= 0 and _can_win_with(hand, n_melds, meld_counts, x, t)
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


@jit(called_by_symbol=True)
def _shuffle_and_roll(T, template, dealer):  # pragma: no cover - compiled
    """Shuffle the wall and roll three dice: odd total, the dealer is East; even, West. With
    ``WALL_SEAT_SHARED`` the shuffled wall is then laid out by :func:`_lay_out_seat_streams`."""
    n = template.shape[0]
    for i in range(n):
        T.wall[i] = template[i]
    shuffle_wall(T.rng[0:1], T.wall, n)
    dice = 3
    for _ in range(3):  # three dice, in order (one inlined call site of `bounded`, not three)
        dice += bounded(T.rng[0:1], 6)
    T.seat[dealer] = _EAST if dice % 2 == 1 else _WEST
    T.seat[1 - dealer] = _WEST if dice % 2 == 1 else _EAST
    if T.sc[S_WALL] == WALL_SEAT_SHARED:
        _lay_out_seat_streams(T.wall, dealer)


@jit(internal=True, called_by_symbol=True)
def _lay_out_seat_streams(wall, dealer):  # pragma: no cover - compiled
    """The seat streams of a shuffled wall, laid out as one wall dealt and drawn in turn.

    Under the deal "seat" (``WALL_SEAT_SHARED`` and ``WALL_SEAT_STABLE``) the shuffled wall is read
    as two streams of ``n / 2`` tiles: seat 0's from the front (``wall[0], wall[1], ...``) and seat
    1's from the back (``wall[n-1], wall[n-2], ...``). A seat's dealt hand is the first 13 tiles of
    its stream (the dealer's 14th is the next one) and its draws continue the stream, so the tiles
    a seat receives do not depend on which seat deals. In a duplicate run the policies swap seats,
    so each policy holds in one copy the tiles the other held in the other copy.

    With a shared wall (``WALL_SEAT_SHARED``) the streams are laid out here as one wall: the
    dealer's first 14, the opponent's first 13, then the opponent's and the dealer's next tiles
    alternately, the order they draw in while nobody claims; a claim or a kong shifts who draws what
    next, as at a real table. (With ``WALL_SEAT_STABLE`` the wall stays as shuffled and each seat
    draws from its own end, :func:`_draw`, so a claim shifts nothing.)
    """
    n = wall.shape[0]
    streams = wall.copy()
    for k in range(n // 2):
        for p in range(2):
            x = streams[k] if p == 0 else streams[n - 1 - k]
            if p == dealer:
                i = k if k < 14 else 28 + 2 * (k - 14)
            else:
                i = 14 + k if k < 13 else 27 + 2 * (k - 13)
            wall[i] = x


@jit(inline="always")
def _draw(T, p):  # pragma: no cover - compiled
    """Player ``p`` draws the next tile: from the wall's front, or with stable walls
    (``WALL_SEAT_STABLE``) from their own end (seat 0 the front, seat 1 the back); returns its kind."""
    sc = T.sc
    if sc[S_WALL] == WALL_SEAT_STABLE and p == 1:
        drawn = T.wall[sc[S_BACK]]
        sc[S_BACK] -= 1
    else:
        drawn = T.wall[sc[S_FRONT]]
        sc[S_FRONT] += 1
    return drawn


@jit(called_by_symbol=True)
def _deal(T, dealer):  # pragma: no cover - compiled
    """Deal the wall in T.wall: 14 to the dealer (positions 0-13), 13 to the opponent (14-26); with
    stable walls each seat's first tiles from its own end (:func:`_lay_out_seat_streams`)."""
    n = T.wall.shape[0]
    other = 1 - dealer
    for q in range(2):
        for k in range(34):
            T.hand[q, k] = 0
            T.meld_counts[q, k] = 0
        T.n_melds[q] = 0
        T.n_river[q] = 0
        T.declared[q] = 0
        T.sc[S_DECLARED_AT + q] = -1
        T.skip_win[q] = 0
        T.skip_pung[q] = 0
        T.acted[q] = 0
        T.kongs[q] = 0
        T.skips[q] = 0
    if T.sc[S_WALL] == WALL_SEAT_STABLE:  # seat 0 from the front, seat 1 from the back
        front = 14 if dealer == 0 else 13
        back = n - (14 if dealer == 1 else 13)
        for i in range(front):
            T.hand[0, T.wall[i]] += 1
        for i in range(back, n):
            T.hand[1, T.wall[i]] += 1
        T.sc[S_FRONT] = front
        T.sc[S_BACK] = back - 1
    else:
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


def dealt_hands(wall, dealer: int, design: int) -> np.ndarray:
    """The players' dealt tiles (uint8[2, 34] counts) of a hand's wall, as :func:`_deal` deals it."""
    wall = np.asarray(wall)
    n = len(wall)
    if design == WALL_SEAT_STABLE:
        front = 14 if dealer == 0 else 13
        parts = (wall[:front], wall[n - (27 - front) :])
    else:
        parts = (wall[:14], wall[14:27]) if dealer == 0 else (wall[14:27], wall[:14])
    return np.array([np.bincount(part, minlength=34) for part in parts], np.uint8)


@jit(inline="always")
def _begin_purse(purse, sc, game):  # pragma: no cover - compiled
    """A match's money at its start: balances zero, each player's chips at the table (in money
    units, exact; duel with chips only)."""
    purse[P_BALANCE0] = 0.0
    purse[P_BALANCE1] = 0.0
    sc[S_CHIPS0] = game.chips
    sc[S_CHIPS1] = game.chips


@jit(internal=True)
def _pay(money, purse, sc, receiver, payer, game, check, out):  # pragma: no cover - compiled
    """Settle what ``money`` says is owed; fill the float row ``out`` and update ``purse``.

    The win payment (``money[M_POINTS]``, ``payer`` -> ``receiver``) comes first, then each player's
    kong payment to the opponent. Each receiver pays ``game.fee`` of what they receive. ``score_p``
    is what ``p`` received from the opponent minus what they paid them (zero-sum); ``balance_p``
    accumulates ``score_p - fee_p`` over the match.

    Without chips (``game.money_unit == 0``) money is in float coins as the settle function gives
    it and nothing is capped. With chips (duel), :func:`_pay_chips` counts it exactly.
    """
    if game.money_unit != 0:
        _pay_chips(money, purse, sc, receiver, payer, game, check, out)
        return
    points = 0.0
    to0 = 0.0  # paid by player 1 to player 0
    to1 = 0.0
    if receiver >= 0:
        points = money[M_POINTS]
        if payer == 0:
            to1 += points
        else:
            to0 += points
    kong0 = money[M_KONG0]
    kong1 = money[M_KONG1]
    to0 += kong0
    to1 += kong1
    fee0 = to0 * game.fee
    fee1 = to1 * game.fee
    score0 = to0 - to1
    score1 = to1 - to0
    purse[P_BALANCE0] += score0 - fee0
    purse[P_BALANCE1] += score1 - fee1
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
        if score0 + score1 != 0.0 or fee0 < 0.0 or fee1 < 0.0:
            sc[S_ERROR] = ERR_PAYMENT


@jit(inline="always")
def _fee_units(received, game):  # pragma: no cover - compiled
    """The fee on ``received`` money units: ``received x fee`` rounded down to a whole unit (exact:
    whole for every uncapped payment; the denominator is below 2**26, see
    simkit.rules.duel.MAX_MONEY_UNITS, so nothing overflows)."""
    q = np.int64(game.fee_denominator)
    return (received // q) * game.fee_numerator + ((received % q) * game.fee_numerator) // q


@jit
def _pay_chips(money, purse, sc, receiver, payer, game, check, out):  # pragma: no cover - compiled
    """:func:`_pay` for duel with chips, in whole money units (``money`` holds units, exact
    integers): what a player pays in the hand is capped by their chips at the start of the
    settlement (coins received in the same settlement are not used); a player with exactly none
    left ends the match (:func:`simkit.engine.step._next_hand_of_match`). The float row and the
    balances get the exact amounts in coins (the nearest float)."""
    unit = game.money_unit
    left0 = sc[S_CHIPS0]
    left1 = sc[S_CHIPS1]
    points = np.int64(0)
    to0 = np.int64(0)  # paid by player 1 to player 0
    to1 = np.int64(0)
    if receiver >= 0:
        if payer == 0:
            points = min(np.int64(money[M_POINTS]), left0)
            left0 -= points
            to1 += points
        else:
            points = min(np.int64(money[M_POINTS]), left1)
            left1 -= points
            to0 += points
    kong0 = min(np.int64(money[M_KONG0]), left1)
    kong1 = min(np.int64(money[M_KONG1]), left0)
    to0 += kong0
    to1 += kong1
    fee0 = _fee_units(to0, game)
    fee1 = _fee_units(to1, game)
    before = sc[S_CHIPS0] + sc[S_CHIPS1]
    # a balance is what it was when the chips were at their start, plus the exact net since then:
    # in a match from its start that is the exact net itself (x - x + y == y), and a table whose
    # balances were set otherwise (a position within a match) keeps them as its start
    start0 = purse[P_BALANCE0] - (sc[S_CHIPS0] - game.chips) / unit
    start1 = purse[P_BALANCE1] - (sc[S_CHIPS1] - game.chips) / unit
    sc[S_CHIPS0] += to0 - to1 - fee0
    sc[S_CHIPS1] += to1 - to0 - fee1
    purse[P_BALANCE0] = start0 + (sc[S_CHIPS0] - game.chips) / unit
    purse[P_BALANCE1] = start1 + (sc[S_CHIPS1] - game.chips) / unit
    out[F_POINTS] = points / unit
    out[F_SCORE0] = (to0 - to1) / unit
    out[F_SCORE1] = (to1 - to0) / unit
    out[F_KONG0] = kong0 / unit
    out[F_KONG1] = kong1 / unit
    out[F_FEE0] = fee0 / unit
    out[F_FEE1] = fee1 / unit
    out[F_BALANCE0] = purse[P_BALANCE0]
    out[F_BALANCE1] = purse[P_BALANCE1]
    if check:
        if (
            sc[S_CHIPS0] < 0
            or sc[S_CHIPS1] < 0
            or fee0 < 0
            or fee1 < 0
            or fee0 > to0
            or fee1 > to1
            or before - (sc[S_CHIPS0] + sc[S_CHIPS1]) != fee0 + fee1
        ):
            sc[S_ERROR] = ERR_PAYMENT
