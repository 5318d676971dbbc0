"""simkit.analysis: load, distributions, item frequencies, payments, duplicate comparison, plots.

Every statistic is checked against a direct pandas / numpy computation written here. Only the
greedy/greedy engine specialisation is used (greedy with other parameters is the same compiled
code), so no new numba compile; the other rule sets and the interval coverage are ``slow`` tests.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pandas as pd
import pyarrow.compute as pc
import pytest

import simkit
from simkit import analysis as A
from simkit import datasets
from simkit.analysis.bootstrap import match_bootstrap
from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy
from simkit.stats import wilson_interval

Z = 1.959963984540054
GG = ("greedy", "greedy")
#: greedy that never claims: a different policy label, the same compiled engine as greedy/greedy
NO_CLAIMS = (greedy_policy, np.r_[0.0, GREEDY_DEFAULTS[1:]])


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("analysis") / "gg"
    simkit.simulate(out, policies=GG, matches=40, seed=3, chunk_matches=15)  # three shards
    return out


@pytest.fixture(scope="module")
def df(run_dir):
    return A.load(run_dir)


@pytest.fixture(scope="module")
def dup_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("analysis") / "dup"
    simkit.simulate(out, policies=("greedy", NO_CLAIMS), matches=30, seed=4, duplicate=True, chunk_matches=10)
    return out


@pytest.fixture(scope="module")
def dup(dup_dir):
    return A.load(dup_dir)


def _cr1(values, clusters):
    """Mean and 95% interval of ``values`` clustered by ``clusters`` (CR1 ratio estimator), by hand."""
    frame = pd.DataFrame({"v": np.asarray(values, float), "c": np.asarray(clusters)})
    g = frame.groupby("c")["v"].agg(["sum", "size"])
    mean = g["sum"].sum() / g["size"].sum()
    n_g = len(g)
    se = math.sqrt(n_g / (n_g - 1) * ((g["sum"] - mean * g["size"]) ** 2).sum()) / g["size"].sum()
    return mean, mean - Z * se, mean + Z * se


def _close(a, b):
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-12, atol=1e-12, equal_nan=True)


# ---------------------------------------------------------------------------------------------
# load


def test_load_reads_the_run_with_its_description(run_dir, df):
    direct = pd.concat([pd.read_parquet(p) for p in sorted(run_dir.glob("part-*.parquet"))], ignore_index=True)
    assert len(df) == len(direct) == datasets.read_manifest(run_dir)["rows"]
    assert list(df.columns) == list(direct.columns)
    for col in ("match", "hand", "winner", "points", "hand_tai", "item_self_drawn"):
        assert (df[col].to_numpy() == direct[col].to_numpy()).all()
    key = list(zip(df["match"], df["copy"], df["hand"]))
    assert key == sorted(key)
    for col in ("policy_0", "policy_1", "win_type", "prevailing_wind", "seat_wind_0", "declared_0", "win_tile"):
        assert isinstance(df[col].dtype, pd.CategoricalDtype), col
    assert list(df["win_type"].cat.categories) == list(datasets.WIN_TYPES)
    assert df.attrs["rules"] == "douque" and df.attrs["policies"] == ["greedy", "greedy"]
    assert df.attrs["items"] == list(simkit.scoring.ITEM_NAMES) and df.attrs["seed"] == 3
    assert df.attrs["duplicate"] is False and df.attrs["complete"] is True
    assert df.attrs["options"]["tai_value"] == 20 and df.attrs["manifest"]["status"] == "complete"


def test_load_only_the_columns_and_rows_asked_for(run_dir, df):
    part = A.load(run_dir, columns=["match", "winner", "item_*"])
    items = [c for c in df.columns if c.startswith("item_")]
    assert list(part.columns) == ["match", "winner", *items]
    assert part.attrs["rules"] == "douque"
    sub = A.load(run_dir, columns="points", filters=[("match", "<", 10), ("winner", ">=", 0)])
    expect = df.loc[(df["match"] < 10) & (df["winner"] >= 0), "points"].to_numpy()
    assert list(sub.columns) == ["points"] and (sub["points"].to_numpy() == expect).all()
    either = A.load(run_dir, columns=["match"], filters=[[("match", "==", 1)], [("match", "==", 30)]])
    assert set(either["match"]) == {1, 30} and len(either) == int(df["match"].isin([1, 30]).sum())
    expr = A.load(run_dir, columns=["hand_tai"], filters=pc.field("hand_tai") > 8)
    assert (expr["hand_tai"].to_numpy() == df.loc[df["hand_tai"] > 8, "hand_tai"].to_numpy()).all()
    cat = A.load(run_dir, columns=["win_type"], filters=[("win_type", "==", "discard")])
    assert len(cat) == int((df["win_type"] == "discard").sum()) and set(cat["win_type"]) == {"discard"}
    assert isinstance(cat["win_type"].dtype, pd.CategoricalDtype)


def test_load_refuses_what_is_not_a_dataset_or_not_in_it(run_dir, tmp_path):
    with pytest.raises(datasets.DatasetError, match="not a simkit dataset"):
        A.load(tmp_path)
    with pytest.raises(datasets.DatasetError, match="no such directory"):
        A.load(tmp_path / "missing")
    (tmp_path / "file.parquet").write_text("x")
    with pytest.raises(datasets.DatasetError, match="is a file"):
        A.load(tmp_path / "file.parquet")
    empty = tmp_path / "empty"
    empty.mkdir()
    datasets.write_manifest(empty, dict(datasets.read_manifest(run_dir), status="running", shards=[]))
    with pytest.raises(datasets.DatasetError, match="no complete shards"):
        A.load(empty)
    with pytest.raises(simkit.SimkitError, match="unknown column 'tai'.*hand_tai"):
        A.load(run_dir, columns=["match", "tai"])
    with pytest.raises(simkit.SimkitError, match="unknown column 'nope_\\*'"):
        A.load(run_dir, columns="nope_*")
    with pytest.raises(simkit.SimkitError, match="unknown filter column 'wins'"):
        A.load(run_dir, filters=[("wins", ">", 0)])
    with pytest.raises(simkit.SimkitError, match="bad filter"):
        A.load(run_dir, filters=[("match", "<")])
    with pytest.raises(simkit.SimkitError, match="filters must be"):
        A.load(run_dir, filters="match < 3")
    with pytest.raises(simkit.SimkitError, match="cannot apply filters"):
        A.load(run_dir, filters=pc.field("nope") > 1)
    with pytest.raises(simkit.SimkitError, match="columns must be"):
        A.load(run_dir, columns=[1, 2])


def test_load_warns_about_an_unfinished_run(run_dir, tmp_path):
    import shutil

    part = tmp_path / "part"
    shutil.copytree(run_dir, part)
    (part / "part-000002.parquet").unlink()
    manifest = datasets.read_manifest(part)
    manifest["status"] = "running"
    manifest["shards"] = manifest["shards"][:2]  # an unfinished run lists only the shards it committed
    datasets.write_manifest(part, manifest)
    with pytest.warns(UserWarning, match="not complete.*2 shards so far.*--resume"):
        df = A.load(part)
    assert df["match"].max() == 29 and df.attrs["complete"] is False


# ---------------------------------------------------------------------------------------------
# distributions


def _wilson_ok(frame, count, total, prefix):
    for k, n, lo, hi in zip(frame[count], frame[total], frame[f"{prefix}_low"], frame[f"{prefix}_high"]):
        assert (lo, hi) == pytest.approx(wilson_interval(int(k), int(n)), abs=1e-15)
    assert _close(frame[prefix], frame[count] / frame[total])


def test_tai_distribution_counts_and_shares_per_win(df):
    dist = A.tai_distribution(df)
    assert list(dist.columns) == ["measure", "value", "count", "wins", "share", "share_low", "share_high"]
    assert list(dict.fromkeys(dist["measure"])) == ["hand_tai", "total_tai"]
    wins = df[df["winner"] >= 0]
    for measure, values in (("hand_tai", wins["hand_tai"]), ("total_tai", wins["hand_tai"] + wins["dealer_tai"])):
        part = dist[dist["measure"] == measure]
        expect = values.value_counts().sort_index()
        assert part["value"].tolist() == expect.index.tolist() and part["count"].tolist() == expect.tolist()
        assert (part["wins"] == len(wins)).all() and part["share"].sum() == pytest.approx(1.0)
    _wilson_ok(dist, "count", "wins", "share")


def test_tai_distribution_by_player_keys_and_columns(dup):
    dist = A.tai_distribution(dup, by=["policy", "role"], values="total_tai")
    wins = dup[dup["winner"] >= 0]
    w0 = wins["winner"] == 0
    policy = np.where(w0, wins["policy_0"].astype(str), wins["policy_1"].astype(str))
    role = np.where(wins["winner"] == wins["dealer"], "dealer", "non-dealer")
    direct = pd.DataFrame({"policy": policy, "role": role, "value": wins["hand_tai"] + wins["dealer_tai"]})
    expect = direct.groupby(["policy", "role", "value"]).size()
    got = dist.set_index(["policy", "role", "value"])["count"]
    got.index = got.index.set_levels([lvl.astype(object) for lvl in got.index.levels])
    assert got.to_dict() == expect.to_dict()
    totals = direct.groupby(["policy", "role"]).size()
    assert all(r.wins == totals[(r.policy, r.role)] for r in dist.itertuples())
    _wilson_ok(dist, "count", "wins", "share")
    by_type = A.tai_distribution(dup, by="win_type", values="hand_tai")
    assert by_type.groupby("win_type", observed=True)["count"].sum().to_dict() == {
        k: v for k, v in wins["win_type"].value_counts().to_dict().items() if v
    }
    seat = A.tai_distribution(dup, by="seat_wind")
    sw = np.where(w0, wins["seat_wind_0"].astype(str), wins["seat_wind_1"].astype(str))
    assert seat.drop_duplicates(["seat_wind", "measure"]).groupby("seat_wind", observed=True)[
        "wins"
    ].first().to_dict() == (pd.Series(sw).value_counts().to_dict())


# ---------------------------------------------------------------------------------------------
# items


def test_item_frequencies_per_hand_and_per_win(df):
    freq = A.item_frequencies(df)
    items = [c for c in df.columns if c.startswith("item_")]
    assert sorted(freq["item"]) == sorted(c[5:] for c in items) and len(freq) == len(items)
    wins = df[df["winner"] >= 0]
    for r in freq.itertuples():
        col = wins[f"item_{r.item}"]
        assert r.count == int((col != 0).sum()) and r.hands == len(df) and r.wins == len(wins)
        if r.count:
            assert r.mean_value == pytest.approx(col[col != 0].mean())
        assert r.value_per_hand == pytest.approx(col.sum() / len(df))
    assert freq["count"].is_monotonic_decreasing
    _wilson_ok(freq, "count", "hands", "per_hand")
    _wilson_ok(freq, "count", "wins", "per_win")


def test_item_frequencies_by_role_and_by_hand_columns(df, dup):
    freq = A.item_frequencies(df, by="role")
    wins = df[df["winner"] >= 0]
    dealer_won = wins["winner"] == wins["dealer"]
    for role, mask in (("dealer", dealer_won), ("non-dealer", ~dealer_won)):
        part = freq[freq["role"] == role].set_index("item")
        assert (part["hands"] == len(df)).all() and (part["wins"] == mask.sum()).all()
        assert part.loc["self_drawn", "count"] == int((wins.loc[mask, "item_self_drawn"] != 0).sum())
        assert part.loc["seat_wind", "count"] == int((wins.loc[mask, "item_seat_wind"] != 0).sum())
    _wilson_ok(freq, "count", "hands", "per_hand")
    by_streak = A.item_frequencies(df, by="streak")
    hands = df.groupby("streak").size()
    for r in by_streak[by_streak["item"] == "half_flush"].itertuples():
        rows = df[df["streak"] == r.streak]
        assert r.hands == hands[r.streak] and r.wins == int((rows["winner"] >= 0).sum())
        assert r.count == int((rows["item_half_flush"] != 0).sum())
    # a policy: the hands in which it sits (here both policies sit in every hand)
    by_policy = A.item_frequencies(dup, by="policy")
    assert set(by_policy["policy"]) == {"greedy", dup.attrs["policies"][1]} and (by_policy["hands"] == len(dup)).all()
    dw = dup[dup["winner"] >= 0]
    pol = np.where(dw["winner"] == 0, dw["policy_0"].astype(str), dw["policy_1"].astype(str))
    got = by_policy[by_policy["item"] == "concealed_hand"].set_index("policy")["count"]
    for p in set(pol):
        assert got[p] == int((dw.loc[pol == p, "item_concealed_hand"] != 0).sum())


def test_item_frequencies_per_hand_counts_a_hand_once_per_group(df):
    # seat_wind: every hand has an E and a W player, so each has all the hands
    freq = A.item_frequencies(df, by="seat_wind")
    assert set(freq["seat_wind"]) == {"E", "W"} and (freq["hands"] == len(df)).all()
    # player x role: a player is dealer in some hands, non-dealer in the others
    freq = A.item_frequencies(df, by=["player", "role"])
    for r in freq.drop_duplicates(["player", "role"]).itertuples():
        expect = int(((df["dealer"] == r.player) == (r.role == "dealer")).sum())
        assert r.hands == expect


def test_item_pairs_against_direct_counts(df):
    pairs = A.item_pairs(df, top=6)
    wins = df[df["winner"] >= 0]
    names = [c[5:] for c in df.columns if c.startswith("item_")]
    direct = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            k = int(((wins[f"item_{a}"] != 0) & (wins[f"item_{b}"] != 0)).sum())
            if k:
                direct[(a, b)] = k
    best = sorted(direct.values(), reverse=True)[:6]
    assert pairs["count"].tolist() == best
    for r in pairs.itertuples():
        assert direct[(r.item_a, r.item_b)] == r.count and r.wins == len(wins)
        pa = (wins[f"item_{r.item_a}"] != 0).mean()
        pb = (wins[f"item_{r.item_b}"] != 0).mean()
        assert r.lift == pytest.approx(r.count / len(wins) / (pa * pb))
    _wilson_ok(pairs, "count", "wins", "share")
    by = A.item_pairs(df, by="role", top=2)
    assert list(by.columns[:3]) == ["role", "item_a", "item_b"] and len(by) <= 4
    with pytest.raises(simkit.SimkitError, match="top"):
        A.item_pairs(df, top=0)


# ---------------------------------------------------------------------------------------------
# payments


def test_expected_payment_per_hand_and_per_match(df):
    ep = A.expected_payment(df)
    assert len(ep) == 1 and ep["value"].iloc[0] == "points"
    r = ep.iloc[0]
    mean, lo, hi = _cr1(df["points"], df["match"])
    assert r["mean"] == pytest.approx(df["points"].mean()) and (r["low"], r["high"]) == pytest.approx((lo, hi))
    per_match = df.groupby("match")["points"].sum()
    sd = per_match.std(ddof=1) / math.sqrt(len(per_match))  # CR1 with one game per cluster = the plain interval
    assert r["matches"] == 40 and r["hands"] == len(df)
    assert r["per_match"] == pytest.approx(per_match.mean())
    assert (r["per_match_low"], r["per_match_high"]) == pytest.approx(
        (per_match.mean() - Z * sd, per_match.mean() + Z * sd)
    )
    tai = A.expected_payment(df, value="payment_tai").iloc[0]
    assert tai["mean"] == pytest.approx(df["payment_tai"].mean())


def test_expected_payment_by_role_and_streak(df):
    ep = A.expected_payment(df, by=["role", "streak"])
    assert (ep["value"] == "result").all()
    for p_role in ("dealer", "non-dealer"):
        for streak in sorted(df["streak"].unique())[:4]:
            rows = df[df["streak"] == streak]
            d = rows["dealer"].to_numpy()
            res = (
                np.where(d == 0, rows["score_0"], rows["score_1"])
                if p_role == "dealer"
                else np.where(d == 0, rows["score_1"], rows["score_0"])
            )
            r = ep[(ep["role"] == p_role) & (ep["streak"] == streak)].iloc[0]
            mean, lo, hi = _cr1(res, rows["match"])
            assert r["hands"] == len(rows) and r["mean"] == pytest.approx(mean)
            if not math.isnan(lo):
                assert (r["low"], r["high"]) == pytest.approx((lo, hi))
            totals = (
                pd.Series(res, index=rows["match"].to_numpy()).groupby(level=0).sum().reindex(range(40), fill_value=0)
            )
            assert r["per_match"] == pytest.approx(totals.mean())
            sd = totals.std(ddof=1) / math.sqrt(40)
            assert r["per_match_high"] - r["per_match"] == pytest.approx(Z * sd)
    won = A.expected_payment(df, by="player", value="won")
    for p in (0, 1):
        r = won[won["player"] == p].iloc[0]
        mean, lo, hi = _cr1(df["winner"] == p, df["match"])
        assert (r["mean"], r["low"], r["high"]) == pytest.approx((mean, lo, hi))


def test_expected_payment_clusters_both_copies_of_a_duplicate_match(dup):
    ep = A.expected_payment(dup, by="policy")
    a, b = dup.attrs["policies"]
    for label in (a, b):
        res = np.where(dup["policy_0"].astype(str) == label, dup["score_0"], 0.0) + np.where(
            dup["policy_1"].astype(str) == label, dup["score_1"], 0.0
        )
        r = ep[ep["policy"] == label].iloc[0]
        mean, lo, hi = _cr1(res, dup["match"])  # one cluster per match, both copies in it
        assert r["hands"] == len(dup) and (r["mean"], r["low"], r["high"]) == pytest.approx((mean, lo, hi))
        assert r["matches"] == 60  # 30 matches x 2 copies
        totals = pd.Series(res).groupby(dup["match"].to_numpy()).sum()
        assert r["per_match"] == pytest.approx(totals.sum() / 60)


def test_expected_payment_refusals(df):
    with pytest.raises(simkit.SimkitError, match="player key"):
        A.expected_payment(df, value="result")
    with pytest.raises(simkit.SimkitError, match="unknown grouping key 'seat'.*player, policy, role, seat_wind"):
        A.expected_payment(df, by="seat")
    with pytest.raises(simkit.SimkitError, match="no column 'bonus'"):
        A.expected_payment(df, value="bonus")
    with pytest.raises(simkit.SimkitError, match="not a numeric column"):
        A.expected_payment(df, value="win_hand")
    with pytest.raises(simkit.SimkitError, match="by names a key twice"):
        A.expected_payment(df, by=["role", "role"])


@pytest.mark.parametrize(
    "by,value",
    [("role", "points"), ("player", "points"), ("seat_wind", "payment_tai"), (["policy", "streak"], "points")],
)
def test_expected_payment_refuses_a_hand_value_split_by_a_player_key(df, by, value):
    """A column of the hand is the same for both players: split by role (or seat, wind, policy) it
    gave identical rows, each hand counted in both groups. Refused in one line, naming the way to a
    player's own figure."""
    with pytest.raises(simkit.errors.InputValueError, match=f"value='{value}' is the hand's") as info:
        A.expected_payment(df, by=by, value=value)
    assert "value='result'" in str(info.value) and "\n" not in str(info.value)
    by_role = A.expected_payment(df, by="role")  # the player's own result: one figure per role
    dealer, other = by_role.set_index("role").loc[["dealer", "non-dealer"], "mean"]
    assert dealer != other


