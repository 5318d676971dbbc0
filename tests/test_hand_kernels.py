"""The numba hand kernels against the pure-Python reference (tests/reference.py) and the mahjong package.

* every one-suit hand of 13 and 14 tiles, and every honors-only hand (exhaustive);
* 100,000 random hands per tile set, without and with exposed melds, plus random complete and
  ready hands (which random deals almost never produce);
* the `mahjong` package's agari and regular shanten on random 34-kind hands without melds;
* discard_eval_kernel (every discard's shanten and live improving tiles, every live mode) against
  its definition from shanten_kernel, on random, dealt, near-ready, near-complete and pair-heavy
  hands with 0-4 exposed melds, plus hypothesis-drawn hands.
"""

from __future__ import annotations

import numba
import numpy as np
import oracle
import pytest
import reference as ref
from conftest import RULE_NAMES, one_suit_vectors, random_hands
from hypothesis import given, settings
from hypothesis import strategies as st

import simkit
from simkit.hand.shanten import (
    LIVE_ALL,
    LIVE_BEST,
    LIVE_NONE,
    LIVE_TIES,
    discard_eval_kernel,
    least_shanten_after_discard,
    shanten_kernel,
)
from simkit.hand.split import MAX_SPLITS, PART_NAMES, SCRATCH, splits_kernel
from simkit.hand.tables import hand_tables

N_RANDOM = 100_000  #: random hands per tile set and meld setting (acceptance: >= 100,000)


def _kernel_splits(counts, k, t):
    out = np.zeros((MAX_SPLITS, 5, 2), np.int8)
    n = splits_kernel(counts, k, t, out, np.empty(SCRATCH, np.int64))
    assert n <= MAX_SPLITS
    return {tuple(sorted((PART_NAMES[p], int(kind)) for p, kind in out[s, : 5 - k])) for s in range(n)}


def _ref_args(rules):
    return dict(kinds=rules.kinds, seven_pairs=rules.seven_pairs)


def _compare_win(rules, counts, ks):
    ours = simkit.is_win_batch(counts, ks, rules=rules)
    args = _ref_args(rules)
    for i in range(len(counts)):
        assert ours[i] == ref.ref_is_win(counts[i], int(ks[i]), **args), (rules.name, ref.hand_text(counts[i]), ks[i])
    return ours


def _compare_waits(rules, counts, ks, meld_counts):
    ours = simkit.waits_batch(counts, ks, meld_counts, rules=rules)
    args = _ref_args(rules)
    for i in range(len(counts)):
        expected = ref.ref_waits(counts[i], int(ks[i]), meld_counts[i], **args)
        assert simkit.mask_to_kinds(ours[i]) == sorted(expected), (rules.name, ref.hand_text(counts[i]), ks[i])
    return ours


def _compare_shanten(rules, counts, ks):
    ours = simkit.shanten_batch(counts, ks, rules=rules)
    args = _ref_args(rules)
    for i in range(len(counts)):
        assert ours[i] == ref.ref_shanten(counts[i], int(ks[i]), **args), (rules.name, ref.hand_text(counts[i]), ks[i])
    return ours


# ---------------------------------------------------------------------------------------------
# exhaustive


@pytest.fixture(scope="module")
def one_suit():
    out = {}
    for total in (13, 14):
        rows = one_suit_vectors(total)
        counts = np.zeros((len(rows), 34), np.uint8)
        counts[:, :9] = rows
        out[total] = counts
    return out


@pytest.mark.engine  # a long sweep against a reference: engine tier (tests/README.md)
def test_every_one_suit_14_tile_hand_win_and_splits(one_suit, all_rules):
    rules = all_rules["douque"]
    counts = one_suit[14]
    ks = np.zeros(len(counts), np.int64)
    wins = _compare_win(rules, counts, ks)
    assert 0 < wins.sum() < len(counts)
    t = hand_tables(rules)
    for i in np.flatnonzero(wins):
        assert _kernel_splits(counts[i], 0, t) == ref.ref_splits(counts[i], 0)


