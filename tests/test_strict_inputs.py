"""Strict inputs: out-of-range, wrong-typed and oversized values for score_batch, the command line,
payment options and match ids, and the rules behind them (real bools, integer counts, checks
before numba).

Every bad input ends in one error naming what is wrong -- a ``SimkitError`` (all are ``ValueError``s,
or ``InputTypeError``, a ``TypeError``, for a value of the wrong type) from the Python API, one line
``simkit: error: ...`` with exit code 2 from the command -- before anything enters numba. Command
cases run the real ``simkit`` command in a subprocess (``python -m simkit``).
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import simkit
from simkit.errors import InputTypeError, SimkitError
from simkit.rules import douque as douque_rules
from simkit.rules import duel as duel_rules
from simkit.rules import for_two as for_two_rules
from simkit.rules import night_market as night_market_rules

HAND = "123456789m111p99p"  # complete douque hand, wins on 6m
COUNTS = simkit.parse_tiles(HAND)[None].astype(np.int64)
WIN = 5  # 6m


def run_cli(*args, timeout=240):
    """Run ``python -m simkit ARGS``; return (exit code, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "simkit", *args], capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def assert_one_line_error(code, err, *needles):
    assert code == 2, err
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simkit: error: "), err
    for needle in needles:
        assert needle in lines[0], err


# ------------------------------------------------------------------ score_batch: out-of-range arrays


@pytest.mark.parametrize("kind", [34, 99, -1, 2**40])
def test_score_batch_out_of_range_meld_kind(kind):
    melds = np.zeros((1, 4, 2), np.int64)
    melds[0, 0] = (0, kind)
    counts = simkit.parse_tiles("123456789m99p")[None]
    with pytest.raises(simkit.ScoreError, match=r"melds\[0, 0\] has kind"):
        simkit.score_batch(counts, WIN, melds, 1)


@pytest.mark.parametrize("code", [5, -1, 255])
def test_score_batch_out_of_range_meld_type(code):
    melds = np.zeros((1, 4, 2), np.int64)
    melds[0, 0] = (code, 9)
    with pytest.raises(simkit.ScoreError, match=r"melds\[0, 0\] has type code"):
        simkit.score_batch(simkit.parse_tiles("123456789m99p")[None], WIN, melds, 1)


def test_score_batch_meld_rows_the_rule_set_does_not_allow():
    melds = np.zeros((1, 4, 2), np.int64)
    melds[0, 0] = (4, 0)  # chow 123m: douque claims no chows
    with pytest.raises(simkit.ScoreError, match="chow, which rule set 'douque' does not allow"):
        simkit.score_batch(simkit.parse_tiles("456789m111p99p")[None], WIN, melds, 1)
    melds[0, 0] = (4, 7)  # a chow from 8m
    with pytest.raises(simkit.ScoreError, match="a chow starts at rank 1-7"):
        simkit.score_batch(simkit.parse_tiles("123456m111p99p")[None], 2, melds, 1, rules="for_two")
    melds[0, 0] = (0, 10)  # pung 2p: not a douque tile
    with pytest.raises(simkit.ScoreError, match="not of rule set 'douque'"):
        simkit.score_batch(simkit.parse_tiles("123456789m99p")[None], WIN, melds, 1)
    melds[0, 0] = (1, 0)  # kong 1111m with 1m in the hand: 5 copies
    with pytest.raises(simkit.TileCountError, match="5 copies of 1m"):
        simkit.score_batch(simkit.parse_tiles("123456789m99p")[None], WIN, melds, 1)


@pytest.mark.parametrize("value", [255, -1, 5])
def test_score_batch_counts_out_of_range(value):
    counts = COUNTS.copy()
    counts[0, 0] = value
    with pytest.raises(simkit.TileCountError, match="count outside 0..4"):
        simkit.score_batch(counts, WIN)


