"""Simulation datasets on disk: the Arrow schema, the shard writer, run metadata, reading and resume.

A *run* is a directory::

    data/runs/douque_greedy-greedy_seed0_2000matches/
        _simkit.json          the run manifest (JSON): how the run was made, its state, its shards
        _common_metadata      Parquet schema + the manifest as key-value metadata (written at the end)
        part-000000.parquet   chunk 0: matches [0, chunk_matches), one row per hand
        part-000001.parquet   chunk 1: the next chunk_matches matches, ...
        _decisions/           only in a run with decisions (simulate(..., decisions=True), or
            part-000000.parquet   decisions="observations"): chunk 0's decisions, one row per
            ...                   decision taken (with observations, also what the decider saw)

Every shard holds whole matches, rows in (match, copy, hand) order, so the shards read in name order
are the run's rows in order (``pandas.read_parquet(run_dir)`` and ``pyarrow.dataset`` skip the
``_``- and ``.``-prefixed files). Each shard carries the run's description in its Parquet key-value
metadata under ``simkit`` and Parquet page checksums; shards are written to a hidden temporary name
in the run directory, flushed with ``fsync`` and renamed into place, so a run killed at any moment
leaves only complete shards.

The manifest says which files are the run: its ``shards`` list names every committed shard with its chunk,
matches, rows, byte size and SHA-256 (appended, atomically, as each shard is committed). Every reader
(:func:`~simkit.datasets.reader.open_run`, :meth:`Run.read_shard`, ``simkit.analysis``, a resumed run) reads exactly the
listed shards and refuses, naming the file, a listed shard that is missing, resized or corrupt (its
SHA-256 or a page checksum differs), a shard written by another run, and any other ``part-*`` or
``*.parquet`` file in the directory. What the manifest says of the run is checked against the
shards' footers (:func:`check_manifest`): each footer names the spec of the run that wrote it (rule
set and options, policies, seed, target, duplicate, items, chunking, wall design) and its chunk,
matches and rows, so an edited manifest is refused, naming the field, rather than reported as fact
or resumed toward an edited target. The manifest's ``status`` is ``running``, ``complete`` or
``overwriting`` (an ``--overwrite`` marks the old run so before deleting the files it lists; such a
directory is refused by readers until the overwrite is run again). A manifest without its
shard list (*legacy*: written before simkit listed shards, or with the list removed) has no checksums
and is refused by every reader and by resume, unless :func:`open_run` is told ``trust_legacy=True``:
it then checks the shards' own footers instead (each ``part-<chunk>.parquet`` must carry the
manifest's spec and its chunk, and their count and rows must equal the manifest's totals).

The schema is declared once (:data:`COLUMNS`, :func:`dataset_schema`); the scoring items become
``item_<name>`` columns, from the rule set's item table (:func:`item_names`).

A run with decisions (its spec's ``decisions`` is true, or ``"observations"``) has a second
dataset, the decision log (:data:`DECISION_COLUMNS`, and with observations
:data:`OBSERVATION_COLUMNS`), in ``_decisions/``: one shard per chunk, named like the chunk's shard,
a row group per engine call (:class:`ShardWriter`; its description in the footer's key-value
metadata only, added when the shard is closed).
The leading underscore keeps it out of ``pandas.read_parquet(run_dir)``. Each entry of the
manifest's ``shards`` then carries the chunk's decision shard as ``"decisions": {"file":
"_decisions/part-000012.parquet", "rows", "bytes", "sha256"}``; the decision shard is committed
before the chunk's shard and both are listed together, and every check above (missing, extra,
foreign, resized, corrupt, resume, overwrite) covers the decision shards too. A decision shard's
footer names the run's spec, its chunk and ``"table": "decisions"``.

The modules: :mod:`~simkit.datasets.schema`, :mod:`~simkit.datasets.batches`,
:mod:`~simkit.datasets.shards`, :mod:`~simkit.datasets.manifest` (the truth) and
:mod:`~simkit.datasets.reader`; every public name is importable from ``simkit.datasets``.
"""

from .batches import (
    decisions_to_batch,
    format_wins,
    rows_to_batch,
    writer_kernels,
)
from .manifest import (
    MAX_MANIFEST_DEPTH,
    begin_overwrite,
    check_manifest,
    check_shards,
    command_line,
    completed_chunks,
    is_legacy,
    now,
    read_manifest,
    rules_from_dict,
    run_lock,
    versions,
    wall_settings_of,
    write_common_metadata,
    write_manifest,
)
from .reader import (
    Run,
    open_run,
    read_run,
)
from .schema import (
    COLUMNS,
    COMMON_METADATA,
    DEAL_ID_HAND_BITS,
    DECISION_COLUMNS,
    DECISIONS_DIR,
    DECLARATIONS,
    FORMAT,
    MANIFEST,
    METADATA_KEY,
    OBSERVATION_COLUMNS,
    SHARED_RESULT_COLUMNS,
    STATISTICS_COLUMNS,
    WIN_TYPES,
    WINDS,
    DatasetError,
    dataset_schema,
    decision_schema,
    item_names,
    schema_for,
)
from .shards import (
    ShardWriter,
    clean_temporary,
    commit_shard,
    decision_entry,
    decision_file,
    file_digest,
    shard_entry,
    shard_metadata,
    shard_name,
    temporary_files,
    verify_shard,
    write_shard,
)

__all__ = [
    "FORMAT",
    "MANIFEST",
    "COMMON_METADATA",
    "METADATA_KEY",
    "COLUMNS",
    "WIN_TYPES",
    "WINDS",
    "DECLARATIONS",
    "DEAL_ID_HAND_BITS",
    "DECISIONS_DIR",
    "DECISION_COLUMNS",
    "OBSERVATION_COLUMNS",
    "decision_schema",
    "DatasetError",
    "item_names",
    "dataset_schema",
    "schema_for",
    "STATISTICS_COLUMNS",
    "SHARED_RESULT_COLUMNS",
    "decisions_to_batch",
    "rows_to_batch",
    "format_wins",
    "writer_kernels",
    "decision_entry",
    "decision_file",
    "shard_name",
    "write_shard",
    "ShardWriter",
    "commit_shard",
    "shard_metadata",
    "clean_temporary",
    "temporary_files",
    "file_digest",
    "shard_entry",
    "verify_shard",
    "write_manifest",
    "read_manifest",
    "write_common_metadata",
    "completed_chunks",
    "check_shards",
    "check_manifest",
    "begin_overwrite",
    "is_legacy",
    "run_lock",
    "rules_from_dict",
    "wall_settings_of",
    "versions",
    "now",
    "command_line",
    "MAX_MANIFEST_DEPTH",
    "Run",
    "open_run",
    "read_run",
]
