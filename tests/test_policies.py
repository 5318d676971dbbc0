"""Policies as research objects (simkit.policies.spec): named parameters, the text syntax,
labels in datasets, user policies on the command line, replay of recorded policies, friendly
compile errors, and NUMBA_DISABLE_JIT for debugging a policy in Python."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import simkit
from simkit import datasets
from simkit.analysis import compare, load, summarize
from simkit.cli import main
from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy, random_policy
from simkit.policies.spec import Param, PolicyError, as_policy, from_record, parse_policy, policy, split_policies
from simkit.runs.simulation import simulate

MODULE = textwrap.dedent(
    """
    import numpy as np
    from simkit._jit import jit
    from simkit.policies.basic import greedy_policy
    from simkit.policies.spec import Param, policy


    @policy(declare=Param(False, bool, doc="declare ready"), claim=Param(1, int, low=0, high=1))
    @jit
    def lazy(view, legal, params, rng):
        p = np.array([params[1], params[0], 1.0, 1.0, 2.0, 7.0])
        return greedy_policy(view, legal, p, rng)
    """
)


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """A policy module ``mypolicies`` in a fresh working directory, importable as from the command line."""
    name = f"mypolicies_{os.getpid()}_{abs(hash(str(tmp_path))) % 10**8}"
    (tmp_path / f"{name}.py").write_text(MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    yield name, tmp_path
    sys.modules.pop(name, None)


# ---------------------------------------------------------------------------------------------
# declaration, syntax, checks


def test_greedy_declares_its_parameters_by_name():
    spec = simkit.policies.spec.spec_of(greedy_policy)
    assert spec.names == ("claim", "declare", "kong", "bid3_at", "bid2_at", "fold_at", "blind_bid", "blind_fold_at")
    assert np.array_equal(spec.defaults, GREEDY_DEFAULTS)
    assert simkit.policies.spec.spec_of(random_policy).names == ()


@pytest.mark.parametrize(
    "text, label, params",
    [
        ("greedy", "greedy", GREEDY_DEFAULTS),
        ("greedy{declare=0}", "greedy{declare=0}", np.r_[1, 0, 1, 1, 2, 7, 3, 4]),
        ("greedy{ declare = false , claim=0 }", "greedy{claim=0,declare=0}", np.r_[0, 0, 1, 1, 2, 7, 3, 4]),
        ("never_declare=greedy{declare=0}", "never_declare", np.r_[1, 0, 1, 1, 2, 7, 3, 4]),
        ("greedy{fold_at=6,bid3_at=-1}", "greedy{bid3_at=-1,fold_at=6}", np.r_[1, 1, 1, -1, 2, 6, 3, 4]),
        ("greedy{declare=1}", "greedy", GREEDY_DEFAULTS),  # the default value: the plain name
        ("random", "random", np.zeros(0)),
    ],
)
def test_policy_text(text, label, params):
    p = parse_policy(text)
    assert p.label == label and np.array_equal(p.params, np.asarray(params, float))
    assert parse_policy(p.text()) == p  # the text round-trips


@pytest.mark.parametrize(
    "text, words",
    [
        ("greedy{declar=0}", "has no parameter 'declar' (its parameters: claim, declare"),
        ("greedy{fold_at=1.5}", "parameter fold_at is an integer, got 1.5"),
        ("greedy{fold_at=21}", "parameter fold_at must be <= 20"),
        ("greedy{declare=2}", "parameter declare is a flag"),
        ("greedy{declare=maybe}", "parameter declare is a number or true/false"),
        ("greedy{declare=0,declare=1}", "parameter declare is given twice"),
        ("greedy{declare}", "expected key=value"),
        ("random{x=1}", "policy random has no parameter 'x' (its parameters: none)"),
        ("greedy{declare=0", "cannot read policy"),
        ("gready", "unknown policy 'gready'; built-in policies: random, greedy, value"),
        ("no_such_module_xyz:f", "cannot import module 'no_such_module_xyz'"),
        ("numpy:no_such_function", "module numpy has no 'no_such_function'"),
        ("a b=greedy", "cannot read policy"),
    ],
)
def test_bad_policy_text_is_one_line(text, words):
    with pytest.raises(PolicyError) as info:
        parse_policy(text)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_python_forms_and_labels():
    assert as_policy((greedy_policy, {"kong": 0})).label == "greedy{kong=0}"
    assert as_policy((greedy_policy, GREEDY_DEFAULTS)).label == "greedy"
    assert as_policy("greedy", label="g").label == "g"
    assert as_policy(greedy_policy).with_params(claim=False).label == "greedy{claim=0}"
    assert as_policy("mine=greedy").with_params(claim=False).label == "mine"  # a given label stays
    with pytest.raises(PolicyError, match="takes 8 parameters"):
        as_policy((greedy_policy, [1.0, 0.0]))
    with pytest.raises(PolicyError, match="parameter claim is a flag"):
        as_policy((greedy_policy, [3.0, 1, 1, 1, 2, 7, 3, 4]))
    with pytest.raises(PolicyError, match="a policy label"):
        as_policy("greedy", label="has space")
    with pytest.raises(PolicyError, match="declared with simkit.Param"):
        policy(x=3)
    with pytest.raises(PolicyError, match="kind is bool, int or float"):
        Param(1, str)
    with pytest.raises(PolicyError, match="the declaration: parameter default must be <= 2"):
        Param(3, int, high=2)


def test_split_policies_at_commas_outside_braces():
    assert split_policies("greedy{declare=0,claim=1},greedy") == ["greedy{declare=0,claim=1}", "greedy"]
    assert split_policies("a=m.x:f{a=1},random") == ["a=m.x:f{a=1}", "random"]


# ---------------------------------------------------------------------------------------------
# labels in runs


def test_two_settings_of_one_policy_are_two_policies(tmp_path):
    run = simulate(tmp_path / "r", policies=("greedy{declare=0}", "greedy"), matches=30, seed=2, duplicate=True)
    df = load(run.path)
    assert set(df["policy_0"].astype(str)) == {"greedy{declare=0}", "greedy"}
    c = compare(run.path)
    assert {c.a, c.b} == {"greedy{declare=0}", "greedy"}
    assert "greedy{declare=0}" in str(summarize(run.path))
    record = datasets.read_manifest(run.path)["spec"]["policies"][0]
    assert record["values"]["declare"] is False and record["name"] == "greedy" and "module" not in record


def test_cli_policies_with_parameters_and_labels(tmp_path, capsys):
    out = tmp_path / "cli"
    assert (
        main(
            [
                "simulate",
                "--policies",
                "never=greedy{declare=0},greedy{claim=0}",
                "--matches",
                "5",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    df = load(out)
    assert set(df["policy_0"].astype(str)) == {"never"} and set(df["policy_1"].astype(str)) == {"greedy{claim=0}"}
    assert main(["policies"]) == 0
    text = capsys.readouterr().out
    assert "declare: bool (default 1)" in text and "fold_at: int (default 7, 0..20)" in text
    assert (
        main(["simulate", "--policies", "greedy{declar=0},greedy", "--matches", "5", "--out", str(tmp_path / "x")]) == 2
    )
    assert "has no parameter 'declar'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


# ---------------------------------------------------------------------------------------------
# user policies: command line, manifest, replay


def test_user_policy_from_the_command_line_is_recorded_and_replayed(user_module, capsys):
    name, where = user_module
    out = where / "run"
    assert (
        main(
            [
                "simulate",
                "--policies",
                f"{name}:lazy{{claim=0}},greedy",
                "--matches",
                "6",
                "--duplicate",
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    record = datasets.read_manifest(out)["spec"]["policies"][0]
    assert record["label"] == "lazy{claim=0}" and record["module"] == name and record["function"] == "lazy"
    assert record["values"] == {"declare": False, "claim": 0} and len(record["source_sha256"]) == 64
    df = load(out)
    run = datasets.open_run(out)
    for i in (3, len(df) - 1):  # a copy-0 row and a copy-1 row (seats swapped)
        row = df.iloc[i]
        rec = run.replay(row)
        for col in ("winner", "points", "turns", "hand_tai"):
            assert rec.row[col] == row[col], (i, col)
    assert main(["replay", str(out), "--row", "3"]) == 0
    shown = capsys.readouterr().out
    assert "row 3:" in shown and "lazy{claim=0},greedy" in shown
    deal = int(df["deal_id"].iloc[3])
    assert main(["replay", str(out), "--deal-id", str(deal)]) == 2
    assert "--copy 0 or --copy 1" in capsys.readouterr().err
    assert main(["replay", str(out), "--deal-id", str(deal), "--copy", "1"]) == 0
    capsys.readouterr()

    with open(where / f"{name}.py", "a") as f:  # the module changes after the run
        f.write("\n# edited\n")
    with pytest.raises(simkit.SimkitError, match="changed since the run"):
        run.replay(df.iloc[3])
    assert run.replay(df.iloc[3], allow_changed=True).row["turns"] == df["turns"].iloc[3]
    assert main(["replay", str(out), "--row", "3"]) == 2
    assert "--allow-changed" in capsys.readouterr().err
    assert main(["replay", str(out), "--row", "3", "--allow-changed"]) == 0


def test_replay_names_the_columns_a_row_lacks(tmp_path):
    run = simulate(tmp_path / "r", matches=2, seed=1)
    row = load(run.path, columns=["seed", "match", "hand"]).iloc[0]
    with pytest.raises(datasets.DatasetError, match="lacks columns policy_0, policy_1: replay needs seed, match, hand"):
        datasets.open_run(run.path).replay(row)
    with pytest.raises(datasets.DatasetError, match="has no policy 'nobody'"):
        datasets.open_run(run.path).replay(
            {"seed": 0, "match": 0, "hand": 0, "policy_0": "nobody", "policy_1": "greedy"}
        )


def test_resume_imports_a_recorded_user_policy(user_module, monkeypatch):
    name, where = user_module
    fn = importlib.import_module(name).lazy
    out = where / "resumed"
    commit = datasets.commit_shard
    calls = []

    class Killed(BaseException):
        pass

    def dying(tmp, directory, chunk):
        if calls:
            raise Killed()
        calls.append(chunk)
        return commit(tmp, directory, chunk)

    monkeypatch.setattr(datasets, "commit_shard", dying)
    with pytest.raises(Killed):
        simulate(out, policies=((fn, {"claim": 0}), "greedy"), matches=20, seed=4, chunk_matches=10)
    monkeypatch.setattr(datasets, "commit_shard", commit)
    resumed = simulate(out, resume=True)  # no policies given: imported from the manifest
    clean = simulate(where / "clean", policies=((fn, {"claim": 0}), "greedy"), matches=20, seed=4, chunk_matches=10)
    assert load(out).equals(load(clean.path))
    assert resumed.computed_chunks == 1
    with pytest.raises(simkit.SimkitError, match="policies greedy, greedy differ from the run's lazy"):
        simulate(out, policies=("greedy", "greedy"), resume=True)


def test_same_named_policies_of_two_modules_get_distinct_labels(tmp_path, monkeypatch):
    for mod in ("pa_mod", "pb_mod"):
        (tmp_path / f"{mod}.py").write_text(MODULE)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    try:
        a, b = importlib.import_module("pa_mod").lazy, importlib.import_module("pb_mod").lazy
        run = simulate(tmp_path / "r", policies=(a, b), matches=2, seed=1)
        labels = [p["label"] for p in datasets.read_manifest(run.path)["spec"]["policies"]]
        assert labels == ["pa_mod:lazy", "pb_mod:lazy"]
    finally:
        sys.modules.pop("pa_mod", None)
        sys.modules.pop("pb_mod", None)


def test_from_record_of_an_older_run():
    """Runs written before policies were recorded with module and values: built-ins by name; the
    parameters declared since (the blind bid's) at their defaults."""
    p = from_record({"label": "greedy[1,0,1,1,2,7]", "name": "greedy", "params": [1, 0, 1, 1, 2, 7]})
    assert p.function is greedy_policy and p.label == "greedy[1,0,1,1,2,7]"
    assert np.array_equal(p.params, [1, 0, 1, 1, 2, 7, *GREEDY_DEFAULTS[6:]])
    with pytest.raises(PolicyError, match="has 9 parameters, greedy now declares 8"):
        from_record({"label": "greedy", "name": "greedy", "params": [1] * 9})


# ---------------------------------------------------------------------------------------------
# failures and debugging

BAD = textwrap.dedent(
    """
    from simkit._jit import jit


    @jit
    def typo(view, legal, params, rng):
        x = view.handd[0]
        return 0


    @jit
    def floaty(view, legal, params, rng):
        return 0.5


    @jit
    def two_args(view, legal):
        return 0
    """
)


def test_a_policy_that_does_not_compile_gets_a_short_error(tmp_path, monkeypatch):
    (tmp_path / "bad_policies.py").write_text(BAD)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    try:
        bad = importlib.import_module("bad_policies")
        with pytest.raises(simkit.PolicyCompileError) as info:
            simkit.simulate_matches("douque", (bad.typo, "greedy"), 1, seed=0)
        text = str(info.value)
        assert (
            text.startswith("policy typo (")
            and "bad_policies.py:5) does not compile: Unknown attribute 'handd'" in text
        )
        assert "bad_policies.py:7: x = view.handd[0]" in text and len(text.splitlines()) <= 4
        with pytest.raises(simkit.PolicyCompileError, match="returns float64, not an action"):
            simkit.simulate_matches("douque", (bad.floaty, "greedy"), 1, seed=0)
        with pytest.raises(simkit.SimkitError, match=r"takes \(view, legal, params, rng\).*it takes \(view, legal\)"):
            simkit.simulate_matches("douque", (bad.two_args, "greedy"), 1, seed=0)
        assert not bad.two_args.signatures  # refused before compiling
    finally:
        sys.modules.pop("bad_policies", None)


def test_numba_disable_jit_runs_a_policy_in_python_with_the_same_games(tmp_path):
    (tmp_path / "dbg_policies.py").write_text(MODULE)
    code = textwrap.dedent(
        """
        import sys, numpy as np
        sys.path.insert(0, sys.argv[1])
        import simkit, dbg_policies
        r = simkit.simulate_matches("douque", ((dbg_policies.lazy, {"claim": 0}), "greedy"), 2, seed=3)
        print(type(dbg_policies.lazy).__name__, len(r["match"]), float(np.abs(r["score_0"]).sum()), int(r["turns"].sum()))
        """
    )
    outs = {}
    for flag in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=flag)
        res = subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env, capture_output=True, text=True)
        assert res.returncode == 0, res.stderr[-2000:]
        outs[flag] = res.stdout.split()
    assert outs["1"][0] == "function" and outs["0"][0] == "CPUDispatcher"
    assert outs["1"][1:] == outs["0"][1:]


