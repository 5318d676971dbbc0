"""The luck of the draw: the engine's draw records against a replay stepped from Python,
the luck terms' mean of zero, and the luck-corrected comparison of a duplicate run."""

from __future__ import annotations

import numpy as np
import pytest
from engine_util import holding
from reference import ref_waits

import simkit
from simkit.analysis import compare, load
from simkit.analysis.luck import draw_luck
from simkit.engine import actions as A
from simkit.engine import table as eng
from simkit.engine.luck import (
    L_CLASS,
    L_CLASS_COUNTS,
    L_DECLARED,
    L_END_PHASE,
    L_HAND,
    L_MATCH,
    L_OPP_DECLARED,
    L_OPP_SHANTEN,
    L_PLAYER,
    L_TILES_LEFT,
    N_DRAW_CLASSES,
)
from simkit.engine.rulesets import engine_spec
from simkit.errors import SimkitError
from simkit.play.draw_luck import draw_records
from simkit.play.matches import resolve_policy
from simkit.play.stepper import GameState
from simkit.rules import resolve_rules

POLICIES = ("greedy", "greedy{declare=0}")


def _end_pick_records(spec, before, events, hand_number):
    """Reference records of the end-phase picks among ``events`` (the log rows of one step), from
    the Table's state ``before`` it: a pick completes the hand (class 0) with probability
    J / S + (1 - J / S) * W / R (J jokers not yet seen, S slots, R tiles left, W of them waited on),
    counted out of S * R; any other pick leaves it ready (class 1)."""
    wall, front, back, kept, hands, n_melds, meld_counts = before
    remaining = np.bincount(wall[front : back + 1], minlength=34)
    out = []
    for kind, q, x, extra in events:
        if kind == eng.EV_DISCARD and not out:  # the discard of the step, before the picks
            hands[q][x] -= 1
        if kind != eng.EV_DRAW or extra not in (1, 2):
            continue
        waits = ref_waits(list(hands[q]), int(n_melds[q]), list(meld_counts[q]))
        tiles, slots, jokers = int(remaining.sum()), kept - len(out), 2
        waited = int(sum(remaining[k] for k in waits))
        counts = (jokers * tiles + (slots - jokers) * waited, (slots - jokers) * (tiles - waited), 0, 0, 0)
        opp = simkit.shanten_batch(hands[1 - q][None].astype(np.uint8), int(n_melds[1 - q]), rules=spec.rules)[0]
        cls = 0 if extra == 2 or x in waits else 1
        out.append((hand_number, int(q), 0, 0, int(opp), 0, cls, counts, 1))
        remaining[x] -= 1
    return out


def _python_records(spec, calls, seed, match):
    """Reference: the match stepped from Python, one draw record per decision after a draw, each
    field computed from its definition (the remaining tiles are those of the wall not yet drawn,
    plus the drawn one; a tile's class is the shanten of the drawer's hand holding it instead), and
    one per pick of for_two's end phase (:func:`_end_pick_records`)."""
    s = GameState.new_match(spec, seed=seed, match=match)
    records, results = [], []
    while True:
        T = s.table
        while not s.over:
            p = s.player
            sc = T.sc
            last = sc[eng.S_BACK] - sc[eng.S_FRONT] + 1 - sc[eng.S_KEPT_BACK] == 0
            before = (
                T.wall.copy(),
                int(sc[eng.S_FRONT]),
                int(sc[eng.S_BACK]),
                int(sc[eng.S_KEPT_BACK]),
                T.hand.copy(),
                T.n_melds.copy(),
                T.meld_counts.copy(),
            )
            logged = int(sc[eng.S_NLOG])
            if s.phase == A.PHASE_DRAW and s.tile >= 0:
                sc = T.sc
                remaining = np.bincount(T.wall[sc[eng.S_FRONT] : sc[eng.S_BACK] + 1], minlength=34)
                remaining[s.tile] += 1
                kinds = np.flatnonzero(remaining)
                without = T.hand[p].astype(np.int64)
                without[s.tile] -= 1
                trials = np.repeat(without[None], len(kinds), 0)
                trials[np.arange(len(kinds)), kinds] += 1
                shanten = simkit.shanten_batch(trials.astype(np.uint8), int(T.n_melds[p]), rules=spec.rules)
                classes = np.minimum(shanten, 3) + 1
                counts = np.bincount(classes, weights=remaining[kinds], minlength=N_DRAW_CLASSES).astype(int)
                opp = simkit.shanten_batch(
                    T.hand[1 - p][None].astype(np.uint8), int(T.n_melds[1 - p]), rules=spec.rules
                )[0]
                records.append(
                    (
                        int(sc[eng.S_HAND_NUMBER]),
                        p,
                        int(T.declared[p] > 0),
                        int(T.declared[1 - p] > 0),
                        int(opp),
                        int(sc[eng.S_BACK] - sc[eng.S_FRONT] + 1 - sc[eng.S_KEPT_BACK]),
                        int(classes[list(kinds).index(s.tile)]),
                        tuple(counts.tolist()),
                        0,
                    )
                )
            f, params = calls[p]
            s.apply(f(s.view(), s.legal, params, s.policy_stream()))
            if last and spec.game.end_phase:
                events = T.log[logged : int(T.sc[eng.S_NLOG])].tolist()
                records += _end_pick_records(spec, before, events, int(T.sc[eng.S_HAND_NUMBER]))
        row = s.row
        results.append((row["score_0"] - row["fee_0"], row["score_1"] - row["fee_1"]))
        if not s.next_hand():
            return records, results


