"""The douque engine on many random matches: invariants, match progression, determinism, replay.

Inside the kernel, ``check=True`` verifies after every step that all 72 tiles are accounted for,
that hand sizes are right and that no draw touches the 8 kept-back tiles (it raises otherwise).
Here the result rows are checked against §4 and §8: zero-sum payments, the dealer in every payment,
the dealer / streak / round progression, and the scoring identities.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

import simkit
from simkit._jit import jit
from simkit.engine import actions as A
from simkit.play.matches import play_hand, replay, simulate_matches
from simkit.policies.basic import count_waits_after, greedy_policy

N_RANDOM = 3_000  #: random-policy matches in the default run (acceptance run: 20,000, -m slow)
N_GREEDY = 300  #: greedy matches in the default run (acceptance run: 2,000, -m slow)


def check_rows(r, streak_cap=10, base=50, tai_value=20):
    """Every §4/§8 property of the rows of complete matches."""
    n = len(r["match"])
    win = r["winner"] >= 0
    # zero-sum, and the dealer is the winner or the payer of every payment
    assert np.array_equal(r["score_0"], -r["score_1"])
    assert ((r["winner"][win] == r["dealer"][win]) | (r["payer"][win] == r["dealer"][win])).all()
    assert (r["winner"][win] != r["payer"][win]).all()
    assert (r["payer"][~win] == -1).all() and (r["win_type"][~win] == 0).all()
    assert (r["win_type"][win] > 0).all()
    # scoring identities
    assert np.array_equal(r["items"].sum(axis=1), np.where(win, r["hand_tai"], 0))
    assert np.array_equal(r["dealer_tai"], np.where(win, 1 + 2 * r["streak"], 0))
    assert np.allclose(r["points"], np.where(win, base + tai_value * (r["hand_tai"] + r["dealer_tai"]), 0))
    assert (r["tiles_left"] >= 0).all() and (r["tiles_left"][~win] == 0).all()
    # the winner's final hand: complete, holding the winning tile, with its melds
    n_melds = (r["win_melds"][:, :, 0] >= 0).sum(axis=1)
    assert simkit.is_win_batch(r["win_hand"][win], n_melds[win]).all()
    assert (r["win_hand"][win, r["win_tile"][win]] > 0).all()
    assert (r["win_hand"][~win] == 0).all() and (r["win_melds"][~win] == -1).all()
    kongs = ((r["win_melds"][:, :, 0] >= 1) & (r["win_melds"][:, :, 0] <= 3)).sum(axis=1)
    kongs_of_winner = np.where(r["winner"] == 0, r["kongs_0"], r["kongs_1"])
    assert np.array_equal(kongs[win], kongs_of_winner[win])
    # progression within each match
    for m in np.unique(r["match"]):
        idx = np.flatnonzero(r["match"] == m)
        assert np.array_equal(r["hand"][idx], np.arange(len(idx)))
        dealer, streak, dealerships = r["dealer"][idx[0]], 0, 0
        for i in idx:
            assert r["dealer"][i] == dealer and r["streak"][i] == streak
            assert r["prevailing_wind"][i] == 27 + dealerships // 2
            assert r["dealer_turn"][i] == dealerships % 2
            keep = (r["winner"][i] == dealer or r["winner"][i] < 0) and streak < streak_cap
            if keep:
                streak += 1
            else:
                dealer, streak, dealerships = 1 - dealer, 0, dealerships + 1
        assert dealerships == 8, "a match is four rounds of two dealer turns"
        assert len(idx) >= 8
    assert n == len(r["points"])


def test_random_matches_invariants():
    r = simulate_matches("douque", ("random", "random"), N_RANDOM, seed=11, check=True)
    check_rows(r)
    assert (r["win_type"] == 3).any(), "robbed kongs happen under random play"


def test_greedy_matches_invariants():
    r = simulate_matches("douque", ("greedy", "greedy"), N_GREEDY, seed=12, check=True)
    check_rows(r)
    win = r["winner"] >= 0
    assert win.mean() > 0.8  # greedy players finish most hands
    seen = (r["items"] > 0).any(axis=0)
    for name in ("self_drawn", "concealed_hand", "all_pungs", "half_flush", "declare_ready", "migi"):
        assert seen[simkit.scoring.ITEM_NAMES.index(name)], name


@pytest.mark.slow
def test_acceptance_random_20000_and_greedy_2000_matches():
    check_rows(simulate_matches("douque", ("random", "random"), 20_000, seed=21, check=True))
    check_rows(simulate_matches("douque", ("greedy", "greedy"), 2_000, seed=22, check=True))


def test_streak_cap_option():
    rules = simkit.get_rules("douque", streak_cap=1)
    r = simulate_matches(rules, ("random", "random"), 200, seed=3)
    assert r["streak"].max() == 1
    check_rows(r, streak_cap=1)


def test_payment_options_are_used():
    rules = simkit.get_rules("douque", base=100, tai_value=10)
    r = simulate_matches(rules, ("greedy", "greedy"), 20, seed=4)
    check_rows(r, base=100, tai_value=10)


def test_same_seed_same_results_whatever_the_threads_or_split():
    a = simulate_matches("douque", ("random", "random"), 60, seed=5)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        b = simulate_matches("douque", ("random", "random"), 60, seed=5)
    finally:
        numba.set_num_threads(before)
    c1 = simulate_matches("douque", ("random", "random"), 25, seed=5)
    c2 = simulate_matches("douque", ("random", "random"), 35, seed=5, start=25)
    for key in a:
        assert np.array_equal(a[key], b[key]), key
        assert np.array_equal(a[key], np.concatenate([c1[key], c2[key]])), key
    d = simulate_matches("douque", ("random", "random"), 60, seed=6)
    assert not np.array_equal(a["win_tile"][:50], d["win_tile"][:50])


def test_different_matches_get_different_walls():
    walls = {replay(9, m, 0, policies=("random", "random")).wall.tobytes() for m in range(30)}
    assert len(walls) == 30


def test_replay_reproduces_rows_and_events():
    r = simulate_matches("douque", ("greedy", "greedy"), 6, seed=8)
    for i in range(0, len(r["match"]), 7):
        rec = replay(8, int(r["match"][i]), int(r["hand"][i]))
        for key, value in rec.row.items():
            assert value == pytest.approx(r[key][i]), key
        assert rec.items == {n: int(v) for n, v in zip(simkit.scoring.ITEM_NAMES, r["items"][i]) if v}
        last = rec.events[-1]
        if r["winner"][i] >= 0:
            assert last[0] == "win" and last[1] == r["winner"][i] and last[2] == r["win_tile"][i]
        else:
            assert last[0] == "exhaustive draw"
        # the event log accounts for every tile drawn
        draws = sum(1 for e in rec.events if e[0] in ("draw", "replacement"))
        assert draws == 72 - 27 - 8 - r["tiles_left"][i]
        assert any("deal:" in line for line in rec.lines())


@jit
def patient_policy(view, legal, params, rng):
    """Never claims; declares only with two or more winning kinds; otherwise greedy without kongs."""
    if legal[A.WIN]:
        return A.WIN
    if view.phase == A.PHASE_REACT or view.phase == A.PHASE_ROB:
        return A.PASS
    a = greedy_policy(view, legal, np.zeros(3), rng)
    k = a - A.DISCARD
    if 0 <= k < 34 and legal[A.DECLARE + k] and count_waits_after(view, k) >= 2:
        return A.DECLARE + k
    return a


def test_user_written_policy_without_editing_simkit():
    r = simulate_matches("douque", (patient_policy, "greedy"), 40, seed=13, check=True)
    check_rows(r)
    assert (r["kongs_0"] == 0).all()
    # every declaration of the patient player left two or more winning kinds
    for i in np.flatnonzero(r["declared_0"] > 0)[:20]:
        rec = replay(13, int(r["match"][i]), int(r["hand"][i]), policies=(patient_policy, "greedy"))
        (declare,) = [e for e in rec.events if e[0] == "declare" and e[1] == 0]
        assert declare


def test_illegal_policy_output_is_an_error():
    @jit
    def cheater(view, legal, params, rng):
        return A.WIN

    with pytest.raises(
        simkit.SimkitError,
        match=r"illegal action: player \d chose win \(after a draw, tile \w+\); legal: .* in match 0",
    ):
        simulate_matches("douque", (cheater, "greedy"), 1, seed=0)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(policies=("greedy", "nope")), "unknown policy"),
        (dict(policies=("greedy",)), "two players"),
        (dict(policies=("greedy", len)), r"policy\(view, legal, params, rng\)"),
        (dict(policies=("greedy", 42)), "jitted function"),
        (dict(n_matches=0), "n_matches"),
        (dict(seed=-1), "seed"),
        (dict(rules="mahjong"), "unknown rule set"),
        (dict(policies="greedy"), "a pair of policies"),
    ],
)
def test_bad_arguments(kwargs, words):
    args = dict(rules="douque", policies=("greedy", "greedy"), n_matches=1, seed=0) | kwargs
    with pytest.raises(simkit.SimkitError, match=words):
        simulate_matches(**args)


def test_play_hand_rejects_a_wrong_wall():
    with pytest.raises(simkit.SimkitError, match="exactly the 72 tiles"):
        play_hand(np.zeros(72, np.int8))


def test_invariant_checker_catches_each_violation():
    """The in-kernel checker is not vacuous: each kind of corruption is reported with its code."""
    from simkit.engine import table as E
    from simkit.engine.deal import wall_template
    from simkit.engine.rng import stream_key

    def fresh():
        T = E.new_table(72, np.zeros(simkit.scoring.douque.N_ITEMS, np.int64))
        T.sc[E.S_KEPT_BACK] = 8
        T.rng[0] = stream_key(1, 2, 3)
        E._shuffle_and_roll(T, wall_template("douque"), 0)
        E._deal(T, 0)
        return T

    T = fresh()
    assert E._check(T, 0, True) and T.sc[E.S_ERROR] == 0
    T = fresh()
    swapped_in, swapped_out = int(T.wall[30]), int(T.wall[14])
    T.hand[1, swapped_in] += 1  # a wall tile is copied into the hand in place of a dealt one
    T.hand[1, swapped_out] -= 1
    if swapped_in != swapped_out:
        assert not E._check(T, 0, True) and T.sc[E.S_ERROR] == E.ERR_TILES
    T = fresh()
    T.hand[0, T.wall[0]] -= 1  # the dealer loses a tile: 13 instead of 14
    T.sc[E.S_FRONT] -= 1
    T.wall[T.sc[E.S_FRONT]] = T.wall[0]
    assert not E._check(T, 0, True) and T.sc[E.S_ERROR] == E.ERR_HAND_SIZE
    T = fresh()
    T.sc[E.S_FRONT] = T.sc[E.S_BACK] - 6  # only 7 tiles left: below the 8 kept back
    assert not E._check(T, 0, True) and T.sc[E.S_ERROR] == E.ERR_KEPT_BACK
    T = fresh()
    T.declared[1] = 1
    T.locked[1] = T.hand[1]
    T.locked[1, int(np.argmax(T.hand[1]))] -= 1  # the locked hand differs from the hand by a tile
    assert not E._check(T, 0, True) and T.sc[E.S_ERROR] == E.ERR_LOCKED