WRONG = textwrap.dedent(
    """
    import numba
    import numpy as np
    from os.path import join
    from simkit._jit import jit
    from simkit.policies.basic import greedy_policy


    @jit
    def narrow(view, legal, params, rng):
        return np.int32(greedy_policy(view, legal, params, rng))


    @jit
    def pair(view, legal, params, rng):
        a = greedy_policy(view, legal, params, rng)
        return a, a


    @jit
    def three(view, legal, params):
        return 0


    def in_python(view, legal, params, rng):
        return int(np.flatnonzero(legal)[0])


    @numba.njit("int64(int64, int64, int64, int64)")
    def fixed(view, legal, params, rng):
        return 0


    class Policy:
        pass
    """
)


def test_a_policy_of_the_wrong_type_is_one_line_naming_it_never_numbas_report(tmp_path, monkeypatch):
    (tmp_path / "wrong_policies.py").write_text(WRONG)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    try:
        wrong = importlib.import_module("wrong_policies")
        position = simkit.Position("douque", hand="123456789m1122z5z", opponent_river="1p", tiles_left=36, dealer=False)
        calls = [
            lambda p: simkit.simulate_matches("douque", (p, "greedy"), 1, seed=0),
            lambda p: simkit.decide(p, "greedy", block=4, max_matches=8),
            lambda p: simkit.rollouts(position, n=2, policies=(p, p)),
        ]
        for fn, words in [
            (wrong.narrow, r"policy narrow \(.*wrong_policies.py:\d+\) returns int32, not an action: the engine takes an int64"),
            (wrong.pair, r"policy pair \(.*\) returns UniTuple\(int64 x 2\), not an action"),
            (wrong.three, r"policy three \(.*\) takes \(view, legal, params, rng\) and returns an action; it takes \(view, legal, params\)"),
        ]:  # fmt: skip
            for call in calls:
                with pytest.raises(simkit.SimkitError, match=words) as info:
                    call(fn)
                text = str(info.value)
                assert "\n" not in text and "\x1b" not in text and "mismatch" not in text and len(text) < 300
        # a plain Python policy plays from Python, but not where the engine must call it in compiled code
        assert len(simkit.simulate_matches("douque", (wrong.in_python, "greedy"), 1, seed=0)["match"]) >= 1
        with pytest.raises(simkit.PolicyCompileError, match=r"policy in_python \(.*\) is a plain Python function"):
            simkit.rollouts(position, n=2, policies=(wrong.in_python, "greedy"))
        with pytest.raises(simkit.PolicyCompileError, match=r"policy fixed \(.*\) is compiled for its declared"):
            simkit.simulate_matches("douque", (wrong.fixed, "greedy"), 1, seed=0)
    finally:
        sys.modules.pop("wrong_policies", None)


