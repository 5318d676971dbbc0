"""docs/strength.md shows exactly the results in docs/strength.json (examples/strength.py renders
them), with the command that produced them and its figure."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _strength():
    spec = importlib.util.spec_from_file_location("strength_example", ROOT / "examples" / "strength.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_shows_the_published_results():
    strength = _strength()
    results = json.loads((ROOT / "docs" / "strength.json").read_text())
    page = (ROOT / "docs" / "strength.md").read_text()
    assert strength.replace_block(page, results) == page
    assert results["command"].startswith("python3 examples/strength.py")
    assert (ROOT / "docs" / "figures" / "strength.png").stat().st_size > 10_000
    rule_sets = {r["rules"] for r in results["bounds"]}
    assert rule_sets == {"douque", "night_market", "duel", "for_two"}
    assert {r["target"] for r in results["bounds"]} == {"random", "greedy", "value"}


def test_replace_block_needs_its_markers():
    strength = _strength()
    results = {"bounds": [], "budgets": [], "search": [], "threads": 2, "command": "x"}
    try:
        strength.replace_block("no markers", results)
    except ValueError as exc:
        assert "block" in str(exc)
    else:
        raise AssertionError("a page without markers was accepted")
