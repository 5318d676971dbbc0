"""The public hand API: fixtures with known answers, melds, rule sets, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import simkit
from simkit import HandError, MeldError, RulesError, TileCountError, TileNotationError


@pytest.mark.parametrize(
    "hand, rules, expected",
    [
        ("11123455678999m", "douque", True),
        ("111m99p111222333z", "douque", True),
        ("111m99p111222334z", "douque", False),
        ("123m123m123m1z1z1z2z2z", "douque", True),
        ("19p19p", None, None),
        ("11223344556677m", "douque", True),  # 123 123 456 456 77
        ("1133557799m1133z", "douque", False),  # seven pairs: not in douque
        ("1133557799m1133z", "duel", True),
        ("11113355779999m", "duel", True),  # four identical = two pairs
        ("11113355779999m", "douque", False),
        ("123p456s789m11122z", "for_two", True),
        ("123p456s789m11122z", "douque", None),  # 2p is not a douque tile
    ],
)
def test_is_win_fixtures(hand, rules, expected):
    if expected is None:
        with pytest.raises((TileNotationError, HandError)):
            simkit.is_win(hand, rules=rules or "douque")
    else:
        assert simkit.is_win(hand, rules=rules) is expected


def test_dots_have_no_chows_in_douque():
    # 1p 9p are the only dots: 11p + 99p can be pairs or pungs, never runs
    assert simkit.waits("111m999p1112223z") == ["3z"]
    # 1111p: in for_two 1p can still join a 123p chow; in douque the fourth 1p is dead weight
    assert simkit.shanten("1111p9999p11z123m", rules="for_two") == 1
    assert simkit.shanten("1111p9999p11z123m", rules="douque") == 2


def test_waits_fixtures():
    assert simkit.waits("1112345678999m") == [f"{i}m" for i in range(1, 10)]
    assert simkit.waits("111m99p11122233z") == ["9p", "3z"]
    assert simkit.waits("2345m", melds=["pung 111z", "pung 222z", "pung 333z"]) == ["2m", "5m"]


def test_waits_never_a_kind_held_four_times():
    melds = ["pung 555z", "pung 666z", "pung 777z"]
    # 1111m: 111m + 1m waits on 1m, but all four 1m are held
    assert simkit.waits("1111m", melds=melds) == []
    assert simkit.waits("1113m", melds=melds) == ["2m", "3m"]
    # 4 copies counted over hand and own melds: a 1m single wait with the 111m pung claimed
    assert simkit.waits("1m", melds=["pung 111m", "pung 555z", "pung 666z", "pung 777z"]) == []
    assert simkit.waits("2m", melds=["pung 111m", "pung 555z", "pung 666z", "pung 777z"]) == ["2m"]


def test_waits_with_melds_counts_meld_tiles():
    # concealed 2m3m4m5m + ... wait 2m/5m; holding pung of 555m... use kong of 5m in melds
    assert simkit.waits("2344m", melds=["pung 555z", "pung 666z", "pung 777z"]) == ["1m", "4m"]
    assert simkit.waits("2345m", melds=["pung 555z", "pung 666z", "pung 777z"]) == ["2m", "5m"]
    assert simkit.waits("2345m", melds=["pung 555m", "pung 666z", "pung 777z"]) == ["2m"]


def test_seven_pairs_waits_and_shanten_in_duel():
    assert simkit.waits("1133557799m113z", rules="duel") == ["3z"]
    assert simkit.waits("1133557799m113z", rules="douque") == []
    assert simkit.waits("1111335577999m", rules="duel") == ["9m"]  # 11 11 33 55 77 99 + 9
    assert simkit.shanten("1133557799m1134z", rules="duel") == 0
    assert simkit.shanten("1133557799m1134z", rules="douque") >= 1


def test_shanten_fixtures():
    assert simkit.shanten("11123455678999m") == -1
    assert simkit.shanten("1112345678999m") == 0
    assert simkit.shanten("159m19p1234567z1m") == 7
    assert simkit.shanten("1m", melds=["pung 111z", "pung 222z", "pung 333z", "pung 444z"]) == 0
    assert simkit.shanten("12m", melds=["pung 111z", "pung 222z", "pung 333z", "pung 444z"]) == 0


def test_splits_fixtures():
    assert sorted(simkit.splits("11122233355577z".replace("z", "m"))) == sorted(
        [
            ("pung 111m", "pung 222m", "pung 333m", "pung 555m", "pair 77m"),
            ("chow 123m", "chow 123m", "chow 123m", "pung 555m", "pair 77m"),
        ]
    )
    assert simkit.splits("11899m", melds=["pung 111z", "pung 222z", "pung 333z"]) == []
    assert simkit.splits("11999m", melds=["pung 111z", "pung 222z", "pung 333z"]) == [("pung 999m", "pair 11m")]


def test_count_arrays_accepted():
    c = simkit.parse_tiles("1112345678999m")
    assert simkit.waits(c) == simkit.waits("1112345678999m")
    assert simkit.shanten(list(c)) == 0


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: simkit.is_win("123x"), TileNotationError, "unknown character"),
        (lambda: simkit.is_win("123"), TileNotationError, "suit"),
        (lambda: simkit.is_win("0m"), TileNotationError, "0"),
        (lambda: simkit.is_win("8z"), TileNotationError, "8z"),
        (lambda: simkit.is_win("11111m"), TileCountError, "5 copies of 1m"),
        (lambda: simkit.is_win("123s456m"), TileNotationError, "not a tile of rule set 'douque'"),
        (lambda: simkit.is_win("123456m"), HandError, "14"),
        (lambda: simkit.waits("1112345678999m1z"), HandError, "13"),
        (lambda: simkit.shanten("123m"), HandError, "13 or 14"),
        (lambda: simkit.splits("1112345678999m"), HandError, "14"),
        (lambda: simkit.is_win("111m", melds=["pung 111m"] * 4 + ["pung 2z"]), MeldError, "4"),
        (lambda: simkit.is_win("12m", melds=["chow 345m"]), MeldError, "chow"),
        (lambda: simkit.waits("1m", melds=["pung 111m", "kong 1111m", "pung 222z"]), TileCountError, "1m"),
        (lambda: simkit.is_win("11123455678999m", rules="riichi"), RulesError, "douque"),
        (lambda: simkit.is_win(np.zeros(33, np.uint8)), TileCountError, "34"),
        (lambda: simkit.is_win_batch(np.zeros((3, 34), np.uint8)), HandError, "row 0"),
        (lambda: simkit.shanten_batch(np.full((2, 34), 5, np.uint8)), TileCountError, "0..4"),
        (
            lambda: simkit.waits_batch(np.tile(simkit.parse_tiles("1111s2222m33334444z1z", "for_two"), (2, 1))),
            TileCountError,
            "1s",
        ),
    ],
)
def test_bad_input_errors_name_the_problem(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_batch_matches_single(all_rules):
    for rules in all_rules.values():
        dealer, other = simkit.deal_hands(2000, seed=1, rules=rules)
        wins = simkit.is_win_batch(dealer, rules=rules)
        sh = simkit.shanten_batch(other, rules=rules)
        masks = simkit.waits_batch(other, rules=rules)
        for i in range(0, 2000, 97):
            assert wins[i] == simkit.is_win(dealer[i], rules=rules)
            assert sh[i] == simkit.shanten(other[i], rules=rules)
            assert [simkit.tile_name(k) for k in simkit.mask_to_kinds(masks[i])] == simkit.waits(other[i], rules=rules)


def _numpy_checked(fn, counts, n_melds, rules, meld_counts=None):
    """A batch call checked the plain way, as the reference for the kernel's own checks: every value
    checked in numpy first, then the unchecked kernel. Returns the output or the error (type,
    message)."""
    from simkit.hand import api
    from simkit.hand.shanten import shanten_batch_kernel
    from simkit.hand.tables import hand_tables
    from simkit.hand.waits import waits_batch_kernel
    from simkit.hand.win import is_win_batch_kernel

    rules = simkit.get_rules(rules)
    t = hand_tables(rules)
    try:
        c = api._batch_counts(counts, rules, fn)
        k = api._batch_melds(n_melds, len(c), fn)
        api._check_batch_sizes(c, k, {"is_win_batch": (14,), "waits_batch": (13,), "shanten_batch": (13, 14)}[fn], fn)
        if fn == "is_win_batch":
            out = np.empty(len(c), np.bool_)
            is_win_batch_kernel(c, k, t, out)
        elif fn == "shanten_batch":
            out = np.empty(len(c), np.int8)
            shanten_batch_kernel(c, k, t, out)
        else:
            mc = np.zeros_like(c)
            if meld_counts is not None:
                mc = api._batch_counts(meld_counts, rules, "waits_batch (meld_counts)")
                if mc.shape != c.shape:
                    raise TileCountError(f"waits_batch: meld_counts shape {mc.shape} differs from counts {c.shape}")
                over = (c.astype(np.int16) + mc) > 4
                if over.any():
                    row, kind = np.argwhere(over)[0]
                    raise TileCountError(
                        f"waits_batch: row {row} holds more than 4 copies of {simkit.tile_name(int(kind))}"
                    )
            out = np.empty(len(c), np.int64)
            waits_batch_kernel(c, k, mc, t, out)
        return out
    except simkit.SimkitError as exc:
        return type(exc), str(exc)


_PROBLEMS = ("outside 0..4", "not a tile of", "between 0 and 4", "tiles with", "more than 4 copies")


@pytest.mark.engine  # a long sweep against a reference: engine tier (tests/README.md)
def test_batch_checks_in_the_kernel_agree_with_the_numpy_checks():
    """The batch calls check every row in the kernel's parallel pass: on random
    inputs, mostly sound with a few bad values (counts above 4 or negative, missing kinds, wrong
    sizes, n_melds out of range, meld counts over the 4-copy limit, several problems at once, in
    several dtypes), they return what the numpy checks and the unchecked kernels return, or raise
    the same error with the same message."""
    rng = np.random.default_rng(23)
    seen = set()
    for case in range(400):
        rules = ("douque", "night_market", "duel", "for_two")[case % 4]
        fn = ("is_win_batch", "shanten_batch", "waits_batch")[(case // 4) % 3]
        n = int(rng.integers(1, 3000)) if case % 5 else int(rng.integers(0, 4))
        size = {"is_win_batch": 14, "waits_batch": 13, "shanten_batch": int(rng.integers(13, 15))}[fn]
        dealer, other = simkit.deal_hands(max(n, 1), seed=case, rules=rules)
        counts = (dealer if size == 14 else other)[:n].astype(np.int64)
        n_melds = 0
        if rng.random() < 0.4:  # per-row melds: take tiles off to keep the sizes right
            n_melds = rng.integers(0, 2, n)
            for i in np.flatnonzero(n_melds):
                for _ in range(3):
                    counts[i, rng.choice(np.flatnonzero(counts[i]))] -= 1
        meld_counts = None
        if fn == "waits_batch" and rng.random() < 0.5:
            meld_counts = np.zeros_like(counts)
            meld_counts[:, rng.choice(np.flatnonzero(simkit.get_rules(rules).tile_mask), 4)] = 1
        for _ in range(int(rng.integers(0, 4))):  # a few bad values
            if not n:
                break
            i, kind = int(rng.integers(n)), int(rng.integers(34))
            what = int(rng.integers(6))
            if what == 0:
                counts[i, kind] = int(rng.choice([5, 6, 7, 8, 100, 253, 255, -1]))
            elif what == 1:
                counts[i, kind] += 1  # a wrong size, or a missing kind
            elif what == 2:
                counts[i, kind] = max(counts[i, kind] - 1, 0)
            elif what == 3 and not np.isscalar(n_melds):
                n_melds[i] = int(rng.choice([-1, 5, 9]))
            elif what == 4:
                n_melds = int(rng.choice([-1, 5, 1]))
            elif what == 5 and meld_counts is not None:
                meld_counts[i, kind] = int(rng.choice([3, 4, 5, 255, -1, 300]))
        dtype = np.uint8 if rng.random() < 0.7 else rng.choice([np.int64, np.int8, np.uint16])
        if dtype == np.uint8 or (counts >= 0).all():
            with np.errstate(all="ignore"):
                counts = counts.astype(dtype)
        if meld_counts is not None and rng.random() < 0.6 and ((meld_counts >= 0) & (meld_counts <= 255)).all():
            meld_counts = meld_counts.astype(np.uint8)
        expected = _numpy_checked(fn, counts, n_melds, rules, meld_counts)
        kw = {"meld_counts": meld_counts} if meld_counts is not None else {}
        try:
            got = getattr(simkit, fn)(counts, n_melds, rules=rules, **kw)
        except simkit.SimkitError as exc:
            got = type(exc), str(exc)
        if isinstance(expected, tuple):
            assert got == expected, (case, fn, rules)
            seen.update(word for word in _PROBLEMS if word in expected[1])
        else:
            assert isinstance(got, np.ndarray) and got.dtype == expected.dtype and np.array_equal(got, expected), (
                case,
                fn,
            )
            seen.add("ok")
    assert seen == {"ok", *_PROBLEMS}, seen  # sound batches and every kind of bad value were met
