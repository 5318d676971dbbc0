"""The vector environment: many tables stepped at once inside the compiled engine
(:class:`VectorEnv`, a ``gymnasium.vector.VectorEnv``), and :func:`random_legal_actions` for its
masks."""

from __future__ import annotations

import numpy as np

from ..engine import actions as A
from ..engine import table as eng
from ..engine.compiled import function_pointer, policy_type, prepared, search_type
from ..engine.deal import wall_template
from ..engine.observation import OBSERVATION_SIZE, state_size
from ..engine.rng import stream_key
from ..engine.rulesets import engine_spec
from ..errors import InputValueError, check_flag, check_int, show
from ..hand.tables import hand_tables
from ..play.runtime import (
    compile_policy,
    engine_for,
    error_text,
    match_executor,
    policy_calls,
    resolve_policy,
    thread_count,
)
from .table import EPISODES, EnvError, GymnasiumSubclass, env_settings, observation_space_of

__all__ = ["VectorEnv", "random_legal_actions", "REWARD_MODES"]

#: what :class:`VectorEnv`'s ``rewards`` hold: ``"actor"`` (default) the reward of the player who
#: played each table's action, float32[n_envs]; ``"both"`` (self-play) each seat's, float32[n_envs, 2]
REWARD_MODES = ("actor", "both")


def random_legal_actions(masks, rng) -> np.ndarray:
    """A uniformly random legal action per row of ``masks`` (int8 or bool [n, N_ACTIONS], at least
    one legal action per row), chosen in numpy from the generator ``rng``: the argmax of uniform
    float32 draws over the legal actions."""
    draws = rng.random(masks.shape, dtype=np.float32)
    draws *= masks
    return draws.argmax(axis=1)


