"""The engine's state machine: a hand advanced one decision at a time, and the loops and kernels
that drive it.

A hand is a :class:`~simkit.engine.table.Table` (plain arrays) standing at a **decision point**:
``sc[S_PLAYER]`` must choose an action in phase ``sc[S_PHASE]`` about tile ``sc[S_TILE]``, the
legal actions are ``T.legal``. Two functions move it:

* :func:`_begin_hand` deals the wall in ``T.wall`` and advances to the first decision;
* :func:`_step` applies an action of the deciding player (checked against the engine's own
  ``T.legal``, a win also against the hand itself) and advances to the next decision, or ends
  the hand (phase :data:`~simkit.engine.actions.PHASE_OVER`): then it is settled and its result
  row is in ``T.row`` / ``T.row_floats`` / ``T.items`` / ``T.row_hand`` / ``T.row_melds``.

Between decisions nothing is asked of anyone: draws, a pass by a player who can do nothing but
pass, the replacement after a kong, the end of the hand. Each ``_after_*`` function below is the
rule of one kind of decision. Whole hands (:func:`_hand_loop`) and matches (:func:`_play_match`)
are loops over ``_step`` that ask the players' policies (:func:`_ask`); so are replay, play from a
given wall or position, and the Python step API (:mod:`simkit.play.stepper`), which calls
:func:`step_kernel` once per action.

This module is a *template* bound to one rule set's settle function (``SETTLE``):
:mod:`simkit.engine.compiled` makes one instance per rule set, cached on disk, so the engine is
compiled once per rule set. Policies are not compiled into it: the built-in random policy's
choice is inlined (by kind, :data:`~simkit.engine.table.POLICY_RANDOM`), greedy through its function
pointer with the engine's legal mask (``POLICY_GREEDY``), any other jitted policy through its
pointer with a copy of the mask (``POLICY_FUNCTION``); each is compiled on its own.

:func:`play_matches_kernel` (with the match and hand loops inlined), :func:`_run_hand` and
:func:`_begin_hand` are compiled without reference counts (``refcounts=False``,
:func:`simkit._jit.jit`): every array they touch belongs to their caller (the Table a thread plays
on, borrowed; the result rows; the shared hand tables), and they allocate none. Keep it so: no
array may be allocated in them, returned to them (a borrowed view excepted), or inlined into them
from a function that allocates. ``tests/test_jit.py`` checks that whole matches free every block
they allocate.

Compile time: every function a kernel calls without inlining is linked into it and optimised by
LLVM again with it, and numba copies the code of an ``inline="always"`` function at every call
site, nested ones included, and compiles it again there. So the hand loop (:func:`_hand_loop`) is
inlined at one call site of the match kernel (and into :func:`_run_hand`, for the kernels that need
it, which the match kernel does not call); its two large parts, :func:`_apply` (the rules of every
decision) and :func:`_advance` (the set-up of the next decision, the settling of the hand), are
functions of their own that LLVM inlines (``inline_in_llvm=True``: the same machine code as
``inline="always"``, but each compiled once, cached, and on a cold start compiled on two cores at
once: :func:`_apply` here, :func:`_advance` in the helper process with the settle function, the
hand kernels and greedy, :func:`simkit.engine.compiled.compile_ahead`); tiny helpers are inlined
where they are hot and left to LLVM where they are not (a kong replacement, a row copy), compiled
without numba's entry points (``internal=True``); and the parallel loop is Python threads over
blocks of matches rather than a ``prange`` (whose compilation cost as much again).
"""

import numpy as np

from simkit._jit import jit, stack_empty
from simkit.engine import actions as A
from simkit.engine import table as G
from simkit.engine.actions import uniform_legal_action
from simkit.engine.beliefs import sample_hidden, table_unseen
from simkit.engine.end_phase import end_phase_step, end_picker, joker_slots
from simkit.engine.luck import L_CLASS, record_draw, record_end_pick
from simkit.engine.observation import encode_observation_kernel, encode_state_kernel
from simkit.engine.rng import bounded, next_u64, stream_key
from simkit.hand.waits import waits_kernel
from simkit.hand.win import is_win_kernel

# <bind> -- replaced in every instance by simkit.engine.compiled
SETTLE = None
CACHE = False
SEARCHING = False
# </bind>

_SETTLE_PENDING = G.PENDING_SETTLE
_TURN_PENDING_DRAW = G.PENDING_TURN_DRAW
_TURN_PENDING_CLAIM = G.PENDING_TURN_CLAIM
_PASS_PENDING = G.PENDING_PASS


# ---------------------------------------------------------------------------------------------
# decision points


@jit(inline="always", cache=CACHE)
def _decision(sc, player, phase, tile):  # pragma: no cover - compiled
    """Stop at a decision: ``player`` chooses in ``phase`` about ``tile`` (T.legal is filled)."""
    sc[G.S_PLAYER] = player
    sc[G.S_PHASE] = phase
    sc[G.S_TILE] = tile


@jit(inline="always", cache=CACHE)
def _end(sc, winner, payer, win_type, win_tile):  # pragma: no cover - compiled
    """The hand ends (a win, an exhaustive draw, a fold, or an engine error): settled by _advance."""
    sc[G.S_WINNER] = winner
    sc[G.S_PAYER] = payer
    sc[G.S_WIN_TYPE] = win_type
    sc[G.S_WIN_TILE] = win_tile
    sc[G.S_PHASE] = _SETTLE_PENDING


@jit(inline="always", cache=CACHE)
def _next_turn(sc, p, claim, drawn, replacement):  # pragma: no cover - compiled
    """Player ``p`` is next on turn, after drawing ``drawn`` (``replacement``: from the tail) or
    after a claim: their decision is set up by :func:`_advance`."""
    sc[G.S_CURRENT] = p
    sc[G.S_PHASE] = _TURN_PENDING_CLAIM if claim else _TURN_PENDING_DRAW
    sc[G.S_TILE] = drawn
    sc[G.S_REPLACEMENT] = 1 if replacement else 0


@jit(inline="always", cache=CACHE)
def _to_turn(T, t, game, p, phase, drawn, replacement):  # pragma: no cover - compiled
    """Player ``p`` holds 14 - 3k tiles (after a draw, a replacement (``replacement``), the deal, or
    a claim in PHASE_PUNG): stop at their decision with its legal actions."""
    sc = T.sc
    sc[G.S_CURRENT] = p
    sc[G.S_REPLACEMENT] = 1 if replacement else 0
    if sc[G.S_CHECK] and not G._check(T, p, np.bool_(True)):
        _end(sc, -1, -1, G.WIN_DRAW, -1)
        return
    last = G._tiles_left(sc) <= 0
    if game.skipped_pung == 2 and phase == A.PHASE_DRAW:
        T.skip_pung[p] = 0  # 'turn': a skipped pung lasts until your next turn
    # A player's shanten drops by at most one per tile gained and never by a discard, so the
    # engine keeps a lower bound per player (exact when computed, lowered at each draw, reset by
    # any meld): while it is above 0 the hand cannot be ready, so no win check, no declaration
    # test; while it is 0 or more, the hand cannot be complete.
    sh = G._legal_after_draw(
        T.legal,
        T.hand[p],
        T.melds[p],
        T.n_melds[p],
        T.meld_counts[p],
        T.declared[p],
        T.skip_win[p],
        last,
        drawn,
        phase,
        sc[G.S_SHANTEN_LB + p],
        game.declare,
        T.swork,
        t,
    )
    if sh != G.SHANTEN_UNKNOWN:
        sc[G.S_SHANTEN_LB + p] = sh
    _decision(sc, p, phase, drawn)


@jit(inline="always", cache=CACHE)
def _replace(T, t, game, p):  # pragma: no cover - compiled
    """After a kong, ``p`` draws a replacement from the tail (an exhaustive draw if only the
    kept-back tiles remain)."""
    if G._tiles_left(T.sc) <= 0:
        _end(T.sc, -1, -1, G.WIN_DRAW, -1)
        return
    drawn = G._draw_replacement(T, p)
    _next_turn(T.sc, p, False, drawn, True)


@jit(cache=CACHE, internal=True)
def _complete_added_kong(T, p, x):  # pragma: no cover - compiled
    """``p``'s exposed pung of ``x`` becomes an added kong (its tile was not robbed)."""
    for m in range(T.n_melds[p]):
        if T.melds[p, m, 0] == 0 and T.melds[p, m, 1] == x:
            T.melds[p, m, 0] = 2
    T.meld_counts[p, x] += 1


# ---------------------------------------------------------------------------------------------
# the rules of each decision


@jit(inline="always", cache=CACHE)
def _after_bid(T, action):  # pragma: no cover - compiled
    """for_two: the banker bid; the opponent follows or folds."""
    sc = T.sc
    dealer = sc[G.S_DEALER]
    sc[G.S_BID] = 1 + action - A.BID
    G._log(sc, T.log, G.EV_BID, dealer, -1, sc[G.S_BID])
    for a in range(A.N_ACTIONS):
        T.legal[a] = False
    T.legal[A.FOLLOW] = True
    T.legal[A.FOLD] = True
    _decision(sc, 1 - dealer, A.PHASE_FOLLOW, -1)


@jit(cache=CACHE, internal=True)
def _take_dealt_tiles(T):  # pragma: no cover - compiled
    """for_two with the bid before the deal: the players take the tiles :func:`G._deal` set aside
    for them (the wall positions it dealt from: with stable walls seat 0's from the front up to
    ``S_FRONT`` and seat 1's from the back after ``S_BACK``, else the dealer's 14 from position 0
    and the opponent's 13 after them)."""
    sc = T.sc
    n = T.wall.shape[0]
    dealer = sc[G.S_DEALER]
    if sc[G.S_WALL] == G.WALL_SEAT_STABLE:
        for i in range(sc[G.S_FRONT]):
            T.hand[0, T.wall[i]] += 1
        for i in range(sc[G.S_BACK] + 1, n):
            T.hand[1, T.wall[i]] += 1
    else:
        for i in range(14):
            T.hand[dealer, T.wall[i]] += 1
        for i in range(14, sc[G.S_FRONT]):
            T.hand[1 - dealer, T.wall[i]] += 1


