"""The step API checks its inputs as :func:`simkit.play_hand` and :func:`simkit.simulate_matches`
do: :meth:`GameState.from_wall`, :meth:`GameState.view`, :meth:`GameState.policy_stream`,
:class:`Position`, the environments, and the streak of :func:`simkit.score` and ``simkit score``.

Every bad input ends in a one-line simkit error naming what is wrong before anything enters numba
(a wall that is not the rule set's tiles would corrupt the engine's memory). Only the last tests
run the douque engine; the rest never compile it.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import simkit
from simkit.cli import main
from simkit.engine.deal import wall_template
from simkit.errors import InputTypeError, ScoreError, SimkitError, TileCountError
from simkit.play.position import Position, PositionError
from simkit.play.stepper import GameState
from simkit.tiles import format_tile_list

HAND = "123456789m111p99p"  # a complete douque hand, won on 6m
POSITION = "123456789m1122z5z"  # a douque dealer's 14 tiles after the draw


def _wall(rules="douque", seed=0):
    template = wall_template(rules).astype(np.int64)
    return template[np.random.default_rng(seed).permutation(len(template))]


def _swapped(old, new):
    """The douque wall with one tile of kind ``old`` replaced by kind ``new``."""
    wall = _wall()
    wall[np.flatnonzero(wall == old)[0]] = new
    return wall


# ------------------------------------------------------------------ GameState.from_wall: the wall


@pytest.mark.parametrize(
    "wall, error, fragment",
    [
        (np.arange(34, 106), TileCountError, "the wall's kinds must be 0-33, got 105"),
        (_wall() - 1, TileCountError, "the wall's kinds must be 0-33, got -1"),
        (_wall() + 256, TileCountError, "kinds must be 0-33"),  # the same wall after an int8 cast
        (
            _wall()[:-1],
            TileCountError,
            "exactly the 72 tiles of rule set 'douque' (4 of each of its kinds), got 71 tiles",
        ),
        (np.concatenate([_wall(), [0]]), TileCountError, "got 73 tiles"),
        (_swapped(1, 0), TileCountError, "got 5 of 1m, 3 of 2m"),
        (_swapped(0, 10), TileCountError, "got 3 of 1m, 1 of 2p"),  # 2p is not a douque tile
        (_wall().astype(np.float64), InputTypeError, "1-d integer array of kinds"),
        (_wall().astype(bool), InputTypeError, "1-d integer array of kinds"),
        (_wall().astype(object), InputTypeError, "1-d integer array of kinds"),
        (None, InputTypeError, "1-d integer array of kinds"),
        (_wall().reshape(8, 9), TileCountError, "got shape (8, 9)"),
        ("1m 2m 3m", TileCountError, "got 3 tiles"),
    ],
)
def test_from_wall_refuses_a_wall_that_is_not_the_rule_sets_tiles(wall, error, fragment):
    with pytest.raises(error) as info:
        GameState.from_wall("douque", wall)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_from_wall_takes_notation_and_any_integer_dtype():
    wall = _wall()
    for given in (wall.astype(np.int8), wall.astype(np.uint8), list(map(int, wall)), format_tile_list(wall)):
        np.testing.assert_array_equal(GameState.from_wall("douque", given)._T.wall, wall)


# ------------------------------------------------------------------ GameState.from_wall: the settings


@pytest.mark.parametrize(
    "kw, error, fragment",
    [
        (dict(dealer_east="x"), InputTypeError, "dealer_east must be True or False, got 'x'"),
        (dict(dealer_east=1), InputTypeError, "dealer_east must be True or False, got 1"),
        (dict(check="no"), InputTypeError, "check must be True or False"),
        (dict(dealer=True), InputTypeError, "dealer must be an integer from 0 to 1, got True"),
        (dict(dealer=2), SimkitError, "dealer must be an integer from 0 to 1, got 2"),
        (dict(dealer=-1), SimkitError, "dealer must be an integer from 0 to 1, got -1"),
        (dict(streak=-1), SimkitError, "streak must be an integer from 0 to 10, got -1"),
        (dict(streak=11), SimkitError, "streak must be an integer from 0 to 10, got 11"),
        (dict(streak=1.5), InputTypeError, "streak must be an integer from 0 to 10, got 1.5"),
        (dict(prevailing=99), SimkitError, "prevailing must be a wind kind, 27 (E), 28 (S), 29 (W) or 30 (N), got 99"),
        (dict(prevailing=26), SimkitError, "prevailing must be a wind kind"),
        (dict(prevailing=27.0), InputTypeError, "prevailing must be a wind kind"),
        (dict(prevailing="E"), InputTypeError, "got 'E'"),
        (dict(seed=-1), SimkitError, "seed must be an integer"),
        (dict(seed=1.5), InputTypeError, "seed must be an integer"),
    ],
)
def test_from_wall_checks_its_settings(kw, error, fragment):
    with pytest.raises(error) as info:
        GameState.from_wall("douque", _wall(), **kw)
    assert fragment in str(info.value)


def test_from_wall_streak_bound_is_the_rule_sets():
    capped = simkit.get_rules("douque", streak_cap=2)
    with pytest.raises(SimkitError, match="streak must be an integer from 0 to 2, got 3"):
        GameState.from_wall(capped, _wall(), streak=3)
    GameState.from_wall(capped, _wall(), streak=2)
    GameState.from_wall("douque", _wall(), streak=10, prevailing=30, dealer=np.int64(1), dealer_east=np.bool_(False))
    # without a streak cap, a streak is bounded by the hands of a match
    duel = simkit.get_rules("duel")
    with pytest.raises(SimkitError, match=f"streak must be an integer from 0 to {duel.options.match_hands - 1}"):
        GameState.from_wall(duel, _wall("duel"), streak=duel.options.match_hands)
    GameState.from_wall(duel, _wall("duel"), streak=duel.options.match_hands - 1)


def test_play_hand_refuses_a_streak_above_the_cap():
    with pytest.raises(SimkitError, match="streak must be an integer from 0 to 10, got 11"):
        simkit.play_hand(_wall(), streak=11)


# ------------------------------------------------------------------ view, policy_stream


@pytest.mark.parametrize("method", ["view", "policy_stream"])
@pytest.mark.parametrize(
    "player, error",
    [(2, SimkitError), (-1, SimkitError), (1.5, InputTypeError), (True, InputTypeError), ("0", InputTypeError)],
)
def test_view_and_policy_stream_take_player_0_or_1(method, player, error):
    state = GameState.from_wall("douque", _wall())
    with pytest.raises(error, match=rf"player must be an integer from 0 to 1, got {player!r}"):
        getattr(state, method)(player)


# ------------------------------------------------------------------ Position


@pytest.mark.parametrize(
    "kw, error, fragment",
    [
        (dict(dealer="no"), InputTypeError, "dealer must be True or False, got 'no'"),
        (dict(dealer=0), InputTypeError, "dealer must be True or False, got 0"),
        (dict(stable_wall="x"), InputTypeError, "stable_wall must be True or False, got 'x'"),
        (dict(replacement="yes"), InputTypeError, "replacement must be True or False, got 'yes'"),
        (dict(streak=11), PositionError, "streak must be an integer from 0 to 10, got 11"),
        (dict(streak=-1), PositionError, "streak must be an integer from 0 to 10, got -1"),
        (dict(streak=1.5), InputTypeError, "streak must be an integer from 0 to 10, got 1.5"),
        (dict(streak=True), InputTypeError, "streak must be an integer"),
        (dict(rules=simkit.get_rules("douque", streak_cap=3), streak=4), PositionError, "from 0 to 3, got 4"),
    ],
)
def test_position_checks_flags_and_streak(kw, error, fragment):
    with pytest.raises(error) as info:
        Position(**{"rules": "douque", "hand": POSITION, **kw})
    assert fragment in str(info.value)


def test_position_accepts_real_flags_and_the_cap():
    pos = Position("douque", hand=POSITION, dealer=np.bool_(True), stable_wall=False, streak=np.int64(10))
    assert "streak 10" in str(pos)
    with pytest.raises(PositionError, match="streak must be an integer from 0 to 10, got 11"):
        Position.from_string(f"douque: hand {POSITION}; dealer; streak 11")


# ------------------------------------------------------------------ score and simkit score


def test_score_refuses_a_streak_above_the_rule_sets_cap():
    with pytest.raises(ScoreError, match=r"streak=11 cannot happen: .*streak_cap, 10 here"):
        simkit.score(HAND, "6m", self_drawn=True, streak=11)
    with pytest.raises(ScoreError, match=r"streak=3 cannot happen: .*streak_cap, 2 here"):
        simkit.score(HAND, "6m", self_drawn=True, streak=3, rules=simkit.get_rules("douque", streak_cap=2))
    assert simkit.score(HAND, "6m", self_drawn=True, streak=10).dealer_tai == 21
    assert (
        simkit.score(HAND, "6m", self_drawn=True, streak=11, rules=simkit.get_rules("douque", streak_cap=20)).dealer_tai
        == 23
    )


def test_cli_score_refuses_a_streak_above_the_cap(capsys):
    assert main(["score", HAND, "--win", "6m", "--self-drawn", "--streak", "11"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simkit: error: streak=11 cannot happen"), captured.err
    assert "streak_cap, 10 here" in lines[0] and "dealer tai" not in captured.out
    assert main(["score", HAND, "--win", "6m", "--self-drawn", "--streak", "11", "--option", "streak_cap=11"]) == 0
    assert "23" in capsys.readouterr().out


# ------------------------------------------------------------------ environments


@pytest.mark.parametrize(
    "kw, fragment",
    [
        (dict(copy="no"), "copy must be True or False, got 'no'"),
        (dict(full_state="yes"), "full_state must be True or False, got 'yes'"),
        (dict(full_state=1), "full_state must be True or False, got 1"),
        (dict(copy=None), "copy must be True or False, got None"),
    ],
)
def test_vector_env_flags_take_only_real_bools(kw, fragment):
    pytest.importorskip("gymnasium")
    from simkit.envs import VectorEnv

    with pytest.raises(InputTypeError, match=fragment):
        VectorEnv("douque", 2, **kw)


def _aec_step():
    import simkit.envs as E

    E.aec_env("douque").step(0)


def _aec_observe():
    import simkit.envs as E

    E.aec_env("douque").observe("player_0")


def _gym_step():
    import simkit.envs as E

    E.SimkitGymEnv("douque").step(0)


def _vector_step():
    import simkit.envs as E

    E.VectorEnv("douque", 2).step(np.zeros(2, np.int64))


@pytest.mark.parametrize(
    "call, fragment",
    [
        (_aec_step, "before step()"),
        (_aec_observe, "before observe()"),
        (_gym_step, "before step()"),
        (_vector_step, "before step()"),
    ],
)
def test_environments_used_before_reset(call, fragment):
    pytest.importorskip("gymnasium")
    pytest.importorskip("pettingzoo")
    from simkit.envs import EnvError

    with pytest.raises(EnvError, match=re.escape(f"call reset() {fragment}: the environment has no hand yet")) as info:
        call()
    assert isinstance(info.value, SimkitError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize("seat", [True, 1.0, 2, "0"])
def test_gym_env_seat_is_0_1_or_none(seat):
    pytest.importorskip("gymnasium")
    import simkit.envs as E

    with pytest.raises(SimkitError, match="seat is 0, 1 or None"):
        E.SimkitGymEnv("douque", seat=seat)


# ------------------------------------------------------------------ a valid wall still plays (compiles douque)


def test_a_valid_from_wall_plays_a_hand():
    wall = _wall(seed=5)
    state = GameState.from_wall("douque", wall, dealer=1, dealer_east=False, streak=10, prevailing=28, seed=3)
    assert not state.over and state.player in (0, 1)
    assert state.view(0).prevailing_wind == 28 and state.view(1).dealer and state.view(1).streak == 10
    assert state.policy_stream(1) is not state.policy_stream(0)
    state.play_out("greedy", "greedy")
    assert state.over and not state.error
    row = state.row
    assert (row["dealer"], row["streak"], row["prevailing_wind"]) == (1, 10, 28)
    again = simkit.play_hand(
        wall, dealer=1, dealer_east=False, streak=10, prevailing_wind="S", seed=3, policies=("greedy", "greedy")
    )
    assert again.row.keys() == row.keys()
    for key in row:
        np.testing.assert_array_equal(again.row[key], row[key], err_msg=key)


@pytest.mark.parametrize(
    "text,fragment",
    [
        (f"douque: hand {POSITION}; dealer; hand {POSITION}", "'hand' is given twice"),
        (f"douque: hand {POSITION}; dealer; not_dealer", "'dealer' is given twice"),
        (f"douque: option migi_tai; hand {POSITION}; dealer", "option expects KEY=VALUE"),
        (f"douque: option migi_tai=5; hand {POSITION}; dealer", "migi_tai"),
        (f"douque: option migi_tai=4; option migi_tai=8; hand {POSITION}; dealer", "given twice"),
        (f"douque: option fee=0.1; hand {POSITION}; dealer", "fee"),
        (f"douque: hand {POSITION}; dealer; score 1e400", "finite"),
        (f"douque: hand {POSITION}; dealer; hand_number x", "must be an integer"),
        ("", "no position file"),
        ("pos.txt", "no position file"),
        (f"douque: hand {POSITION}; wall stable", "unknown position field 'wall'"),
    ],
)
def test_bad_position_text_is_a_one_line_position_error(text, fragment):
    with pytest.raises(PositionError) as info:
        simkit.play.position.read_position(text)
    assert fragment in str(info.value) and "\n" not in str(info.value)


def test_read_position_refuses_what_is_not_a_position_file(tmp_path):
    big = tmp_path / "big.txt"
    big.write_text("x" * (simkit.play.position.MAX_POSITION_FILE + 1))
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\xff\xfe\x00douque")
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n\n")
    for path, fragment in (
        (tmp_path, "not a regular file"),
        (big, "at most"),
        (binary, "cannot read"),
        (empty, "no position"),
    ):
        with pytest.raises(PositionError, match=fragment) as info:
            simkit.play.position.read_position(str(path))
        assert "\n" not in str(info.value)
    good = tmp_path / "good.txt"
    good.write_text(f"# a position\ndouque: hand {POSITION};\n  drawn 5z; dealer\n")
    assert simkit.play.position.read_position(str(good)) == Position("douque", hand=POSITION, drawn="5z")
