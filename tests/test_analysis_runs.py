"""simkit.analysis.load_many (several runs as one frame, one rule set) and players (the hands in
long form, one row per hand and player)."""

from __future__ import annotations

import numpy as np
import pytest

import simkit
from simkit import analysis as A
from simkit.runs.simulation import simulate


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    root = tmp_path_factory.mktemp("sweep")
    a = simulate(root / "migi8", policies=("greedy", "greedy{declare=0}"), matches=30, seed=4, duplicate=True)
    b = simulate(
        root / "migi4",
        rules=simkit.get_rules("douque", migi_tai=4),
        policies=("greedy", "greedy{declare=0}"),
        matches=30,
        seed=4,
        duplicate=True,
    )
    c = simulate(root / "duel", rules="duel", matches=5, seed=4)
    return a.path, b.path, c.path


def test_load_many_keeps_each_runs_description(sweep):
    a, b, _ = sweep
    df = A.load_many({"migi 8": a, "migi 4": b})
    assert list(df["run"].cat.categories) == ["migi 8", "migi 4"]
    assert (df["run"] == "migi 8").sum() == len(A.load(a)) and (df["run"] == "migi 4").sum() == len(A.load(b))
    assert df.attrs["rules"] == "douque"
    assert (
        df.attrs["runs"]["migi 4"]["options"]["migi_tai"] == 4
        and df.attrs["runs"]["migi 8"]["options"]["migi_tai"] == 8
    )
    assert A.load_many([a, b])["run"].cat.categories.tolist() == [a.name, b.name]
    # the frame works with the analysis functions, grouped by run
    ep = A.expected_payment(df, by="run")
    assert list(ep["run"]) == ["migi 8", "migi 4"]


def test_load_many_refuses_mixed_rule_sets(sweep):
    a, _, duel = sweep
    with pytest.raises(simkit.SimkitError, match="different rule sets .*duel.*load_many combines runs of one rule set"):
        A.load_many({"d": a, "x": duel})
    with pytest.raises(simkit.SimkitError, match="same label"):
        A.load_many([a, a])


def test_players_long_form(sweep):
    a, _, _ = sweep
    df = A.load(a)
    long = A.players(df)
    assert len(long) == 2 * len(df)
    assert long.attrs["rules"] == "douque"
    won = long.groupby("player")["won"].sum()
    assert won[0] == (df["winner"] == 0).sum() and won[1] == (df["winner"] == 1).sum()
    # the winner's policy: one groupby
    by_policy = long[long["won"]].groupby("policy", observed=True).size()
    winner_policy = np.where(df["winner"] == 0, df["policy_0"].astype(str), df["policy_1"].astype(str))[
        df["winner"] >= 0
    ]
    assert by_policy.to_dict() == dict(zip(*np.unique(winner_policy, return_counts=True)))
    # each hand: results sum to minus the fees (zero in douque); deal-ins are the opponent's discard wins
    assert np.allclose(long.groupby(["match", "copy", "hand"])["result"].sum(), 0)
    dealt = long[long["dealt_in"]]
    assert (dealt["role"].isin(["dealer", "non-dealer"])).all()
    assert (
        long["dealt_in"].sum()
        == ((df["win_type"].astype(str) == "discard") | (df["win_type"].astype(str) == "robbed_kong")).sum()
    )
    assert (long.loc[long["draw"], "result"] == 0).all()
    with pytest.raises(simkit.SimkitError, match="has no column"):
        A.players(df.drop(columns=["payer"]))


