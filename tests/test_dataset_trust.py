"""A run directory is trusted through its manifest, not through the files lying in it.

The manifest lists every shard (chunk, rows, bytes, SHA-256); readers (open_run, analysis.load,
summarize, --resume) read exactly those and refuse, naming the file, a missing, extra, foreign,
resized or corrupt shard. --overwrite and --resume are safe at any kill; worker processes die with
their parent; inputs are strict and failures are one line ``simkit: error: ...`` with exit code 2.

Only the greedy/greedy engine specialisation is used. CLI cases run the real command in a
subprocess (``python -m simkit``); the tests with worker processes are ``slow`` (each worker
compiles the engine, about a minute on 2 cores).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest

import simkit
from simkit import analysis, datasets
from simkit.runs.simulation import simulate

GG = ("greedy", "greedy")
SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample"


def _cli(*args, timeout=600, **kwargs):
    return subprocess.run(
        [sys.executable, "-m", "simkit", *map(str, args)], capture_output=True, text=True, timeout=timeout, **kwargs
    )


def _one_line_error(proc, *words):
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2, proc.stderr
    assert len(lines) == 1 and lines[0].startswith("simkit: error: "), proc.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


def _shard_bytes(path):
    return {p.name: p.read_bytes() for p in sorted(Path(path).glob("part-*.parquet"))}


def _refused_by_every_reader(path, *words):
    """open_run, analysis.load, summarize (Python) each refuse with one DatasetError naming the file."""
    for read in (datasets.open_run, analysis.load, analysis.summarize):
        with pytest.raises(datasets.DatasetError) as info:
            read(path)
        text = str(info.value)
        assert "\n" not in text
        for w in words:
            assert w in text, (read.__name__, w, text)


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A complete run of 30 matches in 3 shards, and a second run (another seed) to take shards from."""
    base = tmp_path_factory.mktemp("trust")
    simulate(base / "good", policies=GG, matches=30, seed=3, chunk_matches=10)
    simulate(base / "other", policies=GG, matches=30, seed=4, chunk_matches=10)
    return base / "good", base / "other"


@pytest.fixture
def run(good, tmp_path):
    """A fresh copy of the good run to damage."""
    dst = tmp_path / "run"
    shutil.copytree(good[0], dst)
    return dst


# ---------------------------------------------------------------------------------------------
# 1. the manifest is the source of truth


def test_the_manifest_lists_every_shard_with_rows_bytes_and_checksum(good):
    path, _ = good
    manifest = datasets.read_manifest(path)
    assert [e["file"] for e in manifest["shards"]] == [datasets.shard_name(c) for c in range(3)]
    for e in manifest["shards"]:
        p = path / e["file"]
        assert e["bytes"] == p.stat().st_size and e["sha256"] == datasets.file_digest(p)
        assert e["rows"] == pq.ParquetFile(p).metadata.num_rows
    assert sum(e["rows"] for e in manifest["shards"]) == manifest["rows"]
    # Parquet page checksums are written (and verified on read)
    meta = pq.ParquetFile(path / "part-000000.parquet").metadata
    assert meta.num_row_groups == 1
    assert (
        pq.read_table(path / "part-000000.parquet", page_checksum_verification=True).num_rows
        == manifest["shards"][0]["rows"]
    )
    # plain pandas still reads a good run (the manifest and metadata files start with "_")
    df = pd.read_parquet(path)
    assert len(df) == manifest["rows"] == len(analysis.load(path)) == analysis.summarize(path).rows
    assert not datasets.open_run(path).legacy and analysis.load(path, columns="match").attrs["legacy"] is False


def test_a_deleted_shard_is_refused_by_every_reader(run):
    (run / "part-000001.parquet").unlink()
    _refused_by_every_reader(run, "part-000001.parquet", "missing")
    _one_line_error(_cli("summarize", run), "part-000001.parquet", "missing")