@jit(inline="always", cache=CACHE)
def _after_follow(T, game, action):  # pragma: no cover - compiled
    """for_two: the opponent follows (the dealer plays first; with the bid before the deal the
    players take their dealt tiles now) or folds (the hand is not played)."""
    sc = T.sc
    q = sc[G.S_PLAYER]
    if action == A.FOLLOW:
        G._log(sc, T.log, G.EV_FOLLOW, q, -1, sc[G.S_BID])
        if game.blind_bid:
            _take_dealt_tiles(T)
        _next_turn(sc, sc[G.S_DEALER], False, -1, False)
    else:
        G._log(sc, T.log, G.EV_FOLD, q, -1, sc[G.S_BID])
        _end(sc, -1, q, G.WIN_FOLD, -1)


@jit(inline="always", cache=CACHE)
def _after_turn(T, t, game, action):  # pragma: no cover - compiled
    """The player on turn (after a draw, or after a claim) wins, makes a kong, or discards (with a
    declaration)."""
    sc = T.sc
    hand, legal, log = T.hand, T.legal, T.log
    p = sc[G.S_PLAYER]
    q = 1 - p
    phase = sc[G.S_PHASE]
    drawn = sc[G.S_TILE]
    check = sc[G.S_CHECK] != 0
    if action == A.WIN:
        if check and T.skip_win[p] != 0:
            sc[G.S_ERROR] = G.ERR_SKIPPED_WIN
            _end(sc, -1, -1, G.WIN_DRAW, -1)
            return
        win_tile = drawn
        if win_tile < 0:  # heavenly: any tile of the hand
            for k in range(34):
                if hand[p, k] > 0:
                    win_tile = k
                    break
        sc[G.S_WIN_REPLACEMENT] = sc[G.S_REPLACEMENT]
        sc[G.S_WIN_LAST] = 1 if G._tiles_left(sc) <= 0 else 0
        G._log(sc, log, G.EV_WIN, p, win_tile, G.WIN_SELF)
        _end(sc, p, q, G.WIN_SELF, win_tile)
        return
    if legal[A.WIN] and phase == A.PHASE_DRAW and game.skipped_win:
        # declined a self-draw win: Skipped Win on the wait set of the hand before the draw
        if drawn >= 0:
            T.skip_win[p] |= G._waits_without(hand[p], T.n_melds[p], T.meld_counts[p], drawn, t)
        else:
            for k in range(34):
                if hand[p, k] > 0:
                    T.skip_win[p] |= G._waits_without(hand[p], T.n_melds[p], T.meld_counts[p], k, t)
        T.skips[p] += 1
        G._log(sc, log, G.EV_SKIP_WIN, p, drawn, T.skip_win[p])
    if action >= A.CONCEALED_KONG and action < A.ADDED_KONG + 34:
        x = action - A.CONCEALED_KONG if action < A.ADDED_KONG else action - A.ADDED_KONG
        G._play_tile(T.skip_win, p, x)
        T.acted[p] = 1
        sc[G.S_NO_CALL] = 0
        sc[G.S_SHANTEN_LB + p] = G.SHANTEN_UNKNOWN
        T.kongs[p] += 1
        if action < A.ADDED_KONG:
            hand[p, x] -= 4
            T.meld_counts[p, x] += 4
            G._add_meld(T.melds, T.n_melds, p, 3, x)
            G._log(sc, log, G.EV_CONCEALED_KONG, p, x, 0)
        else:
            G._log(sc, log, G.EV_ADDED_KONG, p, x, 0)
            hand[p, x] -= 1
            if game.robbing:
                # the opponent may rob the added tile
                G._legal_react(
                    legal,
                    hand[q],
                    T.meld_counts[q],
                    T.n_melds[q],
                    T.declared[q],
                    T.skip_win[q],
                    T.skip_pung[q],
                    G._tiles_left(sc) <= 0,
                    x,
                    True,
                    False,
                    sc[G.S_SHANTEN_LB + q],
                    t,
                )
                if legal[A.WIN]:
                    if check:
                        hand[p, x] += 1  # the tile is in flight: count it with its owner
                        ok = G._check(T, p, np.bool_(True))
                        hand[p, x] -= 1
                        if not ok:
                            _end(sc, -1, -1, G.WIN_DRAW, -1)
                            return
                    _decision(sc, q, A.PHASE_ROB, x)
                    return
            _complete_added_kong(T, p, x)
        _replace(T, t, game, p)
        return
    # a discard (possibly with a declaration)
    declaring = action >= A.DECLARE and action < A.DECLARE + 34
    x = action - A.DECLARE if declaring else action - A.DISCARD
    if declaring:
        migi = sc[G.S_DISCARDS] < 4 and sc[G.S_NO_CALL] == 1
        T.declared[p] = 2 if migi else 1
        sc[G.S_DECLARED_AT + p] = T.n_river[p]  # the declaring discard's place in the river
    hand[p, x] -= 1
    if declaring:
        for k in range(34):
            T.locked[p, k] = hand[p, k]
    G._play_tile(T.skip_win, p, x)
    T.acted[p] = 1
    n = T.n_river[p]
    T.river[p, n] = x
    T.claimed[p, n] = False
    T.n_river[p] = n + 1
    sc[G.S_DISCARDS] += 1
    G._log(sc, log, G.EV_DECLARE if declaring else G.EV_DISCARD, p, x, T.declared[p])
    sc[G.S_REPLACEMENT] = 0
    if check and not G._check(T, p, np.bool_(False)):
        _end(sc, -1, -1, G.WIN_DRAW, -1)
        return
    # the opponent reacts, if they can do anything but pass
    if G._legal_react(
        legal,
        hand[q],
        T.meld_counts[q],
        T.n_melds[q],
        T.declared[q],
        T.skip_win[q],
        T.skip_pung[q],
        G._tiles_left(sc) <= 0,
        x,
        False,
        game.claim_chow,
        sc[G.S_SHANTEN_LB + q],
        t,
    ):
        _decision(sc, q, A.PHASE_REACT, x)
    else:
        _decision(sc, q, _PASS_PENDING, x)


@jit(inline="always", cache=CACHE)
def _after_react(T, t, game, q, x, reply):  # pragma: no cover - compiled
    """Player ``q`` wins on, claims or passes the opponent's discard ``x`` (``T.legal``: what they
    could do; only PASS when they were not asked)."""
    sc = T.sc
    hand, legal, log = T.hand, T.legal, T.log
    p = 1 - q
    if reply == A.WIN:
        if sc[G.S_CHECK] and T.skip_win[q] != 0:
            sc[G.S_ERROR] = G.ERR_SKIPPED_WIN
            _end(sc, -1, -1, G.WIN_DRAW, -1)
            return
        hand[q, x] += 1
        T.claimed[p, T.n_river[p] - 1] = True
        sc[G.S_WIN_LAST_DISCARD] = 1 if G._tiles_left(sc) <= 0 else 0
        G._log(sc, log, G.EV_WIN, q, x, G.WIN_DISCARD)
        _end(sc, q, p, G.WIN_DISCARD, x)
        return
    if legal[A.WIN] and game.skipped_win:
        # declined (passed, or claimed instead of winning)
        T.skip_win[q] |= waits_kernel(hand[q], T.n_melds[q], T.meld_counts[q], t)
        T.skips[q] += 1
        G._log(sc, log, G.EV_SKIP_WIN, q, x, T.skip_win[q])
    if reply == A.PASS:
        if legal[A.PUNG] and game.skipped_pung != 0:
            T.skip_pung[q] |= G._bit(x)
            G._log(sc, log, G.EV_SKIP_PUNG, q, x, 0)
        # the opponent draws, unless only the kept-back tiles remain (then for_two's end phase,
        # played by _advance: simkit.engine.end_phase; or a draw)
        if G._tiles_left(sc) <= 0:
            if game.end_phase:
                sc[G.S_CURRENT] = q
                sc[G.S_PHASE] = G.PENDING_END_PHASE
            else:
                _end(sc, -1, -1, G.WIN_DRAW, -1)
            return
        drawn = G._draw(T, q)
        hand[q, drawn] += 1
        sc[G.S_SHANTEN_LB + q] -= 1
        G._log(sc, log, G.EV_DRAW, q, drawn, 0)
        _next_turn(sc, q, False, drawn, False)
        return
    T.claimed[p, T.n_river[p] - 1] = True
    sc[G.S_NO_CALL] = 0
    sc[G.S_SHANTEN_LB + q] = G.SHANTEN_UNKNOWN
    if reply == A.PUNG:
        hand[q, x] -= 2
        T.meld_counts[q, x] += 3
        G._add_meld(T.melds, T.n_melds, q, 0, x)
        G._log(sc, log, G.EV_PUNG, q, x, 0)
        _next_turn(sc, q, True, -1, False)
    elif reply == A.KONG:
        hand[q, x] -= 3
        T.meld_counts[q, x] += 4
        G._add_meld(T.melds, T.n_melds, q, 1, x)
        G._log(sc, log, G.EV_KONG, q, x, 0)
        T.kongs[q] += 1
        T.acted[q] = 1
        _replace(T, t, game, q)
    else:
        # a chow: the discard is the (reply - CHOW)-th tile of the run
        j = reply - A.CHOW
        s = x - j
        for d in range(3):
            if d != j:
                hand[q, s + d] -= 1
            T.meld_counts[q, s + d] += 1
        G._add_meld(T.melds, T.n_melds, q, 4, s)
        G._log(sc, log, G.EV_CHOW, q, s, x)
        _next_turn(sc, q, True, -1, False)