@pytest.mark.engine  # a long sweep against a reference: engine tier (tests/README.md)
def test_every_one_suit_13_tile_hand_waits(one_suit, all_rules):
    counts = one_suit[13]
    ks = np.zeros(len(counts), np.int64)
    masks = _compare_waits(all_rules["douque"], counts, ks, np.zeros_like(counts))
    assert (masks != 0).sum() > 1000


@pytest.mark.engine  # a long sweep against a reference: engine tier (tests/README.md)
@pytest.mark.parametrize("total", [13, 14])
def test_every_one_suit_hand_shanten(one_suit, all_rules, total):
    counts = one_suit[total]
    _compare_shanten(all_rules["douque"], counts, np.zeros(len(counts), np.int64))


@pytest.mark.engine  # a long sweep against a reference: engine tier (tests/README.md)
@pytest.mark.parametrize("name", ["douque", "duel"])
def test_every_pung_only_hand(all_rules, name):
    """Every hand of 13/14 tiles in the pung-only group (douque: 1p 9p + honors; duel: honors)."""
    rules = all_rules[name]
    t = hand_tables(rules)
    kinds = [int(k) for k in t.pung_kinds[: t.n_pung]]
    import itertools

    for total in (13, 14):
        rows = [c for c in itertools.product(range(5), repeat=len(kinds)) if sum(c) == total]
        counts = np.zeros((len(rows), 34), np.uint8)
        counts[:, kinds] = rows
        ks = np.zeros(len(rows), np.int64)
        _compare_shanten(rules, counts, ks)
        if total == 14:
            _compare_win(rules, counts, ks)
        else:
            _compare_waits(rules, counts, ks, np.zeros_like(counts))


# ---------------------------------------------------------------------------------------------
# random hands of every tile set


@pytest.mark.engine  # a long sweep against a reference: engine tier (tests/README.md)
@pytest.mark.parametrize("melds", [False, True], ids=["no-melds", "melds"])
@pytest.mark.parametrize("name", RULE_NAMES)
def test_random_hands_against_reference(all_rules, name, melds):
    rules = all_rules[name]
    rng = np.random.default_rng([RULE_NAMES.index(name), melds])
    counts, ks, meld_counts = random_hands(rng, rules.kinds, N_RANDOM, melds=melds, chows=rules.claim_chow)
    _compare_shanten(rules, counts, ks)
    full = counts.sum(1) == 14 - 3 * ks
    _compare_win(rules, counts[full], ks[full])
    _compare_waits(rules, counts[~full], ks[~full], meld_counts[~full])


@pytest.mark.engine  # a long sweep against a reference: engine tier (tests/README.md)
@pytest.mark.parametrize("name", RULE_NAMES)
def test_random_complete_and_ready_hands_against_reference(all_rules, name):
    rules = all_rules[name]
    n = 20_000
    k = np.random.default_rng(7).integers(0, 5, n)
    complete = simkit.random_complete_hands(n, seed=11, rules=rules, n_melds=k)
    wins = _compare_win(rules, complete, k)
    assert wins.all()
    t = hand_tables(rules)
    for i in range(0, n, 10):
        assert _kernel_splits(complete[i], int(k[i]), t) == ref.ref_splits(complete[i], int(k[i]))
    ready, removed = simkit.random_ready_hands(n, seed=12, rules=rules, n_melds=k)
    masks = _compare_waits(rules, ready, k, np.zeros_like(ready))
    assert all((int(m) >> int(r)) & 1 or ready[i, r] == 3 for i, (m, r) in enumerate(zip(masks, removed)))
    sh = _compare_shanten(rules, ready, k)
    assert (sh == 0).all()
    # a ready hand plus a non-winning tile is not complete; plus a winning tile it is
    plus = ready.copy()
    plus[np.arange(n), removed] += 1
    assert simkit.is_win_batch(plus, k, rules=rules).all()


