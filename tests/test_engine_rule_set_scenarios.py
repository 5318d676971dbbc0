"""Hand-built scenarios for the rules night_market, duel and for_two add to the engine.

Each test deals a chosen wall (``build_wall``: dealer 14, other 13, front draws in order, kong
replacements from the tail; the first replacement is the last tile of the wall) and drives both
players with scripted policies (``script``; past its script a player plays its fallback: greedy,
or ``PASSIVE`` -- never claims or wins, discards the drawn tile -- or ``PASSIVE_WINS``). Player 0
is the dealer. A scripted action that is not legal stops the hand and ``play_hand`` raises.

Covered: chow claims at each position and the discard they force, no chow in duel, no Declare
Ready outside douque, seven pairs and luxury seven pairs, kong payments on a draw, a robbed kong
paying nothing (and no robbing in night_market), the fee on win and kong payments, the chip limit,
win on a kong replacement, Heavenly / Earthly Hand, the last tile and the last discard with no
tiles kept back, the empty-wall draw (and for_two's 8 kept-back tiles), bid / follow / fold.
"""

from __future__ import annotations

import pytest
from engine_util import PASSIVE, PASSIVE_WINS, build_wall, script

import simkit
from simkit.engine import actions as A
from simkit.play import matches as _matches
from simkit.play.matches import play_hand
from simkit.tiles import kind_of

ILLEGAL = "a policy returned an illegal action"
ILLEGAL_ERRORS = (ValueError, getattr(_matches, "EngineError", ValueError))


def k(t: str) -> int:
    return kind_of(t)


def D(t: str) -> int:
    return A.DISCARD + k(t)


def CK(t: str) -> int:
    return A.CONCEALED_KONG + k(t)


def AK(t: str) -> int:
    return A.ADDED_KONG + k(t)


def play(rules, dealer, other, draws="", replacements="", p0=(), p1=(), then=(PASSIVE, PASSIVE), **kw):
    """Play a scripted hand of ``rules``; returns (record, player 0's script params, player 1's)."""
    rules = simkit.rules.resolve_rules(rules)
    s0, s1 = script(*p0, then=then[0]), script(*p1, then=then[1])
    wall = build_wall(dealer, other, draws, replacements, rules=rules)
    rec = play_hand(wall, rules=rules, policies=(s0, s1), **kw)
    return rec, s0[1], s1[1]


def illegal(rules, dealer, other, draws="", replacements="", p0=(), p1=(), player=1):
    """The hand stops on an illegal action, the last entry of ``player``'s script."""
    rules = simkit.rules.resolve_rules(rules)
    s0, s1 = script(*p0, then=PASSIVE), script(*p1, then=PASSIVE)
    with pytest.raises(ILLEGAL_ERRORS, match=ILLEGAL):
        play_hand(build_wall(dealer, other, draws, replacements, rules=rules), rules=rules, policies=(s0, s1))
    assert asked((s0, s1)[player][1]) == len((p0, p1)[player])


def asked(params) -> int:
    return int(params[0])


def events(rec, name=None, player=None):
    return [e for e in rec.events if (name is None or e[0] == name) and (player is None or e[1] == player)]


def check_money(row, **expected):
    for key, value in expected.items():
        assert row[key] == pytest.approx(value), key


# ---------------------------------------------------------------------------------------------
# chows (night_market, for_two)

CHOW_DEALER = "4m 111z 222z 333z 555z 6z"  # discards 4m
CHOW_OTHER = "2356m 789m 444z 777z"  # 4m completes 234m, 345m or 456m


@pytest.mark.parametrize("j, start", [(0, "4m"), (1, "3m"), (2, "2m")])
def test_chow_claim_at_each_position_then_a_discard(j, start):
    rec, _, _ = play("night_market", CHOW_DEALER, CHOW_OTHER, p0=[D("4m")], p1=[A.CHOW + j])
    (chow,) = events(rec, "chow")
    assert chow == ("chow", 1, k(start), k("4m"))
    after = rec.events[rec.events.index(chow) + 1]
    assert after[0] == "discard" and after[1] == 1, "a chow is followed by the claimer's discard, no draw"
    assert rec.row["winner"] == -1 and rec.row["tiles_left"] == 0  # then both pass to the end


