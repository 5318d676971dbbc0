"""The notebooks in notebooks/ run top to bottom (nbclient, a fresh python3 kernel) at reduced size.

Each notebook's parameter cell (tagged ``parameters``) is followed by an injected cell that shrinks
the run and sends the figures to a temporary directory; any cell that raises fails the test.
``tai_distribution`` reads the sample dataset and ``exact_vs_simulated`` uses the hand kernels the
suite has already compiled (about 10 s each); ``strategy_comparison`` compiles the engine once for
its user-written policy, which numba cannot cache (defined in the notebook; both seatings share the
one engine): about 30 s; ``discard_advisor`` runs rollouts at 300 continuations per action.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(ROOT / "scripts"))

pytest.importorskip("nbclient")
pytest.importorskip("nbformat")

from run_notebooks import execute  # noqa: E402

SMALL = {
    "tai_distribution": {"N_MATCHES": "300"},
    "exact_vs_simulated": {"N_HANDS": "400_000", "CHUNK": "100_000"},
    "strategy_comparison": {"N_MATCHES": "40"},
    "discard_advisor": {"N": "300"},
    "strategy_tournament": {"N_MATCHES": "30"},
}
FIGURES = {
    "tai_distribution": ["tai_distribution.png", "tai_by_role.png", "item_frequencies.png", "dealer_value.png"],
    "exact_vs_simulated": ["exact_vs_simulated.png"],
    "strategy_comparison": ["strategy_comparison.png", "strategy_items.png"],
    "discard_advisor": ["discard_advisor.png", "discard_advisor_policies.png"],
    "strategy_tournament": ["strategy_tournament.png", "strategy_tournament_items.png"],
}


def test_every_notebook_is_covered_and_has_one_parameter_cell():
    names = sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))
    assert names == sorted(SMALL)
    for name in names:
        nb = json.loads((NOTEBOOKS / f"{name}.ipynb").read_text())
        tagged = [c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", [])]
        assert len(tagged) == 1, name
        source = "".join(tagged[0]["source"])
        assert all(f"{k} = " in source for k in SMALL[name]), name
        assert (NOTEBOOKS / "figures").is_dir()
        for fig in FIGURES[name]:
            assert (NOTEBOOKS / "figures" / fig).is_file(), fig


def _run(name, tmp_path):
    params = dict(SMALL[name], FIGURES=repr(str(tmp_path / "figures")), RUNS=repr(str(tmp_path / "runs")))
    nb = execute(NOTEBOOKS / f"{name}.ipynb", params, timeout=600)
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"
    ]
    assert not errors
    for fig in FIGURES[name]:
        assert (tmp_path / "figures" / fig).stat().st_size > 5000, fig
    return nb


def _text(nb) -> str:
    out = []
    for c in nb.cells:
        for o in c.get("outputs", []):
            out.append(o.get("text", "") + str(o.get("data", {}).get("text/plain", "")))
    return "\n".join(out)


def test_tai_distribution_notebook(tmp_path):
    nb = _run("tai_distribution", tmp_path)
    text = _text(nb)
    assert "the dealer seat is worth" in text and "and a whole tenure (from streak 0" in text


def test_exact_vs_simulated_notebook(tmp_path):
    nb = _run("exact_vs_simulated", tmp_path)
    text = _text(nb)
    assert "400,000 hands" in text and "non-dealer's 13 tiles ready" in text


def test_strategy_comparison_notebook(tmp_path):
    nb = _run("strategy_comparison", tmp_path)
    assert "concealed - greedy" in _text(nb)


def test_discard_advisor_notebook(tmp_path):
    nb = _run("discard_advisor", tmp_path)
    text = _text(nb)
    assert "300 continuations per action" in text and "greedy vs greedy" in text


def test_strategy_tournament_notebook(tmp_path):
    nb = _run("strategy_tournament", tmp_path)
    text = _text(nb)
    assert "declare_ready_tai=0" in text and "same games" in text and "variance_reduction" in text