@jit(inline="always", cache=CACHE)
def _after_rob(T, t, game, reply):  # pragma: no cover - compiled
    """Player ``q`` robs the opponent's added kong (a win) or lets it stand."""
    sc = T.sc
    q = sc[G.S_PLAYER]
    p = 1 - q
    x = sc[G.S_TILE]
    if reply == A.WIN:
        if sc[G.S_CHECK] and T.skip_win[q] != 0:
            sc[G.S_ERROR] = G.ERR_SKIPPED_WIN
            _end(sc, -1, -1, G.WIN_DRAW, -1)
            return
        T.hand[q, x] += 1
        T.kongs[p] -= 1  # the kong is undone: the pung stays
        G._log(sc, T.log, G.EV_WIN, q, x, G.WIN_ROBBED)
        _end(sc, q, p, G.WIN_ROBBED, x)
        return
    if game.skipped_win:
        T.skip_win[q] |= waits_kernel(T.hand[q], T.n_melds[q], T.meld_counts[q], t)
        T.skips[q] += 1
        G._log(sc, T.log, G.EV_SKIP_WIN, q, x, T.skip_win[q])
    _complete_added_kong(T, p, x)
    _replace(T, t, game, p)


# ---------------------------------------------------------------------------------------------
# the step function


@jit(inline="always", cache=CACHE)
def _complete_win(T, t):  # pragma: no cover - compiled
    """Whether the deciding player's WIN is a complete hand (the engine's own check, besides its mask)."""
    sc = T.sc
    p = sc[G.S_PLAYER]
    phase = sc[G.S_PHASE]
    hand = T.hand[p]
    if phase == A.PHASE_DRAW:
        return is_win_kernel(hand, T.n_melds[p], t)
    if phase == A.PHASE_REACT or phase == A.PHASE_ROB:
        x = sc[G.S_TILE]
        hand[x] += 1
        ok = is_win_kernel(hand, T.n_melds[p], t)
        hand[x] -= 1
        return ok
    return False


@jit(inline="always", cache=CACHE)
def _settle_hand(T, t, game, sp):  # pragma: no cover - compiled
    """Score and pay the ended hand and fill its result row (``T.row`` ...); phase PHASE_OVER."""
    sc = T.sc
    sc[G.S_PHASE] = A.PHASE_OVER
    if sc[G.S_ERROR]:
        return
    winner = sc[G.S_WINNER]
    payer = sc[G.S_PAYER]
    win_type = sc[G.S_WIN_TYPE]
    if winner < 0 and win_type == G.WIN_DRAW:
        G._log(sc, T.log, G.EV_DRAW_GAME, -1, -1, G._tiles_left(sc))
    money = T.money
    for i in range(G.N_MONEY):
        money[i] = 0.0
    out = T.row
    SETTLE(
        T,
        winner,
        win_type,
        sc[G.S_WIN_TILE],
        sc[G.S_WIN_REPLACEMENT] != 0,
        sc[G.S_WIN_LAST] != 0,
        sc[G.S_WIN_LAST_DISCARD] != 0,
        t,
        sp,
        out,
        T.row_floats,
    )
    receiver = winner if winner >= 0 else (sc[G.S_DEALER] if win_type == G.WIN_FOLD else -1)
    G._pay(money, T.purse, sc, receiver, payer, game, sc[G.S_CHECK] != 0, T.row_floats)
    out[G.R_WINNER] = winner
    out[G.R_PAYER] = payer
    out[G.R_WIN_TYPE] = win_type
    out[G.R_WIN_TILE] = sc[G.S_WIN_TILE]
    out[G.R_TURNS] = sc[G.S_TURNS]
    out[G.R_TILES_LEFT] = G._tiles_left(sc)
    out[G.R_KONGS0] = T.kongs[0]
    out[G.R_KONGS1] = T.kongs[1]
    out[G.R_DECLARED0] = T.declared[0]
    out[G.R_DECLARED1] = T.declared[1]
    out[G.R_SKIPS0] = T.skips[0]
    out[G.R_SKIPS1] = T.skips[1]
    out[G.R_BID] = sc[G.S_BID]
    out[G.R_DEALER] = sc[G.S_DEALER]
    out[G.R_STREAK] = sc[G.S_STREAK]
    out[G.R_PREVAILING] = sc[G.S_PREVAILING]
    out[G.R_SEAT0] = T.seat[0]
    out[G.R_FIRST_DEALER_OF_ROUND] = sc[G.S_DEALERSHIPS] % 2
    out[G.R_MATCH] = np.int64(T.ids[1])
    out[G.R_HAND] = sc[G.S_HAND_NUMBER]
    for k in range(34):
        T.row_hand[k] = T.hand[winner, k] if winner >= 0 else 0
    for m in range(4):
        used = winner >= 0 and m < T.n_melds[winner]
        T.row_melds[m, 0] = T.melds[winner, m, 0] if used else -1
        T.row_melds[m, 1] = T.melds[winner, m, 1] if used else -1
    if winner < 0:
        for i in range(T.items.shape[0]):
            T.items[i] = 0


@jit(cache=CACHE, internal=True, refcounts=False, inline_in_llvm=True)
def _apply(T, t, game, action):  # pragma: no cover - compiled
    """Apply the deciding player's ``action`` (the rule of the decision's kind); what follows up to
    the next decision is left pending for :func:`_advance`. An action outside the engine's own
    ``T.legal``, or a win with an incomplete hand, stops the hand with ERR_ILLEGAL_ACTION /
    ERR_FALSE_WIN (the state keeps the decision, for the message)."""
    sc = T.sc
    sc[G.S_TURNS] += 1
    if action < 0 or action >= A.N_ACTIONS or not T.legal[action]:
        sc[G.S_ERROR] = G.ERR_ILLEGAL_ACTION
        sc[G.S_ERROR_INFO] = action
        sc[G.S_ERROR_PHASE] = sc[G.S_PHASE]
        return
    if action == A.WIN and not _complete_win(T, t):
        sc[G.S_ERROR] = G.ERR_FALSE_WIN
        sc[G.S_ERROR_INFO] = action
        sc[G.S_ERROR_PHASE] = sc[G.S_PHASE]
        return
    phase = sc[G.S_PHASE]
    if phase == A.PHASE_DRAW or phase == A.PHASE_PUNG:
        _after_turn(T, t, game, action)
    elif phase == A.PHASE_ROB:
        _after_rob(T, t, game, action)
    elif phase == A.PHASE_BID:
        _after_bid(T, action)
    elif phase == A.PHASE_FOLLOW:
        _after_follow(T, game, action)
    if phase == A.PHASE_REACT or sc[G.S_PHASE] == _PASS_PENDING:
        _after_react(T, t, game, sc[G.S_PLAYER], sc[G.S_TILE], action if phase == A.PHASE_REACT else A.PASS)


@jit(cache=CACHE, internal=True, refcounts=False, inline_in_llvm=True)
def _advance(T, t, game, sp):  # pragma: no cover - compiled
    """Resolve what an action (or the deal) left pending: set up the next player's turn, play
    for_two's end phase, or settle the ended hand. After it the state stands at a decision, or is over."""
    sc = T.sc
    phase = sc[G.S_PHASE]
    if phase == G.PENDING_END_PHASE:
        while end_phase_step(T, t, game) >= 0:
            pass
    if phase == _TURN_PENDING_DRAW or phase == _TURN_PENDING_CLAIM:
        claim = phase == _TURN_PENDING_CLAIM
        _to_turn(
            T,
            t,
            game,
            sc[G.S_CURRENT],
            A.PHASE_PUNG if claim else A.PHASE_DRAW,
            sc[G.S_TILE],
            sc[G.S_REPLACEMENT] != 0,
        )
    if sc[G.S_PHASE] == _SETTLE_PENDING:
        _settle_hand(T, t, game, sp)


@jit(inline="always", cache=CACHE)
def _step(T, t, game, sp, action):  # pragma: no cover - compiled
    """The step function: apply ``action`` and advance to the next decision or the hand's end
    (an engine error ends it at once, unsettled)."""
    _apply(T, t, game, action)
    if T.sc[G.S_ERROR]:
        T.sc[G.S_PHASE] = A.PHASE_OVER
        return
    _advance(T, t, game, sp)


@jit(cache=CACHE, internal=True, refcounts=False)
def _begin_hand(T, t, game):  # pragma: no cover - compiled
    """Deal the wall in ``T.wall`` (seats, dealer, streak and prevailing wind already set); the
    first decision (the banker's bid in for_two, else the dealer's turn on 14 tiles) is then set
    up by :func:`_advance`. With for_two's bid before the deal (``game.blind_bid``) the players'
    hands stay empty through the bid and the follow."""
    sc = T.sc
    sc[G.S_KEPT_BACK] = game.kept_back
    sc[G.S_SHANTEN_LB] = G.SHANTEN_UNKNOWN
    sc[G.S_SHANTEN_LB + 1] = G.SHANTEN_UNKNOWN
    sc[G.S_ERROR] = 0
    sc[G.S_ERROR_INFO] = 0
    for i in range(G.S_WINNER, G.S_WIN_LAST_DISCARD + 1):
        sc[i] = 0
    sc[G.S_WINNER] = -1
    sc[G.S_PAYER] = -1
    sc[G.S_WIN_TILE] = -1
    for i in range(T.row.shape[0]):
        T.row[i] = 0
    for i in range(T.row_floats.shape[0]):
        T.row_floats[i] = 0.0
    dealer = sc[G.S_DEALER]
    G._deal(T, dealer)
    # for_two's end-phase jokers, from the wall's stream (simkit.engine.end_phase)
    sc[G.S_END_JOKERS] = joker_slots(T.rng[0:1], game.kept_back, game.end_jokers) if game.end_phase else 0
    if not game.bidding:
        _next_turn(sc, dealer, False, -1, False)
        return
    sc[G.S_CURRENT] = dealer
    if game.blind_bid:
        # for_two, the bid before the deal: the dealt tiles stay set aside until the follow
        # (_take_dealt_tiles); the invariants are checked at the dealer's first turn
        for q in range(2):
            for k in range(34):
                T.hand[q, k] = 0
    elif sc[G.S_CHECK] and not G._check(T, dealer, np.bool_(True)):
        _end(sc, -1, -1, G.WIN_DRAW, -1)
        return
    for a in range(A.N_ACTIONS):
        T.legal[a] = False
    for b in range(3):
        T.legal[A.BID + b] = True
    _decision(sc, dealer, A.PHASE_BID, -1)


# ---------------------------------------------------------------------------------------------
# matches: the dealer, the streak, the rounds


