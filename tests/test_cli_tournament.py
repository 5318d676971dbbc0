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


def _figure_cases(tmp_path):
    (tmp_path / "a_file").write_text("mine")
    (tmp_path / "a_dir").mkdir()
    return [
        (["--figure", "/proc/ratings.png"], "cannot write in /proc"),
        (["--heat-map", str(tmp_path / "a_file" / "heat.png")], "is not a directory"),
        (["--figure", str(tmp_path / "a_dir")], "is a directory"),
        (["--figure", str(tmp_path / "ratings")], "does not end in a figure format"),
        (["--figure", ""], "an empty path"),
        (["--heat-map", str(tmp_path / "nowhere" / "heat.png")], "does not exist"),
    ]


@pytest.mark.parametrize("case", range(6))
def test_figure_paths_are_checked_before_any_game_is_played(tmp_path, capsys, case):
    argv, words = _figure_cases(tmp_path)[case]
    runs = tmp_path / "runs"
    code = main(
        ["tournament", "--policies", "greedy,random", "--rules", "douque", "--matches", "2"]
        + argv
        + ["--out", str(runs), "--quiet"]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("simkit: error:") and words in err and err.count("\n") == 1, err
    assert not runs.exists()  # refused before the first run
    assert (tmp_path / "a_file").read_text() == "mine" and not (tmp_path / "ratings.png").exists()


@pytest.mark.parametrize(
    "argv, terminal, shown",
    [([], True, True), ([], False, False), (["--quiet"], True, False), (["--progress"], False, True)],
)
def test_tournament_progress_is_on_by_default_on_a_terminal(monkeypatch, tmp_path, argv, terminal, shown):
    """tqdm's convention: progress on a terminal unless --quiet; in a log only with --progress."""
    import simkit.cli as cli

    seen = {}

    class Stop(Exception):
        pass

    def fake_round_robin(*args, progress, **kwargs):
        seen["progress"] = progress
        raise Stop

    monkeypatch.setattr(cli, "round_robin", fake_round_robin)
    monkeypatch.setattr(cli.sys.stderr, "isatty", lambda: terminal, raising=False)
    with pytest.raises(Stop):
        cli.main(["tournament", "--policies", "greedy,random", "--out", str(tmp_path), *argv])
    assert seen["progress"] is shown