def test_score_batch_counts_of_the_wrong_dtype_or_tiles():
    with pytest.raises(simkit.TileCountError, match="integers"):
        simkit.score_batch(COUNTS + 0.5, WIN)
    with pytest.raises(simkit.TileCountError, match="not a tile of rule set 'douque'"):
        simkit.score_batch(simkit.parse_tiles("123456789m222p99p")[None], WIN)
    with pytest.raises(simkit.ScoreError, match="shape"):
        simkit.score_batch(COUNTS[0], WIN)


@pytest.mark.parametrize("n_melds", [-7, 5, 2**40])
def test_score_batch_n_melds_out_of_range(n_melds):
    with pytest.raises(simkit.ScoreError, match="n_melds"):
        simkit.score_batch(COUNTS, WIN, n_melds=n_melds)


def test_score_batch_n_melds_must_be_integers():
    with pytest.raises(InputTypeError, match="n_melds must be integers"):
        simkit.score_batch(COUNTS, WIN, n_melds=1.5)


@pytest.mark.parametrize("win", [1_000_000, 34, -1])
def test_score_batch_win_tile_out_of_range(win):
    with pytest.raises(simkit.ScoreError, match=r"win_tile\[0\]=.* is not a tile"):
        simkit.score_batch(COUNTS, win)


def test_score_batch_win_tile_not_held_or_not_an_integer():
    with pytest.raises(simkit.ScoreError, match="the winning tile 1z is not in the hand"):
        simkit.score_batch(COUNTS, 27)
    with pytest.raises(InputTypeError, match="win_tile must be integers"):
        simkit.score_batch(COUNTS, 5.0)
    with pytest.raises(simkit.ScoreError, match="N=1"):
        simkit.score_batch(COUNTS, [5, 5])


def test_score_batch_flags_are_bools_and_codes_in_range():
    with pytest.raises(InputTypeError, match="self_drawn must be True / False"):
        simkit.score_batch(COUNTS, WIN, self_drawn=1)
    with pytest.raises(InputTypeError, match="self_drawn must be True / False"):
        simkit.score_batch(COUNTS, WIN, self_drawn=np.array([1]))
    with pytest.raises(simkit.ScoreError, match=r"first_turn\[0\]=7 is not allowed"):
        simkit.score_batch(COUNTS, WIN, first_turn=7)
    with pytest.raises(simkit.ScoreError, match=r"seat_wind\[0\]=28 is not allowed"):
        simkit.score_batch(COUNTS, WIN, seat_wind=28)
    with pytest.raises(simkit.ScoreError, match=r"prevailing_wind\[0\]=31 is not allowed"):
        simkit.score_batch(COUNTS, WIN, prevailing_wind=31)
    with pytest.raises(simkit.ScoreError, match=r"declared\[0\]=-1 is not allowed"):
        simkit.score_batch(COUNTS, WIN, declared=-1)


def test_score_batch_still_scores_and_marks_incomplete_hands():
    items, value = simkit.score_batch(np.vstack([COUNTS, COUNTS]), [WIN, 0], self_drawn=np.array([True, False]))
    assert value[0] == simkit.score(HAND, "6m", self_drawn=True).hand_tai and value[1] >= 0
    short = COUNTS.copy()
    short[0, 1] = 0  # 16 tiles: not complete, -1 as documented
    assert simkit.score_batch(short, WIN)[1][0] == -1


# ------------------------------------------------------------------ the command line: huge values


def test_cli_huge_streak_cap_is_one_line():
    code, _, err = run_cli(
        "replay", "--seed", "1", "--match", "0", "--hand", "0", "--option", "streak_cap=99999999999999999999"
    )
    assert_one_line_error(code, err, "streak_cap=", "at most 100")


def test_cli_huge_multiple_cap_is_one_line():
    for value in ("1e20", "100000000000000000000", str(2**20 + 1)):
        code, _, err = run_cli(
            "replay",
            "--seed",
            "1",
            "--match",
            "0",
            "--hand",
            "0",
            "--rules",
            "duel",
            "--option",
            f"multiple_cap={value}",
        )
        assert_one_line_error(code, err, "multiple_cap=", "up to 2^20")


