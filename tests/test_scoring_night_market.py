"""Night-market fan scoring against rules/night_market.md: the reference scorer and simkit's kernel.

Every expected value is worked out by hand from the rules file's table: one test per pattern, each
replacement ("replaces ...") and the wait conditions one by one, both option settings, the payment
``50 + 100 x fan``, and the input checks. Each hand-worked test runs twice, against the reference
(tests/reference_scoring_night_market.py) and against ``simkit.score``; the random comparison of the
two is in tests/test_scoring_rule_sets_random.py.
"""

from __future__ import annotations

import pytest
from scoring_util import ScoringAdapter

ADAPTER = ScoringAdapter("night_market")
implementation, score, items = ADAPTER.implementation, ADAPTER.score, ADAPTER.items


PUNG_E = ["pung 111z"]  # a claimed East pung: no Men Qing / Bu Qiu Ren, a second honor set


# ------------------------------------------------------------------ the 1-fan patterns


def test_zi_mo_self_drawn_with_a_claimed_meld():
    # 22m 456m 789m 555z + pung 111z, self-draws 6m (waits 3m/6m: no wait item)
    r = score("22456789m555z", "6m", PUNG_E, self_drawn=True)
    assert r["items"] == {"self_drawn": 1} and r["fan"] == 1 and r["points"] == 150


def test_no_pattern_scores_zero_fan_and_pays_the_base():
    r = score("22456789m555z", "6m", PUNG_E)
    assert r["items"] == {} and r["fan"] == 0 and r["points"] == 50


def test_dan_diao_single_pair_wait():
    # 456m 789m 555z 2m waits on 2m only; wins on the discard 2m in the pair
    assert items("22456789m555z", "2m", PUNG_E) == {"pair_wait": 1}


def test_bian_zhang_12_3_and_7_89():
    assert items("12345688m555z", "3m", PUNG_E) == {"edge_wait": 1}  # 12m waits 3m only
    assert items("22456789m555z", "7m", PUNG_E) == {"edge_wait": 1}  # 89m waits 7m only


def test_kan_zhang_middle_tile():
    assert items("12345688m555z", "2m", PUNG_E) == {"closed_wait": 1}  # 13m waits 2m only


def test_wait_items_need_the_only_winning_kind():
    # 45m waits 3m and 6m: winning on 6m in 456m is neither edge nor closed
    assert items("22456789m555z", "6m", PUNG_E) == {}
    # 1234m + pair: 1m/4m two-sided; 23m waits 1m/4m
    assert items("12345688m555z", "1m", PUNG_E) == {}
    # shanpon 88m/555z pair: two kinds, and a pung completed on a discard is no wait item
    assert items("88m123456m555z", "5z", PUNG_E) == {}


def test_at_most_one_wait_item_best_place_of_the_winning_tile():
    # 111m 222m 444m claimed + 2344... : ready 234m 3m waits 3m only (4m is held 4 times). 3m can
    # sit in the pair (Dan Diao) or in the middle of 234m (Kan Zhang): one of them, the tie going
    # to the item listed first
    r = items("23334m", "3m", ["pung 111m", "pung 444m", "pung 222m"])
    assert r == {"pair_wait": 1, "less_than_five": 12, "full_flush": 24}


def test_men_qing_concealed_discard_win():
    # 123m 456m 789m 555z 11z, wins 1m on a discard (waits 1m/4m/7m)
    assert items("123456789m11555z", "1m") == {"concealed_hand": 1}


def test_concealed_kong_keeps_men_qing_a_chow_claim_does_not():
    assert items("123456789m11z", "1m", ["concealed_kong 5555z"]) == {"concealed_hand": 1}
    assert items("456789m11555z", "4m", ["chow 123m"]) == {}


# ------------------------------------------------------------------ 2- to 6-fan patterns


def test_ping_hu_four_chows_and_a_character_pair():
    # claimed 123m + 234m 456m 789m + 99m: characters only, so Qing Yi Se too
    assert items("23445678999m", "4m", ["chow 123m"]) == {"all_chows": 2, "full_flush": 24}


