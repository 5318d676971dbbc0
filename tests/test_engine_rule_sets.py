"""The engine under night_market, duel and for_two: invariants on many matches, payments, match
progression, determinism and replay.

Inside the kernel, ``check=True`` verifies after every step that all tiles are accounted for (64
for night_market and duel, 136 for for_two), that hand sizes are right, that nothing is drawn beyond
the wall or from for_two's 8 kept-back tiles, and that each hand's payments are zero-sum after fees
with no player's chips below zero (it raises otherwise). Here the result rows are checked against
the rules files: each rule set's payment formula, kong payments and fees, dealer rotation, match
length, and the winner's hand.

Compile-time budget: every policy pair compiles the engine anew for each rule set (about 30 s), so
the default run plays its many matches with :func:`engine_util.fallback` policies, the same
compiled engine as the scripted scenarios (``tests/test_engine_rule_set_scenarios.py``). They play
exactly like the built-in ``random`` and ``greedy`` (checked under the ``slow`` marker, which also
runs the acceptance sizes with the built-in names: 5,000 random-policy matches of each rule set).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numba
import numpy as np
import pytest
from engine_util import GREEDY, RANDOM, fallback

import simkit
from simkit.play.matches import play_hand, replay, simulate_matches

RULE_SETS = ("night_market", "duel", "for_two")
N_RANDOM = 300  #: random-policy matches per rule set in the default run (acceptance: 5,000, -m slow)
N_GREEDY = 100  #: greedy matches per rule set in the default run (-m slow: 1,000)
RANDOM_PAIR = (fallback(RANDOM), fallback(RANDOM))
GREEDY_PAIR = (fallback(GREEDY), fallback(GREEDY))
KONG_UNITS = {1: 2, 2: 1, 3: 4}  #: duel kong payment per meld type code, in stakes


def check_rows(r, rules):
    """Every rules-file property of the rows of complete matches of ``rules``."""
    name, o = rules.name, rules.options
    n = len(r["match"])
    win = r["winner"] >= 0
    fold = r["win_type"] == 4
    draw = ~win & ~fold
    assert n > 0 and all(len(v) == n for v in r.values())
    # who pays whom
    assert (r["winner"][win] != r["payer"][win]).all() and (r["payer"][win] >= 0).all()
    assert (r["win_type"][win] >= 1).all() and (r["win_type"][win] <= 3).all()
    assert (r["payer"][draw] == -1).all() and (r["win_type"][draw] == 0).all()
    if name != "for_two":
        assert not fold.any()
    if name != "duel" and not rules.robbing_kong:
        assert not (r["win_type"] == 3).any()
    # payments: transfers are zero-sum, fees are separate, balances accumulate score - fee
    receiver = np.where(win, r["winner"], np.where(fold, r["dealer"], -1))
    to = [np.where(receiver == p, r["points"], 0.0) + r[f"kong_payment_{p}"] for p in (0, 1)]
    fee = o.fee if name == "duel" else 0.0
    assert np.array_equal(r["score_0"], -r["score_1"])
    assert np.allclose(r["score_0"], to[0] - to[1])
    chips = np.inf if name != "duel" or o.chips is None else o.chips
    for p in (0, 1):
        if chips == np.inf:  # with chips, check_exact_chips checks each fee to the unit
            assert np.allclose(r[f"fee_{p}"], fee * to[p])
        assert (r[f"fee_{p}"] >= 0).all() and (r[f"kong_payment_{p}"] >= 0).all()
    assert (r["points"][draw] == 0).all() and (r["points"][win | fold] > 0).all()
    # the value of each win, by the rules file's formula
    items = r["items"]
    assert items.shape == (n, len(simkit.scoring.item_names_of(rules)))
    assert (items[~win] == 0).all()
    assert (r["hand_tai"] == 0).all() and (r["dealer_tai"] == 0).all()
    assert (r["declared_0"] == 0).all() and (r["skipped_wins_0"] == 0).all() and (r["skipped_wins_1"] == 0).all()
    if name == "night_market":
        assert np.array_equal(r["fan"], items.sum(axis=1))
        assert np.allclose(r["points"][win], o.base + o.fan_value * r["fan"][win])
    elif name == "duel":
        assert np.array_equal(r["fan"], items.sum(axis=1))
        assert (r["fan"][win] >= 1).all()
        multiple = np.minimum(2.0 ** (r["fan"] - 1), o.multiple_cap)
        assert np.array_equal(r["multiple"][win], multiple[win]) and (r["multiple"][~win] == 0).all()
        if chips == np.inf:
            assert np.allclose(r["points"][win], r["multiple"][win] * o.stake)
            for p in (0, 1):  # each kong earns 1 (added), 2 (exposed) or 4 (concealed) stakes
                k = r[f"kongs_{p}"]
                assert (r[f"kong_payment_{p}"] >= o.stake * k).all() and (
                    r[f"kong_payment_{p}"] <= 4 * o.stake * k
                ).all()
            # the winner's kong payment from their melds
            codes = r["win_melds"][:, :, 0]
            units = sum(np.where(codes == c, u, 0) for c, u in KONG_UNITS.items()).sum(axis=1)
            mine = np.where(r["winner"] == 0, r["kong_payment_0"], r["kong_payment_1"])
            assert np.allclose(mine[win], o.stake * units[win])
    else:
        assert (r["fan"] == 0).all()
    if name == "for_two":
        assert set(np.unique(r["bid"])) <= {1, 2, 3}
        assert np.allclose(r["combination_points"], items.sum(axis=1))
        assert set(np.unique(r["combination_points"][win])) <= set(float(x) for x in o.combination_points)
        self_drawn = np.where(r["win_type"] == 1, o.self_drawn_multiplier, 1.0)
        expect = r["bid"] * o.stake * r["combination_points"] * self_drawn
        assert np.allclose(r["points"][win], expect[win])
        assert np.allclose(r["points"][fold], o.fold_payment * o.stake)
        assert (r["payer"][fold] == 1 - r["dealer"][fold]).all() and (r["winner"][fold] == -1).all()
        assert (r["tiles_left"][fold] == rules.n_tiles - 27 - rules.kept_back).all()
        assert (r["turns"][fold] == 2).all()
    else:
        assert (r["bid"] == 0).all() and (r["combination_points"] == 0).all()
    if not rules.claim_chow:
        assert not (r["win_melds"][:, :, 0] == 4).any()
    assert (r["tiles_left"] >= 0).all() and (r["tiles_left"][draw] == 0).all()
    # the winner's final hand: complete, holding the winning tile, with its melds
    n_melds = (r["win_melds"][:, :, 0] >= 0).sum(axis=1)
    assert simkit.is_win_batch(r["win_hand"][win], n_melds[win], rules).all()
    assert (r["win_hand"][win, r["win_tile"][win]] > 0).all()
    assert (r["win_hand"][~win] == 0).all() and (r["win_melds"][~win] == -1).all()
    kongs = ((r["win_melds"][:, :, 0] >= 1) & (r["win_melds"][:, :, 0] <= 3)).sum(axis=1)
    kongs_of_winner = np.where(r["winner"] == 0, r["kongs_0"], r["kongs_1"])
    assert np.array_equal(kongs[win], kongs_of_winner[win])
    # progression within each match: the dealer keeps the deal on a dealer win or a draw; on a
    # for_two fold only with fold_passes_deal=False (for_two.md: "otherwise it passes")
    fold_passes = name == "for_two" and o.fold_passes_deal
    for m in np.unique(r["match"]):
        idx = np.flatnonzero(r["match"] == m)
        assert np.array_equal(r["hand"][idx], np.arange(len(idx)))
        dealer, streak, changes = r["dealer"][idx[0]], 0, 0
        balance = np.zeros(2)
        for j, i in enumerate(idx):
            assert r["dealer"][i] == dealer and r["streak"][i] == streak
            assert r["prevailing_wind"][i] == 27 and r["dealer_turn"][i] == changes % 2
            balance += [r["score_0"][i] - r["fee_0"][i], r["score_1"][i] - r["fee_1"][i]]
            assert np.allclose([r["balance_0"][i], r["balance_1"][i]], balance)
            left = chips + balance
            assert (left >= -1e-9).all()
            if j < len(idx) - 1:
                assert (left > 1e-9).all(), "a match goes on only while both players have chips"
            if r["winner"][i] == dealer or (r["winner"][i] < 0 and not (fold_passes and fold[i])):
                streak += 1
            else:
                dealer, streak, changes = 1 - dealer, 0, changes + 1
        if chips == np.inf:
            assert len(idx) == o.match_hands
        else:
            assert len(idx) == o.match_hands or (chips + balance <= 1e-9).any()
    if chips != np.inf:
        check_exact_chips(r, rules)


def _decimal(x) -> Fraction:
    return Fraction(repr(x)) if isinstance(x, float) else Fraction(x)


def check_exact_chips(r, rules):
    """duel.md's money with ``chips``, replayed exactly (Fractions) from each match's first hand:
    nobody pays more than the chips they have at the start of the settlement (the win first, then
    the kong payments), the receiver pays ``fee`` on what they receive, and a match ends when a
    player has none -- exactly none, not a float residue. The engine keeps money in
    whole units (1/q^2 of the largest amount of which the stake and the chips are whole multiples,
    q the fee's denominator: simkit/rules/duel.py); a fee must be exact unless it falls between
    units, which only a fee on a capped payment can, and is then rounded down to a unit. Every
    money column must be the exact amount, as the nearest float."""
    o = rules.options
    stake, fee, chips = _decimal(o.stake), _decimal(o.fee), _decimal(o.chips)
    assert chips <= o.match_hands * (o.multiple_cap + 16) * stake, "chips a match cannot spend play as unlimited"
    unit = Fraction(1, math.lcm(stake.denominator, chips.denominator) * fee.denominator**2)

    def exact(x):
        n = round(Fraction(float(x)) / unit)
        assert float(n * unit) == x, f"{x!r} is not a whole number of units of {unit}"
        return n * unit

    for m in np.unique(r["match"]):
        idx = np.flatnonzero(r["match"] == m)
        have = [chips, chips]
        for i in idx:
            assert min(have) > 0, f"match {m} hand {r['hand'][i]}: played by a player with no chips"
            winner, payer = r["winner"][i], r["payer"][i]
            points = exact(r["points"][i])
            kong = [exact(r["kong_payment_0"][i]), exact(r["kong_payment_1"][i])]
            left = list(have)
            to = [Fraction(0), Fraction(0)]
            if winner >= 0:
                assert points == min(int(r["multiple"][i]) * stake, left[payer])
                left[payer] -= points
                to[winner] += points
            else:
                assert points == 0
            for p in (0, 1):
                assert kong[p] <= left[1 - p]
                to[p] += kong[p]
            if winner >= 0:  # the winner's kongs, from their melds
                codes = r["win_melds"][i, :, 0]
                owed = sum(KONG_UNITS.get(int(c), 0) for c in codes) * stake
                assert kong[winner] == min(owed, left[1 - winner])
            for p in (0, 1):
                if kong[p] != left[1 - p]:  # not capped: 1 to 4 stakes per kong
                    assert r[f"kongs_{p}"][i] * stake <= kong[p] <= 4 * r[f"kongs_{p}"][i] * stake
            fees = [math.floor(fee * to[p] / unit) * unit for p in (0, 1)]
            for p in (0, 1):
                if fees[p] != fee * to[p]:  # between units: only on a payment capped by chips
                    assert (to[p] / stake).denominator != 1, "a fee on whole stakes is whole"
            for p in (0, 1):
                assert exact(r[f"fee_{p}"][i]) == fees[p]
                assert exact(r[f"score_{p}"][i]) == to[p] - to[1 - p]
            have = [have[p] + to[p] - to[1 - p] - fees[p] for p in (0, 1)]
            assert min(have) >= 0
            for p in (0, 1):
                assert exact(r[f"balance_{p}"][i]) == have[p] - chips
        assert len(idx) == o.match_hands or min(have) == 0, f"match {m} ended with chips on both sides"


@pytest.mark.parametrize("name", RULE_SETS)
def test_random_matches_invariants(name):
    rules = simkit.get_rules(name)
    r = simulate_matches(rules, RANDOM_PAIR, N_RANDOM, seed=31, check=True)
    check_rows(r, rules)
    assert (r["winner"] >= 0).any()
    if rules.claim_chow:
        assert (r["win_melds"][:, :, 0] == 4).any(), "claimed chows happen under random play"
    if name == "for_two":
        assert (r["win_type"] == 4).any() and (r["win_type"] != 4).any()
        assert set(np.unique(r["bid"])) == {1, 2, 3}


@pytest.mark.parametrize("name", RULE_SETS)
def test_greedy_matches_invariants(name):
    rules = simkit.get_rules(name)
    r = simulate_matches(rules, GREEDY_PAIR, N_GREEDY, seed=32, check=True)
    check_rows(r, rules)
    win = r["winner"] >= 0
    assert win.mean() > 0.7  # greedy players finish most hands
    seen = dict(zip(simkit.scoring.item_names_of(rules), (r["items"] != 0).any(axis=0)))
    expected = {
        "night_market": ("self_drawn", "concealed_hand", "all_chows", "fully_concealed", "one_type_but_one_set"),
        "duel": ("win", "self_drawn", "concealed_hand", "all_pungs", "seven_pairs", "replacement_tile"),
        "for_two": ("two_pungs_two_chows", "one_pung_three_chows", "four_chows"),
    }[name]
    for item in expected:
        assert seen[item], item
    if name == "duel":
        assert (r["kong_payment_0"] + r["kong_payment_1"] > 0).any() and (r["fee_0"] > 0).any()


@pytest.mark.parametrize(
    "chips,stake,fee", [(3, 0.7, 0.05), (12, 1, 0.05), (1, 0.1, 0.05), (9.99, 1, 0.05), (10, 0.3, 0.07), (5, 0.25, 0)]
)
def test_duel_chips_are_exact(chips, stake, fee):
    """Chips that run out (chips=3, stake=0.7 and others): every hand of greedy and random matches
    is replayed exactly (check_exact_chips), so no float residue can leave a player with chips
    "below zero" or keep a player with exactly 0 chips playing."""
    rules = simkit.get_rules("duel", chips=chips, stake=stake, fee=fee, match_hands=60)
    for seed, pair in ((51, GREEDY_PAIR), (52, RANDOM_PAIR)):
        r = simulate_matches(rules, pair, 150, seed=seed, check=True)
        check_rows(r, rules)
        assert (np.bincount(r["match"]) < 60).any(), "some matches end by chips"


def test_duel_check_has_no_false_chips_below_zero():
    """Match 304 of seed 0 (greedy, chips=3, stake=0.7): at hand 2 a player pays every chip they
    have, and a checked run goes on (counted in floats, those chips would come out a hair below
    zero and stop it with "invariant broken: ... chips below zero")."""
    rules = simkit.get_rules("duel", chips=3, stake=0.7)
    r = simulate_matches(rules, GREEDY_PAIR, 1, seed=0, start=304, check=True)
    check_rows(r, rules)


def test_duel_match_ends_when_a_player_has_exactly_no_chips():
    """In match 135 of seed 5 (greedy, chips=12) player 0 pays their last chip at hand 11, and in
    match 924 (random, chips=1, stake=0.1) a player runs out too: both matches end there (a float
    residue above zero would keep them going)."""
    rules = simkit.get_rules("duel", chips=12, match_hands=100)
    r = simulate_matches(rules, GREEDY_PAIR, 1, seed=5, start=135, check=True)
    check_rows(r, rules)
    assert r["hand"][-1] == 11 and 12 + r["balance_0"][-1] == 0.0
    rules = simkit.get_rules("duel", chips=1, stake=0.1, match_hands=100)
    r = simulate_matches(rules, RANDOM_PAIR, 1, seed=5, start=924, check=True)
    check_rows(r, rules)
    assert min(1 + r["balance_0"][-1], 1 + r["balance_1"][-1]) == 0.0 and len(r["hand"]) < 100


def test_duel_chips_no_match_can_spend_play_as_unlimited():
    """Chips beyond what a player could pay in a match (match_hands x (multiple_cap + 16) x stake)
    never cap a payment nor end a match: the games are those of unlimited chips, row for row."""
    unlimited = simulate_matches(simkit.get_rules("duel"), GREEDY_PAIR, 40, seed=53, check=True)
    for chips in (16 * 48 + 1, 1e300):
        rows = simulate_matches(simkit.get_rules("duel", chips=chips), GREEDY_PAIR, 40, seed=53, check=True)
        for key in unlimited:
            assert np.array_equal(rows[key], unlimited[key]), key


def test_duel_fee_in_money_units_is_rounded_down_only_between_units():
    from simkit.engine.rulesets import game_of
    from simkit.engine.table import _fee_units

    game = game_of(simkit.get_rules("duel", chips=100))  # 5% = 1/20; 400 units per coin
    assert (game.money_unit, game.chips, game.fee_numerator, game.fee_denominator) == (400, 40_000, 1, 20)
    assert [_fee_units(n, game) for n in (0, 400, 12_800, 19, 20, 39, 40, 2**52)] == [
        0,
        20,
        640,
        0,
        1,
        1,
        2,
        2**52 // 20,
    ]
    game = game_of(simkit.get_rules("duel", chips=10, fee=0.07, stake=0.3))  # 7/100
    assert [_fee_units(n, game) for n in (0, 100, 199, 2**52)] == [0, 7, 13, 2**52 * 7 // 100]


@pytest.mark.parametrize("passes", [True, False])
def test_for_two_fold_passes_deal(passes):
    """for_two.md: the banker keeps the deal on a banker win or a draw, "otherwise it passes": by
    default (fold_passes_deal=True) a fold passes the deal; with False the banker keeps it. The
    matches are the same up to each match's first fold."""
    rules = simkit.get_rules("for_two", fold_passes_deal=passes)
    assert rules.options.fold_passes_deal is passes and simkit.get_rules("for_two").options.fold_passes_deal
    r = simulate_matches(rules, RANDOM_PAIR, 200, seed=61, check=True)
    check_rows(r, rules)
    fold = np.flatnonzero(r["win_type"] == 4)
    fold = fold[
        (fold + 1 < len(r["match"])) & (r["match"][np.minimum(fold + 1, len(r["match"]) - 1)] == r["match"][fold])
    ]
    assert len(fold) > 50
    after = r["dealer"][fold + 1]
    assert (after == (1 - r["dealer"][fold] if passes else r["dealer"][fold])).all()
    assert (r["streak"][fold + 1] == (0 if passes else r["streak"][fold] + 1)).all()
    other = simulate_matches(rules.with_options(fold_passes_deal=not passes), RANDOM_PAIR, 200, seed=61)
    for m in np.unique(r["match"]):
        idx = np.flatnonzero(r["match"] == m)
        first = next((j for j, i in enumerate(idx) if r["win_type"][i] == 4), len(idx) - 1)
        same = idx[: first + 1]
        for key in ("dealer", "winner", "win_type", "points", "balance_0"):
            assert np.array_equal(r[key][same], other[key][same]), (m, key)


def test_duel_chips_end_matches():
    rules = simkit.get_rules("duel", chips=12, match_hands=40)
    r = simulate_matches(rules, GREEDY_PAIR, 60, seed=33, check=True)
    check_rows(r, rules)
    hands = np.bincount(r["match"])
    assert (hands < 40).mean() > 0.5, "with 12 chips most matches end before 40 hands"
    last = np.r_[np.flatnonzero(np.diff(r["match"])), len(r["match"]) - 1]
    left = np.minimum(12 + r["balance_0"][last], 12 + r["balance_1"][last])
    assert np.allclose(left[hands < 40], 0.0)


@pytest.mark.parametrize(
    "name, options",
    [
        ("night_market", dict(base=10, fan_value=5, match_hands=3)),
        ("duel", dict(stake=2, fee=0.0, multiple_cap=8, match_hands=5)),
        ("for_two", dict(stake=3, combination_points=(10, 8, 6, 4, 2), self_drawn_multiplier=1.5, fold_payment=0.5)),
    ],
)
def test_options_are_used(name, options):
    rules = simkit.get_rules(name, **options)
    r = simulate_matches(rules, GREEDY_PAIR, 30, seed=34, check=True)
    check_rows(r, rules)
    if "fee" in options:
        assert (r["fee_0"] == 0).all() and (r["fee_1"] == 0).all()


@pytest.mark.parametrize("name", RULE_SETS)
def test_same_seed_same_results_whatever_the_threads_or_split(name):
    a = simulate_matches(name, RANDOM_PAIR, 40, seed=5)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        b = simulate_matches(name, RANDOM_PAIR, 40, seed=5)
    finally:
        numba.set_num_threads(before)
    c1 = simulate_matches(name, RANDOM_PAIR, 15, seed=5)
    c2 = simulate_matches(name, RANDOM_PAIR, 25, seed=5, start=15)
    for key in a:
        assert np.array_equal(a[key], b[key]), key
        assert np.array_equal(a[key], np.concatenate([c1[key], c2[key]])), key
    d = simulate_matches(name, RANDOM_PAIR, 40, seed=6)
    assert not np.array_equal(a["turns"][:200], d["turns"][:200])


def _mirrored(a, b):
    """Whether hand records ``a`` and ``b`` are the same hand with players 0 and 1 exchanged."""

    def flip(p):
        return 1 - p if p >= 0 else p

    ra, rb = a.row, b.row
    if flip(ra["winner"]) != rb["winner"] or flip(ra["payer"]) != rb["payer"]:
        return False
    for key, value in ra.items():
        if key.endswith("_0") and key[:-2] + "_1" in ra and key != "seat_wind_0":
            other = key[:-2] + "_1"
            if not (np.array_equal(value, rb[other]) and np.array_equal(ra[other], rb[key])):
                return False
        elif not key.endswith("_1") and key not in ("winner", "payer", "dealer", "seat_wind_0"):
            if not np.array_equal(value, rb[key]):
                return False
    events = [
        (kind, flip(player) if kind != "exhaustive draw" else player, tile, extra)
        for kind, player, tile, extra in a.events
    ]
    return events == b.events and a.items == b.items


@pytest.mark.parametrize("name", ("douque",) + RULE_SETS)
def test_seats_are_treated_alike(name):
    """The same wall with the dealer in the other seat plays the mirrored hand: every event, item
    and payment the same with players 0 and 1 exchanged (greedy is deterministic). So no seat has
    an edge of its own; in whole matches the first dealer is drawn fairly, so player 0's expected
    score is exactly 0 in greedy vs greedy."""
    rules = simkit.get_rules(name)
    template = simkit.engine.deal.wall_template(rules)
    rng = np.random.default_rng(11)
    for _ in range(40):
        wall = rng.permutation(template)
        east, streak = bool(rng.integers(2)), int(rng.integers(3))
        a, b = (
            play_hand(wall, dealer=d, dealer_east=east, streak=streak, rules=rules, policies=GREEDY_PAIR)
            for d in (0, 1)
        )
        assert _mirrored(a, b), (a.lines(), b.lines())
    # the check can fail: a hand is not the mirror of a different hand
    other = play_hand(rng.permutation(template), dealer=1, rules=rules, policies=GREEDY_PAIR)
    assert not _mirrored(a, other)


@pytest.mark.parametrize(
    "name",
    # replay compiles its own kernel per rule set (about 7 s): duel (chips carried from hand to
    # hand) in the default run, the others with the slow tests
    [pytest.param("night_market", marks=pytest.mark.slow), "duel", pytest.param("for_two", marks=pytest.mark.slow)],
)
def test_replay_reproduces_rows_and_events(name):
    rules = simkit.get_rules(name, chips=30) if name == "duel" else simkit.get_rules(name)
    r = simulate_matches(rules, GREEDY_PAIR, 4, seed=8)
    n_drawable = rules.n_tiles - 27 - rules.kept_back
    for i in range(0, len(r["match"]), 5):
        rec = replay(8, int(r["match"][i]), int(r["hand"][i]), rules=rules, policies=GREEDY_PAIR)
        for key, value in rec.row.items():
            assert np.array_equal(value, r[key][i]), key
        names = simkit.scoring.item_names_of(rules)
        assert rec.items == {k: v for k, v in zip(names, r["items"][i].tolist()) if v}
        last = rec.events[-1]
        if r["winner"][i] >= 0:
            assert last[0] == "win" and last[1] == r["winner"][i] and last[2] == r["win_tile"][i]
        elif r["win_type"][i] == 4:
            assert [e[0] for e in rec.events] == ["deal", "bid", "fold"]
        else:
            assert last[0] == "exhaustive draw"
        draws = sum(1 for e in rec.events if e[0] in ("draw", "replacement"))
        assert draws == n_drawable - r["tiles_left"][i]
        if name == "for_two":
            assert rec.events[1] == ("bid", int(r["dealer"][i]), -1, int(r["bid"][i]))
        text = "\n".join(rec.lines())
        assert "deal:" in text and name in text


def test_replay_of_a_hand_past_the_match_is_an_error():
    with pytest.raises(simkit.SimkitError, match=r"match 0 of seed 1 has 16 hands \(0 to 15\); there is no hand 16$"):
        replay(1, 0, 16, rules="night_market", policies=RANDOM_PAIR)
    with pytest.raises(simkit.SimkitError, match=r"has 16 hands \(0 to 15\); there is no hand 100$"):
        replay(1, 0, 100, rules="night_market", policies=RANDOM_PAIR)


@pytest.mark.slow
@pytest.mark.parametrize("name", RULE_SETS)
def test_acceptance_5000_random_and_1000_greedy_matches(name):
    rules = simkit.get_rules(name)
    r = simulate_matches(rules, ("random", "random"), 5_000, seed=41, check=True)
    check_rows(r, rules)
    # the test policies play exactly like the built-in ones
    small = simulate_matches(rules, RANDOM_PAIR, 200, seed=41)
    for key in small:
        assert np.array_equal(small[key], r[key][: len(small[key])]), key
    g = simulate_matches(rules, ("greedy", "greedy"), 1_000, seed=42, check=True)
    check_rows(g, rules)
    small = simulate_matches(rules, GREEDY_PAIR, 100, seed=42)
    for key in small:
        assert np.array_equal(small[key], g[key][: len(small[key])]), key


@pytest.mark.slow
def test_acceptance_duel_with_chips():
    rules = simkit.get_rules("duel", chips=50, match_hands=200)
    check_rows(simulate_matches(rules, ("random", "random"), 2_000, seed=43, check=True), rules)
    check_rows(simulate_matches(rules, ("greedy", "random"), 1_000, seed=44, check=True), rules)
