"""A run's manifest cannot lie: what ``_simkit.json`` says of the run is checked against the shards.

Every shard's footer holds the spec of the run that wrote it (rule set and options, policies, seed,
target, duplicate, items, chunking) and its chunk, matches and rows. A manifest edited by hand is
refused, in one line naming the field and the way out, by every reader (open_run, analysis.load,
summarize, compare) and by --resume, which would otherwise compute toward an edited target. Following
the way out (put the shards' value back, or rerun with --overwrite) works. Also here: a deeply nested
manifest, a damaged shard's advice, and what the ``turns`` column counts.

One small greedy/greedy douque run is made once and copied for each case.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from simkit import analysis, datasets
from simkit.runs.simulation import simulate

GG = ("greedy", "greedy")
SETTINGS = dict(policies=GG, matches=20, seed=5, chunk_matches=5)
SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample"


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A complete run of 20 matches in 4 shards."""
    path = tmp_path_factory.mktemp("manifest") / "good"
    simulate(path, **SETTINGS)
    return path


@pytest.fixture
def run(good, tmp_path):
    """A fresh copy of the good run to edit."""
    dst = tmp_path / "run"
    shutil.copytree(good, dst)
    return dst


def _files(path) -> dict:
    return {p.name: p.read_bytes() for p in sorted(Path(path).iterdir()) if p.is_file() and p.name != ".simkit.lock"}


def _set(manifest: dict, where: tuple, value) -> None:
    node = manifest
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value


def _edit(path, where: tuple, value) -> None:
    """Edit one field of the run's manifest by hand (as a user with a text editor would)."""
    manifest = json.loads((path / datasets.MANIFEST).read_text())
    _set(manifest, where, value)
    (path / datasets.MANIFEST).write_text(json.dumps(manifest, indent=2))


def _refusal(read, *args, **kwargs) -> str:
    """The one-line DatasetError that ``read(*args, **kwargs)`` raises."""
    with pytest.raises(datasets.DatasetError) as info:
        read(*args, **kwargs)
    text = str(info.value)
    assert "\n" not in text, text
    return text


def _readers(path, other):
    """Every way a run is read: (name, call)."""
    return [
        ("open_run", lambda: datasets.open_run(path)),
        ("load", lambda: analysis.load(path)),
        ("summarize", lambda: analysis.summarize(path)),
        ("compare", lambda: analysis.compare(path, other, value="points")),
        ("compare b", lambda: analysis.compare(other, path, value="points")),
        ("resume", lambda: simulate(path, resume=True)),
    ]


# (where in the manifest, the edited value, the field the message names, the shards' value); a
# complete run's totals are rewritten from its shards by --resume, which thus repairs them
EDITS = [
    (("spec", "seed"), 6, "seed", 5),
    (("spec", "rules", "name"), "duel", "rules.name", "douque"),
    (("spec", "rules", "options", "migi_tai"), 4, "rules.options.migi_tai", 8),
    (("spec", "rules", "options", "migi_tai"), 5, "rules.options.migi_tai", 8),  # not even allowed
    (("spec", "rules", "options", "base"), 50.0, "rules.options.base", 50),  # a float is not the int written
    (("spec", "policies", 0, "label"), "smart", "policies[0].label", "greedy"),
    (("spec", "policies", 1, "params", 0), 3.0, "policies[1].params[0]", 1.0),
    (("spec", "duplicate"), True, "duplicate", False),
    (("spec", "items", 0), "fully_concealed", "items[0]", "self_drawn"),
    (("spec", "target", "matches"), 1_000_000, "target.matches", 20),
    (("spec", "chunk_matches"), 10, "chunk_matches", 5),
    (("rows",), 5, "rows", None),
    (("matches",), 21, "matches", 20),
    (("shards", 1, "rows"), 1, "rows", None),
    (("shards", 2, "matches"), 7, "matches", 5),
    (("shards", 3, "first_match"), 0, "first_match", 15),
]