def test_another_runs_shard_copied_in_is_refused(run, good):
    _, other = good
    shutil.copyfile(other / "part-000001.parquet", run / "part-000001.parquet")  # replaced
    _refused_by_every_reader(run, "part-000001.parquet")
    shutil.copyfile(good[0] / "part-000001.parquet", run / "part-000001.parquet")
    assert len(analysis.load(run)) == datasets.read_manifest(run)["rows"]  # restored: fine again
    shutil.copyfile(other / "part-000002.parquet", run / "part-000003.parquet")  # added as a next chunk
    _refused_by_every_reader(run, "part-000003.parquet", "written by another run")


def test_a_stray_part_file_is_refused_by_readers_and_resume(run):
    shutil.copyfile(run / "part-000001.parquet", run / "part-1.parquet")
    _refused_by_every_reader(run, "part-1.parquet", "not a shard listed")
    _one_line_error(_cli("simulate", "--out", run, "--resume", "--quiet"), "part-1.parquet")
    assert datasets.read_manifest(run)["status"] == "complete" and (run / "part-1.parquet").exists()


def test_a_stray_part_file_does_not_become_chunk_1_of_a_running_run(tmp_path, good):
    """The reported case: a run stopped after chunk 0, and a stray part-1.parquet beside it."""
    out = tmp_path / "r"
    shutil.copytree(good[0], out)
    manifest = datasets.read_manifest(out)
    manifest["shards"] = manifest["shards"][:1]
    manifest["status"] = "running"
    datasets.write_manifest(out, manifest)
    (out / "part-000001.parquet").rename(out / "part-1.parquet")
    (out / "part-000002.parquet").unlink()
    _one_line_error(_cli("simulate", "--out", out, "--resume", "--quiet"), "part-1.parquet", "not a shard listed")
    assert datasets.read_manifest(out)["status"] == "running"


