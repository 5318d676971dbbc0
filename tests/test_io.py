"""simkit.datasets and simkit.analysis: schema, notation columns, shard files, manifests, summaries."""

from __future__ import annotations

import json
import math

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import simkit
from simkit import datasets
from simkit.analysis import clustered_mean
from simkit.melds import MELD_TYPES
from simkit.play.matches import simulate_matches
from simkit.tiles import format_tiles


@pytest.fixture(scope="module")
def rules():
    return simkit.get_rules("douque")


@pytest.fixture(scope="module")
def engine_rows():
    return simulate_matches("douque", ("greedy", "greedy"), 40, seed=11)


def test_schema_declares_every_column_once_with_the_rule_sets_items(rules):
    items = datasets.item_names(rules)
    assert items == simkit.scoring.ITEM_NAMES
    schema = datasets.dataset_schema(items)
    assert len(set(schema.names)) == len(schema.names)
    assert [n for n in schema.names if n.startswith("item_")] == [f"item_{i}" for i in items]
    for name in (
        "deal_id",
        "copy",
        "seed",
        "match",
        "hand",
        "policy_0",
        "policy_1",
        "win_type",
        "win_tile",
        "win_hand",
        "win_melds",
        "hand_tai",
        "dealer_tai",
        "payment_tai",
        "points",
        "score_0",
        "score_1",
    ):
        assert name in schema.names
    assert all(f.metadata and f.metadata[b"doc"] for f in schema)


def test_rule_set_without_a_scoring_table_is_a_clear_error():
    class Fake:
        name = "no_such_rules"

    with pytest.raises(simkit.SimkitError, match="no scoring table"):
        datasets.item_names(Fake())


def test_rows_to_batch_columns(rules, engine_rows):
    res = engine_rows
    schema = datasets.schema_for(rules, res)
    base = datasets.dataset_schema(datasets.item_names(rules)).names
    assert schema.names[: len(base)] == base  # then any further engine columns
    batch = datasets.rows_to_batch(res, schema, seed=11, copy=0, policy_labels=("greedy", "greedy"), rules=rules)
    assert batch.schema.equals(schema) and batch.num_rows == len(res["match"])
    df = batch.to_pandas()
    won = res["winner"] >= 0
    assert (df["winner"].to_numpy() == res["winner"]).all()
    assert list(df["win_type"].cat.categories) == list(datasets.WIN_TYPES)
    assert (df["win_type"].cat.codes.to_numpy() == res["win_type"]).all()
    assert df["win_tile"].isna().to_numpy().tolist() == (~won).tolist()
    assert df.loc[won, "win_tile"].tolist() == [simkit.tile_name(int(k)) for k in res["win_tile"][won]]
    assert (df["deal_id"].to_numpy() == (res["match"] << 16 | res["hand"])).all()
    assert (df["score_0"] + df["score_1"] == 0).all() and not np.signbit(df["score_1"][~won]).any()
    opts = rules.options
    expect_tai = np.where(won, opts.base / opts.tai_value + res["hand_tai"] + res["dealer_tai"], 0.0)
    assert np.allclose(df["payment_tai"], expect_tai) and np.allclose(
        df["payment_tai"] * opts.tai_value, df["points"].where(won, 0.0)
    )
    for j, name in enumerate(datasets.item_names(rules)):
        assert (df[f"item_{name}"].to_numpy() == res["items"][:, j]).all()
    assert set(df["seat_wind_0"]) | set(df["seat_wind_1"]) <= {"E", "W"}
    assert (df["seat_wind_0"].astype(str) != df["seat_wind_1"].astype(str)).all()


def test_winner_notation_columns_round_trip(rules, engine_rows):
    res = engine_rows
    if "win_hand" not in res:
        pytest.skip("this engine does not report the winner's tiles yet")
    schema = datasets.schema_for(rules, res)
    df = datasets.rows_to_batch(
        res, schema, seed=11, copy=0, policy_labels=("greedy", "greedy"), rules=rules
    ).to_pandas()
    won = res["winner"] >= 0
    assert df["win_hand"].isna().tolist() == (~won).tolist() and df["win_melds"].isna().tolist() == (~won).tolist()
    for i in np.flatnonzero(won):
        assert (simkit.parse_tiles(df["win_hand"][i]) == res["win_hand"][i]).all()
        melds = simkit.parse_melds(df["win_melds"][i])
        expect = [(int(c), int(k)) for c, k in res["win_melds"][i] if c >= 0]
        assert [(m.code, m.kind) for m in melds] == expect


def test_winner_policy_is_the_label_of_the_winners_seat(rules, engine_rows):
    res = engine_rows
    schema = datasets.schema_for(rules, res)
    assert schema.field("winner_policy").nullable and not schema.field("winner").nullable
    df = datasets.rows_to_batch(res, schema, seed=11, copy=0, policy_labels=("bold", "calm"), rules=rules).to_pandas()
    won = res["winner"] >= 0
    assert won.any() and (~won).any()  # both kinds of row
    expect = np.where(res["winner"] == 1, df["policy_1"].astype(str), df["policy_0"].astype(str))
    assert df["winner_policy"].isna().tolist() == (~won).tolist()
    assert (df.loc[won, "winner_policy"].astype(str).to_numpy() == expect[won]).all()
    assert set(df.loc[won, "winner_policy"].astype(str)) == {"bold", "calm"}