def test_a_claimed_chow_in_the_winning_hand():
    rec, _, _ = play(
        "night_market",
        CHOW_DEALER,
        CHOW_OTHER,
        draws="6m",
        p0=[D("4m"), D("6m")],
        p1=[A.CHOW + 1, D("2m"), A.WIN],
    )
    row = rec.row
    assert row["winner"] == 1 and row["win_type"] == 2 and row["win_tile"] == k("6m")
    assert row["win_melds"][0].tolist() == [4, k("3m")]  # chow 345m
    assert rec.items == {"two_concealed_pungs": 2}  # claimed: no Men Qing; two waits: no Dan Diao
    assert row["fan"] == 2 and row["points"] == 250.0
    check_money(row, score_1=250, score_0=-250, balance_1=250, fee_1=0)


def test_after_a_chow_no_kong():
    illegal("night_market", CHOW_DEALER, "35m 789m 4444z 777z 9m", p0=[D("4m")], p1=[A.CHOW + 1, CK("4z")])


def test_no_chow_in_duel():
    illegal("duel", CHOW_DEALER, CHOW_OTHER, p0=[D("4m")], p1=[A.CHOW + 1])


def test_no_declare_outside_douque():
    illegal("night_market", "123m 456m 789m 111z 5z 7z", CHOW_OTHER, p0=[A.DECLARE + k("7z")], player=0)


def test_for_two_chow_and_four_chows_win():
    rec, _, _ = play(
        "for_two",
        "4s 111z 222z 333z 555z 6z",
        "35s 123m 456p 789p 77z",
        draws="7z",
        p0=[A.BID, D("4s"), D("7z")],
        p1=[A.FOLLOW, A.CHOW + 1, D("7z"), A.WIN],
    )
    row = rec.row
    assert row["winner"] == 1 and row["win_type"] == 2 and row["bid"] == 1
    assert row["win_melds"][0].tolist() == [4, k("3s")]
    assert rec.items == {"four_chows": 1.0} and row["combination_points"] == 1.0
    check_money(row, points=1, score_1=1, score_0=-1)


# ---------------------------------------------------------------------------------------------
# duel: seven pairs, kongs, fee, chips, first-turn hands

SEVEN_DEALER = "3z 444z 555z 666z 777z 9m"


def test_seven_pairs_win_on_a_discard():
    rec, _, _ = play("duel", SEVEN_DEALER, "11335577m 11223z", p0=[D("3z")], p1=[A.WIN])
    row = rec.row
    assert row["winner"] == 1 and row["win_type"] == 2
    assert rec.items == {"win": 1, "concealed_hand": 1, "seven_pairs": 3}
    assert row["fan"] == 5 and row["multiple"] == 16
    check_money(row, points=16, score_1=16, fee_1=0.8, balance_1=15.2, balance_0=-16)


def test_luxury_seven_pairs_self_drawn():
    rec, _, _ = play(
        "duel",
        SEVEN_DEALER,
        "1111m 3355m 1122z 3z",
        draws="8m 2m 3z",
        p0=[D("9m"), D("2m")],
        p1=[D("8m"), A.WIN],
    )
    row = rec.row
    assert row["winner"] == 1 and row["win_type"] == 1
    assert rec.items == {"win": 1, "self_drawn": 1, "concealed_hand": 1, "luxury_seven_pairs": 5}
    assert row["fan"] == 8 and row["multiple"] == 32  # 2^7 capped at 32
    check_money(row, points=32, fee_1=1.6)


KONG_DEALER = "1111z 2z 123456789m"  # concealed kong of 1z, then discards 2z


