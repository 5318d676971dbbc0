"""Duel fan scoring and payments against rules/duel.md and its source: reference and simkit's kernel.

The source's three worked examples are reproduced exactly (3 fan -> 4x, 5 fan -> 16x, 22 fan capped
at 32x + a concealed kong 4x = 36x); every pattern of the fan table is reached by a hand-worked
test, the replacements (Luxury replaces Seven pairs; Heavenly / Earthly are 8 flat) and the
patterns the table does not score are checked one by one, and every option is tried both ways.
Each test runs against the reference (tests/reference_scoring_duel.py) and ``simkit.score``.
"""

from __future__ import annotations

import pytest
from scoring_util import ScoringAdapter

ADAPTER = ScoringAdapter("duel")
implementation, score, items = ADAPTER.implementation, ADAPTER.score, ADAPTER.items


# ------------------------------------------------------------------ the source's worked examples


def test_worked_example_1_concealed_self_draw():
    # no calls; 123m 456m 789m + East pung, waiting on a single White, self-drawn
    r = score("123456789m11155z", "5z", self_drawn=True)
    assert r["items"] == {"win": 1, "self_drawn": 1, "concealed_hand": 1}  # the East pung scores nothing
    assert r["fan"] == 3 and r["multiple"] == 4 and r["points"] == 4


def test_worked_example_2_full_flush_all_pungs():
    # called pungs of 2m and 7m; 333m + 55m + 99m in hand; wins on a discarded 9m
    r = score("33355999m", "9m", ["pung 222m", "pung 777m"])
    assert r["items"] == {"win": 1, "all_pungs": 2, "full_flush": 2}
    assert r["fan"] == 5 and r["multiple"] == 16 and r["points"] == 16


def test_worked_example_3_capped_big_hand_plus_a_concealed_kong():
    # concealed kong of East, called Red pung; Green pung + White and North pairs; self-draws White
    r = score("44z555z666z", "5z", ["concealed_kong 1111z", "pung 777z"], self_drawn=True)
    assert r["items"] == {"win": 1, "self_drawn": 1, "all_pungs": 2, "big_three_dragons": 8, "all_honors": 10}
    assert r["fan"] == 22 and r["multiple"] == 32
    assert r["win_payment"] == 32 and r["kong_payment"] == 4 and r["points"] == 36


# ------------------------------------------------------------------ every pattern


def test_concealed_is_broken_by_pung_exposed_and_added_kong_not_by_concealed_kong():
    base = {"win": 1, "self_drawn": 1}
    for meld in ("pung 111z", "kong 1111z", "added_kong 1111z"):
        assert items("22456789m555z", "6m", [meld], self_drawn=True) == base
    assert items("22456789m555z", "6m", ["concealed_kong 1111z"], self_drawn=True) == dict(base, concealed_hand=1)


def test_concealed_on_a_discard_win():
    assert items("123456789m11155z", "5z") == {"win": 1, "concealed_hand": 1}


def test_seven_pairs():
    r = score("1133557799m1122z", "9m")
    assert r["items"] == {"win": 1, "concealed_hand": 1, "seven_pairs": 3} and r["multiple"] == 16


def test_luxury_seven_pairs_replaces_seven_pairs():
    # four 1m count as two pairs
    assert items("1111335577m1122z", "3m") == {"win": 1, "concealed_hand": 1, "luxury_seven_pairs": 5}


def test_seven_pairs_against_a_regular_split_the_better_counts():
    # 11223344556677m is also 123m 123m 456m 456m 77m (4 fan); seven pairs: 1 + 1 + 2 + 3 = 7
    assert items("11223344556677m", "7m") == {"win": 1, "concealed_hand": 1, "full_flush": 2, "seven_pairs": 3}
    # 111122223333m44z: luxury seven pairs (1 + 1 + 5 = 7) or 111m 222m 333m 123m + 44z (2):
    r = items("111122223333m44z", "4z")
    assert r == {"win": 1, "concealed_hand": 1, "luxury_seven_pairs": 5}


def test_all_honours_seven_pairs():
    r = score("11223344556677z", "7z", self_drawn=True)
    assert r["items"] == {"win": 1, "self_drawn": 1, "concealed_hand": 1, "seven_pairs": 3, "all_honors": 10}
    assert r["fan"] == 16 and r["multiple"] == 32


def test_big_three_dragons_with_characters():
    r = items("12399m", "9m", ["pung 555z", "pung 666z", "kong 7777z"])
    assert r == {"win": 1, "big_three_dragons": 8}


def test_little_four_winds():
    assert items("123m333z44z", "4z", ["pung 111z", "pung 222z"]) == {"win": 1, "little_four_winds": 8}


def test_big_four_winds():
    r = items("333444z99m", "9m", ["pung 111z", "kong 2222z"])
    assert r == {"win": 1, "all_pungs": 2, "big_four_winds": 10}


