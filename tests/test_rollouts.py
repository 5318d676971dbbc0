"""simkit.rollouts: paired Monte Carlo continuations of a position, checked against exact
enumeration of every completion on late positions, reproducible for any thread count; the
`advise` and `hand` commands."""

from __future__ import annotations

import numpy as np
import pytest
from engine_util import value_by_playing_every_order

import simkit
from simkit.cli import main
from simkit.engine import actions as A
from simkit.play.rollouts import RolloutError, action_text, parse_action, rollouts
from simkit.play.stepper import GameState
from simkit.rules import get_rules


def _late_position(rules, max_unseen, seeds=range(400)):
    """A position from a greedy match (the deciding player after a draw) whose unseen tiles -- the
    opponent's concealed hand and the wall -- are at most ``max_unseen`` (rule sets with no tiles kept
    back, so every unseen wall tile may be drawn)."""
    for seed in seeds:
        s = GameState.new_match(rules, seed, 0)
        while not s.over:
            if s.phase == A.PHASE_DRAW and s.player is not None:
                pos = s.position()
                if len(np.repeat(np.arange(34), pos.unseen)) <= max_unseen and not pos.opponent_declared:
                    return pos
            from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy

            s.apply(greedy_policy(s.view(), s.legal, GREEDY_DEFAULTS, s.policy_stream()))
    raise AssertionError("no late position found")


@pytest.mark.parametrize("rules, seeds", [("night_market", range(0, 200)), ("night_market", range(200, 400))])
def test_rollouts_agree_with_exact_enumeration_of_late_positions(rules, seeds):
    """night_market keeps no tiles back, so a position late in the hand has few unseen tiles and
    every completion can be played out (greedy is deterministic)."""
    pos = _late_position(rules, max_unseen=6, seeds=seeds)
    state = pos.state(0, check=False)
    codes = [int(a) for a in np.flatnonzero(state.legal)][:6]
    exact, n_completions = value_by_playing_every_order(pos, codes)
    df = rollouts(pos, n=20_000, actions=codes, seed=11).set_index("code")
    for code, value in zip(codes, exact):
        r = df.loc[code]
        half = (r.mean_high - r.mean_low) / 2
        # a 99.9% interval (3.29 standard errors) on a fixed seed: every action's exact value is inside
        assert abs(r["mean"] - value) <= half * 3.29 / 1.96 + 1e-9, (
            rules,
            str(pos),
            action_text(code, -1, get_rules(rules)),
            r["mean"],
            value,
            n_completions,
        )


def test_rollouts_are_reproducible_whatever_the_thread_count():
    pos = simkit.Position.from_string("douque: hand 1112345678m9p13z3z; drawn 3z; dealer")
    a = rollouts(pos, n=600, seed=5, threads=1)
    b = rollouts(pos, n=600, seed=5, threads=2)
    c = rollouts(pos, n=600, seed=5)
    assert a.equals(b) and a.equals(c)
    assert a.attrs["policies"] == ["greedy", "greedy"] and a.attrs["rules"] == "douque" and a.attrs["seed"] == 5
    d = rollouts(pos, n=600, seed=6)
    assert not a.equals(d)


def test_table_columns_and_pairing():
    pos = simkit.Position.from_string("douque: hand 1112345678m9p13z3z; drawn 3z; dealer")
    df = rollouts(pos, n=3000, seed=1)
    assert list(df.columns) == [
        "action",
        "code",
        "rollouts",
        "win_rate",
        "self_draw_rate",
        "deal_in_rate",
        "draw_rate",
        "mean",
        "mean_low",
        "mean_high",
        "diff",
        "diff_low",
        "diff_high",
    ]
    assert df["mean"].is_monotonic_decreasing and df["diff"].iloc[0] == 0
    assert set(df["action"]) == {
        f"discard {t}" for t in ("1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9p", "1z", "3z")
    }
    assert (
        (df["self_draw_rate"] <= df["win_rate"]) & (df["win_rate"] + df["deal_in_rate"] + df["draw_rate"] <= 1)
    ).all()
    # common random numbers: a difference is known better than either mean
    second = df.iloc[1]
    assert (second.diff_high - second.diff_low) < (second.mean_high - second.mean_low)