def _as_tuple(r) -> tuple:
    """A draw record's fields as the Python reference gives them (``_python_records``)."""
    counts = tuple(int(x) for x in r[L_CLASS_COUNTS : L_CLASS_COUNTS + N_DRAW_CLASSES])
    fields = (L_HAND, L_PLAYER, L_DECLARED, L_OPP_DECLARED, L_OPP_SHANTEN, L_TILES_LEFT, L_CLASS)
    return (*(int(r[f]) for f in fields), counts, int(r[L_END_PHASE]))


@pytest.mark.parametrize("wall", ["stable", "shared"])
def test_draw_records_match_a_replay_stepped_from_python(wall):
    spec = engine_spec(resolve_rules("douque"), "seat", wall)
    a, b = (resolve_policy(p, spec.rules) for p in POLICIES)
    for calls in ((a, b), (b, a)):
        out = draw_records(spec, *calls, 5, 3, 2)
        for i in range(2):
            expected, results = _python_records(spec, calls, 5, 3 + i)
            recs = out.records[out.records[:, L_MATCH] == i]
            got = [_as_tuple(r) for r in recs]
            assert got == expected
            assert out.n_hands[i] == len(results)
            np.testing.assert_array_equal(out.results[i, : len(results)], np.array(results))
    assert any(r[2] for r in got) or any(r[3] for r in got) or wall == "shared"  # declarations were recorded


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    path = tmp_path_factory.mktemp("luck") / "run"
    simkit.simulate(path, policies=POLICIES, matches=400, seed=11, duplicate=True)
    return path


def test_luck_terms_have_mean_zero_and_leave_the_estimate_unbiased(run):
    """The luck of a match (both copies) has mean zero: within four standard errors of it over 400
    matches; and the corrected difference agrees with the uncorrected one."""
    df = load(run)
    luck = draw_luck(df)
    assert luck.shape == (len(df),) and np.isfinite(luck).all() and np.abs(luck).max() > 0
    per_match = np.bincount(df["match"].to_numpy(), weights=luck)
    se = per_match.std(ddof=1) / np.sqrt(len(per_match))
    assert abs(per_match.mean()) < 4 * se, (per_match.mean(), se)
    raw, corrected = compare(df), compare(df, correct_luck=True)
    assert corrected.luck_corrected and not raw.luck_corrected
    assert raw.per_match[1] < corrected.per_match[0] < raw.per_match[2]
    assert corrected.per_match_unpaired == raw.per_match_unpaired  # the unpaired interval is never corrected
    # the draws' luck is most of what pairing leaves: the corrected interval is much narrower
    assert corrected.per_match_variance_reduction > 1.3 * raw.per_match_variance_reduction
    assert "paired, luck corrected" in corrected.table() and "pairing and luck correction" in corrected.table()


def test_a_replay_that_does_not_reproduce_the_run_is_refused(run):
    df = load(run)
    df.loc[df.index[5], "score_0"] += 1.0
    with pytest.raises(SimkitError, match="does not give the run's hands"):
        draw_luck(df)


