"""The part of the engine bound to its policies: ``_decide``, ``_play_hand``, ``_play_match`` and
the three kernels (``play_matches_kernel``, ``replay_kernel``, ``play_hand_kernel``).

This module is a *template*. Its functions call the two players' policies and the rule set's
settle function through the module globals ``POLICY0``, ``POLICY1`` and ``SETTLE``, so that each
(settle, policy, policy) combination is compiled as one program with direct calls.
:mod:`simkit.engine.compiled` makes an instance of this source per combination with those
globals bound; when all three functions are importable (defined at the top level of a module
file, as the built-in ones are) the instance is a generated file whose compiled code numba caches
on disk, so a new process (a ``--workers`` pool, a Dask worker, the next session) loads the
engine instead of compiling it again. Passing the policies as function arguments instead would
make them run-time values, which numba cannot cache.

``_play_hand`` and ``_play_match`` are compiled without reference counts (``refcounts=False``,
:func:`simkit._jit.jit`): every array they touch belongs to the kernel that calls them (the
match's :class:`~simkit.engine.game.Table`, borrowed; the result rows; the shared hand tables),
and they allocate none. Keep it so: no array may be allocated in them, returned to them, or
inlined into them from a function that allocates (a policy compiled ``inline="always"`` is called
through the out-of-line ``_policy0`` / ``_policy1`` for that reason). ``tests/test_jit.py``
checks that whole matches free every block they allocate.

The template itself is never compiled: import the engine through :mod:`simkit.engine.compiled`.
Everything that does not depend on the policies (the table, the legal-action scans, dealing,
payments) is in :mod:`simkit.engine.game`.
"""

from simkit._jit import borrow, jit, pjit, prange
from simkit.engine import actions as A
from simkit.engine.game import (
    EV_ADDED_KONG,
    EV_BID,
    EV_CHOW,
    EV_CONCEALED_KONG,
    EV_DECLARE,
    EV_DISCARD,
    EV_DRAW,
    EV_DRAW_GAME,
    EV_FOLD,
    EV_FOLLOW,
    EV_KONG,
    EV_PUNG,
    EV_SKIP_PUNG,
    EV_SKIP_WIN,
    EV_WIN,
    ERR_ILLEGAL_ACTION,
    ERR_SKIPPED_WIN,
    FIRST_DEALER_STREAM,
    N_MONEY,
    P_BALANCE0,
    P_BALANCE1,
    P_CHIPS0,
    P_CHIPS1,
    S_BID,
    S_CHECK,
    S_DEALER,
    S_DISCARDS,
    S_ERROR,
    S_ERROR_INFO,
    S_FRONT,
    S_KEPT_BACK,
    S_LOGGING,
    S_NLOG,
    S_NO_CALL,
    S_PREVAILING,
    S_SHANTEN_LB,
    S_STREAK,
    S_SWAP,
    S_TURNS,
    SHANTEN_UNKNOWN,
    WIN_DISCARD,
    WIN_DRAW,
    WIN_FOLD,
    WIN_ROBBED,
    WIN_SELF,
    _EAST,
    _WEST,
    _add_meld,
    _bit,
    _check,
    _deal,
    _draw_replacement,
    _legal_after_draw,
    _legal_react,
    _log,
    _pay,
    _play_tile,
    _shuffle_and_roll,
    _tiles_left,
    _view,
    _waits_without,
    borrowed_hand_tables,
    borrowed_table,
    new_table,
    R_BID,
    R_DEALER,
    R_DECLARED0,
    R_DECLARED1,
    R_FIRST_DEALER_OF_ROUND,
    R_HAND,
    R_KONGS0,
    R_KONGS1,
    R_MATCH,
    R_PAYER,
    R_PREVAILING,
    R_SEAT0,
    R_SKIPS0,
    R_SKIPS1,
    R_STREAK,
    R_TILES_LEFT,
    R_TURNS,
    R_WINNER,
    R_WIN_TILE,
    R_WIN_TYPE,
)
from simkit.engine.rng import bounded, stream_key
from simkit.hand.waits import waits_kernel

