"""A policy plays the same vector in every process: pickled to a worker it is the very function it
names (its declaration, built-in status and compiled code included), the vector is built from the
run's rule set there (``Policy.engine_params``), and the engine refuses a vector whose length is not
what the policy declares, before a match starts.

The runs with real worker processes and a Dask cluster compile the engine in every worker: they
are ``slow``.
"""

from __future__ import annotations

import hashlib
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from simkit.play.matches import resolve_policy, simulate_matches
from simkit.policies.spec import Policy, PolicyError, as_policy, spec_of
from simkit.policies.value import value_policy
from simkit.rules import get_rules
from simkit.runs.simulation import simulate

RULE_SETS = ("douque", "night_market", "duel", "for_two")
POLICIES = ("random", "greedy", "value", "policy_rules_data:rule_reader{shift=3}")
HERE = Path(__file__).parent


def _in_fresh_process(code: str, script=None) -> str:
    """Run ``code`` in a new interpreter that can import the tests' policy modules (as the file
    ``script``, its ``__main__``, when given); its stdout."""
    if script is not None:
        script.write_text(textwrap.dedent(code))
    command = [sys.executable, str(script)] if script is not None else [sys.executable, "-c", textwrap.dedent(code)]
    out = subprocess.run(command, capture_output=True, text=True, cwd=HERE, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_a_pickled_policy_plays_the_same_vector_in_a_fresh_process(tmp_path):
    policies = [as_policy(p) for p in POLICIES]
    here = {
        (p.text(), r): hashlib.sha256(resolve_policy(p, get_rules(r))[1].tobytes()).hexdigest()
        for p in policies
        for r in RULE_SETS
    }
    (tmp_path / "policies.pkl").write_bytes(pickle.dumps(policies))
    there = _in_fresh_process(f"""
        import hashlib, pickle
        from simkit.play.matches import resolve_policy
        from simkit.policies.spec import BUILT_IN, spec_of
        from simkit.rules import get_rules
        for p in pickle.loads(open({str(tmp_path / "policies.pkl")!r}, 'rb').read()):
            module, _, name = p.name.partition(':')
            same = BUILT_IN[p.name] if not name else getattr(__import__(module), name)
            assert p.function is same, p.name  # the very function, not a copy compiled anew
            assert spec_of(p.function) is not None or p.name == 'random'
            for r in {RULE_SETS!r}:
                print(p.text(), r, hashlib.sha256(resolve_policy(p, get_rules(r))[1].tobytes()).hexdigest())
    """)
    got = {(" ".join(line.split()[:-2]), line.split()[-2]): line.split()[-1] for line in there.splitlines()}
    assert got == here


def test_a_jitted_function_pickled_by_value_keeps_its_declaration(tmp_path):
    """A policy that cannot be imported by name (here: defined in a script, its ``__main__``)
    travels by value; its declaration travels on its Python function, into a process that never
    saw it."""
    _in_fresh_process(
        f"""
        import pickle
        from simkit._jit import jit
        from simkit.policies.spec import Param, as_policy, policy

        @policy(rules_data=lambda rules: [1.0, 2.0], x=Param(1.5))
        @jit
        def mine(view, legal, params, rng):
            return 0

        open({str(tmp_path / "mine.pkl")!r}, 'wb').write(pickle.dumps(as_policy(mine)))
    """,
        tmp_path / "main.py",
    )
    out = _in_fresh_process(f"""
        import pickle
        from simkit.policies.spec import spec_of
        from simkit.rules import get_rules
        p = pickle.loads(open({str(tmp_path / "mine.pkl")!r}, 'rb').read())
        print(spec_of(p.function).names, p.engine_params(get_rules('duel')).tolist(), p.label)
    """)
    assert out.split() == ["('x',)", "[1.5,", "1.0,", "2.0]", "mine"]


def test_the_engine_refuses_a_vector_other_than_the_declared_one():
    named = len(spec_of(value_policy).params)
    bad = Policy(value_policy, np.zeros(3), "value", "value", spec_of(value_policy))
    with pytest.raises(PolicyError, match=rf"declares {named} parameters .* its vector has 3"):
        simulate_matches("douque", (bad, "greedy"), 1, seed=0)
    with pytest.raises(PolicyError, match=f"takes {named} parameters"):
        simulate_matches("douque", ((value_policy, np.zeros(named + 2)), "greedy"), 1, seed=0)


def test_a_rules_data_that_is_not_numbers_is_refused():
    from simkit.policies.spec import Param, policy

    @policy(rules_data=lambda rules: [[1.0], [float("nan")]], x=Param(1.0))
    def odd(view, legal, params, rng):
        return 0

    with pytest.raises(PolicyError, match="rules_data gives a 1-D array"):
        as_policy(odd).engine_params(get_rules("douque"))


def _shards(path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(Path(path).glob("part-*.parquet"))}


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULE_SETS)
def test_every_policy_gives_the_same_bytes_with_worker_processes_and_dask(rules, tmp_path):
    """Every built-in policy and a user policy with ``rules_data``, one process vs two worker
    processes vs a local Dask cluster: byte-identical shards."""
    distributed = pytest.importorskip("distributed")
    runs = [("value", "greedy"), ("random", "policy_rules_data:rule_reader{shift=3}")]
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=50
    )
    try:
        with distributed.Client(cluster) as client:
            for i, pair in enumerate(runs):
                settings = dict(rules=rules, policies=pair, matches=40, seed=5, chunk_matches=10, progress=False)
                simulate(tmp_path / f"one{i}", **settings)
                simulate(tmp_path / f"workers{i}", workers=2, **settings)
                simulate(tmp_path / f"dask{i}", scheduler=client, **settings)
                one = _shards(tmp_path / f"one{i}")
                assert len(one) == 4
                assert _shards(tmp_path / f"workers{i}") == one, (rules, pair)
                assert _shards(tmp_path / f"dask{i}") == one, (rules, pair)
    finally:
        cluster.close()