def test_a_bit_flip_is_refused_by_readers_and_resume(run):
    p = run / "part-000002.parquet"
    data = bytearray(p.read_bytes())
    data[len(data) // 3] ^= 0x10
    p.write_bytes(bytes(data))
    _refused_by_every_reader(run, "part-000002.parquet", "corrupt")
    _one_line_error(_cli("simulate", "--out", run, "--resume", "--quiet"), "part-000002.parquet", "corrupt")
    _one_line_error(_cli("summarize", run), "part-000002.parquet", "corrupt")


def test_page_checksums_catch_a_flip_the_manifest_does_not_know(run):
    """The Parquet page checksums are verified on read too (a legacy manifest has no SHA-256)."""
    p = run / "part-000000.parquet"
    meta = pq.ParquetFile(p).metadata
    col = meta.row_group(0).column(meta.schema.names.index("points"))
    data = bytearray(p.read_bytes())
    start = col.dictionary_page_offset if col.has_dictionary_page else col.data_page_offset
    assert col.total_compressed_size > 60
    data[start + 40] ^= 0x01  # inside the column's first page's (compressed) data
    p.write_bytes(bytes(data))
    entry = dict(datasets.read_manifest(run)["shards"][0])
    entry.pop("sha256")  # as for a run without checksums
    r = datasets.Run(path=run, manifest=datasets.read_manifest(run), shards=(p,), entries=(entry,))
    with pytest.raises(datasets.DatasetError, match="part-000000.parquet is unreadable or corrupt"):
        r.read_shard(p, columns=["points"])


def test_a_resized_shard_is_refused(run):
    p = run / "part-000000.parquet"
    with open(p, "ab") as f:
        f.write(b"\0")
    _refused_by_every_reader(run, "part-000000.parquet", "bytes")


def _as_legacy(path, how="count") -> None:
    """The run's manifest without its shard list: as simkit wrote it before the list (``"count"``:
    the number of shards), or with the list deleted (``"deleted"``) or emptied to null (``"null"``)."""
    manifest = json.loads((path / datasets.MANIFEST).read_text())
    if how == "count":
        manifest["shards"] = len(manifest["shards"])
    elif how == "null":
        manifest["shards"] = None
    else:
        del manifest["shards"]
    (path / datasets.MANIFEST).write_text(json.dumps(manifest, indent=2))


def test_the_sample_run_lists_its_shard_with_its_checksum():
    run = datasets.open_run(SAMPLE)
    assert not run.legacy and len(run.shards) == 1
    assert run.entries[0]["sha256"] == datasets.file_digest(run.shards[0])
    df = analysis.load(SAMPLE, columns="match")
    assert run.entries[0]["rows"] == datasets.read_manifest(SAMPLE)["rows"] == len(df) and not df.attrs["legacy"]


def test_a_legacy_run_is_read_only_when_trusted_and_through_its_footers(tmp_path):
    """A manifest without the shard list has no checksums: every reader refuses it, unless
    open_run / read_run are told to trust it; trusted, its footers are checked against the
    manifest's spec and totals, and a stray or missing shard is still refused."""
    copy = tmp_path / "sample"
    shutil.copytree(SAMPLE, copy)
    _as_legacy(copy)
    _refused_by_every_reader(copy, "no shard list", "trust_legacy=True", "--overwrite")
    run = datasets.open_run(copy, trust_legacy=True)
    assert run.legacy and len(run.shards) == 1 and "sha256" not in run.entries[0]
    rows = datasets.read_manifest(copy)["rows"]
    assert len(datasets.read_run(copy, columns=["match"], trust_legacy=True)) == rows
    with pytest.raises(simkit.SimkitError, match="trust_legacy must be True or False"):
        datasets.open_run(copy, trust_legacy="yes")

    def refused_when_trusted(*words):
        with pytest.raises(datasets.DatasetError) as info:
            datasets.open_run(copy, trust_legacy=True)
        assert all(w in str(info.value) for w in words), str(info.value)

    shutil.copyfile(copy / "part-000000.parquet", copy / "part-000001.parquet")
    refused_when_trusted("part-000001.parquet", "another run")  # its footer names chunk 0
    (copy / "part-000001.parquet").rename(copy / "part-1.parquet")
    refused_when_trusted("part-1.parquet")
    (copy / "part-1.parquet").unlink()
    (copy / "part-000000.parquet").unlink()
    refused_when_trusted("0 shards")


@pytest.mark.parametrize("how", ["deleted", "null", "count"])
def test_deleting_the_shard_list_does_not_switch_the_checks_off(run, how):
    """A tampered shard and the manifest's shard list removed: every reader and the command refuse
    the run (no reader takes its shards on trust), and --resume refuses it too rather than writing
    fresh checksums over the tampered shard; --overwrite, as told, replaces the run."""
    p = run / "part-000001.parquet"
    data = bytearray(p.read_bytes())
    data[len(data) // 3] ^= 0x10
    p.write_bytes(bytes(data))
    _as_legacy(run, how)
    before = {q.name: q.read_bytes() for q in sorted(run.iterdir()) if q.is_file() and q.name != ".simkit.lock"}
    _refused_by_every_reader(run, "no shard list")
    with pytest.raises(datasets.DatasetError, match="no shard list"):
        simulate(run, resume=True)
    for argv in (["summarize", run], ["simulate", "--out", run, "--resume", "--quiet"], ["replay", run, "--row", "0"]):
        _one_line_error(_cli(*argv), "no shard list")
    after = {q.name: q.read_bytes() for q in sorted(run.iterdir()) if q.is_file() and q.name != ".simkit.lock"}
    assert after == before  # no checksum written over the tampered shard
    assert simulate(run, policies=GG, matches=30, seed=3, chunk_matches=10, overwrite=True).matches == 30
    assert len(datasets.read_run(run, columns=["match"])) == datasets.read_manifest(run)["rows"]


def test_a_shard_committed_but_not_yet_listed_is_recomputed_by_resume(tmp_path, good):
    """A kill between a shard's rename and the manifest's update: the shard is not trusted, resume
    computes it again (into the same bytes); a reader of the running run meanwhile reads only the
    listed shards. In a complete run such a file is refused."""
    out = tmp_path / "r"
    shutil.copytree(good[0], out)
    manifest = datasets.read_manifest(out)
    manifest["shards"] = manifest["shards"][:2]
    manifest["status"] = "running"
    datasets.write_manifest(out, manifest)
    assert datasets.open_run(out).shards == (out / "part-000000.parquet", out / "part-000001.parquet")
    with pytest.warns(UserWarning, match="not complete"):
        assert len(analysis.load(out)) == sum(e["rows"] for e in manifest["shards"])
    manifest["status"] = "complete"
    datasets.write_manifest(out, manifest)
    _refused_by_every_reader(out, "part-000002.parquet", "not a shard listed")
    manifest["status"] = "running"
    datasets.write_manifest(out, manifest)
    again = simulate(out, resume=True)
    assert again.computed_chunks == 1 and again.shards == 3
    assert _shard_bytes(out) == _shard_bytes(good[0])
    assert datasets.read_manifest(out)["shards"] == datasets.read_manifest(good[0])["shards"]


def test_a_long_run_lists_its_shards_lazily_and_resumes_the_unlisted_ones(tmp_path, monkeypatch):
    """Beyond LIST_AT_ONCE shards the manifest is rewritten at most once a second: shards committed
    since are skipped by readers and recomputed by --resume, into the same bytes."""
    sim = sys.modules["simkit.runs.simulation"]
    monkeypatch.setattr(sim, "LIST_AT_ONCE", 1)
    commit = datasets.commit_shard
    calls = []

    def dying_commit(tmp, directory, chunk):
        if len(calls) == 5:
            raise _Killed()
        calls.append(chunk)
        return commit(tmp, directory, chunk)

    monkeypatch.setattr(datasets, "commit_shard", dying_commit)
    out = tmp_path / "lazy"
    with pytest.raises(_Killed):
        simulate(out, policies=GG, matches=16, seed=2, chunk_matches=2)
    monkeypatch.setattr(datasets, "commit_shard", commit)
    listed = [e["file"] for e in datasets.read_manifest(out)["shards"]]
    on_disk = sorted(p.name for p in out.glob("part-*"))
    assert (
        len(on_disk) == 5 and 1 <= len(listed) <= 5 and listed == on_disk[: len(listed)]
    )  # < 5 unless the machine took 1 s
    assert [p.name for p in datasets.open_run(out).shards] == listed
    again = simulate(out, resume=True)
    assert again.computed_chunks == 8 - len(listed)
    clean = simulate(tmp_path / "clean", policies=GG, matches=16, seed=2, chunk_matches=2)
    assert _shard_bytes(out) == _shard_bytes(clean.path)
    assert datasets.read_manifest(out)["shards"] == datasets.read_manifest(clean.path)["shards"]


# ---------------------------------------------------------------------------------------------
# 2. overwrite and resume are atomic


class _Killed(BaseException):
    """Stands for SIGKILL in-process: nothing after it runs."""


def test_overwrite_killed_while_deleting_is_never_read_as_the_old_run(run, good, tmp_path, monkeypatch):
    deleted = []
    real_unlink = Path.unlink

    def dying_unlink(self, *a, **k):
        if self.name.startswith("part-") and any(d.startswith("part-") for d in deleted):
            raise _Killed()
        deleted.append(self.name)
        return real_unlink(self, *a, **k)

    monkeypatch.setattr(Path, "unlink", dying_unlink)
    with pytest.raises(_Killed):
        simulate(run, policies=GG, matches=12, seed=9, chunk_matches=4, overwrite=True)
    monkeypatch.undo()
    manifest = datasets.read_manifest(run)
    assert manifest["status"] == "overwriting" and not (run / "part-000000.parquet").exists()
    assert (run / "part-000002.parquet").exists() and not (run / datasets.COMMON_METADATA).exists()
    _refused_by_every_reader(run, "--overwrite")
    _one_line_error(_cli("summarize", run), "interrupted")
    _one_line_error(_cli("simulate", "--out", run, "--resume", "--quiet"), "interrupted")
    done = simulate(run, policies=GG, matches=12, seed=9, chunk_matches=4, overwrite=True)
    clean = simulate(tmp_path / "clean", policies=GG, matches=12, seed=9, chunk_matches=4)
    assert done.shards == 3 and _shard_bytes(run) == _shard_bytes(clean.path)
    assert datasets.read_manifest(run)["shards"] == datasets.read_manifest(clean.path)["shards"]


def test_overwrite_killed_while_writing_shows_only_the_new_runs_shards(run, tmp_path, monkeypatch):
    commit = datasets.commit_shard
    calls = []

    def dying_commit(tmp, directory, chunk):
        if len(calls) == 1:
            raise _Killed()
        calls.append(chunk)
        return commit(tmp, directory, chunk)

    monkeypatch.setattr(datasets, "commit_shard", dying_commit)
    with pytest.raises(_Killed):
        simulate(run, policies=GG, matches=12, seed=9, chunk_matches=4, overwrite=True)
    monkeypatch.undo()
    manifest = datasets.read_manifest(run)
    assert manifest["status"] == "running" and manifest["spec"]["seed"] == 9
    assert [e["file"] for e in manifest["shards"]] == ["part-000000.parquet"]
    assert sorted(p.name for p in run.glob("part-*")) == ["part-000000.parquet"]  # no old shard left
    with pytest.warns(UserWarning, match="not complete"):
        df = analysis.load(run)
    assert set(df["seed"]) == {9} and len(df) == manifest["shards"][0]["rows"]
    assert "running" in analysis.summarize(run).table()
    assert simulate(run, resume=True).shards == 3


def test_overwrite_sigkilled_during_the_new_run_shows_only_the_new_runs_shards(good, tmp_path):
    """The real command, SIGKILLed while --overwrite writes the new run: only the new run's listed
    shards are there, the run says 'running' (the old run's 'complete' is gone)."""
    out = tmp_path / "r"
    shutil.copytree(good[0], out)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simkit",
            "simulate",
            "--out",
            str(out),
            "--overwrite",
            "--quiet",
            "--matches",
            "20000",
            "--chunk-matches",
            "20",
            "--seed",
            "9",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        m = json.loads((out / datasets.MANIFEST).read_text())
        if m["spec"]["seed"] == 9 and len(m["shards"]) >= 2:
            break
        time.sleep(0.01)
    proc.kill()
    proc.wait(60)
    manifest = datasets.read_manifest(out)
    assert manifest["spec"]["seed"] == 9 and manifest["status"] == "running"
    pairs, pending = datasets.check_shards(out, manifest, pending_ok=True)  # pending: killed between rename and listing
    assert {p.name for p, _ in pairs} | {datasets.shard_name(c) for c in pending} == {
        p.name for p in out.glob("part-*")
    }
    for p, entry in pairs:
        datasets.verify_shard(p, entry)
        assert datasets.shard_metadata(p)["spec"]["seed"] == 9


def test_overwrite_only_replaces_a_dataset_its_manifest_describes(good, tmp_path):
    # a directory that merely holds a file named _simkit.json
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "keep.txt").write_text("mine")
    (notes / datasets.MANIFEST).write_text('{"format": "simkit-run/1"}')
    _one_line_error(
        _cli("simulate", "--out", notes, "--matches", "2", "--overwrite", "--quiet"), "not a simkit dataset"
    )
    (notes / datasets.MANIFEST).write_text("{not json")
    _one_line_error(
        _cli("simulate", "--out", notes, "--matches", "2", "--overwrite", "--quiet"), "not a simkit dataset"
    )
    # a real manifest copied next to files it does not list
    shutil.copyfile(good[0] / datasets.MANIFEST, notes / datasets.MANIFEST)
    with pytest.raises(simkit.SimkitError, match="keep.txt is not part of the simkit run"):
        simulate(notes, policies=GG, matches=2, overwrite=True)
    (notes / "data.parquet").write_text("x")
    with pytest.raises(simkit.SimkitError, match="data.parquet is not a shard listed"):
        simulate(notes, policies=GG, matches=2, overwrite=True)
    assert sorted(p.name for p in notes.iterdir() if p.name != ".simkit.lock") == [
        datasets.MANIFEST,
        "data.parquet",
        "keep.txt",
    ]
    assert (notes / "keep.txt").read_text() == "mine"


def test_overwrite_deletes_only_the_listed_files(run):
    (run / ".notes").write_text("hidden, mine")
    (run / "_README").write_text("mine too")
    with pytest.raises(simkit.SimkitError, match="_README is not part of the simkit run"):
        simulate(run, policies=GG, matches=4, overwrite=True)
    (run / "_README").unlink()
    with pytest.raises(simkit.SimkitError, match=".notes is not part"):
        simulate(run, policies=GG, matches=4, overwrite=True)
    (run / ".notes").unlink()
    (run / ".part-000007.parquet.12345.tmp").write_bytes(b"torn")  # a temporary file of a killed run
    assert simulate(run, policies=GG, matches=4, overwrite=True).shards == 1
    assert sorted(p.name for p in run.iterdir() if not p.name.startswith(".simkit")) == [
        datasets.COMMON_METADATA,
        datasets.MANIFEST,
        "part-000000.parquet",
    ]


# ---------------------------------------------------------------------------------------------
# 3. worker processes die with their parent


def test_resume_cleans_temporary_files_a_power_loss_left(run):
    manifest = datasets.read_manifest(run)
    manifest["status"] = "running"
    datasets.write_manifest(run, manifest)
    (run / ".part-000001.parquet.4242.tmp").write_bytes(b"half")
    (run / "._simkit.json.4242.tmp").write_text("{")
    assert simulate(run, resume=True).computed_chunks == 0
    assert not datasets.temporary_files(run) and datasets.read_manifest(run)["status"] == "complete"


def _descendants(pid):
    children = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _running(pids):
    alive = []
    for p in pids:
        try:
            state = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X"):
            alive.append(p)
    return alive


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_workers_die_with_the_killed_parent_and_leave_no_temporary_files(tmp_path, sig):
    out = tmp_path / "w"
    argv = [
        sys.executable,
        "-m",
        "simkit",
        "simulate",
        "--out",
        str(out),
        "--workers",
        "2",
        "--quiet",
        "--matches",
        "4000",
        "--chunk-matches",
        "100",
        "--seed",
        "1",
    ]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 600
    while time.time() < deadline and proc.poll() is None and not list(out.glob("part-*.parquet")):
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read()
    time.sleep(0.3)  # the workers are computing (and writing) the next chunks
    workers = _descendants(proc.pid)
    assert len(workers) >= 2
    os.kill(proc.pid, sig)
    proc.wait(60)
    deadline = time.time() + 30
    while _running(workers) and time.time() < deadline:
        time.sleep(0.1)
    assert not _running(workers), "worker processes outlived the run"
    assert not datasets.temporary_files(out)
    if sig == signal.SIGTERM:  # an orderly stop, like Ctrl-C
        assert proc.returncode == 130 and "--resume" in proc.stderr.read()
    manifest = datasets.read_manifest(out)
    pairs, _ = datasets.check_shards(out, manifest, pending_ok=True)  # (a shard may be committed but not yet listed)
    assert manifest["status"] == "running" and pairs


# ---------------------------------------------------------------------------------------------
# 4. strict inputs, one-line errors


@pytest.mark.parametrize("flag", ["overwrite", "resume", "progress", "duplicate"])
@pytest.mark.parametrize("value", ["no", "False", 1, 0, None, [True]])
def test_flags_take_only_real_booleans(tmp_path, flag, value):
    if flag == "duplicate" and value is None:
        return  # None: not given (the run's or the default)
    with pytest.raises(simkit.SimkitError, match=f"{flag} must be True or False"):
        simulate(tmp_path / "x", policies=GG, matches=1, **{flag: value})
    assert not (tmp_path / "x").exists()


def test_overwrite_no_keeps_the_dataset_and_duplicate_no_is_not_a_duplicate_run(good):
    before = _shard_bytes(good[0])
    with pytest.raises(simkit.SimkitError, match="overwrite must be True or False"):
        simulate(good[0], policies=GG, matches=1, overwrite="no")
    assert _shard_bytes(good[0]) == before
    with pytest.raises(simkit.SimkitError, match="duplicate must be True or False"):
        simulate(good[0].parent / "dup", policies=GG, matches=1, duplicate="no")


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(matches=2**63), "matches must be at most 2**47"),
        (dict(matches=2**47 + 1), "matches must be at most 2**47"),
        (dict(hands=2**63 + 5), "hands must be at most"),
        (dict(matches=3, chunk_matches=2**64), "chunk_matches must be at most"),
        (dict(matches=1.0), "matches must be a positive integer"),
        (dict(matches=True), "matches must be a positive integer"),
        (dict(seed=2**63), "seed must be an integer between 0 and 2**63 - 1"),
        (dict(seed=-1), "seed must be"),
        (dict(seed=1.5), "seed must be"),
        (dict(workers=0), "workers must be a positive integer"),
        (dict(workers=10**6), "workers must be at most"),
        (dict(workers="2"), "workers must be a positive integer"),
        (dict(hands=10, chunk_matches=2**40), "GiB of buffers"),
    ],
)
def test_counts_are_integers_in_range(tmp_path, kwargs, words):
    with pytest.raises(simkit.SimkitError) as info:
        simulate(tmp_path / "x", policies=GG, **kwargs)
    assert words in str(info.value)
    assert not (tmp_path / "x").exists()


