"""The scoring API across rule sets: item tables, parameters, payment functions, flag validation,
the Score object, ``score_batch`` and the ``simkit score`` command for night_market, duel, for_two."""

from __future__ import annotations

import re

import numpy as np
import pytest
import reference_scoring_duel
import reference_scoring_for_two
import reference_scoring_night_market

import simkit
from simkit.cli import main
from simkit.scoring import SCORE_FLAGS, douque, duel, for_two, item_names_of, items_of, night_market, scoring_module

MODULES = {"night_market": night_market, "duel": duel, "for_two": for_two}
REFERENCES = {
    "night_market": reference_scoring_night_market,
    "duel": reference_scoring_duel,
    "for_two": reference_scoring_for_two,
}
PUNG_E = ["pung 111z"]


# ------------------------------------------------------------------ item tables


@pytest.mark.parametrize("name", ["douque", "night_market", "duel", "for_two"])
def test_item_tables(name):
    module = scoring_module(name)
    names = item_names_of(name)
    assert names == tuple(item.name for item in items_of(name)) == module.ITEM_NAMES
    assert len(set(names)) == len(names) == module.N_ITEMS
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", n) for n in names)
    assert all(item.label and item.tai and item.condition for item in items_of(name))
    if name != "douque":
        assert names == REFERENCES[name].ITEM_NAMES  # the reference was written from the rules file
    assert items_of(simkit.get_rules(name)) is module.ITEMS


def test_douque_stays_the_default_item_table():
    assert simkit.scoring.ITEMS is douque.ITEMS and simkit.scoring.ITEM_NAMES == douque.ITEM_NAMES


def test_night_market_fan_column_matches_the_table():
    assert [int(f) for f in night_market.FAN] == [int(item.tai) for item in night_market.ITEMS]
    assert dict(zip(night_market.ITEM_NAMES, night_market.FAN.tolist())) == reference_scoring_night_market.FAN


# ------------------------------------------------------------------ parameters and payments


def test_params_of():
    p = night_market.params_of(simkit.get_rules("night_market", base=10, fan_value=20))
    assert p == (10.0, 20.0)
    p = duel.params_of(simkit.get_rules("duel", stake=2, fee=0.1, chips=500, multiple_cap=64))
    assert p == (2.0, 0.1, 64, 500.0, 100, 200)  # with chips: 100 money units per coin (0.1 = 1/10; 10^2)
    p = duel.params_of(simkit.get_rules("duel"))
    assert p.chips == np.inf and (p.money_unit, p.stake_units) == (0, 0)
    p = for_two.params_of(simkit.get_rules("for_two", combination_points=(1, 2, 3, 4, 5.5), stake=3))
    assert p.stake == 3.0 and p.combination_points.tolist() == [1, 2, 3, 4, 5.5]
    assert (p.self_drawn_multiplier, p.fold_payment) == (2.0, 1.0)


def test_night_market_payment():
    p = night_market.params_of(simkit.get_rules("night_market"))
    assert [night_market.payment(f, p) for f in (0, 1, 88)] == [50.0, 150.0, 8850.0]


@pytest.mark.parametrize(
    "cap, expected",
    [
        (32, [1, 2, 4, 8, 16, 32, 32, 32]),
        (5, [1, 2, 4, 5, 5, 5, 5, 5]),
        (1, [1] * 8),
        (1000, [1, 2, 4, 8, 16, 32, 64, 1000]),
    ],
)
def test_duel_win_multiple(cap, expected):
    p = duel.params_of(simkit.get_rules("duel", multiple_cap=cap, stake=0.5))
    fans = [1, 2, 3, 4, 5, 6, 7, 200]
    assert [duel.win_multiple(f, p) for f in fans] == expected
    assert [duel.win_payment(f, p) for f in fans] == [0.5 * m for m in expected]


def test_duel_kong_payments_and_fee():
    p = duel.params_of(simkit.get_rules("duel", stake=3, fee=0.05))
    melds = np.array([[0, 27], [1, 28], [2, 29], [3, 30]], np.int64)  # pung, exposed, added, concealed
    assert duel.kong_units(melds, 4) == 2 + 1 + 4
    assert duel.kong_units(melds, 1) == 0 and duel.kong_units(melds[1:], 1) == 2
    assert duel.kong_units(melds[2:], 1) == 1 and duel.kong_units(melds[3:], 1) == 4
    assert duel.kong_payment(melds, 4, p) == 21.0
    assert duel.receiver_fee(40.0, p) == pytest.approx(2.0)
    assert (
        reference_scoring_duel.ref_kong_payment(
            [("pung", 27), ("kong", 28), ("added_kong", 29), ("concealed_kong", 30)], 3
        )
        == 21.0
    )