@pytest.mark.parametrize("where, value, field, theirs", EDITS, ids=[".".join(map(str, e[0])) for e in EDITS])
def test_an_edited_manifest_is_refused_by_every_reader_and_resume(run, good, tmp_path, where, value, field, theirs):
    other = tmp_path / "other"
    shutil.copytree(good, other)
    _edit(run, where, value)
    before = _files(run)
    repaired = where in (("rows",), ("matches",))
    for name, read in _readers(run, other):
        if name == "resume" and repaired:
            continue
        text = _refusal(read)
        assert f"{field} " in text and "edited" in text, (name, text)
        if theirs is not None:
            assert f"put {json.dumps(theirs)} back" in text, (name, text)
        assert "--overwrite" in text, (name, text)
    assert _files(run) == before  # the refused resume wrote nothing, computed nothing
    if repaired:
        assert simulate(run, resume=True).computed_chunks == 0
        assert datasets.read_manifest(run)[where[0]] == datasets.read_manifest(good)[where[0]]


@pytest.mark.parametrize(
    "where, value, field, theirs",
    EDITS[:4] + EDITS[-4:-2],
    ids=[".".join(map(str, e[0])) for e in EDITS[:4] + EDITS[-4:-2]],
)
def test_putting_the_shards_value_back_as_told_makes_the_run_readable(run, where, value, field, theirs):
    _edit(run, where, value)
    text = _refusal(datasets.open_run, run)
    told = re.search(r"put (.+) back", text).group(1)
    _edit(run, where, json.loads(told))
    assert len(analysis.load(run)) == datasets.read_manifest(run)["rows"]
    assert simulate(run, resume=True).computed_chunks == 0


def test_the_cli_refuses_an_edited_manifest_in_one_line(run):
    _edit(run, ("spec", "seed"), 6)
    for args in (("summarize", run), ("simulate", "--out", run, "--resume", "--quiet")):
        proc = subprocess.run(
            [sys.executable, "-m", "simkit", *map(str, args)], capture_output=True, text=True, timeout=600
        )
        lines = proc.stderr.strip().splitlines()
        assert proc.returncode == 2 and len(lines) == 1, proc.stderr
        assert lines[0].startswith("simkit: error: ") and "seed 6 differs from its shards' 5" in lines[0]


def test_rerunning_an_edited_run_with_overwrite_works(run, good):
    _edit(run, ("spec", "target", "matches"), 1_000_000)
    assert "--overwrite" in _refusal(analysis.summarize, run)
    result = simulate(run, overwrite=True, **SETTINGS)
    assert result.matches == 20 and analysis.summarize(run).rows == datasets.read_manifest(good)["rows"]


def test_an_illegal_rule_option_is_refused_by_the_rules_even_without_shards(run):
    """A run just started (no shard yet) has no footer to compare with: its manifest's spec is
    what its shards will carry, and its rules must still pass the rule set's validation."""
    manifest = datasets.read_manifest(run)
    for p in run.glob("part-*.parquet"):
        p.unlink()
    (run / datasets.COMMON_METADATA).unlink()
    manifest.update(status="running", shards=[])
    datasets.write_manifest(run, manifest)
    assert datasets.open_run(run).shards == ()  # nothing to compare: fine
    _edit(run, ("spec", "rules", "options", "migi_tai"), 5)
    for read in (datasets.open_run, lambda p: simulate(p, resume=True)):
        text = _refusal(read, run)
        assert "rules are not valid" in text and "migi_tai=5 is not allowed" in text, text
    assert datasets.read_manifest(run)["shards"] == []


