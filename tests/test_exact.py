"""Exact values and the race: equal to a brute-force enumeration, the limit rollouts converge to,
and refused with the reason when they cannot be computed."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from engine_util import value_by_playing_every_order

import simkit
from simkit.cli import main
from simkit.play.exact import ExactError, completions, exact, opponent_hands
from simkit.play.race import RaceError, locked_policy, race
from simkit.play.rollouts import parse_action
from simkit.tiles import parse_tile_list

#: late positions of greedy games (both players' hands as they were), one per rule set, with few
#: completions; for_two's with the plain draw at the end (its default end phase draws at random)
LATE = {
    "douque": (
        "douque: hand 13577m133456z; drawn 6z; melds pung 444m; opponent_melds pung 333m; river 5z 5z 1p 6m 8m 8m 1m "
        "1m 6z 3z 3m* 8m 7m 5z 4z 9m 2z 9p; opponent_river 2z 2m 1p 4z 4m* 1z 5m 2m 6m 4m 4z 1p 6z 8m 3z 7z 2z 9p "
        "9p; tiles_left 2; not_dealer; phase draw; stable_wall; opponent_declared_at 12; opponent_declared 1"
    ),
    "duel": (
        "duel: hand 345999m13356z; drawn 6z; melds pung 888m; opponent_melds pung 222m, pung 444m; river 2m* 3m 2z "
        "4m* 3z 6m 4z 1m 1z 6z 9m 2z 6z 7z 7m 2z 5z 5z; opponent_river 6z 5m 5z 3m 7m 6m 5m 4z 1m 7m 8m* 3z 3m 4z "
        "5m 2z 4z 6m 1m; tiles_left 3; not_dealer; phase draw; stable_wall; seat_wind W"
    ),
    "night_market": (
        "night_market: hand 17m; drawn 7m; melds kong 8888m, pung 111z, chow 345m, chow 456m; opponent_melds pung "
        "111m; river 7z 6z 2z 3m 2z 1m* 2m 2m 3z 4m 7m 2z 9m 6z 4z 9m 3m 5z 5z; opponent_river 3z 9m 4m 5m 7z 6z 6z "
        "2z 8m* 4z 1z* 3z 1z 5z 3z 5m* 3m 5m* 2m; tiles_left 3; dealer; phase draw; stable_wall"
    ),
    "for_two": (
        "for_two: hand 167m13p4667s56z; drawn 7s; melds chow 123p; opponent_melds chow 567m, chow 789p, chow 234s, "
        "chow 345m; river 8m 8m 5m* 1s 1p 9p* 4s* 5m 3z 5p 7m 6z 7m 4z 9m 7s 7z 4z 3p 1z 8p 1z 3m* 2s 5p 6s 2s 1z 5s "
        "9p 1s 6s 4m 9m 7z 2m 7p 6z 2p 6m 8s 6z 3s 5s 4z 3z 4m 4z 2m 3m 9s 5z; opponent_river 2z 5p 1m 2z 9s 1s 3z "
        "2z 1s 5s 1m 9s 2s 6p 8s 8p 3m 4m 8m 4p 3m 5z 4s 1p* 2m 8p 5m 6p 6m 8s 9p 3p 2p 6p 5s 9m 5z 6p 3s 2p 8s 9s "
        "1z 7p 7z 1m 4s 5p 3z 1p 4p 7s; tiles_left 2; dealer; phase draw; stable_wall; seat_wind W; bid 1"
    ),
}

#: both players ready and declared (douque): a race, against a known hand and summed over all
RACE = (
    "douque: hand 224447789m55z; drawn 7m; melds pung 111m; opponent_melds pung 666m, pung 222z; river 1p 1z 3z "
    "4z 6m* 9m 6m 7z 3z 2z* 9p 6z 9m 4m 7m 3m 6z 2z; opponent_river 1z 3z 4z 6z 3m 3m 1m* 1p 6z 7m 4z 9p 1p 7z "
    "1z 9p 1p 3z; tiles_left 4; dealer; phase draw; stable_wall; declared_at 7; opponent_declared_at 9; "
    "declared 1; opponent_declared 1"
)
RACE_OPPONENT = "55588m55z"
#: a race where a declared opponent's locked hand adds a kong (its pung's fourth tile is unseen)
RACE_WITH_KONG = (
    "douque: hand 122346666789m22z; drawn 6m; opponent_melds pung 777z; river 3z 4z 7z* 1m 3z 6z 8m 5m 1m 5z 8m "
    "7m 1z 1p 9p 4m 3z; opponent_river 3z 4z 9m 1z 5m 9p 9p 5z 5m 5m 6z 5z 9m 9p 1z 5z 2z; tiles_left 4; "
    "dealer; phase draw; stable_wall; declared_at 2; opponent_declared_at 4; declared 1; opponent_declared 1; "
    "seat_wind W"
)


def position(name: str) -> simkit.Position:
    rules = simkit.get_rules(name, end_phase="plain_draw") if name == "for_two" else simkit.get_rules(name)
    return simkit.Position.from_string(LATE[name], rules)


#: a night_market position with seven unseen tiles: at most 7! orders to play from Python
TINY = (
    "night_market: hand 4m1113377z; drawn 4m; melds chow 123m, chow 789m; opponent_melds chow 567m, chow 678m, "
    "chow 123m; river 5m* 6m* 4z 6m 9m 2z 1m 6z 8m 1m* 3m 2z 6z 4m 5m 3m 4z 2m 7m; opponent_river 5z 6m 9m 8m 6z "
    "5z 1m* 1m 8m* 4z 4m 5m 6z 9m 4m 5z 2m 2z 2z 5m; tiles_left 3; not_dealer; phase draw; stable_wall"
)


def test_exact_equals_playing_out_every_order_of_the_unseen_tiles():
    pos = simkit.Position.from_string(TINY)
    assert pos.unseen.sum() <= 7
    df = exact(pos).set_index("action")
    assert df["win_rate"].max() > 0 and df["deal_in_rate"].max() > 0  # wins and deal-ins both enumerated
    actions = ["discard 4m", "discard 3z"]
    codes = [parse_action(a, int(pos._derived["drawn"]), pos._derived["rules"]) for a in actions]
    values, _ = value_by_playing_every_order(pos, codes)
    np.testing.assert_allclose(df.loc[actions, "mean"], values, atol=1e-9)


@pytest.mark.parametrize("rules", ["douque", "duel"])
def test_rollouts_converge_to_the_exact_value(rules):
    pos = position(rules)
    ex = exact(pos).set_index("action")
    assert ex.attrs["exact"] and ex.attrs["completions"] == completions(pos).total
    gaps = []
    for n in (1_000, 16_000):
        ro = simkit.rollouts(pos, n=n, seed=5).set_index("action").loc[ex.index]
        se = (ro["mean_high"] - ro["mean_low"]) / (2 * 1.959963984540054)
        # every action's exact value lies within 4 standard errors of its rollouts' mean
        assert ((ro["mean"] - ex["mean"]).abs() <= 4 * se + 1e-12).all(), (n, ro["mean"] - ex["mean"], se)
        for col in ("win_rate", "deal_in_rate", "draw_rate"):
            p = ex[col]
            assert ((ro[col] - p).abs() <= 4 * np.sqrt(p * (1 - p) / n) + 1e-12).all()
        gaps.append(float((ro["mean"] - ex["mean"]).abs().max()))
    assert gaps[1] < gaps[0] or gaps[1] < 1e-9  # closer with 16 times the rollouts


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["night_market", "for_two"])
def test_rollouts_converge_to_the_exact_value_in_the_other_rule_sets(rules):
    test_rollouts_converge_to_the_exact_value(rules)


def test_the_opponent_s_hands_are_weighted_by_their_ways():
    pos = position("duel")
    hands, weights = opponent_hands(pos, ready=False)
    unseen = pos.unseen
    n = int(pos._derived["opp_concealed"])
    assert len(hands) == completions(pos).opponent_hands
    assert (hands.sum(axis=1) == n).all() and (hands <= unseen).all()
    assert len({h.tobytes() for h in hands}) == len(hands)  # each multiset once
    ways = np.array([math.prod(math.comb(int(u), int(k)) for u, k in zip(unseen, h)) for h in hands])
    assert ways.sum() == math.comb(int(unseen.sum()), n)  # every hand of the unseen tiles, once
    np.testing.assert_allclose(weights, ways / ways.sum())


def test_a_race_equals_the_exact_enumeration_with_both_players_locked():
    pos = simkit.Position.from_string(RACE)
    rules = pos._derived["rules"]
    opponent = parse_tile_list(RACE_OPPONENT, rules)
    r = race(pos, opponent_hand=opponent)
    ex = exact(pos, (locked_policy, locked_policy), actions=["discard 7m"], opponent_hand=opponent).iloc[0]
    assert r.mean == pytest.approx(ex["mean"], abs=1e-9)
    assert r.win == pytest.approx(ex["win_rate"], abs=1e-12)
    assert r.self_draw == pytest.approx(ex["self_draw_rate"], abs=1e-12)
    assert r.deal_in == pytest.approx(ex["deal_in_rate"], abs=1e-12)
    assert r.draw == pytest.approx(ex["draw_rate"], abs=1e-12)
    assert r.win + r.opponent_win + r.draw == pytest.approx(1.0)
    assert 0 < r.win < 1 and 0 < r.deal_in and 0 < r.opponent_self_draw and 0 < r.draw
    t = r.turns
    assert t["mean"].sum() == pytest.approx(r.mean)
    assert (t["self_draw"] + t["on_discard"]).sum() == pytest.approx(r.win)
    assert list(t["reached"]) == sorted(t["reached"], reverse=True) and t["reached"].iloc[-1] == pytest.approx(r.draw)
    assert r.playouts < ex.attrs["playouts"] / 10  # a few playouts price the ends
    # summed over the opponent's ready hands: the exact enumeration of a declared opponent
    summed = race(pos)
    ex = exact(pos, (locked_policy, locked_policy), actions=["discard 7m"]).iloc[0]
    assert summed.opponent_hands == completions(pos).opponent_hands > 1
    assert summed.mean == pytest.approx(ex["mean"], abs=1e-9)
    assert summed.deal_in == pytest.approx(ex["deal_in_rate"], abs=1e-12)
    assert "viewer wins" in str(summed)


def test_a_race_follows_a_locked_hand_s_automatic_kong():
    pos = simkit.Position.from_string(RACE_WITH_KONG)
    opponent = parse_tile_list("1244789m111p", pos._derived["rules"])
    r = race(pos, opponent_hand=opponent)
    ex = exact(pos, (locked_policy, locked_policy), actions=["discard 6m"], opponent_hand=opponent).iloc[0]
    assert r.mean == pytest.approx(ex["mean"], abs=1e-9)
    assert r.win == pytest.approx(ex["win_rate"], abs=1e-12)
    assert r.opponent_self_draw == pytest.approx(1 - ex["win_rate"] - ex["draw_rate"], abs=1e-12)


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: exact(position("douque"), max_completions=100), "2,410 completions (40 opponent hands"),
        (lambda: exact(position("duel"), to="match"), "end of the hand"),
        (lambda: exact(simkit.Position.from_string(LATE["for_two"])), "end phase"),
        (lambda: exact(position("duel"), actions=["discard 1m"]), "not legal"),
        (lambda: exact(position("duel"), opponent_hand="1m"), "opponent_hand must have"),
        (lambda: race(position("duel")), "not ready"),
        (lambda: race(simkit.Position.from_string(RACE), opponent_hand="11112m222z"), "opponent_hand"),
        (lambda: race(simkit.Position.from_string(RACE), max_opponent_hands=3), "max_opponent_hands=3"),
    ],
)
def test_bad_exact_and_race_calls_are_one_line(call, words):
    with pytest.raises((ExactError, RaceError)) as info:
        call()
    assert words in str(info.value) and "\n" not in str(info.value)


def test_advise_enumerates_a_small_position_and_says_so(capsys):
    argv = [
        "advise",
        "345999m13356z",
        "--rules",
        "duel",
        "--drawn",
        "6z",
        "--melds",
        "pung 888m",
        "--opp-melds",
        "pung 222m",
        "pung 444m",
        "--river",
        "2m* 3m 2z 4m* 3z 6m 4z 1m 1z 6z 9m 2z 6z 7z 7m 2z 5z 5z",
        "--opp-river",
        "6z 5m 5z 3m 7m 6m 5m 4z 1m 7m 8m* 3z 3m 4z 5m 2z 4z 6m 1m",
        "--tiles-left",
        "3",
        "--seat-wind",
        "W",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "exact     247 completions" in out and "discard 5m" in out
    assert main([*argv, "--exact", "never", "-n", "200"]) == 0
    assert "rollouts  200 per action" in capsys.readouterr().out


def test_the_race_command_prints_the_race_and_its_json(capsys):
    assert main(["race", RACE, "--opp-hand", RACE_OPPONENT]) == 0
    out = capsys.readouterr().out
    expected = race(simkit.Position.from_string(RACE), opponent_hand=RACE_OPPONENT)
    assert f"expected result {expected.mean:+.4f}" in out and "exhaustive draw" in out
    assert main(["race", RACE, "--opp-hand", RACE_OPPONENT, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["mean"] == pytest.approx(expected.mean) and len(data["turns"]) == len(expected.turns)
    assert main(["race", RACE, "--opp-hand", "1m"]) != 0
    assert "opponent_hand must have" in capsys.readouterr().err


def test_an_early_position_is_counted_without_enumerating_the_opponent_s_hands():
    early = simkit.Position.from_string("douque: hand 123m5m79m1p99p11z567z; drawn 7z; dealer")
    count = completions(early)
    assert not count.counted and count.opponent_hands > 10**6 and "too many" in str(count)
    with pytest.raises(ExactError, match="too many to enumerate"):
        exact(early, max_completions=10**12)
