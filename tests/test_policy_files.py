"""Learned policies in files: a network saved with ``save_policy`` plays, through every door a policy
goes through, the action a plain numpy forward pass chooses; runs record the file, not the
weights; a replay refuses a file that changed; a bad file is refused in one line."""

from __future__ import annotations

import json
import os
import pickle
import re
import shutil
import struct
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import simkit
from simkit import datasets
from simkit.analysis import compare, load
from simkit.cli import main
from simkit.engine.actions import N_ACTIONS
from simkit.envs import OBSERVATION_SIZE, encode_view
from simkit.play.stepper import GameState
from simkit.policies.network import network_policy, network_scores
from simkit.policies.spec import PolicyError, as_policy, from_record
from simkit.runs.simulation import simulate
from simkit.tournament import round_robin


def random_layers(seed, hidden=()):
    rng = np.random.default_rng(seed)
    sizes = [OBSERVATION_SIZE, *hidden, N_ACTIONS]
    return [(rng.normal(size=(a, b)) * 0.3, rng.normal(size=b) * 0.1) for a, b in zip(sizes, sizes[1:])]


def numpy_scores(layers, x, activation):
    """The reference forward pass: float32 weights as stored, float64 arithmetic."""
    a = x.astype(np.float64)
    for i, (w, b) in enumerate(layers):
        a = a @ w.astype(np.float32).astype(np.float64) + b.astype(np.float32).astype(np.float64)
        if i < len(layers) - 1:
            a = np.maximum(a, 0.0) if activation == "relu" else np.tanh(a)
    return a


@pytest.fixture(scope="module")
def agent(tmp_path_factory):
    path = tmp_path_factory.mktemp("agents") / "mlp.npz"
    simkit.save_policy(path, random_layers(1, (16,)), label="mlp16", rules="douque", notes={"trained": "no"})
    return path


@pytest.mark.parametrize(
    "hidden, activation, rules", [((), "relu", "duel"), ((16,), "relu", "douque"), ((8, 8), "tanh", "for_two")]
)
def test_the_engine_plays_the_numpy_forward_pass(tmp_path, hidden, activation, rules):
    layers = random_layers(len(hidden), hidden)
    path = simkit.save_policy(tmp_path / "a.npz", layers, label="net", activation=activation)
    p = simkit.load_policy(path)
    assert p.source.architecture == ("linear" if not hidden else "mlp") and p.source.rules is None
    scores = np.empty(N_ACTIONS)
    checked = 0
    s = GameState.new_match(rules, seed=2)
    while True:
        while not s.over:
            view, legal = s.view(), s.legal
            x = encode_view(view)
            ref = numpy_scores(layers, x, activation)
            network_scores(p.params, x, scores)
            np.testing.assert_allclose(scores, ref, rtol=1e-9, atol=1e-9)
            masked = np.where(legal > 0, ref, -np.inf)
            action = int(network_policy(view, legal, p.params, s.policy_stream()))
            assert legal[action]
            if np.ptp(np.sort(masked)[-2:]) > 1e-6:  # no near tie
                assert action == int(masked.argmax())
            checked += 1
            s.apply(action)
        if not s.next_hand():
            break
    assert checked > 20

    # inside the engine: the same games as asking the network from Python at every decision
    def from_python(view, legal, params, rng):
        return network_policy(view, legal, p.params, rng)

    engine = simkit.simulate_matches(rules, (p, "greedy"), 3, seed=4)
    python = simkit.simulate_matches(rules, (from_python, "greedy"), 3, seed=4)
    assert len(engine["score_0"]) >= 3 and np.array_equal(python["score_0"], engine["score_0"])


def test_a_file_round_trips_and_labels_itself_briefly(agent, tmp_path, capsys):
    p = simkit.load_policy(agent)
    assert p.label == "mlp16" and p.source.sizes == (OBSERVATION_SIZE, 16, N_ACTIONS)
    assert p.source.notes == {"trained": "no"} and p.source.rules == "douque"
    assert len(p.params) == 3 + 3 + OBSERVATION_SIZE * 16 + 16 + 16 * N_ACTIONS + N_ACTIONS
    assert as_policy(f"bot={agent}").label == "bot" and as_policy(str(agent)) == p
    assert simkit.load_policy(agent, label="other").label == "other"
    record = p.record()
    assert record == {
        "label": "mlp16",
        "name": "simkit.policies.network:network_policy",
        "file": str(agent.resolve()),
        "sha256": p.source.sha256,
        "trained_for": "douque",
    }
    assert from_record(record) == p
    again = pickle.loads(pickle.dumps(p))
    assert again == p and again.source == p.source
    # a function with a long vector is named by its length and a hash, not every number
    long = as_policy((network_policy, p.params))
    assert long.label.startswith("network_policy[n=") and len(long.label) < 60
    assert main(["policies", str(agent)]) == 0
    shown = capsys.readouterr().out
    assert "mlp16: a learned policy" in shown and f"{OBSERVATION_SIZE} -> 16 -> 148" in shown and "trained: no" in shown