# ---------------------------------------------------------------------------------------------
# duplicate comparison


def test_compare_against_a_direct_paired_computation(dup):
    cmp = A.compare(dup)
    a, b = dup.attrs["policies"]
    assert (cmp.a, cmp.b) == (a, b) and cmp.rows == len(dup) and cmp.matches == 30
    assert (cmp.deal, cmp.wall) == ("seat", "stable") and not cmp.across_runs
    # a's result minus b's in each row
    a_first = dup["policy_0"].astype(str) == a
    diff = np.where(a_first, dup["score_0"] - dup["score_1"], dup["score_1"] - dup["score_0"])
    mean, lo, hi = _cr1(diff, dup["match"])  # both copies of a match in one cluster
    assert cmp.per_hand == pytest.approx((mean, lo, hi)) and cmp.difference == cmp.per_hand
    u = _cr1(diff, dup["match"] * 2 + dup["copy"])  # the copies as independent runs
    assert cmp.per_hand_unpaired == pytest.approx(u)
    assert cmp.variance_reduction == pytest.approx(((u[2] - u[1]) / (hi - lo)) ** 2)  # unpaired / paired variance
    assert cmp.a_mean == pytest.approx(_cr1(np.where(a_first, dup["score_0"], dup["score_1"]), dup["match"]))
    assert cmp.a_mean[0] == pytest.approx(-cmp.b_mean[0])  # zero-sum
    # per match: the mean of the two copies' totals, against each copy's total alone
    totals = pd.Series(diff).groupby([dup["match"].to_numpy(), dup["copy"].to_numpy()]).sum().unstack()
    paired = (totals[0] + totals[1]) / 2
    assert cmp.per_match[0] == pytest.approx(paired.mean())
    assert (cmp.per_match[2] - cmp.per_match[0]) / Z == pytest.approx(paired.std(ddof=1) / math.sqrt(30))
    single = np.concatenate([totals[0], totals[1]])
    assert (cmp.per_match_unpaired[2] - cmp.per_match_unpaired[0]) / Z == pytest.approx(
        single.std(ddof=1) / math.sqrt(60)
    )
    # per deal played in both copies: the mean of the two copies
    frame = pd.DataFrame(
        {"deal_id": dup["deal_id"], "match": dup["match"], "copy": dup["copy"], "d": diff, "dealer": dup["dealer"]}
    )
    wide = frame.pivot(index=["deal_id", "match"], columns="copy", values=["d", "dealer"]).dropna().reset_index()
    assert len(cmp.deals) == len(wide) and (cmp.deals["deal_id"].to_numpy() == wide["deal_id"].to_numpy()).all()
    assert _close(cmp.deals["difference"], (wide[("d", 0)] + wide[("d", 1)]) / 2) and _close(
        cmp.deals["b_side"], wide[("d", 1)]
    )
    assert (cmp.deals["same_dealer"].to_numpy() == (wide[("dealer", 0)] == wide[("dealer", 1)]).to_numpy()).all()
    text = cmp.table()
    assert "per hand, paired" in text and "unpaired / paired variance" in text and a in text
    assert list(cmp.frame()["per"]) == ["hand", "hand", "match", "match", "hand", "hand"]