class _VectorTables:
    """The engine's side of :class:`VectorEnv`, which needs no gymnasium: the stacked tables, the
    kernel and its buffers, the checks, the rewards and the infos."""

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
        final_obs: bool = True,
        threads=None,
        copy: bool = False,
        reward_mode: str = "actor",
        **options,
    ):
        check_int(n_envs, "n_envs", 1, 1 << 24)
        if not (isinstance(reward_mode, str) and reward_mode in REWARD_MODES):
            raise InputValueError(
                f"reward_mode is one of {', '.join(map(repr, REWARD_MODES))}, got {show(reward_mode)}"
            )
        if reward_mode == "both" and opponent is not None:
            raise InputValueError(
                "reward_mode='both' is for self-play (each seat's reward); with an opponent the reward is "
                "the agent's whole result already"
            )
        check_int(seed, "seed", 0, 2**63 - 1)
        full_state = check_flag(full_state, "full_state")
        final_obs = check_flag(final_obs, "final_obs")
        copy = check_flag(copy, "copy")
        if threads is not None:
            check_int(threads, "threads", 1, 1024)
        self.rules = env_settings(rules, episode, illegal, illegal_penalty, options)
        self.spec = engine_spec(self.rules)
        self.n_envs = int(n_envs)
        self.episode = episode
        self.illegal = illegal
        self.illegal_penalty = float(illegal_penalty)
        self.full_state = bool(full_state)
        self.final_obs = bool(final_obs)
        self.copy = bool(copy)
        self.reward_mode = reward_mode
        self.threads = int(threads) if threads is not None else thread_count()
        self.opponent = opponent
        if opponent is None:
            fn, params = resolve_policy("random", self.rules)  # never asked: every decision is the agents'
        else:
            fn, params = resolve_policy(opponent, self.rules)
            compile_policy(fn, self.spec)
        self._kinds, self._fn0, self._fn1, self._search = policy_calls(fn, fn, self.spec)
        self._params = params
        self._template = wall_template(self.rules)
        self._hand_tables = hand_tables(self.rules)
        n = self.n_envs
        self._batch = eng.new_tables(n, len(self._template), self.spec.items_proto)
        self._obs = np.zeros((n, OBSERVATION_SIZE), np.float32)
        self._masks = np.zeros((n, A.N_ACTIONS), np.int8)
        self._final_obs = np.zeros((n if final_obs else 0, OBSERVATION_SIZE), np.float32)
        self._rewards = np.zeros((n, 2), np.float32)  # the kernel's: each player's, or the agent's and the opponent's
        self._reward = np.zeros((n, 2) if reward_mode == "both" else n, np.float32)
        self._terminated = np.zeros(n, np.bool_)
        self._truncated = np.zeros(n, np.bool_)
        self._players = np.zeros(n, np.int64)
        self._states = np.zeros((n if full_state else 0, state_size(len(self._template))), np.float32)
        self._errors = np.zeros((n, 5), np.int64)
        self._actions = np.zeros(n, np.int64)
        self._seats = np.zeros(n, np.int64)
        self._rows = np.arange(n)
        self._seed(int(seed))
        self._kernel = None
        self._started = False

    def _seed(self, seed: int) -> None:
        n = self.n_envs
        self.seed = seed
        # 63-bit, like every seed simkit takes: a table's games replay in GameState or the Gymnasium env
        self.table_seeds = np.array([int(stream_key(np.uint64(seed), i, 0)) >> 1 for i in range(n)], np.uint64)
        self._matches = np.zeros(n, np.int64)
        self._agent_episodes = np.zeros(n, np.int64)
        self._penalty_streams = {}  # table -> its stream of random legal actions, made at its first illegal action

    def __repr__(self) -> str:
        against = "self-play" if self.opponent is None else f"opponent={self.opponent!r}"
        return f"VectorEnv({self.rules.name!r}, n_envs={self.n_envs}, {against}, episode={self.episode!r})"

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
            self._search,
            self.opponent is not None,
            EPISODES.index(self.episode),
            self.table_seeds,
            self._matches,
            self._agent_episodes,
            self._seats,
            self._obs,
            self._masks,
            self._final_obs,
            self._rewards,
            self._terminated,
            self._players,
            self.full_state,
            self._states,
            self._errors,
        )

    def _run(self, reset: bool) -> None:
        if self._kernel is None:
            engine = engine_for(self.spec, bool((self._kinds == eng.POLICY_SEARCH).any()))
            kind = policy_type(self.spec)
            st = search_type(self.spec)
            self._kernel = prepared(engine.vector_step_kernel, self._args(0, 0, reset), {10: kind, 11: kind, 14: st})
            self._fn0, self._fn1 = function_pointer(self._fn0, kind), function_pointer(self._fn1, kind)
            self._search = function_pointer(self._search, st)
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

    def _out(self, x):
        return x.copy() if self.copy else x

    def _observations(self) -> dict:
        return {"observation": self._out(self._obs), "action_mask": self._out(self._masks)}

    def _infos(self, actors=None) -> dict:
        """The step's infos (``actors``: who played each table's action; None after a reset)."""
        infos = {"player": self._out(self._players)}
        if actors is not None and self.opponent is None:
            infos["player_rewards"] = self._out(self._rewards)
        if self.full_state:
            infos["state"] = self._out(self._states)
        if actors is not None and self.final_obs and self._terminated.any():
            self._add_final(infos, actors)
        return infos

    def _add_final(self, infos: dict, actors) -> None:
        """The finished episodes' last observations and infos, in gymnasium's same-step autoreset
        form (what ``SyncVectorEnv`` gives): ``final_obs``, an object array holding each ended
        table's observation (a copy; its mask all zeros: nobody decides) and None elsewhere;
        ``final_info``, a dict of arrays (``player``: who played the last action; in self-play
        ``player_rewards``), each with its ``_key`` mask; ``_final_obs`` / ``_final_info`` the ended
        tables."""
        ended = self._terminated.copy()
        rows = np.flatnonzero(ended)
        observations = self._final_obs[rows]  # one copy for all; each row's dict holds a view of it
        masks = np.zeros((len(rows), A.N_ACTIONS), np.int8)
        final_obs = np.full(self.n_envs, None, object)
        for k, i in enumerate(rows.tolist()):
            final_obs[i] = {"observation": observations[k], "action_mask": masks[k]}
        final_info = {"player": np.where(ended, actors, 0), "_player": ended.copy()}
        if self.opponent is None:
            final_info["player_rewards"] = np.where(ended[:, None], self._rewards, 0.0).astype(np.float32)
            final_info["_player_rewards"] = ended.copy()
        infos.update(final_obs=final_obs, _final_obs=ended, final_info=final_info, _final_info=ended.copy())

    def _reset_tables(self, seed) -> tuple:
        if seed is not None:
            check_int(seed, "seed", 0, 2**63 - 1)
            self._seed(int(seed))
        self._run(reset=True)
        self._started = True
        return self._observations(), self._infos()

    def _step_tables(self, actions) -> tuple:
        if not self._started:
            raise EnvError("call reset() before step(): the environment has no hand yet")
        a = np.asarray(actions)
        if a.shape != (self.n_envs,) or not (np.issubdtype(a.dtype, np.integer)):
            raise InputValueError(
                f"actions is an integer array of shape ({self.n_envs},), got {a.dtype} of shape {a.shape}"
            )
        self._actions[:] = a
        actors = self._players.copy()  # who plays each table's action: the step's reward is theirs
        codes = np.clip(self._actions, 0, A.N_ACTIONS - 1)
        engine_legal = self._batch.legal  # the engine's own masks: the ones returned are the caller's to change
        legal = (self._actions == codes) & engine_legal[self._rows, codes]
        bad = None
        if not legal.all():
            bad = np.flatnonzero(~legal)
            if self.illegal == "error":
                i = int(bad[0])
                self._raise_illegal(i, int(self._actions[i]), len(bad))
            for i in bad:
                self._actions[i] = self._penalty_stream(int(i)).choice(np.flatnonzero(engine_legal[i]))
        self._run(reset=False)
        rewards = self._rewards
        if self.opponent is None:
            if bad is not None:
                rewards[bad, actors[bad]] += self.illegal_penalty
            self._reward[:] = rewards if self.reward_mode == "both" else rewards[self._rows, actors]
        else:
            if bad is not None:
                rewards[bad, 0] += self.illegal_penalty
            self._reward[:] = rewards[:, 0]
        return (
            self._observations(),
            self._out(self._reward),
            self._out(self._terminated),
            self._out(self._truncated),
            self._infos(actors),
        )

    def _penalty_stream(self, i: int):
        """Table ``i``'s stream of random legal actions for illegal ones: seeded by the table's seed,
        as the Gymnasium environment's is by its own, so that a table plays the same games whatever
        the other tables do."""
        rng = self._penalty_streams.get(i)
        if rng is None:
            rng = self._penalty_streams[i] = np.random.default_rng(int(self.table_seeds[i]))
        return rng

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


