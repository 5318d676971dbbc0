"""What every environment shares: one table stepped through the engine (:class:`EnvTable`), the
settings an environment is made with, its observation space, the text rendering, :class:`EnvError`,
and :class:`GymnasiumSubclass`, by which an environment subclasses gymnasium's classes while simkit
does not import gymnasium."""

from __future__ import annotations

import importlib.util
import threading

import numpy as np

from ..engine import actions as A
from ..engine import table as eng
from ..engine.observation import (
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    encode_observation_kernel,
    encode_view,
    encode_view_into,
)
from ..errors import InputValueError, SimkitError
from ..play.stepper import GameState
from ..rules import get_rules, resolve_rules

__all__ = [
    "EPISODES",
    "EnvError",
    "EnvTable",
    "GymnasiumSubclass",
    "env_settings",
    "observation_space_of",
    "render_table",
    "encode_observation",
    "encode_view",
    "encode_view_into",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
]


class EnvError(SimkitError, ValueError):
    """An environment used out of order: stepped (or observed, rendered) before its first ``reset()``."""


def encode_observation(state: GameState, p: int, deciding: bool) -> np.ndarray:
    """The observation vector of player ``p`` of a hand in play (a
    :class:`~simkit.play.stepper.GameState`; see the module docstring; the compiled encoder the
    vector environment uses)."""
    out = np.empty(OBSERVATION_SIZE, np.float32)
    encode_observation_kernel(state.table, state.hand_tables, int(p), bool(deciding), out)
    return out


def observation_space_of(gym_spaces):
    """The observation space of one player (``gym_spaces``: the module ``gymnasium.spaces``)."""
    return gym_spaces.Dict(
        {
            "observation": gym_spaces.Box(-np.inf, np.inf, (OBSERVATION_SIZE,), np.float32),
            "action_mask": gym_spaces.Box(0, 1, (A.N_ACTIONS,), np.int8),
        }
    )


_build_lock = threading.Lock()


class GymnasiumSubclass(type):
    """The metaclass of an environment that subclasses a gymnasium class: the class a module defines
    is a stand-in whose ``_build()`` makes the real subclass (importing gymnasium) at the first
    instance, once, so that importing simkit never imports gymnasium. ``isinstance`` and
    ``issubclass`` against the stand-in answer for the real class."""

    def __call__(cls, *args, **kwargs):
        return cls.real_class()(*args, **kwargs)

    def real_class(cls):
        """The gymnasium subclass the stand-in makes (built at the first call)."""
        with _build_lock:
            real = cls.__dict__.get("_real")
            if real is None:
                if importlib.util.find_spec("gymnasium") is None:
                    raise ImportError(f'simkit.envs.{cls.__name__} needs gymnasium: pip install -e ".[rl]"')
                real = cls._build()
                cls._real = real
            return real

    def __instancecheck__(cls, obj):
        real = cls.__dict__.get("_real")
        return real is not None and isinstance(obj, real)

    def __subclasscheck__(cls, sub):
        real = cls.__dict__.get("_real")
        return sub is cls or (real is not None and issubclass(sub, real))


#: What an episode is: ``"hand"``, each hand of the matches in turn (the match carries on from one
#: episode to the next, streaks and scores included: hands drawn as ``simulate`` plays them);
#: ``"first_hand"``, the first hand of a new match every time; ``"match"``, a whole match. The
#: index of a name is its code in the vector environment's kernel.
EPISODES = ("first_hand", "hand", "match")


def env_settings(rules, episode, illegal, illegal_penalty, options):
    """The rule set of an environment, after checking the settings every environment shares."""

    if episode not in EPISODES:
        raise InputValueError(f"episode is one of {', '.join(map(repr, EPISODES))}, got {episode!r}")
    if illegal not in ("error", "penalty"):
        raise InputValueError(f"illegal is 'error' or 'penalty', got {illegal!r}")
    if (
        isinstance(illegal_penalty, bool)
        or not isinstance(illegal_penalty, (int, float))
        or not np.isfinite(illegal_penalty)
    ):
        raise InputValueError(f"illegal_penalty is a finite number, got {illegal_penalty!r}")
    return get_rules(rules, **options) if options else resolve_rules(rules)


class EnvTable:
    """What the environments share: a match of the step API, scores, illegal-action handling."""

    def __init__(self, rules, episode, illegal, illegal_penalty, options):
        self.rules = env_settings(rules, episode, illegal, illegal_penalty, options)
        self.episode = episode
        self.illegal = illegal
        self.illegal_penalty = float(illegal_penalty)
        self.seed = 0
        self.match = 0
        self.state = None
        self.rng = np.random.default_rng(0)

    def started(self, what: str) -> None:
        """Raise :class:`EnvError` if there is no hand yet (no ``reset()`` so far) for ``what``."""
        if self.state is None:
            raise EnvError(f"call reset() before {what}: the environment has no hand yet")

    def reset(self, seed) -> bool:
        """Start the next episode: with ``episode="hand"`` the next hand of the match when it goes
        on, else match ``k`` of the seed (``seed``: from match 0 of that seed again). Returns
        whether a new match began."""
        if seed is not None:
            self.seed = int(seed)
            self.match = 0
            self.rng = np.random.default_rng(self.seed)
            self.state = None
        if self.episode == "hand" and self.state is not None and self.state.over and self.state.next_hand():
            return False
        self.state = GameState.new_match(self.rules, self.seed, self.match)
        self.match += 1
        return True

    def scores(self) -> np.ndarray:
        return self.state.table.purse[eng.P_BALANCE0 : eng.P_BALANCE0 + 2].copy()

    def done(self) -> bool:
        s = self.state
        if not s.over:
            return False
        if self.episode != "match":
            return True
        return not s.next_hand()

    def play(self, agent: str, action) -> float:
        """Apply the deciding player's action (or a random legal one, with the penalty); returns the
        penalty charged (0 or ``illegal_penalty``)."""
        s = self.state
        legal = s.legal
        ok = (
            not isinstance(action, (bool, np.bool_))
            and isinstance(action, (int, np.integer))
            and 0 <= int(action) < A.N_ACTIONS
            and legal[int(action)]
        )
        if ok:
            s.apply(int(action))
            return 0.0
        if self.illegal == "penalty":
            s.apply(int(self.rng.choice(np.flatnonzero(legal))))
            return self.illegal_penalty
        names = ", ".join(A.action_name(a) for a in np.flatnonzero(legal))
        code = (
            isinstance(action, (int, np.integer))
            and not isinstance(action, (bool, np.bool_))
            and 0 <= int(action) < A.N_ACTIONS
        )
        what = A.action_name(int(action)) if code else "not an action code"
        tile = s.tile
        on = f" about {A.action_name(A.DISCARD + tile)[len('discard ') :]}" if 0 <= tile < 34 else ""
        raise InputValueError(
            f"{agent} played {action!r} ({what}), not legal {A.PHASE_NAMES[s.phase]}{on}; legal: {names}"
        )


def render_table(state) -> str:
    """The hand's events once it is over; before, the state and what the deciding player sees."""
    if state.over and not state.error:
        return "\n".join(state.lines())
    try:
        return f"{state!r}\n{state.position()}"
    except SimkitError:
        return repr(state)


# ---------------------------------------------------------------------------------------------
# PettingZoo
