"""Reinforcement-learning environments over the engine's step API: a PettingZoo AEC environment for
two agents and a Gymnasium single-agent environment against any simkit policy, for every rule set.

An optional extra (``pip install -e ".[rl]"``: gymnasium and pettingzoo); simkit imports neither
until an environment is made::

    import simkit.envs
    env = simkit.envs.aec_env("douque")                 # PettingZoo AEC, agents player_0 / player_1
    env = gymnasium.make("simkit/Douque-v0", opponent="greedy")   # after `import simkit.envs`
    env = gymnasium.make("simkit.envs:simkit/Duel-v0")   # or let gymnasium import it

Observation
-----------
A dict ``{"observation": float32[OBSERVATION_SIZE], "action_mask": int8[N_ACTIONS]}`` (int8, the
dtype gymnasium's ``Discrete.sample(mask)`` takes). The
observation is what the observing player may know, laid out as :data:`OBSERVATION_LAYOUT` says
(name -> slice), in this order:

* ``hand`` (34): own concealed tiles, copies per kind; ``melds`` (34): tiles in own melds;
  ``opp_melds`` (34): tiles in the opponent's melds; ``river`` / ``opp_river`` (34 each): discards
  per kind; ``visible`` (34): every copy in sight (hand, both melds, both rivers);
* ``river_order`` / ``opp_river_order`` (``MAX_RIVER`` each): the discards in order, kind + 1 (0:
  none yet), with ``river_claimed`` / ``opp_river_claimed`` (``MAX_RIVER``) 1 where the other
  player claimed that discard;
* ``phase`` (7, one-hot over ``actions.PHASE_*``; ``PHASE_OVER`` when the player does not decide),
  ``tile`` (35, one-hot: the tile concerned, the last entry for none);
* ``tiles_left``, ``seat_wind`` (4, one-hot E S W N), ``prevailing_wind`` (4), ``dealer``,
  ``streak``, ``declared`` (3, one-hot none / ready / MIGI), ``opp_declared`` (3), ``bid``
  (for_two), ``score`` and ``opp_score`` (each player's result in the match so far, the rule set's
  payment unit), ``skipped_win`` (34: the kinds under one's own Skipped Win).

``action_mask`` is the engine's legal mask for the deciding agent and all zeros for the other.

Rewards, episodes, illegal actions
----------------------------------
After every step each agent's reward is the change of its score in that step (the hand's payment
arrives when the hand is settled; nothing is counted twice). An episode is one hand
(``episode="hand"``, default) or one match (``episode="match"``). An action outside the mask raises
an error naming the agent, the phase and the legal actions (``illegal="error"``), or, with
``illegal="penalty"``, costs the agent ``illegal_penalty`` and a uniformly random legal action is
played instead (from the environment's own seeded stream). Episode ``k`` after ``reset(seed=s)``
is match ``k`` of seed ``s``: the same seed replays the same deals.
"""

from __future__ import annotations

import numpy as np

from .engine import actions as A
from .engine import game as eng
from .errors import SimkitError

__all__ = [
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "encode_observation",
    "aec_env",
    "SimkitGymEnv",
    "register_gymnasium",
    "GYM_IDS",
]


def _layout() -> dict:
    parts = [
        ("hand", 34), ("melds", 34), ("opp_melds", 34), ("river", 34), ("opp_river", 34), ("visible", 34),
        ("river_order", eng.MAX_RIVER), ("opp_river_order", eng.MAX_RIVER), ("river_claimed", eng.MAX_RIVER),
        ("opp_river_claimed", eng.MAX_RIVER), ("phase", 7), ("tile", 35), ("tiles_left", 1), ("seat_wind", 4),
        ("prevailing_wind", 4), ("dealer", 1), ("streak", 1), ("declared", 3), ("opp_declared", 3), ("bid", 1),
        ("score", 1), ("opp_score", 1), ("skipped_win", 34),
    ]
    out, start = {}, 0
    for name, size in parts:
        out[name] = slice(start, start + size)
        start += size
    return out


