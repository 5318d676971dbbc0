"""Old module paths that keep working: each name a module had before the packages were arranged
by concern imports the module that holds that code now (the same module object, so its names,
pickles and policy references such as ``"simkit.engine.toolkit:..."`` resolve as before).
Importing one by its old path warns (:class:`DeprecationWarning`) with the new path, except
``simkit.simulate``: that name is also the :func:`simkit.simulate` function, which importing a
module of that name would replace on the package, so the old module path is registered at once
(in :data:`sys.modules`, without a warning) rather than found on import."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings

__all__ = ["MOVED", "REGISTERED", "install"]

#: old module path -> the module that holds its code now
MOVED = {
    "simkit.engine.policies": "simkit.policies.basic",
    "simkit.engine.policy_spec": "simkit.policies.spec",
    "simkit.engine.builtin_policies": "simkit.policies.registry",
    "simkit.engine.value_policy": "simkit.policies.value",
    "simkit.engine.routes": "simkit.policies.routes",
    "simkit.engine.toolkit": "simkit.policies.helpers",
    "simkit.engine.runtime": "simkit.play.runtime",
    "simkit.engine.matches": "simkit.play.matches",
    "simkit.engine.state": "simkit.play.stepper",
    "simkit.engine.position": "simkit.play.position",
    "simkit.engine.rollouts": "simkit.play.rollouts",
    "simkit.engine.game": "simkit.engine.table",
    "simkit.engine.play": "simkit.engine.step",
    "simkit.simulate": "simkit.runs.simulation",
    "simkit.chunk_job": "simkit.runs.chunk_job",
    "simkit.distributed": "simkit.runs.dask_cluster",
    "simkit.io": "simkit.datasets",
    "simkit.analysis.exploitability": "simkit.evaluation.exploitability",
}


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str):
        self.target = target

    def create_module(self, spec):
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module):
        module.__spec__ = self.spec  # the import system set the old path's spec: the module keeps its own


class _MovedFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        new = MOVED.get(fullname)
        if new is None or fullname in REGISTERED:
            return None
        warnings.warn(f"{fullname} is now {new}", DeprecationWarning, stacklevel=3)
        return importlib.util.spec_from_loader(fullname, _Alias(new))


#: old module paths that are also the name of a function of their package: registered at once
REGISTERED = ("simkit.simulate",)


def install() -> None:
    """Put the finder of old module paths on :data:`sys.meta_path` (once), and register the paths
    of :data:`REGISTERED`."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedFinder())
    for old in REGISTERED:
        sys.modules.setdefault(old, importlib.import_module(MOVED[old]))