def test_a_run_records_the_file_and_replays_it(agent, tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["simulate", "--policies", f"bot={agent},greedy", "--matches", "6", "--duplicate", "--seed", "3",
                 "--chunk-matches", "2", "--out", str(out), "--quiet"]) == 0  # fmt: skip
    manifest = (out / "_simkit.json").read_text()
    assert len(manifest) < 20_000
    record = datasets.read_manifest(out)["spec"]["policies"][0]
    assert record["label"] == "bot" and record["file"] == str(agent.resolve()) and "params" not in record
    df = load(out)
    assert set(df["policy_0"]) == {"bot", "greedy"}
    run = datasets.open_run(out)
    row = df.iloc[2]
    assert run.replay(row).row["points"] == row["points"]
    assert compare(out, correct_luck=True) is not None
    # the same run from Python, with two worker processes: the same bytes
    two = simulate(tmp_path / "two", rules="douque", policies=(f"bot={agent}", "greedy"), matches=6,
                   duplicate=True, seed=3, workers=2, chunk_matches=2, progress=False)  # fmt: skip
    shards = sorted(p.read_bytes() for p in out.glob("part-*.parquet"))
    assert len(shards) == 3 and sorted(p.read_bytes() for p in two.path.glob("part-*.parquet")) == shards
    # the file changes: replay refuses, unless told
    simkit.save_policy(agent, random_layers(9, (16,)), label="mlp16", rules="douque")
    with pytest.raises(simkit.SimkitError, match="changed since the run"):
        run.replay(row)
    run.replay(row, allow_changed=True)
    assert main(["replay", str(out), "--row", "2"]) == 2
    assert "--allow-changed" in capsys.readouterr().err


def test_a_round_robin_takes_policy_files(agent, tmp_path):
    t = round_robin([str(agent), "greedy"], rules=["douque"], matches=4, seed=1, directory=tmp_path)
    assert "mlp16" in str(t)


def test_bad_files_and_layers_are_refused_in_one_line(agent, tmp_path):
    with pytest.raises(PolicyError, match="does not exist"):
        simkit.load_policy(tmp_path / "none.npz")
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(PolicyError, match="is not a simkit policy file"):
        simkit.load_policy(tmp_path / "text.npz")
    with np.load(agent) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta["observation_layout"][0][1] = 35
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(tmp_path / "layout.npz", **arrays)
    with pytest.raises(PolicyError, match=r"another observation layout \(fields that differ: hand\)"):
        simkit.load_policy(tmp_path / "layout.npz")
    with pytest.raises(PolicyError, match="trained for douque.*this run plays duel"):
        simkit.simulate_matches("duel", (str(agent), "greedy"), 1)
    with pytest.raises(PolicyError, match=r"layer 0 has weights \(3, 4\)"):
        simkit.save_policy(tmp_path / "x.npz", [(np.zeros((3, 4)), np.zeros(4))], label="x")
    with pytest.raises(PolicyError, match="the last layer has 16 outputs"):
        simkit.save_policy(tmp_path / "x.npz", random_layers(0, (16,))[:1], label="x")
    with pytest.raises(PolicyError, match="ends in .npz"):
        simkit.save_policy(tmp_path / "x.bin", random_layers(0), label="x")
    with pytest.raises(PolicyError, match="activation is one of relu, tanh"):
        simkit.save_policy(tmp_path / "x.npz", random_layers(0), label="x", activation="gelu")
    with pytest.raises(PolicyError, match="a policy label"):
        simkit.save_policy(tmp_path / "x.npz", random_layers(0), label="two words")
    assert not (tmp_path / "x.npz").exists()