def test_winner_policy_in_a_duplicate_run_and_a_run_begun_without_it(tmp_path, monkeypatch):
    """Both copies name the winner's policy, whichever seat it plays; a run whose first shards lack
    the column (written by an earlier version) is resumed without it, and reads as it is."""
    run = simkit.simulate(tmp_path / "dup", policies=("greedy", "random"), matches=3, seed=2, duplicate=True)
    df = simkit.analysis.load(run.path)
    won = df["winner"] >= 0
    seat = np.where(df["winner"] == 1, df["policy_1"].astype(str), df["policy_0"].astype(str))
    assert (df.loc[won, "winner_policy"].astype(str).to_numpy() == seat[won]).all()
    assert df.loc[~won, "winner_policy"].isna().all()
    assert set(df.loc[won & (df["copy"] == 1), "winner_policy"].astype(str)) <= {"greedy", "random"}
    old = tmp_path / "old"
    without = tuple(c for c in datasets.COLUMNS if c[0] != "winner_policy")
    monkeypatch.setattr(datasets.schema, "COLUMNS", without)
    simkit.simulate(old, policies=("greedy", "greedy"), matches=4, seed=3, chunk_matches=2)
    monkeypatch.undo()
    manifest = datasets.read_manifest(old)
    manifest["shards"] = manifest["shards"][:1]  # as if interrupted after the first shard
    manifest["status"] = "running"
    (old / datasets.MANIFEST).write_text(json.dumps(manifest))
    (old / datasets.shard_name(1)).unlink()
    resumed = simkit.simulate(old, resume=True)
    assert resumed.computed_chunks == 1
    names = [pq.read_schema(old / datasets.shard_name(c)).names for c in (0, 1)]
    assert names[0] == names[1] and "winner_policy" not in names[0]
    assert "winner_policy" not in simkit.analysis.load(old).columns


def test_writer_kernels_lists_the_signature_format_wins_compiles():
    """``datasets.writer_kernels()`` (what ``simkit simulate`` compiles during a cold start's wait for the
    helper) names the notation kernel with exactly the argument types a run's ``format_wins`` call
    gives it, so that compile is the one the run uses."""
    from simkit.datasets import writer_kernels
    from simkit.datasets.batches import _format_wins_kernel

    ((name, kernel, signature),) = writer_kernels()
    assert name == "format_wins" and kernel is _format_wins_kernel
    hands = np.zeros((3, 34), np.uint8)
    hands[0, :14] = 1
    datasets.format_wins(np.array([True, False, True]), hands, np.full((3, 4, 2), -1, np.int8))
    assert signature in [tuple(s) for s in _format_wins_kernel.signatures]


def test_notation_kernel_matches_the_python_formatter():
    rng = np.random.default_rng(3)
    n = 300
    hands = (rng.integers(0, 5, (n, 34)) * (rng.random((n, 34)) < 0.2)).astype(np.uint8)
    melds = np.full((n, 4, 2), -1, np.int8)
    for i in range(n):
        for j in range(rng.integers(0, 5)):
            code = int(rng.integers(0, len(MELD_TYPES)))
            kind = int(rng.integers(0, 7)) if code == 4 else int(rng.integers(0, 34))
            melds[i, j] = code, kind
    won = rng.random(n) < 0.8
    hand_text, meld_text = (a.to_pylist() for a in datasets.format_wins(won, hands, melds))
    sizes = (3, 4, 4, 4, 3)
    for i in range(n):
        if not won[i]:
            assert hand_text[i] is None and meld_text[i] is None
            continue
        assert hand_text[i] == format_tiles(hands[i])
        parts = []
        for code, kind in melds[i]:
            if code < 0:
                continue
            kinds = [kind + t for t in range(3)] if code == 4 else [kind] * sizes[code]
            parts.append(f"{MELD_TYPES[code]} {simkit.tiles.format_tile_list(kinds)}")
        assert meld_text[i] == ", ".join(parts)


def test_notation_input_is_checked():
    with pytest.raises(simkit.SimkitError, match="0-4"):
        datasets.format_wins(np.ones(1, bool), np.full((1, 34), 5, np.uint8), np.full((1, 4, 2), -1, np.int8))