def test_huge_chunk_matches_is_one_line_before_allocating(tmp_path):
    proc = _cli("simulate", "--out", tmp_path / "x", "--hands", "10", "--chunk-matches", 10**12, "--quiet")
    _one_line_error(proc, "--chunk-matches", "GiB")
    assert not (tmp_path / "x").exists()
    _one_line_error(_cli("simulate", "--out", tmp_path / "y", "--matches", 2**62, "--quiet"), "at most 2**47")


def test_a_300_character_out_name_is_one_line(tmp_path):
    proc = _cli("simulate", "--out", tmp_path / ("r" * 300), "--matches", "2", "--quiet")
    _one_line_error(proc, "File name too long")
    proc = _cli("simulate", "--out", tmp_path / ("r" * 300), "--resume", "--quiet")
    _one_line_error(proc)
    _one_line_error(_cli("summarize", tmp_path / ("r" * 300)))


def test_a_manifest_without_spec_is_one_line(run):
    manifest = datasets.read_manifest(run)
    del manifest["spec"]
    (run / datasets.MANIFEST).write_text(json.dumps(manifest))
    _one_line_error(_cli("summarize", run), "has no spec")
    _one_line_error(_cli("simulate", "--out", run, "--resume", "--quiet"), "has no spec")
    _one_line_error(_cli("simulate", "--out", run, "--overwrite", "--matches", "2", "--quiet"), "has no spec")
    assert len(list(run.glob("part-*"))) == 3  # nothing deleted