def test_ping_hu_needs_a_character_pair():
    # the same with a White pair: one honor set, so Cou Yi Se instead
    assert items("234456789m55z", "4m", ["chow 123m"]) == {"one_type_but_one_set": 6}


def test_shuang_an_ke_two_concealed_pungs():
    assert items("456777m11122z", "6m", ["chow 123m"]) == {"two_concealed_pungs": 2}


def test_a_pung_completed_by_a_discard_is_not_concealed():
    # same hand, winning 7m on a discard: 777m is exposed by the discard, only 111z stays hidden
    assert items("456777m11122z", "7m", ["chow 123m"]) == {}
    # self-drawn 7m: both pungs hidden
    assert items("456777m11122z", "7m", ["chow 123m"], self_drawn=True) == {"self_drawn": 1, "two_concealed_pungs": 2}


def test_bu_qiu_ren_replaces_zi_mo():
    assert items("123456789m11555z", "1m", self_drawn=True) == {"fully_concealed": 4}


def test_peng_peng_hu():
    assert items("888m33z", "8m", ["pung 222m", "pung 555m", "pung 111z"]) == {"all_pungs": 6}


def test_cou_yi_se_four_honor_sets_and_one_character_set():
    r = items("99m333555z", "9m", ["pung 111z", "pung 222z"])
    assert r == {"pair_wait": 1, "two_concealed_pungs": 2, "all_pungs": 6, "one_type_but_one_set": 6}


def test_cou_yi_se_needs_exactly_one_set_of_the_other_type():
    # two honor sets (111z, 555z) among characters: no Cou Yi Se
    assert "one_type_but_one_set" not in items("22456789m555z", "2m", PUNG_E)
    # one honor set: Cou Yi Se
    assert items("22456789999m", "2m", PUNG_E) == {"pair_wait": 1, "one_type_but_one_set": 6}


def test_quan_qiu_ren_replaces_dan_diao():
    melds = ["pung 222m", "chow 345m", "pung 111z", "kong 5555z"]
    assert items("99m", "9m", melds) == {"fully_melded": 6}
    # self-drawn: not Quan Qiu Ren, so Dan Diao and Zi Mo
    assert items("99m", "9m", melds, self_drawn=True) == {"self_drawn": 1, "pair_wait": 1}


def test_quan_qiu_ren_needs_four_claimed_melds():
    melds = ["pung 222m", "chow 345m", "pung 111z", "concealed_kong 5555z"]
    assert items("99m", "9m", melds) == {"pair_wait": 1}


# ------------------------------------------------------------------ 8- to 24-fan patterns


def test_hai_di_lao_yue_replaces_zi_mo():
    assert items("22456789m555z", "6m", PUNG_E, self_drawn=True, last_tile=True) == {"last_tile_draw": 8}


def test_hai_di_lao_yue_stacks_with_bu_qiu_ren():
    r = items("123456789m11555z", "1m", self_drawn=True, last_tile=True)
    assert r == {"fully_concealed": 4, "last_tile_draw": 8}


def test_he_di_lao_yu():
    assert items("22456789m555z", "6m", PUNG_E, last_discard=True) == {"last_discard": 8}
    assert items("123456789m11555z", "1m", last_discard=True) == {"concealed_hand": 1, "last_discard": 8}


def test_greater_than_five_stacks_with_qing_yi_se():
    # 666m 999m 777m claimed, 678m + 88m; 8m on a discard (waits 5m/8m)
    r = items("67888m", "8m", ["pung 666m", "pung 999m", "pung 777m"])
    assert r == {"greater_than_five": 12, "full_flush": 24}


def test_less_than_five_needs_every_tile_1_to_4():
    r = items("12344m", "4m", ["pung 111m", "pung 222m", "pung 333m"])
    assert "less_than_five" in r
    r = items("12355m", "5m", ["pung 111m", "pung 222m", "pung 333m"])
    assert "less_than_five" not in r and "full_flush" in r