def test_a_temperature_samples_the_legal_actions_from_the_policy_stream(tmp_path):
    layers = random_layers(3)
    warm = simkit.load_policy(simkit.save_policy(tmp_path / "t.npz", layers, label="warm", temperature=50.0))
    cold = simkit.load_policy(simkit.save_policy(tmp_path / "c.npz", layers, label="cold"))
    assert warm.source.temperature == 50.0
    s = GameState.new_match("duel", seed=6)
    view, legal = s.view(), s.legal
    stream = s.policy_stream().copy()
    sampled = [int(network_policy(view, legal, warm.params, stream)) for _ in range(200)]
    assert all(legal[a] for a in sampled) and len(set(sampled)) > 3
    assert {int(network_policy(view, legal, cold.params, stream)) for _ in range(20)} == {
        int(np.where(legal > 0, numpy_scores(layers, encode_view(view), "relu"), -np.inf).argmax())
    }
    one = simkit.simulate_matches("duel", (warm, "greedy"), 4, seed=6)
    two = simkit.simulate_matches("duel", (warm, "greedy"), 4, seed=6)
    assert np.array_equal(one["score_0"], two["score_0"])


def test_the_built_in_learned_agent_loads_by_name_and_keeps_to_its_rule_set(tmp_path):
    from simkit.policies.registry import AGENTS

    learned = as_policy("learned")
    assert learned.label == "learned" and learned.source.rules == "douque"
    assert learned.source.path == str(AGENTS["learned"]) and AGENTS["learned"].stat().st_size < 4_000_000
    assert as_policy("bot=learned").label == "bot"
    # shown by its name, not by where this installation keeps its file
    assert learned.text() == repr(learned)[8:-2] == "learned" and as_policy("bot=learned").text() == "bot=learned"
    assert as_policy(learned.text()) == learned
    record = learned.record()
    assert record["agent"] == "learned" and "params" not in record
    # found by name wherever simkit is installed, and still checked against the run's SHA-256
    assert from_record({**record, "file": str(tmp_path / "elsewhere.npz")}) == learned
    with pytest.raises(PolicyError, match="changed since the run"):
        from_record({**record, "sha256": "0" * 64})
    with pytest.raises(PolicyError, match="learned agent: it takes no parameters"):
        as_policy("learned{x=1}")
    with pytest.raises(PolicyError, match="trained for douque.*this run plays duel"):
        simkit.simulate_matches("duel", ("learned", "greedy"), 1)
    hands = simkit.simulate_matches("douque", ("learned", "greedy"), 2, seed=3)
    assert len(hands["match"]) >= 2


# ---------------------------------------------------------------------------------------------
# files that are not what they say: refused in one line, before they are read or unpacked


def _arrays_of(path) -> dict:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def _with_meta(tmp_path, agent, name, change=None, text=None):
    """A copy of the policy file ``agent`` with its metadata changed by ``change(meta)`` or
    replaced by the JSON ``text``."""
    arrays = _arrays_of(agent)
    meta = json.loads(str(arrays["meta"]))
    if change is not None:
        change(meta)
    arrays["meta"] = np.array(text if text is not None else json.dumps(meta))
    path = tmp_path / name
    np.savez(path, **arrays)
    return path


_NOT_REGULAR = """
import os, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))  # reading a device whole cannot eat the machine
import simkit
for path in sys.argv[1:]:
    try:
        simkit.load_policy(path)
        print("loaded", path)
    except simkit.SimkitError as exc:
        print("refused", str(exc).replace(chr(10), " "))
    except BaseException as exc:
        print("foreign", type(exc).__name__)
"""


def test_a_path_that_is_not_a_regular_file_is_refused_without_reading_it(tmp_path):
    fifo, zero = tmp_path / "p.npz", tmp_path / "zero.npz"
    os.mkfifo(fifo)  # opening it to read would wait for a writer forever
    zero.symlink_to("/dev/zero")  # reading it whole would never end
    proc = subprocess.run(
        [sys.executable, "-c", _NOT_REGULAR, str(zero), str(fifo)], capture_output=True, text=True, timeout=120
    )
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and len(lines) == 2, proc.stderr[-2000:]
    for line, path in zip(lines, (zero, fifo)):
        assert (
            line
            == f"refused policy file {str(path)!r} is not a regular file (a FIFO, device or socket cannot be a policy file)"
        )


