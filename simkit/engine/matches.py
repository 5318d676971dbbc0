"""``simulate_matches``, ``replay``, ``play_hand``: whole matches of any rule set on all cores,
results as numpy columns (the engine: :mod:`simkit.engine.game`; each rule set's data and settle
function: :mod:`simkit.engine.rulesets`)."""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..errors import InputTypeError, InputValueError, SimkitError, check_flag, check_int, show
from ..hand.tables import hand_tables, hand_tables_stand_in
from ..rules import resolve_rules
from . import game as eng
from .actions import N_ACTIONS, View
from .compiled import compile_ahead, engine_of, prepared
from .deal import wall_template
from .policies import POLICIES, greedy_policy, random_policy
from .rulesets import engine_spec

__all__ = ["EngineError", "simulate_matches", "resolve_policy", "replay", "play_hand", "HandRecord"]


def resolve_policy(policy, rules):
    """``(function, params float64[])`` of a policy given as text (``"greedy{declare=0}"``,
    ``"mymodule:my_policy{x=1}"``), a function, ``(function, {name: value})``,
    ``(function, params)`` or a :class:`~simkit.engine.policy_spec.Policy`
    (:func:`~simkit.engine.policy_spec.as_policy`; every parameter checked), playing ``rules``
    (a rule-set name or Rules object: a policy that reads the rule set gets its data appended,
    :meth:`~simkit.engine.policy_spec.Policy.engine_params`).

    The function is jitted (run inside the engine) or a plain Python callable with the same
    signature (asked from Python at every decision: slower, the same games)."""
    from .policy_spec import as_policy

    p = as_policy(policy)
    return p.function, p.engine_params(resolve_rules(rules))


def _check_fn(fn):
    """``fn`` if it can be a policy: callable with ``(view, legal, params, rng)`` (checked on the
    Python function, jitted or not, before anything is compiled)."""
    if not callable(fn) or isinstance(fn, type):
        raise InputValueError(
            f"a policy must be a built-in name, a jitted function (simkit.jit / numba.njit) or a Python "
            f"function policy(view, legal, params, rng) -> action, got {fn!r}"
        )
    import inspect

    py = getattr(fn, "py_func", fn)
    try:
        inspect.signature(py).bind(None, None, None, None)
    except TypeError:
        raise InputValueError(
            f"policy {_where(py)} takes (view, legal, params, rng) and returns an action; it takes {inspect.signature(py)}"
        ) from None
    except ValueError:
        pass  # no signature to check (some builtins)
    return fn


def _where(py) -> str:
    """``name (file:line)`` of a Python function."""
    import inspect

    name = getattr(py, "__qualname__", getattr(py, "__name__", repr(py)))
    try:
        return f"{name} ({inspect.getsourcefile(py)}:{inspect.getsourcelines(py)[1]})"
    except (OSError, TypeError):
        return name


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def compile_policy(fn, spec) -> None:
    """Compile a jitted policy for this rule set's engine (its function-pointer signature) now, so
    that a policy that does not compile fails here with a few lines -- the policy, the file and
    line, the problem numba found -- instead of numba's whole report from inside the engine (that
    report goes to the ``simkit`` logger at DEBUG level, and into the error with ``SIMKIT_DEBUG=1``)."""
    import logging
    import os

    from numba.core import errors as nerrors

    if not _jitted(fn) or fn in _BUILT_IN:
        return
    sig = policy_type(spec).signature
    if any(s == sig.args for s in fn.signatures):
        return
    try:
        fn.compile(sig.args)
    except (nerrors.TypingError, nerrors.UnsupportedError, nerrors.LoweringError, nerrors.NumbaError) as exc:
        full = _ANSI.sub("", str(exc))
        logging.getLogger("simkit").debug("numba's report on policy %s:\n%s", _where(fn.py_func), full)
        raise PolicyCompileError(_short_report(fn.py_func, full) + (f"\n{full}" if os.environ.get("SIMKIT_DEBUG") else "")) from None
    from numba import types

    cres = fn.overloads.get(sig.args)
    if cres is not None and not isinstance(cres.signature.return_type, types.Integer):
        raise PolicyCompileError(
            f"policy {_where(fn.py_func)} returns {cres.signature.return_type}, not an action (an integer)"
        )


def _short_report(py, text: str) -> str:
    """The first problem of numba's report and where it is: 'policy NAME (file:line) does not compile:
    <problem> / at file:line: <source line>'."""
    lines = [ln.rstrip() for ln in text.splitlines()]
    body = [ln for ln in lines if ln.strip() and not ln.startswith(("Failed in", "During:", "No implementation", "- Resolution"))]
    problem = next((ln.strip() for ln in body if not ln.lstrip().startswith(("File ", "def ", "<source", "^"))), "see numba's report")
    problem = re.sub(r"of type View\(.*", "of the View (see simkit.engine.actions.View for its fields)", problem)
    problem = re.sub(r"NamedUniTuple\(.*|HandTables\(.*", "...", problem)
    if len(problem) > 300:
        problem = problem[:297] + "..."
    loc = ""
    for i, ln in enumerate(lines):
        m = re.match(r'\s*File "(.+)", line (\d+):', ln)
        if m:
            src = ""
            for nxt in lines[i + 1 : i + 5]:
                if nxt.strip() and not nxt.strip().startswith(("def ", "<source", "^")):
                    src = nxt.strip()
            loc = f"\n  at {m.group(1)}:{m.group(2)}" + (f": {src}" if src else "")
            break
    return f"policy {_where(py)} does not compile: {problem}{loc}\n  (numba's full report: SIMKIT_DEBUG=1, or the 'simkit' logger at DEBUG)"


