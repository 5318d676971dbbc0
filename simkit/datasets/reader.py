"""Reading a run: :func:`open_run` checks the manifest and the listed shards and returns a
:class:`Run` (shards read and verified one at a time, or whole); :func:`read_run` reads it into
a pandas DataFrame."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ..errors import InputTypeError, show
from ..play.matches import replay
from ..policies.spec import from_record
from .manifest import check_manifest, check_shards, is_legacy, read_manifest, rules_from_dict, wall_settings_of
from .schema import DatasetError
from .shards import verify_shard

__all__ = [
    "Run",
    "open_run",
    "read_run",
]


def _read_verified(path: Path, entry: dict, columns=None, filters=None) -> pa.Table:
    """A listed shard's table, its SHA-256 (:func:`verify_shard`), page checksums and rows checked."""
    verify_shard(path, entry)
    try:
        table = pq.read_table(path, columns=columns, filters=filters, page_checksum_verification=True)
    except OSError as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DatasetError(f"{path} is unreadable or corrupt ({text}); rerun the run with --overwrite") from None
    if filters is None and entry.get("rows") is not None and table.num_rows != entry["rows"]:
        raise DatasetError(
            f"{path} has {table.num_rows:,} rows, the manifest lists {entry['rows']:,}; rerun the run with --overwrite"
        )
    return table


@dataclass(frozen=True)
class Run:
    """A run directory as its manifest describes it (:func:`open_run`).

    Attributes
    ----------
    path : Path
    manifest : dict
        The whole ``_simkit.json``.
    shards : tuple of Path
        The complete shards the manifest lists, in chunk (= row) order.
    entries : tuple of dict
        The manifest's record of each shard (chunk, matches, rows, bytes, SHA-256; a legacy run's are
        built from the footers, without checksums).
    legacy : bool
        The manifest has no shard list (opened with ``trust_legacy=True``; checked through the
        shards' footers only).
    decision_shards : tuple of Path
        A run with decisions: the decision shards the manifest lists (``_decisions/part-*.parquet``),
        one per shard in :attr:`shards`, in the same order (checked for presence and size;
        their SHA-256 when read, :meth:`read_decision_shard`).
    decision_entries : tuple of dict
        The manifest's record of each decision shard (file, rows, bytes, SHA-256).
    """

    path: Path
    manifest: dict
    shards: tuple
    entries: tuple = ()
    legacy: bool = False
    decision_shards: tuple = ()
    decision_entries: tuple = ()

    @property
    def decisions(self) -> bool:
        """Whether the run has a decision log (written with ``decisions=True`` / ``--decisions``, or
        with observations: ``decisions="observations"``)."""
        return bool(self.spec.get("decisions", False))

    @property
    def spec(self) -> dict:
        """What determines the data: rules and options, policies, seed, target, duplicate, chunking."""
        return self.manifest["spec"]

    @property
    def complete(self) -> bool:
        """True once every chunk is written (the manifest's status is ``complete``)."""
        return self.manifest.get("status") == "complete"

    @property
    def rules(self):
        """The run's :class:`~simkit.rules.Rules`, every option as recorded."""
        return rules_from_dict(self.spec["rules"])

    @property
    def schema(self) -> pa.Schema:
        """The columns of the run (its first shard's Arrow schema, without key-value metadata)."""
        if not self.shards:
            raise DatasetError(f"{self.path} has no complete shards yet")
        return pq.read_schema(self.shards[0]).remove_metadata()

    @property
    def rows(self) -> int:
        """Rows in the complete shards (read from their footers)."""
        return sum(pq.ParquetFile(p).metadata.num_rows for p in self.shards)

    def read_shard(self, path, columns=None, filters=None) -> pa.Table:
        """One listed shard, its SHA-256 and page checksums verified (``filters`` as
        ``pyarrow.parquet.read_table`` takes them).

        Raises
        ------
        DatasetError
            The shard is not listed, is missing, or its bytes differ from what was written.
        """
        path = Path(path)
        entry = dict(zip(self.shards, self.entries)).get(path)
        if entry is None:
            raise DatasetError(f"{path} is not a shard of {self.path}")
        return _read_verified(path, entry, columns, filters)

    def read_decision_shard(self, path, columns=None, filters=None) -> pa.Table:
        """One listed decision shard, verified like :meth:`read_shard` (SHA-256, page checksums, rows).

        Raises
        ------
        DatasetError
            The run has no decisions, the shard is not listed, is missing, or its bytes differ from
            what was written.
        """
        path = Path(path)
        entry = dict(zip(self.decision_shards, self.decision_entries)).get(path)
        if entry is None:
            raise DatasetError(f"{path} is not a decision shard of {self.path}")
        return _read_verified(path, entry, columns, filters)

    @property
    def decision_schema(self) -> pa.Schema:
        """The columns of the run's decision log (its first decision shard's schema)."""
        if not self.decision_shards:
            raise DatasetError(f"{self.path} has no decision shards")
        return pq.read_schema(self.decision_shards[0]).remove_metadata()

    def read(self, columns=None) -> pa.Table:
        """All complete shards as one Arrow table, in row order (each verified, :meth:`read_shard`)."""
        if not self.shards:
            raise DatasetError(f"{self.path} has no complete shards yet")
        return pa.concat_tables([self.read_shard(p, columns=columns) for p in self.shards])

    def to_pandas(self, columns=None):
        """All complete shards as a pandas DataFrame (categories for the dictionary columns)."""
        return self.read(columns).to_pandas()

    @property
    def wall_settings(self) -> dict:
        """The run's wall design, ``{"deal": ..., "wall": ...}`` (:func:`wall_settings_of`)."""
        return wall_settings_of(self.spec)

    def replay(self, row, *, allow_changed: bool = False):
        """Replay the hand of one row under the run's rules, wall design and recorded policies:
        :func:`simkit.replay`'s record.

        ``row`` is a mapping (a DataFrame row, a dict) with ``seed``, ``match``, ``hand``,
        ``policy_0`` and ``policy_1`` (the labels of the seats in that row, so a copy-1 row of a
        duplicate run replays with the seats swapped). A policy that is not built in is imported
        from the module the run recorded; if that module's source changed since the run, the replay
        is refused unless ``allow_changed=True``.
        """

        need = ("seed", "match", "hand", "policy_0", "policy_1")
        try:
            missing = [c for c in need if c not in row]
        except TypeError:
            raise DatasetError(
                f"a row to replay is a mapping with {', '.join(need)}, got {type(row).__name__}"
            ) from None
        if missing:
            raise DatasetError(
                f"the row lacks column{'s' if len(missing) > 1 else ''} {', '.join(missing)}: replay needs "
                f"{', '.join(need)} (load them, e.g. analysis.load(path, columns=[...]))"
            )
        policies = self._policies_of(str(row["policy_0"]), str(row["policy_1"]), allow_changed)
        return replay(int(row["seed"]), int(row["match"]), int(row["hand"]), self.rules, policies, **self.wall_settings)

    def _policies_of(self, label0, label1, allow_changed=False):
        out = []
        for label in (label0, label1):
            found = [p for p in self.spec["policies"] if p["label"] == label]
            if not found:
                labels = ", ".join(p["label"] for p in self.spec["policies"])
                raise DatasetError(f"the run has no policy {label!r} (its policies: {labels})")
            out.append(from_record(found[0], allow_changed=allow_changed))
        return tuple(out)