@pytest.mark.engine  # a long sweep against a reference: engine tier (tests/README.md)
def test_seven_pairs_random_near_hands(all_rules):
    """Duel: hands one or two tiles from seven pairs, including four-of-a-kind pairs."""
    rules = all_rules["duel"]
    rng = np.random.default_rng(3)
    kinds = np.array(rules.kinds)
    rows = []
    while len(rows) < 20_000:
        c = np.zeros(34, np.uint8)
        for kind in rng.choice(kinds, size=7):  # the same kind twice gives four of a kind
            c[kind] += 2
        if c.max() > 4:
            continue
        if rng.random() < 0.5:  # swap one tile for another kind: one step from seven pairs
            c[rng.choice(np.flatnonzero(c))] -= 1
            kind = rng.choice(kinds[c[kinds] < 4])
            c[kind] += 1
        c13 = c.copy()
        c13[rng.choice(np.flatnonzero(c))] -= 1
        rows.append((c, c13))
    c14 = np.array([r[0] for r in rows])
    c13 = np.array([r[1] for r in rows])
    z = np.zeros(len(rows), np.int64)
    wins = _compare_win(rules, c14, z)
    assert wins.sum() > 1000
    _compare_shanten(rules, c14, z)
    _compare_shanten(rules, c13, z)
    _compare_waits(rules, c13, z, np.zeros_like(c13))


# ---------------------------------------------------------------------------------------------
# the mahjong package as an external oracle (34 kinds, regular form, no melds)


@pytest.mark.engine  # a long sweep against a reference: engine tier (tests/README.md)
def test_agari_and_regular_shanten_match_mahjong_package(all_rules):
    rules = all_rules["for_two"]  # all 34 kinds, no seven pairs: the package's regular hand
    rng = np.random.default_rng(2026)
    counts, ks, _ = random_hands(rng, rules.kinds, 30_000)
    complete = simkit.random_complete_hands(5_000, seed=5, rules=rules)
    ready, _ = simkit.random_ready_hands(5_000, seed=6, rules=rules)
    hands = np.concatenate([counts, complete, ready])
    ks = np.zeros(len(hands), np.int64)
    ours = simkit.shanten_batch(hands, ks, rules=rules)
    for i in range(len(hands)):
        assert ours[i] == oracle.mj_regular_shanten(hands[i]), ref.hand_text(hands[i])
    full = hands.sum(1) == 14
    wins = simkit.is_win_batch(hands[full], rules=rules)
    for c, w in zip(hands[full], wins):
        assert w == oracle.mj_is_regular_win(c), ref.hand_text(c)
        if not (oracle.is_seven_distinct_pairs_shape(c) or oracle.is_kokushi_shape(c)):
            assert w == oracle.mj_is_agari(c), ref.hand_text(c)
    assert wins.sum() >= 5_000


# ---------------------------------------------------------------------------------------------
# discard_eval_kernel: every discard's shanten and live improving tiles


@numba.njit(cache=False)
def _brute_discard_eval(hands, ks, visible, t, sh_out, live_out):  # pragma: no cover - compiled
    """The definition, from shanten_kernel on every hand - k and hand - k + x (LIVE_ALL)."""
    work = np.empty(20, np.int64)
    for i in range(hands.shape[0]):
        h = hands[i].copy()
        for k in range(34):
            sh_out[i, k] = 99
            live_out[i, k] = -1
        for u in range(t.kinds.shape[0]):
            k = t.kinds[u]
            if h[k] == 0:
                continue
            h[k] -= 1
            s0 = shanten_kernel(h, ks[i], t, work)
            live = 0
            for v in range(t.kinds.shape[0]):
                x = t.kinds[v]
                if visible[i, x] < 4 and h[x] < 4:
                    h[x] += 1
                    if shanten_kernel(h, ks[i], t, work) < s0:
                        live += 4 - visible[i, x]
                    h[x] -= 1
            h[k] += 1
            sh_out[i, k] = s0
            live_out[i, k] = live


