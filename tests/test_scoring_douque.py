"""Douque tai scoring against douque.md §7-§9: the pure-Python reference and simkit's kernel.

Every expected value below is worked out by hand from the rules file: the three worked examples of
§8, one test per item, every exclusion one by one, both settings of every scoring option, best-split
cases, input checks, and invariants on random consistent cases. Each hand-worked test runs twice:
against the reference scorer (tests/reference_scoring.py) and against ``simkit.score`` (the numba
kernel); the random comparison of the two is in tests/test_scoring_kernel.py.
"""

from __future__ import annotations

import random

import pytest
import reference as ref
import reference_scoring as rs
from scoring_util import ScoringAdapter
from scoring_util import kind as K

ADAPTER = ScoringAdapter("douque")
implementation, score, items = ADAPTER.implementation, ADAPTER.score, ADAPTER.items
P = ref.parse_hand


PUNG_1P = [("pung", "1p")]  # one claimed pung: no Concealed Hand, and mixes in dots (no flush)


# ------------------------------------------------------------------ §8 worked examples


def test_worked_example_1_non_dealer_concealed_self_draw():
    # 123m 456m 789m 111p 99p, waited on 3m/6m, self-drew 6m; dealer (opponent) streak 1
    r = score("123456789m111p99p", "6m", self_drawn=True, dealer=False, streak=1, seat_wind="W")
    assert r["items"] == {"self_drawn": 4, "concealed_hand": 1, "fully_concealed": 1}
    assert r["hand_tai"] == 6 and r["dealer_tai"] == 3
    assert r["total_tai"] == 11.5 and r["points"] == 230


def test_worked_example_2_dealer_wins_on_discard_all_pungs_dragon():
    # claimed 111p; 111m 555z 99m 99p waiting 9m/9p, dealer (streak 0) wins on 9m
    r = score("111999m555z99p", "9m", PUNG_1P, dealer=True, streak=0)
    assert r["items"] == {"all_pungs": 4, "dragon_pung": 1}
    assert r["hand_tai"] == 5 and r["dealer_tai"] == 1
    assert r["total_tai"] == 8.5 and r["points"] == 170


def test_worked_example_3_all_honors_little_four_winds():
    # EEE SSS WWW NN WhWh waiting N/Wh (two pairs), self-draws Wh; no kong, no declaration
    r = score("11122233344555z", "5z", self_drawn=True, streak=2)
    assert r["items"] == {
        "all_honors_little_four_winds": 20,
        "four_concealed_pungs": 5,
        "concealed_hand": 1,
        "self_drawn": 4,
        "fully_concealed": 1,
    }
    assert r["hand_tai"] == 31 and r["dealer_tai"] == 5 and r["total_tai"] == 2.5 + 31 + 5


def test_worked_example_3_on_a_pair_wait_adds_single_wait():
    # EEE SSS WWW WhWhWh N waiting N only, self-draws N: "+1 Single Wait"
    r = score("11122233344555z", "4z", self_drawn=True)
    assert r["hand_tai"] == 32 and r["items"]["single_wait"] == 1


# ------------------------------------------------------------------ win-type items


def test_self_drawn_concealed_and_fully_concealed_only_on_self_draw():
    assert items("123456789m111p99p", "6m") == {"concealed_hand": 1}  # discard win: Concealed Hand only
    assert items("123456789m111p99p", "6m", self_drawn=True) == {
        "self_drawn": 4,
        "concealed_hand": 1,
        "fully_concealed": 1,
    }


def test_self_drawn_with_a_claimed_pung_is_not_concealed():
    assert items("123456m789m99p", "6m", PUNG_1P, self_drawn=True) == {"self_drawn": 4}


@pytest.mark.parametrize("typ", ["pung", "kong", "added_kong"])
def test_any_exposed_meld_breaks_concealed_hand(typ):
    assert "concealed_hand" not in items("123456m789m99p", "6m", [(typ, "1p")], self_drawn=True)


def test_concealed_kong_keeps_concealed_hand_and_is_a_concealed_pung():
    r = items("123456m789m99p", "6m", [("concealed_kong", "1p")], self_drawn=True)
    assert r == {"self_drawn": 4, "concealed_hand": 1, "fully_concealed": 1}
    # with two concealed pungs in hand + the concealed kong: three concealed pungs
    r = items("456m111999m99p", "6m", [("concealed_kong", "1p")])  # discard win on 6m in a chow
    assert r["three_concealed_pungs"] == 2 and r["concealed_hand"] == 1


def test_seat_wind():
    hand = "123456m111p333z99p"  # West pung
    assert items(hand, "6m", seat_wind="W", prevailing_wind="E") == {"concealed_hand": 1, "seat_wind": 1}
    assert items(hand, "6m", seat_wind="E", prevailing_wind="E") == {"concealed_hand": 1}


