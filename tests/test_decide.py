"""simkit.decide and `simkit decide`: the confidence sequence's coverage over whole sequences, its
stopping, a real decision reproducible on any worker count, the run growing chunk by chunk
(simulate's ``until``), the command, the page's figures, and bad input refused in one line."""

from __future__ import annotations

import importlib.util
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import simkit
from simkit import analysis
from simkit.cli import main
from simkit.evaluation.sequential import boundary, confidence_sequence, fixed_sample_matches

ROOT = Path(__file__).resolve().parents[1]

ALPHA = 0.05
LOOKS = np.arange(29, 1000, 10)  # every 10 observations from the 30th


def _ever_excludes(rng, draw, repeats=400, n=1000, theta=0.5):
    """The fraction of sequences whose confidence sequence excludes the true ratio at some look."""
    misses = 0
    for _ in range(repeats):
        hands = rng.integers(5, 30, size=n).astype(float)
        totals = theta * hands + 3.0 * np.sqrt(hands) * draw(n)
        _, low, high = confidence_sequence(totals, hands, alpha=ALPHA, tuned=200)
        misses += bool(((low[LOOKS] > theta) | (high[LOOKS] < theta)).any())
    return misses / repeats


@pytest.mark.parametrize(
    "name",
    ["normal", "student_t3"],  # symmetric, light and heavy tails (a strongly skewed stream needs more matches)
)
def test_the_sequence_rarely_ever_excludes_the_true_mean(name):
    rng = np.random.default_rng(7)
    draw = {"normal": lambda n: rng.normal(size=n), "student_t3": lambda n: rng.standard_t(3, size=n)}[name]
    # binomial standard error at 400 sequences and 5%: 1.1%; the tolerance is three of them
    assert _ever_excludes(rng, draw) <= ALPHA + 0.033


def test_a_fixed_sample_interval_looked_at_repeatedly_does_not_hold():
    rng = np.random.default_rng(7)
    misses = 0
    for _ in range(400):
        y = rng.normal(size=1000)
        t = np.arange(1, 1001)
        mean = np.cumsum(y) / t
        sd = np.sqrt(np.maximum(np.cumsum(y * y) / t - mean**2, 0) * t / np.maximum(t - 1, 1))
        misses += bool((np.abs(mean[LOOKS]) > 1.96 * sd[LOOKS] / np.sqrt(t[LOOKS])).any())
    assert misses / 400 > 2 * ALPHA  # why the boundary is wider than 1.96 / sqrt(t)
    assert (boundary(LOOKS + 1, ALPHA, 200) > 1.96 / np.sqrt(LOOKS + 1)).all()


def test_it_stops_early_on_a_large_difference_and_never_on_none():
    rng = np.random.default_rng(3)
    hands = np.full(2000, 10.0)
    big = 1.0 * hands + 10 * rng.normal(size=2000)  # 1 per hand, sd of a match 10 (1 per hand)
    _, low, _ = confidence_sequence(big, hands, alpha=ALPHA, tuned=200)
    first = int(np.argmax(low > 0)) + 1
    assert low[-1] > 0 and first < 100
    assert first > fixed_sample_matches(1.0, 1.0, ALPHA, 0.9) * 0.5  # the same order as a fixed-size test
    none = 10 * rng.normal(size=2000)
    _, low, high = confidence_sequence(none, hands, alpha=ALPHA, tuned=200)
    assert ((low[1:] < 0) & (high[1:] > 0)).all()  # a zero difference: never decided on this stream


def test_the_statistics_of_plain_means_and_the_fixed_sample_size():
    est, low, high = confidence_sequence([1.0, 3.0, 2.0, 2.0])
    assert est.tolist() == [1.0, 2.0, 2.0, 2.0]
    assert np.isnan(low[0]) and np.isnan(high[0]) and (low[1:] < est[1:]).all() and (high[1:] > est[1:]).all()
    assert fixed_sample_matches(0.0, 1.0) == float("inf")
    assert fixed_sample_matches(1.0, 1.0, 0.05, 0.8) == pytest.approx((1.959964 + 0.841621) ** 2, rel=1e-5)
    with pytest.raises(simkit.InputValueError, match="alpha"):
        confidence_sequence([1.0, 2.0], alpha=1.5)
    with pytest.raises(simkit.InputValueError, match="positive"):
        confidence_sequence([1.0, 2.0], [1.0, 0.0])