def _limit_file_size():  # runs in the child: writes past 20 kB fail with EFBIG, as on a full disk
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


def test_a_full_disk_is_one_line_and_the_run_resumes(tmp_path, good):
    out = tmp_path / "full"
    proc = _cli(
        "simulate",
        "--out",
        out,
        "--matches",
        "30",
        "--seed",
        "3",
        "--chunk-matches",
        "10",
        "--quiet",
        preexec_fn=_limit_file_size,
    )
    line = _one_line_error(proc, "File too large", "--resume")
    assert str(out) in line
    assert datasets.read_manifest(out)["status"] == "running" and not datasets.temporary_files(out)
    done = _cli("simulate", "--out", out, "--resume", "--quiet")
    assert done.returncode == 0, done.stderr
    assert _shard_bytes(out) == _shard_bytes(good[0])


def test_a_full_disk_error_in_process_is_one_line(tmp_path, monkeypatch):
    import errno

    real = pq.write_table
    calls = []

    def full(*a, **k):
        calls.append(1)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*a, **k)

    monkeypatch.setattr(pq, "write_table", full)
    with pytest.raises(simkit.SimkitError) as info:
        simulate(tmp_path / "d", policies=GG, matches=6, chunk_matches=2)
    assert "No space left on device" in str(info.value) and "--resume" in str(info.value)
    monkeypatch.undo()
    assert datasets.read_manifest(tmp_path / "d")["status"] == "running"
    assert simulate(tmp_path / "d", resume=True).shards == 3


