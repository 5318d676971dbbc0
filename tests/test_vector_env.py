"""simkit.envs.VectorEnv: a gymnasium vector environment (its spaces, its same-step autoreset, the
games of gymnasium's SyncVectorEnv of the Gymnasium environment, gymnasium's wrappers) whose tables,
stepped in the compiled engine, play exactly the games of the step API, encode the documented
observation and full state (compared with plain-Python encoders), reset themselves, add rewards up
to the scores, are reproducible per table whatever the number of tables and threads, name illegal
actions, and play the games they played before they were gymnasium's (frozen digests)."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.utils.env_match import check_environments_match  # noqa: E402
from gymnasium.utils.passive_env_checker import check_obs  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402
from gymnasium.vector.utils import batch_space  # noqa: E402
from gymnasium.wrappers.vector import RecordEpisodeStatistics, TransformReward  # noqa: E402

import simkit  # noqa: E402
import simkit.envs as E  # noqa: E402
from simkit.engine import actions as A  # noqa: E402
from simkit.engine.observation import state_layout, state_size  # noqa: E402
from simkit.engine.rng import stream_key  # noqa: E402
from simkit.play.stepper import GameState  # noqa: E402
from tests.reference_observation import reference_observation, reference_state  # noqa: E402


def _choose(masks, step, tables):
    """A legal action per table, a deterministic function of (table, step) only."""
    out = np.zeros(len(masks), np.int64)
    for i, t in enumerate(tables):
        legal = np.flatnonzero(masks[i])
        out[i] = legal[(7 * int(t) + 3 * step) % len(legal)]
    return out


class _TableSeed(gymnasium.Wrapper):
    """The Gymnasium environment reset with the seed of table ``table`` of a VectorEnv reset with
    the same seed, so that it plays that table's games (SyncVectorEnv's ``reset(seed=[s] * n)``
    gives every table the VectorEnv's seed ``s``)."""

    def __init__(self, env, table: int):
        super().__init__(env)
        self.table = table

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            seed = int(stream_key(np.uint64(seed), self.table, 0)) >> 1
        return self.env.reset(seed=seed, options=options)


def _gymnasium_tables(n, **kwargs):
    """gymnasium's SyncVectorEnv, same-step autoreset, of ``n`` Gymnasium environments playing the
    tables of a VectorEnv (rewards as float32, the VectorEnv's dtype)."""
    fns = [lambda i=i: _TableSeed(E.SimkitGymEnv("douque", **kwargs), i) for i in range(n)]
    sync = SyncVectorEnv(fns, autoreset_mode=AutoresetMode.SAME_STEP)
    return TransformReward(sync, lambda r: r.astype(np.float32))


# ------------------------------------------------------------------ gymnasium's API


def test_it_is_a_gymnasium_vector_env_with_batched_spaces_and_same_step_autoreset():
    env = E.VectorEnv("douque", 3, opponent="random", seed=1, threads=1)
    assert isinstance(env, gymnasium.vector.VectorEnv) and isinstance(env, E.VectorEnv)
    assert env.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert env.num_envs == env.n_envs == 3
    single = gymnasium.make("simkit/Douque-v0").unwrapped.observation_space
    assert env.single_observation_space == single
    assert env.single_action_space == gymnasium.spaces.Discrete(A.N_ACTIONS)
    assert env.observation_space == batch_space(single, 3)
    assert env.action_space == batch_space(env.single_action_space, 3)
    obs, infos = env.reset(seed=4)
    check_obs(obs, env.observation_space, "reset")
    assert set(infos) == {"player"}
    final_keys = {"final_obs", "_final_obs", "final_info", "_final_info"}
    ended = 0
    for step in range(40):
        obs, rewards, terminated, truncated, infos = env.step(_choose(obs["action_mask"], step, range(3)))
        check_obs(obs, env.observation_space, "step")
        assert rewards.shape == terminated.shape == truncated.shape == (3,)
        assert rewards.dtype == np.float32 and terminated.dtype == truncated.dtype == np.bool_
        assert not truncated.any() and set(infos) == {"player"} | (final_keys if terminated.any() else set())
        if terminated.any():
            ended += 1
            assert infos["final_obs"].dtype == object and np.array_equal(infos["_final_obs"], terminated)
            for i in np.flatnonzero(terminated):
                check_obs(infos["final_obs"][i], env.single_observation_space, "final_obs")
    assert ended
    # without the final observations: the same games, and no final keys
    lean = E.VectorEnv("douque", 3, opponent="random", seed=1, threads=1, final_obs=False)
    again = E.VectorEnv("douque", 3, opponent="random", seed=1, threads=1)
    obs_lean, _ = lean.reset(seed=4)
    obs_again, _ = again.reset(seed=4)
    for step in range(40):
        actions = _choose(obs_lean["action_mask"], step, range(3))
        obs_lean, r_lean, t_lean, _, info_lean = lean.step(actions)
        obs_again, r_again, t_again, _, _ = again.step(actions)
        assert np.array_equal(obs_lean["observation"], obs_again["observation"]) and np.array_equal(t_lean, t_again)
        assert np.array_equal(r_lean, r_again) and set(info_lean) == {"player"}
    with pytest.raises(simkit.SimkitError, match="VectorEnv.reset takes no options"):
        env.reset(options={"reset_mask": np.ones(3, np.bool_)})
    with pytest.raises(simkit.SimkitError, match="seed must be an integer"):
        env.reset(seed=-1)
    env.close()
    assert env.closed