#: name -> slice of the observation vector (see the module docstring).
OBSERVATION_LAYOUT = _layout()
#: Length of the observation vector.
OBSERVATION_SIZE = max(s.stop for s in OBSERVATION_LAYOUT.values())
_MELD_TILES = {0: 3, 1: 4, 2: 4, 3: 4}  # pung, kong, added kong, concealed kong; 4: chow


def _meld_tiles(melds, n, out):
    for code, kind in melds[:n]:
        if code == 4:
            out[kind : kind + 3] += 1
        else:
            out[kind] += _MELD_TILES[int(code)]


def encode_observation(T, p: int, deciding: bool) -> np.ndarray:
    """The observation vector of player ``p`` of the engine's Table ``T`` (see the module docstring)."""
    L = OBSERVATION_LAYOUT
    sc = T.sc
    q = 1 - p
    o = np.zeros(OBSERVATION_SIZE, np.float32)
    o[L["hand"]] = T.hand[p]
    m = np.zeros(34, np.float32)
    _meld_tiles(T.melds[p], int(T.n_melds[p]), m)
    o[L["melds"]] = m
    om = np.zeros(34, np.float32)
    _meld_tiles(T.melds[q], int(T.n_melds[q]), om)
    o[L["opp_melds"]] = om
    n_own, n_opp = int(T.n_river[p]), int(T.n_river[q])
    own = T.river[p, :n_own].astype(np.int64)
    opp = T.river[q, :n_opp].astype(np.int64)
    o[L["river"]] = np.bincount(own, minlength=34)
    o[L["opp_river"]] = np.bincount(opp, minlength=34)
    o[L["visible"]] = o[L["hand"]] + m + om + o[L["river"]] + o[L["opp_river"]]
    o[L["river_order"]][:n_own] = own + 1
    o[L["opp_river_order"]][:n_opp] = opp + 1
    o[L["river_claimed"]][:n_own] = T.claimed[p, :n_own]
    o[L["opp_river_claimed"]][:n_opp] = T.claimed[q, :n_opp]
    phase = int(sc[eng.S_PHASE]) if deciding else A.PHASE_OVER
    o[L["phase"].start + min(max(phase, 0), A.PHASE_OVER)] = 1
    tile = int(sc[eng.S_TILE]) if deciding else -1
    o[L["tile"].start + (tile if 0 <= tile < 34 else 34)] = 1
    o[L["tiles_left"]] = sc[eng.S_BACK] - sc[eng.S_FRONT] + 1 - sc[eng.S_KEPT_BACK]
    o[L["seat_wind"].start + int(T.seat[p]) - 27] = 1
    o[L["prevailing_wind"].start + int(sc[eng.S_PREVAILING]) - 27] = 1
    o[L["dealer"]] = 1.0 if sc[eng.S_DEALER] == p else 0.0
    o[L["streak"]] = sc[eng.S_STREAK]
    o[L["declared"].start + int(T.declared[p])] = 1
    o[L["opp_declared"].start + int(T.declared[q])] = 1
    o[L["bid"]] = sc[eng.S_BID]
    o[L["score"]] = T.purse[eng.P_BALANCE0 + p]
    o[L["opp_score"]] = T.purse[eng.P_BALANCE0 + q]
    mask = int(T.skip_win[p])
    o[L["skipped_win"]] = [(mask >> k) & 1 for k in range(34)]
    return o


def _observation_space(gym_spaces):
    return gym_spaces.Dict({
        "observation": gym_spaces.Box(-np.inf, np.inf, (OBSERVATION_SIZE,), np.float32),
        "action_mask": gym_spaces.Box(0, 1, (A.N_ACTIONS,), np.int8),
    })