def test_prevailing_wind():
    hand = "123456m111p222z99p"  # South pung
    assert items(hand, "6m", seat_wind="E", prevailing_wind="S") == {"concealed_hand": 1, "prevailing_wind": 1}
    assert items(hand, "6m", seat_wind="E", prevailing_wind="N") == {"concealed_hand": 1}


def test_seat_and_prevailing_wind_stack_on_the_same_pung():
    hand = "123456m111p111z99p"  # East pung, East seat, East round
    assert items(hand, "6m", seat_wind="E", prevailing_wind="E") == {
        "concealed_hand": 1,
        "seat_wind": 1,
        "prevailing_wind": 1,
    }
    # West seat in the West round, West as an exposed kong
    r = items("123456m111p99p", "6m", [("kong", "3z")], seat_wind="W", prevailing_wind="W")
    assert r == {"seat_wind": 1, "prevailing_wind": 1}


def test_dragon_pung_counts_each_dragon_pung_or_kong():
    assert items("234m555z99p666z", "4m", PUNG_1P) == {"dragon_pung": 2}  # 234m waiting 1m/4m
    assert items("234m99p555z", "4m", [("pung", "1p"), ("added_kong", "7z")]) == {"dragon_pung": 2}
    assert items("234m55z", "4m", [("pung", "1p"), ("kong", "7z"), ("pung", "9m")]) == {"dragon_pung": 1}  # 55z pair


def test_single_wait_edge_closed_and_pair():
    assert items("123m456m789m99p", "3m", PUNG_1P) == {"single_wait": 1}  # 12m edge
    assert items("123m456m789m99p", "2m", PUNG_1P) == {"single_wait": 1}  # 13m closed
    assert items("123456789m99p", "9p", PUNG_1P) == {"single_wait": 1}  # pair wait on 9p


def test_single_wait_not_for_two_sided_or_double_pair_waits():
    assert items("123m456m789m99p", "6m", PUNG_1P) == {}  # 45m: 3m/6m
    assert items("111m999m555z99p", "9m", PUNG_1P) == {"all_pungs": 4, "dragon_pung": 1}  # 9m/9p
    assert items("123m456m789m99p", "4m", PUNG_1P) == {}  # 56m789m: 4m/7m


def test_single_wait_depends_on_the_wait_set_not_on_the_split():
    # 1112m 456m 789m ready on 2m (111+22) AND 3m (11+123): won on 2m it is no Single Wait,
    # although the split used (111 + 22 pair) looks like a pair wait
    ready = P("1112456789m")
    assert ref.ref_waits(ready, 1, None, ref.DOUQUE_KINDS) == {K("2m"), K("3m")}
    r = score("11122456789m", "2m", PUNG_1P)
    assert r["win_part"] == ("pair", K("2m")) and "single_wait" not in r["items"]
    assert "single_wait" not in items("11123456789m", "3m", PUNG_1P)


def test_single_wait_ignores_kinds_the_winner_holds_four_of():
    # 45m waits 3m/6m, but the winner has a kong of 6m: only 3m is left -> Single Wait
    assert items("345m789m99p", "3m", [("pung", "1p"), ("kong", "6m")]) == {"single_wait": 1}
    assert items("345m789m99p", "3m", [("pung", "1p"), ("kong", "1m")]) == {}


def test_replacement_tile():
    r = items("123456m789m99p", "6m", [("kong", "1p")], self_drawn=True, replacement=True)
    assert r == {"self_drawn": 4, "replacement_tile": 1}
    r = items("123456m789m99p", "6m", [("concealed_kong", "1p")], self_drawn=True, replacement=True)
    assert r == {"self_drawn": 4, "concealed_hand": 1, "fully_concealed": 1, "replacement_tile": 1}


def test_replacement_on_the_last_tile_scores_both():
    r = items("123456m789m99p", "6m", [("added_kong", "1p")], self_drawn=True, replacement=True, last_tile=True)
    assert r == {"self_drawn": 4, "replacement_tile": 1, "last_tile_draw": 1}


def test_robbing_the_kong():
    # concealed 12345m 789m 111p 99p waiting 3m/6m robs the opponent's added 6m
    r = items("123456789m111p99p", "6m", robbing_kong=True)
    assert r == {"concealed_hand": 1, "robbing_the_kong": 1}
    r = items("123456m789m99p", "6m", PUNG_1P, robbing_kong=True)
    assert r == {"robbing_the_kong": 1}


