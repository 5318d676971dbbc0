"""The run manifest, the truth of what a run is: written atomically (:func:`write_manifest`), read
and checked (:func:`read_manifest`), the directory's files checked against it
(:func:`check_shards`) and its spec against the shards' footers (:func:`check_manifest`), the
chunks a resumed run has done (:func:`completed_chunks`), an overwrite that never deletes what the
manifest does not list (:func:`begin_overwrite`), the run lock, and the versions and command
recorded with a run."""

from __future__ import annotations

import contextlib
import datetime as _dt
import fcntl
import json
import os
import platform
import sys
from pathlib import Path

import numba
import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from .._version import __version__
from ..errors import RunError, SimkitError
from ..rules import get_rules, rules_module
from .schema import COMMON_METADATA, DECISIONS_DIR, FORMAT, MANIFEST, METADATA_KEY, DatasetError
from .shards import (
    TMP_SUFFIX,
    chunk_of,
    decision_entry,
    decision_file,
    fsync_dir,
    is_data_like,
    is_temporary,
    shard_entry,
    shard_metadata,
    shard_name,
    temporary_files,
)

__all__ = [
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
]


_LOCK = ".simkit.lock"


def _write_json_atomic(path: Path, data: dict) -> None:
    tmp = path.parent / f".{path.name}.{os.getpid()}{TMP_SUFFIX}"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=2, sort_keys=False)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


def write_manifest(directory, manifest: dict) -> None:
    """Write the run manifest ``_simkit.json`` atomically."""
    _write_json_atomic(Path(directory) / MANIFEST, manifest)


def read_manifest(directory) -> dict:
    """The run manifest of ``directory``.

    Raises
    ------
    DatasetError
        No such directory, or it is not a simkit run (no readable manifest of this format).
    """
    directory = Path(directory)
    path = directory / MANIFEST
    try:
        if not directory.exists():
            raise DatasetError(f"{directory}: no such directory")
        if not directory.is_dir():
            raise DatasetError(f"{directory} is a file, not a simkit dataset directory")
        if not path.is_file():
            raise DatasetError(f"{directory} is not a simkit dataset (no {MANIFEST} manifest)")
        manifest = json.loads(path.read_text())
    except OSError as exc:  # e.g. a name too long, no permission
        raise DatasetError(f"{directory}: cannot read it ({exc.strerror or exc})") from None
    except ValueError as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DatasetError(f"{directory} is not a simkit dataset: its {MANIFEST} is not valid JSON ({text})") from None
    except RecursionError:  # e.g. 100,000 nested lists: deeper than the JSON parser goes
        manifest = None
    if manifest is None or _too_deep(manifest):
        raise DatasetError(
            f"{directory} is not a simkit dataset: its {MANIFEST} is nested more than {MAX_MANIFEST_DEPTH} levels deep"
        )
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise DatasetError(f"{directory} is not a simkit dataset of format {FORMAT} ({MANIFEST} says otherwise)")
    problem = _manifest_problem(manifest)
    if problem:
        raise DatasetError(f"{directory} is not a simkit dataset: its {MANIFEST} {problem}")
    return manifest


#: Nesting a manifest may have (simkit writes about six levels): anything deeper is refused when
#: read, so that no later walk of it (a comparison, a copy, JSON output) can exhaust the stack.
MAX_MANIFEST_DEPTH = 32


