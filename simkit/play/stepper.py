"""Driving the engine from Python: a hand at a decision point, stepped one action at a time.

A :class:`GameState` holds the engine's state (a :class:`~simkit.engine.table.Table` of plain
arrays) standing at a decision: :attr:`~GameState.player` must choose in
:attr:`~GameState.phase` (``PHASE_*`` of :mod:`simkit.engine.actions`) about
:attr:`~GameState.tile`; :attr:`~GameState.legal` is a copy of the legal-action mask and
:meth:`~GameState.view` what that player may know. :meth:`~GameState.apply` plays an action and
advances to the next decision, or to the end of the hand (:attr:`~GameState.over`; the hand is
then settled and :attr:`~GameState.row` is its result row, as :func:`simkit.simulate_matches`
gives it). :meth:`~GameState.next_hand` goes on to the match's next hand.

Each call runs the rule set's compiled engine (:func:`simkit.engine.step._step`, the function
the match loop runs), so a game stepped from Python is the game the engine plays: a policy written
in plain Python gives the same rows as the same code jitted. ::

    from simkit import GameState

    s = GameState.new_match("douque", seed=1)
    while not s.over:
        s.apply(my_policy(s.view(), s.legal))     # any Python callable
    s.row["winner"], s.row["points"], s.lines()

From numba, the same functions are ``begin_hand``, ``advance`` and ``step`` of the rule set's
engine instance (:func:`simkit.play.runtime.engine_for`), called on :attr:`GameState.table`
(``tests/test_engine_state.py`` plays a hand so).
"""

from __future__ import annotations

import numpy as np

from ..engine import actions as A
from ..engine import table as eng
from ..engine.deal import wall_template
from ..engine.rng import stream_key
from ..engine.rulesets import engine_spec
from ..errors import InputTypeError, InputValueError, SimkitError, TileCountError, check_flag, check_int, show
from ..hand.tables import hand_tables
from ..rules import resolve_rules
from ..tiles import parse_tile_list, tile_name
from .runtime import EngineError, engine_for, error_text, hand_record, is_jitted, resolve_policy, run_matches

__all__ = ["GameState"]

_EAST, _WEST = 27, 29
_WINDS = "27 (E), 28 (S), 29 (W) or 30 (N)"  #: the prevailing winds as kinds


def streak_limit(spec) -> int:
    """The largest dealer's streak a hand of the engine spec ``spec`` can have: the rule set's
    ``streak_cap`` (douque), else the hands of a match less one. A hand is refused a larger one
    rather than dealt with a dealer tai no match can reach."""
    return int(min(spec.game.streak_cap, spec.max_hands - 1))


def wall_kinds(wall, rules) -> np.ndarray:
    """``wall`` (tile notation in wall order, or a 1-d integer array of kinds) as int8 kinds, after
    checking that it holds exactly the rule set's tiles; the error names what is wrong (a wall that
    is not a permutation of the tiles would corrupt the compiled engine's state)."""
    rules = resolve_rules(rules)
    if isinstance(wall, str):
        kinds = np.asarray(parse_tile_list(wall, rules), np.int64)
    else:
        try:
            kinds = np.asarray(wall)
        except (ValueError, TypeError):  # ragged nesting
            kinds = np.asarray(None)
        if kinds.dtype == np.bool_ or kinds.dtype.kind not in "iu":
            raise InputTypeError(f"the wall is tile notation or a 1-d integer array of kinds, got {show(wall)}")
        if kinds.ndim != 1:
            raise TileCountError(f"the wall is tile notation or a 1-d integer array of kinds, got shape {kinds.shape}")
        if kinds.size and (kinds.min() < 0 or kinds.max() > 33):
            bad = kinds.min() if kinds.min() < 0 else kinds.max()
            raise TileCountError(f"the wall's kinds must be 0-33, got {show(int(bad))}")
    template = wall_template(rules)
    want, have = np.bincount(template, minlength=34), np.bincount(kinds.astype(np.int64), minlength=34)
    head = f"the wall must hold exactly the {len(template)} tiles of rule set '{rules.name}' (4 of each of its kinds)"
    if len(kinds) != len(template):
        raise TileCountError(f"{head}, got {len(kinds)} tiles")
    wrong = [f"{have[k]} of {tile_name(k)}" for k in range(34) if have[k] != want[k]]
    if wrong:
        raise TileCountError(f"{head}, got {', '.join(wrong[:6])}{', ...' if len(wrong) > 6 else ''}")
    return kinds.astype(np.int8)


