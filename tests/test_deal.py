"""Counter-based randomness and dealing: reproducible whatever the threads or slicing, and fair."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import simkit
from simkit._jit import jit
from simkit.engine.rng import bounded, new_stream, stream_key


@jit
def _draw_bounded(seed, n, k):
    state = new_stream(seed, 0, 0)
    out = np.empty(k, np.int64)
    for i in range(k):
        out[i] = bounded(state, n)
    return out


def test_stream_keys_differ_and_are_stable():
    keys = {int(stream_key(7, a, b)) for a in range(200) for b in range(5)}
    assert len(keys) == 1000
    assert int(stream_key(7, 3, 1)) == int(stream_key(7, 3, 1))
    assert int(stream_key(7, 3, 1)) != int(stream_key(8, 3, 1))


@pytest.mark.parametrize("n", [2, 7, 72, 1000])
def test_bounded_is_uniform(n):
    k = 200 * n
    draws = _draw_bounded(123, n, k)
    assert draws.min() == 0 and draws.max() == n - 1
    counts = np.bincount(draws, minlength=n)
    chi2 = ((counts - k / n) ** 2 / (k / n)).sum()
    # chi-square with n-1 degrees of freedom: mean n-1, sd sqrt(2(n-1)); 6 sd is a very loose bound
    assert chi2 < (n - 1) + 6 * np.sqrt(2 * (n - 1))


@pytest.mark.parametrize("name", ["douque", "night_market", "duel", "for_two"])
def test_deals_conserve_tiles(name):
    rules = simkit.get_rules(name)
    dealer, other = simkit.deal_hands(5000, seed=3, rules=rules)
    assert (dealer.sum(1) == 14).all() and (other.sum(1) == 13).all()
    assert ((dealer.astype(int) + other) <= 4).all()
    outside = ~rules.tile_mask
    assert not dealer[:, outside].any() and not other[:, outside].any()


def test_deal_is_fair():
    rules = simkit.get_rules("douque")
    n = 200_000
    dealer, _ = simkit.deal_hands(n, seed=5, rules=rules)
    mean = dealer[:, list(rules.kinds)].mean(0)
    expected = 14 * 4 / 72
    # per-kind count: hypergeometric, variance <= 14 * p(1-p); 6 standard errors
    se = np.sqrt(14 * (4 / 72) * (68 / 72) / n)
    assert np.abs(mean - expected).max() < 6 * se


def test_same_seed_same_deals_whatever_the_threads_or_slicing():
    ref_d, ref_o = simkit.deal_hands(10_000, seed=42)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_d, one_o = simkit.deal_hands(10_000, seed=42)
        s1 = simkit.deal_stats(10_000, seed=42)
    finally:
        numba.set_num_threads(before)
    s2 = simkit.deal_stats(10_000, seed=42)
    assert np.array_equal(ref_d, one_d) and np.array_equal(ref_o, one_o)
    for a, b in zip(s1, s2):
        assert np.array_equal(a, b)
    part_d, part_o = simkit.deal_hands(1000, seed=42, start=4000)
    assert np.array_equal(part_d, ref_d[4000:5000]) and np.array_equal(part_o, ref_o[4000:5000])
    other_d, _ = simkit.deal_hands(10_000, seed=43)
    assert (other_d != ref_d).any(axis=1).mean() > 0.99


def test_deal_stats_agree_with_the_hand_api():
    rules = simkit.get_rules("douque")
    dealer, other = simkit.deal_hands(3000, seed=9, rules=rules)
    stats = simkit.deal_stats(3000, seed=9, rules=rules)
    assert np.array_equal(stats.dealer_win, simkit.is_win_batch(dealer, rules=rules))
    assert np.array_equal(stats.dealer_shanten, simkit.shanten_batch(dealer, rules=rules))
    assert np.array_equal(stats.other_shanten, simkit.shanten_batch(other, rules=rules))
    n_waits = [len(simkit.mask_to_kinds(m)) for m in simkit.waits_batch(other, rules=rules)]
    assert stats.other_wait_kinds.tolist() == n_waits


@pytest.mark.parametrize("bad", [dict(n=0), dict(n=-1), dict(n=1.5), dict(seed=-1), dict(start=-2)])
def test_deal_arguments_are_checked(bad):
    args = dict(n=10, seed=0, start=0) | bad
    with pytest.raises((ValueError, TypeError), match="|".join(bad)):
        simkit.deal_hands(args["n"], seed=args["seed"], start=args["start"])