def test_kong_payments_on_a_draw():
    rec, _, _ = play("duel", KONG_DEALER, "222z 333z 444z 5z 6z 7z 1m", p0=[CK("1z"), D("2z")], p1=[A.KONG])
    row = rec.row
    assert row["winner"] == -1 and row["win_type"] == 0 and row["tiles_left"] == 0
    assert row["kongs_0"] == 1 and row["kongs_1"] == 1
    # concealed kong 4 x stake to player 0, exposed kong 2 x stake to player 1; 5% fee on receipts
    check_money(
        row,
        points=0,
        kong_payment_0=4,
        kong_payment_1=2,
        fee_0=0.2,
        fee_1=0.1,
        score_0=2,
        score_1=-2,
        balance_0=1.8,
        balance_1=-2.1,
    )
    assert "kong payments: 4 to player 0, 2 to player 1" in rec.lines()


def test_robbed_kong_pays_no_kong_payment():
    rec, s0, s1 = play(
        "duel",
        "55m 111z 222z 33z 44z 69m",
        "5m 46m 123m 789m 666z 7z",
        draws="7z 1m 5m",
        p0=[D("9m"), A.PUNG, D("6m"), AK("5m")],
        p1=[D("5m"), D("1m"), A.WIN],
    )
    row = rec.row
    assert row["winner"] == 1 and row["win_type"] == 3 and row["win_tile"] == k("5m")
    assert rec.items == {"win": 1, "concealed_hand": 1, "robbing_the_kong": 1}
    assert row["kongs_0"] == 0  # the kong is undone: a pung again
    check_money(row, points=4, kong_payment_0=0, kong_payment_1=0, fee_1=0.2, score_1=4, balance_0=-4)


def test_no_robbing_in_night_market():
    # the same hand as above; player 0 then wins on the kong replacement (3z)
    rec, s0, s1 = play(
        "night_market",
        "55m 111z 222z 33z 44z 69m",
        "5m 46m 123m 789m 666z 7z",
        draws="7z 1m 5m",
        replacements="3z",
        p0=[D("9m"), A.PUNG, D("6m"), AK("5m"), A.WIN],
        p1=[A.PASS, D("5m"), A.PASS, D("1m")],
    )
    assert ("added kong", 0, k("5m"), 0) in rec.events
    assert asked(s1) == 4, "player 1 waits on 5m but is not asked about the added tile"
    row = rec.row
    assert row["winner"] == 0 and row["win_type"] == 1 and row["kongs_0"] == 1
    assert row["win_melds"][0].tolist() == [2, k("5m")]  # the added kong stands


WIN_KONGS_DEALER = "1111z 2z 123456789m"
WIN_KONGS_OTHER = "222z 333z 444z 55z 66z"  # kongs 2z, then wins on 5z with all pungs, all honours


def _win_with_kongs(**options):
    return play(
        simkit.get_rules("duel", **options),
        WIN_KONGS_DEALER,
        WIN_KONGS_OTHER,
        draws="9m",
        replacements="5z 7z",
        p0=[CK("1z"), D("2z"), D("5z")],
        p1=[A.KONG, D("7z"), A.WIN],
    )[0]


def test_fee_on_win_and_kong_payments():
    rec = _win_with_kongs()
    row = rec.row
    assert row["winner"] == 1 and rec.items == {"win": 1, "all_pungs": 2, "all_honors": 10}
    assert row["fan"] == 13 and row["multiple"] == 32
    # player 1 receives 32 (win) + 2 (exposed kong), player 0 receives 4 (concealed kong)
    check_money(
        row,
        points=32,
        kong_payment_1=2,
        kong_payment_0=4,
        fee_1=1.7,
        fee_0=0.2,
        score_1=30,
        score_0=-30,
        balance_1=28.3,
        balance_0=-30.2,
    )


def test_chip_limit_caps_payments():
    row = _win_with_kongs(chips=10).row
    # player 0 (10 chips) pays the win first: 10, nothing left for player 1's kong; player 1 pays 4
    check_money(
        row,
        points=10,
        kong_payment_1=0,
        kong_payment_0=4,
        fee_1=0.5,
        fee_0=0.2,
        score_1=6,
        score_0=-6,
        balance_1=5.5,
        balance_0=-6.2,
    )
    row = _win_with_kongs(chips=10, fee=0.0, stake=0.25).row
    check_money(row, points=8, kong_payment_1=0.5, kong_payment_0=1, fee_1=0, score_1=7.5)