def open_run(path, *, verify: bool = True, trust_legacy: bool = False) -> Run:
    """Open a run directory: the manifest checked, the shards it lists, in chunk order, checked
    against the directory (:func:`check_shards`), what it says of the run against their footers
    (:func:`check_manifest`) and, with ``verify``, the shards against their SHA-256
    (:func:`verify_shard`; hashed once per process and file version). A run's decision shards are
    checked for presence and size here, and against their SHA-256 when read
    (:meth:`Run.read_decision_shard`).

    A manifest without its shard list and checksums (:attr:`Run.legacy`: written before simkit listed
    shards, or with its list removed) is refused unless ``trust_legacy=True``, which reads the shards
    in place that carry the manifest's spec and chunk in their footers, without checksums.

    Raises
    ------
    DatasetError
        Not a simkit dataset, an interrupted ``--overwrite``, a missing, extra, foreign, resized or
        corrupt shard (one line naming the file), a manifest without its shard list (unless
        ``trust_legacy``), or a manifest that its shards contradict (one line naming the field).
    """
    if not isinstance(path, (str, os.PathLike)):
        raise InputTypeError(f"a run is its directory, a str or os.PathLike, got {show(path)}")
    directory = Path(path)
    manifest = read_manifest(directory)
    if manifest["status"] == "overwriting":
        raise DatasetError(
            f"{directory}: an --overwrite of this run was interrupted (its old shards are being deleted); "
            "run simkit simulate --overwrite again"
        )
    if not isinstance(trust_legacy, bool):
        raise InputTypeError(f"trust_legacy must be True or False, got {show(trust_legacy)}")
    pairs, _ = check_shards(directory, manifest, trust_legacy=trust_legacy)
    if verify:
        for p, entry in pairs:
            verify_shard(p, entry)
    check_manifest(directory, manifest, pairs)  # after the checksums: a damaged footer is called corrupt
    decided = [e["decisions"] for _, e in pairs if e.get("decisions") is not None]
    return Run(
        path=directory,
        manifest=manifest,
        shards=tuple(p for p, _ in pairs),
        entries=tuple(e for _, e in pairs),
        legacy=is_legacy(manifest),
        decision_shards=tuple(directory / d["file"] for d in decided),
        decision_entries=tuple(decided),
    )


def read_run(path, columns=None, *, trust_legacy: bool = False):
    """A run's rows as a pandas DataFrame (:meth:`Run.to_pandas`; ``trust_legacy`` as :func:`open_run`)."""
    return open_run(path, trust_legacy=trust_legacy).to_pandas(columns)