def _check_discard_eval(t, hands, ks, visible):
    """discard_eval_kernel in every live mode against the brute-force definition; returns how many
    hands had two or more discards tying for least shanten."""
    n = len(hands)
    sh_ref = np.empty((n, 34), np.int64)
    live_ref = np.empty((n, 34), np.int64)
    _brute_discard_eval(hands, ks, visible, t, sh_ref, live_ref)
    sh = np.empty(34, np.int64)
    live = np.empty(34, np.int64)
    n_ties = 0
    for i in range(n):
        held = hands[i] > 0
        best_ref = sh_ref[i][held].min()
        on_best = sh_ref[i] == best_ref
        ties = on_best.sum() >= 2
        n_ties += ties
        expect = {
            LIVE_NONE: np.full(34, -1),
            LIVE_ALL: live_ref[i],
            LIVE_BEST: np.where(on_best, live_ref[i], -1),
            LIVE_TIES: np.where(on_best & ties, live_ref[i], -1),
        }
        for mode, live_expected in expect.items():
            best = discard_eval_kernel(hands[i], int(ks[i]), t, visible[i], sh, live, mode)
            ok = best == best_ref and np.array_equal(sh, sh_ref[i]) and np.array_equal(live, live_expected)
            assert ok, (ref.hand_text(hands[i]), int(ks[i]), visible[i].tolist(), mode, sh.tolist(), live.tolist())
    return n_ties


def _random_visible(rng, hands):
    """Copies seen: the hand plus 0-4 more of some kinds (capped at 4), so that kinds with every copy
    seen, and seen kinds of the hand, occur often; for one hand in five, any counts 0-4 (the kernel
    does not rely on the hand being included)."""
    extra = rng.integers(0, 5, hands.shape) * (rng.random(hands.shape) < 0.4)
    visible = np.minimum(hands.astype(np.int64) + extra, 4)
    free = rng.random(len(hands)) < 0.2
    visible[free] = rng.integers(0, 5, (free.sum(), 34))
    return visible


def _add_random_tiles(rng, hands, kinds, n_tiles):
    """Add ``n_tiles[i]`` random tiles of the tile set (at most 4 copies) to row i, in place."""
    kinds = np.asarray(kinds)
    for i in range(len(hands)):
        for _ in range(n_tiles[i]):
            room = kinds[hands[i, kinds] < 4]
            hands[i, rng.choice(room)] += 1


def _swap_random_tiles(rng, hands, kinds, n_swaps):
    """Swap ``n_swaps[i]`` tiles of row i for random kinds of the tile set, in place."""
    kinds = np.asarray(kinds)
    for i in range(len(hands)):
        for _ in range(n_swaps[i]):
            hands[i, rng.choice(np.flatnonzero(hands[i]))] -= 1
            room = kinds[hands[i, kinds] < 4]
            hands[i, rng.choice(room)] += 1


def _discard_eval_hands(rules, rng, n):
    """``n`` hands of ``14 - 3k`` tiles, k = 0..4, in five kinds: uniform random (with exposed
    melds), dealt, ready plus a random tile (near-ready; many discards tie), complete with 1-3 tiles
    swapped, and pair-heavy ones (seven pairs one to three tiles away)."""
    t = hand_tables(rules)
    kinds = [int(x) for x in rules.kinds]
    m = n // 5
    parts = []
    counts, ks, _ = random_hands(rng, kinds, m, sizes=(14,), melds=True, chows=rules.claim_chow)
    parts.append((counts, ks))
    dealt, _ = simkit.deal_hands(m, seed=int(rng.integers(1 << 30)), rules=rules)
    parts.append((dealt, np.zeros(m, np.int64)))
    ks = rng.integers(0, 5, m)
    ready, _ = simkit.random_ready_hands(m, seed=int(rng.integers(1 << 30)), rules=rules, n_melds=ks)
    _add_random_tiles(rng, ready, kinds, np.ones(m, np.int64))
    parts.append((ready, ks))
    ks = rng.integers(0, 5, m)
    complete = simkit.random_complete_hands(m, seed=int(rng.integers(1 << 30)), rules=rules, n_melds=ks)
    _swap_random_tiles(rng, complete, kinds, rng.integers(1, 4, m))
    parts.append((complete, ks))
    m = n - 4 * m
    pairs = np.zeros((m, 34), np.uint8)
    for i in range(m):
        while True:
            pairs[i] = 0
            for kind in rng.choice(kinds, size=7):  # the same kind twice gives four of a kind
                pairs[i, kind] += 2
            if pairs[i].max() <= 4:
                break
    _swap_random_tiles(rng, pairs, kinds, rng.integers(0, 4, m))
    parts.append((pairs, np.zeros(m, np.int64)))
    hands = np.concatenate([p[0] for p in parts])
    ks = np.concatenate([p[1] for p in parts]).astype(np.int64)
    assert (hands.sum(1) == 14 - 3 * ks).all() and hands.max() <= 4
    return t, hands, ks, _random_visible(rng, hands)