def test_refusals(tmp_path, run):
    simkit.simulate(tmp_path / "plain", policies=POLICIES, matches=3, seed=11)
    with pytest.raises(SimkitError, match="--duplicate run"):
        compare(tmp_path / "plain", correct_luck=True)
    with pytest.raises(SimkitError, match="in a --duplicate run; in another run give value='result_0'"):
        draw_luck(tmp_path / "plain")
    with pytest.raises(SimkitError, match="corrects a player's result: value 'result_0' or 'result_1', not 'points'"):
        compare(tmp_path / "plain", tmp_path / "plain", value="points", correct_luck=True)
    with pytest.raises(SimkitError, match="True or False"):
        compare(run, correct_luck="yes")
    with pytest.raises(SimkitError, match="folds must be an integer of at least 2"):
        draw_luck(run, folds=1)
    with pytest.raises(ValueError, match="folds must be at most the data's"):
        draw_luck(run, folds=10**9)  # refused, not one table per fold allocated
    with pytest.raises(SimkitError, match="value must be None"):
        draw_luck(run, value="points")
    other = load(run)
    other.loc[other.index[3], "seed"] = 12
    with pytest.raises(SimkitError, match="rows of seeds other than its run's \\(11\\)"):
        draw_luck(other)
    with pytest.raises(SimkitError, match="the data has no column 'score_1' \\(it is in the dataset: load it\\)"):
        draw_luck(load(run).drop(columns=["score_1"]))


def test_luck_corrected_comparison_of_two_runs(tmp_path):
    """Two runs on the same deals that differ in one seat's policy: each run's result of that seat
    is corrected by its own draws; the estimate agrees with the uncorrected one, the interval is
    narrower, the unpaired interval and each run's mean are the uncorrected ones."""
    simkit.simulate(tmp_path / "a", policies=("greedy", "greedy"), matches=300, seed=4)
    simkit.simulate(tmp_path / "b", policies=("greedy{declare=0}", "greedy"), matches=300, seed=4)
    raw = compare(tmp_path / "a", tmp_path / "b")
    corrected = compare(tmp_path / "a", tmp_path / "b", correct_luck=True)
    assert raw.value == corrected.value == "result_0" and corrected.luck_corrected
    assert raw.per_match[1] < corrected.per_match[0] < raw.per_match[2]
    assert corrected.per_match_unpaired == raw.per_match_unpaired and corrected.a_mean == raw.a_mean
    assert corrected.per_match_variance_reduction > 1.3 * raw.per_match_variance_reduction
    luck = draw_luck(tmp_path / "b", value="result_0")
    df = load(tmp_path / "b")
    per_match = np.bincount(df["match"].to_numpy(), weights=luck)
    assert abs(per_match.mean()) < 4 * per_match.std(ddof=1) / np.sqrt(len(per_match))


def test_compare_correct_luck_on_the_command_line(run, capsys):
    from simkit.cli import main

    assert main(["compare", str(run), "--correct-luck"]) == 0
    out = capsys.readouterr().out
    assert "paired, luck corrected" in out and "variance reduction by pairing and luck correction" in out


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["night_market", "duel", "for_two"])
def test_draw_records_and_mean_zero_in_every_rule_set(tmp_path, rules):
    """The other rule sets (for_two's bid and kept-back tiles, duel's chips): the records of two
    matches against the Python replay, and the luck's mean of zero over 300 duplicate matches."""
    spec = engine_spec(resolve_rules(rules), "seat", "stable")
    a, b = resolve_policy("greedy", spec.rules), resolve_policy("greedy{kong=0}", spec.rules)
    out = draw_records(spec, a, b, 2, 0, 2)
    for i in range(2):
        expected, results = _python_records(spec, (a, b), 2, i)
        recs = out.records[out.records[:, L_MATCH] == i]
        assert [(int(r[L_HAND]), int(r[L_PLAYER]), int(r[L_CLASS])) for r in recs] == [
            (e[0], e[1], e[6]) for e in expected
        ]
        assert [tuple(int(x) for x in r[L_CLASS_COUNTS:]) for r in recs] == [e[7] for e in expected]
        np.testing.assert_array_equal(out.results[i, : len(results)], np.array(results))
    simkit.simulate(
        tmp_path / "run", rules=rules, policies=("greedy", "greedy{kong=0}"), matches=300, seed=3, duplicate=True
    )
    df = load(tmp_path / "run")
    per_match = np.bincount(df["match"].to_numpy(), weights=draw_luck(df))
    assert abs(per_match.mean()) < 4 * per_match.std(ddof=1) / np.sqrt(len(per_match))