def test_summarize_counts_wins_by_policy_in_a_duplicate_run_and_speaks_json(sweep, capsys):
    import json

    from simkit.analysis import summarize
    from simkit.cli import main

    a, _, _ = sweep
    df = A.load(a)
    s = summarize(a)
    winner_policy = np.where(df["winner"] == 0, df["policy_0"].astype(str), df["policy_1"].astype(str))[
        df["winner"] >= 0
    ]
    expected = dict(zip(*np.unique(winner_policy, return_counts=True)))
    assert s.policy_wins == {k: int(v) for k, v in expected.items()}
    text = s.table()
    assert "greedy{declare=0} wins" in text and "player 0 wins" not in text
    assert main(["summarize", str(a), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hands"] == len(df) and data["wins_by_policy"]["greedy"]["count"] == expected["greedy"]
    assert data["policies"] == ["greedy", "greedy{declare=0}"] and len(data["payment_points_per_hand"]) == 3


def _cr1(values, clusters):
    """Mean and 95% interval of ``values`` clustered by ``clusters`` (CR1), written out in pandas."""
    import math

    import pandas as pd

    g = pd.DataFrame({"v": np.asarray(values, float), "c": np.asarray(clusters)}).groupby("c")["v"].agg(["sum", "size"])
    mean = g["sum"].sum() / g["size"].sum()
    se = math.sqrt(len(g) / (len(g) - 1) * ((g["sum"] - mean * g["size"]) ** 2).sum()) / g["size"].sum()
    return mean, mean - 1.959963984540054 * se, mean + 1.959963984540054 * se


def test_summarize_by_policy_role_and_win_type(sweep, capsys):
    """summarize --by groups the summary; every number checked against the long view."""
    import json

    from simkit.analysis import summarize
    from simkit.cli import main
    from simkit.stats import wilson_interval

    a, _, _ = sweep
    df = A.load(a)
    long = A.players(df)
    for by in ("policy", "role"):
        s = summarize(a, by=by)
        assert s.by == by and [g["label"] for g in s.groups] == sorted(
            set(long[by].astype(str)), key=["greedy", "greedy{declare=0}", "dealer", "non-dealer"].index
        )
        for g in s.groups:
            mine = long[long[by].astype(str) == g["label"]]
            assert g["hands"] == len(mine) and g["wins"] == int(mine["won"].sum())
            assert g["mean"] == pytest.approx(_cr1(mine["result"], mine["match"]))
            hands = mine.merge(df[["match", "copy", "hand", "hand_tai"]], on=["match", "copy", "hand"])
            assert g["measure"] == "hand_tai"
            assert g["measure_sum"] / g["wins"] == pytest.approx(hands.loc[hands["won"], "hand_tai"].mean())
        row = s.group_rows()[0]
        assert row["win_rate"]["count"] == s.groups[0]["wins"]
        assert (row["win_rate"]["low"], row["win_rate"]["high"]) == wilson_interval(
            s.groups[0]["wins"], s.groups[0]["hands"]
        )
    s = summarize(a, by="win_type")
    seen = df["win_type"].astype(str)
    assert [g["label"] for g in s.groups] == [w for w in simkit.datasets.WIN_TYPES if (seen == w).any()]
    for g in s.groups:
        mine = df[seen == g["label"]]
        assert g["hands"] == len(mine) and g["mean"] == pytest.approx(_cr1(mine["points"], mine["match"]))
    text = s.table()
    assert "by win type" in text and "payment per hand" in text and "self_drawn" in text
    assert main(["summarize", str(a), "--by", "role", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["by"]["key"] == "role" and [r["role"] for r in data["by"]["groups"]] == ["dealer", "non-dealer"]
    dealer = long[long["role"] == "dealer"]
    assert data["by"]["groups"][0]["hands"] == len(dealer) and data["by"]["groups"][0]["wins"] == int(
        dealer["won"].sum()
    )
    assert data["by"]["groups"][0]["result_per_hand"] == pytest.approx(list(_cr1(dealer["result"], dealer["match"])))
    assert "by" not in summarize(a).to_dict()
    assert main(["summarize", str(a), "--by", "policy"]) == 0
    assert "by policy" in capsys.readouterr().out
    # another rule set: its value of a win, and results net of fees
    duel = sweep[2]
    s = summarize(duel, by="role")
    long = A.players(A.load(duel))
    for g in s.groups:
        mine = long[long["role"] == g["label"]]
        assert g["measure"] == "fan" and g["mean"] == pytest.approx(_cr1(mine["result"], mine["match"]))
    assert "fan per win" in s.table()
    with pytest.raises(simkit.SimkitError, match="summarize groups by one of policy, role, win_type; got by='seat'"):
        summarize(a, by="seat")
    with pytest.raises(SystemExit):
        main(["summarize", str(a), "--by", "seat"])
    assert "invalid choice: 'seat'" in capsys.readouterr().err
