"""Actions, decision points and the view a policy gets: the engine's interface to strategies.

A policy is a jitted function ``policy(view, legal, params, rng) -> action`` called at every decision
(see :mod:`simkit.policies.basic`). ``legal`` is a bool[N_ACTIONS] mask; the policy must return an
index where it is True (the engine checks and raises otherwise).

Action codes
------------
==========================  ===================================================================
``DISCARD + k``             discard kind ``k`` (after a draw, or the discard after a pung)
``DECLARE + k``             declare ready (MIGI when its conditions hold) and discard ``k``
``CONCEALED_KONG + k``      concealed kong of ``k`` (four in hand), then a replacement draw
``ADDED_KONG + k``          add ``k`` to your exposed pung, then a replacement draw
``WIN``                     win: self-draw after a draw, or on the opponent's discard / added tile
``PUNG``                    pung the opponent's discard (you hold two), then discard
``KONG``                    exposed kong of the opponent's discard (you hold three), then replace
``PASS``                    decline the opponent's discard or added tile
``CHOW + j``                chow the opponent's discard ``x`` as the ``j``-th tile of the run
                            (``j`` = 0 lowest, 1 middle, 2 highest: the run starts at ``x - j``);
                            you hold the other two; then discard. Rule sets with chow claims only
``BID + b``                 the banker bids ``b + 1`` (1, 2 or 3) stakes (``for_two``)
``FOLLOW``                  the opponent plays the hand at the bid (``for_two``)
``FOLD``                    the opponent does not follow: the hand is not played (``for_two``)
==========================  ===================================================================

Which actions a rule set has comes from its rules (:class:`simkit.engine.table.Game`): Declare
Ready / MIGI only in ``douque``; chows in ``night_market`` and ``for_two``; robbing an added kong
in ``douque`` and ``duel``; bidding in ``for_two``.

Decision points (``view.phase``): :data:`PHASE_BID` (``for_two``, the banker after the deal: bid),
:data:`PHASE_FOLLOW` (``for_two``, the opponent, the bid in ``view.bid``: follow / fold),
:data:`PHASE_DRAW` (after a draw or replacement: win / kongs / discard / declare),
:data:`PHASE_PUNG` (after a pung or a chow: discard / declare), :data:`PHASE_REACT` (the opponent
discarded ``view.tile``: win / pung / chow / kong / pass) and :data:`PHASE_ROB` (the opponent added
``view.tile`` to a pung: win / pass).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import jit
from .._words import lowest_set_bit, popcount64, word_at
from ..tiles import tile_name
from .rng import bounded

__all__ = [
    "uniform_legal_action",
    "DISCARD",
    "DECLARE",
    "CONCEALED_KONG",
    "ADDED_KONG",
    "WIN",
    "PUNG",
    "KONG",
    "PASS",
    "CHOW",
    "BID",
    "FOLLOW",
    "FOLD",
    "N_ACTIONS",
    "PHASE_DRAW",
    "PHASE_PUNG",
    "PHASE_CLAIM",
    "PHASE_REACT",
    "PHASE_ROB",
    "PHASE_BID",
    "PHASE_FOLLOW",
    "PHASE_OVER",
    "PHASE_NAMES",
    "View",
    "action_name",
]

DISCARD = 0  #: DISCARD + kind
DECLARE = 34  #: DECLARE + kind
CONCEALED_KONG = 68  #: CONCEALED_KONG + kind
ADDED_KONG = 102  #: ADDED_KONG + kind
WIN = 136  #: win now
PUNG = 137  #: pung the opponent's discard
KONG = 138  #: exposed kong of the opponent's discard
PASS = 139  #: decline the opponent's tile
CHOW = 140  #: CHOW + j: chow the discard as the j-th (0 lowest) tile of the run
BID = 143  #: BID + b: the banker bids b + 1 stakes
FOLLOW = 146  #: play the hand at the banker's bid
FOLD = 147  #: do not follow the bid
N_ACTIONS = 148  #: length of the legal-action mask

PHASE_DRAW = 0  #: after a draw or a replacement draw
PHASE_PUNG = 1  #: after a pung or a chow: must discard
PHASE_CLAIM = PHASE_PUNG  #: the same phase under a name that covers chows
PHASE_REACT = 2  #: on the opponent's discard
PHASE_ROB = 3  #: on the opponent's added-kong tile
PHASE_BID = 4  #: the banker, after the deal: bid 1, 2 or 3
PHASE_FOLLOW = 5  #: the opponent, after the bid: follow or fold
PHASE_OVER = 6  #: the hand is over: no decision (the state's phase, never a view's)
PHASE_NAMES = (
    "after a draw",
    "after a claim",
    "on the opponent's discard",
    "on the opponent's added kong",
    "bid",
    "follow or fold",
    "hand over",
)


class View(NamedTuple):
    """What the deciding player may know. Its hand, melds and rivers are copies made for the
    decision (by the engine before each decision of a policy called through its pointer, by
    :meth:`~simkit.play.stepper.GameState.view` from Python): a policy cannot change the game
    through its view. Treat them as read-only all the same (the built-in ``greedy`` is handed the
    engine's own arrays), and never write into ``tables``, which every kernel shares;
    ``counters`` is the one array meant to be written.

    Attributes
    ----------
    phase : int
        One of the ``PHASE_*`` codes.
    tile : int
        The tile concerned: the drawn tile (PHASE_DRAW; -1 after a pung or chow), the opponent's
        discard (PHASE_REACT) or added tile (PHASE_ROB); -1 in PHASE_BID and PHASE_FOLLOW.
    hand : uint8[34]
        Own concealed tiles (after a draw: the drawn tile included).
    melds : int8[4, 2]
        Own melds ``(type code, kind)`` (:mod:`simkit.melds` codes; a chow's kind is its lowest
        tile); ``n_melds`` valid rows.
    n_melds : int
    opp_melds : int8[4, 2]
    opp_n_melds : int
    river : int8[MAX_RIVER]
        Own discards in order; ``n_river`` valid.
    n_river : int
    opp_river : int8[MAX_RIVER]
    opp_n_river : int
    declared, opp_declared : int
        0 none, 1 Declare Ready, 2 MIGI (always 0 outside ``douque``).
    tiles_left : int
        Drawable tiles left (kept-back tiles excluded).
    seat_wind, prevailing_wind : int
        Kinds (27 East ... 30 North); they score only in ``douque``.
    dealer : bool
        Whether the deciding player is the dealer.
    streak : int
    skipped_win : int
        Bitmask of the wait set under a Skipped Win (0 when none).
    tables : HandTables
        The rule set's hand tables, for the hand kernels (``shanten_kernel(hand, n_melds, tables,
        work)``, ``waits_kernel``, ``is_win_kernel``).
    bid : int
        ``for_two``: the banker's bid (1-3) once made, else 0; 0 in the other rule sets.
    counters : float64[4]
        The one writable array of the view: four user counters, zeroed by the engine before every
        decision. A policy may set ``view.counters[i]`` (e.g. an estimate, a branch taken); with
        decision logging on (``simulate(..., decisions=True)``, ``simkit simulate --decisions``)
        they become the decision's ``counter_0`` .. ``counter_3``, otherwise nothing reads them.
        They never change the game.
    declared_at, opp_declared_at : int
        The index in the player's own river (``river``) and in the opponent's (``opp_river``) of
        the discard that declared (douque's Declare Ready or MIGI); -1 when that player has not
        declared. The opponent's discards from ``opp_river[opp_declared_at]`` on were made by a
        locked hand.
    river_claimed, opp_river_claimed : bool[MAX_RIVER]
        True at each discard of ``river`` (``opp_river``) the other player claimed: that tile is
        also in their meld, so it is counted once (:func:`simkit.engine.beliefs.view_unseen`).
    score, opp_score : float
        Each player's result in the match so far (received - paid - fees), in the rule set's
        payment unit: what is at stake beyond this hand.
    """

    phase: int
    tile: int
    hand: np.ndarray
    melds: np.ndarray
    n_melds: int
    opp_melds: np.ndarray
    opp_n_melds: int
    river: np.ndarray
    n_river: int
    opp_river: np.ndarray
    opp_n_river: int
    declared: int
    opp_declared: int
    tiles_left: int
    seat_wind: int
    prevailing_wind: int
    dealer: bool
    streak: int
    skipped_win: int
    tables: object
    bid: int
    counters: np.ndarray
    declared_at: int
    opp_declared_at: int
    river_claimed: np.ndarray
    opp_river_claimed: np.ndarray
    score: float
    opp_score: float


def action_name(action: int) -> str:
    """Human-readable action, e.g. ``"discard 5m"``, ``"declare + discard 1z"``, ``"win"``,
    ``"chow (claimed tile in the middle)"``, ``"bid 2"``."""

    action = int(action)
    for base, label in (
        (DISCARD, "discard"),
        (DECLARE, "declare + discard"),
        (CONCEALED_KONG, "concealed kong"),
        (ADDED_KONG, "added kong"),
    ):
        if base <= action < base + 34:
            return f"{label} {tile_name(action - base)}"
    names = {
        WIN: "win",
        PUNG: "pung",
        KONG: "kong",
        PASS: "pass",
        FOLLOW: "follow",
        FOLD: "fold",
        CHOW: "chow (claimed tile lowest)",
        CHOW + 1: "chow (claimed tile in the middle)",
        CHOW + 2: "chow (claimed tile highest)",
    }
    if BID <= action < BID + 3:
        return f"bid {action - BID + 1}"
    if action in names:
        return names[action]
    raise ValueError(f"not an action code: {action}")


# ---------------------------------------------------------------------------------------------
# a uniformly random legal action: the random policy's choice, which the engine inlines


@jit(inline="always")
def uniform_legal_action(legal, rng):  # pragma: no cover - compiled
    """The ``j``-th legal action of ``legal`` for ``j`` uniform below their number (one draw of
    :func:`~simkit.engine.rng.bounded` from ``rng``); -1 if none is legal.

    A mask of :data:`N_ACTIONS` is read eight actions at a time
    (:mod:`simkit._words`: a legal action is a byte 1, so a word's popcount is the number of
    legal actions in it), with a trip count LLVM knows: the scan is a few dozen instructions
    and one unpredictable branch per word, not per action. Inlined where it is called (the
    engine asks it for a random player directly)."""
    if legal.shape[0] != N_ACTIONS:
        return _uniform_legal_action_any(legal, rng)
    whole = N_ACTIONS // 8 * 8
    n = 0
    for a in range(0, whole, 8):
        n += popcount64(word_at(legal, a))
    for a in range(whole, N_ACTIONS):
        n += legal[a]
    j = bounded(rng, n)
    for a in range(0, whole, 8):
        w = word_at(legal, a)
        c = popcount64(w)
        if j < c:
            for _ in range(j):
                w &= w - np.uint64(1)  # clear the lowest legal action
            return a + lowest_set_bit(w) // 8
        j -= c
    for a in range(whole, N_ACTIONS):
        if legal[a]:
            if j == 0:
                return a
            j -= 1
    return -1


@jit
def _uniform_legal_action_any(legal, rng):  # pragma: no cover - compiled
    """:func:`uniform_legal_action` for a mask of any length, an action at a time."""
    n = 0
    for a in range(legal.shape[0]):
        n += legal[a]
    j = bounded(rng, n)
    for a in range(legal.shape[0]):
        if legal[a]:
            if j == 0:
                return a
            j -= 1
    return -1
