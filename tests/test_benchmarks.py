"""benchmarks/: compare_results pairs two results by family, name and params (ratios, records of one
side only), and a cheap family run with ``--json`` writes the machine facts and its records. No
figure is asserted: speed is measured by the benchmarks, never by the tests."""

from __future__ import annotations

import importlib.util
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[1]


def _module(name):
    path = ROOT / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _record(family, name, value, unit="hands/s", **params):
    return {"family": family, "name": name, "value": value, "unit": unit, "n": 100, "repeat": 1, "params": params}


def test_compare_results_pairs_records_and_lists_one_sided_ones(tmp_path):
    machine = {"cores": 2, "arch": "x86_64", "numba_threads": 2, "versions": {"simkit": "0.1.0"}, "commit": "abc"}
    a = [
        _record("scoring", "scored winning hands/s", 200.0, rules="douque"),
        _record("scoring", "scored winning hands/s", 300.0, rules="duel"),
        _record("peers", "win check, kernel 1t", 30.0, unit="ns/hand/core", rules="for_two"),
        _record("vector", "agent steps/s", 5.0, opponent="greedy"),
    ]
    b = [
        _record("scoring", "scored winning hands/s", 150.0, rules="duel"),  # another order
        _record("scoring", "scored winning hands/s", 100.0, rules="douque"),
        _record("peers", "win check, kernel 1t", 40.0, unit="ns/hand/core", rules="for_two"),
        _record("vector", "agent steps/s", 4.0, opponent="none"),  # other params: not the same figure
        _record("rollouts", "rollouts/s", 7.0),
    ]
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps({"machine": machine, "records": a}))
    pb.write_text(json.dumps({"machine": machine, "records": b}))
    cr = _module("compare_results")
    out = io.StringIO()
    pairs, only_a, only_b = cr.compare(pa, pb, out=out)
    ratios = {(ra["name"], ra["params"].get("rules")): ra["value"] / rb["value"] for ra, rb in pairs}
    assert ratios == {
        ("scored winning hands/s", "douque"): 2.0,
        ("scored winning hands/s", "duel"): 2.0,
        ("win check, kernel 1t", "for_two"): 0.75,
    }
    assert [r["params"] for r in only_a] == [{"opponent": "greedy"}]
    assert [r["family"] for r in only_b] == ["vector", "rollouts"]
    text = out.getvalue()
    assert "2.000" in text and "0.750" in text
    assert "only in A:" in text and "only in B:" in text and "rollouts: rollouts/s" in text
    # the command line prints the same
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "compare_results.py"), str(pa), str(pb)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == text


def test_a_family_writes_its_figures_as_json(tmp_path):
    out = tmp_path / "scoring.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "scoring.py"), "--n", "200", "--repeat", "1", "--json", str(out)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        timeout=900,
    )
    assert "scored winning hands" in done.stdout
    result = json.loads(out.read_text())
    machine = result["machine"]
    for field in ("cores", "arch", "numba_threads", "versions", "command"):
        assert field in machine, field
    assert set(machine["versions"]) >= {"simkit", "numba", "numpy", "python"}
    assert "--json" in machine["command"]
    records = result["records"]
    assert records
    for record in records:
        assert set(record) == {"family", "name", "value", "unit", "n", "repeat", "params"}
        assert record["family"] == "scoring" and record["value"] > 0 and record["repeat"] == 1
    assert {r["params"]["rules"] for r in records} == {"douque", "night_market", "duel", "for_two"}


def test_render_figures_publishes_a_result_without_its_history():
    render = _module("render_figures")
    result = {
        "machine": {
            "cores": 2,
            "arch": "x86_64",
            "numba_threads": 2,
            "threading_layer": "omp",
            "versions": {"simkit": "0.1.0", "numba": "0.68.1", "numpy": "2.4", "python": "3.11.7"},
            "simkit_path": "/home/someone/simkit/simkit",
            "commit": "0123456789abcdef",
            "python": "/usr/bin/python3",
            "time": "2026-01-01T00:00:00+0000",
            "command": [
                "/usr/bin/python3",
                "/home/someone/simkit/benchmarks/run_all.py",
                "--compare-python",
                "/opt/old/bin/python",
                "--json",
                "/tmp/out/results.json",
            ],
        },
        "records": [
            _record("compare", "whole hands/s, this", 293638.4, rules="douque"),
            _record("compare", "whole hands/s, this / other", 1.017, unit="ratio", rules="douque"),
            _record("end_to_end", "Parquet share", 0.068, unit="fraction"),
        ],
    }
    published = render.published(result)
    text = json.dumps(published)
    for history in ("/home/someone", "0123456789abcdef", "2026-01-01", "/opt/old", "/tmp/out"):
        assert history not in text
    assert published["machine"]["command"] == [
        "python3",
        "benchmarks/run_all.py",
        "--compare-python",
        "PY",
        "--json",
        "results.json",
    ]
    block = render.render(published)
    assert "python3 benchmarks/run_all.py --compare-python PY --json results.json" in block
    assert "| whole hands/s, this | rules=douque | 293.64 k | hands/s |" in block
    assert "| whole hands/s, this / other | rules=douque | 1.017 | ratio |" in block
    assert "| Parquet share | - | 6.8% | fraction |" in block
    page = f"intro\n{render.START}\nold figures\n{render.END}\nafter\n"
    assert render.replace_block(page, block) == f"intro\n{render.START}\n\n{block}\n{render.END}\nafter\n"


def test_an_update_replaces_the_families_it_measured_and_says_how():
    render = _module("render_figures")
    facts = {"cores": 2, "arch": "x86_64", "numba_threads": 2, "versions": {"simkit": "0.1.0"}}
    data = render.published(
        {
            "machine": {**facts, "command": ["python3", "benchmarks/run_all.py"]},
            "records": [
                _record("kernels", "shanten", 1.0),
                _record("decisions", "decision log cost, engine", 0.9, unit="fraction"),
                _record("peers", "win check", 2.0),
            ],
        }
    )
    result = {
        "machine": {**facts, "command": ["/usr/bin/python3", "/x/scripts/bench.py", "--only", "decisions"]},
        "records": [
            _record("decisions", "decision log cost, engine", 0.2, unit="fraction"),
            _record("decisions", "observation log cost, engine", 0.5, unit="fraction"),
        ],
    }
    new = render.updated(data, result)
    assert [(r["family"], r["value"]) for r in new["records"]] == [
        ("kernels", 1.0),
        ("decisions", 0.2),
        ("decisions", 0.5),
        ("peers", 2.0),
    ]
    assert new["machine"] == data["machine"] and render.published(new) == new
    assert new["updates"] == [
        {"families": ["decisions"], **facts, "command": ["python3", "scripts/bench.py", "--only", "decisions"]}
    ]
    block = render.render(new)
    assert (
        "The decisions figures: measured again on 2 cores" in block
        and "python3 scripts/bench.py --only decisions" in block
    )
    assert render.updated(new, result)["updates"] == new["updates"]  # measured again: noted once


def test_the_performance_page_shows_the_figures_of_its_data_file():
    """docs/performance.md's figures are exactly the tables of docs/performance.json, a run's
    published result: the page shows what a benchmark run measured, nothing typed by hand."""
    render = _module("render_figures")
    page = (ROOT / "docs" / "performance.md").read_text()
    data = json.loads((ROOT / "docs" / "performance.json").read_text())
    assert render.replace_block(page, render.render(data)) == page
    assert render.published(data) == data  # nothing of the run's history is in it
