"""The engine compiled once per rule set (simkit/engine/compiled.py): a generated instance per rule
set, cached on disk across processes, shared by every policy pair; policies other than the
built-in ones are called through a function pointer, so a new policy never recompiles the engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from engine_util import GREEDY, PASSIVE, fallback

from simkit._jit import jit
from simkit.engine import compiled
from simkit.engine import table as eng
from simkit.engine.rulesets import engine_spec, settle_douque, settle_duel
from simkit.hand.shanten import shanten_kernel
from simkit.play import matches
from simkit.play.matches import simulate_matches
from simkit.policies.basic import greedy_policy, random_policy
from simkit.rules import resolve_rules

ROOT = Path(__file__).resolve().parents[1]


def test_each_rule_set_has_one_generated_instance_under_the_cache_root():
    engine = compiled.engine_of(settle_douque)
    path = Path(engine.__file__)
    assert path.parent.parent == compiled.cache_root()
    assert path.parent.name == f"engine-{compiled.source_hash()[:16]}"
    text = path.read_text()
    assert "from simkit.engine.rulesets import settle_douque as SETTLE" in text
    assert "CACHE = True" in text
    assert "as POLICY" not in text  # no policy is bound into the engine
    assert engine.SETTLE is settle_douque
    assert compiled.engine_of(settle_douque) is engine
    assert compiled.engine_of(settle_duel) is not engine


def test_an_instance_is_the_step_module_line_for_line():
    """Only the bind block differs, padded to its own length: a line number in a traceback from an
    instance is the same line of simkit/engine/step.py."""
    template = Path(compiled._TEMPLATE).read_text().splitlines()
    instance = Path(compiled.engine_of(settle_douque).__file__).read_text().splitlines()
    assert len(instance) == len(template)
    differ = [i for i, (a, b) in enumerate(zip(template, instance)) if a != b]
    bind = [i for i, line in enumerate(template) if line.startswith(("# <bind>", "# </bind>"))]
    assert differ and bind[0] <= min(differ) and max(differ) <= bind[1]
    assert "SETTLE" in "\n".join(instance[bind[0] : bind[1] + 1])


def test_every_policy_pair_runs_on_the_one_engine_of_its_rule_set():
    """Built-in pairs, a user policy in either seat and a policy defined in a function all run on
    one compiled kernel: its single signature takes the policies as first-class functions."""

    @jit(cache=False)
    def local_policy(view, legal, params, rng):  # pragma: no cover - compiled
        return random_policy(view, legal, params, rng)

    for pair in [
        ("greedy", "random"),
        ("random", "greedy"),
        (fallback(GREEDY), "random"),
        ("greedy", local_policy),
        (local_policy, fallback(PASSIVE)),
    ]:
        simulate_matches("douque", pair, 2, seed=1)
    engine = matches.engine_for(engine_spec(resolve_rules("douque")))
    assert len(engine.play_matches_kernel.signatures) == 1
    assert "FunctionType" in str(engine.play_matches_kernel.signatures[0])


def test_a_policy_passed_as_a_function_plays_like_the_same_built_in():
    """The engine calls a built-in directly and any other policy through a pointer: the scripted
    fallback policy (greedy with claims, declarations and kongs; random) plays the built-in games."""
    a = simulate_matches("douque", ("random", "greedy"), 20, seed=5, check=True)
    b = simulate_matches(
        "douque", (fallback(1), (greedy_policy, {"claim": 1, "declare": 1, "kong": 1})), 20, seed=5, check=True
    )
    for name, column in a.items():
        np.testing.assert_array_equal(b[name], column, err_msg=name)


def test_a_new_process_loads_the_engine_from_the_cache():
    pair = (fallback(GREEDY), fallback(PASSIVE))
    here = simulate_matches("douque", pair, 3, seed=2)  # compiled (or loaded) here: the cache is written
    code = textwrap.dedent(
        """
        import json, sys
        sys.path.insert(0, "tests")
        from engine_util import GREEDY, PASSIVE, fallback
        from simkit.engine import compiled
        from simkit.play.matches import simulate_matches
        r = simulate_matches("douque", (fallback(GREEDY), fallback(PASSIVE)), 3, seed=2)
        engine = next(iter(compiled._instances.values()))
        stats = engine.play_matches_kernel.stats
        print(json.dumps({"hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values()),
                          "score_0": r["score_0"].tolist()}))
        """
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["misses"] == 0 and got["hits"] >= 1, got
    assert got["score_0"] == here["score_0"].tolist()


def test_an_inlined_policy_is_called_through_its_pointer():
    """A policy compiled ``inline="always"`` cannot be pasted into the reference-count-free hand
    loop: it is called through its function pointer like any other (tests/test_jit.py runs one that
    allocates at every decision and checks that every block is freed)."""

    @jit(inline="always", cache=False)
    def inline_policy(view, legal, params, rng):  # pragma: no cover - compiled
        return random_policy(view, legal, params, rng)

    a = simulate_matches("douque", (inline_policy, "greedy"), 5, seed=3, check=True)
    b = simulate_matches("douque", ("random", "greedy"), 5, seed=3, check=True)
    np.testing.assert_array_equal(a["score_0"], b["score_0"])


def test_an_unwritable_cache_falls_back_to_memory_with_a_warning(tmp_path, monkeypatch):
    blocker = tmp_path / "not_a_directory"
    blocker.write_text("")
    monkeypatch.setenv("SIMKIT_CACHE_DIR", str(blocker))
    monkeypatch.setattr(compiled, "_instances", {})
    monkeypatch.setattr(compiled, "_warned", False)
    with pytest.warns(UserWarning, match="cannot write the engine cache"):
        engine = compiled.engine_of(settle_duel)
    assert engine.CACHE is False
    assert not Path(engine.__file__).is_relative_to(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        monkeypatch.setattr(compiled, "_instances", {})
        compiled.engine_of(settle_duel)  # warned once per process


def test_instance_names_change_with_simkit_sources(monkeypatch):
    ref = ("simkit.engine.rulesets", "settle_douque")
    before = compiled._digest(ref, False)
    assert compiled._digest(ref, True) != before  # the instance with the search branch is another
    monkeypatch.setattr(compiled, "source_hash", lambda: "another version of simkit")
    assert compiled._digest(ref, False) != before


class _NeverCompiled:
    """A stand-in for an engine kernel neither compiled here nor in numba's cache."""

    signatures: list = []

    def __init__(self, tmp_path):
        index = type("Index", (), {"_index_path": str(tmp_path / "missing.nbi")})()
        self._cache = type("Cache", (), {"_cache_file": index})()