def test_cli_replay_huge_match_is_one_line():
    for value in ("1e20", "100000000000000000000", str(2**63)):
        code, _, err = run_cli("replay", "--seed", "1", "--match", value, "--hand", "0")
        assert_one_line_error(code, err, "--match")


def test_cli_huge_payment_options_are_one_line():
    code, _, err = run_cli("score", HAND, "--win", "6m", "--self-drawn", "--option", "tai_value=1e308")
    assert_one_line_error(code, err, "tai_value=", "up to 1e9")
    code, _, err = run_cli(
        "score",
        "44z555z666z",
        "--win",
        "5z",
        "--melds",
        "concealed_kong 1111z",
        "pung 777z",
        "--self-drawn",
        "--rules",
        "duel",
        "--option",
        "stake=1e308",
    )
    assert_one_line_error(code, err, "stake=", "up to 1e5")


def test_cli_streak_far_above_the_cap_is_one_line():
    code, _, err = run_cli("score", HAND, "--win", "6m", "--self-drawn", "--streak", "1000000000")
    assert_one_line_error(code, err, "streak=1000000000")
    code, _, err = run_cli("score", HAND, "--win", "6m", "--self-drawn", "--streak", str(2**63))
    assert_one_line_error(code, err, "--streak")


def test_cli_counts_and_seeds_below_2_63():
    code, _, err = run_cli("deal", "--hands", str(2**63), "--quiet")
    assert_one_line_error(code, err, "--hands")
    code, _, err = run_cli("deal", "--hands", "10", "--seed", str(2**63), "--quiet")
    assert_one_line_error(code, err, "--seed")


# ------------------------------------------------------------------ payments and match ids at the limits


@pytest.mark.parametrize(
    "name, key, value",
    [
        ("douque", "tai_value", 1e308),
        ("douque", "base", 1e308),
        ("douque", "streak_cap", 10**30),
        ("douque", "tai_value", 10**400),
        ("night_market", "fan_value", 1e308),
        ("night_market", "base", 1e10),
        ("duel", "stake", 1e308),
        ("duel", "multiple_cap", 10**20),
        ("for_two", "stake", 1e308),
        ("for_two", "self_drawn_multiplier", 1e3),
        ("for_two", "fold_payment", 1e300),
        ("for_two", "combination_points", (5, 4, 3, 2, 1e300)),
    ],
)
def test_payment_options_beyond_the_arithmetic_are_refused(name, key, value):
    with pytest.raises(simkit.RulesError, match=rf"{key}=.* is not allowed; allowed: .*(up to|at most)"):
        simkit.get_rules(name, **{key: value})


LARGEST = {
    "douque": dict(
        base=douque_rules.MAX_BASE, tai_value=douque_rules.MAX_TAI_VALUE, streak_cap=douque_rules.MAX_STREAK_CAP
    ),
    "night_market": dict(
        base=night_market_rules.MAX_BASE, fan_value=night_market_rules.MAX_FAN_VALUE, match_hands=10_000
    ),
    "duel": dict(stake=duel_rules.MAX_STAKE, multiple_cap=duel_rules.MAX_MULTIPLE_CAP, match_hands=10_000),
    "for_two": dict(
        stake=for_two_rules.MAX_STAKE,
        combination_points=(for_two_rules.MAX_POINTS,) * 5,
        self_drawn_multiplier=for_two_rules.MAX_SELF_DRAWN_MULTIPLIER,
        fold_payment=for_two_rules.MAX_FOLD_PAYMENT,
        match_hands=10_000,
    ),
}