class GameState:
    """A hand of a rule set at a decision point (or over), stepped from Python.

    Build one with :meth:`new_match` (hand 0 of a seeded match, exactly as
    :func:`simkit.simulate_matches` deals it) or :meth:`from_wall` (one hand from a given wall);
    :meth:`copy` to branch.
    """

    def __init__(self, spec, table, *, _private=False):
        if not _private:
            raise TypeError("build a GameState with GameState.new_match(...) or GameState.from_wall(...)")
        self.spec = spec
        self._T = table
        self._tables = hand_tables(spec.rules)
        self._template = wall_template(spec.rules)

    # -- construction ---------------------------------------------------------------------------

    @classmethod
    def new_match(cls, rules="douque", seed: int = 0, match: int = 0, *, check: bool = False) -> "GameState":
        """Match ``match`` of ``seed``, dealt and standing at its first decision (the streams are
        those of :func:`simkit.simulate_matches`, so it plays the same hands)."""
        spec = rules if hasattr(rules, "settle") else engine_spec(resolve_rules(rules))
        seed = check_int(seed, "seed", 0, 2**63 - 1)
        match = check_int(match, "match", 0, 2**63 - 1)
        check = check_flag(check, "check")
        state = cls(spec, eng.new_table(len(wall_template(spec.rules)), spec.items_proto), _private=True)
        state._T.sc[eng.S_CHECK] = 1 if check else 0
        state._call(eng.OP_BEGIN_MATCH, seed=seed, match=match)
        return state

    @classmethod
    def from_wall(
        cls, rules, wall, *, dealer=0, dealer_east=True, streak=0, prevailing=_EAST, seed=0, check=True
    ) -> "GameState":
        """One hand dealt from ``wall`` (tile notation or kinds, in wall order: the dealer takes
        wall[0:14], the opponent wall[14:27], draws continue from wall[27], replacements come from
        the end), standing at its first decision; the players' policy streams are ``(seed, 0, 1 + p)``
        and for_two's end-phase jokers come from stream ``(seed, 0, 0)``, the one a match's first
        hand shuffles its wall with (no policy's).

        Checked as :func:`simkit.play_hand` checks them: the wall holds exactly the rule set's tiles,
        ``dealer`` is 0 or 1, ``streak`` at most the rule set's ``streak_cap``, ``prevailing`` a
        wind kind (27-30), the flags real booleans."""
        spec = rules if hasattr(rules, "settle") else engine_spec(resolve_rules(rules))
        kinds = wall_kinds(wall, spec.rules)
        dealer = check_int(dealer, "dealer", 0, 1)
        dealer_east = check_flag(dealer_east, "dealer_east")
        streak = check_int(streak, "streak", 0, streak_limit(spec))
        try:
            prevailing = check_int(prevailing, "prevailing", _EAST, _EAST + 3)
        except SimkitError as exc:
            raise type(exc)(f"prevailing must be a wind kind, {_WINDS}, got {show(prevailing)}") from None
        seed = check_int(seed, "seed", 0, 2**63 - 1)
        check = check_flag(check, "check")
        T = eng.new_table(len(kinds), spec.items_proto)
        T.wall[:] = kinds
        T.seat[dealer] = _EAST if dealer_east else _WEST
        T.seat[1 - dealer] = _WEST if dealer_east else _EAST
        T.sc[eng.S_DEALER] = dealer
        T.sc[eng.S_STREAK] = streak
        T.sc[eng.S_PREVAILING] = prevailing
        T.sc[eng.S_CHECK] = 1 if check else 0
        T.sc[eng.S_LOGGING] = 1
        T.rng[0] = stream_key(np.uint64(seed), 0, 0)  # the jokers' (for_two's end phase), placed at the deal
        T.rng[1] = stream_key(np.uint64(seed), 0, 1)
        T.rng[2] = stream_key(np.uint64(seed), 0, 2)
        T.sc[eng.S_CHIPS0] = T.sc[eng.S_CHIPS1] = spec.game.chips  # as play._begin_match (game._begin_purse)
        T.sc[eng.S_PHASE] = eng.PENDING_DEAL  # dealt at the first look (play_out deals in the match kernel)
        return cls(spec, T, _private=True)

    def _dealt(self):
        """The table, dealt if its wall was still to be dealt."""
        if self._T.sc[eng.S_PHASE] == eng.PENDING_DEAL:
            self._call(eng.OP_BEGIN_HAND)
        return self._T

    def copy(self) -> "GameState":
        """An independent copy (the same decision, the same random streams)."""
        T = eng.new_table(len(self._template), self.spec.items_proto)
        eng.copy_table(self._T, T)
        return GameState(self.spec, T, _private=True)

    # -- the decision ---------------------------------------------------------------------------

    @property
    def rules(self):
        return self.spec.rules

    @property
    def table(self):
        """The engine's state (a :class:`~simkit.engine.table.Table` of arrays), for numba code
        that steps it with the engine instance's ``step`` / ``advance`` (:func:`engine_for`)."""
        return self._dealt()

    @property
    def hand_tables(self):
        """The rule set's hand tables (:func:`simkit.hand.tables.hand_tables`), for the kernels that
        read the Table with them (e.g. the observation's shanten)."""
        return self._tables

    @property
    def over(self) -> bool:
        """Whether the hand is over (settled, or stopped by an engine error)."""
        return int(self._dealt().sc[eng.S_PHASE]) == A.PHASE_OVER

    @property
    def match_over(self) -> bool:
        """Whether the match has ended (after :meth:`next_hand` found no next hand)."""
        return bool(self._T.sc[eng.S_MATCH_OVER])

    @property
    def player(self) -> int:
        """The deciding player (0 or 1)."""
        return int(self._dealt().sc[eng.S_PLAYER])

    @property
    def phase(self) -> int:
        """The decision's phase (``PHASE_*``; ``PHASE_OVER`` once the hand is over)."""
        return int(self._dealt().sc[eng.S_PHASE])

    @property
    def tile(self) -> int:
        """The tile concerned (the drawn tile, the opponent's discard or added tile; -1 if none)."""
        return int(self._dealt().sc[eng.S_TILE])

    @property
    def legal(self) -> np.ndarray:
        """A copy of the legal-action mask (bool[N_ACTIONS]); all False once the hand is over."""
        if self.over:
            return np.zeros(A.N_ACTIONS, np.bool_)
        return self._T.legal.copy()

    def legal_actions(self) -> list[int]:
        """The legal action codes."""
        return [int(a) for a in np.flatnonzero(self.legal)]

    def view(self, player: int | None = None) -> A.View:
        """What ``player`` (default: the deciding one) may know, as a policy's :class:`View` of copies
        (its ``counters``: four fresh zeros a policy may write): what a policy writes into it never
        reaches the state."""
        T, sc = self._T, self._T.sc
        p = self.player if player is None else check_int(player, "player", 0, 1)
        q = 1 - p
        deciding = p == self.player and not self.over
        tiles_left = int(sc[eng.S_BACK] - sc[eng.S_FRONT] + 1 - sc[eng.S_KEPT_BACK])
        return A.View(
            self.phase if deciding else A.PHASE_OVER,
            self.tile if deciding else -1,
            T.hand[p].copy(),
            T.melds[p].copy(),
            int(T.n_melds[p]),
            T.melds[q].copy(),
            int(T.n_melds[q]),
            T.river[p].copy(),
            int(T.n_river[p]),
            T.river[q].copy(),
            int(T.n_river[q]),
            int(T.declared[p]),
            int(T.declared[q]),
            tiles_left,
            int(T.seat[p]),
            int(sc[eng.S_PREVAILING]),
            bool(sc[eng.S_DEALER] == p),
            int(sc[eng.S_STREAK]),
            int(T.skip_win[p]),
            self._tables,
            int(sc[eng.S_BID]),
            np.zeros(eng.N_COUNTERS, np.float64),
            int(sc[eng.S_DECLARED_AT + p]),
            int(sc[eng.S_DECLARED_AT + q]),
            T.claimed[p].copy(),
            T.claimed[q].copy(),
            float(T.purse[eng.P_BALANCE0 + p]),
            float(T.purse[eng.P_BALANCE0 + q]),
        )

    def _decision_record(self, action, observing=False):
        """The engine's log of ``action`` taken at this decision (:func:`~simkit.engine.table.decision_record_kernel`):
        ``(row int16[N_DECISION_INT], counters float64[N_COUNTERS], observed)``, ``observed`` the
        decider's observed facts (uint8[N_OBSERVED]) when ``observing``, else None; None for a value
        that is not an action code (:meth:`apply` refuses it)."""
        if self.over or isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            return None
        if not 0 <= int(action) < A.N_ACTIONS:
            return None
        row = np.zeros(eng.N_DECISION_INT, np.int16)
        counters = np.zeros(eng.N_COUNTERS, np.float64)
        observed = np.zeros(eng.N_OBSERVED if observing else 0, np.uint8)
        eng.decision_record_kernel(self._T, self._tables, int(action), row, counters, observed)
        return row, counters, observed if observing else None

    # position(): the Position the deciding player sees, defined in simkit.play.position (which
    # builds on this module) as GameState.position

    def unseen_completion(self):
        """The true completion of the deciding player's :meth:`position`: the opponent's concealed
        tiles and the wall from the next draw on (kinds, kept-back tiles last; with stable walls
        the deciding player's draws from the front, the opponent's from the back)."""
        T, sc = self._dealt(), self._T.sc
        q = 1 - self.player
        opp = np.repeat(np.arange(34, dtype=np.int8), T.hand[q])
        wall = T.wall[sc[eng.S_FRONT] : sc[eng.S_BACK] + 1].copy()
        if sc[eng.S_WALL] == eng.WALL_SEAT_STABLE and self.player == 1:  # seat 1 draws from the back
            wall = wall[::-1].copy()
        return opp, wall

    def policy_stream(self, player: int | None = None) -> np.ndarray:
        """The uint64[1] random stream of ``player``'s policy (the engine's own: drawing advances it)."""
        p = self.player if player is None else check_int(player, "player", 0, 1)
        return self._T.rng[1 + p : 2 + p]

    # -- stepping -------------------------------------------------------------------------------

    def apply(self, action: int) -> "GameState":
        """Play the deciding player's ``action`` and advance to the next decision or the hand's end.

        Raises :class:`~simkit.play.runtime.EngineError` (naming the player, the phase, the tile,
        the action and the legal actions) for an action that is not legal; the state is unchanged.
        """
        if self.over:
            raise InputValueError("the hand is over: no action to apply (next_hand() goes on to the next)")
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise InputValueError(f"an action is an integer code (simkit.engine.actions), got {action!r}")
        action = int(action)
        if not 0 <= action < A.N_ACTIONS or not self._T.legal[action]:
            raise EngineError(self._illegal_text(action, "this state"))
        self._call(eng.OP_STEP, action=action)
        if self.error:
            raise EngineError(self.error_text("this state"))
        return self

    def next_hand(self) -> bool:
        """After a hand of a match (:meth:`new_match`) is over: deal the match's next hand; False
        (and :attr:`match_over`) when the match has ended."""
        if not self.over:
            raise InputValueError("the hand is not over yet")
        if self.error:
            raise InputValueError("the hand stopped on an engine error")
        if self.match_over:
            return False
        return bool(self._call(eng.OP_NEXT_HAND))

    def play_out(self, policy0="greedy", policy1="greedy") -> "GameState":
        """Play the hand to its end with the two players' policies (names, jitted functions,
        ``(function, params)``, or plain Python callables ``policy(view, legal, params, rng)``).

        Jitted and built-in policies run in the compiled engine (the kernel that plays matches);
        with a plain Python policy every decision is asked from Python."""
        return self._play_out_with(resolve_policy(policy0, self.rules), resolve_policy(policy1, self.rules))

    def _play_out_with(self, call0, call1) -> "GameState":
        """:meth:`play_out` with the policies already resolved: ``(function, params)`` each, the
        params as the policy receives them."""
        (f0, p0), (f1, p1) = call0, call1
        if is_jitted(f0) and is_jitted(f1):
            if int(self._T.sc[eng.S_PHASE]) == A.PHASE_OVER:
                return self
            _, n_hands, errors, error_legal, _, _, _ = run_matches(
                self.spec, f0, p0, f1, p1, 0, 0, 1, False, state=self._T
            )
            if errors[0, 0]:
                code, action, player, phase, tile = (int(v) for v in errors[0])
                raise EngineError(error_text(code, action, "this state", player, phase, tile, error_legal[0]))
            return self
        calls = ((f0, p0), (f1, p1))
        while not self.over:
            p = self.player
            f, params = calls[p]
            self.apply(f(self.view(), self.legal, params, self.policy_stream()))
        return self

    # -- results --------------------------------------------------------------------------------

    @property
    def error(self) -> int:
        """0, or the ERR_* code that stopped the hand."""
        return int(self._T.sc[eng.S_ERROR])

    def error_text(self, where: str) -> str:
        sc = self._T.sc
        return error_text(
            self.error,
            int(sc[eng.S_ERROR_INFO]),
            where,
            int(sc[eng.S_PLAYER]),
            int(sc[eng.S_ERROR_PHASE]),
            int(sc[eng.S_TILE]),
            self._T.legal,
        )

    def _illegal_text(self, action, where):
        return error_text(eng.ERR_ILLEGAL_ACTION, action, where, self.player, self.phase, self.tile, self._T.legal)

    @property
    def row(self) -> dict:
        """The hand's result row (the columns of :func:`simkit.simulate_matches`), once it is over."""
        return self.record().row

    def record(self):
        """The hand as a :class:`~simkit.play.runtime.HandRecord` (row, events, wall, items)."""
        if int(self._T.sc[eng.S_PHASE]) != A.PHASE_OVER or self.error:
            raise InputValueError(
                "the hand is not over yet" if not self.over else "the hand stopped on an engine error"
            )
        T = self._T
        items = np.asarray(T.items, self.spec.item_dtype)
        return hand_record(
            self.spec, T.row, items, T.row_floats, T.row_hand, T.row_melds, T.log, int(T.sc[eng.S_NLOG]), T.wall
        )

    def result_arrays(self):
        """The hand's row as the engine's column buffers (ints, items, floats, hand, melds)."""
        T = self._T
        return (
            T.row.copy(),
            np.array(T.items, self.spec.item_dtype),
            T.row_floats.copy(),
            T.row_hand.copy(),
            T.row_melds.copy(),
        )

    def events(self) -> list:
        """The hand's events so far: (event name, player, tile kind or -1, extra)."""
        T = self._T
        return [(eng.EVENT_NAMES[int(k)], int(p), int(t), int(e)) for k, p, t, e in T.log[: int(T.sc[eng.S_NLOG])]]

    def lines(self) -> list[str]:
        """The finished hand's events in tile notation (as ``simkit replay`` prints them)."""
        return self.record().lines()

    def __repr__(self) -> str:
        if self.over:
            return f"<GameState {self.rules.name}: hand over{' (error)' if self.error else ''}>"
        return (
            f"<GameState {self.rules.name}: player {self.player} to act, {A.PHASE_NAMES[self.phase]}, "
            f"{len(self.legal_actions())} legal actions>"
        )

    # -- the engine call ------------------------------------------------------------------------

    def _call(self, op, action=0, seed=0, match=0):
        engine = engine_for(self.spec)
        return engine.step_kernel(
            op,
            self._T,
            self._template,
            self._tables,
            self.spec.game,
            self.spec.sp,
            int(action),
            np.uint64(seed),
            int(match),
        )
