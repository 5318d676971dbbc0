"""``simulate``: whole matches into a Parquet run directory, in chunks, resumable, reproducible.

The run is cut into fixed *chunks* of ``chunk_matches`` matches: chunk ``c`` plays matches
``[c * chunk_matches, (c + 1) * chunk_matches)`` and becomes shard ``part-<c>.parquet``
(:mod:`simkit.datasets`). Match ``i``'s randomness depends only on ``(seed, i)``, so the rows are the same
whatever the chunk size, the number of worker processes or the numba thread count, and a resumed run
equals an uninterrupted one: shards are committed (renamed into place) in chunk order, and
``resume`` recomputes only the chunks without a shard.

Targets:

* ``matches=M``: matches ``0 .. M-1``.
* ``hands=N``: the smallest number of whole matches, taken in match order from match 0, whose rows
  reach ``N`` (so the run has at least ``N`` rows, and fewer than ``N`` plus one match's rows). With
  ``duplicate`` both copies' rows count. The cut does not depend on the chunking: the chunk holding
  the ``N``-th row is cut after the match holding it.

``duplicate=True`` plays every match twice: copy 0 with ``policies = (A, B)``, copy 1 with the
seats swapped, ``(B, A)``, with the same seed and match index, so hand ``h`` of match ``m`` is dealt
from the same shuffled wall and dice in both copies, and the first dealer of each match is the same
*seat*. Rows with equal ``deal_id`` (``match << 16 | hand``) pair up. How the wall becomes each
player's tiles is the run's *wall design* (``deal``, ``wall``; recorded in the manifest, see
:func:`simkit.engine.rulesets.wall_design`): with the deal ``"seat"`` (default) each seat's tiles come
from its own stream whoever deals, so on every deal each policy receives in one copy the tiles the
other received in the other copy; with stable walls (default) claims do not shift anyone's later
draws. With the original deal ``"dealer"`` the tiles follow the dealer, whose seat may differ between
the copies after hand 0. Rows are in (match, copy, hand) order. :func:`simkit.analysis.compare`
gives the paired difference of A and B (each match's both copies one cluster).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import itertools
import math
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .. import datasets
from ..engine.compiled import record_start_up, start_up_message
from ..errors import InputValueError, RunError
from ..paths import check_run_directory
from ..play.runtime import prepare_match
from ..progress import progress_bar
from . import dask_cluster, local_workers
from .chunk_job import ChunkJob, compute_chunk, shard_meta, warm_engine
from .resume import verified_done
from .settings import (
    DEFAULT_CHUNK_MATCHES,
    DEFAULT_MATCHES,
    MAX_MATCHES,
    MAX_WORKERS,
    RUNS_DIR,
    check_chunk_memory,
    default_out,
    flag,
    os_message,
    positive,
    resolve_run,
)

__all__ = [
    "simulate",
    "Interrupted",
    "SimulationResult",
    "DEFAULT_MATCHES",
    "DEFAULT_CHUNK_MATCHES",
    "RUNS_DIR",
    "default_out",
]

#: Shards listed in the manifest as each is committed; beyond, the manifest is rewritten at most
#: every max(1 s, 20 x one rewrite) (see ``_simulate``).
LIST_AT_ONCE = 1000


@dataclass(frozen=True)
class SimulationResult:
    """What :func:`simulate` did.

    Attributes
    ----------
    path : Path
        The run directory.
    rows : int
        Rows (hands) in the finished run.
    matches : int
        Matches in the finished run (each counted once with ``duplicate``).
    shards : int
    computed_chunks : int
        Chunks computed by this call (fewer than ``shards`` when resuming).
    seconds : float
        Wall time of this call.
    computed_rows : int
        Rows computed by this call.
    startup_seconds : float
        Of ``seconds``, the start-up: compiling (or loading) the policies and the engine in this
        process, apart from the play (:attr:`play_seconds`, :attr:`hands_per_second`).
    """

    path: Path
    rows: int
    matches: int
    shards: int
    computed_chunks: int
    seconds: float
    computed_rows: int
    #: of ``seconds``, compiling (or loading from numba's cache) the policies and the engine in this process
    startup_seconds: float = 0.0

    @property
    def reused(self) -> bool:
        """True when this call computed nothing: a resumed run whose shards were all there already."""
        return self.computed_chunks == 0

    @property
    def play_seconds(self) -> float:
        """Of :attr:`seconds`, the time not spent starting up: playing, writing and checking the run."""
        return max(0.0, self.seconds - self.startup_seconds)

    @property
    def hands_per_second(self) -> float:
        """Rows computed and written per second by this call, start-up excluded (NaN when it computed
        nothing: a reused run has no rate)."""
        t = self.play_seconds
        return self.computed_rows / t if t > 0 and not self.reused else float("nan")

    def with_start_up(self, seconds: float) -> SimulationResult:
        """This result with ``seconds`` more of start-up (compiling the policies before the run)."""
        return dataclasses.replace(self, startup_seconds=self.startup_seconds + seconds)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`simulate`: the complete shards are kept in ``path``; resume finishes the run."""

    def __init__(self, path):
        super().__init__(f"interrupted; the complete shards are kept in {path}")
        self.path = path


