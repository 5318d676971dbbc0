"""Tests of the pure-Python reference (tests/reference.py) and the mahjong-package oracle.

Fixtures with hand-checked answers, then property tests: internal consistency, a literal
brute force for small concealed parts, and agreement with the PyPI ``mahjong`` package on
random hands from the 136-tile wall.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

try:  # tests/ as a plain directory (pytest prepends it to sys.path) ...
    import oracle
    import reference as ref
except ImportError:  # ... or as a package
    from tests import oracle
    from tests import reference as ref

P = ref.parse_hand
ALL = ref.ALL_KINDS
DOUQUE = ref.DOUQUE_KINDS
MZ = ref.MZ_KINDS


def kind(text: str) -> int:
    """'5p' -> 13."""
    (i,) = [i for i, x in enumerate(P(text)) if x]
    return i


def plus(counts, *tiles: int) -> list[int]:
    out = list(counts)
    for t in tiles:
        out[t] += 1
    return out


def random_hand(rng: np.random.Generator, n_tiles: int, kinds=ALL) -> list[int]:
    """n_tiles drawn without replacement from the wall of 4 copies of each kind in kinds."""
    wall = np.repeat(np.asarray(kinds), 4)
    return np.bincount(rng.choice(wall, n_tiles, replace=False), minlength=34).tolist()


# ------------------------------------------------------------------ helpers


def test_parse_and_text_roundtrip():
    c = P("123m19p55z")
    assert sum(c) == 7 and c[0] == c[1] == c[2] == 1 and c[9] == c[17] == 1 and c[31] == 2
    assert ref.hand_text(c) == "123m19p55z"
    assert kind("1p") == 9 and kind("9s") == 26 and kind("1z") == 27 and kind("7z") == 33
    assert set(DOUQUE) == set(range(9)) | {9, 17} | set(range(27, 34)) and len(DOUQUE) == 18


# ------------------------------------------------------------------ ref_is_win / ref_splits


def test_four_pungs_hand_has_four_splits():
    c = P("11122233344455m")
    assert ref.ref_is_win(c)
    assert ref.ref_splits(c) == {
        (("pair", 4), ("pung", 0), ("pung", 1), ("pung", 2), ("pung", 3)),  # 111 222 333 444 55
        (("chow", 0), ("chow", 0), ("chow", 0), ("pair", 4), ("pung", 3)),  # 123x3 444 55
        (("chow", 1), ("chow", 1), ("chow", 1), ("pair", 4), ("pung", 0)),  # 111 234x3 55
        (("chow", 1), ("chow", 2), ("chow", 2), ("pair", 1), ("pung", 0)),  # 111 22 234 345x2
    }


def test_111222333_two_splits():
    # with one exposed meld: 11 concealed tiles
    c = P("111222333m11z")
    assert ref.ref_is_win(c, n_melds=1)
    assert not ref.ref_is_win(c)  # 11 tiles are not a complete hand without melds
    assert ref.ref_splits(c, n_melds=1) == {
        (("pair", 27), ("pung", 0), ("pung", 1), ("pung", 2)),
        (("chow", 0), ("chow", 0), ("chow", 0), ("pair", 27)),
    }
    c14 = P("111222333m456p11z")
    assert len(ref.ref_splits(c14)) == 2


def test_splits_of_non_win_and_wrong_total_are_empty():
    assert ref.ref_splits(P("1112345678999m")) == set()  # 13 tiles
    assert ref.ref_splits(P("11122233344457m")) == set()  # 14 tiles, no split
    assert ref.ref_splits(P("19m19p19s1234567z1z")) == set()  # kokushi is not regular


def test_no_chow_wrapping_or_honor_chows():
    assert not ref.ref_is_win(P("891m234p567s555z11z"))  # 891m: no wrapping
    assert ref.ref_is_win(P("789m234p567s555z11z"))
    assert not ref.ref_is_win(P("123z456m789m111p22s"))  # 123z is not a chow
    # chows never cross suits: 89m1p
    assert not ref.ref_is_win(P("89m1p456p789p111s22z"))


def test_honor_only_hands():
    assert ref.ref_is_win(P("11122233344455z"))
    assert ref.ref_splits(P("11122233344455z")) == {
        (("pair", 31), ("pung", 27), ("pung", 28), ("pung", 29), ("pung", 30))
    }
    assert not ref.ref_is_win(P("11223344556677z"))  # no honor chows, no seven pairs
    assert ref.ref_waits(P("1112223334445z")) == {kind("5z")}
    assert ref.ref_waits(P("1122333444555z")) == {kind("1z"), kind("2z")}
    assert ref.ref_shanten(P("1234567z1234567z")) == 3  # 4 pairs -> pungs (1 tile each), 1 pair
    assert ref.ref_shanten(P("1234567z1234567z"), seven_pairs=True) == -1


def test_wrong_total_and_foreign_kinds_are_not_wins():
    assert not ref.ref_is_win(P("1112345678999m"))  # 13 tiles
    assert not ref.ref_is_win(P("11122233344455m"), n_melds=1)  # 14 != 11
    # 123p is a chow in for_two but 2p, 3p do not exist in douque
    c = P("123p456m789m111z22z")
    assert ref.ref_is_win(c)
    assert not ref.ref_is_win(c, kinds=DOUQUE)
    assert not ref.ref_is_win(P("123m456m789m111s22z"), kinds=MZ)  # no bamboo in duel
    assert ref.ref_is_win(P("123m456m789m111z22z"), kinds=MZ)


def test_n_melds_small_concealed_parts():
    assert ref.ref_is_win(P("11m"), n_melds=4)
    assert not ref.ref_is_win(P("12m"), n_melds=4)
    assert ref.ref_is_win(P("11m123p"), n_melds=3)
    assert ref.ref_waits(P("1m"), n_melds=4) == {0}
    assert ref.ref_shanten(P("1m"), n_melds=4) == 0
    assert ref.ref_shanten(P("12m"), n_melds=4) == 0  # discard one, wait on the other
    assert ref.ref_shanten(P("19m"), n_melds=4) == 0
    assert ref.ref_shanten(P("11m"), n_melds=4) == -1
    assert ref.ref_waits(P("2345m"), n_melds=3) == {kind("2m"), kind("5m")}
    assert ref.ref_waits(P("1345m"), n_melds=3) == {kind("1m")}


# ------------------------------------------------------------------ ref_waits


def test_nine_gates_waits_on_all_nine():
    c = P("1112345678999m")
    assert ref.ref_waits(c) == set(range(9))
    assert ref.ref_shanten(c) == 0
    for t in range(9):
        assert ref.ref_is_win(plus(c, t))
        assert len(ref.ref_splits(plus(c, t))) == 1
    assert ref.ref_waits(c, kinds=MZ) == set(range(9))


def test_four_copies_excluded_from_waits():
    c = P("1111m234m567p789p")
    assert ref.ref_is_win(plus(c, kind("1m")))  # 111 11 234m 567p 789p: a 5th 1m would win ...
    assert ref.ref_waits(c) == {kind("4m")}  # ... but it does not exist
    c2 = P("1111m23m567p789p1s")
    assert ref.ref_waits(c2) == {kind("1s")}  # 111m 123m 567p 789p + tanki 1s
    # pure 1111m: 1111m234m567m999s waits on 4m and 7m only (1m excluded)
    assert ref.ref_waits(P("1111m234m567m999s")) == {kind("4m"), kind("7m")}


def test_meld_counts_exclusion():
    # one exposed pung of 5p, concealed 5p + three chows: tanki 5p, but that would be the 5th 5p
    c = P("5p123m456m789m")
    assert ref.ref_waits(c, n_melds=1) == {kind("5p")}
    assert ref.ref_waits(c, n_melds=1, meld_counts=P("555p")) == set()
    # shanten ignores exposed tiles (mahjong-package convention): still "ready"
    assert ref.ref_shanten(c, n_melds=1) == 0
    # an exposed chow 456p uses one 5p: 1 + 1 = 2 < 4, still a wait
    assert ref.ref_waits(c, n_melds=1, meld_counts=P("456p")) == {kind("5p")}


def test_waits_wrong_total_raises():
    with pytest.raises(ValueError):
        ref.ref_waits(P("11122233344455m"))
    with pytest.raises(ValueError):
        ref.ref_waits(P("1112345678999m"), n_melds=1)


# ------------------------------------------------------------------ douque kinds


def test_douque_terminal_dots():
    # only 1p and 9p exist: the p group has no chow target at all
    targets_t, _starts, present = ref._group_targets((9, 17), True)
    assert present == (0, 1, 2, 3, 4)  # (melds, pairs) = (0,0) (0,1) (1,0) (1,1) (2,0)
    assert sorted(map(tuple, targets_t.T.tolist())) == sorted(
        [(0, 0), (2, 0), (0, 2), (3, 0), (0, 3), (3, 2), (2, 3), (3, 3)]
    )
    c = P("111p999p123m456m7m")
    assert ref.ref_waits(c, kinds=DOUQUE) == {kind("1m"), kind("4m"), kind("7m")}
    assert ref.ref_is_win(P("111p999p123m456m77m"), kinds=DOUQUE)
    c2 = P("123m456m789m1p9p11z")
    assert ref.ref_waits(c2, kinds=DOUQUE) == set()
    assert ref.ref_shanten(c2, kinds=DOUQUE) == 1
    c3 = P("123m456m789m11p11z")
    assert ref.ref_waits(c3, kinds=DOUQUE) == {kind("1p"), kind("1z")}
    assert ref.ref_shanten(P("123m456m789m111z1p"), kinds=DOUQUE) == 0  # tanki 1p
    assert ref.ref_waits(P("123m456m789m111z1p"), kinds=DOUQUE) == {kind("1p")}


# ------------------------------------------------------------------ seven pairs


def test_seven_pairs():
    c = P("11223344556677z")
    assert ref.ref_is_win(c, seven_pairs=True)
    assert not ref.ref_is_win(c)
    assert ref.ref_splits(c) == set()
    # four identical = two pairs (luxury seven pairs); not a regular hand
    lux = P("1111m33m55m77m99m11z")
    assert ref.ref_is_win(lux, seven_pairs=True)
    assert not ref.ref_is_win(lux)
    assert ref.ref_shanten(lux, seven_pairs=True) == -1
    assert ref.ref_shanten(lux) >= 0
    # 13 tiles: 111m + five pairs + 1z -> seven pairs waits on 1m (the 4th, making two pairs)
    c13 = P("111m33m55m77m99m11z")
    assert ref.ref_waits(c13, seven_pairs=True) == {kind("1m")}
    assert ref.ref_waits(c13) == set()
    assert ref.ref_shanten(c13, seven_pairs=True) == 0
    assert ref.ref_shanten(c13) == 2
    c13b = P("1111m33m55m77m99m1z")
    assert ref.ref_waits(c13b, seven_pairs=True) == {kind("1z")}
    # seven pairs only without exposed melds
    assert not ref.ref_is_win(P("1133557799m11z"), n_melds=1, seven_pairs=True)
    # a hand that is both: both views agree it is a win
    both = P("11223344556677m")
    assert ref.ref_is_win(both) and ref.ref_is_win(both, seven_pairs=True)
    assert len(ref.ref_splits(both)) == 3
    # kinds restriction applies to seven pairs too
    assert not ref.ref_is_win(P("1133557799m1199s"), kinds=MZ, seven_pairs=True)
    assert ref.ref_is_win(P("1133557799m1177z"), kinds=MZ, seven_pairs=True)


def test_seven_pairs_shanten_counts_quads_as_two_pairs():
    # 1111 2222 3333m 4z: two-pairs per quad -> 6 pairs + 4z single: ready (4z)
    c = P("111122223333m4z")
    assert ref.ref_shanten(c, seven_pairs=True) == 0
    assert ref.ref_waits(c, seven_pairs=True) == {kind("4z")}
    # the mahjong package's chiitoitsu needs seven DISTINCT pairs (different rule):
    from mahjong.shanten import Shanten

    assert Shanten.calculate_shanten_for_chiitoitsu_hand(c) == 6


# ------------------------------------------------------------------ shanten fixtures


@pytest.mark.parametrize(
    ("hand", "expected"),
    [
        ("11122233344455m", -1),
        ("1112345678999m", 0),
        ("123m456m789m1234p", 0),  # waits 1p, 4p
        ("123m456m789m12p5z6z", 1),  # needs 3p and a pair (5z or 6z)
        ("19m19p19s1234567z", 8),  # thirteen orphans shape: 8 regular
        ("19m19p19s1234567z1z", 7),
        ("147m258p369s1234z", 8),  # every tile isolated
        ("123m456m789m111z2z", 0),
        ("123m456m789m1111z", 1),  # the 4th 1z is useless and 1z cannot be the pair
        ("1111m2222m3333m4m", 0),  # 123x3 + 1234m: waits 1m? no (4 held); 4m, ...
        ("11112222333344m", -1),
    ],
)
def test_shanten_classic(hand, expected):
    c = P(hand)
    assert ref.ref_shanten(c) == expected
    assert oracle.mj_regular_shanten(c) == expected


def test_shanten_wrong_total_raises():
    with pytest.raises(ValueError):
        ref.ref_shanten(P("111222333m"))
    with pytest.raises(ValueError):
        ref.ref_shanten(P("11122233344455m1z"))
    with pytest.raises(ValueError):
        ref.ref_shanten(P("1112345678999m"), n_melds=1)


def test_shanten_with_melds():
    assert ref.ref_shanten(P("1112345678m"), n_melds=1) == 0
    assert ref.ref_shanten(P("123m456m789m5p"), n_melds=1) == 0
    assert ref.ref_shanten(P("1m5m9m1p5p9p1s5s9s1z"), n_melds=1) == 6


# ------------------------------------------------------------------ literal brute force


def _literal_targets(n_melds: int, kinds) -> np.ndarray:
    """Every complete concealed target (4-k melds + pair over kinds, counts <= 4), literally."""
    ks = sorted(kinds)
    melds = [(i, i, i) for i in ks] + [
        (i, i + 1, i + 2) for i in ks if ref.chow_starts_ok(i) and i + 1 in ks and i + 2 in ks
    ]
    out = set()
    for chosen in itertools.combinations_with_replacement(melds, 4 - n_melds):
        for p in ks:
            t = [0] * 34
            t[p] += 2
            for tile in itertools.chain(*chosen):
                t[tile] += 1
            if max(t) <= 4:
                out.add(tuple(t))
    return np.array(sorted(out), dtype=np.int64)


@pytest.mark.parametrize(("n_melds", "kinds"), [(4, ALL), (3, ALL), (3, DOUQUE), (2, MZ), (2, DOUQUE)])
def test_shanten_equals_literal_brute_force(n_melds, kinds):
    targets = _literal_targets(n_melds, kinds)
    rng = np.random.default_rng(1000 + n_melds)
    n = 4 - n_melds
    for i in range(150):
        c = random_hand(rng, 3 * n + 1 + (i % 2), kinds)
        expected = int(np.maximum(targets - np.asarray(c), 0).sum(axis=1).min()) - 1
        assert ref.ref_shanten(c, n_melds, kinds) == expected, ref.hand_text(c)
        assert ref.ref_is_win(c, n_melds, kinds) == (expected == -1 and sum(c) == 3 * n + 2)


def test_seven_pairs_shanten_equals_literal_brute_force():
    # seven-pair targets over a small kind set, enumerated literally (each kind 0, 2 or 4)
    ks = [0, 1, 2, 9, 27, 28, 29, 30, 31]
    targets = []
    for v in itertools.product((0, 2, 4), repeat=len(ks)):
        if sum(v) == 14:
            t = [0] * 34
            for k, x in zip(ks, v):
                t[k] = x
            targets.append(t)
    targets = np.array(targets)
    rng = np.random.default_rng(7)
    for i in range(200):
        c = random_hand(rng, 13 + i % 2, ks)
        expected = int(np.maximum(targets - np.asarray(c), 0).sum(axis=1).min()) - 1
        assert ref._seven_pairs_deficit(tuple(c), frozenset(ks)) - 1 == expected


# ------------------------------------------------------------------ internal consistency


@pytest.mark.parametrize(
    ("kinds", "seven_pairs", "n_melds"),
    [(ALL, False, 0), (DOUQUE, False, 0), (MZ, True, 0), (DOUQUE, False, 1), (MZ, False, 2)],
)
def test_consistency_is_win_waits_shanten_splits(kinds, seven_pairs, n_melds):
    rng = np.random.default_rng(hash((len(kinds), seven_pairs, n_melds)) % 2**32)
    n = 4 - n_melds
    for _ in range(300):
        # 13-3k tiles: waits nonempty <=> shanten 0 (no exposed tiles given)
        c = random_hand(rng, 3 * n + 1, kinds)
        w = ref.ref_waits(c, n_melds, kinds=kinds, seven_pairs=seven_pairs)
        s = ref.ref_shanten(c, n_melds, kinds, seven_pairs)
        assert (s == 0) == bool(w), ref.hand_text(c)
        for t in w:
            assert ref.ref_is_win(plus(c, t), n_melds, kinds, seven_pairs)
        # 14-3k tiles: win <=> shanten -1; splits nonempty <=> regular win
        c = random_hand(rng, 3 * n + 2, kinds)
        win = ref.ref_is_win(c, n_melds, kinds, seven_pairs)
        assert win == (ref.ref_shanten(c, n_melds, kinds, seven_pairs) == -1)
        splits = ref.ref_splits(c, n_melds)
        assert bool(splits) == ref.ref_is_win(c, n_melds, kinds, False)
        for sp in splits:
            back = [0] * 34
            for what, i in sp:
                for j in {"pung": (i, i, i), "chow": (i, i + 1, i + 2), "pair": (i, i)}[what]:
                    back[j] += 1
            assert back == c


def test_waits_of_winning_hands_minus_one_tile():
    # start from complete hands: removing any tile leaves a hand waiting on (at least) it
    rng = np.random.default_rng(11)
    found = 0
    for _ in range(4000):
        c = random_hand(rng, 14, MZ)
        if not ref.ref_is_win(c, kinds=MZ, seven_pairs=True):
            continue
        found += 1
        for t in [i for i, x in enumerate(c) if x]:
            c13 = list(c)
            c13[t] -= 1
            assert t in ref.ref_waits(c13, kinds=MZ, seven_pairs=True)
    assert found > 0


# ------------------------------------------------------------------ oracle (mahjong package)


def _oracle_hands(seed: int, n: int):
    rng = np.random.default_rng(seed)
    for i in range(n):
        yield random_hand(rng, 13 + i % 2)


def test_oracle_regular_shanten_random_136_wall():
    for c in _oracle_hands(2024, 4000):
        assert ref.ref_shanten(c) == oracle.mj_regular_shanten(c), ref.hand_text(c)


def test_oracle_regular_shanten_concentrated_hands():
    # hands drawn from few kinds: many 3- and 4-copy situations, low shanten
    rng = np.random.default_rng(77)
    for i in range(1500):
        kinds = rng.choice(34, int(rng.integers(4, 10)), replace=False)
        c = random_hand(rng, 13 + i % 2, kinds)
        assert ref.ref_shanten(c) == oracle.mj_regular_shanten(c), ref.hand_text(c)


def test_oracle_is_regular_win():
    rng = np.random.default_rng(5)
    n_win = 0
    for i in range(3000):
        kinds = rng.choice(34, int(rng.integers(5, 8)), replace=False)
        c = random_hand(rng, 14, kinds)
        win = ref.ref_is_win(c)
        n_win += win
        assert win == oracle.mj_is_regular_win(c), ref.hand_text(c)
        # Agari.is_agari agrees wherever its extra patterns cannot be involved
        if not oracle.is_seven_distinct_pairs_shape(c) and not oracle.is_kokushi_shape(c):
            assert win == oracle.mj_is_agari(c), ref.hand_text(c)
    assert n_win > 20


def test_oracle_waits():
    # t is a wait <=> fewer than 4 held and the package calls hand + t a regular win
    rng = np.random.default_rng(9)
    n_ready = 0
    for _ in range(600):
        kinds = rng.choice(34, int(rng.integers(5, 9)), replace=False)
        c = random_hand(rng, 13, kinds)
        w = ref.ref_waits(c)
        n_ready += bool(w)
        assert w == {t for t in range(34) if c[t] < 4 and oracle.mj_is_regular_win(plus(c, t))}
    assert n_ready > 20


def test_oracle_is_agari_is_not_regular_only():
    # seven distinct pairs: is_agari True, regular False -> is_agari alone is wrong
    c = P("11223344556677z")
    assert oracle.mj_is_agari(c) and not oracle.mj_is_regular_win(c) and not ref.ref_is_win(c)
    # kokushi: is_agari True, regular False
    k = P("19m19p19s1234567z1z")
    assert oracle.mj_is_agari(k) and not oracle.mj_is_regular_win(k) and not ref.ref_is_win(k)
    # both seven pairs and regular: "is_agari and not seven-pairs-shaped" would wrongly say no
    b = P("11223344556677m")
    assert oracle.is_seven_distinct_pairs_shape(b)
    assert oracle.mj_is_agari(b) and oracle.mj_is_regular_win(b) and ref.ref_is_win(b)


@pytest.mark.slow
def test_oracle_every_one_suit_hand():
    """Exhaustive (run with -m slow, ~1.5 min): every m-only 13/14-tile vector, counts <= 4."""
    for v in itertools.product(range(5), repeat=9):
        if sum(v) not in (13, 14):
            continue
        c = list(v) + [0] * 25
        s = ref.ref_shanten(c)
        assert s == oracle.mj_regular_shanten(c), ref.hand_text(c)
        if sum(v) == 14:
            assert ref.ref_is_win(c) == (s == -1) == oracle.mj_is_regular_win(c), ref.hand_text(c)