def test_for_two_payment_and_fold():
    p = for_two.params_of(simkit.get_rules("for_two", stake=2, fold_payment=1.5))
    assert for_two.payment(4.0, 3, False, p) == 24.0 and for_two.payment(4.0, 3, True, p) == 48.0
    assert for_two.fold_payment(p) == 3.0


# ------------------------------------------------------------------ score(): flags each rule set takes


def test_score_flags_table():
    assert set(SCORE_FLAGS) == set(simkit.RULE_SETS)
    assert SCORE_FLAGS["for_two"] == ("self_drawn", "bid")


def test_night_market_flag_checks():
    with pytest.raises(simkit.ScoreError, match="last_tile means a self-draw"):
        simkit.score("22456789m555z", "6m", PUNG_E, rules="night_market", last_tile=True)
    with pytest.raises(simkit.ScoreError, match="cannot be self_drawn"):
        simkit.score("22456789m555z", "6m", PUNG_E, rules="night_market", last_discard=True, self_drawn=True)
    for flag in ("robbing_kong", "replacement", "dealer"):
        with pytest.raises(simkit.ScoreError, match=f"{flag}=True is not a win flag of rule set 'night_market'"):
            simkit.score("22456789m555z", "6m", PUNG_E, rules="night_market", **{flag: True})
    for flag, value in (
        ("first_turn", "heavenly"),
        ("declared", "ready"),
        ("seat_wind", "E"),
        ("streak", 1),
        ("bid", 2),
    ):
        with pytest.raises(
            simkit.ScoreError, match=f"{flag}=.* 'night_market' takes: self_drawn, last_tile, last_discard"
        ):
            simkit.score("22456789m555z", "6m", PUNG_E, rules="night_market", **{flag: value})
    with pytest.raises(simkit.TileNotationError):
        simkit.score("22456789p555z", "6p", PUNG_E, rules="night_market")
    with pytest.raises(simkit.ScoreError, match="not a complete hand"):
        simkit.score("22456789m556z", "6m", PUNG_E, rules="night_market")
    with pytest.raises(simkit.ScoreError, match="not in the hand"):
        simkit.score("22456789m555z", "1m", PUNG_E, rules="night_market")


def test_duel_flag_checks():
    hand = "123456789m11155z"
    with pytest.raises(
        simkit.ScoreError, match="first_turn='human' is not allowed; allowed: None, 'heavenly', 'earthly'"
    ):
        simkit.score(hand, "5z", rules="duel", first_turn="human")
    with pytest.raises(simkit.ScoreError, match="heavenly hand: the dealer"):
        simkit.score(hand, "5z", rules="duel", first_turn="heavenly", self_drawn=True)
    with pytest.raises(simkit.ScoreError, match="earthly hand: the non-dealer"):
        simkit.score(hand, "5z", rules="duel", first_turn="earthly", self_drawn=True, dealer=True)
    with pytest.raises(simkit.ScoreError, match="has no melds"):
        simkit.score("22456789m555z", "6m", PUNG_E, rules="duel", first_turn="earthly", self_drawn=True)
    with pytest.raises(simkit.ScoreError, match="cannot be self_drawn"):
        simkit.score(hand, "2m", rules="duel", robbing_kong=True, self_drawn=True)
    with pytest.raises(simkit.ScoreError, match="no other copy"):
        simkit.score(hand, "5z", rules="duel", robbing_kong=True)
    with pytest.raises(simkit.ScoreError, match="needs a kong"):
        simkit.score(hand, "5z", rules="duel", replacement=True, self_drawn=True)
    with pytest.raises(simkit.ScoreError, match="set self_drawn"):
        simkit.score("22456789m555z", "6m", ["kong 1111z"], rules="duel", replacement=True)
    with pytest.raises(simkit.ScoreError, match="last_tile means a self-draw"):
        simkit.score(hand, "5z", rules="duel", last_tile=True)
    for flag, value in (("last_discard", True), ("declared", "migi"), ("prevailing_wind", "S"), ("bid", 1)):
        with pytest.raises(simkit.ScoreError, match=f"{flag}=.* 'duel' takes: self_drawn, robbing_kong"):
            simkit.score(hand, "5z", rules="duel", **{flag: value})
    with pytest.raises(simkit.MeldError, match="no chow claims"):
        simkit.score("456789m11155z", "5z", ["chow 123m"], rules="duel")


