"""simkit.envs.VectorEnv: many tables stepped in the compiled engine play exactly the games of the
step API (and, against an opponent, of the Gymnasium environment), encode the documented
observation and full state (compared with plain-Python encoders), reset themselves, add rewards up
to the scores, are reproducible per table whatever the number of tables and threads, and name
illegal actions."""

from __future__ import annotations

import numpy as np
import pytest

import simkit
import simkit.envs as E
from simkit.engine import actions as A
from simkit.engine.observation import state_layout, state_size
from simkit.play.stepper import GameState
from tests.reference_observation import reference_observation, reference_state


def _choose(masks, step, tables):
    """A legal action per table, a deterministic function of (table, step) only."""
    out = np.zeros(len(masks), np.int64)
    for i, t in enumerate(tables):
        legal = np.flatnonzero(masks[i])
        out[i] = legal[(7 * int(t) + 3 * step) % len(legal)]
    return out


def test_self_play_is_the_step_api_and_the_encoders_are_the_references():
    self_play_is_the_step_api("douque")  # for_two: tests/test_envs_vector_rule_sets.py


def self_play_is_the_step_api(rules):
    """Self-play on 6 tables for 160 steps: the masks, observations, full states, rewards and ends
    of each table are those of the step API's GameState playing the same actions."""
    n, steps = 6, 160
    env = E.VectorEnv(rules, n, seed=11, full_state=True, threads=2, episode="first_hand")
    obs, masks, info = env.reset()
    states = [GameState.new_match(rules, int(env.table_seeds[i]), 0) for i in range(n)]
    matches = [1] * n
    ended = 0
    for step in range(steps):
        for i, s in enumerate(states):
            assert not s.over
            assert info["player"][i] == s.player
            assert np.array_equal(masks[i], s.legal.astype(np.int8))
            assert np.array_equal(obs[i], reference_observation(s.table, s.player, True))
            assert np.array_equal(info["state"][i], reference_state(s.table))
        actions = _choose(masks, step, range(n))
        obs, masks, rewards, terminated, truncated, info = env.step(actions)
        assert rewards.shape == (n, 2) and not truncated.any()
        for i, s in enumerate(states):
            before = s.table.purse[:2].copy()
            s.apply(int(actions[i]))
            assert terminated[i] == s.over
            assert np.allclose(rewards[i], s.table.purse[:2] - before)
            if s.over:
                ended += 1
                states[i] = GameState.new_match(rules, int(env.table_seeds[i]), matches[i])
                matches[i] += 1
    assert ended >= n  # every table went through at least one reset


def test_the_compiled_observation_is_the_reference_for_both_players():
    s = GameState.new_match("night_market", 3, 0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        if s.over:
            break
        for p in (0, 1):
            assert np.array_equal(
                E.encode_observation(s.table, p, p == s.player), reference_observation(s.table, p, p == s.player)
            )
        s.apply(int(rng.choice(s.legal_actions())))
    L = state_layout(len(s.table.wall))
    assert L["back"].stop == state_size(len(s.table.wall))


def test_against_an_opponent_it_is_the_gymnasium_environment():
    gymnasium = pytest.importorskip("gymnasium")
    n = 3
    env = E.VectorEnv("douque", n, opponent="greedy", seed=5, threads=1)
    obs, masks, info = env.reset()
    gyms, last = [], []
    for i in range(n):
        g = gymnasium.make("simkit/Douque-v0", opponent="greedy").unwrapped
        o, gi = g.reset(seed=int(env.table_seeds[i]))
        gyms.append(g)
        last.append(o)
        assert info["player"][i] == gi["seat"]
    for step in range(120):
        for i in range(n):
            assert np.array_equal(obs[i], last[i]["observation"])
            assert np.array_equal(masks[i], last[i]["action_mask"])
        actions = _choose(masks, step, range(n))
        obs, masks, rewards, terminated, truncated, info = env.step(actions)
        assert rewards.shape == (n,)
        for i, g in enumerate(gyms):
            o, r, done, _, gi = g.step(int(actions[i]))
            assert done == terminated[i] and r == pytest.approx(float(rewards[i]))
            if done:
                o, gi = g.reset()
            last[i] = o
            assert info["player"][i] == g.seat


def test_reproducible_per_table_whatever_the_batch_and_threads():
    reproducible_per_table("douque")  # duel: tests/test_envs_vector_rule_sets.py


def reproducible_per_table(rules):
    """3 tables on one thread and 7 on two: the first 3 tables' observations, rewards and ends agree
    step by step."""

    def run(n, threads):
        env = E.VectorEnv(rules, n, seed=2, episode="match", threads=threads)
        obs, masks, _ = env.reset()
        seen = []
        for step in range(80):
            obs, masks, rewards, terminated, _, info = env.step(_choose(masks, step, range(n)))
            seen.append((obs[:3].copy(), rewards[:3].copy(), terminated[:3].copy()))
        return seen

    a, b = run(3, 1), run(7, 2)
    for (oa, ra, ta), (ob, rb, tb) in zip(a, b):
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb) and np.array_equal(ta, tb)


