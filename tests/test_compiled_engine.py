"""The engine compiled per rule set and policy pair (simkit/engine/compiled.py): generated instances
cached on disk across processes, one instance per unordered pair, in-memory instances for policies
that cannot be imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from engine_util import GREEDY, PASSIVE, fallback, scripted_policy
from simkit._jit import jit
from simkit.engine import compiled, matches
from simkit.engine.matches import simulate_matches
from simkit.engine.policies import greedy_policy, random_policy
from simkit.engine.rulesets import settle_douque, settle_duel

ROOT = Path(__file__).resolve().parents[1]


def test_built_in_pairs_are_generated_files_under_the_cache_root():
    engine, swap = compiled.engine_of(settle_douque, greedy_policy, greedy_policy)
    assert not swap
    path = Path(engine.__file__)
    assert path.parent.parent == compiled.cache_root()
    assert path.parent.name == f"engine-{compiled.source_hash()[:16]}"
    text = path.read_text()
    assert "from simkit.engine.policies import greedy_policy as POLICY0" in text
    assert "from simkit.engine.rulesets import settle_douque as SETTLE" in text
    assert "CACHE = True" in text
    assert engine.POLICY0 is greedy_policy and engine.SETTLE is settle_douque
    # the same combination gives the same instance; another rule set another one
    assert compiled.engine_of(settle_douque, greedy_policy, greedy_policy)[0] is engine
    assert compiled.engine_of(settle_duel, greedy_policy, greedy_policy)[0] is not engine


def test_a_pair_in_either_order_shares_one_instance():
    ab, swap_ab = compiled.engine_of(settle_douque, random_policy, greedy_policy)
    ba, swap_ba = compiled.engine_of(settle_douque, greedy_policy, random_policy)
    assert ab is ba
    assert swap_ab != swap_ba


def test_swap_plays_each_policy_in_its_own_seat(monkeypatch):
    """The kernels' swap flag: one instance of (scripted, scripted) run with ``swap`` and the
    parameter arrays exchanged plays exactly the matches of the plain call; exchanging only the
    flag puts the policies in each other's seats, which changes the matches."""
    pair = (fallback(GREEDY), fallback(PASSIVE))
    plain = simulate_matches("douque", pair, 30, seed=5, check=True)
    original = matches._engine

    def swapped(spec, f0, p0, f1, p1, params_too=True):
        engine, swap, q0, q1 = original(spec, f0, p0, f1, p1)
        assert not swap  # the same function in both seats
        return (engine, True, q1, q0) if params_too else (engine, True, q0, q1)

    monkeypatch.setattr(matches, "_engine", swapped)
    same = simulate_matches("douque", pair, 30, seed=5, check=True)
    for name, column in plain.items():
        np.testing.assert_array_equal(same[name], column, err_msg=name)
    monkeypatch.setattr(matches, "_engine", lambda *a: swapped(*a, params_too=False))
    exchanged = simulate_matches("douque", pair, 30, seed=5, check=True)
    wins = lambda r, p: int(np.sum(r["winner"] == p))  # noqa: E731
    assert wins(plain, 1) == 0 and wins(plain, 0) > 0  # the passive player never wins
    assert wins(exchanged, 0) == 0 and wins(exchanged, 1) > 0


def test_a_new_process_loads_the_engine_from_the_cache():
    pair = (fallback(GREEDY), fallback(PASSIVE))
    here = simulate_matches("douque", pair, 3, seed=2)  # compiled (or loaded) here: the cache is written
    code = textwrap.dedent(
        """
        import json, sys
        sys.path.insert(0, "tests")
        from engine_util import GREEDY, PASSIVE, fallback
        from simkit.engine import compiled
        from simkit.engine.matches import simulate_matches
        r = simulate_matches("douque", (fallback(GREEDY), fallback(PASSIVE)), 3, seed=2)
        engine = next(iter(compiled._instances.values()))
        stats = engine.play_matches_kernel.stats
        print(json.dumps({"hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values()),
                          "score_0": r["score_0"].tolist()}))
        """
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["misses"] == 0 and got["hits"] >= 1, got
    assert got["score_0"] == here["score_0"].tolist()


def test_policies_that_cannot_be_imported_get_an_in_memory_instance():
    @jit
    def local_policy(view, legal, params, rng):  # pragma: no cover - compiled
        return random_policy(view, legal, params, rng)

    assert compiled._importable(local_policy) is None
    assert compiled._importable(greedy_policy) == ("simkit.engine.policies", "greedy_policy")
    engine, swap = compiled.engine_of(settle_douque, local_policy, greedy_policy)
    assert swap  # importable functions come first
    assert engine.POLICY1 is local_policy and engine.POLICY0 is greedy_policy
    assert engine.CACHE is False
    assert not Path(engine.__file__).is_relative_to(compiled.cache_root())


def test_an_inlined_policy_is_called_out_of_line():
    """The hand loop runs without reference counts, so a policy compiled ``inline="always"`` (which
    numba would paste into it, allocations and all) is called through an out-of-line wrapper;
    other policies are called directly (tests/test_jit.py runs such a policy and checks that
    every block it allocates is freed)."""

    @jit(inline="always", cache=False)
    def inline_policy(view, legal, params, rng):  # pragma: no cover - compiled
        return random_policy(view, legal, params, rng)

    engine, swap = compiled.engine_of(settle_douque, inline_policy, greedy_policy)
    assert swap and engine.POLICY1 is inline_policy
    assert engine.CALL1 is engine._policy1 and engine.CALL0 is greedy_policy
    built_in, _ = compiled.engine_of(settle_douque, greedy_policy, random_policy)
    assert built_in.CALL0 is built_in.POLICY0 and built_in.CALL1 is built_in.POLICY1


def test_an_unwritable_cache_falls_back_to_memory_with_a_warning(tmp_path, monkeypatch):
    blocker = tmp_path / "not_a_directory"
    blocker.write_text("")
    monkeypatch.setenv("SIMKIT_CACHE_DIR", str(blocker))
    monkeypatch.setattr(compiled, "_instances", {})
    monkeypatch.setattr(compiled, "_warned", False)
    with pytest.warns(UserWarning, match="cannot write the engine cache"):
        engine, _ = compiled.engine_of(settle_duel, scripted_policy, random_policy)
    assert engine.CACHE is False
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compiled.engine_of(settle_duel, scripted_policy, greedy_policy)  # warned once per process


def test_instance_names_change_with_the_policy_module_source(tmp_path, monkeypatch):
    module = tmp_path / "my_policies_for_hash.py"
    module.write_text("from simkit.engine.policies import greedy_policy as mine\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import my_policies_for_hash

    refs = [("simkit.engine.rulesets", "settle_douque"), ("my_policies_for_hash", "mine"), ("my_policies_for_hash", "mine")]
    before = compiled._digest(refs)
    module.write_text("from simkit.engine.policies import greedy_policy as mine\n# edited\n")
    assert compiled._digest(refs) != before
    del my_policies_for_hash
    sys.modules.pop("my_policies_for_hash", None)