def _too_deep(value, limit: int = MAX_MANIFEST_DEPTH) -> bool:
    """Whether the parsed JSON ``value`` nests lists and objects more than ``limit`` levels deep
    (walked without recursion)."""
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _manifest_problem(manifest: dict) -> str | None:
    """What makes a parsed manifest unusable (None if nothing)."""
    spec = manifest.get("spec")
    if not isinstance(spec, dict):
        return "has no spec"
    rules = spec.get("rules")
    if not (isinstance(rules, dict) and isinstance(rules.get("name"), str) and isinstance(rules.get("options"), dict)):
        return "has no valid spec.rules"
    pols = spec.get("policies")
    if not (
        isinstance(pols, list)
        and len(pols) == 2
        and all(
            isinstance(p, dict)
            and isinstance(p.get("label"), str)
            and isinstance(p.get("name"), str)
            and (isinstance(p.get("params"), list) or isinstance(p.get("file"), str))  # a learned policy: its file
            for p in pols
        )
    ):
        return "has no valid spec.policies (two policies)"
    seed = spec.get("seed")
    if not (_is_int(seed) and 0 <= seed < 2**63):
        return "has no valid spec.seed"
    target = spec.get("target")
    if not (
        isinstance(target, dict)
        and len(target) == 1
        and next(iter(target)) in ("matches", "hands")
        and _is_int(next(iter(target.values())))
        and next(iter(target.values())) > 0
    ):
        return "has no valid spec.target"
    if not isinstance(spec.get("duplicate"), bool):
        return "has no valid spec.duplicate"
    if not (_is_int(spec.get("chunk_matches")) and spec["chunk_matches"] > 0):
        return "has no valid spec.chunk_matches"
    if not (isinstance(spec.get("items"), list) and all(isinstance(i, str) for i in spec["items"])):
        return "has no valid spec.items"
    if not (isinstance(spec.get("decisions", False), bool) or spec.get("decisions") == "observations"):
        return "has no valid spec.decisions"
    if manifest.get("status") not in ("running", "complete", "overwriting"):
        return f"has an unknown status {manifest.get('status')!r}"
    shards = manifest.get("shards")
    if shards is not None and not _is_int(shards):  # a shard list (an int: the count, in a legacy manifest)
        if not isinstance(shards, list):
            return "has a malformed shard list"
        seen = set()
        decisions = spec.get("decisions", False)
        for e in shards:
            if (
                not (
                    isinstance(e, dict)
                    and _is_int(e.get("chunk"))
                    and e["chunk"] >= 0
                    and e.get("file") == shard_name(e["chunk"])
                    and _is_int(e.get("rows"))
                    and e["rows"] >= 0
                    and _is_int(e.get("bytes"))
                    and e["bytes"] > 0
                    and isinstance(e.get("sha256"), str)
                    and len(e["sha256"]) == 64
                )
                or e["chunk"] in seen
            ):
                return f"has a malformed shard entry {json.dumps(e)[:80]}"
            d = e.get("decisions")
            # every chunk of a run with decisions lists its decision shard (an interrupted overwrite
            # lists what is left to delete)
            if d is None and decisions and manifest.get("status") != "overwriting":
                return f"lists chunk {e['chunk']} without its decision shard"
            if d is not None and not (
                decisions
                and isinstance(d, dict)
                and d.get("file") == decision_file(e["chunk"])
                and _is_int(d.get("rows"))
                and d["rows"] >= 0
                and _is_int(d.get("bytes"))
                and d["bytes"] > 0
                and isinstance(d.get("sha256"), str)
                and len(d["sha256"]) == 64
            ):
                return f"has a malformed decision shard entry {json.dumps(d)[:80]}"
            seen.add(e["chunk"])
    return None


def is_legacy(manifest: dict) -> bool:
    """True for a manifest without a shard list: written before simkit listed shards with their
    SHA-256, or with its list (or its checksums) removed. Its shards can only be checked through their
    own footers, which anyone may rewrite with the data, so readers refuse it unless told to trust it
    (:func:`check_shards`'s ``trust_legacy``) and a resumed run refuses it always."""
    return not isinstance(manifest.get("shards"), list)


def _untrusted(directory: Path) -> DatasetError:
    return DatasetError(
        f"{directory}: its {MANIFEST} has no shard list with checksums (removed, or written before simkit "
        "listed shards), so its shards cannot be checked; rerun the run with --overwrite, or read a run you "
        "trust with open_run(path, trust_legacy=True)"
    )


def write_common_metadata(directory, schema: pa.Schema, manifest: dict) -> None:
    """Write ``_common_metadata``: the schema and the whole manifest as Parquet key-value metadata."""
    directory = Path(directory)
    meta = {METADATA_KEY: json.dumps(manifest, sort_keys=True)}
    path = directory / COMMON_METADATA
    tmp = directory / f".{COMMON_METADATA}.{os.getpid()}{TMP_SUFFIX}"
    pq.write_metadata(schema.with_metadata(meta), tmp)
    os.replace(tmp, path)
    fsync_dir(directory)