def test_a_shard_written_by_another_run_is_named(run, tmp_path):
    """Footers that disagree among themselves: the manifest is not what was edited, a shard is foreign
    (its checksum forged along with its entry)."""
    other = tmp_path / "other"
    simulate(other, policies=GG, matches=20, seed=6, chunk_matches=5)
    shutil.copyfile(other / "part-000001.parquet", run / "part-000001.parquet")
    manifest = datasets.read_manifest(run)
    manifest["shards"][1] = datasets.read_manifest(other)["shards"][1]
    manifest["rows"] = sum(e["rows"] for e in manifest["shards"])
    datasets.write_manifest(run, manifest)
    text = _refusal(datasets.open_run, run)
    assert "part-000001.parquet was not written by this run: its footer's seed 6 differs from the manifest's 5" in text


def test_a_run_marked_complete_too_early_is_refused(run):
    manifest = datasets.read_manifest(run)
    (run / "part-000003.parquet").unlink()
    rows = sum(e["rows"] for e in manifest["shards"][:3])
    manifest.update(shards=manifest["shards"][:3], rows=rows, matches=15)
    datasets.write_manifest(run, manifest)
    text = _refusal(analysis.load, run)
    assert "says the run is complete, but its shards hold 15 of its 20 matches" in text and "--resume" in text
    assert simulate(run, resume=True).computed_chunks == 1  # the way out works
    assert analysis.summarize(run).matches == 20


def test_a_legacy_manifest_is_checked_against_its_footers_when_trusted(tmp_path):
    copy = tmp_path / "sample"
    shutil.copytree(SAMPLE, copy)
    _edit(copy, ("shards",), 1)  # as simkit wrote it before the shard list: the count
    _edit(copy, ("spec", "seed"), 1)
    assert "the manifest's seed 1 differs from its shards' 0" in _refusal(datasets.open_run, copy, trust_legacy=True)
    assert "no shard list" in _refusal(analysis.summarize, copy)
    assert simulate(copy, policies=GG, matches=2, seed=1, overwrite=True).matches == 2  # the way out


@pytest.mark.parametrize(
    "where, value",
    [(("shards",), None), (("shards",), 4), (("shards",), []), (("shards", 0, "sha256"), "")],
    ids=["null", "count", "emptied", "checksum emptied"],
)
def test_a_manifest_stripped_of_its_checks_is_refused_by_every_reader_and_resume(run, good, tmp_path, where, value):
    """Removing the shard list or a checksum switches no check off: every reader refuses the run in one
    line, and so does resume, writing nothing, except for an emptied list, whose shards resume does
    not trust but computes again (into the run's bytes)."""
    other = tmp_path / "other"
    shutil.copytree(good, other)
    _edit(run, where, value)
    before = _files(run)
    for name, read in _readers(run, other):
        if name == "resume" and value == []:
            continue
        _refusal(read)
    assert _files(run) == before
    if value == []:
        assert simulate(run, resume=True).computed_chunks == 4
        shards = {k: v for k, v in _files(run).items() if k.startswith("part-")}
        assert shards == {k: v for k, v in _files(good).items() if k.startswith("part-")}


@pytest.mark.parametrize("depth", [100_000, datasets.MAX_MANIFEST_DEPTH + 1])
def test_a_deeply_nested_manifest_is_one_line(run, depth):
    valid = datasets.read_manifest(run)
    (run / datasets.MANIFEST).write_text("[" * depth + "]" * depth)
    for read in (datasets.open_run, analysis.load, analysis.summarize, lambda p: simulate(p, resume=True)):
        assert "nested more than" in _refusal(read, run)
    # nested inside an otherwise valid manifest, shallow enough for the JSON parser
    nest = 1.0
    for _ in range(min(depth, 900)):
        nest = [nest]
    valid["spec"]["policies"][0]["params"] = nest
    (run / datasets.MANIFEST).write_text(json.dumps(valid))
    assert "nested more than" in _refusal(datasets.open_run, run)