def _check_engine(rules, policies):
    # the engine's own argument check (rule set playable, two valid policies), before any file is touched
    prepare_match(rules, policies)


# ---------------------------------------------------------------------------------------------
# one chunk


class _Lazy:
    """A 'future' computed when its result is asked for (the in-process path: one chunk at a time)."""

    def __init__(self, fn, *args, **kwargs):
        self._call = (fn, args, kwargs)

    def result(self):
        fn, args, kwargs = self._call
        return fn(*args, **kwargs)

    def cancel(self):
        return True


# ---------------------------------------------------------------------------------------------
# the run


def _prepare_directory(directory: Path, overwrite: bool, resume: bool) -> None:
    """Create the run directory or check that it may be used; nothing is deleted here (an
    ``overwrite`` deletes under the run lock, :func:`simkit.datasets.begin_overwrite`)."""
    if directory.exists() and not directory.is_dir():
        raise InputValueError(f"output {directory} exists and is not a directory")
    if resume:
        datasets.read_manifest(directory)  # a run to resume
    elif directory.exists():
        entries = [p for p in directory.iterdir() if p.name != ".simkit.lock"]
        if entries and not overwrite:
            kind = "a simkit dataset" if (directory / datasets.MANIFEST).is_file() else "not empty"
            raise InputValueError(
                f"output directory {directory} already exists ({kind}); use --resume to finish it "
                "or --overwrite to replace it"
            )
        if entries and not (directory / datasets.MANIFEST).is_file():
            raise InputValueError(f"refusing to overwrite {directory}: it is not a simkit dataset")
    else:
        try:
            directory.mkdir(parents=True)
        except OSError as exc:
            raise InputValueError(f"cannot create output directory {directory}: {exc.strerror or exc}") from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputValueError(f"output directory {directory} is not writable")