@pytest.mark.parametrize("end_phase", ["ready_pick_last_8", "ready_draw_last_8"])
def test_for_two_end_phase_picks_are_recorded_with_their_law(end_phase):
    """for_two's end-phase picks are chance events of the luck correction: each is recorded, the
    records of two matches are those of the Python reference (every field from its definition), and
    over many picks the wins come as often as the records' law says (the luck terms' mean of zero
    rests on it). Players that hold their ready hands (no claims, no wins) reach the end phase in
    most hands."""
    spec = engine_spec(simkit.get_rules("for_two", end_phase=end_phase), "seat", "stable")
    calls = (holding(), holding(noisy=True))
    out = draw_records(spec, *calls, 7, 0, 2)
    for i in range(2):
        expected, results = _python_records(spec, calls, 7, i)
        recs = out.records[out.records[:, L_MATCH] == i]
        got = [_as_tuple(r) for r in recs]
        assert got == expected
        np.testing.assert_array_equal(out.results[i, : len(results)], np.array(results))
    recs = draw_records(spec, *calls, 8, 0, 150).records
    picks = recs[recs[:, L_END_PHASE] == 1]
    assert len(picks) > 500, len(picks)
    counts = picks[:, L_CLASS_COUNTS : L_CLASS_COUNTS + 2].astype(np.float64)
    p_win = counts[:, 0] / counts.sum(axis=1)
    won = (picks[:, L_CLASS] == 0).astype(np.float64)
    se = np.sqrt((p_win * (1 - p_win)).sum()) / len(picks)
    assert abs((won - p_win).mean()) < 4 * se, ((won - p_win).mean(), se)


def test_for_two_luck_with_the_end_phase_has_mean_zero(tmp_path):
    """The luck of random against random in for_two with its end phase (the default): mean zero
    over 300 duplicate matches, end-phase picks among the draws replayed."""
    simkit.simulate(
        tmp_path / "run", rules="for_two", policies=("random", "random"), matches=300, seed=5, duplicate=True
    )
    df = load(tmp_path / "run")
    luck = draw_luck(df)
    assert np.isfinite(luck).all() and np.abs(luck).max() > 0
    per_match = np.bincount(df["match"].to_numpy(), weights=luck)
    assert abs(per_match.mean()) < 4 * per_match.std(ddof=1) / np.sqrt(len(per_match))
    spec = engine_spec(resolve_rules("for_two"), "seat", "stable")
    calls = [resolve_policy("random", spec.rules)] * 2
    recs = draw_records(spec, *calls, 5, 0, 300).records
    assert (recs[:, L_END_PHASE] == 1).sum() > 0


def test_blocks_and_two_passes_give_the_same_luck(run, monkeypatch):
    """A large run is replayed in blocks, twice (fold sums first): the same values as one pass
    over records kept in memory, with the run's matches split across blocks and a gap in them."""
    import simkit.analysis.luck as luck_module

    df = load(run)
    df = df[df["match"] != 200]
    once = draw_luck(df)
    monkeypatch.setattr(luck_module, "KEEP_RECORDS_UP_TO", 0)
    monkeypatch.setattr(luck_module, "BLOCK_MATCHES", 150)
    np.testing.assert_array_equal(draw_luck(df), once)


def test_the_luck_correction_replays_value_and_a_working_directory_module(tmp_path):
    """Any policy the engine can replay: ``value`` (its vector holds its rule set's values) and, from
    the command line, a user policy with ``rules_data`` in a module of the working directory
    (``compare --correct-luck`` imports it as ``simulate`` does)."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    simkit.simulate(
        tmp_path / "value", policies=("value", "greedy"), matches=20, seed=3, duplicate=True, progress=False
    )
    result = compare(tmp_path / "value", correct_luck=True)
    assert result.luck_corrected and np.isfinite(result.per_hand[0])

    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(Path(__file__).with_name("policy_rules_data.py"), work / "my_reader.py")
    env = {k: v for k, v in __import__("os").environ.items() if k != "PYTHONPATH"}
    for args in (
        [
            "simulate",
            "--policies",
            "my_reader:rule_reader,greedy",
            "--matches",
            "12",
            "--duplicate",
            "--out",
            "run",
            "--quiet",
        ],
        ["compare", "run", "--correct-luck"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "simkit", *args], cwd=work, env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr[-1500:]
    assert "paired, luck corrected" in done.stdout