def completed_chunks(directory, spec: dict) -> dict[int, dict]:
    """Chunks whose shard is in place: ``{chunk: shard metadata}``.

    A shard is in place only after its rename, so it is complete; its footer is read to check that
    it belongs to this run (``spec`` equal to the one it was written with).

    Raises
    ------
    DatasetError
        A shard that cannot be read or was written by a different run.
    """
    directory = Path(directory)
    done = {}
    for path in sorted(directory.iterdir()):
        chunk = chunk_of(path.name)
        if chunk is None:
            continue
        try:
            meta = shard_metadata(path)
        except (OSError, pa.ArrowException) as exc:
            raise DatasetError(f"{path}: unreadable shard ({exc})") from None
        if meta.get("spec") != spec or meta.get("chunk") != chunk:
            raise DatasetError(f"{path} was not written by this run (its settings differ); use --overwrite")
        done[chunk] = meta
    return done


def _footer_problem(path: Path, spec: dict | None, chunk: int, table: str = "hands") -> str | None:
    """What makes the shard at ``path`` not chunk ``chunk`` of ``table`` in the run of ``spec``
    (``spec`` None: any run); None if nothing."""
    try:
        meta = shard_metadata(path)
    except (OSError, pa.ArrowException, ValueError) as exc:
        return f"is not a readable shard ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})"
    if (spec is not None and meta.get("spec") != spec) or meta.get("chunk") != chunk:
        return "was written by another run (its footer's settings or chunk differ from the manifest's)"
    if meta.get("table", "hands") != table:
        return f"is not a shard of the run's {table} (its footer says {meta.get('table', 'hands')})"
    return None


def _extra(directory: Path, name: str) -> DatasetError:
    return DatasetError(
        f"{directory / name} is not a shard listed in the manifest (a stray or foreign file); remove it or "
        "move it out of the run directory"
    )


def _footer_chunk(directory: Path, name: str, spec: dict | None, table: str = "hands") -> int:
    """The chunk of shard file ``name`` whose footer must name ``spec`` (None: any run's), that chunk
    and ``table`` (``"decisions"`` in ``_decisions/``); a file that is not a shard, or a shard of
    another run, chunk or table, is a one-line :class:`DatasetError`."""
    chunk = chunk_of(name)
    if chunk is None:
        raise _extra(directory, name)
    problem = _footer_problem(directory / name, spec, chunk, table)
    if problem:
        raise DatasetError(f"{directory / name} {problem}; remove it")
    return chunk


def _decision_names(directory: Path) -> list[str]:
    """Data-like file names in the run's ``_decisions/`` (none if it does not exist)."""
    place = directory / DECISIONS_DIR
    if not place.is_dir():
        return []
    return sorted(p.name for p in place.iterdir() if is_data_like(p.name))


