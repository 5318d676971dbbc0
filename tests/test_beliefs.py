"""simkit.engine.beliefs: what a player cannot see, counted from the View and from the Table, and
worlds drawn from it, checked against exact counts on small positions."""

from __future__ import annotations

import itertools
from collections import Counter
from math import comb, prod

import numpy as np
import pytest

from simkit.engine import actions as A
from simkit.engine import table as eng
from simkit.engine.beliefs import sample_hidden, sample_view_world, view_unseen
from simkit.hand.shanten import shanten_kernel
from simkit.hand.tables import hand_tables
from simkit.play.stepper import GameState
from simkit.rules import get_rules

RULE_NAMES = ("douque", "night_market", "duel", "for_two")


def _agrees(observed, probs, n):
    """Every cell within 5 binomial standard deviations of its exact expectation (a wrong law of
    these sizes misses by far more)."""
    observed, probs = np.asarray(observed, np.float64), np.asarray(probs, np.float64)
    sd = np.sqrt(n * probs * (1 - probs))
    return bool(np.all(np.abs(observed - n * probs) <= 5 * sd + 1))


def _truth(state: GameState, p: int) -> np.ndarray:
    """What player ``p`` cannot see, from the whole state: the opponent's concealed tiles and the wall
    from the next draw to the tail."""
    T = state._T
    front, back = int(T.sc[eng.S_FRONT]), int(T.sc[eng.S_BACK])
    wall = np.bincount(T.wall[front : back + 1].astype(np.int64), minlength=34)
    return T.hand[1 - p].astype(np.int64) + wall


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_unseen_from_the_view_is_the_opponent_hand_and_the_wall(rules):
    """At every decision of random matches (claims included), the View's count of unseen tiles is
    exactly the opponent's concealed tiles plus the wall left."""
    rng = np.random.default_rng(3)
    out = np.zeros(34, np.int64)
    checked = claimed = 0
    for seed in range(6):
        s = GameState.new_match(rules, seed, 0)
        while not s.over:
            p = s.player
            view = s.view()
            if view.hand.sum() and s.phase not in (A.PHASE_BID, A.PHASE_FOLLOW):
                n = view_unseen(view, out)
                assert np.array_equal(out, _truth(s, p)), (rules, seed, s.phase)
                assert n == out.sum()
                checked += 1
                claimed += int(view.river_claimed.any() or view.opp_river_claimed.any())
            legal = np.flatnonzero(s.legal)
            s.apply(int(rng.choice(legal)))
    assert checked > 100
    if rules != "for_two":  # claims happen in random play
        assert claimed > 0


def _exact_law(unseen: dict, n_opp: int, ready=None) -> dict:
    """The exact law of the opponent's hand (a sorted tuple of kinds) under a uniform shuffle of the
    unseen tiles, restricted to ``ready`` hands when given: a hand's weight is the number of ways to
    pick its copies."""
    kinds = sorted(unseen)
    law = {}
    for hand in itertools.combinations_with_replacement(kinds, n_opp):
        c = Counter(hand)
        if any(c[k] > unseen[k] for k in c):
            continue
        if ready is not None and not ready(hand):
            continue
        law[hand] = prod(comb(unseen[k], c[k]) for k in c)
    total = sum(law.values())
    return {h: w / total for h, w in law.items()}


def _sampled(unseen: dict, n_opp: int, n: int, opp_melds=0, opp_ready=False, rules="douque"):
    counts = np.zeros(34, np.int64)
    for k, c in unseen.items():
        counts[k] = c
    tables = hand_tables(get_rules(rules))
    total = int(counts.sum())
    tiles = np.zeros(total, np.int8)
    opp = np.zeros(34, np.uint8)
    work = np.zeros(20, np.int64)
    state = np.array([12345], np.uint64)
    hands, orders = Counter(), Counter()
    for _ in range(n):
        got = sample_hidden(counts, n_opp, opp_melds, opp_ready, tables, state, tiles, opp, work)
        assert got == total
        assert np.array_equal(np.bincount(tiles.astype(np.int64), minlength=34), counts)  # a permutation
        assert np.array_equal(np.bincount(tiles[:n_opp].astype(np.int64), minlength=34), opp)
        hands[tuple(sorted(tiles[:n_opp].tolist()))] += 1
        orders[tuple(tiles.tolist())] += 1
    return hands, orders


def test_worlds_are_uniform_over_the_unseen_tiles():
    """Opponent's hand and the whole order: frequencies against the exact law (chi-square)."""
    unseen = {0: 2, 9: 1, 27: 2, 31: 1}  # six tiles, the opponent holds two
    n = 30_000
    hands, orders = _sampled(unseen, 2, n)
    law = _exact_law(unseen, 2)
    assert set(hands) == set(law)
    assert _agrees([hands[h] for h in law], [law[h] for h in law], n)
    # every distinct order of the multiset equally likely
    n_orders = 720 // (2 * 2)
    assert len(orders) == n_orders
    assert _agrees(list(orders.values()), np.full(len(orders), 1 / n_orders), n)


def test_a_declared_opponent_is_ready_in_every_world_with_the_exact_law():
    """A declared opponent with three melds holds four tiles: the worlds are the uniform law restricted
    to the ready ones, exactly."""
    rules = get_rules("douque")
    tables = hand_tables(rules)
    work = np.zeros(20, np.int64)
    unseen = {0: 3, 1: 2, 2: 1, 8: 2, 27: 2, 28: 1}

    def ready(hand):
        c = np.zeros(34, np.uint8)
        for k in hand:
            c[k] += 1
        return shanten_kernel(c, 3, tables, work) == 0

    law = _exact_law(unseen, 4, ready)
    assert 0 < len(law) < len(_exact_law(unseen, 4))  # the condition bites
    n = 20_000
    hands, _ = _sampled(unseen, 4, n, opp_melds=3, opp_ready=True)
    assert set(hands) <= set(law)
    assert _agrees([hands[h] for h in law], [law[h] for h in law], n)


def test_no_ready_world_is_reported():
    counts = np.zeros(34, np.int64)
    counts[[0, 4, 8, 12]] = 1  # 1m 5m 9m 4p-ish kinds: four singles, never ready with three melds
    counts[[12]] = 0
    counts[[20, 27]] = 1
    tables = hand_tables(get_rules("night_market"))
    tiles, opp = np.zeros(5, np.int8), np.zeros(34, np.uint8)
    state = np.array([1], np.uint64)
    assert sample_hidden(counts, 4, 3, True, tables, state, tiles, opp, np.zeros(20, np.int64)) == -1


def test_sample_view_world_from_a_policy_view():
    """The one call a policy makes: a world consistent with its view (counts equal the unseen tiles,
    the opponent's part its concealed size)."""
    s = GameState.new_match("night_market", 5, 0)
    rng = np.random.default_rng(0)
    for _ in range(15):
        s.apply(int(rng.choice(np.flatnonzero(s.legal))))
    view = s.view()
    tiles, opp = np.zeros(136, np.int8), np.zeros(34, np.uint8)
    n = sample_view_world(view, np.array([9], np.uint64), tiles, opp)
    truth = _truth(s, s.player)
    assert n == truth.sum()
    assert np.array_equal(np.bincount(tiles[:n].astype(np.int64), minlength=34), truth)
    assert opp.sum() == 13 - 3 * view.opp_n_melds