def test_compile_ahead_waits_for_its_helper_and_then_steps_aside(tmp_path, monkeypatch):
    """On a cold start the cache lookups of what the helper process compiles (hand kernels, the
    settle function, small kernels, greedy; for the engine's argument types) wait for the helper; after the
    context they are numba's own again. A cached engine or SIMKIT_COMPILE_AHEAD=0 start no
    helper; without greedy playing, the helper leaves it out."""
    monkeypatch.setenv("SIMKIT_COMPILE_AHEAD", "1")
    monkeypatch.setattr(os, "cpu_count", lambda: 2)  # the helper's premise: a second core
    items = compiled.ahead_of_the_engine("douque", [greedy_policy])
    names = [name for name, _, _ in items]
    assert names[:3] == ["shanten", "is_win", "waits"] and names[-1] == "greedy"
    assert names.index("settle") < names.index("advance")  # the engine's _advance calls the settle function
    assert items[0][1] is shanten_kernel and items[names.index("settle")][1] is settle_douque
    assert items[-1][1] is greedy_policy
    engine = matches.engine_for(engine_spec(resolve_rules("douque")))
    assert items[names.index("advance")][1] is engine._advance
    assert [(name, d) for name, d, _ in compiled.first_of_the_engine("douque")] == [
        ("apply", engine._apply),
        ("record_decision", eng.record_decision),
    ]
    assert [name for name, _, _ in compiled.ahead_of_the_engine("douque")] == names[:-1]
    caches = [dispatcher._cache for _, dispatcher, _ in items]
    kernel = _NeverCompiled(tmp_path)
    with compiled.compile_ahead(kernel, "douque", [greedy_policy]):
        hooks = [vars(cache).get("load_overload") for cache in caches]
        assert all(hook is not None and hook.__name__ == "load_after_helper" for hook in hooks)
        with compiled.compile_ahead(kernel, "douque", [greedy_policy]):  # one helper at a time
            assert [vars(cache).get("load_overload") for cache in caches] == hooks
    assert all("load_overload" not in vars(cache) for cache in caches)
    simulate_matches("douque", ("greedy", "greedy"), 1, seed=0)  # compiled or loaded by now
    cached = matches.engine_for(engine_spec(resolve_rules("douque"))).play_matches_kernel
    for kern, env in ((cached, "1"), (kernel, "0")):
        monkeypatch.setenv("SIMKIT_COMPILE_AHEAD", env)
        with compiled.compile_ahead(kern, "douque", [greedy_policy]):
            assert all("load_overload" not in vars(cache) for cache in caches)


