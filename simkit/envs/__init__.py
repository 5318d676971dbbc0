"""Reinforcement-learning environments over the engine's step API: a PettingZoo AEC environment for
two agents, a Gymnasium single-agent environment against any simkit policy, and a Gymnasium vector
environment that steps many tables at once inside the compiled engine (:class:`VectorEnv`), for
every rule set.

An optional extra (``pip install -e ".[rl]"``: gymnasium and pettingzoo); simkit imports neither
until an environment is made::

    import simkit.envs
    env = simkit.envs.aec_env("douque")                 # PettingZoo AEC, agents player_0 / player_1
    env = gymnasium.make("simkit/Douque-v0", opponent="greedy")   # after `import simkit.envs`
    env = gymnasium.make("simkit.envs:simkit/Duel-v0")   # or let gymnasium import it

Observation
-----------
A dict ``{"observation": float32[OBSERVATION_SIZE], "action_mask": int8[N_ACTIONS]}`` (int8, the
dtype gymnasium's ``Discrete.sample(mask)`` takes). The observation is what the observing player
may know, laid out as :data:`OBSERVATION_LAYOUT` says (name -> slice; the fields are described in
:mod:`simkit.engine.observation`, whose compiled encoder every environment uses). A policy gets the
same vector from its view: :func:`encode_view` (``encode_view(view)`` in a jitted policy or from
Python; :func:`encode_view_into` writes into a given array), so an agent trained on an environment
plays through every door a policy goes through with the features it learned on. ``action_mask``
is the engine's legal mask for the deciding agent and all zeros for the other.

Rewards, episodes, illegal actions
----------------------------------
After every step each agent's reward is the change of its score in that step (the hand's payment
arrives when the hand is settled; nothing is counted twice). An episode is a hand of the matches
in turn (``episode="hand"``, default: the match goes on from one episode to the next, as
``simulate`` plays it), the first hand of a new match (``"first_hand"``) or a whole match
(``"match"``). An action outside the mask raises an error naming the agent, the phase and the legal
actions (``illegal="error"``, the default of the AEC and vector environments), or, with
``illegal="penalty"`` (the Gymnasium environment's default, so that gymnasium's checker passes),
costs the agent ``illegal_penalty`` and a uniformly random legal action is played instead (from the
environment's own seeded stream). The matches after ``reset(seed=s)`` are matches 0, 1, ... of
seed ``s``: the same seed replays the same deals.

The modules: :mod:`~simkit.envs.table` (what they share), :mod:`~simkit.envs.aec`,
:mod:`~simkit.envs.gym` and :mod:`~simkit.envs.vector`.
"""

from .aec import aec_env
from .gym import GYM_IDS, SimkitGymEnv, register_gymnasium
from .table import (
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    EnvError,
    encode_observation,
    encode_view,
    encode_view_into,
)
from .vector import VectorEnv, random_legal_actions

__all__ = [
    "EnvError",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "encode_observation",
    "encode_view",
    "encode_view_into",
    "VectorEnv",
    "random_legal_actions",
    "aec_env",
    "SimkitGymEnv",
    "register_gymnasium",
    "GYM_IDS",
]
