"""Duplicate play and the wall designs: tiles follow the policies, stable walls keep the law of the
game, the original deal (``deal="dealer"``) is still there.

The property tests read only what the players received (the dealt hands and the draw and
replacement events of replayed hands), not the engine's wall layout.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import simkit
from simkit.engine.table import dealt_hands
from simkit.play.matches import simulate_matches
from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy

NO_DECLARE = (greedy_policy, np.r_[1.0, 0.0, GREEDY_DEFAULTS[2:]])
NO_CLAIMS = (greedy_policy, np.r_[0.0, GREEDY_DEFAULTS[1:]])


def _received(record, seat):
    """(dealt counts, tiles drawn in order: draws and kong replacements) of ``seat``."""
    dealt = dealt_hands(record.wall, int(record.row["dealer"]), record.wall_design)[seat].astype(int)
    drawn = [t for name, p, t, _ in record.events if p == seat and name in ("draw", "replacement")]
    return dealt, drawn


def _same_stream(a, b):
    """Whether two (dealt, drawn) of one seat are the same stream: the same dealt tiles, or one
    more (the dealer's 14th) that is the other's first draw; the draws agree as far as both go."""
    (dealt_a, drawn_a), (dealt_b, drawn_b) = a, b
    if dealt_a.sum() == dealt_b.sum() + 1:
        (dealt_a, drawn_a), (dealt_b, drawn_b) = (dealt_b, drawn_b), (dealt_a, drawn_a)
    if dealt_b.sum() == dealt_a.sum() + 1:  # b dealt: a's first draw is b's 14th tile
        if not drawn_a:
            return np.array_equal(np.minimum(dealt_a, dealt_b), dealt_a)
        first = np.zeros(34, int)
        first[drawn_a[0]] = 1
        if not np.array_equal(dealt_a + first, dealt_b):
            return False
        drawn_a = drawn_a[1:]
    elif not np.array_equal(dealt_a, dealt_b):
        return False
    n = min(len(drawn_a), len(drawn_b))
    return drawn_a[:n] == drawn_b[:n]


def _records(rules, policies, n_matches, seed, deal, wall):
    """Every hand of ``n_matches`` duplicate matches, replayed with its events: {(match, hand, copy): record}."""
    rows = simulate_matches(rules, policies, n_matches, seed, duplicate=True, deal=deal, wall=wall)
    out = {}
    for m, h, c in zip(rows["match"], rows["hand"], rows["copy"]):
        pair = policies if c == 0 else policies[::-1]
        out[int(m), int(h), int(c)] = simkit.replay(seed, int(m), int(h), rules, pair, deal=deal, wall=wall)
    return out


@pytest.mark.parametrize("rules", ["douque", "for_two"])
def test_with_stable_walls_every_seat_receives_the_same_tiles_in_both_copies(rules):
    """Policy A at seat 0 in copy 0 receives what policy B receives at seat 0 in copy 1 -- its dealt
    hand and every draw -- on every hand of the match, whoever deals and whatever was claimed."""
    records = _records(rules, ("greedy", NO_CLAIMS), 6, 21, "seat", "stable")
    paired = [(m, h) for (m, h, c) in records if c == 0 and (m, h, 1) in records]
    assert len(paired) > 40
    other_dealer = claims = 0
    for m, h in paired:
        r0, r1 = records[m, h, 0], records[m, h, 1]
        other_dealer += r0.row["dealer"] != r1.row["dealer"]
        claims += any(name in ("pung", "chow", "kong") for name, *_ in r0.events + r1.events)
        for seat in (0, 1):
            assert _same_stream(_received(r0, seat), _received(r1, seat)), (m, h, seat)
    assert other_dealer > 0 and claims > 10  # the property is tested where it is hard


def test_with_a_shared_wall_the_tiles_follow_the_seats_until_a_claim():
    """Deal "seat", shared wall: the dealt tiles and the draws follow the seats, whoever deals, as
    long as nobody claims or makes a kong (which shift the shared wall); here nobody does."""
    quiet = (greedy_policy, np.r_[0.0, 1.0, 0.0, GREEDY_DEFAULTS[3:]])  # no claims, no kongs
    quiet_no_declare = (greedy_policy, np.r_[0.0, 0.0, 0.0, GREEDY_DEFAULTS[3:]])
    records = _records("douque", (quiet, quiet_no_declare), 5, 22, "seat", "shared")
    paired = [(m, h) for (m, h, c) in records if c == 0 and (m, h, 1) in records]
    assert len(paired) > 40 and any(records[k + (0,)].row["dealer"] != records[k + (1,)].row["dealer"] for k in paired)
    for m, h in paired:
        r0, r1 = records[m, h, 0], records[m, h, 1]
        for seat in (0, 1):
            assert _same_stream(_received(r0, seat), _received(r1, seat)), (m, h, seat)


def test_the_original_deal_gives_the_dealer_the_same_tiles():
    """Deal "dealer" (the original deal): the dealer takes the same 14 tiles in both copies, so when
    the dealer seat differs the same policy holds the same tiles twice (the default deal, "seat",
    has the tiles follow the seats instead)."""
    records = _records("douque", ("greedy", NO_DECLARE), 4, 23, "dealer", "shared")
    seen = 0
    for (m, h, c), r0 in records.items():
        if c == 0 and (m, h, 1) in records:
            r1 = records[m, h, 1]
            d0, d1 = int(r0.row["dealer"]), int(r1.row["dealer"])
            assert np.array_equal(dealt_hands(r0.wall, d0, 0)[d0], dealt_hands(r1.wall, d1, 0)[d1])
            seen += d0 != d1
    assert seen > 0


def test_duplicate_rows_in_memory_are_the_two_seatings():
    both = simulate_matches("douque", ("greedy", NO_DECLARE), 8, 5, duplicate=True)
    one = simulate_matches("douque", ("greedy", NO_DECLARE), 8, 5)
    swapped = simulate_matches("douque", (NO_DECLARE, "greedy"), 8, 5)
    c = both["copy"]
    assert set(np.unique(c)) == {0, 1}
    key = both["match"] * 2 + c
    assert (np.diff(key) >= 0).all()  # (match, copy, hand) order
    for name in ("winner", "score_0", "hand_tai", "dealer"):
        assert np.array_equal(both[name][c == 0], one[name]) and np.array_equal(both[name][c == 1], swapped[name])
    with pytest.raises(simkit.SimkitError, match="duplicate must be True or False"):
        simulate_matches("douque", ("greedy", "greedy"), 2, duplicate="no")


@pytest.mark.parametrize(
    "kwargs,words",
    [
        (dict(deal="dealer", wall="stable"), "wall='stable' needs deal='seat'"),
        (dict(deal="banker"), "deal must be one of 'seat', 'dealer'; got 'banker'"),
        (dict(wall=1), "wall must be one of 'stable', 'shared'; got 1"),
    ],
)
def test_bad_wall_settings(kwargs, words):
    with pytest.raises(simkit.SimkitError, match=words.replace("(", r"\(").replace(")", r"\)")):
        simulate_matches("douque", ("greedy", "greedy"), 1, **kwargs)


def _rate_gap(x, y, clusters_x, clusters_y):
    """(difference of two means, its standard error) with each mean's variance clustered by match."""

    def mean_se(v, c):
        _, inv = np.unique(c, return_inverse=True)
        s, n = np.bincount(inv, weights=v), np.bincount(inv)
        mu = s.sum() / n.sum()
        g = len(s)
        return mu, math.sqrt(g / (g - 1) * ((s - mu * n) ** 2).sum()) / n.sum()

    (mx, sx), (my, sy) = mean_se(x, clusters_x), mean_se(y, clusters_y)
    return mx - my, math.hypot(sx, sy)


def _dealt_rates(design, n, seed):
    """Dealer complete (14 tiles) and non-dealer ready (13) rates of ``n`` hands dealt by the engine."""
    from simkit.engine import table as G
    from simkit.engine.deal import wall_template
    from simkit.engine.rng import stream_key

    template = wall_template("douque")
    T = G.new_table(len(template), np.zeros(1, np.int64))
    T.sc[G.S_WALL] = design
    dealer_hands, other_hands = np.empty((n, 34), np.uint8), np.empty((n, 34), np.uint8)
    for i in range(n):
        dealer = i % 2
        T.rng[0] = stream_key(seed, i, 0)
        G._shuffle_and_roll(T, template, dealer)
        dealt = dealt_hands(T.wall, dealer, design)
        dealer_hands[i], other_hands[i] = dealt[dealer], dealt[1 - dealer]
    sh_dealer, sh_other = (
        simkit.shanten_batch(dealer_hands).astype(float),
        simkit.shanten_batch(other_hands).astype(float),
    )
    return simkit.is_win_batch(dealer_hands).astype(float), (sh_other == 0).astype(float), sh_dealer, sh_other


def test_stable_walls_keep_the_law_of_the_game():
    """Dealt-hand rates (dealer complete, non-dealer ready, both shanten) and greedy-vs-greedy
    outcome rates agree between the wall designs within three standard errors (independent seeds;
    the wall is exchangeable, so the laws are equal)."""
    from simkit.engine.table import WALL_DEALER_FIRST, WALL_SEAT_SHARED, WALL_SEAT_STABLE

    n = 20000
    base = _dealt_rates(WALL_DEALER_FIRST, n, 1)
    idx = np.arange(n)
    for design in (WALL_SEAT_SHARED, WALL_SEAT_STABLE):
        rates = _dealt_rates(design, n, 2 + design)
        for a, b in zip(rates, base):
            gap, se = _rate_gap(a, b, idx, idx)
            assert abs(gap) < 3 * se, (design, gap, se)
    assert 2.5 < base[2].mean() < base[3].mean() < 4  # mean shanten: 2.8 dealt 14 tiles, 3.35 dealt 13
    # the test sees a real change of law: the dealer's 14 tiles and the opponent's 13 differ
    gap, se = _rate_gap(base[2], base[3], idx, idx)
    assert abs(gap) > 10 * se
    shared = simulate_matches("douque", ("greedy", "greedy"), 3000, seed=31, deal="seat", wall="shared")
    stable = simulate_matches("douque", ("greedy", "greedy"), 3000, seed=32, deal="seat", wall="stable")
    for name, pick in (
        ("exhaustive draw", lambda r: r["win_type"] == 0),
        ("self-drawn win", lambda r: r["win_type"] == 1),
        ("win on a discard", lambda r: r["win_type"] == 2),
        ("dealer wins", lambda r: r["winner"] == r["dealer"]),
        ("declared ready", lambda r: (r["declared_0"] > 0) | (r["declared_1"] > 0)),
    ):
        gap, se = _rate_gap(pick(shared).astype(float), pick(stable).astype(float), shared["match"], stable["match"])
        assert abs(gap) < 3 * se, (name, gap, se)
    gap, se = _rate_gap(shared["points"], stable["points"], shared["match"], stable["match"])
    assert abs(gap) < 3 * se


def test_a_run_written_before_the_wall_designs_says_its_deal_and_replays():
    """data/sample's manifest predates the wall designs: it reads as the original deal, and its
    rows replay under it."""
    from pathlib import Path

    from simkit import analysis as A
    from simkit.datasets import open_run

    path = Path(__file__).resolve().parent.parent / "data" / "sample"
    run = open_run(path)
    assert "deal" not in run.spec and run.wall_settings == {"deal": "dealer", "wall": "shared"}
    df = A.load(path, filters=[("match", "<", 3)])
    assert (df.attrs["deal"], df.attrs["wall"]) == ("dealer", "shared")
    row = df.iloc[len(df) // 2]
    record = run.replay(row)
    for name in ("winner", "hand_tai", "points", "dealer", "turns"):
        assert record.row[name] == row[name], name


def test_simkit_compare_on_the_command_line(tmp_path, capsys):
    from simkit.cli import main

    simkit.simulate(tmp_path / "d", policies=("greedy", NO_DECLARE), matches=12, seed=2, duplicate=True)
    simkit.simulate(tmp_path / "a", matches=12, seed=2)
    simkit.simulate(tmp_path / "b", policies=(NO_DECLARE, "greedy"), matches=12, seed=2)
    assert main(["compare", str(tmp_path / "d")]) == 0
    out = capsys.readouterr().out
    assert "12 matches played in both seatings" in out and "unpaired / paired variance" in out
    assert main(["compare", str(tmp_path / "a"), str(tmp_path / "b"), "--value", "points"]) == 0
    out = capsys.readouterr().out
    assert "run a: douque, greedy vs greedy" in out and "points, run a - run b: 12 matches" in out
    assert main(["compare", str(tmp_path / "a")]) == 2
    assert "needs a --duplicate run" in capsys.readouterr().err


def test_resume_compares_only_the_wall_settings_given(tmp_path):
    """``--resume --wall shared`` on a run of the original deal agrees with it (the deal was not
    given); a setting that differs is refused in one line."""
    out = tmp_path / "old"
    simkit.simulate(out, matches=4, seed=1, deal="dealer")
    assert simkit.simulate(out, resume=True, wall="shared").matches == 4
    with pytest.raises(simkit.SimkitError, match='cannot resume .*deal "seat" differs from the run\'s "dealer"'):
        simkit.simulate(out, resume=True, deal="seat")
