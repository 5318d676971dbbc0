"""The module paths simkit had before its packages were arranged by concern still import: each is
the module that holds that code now (the same object, its own name and spec kept), with a
DeprecationWarning naming the new path, and a policy named by its old module path still resolves."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import simkit
from simkit._moved import MOVED, REGISTERED


@pytest.mark.parametrize("old", sorted(set(MOVED) - set(REGISTERED)))
def test_an_old_module_path_is_the_module_that_holds_its_code_now(old):
    new = importlib.import_module(MOVED[old])
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} is now {MOVED[old]}"):
        module = importlib.import_module(old)
    assert module is new
    assert module.__name__ == MOVED[old] and module.__spec__.name == MOVED[old]


def test_old_paths_work_in_a_fresh_process_for_from_imports_and_policy_names():
    code = (
        "import warnings; warnings.simplefilter('ignore')\n"
        "from simkit.engine.toolkit import shanten_of\n"
        "from simkit.io import open_run, MANIFEST\n"
        "from simkit.engine.matches import simulate_matches\n"
        "import simkit.policies.helpers as helpers\n"
        "assert shanten_of is helpers.shanten_of\n"
        "from simkit.policies.spec import as_policy\n"
        "from simkit.policies.basic import greedy_policy\n"
        "assert as_policy('simkit.engine.policies:greedy_policy').function is greedy_policy\n"
        "print(len(simulate_matches('douque', ('simkit.engine.policies:greedy_policy', 'random'), 2, seed=1)['match']) > 0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_simkit_simulate_stays_the_function_when_its_old_module_path_is_imported():
    module = importlib.import_module("simkit.simulate")
    assert module is importlib.import_module("simkit.runs.simulation")
    from simkit.simulate import DEFAULT_MATCHES  # noqa: F401

    assert callable(simkit.simulate) and simkit.simulate is module.simulate
