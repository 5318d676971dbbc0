"""simkit.envs: the PettingZoo AEC environment passes pettingzoo's API and seed tests and the
Gymnasium environment gymnasium's checker, for every rule set; rewards add up to the scores;
observations follow the documented layout; illegal actions are errors or penalties; simkit.envs
imports without gymnasium."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

import gymnasium  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

import simkit  # noqa: E402
import simkit.envs as E  # noqa: E402
from simkit.engine import actions as A  # noqa: E402
from simkit.engine import table as eng  # noqa: E402

RULES = ["douque", "night_market", "duel", "for_two"]


@pytest.mark.parametrize("rules", RULES)
def test_aec_api_and_seed_tests(rules):
    api_test(E.aec_env(rules), num_cycles=400, verbose_progress=False)
    seed_test(lambda: E.aec_env(rules), num_cycles=300)
    api_test(E.aec_env(rules, episode="match"), num_cycles=400, verbose_progress=False)


@pytest.mark.parametrize("rules", RULES)
def test_gymnasium_env_checker(rules):
    check_env(gymnasium.make(E.GYM_IDS[rules]).unwrapped)  # the defaults: an illegal action costs a penalty
    env = gymnasium.make(E.GYM_IDS[rules], illegal="error")
    obs, _ = env.reset(seed=0)
    with pytest.raises(simkit.SimkitError, match="not legal"):
        env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))


@pytest.mark.parametrize("rules", ["douque", "for_two"])
def test_hand_episodes_are_the_hands_simulate_plays(rules):
    """With ``episode="hand"`` the episodes are the hands of matches in turn, as simulate plays
    them: an agent playing greedy in seat 0 gets, episode by episode, the results of
    ``simulate_matches`` with greedy against greedy on the same seed."""
    from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy

    env = gymnasium.make(E.GYM_IDS[rules], seat=0).unwrapped
    rows = simkit.simulate_matches(rules, ("greedy", "greedy"), 3, seed=4)
    results = rows["score_0"] - rows.get("fee_0", 0.0)
    got = []
    obs, _ = env.reset(seed=4)
    while len(got) < len(results):
        s = env._table.state
        action = greedy_policy(s.view(), s.legal, GREEDY_DEFAULTS, s.policy_stream())
        obs, reward, terminated, truncated, _ = env.step(int(action))
        if terminated:
            got.append(reward)
            env.reset()
    np.testing.assert_allclose(got, results)
    assert (rows["hand"] > 0).any()  # later hands of the matches were episodes too
    # episode="first_hand": every episode is the first hand of the next match
    first = gymnasium.make(E.GYM_IDS[rules], seat=0, episode="first_hand").unwrapped
    first.reset(seed=4)
    for match in range(1, 3):
        terminated = False
        while not terminated:
            s = first._table.state
            action = greedy_policy(s.view(), s.legal, GREEDY_DEFAULTS, s.policy_stream())
            _, _, terminated, _, _ = first.step(int(action))
        first.reset()
        assert first._table.match == match + 1 and first._table.state.table.sc[eng.S_HAND_NUMBER] == 0


def _play_aec(env, seed):
    """Random legal actions to the end of the episode: rewards per agent, and the final scores."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        total[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return total


@pytest.mark.parametrize("rules", ["douque", "duel"])
def test_rewards_add_up_to_the_match_result(rules):
    env = E.aec_env(rules, episode="match")
    total = _play_aec(env, seed=5)
    purse = env._table.state.table.purse
    assert total["player_0"] == pytest.approx(purse[0]) and total["player_1"] == pytest.approx(purse[1])
    assert total["player_0"] != 0.0


def test_observation_layout_and_masks():
    env = E.aec_env("douque")
    env.reset(seed=1)
    agent = env.agent_selection
    obs = env.observe(agent)["observation"]
    other = env.observe("player_1" if agent == "player_0" else "player_0")
    L = E.OBSERVATION_LAYOUT
    assert obs.shape == (E.OBSERVATION_SIZE,) and obs.dtype == np.float32
    state = env._table.state
    p = state.player
    assert np.array_equal(obs[L["hand"]], state.table.hand[p])
    assert obs[L["hand"]].sum() == 14 and obs[L["dealer"]][0] == 1  # the dealer decides first
    assert obs[L["phase"]].argmax() == A.PHASE_DRAW and other["observation"][L["phase"]].argmax() == A.PHASE_OVER
    assert other["action_mask"].sum() == 0 and np.array_equal(
        env.observe(agent)["action_mask"], state.legal.astype(np.int8)
    )
    assert obs[L["tiles_left"]][0] == state.view().tiles_left > 0
    assert (obs[L["visible"]] >= obs[L["hand"]]).all()
    assert sorted(L) == sorted(set(L)) and max(s.stop for s in L.values()) == E.OBSERVATION_SIZE


def test_illegal_actions_are_errors_or_penalties():
    env = E.aec_env("douque")
    env.reset(seed=2)
    agent = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0])
    with pytest.raises(simkit.SimkitError) as info:
        env.step(illegal)
    text = str(info.value)
    assert (
        text.startswith(f"{agent} played {illegal}") and "not legal after a draw" in text and "legal: discard" in text
    )
    env = E.aec_env("douque", illegal="penalty", illegal_penalty=-5.0)
    env.reset(seed=2)
    env.step(illegal)
    assert env.rewards[agent] == -5.0 and env.agent_selection != agent
    with pytest.raises(simkit.SimkitError, match="illegal is 'error' or 'penalty'"):
        E.aec_env("douque", illegal="ignore")


def test_gym_env_plays_against_a_policy_and_seats_alternate():
    env = gymnasium.make("simkit/Douque-v0", opponent="greedy{declare=0}", episode="first_hand")
    seats = []
    for episode in range(4):
        obs, info = env.reset(seed=9 if episode == 0 else None)
        seats.append(info["seat"])
        done = False
        while not done:
            a = int(np.flatnonzero(obs["action_mask"])[0])
            obs, reward, done, trunc, info = env.step(a)
    assert seats == [0, 1, 0, 1]
    assert "row" in info


def test_the_environments_import_without_gymnasium_and_name_it_when_made():
    """``import simkit.envs`` works where gymnasium cannot be imported; making a gymnasium
    environment there is a one-line ImportError naming the extra. Where it can, the stand-in classes
    answer ``isinstance`` for the environments they make."""
    code = (
        "import sys\n"
        "sys.modules['gymnasium'] = sys.modules['pettingzoo'] = None  # as if not installed\n"
        "import simkit.envs as E\n"
        "for make in (lambda: E.VectorEnv('douque', 2), lambda: E.SimkitGymEnv('douque')):\n"
        "    try:\n"
        "        make()\n"
        "    except ImportError as exc:\n"
        "        print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == [
        f'simkit.envs.{name} needs gymnasium: pip install -e ".[rl]"' for name in ("VectorEnv", "SimkitGymEnv")
    ]
    env = gymnasium.make("simkit/Douque-v0").unwrapped
    assert isinstance(env, E.SimkitGymEnv) and isinstance(env, gymnasium.Env) and not isinstance(env, E.VectorEnv)
    assert issubclass(type(env), E.SimkitGymEnv)


def test_simkit_does_not_import_gymnasium_or_pettingzoo():
    code = "import sys, simkit; simkit.simulate_matches('douque', ('random', 'random'), 1); print('gymnasium' in sys.modules, 'pettingzoo' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]


def test_same_seed_same_episode():
    def run(seed):
        env = E.aec_env("night_market")
        return _play_aec(env, seed)

    assert run(4) == run(4)