def test_chip_limit_is_exact():
    # 9.99 chips: money in units of 1/40000 coin (1/20^2 of 1/100, the largest amount of which the
    # stake 1 and the chips are whole multiples), so the fee on a capped payment is exact too.
    # Player 0 pays all 9.99 for the win (nothing left for player 1's kong) and player 1 pays 4.
    row = _win_with_kongs(chips=9.99).row
    assert (row["points"], row["kong_payment_1"], row["kong_payment_0"]) == (9.99, 0.0, 4.0)
    assert (row["fee_1"], row["fee_0"]) == (0.4995, 0.2)
    assert (row["score_1"], row["score_0"]) == (5.99, -5.99)
    assert (row["balance_1"], row["balance_0"]) == (5.4905, -6.19)  # player 1: 15.4805 chips; player 0: 3.8


def test_win_on_a_kong_replacement():
    rec, _, _ = play(
        "duel", "1111z 123m 456m 789m 5z", "222z 333z 444z 5z 6z 7z 1m", replacements="5z", p0=[CK("1z"), A.WIN]
    )
    row = rec.row
    assert row["winner"] == 0 and row["win_type"] == 1
    assert rec.items == {"win": 1, "self_drawn": 1, "concealed_hand": 1, "replacement_tile": 1}
    check_money(row, points=8, kong_payment_0=4, fee_0=0.6, score_0=12, balance_0=11.4)


def test_heavenly_and_earthly_hands():
    rec, _, _ = play("duel", "123m 456m 789m 111z 55z", "222z 333z 444z 5z 6z 7z 1m", p0=[A.WIN])
    assert rec.items == {"heavenly_hand": 8} and rec.row["multiple"] == 32
    rec, _, _ = play(
        "duel",
        "2z 333z 444z 666z 777z 9m",
        "123m 456m 789m 111z 5z",
        draws="5z",
        p0=[D("9m")],
        p1=[A.WIN],
    )
    assert rec.row["winner"] == 1 and rec.items == {"earthly_hand": 8}


def test_earthly_hand_after_the_dealers_concealed_kong():
    """duel.md: Earthly Hand is the non-dealer's self-draw "on the first draw before any call"; a
    concealed kong is declared, not called (the rules file tells calls and declared kongs apart), so
    the dealer's concealed kong does not cancel it (douque.md, which says "nobody has made any
    pung or kong", does cancel it there: test_engine_scenarios.py)."""
    rec, _, _ = play(
        "duel",
        "2222z 333z 444z 66z 7z 9m",
        "123m 456m 789m 111z 5z",
        draws="5z",
        replacements="7z",
        p0=[CK("2z"), D("9m")],
        p1=[A.WIN],
    )
    assert ("concealed kong", 0, k("2z"), 0) in rec.events
    row = rec.row
    assert (row["winner"], row["win_type"], row["kongs_0"]) == (1, 1, 1)
    assert rec.items == {"earthly_hand": 8} and row["fan"] == 8 and row["multiple"] == 32
    check_money(row, points=32, kong_payment_0=4, score_1=28)


def test_not_earthly_after_a_call():
    # player 1 pungs the dealer's first discard (a call), then self-draws on their first draw
    rec, _, _ = play(
        "duel",
        "7z 1m 2m 3m 4m 5m 6m 22z 3z 44z 66z",
        "123m 456m 789m 77z 1z 5z",
        draws="3z 5z",
        p0=[D("7z")],
        p1=[A.PUNG, D("1z"), A.WIN],
    )
    row = rec.row
    assert (row["winner"], row["win_type"], row["win_tile"]) == (1, 1, k("5z"))
    assert rec.items == {"win": 1, "self_drawn": 1}


def test_not_earthly_on_the_second_draw():
    rec, _, _ = play(
        "duel",
        "2z 333z 444z 666z 777z 9m",
        "123m 456m 789m 111z 5z",
        draws="6m 3m 5z",
        p0=[D("9m")],
        p1=[D("6m"), A.WIN],
    )
    assert rec.row["winner"] == 1 and rec.items == {"win": 1, "self_drawn": 1, "concealed_hand": 1}