@jit(inline="always", cache=CACHE)
def _begin_match(T, game, seed, m):  # pragma: no cover - compiled
    """Start match ``m`` of ``seed``: the first dealer from its own stream, balances at zero."""
    sc = T.sc
    T.ids[0] = seed
    T.ids[1] = m
    sc[G.S_WALL] = game.wall
    T.rng[0] = stream_key(seed, m, np.int64(G.FIRST_DEALER_STREAM))
    sc[G.S_DEALER] = bounded(T.rng[0:1], 2)
    sc[G.S_STREAK] = 0
    sc[G.S_DEALERSHIPS] = 0
    sc[G.S_HAND_NUMBER] = 0
    sc[G.S_MATCH_OVER] = 0
    G._begin_purse(T.purse, sc, game)
    if game.match_hands <= 0:
        sc[G.S_MATCH_OVER] = 1


@jit(inline="always", cache=CACHE)
def _deal_match_hand(T, template, t, game, log_hand):  # pragma: no cover - compiled
    """Shuffle, roll and deal the match's next hand (number ``sc[S_HAND_NUMBER]``) from its streams
    ``(seed, m, 4h)`` (wall, dice) and ``(seed, m, 4h + 1 + p)`` (player ``p``'s policy); record its
    events when its number is ``log_hand``."""
    sc = T.sc
    seed = T.ids[0]
    m = np.int64(T.ids[1])
    h = sc[G.S_HAND_NUMBER]
    sc[G.S_PREVAILING] = G._EAST + (sc[G.S_DEALERSHIPS] // 2 if game.rounds else 0)
    T.rng[0] = stream_key(seed, m, 4 * h)
    T.rng[1] = stream_key(seed, m, 4 * h + 1)
    T.rng[2] = stream_key(seed, m, 4 * h + 2)
    G._shuffle_and_roll(T, template, sc[G.S_DEALER])
    sc[G.S_LOGGING] = 1 if h == log_hand else 0
    _begin_hand(T, t, game)


@jit(inline="always", cache=CACHE)
def _next_hand_of_match(T, game):  # pragma: no cover - compiled
    """After a settled hand: pass or keep the deal; whether the match goes on (else S_MATCH_OVER)."""
    sc = T.sc
    dealer = sc[G.S_DEALER]
    winner = sc[G.S_WINNER]
    h = sc[G.S_HAND_NUMBER] + 1
    sc[G.S_HAND_NUMBER] = h
    if game.money_unit != 0 and (sc[G.S_CHIPS0] <= 0 or sc[G.S_CHIPS1] <= 0):
        sc[G.S_MATCH_OVER] = 1  # duel: a player has no chips left (counted exactly, in money units)
        return False
    keeps = winner == dealer or winner < 0  # a dealer win, a draw, a fold ...
    if game.fold_passes_deal and sc[G.S_WIN_TYPE] == G.WIN_FOLD:
        keeps = False  # ... but for_two's fold_passes_deal: a fold is no banker win, the deal passes
    if keeps and sc[G.S_STREAK] < game.streak_cap:
        sc[G.S_STREAK] += 1
    else:
        sc[G.S_DEALER] = 1 - dealer
        sc[G.S_STREAK] = 0
        sc[G.S_DEALERSHIPS] += 1
    if h >= game.match_hands or (game.dealer_turns != 0 and sc[G.S_DEALERSHIPS] >= game.dealer_turns):
        sc[G.S_MATCH_OVER] = 1
        return False
    return True


# ---------------------------------------------------------------------------------------------
# policies and loops


#: shape of the scratch copy of both players' discards a policy's view is made of (:func:`_ask`; a
#: global, so that numba sees its dimensions as constants)
_VIEW_RIVERS = (2, G.MAX_RIVER)


@jit(inline="always", cache=CACHE)
def _ask(T, t, game, sp, kinds, fn0, fn1, params0, params1, search):  # pragma: no cover - compiled
    """The deciding player's action: a ``search`` player's from ``search`` (:func:`_ask_search`),
    any other's from :func:`_ask_policy`. Only the instances made for runs with a search
    (``SEARCHING``, :func:`simkit.engine.compiled.engine_of`) hold the search branch: its call,
    which passes the whole Table, cost random play a quarter of its speed where it sat unused."""
    if SEARCHING:
        if kinds[T.sc[G.S_PLAYER]] == G.POLICY_SEARCH:
            return _ask_search(T, t, game, sp, fn0, fn1, params0, params1, search)
    return _ask_policy(T, t, kinds, fn0, fn1, params0, params1)


@jit(cache=CACHE, internal=True)
def _ask_search(T, t, game, sp, fn0, fn1, params0, params1, search):  # pragma: no cover - compiled
    """A search player's action from ``search`` (:func:`_search_action`, called through its pointer
    so that its compile is its own, as a policy's; given ``fn0`` / ``fn1``, the continuation). Not
    inlined: the call passes the whole Table, code the hand loop should not carry."""
    p = T.sc[G.S_PLAYER]
    if p == 0:
        return search(T, t, game, sp, fn0, params0, T.rng[1:2])
    return search(T, t, game, sp, fn1, params1, T.rng[2:3])


@jit(inline="always", cache=CACHE)
def _ask_policy(T, t, kinds, fn0, fn1, params0, params1):  # pragma: no cover - compiled
    """The deciding player's action from a policy that does not search. A policy called through its pointer is given a copy of the
    legal mask and a view of copies of the Table's arrays (:func:`~simkit.engine.table.copy_for_view`);
    the built-in ones, which only read them, the engine's own (the action is checked against the
    engine's mask either way). Random's choice
    (:func:`~simkit.engine.actions.uniform_legal_action`) is inlined here, before any view is
    built; greedy is called through its pointer (``fn0`` / ``fn1``): its compile is its own, not
    part of the engine's. A policy called through its pointer gets its user
    counters (``view.counters``) zeroed first, whether decisions are logged or not, so it sees the
    same view either way; the built-in ones never write theirs, which stay zero (no stores on the
    hot path of random-vs-random play)."""
    sc = T.sc
    p = sc[G.S_PLAYER]
    rng = T.rng[1 + p : 2 + p]
    kind = kinds[p]
    if kind == G.POLICY_RANDOM:
        return uniform_legal_action(T.legal, rng)  # random_policy's choice, inlined: no view, no call
    params = params0 if p == 0 else params1
    if kind == G.POLICY_GREEDY:  # through its pointer, with the engine's arrays and mask (it only reads them)
        view = G._view(
            T.hand,
            T.melds,
            T.n_melds,
            T.river,
            T.n_river,
            T.declared,
            T.seat,
            T.skip_win,
            sc,
            p,
            sc[G.S_PHASE],
            sc[G.S_TILE],
            t,
            T.counters,
            T.claimed,
            T.purse,
        )
        if p == 0:
            return fn0(view, T.legal, params, rng)
        return fn1(view, T.legal, params, rng)
    # any other policy sees copies, in this frame's scratch (G.copy_for_view): what it writes into its
    # view never reaches the game
    hand = stack_empty((2, 34), np.uint8)
    melds = stack_empty((2, 4, 2), np.int8)
    river = stack_empty(_VIEW_RIVERS, np.int8)
    claimed = stack_empty(_VIEW_RIVERS, np.bool_)
    G.copy_for_view(T, p, hand, melds, river, claimed)
    view = G._view(
        hand,
        melds,
        T.n_melds,
        river,
        T.n_river,
        T.declared,
        T.seat,
        T.skip_win,
        sc,
        p,
        sc[G.S_PHASE],
        sc[G.S_TILE],
        t,
        T.counters,
        claimed,
        T.purse,
    )
    pl = T.policy_legal
    for a in range(A.N_ACTIONS):
        pl[a] = T.legal[a]
    for i in range(G.N_COUNTERS):
        T.counters[p, i] = 0.0
    if p == 0:
        return fn0(view, pl, params, rng)
    return fn1(view, pl, params, rng)


@jit(inline="always", cache=CACHE)
def _log_decision(T, t, action):  # pragma: no cover - compiled
    """Log the decision ``T`` stands at and ``action`` in the Table's decision log (row
    ``sc[S_N_DECISIONS]``, :func:`~simkit.engine.table.record_decision`), the decider's user
    counters when a policy may write them (the log has room for them) and, in a run with
    observations, the decider's observed facts (:func:`~simkit.engine.table.record_observed`).
    ``sc[S_N_DECISIONS]`` counts on past the capacity (rows beyond it are not written), so that the
    caller can play the block again with room for all of them."""
    sc = T.sc
    n = sc[G.S_N_DECISIONS]
    sc[G.S_N_DECISIONS] = n + 1
    if n < T.decisions.shape[0]:
        G.record_decision(sc, T.hand, T.n_melds, T.legal, T.decision_memo, T.decisions[n], t, action)
        if n < T.decision_counters.shape[0]:
            G.record_counters(sc, T.counters, T.decision_counters[n])
        if n < T.observed.shape[0]:
            G.record_observed(
                sc,
                T.hand,
                T.melds,
                T.n_melds,
                T.n_river,
                T.declared,
                T.seat,
                T.skip_win,
                T.legal,
                T.purse,
                T.observed[n],
            )


@jit(inline="always", cache=CACHE)
def _hand_loop(T, t, game, sp, kinds, fn0, fn1, params0, params1, search):  # pragma: no cover - compiled
    """Play the hand in ``T`` from its current decision (or a pending one) to its end with the
    players' policies (logging each decision when ``sc[S_DECISIONS]`` is 1). Inlined once into the
    match kernel (so that LLVM optimises and generates it once there) and into :func:`_run_hand`."""
    sc = T.sc
    while True:
        _advance(T, t, game, sp)
        if sc[G.S_PHASE] == A.PHASE_OVER:
            return
        action = _ask(T, t, game, sp, kinds, fn0, fn1, params0, params1, search)
        if sc[G.S_DECISIONS]:
            _log_decision(T, t, action)
        _apply(T, t, game, action)
        if sc[G.S_ERROR]:
            sc[G.S_PHASE] = A.PHASE_OVER
            return


@jit(cache=CACHE, internal=True, refcounts=False)
def _run_hand(T, t, game, sp, kinds, fn0, fn1, params0, params1, search):  # pragma: no cover - compiled
    """:func:`_hand_loop` as a function of its own, for the kernels that play hands one at a time
    from copies of a state (rollouts, the vector environment)."""
    _hand_loop(T, t, game, sp, kinds, fn0, fn1, params0, params1, search)


@jit(inline="always", cache=CACHE)
def _playout_loop(T, t, game, sp, kinds, fn0, fn1, params0, params1):  # pragma: no cover - compiled
    """:func:`_hand_loop` for a search's playouts: no decision log, and no player searches (a
    search's continuation is a policy that does not search: :func:`_ask_policy`)."""
    sc = T.sc
    while True:
        _advance(T, t, game, sp)
        if sc[G.S_PHASE] == A.PHASE_OVER:
            return
        action = _ask_policy(T, t, kinds, fn0, fn1, params0, params1)
        _apply(T, t, game, action)
        if sc[G.S_ERROR]:
            sc[G.S_PHASE] = A.PHASE_OVER
            return


@jit(cache=CACHE, internal=True, refcounts=False)
def _play_out(T, t, game, sp, kinds, fn0, fn1, params0, params1):  # pragma: no cover - compiled
    """:func:`_playout_loop` as a function of its own (one copy of it, called by the search)."""
    _playout_loop(T, t, game, sp, kinds, fn0, fn1, params0, params1)


@jit(cache=CACHE)
def _no_search(T, t, game, sp, fn, params, rng):  # pragma: no cover - compiled
    """The ``search`` argument of the kernels when no player searches (never called)."""
    return -1


@jit(cache=CACHE)
def _search_action(T, t, game, sp, fn, params, rng):  # pragma: no cover - compiled
    """The action of a ``search`` player (:mod:`simkit.policies.search`) at the decision ``T`` stands
    at: determinized Monte Carlo search, anchored on its continuation's choice.

    ``params`` holds the search's settings (``G.SEARCH_*``) and then its continuation's vector;
    ``fn`` is the continuation (of kind ``params[G.SEARCH_CONTINUATION]``). A forced decision (one
    legal action) and, with ``always_win``, a win are taken at once. Otherwise the continuation's
    own choice is the **default**, and the candidates are every legal action (with
    ``keep_shanten``, discards that raise the hand's shanten are left out, unless the default is
    one). One draw of the player's stream ``rng`` keys the decision: world ``w`` completes what the
    player cannot see (:func:`simkit.engine.beliefs.sample_hidden` from the stream ``(key, w,
    0)``), and every candidate still in the race is played from it to the end of the hand -- the
    candidate, then the continuation for both players with the streams ``(key, w, 1 + p)``:
    common random numbers, so candidates are compared pair by pair. From ``min_worlds`` worlds on,
    a candidate (other than the default) whose mean difference to the leader is below zero by
    more than ``z`` standard errors drops out; the search ends when the leader stands ``z``
    standard errors above every other candidate left, or after ``worlds`` worlds. It plays the
    leader if it beats the default by more than ``z`` standard errors, else the default: noise
    alone never moves it off its continuation's choice. Not inlined, with
    reference counts: it allocates its own scratch (a Table to play out on)."""
    sc = T.sc
    p = sc[G.S_PLAYER]
    q = 1 - p
    ckind = np.int64(params[G.SEARCH_CONTINUATION])
    cparams = params[G.N_SEARCH_PARAMS :]
    ckinds = np.empty(2, np.int64)
    ckinds[0] = ckind
    ckinds[1] = ckind
    n_legal = 0
    for a in range(A.N_ACTIONS):
        n_legal += T.legal[a]
    if n_legal == 1 or (params[G.SEARCH_ALWAYS_WIN] != 0 and T.legal[A.WIN]):
        return _ask_policy(T, t, ckinds, fn, fn, cparams, cparams) if n_legal > 1 else _first_legal(T.legal)
    default = _ask_policy(T, t, ckinds, fn, fn, cparams, cparams)
    for i in range(G.N_COUNTERS):
        T.counters[p, i] = 0.0
    if default < 0 or default >= A.N_ACTIONS or not T.legal[default]:
        return default  # the engine reports the continuation's illegal action
    key = next_u64(rng)
    unseen = np.zeros(34, np.int64)
    n_unseen = table_unseen(T, p, t.kinds, unseen)
    n_opp = 0
    for k in range(34):
        n_opp += T.hand[q, k]
    front = sc[G.S_FRONT]
    if n_unseen - n_opp != sc[G.S_BACK] - front + 1:  # no wall to complete (before the deal)
        return default
    # the candidates: the default first
    cands = np.empty(A.N_ACTIONS, np.int64)
    cands[0] = default
    n_cand = 1
    keep = params[G.SEARCH_KEEP_SHANTEN] != 0
    base = -1
    hand = T.tmp
    if keep:
        for k in range(34):
            hand[k] = T.hand[p, k]
        base = G.shanten_kernel(hand, T.n_melds[p], t, T.swork)
    for a in range(A.N_ACTIONS):
        if not T.legal[a] or a == default:
            continue
        if keep and A.DISCARD <= a < A.DISCARD + 34:
            hand[a - A.DISCARD] -= 1
            raises = G.shanten_kernel(hand, T.n_melds[p], t, T.swork) > base
            hand[a - A.DISCARD] += 1
            if raises:
                continue
        cands[n_cand] = a
        n_cand += 1
    if n_cand == 1:
        return default
    worlds = max(1, np.int64(params[G.SEARCH_WORLDS]))
    min_worlds = max(2, np.int64(params[G.SEARCH_MIN_WORLDS]))
    z = params[G.SEARCH_Z]
    W = G.copied_table(T)
    tiles = np.empty(max(1, n_unseen), np.int8)
    opp = np.zeros(34, np.uint8)
    state = np.zeros(1, np.uint64)
    values = np.zeros((worlds, n_cand), np.float64)
    # conditioning on the opponent's last discard: their hand then was their hand now and that tile
    phase = sc[G.S_PHASE]
    last = T.n_river[q] - 1
    condition = (
        params[G.SEARCH_LAST_DISCARD] != 0
        and ckind != G.POLICY_RANDOM
        and T.declared[q] == 0
        and last >= 0
        and (phase == A.PHASE_DRAW or phase == A.PHASE_PUNG or phase == A.PHASE_REACT)
    )
    then_hand = np.zeros(34, np.uint8)
    then_melds = T.melds[q].copy()
    then_river = T.river[q].copy()
    then_claimed = T.claimed[q].copy()
    my_melds = T.melds[p].copy()
    my_river = T.river[p].copy()
    my_claimed = T.claimed[p].copy()
    then_legal = np.zeros(A.N_ACTIONS, np.bool_)
    then_counters = np.zeros(G.N_COUNTERS, np.float64)
    then_rng = np.zeros(1, np.uint64)
    if condition:
        then_claimed[last] = False
    my_n_melds = T.n_melds[p] - (1 if phase == A.PHASE_PUNG else 0)  # the meld made of it, not yet then
    then_tiles_left = G._tiles_left(sc) + (1 if phase == A.PHASE_DRAW else 0)
    rejected = 0
    alive = np.ones(n_cand, np.bool_)
    n_alive = n_cand
    done = 0
    lead = 0
    for w in range(worlds):
        state[0] = stream_key(key, w, 0)
        if sample_hidden(unseen, n_opp, T.n_melds[q], T.declared[q] != 0, t, state, tiles, opp, W.swork) < 0:
            break  # no world leaves a declared opponent ready: judge on the worlds drawn so far
        if condition:
            d = T.river[q, last]
            for attempt in range(LAST_DISCARD_TRIES):
                for k in range(34):
                    then_hand[k] = opp[k]
                    then_legal[A.DISCARD + k] = False
                then_hand[d] += 1
                for k in range(34):
                    if then_hand[k]:
                        then_legal[A.DISCARD + k] = True
                view = A.View(
                    np.int64(A.PHASE_DRAW),
                    np.int64(-1),
                    then_hand,
                    then_melds,
                    T.n_melds[q],
                    my_melds,
                    np.int64(my_n_melds),
                    then_river,
                    np.int64(last),
                    my_river,
                    T.n_river[p],
                    T.declared[q],
                    T.declared[p],
                    np.int64(then_tiles_left),
                    T.seat[q],
                    sc[G.S_PREVAILING],
                    sc[G.S_DEALER] == q,
                    sc[G.S_STREAK],
                    np.int64(0),
                    t,
                    sc[G.S_BID],
                    then_counters,
                    sc[G.S_DECLARED_AT + q],
                    sc[G.S_DECLARED_AT + p],
                    then_claimed,
                    my_claimed,
                    T.purse[G.P_BALANCE0 + q],
                    T.purse[G.P_BALANCE0 + p],
                )
                if fn(view, then_legal, cparams, then_rng) == A.DISCARD + d:
                    break
                rejected += 1
                if attempt + 1 < LAST_DISCARD_TRIES:
                    sample_hidden(unseen, n_opp, T.n_melds[q], False, t, state, tiles, opp, W.swork)
        # the end phase's jokers are hidden too: placed anew in every world, the same for every candidate
        jokers = joker_slots(state, game.kept_back, game.end_jokers) if game.end_phase else 0
        for c in range(n_cand):
            if not alive[c]:
                continue
            _copy_state(T, W)
            ws = W.sc
            ws[G.S_END_JOKERS] = jokers
            for k in range(34):
                W.hand[q, k] = opp[k]
                W.locked[q, k] = opp[k]
            for k in range(n_opp, n_unseen):
                W.wall[front + k - n_opp] = tiles[k]
            W.skip_win[q] = 0  # what the opponent passed up is theirs to know
            W.skip_pung[q] = 0
            ws[G.S_LOGGING] = 0
            ws[G.S_DECISIONS] = 0
            ws[G.S_SHANTEN_LB + q] = G.SHANTEN_UNKNOWN
            W.rng[1] = stream_key(key, w, 1)
            W.rng[2] = stream_key(key, w, 2)
            _apply(W, t, game, cands[c])
            if not ws[G.S_ERROR]:
                _play_out(W, t, game, sp, ckinds, fn, fn, cparams, cparams)
            if ws[G.S_ERROR]:
                values[w, c] = -1e300  # an action the engine refuses is never chosen
            else:
                values[w, c] = W.row_floats[G.F_SCORE0 + p] - W.row_floats[G.F_FEE0 + p]
        done = w + 1
        if done < min_worlds:
            continue
        lead = _search_leader(values, done, alive)
        for c in range(1, n_cand):
            if alive[c] and c != lead and _separated(values, done, lead, c, z):
                alive[c] = False
                n_alive -= 1
        if n_alive == 1 or (n_alive == 2 and lead != 0 and _separated(values, done, lead, 0, z)):
            break
    T.counters[p, 0] = done  # worlds searched, candidates left, worlds redrawn: for the decision log
    T.counters[p, 1] = n_alive
    T.counters[p, 2] = rejected
    if done < 2 or lead == 0 or not _separated(values, done, lead, 0, z):
        return default
    return cands[lead]


#: Draws a search makes for one world before it keeps one the opponent's last discard does not
#: agree with (the last drawn).
LAST_DISCARD_TRIES = 64


@jit(cache=CACHE, internal=True)
def _search_leader(values, done, alive):  # pragma: no cover - compiled
    """The candidate still in the race with the best mean over the first ``done`` worlds (the
    default, candidate 0, on a tie)."""
    lead = -1
    lead_mean = 0.0
    for c in range(values.shape[1]):
        if alive[c]:
            m = values[:done, c].mean()
            if lead < 0 or m > lead_mean:
                lead, lead_mean = c, m
    return lead


@jit(cache=CACHE, internal=True)
def _separated(values, done, a, b, z):  # pragma: no cover - compiled
    """Whether candidate ``a`` beats ``b`` over the first ``done`` worlds by more than ``z``
    standard errors of their paired differences."""
    d = values[:done, a] - values[:done, b]
    m = d.mean()
    var = max(0.0, (d * d).mean() - m * m) * done / (done - 1)
    return m - z * np.sqrt(var / done) > 0.0


@jit(inline="always", cache=CACHE)
def _first_legal(legal):  # pragma: no cover - compiled
    for a in range(A.N_ACTIONS):
        if legal[a]:
            return a
    return -1


@jit(cache=CACHE, internal=True)
def _copy_row(T, row, items_row, floats_row, hand_row, melds_row):  # pragma: no cover - compiled
    for i in range(row.shape[0]):
        row[i] = T.row[i]
    for i in range(items_row.shape[0]):
        items_row[i] = T.items[i]
    for i in range(floats_row.shape[0]):
        floats_row[i] = T.row_floats[i]
    for k in range(34):
        hand_row[k] = T.row_hand[k]
    for m in range(4):
        melds_row[m, 0] = T.row_melds[m, 0]
        melds_row[m, 1] = T.row_melds[m, 1]


@jit(inline="always", cache=CACHE)
def _play_match(
    seed,
    m,
    T,
    template,
    t,
    game,
    sp,
    kinds,
    fn0,
    fn1,
    params0,
    params1,
    search,
    ints,
    items,
    floats,
    hands,
    melds,
    log_hand,
    from_state,
):  # pragma: no cover
    """Play match ``m`` into the rows of ``ints``/``items``/``floats``/``hands``/``melds`` (hand
    ``h`` into row ``h``); returns the number of hands (rows). With ``log_hand >= 0`` the events
    of that hand are recorded in ``T.log`` and the match stops after it (replay). With ``from_state`` the hand in ``T`` (standing at a
    decision, or with its wall to be dealt: PENDING_DEAL) is played to its end in place, into row
    0, as a match of that one hand. The hand loop has one call site here, so the kernel holds one
    copy of it."""
    sc = T.sc
    if from_state:
        if sc[G.S_PHASE] == G.PENDING_DEAL:
            _begin_hand(T, t, game)
    else:
        sc[G.S_ERROR] = 0
        _begin_match(T, game, seed, m)
    while from_state or sc[G.S_MATCH_OVER] == 0:
        h = 0 if from_state else sc[G.S_HAND_NUMBER]
        if not from_state:
            _deal_match_hand(T, template, t, game, log_hand)
        _hand_loop(T, t, game, sp, kinds, fn0, fn1, params0, params1, search)
        if sc[G.S_ERROR]:
            if not from_state:
                ints[h, G.R_MATCH] = m
                ints[h, G.R_HAND] = h
            return h + 1
        _copy_row(T, ints[h], items[h], floats[h], hands[h], melds[h])
        if from_state or h == log_hand:
            return h + 1
        _next_hand_of_match(T, game)
    return sc[G.S_HAND_NUMBER]


# ---------------------------------------------------------------------------------------------
# kernels


@jit(cache=CACHE, internal=True)
def _report(T, errors, error_legal):  # pragma: no cover - compiled
    """(ERR_* code, action, player, phase, tile) of an engine error and the legal actions then."""
    sc = T.sc
    errors[0] = sc[G.S_ERROR]
    errors[1] = sc[G.S_ERROR_INFO]
    errors[2] = sc[G.S_PLAYER]
    errors[3] = sc[G.S_ERROR_PHASE]
    errors[4] = sc[G.S_TILE]
    for a in range(A.N_ACTIONS):
        error_legal[a] = T.legal[a]


@jit(cache=CACHE, refcounts=False)
def play_matches_kernel(
    table,
    seed,
    start,
    n_matches,
    template,
    t,
    game,
    sp,
    kinds,
    fn0,
    fn1,
    params0,
    params1,
    search,
    log_hand,
    from_state,
    ints,
    items,
    floats,
    hands,
    melds,
    n_hands,
    errors,
    error_legal,
    wall_out,
    log_out,
    n_log,
):  # pragma: no cover
    """Play matches ``start .. start + n_matches - 1`` on the Table ``table`` (the caller's: one
    per thread; ``table.sc[S_CHECK]`` says whether to check invariants). :mod:`simkit.play.runtime`
    runs blocks of matches in threads (the kernel releases the GIL); a match's rows depend only on
    (seed, match), so any split gives the same rows.

    The result rows, one per hand played, in the order played (match by match, hand by hand, the
    rows of a match right after the previous match's): ``ints`` int64[capacity, N_RESULT_INT],
    ``items`` [capacity, N_ITEMS] (the rule set's item dtype), ``floats`` float64[capacity,
    N_RESULT_FLOAT], ``hands`` uint8[capacity, 34] (winner's concealed tiles), ``melds``
    int8[capacity, 4, 2] (winner's melds), ``capacity`` at least ``n_matches * max_hands`` (1 with
    ``from_state``); ``n_hands`` int64[n_matches] gets each match's number of rows. Rows past the
    last are not touched (so the pages of an uninitialised buffer's unused part are never faulted
    in: a match plays far fewer hands than its ``max_hands``). ``errors`` int64[n_matches, 5] gets (ERR_*
    code, action, player, phase, tile), zero when the match completed, and ``error_legal``
    bool[n_matches, N_ACTIONS] the legal actions at the error. ``kinds`` int64[2]: how each
    player's policy is called (POLICY_*; ``fn0`` / ``fn1`` for POLICY_FUNCTION). With
    ``log_hand >= 0`` (replay: one match) that hand's dealt wall goes to ``wall_out``, its events to
    ``log_out`` int64[MAX_LOG, 4] and their number to ``n_log[0]``, and the match stops after it.

    With ``from_state`` (and ``n_matches == 1``) the hand in ``table`` (standing at a decision, or
    with its wall to be dealt: PENDING_DEAL) is played to its end in place, into row 0.

    Compiled without reference counts: every array is the caller's (or borrowed from them), and
    nothing here allocates one.
    """
    T = G.borrowed_table(table)
    tb = G.borrowed_hand_tables(t)
    row = 0
    for i in range(n_matches):
        n = _play_match(
            seed,
            start + i,
            T,
            template,
            tb,
            game,
            sp,
            kinds,
            fn0,
            fn1,
            params0,
            params1,
            search,
            ints[row:],
            items[row:],
            floats[row:],
            hands[row:],
            melds[row:],
            log_hand,
            from_state,
        )
        n_hands[i] = n
        row += n
        if T.sc[G.S_ERROR]:
            _report(T, errors[i], error_legal[i])
    if log_hand >= 0:
        for j in range(T.wall.shape[0]):
            wall_out[j] = T.wall[j]
        for j in range(T.sc[G.S_NLOG]):
            for c in range(4):
                log_out[j, c] = T.log[j, c]
        n_log[0] = T.sc[G.S_NLOG]


@jit(cache=CACHE)
def step_kernel(op, T, template, t, game, sp, action, seed, m):  # pragma: no cover - compiled
    """The step API in one kernel (:mod:`simkit.play.stepper` calls it once per operation); the
    state is left at a decision, or over. Returns False when OP_NEXT_HAND finds the match over."""
    sc = T.sc
    if op == G.OP_STEP:
        _step(T, t, game, sp, action)
        return True
    if op == G.OP_BEGIN_HAND:
        _begin_hand(T, t, game)
    elif op == G.OP_BEGIN_MATCH:
        _begin_match(T, game, seed, m)
        if sc[G.S_MATCH_OVER]:
            return False
        _deal_match_hand(T, template, t, game, 0)
    elif op == G.OP_NEXT_HAND:
        if not _next_hand_of_match(T, game):
            return False
        _deal_match_hand(T, template, t, game, sc[G.S_HAND_NUMBER])
    elif op == G.OP_REACT:
        q = sc[G.S_PLAYER]
        x = sc[G.S_TILE]
        sc[G.S_CURRENT] = 1 - q
        G._legal_react(
            T.legal,
            T.hand[q],
            T.meld_counts[q],
            T.n_melds[q],
            T.declared[q],
            T.skip_win[q],
            T.skip_pung[q],
            G._tiles_left(sc) <= 0,
            x,
            False,
            game.claim_chow,
            sc[G.S_SHANTEN_LB + q],
            t,
        )
        _decision(sc, q, A.PHASE_REACT, x)
    _advance(T, t, game, sp)
    return True


# The step API from numba: a jitted function may call these functions of a rule set's engine
# instance (simkit.play.runtime.engine_for) on a Table (GameState.table).
begin_hand = _begin_hand  #: deal ``T.wall``; then ``advance`` stops at the first decision
advance = _advance  #: resolve what is pending: stop at the next decision, or settle the hand
step = _step  #: apply the deciding player's action and advance


# ---------------------------------------------------------------------------------------------
# rollouts (simkit.play.rollouts): continuations of one position, paired across actions


@jit(cache=CACHE, internal=True)
def _copy_state(src, dst):  # pragma: no cover - compiled
    """Copy the game state of Table ``src`` into ``dst`` (scratch, logs and result rows excepted)."""
    dst.wall[:] = src.wall
    dst.hand[:, :] = src.hand
    dst.meld_counts[:, :] = src.meld_counts
    dst.melds[:, :, :] = src.melds
    dst.n_melds[:] = src.n_melds
    dst.river[:, :] = src.river
    dst.claimed[:, :] = src.claimed
    dst.n_river[:] = src.n_river
    dst.declared[:] = src.declared
    dst.skip_win[:] = src.skip_win
    dst.skip_pung[:] = src.skip_pung
    dst.seat[:] = src.seat
    dst.acted[:] = src.acted
    dst.kongs[:] = src.kongs
    dst.skips[:] = src.skips
    dst.sc[:] = src.sc
    dst.legal[:] = src.legal
    dst.rng[:] = src.rng
    dst.locked[:, :] = src.locked
    dst.purse[:] = src.purse
    dst.ids[:] = src.ids


@jit(cache=CACHE)
def rollouts_kernel(
    base,
    work,
    unseen,
    n_opp,
    opp_ready,
    seed,
    stream,
    first,
    n,
    actions,
    t,
    game,
    sp,
    kinds,
    fn0,
    fn1,
    params0,
    params1,
    search,
    results,
    errors,
    template,
    to_match_end,
):  # pragma: no cover
    """Continuations ``first .. first + n - 1`` of the position in Table ``base`` (player 0 decides),
    each for every action in ``actions``, played to the end of the hand on the Table ``work``.

    Continuation ``r`` completes the position from the stream ``(seed, r, stream)``
    (:func:`simkit.engine.beliefs.sample_hidden` of ``unseen``, the counts of the tiles player 0
    cannot see): the opponent's ``n_opp`` concealed tiles (ready when ``opp_ready``: a declared
    opponent) and the wall from the next draw on; the players' policy streams are ``(seed, r, 1 + p)``. Every action of ``r``
    starts from the same completion and streams (common random numbers), so the differences
    between actions are paired. With ``to_match_end`` the match goes on after the hand (its next
    hands dealt from the streams of match ``r`` of ``seed``, the same for every action) until it
    ends. ``results`` float64[n, len(actions), 4] gets player 0's result (score - fee; with
    ``to_match_end`` the change of its balance to the match's end), and the winner, the win type
    and the payer of the position's hand; ``errors`` int64[n, 5] an engine
    error's (code, action, player, phase, tile) of the first action that hit one (code -1: no
    completion in 100,000 draws left a declared opponent ready).
    """
    T = G.borrowed_table(work)
    tb = G.borrowed_hand_tables(t)
    n_unseen = 0
    for k in range(34):
        n_unseen += unseen[k]
    tiles = np.empty(max(1, n_unseen), np.int8)
    opp = np.zeros(34, np.uint8)
    state = np.zeros(1, np.uint64)
    front = base.sc[G.S_FRONT]
    n_melds1 = base.n_melds[1]
    for i in range(n):
        r = first + i
        state[0] = stream_key(np.uint64(seed), r, stream)
        if sample_hidden(unseen, n_opp, n_melds1, opp_ready, tb, state, tiles, opp, T.swork) < 0:
            errors[i, 0] = -1  # no completion leaves the declared opponent ready
            for a in range(actions.shape[0]):
                results[i, a, 0] = np.nan
            continue
        jokers = joker_slots(state, game.kept_back, game.end_jokers) if game.end_phase else 0  # hidden too
        for a in range(actions.shape[0]):
            _copy_state(base, T)
            sc = T.sc
            sc[G.S_END_JOKERS] = jokers
            for k in range(34):
                T.hand[1, k] = opp[k]
                T.locked[1, k] = opp[k]
            for k in range(n_opp, n_unseen):
                T.wall[front + k - n_opp] = tiles[k]
            sc[G.S_LOGGING] = 0
            sc[G.S_SHANTEN_LB + 1] = G.SHANTEN_UNKNOWN
            T.rng[1] = stream_key(np.uint64(seed), r, 1)
            T.rng[2] = stream_key(np.uint64(seed), r, 2)
            _apply(T, tb, game, actions[a])
            if not sc[G.S_ERROR]:
                _run_hand(T, tb, game, sp, kinds, fn0, fn1, params0, params1, search)
            if not sc[G.S_ERROR]:
                results[i, a, 0] = T.row_floats[G.F_SCORE0] - T.row_floats[G.F_FEE0]
                results[i, a, 1] = T.row[G.R_WINNER]
                results[i, a, 2] = T.row[G.R_WIN_TYPE]
                results[i, a, 3] = T.row[G.R_PAYER]
                if to_match_end:
                    T.ids[1] = r  # the next hands' walls and streams: match r of seed
                    while not sc[G.S_ERROR] and _next_hand_of_match(T, game):
                        _deal_match_hand(T, template, tb, game, -1)
                        _run_hand(T, tb, game, sp, kinds, fn0, fn1, params0, params1, search)
                    results[i, a, 0] = T.purse[G.P_BALANCE0] - base.purse[G.P_BALANCE0]
            if sc[G.S_ERROR]:
                if errors[i, 0] == 0:
                    _report(T, errors[i], T.policy_legal)
                results[i, a, 0] = np.nan


@jit(cache=CACHE)
def exact_kernel(
    base,
    work,
    hands,
    unseen,
    first,
    n,
    actions,
    t,
    game,
    sp,
    kinds,
    fn0,
    fn1,
    params0,
    params1,
    search,
    results,
    playouts,
    errors,
):  # pragma: no cover
    """The exact expectation, over every order of the wall, of each action in ``actions`` at the
    position in Table ``base`` (player 0 decides), for the opponent's concealed hands
    ``first .. first + n - 1`` of ``hands`` uint8[m, 34]; the wall holds the rest of ``unseen``
    (int64[34], the tiles player 0 cannot see).

    The wall's order is revealed only where the hand draws from it: a playout of the hand with the
    positions fixed so far (the others filled with any of the remaining tiles) shows which positions
    it drew (the front and back pointers at its end). When every drawn position is fixed, every
    order that agrees there plays the same hand, so the playout is the exact value of that class
    and weighs its probability; otherwise the first drawn position not fixed is split over the
    kinds that can lie there, each with probability count / tiles left (the wall's order is
    uniform given the opponent's hand). Depth-first, so memory is one path. The policies' streams
    are those of ``base`` for every class.

    ``results`` float64[n, len(actions), 5] gets, per hand and action, the probability-weighted
    sums of player 0's result (score - fee), of its win, self-drawn win, deal-in (paying the
    opponent's win on its discard or robbed kong) and of a drawn hand; ``playouts`` int64[n] the
    hands played; ``errors`` int64[n, 5] an engine error's (code, action, player, phase, tile).
    """
    T = G.borrowed_table(work)
    tb = G.borrowed_hand_tables(t)
    front = base.sc[G.S_FRONT]
    back = base.sc[G.S_BACK]
    size = back - front + 1
    fixed = np.empty(max(1, size), np.int64)
    at = np.empty(max(1, size), np.int64)  # the position split at each depth
    tried = np.empty(max(1, size), np.int64)  # the kind it holds there
    prob = np.empty(max(1, size) + 1, np.float64)
    left = np.empty(34, np.int64)
    for i in range(n):
        h = first + i
        for k in range(34):
            left[k] = unseen[k] - hands[h, k]
        for a in range(actions.shape[0]):
            for q in range(size):
                fixed[q] = -1
            depth = 0
            prob[0] = 1.0
            while True:
                # play the class: fixed positions as fixed, the others from what is left
                _copy_state(base, T)
                sc = T.sc
                for k in range(34):
                    T.hand[1, k] = hands[h, k]
                    T.locked[1, k] = hands[h, k]
                k = 0
                used = 0
                for q in range(size):
                    if fixed[q] >= 0:
                        T.wall[front + q] = fixed[q]
                        continue
                    while k < 34 and used >= left[k]:
                        k += 1
                        used = 0
                    T.wall[front + q] = k
                    used += 1
                sc[G.S_LOGGING] = 0
                sc[G.S_SHANTEN_LB + 1] = G.SHANTEN_UNKNOWN
                _apply(T, tb, game, actions[a])
                if not sc[G.S_ERROR]:
                    _run_hand(T, tb, game, sp, kinds, fn0, fn1, params0, params1, search)
                playouts[i] += 1
                if sc[G.S_ERROR]:
                    _report(T, errors[i], T.policy_legal)
                    return
                # the first drawn position not fixed yet (front draws, then back draws)
                split = -1
                for q in range(sc[G.S_FRONT] - front):
                    if fixed[q] < 0:
                        split = q
                        break
                if split < 0:
                    for q in range(size - 1, sc[G.S_BACK] - front, -1):
                        if fixed[q] < 0:
                            split = q
                            break
                if split >= 0:  # split it over the kinds that can lie there, the first kind first
                    k = 0
                    while left[k] == 0:
                        k += 1
                    at[depth] = split
                    tried[depth] = k
                    prob[depth + 1] = prob[depth] * left[k] / (size - depth)
                    left[k] -= 1
                    fixed[split] = k
                    depth += 1
                    continue
                p = prob[depth]
                winner = T.row[G.R_WINNER]
                win_type = T.row[G.R_WIN_TYPE]
                results[i, a, 0] += p * (T.row_floats[G.F_SCORE0] - T.row_floats[G.F_FEE0])
                if winner == 0:
                    results[i, a, 1] += p
                    if win_type == G.WIN_SELF:
                        results[i, a, 2] += p
                elif winner == 1:
                    if T.row[G.R_PAYER] == 0 and win_type != G.WIN_SELF:
                        results[i, a, 3] += p
                else:
                    results[i, a, 4] += p
                # the next class: the deepest split with a kind left to try
                found = False
                while depth > 0 and not found:
                    depth -= 1
                    q = at[depth]
                    k = tried[depth]
                    left[k] += 1
                    fixed[q] = -1
                    k += 1
                    while k < 34 and left[k] == 0:
                        k += 1
                    if k < 34:
                        tried[depth] = k
                        prob[depth + 1] = prob[depth] * left[k] / (size - depth)
                        left[k] -= 1
                        fixed[q] = k
                        depth += 1
                        found = True
                if not found:
                    break


@jit(cache=CACHE)
def draw_luck_kernel(
    table,
    seed,
    start,
    n_matches,
    template,
    t,
    game,
    sp,
    kinds,
    fn0,
    fn1,
    params0,
    params1,
    search,
    records,
    n_records,
    results,
    n_hands,
    errors,
    error_legal,
):  # pragma: no cover
    """Play matches ``start .. start + n_matches - 1`` as :func:`play_matches_kernel` does (the same
    games: the same streams, policies and hand loop) and record every draw: at each decision after
    a draw or a replacement (``PHASE_DRAW``), :func:`simkit.engine.luck.record_draw` fills the next
    row of ``records`` int32[capacity, N_DRAW_COLUMNS], and before each pick of for_two's end phase
    :func:`simkit.engine.luck.record_end_pick` (rows past the capacity are counted, not written);
    ``n_records[0]`` gets the count. ``results`` float64[n_matches, max_hands, 2] gets
    each seat's result (score - fee) of every hand, ``n_hands`` the hands of each match, ``errors``
    / ``error_legal`` an engine error as in :func:`play_matches_kernel`. Its loop is
    :func:`_play_match`'s and :func:`_hand_loop`'s with the record added, a kernel of its own so
    that the match kernel carries no draw hook (nor its compile)."""
    T = G.borrowed_table(table)
    tb = G.borrowed_hand_tables(t)
    sc = T.sc
    remaining = np.zeros(34, np.uint8)
    trial = np.zeros(34, np.uint8)
    work = np.zeros(20, np.int64)
    k = 0
    for i in range(n_matches):
        sc[G.S_ERROR] = 0
        _begin_match(T, game, seed, start + i)
        while sc[G.S_MATCH_OVER] == 0:
            h = sc[G.S_HAND_NUMBER]
            _deal_match_hand(T, template, tb, game, -1)
            while True:  # _hand_loop, with a record of every draw
                _advance(T, tb, game, sp)
                if sc[G.S_PHASE] == A.PHASE_OVER:
                    break
                if sc[G.S_PHASE] == A.PHASE_DRAW and sc[G.S_TILE] >= 0:
                    if k < records.shape[0]:
                        record_draw(T, tb, i, h, records[k], remaining, trial, work)
                    k += 1
                action = _ask(T, tb, game, sp, kinds, fn0, fn1, params0, params1, search)
                _apply(T, tb, game, action)
                if sc[G.S_ERROR]:
                    sc[G.S_PHASE] = A.PHASE_OVER
                    break
                while sc[G.S_PHASE] == G.PENDING_END_PHASE:  # for_two's end phase, each pick recorded
                    q = end_picker(T, tb, game)
                    if q >= 0 and k < records.shape[0]:
                        record_end_pick(T, tb, game, q, i, h, records[k], work)
                    if end_phase_step(T, tb, game) < 0:
                        break
                    if k < records.shape[0]:
                        records[k, L_CLASS] = 0 if sc[G.S_WINNER] == q else 1
                    k += 1
            if sc[G.S_ERROR]:
                _report(T, errors[i], error_legal[i])
                break
            results[i, h, 0] = T.row_floats[G.F_SCORE0] - T.row_floats[G.F_FEE0]
            results[i, h, 1] = T.row_floats[G.F_SCORE1] - T.row_floats[G.F_FEE1]
            n_hands[i] = h + 1
            _next_hand_of_match(T, game)
    n_records[0] = k


# ---------------------------------------------------------------------------------------------
# the vector environment (simkit.envs.VectorEnv): many tables stepped from a batch of actions


@jit(inline="always", cache=CACHE)
def _score_changes(T, b0, b1, swap, out):  # pragma: no cover - compiled
    """Each player's change of balance since ``b0`` / ``b1`` into ``out`` (the second player's
    first when ``swap``: the agent's first when it sits in seat 1)."""
    d0 = T.purse[G.P_BALANCE0] - b0
    d1 = T.purse[G.P_BALANCE0 + 1] - b1
    out[0] = d1 if swap else d0
    out[1] = d0 if swap else d1


@jit(cache=CACHE, refcounts=False)
def vector_step_kernel(
    batch,
    start,
    stop,
    reset,
    actions,
    template,
    t,
    game,
    sp,
    kinds,
    fn0,
    fn1,
    params0,
    params1,
    search,
    agent_mode,
    episode_mode,
    seeds,
    matches,
    agent_episodes,
    seats,
    obs,
    masks,
    final_obs,
    rewards,
    terminated,
    players,
    full_state,
    states,
    errors,
):  # pragma: no cover
    """One step of tables ``start .. stop - 1`` of a vector environment (``batch``: the stacked
    Tables of :func:`simkit.engine.table.new_tables`, one row per environment;
    :class:`simkit.envs.VectorEnv` runs blocks in threads).

    With ``reset`` every table starts a new episode; otherwise table ``i``'s deciding player plays
    ``actions[i]`` (checked by the engine against its own mask). Then everything that is not the
    agent's to decide is played: with ``agent_mode`` the opponent's decisions (its policy by
    ``kinds`` / ``fn*``; the agent holds seat ``seats[i]``), and with ``episode_mode`` 2 (a match)
    the next hands of the match. An episode that ends starts the next at once (``terminated[i]``;
    the rewards are the finished episode's). ``episode_mode`` is the index in
    :data:`simkit.envs.table.EPISODES`: 0, the first hand of match ``matches[i]`` of seed
    ``seeds[i]``; 1, the next hand of the match while it goes on, then the next match; 2, the
    match. An episode that ends before the agent decides is passed over, as in the Gymnasium
    environment, and the agent's seat alternates by episode (``agent_episodes``; with mode 1, by
    match).

    Writes the deciding player's observation (``obs[i]``), legal mask (``masks[i]``, int8) and seat
    (``players[i]``); for an episode that ended, the observation of its last state from the seat of
    the player who acted (``final_obs[i]``, as the Gymnasium environment returns it at the end;
    none when ``final_obs`` has no rows); the step's change of each player's score
    (``rewards[i]``: the agent's and the opponent's with ``agent_mode``, else player 0's and
    player 1's), the full-information state when ``full_state``, and an engine error's (code,
    action, player, phase, tile) in ``errors[i]``.

    The step (:func:`_step`) is inlined at its one call site here, as in :func:`_run_hand`: calling
    ``step_kernel`` per step, which passes the whole Table, made a step about 1.6 times as slow;
    the rare starts of matches and hands do call it. Compiled without reference counts: every
    array belongs to the caller.
    """
    tb = G.borrowed_hand_tables(t)
    finals = final_obs.shape[0] != 0  # the finished episodes' final observations are wanted
    for i in range(start, stop):
        T = G.table_of(batch, i)  # views of row i, borrowed: reference-count operations on them are free
        sc = T.sc
        terminated[i] = False
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        b0 = T.purse[G.P_BALANCE0]
        b1 = T.purse[G.P_BALANCE0 + 1]
        begin = 1 if reset else 0  # 1: a new episode; 2: the next match of the same episode (passed over)
        fresh = False
        action = -1 if reset else actions[i]
        actor = sc[G.S_PLAYER]  # who plays the step's action: the final observation is theirs
        failed = False
        while True:
            if begin == 3:  # a new episode on the next hand of the match, already dealt: the same seat
                begin = 0
                fresh = True
            elif begin:
                if begin == 1:
                    if agent_mode:
                        seats[i] = agent_episodes[i] % 2
                    agent_episodes[i] += 1
                step_kernel(G.OP_BEGIN_MATCH, T, template, tb, game, sp, 0, seeds[i], matches[i])
                sc[G.S_LOGGING] = 0  # no event log: nobody replays these hands
                matches[i] += 1
                begin = 0
                fresh = True
            elif action >= 0:
                _step(T, tb, game, sp, action)
                action = -1
            if sc[G.S_ERROR]:
                failed = True
                break
            if sc[G.S_PHASE] == A.PHASE_OVER:
                if finals and episode_mode == 1 and not fresh:  # it ends: its last state, before the next deal
                    encode_observation_kernel(T, tb, actor, False, final_obs[i])
                go_on = False  # the match goes on into its next hand (dealt now) for this episode or the next
                if episode_mode != 0:
                    go_on = step_kernel(G.OP_NEXT_HAND, T, template, tb, game, sp, 0, T.ids[0], 0) != 0
                if go_on:
                    sc[G.S_LOGGING] = 0
                    if episode_mode == 2 or fresh:  # the same episode goes on with the next hand
                        continue
                if fresh:  # over before the agent decided: passed over, the same episode goes on
                    begin = 2
                    continue
                _score_changes(T, b0, b1, agent_mode and seats[i] == 1, rewards[i])
                terminated[i] = True
                if finals and episode_mode != 1:  # its last state (a match's: after its end is settled)
                    encode_observation_kernel(T, tb, actor, False, final_obs[i])
                begin = 3 if go_on else 1
                continue
            if not agent_mode or sc[G.S_PLAYER] == seats[i]:
                break
            action = _ask(T, tb, game, sp, kinds, fn0, fn1, params0, params1, search)
        if failed:
            _report(T, errors[i], T.policy_legal)
            continue
        if not terminated[i] and not reset:
            _score_changes(T, b0, b1, agent_mode and seats[i] == 1, rewards[i])
        p = sc[G.S_PLAYER]
        players[i] = p
        encode_observation_kernel(T, tb, p, True, obs[i])
        for a in range(A.N_ACTIONS):
            masks[i, a] = T.legal[a]
        if full_state:
            encode_state_kernel(T, states[i])
