"""Progress in a log: simulate is never silent until its last line when stderr is not a terminal
(a long run under nohup, its stderr in a file, prints progress lines as it goes)."""

from __future__ import annotations

import io

import pytest

import simkit
from simkit import progress


def test_log_progress_writes_a_line_per_interval_and_one_at_the_end():
    out = io.StringIO()
    p = progress.LogProgress(4000, unit="hand", desc="simulate", file=out, interval=0)
    p.update(1000)
    p.total = 5000  # the simulate target in matches re-estimates the total as rows arrive
    p.update(1500)
    p.close()
    p.close()  # once
    lines = out.getvalue().splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("simulate: 1,000 / 4,000 hands (25%), ") and "hands/s, about " in lines[0]
    assert lines[1].startswith("simulate: 2,500 / 5,000 hands (50%)")
    assert lines[2].startswith("simulate: 2,500 / 5,000 hands (50%)") and ", done in " in lines[2]


def test_a_long_interval_prints_only_the_last_line():
    out = io.StringIO()
    with progress.LogProgress(None, file=out, interval=3600) as p:
        for _ in range(100):
            p.update(10)
    (line,) = out.getvalue().splitlines()
    assert line.startswith("simulate: 1,000 hands, ") and "done in" in line


def test_the_display_follows_where_it_is_shown():
    out = io.StringIO()
    assert isinstance(progress.progress_bar(10, enabled=True, file=out), progress.LogProgress)  # not a terminal
    silent = progress.progress_bar(10, enabled=False, file=out)
    silent.update(5)
    silent.close()
    assert out.getvalue() == "" and not progress._in_notebook()


def test_simulate_reports_progress_in_a_log(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)
    simkit.simulate(tmp_path / "run", matches=1200, seed=3, progress=True)  # three engine batches
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("simulate: ")]
    assert len(lines) >= 3 and "done in" in lines[-1]
    assert f"{simkit.datasets.open_run(tmp_path / 'run').rows:,}" in lines[-1]
    simkit.simulate(tmp_path / "quiet", matches=10, seed=3, progress=False)
    assert "simulate: " not in capsys.readouterr().err


@pytest.mark.parametrize("seconds,text", [(5, "5 s"), (75, "1 min 15 s"), (3 * 3600 + 120, "3 h 2 min")])
def test_durations_read_naturally(seconds, text):
    assert progress._duration(seconds) == text


def test_simulate_shows_progress_in_a_jupyter_kernel(tmp_path):
    """In a notebook stderr is not a terminal (tqdm's default would hide the bar): the bar shows."""
    import nbclient
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            f"import simkit\nr = simkit.simulate({str(tmp_path / 'run')!r}, matches=600, seed=1, progress=True)\nprint(r.rows)"
        )
    ]
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=600).execute()
    err = "".join(o.get("text", "") for o in nb.cells[0].outputs if o.get("name") == "stderr")
    out = "".join(o.get("text", "") for o in nb.cells[0].outputs if o.get("name") == "stdout")
    rows = int(out.split()[-1])
    assert "simulate: 100%" in err and f"{rows / 1000:.1f}k/{rows / 1000:.1f}k" in err


def test_the_start_up_message_says_how_long_the_last_compile_took(tmp_path, monkeypatch):
    from simkit.engine import compiled

    monkeypatch.setattr(compiled, "cache_root", lambda: tmp_path)
    assert compiled.start_up_message("duel").startswith("compiling the duel engine (numba compiles it once")
    compiled.record_start_up("duel", 1.2)  # a load from the cache: nothing to keep
    assert not (tmp_path / "start_up.json").exists()
    compiled.record_start_up("duel", 47.3)
    assert (
        compiled.start_up_message("duel")
        == "loading the duel engine from the cache (compiling it took 47 s on this machine)..."
    )
    monkeypatch.setattr(compiled, "source_hash", lambda: "another version of simkit")
    assert compiled.start_up_message("duel") == (
        "compiling the duel engine: simkit changed since its last compile, which took 47 s on this machine..."
    )
    assert compiled.start_up_message("douque").startswith("compiling the douque engine (")


def test_simulate_says_what_its_start_up_does(tmp_path, capsys):
    simkit.simulate(tmp_path / "run", matches=5, seed=1, progress=True)
    err = capsys.readouterr().err
    assert "simkit simulate: compiling the douque engine" in err or "simkit simulate: loading the douque engine" in err