def test_compare_two_runs_on_the_same_deals(tmp_path, run_dir, df):
    """Two runs that share the seed and wall design pair by (match, copy, deal_id): the paired
    interval of the difference, against the two runs as independent samples."""
    other = tmp_path / "other"
    simkit.simulate(
        other, policies=(NO_CLAIMS, "greedy"), matches=df["match"].nunique(), seed=df.attrs["seed"], chunk_matches=7
    )
    cmp = A.compare(run_dir, other)
    assert cmp.across_runs and cmp.value == "result_0"  # only seat 0's policy differs
    o = A.load(other)
    ra, rb = df["score_0"].to_numpy(), o["score_0"].to_numpy()
    ma, mb = _cr1(ra, df["match"]), _cr1(rb, o["match"])
    assert cmp.a_mean == pytest.approx(ma) and cmp.b_mean == pytest.approx(mb)
    se_u = math.hypot(ma[2] - ma[0], mb[2] - mb[0]) / Z
    assert cmp.per_hand_unpaired == pytest.approx((ma[0] - mb[0], ma[0] - mb[0] - Z * se_u, ma[0] - mb[0] + Z * se_u))
    # paired: the linearised difference of the two ratio estimators, clustered by match
    ga, gb = (
        pd.DataFrame({"m": x["match"], "v": v}).groupby("m")["v"].agg(["sum", "size"]) for x, v in ((df, ra), (o, rb))
    )
    za = (ga["sum"] - ma[0] * ga["size"]) / ga["size"].sum()
    zb = (gb["sum"] - mb[0] * gb["size"]) / gb["size"].sum()
    g = len(za)
    se_p = math.sqrt(g / (g - 1) * ((za - zb) ** 2).sum())
    assert (cmp.per_hand[2] - cmp.per_hand[0]) / Z == pytest.approx(se_p)
    assert cmp.variance_reduction == pytest.approx(se_u**2 / se_p**2) and cmp.variance_reduction > 1
    assert (ga["sum"] - gb["sum"]).mean() == pytest.approx(cmp.per_match[0])
    assert A.compare(run_dir, other, value="points").value == "points"
    # the bootstrap resamples the matches both runs played: the difference of the two ratios
    boot = A.compare(run_dir, other, interval="bootstrap", resamples=2000, seed=1)
    expected = match_bootstrap(
        ga["sum"].to_numpy(), ga["size"].to_numpy(), minus=(gb["sum"].to_numpy(), gb["size"].to_numpy()), seed=1
    )
    assert boot.per_hand == pytest.approx(expected) and boot.per_hand[0] == pytest.approx(cmp.per_hand[0])
    assert boot.per_match == pytest.approx(match_bootstrap((ga["sum"] - gb["sum"]).to_numpy(), np.ones(g), seed=1))
    with pytest.raises(simkit.SimkitError, match="seed 3 .run a. vs 4 .run b."):
        third = tmp_path / "third"
        simkit.simulate(third, matches=5, seed=df.attrs["seed"] + 1)
        A.compare(run_dir, third)
    with pytest.raises(simkit.SimkitError, match="wall design"):
        fourth = tmp_path / "fourth"
        simkit.simulate(fourth, matches=5, seed=df.attrs["seed"], deal="dealer")
        A.compare(run_dir, fourth)