def test_also_first_items_compile_first_on_a_cold_start_only(tmp_path, monkeypatch):
    """Items added with ``also_first`` are compiled in this process when compile_ahead starts a
    helper (a cold start), before the engine's own first pieces; outside the context, or when the
    engine is cached, compile_ahead leaves them alone."""
    import numba

    monkeypatch.setenv("SIMKIT_COMPILE_AHEAD", "1")
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    order = []

    def probe_kernel(name):
        kernel = numba.njit(cache=False)(lambda x: x + 1)
        real = kernel.compile
        kernel.compile = lambda sig: (order.append(name), real(sig))[1]
        return kernel

    first = probe_kernel("first")
    will = compiled._will_compile
    monkeypatch.setattr(compiled, "_will_compile", lambda k: k is first or will(k))
    cold = _NeverCompiled(tmp_path)
    cached = matches.engine_for(engine_spec(resolve_rules("douque"))).play_matches_kernel
    simulate_matches("douque", ("random", "random"), 1, seed=0)  # the engine cached by now
    prepare = lambda: order.append("prepare")  # noqa: E731
    with compiled.also_first([("probe", first, (numba.int64,))]):
        with compiled.compile_ahead(cached, "douque", prepare=prepare):
            pass
        assert order == []  # a cached engine: no helper, nothing compiled ahead, nothing prepared
        with compiled.compile_ahead(cold, "douque", prepare=prepare):
            assert order == ["first", "prepare"]  # also_first's items, then what needs no helper item
    with compiled.compile_ahead(cold, "douque"):
        pass
    assert order == ["first", "prepare"] and compiled._ALSO_FIRST == []
    assert first(np.int64(1)) == 2


def test_the_helper_types_without_the_hand_tables(tmp_path):
    """What the helper compiles, and the policy type, are typed on the hand tables' stand-ins: a
    process with an empty cache directory lists them without building or loading the tables
    (the helper starts compiling at once, while the engine's process builds them), and the
    stand-ins have the types of the real tables for every rule set."""
    import numba

    from simkit.hand.tables import hand_tables, hand_tables_stand_in

    code = textwrap.dedent(
        """
        import simkit.hand.tables as tables
        def refuse(*args, **kwargs):
            raise AssertionError("the hand tables were loaded")
        tables.load_tables = refuse
        from simkit.engine.compiled import ahead_of_the_engine, first_of_the_engine
        for rules in ("douque", "for_two"):
            assert len(ahead_of_the_engine(rules, ["simkit.policies.basic:greedy_policy"])) == 10 and len(first_of_the_engine(rules)) == 2
        print("ok")
        """
    )
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        SIMKIT_CACHE_DIR=str(tmp_path / "cache"),
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0 and out.stdout.split()[-1] == "ok", out.stderr
    assert not list((tmp_path / "cache").glob("hand_*.npy"))
    for rules in ("douque", "night_market", "duel", "for_two"):
        assert numba.typeof(hand_tables_stand_in(rules)) == numba.typeof(hand_tables(rules))