N_DISCARD_EVAL = 4_000  #: hands per rule set for discard_eval_kernel against the definition


@pytest.mark.parametrize("name", RULE_NAMES)
def test_discard_eval_matches_shanten_of_every_discard(all_rules, name):
    """discard_eval_kernel equals shanten_kernel on every hand - k and hand - k + x, in every live
    mode, on random, dealt, near-ready, near-complete and pair-heavy hands with 0-4 exposed melds."""
    rules = all_rules[name]
    rng = np.random.default_rng([RULE_NAMES.index(name), 17])
    t, hands, ks, visible = _discard_eval_hands(rules, rng, N_DISCARD_EVAL)
    n_ties = _check_discard_eval(t, hands, ks, visible)
    assert set(ks.tolist()) == {0, 1, 2, 3, 4}
    assert n_ties > N_DISCARD_EVAL // 2  # the LIVE_TIES path is well exercised


@pytest.mark.parametrize("name", RULE_NAMES)
def test_least_shanten_after_discard_is_the_best_discard(all_rules, name):
    """least_shanten_after_discard (one shanten call on the 14 - 3k tiles) equals the least shanten
    over every discard from the definition, on the same mix of hands (complete ones included)."""
    rules = all_rules[name]
    rng = np.random.default_rng([RULE_NAMES.index(name), 23])
    t, hands, ks, visible = _discard_eval_hands(rules, rng, N_DISCARD_EVAL)
    sh_ref = np.empty((len(hands), 34), np.int64)
    _brute_discard_eval(hands, ks, visible, t, sh_ref, np.empty((len(hands), 34), np.int64))
    work = np.empty(20, np.int64)
    n_complete = 0
    for i in range(len(hands)):
        expected = sh_ref[i][hands[i] > 0].min()
        n_complete += shanten_kernel(hands[i], int(ks[i]), t, work) == -1
        assert least_shanten_after_discard(hands[i], int(ks[i]), t, work) == expected, (
            ref.hand_text(hands[i]),
            int(ks[i]),
        )
    assert n_complete > 0  # the max(..., 0) case is exercised


@st.composite
def _hand_and_visible(draw, kinds):
    """A concealed part of ``14 - 3k`` tiles from a 4-copy wall of ``kinds``, and the copies seen."""
    n_melds = draw(st.integers(0, 4))
    wall = np.repeat(np.array(kinds), 4)
    order = draw(st.permutations(range(len(wall))))
    hand = np.bincount(wall[list(order[: 14 - 3 * n_melds])], minlength=34).astype(np.uint8)
    extra = np.array(draw(st.lists(st.integers(0, 4), min_size=34, max_size=34)))
    visible = np.minimum(hand.astype(np.int64) + extra, 4) if draw(st.booleans()) else extra
    return hand, n_melds, visible


@pytest.mark.parametrize("name", RULE_NAMES)
def test_discard_eval_hypothesis(all_rules, name):
    rules = all_rules[name]
    t = hand_tables(rules)

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(_hand_and_visible([int(x) for x in rules.kinds]))
    def check(case):
        hand, n_melds, visible = case
        _check_discard_eval(t, hand[None, :], np.array([n_melds]), visible[None, :])

    check()