def test_compare_refuses_runs_it_cannot_compare(df, dup):
    with pytest.raises(simkit.SimkitError, match="needs a --duplicate run.*copy 0$"):
        A.compare(df)
    with pytest.raises(simkit.SimkitError, match="nothing to compare"):
        A.compare(dup.assign(policy_1=dup["policy_0"]))
    with pytest.raises(simkit.SimkitError, match="no column 'deal_id'"):
        A.compare(dup.drop(columns="deal_id"))


def _tenure_values(frame):
    """Brute force: for every hand, the dealer's results summed over it and the later hands of the
    same match and copy while the same player deals; with the dealer's policy, streak, match."""
    rows = frame.sort_values(["match", "copy", "hand"]).to_dict("records")
    out = []
    for i, r in enumerate(rows):
        total, left = 0.0, 0
        for s in rows[i:]:
            if (s["match"], s["copy"], s["dealer"]) != (r["match"], r["copy"], r["dealer"]):
                break
            d = s["dealer"]
            total += s[f"score_{d}"] - s.get(f"fee_{d}", 0.0)
            left += 1
        out.append((str(r[f"policy_{r['dealer']}"]), int(r["streak"]), int(r["match"]), total, left))
    return pd.DataFrame(out, columns=["policy", "streak", "match", "value", "left"])


