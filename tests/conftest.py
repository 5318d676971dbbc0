"""Shared fixtures (tile sets of the four rule sets, random hand generators in numpy, not simkit)
and the test tiers: every test module is in ``TIERS``, which gives its tests the marker ``unit``,
``engine`` or ``integration`` (see tests/README.md)."""

from __future__ import annotations

import itertools
import random
import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # `import reference`, `import oracle`

import simkit  # noqa: E402

RULE_NAMES = ("douque", "night_market", "duel", "for_two")


def random_hands(rng: np.random.Generator, kinds, n: int, sizes=(13, 14), melds=False, chows=False):
    """Random concealed parts, with random exposed melds if ``melds``, from a 4-copy wall of ``kinds``.

    Returns ``(counts uint8[n, 34], n_melds int64[n], meld_counts uint8[n, 34])``. Each hand gets
    ``k`` melds (0-4, uniform, when ``melds``), each a pung, a kong or (if ``chows``) a chow of
    tiles still in the wall; its concealed part is ``size - 3k`` tiles drawn uniformly from what is
    left, ``size`` uniform over ``sizes``.
    """
    kinds = [int(k) for k in kinds]
    template = np.repeat(np.array(kinds), 4)
    copy_index = np.tile(np.arange(4), len(kinds))
    meld_counts = np.zeros((n, 34), np.uint8)
    ks = np.zeros(n, np.int64)
    if melds:
        py = random.Random(int(rng.integers(2**63)))
        kind_set = set(kinds)
        chow_starts = [k for k in kinds if k < 27 and k % 9 <= 6 and {k + 1, k + 2} <= kind_set] if chows else []
        for i in range(n):
            k = py.randrange(5)
            left = {kind: 4 for kind in kinds}
            made = 0
            while made < k:
                shape = py.randrange(3 if chow_starts else 2)
                if shape == 2:
                    s = py.choice(chow_starts)
                    if all(left[s + d] for d in range(3)):
                        for d in range(3):
                            left[s + d] -= 1
                            meld_counts[i, s + d] += 1
                        made += 1
                else:
                    kind = py.choice(kinds)
                    need = 3 + shape
                    if left[kind] >= need:
                        left[kind] -= need
                        meld_counts[i, kind] += need
                        made += 1
            ks[i] = k
    size = rng.choice(np.asarray(sizes), size=n) - 3 * ks
    keys = rng.random((n, len(template)))
    keys[copy_index[None, :] < meld_counts[:, template]] = 2.0  # tiles sitting in melds
    order = np.argsort(keys, axis=1)[:, :14]
    take = np.arange(14)[None, :] < size[:, None]
    flat = (template[order] + 34 * np.arange(n)[:, None])[take]
    counts = np.bincount(flat, minlength=34 * n).reshape(n, 34).astype(np.uint8)
    return counts, ks, meld_counts


@pytest.fixture(scope="session")
def all_rules():
    return {name: simkit.get_rules(name) for name in RULE_NAMES}


def one_suit_vectors(total: int) -> np.ndarray:
    """Every 9-rank count vector (each count 0-4) with ``total`` tiles, as uint8[n, 9]."""
    rows = [c for c in itertools.product(range(5), repeat=9) if sum(c) == total]
    return np.array(rows, np.uint8)


# ------------------------------------------------------------------ tiers

