"""Reinforcement-learning environments over the engine's step API: a PettingZoo AEC environment for
two agents, a Gymnasium single-agent environment against any simkit policy, and a vector
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
:mod:`simkit.engine.observation`, whose compiled encoder every environment uses). ``action_mask``
is the engine's legal mask for the deciding agent and all zeros for the other.

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
from .engine.compiled import policy_type
from .engine.observation import OBSERVATION_LAYOUT, OBSERVATION_SIZE, encode_observation_kernel
from .engine.rulesets import engine_spec
from .engine.runtime import (
    compile_policy,
    engine_for,
    error_text,
    match_executor,
    policy_calls,
    resolve_policy,
    thread_count,
)
from .errors import InputValueError, SimkitError, check_flag

__all__ = [
    "EnvError",
    "OBSERVATION_LAYOUT",
    "OBSERVATION_SIZE",
    "encode_observation",
    "VectorEnv",
    "random_legal_actions",
    "aec_env",
    "SimkitGymEnv",
    "register_gymnasium",
    "GYM_IDS",
]


class EnvError(SimkitError, ValueError):
    """An environment used out of order: stepped (or observed, rendered) before its first ``reset()``."""


def encode_observation(T, p: int, deciding: bool) -> np.ndarray:
    """The observation vector of player ``p`` of the engine's Table ``T`` (see the module docstring;
    the compiled encoder the vector environment uses)."""
    out = np.empty(OBSERVATION_SIZE, np.float32)
    encode_observation_kernel(T, int(p), bool(deciding), out)
    return out


def _observation_space(gym_spaces):
    return gym_spaces.Dict(
        {
            "observation": gym_spaces.Box(-np.inf, np.inf, (OBSERVATION_SIZE,), np.float32),
            "action_mask": gym_spaces.Box(0, 1, (A.N_ACTIONS,), np.int8),
        }
    )


def _settings(rules, episode, illegal, illegal_penalty, options):
    """The rule set of an environment, after checking the settings every environment shares."""
    from .rules import get_rules, resolve_rules

    if episode not in ("hand", "match"):
        raise InputValueError(f"episode is 'hand' or 'match', got {episode!r}")
    if illegal not in ("error", "penalty"):
        raise InputValueError(f"illegal is 'error' or 'penalty', got {illegal!r}")
    if (
        isinstance(illegal_penalty, bool)
        or not isinstance(illegal_penalty, (int, float))
        or not np.isfinite(illegal_penalty)
    ):
        raise InputValueError(f"illegal_penalty is a finite number, got {illegal_penalty!r}")
    return get_rules(rules, **options) if options else resolve_rules(rules)


class _Table:
    """What the environments share: a match of the step API, scores, illegal-action handling."""

    def __init__(self, rules, episode, illegal, illegal_penalty, options):
        self.rules = _settings(rules, episode, illegal, illegal_penalty, options)
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

        def __init__(
            self, rules="douque", episode="hand", illegal="error", illegal_penalty=-1.0, render_mode=None, **options
        ):
            super().__init__()
            self._table = _Table(rules, episode, illegal, illegal_penalty, options)
            if render_mode not in (None, "ansi"):
                raise InputValueError(f"render_mode is None or 'ansi', got {render_mode!r}")
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
            self._table.started("observe()")
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
                return _render(self._table.state)
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


def random_legal_actions(masks, rng) -> np.ndarray:
    """A uniformly random legal action per row of ``masks`` (int8 or bool [n, N_ACTIONS], at least
    one legal action per row), chosen in numpy from the generator ``rng``: the argmax of uniform
    float32 draws over the legal actions."""
    draws = rng.random(masks.shape, dtype=np.float32)
    draws *= masks
    return draws.argmax(axis=1)


class VectorEnv:
    """``n_envs`` tables of ``rules`` stepped at once inside the compiled engine, numpy in and out.

    ``VectorEnv(rules="douque", n_envs=1024, opponent=None, seed=0, episode="hand", ...)``.
    Without an ``opponent`` both players are agents (self-play): every decision of every table is
    a step, and ``info["player"]`` says whose it is. With an ``opponent`` (any policy
    :func:`simkit.simulate_matches` takes, e.g. ``"greedy"``) the agent holds one seat, alternating
    by episode as in the Gymnasium environment, and the opponent's decisions are played in the
    engine between the agent's.

    * :meth:`reset` ``-> (obs, masks, info)`` and :meth:`step` ``(actions) -> (obs, masks, rewards,
      terminated, truncated, info)``: ``obs`` float32[n_envs, OBSERVATION_SIZE] (the deciding
      player's observation, :data:`OBSERVATION_LAYOUT`), ``masks`` int8[n_envs, N_ACTIONS] (its
      legal actions), ``rewards`` float32: [n_envs] the agent's change of score in the step (the
      opponent's moves and the settlement included) with an opponent, [n_envs, 2] each player's
      in self-play; ``terminated`` bool[n_envs]; ``truncated`` all False; ``info["player"]``
      int64[n_envs] the deciding player's seat (0 / 1); with ``full_state=True``
      ``info["state"]`` float32[n_envs, state_size] (both hands and the wall,
      :func:`simkit.engine.observation.state_layout`), for centralised critics.
    * A table whose episode ends starts the next one in the same step: its row of ``obs`` /
      ``masks`` is then the new episode's first decision and ``rewards`` the finished episode's
      last change. An episode is one hand (``episode="hand"``) or one match (``"match"``).
    * Reproducible per table: table ``i`` plays matches 0, 1, 2, ... of the seed
      ``stream_key(seed, i, 0) >> 1`` (:attr:`table_seeds`), one per episode (with an opponent, an
      episode that ends before the agent decides is passed over), whatever ``n_envs`` and the
      thread count.
    * Illegal actions raise an error naming the table, the player, the phase and the legal actions
      (``illegal="error"``), or cost ``illegal_penalty`` with a uniformly random legal action
      played instead (``illegal="penalty"``, from the environment's own seeded stream).

    The returned arrays are the environment's buffers, overwritten by the next :meth:`step` (copy
    what you keep, or pass ``copy=True``). Tables run in blocks on ``threads`` threads (default:
    numba's thread count).
    """

    def __init__(
        self,
        rules="douque",
        n_envs: int = 1024,
        *,
        opponent=None,
        seed: int = 0,
        episode: str = "hand",
        illegal: str = "error",
        illegal_penalty: float = -1.0,
        full_state: bool = False,
        threads=None,
        copy: bool = False,
        **options,
    ):
        from .errors import check_int
        from .engine.deal import wall_template
        from .engine.observation import state_size
        from .hand.tables import hand_tables

        check_int(n_envs, "n_envs", 1, 1 << 24)
        check_int(seed, "seed", 0, 2**63 - 1)
        full_state = check_flag(full_state, "full_state")
        copy = check_flag(copy, "copy")
        if threads is not None:
            check_int(threads, "threads", 1, 1024)
        self.rules = _settings(rules, episode, illegal, illegal_penalty, options)
        self.spec = engine_spec(self.rules)
        self.n_envs = int(n_envs)
        self.episode = episode
        self.illegal = illegal
        self.illegal_penalty = float(illegal_penalty)
        self.full_state = bool(full_state)
        self.copy = bool(copy)
        self.threads = int(threads) if threads is not None else thread_count()
        self.opponent = opponent
        if opponent is None:
            fn, params = resolve_policy("random", self.rules)  # never asked: every decision is the agents'
        else:
            fn, params = resolve_policy(opponent, self.rules)
            compile_policy(fn, self.spec)
        self._kinds, self._fn0, self._fn1 = policy_calls(fn, fn)
        self._params = params
        self._template = wall_template(self.rules)
        self._hand_tables = hand_tables(self.rules)
        n = self.n_envs
        self._batch = eng.new_tables(n, len(self._template), self.spec.items_proto)
        self._obs = np.zeros((n, OBSERVATION_SIZE), np.float32)
        self._masks = np.zeros((n, A.N_ACTIONS), np.int8)
        self._rewards = np.zeros((n, 2), np.float32)
        self._terminated = np.zeros(n, np.bool_)
        self._players = np.zeros(n, np.int64)
        self._states = np.zeros((n if full_state else 0, state_size(len(self._template))), np.float32)
        self._errors = np.zeros((n, 5), np.int64)
        self._actions = np.zeros(n, np.int64)
        self._seats = np.zeros(n, np.int64)
        self._seed(int(seed))
        self._kernel = None
        self._started = False

    def _seed(self, seed: int) -> None:
        from .engine.rng import stream_key

        n = self.n_envs
        self.seed = seed
        # 63-bit, like every seed simkit takes: a table's games replay in GameState or the Gymnasium env
        self.table_seeds = np.array([int(stream_key(np.uint64(seed), i, 0)) >> 1 for i in range(n)], np.uint64)
        self._matches = np.zeros(n, np.int64)
        self._agent_episodes = np.zeros(n, np.int64)
        self._rng = np.random.default_rng(seed)

    @property
    def observation_size(self) -> int:
        return OBSERVATION_SIZE

    @property
    def n_actions(self) -> int:
        return A.N_ACTIONS

    def _args(self, start, stop, reset):
        spec = self.spec
        return (
            self._batch,
            int(start),
            int(stop),
            bool(reset),
            self._actions,
            self._template,
            self._hand_tables,
            spec.game,
            spec.sp,
            self._kinds,
            self._fn0,
            self._fn1,
            self._params,
            self._params,
            self.opponent is not None,
            self.episode == "match",
            self.table_seeds,
            self._matches,
            self._agent_episodes,
            self._seats,
            self._obs,
            self._masks,
            self._rewards,
            self._terminated,
            self._players,
            self.full_state,
            self._states,
            self._errors,
        )

    def _run(self, reset: bool) -> None:
        from .engine.compiled import function_pointer, prepared

        if self._kernel is None:
            engine = engine_for(self.spec)
            kind = policy_type(self.spec)
            self._kernel = prepared(engine.vector_step_kernel, self._args(0, 0, reset), (10, 11), kind)
            self._fn0, self._fn1 = function_pointer(self._fn0, kind), function_pointer(self._fn1, kind)
            # the compiled entry of the kernel's one signature: every argument comes from _args with
            # fixed types, so the dispatcher's type matching (about 30 us a call) is skipped
            self._kernel = next(iter(self._kernel.overloads.values())).entry_point
        n = self.n_envs
        blocks = min(self.threads, n)
        bounds = [n * b // blocks for b in range(blocks + 1)]
        self._errors[:] = 0
        if blocks == 1:
            self._kernel(*self._args(0, n, reset))
        else:
            pool = match_executor(blocks)
            futures = [pool.submit(self._kernel, *self._args(bounds[b], bounds[b + 1], reset)) for b in range(blocks)]
            for f in futures:
                f.result()
        bad = np.flatnonzero(self._errors[:, 0])
        if bad.size:
            i = int(bad[0])
            code, detail, player, phase, tile = (int(x) for x in self._errors[i])
            raise InputValueError(
                error_text(
                    code,
                    detail,
                    f"table {i} of the vector environment",
                    player,
                    phase,
                    tile,
                    self._batch.legal[i].copy(),
                )
            )

    def _out(self):
        info = {"player": self._players}
        if self.full_state:
            info["state"] = self._states
        if self.copy:
            info = {k: v.copy() for k, v in info.items()}
            return self._obs.copy(), self._masks.copy(), info
        return self._obs, self._masks, info

    def reset(self, seed=None):
        """Start a new episode on every table (``seed``: start the tables' match sequences again
        from that seed); returns ``(obs, masks, info)``."""
        if seed is not None:
            from .errors import check_int

            check_int(seed, "seed", 0, 2**63 - 1)
            self._seed(int(seed))
        self._run(reset=True)
        self._started = True
        return self._out()

    def step(self, actions):
        """Play ``actions`` (one per table, for its deciding player); returns ``(obs, masks,
        rewards, terminated, truncated, info)``."""
        if not self._started:
            raise EnvError("call reset() before step(): the environment has no hand yet")
        a = np.asarray(actions)
        if a.shape != (self.n_envs,) or not (np.issubdtype(a.dtype, np.integer)):
            raise InputValueError(
                f"actions is an integer array of shape ({self.n_envs},), got {a.dtype} of shape {a.shape}"
            )
        self._actions[:] = a
        codes = np.clip(self._actions, 0, A.N_ACTIONS - 1)
        engine_legal = self._batch.legal  # the engine's own masks: the ones returned are the caller's to change
        legal = (self._actions == codes) & engine_legal[np.arange(self.n_envs), codes]
        penalty = None
        if not legal.all():
            bad = np.flatnonzero(~legal)
            if self.illegal == "error":
                i = int(bad[0])
                self._raise_illegal(i, int(self._actions[i]), len(bad))
            for i in bad:
                self._actions[i] = self._rng.choice(np.flatnonzero(engine_legal[i]))
            penalty = (bad, self._players[bad].copy())
        self._run(reset=False)
        rewards = self._rewards
        if penalty is not None:
            bad, who = penalty
            if self.opponent is None:
                rewards[bad, who] += self.illegal_penalty
            else:
                rewards[bad, 0] += self.illegal_penalty
        out_rewards = rewards if self.opponent is None else rewards[:, 0]
        obs, masks, info = self._out()
        terminated = self._terminated
        truncated = np.zeros(self.n_envs, np.bool_)
        if self.copy:
            out_rewards, terminated = out_rewards.copy(), terminated.copy()
        return obs, masks, out_rewards, terminated, truncated, info

    def _raise_illegal(self, i: int, action: int, n_bad: int):
        legal = np.flatnonzero(self._batch.legal[i])
        names = ", ".join(A.action_name(x) for x in legal)
        what = A.action_name(action) if 0 <= action < A.N_ACTIONS else "not an action code"
        phase = int(self._batch.sc[i, eng.S_PHASE])
        tile = int(self._batch.sc[i, eng.S_TILE])
        on = f" about {A.action_name(A.DISCARD + tile)[len('discard ') :]}" if 0 <= tile < 34 else ""
        more = f" ({n_bad} tables had illegal actions)" if n_bad > 1 else ""
        raise InputValueError(
            f"table {i}: player {int(self._players[i])} played {action} ({what}), not legal {A.PHASE_NAMES[phase]}{on}; "
            f"legal: {names}{more}"
        )


# ---------------------------------------------------------------------------------------------
# Gymnasium

GYM_IDS = {
    "douque": "simkit/Douque-v0",
    "night_market": "simkit/NightMarket-v0",
    "duel": "simkit/Duel-v0",
    "for_two": "simkit/ForTwo-v0",
}


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

        def __init__(
            self,
            rules="douque",
            opponent="greedy",
            seat=None,
            episode="hand",
            illegal="error",
            illegal_penalty=-1.0,
            render_mode=None,
            **options,
        ):
            self._table = _Table(rules, episode, illegal, illegal_penalty, options)
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
