"""simkit.evaluation.ratings: payment (Massey) and Bradley-Terry ratings of pairs' duplicate runs,
their closed forms, the bootstrap by match, the plot, a round robin's ratings, and bad input."""

from __future__ import annotations

import itertools

import matplotlib
import numpy as np
import pandas as pd
import pytest

from simkit.analysis import compare
from simkit.errors import SimkitError
from simkit.evaluation import pair_matches, plot_ratings, ratings
from simkit.tournament import round_robin

matplotlib.use("Agg")

POLICIES = ("p", "q", "r", "s")


def _table(policies=POLICIES, matches=40, seed=1, strength=(3.0, 1.0, 0.0, -2.0)):
    """A hand-made complete round robin: per pair and match, its hands and total a - b."""
    rng = np.random.default_rng(seed)
    rows = []
    for (i, a), (j, b) in itertools.combinations(enumerate(policies), 2):
        for m in range(matches):
            hands = int(rng.integers(4, 12))
            total = rng.normal((strength[i] - strength[j]) * hands, 4.0)
            won = int(rng.integers(0, hands + 1))
            rows.append(dict(a=a, b=b, match=m, hands=hands, total=total, a_deals=won, b_deals=hands - won))
    return pd.DataFrame(rows)


def _difference(df, a, b):
    g = df[(df["a"] == a) & (df["b"] == b)]
    if len(g):
        return g["total"].sum() / g["hands"].sum()
    return -_difference(df, b, a)


def test_payment_ratings_are_the_row_means_of_a_complete_round_robin():
    df = _table()
    out = ratings(df, n_boot=200)
    got = dict(zip(out["policy"], out["rating"]))
    n = len(POLICIES)
    for a in POLICIES:  # the mean of a's row with its zero diagonal
        assert got[a] == pytest.approx(sum(_difference(df, a, b) for b in POLICIES if b != a) / n)
    assert sum(got.values()) == pytest.approx(0.0, abs=1e-9)
    assert list(out["policy"]) == ["p", "q", "r", "s"] and list(out["rank"]) == [1, 2, 3, 4]
    assert out.attrs["method"] == "payment" and out.attrs["matches"] == 40
    # differences of ratings are the pairs' differences in the least-squares sense; a pair given the
    # other way round is the same pair
    flipped = df.copy()
    swap = flipped["a"] == "q"
    flipped.loc[swap, ["a", "b"]] = flipped.loc[swap, ["b", "a"]].to_numpy()
    flipped.loc[swap, "total"] *= -1
    again = ratings(flipped, n_boot=200)
    assert np.allclose(again.set_index("policy")["rating"], out.set_index("policy")["rating"])


def test_two_policies_rate_half_the_difference_and_an_incomplete_design_still_fits():
    df = _table(("x", "y"), strength=(1.0, 0.0))
    out = ratings(df, n_boot=100).set_index("policy")
    d = _difference(df, "x", "y")
    assert out.loc["x", "rating"] == pytest.approx(d / 2) and out.loc["y", "rating"] == pytest.approx(-d / 2)
    chain = _table()
    chain = chain[(chain["a"] + chain["b"]).isin(["pq", "qr", "rs"])]  # a path: no redundancy, exact fit
    fit = ratings(chain, n_boot=100).set_index("policy")["rating"]
    for a, b in (("p", "q"), ("q", "r"), ("r", "s")):
        assert fit[a] - fit[b] == pytest.approx(_difference(chain, a, b))


def test_the_bootstrap_interval_holds_the_rating_and_follows_its_seed():
    df = _table()
    one, same, other = ratings(df, seed=5), ratings(df, seed=5), ratings(df, seed=6)
    assert (one["low"] <= one["rating"]).all() and (one["rating"] <= one["high"]).all()
    assert one.equals(same) and not one[["low", "high"]].equals(other[["low", "high"]])
    assert np.allclose(one["rating"], other["rating"])
    # more matches, narrower intervals
    wide = ratings(_table(matches=20), seed=5)
    assert ((one["high"] - one["low"]).mean()) < ((wide["high"] - wide["low"]).mean())