def test_last_tile_draw_only_on_a_self_draw(implementation):
    assert items("123456m789m99p", "6m", PUNG_1P, self_drawn=True, last_tile=True) == {
        "self_drawn": 4,
        "last_tile_draw": 1,
    }
    # winning on the last discard (Last Tile Claim) scores nothing extra
    if implementation == "reference":  # the reference scores a last-discard win as nothing extra
        assert items("123456m789m99p", "6m", PUNG_1P, last_tile=True) == {}
    else:  # simkit.score: last_tile means a self-draw on the last drawable tile
        with pytest.raises(ValueError, match="last_tile means a self-draw"):
            items("123456m789m99p", "6m", PUNG_1P, last_tile=True)


def test_fully_melded():
    melds = [("pung", "1p"), ("kong", "1m"), ("added_kong", "5m"), ("pung", "9m")]
    r = score("99p", "9p", melds)
    assert r["items"] == {"fully_melded": 2, "single_wait": 1, "all_pungs": 4}
    assert r["split"] == (("pair", K("9p")),)


def test_fully_melded_needs_a_discard_win():
    melds = [("pung", "1p"), ("kong", "1m"), ("added_kong", "5m"), ("pung", "9m")]
    assert items("99p", "9p", melds, self_drawn=True) == {"self_drawn": 4, "single_wait": 1, "all_pungs": 4}


def test_fully_melded_needs_no_concealed_kong():
    melds = [("pung", "1p"), ("kong", "1m"), ("concealed_kong", "5m"), ("pung", "9m")]
    # not melded, and not concealed either (three exposed melds)
    assert items("99p", "9p", melds) == {"single_wait": 1, "all_pungs": 4}


def test_three_concealed_pungs():
    # 111m 555m 999p concealed; 23m waited on 1m/4m, self-drew 4m
    r = items("234m111m555m999p11p", "4m", self_drawn=True)
    assert r == {"self_drawn": 4, "concealed_hand": 1, "fully_concealed": 1, "three_concealed_pungs": 2}


def test_four_concealed_pungs_with_all_pungs_and_concealed_hand():
    # 111m 555m 999m + 99p 11p waiting 9p/1p, self-draws 9p
    r = items("111555999m99911p", "9p", self_drawn=True)
    assert r == {
        "self_drawn": 4,
        "concealed_hand": 1,
        "fully_concealed": 1,
        "four_concealed_pungs": 5,
        "all_pungs": 4,
    }


def test_all_pungs_with_claimed_melds():
    # 55m 99m waiting 5m/9m, wins on 5m
    assert items("555m99m", "5m", [("pung", "1p"), ("pung", "3m"), ("pung", "7z")]) == {
        "all_pungs": 4,
        "dragon_pung": 1,
    }


def test_half_flush_characters_and_honors():
    assert items("123456789m11z", "6m", [("pung", "2z")], prevailing_wind="E") == {"half_flush": 4}


def test_half_flush_dots_and_honors():
    # 111p 99p 111z 22z waiting 9p/2z, wins on 2z (222z claimed by that discard); the only dots are 1p, 9p
    r = items("111p99p111z222z", "2z", [("pung", "3z")], seat_wind="E", prevailing_wind="E")
    assert r == {"half_flush": 4, "all_pungs": 4, "seat_wind": 1, "prevailing_wind": 1}


def test_full_flush():
    r = items("123456789m11m", "6m", [("pung", "5m")])
    assert r == {"full_flush": 8}
    r = items("12345678999m", "6m", [("pung", "1m")])  # full flush, never also half flush
    assert r == {"full_flush": 8}


def test_little_three_dragons_replaces_dragon_pung():
    r = items("123m555z666z77z", "3m", PUNG_1P)  # 12m edge: single wait
    assert r == {"little_three_dragons": 4, "single_wait": 1}


def test_big_three_dragons_replaces_dragon_pung():
    r = items("555z666z777z99p", "9p", [("pung", "1m")])
    assert r == {"big_three_dragons": 8, "single_wait": 1, "all_pungs": 4, "three_concealed_pungs": 2}


def test_dragon_specials_do_not_replace_wind_items():
    # 555z 666z 77z 11z waiting 1z/7z, wins on the East discard: Little Three Dragons + Seat Wind
    r = items("555z666z77z111z", "1z", [("pung", "1m")], seat_wind="E", prevailing_wind="S")
    assert r == {"little_three_dragons": 4, "seat_wind": 1, "all_pungs": 4, "half_flush": 4}


def test_little_four_winds_replaces_seat_and_prevailing_wind():
    r = items("123m111z222z333z44z", "3m", seat_wind="E", prevailing_wind="S")
    assert r == {
        "little_four_winds": 8,
        "half_flush": 4,
        "concealed_hand": 1,
        "three_concealed_pungs": 2,
        "single_wait": 1,
    }


def test_big_four_winds_replaces_seat_and_prevailing_wind():
    r = items("111z222z333z99m", "9m", [("pung", "4z")], seat_wind="W", prevailing_wind="N")
    assert r == {"big_four_winds": 16, "half_flush": 4, "all_pungs": 4, "single_wait": 1, "three_concealed_pungs": 2}


