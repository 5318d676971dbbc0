"""The numba hand kernels against the pure-Python reference (tests/reference.py) and the mahjong package.

* every one-suit hand of 13 and 14 tiles, and every honors-only hand (exhaustive);
* 100,000 random hands per tile set, without and with exposed melds, plus random complete and
  ready hands (which random deals almost never produce);
* the `mahjong` package's agari and regular shanten on random 34-kind hands without melds.
"""

from __future__ import annotations

import numpy as np
import pytest

import oracle
import reference as ref
import simkit
from conftest import RULE_NAMES, one_suit_vectors, random_hands
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


def test_every_one_suit_14_tile_hand_win_and_splits(one_suit, all_rules):
    rules = all_rules["douque"]
    counts = one_suit[14]
    ks = np.zeros(len(counts), np.int64)
    wins = _compare_win(rules, counts, ks)
    assert 0 < wins.sum() < len(counts)
    t = hand_tables(rules)
    for i in np.flatnonzero(wins):
        assert _kernel_splits(counts[i], 0, t) == ref.ref_splits(counts[i], 0)


def test_every_one_suit_13_tile_hand_waits(one_suit, all_rules):
    counts = one_suit[13]
    ks = np.zeros(len(counts), np.int64)
    masks = _compare_waits(all_rules["douque"], counts, ks, np.zeros_like(counts))
    assert (masks != 0).sum() > 1000


@pytest.mark.parametrize("total", [13, 14])
def test_every_one_suit_hand_shanten(one_suit, all_rules, total):
    counts = one_suit[total]
    _compare_shanten(all_rules["douque"], counts, np.zeros(len(counts), np.int64))


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


@pytest.mark.parametrize("name", RULE_NAMES)
def test_discard_eval_matches_shanten_of_every_discard(all_rules, name):
    """discard_eval_kernel (incremental) equals shanten_kernel on every hand - k and hand - k + x."""
    from simkit.hand.shanten import LIVE_ALL, LIVE_BEST, LIVE_TIES, discard_eval_kernel, shanten_kernel

    rules = all_rules[name]
    t = hand_tables(rules)
    rng = np.random.default_rng(RULE_NAMES.index(name))
    dealt, _ = simkit.deal_hands(600, seed=4, rules=rules)
    k = rng.integers(0, 5, 400)
    complete = simkit.random_complete_hands(400, seed=4, rules=rules, n_melds=k)
    hands = list(zip(dealt, np.zeros(600, int))) + list(zip(complete, k))
    work = np.empty(20, np.int64)
    for hand, n_melds in hands:
        visible = np.minimum(hand.astype(np.int64) + rng.integers(0, 2, 34), 4)
        sh = np.empty(34, np.int64)
        live = np.empty(34, np.int64)
        best = discard_eval_kernel(hand, n_melds, t, visible, sh, live, LIVE_ALL)
        for kind in rules.kinds:
            if hand[kind] == 0:
                assert sh[kind] == 99
                continue
            h2 = hand.copy()
            h2[kind] -= 1
            s0 = shanten_kernel(h2, n_melds, t, work)
            expected_live = 0
            for x in rules.kinds:
                if visible[x] < 4 and h2[x] < 4:
                    h3 = h2.copy()
                    h3[x] += 1
                    if shanten_kernel(h3, n_melds, t, work) < s0:
                        expected_live += 4 - visible[x]
            assert (sh[kind], live[kind]) == (s0, expected_live), (ref.hand_text(hand), n_melds, kind)
        assert best == min(sh[kind] for kind in rules.kinds if hand[kind])
        sh2 = np.empty(34, np.int64)
        live2 = np.empty(34, np.int64)
        discard_eval_kernel(hand, n_melds, t, visible, sh2, live2, LIVE_BEST)
        assert np.array_equal(sh2, sh)
        assert all(live2[x] == (live[x] if sh[x] == best else -1) for x in range(34))
        ties = sum(1 for x in range(34) if sh[x] == best) >= 2
        discard_eval_kernel(hand, n_melds, t, visible, sh2, live2, LIVE_TIES)
        assert np.array_equal(sh2, sh)
        assert all(live2[x] == (live[x] if ties and sh[x] == best else -1) for x in range(34))