def test_match_episodes_add_rewards_up_to_the_match_result():
    env = E.VectorEnv("douque", 4, seed=8, episode="match", threads=2)
    obs, masks, _ = env.reset()
    totals = np.zeros((4, 2))
    finished = []
    for step in range(20000):
        obs, masks, rewards, terminated, _, _ = env.step(_choose(masks, step, range(4)))
        totals += rewards
        for i in np.flatnonzero(terminated):
            finished.append(totals[i].copy())
            totals[i] = 0.0
        if len(finished) >= 4:
            break
    assert len(finished) >= 4
    for t in finished:
        assert t[0] == pytest.approx(-t[1]) and t[0] != 0.0  # douque: what one pays the other receives


def test_illegal_actions_are_named_or_penalised():
    env = E.VectorEnv("douque", 4, seed=1, threads=1)
    obs, masks, info = env.reset()
    actions = _choose(masks, 0, range(4))
    bad = int(np.flatnonzero(masks[2] == 0)[0])
    actions[2] = bad
    with pytest.raises(simkit.SimkitError) as err:
        env.step(actions)
    text = str(err.value)
    assert text.startswith(f"table 2: player {info['player'][2]} played {bad}") and "legal: discard" in text
    with pytest.raises(simkit.SimkitError, match="actions is an integer array of shape"):
        env.step(np.zeros(3, np.int64))
    with pytest.raises(simkit.SimkitError, match="call reset"):
        E.VectorEnv("douque", 2).step(np.zeros(2, np.int64))
    with pytest.raises(simkit.SimkitError, match="n_envs"):
        E.VectorEnv("douque", 0)

    env = E.VectorEnv("douque", 4, seed=1, threads=1, illegal="penalty", illegal_penalty=-3.0)
    obs, masks, info = env.reset()
    player = int(info["player"][2])
    obs, masks, rewards, terminated, _, _ = env.step(actions)
    assert rewards[2, player] == -3.0 and rewards[2, 1 - player] == 0.0


def test_copy_returns_arrays_the_next_step_does_not_touch():
    env = E.VectorEnv("douque", 2, seed=4, threads=1, copy=True)
    obs, masks, _ = env.reset()
    kept = obs.copy()
    env.step(_choose(masks, 0, range(2)))
    assert np.array_equal(obs, kept)
    assert A.N_ACTIONS == env.n_actions and E.OBSERVATION_SIZE == env.observation_size


def test_hand_episodes_follow_the_match_from_hand_to_hand():
    """``episode="hand"``: self-play on 4 tables, each episode one hand; a table's episodes are the
    hands of its matches in turn (the same as the step API's GameState going on with next_hand),
    and the rewards of a match's episodes add up to its result."""
    n, steps = 4, 400
    env = E.VectorEnv("duel", n, seed=5, threads=2)
    obs, masks, info = env.reset()
    states = [GameState.new_match("duel", int(env.table_seeds[i]), 0) for i in range(n)]
    matches = [1] * n
    later_hands = 0
    for step in range(steps):
        for i, s in enumerate(states):
            assert np.array_equal(masks[i], s.legal.astype(np.int8))
            assert np.array_equal(obs[i], reference_observation(s.table, s.player, True))
        actions = _choose(masks, step, range(n))
        obs, masks, rewards, terminated, truncated, info = env.step(actions)
        for i, s in enumerate(states):
            before = s.table.purse[:2].copy()
            s.apply(int(actions[i]))
            assert terminated[i] == s.over
            assert np.allclose(rewards[i], s.table.purse[:2] - before)
            if s.over and not s.next_hand():
                states[i] = GameState.new_match("duel", int(env.table_seeds[i]), matches[i])
                matches[i] += 1
            elif terminated[i]:
                later_hands += 1
    assert later_hands > 0  # episodes went on within a match