def check_shards(
    directory, manifest: dict, *, pending_ok: bool = False, missing_ok: bool = False, trust_legacy: bool = False
):
    """The run's shards as its manifest describes them, checked against the directory (sizes, no
    extra files; a legacy manifest: the footers' chunks); checksums are checked by :func:`verify_shard`,
    and what the manifest says of the run against the shards' footers by :func:`check_manifest`.

    A manifest without its shard list (:func:`is_legacy`) is refused unless ``trust_legacy`` (its
    shards have no checksums: a reader told to trust it checks them through their footers only) or
    ``missing_ok`` (an overwrite deletes such a run's shards, found through their footers).

    Returns ``(shards, pending)``: ``shards`` a tuple of ``(path, entry)`` in chunk order (``entry``
    the manifest's record; for a legacy manifest, one built from the footer without a checksum);
    ``pending`` the chunks of shards in place but not yet listed (a run killed, or being read, between
    committing a shard and listing it), whose footer says they belong to this run: allowed (and not
    read) in a ``running`` run or with ``pending_ok``, otherwise refused as extra files. With
    ``missing_ok`` (an overwrite, which deletes the listed shards) listed shards that are gone are
    skipped and a listed shard's size is not checked, and a legacy run's shards may name one spec
    other than the manifest's (an edited manifest); a shard naming yet another run is still refused
    (it is not the run's to delete). A run with decisions gets
    the same checks for each chunk's decision shard in ``_decisions/`` (its entry's ``"decisions"``;
    a chunk is pending when either of its shards is); a run without has no decision shard.

    Raises
    ------
    DatasetError
        One line naming the file: a listed shard missing or resized, an unlisted or foreign shard,
        a manifest without its shard list (unless trusted), or (legacy) shards whose count or rows
        differ from the manifest's totals.
    """
    directory = Path(directory)
    spec = manifest["spec"]
    if is_legacy(manifest) and not (trust_legacy or missing_ok or manifest.get("status") == "overwriting"):
        raise _untrusted(directory)
    names = sorted(p.name for p in directory.iterdir() if is_data_like(p.name))
    decision_names = _decision_names(directory)
    decisions = bool(spec.get("decisions", False)) and not is_legacy(manifest)
    if decision_names and not decisions:
        raise DatasetError(
            f"{directory / DECISIONS_DIR / decision_names[0]} is a decision shard, but the run has no decisions "
            "(a stray or foreign file); remove it or move it out of the run directory"
        )
    shards, pending = [], []
    if not is_legacy(manifest):
        gone_ok = missing_ok or manifest.get("status") == "overwriting"

        def present(path, entry) -> bool:
            try:
                size = path.stat().st_size
            except FileNotFoundError:
                if gone_ok:
                    return False  # already deleted (an interrupted overwrite), or being overwritten
                raise DatasetError(
                    f"{path} is missing (the manifest lists it); the run is incomplete: rerun it with --overwrite"
                ) from None
            if size != entry["bytes"] and not missing_ok:
                raise DatasetError(
                    f"{path} has {size:,} bytes, the manifest lists {entry['bytes']:,} (resized or "
                    "replaced); rerun the run with --overwrite"
                )
            return True

        listed = {e["file"]: e for e in manifest["shards"]}
        for entry in sorted(manifest["shards"], key=lambda e: e["chunk"]):
            path = directory / entry["file"]
            if entry.get("decisions") is not None:
                present(directory / entry["decisions"]["file"], entry["decisions"])
            if present(path, entry):
                shards.append((path, entry))
        for name in names:
            if name in listed:
                continue
            chunk = _footer_chunk(directory, name, spec)
            if not (pending_ok or manifest.get("status") == "running"):
                raise _extra(directory, name)
            pending.append(chunk)  # a running run's next shard, renamed but not yet listed: not read
        listed_decisions = {e["decisions"]["file"] for e in manifest["shards"] if e.get("decisions") is not None}
        for name in decision_names:
            if f"{DECISIONS_DIR}/{name}" in listed_decisions:
                continue
            chunk = _footer_chunk(directory / DECISIONS_DIR, name, spec, "decisions")
            if not (pending_ok or manifest.get("status") == "running"):
                raise _extra(directory / DECISIONS_DIR, name)
            if chunk not in pending:
                pending.append(chunk)  # committed before its chunk's shard, not yet listed
        return tuple(shards), sorted(pending)
    # legacy: the shards in place, each footer naming its own chunk (and the manifest's spec:
    # check_manifest; an overwrite takes a spec all of them name)
    specs = {}
    for name in names:
        chunk = _footer_chunk(directory, name, None)
        meta = shard_metadata(directory / name)
        specs[name] = meta.get("spec")
        shards.append(
            (
                directory / name,
                {
                    "file": name,
                    "chunk": chunk,
                    "first_match": meta.get("first_match"),
                    "matches": meta.get("matches"),
                    "rows": meta.get("rows"),
                },
            )
        )
    if missing_ok and len({_canonical(v) for v in specs.values()}) > 1:
        for name, their_spec in specs.items():
            if their_spec != spec:
                raise DatasetError(
                    f"{directory / name} was written by another run (its footer's settings differ "
                    "from the manifest's); remove it"
                )
    if manifest.get("status") == "complete" and not missing_ok:
        rows = sum(int(e["rows"] or 0) for _, e in shards)
        want_n, want_rows = manifest.get("shards"), manifest.get("rows")
        chunks = [e["chunk"] for _, e in shards]
        if (
            (want_n is not None and want_n != len(shards))
            or (want_rows is not None and want_rows != rows)
            or chunks != list(range(len(chunks)))
        ):
            raise DatasetError(
                f"{directory}: {len(shards)} shards with {rows:,} rows (chunks {chunks[:5]}{'...' if len(chunks) > 5 else ''}), "
                f"its manifest says {want_n} shards with {want_rows:,} rows: a shard is missing or extra"
            )
    return tuple(shards), pending


