"""What a resumed run must find as it left it: its shards (each listed shard's size and SHA-256, its
footer naming the run) and its policies (each policy file's SHA-256 and each ``module:function``
policy's source, as the manifest recorded them). A resumed run's later shards are played by the
policies as they are now, so a policy that changed would make one run of two different players
under one label: it is refused before anything is written."""

from __future__ import annotations

import inspect
from pathlib import Path

from .. import datasets
from ..errors import RunError

__all__ = ["verified_done", "check_policies_unchanged"]


def verified_done(directory: Path, manifest: dict) -> dict:
    """The chunks a resumed run keeps: ``{chunk: manifest entry}``, every listed shard checked (size,
    SHA-256, no foreign or stray file: :func:`simkit.datasets.check_shards`; their footers name the
    manifest's spec and entries: :func:`simkit.datasets.check_manifest`). A shard in place but not yet
    listed (a kill between its rename and the manifest's update) is recomputed (into the same bytes).
    A manifest without its shard list is refused (``check_shards``): resume never takes shards on
    trust, nor writes checksums of shards it did not write.

    Raises
    ------
    DatasetError
        One line naming the file or the field.
    """
    pairs, _pending = datasets.check_shards(directory, manifest, pending_ok=True)
    done = {}
    for path, entry in pairs:
        datasets.verify_shard(path, entry)
        if entry.get("decisions") is not None:
            datasets.verify_shard(Path(directory) / entry["decisions"]["file"], entry["decisions"])
        done[entry["chunk"]] = entry
    datasets.check_manifest(directory, manifest, pairs, resuming=True)  # after the checksums, as open_run
    return done


def check_policies_unchanged(directory, pairs) -> None:
    """Refuse to resume ``directory`` when a policy changed since the run recorded it.

    ``pairs`` are ``(the manifest's record, the policy about to play)`` for each seat. A policy file's
    SHA-256 and a ``module:function`` policy's source SHA-256 (and those of a search's continuation)
    must equal the recorded ones; a recorded source hash of ``None`` (a function whose source file
    could not be read) has nothing to compare.

    Raises
    ------
    RunError
        One line naming the policy, its file and the recorded and current hash prefixes.
    """
    for record, policy in pairs:
        problem = _change_of(record, policy)
        if problem:
            raise RunError(
                f"cannot resume {directory}: {problem}; put the run's version back, or start the run again with "
                "--overwrite (or into another --out)"
            )


def _change_of(record: dict, policy) -> str | None:
    """How ``policy`` now differs from the run's ``record`` of it (None if it does not)."""
    now = policy.record()
    label = record.get("label", policy.label)
    if "file" in record:
        then, current = record.get("sha256"), now.get("sha256")
        if then != current:
            return (
                f"the file of policy {label!r} ({record['file']}) changed since the run began (SHA-256 "
                f"{_prefix(then)} then, {_prefix(current)} now): its later shards would be played by other weights"
            )
    elif record.get("source_sha256") is not None:
        then, current = record["source_sha256"], now.get("source_sha256")
        if then != current:
            return (
                f"the source of policy {label!r} ({record.get('module')}, {_source_file(policy.function)}) changed "
                f"since the run began (SHA-256 {_prefix(then)} then, {_prefix(current)} now): its later shards would "
                "be played by different code"
            )
    continuation = record.get("continuation")
    if isinstance(continuation, dict) and policy.continuation is not None:
        return _change_of(continuation, policy.continuation)
    return None


def _prefix(digest) -> str:
    return digest[:12] if isinstance(digest, str) and digest else "none"


def _source_file(function) -> str:
    """The file a policy function's module was read from (``"its module file"`` if unknown)."""
    try:
        return inspect.getsourcefile(getattr(function, "py_func", function)) or "its module file"
    except TypeError:
        return "its module file"