def test_gymnasium_finds_it_the_sync_vector_env_of_the_gymnasium_env():
    """gymnasium's check_environments_match: unmasked random actions (each illegal one costs the
    penalty and plays a random legal action from the table's own stream), the observations,
    rewards and ends of a VectorEnv table are those of SyncVectorEnv with same-step autoreset over
    the Gymnasium environment, for every kind of episode."""
    for episode in ("hand", "first_hand", "match"):
        ours = E.VectorEnv("douque", 1, opponent="greedy", illegal="penalty", episode=episode, threads=1)
        check_environments_match(
            ours, _gymnasium_tables(1, episode=episode), num_steps=400, seed=5, info_comparison="skip"
        )


@pytest.mark.parametrize("episode, n, steps", [("hand", 3, 120), ("first_hand", 3, 60), ("match", 1, 700)])
def test_against_an_opponent_it_is_the_gymnasium_environment_on_every_table(episode, n, steps):
    """Observations, rewards, ends and seats, and at each end the finished episode's final
    observation, are SyncVectorEnv's over the Gymnasium environment."""
    env = E.VectorEnv("douque", n, opponent="greedy", seed=5, threads=1, episode=episode)
    sync = _gymnasium_tables(n, episode=episode)
    obs, info = env.reset()
    expected, sync_info = sync.reset(seed=[5] * n)
    assert np.array_equal(info["player"], sync_info["seat"])
    ended = 0
    for step in range(steps):
        for key in ("observation", "action_mask"):
            assert np.array_equal(obs[key], expected[key])
        actions = _choose(obs["action_mask"], step, range(n))
        seats = info["player"].copy()
        obs, rewards, terminated, _, info = env.step(actions)
        expected, r, done, _, sync_info = sync.step(actions)
        assert np.array_equal(terminated, done) and np.allclose(rewards, r)
        assert np.array_equal(info["player"], [g.unwrapped.seat for g in sync.unwrapped.envs])
        assert ("final_obs" in info) == ("final_obs" in sync_info) == bool(terminated.any())
        if terminated.any():
            assert np.array_equal(info["_final_obs"], sync_info["_final_obs"])
            assert np.array_equal(info["_final_info"], terminated)
            for i in range(n):
                ours, theirs = info["final_obs"][i], sync_info["final_obs"][i]
                assert (ours is None) == (theirs is None) == (not terminated[i])
                if ours is not None:
                    assert set(ours) == set(theirs) == {"observation", "action_mask"}
                    for key in ours:
                        assert np.array_equal(ours[key], theirs[key])
                    assert info["final_info"]["player"][i] == seats[i]
        ended += int(terminated.sum())
    assert ended >= n