def _write_text(path, text: str) -> None:
    """Write ``text`` to the file ``path`` whole or not at all (a temporary file beside it, then
    renamed); a path that cannot be written is a one-line error naming it and why."""
    import os
    from pathlib import Path

    try:
        target = Path(os.fspath(path))
    except TypeError:
        raise InputTypeError(f"a file path is a str or os.PathLike, got {show(path)}") from None
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        if target.is_dir():
            raise IsADirectoryError(21, "it is a directory")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    except OSError as exc:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise InputValueError(f"cannot write {show(str(target), 200)}: {exc.strerror or exc}") from None


class PolicyCompileError(SimkitError, TypeError):
    """A jitted policy that numba cannot compile for the engine."""


def _jitted(fn) -> bool:
    return hasattr(fn, "py_func")


class EngineError(SimkitError, RuntimeError):
    """The engine stopped a match: a policy returned an illegal action, or an invariant broke."""


def _error_text(code: int, detail: int, where: str, player=None, phase=None, tile=None, legal=None) -> str:
    """The message of an engine error; for an illegal action it names the player, the phase, the
    tile concerned, the action and the legal actions."""
    from ..tiles import tile_name
    from .actions import PHASE_NAMES, action_name

    text = eng.ERROR_MESSAGES[code] if 0 < code < len(eng.ERROR_MESSAGES) else f"engine error {code}"
    if code in (eng.ERR_ILLEGAL_ACTION, eng.ERR_FALSE_WIN) and player is not None:
        try:
            what = action_name(detail)
        except ValueError:
            what = f"code {detail}, not an action"
        phase_text = PHASE_NAMES[phase] if 0 <= phase < len(PHASE_NAMES) else f"phase {phase}"
        text = f"a policy returned an illegal action: player {player} chose {what} ({phase_text}"
        if tile is not None and tile >= 0:
            text += f", tile {tile_name(tile)}"
        text += ")"
        if legal is not None:
            text += "; legal: " + ", ".join(action_name(a) for a in np.flatnonzero(legal))
        if code == eng.ERR_FALSE_WIN:
            text += " (the hand is not complete)"
    elif code == eng.ERR_ILLEGAL_ACTION and detail >= 0:
        try:
            text += f" ({action_name(detail)})"
        except ValueError:
            text += f" (code {detail})"
    return f"{text} in {where}"


def _common(rules, policies, deal=None, wall=None):
    spec = engine_spec(resolve_rules(rules), deal, wall)
    if isinstance(policies, (str, bytes)) or not hasattr(policies, "__len__"):
        raise InputValueError(f"policies must be a pair of policies (one per player), got {policies!r}")
    if len(policies) != 2:
        raise InputValueError(f"policies must name two players' policies, got {len(policies)}")
    (f0, p0), (f1, p1) = resolve_policy(policies[0], spec.rules), resolve_policy(policies[1], spec.rules)
    compile_policy(f0, spec)
    compile_policy(f1, spec)
    return spec, f0, p0, f1, p1


_BUILT_IN = {random_policy: eng.POLICY_RANDOM, greedy_policy: eng.POLICY_GREEDY}


def _calls(f0, f1):
    """``(kinds int64[2], fn0, fn1)``: how the engine calls each player's policy (random
    directly, greedy and any other through its function pointer; an unused pointer is the random
    policy)."""
    kinds = np.array([_BUILT_IN.get(f0, eng.POLICY_FUNCTION), _BUILT_IN.get(f1, eng.POLICY_FUNCTION)], np.int64)
    unused = eng.POLICY_RANDOM
    return kinds, (random_policy if kinds[0] == unused else f0), (random_policy if kinds[1] == unused else f1)


_policy_types: dict = {}


def policy_type(spec):
    """The numba first-class function type of a policy of this rule set's engine:
    ``int64(View, bool[::1], float64[::1], uint64[::1])``."""
    import numba
    from numba import types

    name = spec.rules.name
    if name not in _policy_types:
        # arrays of the types of the Table's rows the engine's views are made of (game.new_table:
        # hand uint8[2, 34], melds int8[2, 4, 2], river int8[2, MAX_RIVER], counters float64[2, N_COUNTERS]);
        # plain numpy here, so that the type costs no compile (the compile-ahead helper starts with it),
        # and the hand tables' stand-ins, so that it needs no tables built
        hand, melds = np.zeros(34, np.uint8), np.zeros((4, 2), np.int8)
        river, counters = np.zeros(eng.MAX_RIVER, np.int8), np.zeros(eng.N_COUNTERS, np.float64)
        view = View(
            0, 0, hand, melds, 0, melds, 0, river, 0, river, 0, 0, 0, 0, 27, 27, True, 0, 0,
            hand_tables_stand_in(spec.rules), 0, counters, 0, 0,
        )
        _policy_types[name] = types.FunctionType(
            types.int64(numba.typeof(view), types.bool_[::1], types.float64[::1], types.uint64[::1])
        )
    return _policy_types[name]


