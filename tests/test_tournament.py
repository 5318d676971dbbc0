"""simkit.tournament: round robins of duplicate runs, their table, reuse of complete runs, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from simkit.analysis import compare
from simkit.errors import InputValueError, SimkitError
from simkit.tournament import item_edges, round_robin


def test_round_robin_pairs_every_policy_once_and_reuses_complete_runs(tmp_path):
    t = round_robin(("greedy", "random", "greedy{claim=0}"), ("douque",), matches=8, seed=3, directory=tmp_path)
    assert len(t.table) == 6  # 3 pairs, both orders
    for _, row in t.table.iterrows():
        other = t.table[(t.table["policy"] == row["opponent"]) & (t.table["opponent"] == row["policy"])].iloc[0]
        assert other["mean"] == -row["mean"] and other["low"] == -row["high"] and other["high"] == -row["low"]
        assert row["low"] <= row["mean"] <= row["high"]
    # the table is compare()'s figures of each pair's duplicate run
    c = compare(t.run_of("douque", "greedy", "random"))
    g = t.table[(t.table["policy"] == "greedy") & (t.table["opponent"] == "random")].iloc[0]
    assert np.isclose(g["mean"], c.per_hand[0]) and g["hands"] == c.rows
    m = t.matrix("douque")
    assert list(m.index) == ["greedy", "random", "greedy{claim=0}"] and np.isnan(m.loc["greedy", "greedy"])
    stamps = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*.parquet")}
    again = round_robin(("greedy", "random", "greedy{claim=0}"), ("douque",), matches=8, seed=3, directory=tmp_path)
    assert again.table.drop(columns="run").equals(t.table.drop(columns="run"))
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*.parquet")} == stamps  # nothing played again
    edges = item_edges(t, "greedy", "random")
    assert set(edges.columns) >= {"rules", "item", "a_per_hand", "b_per_hand", "edge"}
    assert (edges["edge"] == edges["a_value_per_hand"] - edges["b_value_per_hand"]).all()


@pytest.mark.parametrize(
    "policies, words",
    [
        (("greedy",), "at least two policies"),
        (("greedy", "greedy"), "labels must differ"),
        (("greedy", "nonesuch"), "unknown policy 'nonesuch'"),
    ],
)
def test_bad_round_robins_are_one_line(tmp_path, policies, words):
    with pytest.raises(SimkitError) as info:
        round_robin(policies, ("douque",), matches=2, directory=tmp_path)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_a_tournament_prints_its_matrices_and_ratings(tmp_path):
    t = round_robin(("greedy", "random"), ("douque",), matches=3, seed=2, directory=tmp_path)
    text = repr(t)
    assert text == str(t) and "Tournament(" not in text
    assert text.startswith("round robin of greedy, random: 3 duplicate matches per pair, seed 2")
    assert "douque: row - column, points per hand" in text and "ratings: mean a - b per hand" in text
    ranked = [line.split()[:2] for line in text.splitlines() if line.startswith("  ") and line.split()[0].isdigit()]
    assert ranked == [["1", "greedy"], ["2", "random"]]
    html = t._repr_html_()
    assert "<table" in html and "douque" in html
    assert t.ratings(correct_luck=False).equals(t.ratings(correct_luck=False))  # the same seed, the same table


def test_a_rule_set_given_twice_is_refused_before_play(tmp_path):
    with pytest.raises(InputValueError, match="given more than once: \\['douque'\\]"):
        round_robin(("random", "greedy"), ("douque", "douque"), matches=2, directory=tmp_path / "runs")
    assert not (tmp_path / "runs").exists()
