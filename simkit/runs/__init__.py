"""Simulation runs: :func:`simulate` (:mod:`~simkit.runs.simulation`, the public door, its run
loop), its arguments resolved into the run's spec (:mod:`~simkit.runs.settings`), what a resumed
run must find unchanged (:mod:`~simkit.runs.resume`), the work of one chunk (:mod:`~simkit.runs.chunk_job`, the same on every back end) and the
back ends: worker processes on this machine (:mod:`~simkit.runs.local_workers`) and a Dask cluster
(:mod:`~simkit.runs.dask_cluster`). A run writes a
dataset (:mod:`simkit.datasets`)."""

from .simulation import DEFAULT_MATCHES, Interrupted, SimulationResult, default_out, simulate

__all__ = ["simulate", "SimulationResult", "Interrupted", "DEFAULT_MATCHES", "default_out"]