@pytest.mark.parametrize("name", list(LARGEST))
def test_largest_options_keep_a_match_of_largest_payments_exact(name):
    """At every option's bound, a big win is paid exactly, and so many of them that a match can
    hold (a bound on every balance) stays below 2**53."""
    rules = simkit.get_rules(name, **LARGEST[name])
    if name == "douque":
        r = simkit.score("11122233344455z", "5z", self_drawn=True, streak=100, rules=rules)
        exact = 10**9 + 10**9 * (r.hand_tai + r.dealer_tai)
        hands = 8 * 101
    elif name == "night_market":
        r = simkit.score("11122233344455z", "5z", self_drawn=True, rules=rules)
        exact = 10**9 + 10**8 * r.fan
        hands = 10_000
    elif name == "duel":
        r = simkit.score(
            "55z",
            "5z",
            ["concealed_kong 1111z", "concealed_kong 2222z", "concealed_kong 3333z", "concealed_kong 4444z"],
            self_drawn=True,
            replacement=True,
            rules=rules,
        )
        exact = 10**5 * (min(2 ** (r.fan - 1), 2**20) + 16)
        hands = 10_000
    else:
        r = simkit.score("111m222p333s444z55z", "5z", self_drawn=True, bid=3, rules=rules)
        exact = 3 * 10**6 * 10**4 * 10
        hands = 10_000
    assert r.points == exact and np.isfinite(r.points)
    # the largest payment the bounds allow (max items everywhere), times the hands of a match
    largest = {
        "douque": 10**9 + 10**9 * (190 + 201),
        "night_market": 10**9 + 10**8 * 543,
        "duel": 10**5 * (2**20 + 32),
        "for_two": 3 * 10**6 * 10**4 * 10,
    }[name]
    assert r.points <= largest and largest * hands < 2**53


LARGEST_DOUQUE = simkit.get_rules("douque", streak_cap=douque_rules.MAX_STREAK_CAP)


def test_streak_far_above_the_cap_in_score():
    with pytest.raises(simkit.ScoreError, match="streak=1000 cannot happen"):
        simkit.score(HAND, "6m", self_drawn=True, streak=1000)
    with pytest.raises(simkit.ScoreError, match="cannot happen"):
        simkit.score(HAND, "6m", self_drawn=True, streak=10**30)
    assert simkit.score(HAND, "6m", self_drawn=True, streak=100, rules=LARGEST_DOUQUE).dealer_tai == 201


def test_match_ids_at_2_63_do_not_wrap():
    with pytest.raises(SimkitError, match="below 2\\*\\*63"):
        simkit.replay(0, 2**63, 0)
    with pytest.raises(SimkitError, match="below 2\\*\\*63"):
        simkit.simulate_matches("douque", ("random", "random"), 2, seed=0, start=2**63 - 1)
    with pytest.raises(SimkitError, match="below 2\\*\\*63"):
        simkit.simulate_matches("douque", ("random", "random"), 1, seed=2**63)
    with pytest.raises(ValueError, match="start \\+ n"):
        simkit.deal_hands(2, start=2**63 - 1)
    record = simkit.replay(0, 2**63 - 1, 0, policies=("random", "random"))
    assert record.row["match"] == 2**63 - 1


# ------------------------------------------------------------------ flags, counts, batch arrays: types


@pytest.mark.parametrize("value", [1, 0, "yes", "no", None, np.int64(1), 1.0])
def test_score_flags_take_only_real_bools(value):
    with pytest.raises(InputTypeError, match="self_drawn must be True or False"):
        simkit.score(HAND, "6m", self_drawn=value)
    with pytest.raises(InputTypeError, match="dealer must be True or False"):
        simkit.score(HAND, "6m", dealer=value)
    assert simkit.score(HAND, "6m", self_drawn=np.bool_(True)).items["self_drawn"] == 4


def test_score_counts_take_only_integers():
    for bad in (5.0, True, None):
        with pytest.raises(SimkitError):
            simkit.score(HAND, bad)
    for bad in (2.0, "2", True):
        with pytest.raises(SimkitError, match="bid"):
            simkit.score("123m222p333s444z55z", "2m", rules="for_two", bid=bad)
    for bad in (1.0, True, -1):
        with pytest.raises(SimkitError, match="streak"):
            simkit.score(HAND, "6m", streak=bad)