def engine_for(spec):
    """The compiled engine instance of a rule set (:func:`simkit.engine.compiled.engine_of`)."""
    return engine_of(spec.settle)


_pool = None
_pool_lock = threading.Lock()


def _threads() -> int:
    """Threads that play matches: numba's thread count (``NUMBA_NUM_THREADS``, all cores by default)."""
    import numba

    return max(1, int(numba.get_num_threads()))


def _executor(n: int):
    global _pool
    with _pool_lock:
        if _pool is None or _pool._max_workers != n:
            _pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="simkit-engine")
        return _pool


#: Decision-log rows a block's Table gets per match before any block of the rule set has been
#: played in this process (then: the most seen per match, with a margin). A block whose log overflows
#: is played again with room for all of its decisions (the games are deterministic).
DECISION_ROWS_PER_MATCH = 512
_decision_rates: dict = {}  # rule set name -> most decisions per match seen in a block


def _decision_capacity(key, n_matches: int) -> int:
    """Rows of the decision log of a block of ``n_matches`` matches of rule set ``key``."""
    rate = _decision_rates.get(key, DECISION_ROWS_PER_MATCH)
    return max(64, int(n_matches * rate * 1.25))


def _run_matches(spec, f0, p0, f1, p1, seed, start, n_matches, check, log_hand=-1, state=None, decisions=False):
    """Call the engine's match kernel (whole matches, or with ``state`` the hand of that Table
    from its decision); returns (rows, n_hands, errors, error_legal, wall, log, n_log), ``rows``
    the result arrays (ints, items, floats, hands, melds) of every hand played, match by match
    (:func:`_rows_played`), and with
    ``decisions`` (whole matches only) an eighth item: the decision log ``(ints int64[n, N_DECISION_INT],
    counters float64[n, N_COUNTERS])`` in the order played.

    Whole matches run in blocks on all threads: the kernel releases the GIL, each block plays on a
    Table of its own, and a match's rows depend only on (seed, match), so the split never changes them.
    With ``decisions`` each block's Table gets a decision log (:func:`_decision_capacity` rows); a
    block whose log overflows is played again, from a fresh Table, with room for every decision.
    """
    engine = engine_for(spec)
    from_state = state is not None
    if from_state:
        log_hand = -1
        if n_matches != 1:
            raise InputValueError("a hand from a given state is played once")
    if decisions and (from_state or log_hand >= 0):
        raise InputValueError("decisions are logged for whole matches only")
    kinds, fn0, fn1 = _calls(f0, f1)
    per_match = 1 if from_state else spec.max_hands  # rows a match may need: a block's capacity
    bufs = _buffers(spec, n_matches * per_match, empty=log_hand < 0 and not from_state)
    n_hands = np.zeros(n_matches, np.int64)
    errors = np.zeros((n_matches, 5), np.int64)
    error_legal = np.zeros((n_matches, N_ACTIONS), np.bool_)
    template = wall_template(spec.rules)
    wall = np.zeros(len(template) if log_hand >= 0 else 0, np.int8)
    log = np.zeros((eng.MAX_LOG if log_hand >= 0 else 0, 4), np.int64)
    n_log = np.zeros(1, np.int64)

    def args_of(a: int, b: int) -> tuple:
        if from_state:
            table = state  # played in place
        else:
            table = eng.new_table(len(template), spec.items_proto)
            table.sc[eng.S_CHECK] = 1 if check else 0
        return (
            table, np.uint64(seed), int(start + a), int(b - a), template, tables, spec.game, spec.sp, kinds, fn0, fn1,
            p0, p1, int(log_hand), from_state, *(x[a * per_match : b * per_match] for x in bufs), n_hands[a:b], errors[a:b],
            error_legal[a:b], wall, log, n_log,
        )

    greedy = greedy_policy in (fn0, fn1)
    # on a cold start the helper starts first, on the other core, and compiles while this process
    # builds the hand tables (the helper needs only their types)
    with compile_ahead(engine.play_matches_kernel, spec.rules.name, greedy, prepare=lambda: hand_tables(spec.rules)):
        tables = hand_tables(spec.rules)
        kernel = prepared(engine.play_matches_kernel, args_of(0, 1), (9, 10), policy_type(spec))  # compiles or loads, once
        if greedy:  # greedy compiled on the other core meanwhile (on a cold start): loaded here
            greedy_policy.compile(policy_type(spec).signature.args)

    def run(a: int, b: int):
        if not decisions:
            return kernel(*args_of(a, b))
        key = spec.rules.name
        capacity = _decision_capacity(key, b - a)
        while True:
            args = args_of(a, b)
            table = args[0]._replace(
                decisions=np.zeros((capacity, eng.N_DECISION_INT), np.int64),
                decision_counters=np.zeros((capacity, eng.N_COUNTERS), np.float64),
            )
            table.sc[eng.S_DECISIONS] = 1
            kernel(table, *args[1:])
            count = int(table.sc[eng.S_N_DECISIONS])
            if count <= capacity:
                _decision_rates[key] = max(_decision_rates.get(key, 0), count / (b - a))
                return table.decisions[:count], table.decision_counters[:count]
            capacity = count  # overflowed: the same games again, with room for every decision

    threads = _threads()
    if n_matches == 1 or threads == 1 or log_hand >= 0 or from_state:
        starts = [0]
        logs = [run(0, n_matches)]
    else:
        # four blocks per thread, handed out in order: an even finish, and the per-call cost
        # (a Table, unboxing the arguments under the GIL) stays near 1% of a block
        size = max(16, -(-n_matches // (4 * threads)))
        starts = list(range(0, n_matches, size))
        futures = [
            _executor(threads).submit(lambda a=a: run(a, min(a + size, n_matches)))
            for a in range(0, n_matches, size)
        ]
        logs = [future.result() for future in futures]
    out = (_rows_played(bufs, n_hands, per_match, starts), n_hands, errors, error_legal, wall, log, int(n_log[0]))
    if not decisions:
        return out
    return out + ((np.concatenate([x for x, _ in logs]), np.concatenate([c for _, c in logs])),)


def _rows_played(bufs, n_hands, per_match, starts) -> tuple:
    """The rows the match kernel played, in match order: each block of matches (starting at the
    matches ``starts``) wrote its rows from the start of its region of the buffers
    (``per_match`` rows per match of capacity); the one block's rows are a view, several blocks'
    are joined (one copy)."""
    n = len(n_hands)
    ends = starts[1:] + [n]
    used = [(a * per_match, a * per_match + int(n_hands[a:b].sum())) for a, b in zip(starts, ends)]
    if len(used) == 1:
        return tuple(x[: used[0][1]] for x in bufs)
    return tuple(np.concatenate([x[lo:hi] for lo, hi in used]) for x in bufs)


def _raise_first_error(errors, error_legal, n_hands, start, seed):
    bad = np.flatnonzero(errors[:, 0])
    if len(bad):
        i = int(bad[0])
        h = int(n_hands[i]) - 1
        code, action, player, phase, tile = (int(v) for v in errors[i])
        raise EngineError(
            _error_text(code, action, f"match {start + i}, hand {h} (seed {seed})", player, phase, tile, error_legal[i])
        )


def _buffers(spec, *shape, empty=False):
    """Result buffers of ``shape`` rows: ints, items, floats, hands, melds; zeroed, or with
    ``empty`` uninitialised (the match kernel zeroes each row it plays, so the pages of rows never
    played are never touched)."""
    alloc = np.empty if empty else np.zeros
    return (
        alloc(shape + (eng.N_RESULT_INT,), np.int64),
        alloc(shape + (len(spec.item_names),), spec.item_dtype),
        alloc(shape + (eng.N_RESULT_FLOAT,), np.float64),
        alloc(shape + (34,), np.uint8),
        alloc(shape + (4, 2), np.int8),
    )


def _decision_columns(ints, counters) -> dict:
    """The decision log (:data:`~simkit.engine.game.DECISION_FIELDS` int64 columns and the counters)
    as the columns :func:`simulate_matches` returns with ``decisions=True``, in the order played."""
    ints = np.asarray(ints, np.int64).reshape(-1, eng.N_DECISION_INT)
    match = ints[:, eng.D_MATCH].copy()
    hand = ints[:, eng.D_HAND]
    deal_id = (match << 16) | hand
    n = len(match)
    first = np.ones(n, np.bool_)
    first[1:] = deal_id[1:] != deal_id[:-1]
    starts = np.flatnonzero(first)
    step = np.arange(n, dtype=np.int64) - np.repeat(starts, np.diff(np.append(starts, n)))
    out = {"deal_id": deal_id, "match": match, "hand": hand.astype(np.int16), "step": step.astype(np.int16)}
    dtypes = {"player": np.int8, "phase": np.int8, "tile": np.int8, "action": np.int16, "n_legal": np.int16,
              "shanten_before": np.int8, "shanten_after": np.int8}
    for name, dtype in dtypes.items():
        out[name] = ints[:, eng.DECISION_FIELDS.index(name)].astype(dtype)
    counters = np.asarray(counters, np.float64).reshape(-1, eng.N_COUNTERS)
    for i in range(eng.N_COUNTERS):
        out[f"counter_{i}"] = counters[:, i].copy()
    return out


def _rows(ints, items, floats, hands, melds):
    out = {name: ints[:, i] for i, name in enumerate(eng.RESULT_FIELDS)}
    for i, name in enumerate(eng.FLOAT_FIELDS):
        out[name] = floats[:, i]
    out["items"] = items
    out["win_hand"] = hands
    out["win_melds"] = melds
    return out


def simulate_matches(
    rules="douque",
    policies: Sequence = ("greedy", "greedy"),
    n_matches: int = 1000,
    seed: int = 0,
    *,
    start: int = 0,
    check: bool = False,
    duplicate: bool = False,
    deal: str | None = None,
    wall: str | None = None,
    decisions: bool = False,
) -> dict:
    """Play ``n_matches`` complete matches and return one row per hand.

    A douque match is four rounds (douque.md §4); a night_market, duel or for_two match is
    ``match_hands`` hands (rule option, 16 by default), and a duel match also ends when a player
    has no chips left (option ``chips``).

    Parameters
    ----------
    rules : str or Rules
        ``"douque"``, ``"night_market"``, ``"duel"`` or ``"for_two"`` (with any options).
    policies : pair
        Player 0's and player 1's policies: a built-in name (``"random"``, ``"greedy"``), a
        jitted policy function, or ``(function, params)``.
    n_matches : int
    seed : int
        Master seed; match ``i`` uses streams derived from ``(seed, start + i)`` only, so results do
        not depend on thread count or on how matches are split into calls.
    start : int
        Index of the first match (to continue a run).
    check : bool
        Check invariants (tiles conserved, hand sizes, kept-back tiles, payments zero-sum after
        fees and chips never below zero) after every step; slower.
    duplicate : bool
        Play every match twice: copy 0 with ``policies``, copy 1 with the seats swapped, on the same
        streams; the rows get a ``copy`` column (0 or 1) and come in (match, copy, hand) order.
    deal, wall : str, optional
        The wall design (:func:`simkit.engine.rulesets.wall_design`): ``deal="seat"`` (default: each
        seat's tiles from its own stream, so in a duplicate run the tiles follow the policies) or
        ``"dealer"`` (the original deal), ``wall="stable"`` (default with the deal "seat": each seat
        draws from its own stream) or ``"shared"``.
    decisions : bool
        Also log every decision taken: the result gets a ``"decisions"`` entry (below). The games
        and the rows are the same either way.

    Returns
    -------
    dict of numpy arrays, one entry per hand (every rule set has every column; a column that does
    not apply to the rule set is 0):

    * ``match``, ``hand``, ``prevailing_wind`` (kind; always East outside douque), ``dealer``,
      ``streak`` (hands the dealer has kept the deal), ``seat_wind_0`` (player 0's seat wind kind),
      ``dealer_turn`` (douque: 0 first, 1 second dealer of the round; elsewhere the parity of the
      dealer changes so far);
    * ``winner`` (-1 on a draw or a fold), ``payer`` (-1 on a draw; on a fold the opponent, who pays
      the banker), ``win_type`` (0 draw, 1 self-drawn, 2 discard, 3 robbed kong, 4 for_two fold),
      ``win_tile``;
    * the value of the win: ``hand_tai`` and ``dealer_tai`` (douque), ``fan`` (night_market, duel),
      ``multiple`` (duel: ``min(2^(fan-1), multiple_cap)``), ``combination_points`` (for_two,
      float), ``bid`` (for_two: the banker's bid 1-3);
    * payments (float): ``points`` (what the payer paid the winner for the win -- for_two's fold:
      the fold payment to the banker -- after duel's chip limit), ``kong_payment_0`` /
      ``kong_payment_1`` (duel: what each player received for their kongs), ``score_0`` /
      ``score_1`` (what each player received from the opponent minus what they paid them, win and
      kong payments together: ``score_1 == -score_0``), ``fee_0`` / ``fee_1`` (duel: the fee each
      paid on what they received), ``balance_0`` / ``balance_1`` (each player's result in the match
      after this hand, ``sum(score - fee)``; with ``chips`` a player has ``chips + balance`` left,
      counted exactly in whole money units: :func:`simkit.rules.duel.money_unit`);
    * ``turns`` (decisions), ``tiles_left`` (drawable tiles left), ``kongs_*``, ``declared_*``
      (douque: 0/1 ready/2 MIGI), ``skipped_wins_*`` (douque);
    * ``items`` ([n_hands, N_ITEMS], the rule set's item columns in the order of
      :func:`simkit.scoring.item_names_of`; int16, float64 for for_two; zeros without a winner),
      ``win_hand`` (uint8[n_hands, 34], the winner's concealed tiles with the winning tile; zeros
      without a winner) and ``win_melds`` (int8[n_hands, 4, 2], the winner's melds as (type code
      of :mod:`simkit.melds`, kind; a chow's lowest kind), -1 in unused slots and without a winner).

    With ``decisions=True``, ``"decisions"``: a dict of numpy columns, one entry per decision taken,
    in the order played (with ``duplicate``: (match, copy, hand) order and a ``copy`` column):
    ``deal_id`` (``match << 16 | hand``, as the runs' rows), ``match``, ``hand``, ``step`` (the
    decision's index in its hand; a hand's decisions number its ``turns``), ``player`` (the deciding
    player), ``phase`` (``PHASE_*`` of :mod:`simkit.engine.actions`), ``tile`` (the tile concerned:
    the drawn tile, the opponent's discard or added tile; -1 if none), ``action`` (the action code),
    ``n_legal`` (legal actions), ``shanten_before`` / ``shanten_after`` (the deciding player's
    shanten at the decision and right after the action, before any draw it leads to; -1 after a win:
    :func:`simkit.engine.game.decision_stats`), ``counter_0`` .. ``counter_3`` (what the policy
    wrote in ``view.counters``; 0 otherwise).
    """
    spec, f0, p0, f1, p1 = _common(rules, policies, deal, wall)
    for name, value in (("n_matches", n_matches), ("seed", seed), ("start", start)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < (1 if name == "n_matches" else 0):
            raise InputValueError(f"{name} must be {'a positive' if name == 'n_matches' else 'a non-negative'} integer, got {show(value)}")
    _check_ids(seed, start, n_matches)
    check_flag(check, "check")
    if not isinstance(duplicate, (bool, np.bool_)):
        raise InputValueError(f"duplicate must be True or False, got {show(duplicate)}")
    check_flag(decisions, "decisions")
    _check_memory(spec, n_matches * (2 if duplicate else 1))
    if not duplicate:
        return _simulate_copy(spec, (f0, p0), (f1, p1), n_matches, seed, start, check, decisions)
    copies = [_simulate_copy(spec, *calls, n_matches, seed, start, check, decisions)
              for calls in (((f0, p0), (f1, p1)), ((f1, p1), (f0, p0)))]
    logs = [rows.pop("decisions") for rows in copies] if decisions else None
    out = _interleave_copies(copies)
    if decisions:
        out["decisions"] = _interleave_copies(logs)
    return out


def _interleave_copies(copies) -> dict:
    """The columns of the two copies of a duplicate call with a ``copy`` column, in (match, copy,
    original) order."""
    for c, rows in enumerate(copies):
        rows["copy"] = np.full(len(rows["match"]), c, np.int8)
    order = np.lexsort((np.concatenate([np.arange(len(r["match"])) for r in copies]),
                        np.concatenate([r["copy"] for r in copies]), np.concatenate([r["match"] for r in copies])))
    return {name: np.concatenate([r[name] for r in copies])[order] for name in copies[0]}


def _check_ids(seed, start, n_matches=1, what="start") -> None:
    """Seeds and match ids are below 2**63 (the match column is int64; the streams' counters)."""
    if seed >= 2**63:
        raise InputValueError(f"seed must be below 2**63, got {show(seed)}")
    if start + n_matches > 2**63:
        raise InputValueError(
            f"match ids must stay below 2**63: {what}={show(start)} with n_matches={show(n_matches)} goes beyond"
        )


def _check_memory(spec, n_matches: int) -> None:
    """Refuse, in one line, a call whose result rows cannot fit in this machine's memory."""
    import os

    row = 8 * (eng.N_RESULT_INT + eng.N_RESULT_FLOAT) + 8 * len(spec.item_names) + 34 + 8
    need = n_matches * spec.max_hands * row
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return
    if need > total:
        raise InputValueError(
            f"n_matches={n_matches:,} needs up to {need / 2**30:,.1f} GiB of result rows, more than this machine's "
            f"{total / 2**30:,.1f} GiB; play them in smaller calls (start= continues a run)"
        )


def _simulate_copy(spec, call0, call1, n_matches, seed, start, check, decisions=False) -> dict:
    """The rows of :func:`simulate_matches` for one seating."""
    (f0, p0), (f1, p1) = call0, call1
    if not (_jitted(f0) and _jitted(f1)):
        return _simulate_in_python(spec, call0, call1, n_matches, seed, start, check, decisions)
    bufs, n_hands, errors, error_legal, _, _, _, *log = _run_matches(
        spec, f0, p0, f1, p1, seed, start, n_matches, check, decisions=decisions
    )
    _raise_first_error(errors, error_legal, n_hands, start, seed)
    rows = _rows(*bufs)
    if decisions:
        rows["decisions"] = _decision_columns(*log[0])
    return rows


def _play_out_logged(state, calls, log) -> None:
    """``state.play_out`` with Python policies, logging each decision into ``log`` (a list of
    (int64[N_DECISION_INT] row, float64[N_COUNTERS] counters)) as the engine logs it."""
    while not state.over:
        f, params = calls[state.player]
        view = state.view()
        action = f(view, state.legal, params, state.policy_stream())
        row = state._decision_row(action)
        if row is not None:
            log.append((row, np.array(view.counters, np.float64)))
        state.apply(action)


def _simulate_in_python(spec, call0, call1, n_matches, seed, start, check, decisions=False) -> dict:
    """:func:`simulate_matches` with a plain Python policy: every decision asked from Python
    through the step API (:class:`~simkit.engine.state.GameState`), the same engine and streams."""
    from .state import GameState

    rows = []
    log = []
    for i in range(n_matches):
        state = GameState.new_match(spec, seed, start + i, check=check)
        while True:
            try:
                if decisions:
                    _play_out_logged(state, (call0, call1), log)
                else:
                    state._play_out_with(call0, call1)
            except EngineError as exc:
                h = int(state._T.sc[eng.S_HAND_NUMBER])
                raise EngineError(str(exc).replace("this state", f"match {start + i}, hand {h} (seed {seed})")) from None
            rows.append(state.result_arrays())
            if not state.next_hand():
                break
    bufs = _buffers(spec, len(rows))
    for j, row in enumerate(rows):
        for b, v in zip(bufs, row):
            b[j] = v
    out = _rows(*bufs)
    if decisions:
        out["decisions"] = _decision_columns(
            np.array([r for r, _ in log], np.int64).reshape(-1, eng.N_DECISION_INT),
            np.array([c for _, c in log], np.float64).reshape(-1, eng.N_COUNTERS),
        )
    return out


@dataclass(frozen=True)
class HandRecord:
    """One hand's result row and its events, as replayed or played from a given wall."""

    row: dict  #: the hand's columns, as :func:`simulate_matches` returns them (scalars; arrays for win_hand / win_melds)
    events: list  #: (event name, player, tile kind or -1, extra)
    wall: np.ndarray  #: the hand's wall as dealt (kinds; in the layout of its wall design)
    items: dict  #: the winner's scored items
    rule_set: str = "douque"  #: name of the rule set played
    wall_design: int = eng.WALL_DEALER_FIRST  #: how the wall was dealt (``WALL_*`` of :mod:`simkit.engine.game`)

    def event_table(self):
        """The events as a DataFrame, with both players' tiles, melds, rivers, shanten and waits
        after each (:func:`simkit.engine.display.event_table` documents the columns)."""
        from .display import event_table

        return event_table(self)

    def to_html(self, path=None) -> str:
        """The hand as a standalone HTML page (tiles drawn as SVG, one row per event); written to
        ``path`` when given. Returns the page."""
        from .display import render_html

        page = render_html(self)
        if path is not None:
            _write_text(path, page)
        return page

    def _repr_html_(self) -> str:  # Jupyter shows a record as its hand
        from .display import render_html

        return render_html(self, standalone=False)

    def lines(self) -> list[str]:
        """The events in tile notation, one per line, as ``simkit replay`` prints them."""
        from ..tiles import format_tiles, tile_name

        wind = {27: "East", 28: "South", 29: "West", 30: "North"}
        row = self.row
        dealer = int(row["dealer"])
        dealt = eng.dealt_hands(self.wall, dealer, self.wall_design)
        seat0 = int(row["seat_wind_0"])
        seats = [wind.get(seat0, "?"), "West" if seat0 == 27 else "East"]
        if self.rule_set == "douque":
            head = f"{wind.get(int(row['prevailing_wind']), '?')} round, dealer player {dealer}, streak {int(row['streak'])}"
            who = [f"player 0 ({seats[0]})", f"player 1 ({seats[1]})"]
        else:
            head = f"{self.rule_set}: dealer player {dealer}, streak {int(row['streak'])}"
            who = ["player 0", "player 1"]
        out = [head, f"deal: {who[0]} {format_tiles(dealt[0])}; {who[1]} {format_tiles(dealt[1])}"]
        for name, player, tile, extra in self.events:
            if name == "deal":
                continue
            tile_text = tile_name(tile) if tile >= 0 else ""
            if name == "declare":
                out.append(f"player {player} declares {'MIGI' if extra == 2 else 'ready'} and discards {tile_text}")
            elif name == "skipped win":
                kinds = [tile_name(k) for k in range(34) if (extra >> k) & 1]
                out.append(f"player {player} skips a win on {tile_text or 'the deal'} (waits {' '.join(kinds)})")
            elif name == "win":
                how = {1: "self-drawn", 2: "on a discard", 3: "robbing the kong"}[extra]
                out.append(f"player {player} wins {how} on {tile_text}")
            elif name == "exhaustive draw":
                out.append(f"exhaustive draw ({extra} drawable tiles left)")
            elif name == "chow":
                run = format_tiles(np.bincount([tile, tile + 1, tile + 2], minlength=34))
                out.append(f"player {player} chows {run} with {tile_name(extra)}")
            elif name == "bid":
                out.append(f"player {player} bids {extra}")
            elif name in ("follow", "fold"):
                out.append(f"player {player} {'follows' if name == 'follow' else 'folds'} (bid {extra})")
            else:
                out.append(f"player {player} {name} {tile_text}")
        if self.items:
            out.append("items: " + ", ".join(f"{k} {v:g}" for k, v in self.items.items()))
        out.extend(self._payment_lines())
        return out

    def _payment_lines(self) -> list[str]:
        row = self.row
        win = int(row["winner"]) >= 0
        pts = float(row["points"])
        if self.rule_set == "douque":
            if not win:
                return []
            return [f"hand tai {int(row['hand_tai'])}, dealer tai {int(row['dealer_tai'])}, payment {pts:g} points"]
        lines = []
        if self.rule_set == "night_market" and win:
            lines.append(f"fan {int(row['fan'])}, payment {pts:g} points")
        elif self.rule_set == "duel":
            if win:
                lines.append(f"fan {int(row['fan'])}, multiple {int(row['multiple'])}: win payment {pts:g}")
            k0, k1 = float(row["kong_payment_0"]), float(row["kong_payment_1"])
            if k0 or k1:
                lines.append(f"kong payments: {k0:g} to player 0, {k1:g} to player 1")
            f0, f1 = float(row["fee_0"]), float(row["fee_1"])
            if f0 or f1:
                lines.append(f"fees: player 0 {f0:g}, player 1 {f1:g}")
        elif self.rule_set == "for_two":
            if int(row["win_type"]) == 4:
                lines.append(f"not played: player {int(row['payer'])} pays the banker {pts:g}")
            elif win:
                lines.append(
                    f"combination points {float(row['combination_points']):g}, bid {int(row['bid'])}: payment {pts:g}"
                )
        if lines or float(row["score_0"]):
            lines.append(f"scores: player 0 {float(row['score_0']):g}, player 1 {float(row['score_1']):g}")
        return lines


def _record(spec, row_ints, items_row, floats_row, hand_row, melds_row, log, n_log, wall) -> HandRecord:
    row = {name: int(row_ints[i]) for i, name in enumerate(eng.RESULT_FIELDS)}
    for i, name in enumerate(eng.FLOAT_FIELDS):
        row[name] = float(floats_row[i])
    row["win_hand"] = np.asarray(hand_row).copy()
    row["win_melds"] = np.asarray(melds_row).copy()
    events = [(eng.EVENT_NAMES[int(k)], int(p), int(t), int(e)) for k, p, t, e in log[:n_log]]
    cast = float if np.issubdtype(spec.item_dtype, np.floating) else int
    items = {name: cast(items_row[i]) for i, name in enumerate(spec.item_names) if items_row[i]}
    return HandRecord(row=row, events=events, wall=np.asarray(wall).copy(), items=items, rule_set=spec.rules.name,
                      wall_design=int(spec.game.wall))


def replay(seed: int, match: int, hand: int, rules="douque", policies: Sequence = ("greedy", "greedy"), *,
           deal: str | None = None, wall: str | None = None) -> HandRecord:
    """Replay hand ``hand`` of match ``match`` of a run with ``seed``: its row and every event.

    The result is identical to what :func:`simulate_matches` did (same rules, wall design, streams
    and policies; the match is replayed from its start, so balances and chips are too).
    """
    spec, f0, p0, f1, p1 = _common(rules, policies, deal, wall)
    for name, value in (("seed", seed), ("match", match), ("hand", hand)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
            raise InputValueError(f"{name} must be a non-negative integer, got {show(value)}")
    _check_ids(seed, match, 1, "match")
    bufs, n_hands, errors, error_legal, wall, log, n_log = _run_matches(
        spec, f0, p0, f1, p1, seed, match, 1, False, log_hand=min(hand, spec.max_hands)
    )
    _raise_first_error(errors, error_legal, n_hands, match, seed)
    if n_hands[0] <= hand:
        n = int(n_hands[0])
        raise InputValueError(f"match {match} of seed {seed} has {n} hand{'s' if n != 1 else ''} (0 to {n - 1}); "
                          f"there is no hand {hand}")
    return _record(spec, *(b[hand] for b in bufs), log, n_log, wall)


def play_hand(
    wall,
    *,
    dealer: int = 0,
    dealer_east: bool = True,
    streak: int = 0,
    prevailing_wind: str = "E",
    rules="douque",
    policies: Sequence = ("greedy", "greedy"),
    seed: int = 0,
    check: bool = True,
) -> HandRecord:
    """Play one hand from a given wall (a scenario): the dealer takes wall[0:14], the opponent
    wall[14:27], draws continue from wall[27] and kong replacements come from the end.

    ``wall``: tile notation in wall order (``"1m 1m 2m ..."`` is read as kinds in the order written)
    or an array of kinds; it must hold exactly the rule set's tiles. Balances start at zero (duel:
    each player has ``chips`` at the table). for_two hands start with the bid and follow decisions.
    """
    from .position import WIND_LETTERS
    from .state import GameState, streak_limit, wall_kinds

    spec, f0, p0, f1, p1 = _common(rules, policies)
    kinds = wall_kinds(wall, spec.rules)  # checked before anything enters numba

    prevailing = WIND_LETTERS.get(prevailing_wind) if isinstance(prevailing_wind, str) else None
    if prevailing is None:
        raise InputValueError(f"prevailing_wind must be one of E, S, W, N, got {show(prevailing_wind)}")
    dealer = check_int(dealer, "dealer", 0, 1)
    streak = check_int(streak, "streak", 0, streak_limit(spec))
    check_flag(dealer_east, "dealer_east")
    check_flag(check, "check")
    seed = check_int(seed, "seed", 0, 2**63 - 1)
    state = GameState.from_wall(
        spec, kinds, dealer=int(dealer), dealer_east=bool(dealer_east), streak=int(streak), prevailing=prevailing,
        seed=seed, check=check,
    )
    if state.error:
        raise EngineError(state.error_text("the hand from the given wall"))
    try:
        state.play_out((f0, p0), (f1, p1))
    except EngineError as exc:
        raise EngineError(str(exc).replace("this state", "the hand from the given wall")) from None
    return state.record()
