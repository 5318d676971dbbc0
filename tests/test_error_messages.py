"""Errors keep errors.py's promise: every error simkit raises on purpose is also a ``ValueError``,
``TypeError`` or (a run that cannot go on, a policy breaking the game) ``RuntimeError``, in one
readable line; and inputs that would otherwise escape as other libraries' errors or as silent
answers get one."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import simkit
from simkit.analysis import clustered_mean
from simkit.errors import MESSAGE_LIMIT, InputTypeError, InputValueError, SimkitError, readable

PACKAGE = Path(simkit.__file__).parent


def test_no_error_is_raised_as_the_bare_base_class():
    """``SimkitError`` itself is neither a ValueError nor a TypeError: raising it directly would
    break the promise, so no module does."""
    offenders = [
        f"{path.relative_to(PACKAGE)}:{i}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if "_compiled" not in path.parts
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"raise SimkitError\b", line)
    ]
    assert offenders == []


def test_every_error_class_is_also_a_builtin_category():
    classes = {c for c in vars(simkit.errors).values() if isinstance(c, type) and issubclass(c, SimkitError)}
    for module in (
        "simkit.play.matches",
        "simkit.policies.spec",
        "simkit.play.position",
        "simkit.datasets",
        "simkit.envs",
        "simkit.play.rollouts",
    ):
        mod = __import__(module, fromlist=["x"])
        classes |= {c for c in vars(mod).values() if isinstance(c, type) and issubclass(c, SimkitError)}
    classes.discard(SimkitError)
    assert len(classes) > 10
    for c in classes:
        assert issubclass(c, (ValueError, TypeError, RuntimeError)), c


def test_long_inputs_are_echoed_cut():
    with pytest.raises(simkit.errors.TileNotationError) as info:
        simkit.shanten("1" * 100_000 + "x")
    text = str(info.value)
    assert len(text) < 400 and "(100,001 characters)" in text and "at index 100000" in text
    assert readable("x" * 10) == "x" * 10 and len(readable("y" * 10 * MESSAGE_LIMIT)) <= MESSAGE_LIMIT
    apostrophes = "rule set 'duel': " + "z" * 100 + " (the fee's denominator)"  # no quoted input in it
    assert readable(apostrophes) == apostrophes


@pytest.mark.parametrize(
    "sums, counts, message",
    [
        ([1.0, 2.0], [1, 2, 3], "one length"),
        ([1.0, 2.0], [1, 0], "at least 1"),
        ([1.0, 2.0], [1, -2], "at least 1"),
        ([1.0, 2.0], [1, 1.5], "whole numbers"),
        ([1.0, np.nan], [1, 1], "finite"),
        ([[1.0], [2.0]], [1, 1], "1-D"),
        (None, [1], "1-D arrays"),
        ("x", [1], "arrays of numbers"),
    ],
)
def test_clustered_mean_refuses_what_is_not_clusters(sums, counts, message):
    with pytest.raises(InputValueError, match=message):
        clustered_mean(sums, counts)
    assert clustered_mean([2.0, 4.0], [1, 1])[0] == 3.0


def test_arguments_refused_before_any_work():
    from simkit.tournament import round_robin

    with pytest.raises(InputTypeError, match="policies must be a list or tuple"):
        round_robin(policies=None)
    with pytest.raises(InputTypeError, match="rule-set name"):
        round_robin(rules=None)
    with pytest.raises(InputTypeError, match="out is the run directory"):
        simkit.simulate(12345)
    with pytest.raises(ValueError, match="share the label 'x': give them different labels"):
        simkit.simulate(policies=("x=greedy", "x=random"))
    with pytest.raises(ValueError, match="score must be at most"):
        simkit.Position("douque", hand="123456789m1122z5z", score=1e308)


@pytest.mark.integration  # through the command line: integration tier
def test_replay_html_to_a_path_it_cannot_write_is_one_line(tmp_path, capsys):
    from simkit.cli import main

    blocker = tmp_path / "file"
    blocker.write_text("mine")
    for target in (blocker / "page.html", tmp_path, tmp_path / "missing" / "page.html"):
        assert main(["replay", "--seed", "1", "--match", "0", "--hand", "0", "--html", str(target)]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("simkit: error: cannot write") and "\n" not in err
    assert blocker.read_text() == "mine" and not list(tmp_path.glob(".*.tmp"))
    assert main(["replay", "--seed", "1", "--match", "0", "--hand", "0", "--html", str(tmp_path / "ok.html")]) == 0
    assert "<svg" in (tmp_path / "ok.html").read_text()


def test_a_long_deal_says_how_long_it_will_take(capsys):
    from simkit.cli import _say_how_long

    _say_how_long(10**14, 10**6, 1.0)
    assert "about 3 years more" in capsys.readouterr().err
    _say_how_long(10**6, 10**6 // 2, 1.0)
    assert capsys.readouterr().err == ""


def test_the_readers_refuse_what_is_not_a_run_or_a_frame():
    from simkit import analysis as A

    sample = Path(__file__).resolve().parents[1] / "data" / "sample"
    with pytest.raises(InputTypeError, match="a run is its directory"):
        A.load(None)
    with pytest.raises(InputTypeError, match="a run is its directory"):
        A.load(12)
    with pytest.raises(InputTypeError, match="expected a DataFrame"):
        A.players(None)
    with pytest.raises(InputValueError, match="cannot apply filters"):
        A.load(sample, filters=[("match", "<", 2**64)])