# <bind> -- replaced in every instance by simkit.engine.compiled
POLICY0 = POLICY1 = SETTLE = None
CACHE = False
# </bind>


@jit(cache=CACHE)
def _policy0(view, legal, params, rng):  # pragma: no cover - compiled
    """``POLICY0`` called out of line, for a policy compiled ``inline="always"``: it is inlined
    here, where reference counts are kept, not into the reference-count-free :func:`_play_hand`."""
    return POLICY0(view, legal, params, rng)


@jit(cache=CACHE)
def _policy1(view, legal, params, rng):  # pragma: no cover - compiled
    """``POLICY1`` called out of line (see :func:`_policy0`)."""
    return POLICY1(view, legal, params, rng)


def _inlined(fn) -> bool:
    """Whether numba inlines ``fn`` into its callers (``inline="always"`` or a cost model)."""
    return getattr(fn, "targetoptions", {}).get("inline", "never") != "never"


# What _decide calls: the policy itself (the wrapper's call would cost a copy of the View per
# decision: ~5% of a greedy or random hand), or its wrapper when the policy is inlined
CALL0 = _policy0 if _inlined(POLICY0) else POLICY0
CALL1 = _policy1 if _inlined(POLICY1) else POLICY1


@jit(inline="always", cache=CACHE)
def _decide(legal, sc, rng, view, p, params0, params1):  # pragma: no cover - compiled
    """Ask player ``p``'s policy; returns a legal action, or -1 after recording ERR_ILLEGAL_ACTION.

    Player ``p`` plays ``POLICY0`` with ``params0`` when ``p`` equals ``sc[S_SWAP]``, else
    ``POLICY1`` with ``params1`` (so one instance plays a pair of policies in either seat order).
    Hot-path helpers take the arrays they use, not the whole :class:`Table`: numba passes every
    array of a tuple argument field by field (with its reference count), which made each call cost
    as much as a decision.
    """
    if p == sc[S_SWAP]:
        action = CALL0(view, legal, params0, rng)
    else:
        action = CALL1(view, legal, params1, rng)
    sc[S_TURNS] += 1
    if action < 0 or action >= A.N_ACTIONS or not legal[action]:
        sc[S_ERROR] = ERR_ILLEGAL_ACTION
        sc[S_ERROR_INFO] = action
        return -1
    return action