class _Table:
    """What the environments share: a match of the step API, scores, illegal-action handling."""

    def __init__(self, rules, episode, illegal, illegal_penalty, options):
        from .rules import get_rules, resolve_rules

        if episode not in ("hand", "match"):
            raise SimkitError(f"episode is 'hand' or 'match', got {episode!r}")
        if illegal not in ("error", "penalty"):
            raise SimkitError(f"illegal is 'error' or 'penalty', got {illegal!r}")
        if isinstance(illegal_penalty, bool) or not isinstance(illegal_penalty, (int, float)) or not np.isfinite(illegal_penalty):
            raise SimkitError(f"illegal_penalty is a finite number, got {illegal_penalty!r}")
        self.rules = get_rules(rules, **options) if options else resolve_rules(rules)
        self.episode = episode
        self.illegal = illegal
        self.illegal_penalty = float(illegal_penalty)
        self.seed = 0
        self.match = 0
        self.state = None
        self.rng = np.random.default_rng(0)

    def reset(self, seed):
        from .engine.state import GameState

        if seed is not None:
            self.seed = int(seed)
            self.match = 0
            self.rng = np.random.default_rng(self.seed)
        self.state = GameState.new_match(self.rules, self.seed, self.match)
        self.match += 1

    def scores(self) -> np.ndarray:
        return self.state.table.purse[eng.P_BALANCE0 : eng.P_BALANCE0 + 2].copy()

    def done(self) -> bool:
        s = self.state
        if not s.over:
            return False
        if self.episode == "hand":
            return True
        return not s.next_hand()

    def play(self, agent: str, action) -> float:
        """Apply the deciding player's action (or a random legal one, with the penalty); returns the
        penalty charged (0 or ``illegal_penalty``)."""
        s = self.state
        legal = s.legal
        ok = not isinstance(action, (bool, np.bool_)) and isinstance(action, (int, np.integer)) and 0 <= int(action) < A.N_ACTIONS and legal[int(action)]
        if ok:
            s.apply(int(action))
            return 0.0
        if self.illegal == "penalty":
            s.apply(int(self.rng.choice(np.flatnonzero(legal))))
            return self.illegal_penalty
        names = ", ".join(A.action_name(a) for a in np.flatnonzero(legal))
        code = isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)) and 0 <= int(action) < A.N_ACTIONS
        what = A.action_name(int(action)) if code else "not an action code"
        tile = s.tile
        on = f" about {A.action_name(A.DISCARD + tile)[len('discard '):]}" if 0 <= tile < 34 else ""
        raise SimkitError(f"{agent} played {action!r} ({what}), not legal {A.PHASE_NAMES[s.phase]}{on}; legal: {names}")


def _render(state) -> str:
    """The hand's events once it is over; before, the state and what the deciding player sees."""
    if state.over and not state.error:
        return "\n".join(state.lines())
    try:
        return f"{state!r}\n{state.position()}"
    except SimkitError:
        return repr(state)


# ---------------------------------------------------------------------------------------------
# PettingZoo


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

        def __init__(self, rules="douque", episode="hand", illegal="error", illegal_penalty=-1.0, render_mode=None, **options):
            super().__init__()
            self._table = _Table(rules, episode, illegal, illegal_penalty, options)
            if render_mode not in (None, "ansi"):
                raise SimkitError(f"render_mode is None or 'ansi', got {render_mode!r}")
            self.render_mode = render_mode
            self.possible_agents = ["player_0", "player_1"]
            self.agents = list(self.possible_agents)
            space = _observation_space(spaces)
            self.observation_spaces = {a: space for a in self.possible_agents}
            self.action_spaces = {a: spaces.Discrete(A.N_ACTIONS) for a in self.possible_agents}
            self.metadata = dict(self.metadata, rules=self._table.rules.name)

        def observation_space(self, agent):
            return self.observation_spaces[agent]

        def action_space(self, agent):
            return self.action_spaces[agent]

        def observe(self, agent):
            p = self.possible_agents.index(agent)
            s = self._table.state
            deciding = not s.over and s.player == p
            mask = np.zeros(A.N_ACTIONS, np.int8)
            if deciding:
                mask[:] = s.legal
            return {"observation": encode_observation(s.table, p, deciding), "action_mask": mask}

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
                return _render(self._table.state)
            return None

        def close(self):
            pass

    _AEC_CLASS = SimkitAECEnv
    return SimkitAECEnv


