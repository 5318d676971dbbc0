"""for_two combination points and payment against rules/for_two.md: reference and simkit's kernel.

Each of the five basic combinations is reached by a hand-worked test (claimed chows and kongs
included), the best split between combinations, ties under custom points, the payment
``bid x stake x points`` (doubled for a self-draw) and every option both ways. Each test runs
against the reference (tests/reference_scoring_for_two.py) and ``simkit.score``.
"""

from __future__ import annotations

import pytest
from scoring_util import ScoringAdapter

ADAPTER = ScoringAdapter("for_two")
implementation, score = ADAPTER.implementation, ADAPTER.score


@pytest.mark.parametrize(
    "hand, win, melds, name, value",
    [
        ("111m222p333s444z55z", "5z", [], "four_pungs", 5),
        ("444z55z", "4z", ["pung 111m", "kong 2222p", "concealed_kong 3333s"], "four_pungs", 5),
        ("123m222p333s444z55z", "2m", [], "three_pungs_one_chow", 4),
        ("222p333s444z55z", "5z", ["chow 123m"], "three_pungs_one_chow", 4),
        ("123m456p777s111z99s", "9s", [], "two_pungs_two_chows", 3),
        ("123m456p789s111z99m", "1z", [], "one_pung_three_chows", 2),
        ("99m", "9m", ["chow 123m", "chow 456p", "chow 789s", "added_kong 1111z"], "one_pung_three_chows", 2),
        ("123m456p789s234m99s", "4m", [], "four_chows", 1),
        ("99s", "9s", ["chow 123m", "chow 456p", "chow 789s", "chow 234m"], "four_chows", 1),
    ],
)
def test_each_basic_combination(hand, win, melds, name, value):
    r = score(hand, win, melds)
    assert r["items"] == {name: value} and r["combination_points"] == value and r["points"] == value


def test_best_split_takes_the_combination_with_more_points():
    # 111222333m: three pungs or three 123m chows; with a claimed chow: 3 pungs + 1 chow (4), not 4 chows (1)
    assert score("111222333m99p", "9p", ["chow 789s"])["items"] == {"three_pungs_one_chow": 4}
    # with the points reversed the chows win
    r = score("111222333m99p", "9p", ["chow 789s"], options={"combination_points": (1, 2, 3, 4, 5)})
    assert r["items"] == {"four_chows": 5}


def test_ties_go_to_the_combination_with_more_pungs():
    r = score("111222333m99p", "9p", ["chow 789s"], options={"combination_points": (2, 2, 2, 2, 2)})
    assert r["items"] == {"three_pungs_one_chow": 2}


@pytest.mark.parametrize("bid", [1, 2, 3])
@pytest.mark.parametrize("self_drawn, factor", [(False, 1), (True, 2)])
def test_payment_bid_stake_points_doubled_for_self_draw(bid, self_drawn, factor):
    r = score("123m222p333s444z55z", "2m", bid=bid, self_drawn=self_drawn)
    assert r["combination_points"] == 4 and r["points"] == bid * 1 * 4 * factor


@pytest.mark.parametrize(
    "options, points",
    [
        ({}, 2 * 1 * 4 * 2),
        ({"stake": 0.25}, 2 * 0.25 * 4 * 2),
        ({"self_drawn_multiplier": 1}, 2 * 1 * 4 * 1),
        ({"self_drawn_multiplier": 3, "stake": 2}, 2 * 2 * 4 * 3),
        ({"combination_points": (10, 8, 6, 4, 2)}, 2 * 1 * 8 * 2),
        ({"combination_points": (1.5, 2.5, 3, 1, 0.5)}, 2 * 1 * 2.5 * 2),
    ],
)
def test_payment_options(options, points):
    r = score("123m222p333s444z55z", "2m", bid=2, self_drawn=True, options=options)
    assert r["points"] == pytest.approx(points)
