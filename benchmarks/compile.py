"""Compile times: in a fresh cache directory, the seconds to the first hand of a new process for the
rule set's engine (cold, then warm), for a fresh trivial policy in its own module and for an edit
of that module, and for a policy calling greedy and waits (the engine is compiled once per rule
set; a policy compiles only itself).

Usage: ``python3 benchmarks/compile.py [--json OUT]``
"""

from __future__ import annotations

import os
import sys
import time

from _common import main_for

FAMILY = "compile"
OPTIONS = ()


def run(args, rec) -> None:
    _compile_times("douque", rec)


_FIRST_HAND = """
import sys, time
t0 = time.perf_counter()
import importlib
sys.path.insert(0, sys.argv[1])
from simkit.play.matches import simulate_matches
policy = importlib.import_module(sys.argv[2]).policy if sys.argv[2] != "-" else "greedy"
simulate_matches(sys.argv[3], (policy, "greedy"), 1, seed=0)
print(time.perf_counter() - t0)
"""

_TRIVIAL_POLICY = """from simkit._jit import jit
from simkit.engine import actions as A


@jit
def policy(view, legal, params, rng):
    # wins when it can, else the first legal action ({edit})
    if legal[A.WIN]:
        return A.WIN
    for a in range(A.N_ACTIONS):
        if legal[a]:
            return a
    return -1
"""


def _patient_policy(edit: str) -> str:
    """The example policy of ``simkit/policies/basic.py``'s docstring (greedy without claims,
    declaring only with two or more winning kinds) as a module defining ``policy``."""
    import textwrap

    from simkit.policies import basic as policies

    doc = policies.__doc__
    code = textwrap.dedent(doc[doc.index("    import numpy as np") : doc.index("(This exact policy")])
    return code.replace("def patient(", "def policy(") + f"\n# {edit}\n"


def _compile_times(rules: str, rec=None) -> None:
    """Seconds to the first hand in fresh processes with a fresh cache directory: the rule set's
    engine cold and warm, a new trivial policy, and an edit of its module."""
    import subprocess
    import tempfile
    from pathlib import Path

    print(
        f"\n  compiling ({rules}; fresh processes, fresh cache directory; seconds to the first hand, import included)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, SIMKIT_CACHE_DIR=str(Path(tmp) / "cache"), NUMBA_CACHE_DIR=str(Path(tmp) / "numba"))
        module = Path(tmp) / "bench_trivial_policy.py"

        def first_hand(policy_module: str) -> float:
            out = subprocess.run(
                [sys.executable, "-c", _FIRST_HAND, tmp, policy_module, rules],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            )
            return float(out.stdout.strip().splitlines()[-1])

        patient = Path(tmp) / "bench_patient_policy.py"
        steps = [
            ("engine and built-in policies, cold", "-", None, None),
            ("engine, warm (loaded from the cache)", "-", None, None),
            (
                "a new trivial policy (its own module)",
                "bench_trivial_policy",
                module,
                _TRIVIAL_POLICY.format(edit="new"),
            ),
            (
                "an edit of the trivial policy's module",
                "bench_trivial_policy",
                module,
                _TRIVIAL_POLICY.format(edit="edited"),
            ),
            ("a new policy calling greedy and waits", "bench_patient_policy", patient, _patient_policy("new")),
            ("the same policy, loaded", "bench_patient_policy", None, None),
            ("an edit of its module", "bench_patient_policy", patient, _patient_policy("edited")),
        ]
        for label, mod, path, text in steps:
            if path is not None:
                path.write_text(text)
                time.sleep(1.1)  # numba's cache keys on the source's modification time (seconds)
            seconds = first_hand(mod)
            print(f"  {label:<46} {seconds:>8.1f} s")
            if rec is not None:
                rec.add(f"seconds to the first hand, {label}", seconds, "s", repeat=1, rules=rules)


if __name__ == "__main__":
    sys.exit(main_for(sys.modules[__name__]))