def _canonical(value) -> str:
    """One text per JSON value (keys sorted, no spaces): equal texts, equal values, ``1`` and
    ``1.0`` and ``true`` told apart."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


_FOOTERS: dict = {}  # (device, inode, size, mtime, ctime) -> what check_manifest reads of the shard's footer


def _footer_facts(path: Path) -> tuple:
    """``(spec as canonical text, chunk, first_match, matches, rows, table)`` from a shard's footer,
    read once per process and file version.

    Raises
    ------
    DatasetError
        The footer cannot be read.
    """
    try:
        st = os.stat(path)
        key = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        facts = _FOOTERS.get(key)
        if facts is None:
            meta = shard_metadata(path)
            facts = (
                _canonical(meta.get("spec")),
                *(meta.get(k) for k in ("chunk", "first_match", "matches", "rows")),
                meta.get("table", "hands"),
            )
            if len(_FOOTERS) > 100_000:
                _FOOTERS.clear()
            _FOOTERS[key] = facts
    except (OSError, pa.ArrowException, ValueError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DatasetError(f"{path} is not a readable shard ({text}); rerun the run with --overwrite") from None
    return facts


_ABSENT = object()


def _same(a, b) -> bool:
    """Equal JSON values of the same type (``1`` is not ``1.0`` nor ``true``)."""
    return type(a) is type(b) and (a == b if not isinstance(a, (dict, list)) else _canonical(a) == _canonical(b))


def _first_difference(mine, theirs, where: str = ""):
    """``(field, my value, their value)`` at the first place two JSON values differ (``where`` the
    path so far: ``seed``, ``rules.options.migi_tai``, ``policies[0].label``); None if they are equal.
    A missing key is :data:`_ABSENT`."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        for k in sorted(set(mine) | set(theirs)):
            found = _first_difference(mine.get(k, _ABSENT), theirs.get(k, _ABSENT), f"{where}.{k}" if where else k)
            if found:
                return found
        return None
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        for i, (a, b) in enumerate(zip(mine, theirs)):
            found = _first_difference(a, b, f"{where}[{i}]")
            if found:
                return found
        return None
    if mine is _ABSENT or theirs is _ABSENT or _canonical(mine) != _canonical(theirs):
        return where, mine, theirs
    return None


def _shown(value) -> str:
    """A manifest value for a one-line message (JSON, cut at 60 characters)."""
    if value is _ABSENT:
        return "(none)"
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_manifest(directory, manifest: dict, shards, *, resuming: bool = False) -> None:
    """Check what the manifest says of its run against what the run's shards say of themselves.

    Every shard's footer holds the spec of the run that wrote it, its chunk, first match, matches
    and rows (a decision shard's, its table's rows); the manifest is a file anyone can edit. Each of
    ``shards`` (``(path, entry)`` from :func:`check_shards`) and its decision shard must name the
    manifest's spec exactly and what its entry lists; a complete run's totals must be the sum of its
    shards and its shards must reach its target; the manifest's rules must pass the rule set's own
    validation (:func:`rules_from_dict`). ``resuming``: the run is about to be finished, which
    rewrites its status and totals, so those are not checked.

    Only footers are read (a fraction of a millisecond a shard, once per process and file version).
    A run without shards yet has nothing to compare with: its spec is only validated, and the shards
    it goes on to write carry that spec.

    Raises
    ------
    DatasetError
        One line naming the field that differs and the way out: put the shards' value back in the
        manifest, or rerun the run with ``--overwrite``.
    """
    directory = Path(directory)
    spec = manifest["spec"]
    mine = _canonical(spec)
    footers = []  # (path, footer facts, what the manifest lists: {key: value}, table)
    for path, entry in shards:
        footers.append((path, _footer_facts(path), entry, "hands"))
        listed = entry.get("decisions")
        if listed is not None:
            listed = dict(
                listed, chunk=entry["chunk"], first_match=entry.get("first_match"), matches=entry.get("matches")
            )
            footers.append((directory / listed["file"], _footer_facts(directory / listed["file"]), listed, "decisions"))
    for path, facts, _, _ in footers:
        if facts[0] != mine:
            field, ours, theirs = _first_difference(spec, json.loads(facts[0]))
            field = field or "spec"
            if len({f[0] for _, f, _, _ in footers}) == 1:
                raise DatasetError(
                    f"{directory}: the manifest's {field} {_shown(ours)} differs from its shards' {_shown(theirs)}: "
                    f"{MANIFEST} was edited; put {_shown(theirs)} back, or rerun the run with --overwrite"
                )
            raise DatasetError(
                f"{path} was not written by this run: its footer's {field} {_shown(theirs)} differs from the "
                f"manifest's {_shown(ours)}; rerun the run with --overwrite"
            )
    for path, facts, listed, table in footers:
        if facts[5] != table:
            raise DatasetError(
                f"{path} is not a shard of the run's {table} (its footer says {facts[5]}); rerun the "
                "run with --overwrite"
            )
        for key, theirs in zip(("chunk", "first_match", "matches", "rows"), facts[1:5]):
            ours = listed.get(key)
            if ours is not None and theirs is not None and not _same(ours, theirs):
                raise DatasetError(
                    f"{path}: the manifest lists its {key} as {_shown(ours)}, its footer says {_shown(theirs)}: "
                    f"{MANIFEST} was edited; put {_shown(theirs)} back, or rerun the run with --overwrite"
                )
    if manifest.get("status") == "complete" and not resuming:
        _check_complete(directory, manifest, shards)
    try:
        rules_from_dict(spec["rules"])
    except (SimkitError, TypeError, ValueError) as exc:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DatasetError(
            f"{directory}: the manifest's rules are not valid ({text}); rerun the run with --overwrite"
        ) from None