def test_big_three_dragons_keeps_seat_and_prevailing_wind():
    r = items("555z666z777z99p", "9p", [("pung", "3z")], seat_wind="W", prevailing_wind="W")
    assert r == {
        "big_three_dragons": 8,
        "seat_wind": 1,
        "prevailing_wind": 1,
        "single_wait": 1,
        "all_pungs": 4,
        "three_concealed_pungs": 2,
        "half_flush": 4,
    }


def test_all_honors_alone_replaces_all_pungs_half_flush_dragon_and_winds():
    # EEE SSS WWW WhWhWh + GG pair: neither dragon nor wind special; East seat, South round
    r = items("111z222z333z555z66z", "6z", seat_wind="E", prevailing_wind="S", self_drawn=True)
    assert r == {
        "all_honors": 16,
        "four_concealed_pungs": 5,
        "concealed_hand": 1,
        "self_drawn": 4,
        "fully_concealed": 1,
        "single_wait": 1,
    }


@pytest.mark.parametrize(
    "hand, win, melds, merged, tai",
    [
        ("111z555z666z77z", "7z", [("pung", "2z")], "all_honors_little_three_dragons", 16),
        ("111z555z666z77z", "1z", [("pung", "2z")], "all_honors_little_three_dragons", 16),
        ("555z666z777z44z", "4z", [("pung", "1z")], "all_honors_big_three_dragons", 20),
        ("111z222z333z44z", "4z", [("pung", "5z")], "all_honors_little_four_winds", 20),
        ("111z222z44z777z", "4z", [("pung", "3z")], "all_honors_little_four_winds", 20),
        ("111z222z333z55z", "5z", [("kong", "4z")], "all_honors_big_four_winds", 28),
    ],
)
def test_all_honors_merged_items(hand, win, melds, merged, tai):
    r = items(hand, win, [(t, k) for t, k in melds], seat_wind="E", prevailing_wind="E")
    assert r[merged] == tai
    merged_items = [n for n in rs.ITEM_NAMES if n.startswith("all_honors_")]
    assert [n for n in r if n.startswith("all_honors")] == [merged]
    for replaced in (
        "all_honors",
        "little_three_dragons",
        "big_three_dragons",
        "little_four_winds",
        "big_four_winds",
        "all_pungs",
        "half_flush",
        "dragon_pung",
        "seat_wind",
        "prevailing_wind",
    ):
        assert replaced not in r, replaced
    assert merged in merged_items


def test_all_honors_big_four_winds_28():
    r = items("111z222z333z55z", "5z", [("kong", "4z")], seat_wind="E", prevailing_wind="E")
    assert r == {"all_honors_big_four_winds": 28, "single_wait": 1, "three_concealed_pungs": 2}
    r = items("111z222z333z444z55z", "4z", self_drawn=True)  # concealed: + four concealed pungs
    assert r == {
        "all_honors_big_four_winds": 28,
        "four_concealed_pungs": 5,
        "concealed_hand": 1,
        "self_drawn": 4,
        "fully_concealed": 1,
    }


def test_heavenly_hand_replaces_concealed_self_drawn_fully_concealed_and_single_wait():
    plain = dict(first_turn="heavenly", dealer=True, self_drawn=True)
    assert items("123456789m111p99p", "6m", **plain) == {"heavenly_hand": 24}
    # a hand that was ready on a single tile (12m edge) still gets no Single Wait
    assert items("123456789m111p99p", "3m", **plain) == {"heavenly_hand": 24}
    # pattern items still add; every pung is concealed (nothing was claimed)
    assert items("111222333m555z99p", "3m", **plain) == {
        "heavenly_hand": 24,
        "four_concealed_pungs": 5,
        "all_pungs": 4,
        "dragon_pung": 1,
    }


def test_heavenly_hand_score_does_not_depend_on_the_named_winning_tile():
    c = P("111222333m555z99p")
    scores = {
        rs.ref_score(c, t, first_turn="heavenly", dealer=True, self_drawn=True)["hand_tai"] for t in range(34) if c[t]
    }
    assert scores == {34}


def test_earthly_hand_replaces_concealed_self_drawn_fully_concealed_but_not_single_wait():
    e = dict(first_turn="earthly", dealer=False, self_drawn=True)
    assert items("123456789m111p99p", "6m", **e) == {"earthly_hand": 16}
    assert items("123456789m111p99p", "3m", **e) == {"earthly_hand": 16, "single_wait": 1}
    assert items("111222333m555z99p", "5z", **e) == {  # 55z/99p double pair wait
        "earthly_hand": 16,
        "four_concealed_pungs": 5,
        "all_pungs": 4,
        "dragon_pung": 1,
    }