def aec_env(rules="douque", *, episode: str = "hand", illegal: str = "error", illegal_penalty: float = -1.0,
            render_mode=None, **options):
    """A PettingZoo AEC environment of ``rules`` (with rule ``options``): see :mod:`simkit.envs`."""
    return _aec_class()(rules, episode=episode, illegal=illegal, illegal_penalty=illegal_penalty,
                        render_mode=render_mode, **options)


# ---------------------------------------------------------------------------------------------
# Gymnasium

GYM_IDS = {"douque": "simkit/Douque-v0", "night_market": "simkit/NightMarket-v0", "duel": "simkit/Duel-v0",
           "for_two": "simkit/ForTwo-v0"}


def _gym_base():
    import gymnasium

    return gymnasium.Env


class _LazyGymEnv(type):
    """Makes ``SimkitGymEnv`` a ``gymnasium.Env`` subclass at first use (gymnasium stays unimported
    until then)."""

    _cls = None

    def __call__(cls, *args, **kwargs):
        return _gym_class()(*args, **kwargs)


def _gym_class():
    if _LazyGymEnv._cls is not None:
        return _LazyGymEnv._cls
    import gymnasium
    from gymnasium import spaces

    class _SimkitGymEnv(gymnasium.Env):
        """One seat against a simkit policy: the agent is ``seat`` (0, 1, or None: alternating by
        episode); the opponent (any policy :func:`simkit.simulate_matches` takes) decides in between.
        Reward: the change of the agent's score at each step (see :mod:`simkit.envs`)."""

        metadata = {"render_modes": ["ansi"], "render_fps": 1}

        def __init__(self, rules="douque", opponent="greedy", seat=None, episode="hand", illegal="error",
                     illegal_penalty=-1.0, render_mode=None, **options):
            from .engine.matches import resolve_policy

            self._table = _Table(rules, episode, illegal, illegal_penalty, options)
            self._opponent = resolve_policy(opponent)
            if seat not in (None, 0, 1):
                raise SimkitError(f"seat is 0, 1 or None (alternating), got {seat!r}")
            self._seat_arg = seat
            self.seat = 0 if seat is None else seat
            self._episodes = 0
            if render_mode not in (None, "ansi"):
                raise SimkitError(f"render_mode is None or 'ansi', got {render_mode!r}")
            self.render_mode = render_mode
            self.observation_space = _observation_space(spaces)
            self.action_space = spaces.Discrete(A.N_ACTIONS)

        def _obs(self):
            s = self._table.state
            deciding = not s.over and s.player == self.seat
            mask = np.zeros(A.N_ACTIONS, np.int8)
            if deciding:
                mask[:] = s.legal
            return {"observation": encode_observation(s.table, self.seat, deciding), "action_mask": mask}

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
            self.seat = (self._episodes % 2) if self._seat_arg is None else self._seat_arg
            self._episodes += 1
            t = self._table
            while True:
                t.reset(seed)
                seed = None
                if not self._opponent_moves():
                    break  # the agent decides now (else the episode ended without it: deal the next)
            return self._obs(), {"seat": self.seat}

        def step(self, action):
            t = self._table
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
                return _render(self._table.state)
            return None

    _LazyGymEnv._cls = _SimkitGymEnv
    return _SimkitGymEnv


class SimkitGymEnv(metaclass=_LazyGymEnv):
    """``SimkitGymEnv(rules, opponent="greedy", seat=None, episode="hand", ...)``: a
    ``gymnasium.Env`` (the class is built at first use, so simkit does not import gymnasium)."""


def register_gymnasium() -> None:
    """Register ``simkit/Douque-v0``, ``simkit/NightMarket-v0``, ``simkit/Duel-v0`` and
    ``simkit/ForTwo-v0`` with gymnasium (done when this module is imported and gymnasium is
    installed)."""
    import gymnasium

    for rules, env_id in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=_gym_entry, kwargs={"rules": rules})


def _gym_entry(**kwargs):
    return _gym_class()(**kwargs)


try:  # registration needs gymnasium; without it the module still imports
    import importlib.util as _util

    if _util.find_spec("gymnasium") is not None:
        register_gymnasium()
except ImportError:  # pragma: no cover
    pass