def _check_complete(directory: Path, manifest: dict, shards) -> None:
    """A complete run's totals are its shards' sums, and its shards are chunks 0, 1, ... up to its target."""
    entries = [e for _, e in shards]

    def summed(values):  # None when a shard does not say (a legacy footer may not)
        values = list(values)
        return sum(values) if all(_is_int(v) for v in values) else None

    totals = {"rows": summed(e.get("rows") for e in entries), "matches": summed(e.get("matches") for e in entries)}
    if manifest["spec"].get("decisions", False) and not is_legacy(manifest):
        totals["decision_rows"] = summed((e.get("decisions") or {}).get("rows") for e in entries)
    for key, total in totals.items():
        if key in manifest and total is not None and not _same(manifest[key], total):
            raise DatasetError(
                f"{directory}: the manifest's {key} {_shown(manifest[key])} differs from its shards' {total}: "
                f"{MANIFEST} was edited; put {total} back, or rerun the run with --overwrite"
            )
    target = manifest["spec"]["target"]
    want, got = (target["matches"], totals["matches"]) if "matches" in target else (target["hands"], totals["rows"])
    chunks = [e["chunk"] for e in entries]
    if chunks != list(range(len(chunks))) or (
        got is not None and (("matches" in target and got != want) or got < want)
    ):
        what = "matches" if "matches" in target else "hands"
        raise DatasetError(
            f"{directory}: the manifest says the run is complete, but its shards hold "
            f"{'some' if got is None else format(got, ',')} of its {want:,} {what} "
            f"(chunks {chunks[:5]}{'...' if len(chunks) > 5 else ''}): {MANIFEST} was edited; finish the run "
            "with --resume"
        )