def test_all_honours_big_four_winds():
    r = score("11122233344455z", "5z")
    assert r["items"] == {"win": 1, "concealed_hand": 1, "all_pungs": 2, "big_four_winds": 10, "all_honors": 10}


def test_win_on_a_kong():
    r = score("234567888m55z", "5z", ["kong 1111m"], self_drawn=True, replacement=True)
    assert r["items"] == {"win": 1, "self_drawn": 1, "replacement_tile": 1}
    assert r["fan"] == 3 and r["win_payment"] == 4 and r["kong_payment"] == 2 and r["points"] == 6


def test_last_tile():
    r = score("123456789m11155z", "5z", self_drawn=True, last_tile=True)
    assert r["items"] == {"win": 1, "self_drawn": 1, "concealed_hand": 1, "last_tile_draw": 1} and r["multiple"] == 8


def test_win_on_a_kong_and_last_tile_stack():
    r = items("234567888m55z", "5z", ["concealed_kong 1111m"], self_drawn=True, replacement=True, last_tile=True)
    assert r == {"win": 1, "self_drawn": 1, "concealed_hand": 1, "replacement_tile": 1, "last_tile_draw": 1}


def test_robbing_the_kong():
    r = items("123456789m11155z", "2m", robbing_kong=True)
    assert r == {"win": 1, "concealed_hand": 1, "robbing_the_kong": 1}


@pytest.mark.parametrize("hand", ["123456789m11155z", "11223344556677z"])
def test_heavenly_hand_is_8_flat(hand):
    r = score(hand, "5z" if "5z" in hand else "7z", self_drawn=True, first_turn="heavenly", dealer=True)
    assert r["items"] == {"heavenly_hand": 8} and r["fan"] == 8 and r["multiple"] == 32


def test_earthly_hand_is_8_flat():
    r = score("123456789m11155z", "1m", self_drawn=True, first_turn="earthly")
    assert r["items"] == {"earthly_hand": 8} and r["fan"] == 8


# ------------------------------------------------------------------ what duel does not score


def test_no_half_flush_dragon_pung_wind_pung_single_wait_or_little_three_dragons():
    # 555z 666z pungs + 77z pair (little three dragons elsewhere), characters + honors (half flush),
    # a single wait on 7z: none of it scores
    assert items("123456m55566677z", "7z") == {"win": 1, "concealed_hand": 1}
    # seat / prevailing wind pungs of East and South: nothing
    assert items("123456m11122233z", "1m") == {"win": 1, "concealed_hand": 1}


def test_seven_pairs_needs_no_melds():
    # five pairs next to a concealed kong are no winning hand at all
    with pytest.raises(ValueError, match="not a complete hand"):
        score("11335577999m", "9m", ["concealed_kong 1111z"])


# ------------------------------------------------------------------ payment options


@pytest.mark.parametrize(
    "options, win_payment, kong_payment, fee",
    [
        ({}, 32, 4, 1.8),
        ({"stake": 2}, 64, 8, 3.6),
        ({"multiple_cap": 64}, 64, 4, 3.4),
        ({"multiple_cap": 8}, 8, 4, 0.6),
        ({"fee": 0.0}, 32, 4, 0.0),
        ({"fee": 0.1, "stake": 0.5}, 16, 2, 1.8),
    ],
)
def test_payment_options(options, win_payment, kong_payment, fee):
    r = score("44z555z666z", "5z", ["concealed_kong 1111z", "pung 777z"], self_drawn=True, options=options)
    assert r["win_payment"] == win_payment and r["kong_payment"] == kong_payment
    assert r["points"] == win_payment + kong_payment and r["fee"] == pytest.approx(fee)


@pytest.mark.parametrize("fan, multiple", [(1, 1), (2, 2), (3, 4), (4, 8), (5, 16), (6, 32), (7, 32), (22, 32)])
def test_fan_to_multiple_table(fan, multiple):
    # the source's table: 1 2 4 8 16 32 for 1..6+ fan; check through hands of that many fan
    hands = {
        1: ("22456789m555z", "6m", ["pung 111z"], {}),
        2: ("22456789m555z", "6m", ["pung 111z"], {"self_drawn": True}),
        3: ("123456789m11155z", "5z", [], {"self_drawn": True}),
        4: ("123456789m11155z", "5z", [], {"self_drawn": True, "last_tile": True}),
        5: ("33355999m", "9m", ["pung 222m", "pung 777m"], {}),
        6: ("33355999m", "9m", ["pung 222m", "pung 777m"], {"self_drawn": True}),
        7: ("1111335577m1122z", "3m", [], {}),
        22: ("44z555z666z", "5z", ["concealed_kong 1111z", "pung 777z"], {"self_drawn": True}),
    }
    hand, win, melds, kw = hands[fan]
    r = score(hand, win, melds, **kw)
    assert r["fan"] == fan and r["multiple"] == multiple