# ---------------------------------------------------------------------------------------------
# the end of the wall


@pytest.mark.parametrize("name", ["night_market", "duel", "for_two"])
def test_empty_wall_draw(name):
    rules = simkit.get_rules(name)
    first = [A.BID] if name == "for_two" else []
    reply = [A.FOLLOW] if name == "for_two" else []
    rec, _, _ = play(name, "123m 456m 789m 111z 2z 3z", "147m 258m 369m 4z 5z 6z 7z", p0=first, p1=reply)
    draws = events(rec, "draw")
    assert len(draws) == rules.n_tiles - 27 - rules.kept_back  # 37, 37 and 101: no tile kept back but for_two's 8
    assert rec.events[-1] == ("exhaustive draw", -1, -1, 0)
    assert rec.row["winner"] == -1 and rec.row["tiles_left"] == 0 and rec.row["points"] == 0


def test_last_discard_he_di_lao_yu():
    # the dealer waits on 5z; the last tile of the wall is 5z, drawn and thrown by player 1
    rec, _, _ = play(
        "night_market",
        "123m 456m 789m 111z 5z 7z",
        "55z 22z 33z 44z 666z 7z 8m",
        replacements="5z",
        p0=[D("7z")],
        then=(PASSIVE_WINS, PASSIVE),
    )
    row = rec.row
    assert row["winner"] == 0 and row["win_type"] == 2 and row["tiles_left"] == 0
    assert rec.items["last_discard"] == 8 and "last_tile_draw" not in rec.items
    assert row["points"] == 50 + 100 * row["fan"]


def test_last_tile_hai_di_lao_yue():
    rec, _, _ = play(
        "night_market",
        "55z 333z 444z 666z 77z 9m",
        "123m 456m 789m 111z 5z",
        replacements="5z",
        p0=[D("9m")],
        then=(PASSIVE, PASSIVE_WINS),
    )
    row = rec.row
    assert row["winner"] == 1 and row["win_type"] == 1 and row["tiles_left"] == 0
    assert rec.items["last_tile_draw"] == 8 and "self_drawn" not in rec.items


# ---------------------------------------------------------------------------------------------
# for_two: bid, follow, fold

BANKER = "111m 222p 333s 444z 55z"  # four pungs: complete on the deal
OTHER = "123m 456p 789s 1234z"


def test_fold_ends_the_hand_with_the_fold_payment():
    rec, _, _ = play("for_two", BANKER, OTHER, p0=[A.BID + 2], p1=[A.FOLD])
    row = rec.row
    assert [e[0] for e in rec.events] == ["deal", "bid", "fold"]
    assert row["win_type"] == 4 and row["winner"] == -1 and row["payer"] == 1 and row["bid"] == 3
    assert row["tiles_left"] == 136 - 27 - 8 and row["turns"] == 2
    check_money(row, points=1, score_0=1, score_1=-1, balance_0=1)
    rules = simkit.get_rules("for_two", stake=3, fold_payment=2)
    rec, _, _ = play(rules, BANKER, OTHER, p0=[A.BID], p1=[A.FOLD])
    check_money(rec.row, points=6, score_0=6)
    assert "not played: player 1 pays the banker 6" in rec.lines()


def test_bid_then_self_drawn_win():
    rec, _, _ = play("for_two", BANKER, OTHER, p0=[A.BID + 1, A.WIN], p1=[A.FOLLOW])
    row = rec.row
    assert [e[0] for e in rec.events] == ["deal", "bid", "follow", "win"]
    assert row["winner"] == 0 and row["bid"] == 2 and rec.items == {"four_pungs": 5.0}
    check_money(row, combination_points=5, points=20, score_0=20)  # bid 2 x stake 1 x 5 points x 2 (self-drawn)


def test_bid_phase_allows_only_bids():
    illegal("for_two", BANKER, OTHER, p0=[D("1m")], player=0)
    illegal("for_two", BANKER, OTHER, p0=[A.BID], p1=[A.PASS])
    illegal("night_market", "123m 456m 789m 111z 2z 3z", "147m 258m 369m 4z 5z 6z 7z", p0=[A.BID], player=0)