def test_a_file_above_the_size_cap_is_refused_before_it_is_read(tmp_path):
    from simkit.policies.archive import MAX_FILE_BYTES

    big = tmp_path / "big.npz"
    with open(big, "wb") as f:  # sparse: no disk used
        f.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(PolicyError, match=rf"is {MAX_FILE_BYTES + 1:,} bytes, larger than a policy file can be"):
        simkit.load_policy(big)
    assert MAX_FILE_BYTES < 200 * 2**20


def test_a_zip_bomb_is_refused_from_the_zip_directory_without_inflating_it(agent, tmp_path):
    from simkit.policies.archive import MAX_UNPACKED_BYTES

    # a small deflated member that expands to more than the largest network needs
    bomb = tmp_path / "bomb.npz"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("weights_0.npy", "w", force_zip64=True) as f:
            np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False, "shape": (757, 70_000)})
            chunk = bytes(2**20)
            for _ in range(757 * 70_000 * 4 // 2**20 + 1):
                f.write(chunk)
        with z.open("meta.npy", "w") as f:
            np.lib.format.write_array(f, _arrays_of(agent)["meta"])
    assert bomb.stat().st_size < 2**20 < MAX_UNPACKED_BYTES < 757 * 70_000 * 4
    with pytest.raises(
        PolicyError,
        match=r"member weights_0.npy would unpack to 21\d,\d{3},\d{3} bytes, more than a policy file of the largest",
    ):
        simkit.load_policy(bomb)

    # a directory that declares gigabytes for a member of a few bytes: refused on the declaration alone
    liar = tmp_path / "liar.npz"
    shutil.copyfile(agent, liar)
    data = bytearray(liar.read_bytes())
    directory = struct.unpack_from("<4s4H2LH", data, data.rfind(b"PK\x05\x06"))[6]  # where the directory starts
    struct.pack_into("<L", data, directory + 24, 0xF0000000)  # its first member's uncompressed size
    liar.write_bytes(bytes(data))
    with pytest.raises(PolicyError, match="would unpack to 4,026,531,840 bytes"):
        simkit.load_policy(liar)

    # more members than a policy file has, a member it does not have, an array of objects (pickled)
    many = tmp_path / "many.npz"
    np.savez(many, **{f"x{i}": np.zeros(1) for i in range(40)})
    with pytest.raises(PolicyError, match="lists more members than a policy file has"):
        simkit.load_policy(many)
    odd = tmp_path / "odd.npz"
    np.savez(odd, **_arrays_of(agent), extra=np.zeros(3))
    with pytest.raises(PolicyError, match="holds a member 'extra.npy' that a policy file does not have"):
        simkit.load_policy(odd)
    pickled = tmp_path / "pickled.npz"
    arrays = _arrays_of(agent)
    arrays["biases_0"] = np.array([{"run": "code"}] * 16, dtype=object)
    np.savez(pickled, **arrays)
    with pytest.raises(PolicyError, match=r"member biases_0.npy is not an array a policy file holds \(it holds object"):
        simkit.load_policy(pickled)


def test_metadata_is_capped_in_size_and_depth_and_checked_field_by_field(agent, tmp_path):
    from simkit.policies.archive import MAX_METADATA_CHARS

    meta = json.loads(str(_arrays_of(agent)["meta"]))
    meta["notes"] = "@"
    text = json.dumps(meta).replace('"@"', "[" * 20_000 + "]" * 20_000)  # parsing it recursed too deep
    deep = _with_meta(tmp_path, agent, "deep.npz", text=text)
    with pytest.raises(PolicyError, match="its metadata nests deeper than a policy file's"):
        simkit.load_policy(deep)
    big = _with_meta(tmp_path, agent, "big.npz", lambda m: m.update(notes={"long": "x" * MAX_METADATA_CHARS}))
    with pytest.raises(PolicyError, match=rf"its metadata is [\d,]+ characters, at most {MAX_METADATA_CHARS:,}"):
        simkit.load_policy(big)
    cases = {
        "rules": ("nope", "rules is a rule set"),
        "temperature": ("hot", "temperature is a finite number >= 0, got 'hot'"),
        "notes": ({"a": [1]}, "note 'a' is a string, a number, true/false or null"),
        "label": ("two words", "a policy label is"),
        "activation": (["relu"], "activation is one of relu, tanh"),
        "extra": (1, "fields a policy file does not have"),
    }
    for field, (value, words) in cases.items():
        path = _with_meta(tmp_path, agent, f"{field}.npz", lambda m: m.update({field: value}))
        with pytest.raises(PolicyError, match=re.escape(words)) as info:
            simkit.load_policy(path)
        text = str(info.value)  # a long path is echoed cut in its middle; its name is kept
        assert text.startswith("policy file '") and text.count("policy file '") == 1, text
        assert f"{path.name}'" in text and "\n" not in text
    layers = random_layers(0)
    for kwargs, words in [
        ({"rules": "nope"}, "unknown rule set 'nope'"),
        ({"rules": 5}, "rules is the name of a rule set or None, got 5"),
        ({"temperature": float("inf")}, "temperature is a finite number >= 0, got inf"),
        ({"temperature": True}, "temperature is a finite number >= 0, got True"),
        ({"notes": {"a": [1, 2]}}, "note 'a' is a string, a number, true/false or null (notes are flat)"),
        ({"notes": {"a": float("nan")}}, "note 'a' is not a finite number"),
        ({"notes": ["a"]}, "notes are a mapping of names to strings or numbers"),
        ({"notes": {"x" * 65: 1}}, "a note's name is a non-empty string of at most 64 characters"),
        ({"notes": {"long": "x" * MAX_METADATA_CHARS}}, "its metadata would be"),
    ]:
        with pytest.raises(PolicyError, match=re.escape(words)):
            simkit.save_policy(tmp_path / "x.npz", layers, label="x", **kwargs)
    with pytest.raises(PolicyError, match="a network has at most 16 layers, got 17"):
        simkit.save_policy(tmp_path / "x.npz", [(np.zeros((1, 1)), np.zeros(1))] * 17, label="x")
    assert not (tmp_path / "x.npz").exists()
    notes = {"by": "train.py", "steps": 10_000, "lr": 0.01, "fine_tuned": True, "seed": None}
    saved = simkit.save_policy(tmp_path / "x.npz", layers, label="x", rules="Night-Market", notes=notes)
    assert simkit.load_policy(saved).source.notes == notes and simkit.load_policy(saved).source.rules == "night_market"


def test_file_supplied_text_is_printed_without_terminal_control_characters(tmp_path, capsys):
    from simkit.policies.files import printable

    notes = {
        "clear": "\x1b[2J\x1b[Hgone",
        "title": "\x1b]0;owned\x07x",
        "bell\x07": "a\x9b31mb\u202ec",
        "multi": "1\n2",
    }
    path = simkit.save_policy(tmp_path / "odd\x1b[31m.npz", random_layers(0), label="odd", notes=notes)
    shown = simkit.load_policy(path).source.describe()
    assert "clear: gone" in shown and "title: x" in shown and "bell: abc" in shown and "multi: 1 2" in shown
    assert "odd.npz" in shown
    assert main(["policies", str(path)]) == 0
    out = capsys.readouterr().out
    assert all(ch not in out for ch in "\x1b\x07\x9b\u202e") and "clear: gone" in out
    assert printable("a\x1bPq#0;2;0;0;0\x1b\\b\x00c\x7fd\te") == "abcd e"


def test_foreign_paths_are_one_line_errors_and_nothing_is_written(tmp_path):
    for bad in (None, 123, b"x.npz", 1.5, ["x.npz"]):
        with pytest.raises(simkit.InputTypeError, match="a policy file's path is a str or os.PathLike"):
            simkit.load_policy(bad)
        with pytest.raises(simkit.InputTypeError, match="a policy file's path is a str or os.PathLike"):
            simkit.save_policy(bad, random_layers(0), label="x")
    for bad in ("a\x00.npz", ""):
        with pytest.raises(PolicyError, match="without NUL characters"):
            simkit.load_policy(bad)
    (tmp_path / "folder.npz").mkdir()
    (tmp_path / "file").write_text("a file")
    for bad, words in [
        (tmp_path / "folder.npz", "it is a directory"),
        (tmp_path / "file" / "x.npz", "a folder on its path is a file"),
        ("/proc/simkit/x.npz", "cannot write policy file '/proc/simkit/x.npz'"),
        ("/proc/x.npz", "cannot write policy file '/proc/x.npz'"),
    ]:
        with pytest.raises(PolicyError, match=re.escape(words)) as info:
            simkit.save_policy(bad, random_layers(0), label="x")
        assert "\n" not in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file", "folder.npz"]
    assert not list((tmp_path / "folder.npz").iterdir())
    with pytest.raises(PolicyError, match="layers are a list of"):
        simkit.save_policy(tmp_path / "y.npz", None, label="x")