def test_the_bootstrap_draws_the_same_matches_for_every_pair():
    """Pairs that share deals move together. Deal m favours p against everyone by luck[m] per hand,
    so d_pq = d_pr = mean(luck) and r_p = 2/3 mean(luck): drawn jointly, the two pairs' luck adds
    up (width 2/3 of the mean's); resampled pair by pair it would partly cancel (width sqrt(2)/3)."""
    rng = np.random.default_rng(3)
    luck = rng.normal(0, 10, 60)
    rows = []
    for a, b in (("p", "q"), ("p", "r"), ("q", "r")):
        for m in range(60):
            total = 10 * (luck[m] if a == "p" else 0.0) + rng.normal(0, 0.1)
            rows.append(dict(a=a, b=b, match=m, hands=10, total=total))
    out = ratings(pd.DataFrame(rows), n_boot=4000).set_index("policy")
    width = out.loc["p", "high"] - out.loc["p", "low"]
    of_the_mean = 2 * 1.96 * luck.std() / np.sqrt(len(luck))
    assert width == pytest.approx(2 / 3 * of_the_mean, rel=0.12)
    assert width > 1.25 * np.sqrt(2) / 3 * of_the_mean


def test_bradley_terry_is_the_logit_of_the_deals_won_with_its_prior():
    df = _table(("x", "y"))
    out = ratings(df, method="bradley_terry", n_boot=200).set_index("policy")
    won, lost = df["a_deals"].sum() + 0.5, df["b_deals"].sum() + 0.5
    assert out.loc["x", "rating"] - out.loc["y", "rating"] == pytest.approx(np.log(won / lost), abs=1e-6)
    assert out.loc["x", "rating"] + out.loc["y", "rating"] == pytest.approx(0.0, abs=1e-9)
    assert out.attrs["scale"] == "log-odds of winning a deal"
    assert (out["low"] <= out["rating"]).all() and (out["rating"] <= out["high"]).all()


def test_plot_ratings_draws_one_panel_per_rule_set():
    a = ratings(_table(), n_boot=50).assign(rules="douque")
    b = ratings(_table(seed=2), n_boot=50).assign(rules="duel")
    both = pd.concat([a, b], ignore_index=True)
    both.attrs["units"] = {"douque": "points per hand", "duel": "stakes per hand"}
    axes = plot_ratings(both)
    assert len(axes) == 2 and axes[0].get_title() == "douque" and axes[1].get_xlabel() == "stakes per hand"
    assert [t.get_text() for t in axes[0].get_yticklabels()] == ["s", "r", "q", "p"]  # best at the top
    assert len(plot_ratings(a)) == 1


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda df: ratings(df, method="elo"), "method must be one of payment, bradley_terry"),
        (lambda df: ratings(df, n_boot=0), "n_boot"),
        (lambda df: ratings(df.drop(columns="hands")), "lacks the column hands"),
        (lambda df: ratings(df[df["a"] == "nobody"]), "at least one pair"),
        (lambda df: ratings(df[(df["a"] + df["b"]).isin(["pq", "rs"])]), "do not connect all the policies"),
        (lambda df: ratings(df[df["match"] == 0]), "two or more matches"),
        (lambda df: ratings(df.assign(b=df["a"])), "a pair of a policy with itself"),
        (lambda df: ratings("runs/some_run"), "list of Comparison or run directories"),
        (lambda df: plot_ratings(df), "plot_ratings takes a table of ratings"),
    ],
)
def test_bad_input_is_one_line(call, words):
    with pytest.raises(SimkitError) as info:
        call(_table(matches=5))
    assert words in str(info.value) and "\n" not in str(info.value)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A played round robin of three policies, 4 matches in douque."""
    return round_robin(
        ("greedy", "random", "greedy{claim=0}"), ("douque",), matches=4, seed=1, directory=tmp_path_factory.mktemp("rr")
    )


def test_a_round_robins_ratings_are_its_matrix_row_means(tiny):
    plain = tiny.ratings("douque", correct_luck=False, n_boot=200)
    rows = tiny.matrix("douque").fillna(0.0).mean(axis=1)  # the zero diagonal counts
    assert np.allclose(plain.set_index("policy")["rating"], rows[plain["policy"]].to_numpy())
    assert list(plain["rules"]) == ["douque"] * 3 and plain.attrs["units"] == {"douque": "points per hand"}
    corrected = tiny.ratings(n_boot=200)  # every rule set, luck-corrected by default
    c = compare(tiny.run_of("douque", "greedy", "random"), correct_luck=True)
    pm = pair_matches([c])
    assert pm["total"].sum() / pm["hands"].sum() == pytest.approx(c.per_hand[0])
    assert corrected.attrs["correct_luck"] and (corrected["low"] <= corrected["rating"]).all()
    assert corrected.iloc[-1]["policy"] == "random"
    with pytest.raises(SimkitError, match="played no rule set 'duel'; it played douque"):
        tiny.ratings("duel")