def test_greedy_beats_random_the_same_on_any_worker_count(tmp_path):
    kwargs = dict(rules="douque", block=4, max_matches=12, seed=2)
    one = simkit.decide("greedy", "random", **kwargs, out=tmp_path / "run")
    assert one.decision == "a_better" and one.low > 0 and one.matches <= 12
    assert one.low <= one.estimate <= one.high and one.hands == one.trace["hands"].iloc[-1]
    assert list(one.trace.columns) == ["matches", "hands", "estimate", "low", "high", "sd"]
    assert "greedy beats random" in str(one) and "confidence sequence" in str(one)
    two = simkit.decide("greedy", "random", **kwargs, workers=2)
    assert two.trace.equals(one.trace) and two.run is None
    # the kept run is an ordinary duplicate run: compare gives the last look's estimate
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # unfinished on purpose
        cmp = analysis.compare(tmp_path / "run", correct_luck=True)
    assert cmp.matches == one.matches and cmp.per_hand[0] == pytest.approx(one.estimate)
    again = simkit.decide("greedy", "random", **kwargs, out=tmp_path / "run")  # its blocks are reused
    assert again.trace.equals(one.trace)


def test_the_run_grows_chunk_by_chunk_into_the_whole_run(tmp_path):
    args = dict(policies=("greedy", "random"), matches=5, chunk_matches=2, duplicate=True, seed=4)
    r = simkit.simulate(tmp_path / "grown", **args, until=2)
    assert (r.matches, simkit.datasets.read_manifest(tmp_path / "grown")["status"]) == (2, "running")
    r = simkit.simulate(tmp_path / "grown", **args, until=3, resume=True)  # chunks starting below 3: 0 and 1
    assert r.matches == 4
    simkit.simulate(tmp_path / "grown", resume=True)
    simkit.simulate(tmp_path / "whole", **args)
    assert analysis.load(tmp_path / "grown").equals(analysis.load(tmp_path / "whole"))
    with pytest.raises(simkit.InputValueError, match="until"):
        simkit.simulate(tmp_path / "h", policies=("greedy", "random"), hands=10, until=2)


def test_decide_command(capsys, tmp_path):
    argv = ["decide", "greedy", "random", "--block", "4", "--max-matches", "8", "--seed", "2", "--quiet"]
    assert main(argv) == 0
    assert "greedy beats random by more than 0 per hand" in capsys.readouterr().out
    assert main([*argv, "--json", "--margin", "100000"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["decision"] == "not_a_better" and out["high"] < 100000 and len(out["trace"]) >= 1
    with pytest.raises(SystemExit) as info:
        main([*argv, "--margin", "x"])
    assert info.value.code == 2
    assert "expected a number" in capsys.readouterr().err


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        (dict(policy_a="greedy", policy_b="greedy"), simkit.InputValueError, "same policy"),
        (dict(margin="1"), simkit.InputTypeError, "margin must be a number"),
        (dict(margin=float("nan")), simkit.InputValueError, "margin must be finite"),
        (dict(block=1), simkit.InputValueError, "block"),
        (dict(block=10, max_matches=5), simkit.InputValueError, "max_matches"),
        (dict(alpha=0.0), simkit.InputValueError, "alpha"),
        (dict(power=1), simkit.InputValueError, "power"),
        (dict(rules="nosuch"), simkit.SimkitError, "nosuch"),
        (dict(out=""), simkit.InputValueError, "empty name"),
        (dict(out=__file__), simkit.InputValueError, "exists and is not a directory"),
    ],
)
def test_bad_input_is_one_line(kwargs, error, match):
    args = {"policy_a": "greedy", "policy_b": "random", **kwargs}
    with pytest.raises(error, match=match) as info:
        simkit.decide(args.pop("policy_a"), args.pop("policy_b"), **args)
    assert isinstance(info.value, simkit.SimkitError) and "\n" not in str(info.value)


def _example():
    spec = importlib.util.spec_from_file_location("sequential_example", ROOT / "examples" / "sequential.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_shows_the_published_results():
    results = json.loads((ROOT / "docs" / "decisions.json").read_text())
    page = (ROOT / "docs" / "decisions.md").read_text()
    assert _example().replace_block(page, results) == page
    assert results["command"].startswith("python3 examples/sequential.py")
    assert (ROOT / "docs" / "figures" / "sequential.png").stat().st_size > 10_000