def test_human_hand_replaces_concealed_hand_only():
    h = dict(first_turn="human", dealer=False)
    assert items("123456789m111p99p", "6m", **h) == {"human_hand": 8}
    assert items("123456789m111p99p", "3m", **h) == {"human_hand": 8, "single_wait": 1}
    # a discard win: the pung the dealer's discard completes is not concealed
    assert items("111222333m555z99p", "5z", **h) == {
        "human_hand": 8,
        "three_concealed_pungs": 2,
        "all_pungs": 4,
        "dragon_pung": 1,
    }


def test_migi_and_declare_ready_never_both():
    assert items("123456789m111p99p", "6m", declared="migi") == {"concealed_hand": 1, "migi": 8}
    assert items("123456789m111p99p", "6m", declared="ready") == {"concealed_hand": 1, "declare_ready": 1}
    assert items("123456m789m99p", "6m", PUNG_1P, declared="ready") == {"declare_ready": 1}


# ------------------------------------------------------------------ exclusions one by one


def test_exclusion_all_honors_vs_half_flush_all_pungs_dragon_winds():
    # same shape with one suit pung instead of an honor pung: Half Flush, All Pungs, Dragon, winds
    # EEE WhWhWh 99m + claimed 111m, waiting 9m/7z, wins on 7z
    mixed = items("111z555z777z99m", "7z", [("pung", "1m")], seat_wind="E", prevailing_wind="E")
    assert mixed == {"half_flush": 4, "all_pungs": 4, "dragon_pung": 2, "seat_wind": 1, "prevailing_wind": 1}
    # the same with NN and a claimed South pung: all of those replaced by All Honors
    honors = items("111z555z777z44z", "7z", [("pung", "2z")], seat_wind="E", prevailing_wind="S")
    assert honors == {"all_honors": 16}


def test_exclusion_little_vs_big_three_dragons():
    little = items("123m555z666z77z", "7z", [("pung", "1p")])
    big = items("123m555z666z777z99p", "9p")
    assert "little_three_dragons" in little and "big_three_dragons" not in little
    assert "big_three_dragons" in big and "little_three_dragons" not in big and "dragon_pung" not in big


def test_exclusion_little_vs_big_four_winds():
    little = items("123m111z222z333z44z", "4z")
    big = items("11m111z222z333z444z", "1m")
    assert "little_four_winds" in little and "big_four_winds" not in little
    assert "big_four_winds" in big and "little_four_winds" not in big
    assert "seat_wind" not in big and "prevailing_wind" not in big


def test_exclusion_concealed_vs_fully_melded():
    four_exposed = [("pung", "1p"), ("pung", "1m"), ("pung", "5m"), ("pung", "9m")]
    r = items("99p", "9p", four_exposed)
    assert "fully_melded" in r and "concealed_hand" not in r
    r = items("123456789m111p99p", "9p")
    assert "concealed_hand" in r and "fully_melded" not in r


def test_exclusion_three_vs_four_concealed_pungs():
    # 111m 555m 999m 999p 11p: self-draw 9p = four concealed; discard 9p = three (999p claimed)
    assert items("111555999m99911p", "9p", self_drawn=True)["four_concealed_pungs"] == 5
    assert "three_concealed_pungs" not in items("111555999m99911p", "9p", self_drawn=True)
    r = items("111555999m99911p", "9p")
    assert r["three_concealed_pungs"] == 2 and "four_concealed_pungs" not in r


def test_exclusion_heavenly_earthly_human_at_most_one():
    # first_turn carries one value: check each scores only its own item
    for ft, kw in (
        ("heavenly", dict(dealer=True, self_drawn=True)),
        ("earthly", dict(self_drawn=True)),
        ("human", dict()),
    ):
        r = items("123456789m111p99p", "6m", first_turn=ft, **kw)
        assert {"heavenly_hand", "earthly_hand", "human_hand"} & set(r) == {ft + "_hand"}
        assert "concealed_hand" not in r


def test_exclusion_robbing_the_kong_vs_self_drawn():
    r = items("123456789m111p99p", "6m", robbing_kong=True)
    assert "robbing_the_kong" in r and "self_drawn" not in r and "fully_concealed" not in r
    with pytest.raises(ValueError):
        score("123456789m111p99p", "6m", robbing_kong=True, self_drawn=True)


def test_exclusion_migi_vs_declare_ready():
    assert "declare_ready" not in items("123456789m111p99p", "6m", declared="migi")
    assert "migi" not in items("123456789m111p99p", "6m", declared="ready")


# ------------------------------------------------------------------ options, both settings