@jit(cache=CACHE, refcounts=False)
def _play_hand(T, t, game, sp, params0, params1, out, items_out, floats_out, hand_out, melds_out):  # pragma: no cover
    """Play one hand, dealt from ``wall`` with seats in ``seat``, to a win, a draw or (for_two) a fold.

    ``out`` int64[N_RESULT_INT] gets the row's fields (match-level fields are filled by the caller);
    ``items_out`` [N_ITEMS] the winner's items; ``floats_out`` float64[N_RESULT_FLOAT] the payments;
    ``hand_out`` uint8[34] the winner's concealed tiles (winning tile included) and ``melds_out``
    int8[4, 2] the winner's melds (type, kind; -1 when unused); both zero / -1 without a winner.
    The hand is settled by ``SETTLE``, the rule set's settle function. Returns the winner
    (-1 on a draw or a fold).
    """
    acted, claimed, declared, hand, items, kongs, legal, locked, log, meld_counts, melds, n_melds, n_river, river, rng, sc, seat, skip_pung, skip_win, skips, swork, wall = T.acted, T.claimed, T.declared, T.hand, T.items, T.kongs, T.legal, T.locked, T.log, T.meld_counts, T.melds, T.n_melds, T.n_river, T.river, T.rng, T.sc, T.seat, T.skip_pung, T.skip_win, T.skips, T.swork, T.wall
    dealer = sc[S_DEALER]
    sc[S_KEPT_BACK] = game.kept_back
    sc[S_SHANTEN_LB] = SHANTEN_UNKNOWN
    sc[S_SHANTEN_LB + 1] = SHANTEN_UNKNOWN
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
            action = _decide(legal, sc, rng[1 + dealer : 2 + dealer], _view(hand, melds, n_melds, river, n_river, declared, seat, skip_win, sc, dealer, A.PHASE_BID, -1, t), dealer, params0, params1)
            if action >= 0:
                sc[S_BID] = 1 + action - A.BID
                _log(sc, log, EV_BID, dealer, -1, sc[S_BID])
                for a in range(A.N_ACTIONS):
                    legal[a] = False
                legal[A.FOLLOW] = True
                legal[A.FOLD] = True
                reply = _decide(legal, sc, rng[1 + q : 2 + q], _view(hand, melds, n_melds, river, n_river, declared, seat, skip_win, sc, q, A.PHASE_FOLLOW, -1, t), q, params0, params1)
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
        # A player's shanten drops by at most one per tile gained and never by a discard, so the
        # engine keeps a lower bound per player (exact when computed, lowered at each draw, reset
        # by any meld): while it is above 0 the hand cannot be ready, so no win check, no
        # declaration test; while it is 0 or more, the hand cannot be complete.
        sh = _legal_after_draw(
            legal, hand[p], melds[p], n_melds[p], meld_counts[p], declared[p], skip_win[p], last, drawn,
            phase, sc[S_SHANTEN_LB + p], game.declare, swork, t,
        )
        if sh != SHANTEN_UNKNOWN:
            sc[S_SHANTEN_LB + p] = sh
        action = _decide(legal, sc, rng[1 + p : 2 + p], _view(hand, melds, n_melds, river, n_river, declared, seat, skip_win, sc, p, phase, drawn, t), p, params0, params1)
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
            sc[S_SHANTEN_LB + p] = SHANTEN_UNKNOWN
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
                        _tiles_left(sc) <= 0, x, True, False, sc[S_SHANTEN_LB + q], t,
                    )
                    if legal[A.WIN]:
                        if check:
                            hand[p, x] += 1  # the tile is in flight: count it with its owner
                            ok = _check(T, p, True)
                            hand[p, x] -= 1
                            if not ok:
                                break
                        reply = _decide(legal, sc, rng[1 + q : 2 + q], _view(hand, melds, n_melds, river, n_river, declared, seat, skip_win, sc, q, A.PHASE_ROB, x, t), q, params0, params1)
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
            last_discard, x, False, game.claim_chow, sc[S_SHANTEN_LB + q], t,
        ):
            reply = _decide(legal, sc, rng[1 + q : 2 + q], _view(hand, melds, n_melds, river, n_river, declared, seat, skip_win, sc, q, A.PHASE_REACT, x, t), q, params0, params1)
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
            sc[S_SHANTEN_LB + q] = SHANTEN_UNKNOWN
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
            sc[S_SHANTEN_LB + q] = SHANTEN_UNKNOWN
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
        sc[S_SHANTEN_LB + p] -= 1
        _log(sc, log, EV_DRAW, p, drawn, 0)
        phase = A.PHASE_DRAW
    if sc[S_ERROR]:
        return -1
    if winner < 0 and win_type == WIN_DRAW:
        _log(sc, log, EV_DRAW_GAME, -1, -1, _tiles_left(sc))
    money = T.money
    for i in range(N_MONEY):
        money[i] = 0.0
    SETTLE(T, winner, win_type, win_tile, win_replacement, win_last, win_last_discard, t, sp, out, floats_out)
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


@jit(inline="always", cache=CACHE)
def _clear_row(row, items_row, floats_row, hand_row, melds_row):  # pragma: no cover - compiled
    """Zero a hand's result row (the result buffers are allocated uninitialised: only the rows of
    hands played are touched)."""
    row[:] = 0
    items_row[:] = 0
    floats_row[:] = 0.0
    hand_row[:] = 0
    melds_row[:] = 0