def test_for_two_flag_checks():
    hand = "123m222p333s444z55z"
    for bid in (0, 4, True, "2", 1.5):
        with pytest.raises(simkit.ScoreError, match="bid=.* is not allowed; the banker bids one of 1, 2, 3"):
            simkit.score(hand, "2m", rules="for_two", bid=bid)
    for flag in ("robbing_kong", "replacement", "last_tile", "last_discard", "dealer"):
        with pytest.raises(simkit.ScoreError, match=f"{flag}=True is not a win flag of rule set 'for_two'"):
            simkit.score(hand, "2m", rules="for_two", **{flag: True})
    with pytest.raises(simkit.ScoreError, match="not a complete hand"):
        simkit.score("1133557799m1122z", "9m", rules="for_two")  # seven pairs is no for_two hand


def test_douque_rejects_the_flags_of_other_rule_sets():
    for flag, value in (("last_discard", True), ("bid", 2)):
        with pytest.raises(simkit.ScoreError, match=f"{flag}=.* is not a win flag of rule set 'douque'"):
            simkit.score("123456789m111p99p", "6m", **{flag: value})


# ------------------------------------------------------------------ the Score object


def test_night_market_score_fields_and_table():
    r = simkit.score("12345688m555z", "3m", PUNG_E, rules="night_market")
    assert (r.fan, r.points, r.hand_tai, r.dealer_tai, r.total_tai, r.multiple) == (1, 150.0, None, None, None, None)
    assert r.split == ("pung 111z", "chow 123m*", "chow 456m", "pung 555z", "pair 88m")
    text = r.table()
    assert "edge_wait" in text and "Bian Zhang" in text and "50 + 100 x 1 fan = 150 points" in text
    assert str(r) == text


def test_duel_score_fields_and_table():
    r = simkit.score(
        "44z555z666z",
        "5z",
        ["concealed_kong 1111z", "pung 777z"],
        self_drawn=True,
        rules=simkit.get_rules("duel", stake=2),
    )
    assert (r.fan, r.multiple, r.win_payment, r.kong_payment, r.points) == (22, 32, 64.0, 8.0, 72.0)
    assert r.fee == pytest.approx(3.6) and r.rules == "duel(stake=2)" and r.rule_set == "duel"
    assert "32 x 2 stake + kongs 4 x 2 stake = 72 points" in r.table()
    assert r.split[:2] == ("concealed_kong 1111z", "pung 777z") and "pung 555z*" in r.split


def test_duel_seven_pairs_split_marks_the_winning_pair():
    r = simkit.score("1111335577m1122z", "1m", rules="duel")
    assert r.split == ("pair 11m*", "pair 11m", "pair 33m", "pair 55m", "pair 77m", "pair 11z", "pair 22z")
    assert r.items == {"win": 1, "concealed_hand": 1, "luxury_seven_pairs": 5}


def test_for_two_score_fields_and_table():
    r = simkit.score("123m222p333s444z55z", "2m", rules="for_two", bid=3, self_drawn=True)
    assert (r.combination_points, r.bid, r.points, r.fan) == (4, 3, 24.0, None)
    assert "bid 3 x 1 stake x 4 points x 2 (self-drawn) = 24 points" in r.table()
    r = simkit.score(
        "123m222p333s444z55z", "2m", rules=simkit.get_rules("for_two", combination_points=(5, 4.5, 3, 2, 1))
    )
    assert r.items == {"three_pungs_one_chow": 4.5} and r.combination_points == 4.5 and r.bid == 1


# ------------------------------------------------------------------ score_batch