def _vector_class():
    """The ``gymnasium.vector.VectorEnv`` subclass behind :class:`VectorEnv` (made once, at its
    first instance)."""
    import gymnasium
    from gymnasium import spaces
    from gymnasium.vector.utils import batch_space

    class _SimkitVectorEnv(_VectorTables, gymnasium.vector.VectorEnv):
        __doc__ = VectorEnv.__doc__
        metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP}

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.num_envs = self.n_envs
            self.single_observation_space = observation_space_of(spaces)
            self.single_action_space = spaces.Discrete(A.N_ACTIONS)
            self.observation_space = batch_space(self.single_observation_space, self.n_envs)
            self.action_space = batch_space(self.single_action_space, self.n_envs)

        def reset(self, *, seed=None, options=None):
            """Start a new episode on every table (``seed``: start the tables' match sequences again
            from that seed); returns ``(obs, infos)``. It takes no ``options``."""
            if options:
                raise InputValueError(f"VectorEnv.reset takes no options, got {options!r}")
            out = self._reset_tables(seed)
            gymnasium.vector.VectorEnv.reset(self, seed=seed)  # gymnasium's np_random, seeded alike
            return out

        def step(self, actions):
            """Play ``actions`` (int[n_envs], one per table, for its deciding player); returns
            ``(obs, rewards, terminated, truncated, infos)``."""
            return self._step_tables(actions)

    return _SimkitVectorEnv