def begin_overwrite(directory) -> None:
    """Delete the run in ``directory`` so a new one can be written there, safely at any moment of a kill.

    Only a simkit dataset is overwritten: its manifest must parse and describe the directory (every
    ``part-*`` or ``*.parquet`` file a shard the manifest lists, or a shard whose footer names the
    manifest's run). The manifest is first rewritten with status ``overwriting`` and the list of the
    files to delete (readers refuse such a directory), then ``_common_metadata`` and the listed
    shards are deleted; nothing else is touched. A directory without a manifest must be empty (the
    lock and simkit's temporary files aside). The caller then writes the new run's manifest.

    Raises
    ------
    DatasetError
        Not a simkit dataset, or it holds files its manifest does not describe (named).
    """
    directory = Path(directory)
    others = [p.name for p in directory.iterdir() if p.name not in (_LOCK, MANIFEST) and not is_temporary(p.name)]
    if not (directory / MANIFEST).exists():
        if others:
            raise DatasetError(f"refusing to overwrite {directory}: it is not a simkit dataset (no {MANIFEST})")
        return
    try:
        manifest = read_manifest(directory)
    except DatasetError as exc:
        raise DatasetError(f"refusing to overwrite: {exc}") from None
    try:
        shards, pending = check_shards(directory, manifest, pending_ok=True, missing_ok=True)
    except DatasetError as exc:
        raise DatasetError(f"refusing to overwrite {directory}: {exc}") from None
    entries = [e if "sha256" in e else shard_entry(p, e["chunk"]) for p, e in shards]
    listed = {e["chunk"] for e in entries}
    for entry in manifest["shards"] if not is_legacy(manifest) else ():
        if entry["chunk"] not in listed and entry.get("decisions") is not None:
            entries.append(entry)  # its shard is gone, its decision shard maybe not yet
    for c in pending:
        if (directory / shard_name(c)).exists() and c not in listed:
            entries.append(shard_entry(directory / shard_name(c), c))
    entries = [  # a chunk listed or pending whose decision shard is in place: delete it with the chunk
        dict(e, decisions=decision_entry(directory / decision_file(e["chunk"]), e["chunk"], 0))
        if e.get("decisions") is None and (directory / decision_file(e["chunk"])).exists()
        else e
        for e in entries
    ]
    described = {e["file"] for e in entries} | {COMMON_METADATA}
    decision_files = {e["decisions"]["file"] for e in entries if e.get("decisions") is not None}
    decision_files |= {decision_file(c) for c in pending}
    place = directory / DECISIONS_DIR
    if place.is_dir():
        inside = [p.name for p in place.iterdir() if not is_temporary(p.name)]
        strays = [name for name in inside if f"{DECISIONS_DIR}/{name}" not in decision_files]
        if strays:
            raise DatasetError(
                f"refusing to overwrite {directory}: {place / strays[0]} is not part of the simkit run its manifest "
                "describes (move it out first)"
            )
        described.add(DECISIONS_DIR)
    unknown = [name for name in others if name not in described]
    if unknown:
        raise DatasetError(
            f"refusing to overwrite {directory}: {directory / unknown[0]} is not part of the simkit run its manifest "
            "describes (move it out first)"
        )
    manifest = dict(manifest, status="overwriting", shards=sorted(entries, key=lambda e: e["chunk"]))
    write_manifest(directory, manifest)  # from here on no reader takes the directory for the old run
    with contextlib.suppress(FileNotFoundError):
        (directory / COMMON_METADATA).unlink()
    for entry in manifest["shards"]:
        with contextlib.suppress(FileNotFoundError):
            (directory / entry["file"]).unlink()
    for name in sorted(decision_files):  # listed, and pending ones (found again by their footers if a kill stops this)
        with contextlib.suppress(FileNotFoundError):
            (directory / name).unlink()
    fsync_dir(directory)
    if place.is_dir():
        with contextlib.suppress(OSError):
            for path in temporary_files(directory):
                if path.parent == place:
                    path.unlink()
            place.rmdir()
            fsync_dir(directory)


@contextlib.contextmanager
def run_lock(directory):
    """Hold an exclusive lock on a run directory (released when the process dies, even by SIGKILL).

    Raises
    ------
    SimkitError
        Another process is writing the run.
    """
    fd = os.open(Path(directory) / _LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunError(f"another simkit process is writing {directory}") from None
        yield
    finally:
        os.close(fd)


def versions() -> dict:
    """Versions of simkit and of the libraries that make and write the data."""

    return {
        "simkit": __version__,
        "numba": numba.__version__,
        "numpy": np.__version__,
        "pyarrow": pa.__version__,
        "python": platform.python_version(),
    }


def now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def command_line() -> list[str]:
    """The command line of this process, ``simkit`` first when run as the console script."""
    argv = list(sys.argv)
    if argv and (argv[0].endswith(os.sep + "simkit") or argv[0] == "simkit" or argv[0].endswith("__main__.py")):
        argv[0] = "simkit"
    return argv


def wall_settings_of(spec: dict) -> dict:
    """The wall design of a run's spec as ``{"deal": ..., "wall": ...}``; a run written before
    simkit had wall designs used the deal ``"dealer"`` with a shared wall."""
    return {"deal": spec.get("deal", "dealer"), "wall": spec.get("wall", "shared")}


def rules_from_dict(record: dict):
    """The :class:`~simkit.rules.Rules` of a provenance record (``Rules.to_dict()``, as in a manifest).

    An option the record lacks because it was written before the option existed takes the value
    the run was played with (the rule-set module's ``OPTIONS_OF_EARLIER_RECORDS``: for_two's
    ``fold_passes_deal=False``), not today's default."""

    earlier = getattr(rules_module(record["name"]), "OPTIONS_OF_EARLIER_RECORDS", {})
    options = {k: tuple(v) if isinstance(v, list) else v for k, v in record["options"].items()}
    return get_rules(record["name"], **{**earlier, **options})