@pytest.mark.parametrize(
    "text, words",
    [
        ("os.path:join", "join is defined in posixpath, not in os.path"),
        ("subprocess:call", "call(*popenargs, timeout=None, **kwargs) does not take (view, legal, params, rng)"),
        ("builtins:len", "len is a builtin_function_or_method, not a policy"),
        ("math:sqrt", "sqrt is a builtin_function_or_method, not a policy"),
        ("collections:OrderedDict", "OrderedDict is a class, not a policy"),
        ("wrong_policies:join", "join is defined in posixpath, not in wrong_policies"),
        ("wrong_policies:greedy_policy", None),  # a jitted policy, wherever it is defined
        ("wrong_policies:in_python", None),
        ("wrong_policies:Policy", "Policy is a class, not a policy"),
    ],
)
def test_a_module_function_text_must_name_a_policy(text, words, tmp_path, monkeypatch):
    (tmp_path / "wrong_policies.py").write_text(WRONG)
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    try:
        if words is None:
            assert parse_policy(text).name == text or parse_policy(text).built_in
            return
        with pytest.raises(PolicyError) as info:
            parse_policy(text)
        assert str(info.value).startswith(f"policy {text}: ") and words in str(info.value)
        assert "\n" not in str(info.value)
    finally:
        sys.modules.pop("wrong_policies", None)