def test_a_declared_opponent_is_completed_ready():
    """With opponent_declared the completions are drawn among those that leave the opponent ready
    (their locked hand must be a ready one); the engine's invariant checks would stop otherwise."""
    s = GameState.new_match("douque", 7, 0)
    from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy

    while not s.over:
        if s.phase == A.PHASE_DRAW:
            pos = s.position()
            if pos.opponent_declared and not pos.declared:
                df = rollouts(pos, n=300, seed=2)
                assert (df["rollouts"] == 300).all()
                return
        s.apply(greedy_policy(s.view(), s.legal, GREEDY_DEFAULTS, s.policy_stream()))
    pytest.skip("no declared opponent in this match")


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(n=0), "n must be"),
        (dict(actions=["discard 5z"]), "discard 5z is not legal at this position (legal: discard 1m"),
        (dict(actions=["throw 5z"]), "cannot read action 'throw 5z'"),
        (dict(policies=("greedy", "gready")), "unknown policy 'gready'"),
        (dict(seed=-1), "seed must be"),
    ],
)
def test_bad_arguments_are_one_line(kwargs, words):
    pos = simkit.Position.from_string("douque: hand 1112345678m9p13z3z; drawn 3z; dealer")
    with pytest.raises(simkit.SimkitError) as info:
        rollouts(pos, **{"n": 10, **kwargs})
    assert words in str(info.value) and "\n" not in str(info.value)


def test_action_notation_round_trips():
    rules = get_rules("night_market")
    for code in range(A.N_ACTIONS):
        if A.BID <= code < A.N_ACTIONS and code >= A.BID:
            continue
        text = action_text(code, 20, rules) if not (A.CHOW <= code < A.CHOW + 3) else action_text(code, 4, rules)
        tile = 4 if A.CHOW <= code < A.CHOW + 3 else 20
        if A.DISCARD <= code < A.ADDED_KONG + 34 and (code % 34) not in rules.kinds:
            continue
        assert parse_action(text, tile, rules) == code, text
    assert action_text(A.CHOW + 1, 4, rules) == "chow 456m"
    with pytest.raises(RolloutError):
        parse_action("chow 789m", 4, rules)