#: The tier of every test module (pyproject.toml declares the markers; ``slow`` is orthogonal):
#: ``unit`` -- one module on fixtures, the whole tier in under a minute: tiles, rules, hand kernels,
#: scoring, the policy toolkit, analysis, words, errors; ``engine`` -- games played: digests,
#: scenarios, invariants, the step API, policies in play, rollouts, luck, duplicate play, the
#: environments; ``integration`` -- the command line, datasets on disk, Dask, notebooks, fuzzing,
#: scripts, the browser, the docs. A test marked with a tier itself keeps it (a unit module's
#: long sweeps are marked ``engine``). A test module missing here fails the collection.
TIERS = {
    # unit
    "test_analysis.py": "unit",
    "test_beliefs.py": "engine",
    "test_search.py": "engine",
    "test_exact.py": "engine",
    "test_encode_view.py": "engine",
    "test_strength_page.py": "unit",
    "test_exploitability.py": "integration",
    "test_api.py": "unit",
    "test_deal.py": "unit",
    "test_error_messages.py": "unit",
    "test_hand_kernels.py": "unit",
    "test_layers.py": "unit",
    "test_melds.py": "unit",
    "test_reference.py": "unit",
    "test_rules.py": "unit",
    "test_scoring_douque.py": "unit",
    "test_scoring_duel.py": "unit",
    "test_scoring_for_two.py": "unit",
    "test_scoring_kernel.py": "unit",
    "test_scoring_night_market.py": "unit",
    "test_scoring_rule_sets.py": "unit",
    "test_scoring_rule_sets_random.py": "unit",
    "test_scoring_tables.py": "unit",
    "test_tables.py": "unit",
    "test_tiles.py": "unit",
    "test_toolkit.py": "unit",
    "test_words.py": "unit",
    # engine
    "test_compiled_engine.py": "engine",
    "test_decisions.py": "engine",
    "test_decision_arrays.py": "engine",
    "test_decision_values.py": "engine",
    "test_declaration_view.py": "engine",
    "test_duplicate.py": "engine",
    "test_engine.py": "engine",
    "test_engine_digests.py": "engine",
    "test_engine_rule_set_scenarios.py": "engine",
    "test_engine_rule_sets.py": "engine",
    "test_engine_scenarios.py": "engine",
    "test_engine_state.py": "engine",
    "test_envs.py": "engine",
    "test_envs_vector_rule_sets.py": "engine",
    "test_for_two_source_rules.py": "engine",
    "test_jit.py": "engine",
    "test_luck.py": "engine",
    "test_numba_scope.py": "engine",
    "test_policies.py": "engine",
    "test_observation_hand.py": "engine",
    "test_policy_files.py": "engine",
    "test_policy_transport.py": "engine",
    "test_rollouts.py": "engine",
    "test_step_api_inputs.py": "engine",
    "test_value_policy.py": "engine",
    "test_vector_env.py": "engine",
    "test_view_safety.py": "engine",
    # integration
    "test_analysis_runs.py": "integration",
    "test_benchmarks.py": "integration",
    "test_cli.py": "integration",
    "test_cli_tournament.py": "integration",
    "test_dataset_trust.py": "integration",
    "test_decide.py": "integration",
    "test_display.py": "integration",
    "test_distributed.py": "integration",
    "test_doc_examples.py": "integration",
    "test_docs.py": "integration",
    "test_fuzz_inputs.py": "integration",
    "test_io.py": "integration",
    "test_manifest_trust.py": "integration",
    "test_notebooks.py": "integration",
    "test_profiling_scripts.py": "integration",
    "test_progress.py": "integration",
    "test_ratings.py": "integration",
    "test_simulate.py": "integration",
    "test_strict_inputs.py": "integration",
    "test_tournament.py": "integration",
    "test_train_learned.py": "integration",
    "test_train_pg.py": "integration",
}
TIER_MARKERS = ("unit", "engine", "integration")
assert set(TIERS.values()) <= set(TIER_MARKERS)


def pytest_configure(config):
    """``slow`` tests run only when the ``-m`` expression names them: ``-m unit`` is the unit tier
    without its slow tests, as the default ``-m 'not slow'`` is everything but them; ``-m slow``,
    ``-m 'unit and slow'`` select slow tests; an empty ``-m ''`` selects every test."""
    expr = config.option.markexpr
    if expr and not re.search(r"\bslow\b", expr):
        config.option.markexpr = f"({expr}) and not slow"


class _NoTier(pytest.File):
    """Stands for a test module missing from ``TIERS``: collecting it is an error naming it."""

    def collect(self):
        raise self.CollectError(
            f"{self.path.name} is in no test tier: add it to TIERS in tests/conftest.py "
            '("unit", "engine" or "integration"; see tests/README.md)'
        )


def pytest_pycollect_makemodule(module_path, parent):
    if module_path.name not in TIERS:
        return _NoTier.from_parent(parent, path=module_path)
    return None


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(config, items):
    """Give every test the tier of its module (``TIERS``) unless it is marked with a tier itself."""
    for item in items:
        if not any(item.get_closest_marker(tier) for tier in TIER_MARKERS):
            item.add_marker(TIERS[item.path.name])