def test_engine_flags_and_counts():
    with pytest.raises(InputTypeError, match="check must be True or False"):
        simkit.simulate_matches("douque", ("random", "random"), 1, check=1)
    with pytest.raises(SimkitError, match="duplicate"):
        simkit.simulate_matches("douque", ("random", "random"), 1, duplicate="yes")
    with pytest.raises(SimkitError, match="n_matches"):
        simkit.simulate_matches("douque", ("random", "random"), 1.0)
    with pytest.raises(SimkitError, match="needs up to .* GiB"):
        simkit.simulate_matches("douque", ("random", "random"), 10**15)
    wall = simkit.engine.deal.wall_template("douque")
    with pytest.raises(InputTypeError, match="dealer_east must be True or False"):
        simkit.play_hand(wall, dealer_east=1)
    with pytest.raises(SimkitError, match="dealer must be an integer from 0 to 1"):
        simkit.play_hand(wall, dealer=2)
    with pytest.raises(SimkitError, match="streak must be an integer"):
        simkit.play_hand(wall, streak=10**6)
    with pytest.raises(SimkitError, match="1-d integer array"):
        simkit.play_hand(wall.astype(float))
    with pytest.raises(SimkitError, match="kinds must be 0-33"):
        simkit.play_hand(wall.astype(np.int64) + 256)  # wrapped to the same wall by an int8 cast before
    with pytest.raises(SimkitError, match="params"):
        simkit.simulate_matches("douque", ((simkit.policies.basic.random_policy, "x"), "random"), 1)


@pytest.mark.parametrize("fn", ["is_win_batch", "shanten_batch", "waits_batch"])
def test_batch_kernels_validate_before_numba(fn):
    f = getattr(simkit, fn)
    counts = simkit.parse_tiles("123456789m11p99p")[None]  # 13 tiles; is_win_batch needs 14
    with pytest.raises(simkit.TileCountError, match="shape"):
        f(np.zeros((1, 33), np.uint8))
    with pytest.raises(simkit.TileCountError, match="integers"):
        f(counts.astype(float))
    with pytest.raises(simkit.TileCountError, match="outside 0..4"):
        f(counts.astype(np.int64) * 0 - 1)
    with pytest.raises(InputTypeError, match="n_melds must be an integer"):
        f(counts, n_melds=1.5)
    with pytest.raises(InputTypeError, match="n_melds must be an integer"):
        f(counts, n_melds=2**70)
    with pytest.raises(InputTypeError, match="n_melds must be an integer"):
        f(counts, n_melds=True)
    with pytest.raises(simkit.HandError, match="between 0 and 4"):
        f(counts, n_melds=-7)
    with pytest.raises(InputTypeError, match="counts must be an integer array"):
        f("123m")
    with pytest.raises(simkit.TileCountError, match="counts must be an integer array"):
        f([[1, 2], [3]])


def test_samplers_and_masks():
    with pytest.raises(simkit.HandError, match="n_melds"):
        simkit.random_complete_hands(2, n_melds=9)
    with pytest.raises(simkit.HandError, match="seed"):
        simkit.random_ready_hands(2, seed=-1)
    with pytest.raises(InputTypeError, match="n must be an integer"):
        simkit.random_complete_hands(2.5)
    with pytest.raises(simkit.HandError, match="waits mask"):
        simkit.mask_to_kinds(-1)
    with pytest.raises(simkit.HandError, match="waits mask"):
        simkit.mask_to_kinds(2**40)
    assert simkit.mask_to_kinds(np.int64(5)) == [0, 2]


def test_wrong_types_are_simkit_errors():
    """TypeErrors of the API are InputTypeErrors: ``except SimkitError`` catches every bad input."""
    for call in (
        lambda: simkit.parse_tiles(5),
        lambda: simkit.tile_name(1.0),
        lambda: simkit.get_rules(3),
        lambda: simkit.is_win(None),
        lambda: simkit.is_win("11m", melds=True),
        lambda: simkit.deal_hands("3"),
    ):
        with pytest.raises(InputTypeError):
            call()
    assert issubclass(InputTypeError, TypeError) and issubclass(InputTypeError, SimkitError)