def test_a_replay_compares_the_source_hash_before_it_imports_the_module(user_module, capsys):
    name, where = user_module
    module = where / f"{name}.py"
    marker = where / "imported.txt"
    # importing the module leaves a mark: a replay must not import a module whose source changed
    module.write_text(module.read_text() + "\nimport pathlib\npathlib.Path('imported.txt').write_text('ran')\n")
    out = where / "run"
    assert main(["simulate", "--policies", f"{name}:lazy,greedy", "--matches", "2", "--out", str(out), "--quiet"]) == 0
    assert marker.exists()
    run, row = datasets.open_run(out), load(out).iloc[0]
    marker.unlink()
    sys.modules.pop(name)
    assert run.replay(row).row["turns"] == row["turns"]  # the same source: imported and replayed
    assert marker.exists() and name in sys.modules

    module.write_text(module.read_text().replace("imported.txt", "changed.txt"))
    marker.unlink()
    sys.modules.pop(name)
    with pytest.raises(PolicyError, match=rf"the source of policy 'lazy' \({name}\) changed since the run"):
        run.replay(row)
    assert main(["replay", str(out), "--row", "0"]) == 2
    assert "--allow-changed" in capsys.readouterr().err
    assert name not in sys.modules and not (where / "changed.txt").exists()
    assert run.replay(row, allow_changed=True).row["turns"] == row["turns"]  # told to: imported
    assert (where / "changed.txt").exists()