def test_gymnasium_records_its_episodes():
    """RecordEpisodeStatistics reads the autoreset mode (no warning) and counts an episode at each
    end; with an opponent an episode's return is the agent's result."""
    env = E.VectorEnv("douque", 4, opponent="greedy", seed=2, episode="first_hand", threads=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stats = RecordEpisodeStatistics(env)
    obs, _ = stats.reset()
    totals, returns, ends = np.zeros(4), [], 0
    for step in range(300):
        obs, rewards, terminated, _, infos = stats.step(_choose(obs["action_mask"], step, range(4)))
        totals += rewards
        ends += int(terminated.sum())
        for i in np.flatnonzero(terminated):
            assert infos["_episode"][i] and infos["episode"]["r"][i] == pytest.approx(totals[i])
            returns.append(totals[i])
            totals[i] = 0.0
    assert ends == stats.episode_count == len(returns) >= 4


# ------------------------------------------------------------------ the games


#: First 16 hex digits of ``_run_digest``: the runs of ``DIGEST_RUNS``, as the vector environment
#: played them when it returned ``(obs, masks, rewards, ...)`` with self-play rewards [n, 2].
FROZEN = {
    "hand, self-play": "a0296868b6811959",
    "first_hand, self-play, full state": "aa326978477c25bf",
    "match, self-play": "fec8e4922f5f1d0d",
    "hand, against random": "9df93ce03fc5920f",
}
DIGEST_RUNS = {
    "hand, self-play": (dict(n_envs=6, seed=3, episode="hand"), "cycle"),
    "first_hand, self-play, full state": (dict(n_envs=6, seed=9, episode="first_hand", full_state=True), "random"),
    "match, self-play": (dict(n_envs=4, seed=2, episode="match"), "cycle"),
    "hand, against random": (dict(n_envs=5, seed=7, opponent="random"), "random"),
}


def _run_digest(kwargs, chooser, steps=150):
    """The SHA-256 of 150 steps' observations (the fields in sight: the hand features, computed
    from them, are compared with their reference in tests/test_observation_hand.py), masks, each
    player's rewards in self-play (the agent's against an opponent), ends, deciding players and
    full states, actions cycling through the legal ones (``_choose``) or uniformly random
    (``random_legal_actions``, seed 0)."""
    env = E.VectorEnv("douque", threads=1, **kwargs)
    h = hashlib.sha256()
    in_sight = E.OBSERVATION_LAYOUT["shanten"].start

    def add(observations, *arrays):
        h.update(np.ascontiguousarray(observations[:, :in_sight]).tobytes())
        for a in arrays:
            h.update(np.ascontiguousarray(a).tobytes())

    obs, info = env.reset()
    add(obs["observation"], obs["action_mask"], info["player"])
    rng = np.random.default_rng(0)
    n = env.num_envs
    for step in range(steps):
        masks = obs["action_mask"]
        actions = _choose(masks, step, range(n)) if chooser == "cycle" else E.random_legal_actions(masks, rng)
        actors = info["player"].copy()
        obs, rewards, terminated, _, info = env.step(actions)
        if "player_rewards" in info:
            assert np.array_equal(rewards, info["player_rewards"][np.arange(n), actors])
        add(
            obs["observation"],
            obs["action_mask"],
            info.get("player_rewards", rewards),
            terminated,
            info["player"],
            info.get("state", np.zeros(0)),
        )
    return h.hexdigest()[:16]


@pytest.mark.parametrize("run", sorted(DIGEST_RUNS))
def test_the_same_games_as_before(run):
    kwargs, chooser = DIGEST_RUNS[run]
    assert _run_digest(kwargs, chooser) == FROZEN[run]


def test_self_play_is_the_step_api_and_the_encoders_are_the_references():
    self_play_is_the_step_api("douque")  # for_two: tests/test_envs_vector_rule_sets.py


def self_play_is_the_step_api(rules):
    """Self-play on 6 tables for 160 steps: the masks, observations, full states, rewards and ends
    of each table are those of the step API's GameState playing the same actions; the reward is
    the change of score of the player who acted, ``player_rewards`` both players'."""
    n, steps = 6, 160
    env = E.VectorEnv(rules, n, seed=11, full_state=True, threads=2, episode="first_hand")
    obs, info = env.reset()
    states = [GameState.new_match(rules, int(env.table_seeds[i]), 0) for i in range(n)]
    matches = [1] * n
    ended = 0
    for step in range(steps):
        for i, s in enumerate(states):
            assert not s.over
            assert info["player"][i] == s.player
            assert np.array_equal(obs["action_mask"][i], s.legal.astype(np.int8))
            assert np.array_equal(obs["observation"][i], reference_observation(s, s.player, True))
            assert np.array_equal(info["state"][i], reference_state(s.table))
        actions = _choose(obs["action_mask"], step, range(n))
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert rewards.shape == (n,) and info["player_rewards"].shape == (n, 2) and not truncated.any()
        for i, s in enumerate(states):
            before = s.table.purse[:2].copy()
            actor = s.player
            s.apply(int(actions[i]))
            assert terminated[i] == s.over
            assert np.allclose(info["player_rewards"][i], s.table.purse[:2] - before)
            assert rewards[i] == pytest.approx(s.table.purse[actor] - before[actor])
            if s.over:
                final = info["final_obs"][i]
                assert np.array_equal(final["observation"], reference_observation(s, actor, False))
                assert not final["action_mask"].any()
                assert info["final_info"]["player"][i] == actor
                assert np.array_equal(info["final_info"]["player_rewards"][i], info["player_rewards"][i])
                ended += 1
                states[i] = GameState.new_match(rules, int(env.table_seeds[i]), matches[i])
                matches[i] += 1
            elif terminated.any():
                assert info["final_obs"][i] is None and not info["_final_info"][i]
    assert ended >= n  # every table went through at least one reset


def test_the_compiled_observation_is_the_reference_for_both_players():
    s = GameState.new_match("night_market", 3, 0)
    rng = np.random.default_rng(0)
    for _ in range(60):
        if s.over:
            break
        for p in (0, 1):
            assert np.array_equal(E.encode_observation(s, p, p == s.player), reference_observation(s, p, p == s.player))
        s.apply(int(rng.choice(s.legal_actions())))
    L = state_layout(len(s.table.wall))
    assert L["back"].stop == state_size(len(s.table.wall))


def test_reproducible_per_table_whatever_the_batch_and_threads():
    reproducible_per_table("douque")  # duel: tests/test_envs_vector_rule_sets.py


def reproducible_per_table(rules):
    """3 tables on one thread and 7 on two: the first 3 tables' observations, rewards and ends agree
    step by step. Table 1 plays an illegal action every 5th step and tables 3-6 at every step: each
    table's penalty draws come from its own stream."""

    def run(n, threads):
        env = E.VectorEnv(rules, n, seed=2, episode="match", threads=threads, illegal="penalty")
        obs, _ = env.reset()
        seen = []
        for step in range(80):
            actions = _choose(obs["action_mask"], step, range(n))
            actions[3:] = -1
            if step % 5 == 0:
                actions[1] = -1
            obs, rewards, terminated, _, info = env.step(actions)
            seen.append((obs["observation"][:3].copy(), info["player_rewards"][:3].copy(), terminated[:3].copy()))
        return seen

    a, b = run(3, 1), run(7, 2)
    for (oa, ra, ta), (ob, rb, tb) in zip(a, b):
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb) and np.array_equal(ta, tb)


