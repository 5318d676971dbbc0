"""The PettingZoo AEC environment of two agents (:func:`aec_env`; pettingzoo imported when one is
made)."""

from __future__ import annotations

import numpy as np

from ..engine import actions as A
from ..errors import InputValueError
from .table import EnvTable, encode_observation, observation_space_of, render_table

__all__ = ["aec_env"]


_AEC_CLASS = None


def _aec_class():
    global _AEC_CLASS
    if _AEC_CLASS is not None:
        return _AEC_CLASS
    from gymnasium import spaces
    from pettingzoo import AECEnv

    class SimkitAECEnv(AECEnv):
        """Two agents, ``player_0`` and ``player_1``, taking turns as the engine asks them
        (see :mod:`simkit.envs`)."""

        metadata = {"name": "simkit_v0", "render_modes": ["ansi"], "is_parallelizable": False, "render_fps": 1}

        def __init__(
            self, rules="douque", episode="hand", illegal="error", illegal_penalty=-1.0, render_mode=None, **options
        ):
            super().__init__()
            self._table = EnvTable(rules, episode, illegal, illegal_penalty, options)
            if render_mode not in (None, "ansi"):
                raise InputValueError(f"render_mode is None or 'ansi', got {render_mode!r}")
            self.render_mode = render_mode
            self.possible_agents = ["player_0", "player_1"]
            self.agents = list(self.possible_agents)
            space = observation_space_of(spaces)
            self.observation_spaces = {a: space for a in self.possible_agents}
            self.action_spaces = {a: spaces.Discrete(A.N_ACTIONS) for a in self.possible_agents}
            self.metadata = dict(self.metadata, rules=self._table.rules.name)

        def observation_space(self, agent):
            return self.observation_spaces[agent]

        def action_space(self, agent):
            return self.action_spaces[agent]

        def observe(self, agent):
            self._table.started("observe()")
            p = self.possible_agents.index(agent)
            s = self._table.state
            deciding = not s.over and s.player == p
            mask = np.zeros(A.N_ACTIONS, np.int8)
            if deciding:
                mask[:] = s.legal
            return {"observation": encode_observation(s, p, deciding), "action_mask": mask}

        def reset(self, seed=None, options=None):
            self._table.reset(seed)
            if seed is not None:
                for a in self.possible_agents:
                    self.action_spaces[a].seed(seed + self.possible_agents.index(a))
            self.agents = list(self.possible_agents)
            self.rewards = {a: 0.0 for a in self.agents}
            self._cumulative_rewards = {a: 0.0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = self.possible_agents[self._table.state.player]

        def step(self, action):
            self._table.started("step()")
            agent = self.agent_selection
            if self.terminations[agent] or self.truncations[agent]:
                self._was_dead_step(action)
                return
            t = self._table
            before = t.scores()
            penalty = t.play(agent, action)
            self._cumulative_rewards[agent] = 0.0
            done = t.done()
            change = t.scores() - before
            self.rewards = {a: float(change[i]) for i, a in enumerate(self.possible_agents)}
            self.rewards[agent] += penalty
            if done:
                self.terminations = {a: True for a in self.agents}
                row = t.state.row
                self.infos = {a: {"row": row} for a in self.agents}
            else:
                self.agent_selection = self.possible_agents[t.state.player]
            self._accumulate_rewards()

        def render(self):
            if self.render_mode == "ansi":
                self._table.started("render()")
                return render_table(self._table.state)
            return None

        def close(self):
            pass

    _AEC_CLASS = SimkitAECEnv
    return SimkitAECEnv


def aec_env(
    rules="douque",
    *,
    episode: str = "hand",
    illegal: str = "error",
    illegal_penalty: float = -1.0,
    render_mode=None,
    **options,
):
    """A PettingZoo AEC environment of ``rules`` (with rule ``options``): see :mod:`simkit.envs`."""
    return _aec_class()(
        rules, episode=episode, illegal=illegal, illegal_penalty=illegal_penalty, render_mode=render_mode, **options
    )


# ---------------------------------------------------------------------------------------------
# the vector environment
