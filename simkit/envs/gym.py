"""The Gymnasium single-agent environment against any simkit policy (:class:`SimkitGymEnv`) and its
registration as ``simkit/<RuleSet>-v0`` (done when :mod:`simkit.envs` is imported and gymnasium is
installed)."""

from __future__ import annotations

import numpy as np

from ..engine import actions as A
from ..errors import InputValueError
from ..play.runtime import (
    resolve_policy,
)
from .table import EnvTable, GymnasiumSubclass, encode_observation, observation_space_of, render_table

__all__ = ["SimkitGymEnv", "register_gymnasium", "GYM_IDS"]


GYM_IDS = {
    "douque": "simkit/Douque-v0",
    "night_market": "simkit/NightMarket-v0",
    "duel": "simkit/Duel-v0",
    "for_two": "simkit/ForTwo-v0",
}


def _gym_class():
    """The ``gymnasium.Env`` subclass behind :class:`SimkitGymEnv` (made once, at its first instance)."""
    import gymnasium
    from gymnasium import spaces

    class _SimkitGymEnv(gymnasium.Env):
        """One seat against a simkit policy: the agent is ``seat`` (0, 1, or None: alternating by
        episode); the opponent (any policy :func:`simkit.simulate_matches` takes) decides in between.
        Reward: the change of the agent's score at each step (see :mod:`simkit.envs`)."""

        metadata = {"render_modes": ["ansi"], "render_fps": 1}

        def __init__(
            self,
            rules="douque",
            opponent="greedy",
            seat=None,
            episode="hand",
            illegal="penalty",
            illegal_penalty=-1.0,
            render_mode=None,
            **options,
        ):
            self._table = EnvTable(rules, episode, illegal, illegal_penalty, options)
            self._opponent = resolve_policy(opponent, self._table.rules)
            if seat is not None and (
                isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or seat not in (0, 1)
            ):
                raise InputValueError(f"seat is 0, 1 or None (alternating), got {seat!r}")
            seat = None if seat is None else int(seat)
            self._seat_arg = seat
            self.seat = 0 if seat is None else seat
            self._episodes = 0
            if render_mode not in (None, "ansi"):
                raise InputValueError(f"render_mode is None or 'ansi', got {render_mode!r}")
            self.render_mode = render_mode
            self.observation_space = observation_space_of(spaces)
            self.action_space = spaces.Discrete(A.N_ACTIONS)

        def _obs(self):
            s = self._table.state
            deciding = not s.over and s.player == self.seat
            mask = np.zeros(A.N_ACTIONS, np.int8)
            if deciding:
                mask[:] = s.legal
            return {"observation": encode_observation(s, self.seat, deciding), "action_mask": mask}

        def _opponent_moves(self):
            """Let the opponent decide until the agent's turn or the episode's end; True if it ended."""
            t = self._table
            fn, params = self._opponent
            while True:
                s = t.state
                if s.over:
                    if t.done():
                        return True
                    continue
                if s.player == self.seat:
                    return False
                s.apply(int(fn(s.view(), s.legal, params, s.policy_stream())))

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            if seed is not None:
                self._episodes = 0
            t = self._table
            # the seat alternates by episode; with episode="hand", by match (it holds for a whole match)
            if t.reset(seed) or t.episode != "hand":
                self.seat = (self._episodes % 2) if self._seat_arg is None else self._seat_arg
                self._episodes += 1
            while self._opponent_moves():  # the hand ended before the agent decided: deal the next
                t.reset(None)
            return self._obs(), {"seat": self.seat}

        def step(self, action):
            t = self._table
            t.started("step()")
            before = t.scores()[self.seat]
            penalty = t.play("the agent", action)
            done = t.done() if t.state.over else False
            if not done:
                done = self._opponent_moves()
            reward = float(t.scores()[self.seat] - before) + penalty
            info = {"row": t.state.row} if done else {}
            return self._obs(), reward, done, False, info

        def render(self):
            if self.render_mode == "ansi":
                self._table.started("render()")
                return render_table(self._table.state)
            return None

    return _SimkitGymEnv


class SimkitGymEnv(metaclass=GymnasiumSubclass):
    """``SimkitGymEnv(rules, opponent="greedy", seat=None, episode="hand", ...)``: a
    ``gymnasium.Env`` (the class is built at first use, so simkit does not import gymnasium)."""

    _build = staticmethod(_gym_class)


def register_gymnasium() -> None:
    """Register ``simkit/Douque-v0``, ``simkit/NightMarket-v0``, ``simkit/Duel-v0`` and
    ``simkit/ForTwo-v0`` with gymnasium (done when this module is imported and gymnasium is
    installed)."""
    import gymnasium

    for rules, env_id in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=_gym_entry, kwargs={"rules": rules})


def _gym_entry(**kwargs):
    return SimkitGymEnv(**kwargs)


try:  # registration needs gymnasium; without it the module still imports
    import importlib.util as _util

    if _util.find_spec("gymnasium") is not None:
        register_gymnasium()
except ImportError:  # pragma: no cover
    pass