@pytest.mark.slow
def test_a_cold_start_with_the_helper_plays_the_same_games(tmp_path):
    """A fresh cache: the engine compiled while the helper compiles what ahead_of_the_engine lists
    (none compiled again here: the helper's signatures are the engine's) plays the same games
    as the engine of this checkout's cache (which the digests pin). Slow (a whole cold compile);
    the default run covers the same path when a fresh clone's first test compiles the engine and
    the frozen digests then pass."""
    code = textwrap.dedent(
        """
        import json
        from simkit.play.matches import simulate_matches
        from simkit.engine.compiled import ahead_of_the_engine
        r = simulate_matches("douque", ("greedy", "random"), 5, seed=4)
        items = ahead_of_the_engine("douque", ["simkit.policies.basic:greedy_policy"])
        hits = {name: sum(f.stats.cache_hits.values()) for name, f, _ in items}
        misses = {name: sum(f.stats.cache_misses.values()) for name, f, _ in items}
        print(json.dumps({"score_0": r["score_0"].tolist(), "hits": hits, "misses": misses}))
        """
    )
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        SIMKIT_CACHE_DIR=str(tmp_path / "cache"),
        NUMBA_CACHE_DIR=str(tmp_path / "numba"),
        SIMKIT_COMPILE_AHEAD="1",
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1800)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["score_0"] == simulate_matches("douque", ("greedy", "random"), 5, seed=4)["score_0"].tolist()
    if (os.cpu_count() or 1) >= 2:  # none compiled again here: each loaded from the helper's compile
        assert got["misses"] == dict.fromkeys(got["misses"], 0) and len(got["misses"]) == 10
        # (or not needed here at all: what only _advance calls -- shanten, settle -- comes linked into it)
        loaded = {name for name, n in got["hits"].items() if n == 1}
        assert {"is_win", "waits", "advance", "greedy"} <= loaded, got["hits"]


@pytest.mark.parametrize("numba_dir", [False, True])
def test_numba_caches_in_a_directory_of_this_source_version(tmp_path, numba_dir):
    """numba keys a cached function on its own file only (greedy cached before an edit of the
    discard evaluation it calls would run the old one), so every simkit kernel and policy is cached
    in a directory named after the hash of all of simkit's sources: NUMBA_CACHE_DIR/simkit-<hash>,
    or the version's engine directory; numba's own CACHE_DIR setting is left as it was."""
    code = textwrap.dedent(
        """
        import json, numba
        from simkit.policies.basic import greedy_policy
        from simkit.hand.shanten import discard_eval_kernel
        print(json.dumps([numba.config.CACHE_DIR, greedy_policy._cache._cache_path,
                          discard_eval_kernel._cache._cache_path]))
        """
    )
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""),
        SIMKIT_CACHE_DIR=str(tmp_path / "cache"),
    )
    env.pop("NUMBA_CACHE_DIR", None)
    if numba_dir:
        env["NUMBA_CACHE_DIR"] = str(tmp_path / "numba")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    numba_setting, *paths = json.loads(out.stdout.strip().splitlines()[-1])
    key = compiled.source_hash()[:16]
    expected = tmp_path / "numba" / f"simkit-{key}" if numba_dir else tmp_path / "cache" / f"engine-{key}" / "numba"
    assert numba_setting == (str(tmp_path / "numba") if numba_dir else "")  # numba's own, untouched
    for path in paths:
        assert Path(path).is_relative_to(expected)


def test_only_the_searching_instance_holds_the_search_branch():
    plain, searching = compiled.engine_of(settle_douque), compiled.engine_of(settle_douque, True)
    assert plain is not searching and plain is compiled.engine_of(settle_douque)
    assert plain.SEARCHING is False and searching.SEARCHING is True
    assert Path(searching.__file__).name.startswith("engine_search_")