def test_three_concealed_pungs_replaces_shuang_an_ke():
    # 111m 555m 111z concealed, 234m, 22z; self-drawn 2m (waits 2m/5m)
    assert items("111234555m11122z", "2m", self_drawn=True) == {"fully_concealed": 4, "three_concealed_pungs": 16}


def test_qing_yi_se_replaces_cou_yi_se():
    # characters only: no honor set, so never "all but one set"
    assert items("111456789m55m", "4m", ["chow 123m"]) == {"full_flush": 24}


# ------------------------------------------------------------------ 64- and 88-fan patterns


def test_zi_yi_se_replaces_peng_peng_hu():
    r = items("22233355577z", "7z", PUNG_E, self_drawn=True)
    assert r == {"self_drawn": 1, "pair_wait": 1, "three_concealed_pungs": 16, "all_honors": 64}


def test_si_an_ke_replaces_three_pungs_shuang_an_ke_peng_peng_hu_and_men_qing():
    hand = "111555999m11122z"
    assert items(hand, "2z") == {"pair_wait": 1, "four_concealed_pungs": 64}
    assert items(hand, "2z", self_drawn=True) == {"pair_wait": 1, "fully_concealed": 4, "four_concealed_pungs": 64}
    # on a discard 1m the 111m pung is exposed: three concealed pungs, Peng Peng Hu, Men Qing
    assert items(hand, "1m") == {"concealed_hand": 1, "all_pungs": 6, "three_concealed_pungs": 16}


def test_concealed_kongs_count_for_si_an_ke():
    r = items("111999m22z", "2z", ["concealed_kong 5555m", "concealed_kong 1111z"], self_drawn=True)
    assert r == {"pair_wait": 1, "fully_concealed": 4, "four_concealed_pungs": 64}


def test_xiao_san_yuan():
    assert items("123456m77z", "7z", ["pung 555z", "pung 666z"]) == {"pair_wait": 1, "little_three_dragons": 64}


def test_da_san_yuan():
    # 123m + 1m waits 1m/4m
    assert items("11123m", "1m", ["pung 555z", "pung 666z", "pung 777z"]) == {"big_three_dragons": 88}


def test_xiao_si_xi():
    # four honor sets and 123m: Cou Yi Se too
    r = items("123m44z", "4z", ["pung 111z", "pung 222z", "pung 333z"])
    assert r == {"pair_wait": 1, "one_type_but_one_set": 6, "little_four_winds": 64}


def test_da_si_xi_replaces_peng_peng_hu():
    r = items("11m444z", "1m", ["pung 111z", "pung 222z", "pung 333z"])
    assert r == {"pair_wait": 1, "one_type_but_one_set": 6, "big_four_winds": 88}


def test_the_big_patterns_stack_with_zi_yi_se_and_si_an_ke():
    # 111z 222z 333z 444z concealed + 55z, self-drawn on the pair
    r = score("11122233344455z", "5z", self_drawn=True)
    assert r["items"] == {
        "pair_wait": 1,
        "fully_concealed": 4,
        "all_honors": 64,
        "four_concealed_pungs": 64,
        "big_four_winds": 88,
    }
    assert r["fan"] == 221 and r["points"] == 50 + 100 * 221


# ------------------------------------------------------------------ best split, options


def test_best_split_prefers_more_fan():
    # 111222333m: three pungs (Three concealed pungs 16, Peng Peng Hu 6) or three 123m chows
    r = score("111222333m99m", "9m", ["pung 555z"], self_drawn=True)
    assert r["items"] == {
        "self_drawn": 1,
        "pair_wait": 1,
        "all_pungs": 6,
        "one_type_but_one_set": 6,
        "three_concealed_pungs": 16,
    }


@pytest.mark.parametrize("base, fan_value", [(50, 100), (10, 20), (0.5, 7.5)])
def test_payment_options(base, fan_value):
    r = score("22456789m555z", "6m", PUNG_E, self_drawn=True, options={"base": base, "fan_value": fan_value})
    assert r["fan"] == 1 and r["points"] == base + fan_value
    r = score("22456789m555z", "6m", PUNG_E, options={"base": base, "fan_value": fan_value})
    assert r["points"] == base