def simulate(
    out=None,
    *,
    rules=None,
    policies=None,
    matches: int | None = None,
    hands: int | None = None,
    seed: int | None = None,
    duplicate: bool | None = None,
    deal: str | None = None,
    wall: str | None = None,
    decisions: bool | str | None = None,
    workers: int = 1,
    chunk_matches: int | None = None,
    overwrite: bool = False,
    resume: bool = False,
    progress: bool = False,
    command: list | None = None,
    scheduler=None,
    until: int | None = None,
) -> SimulationResult:
    """Play matches into a Parquet run directory (see the module docstring and :mod:`simkit.datasets`).

    Parameters
    ----------
    out : str or Path, optional
        Run directory (default :func:`default_out`, under ``data/runs/``). Created if missing; an
        existing non-empty directory is refused unless ``overwrite`` (only a simkit dataset is
        overwritten) or ``resume``.
    rules : str or Rules, optional
        Rule set with its options (default ``"douque"``).
    policies : pair, optional
        Player 0's and player 1's policies: built-in names (default ``("greedy", "greedy")``), jitted
        functions or ``(function, params)``.
    matches, hands : int, optional
        The target: ``matches`` whole matches, or the fewest whole matches (in match order) whose rows
        reach ``hands``. Default ``matches=2000``. Not both. At most ``2**47`` (:data:`MAX_MATCHES`:
        match ids and ``deal_id`` stay within 64 bits).
    seed : int, optional
        Master seed (default 0), ``0 <= seed < 2**63``.
    duplicate : bool, optional
        Play every match a second time with the policies' seats swapped (``copy`` 1).
    deal, wall : str, optional
        The wall design (recorded in the manifest; see the module docstring): ``deal="seat"``
        (default) or ``"dealer"`` (the original deal), ``wall="stable"`` (default with the deal
        "seat") or ``"shared"``.
    decisions : bool or "observations", optional
        Also write the decision log: one row per decision taken (who, the phase, the tile, the
        action, the number of legal actions, shanten before and after, the policy's four user
        counters), as a second dataset in ``<out>/_decisions/`` listed in the manifest
        (``simkit.analysis.load(out, table="decisions")``); with ``"observations"`` the log also
        holds what each decider saw and their legal actions, from which
        :func:`simkit.analysis.decision_arrays` gives the environments' observation and mask of
        every decision. Off by default (a resumed run keeps its setting); the games and the hands'
        rows are the same either way.
    workers : int
        Processes computing chunks (1: this process, numba on all cores; ``k > 1``: ``k``
        processes with ``cores // k`` numba threads each; at most :data:`MAX_WORKERS`). Does not
        change the data. The processes end with this one, however it ends (even ``kill -9``).
    chunk_matches : int, optional
        Matches per chunk and shard (default :data:`DEFAULT_CHUNK_MATCHES`). Does not change the rows.
        A size whose buffers cannot fit this machine's memory is refused before anything is allocated.
    overwrite, resume : bool
        Replace an existing run, or finish an interrupted one (arguments not given are taken from
        its manifest; arguments given must agree with it). Only ``True`` or ``False``.
    progress : bool
        Show progress (hands done, hands/s, time left): a bar on a terminal, a widget in Jupyter,
        and in a log (stderr not a terminal) a line every 10 s (:data:`simkit.progress.LOG_INTERVAL`).
    command : list of str, optional
        The command line to record (default ``sys.argv``).
    scheduler : str or distributed.Client, optional
        Run the chunks as tasks on a Dask cluster (:mod:`simkit.runs.dask_cluster`): a scheduler address
        (``tcp://host:8786``), ``"local"`` (a LocalCluster of ``workers`` processes on this machine)
        or a ``distributed.Client``. ``out`` must then be on a filesystem the workers share. Does
        not change the data.
    until : int, optional
        Play only the chunks that start below match ``until`` now and leave the run unfinished
        (status ``running``, resumable): a run grows chunk by chunk towards its ``matches`` target,
        e.g. for a sequential test that looks after every chunk (:func:`simkit.decide`). The rows
        are those of the whole run's first chunks. Only with a ``matches`` target.

    Returns
    -------
    SimulationResult

    Raises
    ------
    SimkitError
        Bad arguments, an unusable output directory, a run that cannot be resumed, or a failure
        while writing (a full disk, a too-long name, a lost worker: the message says how to finish
        the run, which stays resumable).
    """
    t_start = time.perf_counter()
    overwrite = flag("overwrite", overwrite)
    resume = flag("resume", resume)
    progress = flag("progress", progress)
    workers = positive("workers", workers, (MAX_WORKERS, str(MAX_WORKERS)))
    if overwrite and resume:
        raise InputValueError("give overwrite or resume, not both")
    if out is not None:
        out = check_run_directory(out)
    directory, spec, rules_obj, policies = resolve_run(
        out, rules, policies, matches, hands, seed, duplicate, chunk_matches, resume, deal, wall, decisions
    )
    until = positive("until", until, (MAX_MATCHES, "2**47"))
    if until is not None and "matches" not in spec["target"]:
        raise InputValueError("until applies to a run with a matches target, not a hands target")
    check_chunk_memory(spec, rules_obj, workers)
    compiling = time.perf_counter()
    _check_engine(rules_obj, policies)  # compiles each policy for the engine: start-up, not play
    compiled = time.perf_counter() - compiling
    cluster = None
    if scheduler is not None:  # connect first: a bad address leaves no directory behind
        cluster = dask_cluster.connect(scheduler, workers if workers > 1 else None)
    try:
        return _simulate(
            directory, spec, rules_obj, policies, workers, overwrite, resume, progress, command, cluster, t_start, until
        ).with_start_up(compiled)
    except OSError as exc:  # a full disk, a name too long, a vanished directory: one line, the run resumable
        raise RunError(os_message(directory, exc)) from None
    except MemoryError:
        raise RunError(
            f"out of memory writing {directory}; use a smaller --chunk-matches or fewer --workers, then finish the "
            f"run with: simkit simulate --out {directory} --resume"
        ) from None
    except Exception as exc:
        name = type(exc).__name__
        if name in ("KilledWorker", "BrokenProcessPool", "CommClosedError", "FutureCancelledError"):
            what = "a Dask worker" if cluster is not None else "a worker process"
            try:
                detail = (str(exc).splitlines() or [name])[0]
            except Exception:  # e.g. a KilledWorker without its worker's state
                detail = name
            raise RunError(
                f"{what} died while computing the run ({name}: {detail[:200]}); the complete shards are kept: "
                f"finish the run with: simkit simulate --out {directory} --resume"
            ) from None
        raise
    finally:
        if cluster is not None and cluster[1]:
            dask_cluster.close(cluster[0])


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """``kill`` (SIGTERM) of this process stops the run as Ctrl-C does: workers stopped, temporary
    files removed, the complete shards kept (``kill -9`` cannot be caught: the workers notice it
    themselves, see :func:`watch_parent`)."""

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):  # pragma: no cover
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _simulate(
    directory, spec, rules_obj, policies, workers, overwrite, resume, progress, command, cluster, t_start, until=None
):
    try:
        _prepare_directory(directory, overwrite, resume)
    except OSError as exc:
        raise InputValueError(os_message(directory, exc)) from None
    job = ChunkJob(spec=spec, rules=rules_obj, policies=policies, directory=str(directory))
    with datasets.run_lock(directory), _sigterm_as_interrupt():
        if overwrite:
            datasets.begin_overwrite(directory)  # marks the old run 'overwriting', deletes only the files it lists
        datasets.clean_temporary(directory)  # e.g. left by a power loss
        invocation = {
            "command": command if command is not None else datasets.command_line(),
            "started": datasets.now(),
            "workers": workers,
        }
        if cluster is not None:
            invocation["scheduler"] = cluster[2]
        if resume:
            manifest = datasets.read_manifest(directory)
            if manifest["status"] == "overwriting":
                raise datasets.DatasetError(
                    f"cannot resume {directory}: an --overwrite of it was interrupted; run it again with --overwrite"
                )
            done = verified_done(directory, manifest)
            if done:  # e.g. a run begun by an earlier version, with the columns it wrote then
                first = Path(directory) / done[min(done)]["file"]
                job = dataclasses.replace(job, columns=tuple(pq.read_schema(first).names))
            manifest["shards"] = [done[c] for c in sorted(done)]
            manifest["invocations"].append(invocation)
            manifest["status"] = "running"
        else:
            done = {}
            manifest = {
                "format": datasets.FORMAT,
                "spec": spec,
                "status": "running",
                "created": invocation["started"],
                "versions": datasets.versions(),
                "invocations": [invocation],
                "shards": [],
            }
        datasets.write_manifest(directory, manifest)
        if spec.get("decisions", False):
            (Path(directory) / datasets.DECISIONS_DIR).mkdir(exist_ok=True)

        last = {"t": 0.0, "cost": 0.0}

        def on_commit(entry):
            # A committed shard joins the manifest at once (atomically). A run of thousands of shards
            # rewrites its manifest at most every max(1 s, 20 x one rewrite) so the rewrites stay a
            # few percent of the run: a shard renamed but not yet listed is skipped by readers and
            # recomputed (into the same bytes) by --resume, and the run's end lists every shard.
            manifest["shards"].append(entry)
            now = time.monotonic()
            if len(manifest["shards"]) >= LIST_AT_ONCE and now - last["t"] < max(1.0, 20 * last["cost"]):
                return
            datasets.write_manifest(directory, manifest)
            last["t"] = time.monotonic()
            last["cost"] = last["t"] - now

        startup = _warm_up(job, progress) if workers == 1 and cluster is None and _remaining(spec, done) else 0.0
        try:
            total_rows, total_matches, n_shards, computed, computed_rows = _run_chunks(
                job, done, workers, progress, cluster, on_commit, until
            )
        except KeyboardInterrupt:
            raise Interrupted(directory) from None
        finally:  # chunks computed beyond a hands target, or cut short by an interrupt
            datasets.clean_temporary(directory)
        kept = {e["chunk"] for e in manifest["shards"]}
        manifest["shards"] = sorted(manifest["shards"], key=lambda e: e["chunk"])
        target = spec["target"]
        if until is not None and len(kept) < math.ceil(target["matches"] / spec["chunk_matches"]):
            datasets.write_manifest(directory, manifest)  # stopped at `until`: still running, resumable
        else:
            extra = [e for e in manifest["shards"] if e["chunk"] >= n_shards]
            if extra or len(kept) != n_shards:  # pragma: no cover - a bug, not a state a kill can leave
                raise RunError(f"internal error: {directory} lists chunks {sorted(kept)}, the run has {n_shards}")
            manifest.update(status="complete", finished=datasets.now(), rows=total_rows, matches=total_matches)
            if spec.get("decisions", False):
                manifest["decision_rows"] = sum(e["decisions"]["rows"] for e in manifest["shards"])
            schema = datasets.open_run(
                directory, verify=False
            ).schema  # listed shards and nothing else (checksums just made)
            manifest["columns"] = schema.names
            if manifest["versions"] != datasets.versions():
                manifest.setdefault("resumed_with_versions", []).append(datasets.versions())
            datasets.write_manifest(directory, manifest)
            datasets.write_common_metadata(directory, schema, manifest)
    return SimulationResult(
        path=directory,
        rows=total_rows,
        matches=total_matches,
        shards=n_shards,
        computed_chunks=computed,
        seconds=time.perf_counter() - t_start,
        computed_rows=computed_rows,
        startup_seconds=startup,
    )