@pytest.mark.parametrize("tai", [24, 16])
def test_option_heavenly_tai(tai):
    r = score(
        "123456789m111p99p", "6m", first_turn="heavenly", dealer=True, self_drawn=True, options={"heavenly_tai": tai}
    )
    assert r["items"] == {"heavenly_hand": tai}


@pytest.mark.parametrize("tai", [8, 16])
def test_option_human_tai(tai):
    r = score("123456789m111p99p", "6m", first_turn="human", options={"human_tai": tai})
    assert r["items"] == {"human_hand": tai}


@pytest.mark.parametrize("tai", [8, 4])
def test_option_migi_tai(tai):
    assert items("123456789m111p99p", "6m", declared="migi", options={"migi_tai": tai})["migi"] == tai


@pytest.mark.parametrize("tai", [1, 0])
def test_option_declare_ready_tai(tai):
    r = score("123456789m111p99p", "6m", declared="ready", options={"declare_ready_tai": tai})
    assert r["items"].get("declare_ready", 0) == tai and r["hand_tai"] == 1 + tai
    assert ("declare_ready" in r["items"]) == (tai > 0)


@pytest.mark.parametrize("setting", [True, False])
def test_option_fully_melded_single_wait(setting):
    melds = [("pung", "1p"), ("kong", "1m"), ("added_kong", "5m"), ("pung", "9m")]
    r = items("99p", "9p", melds, options={"fully_melded_single_wait": setting})
    assert r["fully_melded"] == 2 and ("single_wait" in r) == setting
    # the option only matters together with Fully Melded
    r = items("99p", "9p", melds, self_drawn=True, options={"fully_melded_single_wait": setting})
    assert r["single_wait"] == 1


@pytest.mark.parametrize("base, tai_value", [(50, 20), (100, 10), (30, 25)])
def test_option_base_and_tai_value(base, tai_value):
    r = score("123456789m111p99p", "6m", self_drawn=True, streak=1, options={"base": base, "tai_value": tai_value})
    assert r["hand_tai"] == 6 and r["dealer_tai"] == 3
    assert r["points"] == base + tai_value * 9
    assert r["total_tai"] == pytest.approx(base / tai_value + 9)


@pytest.mark.parametrize(
    "opts", [{"skipped_pung": "hand"}, {"skipped_pung": "turn"}, {"streak_cap": 4}, {"streak_cap": 100}]
)
def test_options_that_do_not_affect_scoring(opts):
    assert score("123456789m111p99p", "6m", self_drawn=True, streak=4, options=opts) == score(
        "123456789m111p99p", "6m", self_drawn=True, streak=4
    )


def test_dealer_tai_ignores_dealer_flag_and_is_not_capped():
    for dealer in (False, True):
        for streak in (0, 1, 5, 10, 12, 100):  # a streak up to the largest streak_cap
            r = score("123456789m111p99p", "6m", dealer=dealer, streak=streak, options={"streak_cap": 100})
            assert r["dealer_tai"] == 1 + 2 * streak


# ------------------------------------------------------------------ best split


def test_best_split_pungs_over_chows_self_drawn():
    r = score("111222333m999m55z", "5z", self_drawn=True)
    assert r["split"] == (("pair", K("5z")), ("pung", 0), ("pung", 1), ("pung", 2), ("pung", 8))
    assert r["items"] == {
        "self_drawn": 4,
        "concealed_hand": 1,
        "fully_concealed": 1,
        "single_wait": 1,
        "four_concealed_pungs": 5,
        "all_pungs": 4,
        "half_flush": 4,
    }


def test_best_split_pungs_over_chows_when_the_discard_completes_a_pung():
    # discard 3m: pungs split has 111 222 999 concealed (333 claimed) = 3 concealed + All Pungs;
    # the chow split 123x3 + 999 has only one concealed pung and no All Pungs
    r = score("111222333m999m55z", "3m")
    assert r["items"] == {"concealed_hand": 1, "three_concealed_pungs": 2, "all_pungs": 4, "half_flush": 4}
    assert ("pung", K("3m")) in r["split"] and r["win_part"] == ("pung", K("3m"))


def test_best_split_both_splits_exist():
    assert ref.ref_splits(P("111222333m999m55z"), 0) == {
        tuple(sorted([("pung", 0), ("pung", 1), ("pung", 2), ("pung", 8), ("pair", K("5z"))])),
        tuple(sorted([("chow", 0), ("chow", 0), ("chow", 0), ("pung", 8), ("pair", K("5z"))])),
    }


def test_best_place_winning_tile_in_the_chow_keeps_the_pung_concealed():
    # 1111m 23m 555m 777m 11z = 111m + 123m + 555m + 777m + EE; discard 1m may sit in 123m
    r = score("111123555777m11z", "1m", seat_wind="W", prevailing_wind="S")
    assert r["win_part"] == ("chow", 0)
    assert r["items"] == {"concealed_hand": 1, "three_concealed_pungs": 2, "half_flush": 4}
    # self-drawn: same three concealed pungs either way
    r = score("111123555777m11z", "1m", self_drawn=True, seat_wind="W", prevailing_wind="S")
    assert r["items"]["three_concealed_pungs"] == 2