def test_match_episodes_add_rewards_up_to_the_match_result():
    env = E.VectorEnv("douque", 4, seed=8, episode="match", threads=2)
    obs, _ = env.reset()
    totals = np.zeros((4, 2))
    finished = []
    for step in range(20000):
        obs, _, terminated, _, info = env.step(_choose(obs["action_mask"], step, range(4)))
        totals += info["player_rewards"]
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
    obs, info = env.reset()
    masks = obs["action_mask"]
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
    obs, info = env.reset()
    player = int(info["player"][2])
    obs, rewards, terminated, _, info = env.step(actions)
    assert info["player_rewards"][2, player] == -3.0 and info["player_rewards"][2, 1 - player] == 0.0
    assert rewards[2] == -3.0  # the reward of the player who acted


def test_copy_returns_arrays_the_next_step_does_not_touch():
    env = E.VectorEnv("douque", 2, seed=4, threads=1, copy=True)
    obs, info = env.reset()
    kept, player = obs["observation"].copy(), info["player"].copy()
    out = env.step(_choose(obs["action_mask"], 0, range(2)))
    env.step(_choose(out[0]["action_mask"], 1, range(2)))
    assert np.array_equal(obs["observation"], kept) and np.array_equal(info["player"], player)
    assert A.N_ACTIONS == env.n_actions and E.OBSERVATION_SIZE == env.observation_size