def _remaining(spec: dict, done: dict) -> bool:
    """Whether any chunk is left to compute."""
    k = spec["chunk_matches"]
    target = spec["target"]
    if "matches" in target:
        return any(c not in done for c in range(math.ceil(target["matches"] / k)))
    rows, c = 0, 0
    while c in done:
        rows += done[c]["rows"]
        if rows >= target["hands"]:
            return False
        c += 1
    return True


def _warm_up(job: ChunkJob, progress: bool) -> float:
    """Start the engine up (:func:`warm_engine`), saying first what that is about to do and how long
    its last compile took on this machine, and keeping the time of a start-up that compiled."""

    name = job.rules.name
    if any(getattr(p, "continuation", None) is not None for p in job.policies):
        name += " search"  # the engine and the search: a start-up of its own, a minute on a cold cache
    if progress:
        print(f"simkit simulate: {start_up_message(name)}", file=sys.stderr, flush=True)
    seconds = warm_engine(job)
    record_start_up(name, seconds)
    return seconds


def _run_chunks(job: ChunkJob, done: dict, workers: int, progress: bool, cluster=None, on_commit=None, until=None):
    """Compute the missing chunks (in worker processes or here) and commit them in chunk order;
    ``on_commit(entry)`` lists each committed shard in the manifest; ``until``: compute only the
    chunks starting below that match (the done ones beyond are counted)."""

    spec = job.spec
    k = spec["chunk_matches"]
    target = spec["target"]
    want_matches = target.get("matches")
    want_hands = target.get("hands")
    n_chunks = math.ceil(want_matches / k) if want_matches is not None else None
    chunks = range(n_chunks) if n_chunks is not None else itertools.count()
    bar_matches = want_matches  # what the bar counts towards
    if until is not None and n_chunks is not None:
        now = min(n_chunks, math.ceil(until / k))
        chunks = [*range(now), *sorted(c for c in done if c >= now)]
        bar_matches = min(want_matches, now * k)

    def bounds(c):
        first = c * k
        return first, (min(k, want_matches - first) if want_matches is not None else k)

    bar_total = want_hands
    bar = progress_bar(bar_total, unit="hand", desc="simulate", enabled=progress)
    state = {"rows": 0, "matches": 0}

    def advance(rows, matches):
        state["rows"] += rows
        state["matches"] += matches
        if want_matches is not None and state["matches"]:
            bar.total = max(state["rows"], round(state["rows"] / state["matches"] * bar_matches))
        bar.update(rows if want_hands is None else max(0, min(rows, want_hands - bar.n)))

    if cluster is not None:
        executor = dask_cluster.DaskExecutor(cluster[0], job)
    else:
        executor = local_workers.process_pool(workers, job.directory) if workers > 1 else None

    def submit(c):
        first, n = bounds(c)
        if executor is None:
            return _Lazy(compute_chunk, job, c, first, n, advance)
        return executor.submit(compute_chunk, job, c, first, n)

    window = getattr(executor, "window", 2 * workers) if executor is not None else 1
    pending = collections.deque()  # (chunk, future or None if already done), in chunk order
    it = iter(chunks)
    rows_total = matches_total = shards = computed = computed_rows = 0
    finished = False
    exhausted = False
    try:
        while not finished:
            while not exhausted and sum(f is not None for _, f in pending) < window:
                c = next(it, None)
                if c is None:
                    exhausted = True
                    break
                if c in done:
                    pending.append((c, None))
                    if len(pending) > 4 * window + 64:  # many resumed shards in a row: drain them first
                        break
                else:
                    pending.append((c, submit(c)))
            if not pending:
                break
            c, fut = pending.popleft()
            if fut is None:
                meta = done[c]
                rows, matches = meta["rows"], meta["matches"]
                advance(rows, matches)
            else:
                tmp, rows, match_rows, decisions = fut.result()
                first, n = bounds(c)
                matches = n
                if want_hands is not None and rows_total + rows >= want_hands:
                    keep = int(np.searchsorted(np.cumsum(match_rows), want_hands - rows_total)) + 1
                    if keep < n:
                        tmp, rows, matches = _truncate(job, c, first, tmp, keep, int(match_rows[:keep].sum()))
                        if decisions is not None:
                            decisions = _truncate_decisions(job, c, first, decisions[0], keep)
                entry = datasets.shard_entry(tmp, c, {"first_match": first, "matches": matches, "rows": rows})
                if decisions is not None:  # committed first: a listed chunk always has its decision shard
                    entry["decisions"] = datasets.decision_entry(decisions[0], c, decisions[1])
                    datasets.commit_shard(Path(decisions[0]), Path(job.directory) / datasets.DECISIONS_DIR, c)
                datasets.commit_shard(Path(tmp), job.directory, c)
                if on_commit is not None:
                    on_commit(entry)
                computed += 1
                computed_rows += rows
                if executor is not None:
                    advance(rows, matches)
                elif want_hands is None:
                    pass  # the in-process path advanced the bar per engine batch
            rows_total += rows
            matches_total += matches
            shards += 1
            if want_hands is not None and rows_total >= want_hands:
                finished = True
            if want_matches is not None and exhausted and not pending:
                finished = True
    except BaseException:
        local_workers.stop_workers(executor, pending)
        raise
    finally:
        bar.close()
    if executor is not None:  # done: drop queued chunks, let running ones (beyond a hands target) end
        for _, fut in pending:
            if fut is not None:
                fut.cancel()
        executor.shutdown(wait=True, cancel_futures=True)
    return rows_total, matches_total, shards, computed, computed_rows


