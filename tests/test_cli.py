"""The `simkit` command: each subcommand works, and bad input is one clear line with exit code 2."""

from __future__ import annotations

import subprocess
import sys

import pytest

from simkit.cli import main


def test_hand_ready(capsys):
    assert main(["hand", "1112345678999m"]) == 0
    out = capsys.readouterr().out
    assert "shanten  0 (ready)" in out and "waits    1m 2m 3m 4m 5m 6m 7m 8m 9m" in out


def test_hand_complete_with_melds(capsys):
    assert main(["hand", "11999m", "--melds", "pung 111z", "kong 2222z", "concealed_kong 5555z"]) == 0
    out = capsys.readouterr().out
    assert "win      yes" in out and "split 1  pung 999m | pair 11m" in out


def test_hand_with_rules_and_option(capsys):
    assert main(["hand", "1133557799m1134z", "--rules", "duel", "--option", "fee=0.1"]) == 0
    out = capsys.readouterr().out
    assert "duel(fee=0.1)" in out and "shanten  0" in out


def test_score_worked_example_2(capsys):
    argv = ["score", "11m555z", "--win", "5z", "--melds", "pung 222m", "pung 999p", "pung 777m", "--dealer"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "all_pungs      4" in out and "dragon_pung    1" in out
    assert "payment: 8.5 tai = 170 points" in out


def test_score_flags_and_options(capsys):
    argv = ["score", "123456789m111p99p", "--win", "6m", "--self-drawn", "--streak", "1", "--option", "tai_value=10"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "hand tai           6" in out and "dealer tai         3" in out
    assert "payment: 14 tai = 140 points" in out  # 50 / 10 + 6 + 3


def test_replay(capsys):
    assert main(["replay", "--seed", "3", "--match", "7", "--hand", "2"]) == 0
    out = capsys.readouterr().out
    assert "seed 3, match 7, hand 2" in out and "deal: player 0" in out
    assert "wins" in out or "exhaustive draw" in out


def test_deal(capsys):
    assert main(["deal", "--hands", "20000", "--seed", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "20,000 deals of douque" in out and "non-dealer's 13 tiles ready" in out


def test_rules_and_tables(capsys):
    assert main(["rules", "douque"]) == 0
    assert "migi_tai" in capsys.readouterr().out
    assert main(["tables"]) == 0
    assert "hand tables" in capsys.readouterr().out


def _exit_code(argv) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own errors
        return exc.code


@pytest.mark.parametrize(
    "argv, words",
    [
        (["hand", "123x"], "unknown character 'x'"),
        (["hand", "11111m"], "5 copies of 1m"),
        (["hand", "123m"], "concealed part has 3 tiles"),
        (["hand", "1112345678999m", "--rules", "riichi"], "unknown rule set"),
        (["hand", "1112345678999m", "--option", "migi_tai=5"], "migi_tai"),
        (["hand", "1112345678999m", "--option", "nope"], "KEY=VALUE"),
        (["hand", "11m", "--melds", "pung 12m"], "pung"),
        (["deal", "--hands", "0"], "positive integer"),
        (["score", "123456789m111p99p", "--win", "6m", "--robbing-kong", "--self-drawn"], "robbing_kong"),
        (["score", "123456789m111p9p1z", "--win", "6m"], "not a complete hand"),
        (["score", "123456789m111p99p", "--win", "5z"], "not in the hand"),
        (["score", "123456789m111p99p", "--win", "6m", "--first-turn", "heavenly", "--self-drawn"], "heavenly"),
        (["score", "123456789m111p99p", "--win", "6m", "--streak", "-1"], "non-negative"),
        (["score", "123456789m111p99p"], "--win"),
        (["replay", "--seed", "1", "--match", "0", "--hand", "500"], "has 12 hands (0 to 11); there is no hand 500"),
        (["replay", "--seed", "1", "--match", "0", "--hand", "0", "--policies", "greedy"], "two policies"),
        (["replay", "--seed", "1", "--match", "0", "--hand", "0", "--policies", "greedy,nope"], "unknown policy"),
        (["deal", "--seed", "x"], "seed"),
        (["policies", "os.path:join"], "join is defined in posixpath, not in os.path"),
        (["replay", "--seed", "1", "--match", "0", "--hand", "0", "--policies", "subprocess:call,greedy"], "call("),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_errors_are_one_line_exit_2(capsys, argv, words):
    assert _exit_code(argv) == 2
    err = capsys.readouterr().err
    assert words in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_console_script_runs():
    proc = subprocess.run(
        [sys.executable, "-m", "simkit", "hand", "11123455678999m"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "win      yes" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "simkit", "hand", "1z2"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith("simkit: error:")


def test_deal_refuses_a_count_that_would_run_for_days(capsys):
    assert main(["deal", "--hands", "100000000000000", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("simkit: error: --hands: at most 100,000,000,000 deals") and err.count("\n") == 1


def test_advise_refuses_a_continuation_that_is_not_a_policy_in_one_line(capsys):
    position = ["advise", "123456789m1122z5z", "--opp-river", "1p", "--tiles-left", "36", "-n", "2", "--exact", "never"]
    assert main([*position, "--continuation", "os.path:join"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1  # said before the engine is compiled: no start-up line
    assert err.strip() == (
        "simkit: error: policy os.path:join: join is defined in posixpath, not in os.path; a Python policy is "
        "named by the module that defines it"
    )