def test_shards_are_hidden_until_committed(tmp_path):
    table = pa.table({"x": pa.array([1, 2, 3], pa.int64())})
    spec = {"run": 1}
    tmp = datasets.write_shard(tmp_path, 4, table, {"spec": spec, "chunk": 4, "rows": 3})
    assert tmp.name.startswith(".") and tmp.name.endswith(".tmp")
    assert datasets.completed_chunks(tmp_path, spec) == {}
    final = datasets.commit_shard(tmp, tmp_path, 4)
    assert final.name == datasets.shard_name(4) == "part-000004.parquet" and not tmp.exists()
    assert datasets.completed_chunks(tmp_path, spec) == {4: {"spec": spec, "chunk": 4, "rows": 3}}
    assert pq.read_table(final).column("x").to_pylist() == [1, 2, 3]
    with pytest.raises(datasets.DatasetError, match="not written by this run"):
        datasets.completed_chunks(tmp_path, {"run": 2})
    datasets.write_shard(tmp_path, 5, table, {})  # a killed run's leftover
    assert datasets.clean_temporary(tmp_path) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["part-000004.parquet"]


def test_manifest_and_not_a_dataset(tmp_path):
    with pytest.raises(datasets.DatasetError, match="no such directory"):
        datasets.read_manifest(tmp_path / "missing")
    (tmp_path / "file").write_text("x")
    with pytest.raises(datasets.DatasetError, match="is a file"):
        datasets.read_manifest(tmp_path / "file")
    with pytest.raises(datasets.DatasetError, match="not a simkit dataset"):
        datasets.read_manifest(tmp_path)
    (tmp_path / datasets.MANIFEST).write_text(json.dumps({"format": "other"}))
    with pytest.raises(datasets.DatasetError, match="not a simkit dataset"):
        datasets.open_run(tmp_path)
    datasets.write_manifest(tmp_path, {"format": datasets.FORMAT, "spec": {}})
    with pytest.raises(datasets.DatasetError, match="not a simkit dataset: its _simkit.json has no valid spec.rules"):
        datasets.read_manifest(tmp_path)
    datasets.write_manifest(tmp_path, {"format": datasets.FORMAT, "status": "running"})
    with pytest.raises(datasets.DatasetError, match="has no spec"):
        datasets.open_run(tmp_path)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_run_lock_is_exclusive(tmp_path):
    with datasets.run_lock(tmp_path):
        with pytest.raises(simkit.SimkitError, match="another simkit process"):
            with datasets.run_lock(tmp_path):
                pass
    with datasets.run_lock(tmp_path):  # released
        pass


def test_clustered_mean_against_a_direct_computation():
    rng = np.random.default_rng(0)
    counts = rng.integers(5, 20, 200)
    values = [rng.normal(3.0, 2.0, c) + rng.normal() for c in counts]
    sums = np.array([v.sum() for v in values])
    mean, lo, hi = clustered_mean(sums, counts)
    allv = np.concatenate(values)
    assert math.isclose(mean, allv.mean())
    g = len(counts)
    se = math.sqrt(g / (g - 1) * sum((s - mean * c) ** 2 for s, c in zip(sums, counts))) / counts.sum()
    assert math.isclose(hi - mean, 1.959963984540054 * se) and math.isclose(mean - lo, hi - mean)
    assert math.isnan(clustered_mean([1.0], [2])[1])


@pytest.mark.parametrize("n", [0, 1, 4095, 4096, 4097, 10_001])
def test_numeric_columns_gather_equals_numpy_astype(n):
    """datasets.batches._numeric_columns (blocks of rows on all threads) gives each column as numpy's astype does."""
    rng = np.random.default_rng(n)
    ints = rng.integers(-300, 300, size=(n, 7)).astype(np.int64)
    floats = rng.normal(size=(n, 3))
    wanted = [
        (f"i{j}", ints[:, j], dt)
        for j, dt in enumerate([np.int8, np.int16, np.int64, np.int8, np.int32, np.int16, np.int64])
    ]
    wanted += [(f"f{j}", floats[:, j], np.float64) for j in range(3)]
    wanted.append(("copy", ints[:, 2].copy(), np.int16))  # not a view of a matrix: cast as it is
    out = datasets.batches._numeric_columns(wanted)
    for name, a, dtype in wanted:
        assert out[name].dtype == np.dtype(dtype) and out[name].flags.c_contiguous
        assert np.array_equal(out[name], a.astype(dtype)), name


def test_rules_from_a_record_made_before_an_option_existed():
    """A for_two record without ``fold_passes_deal`` (written before the option existed) was played
    with the banker keeping the deal after a fold: its record reads so, not as the default."""
    from simkit.datasets import rules_from_dict

    old = {
        "name": "for_two",
        "options": {
            "stake": 1,
            "combination_points": [5, 4, 3, 2, 1],
            "self_drawn_multiplier": 2,
            "fold_payment": 1,
            "match_hands": 16,
        },
    }
    assert rules_from_dict(old).options.fold_passes_deal is False
    assert simkit.get_rules("for_two").options.fold_passes_deal is True
    for value in (True, False):
        record = simkit.get_rules("for_two", fold_passes_deal=value).to_dict()
        assert rules_from_dict(record).options.fold_passes_deal is value
    assert rules_from_dict(simkit.get_rules("duel", chips=3).to_dict()) == simkit.get_rules("duel", chips=3)