def test_advise_and_hand_commands(capsys):
    assert main(["advise", "1112345678m9p13z3z", "--dealer", "-n", "400", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "discard 9p" in out and "95% interval" in out and "400 per action" in out
    assert main(["advise", "1112345678m9p13z", "--on-discard", "9p", "-n", "200"]) == 0
    out = capsys.readouterr().out
    assert "pass" in out
    assert (
        main(
            [
                "advise",
                "1112345678m9p13z3z",
                "--dealer",
                "-n",
                "200",
                "--to",
                "match",
                "--hand-number",
                "3",
                "--dealerships",
                "2",
                "--score",
                "50",
                "--opp-score",
                "-50",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "hand_number 3; dealerships 2; score 50; opponent_score -50" in out and "end of the match" in out
    with pytest.raises(SystemExit) as info:
        main(["advise", "1112345678m9p13z3z", "--dealer", "-n", "0"])
    assert info.value.code == 2 and "expected a positive integer" in capsys.readouterr().err
    assert main(["advise", "1112345678m9p13z3z", "--dealer", "--tiles-left", "50"]) == 2
    assert "tiles_left is 50" in capsys.readouterr().err
    assert main(["hand", "1112345678m9p13z3z"]) == 0
    out = capsys.readouterr().out
    assert (
        "discard  shanten after   live improving tiles" in out
        and "9p                   1                     31" in out
    )


def test_advise_on_a_discard_takes_the_river_with_or_without_it_and_times_the_rollouts_alone(capsys):
    """``--on-discard T`` is the opponent's last discard, as ``Position(phase="discard")`` takes it:
    an ``--opp-river`` that already ends with T means the same position (not T twice). The start-up
    is announced on stderr and the rollout time excludes it."""
    args = ["advise", "1112345678m9p13z", "--on-discard", "9p", "--river", "1p", "-n", "200", "--seed", "3"]
    assert main(args + ["--opp-river", "1m 9p"]) == 0
    with_it = capsys.readouterr()
    assert main(args + ["--opp-river", "1m"]) == 0
    without = capsys.readouterr()
    assert "opponent_river 1m 9p;" in with_it.out
    table = [line for line in with_it.out.splitlines() if not line.startswith("rollouts")]
    assert table == [line for line in without.out.splitlines() if not line.startswith("rollouts")]
    assert "simkit advise:" in with_it.err and "engine ready in" in with_it.err
    from simkit.cli import _ending_with

    rules = get_rules("douque")
    assert _ending_with("1m 9p*", "9p", rules) == "1m 9p* 9p"  # a claimed 9p: the one decided on is another
    assert _ending_with("1m 9p", "9p", rules) == "1m 9p" and _ending_with("", "9p", rules) == "9p"
    assert main(["advise", "1112345678m9p13z", "--on-discard", "9p9p"]) == 2
    assert "--on-discard is one tile" in capsys.readouterr().err


def test_discards_table_against_the_shanten_definition():
    rng = np.random.default_rng(0)
    rules = get_rules("douque")
    hands = simkit.random_complete_hands(30, seed=4, rules=rules)
    for h in hands:
        h = h.copy()
        k = rng.choice(np.flatnonzero(h))
        h[k] -= 1
        x = rng.choice([x for x in rules.kinds if h[x] < 4])
        h[x] += 1
        rows = simkit.discards(h, rules=rules)
        for r in rows:
            after = h.copy()
            kind = int(np.flatnonzero(simkit.as_counts(r["discard"], rules))[0])
            after[kind] -= 1
            assert r["shanten"] == simkit.shanten(after, rules=rules)
            better = []
            for y in rules.kinds:
                if h[y] >= 4:
                    continue
                after[y] += 1
                if simkit.shanten(after, rules=rules) < r["shanten"]:
                    better.append(y)
                after[y] -= 1
            assert [simkit.tile_name(y) for y in better] == r["improving"]
            assert r["live"] == sum(4 - int(h[y]) for y in better)


def test_to_the_end_of_the_match():
    """The position's hand plays the same either way (same rates), the match's later hands add to
    the mean; in the match's last hand the two agree exactly; any thread count gives the same."""
    text = "douque: hand 1112345678m9p13z3z; drawn 3z; dealer"
    hand = rollouts(text, n=400, seed=3)
    match = rollouts(text + "; hand_number 2; dealerships 1; score 120; opponent_score -120", n=400, seed=3, to="match")
    rates = ["action", "win_rate", "self_draw_rate", "deal_in_rate", "draw_rate"]
    by_action = hand.set_index("action")[rates[1:]].sort_index()
    assert by_action.equals(match.set_index("action")[rates[1:]].sort_index())
    assert not np.allclose(
        hand.set_index("action")["mean"].sort_index(), match.set_index("action")["mean"].sort_index()
    )
    assert match.attrs["to"] == "match" and "end of the match" in match.attrs["value"]
    assert match.equals(
        rollouts(
            text + "; hand_number 2; dealerships 1; score 120; opponent_score -120",
            n=400,
            seed=3,
            to="match",
            threads=1,
        )
    )
    from simkit.engine.rulesets import engine_spec

    last = engine_spec(get_rules("douque")).game.match_hands - 1
    a = rollouts(text + f"; hand_number {last}; dealerships 7", n=200, seed=4, to="match")
    b = rollouts(text + f"; hand_number {last}; dealerships 7", n=200, seed=4)
    assert np.array_equal(a["mean"], b["mean"]) and list(a["action"]) == list(b["action"])


def test_match_context_of_a_position_is_validated_and_kept_in_its_notation():
    text = (
        "douque: hand 1112345678m9p13z3z; drawn 3z; opponent_river 4z; not_dealer; streak 2; seat_wind W; prevailing_wind S; "
        "hand_number 5; dealerships 3; score -40.5; opponent_score 40.5"
    )
    pos = simkit.Position.from_string(text)
    again = simkit.Position.from_string(str(pos))
    for name in (
        "streak",
        "seat_wind",
        "prevailing_wind",
        "hand_number",
        "dealerships",
        "score",
        "opponent_score",
        "dealer",
    ):
        assert getattr(again, name) == getattr(pos, name), name
    assert pos != simkit.Position.from_string(text.replace("streak 2", "streak 1"))
    with pytest.raises(simkit.SimkitError, match="dealerships must be below the 8 deals of a douque match"):
        simkit.Position.from_string("douque: hand 1112345678m9p13z3z; drawn 3z; dealer; dealerships 8")
    with pytest.raises(simkit.SimkitError, match="score must be a number"):
        simkit.Position.from_string("douque: hand 1112345678m9p13z3z; drawn 3z; dealer; score lots")
    with pytest.raises(simkit.SimkitError, match="to must be 'hand' or 'match'"):
        rollouts("douque: hand 1112345678m9p13z3z; drawn 3z; dealer", n=10, to="game")


def _advice_rows(out: str) -> list[tuple[str, str]]:
    """(action, mean) of each row of ``advise``'s table."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("action")) + 1
    return [(line[:18].strip(), line[18:28].strip()) for line in lines[start:] if line.strip()]


def test_advise_takes_a_step_api_position_as_text_or_file_and_gives_the_apis_advice(tmp_path, capsys):
    """A position taken mid-hand from a GameState, written as text (and to a file), is advised by
    ``simkit advise --position`` exactly as ``simkit.rollouts`` advises it."""
    s = GameState.new_match(get_rules("douque", tai_value=25), seed=3)
    for _ in range(8):
        s.apply(s.legal_actions()[-1])
    while s.phase != A.PHASE_DRAW:
        s.apply(s.legal_actions()[-1])
    pos = s.position()
    text = str(pos)
    assert "option tai_value=25" in text and "stable_wall" in text
    df = rollouts(pos, n=40, seed=1)
    expected = [(a, f"{m:.2f}") for a, m in zip(df["action"], df["mean"])]
    path = tmp_path / "position.txt"
    path.write_text(f"# from GameState.position()\n{text}\n", encoding="utf-8")
    for source in (text, str(path)):
        assert main(["advise", "--position", source, "-n", "40", "--seed", "1", "--exact", "never"]) == 0
        out = capsys.readouterr().out
        assert f"position  {text}" in out
        assert _advice_rows(out) == expected


@pytest.mark.parametrize(
    "argv,fragment",
    [
        (["--position", "douque: hand 123456789m1122z5z; dealer", "--dealer"], "drop --dealer"),
        (["123456789m1122z5z", "--position", "douque: hand 123456789m1122z5z; dealer"], "drop HAND"),
        (["--position", "douque: hand 123456789m1122z5z; dealer", "--option", "migi_tai=4"], "drop --option"),
        (["--position", "no_such_file.txt"], "no position file"),
        (["--position", "douque: hand 123456789m1122z5z; dealer; hand 1m"], "given twice"),
        (["--position", "douque: option migi_tai=5; hand 123456789m1122z5z; dealer"], "migi_tai"),
        (["--position", "douque: option nosuch=1; hand 123456789m1122z5z; dealer"], "nosuch"),
        ([], "needs the hand"),
        (["--declared-at", "0", "123456789m1122z5z", "--dealer"], "declared_at is given"),
    ],
)
def test_advise_position_errors_are_one_line(argv, fragment, capsys):
    assert main(["advise", *argv, "-n", "1"]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1 and err.startswith("simkit: error:")


def test_advise_builds_declared_at_and_the_wall_mode_from_flags(capsys):
    args = ["advise", "123456789m1122z5z", "--drawn", "5z", "--dealer", "--river", "9p 4z", "--opp-river", "9p 6z"]
    args += ["--declared", "1", "--declared-at", "0", "--wall", "stable", "-n", "20", "--exact", "never"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "stable_wall; declared_at 0; declared 1" in out