def test_a_resized_shard_is_refused_and_overwrite_as_told_replaces_the_run(run, good):
    with open(run / "part-000001.parquet", "ab") as f:
        f.write(b"\0")
    for read in (analysis.summarize, lambda p: simulate(p, resume=True)):
        text = _refusal(read, run)
        assert "part-000001.parquet" in text and "rerun the run with --overwrite" in text
    assert simulate(run, overwrite=True, **SETTINGS).computed_chunks == 4
    assert {k: v for k, v in _files(run).items() if k.startswith("part-")} == {
        k: v for k, v in _files(good).items() if k.startswith("part-")
    }


def test_a_bit_flip_is_refused_and_overwrite_as_told_replaces_the_run(run, good):
    p = run / "part-000002.parquet"
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0x10
    p.write_bytes(bytes(data))
    text = _refusal(analysis.load, run)
    assert "part-000002.parquet is corrupt" in text and "rerun the run with --overwrite" in text
    assert simulate(run, overwrite=True, **SETTINGS).computed_chunks == 4
    assert analysis.summarize(run).rows == datasets.read_manifest(good)["rows"]


def test_footers_are_read_once_per_process_and_file_version(run, monkeypatch):
    reads = []
    real = datasets.shard_metadata
    monkeypatch.setattr(datasets.manifest, "shard_metadata", lambda path: reads.append(Path(path).name) or real(path))
    datasets.open_run(run, verify=False)
    assert sorted(reads) == [datasets.shard_name(c) for c in range(4)]
    reads.clear()
    datasets.open_run(run, verify=False)
    assert reads == []
    (run / "part-000001.parquet").touch()  # a new file version: read again
    datasets.open_run(run, verify=False)
    assert reads == ["part-000001.parquet"]


def test_the_footer_is_read_from_its_bytes_as_pyarrow_reads_it(good, tmp_path):
    import pyarrow.parquet as pq

    for p in [*sorted(good.glob("part-*.parquet")), SAMPLE / "part-000000.parquet"]:
        assert datasets.shard_metadata(p) == json.loads(pq.read_schema(p).metadata[datasets.METADATA_KEY.encode()])
    junk = tmp_path / "junk.parquet"
    junk.write_bytes(b"not parquet PAR1")
    with pytest.raises(Exception):
        datasets.shard_metadata(junk)


def test_turns_is_documented_as_the_decisions_it_counts():
    doc = dict((name, doc) for name, _, doc in datasets.COLUMNS)["turns"]
    assert doc.startswith("decisions taken in the hand") and "not its discards" in doc


def _leaves(node, where=()):
    """Every (path, value) of a JSON tree's leaves."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, where + (key,))
    elif isinstance(node, list) and node:
        for i, value in enumerate(node):
            yield from _leaves(value, where + (i,))
    else:
        yield where, node


def test_random_edits_of_the_spec_are_refused_or_change_nothing(good, tmp_path):
    """Fuzz: 60 random edits of one leaf of the manifest's spec (another number, string, list,
    null or a nested value), each read back by open_run: refused in one line, never reported."""
    import random

    py = random.Random(7)
    manifest = json.loads((good / datasets.MANIFEST).read_text())
    leaves = [(("spec",) + w, v) for w, v in _leaves(manifest["spec"])]
    for case in range(60):
        where, old = py.choice(leaves)
        new = py.choice(
            [
                old + 1 if isinstance(old, (int, float)) and not isinstance(old, bool) else 1,
                "x",
                None,
                [old],
                {"k": old},
                -1,
                2**70,
                0.5,
                not old if isinstance(old, bool) else True,
            ]
        )
        if new == old and type(new) is type(old):
            continue
        path = tmp_path / f"case{case}"
        shutil.copytree(good, path)
        _edit(path, where, new)
        try:
            datasets.open_run(path)
        except ValueError as exc:  # DatasetError, or a one-line refusal of the edited rules
            assert "\n" not in str(exc), (where, new, str(exc))
        else:
            raise AssertionError(f"an edit of {where} to {new!r} was reported as fact")