def test_hand_episodes_follow_the_match_from_hand_to_hand():
    """``episode="hand"``: self-play on 4 tables, each episode one hand; a table's episodes are the
    hands of its matches in turn (the same as the step API's GameState going on with next_hand),
    and the rewards of a match's episodes add up to its result."""
    n, steps = 4, 400
    env = E.VectorEnv("duel", n, seed=5, threads=2)
    obs, info = env.reset()
    states = [GameState.new_match("duel", int(env.table_seeds[i]), 0) for i in range(n)]
    matches = [1] * n
    later_hands = 0
    for step in range(steps):
        for i, s in enumerate(states):
            assert np.array_equal(obs["action_mask"][i], s.legal.astype(np.int8))
            assert np.array_equal(obs["observation"][i], reference_observation(s, s.player, True))
        actions = _choose(obs["action_mask"], step, range(n))
        obs, rewards, terminated, truncated, info = env.step(actions)
        for i, s in enumerate(states):
            before = s.table.purse[:2].copy()
            s.apply(int(actions[i]))
            assert terminated[i] == s.over
            assert np.allclose(info["player_rewards"][i], s.table.purse[:2] - before)
            if s.over and not s.next_hand():
                states[i] = GameState.new_match("duel", int(env.table_seeds[i]), matches[i])
                matches[i] += 1
            elif terminated[i]:
                later_hands += 1
    assert later_hands > 0  # episodes went on within a match


def test_reward_mode_both_gives_each_seat_and_sums_to_zero_over_each_episode():
    """Self-play: the default ``rewards`` are the acting player's only, so a generic loop summing
    them over both seats does not get the zero of a zero-sum game (the payer's loss is in the step
    of the other's win); ``reward_mode="both"`` gives each seat's, float32[n, 2], whose sum over
    every finished episode is 0, and whose acting player's column is the default's reward."""
    n = 4
    both = E.VectorEnv("douque", n, seed=3, threads=1, reward_mode="both")
    actor = E.VectorEnv("douque", n, seed=3, threads=1)
    obs, info = both.reset()
    obs_a, _ = actor.reset()
    episode = np.zeros((n, 2))
    actor_sum = 0.0
    finished = []
    for step in range(3000):
        actions = _choose(obs["action_mask"], step, range(n))
        players = info["player"].copy()
        obs, rewards, terminated, _, info = both.step(actions)
        obs_a, rewards_a, _, _, _ = actor.step(actions)
        assert rewards.shape == (n, 2) and rewards.dtype == np.float32
        assert np.array_equal(rewards, info["player_rewards"])
        assert np.array_equal(rewards_a, rewards[np.arange(n), players])  # the default: the actor's
        episode += rewards
        actor_sum += float(rewards_a.sum())
        for i in np.flatnonzero(terminated):
            finished.append(episode[i].copy())
            episode[i] = 0.0
    assert len(finished) >= 20
    totals = np.array(finished)
    assert np.allclose(totals.sum(axis=1), 0.0, atol=1e-3)  # douque: zero-sum, episode by episode
    assert (totals[:, 0] != 0).any()
    assert actor_sum > 0  # the actor's rewards alone miss every payer's loss


@pytest.mark.parametrize(
    "kw,fragment",
    [
        (dict(reward_mode="seat"), "reward_mode is one of 'actor', 'both'"),
        (dict(reward_mode=None), "reward_mode is one of"),
        (dict(reward_mode="both", opponent="greedy"), "for self-play"),
    ],
)
def test_reward_mode_is_checked(kw, fragment):
    with pytest.raises(simkit.SimkitError, match=fragment) as info:
        E.VectorEnv("douque", 2, **kw)
    assert "\n" not in str(info.value)