def test_score_batch_every_rule_set():
    cases = {
        "night_market": ("12345688m555z", "3m", [(0, 27)], {}, {"edge_wait": 1}, 1),
        "duel": (
            "123456789m11155z",
            "5z",
            [],
            {"self_drawn": True},
            {"win": 1, "self_drawn": 1, "concealed_hand": 1},
            3,
        ),
        "for_two": ("123m222p333s444z55z", "2m", [], {}, {"three_pungs_one_chow": 4}, 4),
    }
    for name, (hand, win, melds, kw, expected, value) in cases.items():
        counts = np.array([simkit.parse_tiles(hand), simkit.parse_tiles(hand)])
        counts[1, 0] = 0 if counts[1, 0] else 1  # not complete
        m = np.zeros((2, 4, 2), np.int64)
        for j, row in enumerate(melds):
            m[:, j] = row
        k = simkit.parse_tiles(win).argmax()
        items, values = simkit.score_batch(counts, [k, k], m, [len(melds)] * 2, rules=name, **kw)
        module = MODULES[name]
        assert items.shape == (2, module.N_ITEMS) and items.dtype == module.ITEM_DTYPE == values.dtype
        assert {n: items[0, j] for j, n in enumerate(module.ITEM_NAMES) if items[0, j]} == expected
        assert values[0] == value and values[1] == -1 and not items[1].any()


def test_score_batch_rejects_flags_the_rule_set_does_not_take():
    counts = np.array([simkit.parse_tiles("123m222p333s444z55z")])
    with pytest.raises(
        simkit.ScoreError, match=r"last_tile \(an array with values on\) is not a win flag of rule set 'for_two'"
    ):
        simkit.score_batch(counts, [1], rules="for_two", last_tile=np.array([True]))
    with pytest.raises(simkit.ScoreError, match="seat_wind=27 is not a win flag of rule set 'duel'"):
        simkit.score_batch(counts, [1], rules="duel", seat_wind=27)
    # off values are fine
    simkit.score_batch(counts, [1], rules="for_two", last_tile=np.array([False]), first_turn=0)


# ------------------------------------------------------------------ the command line


def test_cli_night_market(capsys):
    code = main(
        [
            "score",
            "123456789m11555z",
            "--win",
            "1m",
            "--self-drawn",
            "--last-tile",
            "--rules",
            "night_market",
            "--option",
            "fan_value=10",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0 and "fully_concealed" in out and "last_tile_draw" in out and "50 + 10 x 12 fan = 170" in out
    assert (
        main(
            [
                "score",
                "22456789m555z",
                "--win",
                "6m",
                "--melds",
                "pung 111z",
                "--rules",
                "night_market",
                "--last-discard",
            ]
        )
        == 0
    )
    assert "He Di" in capsys.readouterr().out
    assert main(["score", "22456789m555z", "--win", "6m", "--rules", "night_market", "--robbing-kong"]) == 2
    assert "robbing_kong" in capsys.readouterr().err


def test_cli_duel(capsys):
    argv = [
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
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "big_three_dragons" in out and "32 x 1 stake + kongs 4 x 1 stake = 36 points" in out
    assert (
        main(
            [
                "score",
                "123456789m11155z",
                "--win",
                "5z",
                "--self-drawn",
                "--first-turn",
                "heavenly",
                "--dealer",
                "--rules",
                "duel",
            ]
        )
        == 0
    )
    assert "heavenly_hand" in capsys.readouterr().out
    assert main(["score", "123456789m11155z", "--win", "5z", "--rules", "duel", "--streak", "2"]) == 2
    assert "streak=2 is not a win flag of rule set 'duel'" in capsys.readouterr().err


def test_cli_for_two(capsys):
    assert (
        main(
            [
                "score",
                "123m222p333s444z55z",
                "--win",
                "2m",
                "--rules",
                "for_two",
                "--bid",
                "2",
                "--self-drawn",
                "--option",
                "combination_points=5,4,3,2,1",
            ]
        )
        == 0
    )
    assert "bid 2 x 1 stake x 4 points x 2 (self-drawn) = 16 points" in capsys.readouterr().out
    assert main(["score", "123m222p333s444z55z", "--win", "2m", "--rules", "for_two", "--bid", "5"]) == 2
    assert main(["score", "123m222p333s444z55z", "--win", "2m", "--rules", "douque", "--bid", "2"]) == 2


def test_docstring_examples():
    import doctest

    result = doctest.testmod(simkit.scoring)
    assert result.attempted > 0 and result.failed == 0