@jit(cache=CACHE, refcounts=False)
def _play_match(seed, m, T, template, t, game, sp, params0, params1, ints, items, floats, hands, melds, log_hand):  # pragma: no cover
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
        _clear_row(row, items[h], floats[h], hands[h], melds[h])
        _shuffle_and_roll(T, template, dealer)
        T.sc[S_LOGGING] = 1 if h == log_hand else 0
        winner = _play_hand(T, t, game, sp, params0, params1, row, items[h], floats[h], hands[h], melds[h])
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


@pjit(cache=CACHE)
def play_matches_kernel(seed, start, n_matches, template, t, game, sp, items_proto, check, swap, params0, params1, ints, items, floats, hands, melds, n_hands, errors):  # pragma: no cover
    """Play matches ``start .. start + n_matches - 1`` on all cores.

    ``ints`` int64[n_matches, max_hands, N_RESULT_INT], ``items`` [n_matches, max_hands, N_ITEMS]
    (the rule set's item dtype), ``floats`` float64[n_matches, max_hands, N_RESULT_FLOAT],
    ``hands`` uint8[n_matches, max_hands, 34] (winner's concealed tiles), ``melds``
    int8[n_matches, max_hands, 4, 2] (winner's melds), ``n_hands`` int64[n_matches] are filled per
    match; ``errors`` int64[n_matches, 2] gets (ERR_* code, detail), zero when the match completed.
    ``game``: :class:`~simkit.engine.game.Game`; ``sp``, ``items_proto``: the rule set's scoring
    parameters and zero item vector (:func:`simkit.engine.rulesets.engine_spec`).
    """
    for i in prange(n_matches):
        owner = new_table(template.shape[0], items_proto)
        T = borrowed_table(owner)
        T.sc[S_CHECK] = 1 if check else 0
        T.sc[S_SWAP] = 1 if swap else 0
        n_hands[i] = _play_match(
            seed, start + i, T, borrow(template), borrowed_hand_tables(t), game, sp,
            borrow(params0), borrow(params1), ints[i], items[i], floats[i], hands[i], melds[i], -1,
        )
        errors[i, 0] = owner.sc[S_ERROR]  # the owner stays alive until the borrowed views are done
        errors[i, 1] = owner.sc[S_ERROR_INFO]


@jit(cache=CACHE)
def replay_kernel(seed, m, hand, template, t, game, sp, items_proto, swap, params0, params1, ints, items, floats, hands, melds, wall_out, log_out):  # pragma: no cover
    """Replay match ``m`` up to hand ``hand``, recording that hand's events.

    Fills the rows of the hands played, the hand's dealt wall (``wall_out``) and its events
    (``log_out`` int64[MAX_LOG, 4]); returns the number of events (-1 if the match ended earlier,
    ``-1 - code`` on an engine error).
    """
    T = new_table(template.shape[0], items_proto)
    T.sc[S_SWAP] = 1 if swap else 0
    n = _play_match(seed, m, T, template, t, game, sp, params0, params1, ints, items, floats, hands, melds, hand)
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


@jit(cache=CACHE)
def play_hand_kernel(wall, dealer, dealer_east, streak, prevailing, t, game, sp, items_proto, check, swap, params0, params1, seed, row, items_row, floats_row, hand_row, melds_row, log_out):  # pragma: no cover
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
    T.sc[S_SWAP] = 1 if swap else 0
    T.sc[S_LOGGING] = 1
    T.rng[1] = stream_key(seed, 0, 1)
    T.rng[2] = stream_key(seed, 0, 2)
    T.purse[P_CHIPS0] = game.chips
    T.purse[P_CHIPS1] = game.chips
    _play_hand(T, t, game, sp, params0, params1, row, items_row, floats_row, hand_row, melds_row)
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