def _truncate(job: ChunkJob, chunk: int, first: int, tmp: str, keep_matches: int, keep_rows: int):
    """Cut a temporary shard after its first ``keep_matches`` matches (the ``hands`` target)."""

    table = pq.read_table(tmp).slice(0, keep_rows)
    table = table.replace_schema_metadata(
        {k: v for k, v in (table.schema.metadata or {}).items() if k != datasets.METADATA_KEY.encode()}
    )
    os.unlink(tmp)
    new = datasets.write_shard(job.directory, chunk, table, shard_meta(job, chunk, first, keep_matches, keep_rows))
    return str(new), keep_rows, keep_matches


def _truncate_decisions(job: ChunkJob, chunk: int, first: int, tmp: str, keep_matches: int):
    """Cut a temporary decision shard after the chunk's first ``keep_matches`` matches:
    ``(tmp path, rows)``."""

    table = pq.read_table(tmp)
    table = table.filter(pc.less(table["match"], first + keep_matches))
    table = table.replace_schema_metadata(
        {k: v for k, v in (table.schema.metadata or {}).items() if k != datasets.METADATA_KEY.encode()}
    )
    os.unlink(tmp)
    meta = shard_meta(job, chunk, first, keep_matches, table.num_rows, "decisions")
    new = datasets.write_shard(Path(job.directory) / datasets.DECISIONS_DIR, chunk, table, meta)
    return str(new), table.num_rows