class VectorEnv(metaclass=GymnasiumSubclass):
    """``n_envs`` tables of ``rules`` stepped at once inside the compiled engine, numpy in and out: a
    ``gymnasium.vector.VectorEnv`` (the class is built at the first instance, so importing simkit
    does not import gymnasium).

    ``VectorEnv(rules="douque", n_envs=1024, opponent=None, seed=0, episode="hand", ...)``. Without an
    ``opponent`` both players are agents (self-play): every decision of every table is a step, and
    ``infos["player"]`` says whose it is. With an ``opponent`` (any policy
    :func:`simkit.simulate_matches` takes, e.g. ``"greedy"``) the agent holds one seat, alternating
    by episode as in the Gymnasium environment, and the opponent's decisions are played in the
    engine between the agent's.

    * Spaces: ``single_observation_space`` is the Gymnasium environment's observation space (a dict
      of ``"observation"`` float32[OBSERVATION_SIZE] and ``"action_mask"`` int8[N_ACTIONS]),
      ``single_action_space`` is ``Discrete(N_ACTIONS)``, and ``observation_space`` /
      ``action_space`` are their batches over the tables (``gymnasium.vector.utils.batch_space``).
    * :meth:`reset` ``(seed=None) -> (obs, infos)`` and :meth:`step` ``(actions) -> (obs, rewards,
      terminated, truncated, infos)``: ``obs["observation"]`` float32[n_envs, OBSERVATION_SIZE]
      is the deciding player's observation (:data:`OBSERVATION_LAYOUT`), ``obs["action_mask"]``
      int8[n_envs, N_ACTIONS] its legal actions; ``rewards`` float32[n_envs] is the reward of the
      player who played the table's action: its change of score in the step (with an opponent,
      the opponent's moves and the settlement included), plus ``illegal_penalty`` for an illegal
      action. In self-play that leaves out the other player's change in the same step (the
      payer's loss in the step of the other's win), so these rewards do not sum to zero over a
      hand; ``reward_mode="both"`` makes ``rewards`` float32[n_envs, 2], each seat's reward in the
      step (player 0's, player 1's; the same as ``infos["player_rewards"]``), which sum to zero
      over a hand in a rule set without fees. ``terminated`` bool[n_envs]; ``truncated`` all
      False; ``infos["player"]``
      int64[n_envs] the deciding player's seat (0 / 1). In self-play ``infos["player_rewards"]``
      float32[n_envs, 2] holds both players' rewards in the step (player 0's, player 1's): a hand's
      payment reaches the player who pays it in the step of the other's win, so a self-play
      learner sums these per seat. With ``full_state=True``, ``infos["state"]`` float32[n_envs,
      state_size] (both hands and the wall, :func:`simkit.engine.observation.state_layout`), for
      centralised critics.
    * Autoreset: ``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``. A table whose
      episode ends starts the next one in the same step: its row of ``obs`` and ``infos`` is then
      the new episode's first decision, and ``rewards`` / ``terminated`` the finished episode's
      last step. As gymnasium's ``SyncVectorEnv`` does, ``infos["final_obs"]`` (object[n_envs])
      then holds the finished episode's last observation for those tables (None for the others;
      the Gymnasium environment's observation at its end, from the seat of the player who acted,
      mask all zeros), ``infos["final_info"]`` its infos (``player``: that seat; in self-play
      ``player_rewards``), and ``infos["_final_obs"]`` / ``infos["_final_info"]`` the tables that
      ended; these keys are present only in a step where some episode ended (and never with
      ``final_obs=False``, which spares encoding them: see the performance page). An episode is a
      hand of the matches in turn (``episode="hand"``: the match goes on from episode to
      episode), the first hand of a match (``"first_hand"``) or a match (``"match"``):
      :data:`simkit.envs.table.EPISODES`.
    * Reproducible per table: table ``i`` plays matches 0, 1, 2, ... of the seed
      ``stream_key(seed, i, 0) >> 1`` (:attr:`table_seeds`), one per episode (with an opponent, an
      episode that ends before the agent decides is passed over), whatever ``n_envs`` and the
      thread count.
    * Illegal actions raise an error naming the table, the player, the phase and the legal actions
      (``illegal="error"``), or cost ``illegal_penalty`` with a uniformly random legal action
      played instead (``illegal="penalty"``, from the table's own stream, seeded by its seed as the
      Gymnasium environment's is).

    The returned arrays are the environment's buffers, overwritten by the next :meth:`step` (copy
    what you keep, or pass ``copy=True``). Tables run in blocks on ``threads`` threads (default:
    numba's thread count).
    """

    _build = staticmethod(_vector_class)