def test_winning_tile_only_completing_a_pung_on_discard_is_not_concealed():
    # 111m 555m 777m + 99p 11z, shanpon 9p/1z: the discard 1z completes 111z: 3 concealed, not 4
    r = score("111555777m99p111z", "1z", seat_wind="W", prevailing_wind="S")
    assert r["win_part"] == ("pung", K("1z"))
    assert r["items"] == {"concealed_hand": 1, "three_concealed_pungs": 2, "all_pungs": 4}
    r = score("111555777m99p111z", "1z", self_drawn=True, seat_wind="W", prevailing_wind="S")
    assert r["items"]["four_concealed_pungs"] == 5


def test_best_placement_in_a_pung_or_the_pair_of_the_same_split():
    # 111m 22m 555m 789m + claimed 1p: the winning 2m can only sit in the pair, 111m 555m concealed
    r = score("11122555789m", "2m", PUNG_1P)
    assert r["win_part"] == ("pair", 1) and r["items"] == {}
    # 111m 22m 555m 999m + claimed 1p, waiting 2m/9m: on the 2m discard three pungs stay concealed,
    # on the 9m discard only two
    assert score("11122555999m", "2m", PUNG_1P)["items"] == {"three_concealed_pungs": 2, "all_pungs": 4}
    assert score("11122555999m", "9m", PUNG_1P)["items"] == {"all_pungs": 4}
    # 1111m 23m 555m 999m 99p = 111 + 123 + 555 + 999 + 99p: the discard 1m sits in the chow
    r = score("111123m555m999m99p", "1m")
    assert r["win_part"] == ("chow", 0) and r["items"]["three_concealed_pungs"] == 2
    r = score("111123m555m999m99p", "1m", self_drawn=True)
    assert r["items"]["three_concealed_pungs"] == 2


# ------------------------------------------------------------------ input checks


@pytest.mark.parametrize(
    "hand, win, melds, kw",
    [
        ("123456789m111p9p1z", "6m", (), {}),  # not complete
        ("123456789m111p99p", "6m", (), {"robbing_kong": True, "self_drawn": True}),
        ("123456789m111p99p", "1p", (), {"robbing_kong": True}),  # holds other 1p
        ("123456789m111p99p", "6m", (), {"replacement": True, "self_drawn": True}),  # no kong
        ("123456m789m99p", "6m", (("kong", "1p"),), {"replacement": True}),  # not self-drawn
        ("123456m789m99p", "6m", (("pung", "1p"),), {"declared": "migi"}),
        ("123456789m111p99p", "6m", (), {"first_turn": "heavenly", "self_drawn": True}),  # not dealer
        ("123456789m111p99p", "6m", (), {"first_turn": "earthly", "dealer": True, "self_drawn": True}),
        ("123456789m111p99p", "6m", (), {"first_turn": "human", "self_drawn": True}),
        ("123456789m111p99p", "6m", (), {"first_turn": "human", "declared": "ready"}),
        ("123456m789m99p", "6m", (("pung", "1p"),), {"first_turn": "human"}),
        ("123456789m111p99p", "6m", (), {"first_turn": "tenhou"}),
        ("123456789m111p99p", "6m", (), {"declared": "riichi"}),
        ("123456789m111p99p", "6m", (), {"seat_wind": "S"}),
        ("123456789m111p99p", "6m", (), {"prevailing_wind": "X"}),
        ("123456789m111p99p", "6m", (), {"options": {"heavenly": 16}}),
        ("123456789m111p99p", "5z", (), {}),  # winning tile not in hand
        ("123456789m111s99p", "6m", (), {}),  # bamboo
        ("123456789m111p99p", "6m", (("pung", "1p"),), {}),  # wrong tile total
        ("123456m789m11p", "6m", (("kong", "1p"),), {}),  # six 1p
    ],
)
def test_bad_input_raises(hand, win, melds, kw):
    with pytest.raises(ValueError):
        score(hand, win, list(melds), **kw)


def test_item_names_are_unique_snake_case_and_cover_the_table():
    assert len(rs.ITEM_NAMES) == len(set(rs.ITEM_NAMES)) == 30
    assert all(n == n.lower() and " " not in n for n in rs.ITEM_NAMES)
    assert set(rs.FIXED_TAI) <= set(rs.ITEM_NAMES)


# ------------------------------------------------------------------ random consistent cases