def test_a_lost_dask_worker_is_one_line_and_the_run_resumes(tmp_path, monkeypatch, capsys):
    """Dask's KilledWorker (a chunk whose workers kept dying) through the command's error path;
    the committed shards stay listed and --resume finishes the run."""
    distributed = pytest.importorskip("distributed")
    import simkit.runs.dask_cluster as sd
    from simkit.cli import main
    from simkit.runs.chunk_job import compute_chunk

    class Future:
        def __init__(self, fn, args, fail):
            self.fn, self.args, self.fail = fn, args, fail

        def result(self):
            if self.fail:
                worker = types.SimpleNamespace(address="tcp://127.0.0.1:1234")
                raise distributed.KilledWorker("simkit-chunk-2", worker, 3)
            return self.fn(*self.args)

        def cancel(self):
            return True

    class Executor:
        window = 1

        def __init__(self, client, job):
            pass

        def submit(self, fn, job, chunk, first, n):
            return Future(fn, (job, chunk, first, n), chunk == 2)

        def shutdown(self, wait=True, cancel_futures=False):
            pass

    monkeypatch.setattr(sd, "connect", lambda scheduler, n=None: (object(), False, "client"))
    monkeypatch.setattr(sd, "DaskExecutor", Executor)
    out = tmp_path / "dask"
    code = main(
        ["simulate", "--out", str(out), "--matches", "8", "--chunk-matches", "2", "--scheduler", "x", "--quiet"]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "KilledWorker" in err[0] and "--resume" in err[0], err
    manifest = datasets.read_manifest(out)
    assert manifest["status"] == "running" and [e["chunk"] for e in manifest["shards"]] == [0, 1]
    assert not datasets.temporary_files(out)
    assert compute_chunk  # the fake executor ran the real chunk code
    monkeypatch.undo()
    assert simulate(out, resume=True).shards == 4


@pytest.mark.slow
def test_a_lost_dask_worker_through_the_command_is_one_line_and_resumable(tmp_path, good):
    """The real command on a LocalCluster whose scheduler allows no worker failure: the worker
    process SIGKILLed mid-run gives Dask's KilledWorker, reported in one line with exit code 2; the
    run resumes (without Dask) into the same shards as a clean run."""
    pytest.importorskip("distributed")
    out = tmp_path / "dask"
    env = dict(os.environ, DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES="0")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "simkit",
            "simulate",
            "--out",
            str(out),
            "--scheduler",
            "local",
            "--workers",
            "1",
            "--matches",
            "3000",
            "--chunk-matches",
            "10",
            "--seed",
            "3",
            "--quiet",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    deadline = time.time() + 600
    while time.time() < deadline and proc.poll() is None and not list(out.glob("part-*.parquet")):
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read()
    victims = [p for p in _descendants(proc.pid) if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()]
    assert victims
    for p in victims:
        os.kill(p, signal.SIGKILL)
    _, err = proc.communicate(timeout=300)
    lines = err.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("simkit: error: "), err
    assert "worker" in lines[0] and "--resume" in lines[0]
    manifest = datasets.read_manifest(out)
    assert manifest["status"] == "running" and manifest["shards"] and not datasets.temporary_files(out)
    done = _cli("simulate", "--out", out, "--resume", "--quiet", "--matches", "3000")
    assert done.returncode == 0, done.stderr
    clean = simulate(tmp_path / "clean", policies=GG, matches=3000, seed=3, chunk_matches=10)
    assert _shard_bytes(out) == _shard_bytes(clean.path)
