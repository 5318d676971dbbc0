"""``simkit tournament``: the ratings and matrices of a round robin, runs reused on a second call, JSON,
the figures, and one-line errors."""

from __future__ import annotations

import json

import pytest

from simkit.cli import main


def test_tournament_prints_ratings_and_matrices_and_reuses_its_runs(tmp_path, capsys):
    argv = ["tournament", "--policies", "greedy,random", "--rules", "douque", "--matches", "4"]
    argv += ["--out", str(tmp_path / "runs"), "--n-boot", "200"]
    assert main(argv + ["--figure", str(tmp_path / "ratings.png"), "--heat-map", str(tmp_path / "heat.png")]) == 0
    out = capsys.readouterr().out
    assert "douque: row - column, points per hand" in out and "ratings: luck-corrected" in out
    lines = out.splitlines()
    first = lines.index(next(x for x in lines if x.startswith("ratings:"))) + 1
    assert lines[first].split()[:2] == ["1", "greedy"] and lines[first + 1].split()[:2] == ["2", "random"]
    assert (tmp_path / "ratings.png").stat().st_size > 0 and (tmp_path / "heat.png").stat().st_size > 0
    shards = {p: p.stat().st_mtime_ns for p in (tmp_path / "runs").rglob("*.parquet")}
    assert len(shards) >= 1
    assert main(argv + ["--json", "--no-correct-luck"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {p: p.stat().st_mtime_ns for p in (tmp_path / "runs").rglob("*.parquet")} == shards  # reused
    assert doc["policies"] == ["greedy", "random"] and doc["ratings"]["correct_luck"] is False
    table = doc["ratings"]["table"]
    assert [r["policy"] for r in table] == ["greedy", "random"]
    pair = next(p for p in doc["pairs"] if p["policy"] == "greedy")
    assert table[0]["rating"] == pytest.approx(pair["mean"] / 2)  # two policies: half the difference
    assert doc["ratings"]["units"] == {"douque": "points per hand"}


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--policies", "greedy"], "at least two policies"),
        (["--policies", "greedy,,random"], "expected policies separated by commas"),
        (["--rules", "douque,nonesuch"], "nonesuch"),
        (["--rules", "douque,"], "expected names separated by commas"),
        (["--matches", "0"], "positive integer"),
    ],
)
def test_tournament_errors_are_one_line(tmp_path, capsys, argv, words):
    try:
        code = main(["tournament", "--out", str(tmp_path), *argv])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("simkit: error:") and words in err and err.count("\n") == 1