def test_deal_value_against_a_brute_force_walk_over_the_hands(df, dup):
    brute = _tenure_values(df)
    dv = A.deal_value(df)
    assert list(dv.columns) == ["streak", "tenures", "matches", "hands_left", "mean", "low", "high"]
    assert dv["streak"].tolist() == sorted(brute["streak"].unique())
    assert (dv["mean"].iloc[1:] != 0).any()  # a real computation: the dealer's tenure is worth something
    for _, r in dv.iterrows():
        b = brute[brute["streak"] == r["streak"]]
        assert r["tenures"] == len(b) and r["matches"] == b["match"].nunique()
        assert r["hands_left"] == pytest.approx(b["left"].mean())
        assert r["mean"] == pytest.approx(b["value"].mean())
        if b["match"].nunique() > 1:
            assert (r["low"], r["high"]) == pytest.approx(_cr1(b["value"], b["match"])[1:])
        else:
            assert math.isnan(r["low"]) and math.isnan(r["high"])
    # at streak 0 a tenure is whole: its value is more than the first hand's (expected_payment by streak)
    first = A.expected_payment(df, by=["role", "streak"])
    first = first[(first["role"] == "dealer") & (first["streak"] == 0)].iloc[0]
    assert dv.iloc[0]["mean"] != pytest.approx(first["mean"]) and dv.iloc[0]["hands_left"] > 1
    # a duplicate run, by the dealer's policy: both copies of a match in one cluster
    brute = _tenure_values(dup)
    dv = A.deal_value(dup, by="policy")
    assert set(dv["policy"]) == set(dup.attrs["policies"])
    for _, r in dv.iterrows():
        b = brute[(brute["streak"] == r["streak"]) & (brute["policy"] == r["policy"])]
        assert r["tenures"] == len(b) and r["mean"] == pytest.approx(b["value"].mean())
        if b["match"].nunique() > 1:
            assert (r["low"], r["high"]) == pytest.approx(_cr1(b["value"], b["match"])[1:])
    by_player = A.deal_value(dup, by="player")
    assert by_player["tenures"].sum() == len(dup) and set(by_player["player"]) == {0, 1}


def test_deal_value_refusals(run_dir, df):
    assert A.deal_value(run_dir).equals(A.deal_value(df))
    with pytest.raises(simkit.SimkitError, match="by='role' has one value"):
        A.deal_value(df, by="role")
    holed = df[~((df["match"] == 3) & (df["hand"] == 2))]
    with pytest.raises(simkit.SimkitError, match="every hand of a match: .*match 3.* from hand 1 to hand 3"):
        A.deal_value(holed)
    with pytest.raises(simkit.SimkitError, match="no column 'streak'"):
        A.deal_value(df.drop(columns="streak"))
    with pytest.raises(simkit.SimkitError, match="unknown grouping key 'seat'"):
        A.deal_value(df, by="seat")


# ---------------------------------------------------------------------------------------------
# paths, columns, other rule sets


def test_functions_take_a_run_directory_and_read_only_what_they_need(run_dir, df, monkeypatch):
    seen = []
    real = A.load

    def spy(path, columns=None, filters=None):
        seen.append(columns)
        return real(path, columns=columns, filters=filters)

    monkeypatch.setattr(A.loading, "load", spy)  # where every function's run-directory reader looks it up
    assert A.tai_distribution(run_dir, by="role").equals(A.tai_distribution(df, by="role"))
    assert set(seen[-1]) == {"winner", "dealer", "hand_tai", "dealer_tai"}
    assert A.item_frequencies(str(run_dir)).equals(A.item_frequencies(df))
    assert A.expected_payment(run_dir, by="policy").equals(A.expected_payment(df, by="policy"))
    assert "win_hand" not in seen[-1] and "item_migi" not in seen[-1]


def test_missing_columns_are_named(run_dir):
    part = A.load(run_dir, columns=["winner", "hand_tai"])
    with pytest.raises(simkit.SimkitError, match="no column 'dealer_tai' \\(it is in the dataset: load it\\)"):
        A.tai_distribution(part)
    with pytest.raises(simkit.SimkitError, match="no item_\\* columns"):
        A.item_frequencies(part)
    with pytest.raises(simkit.SimkitError, match="expected a DataFrame"):
        A.tai_distribution([1, 2, 3])


def test_value_of_a_win_follows_the_rule_set(df):
    # the engine fills every rule set's value columns (0 where they do not apply): relabel the rows
    other = df.copy()
    other.attrs = {**df.attrs, "rules": "for_two"}
    other["combination_points"] = np.where(other["winner"] >= 0, 1 + other["hand_tai"] % 5, 0).astype(float)
    dist = A.tai_distribution(other)
    assert set(dist["measure"]) == {"combination_points"}
    wins = other[other["winner"] >= 0]
    assert dist.set_index("value")["count"].to_dict() == wins["combination_points"].value_counts().to_dict()
    other.attrs["rules"] = "duel"
    other["fan"] = np.where(other["winner"] >= 0, other["hand_tai"], 0)
    other["multiple"] = 2 ** np.maximum(other["fan"] - 1, 0)
    assert list(dict.fromkeys(A.tai_distribution(other)["measure"])) == ["fan", "multiple"]
    bare = df[["winner", "points"]].copy()
    bare.attrs = {}
    with pytest.raises(simkit.SimkitError, match="rule set"):
        A.tai_distribution(bare)


# ---------------------------------------------------------------------------------------------
# plots