EXCLUSIVE = [
    {"three_concealed_pungs", "four_concealed_pungs"},
    {
        "half_flush",
        "full_flush",
        "all_honors",
        "all_honors_little_three_dragons",
        "all_honors_big_three_dragons",
        "all_honors_little_four_winds",
        "all_honors_big_four_winds",
    },
    {
        "little_three_dragons",
        "big_three_dragons",
        "dragon_pung",
        "all_honors",
        "all_honors_little_three_dragons",
        "all_honors_big_three_dragons",
        "all_honors_little_four_winds",
        "all_honors_big_four_winds",
    },
    {
        "little_four_winds",
        "big_four_winds",
        "all_honors",
        "all_honors_little_three_dragons",
        "all_honors_big_three_dragons",
        "all_honors_little_four_winds",
        "all_honors_big_four_winds",
        "seat_wind",
    },
    {
        "little_four_winds",
        "big_four_winds",
        "all_honors",
        "all_honors_little_three_dragons",
        "all_honors_big_three_dragons",
        "all_honors_little_four_winds",
        "all_honors_big_four_winds",
        "prevailing_wind",
    },
    {
        "all_pungs",
        "all_honors",
        "all_honors_little_three_dragons",
        "all_honors_big_three_dragons",
        "all_honors_little_four_winds",
        "all_honors_big_four_winds",
    },
    {"heavenly_hand", "earthly_hand", "human_hand", "concealed_hand"},
    {"heavenly_hand", "earthly_hand", "self_drawn"},
    {"heavenly_hand", "earthly_hand", "fully_concealed"},
    {"heavenly_hand", "single_wait"},
    {"migi", "declare_ready"},
    {"robbing_the_kong", "self_drawn"},
    {"fully_melded", "concealed_hand"},
    {"fully_melded", "self_drawn"},
]


def _call(case):
    kw = dict(case)
    return rs.ref_score(kw.pop("counts"), kw.pop("win_tile"), kw.pop("melds"), **kw)


def test_random_cases_invariants():
    rng = random.Random(20240607)
    seen = set()
    for _ in range(4000):
        case = rs.random_case(rng)
        r = _call(case)
        its = r["items"]
        seen |= set(its)
        assert set(its) <= set(rs.ITEM_NAMES) and all(v > 0 for v in its.values())
        assert list(its) == [n for n in rs.ITEM_NAMES if n in its]  # ITEM_NAMES order
        assert r["hand_tai"] == sum(its.values())
        assert r["dealer_tai"] == 1 + 2 * case.get("streak", 0)
        opts = {**rs.DEFAULT_OPTIONS, **case.get("options", {})}
        assert r["points"] == opts["base"] + opts["tai_value"] * (r["hand_tai"] + r["dealer_tai"])
        assert r["total_tai"] == pytest.approx(opts["base"] / opts["tai_value"] + r["hand_tai"] + r["dealer_tai"])
        for group in EXCLUSIVE:
            assert len(group & set(its)) <= 1, (group & set(its), case)
        # the split is a real split and holds the winning tile
        k = len(case["melds"])
        assert r["split"] in ref.ref_splits(case["counts"], k)
        shape, kind = r["win_part"]
        assert r["win_part"] in r["split"]
        assert (kind <= case["win_tile"] <= kind + 2) if shape == "chow" else kind == case["win_tile"]
        # self-drawn status of the concealed hand
        exposed = any(t != "concealed_kong" for t, _ in case["melds"])
        if case.get("self_drawn") and not case.get("first_turn"):
            assert its["self_drawn"] == 4 and ("fully_concealed" in its) == (not exposed)
        if not case.get("first_turn"):
            assert ("concealed_hand" in its) == (not exposed)
    rare = {"big_four_winds", "little_four_winds", "all_honors_big_four_winds"}
    assert set(rs.ITEM_NAMES) - rare <= seen


def test_random_cases_self_draw_never_scores_less_pattern_tai_than_discard():
    """Same tiles won by self-draw vs on a discard: concealed pungs can only grow, so the
    split-dependent items (everything but the win-type items) never score less."""
    win_type = {
        "self_drawn",
        "fully_concealed",
        "fully_melded",
        "single_wait",
        "robbing_the_kong",
        "replacement_tile",
        "last_tile_draw",
        "concealed_hand",
    }
    rng = random.Random(7)
    for _ in range(1500):
        case = rs.random_case(rng)
        if case.get("first_turn"):
            continue
        base = {k: case[k] for k in ("counts", "win_tile", "melds")}
        d = _call({**base, "self_drawn": False})["items"]
        s = _call({**base, "self_drawn": True})["items"]
        pat = lambda its: sum(v for n, v in its.items() if n not in win_type)  # noqa: E731
        assert pat(s) >= pat(d)
        assert pat(s) - pat(d) <= 3  # at most one more concealed pung: 3 -> 4 is +3