def test_plot_helpers_draw_and_save(df, dup, tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ax = A.plot_tai_distribution(A.tai_distribution(df), measure="total_tai")
    assert len(ax.patches) == A.tai_distribution(df, values="total_tai").shape[0]
    ax.figure.savefig(tmp_path / "dist.png")
    ax = A.plot_tai_distribution(A.tai_distribution(df, by="role"))
    assert ax.get_legend() is not None
    ax = A.plot_item_frequencies(A.item_frequencies(df), top=8)
    assert len(ax.patches) == 8
    ax = A.plot_item_frequencies(A.item_frequencies(df, by="role"), per="hand", top=5)
    assert len(ax.patches) == 10
    ax = A.plot_expected_payment(A.expected_payment(df, by=["role", "streak"]), x="streak")
    ax = A.plot_expected_payment(A.expected_payment(df, by="role"), per="match")
    axes = A.plot_comparison(A.compare(dup))
    axes[0].figure.savefig(tmp_path / "cmp.png")
    assert (tmp_path / "dist.png").stat().st_size > 1000 and (tmp_path / "cmp.png").stat().st_size > 1000
    with pytest.raises(simkit.SimkitError, match="measure 'fan'"):
        A.plot_tai_distribution(A.tai_distribution(df), measure="fan")
    with pytest.raises(simkit.SimkitError, match="per must be"):
        A.plot_item_frequencies(A.item_frequencies(df), per="match")
    plt.close("all")


# ---------------------------------------------------------------------------------------------
# slow: other rule sets, interval coverage


@pytest.mark.slow
@pytest.mark.parametrize(
    "rules, measures", [("night_market", ["fan"]), ("duel", ["fan", "multiple"]), ("for_two", ["combination_points"])]
)
def test_other_rule_sets(tmp_path, rules, measures):
    """Every function on a real run of each other rule set (one engine compile each)."""
    simkit.simulate(tmp_path / rules, rules=rules, policies=GG, matches=20, seed=1)
    df = A.load(tmp_path / rules)
    dist = A.tai_distribution(df)
    assert list(dict.fromkeys(dist["measure"])) == measures
    wins = df[df["winner"] >= 0]
    first = dist[dist["measure"] == measures[0]]
    assert first.set_index("value")["count"].to_dict() == wins[measures[0]].value_counts().to_dict()
    freq = A.item_frequencies(df, by="role")
    assert set(freq["item"]) == set(df.attrs["items"])
    ep = A.expected_payment(df, by="player")
    res0 = df["score_0"] - (df["fee_0"] if "fee_0" in df.columns else 0)
    assert ep.set_index("player").loc[0, "mean"] == pytest.approx(res0.mean())
    assert A.expected_payment(df).iloc[0]["mean"] == pytest.approx(df["points"].mean())
    A.item_pairs(df)


@pytest.mark.slow
def test_payment_interval_covers_the_large_run_mean_about_95_percent():
    """Over 300 small runs with different seeds (40 matches each), the 95% interval of the mean
    payment per hand (clustered by match) contains a large run's estimate about 95% of the time."""
    big = simkit.simulate_matches("douque", GG, 30_000, seed=10_000)
    truth = float(np.mean(big["points"]))
    covered = per_match_covered = 0
    reps = 300
    per_match_truth = float(np.sum(big["points"]) / 30_000)
    for seed in range(reps):
        res = simkit.simulate_matches("douque", GG, 40, seed=seed)
        frame = pd.DataFrame({"match": res["match"], "copy": 0, "points": res["points"]})
        r = A.expected_payment(frame).iloc[0]
        covered += r["low"] <= truth <= r["high"]
        per_match_covered += r["per_match_low"] <= per_match_truth <= r["per_match_high"]
    # binomial(300, 0.95): 3 standard deviations is +-3.8 points
    assert 0.91 <= covered / reps <= 0.99, covered / reps
    assert 0.91 <= per_match_covered / reps <= 0.99, per_match_covered / reps


def test_wilson_interval_bounds_are_exact_and_hold_the_share():
    """wilson_interval(0, n) starts at exactly 0 and (n, n) ends at exactly 1 (not ~1e-21 and
    0.9999999999999999 from rounding), so a zero count gets no negative error bar."""
    for n in (1, 2, 3, 7, 10, 33, 100, 1000, 33_910, 10**7):
        assert wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0
        for k in sorted({0, 1, n // 3, n // 2, n - 1, n}):
            lo, hi = wilson_interval(k, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0, (k, n, lo, hi)
    # the textbook value stays (n = 100, 10 successes: [0.0552, 0.1744])
    assert wilson_interval(10, 100) == pytest.approx((0.05522914, 0.17436566), abs=1e-7)


def test_item_frequencies_per_hand_plot_with_zero_counts(df):
    import matplotlib

    matplotlib.use("Agg")
    freq = A.item_frequencies(df, by="policy")
    zero = freq["count"] == 0
    assert zero.any()  # items never scored: their interval starts at exactly 0
    assert (freq.loc[zero, "per_hand_low"] == 0).all() and (freq["per_hand_low"] <= freq["per_hand"]).all()
    A.plot_item_frequencies(freq, per="hand", top=40)  # matplotlib refuses negative 'xerr'


def test_the_package_keeps_its_public_names_one_concern_per_file():
    """simkit.analysis is a package: every public name is imported from simkit.analysis, each
    defined in the file that names its concern."""
    where = {
        "load": "loading",
        "load_many": "loading",
        "players": "loading",
        "tai_distribution": "distributions",
        "item_frequencies": "distributions",
        "item_pairs": "distributions",
        "expected_payment": "payments",
        "deal_value": "payments",
        "compare": "comparison",
        "Comparison": "comparison",
        "plot_tai_distribution": "plots",
        "plot_item_frequencies": "plots",
        "plot_expected_payment": "plots",
        "plot_deal_value": "plots",
        "plot_comparison": "plots",
        "summarize": "summary",
        "Summary": "summary",
        "clustered_mean": "intervals",
        "draw_luck": "luck",
        "decision_arrays": "decisions",
        "decision_values": "decision_values",
    }
    assert set(A.__all__) == set(where) | {"PLAYER_KEYS", "WIN_VALUES"}
    for name, module in where.items():
        assert getattr(A, name).__module__ == f"simkit.analysis.{module}", name
    assert A.PLAYER_KEYS == ("player", "policy", "role", "seat_wind") and A.WIN_VALUES["douque"] == (
        "hand_tai",
        "total_tai",
    )
    assert simkit.summarize is A.summarize
    from simkit.stats import wilson_interval as w

    assert w(0, 5)[0] == 0.0  # simkit.stats has it too


# ---------------------------------------------------------------------------------------------
# figures: labels, baselines, the distribution's kinds, titles, zero counts


@pytest.fixture
def plt():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def _legend(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def _zero_lines(ax):
    return [ln for ln in ax.lines if len(set(ln.get_ydata())) == 1 and ln.get_ydata()[0] == 0]


def test_legend_labels_are_the_groups_values(df, dup, plt):
    assert _legend(A.plot_tai_distribution(A.tai_distribution(df, by="role"))) == ["dealer", "non-dealer"]
    ax = A.plot_expected_payment(A.expected_payment(dup, by=["policy", "role", "streak"]), x="streak")
    a, b = sorted(dup.attrs["policies"])
    assert _legend(ax) == [f"{a}, dealer", f"{a}, non-dealer", f"{b}, dealer", f"{b}, non-dealer"]
    ax = A.plot_item_frequencies(A.item_frequencies(df, by="player"), top=5)
    assert _legend(ax) == ["player 0", "player 1"]
    assert _legend(A.plot_deal_value(A.deal_value(dup, by="policy"))) == sorted(dup.attrs["policies"])


def test_rates_keep_their_own_scale_and_results_their_zero_line(df, plt):
    won = A.expected_payment(df, by=["role", "streak"], value="won")
    ax = A.plot_expected_payment(won[won["hands"] >= 50], x="streak")
    assert ax.get_ylim()[0] > 0.05 and not _zero_lines(ax)  # was stretched down to 0, flattening the gap
    assert ax.get_ylabel() == "win rate per hand"
    ax = A.plot_expected_payment(A.expected_payment(df))  # payments are positive: no zero line either
    assert ax.get_ylim()[0] > 0 and not _zero_lines(ax)
    assert _zero_lines(A.plot_expected_payment(A.expected_payment(df, by="role")))  # a result: its sign matters
    assert _zero_lines(A.plot_deal_value(A.deal_value(df)))


def _newcombe(ka, na, kb, nb):
    (la, ua), (lb, ub) = wilson_interval(ka, na), wilson_interval(kb, nb)
    pa, pb = ka / na, kb / nb
    d = pa - pb
    return d, d - math.sqrt((pa - la) ** 2 + (ub - pb) ** 2), d + math.sqrt((ua - pa) ** 2 + (pb - lb) ** 2)


def test_tai_distribution_plot_kinds(df, plt):
    small = df[df["match"] < 4]
    dist = A.tai_distribution(small, by="role")
    ax = A.plot_tai_distribution(dist, measure="hand_tai", kind="difference")
    (bars,) = [c for c in ax.containers]
    points = bars.lines[0]
    x, y = points.get_xdata(), points.get_ydata()
    part = dist[dist["measure"] == "hand_tai"]
    d, n = part[part["role"] == "dealer"], part[part["role"] == "non-dealer"]
    values = sorted(set(d["value"]) | set(n["value"]))
    assert list(x) == values and set(d["value"]) != set(n["value"])  # some values occur in one group only
    na, nb = int(d["wins"].iloc[0]), int(n["wins"].iloc[0])
    segments = bars.lines[2][0].get_segments()
    for v, yy, seg in zip(x, y, segments):
        ka = int(d.loc[d["value"] == v, "count"].sum())
        kb = int(n.loc[n["value"] == v, "count"].sum())
        diff, lo, hi = _newcombe(ka, na, kb, nb)
        assert yy == pytest.approx(diff) and sorted([seg[0][1], seg[1][1]]) == pytest.approx([lo, hi])
        assert lo <= yy <= hi
    assert _zero_lines(ax) and "dealer - non-dealer" in ax.get_ylabel()
    # B - A by choosing the order
    ax = A.plot_tai_distribution(dist, measure="hand_tai", kind="difference", groups=["non-dealer", "dealer"])
    assert ax.containers[0].lines[0].get_ydata() == pytest.approx(-y)
    # cdf: one step line per group, ending at 1, with its band
    ax = A.plot_tai_distribution(A.tai_distribution(df, by="role"), kind="cdf")
    assert _legend(ax) == ["dealer", "non-dealer"] and len(ax.lines) == 2 and len(ax.collections) == 2
    for line, role in zip(ax.lines, ("dealer", "non-dealer")):
        wins = df[(df["winner"] >= 0) & ((df["winner"] == df["dealer"]) == (role == "dealer"))]
        cum = wins["hand_tai"].value_counts().sort_index().cumsum() / len(wins)
        assert list(line.get_xdata()) == list(cum.index) and line.get_ydata() == pytest.approx(cum.to_numpy())
    # shares as before; max_value cuts the plot, not the shares
    ax = A.plot_tai_distribution(A.tai_distribution(df), kind="share", max_value=10)
    assert len(ax.patches) == int((A.tai_distribution(df, values="hand_tai")["value"] <= 10).sum())
    with pytest.raises(simkit.SimkitError, match="kind must be 'share', 'difference' or 'cdf', got 'bars'"):
        A.plot_tai_distribution(dist, kind="bars")
    with pytest.raises(simkit.SimkitError, match="compares two groups; the distribution has 1"):
        A.plot_tai_distribution(A.tai_distribution(df), kind="difference")
    with pytest.raises(simkit.SimkitError, match="no group 'banker'.*'dealer', 'non-dealer'"):
        A.plot_tai_distribution(dist, kind="difference", groups=["dealer", "banker"])


def test_every_title_fits_its_panel(df, dup, plt):
    fig, axes = plt.subplots(2, 3, figsize=(10, 7), layout="constrained")
    dist = A.tai_distribution(df, by="role")
    A.plot_tai_distribution(dist, ax=axes[0, 0])
    axes[0, 0].set_title("a title of the user's")  # kept as set: later helpers fit only their own titles
    A.plot_tai_distribution(dist, kind="difference", ax=axes[0, 1])
    A.plot_tai_distribution(dist, kind="cdf", ax=axes[0, 2])
    A.plot_expected_payment(A.expected_payment(df, by=["role", "streak"], value="won"), x="streak", ax=axes[1, 0])
    A.plot_deal_value(A.deal_value(df), ax=axes[1, 1])
    A.plot_item_frequencies(A.item_frequencies(df, by="role"), top=5, ax=axes[1, 2])
    cmp_fig, cmp_axes = plt.subplots(1, 2, figsize=(7, 3.5), layout="constrained")
    A.plot_comparison(A.compare(dup), axes=cmp_axes)
    for figure in (fig, cmp_fig):
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        for ax in figure.axes:
            title, panel = ax.title.get_window_extent(renderer), ax.get_window_extent(renderer)
            assert panel.x0 - 2 <= title.x0 and title.x1 <= panel.x1 + 2, ax.get_title()
            assert title.y1 <= figure.bbox.y1 + 1, ax.get_title()
    assert "\n" in axes[0, 1].get_title()  # the long one was wrapped
    assert axes[0, 0].get_title() == "a title of the user's"


def test_every_plot_helper_draws_zero_counts(df, dup, plt):
    drawn = df.copy()
    drawn["winner"] = -1  # every hand an exhaustive draw: no win, no item scored
    for col in [c for c in df.columns if c.startswith("item_")]:
        drawn[col] = 0
    dist = A.tai_distribution(drawn, by="role")
    assert len(dist) == 0
    for kind in ("share", "cdf"):
        ax = A.plot_tai_distribution(dist, kind=kind)
        assert "0 wins" in ax.get_title()
    with pytest.raises(simkit.SimkitError, match="the distribution has 0"):
        A.plot_tai_distribution(dist, kind="difference")
    ax = A.plot_item_frequencies(A.item_frequencies(drawn, by="policy"), per="hand")
    assert "none scored" in ax.get_title() and not ax.patches
    ax = A.plot_expected_payment(A.expected_payment(drawn, by="role", value="won"))
    assert ax.lines[0].get_ydata() == pytest.approx([0.0, 0.0])
    A.plot_deal_value(A.deal_value(drawn))
    A.plot_expected_payment(A.expected_payment(drawn.iloc[:0]))  # no rows at all
    # a comparison in which nothing differs: every deal 0, a zero-width interval, no variance reduction
    import dataclasses

    cmp = A.compare(dup)
    same = dataclasses.replace(
        cmp,
        deals=cmp.deals.assign(difference=0.0),
        per_hand=(0.0, 0.0, 0.0),
        per_hand_unpaired=(0.0, 0.0, 0.0),
        per_hand_variance_reduction=float("nan"),
    )
    h, e = A.plot_comparison(same)
    assert sum(p.get_height() for p in h.patches) == len(cmp.deals) and "nan" in e.get_title()
    # one group with a zero count at a value the other has: an interval, never a negative error bar
    one = A.tai_distribution(df[df["match"] < 2], by="role")
    ax = A.plot_tai_distribution(one, kind="difference")
    for seg, y in zip(ax.containers[0].lines[2][0].get_segments(), ax.containers[0].lines[0].get_ydata()):
        assert min(seg[0][1], seg[1][1]) <= y <= max(seg[0][1], seg[1][1])
    ax.figure.canvas.draw()


# ---------------------------------------------------------------------------------------------
# the match bootstrap


def _synthetic_duplicate(matches=400, seed=0, tail=None):
    """A duplicate run's columns as compare reads them: ``matches`` matches of 10-30 hands in both
    copies, policies (a, b) then (b, a), a's result per hand normal with mean 1 (or Student t with
    ``tail`` degrees of freedom), zero-sum."""
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(matches):
        hands = int(rng.integers(10, 31))
        for copy in (0, 1):
            x = rng.standard_t(tail, hands) * 5 + 1 if tail else rng.normal(1.0, 5.0, hands)
            a_seat = copy  # a is player 0 in copy 0, player 1 in copy 1
            for h in range(hands):
                s0 = x[h] if a_seat == 0 else -x[h]
                rows.append((m * 100 + h, copy, 1, m, h, h % 2, *(("a", "b") if copy == 0 else ("b", "a")), s0, -s0))
    columns = ["deal_id", "copy", "seed", "match", "hand", "dealer", "policy_0", "policy_1", "score_0", "score_1"]
    return pd.DataFrame(rows, columns=columns)


def test_match_bootstrap_is_reproducible_and_agrees_with_the_clustered_interval_on_light_tails():
    rng = np.random.default_rng(5)
    counts = rng.integers(5, 40, 600).astype(float)
    sums = rng.normal(0.5, 3.0, 600) * np.sqrt(counts) + 0.5 * counts
    mean, low, high = A.clustered_mean(sums, counts)
    b = match_bootstrap(sums, counts, resamples=4000, seed=3)
    assert b == match_bootstrap(sums, counts, resamples=4000, seed=3)
    assert b != match_bootstrap(sums, counts, resamples=4000, seed=4)
    assert b[0] == pytest.approx(mean)
    half = (high - low) / 2
    assert abs(b[1] - low) < 0.1 * half and abs(b[2] - high) < 0.1 * half
    # a difference of two ratios over the same matches, and a mean per match
    other = sums[::-1].copy()
    d = match_bootstrap(sums, counts, minus=(other, counts), seed=1)
    assert d[0] == pytest.approx(sums.sum() / counts.sum() - other.sum() / counts.sum()) and d[1] < d[0] < d[2]
    per_match = match_bootstrap(sums, np.ones(600), seed=2)
    assert per_match[0] == pytest.approx(sums.mean()) and per_match[1] < sums.mean() < per_match[2]
    assert np.isnan(match_bootstrap([1.0], [2.0])[1])


@pytest.mark.parametrize(
    "kwargs,error,fragment",
    [
        (dict(resamples=10), simkit.errors.InputValueError, "resamples must be an integer from 100"),
        (dict(resamples=2.5e3), simkit.errors.InputTypeError, "resamples"),
        (dict(resamples=True), simkit.errors.InputTypeError, "resamples"),
        (dict(seed=-1), simkit.errors.InputValueError, "seed"),
        (dict(level=1.0), simkit.errors.InputValueError, "level"),
        (dict(level="0.95"), simkit.errors.InputValueError, "level"),
        (dict(sums=[1.0, np.nan]), simkit.errors.InputValueError, "finite"),
        (dict(counts=[1.0]), simkit.errors.InputValueError, "1-D arrays of one length"),
        (dict(counts=[0.0, 1.0]), simkit.errors.InputValueError, "at least 1"),
        (dict(minus=([1.0], [1.0])), simkit.errors.InputValueError, "pair them by match"),
        (dict(minus=[1.0, 2.0]), simkit.errors.InputValueError, "minus is a (sums, counts) pair"),
        (dict(sums=[], counts=[]), simkit.errors.InputValueError, "at least one match"),
    ],
)
def test_match_bootstrap_refuses_bad_arguments(kwargs, error, fragment):
    args = dict(sums=[1.0, 2.0], counts=[1.0, 1.0])
    args.update(kwargs)
    with pytest.raises(error, match=re.escape(fragment)) as info:
        match_bootstrap(args.pop("sums"), args.pop("counts"), **args)
    assert "\n" not in str(info.value)


def test_compare_bootstrap_interval_reproducible_and_close_to_the_clustered_on_light_tails():
    df = _synthetic_duplicate()
    clustered = A.compare(df)
    boot = A.compare(df, interval="bootstrap", resamples=3000, seed=7)
    again = A.compare(df, interval="bootstrap", resamples=3000, seed=7)
    assert (again.per_hand, again.per_match) == (boot.per_hand, boot.per_match)
    assert boot.per_hand != A.compare(df, interval="bootstrap", resamples=3000, seed=8).per_hand
    assert (boot.interval, boot.resamples, boot.seed) == ("bootstrap", 3000, 7) and clustered.interval == "clustered"
    for name in ("per_hand", "per_match"):
        c, b = getattr(clustered, name), getattr(boot, name)
        half = (c[2] - c[1]) / 2
        assert b[0] == pytest.approx(c[0]) and abs(b[1] - c[1]) < 0.1 * half and abs(b[2] - c[2]) < 0.1 * half, name
    assert boot.per_hand_unpaired == clustered.per_hand_unpaired  # the others stay clustered
    assert "percentile bootstrap over matches, 3,000 resamples, seed 7" in boot.table()
    assert "paired, bootstrap" in boot.frame()["estimate"].iloc[0]


@pytest.mark.parametrize(
    "kwargs,fragment",
    [
        (dict(interval="bca"), "interval is one of 'clustered', 'bootstrap'"),
        (dict(interval=None), "interval is one of"),
        (dict(interval="bootstrap", resamples=5), "resamples must be an integer from 100"),
        (dict(interval="bootstrap", seed=-3), "seed must be an integer from 0"),
        (dict(interval="bootstrap", seed=1.5), "seed must be an integer"),
    ],
)
def test_compare_refuses_bad_bootstrap_arguments(kwargs, fragment):
    with pytest.raises(simkit.SimkitError, match=re.escape(fragment)) as info:
        A.compare(_synthetic_duplicate(matches=5), **kwargs)
    assert "\n" not in str(info.value)


def test_compare_command_bootstrap_flags(dup_dir, capsys):
    from simkit.cli import main

    argv = ["compare", str(dup_dir), "--interval", "bootstrap", "--resamples", "500", "--seed", "3"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert "percentile bootstrap over matches, 500 resamples, seed 3" in first
    assert main(argv) == 0 and capsys.readouterr().out == first
    assert main(["compare", str(dup_dir), "--interval", "bootstrap", "--resamples", "5"]) == 2
    assert "resamples must be an integer from 100" in capsys.readouterr().err
