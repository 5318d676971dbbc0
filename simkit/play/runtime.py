"""Running the engine's kernels from Python: the policies a match is played with (resolved,
checked, compiled for the rule set's engine, and how the engine calls each), the compiled engine
of a rule set, the threads that play blocks of matches, the result buffers, the engine's errors and
a hand's record. The doors users call (:mod:`simkit.play.matches`, the step API, rollouts, the
luck correction, the environments) are built on it."""

from __future__ import annotations

import logging
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
from numba.core import errors as nerrors

from ..engine import table as eng
from ..engine.actions import N_ACTIONS, PHASE_NAMES, action_name
from ..engine.compiled import compile_ahead, engine_of, policy_type, prepared, search_function, search_type
from ..engine.deal import wall_template
from ..engine.display import event_table, render_html
from ..engine.rulesets import engine_spec
from ..errors import InputTypeError, InputValueError, SimkitError, show
from ..hand.tables import hand_tables
from ..policies.basic import greedy_policy, random_policy
from ..policies.registry import POLICIES  # noqa: F401 -- the built-ins' names resolve once it is imported
from ..policies.search import SearchCall
from ..policies.spec import as_policy, where_defined
from ..rules import require_rules, resolve_rules
from ..tiles import format_tiles, tile_name

__all__ = [
    "resolve_policy",
    "compile_policy",
    "PolicyCompileError",
    "EngineError",
    "is_jitted",
    "error_text",
    "prepare_match",
    "policy_calls",
    "searches",
    "engine_for",
    "thread_count",
    "match_executor",
    "run_matches",
    "result_buffers",
    "result_columns",
    "decision_columns",
    "DECISION_SETTINGS",
    "decisions_setting",
    "raise_first_error",
    "HandRecord",
    "hand_record",
]


def resolve_policy(policy, rules):
    """``(function, params float64[])`` of a policy given as text (``"greedy{declare=0}"``,
    ``"mymodule:my_policy{x=1}"``), a function, ``(function, {name: value})``,
    ``(function, params)`` or a :class:`~simkit.policies.spec.Policy`
    (:func:`~simkit.policies.spec.as_policy`; every parameter checked), playing ``rules``
    (a rule-set name or Rules object: a policy that reads the rule set gets its data appended,
    :meth:`~simkit.policies.spec.Policy.engine_params`).

    The function is jitted (run inside the engine) or a plain Python callable with the same
    signature (asked from Python at every decision: slower, the same games)."""

    p = as_policy(policy)
    fn = SearchCall(p.continuation.function) if p.continuation is not None else p.function
    return fn, p.engine_params(resolve_rules(rules))


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def compile_policy(fn, spec) -> None:
    """Compile a jitted policy for this rule set's engine (its function-pointer signature) now, so
    that a policy that does not compile fails here with a few lines -- the policy, the file and
    line, the problem numba found -- instead of numba's whole report from inside the engine (that
    report goes to the ``simkit`` logger at DEBUG level, and into the error with ``SIMKIT_DEBUG=1``)."""

    if isinstance(fn, SearchCall):
        fn = fn.continuation
    if not is_jitted(fn) or fn in _BUILT_IN:
        return
    sig = policy_type(spec).signature
    where = where_defined(fn.py_func)
    if not any(s == sig.args for s in fn.signatures):
        try:
            fn.compile(sig.args)
        except (nerrors.TypingError, nerrors.UnsupportedError, nerrors.LoweringError, nerrors.NumbaError) as exc:
            full = _ANSI.sub("", str(exc))
            logging.getLogger("simkit").debug("numba's report on policy %s:\n%s", where, full)
            raise PolicyCompileError(
                _short_report(fn.py_func, full) + (f"\n{full}" if os.environ.get("SIMKIT_DEBUG") else "")
            ) from None
        except RuntimeError:  # a dispatcher given fixed signatures compiles no other
            raise PolicyCompileError(
                f"policy {where} is compiled for its declared signatures only, which do not include the engine's "
                "(view, legal bool[::1], params float64[::1], rng uint64[::1]): leave the signature out of its decorator"
            ) from None
    cres = fn.overloads.get(sig.args)
    returns = cres.signature.return_type if cres is not None else None
    if returns != sig.return_type:  # the engine calls it through a pointer of this exact type
        raise PolicyCompileError(
            f"policy {where} returns {returns}, not an action: the engine takes an {sig.return_type} "
            "(a Python int or np.int64)"
        )


def _short_report(py, text: str) -> str:
    """The first problem of numba's report and where it is: 'policy NAME (file:line) does not compile:
    <problem> / at file:line: <source line>'."""
    lines = [ln.rstrip() for ln in text.splitlines()]
    body = [
        ln
        for ln in lines
        if ln.strip() and not ln.startswith(("Failed in", "During:", "No implementation", "- Resolution"))
    ]
    problem = next(
        (ln.strip() for ln in body if not ln.lstrip().startswith(("File ", "def ", "<source", "^"))),
        "see numba's report",
    )
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
    return f"policy {where_defined(py)} does not compile: {problem}{loc}\n  (numba's full report: SIMKIT_DEBUG=1, or the 'simkit' logger at DEBUG)"


def _write_text(path, text: str) -> None:
    """Write ``text`` to the file ``path`` whole or not at all (a temporary file beside it, then
    renamed); a path that cannot be written is a one-line error naming it and why."""

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


def is_jitted(fn) -> bool:
    """Whether the engine runs ``fn`` (a jitted policy, or a search with a jitted continuation)."""
    if isinstance(fn, SearchCall):
        fn = fn.continuation
    return hasattr(fn, "py_func")


class EngineError(SimkitError, RuntimeError):
    """The engine stopped a match: a policy returned an illegal action, or an invariant broke."""


def error_text(code: int, detail: int, where: str, player=None, phase=None, tile=None, legal=None) -> str:
    """The message of an engine error; for an illegal action it names the player, the phase, the
    tile concerned, the action and the legal actions."""

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


def prepare_match(rules, policies, deal=None, wall=None):
    spec = engine_spec(require_rules(rules, "prepare_match"), deal, wall)
    if isinstance(policies, (str, bytes)) or not hasattr(policies, "__len__"):
        raise InputValueError(f"policies must be a pair of policies (one per player), got {policies!r}")
    if len(policies) != 2:
        raise InputValueError(f"policies must name two players' policies, got {len(policies)}")
    (f0, p0), (f1, p1) = resolve_policy(policies[0], spec.rules), resolve_policy(policies[1], spec.rules)
    compile_policy(f0, spec)
    compile_policy(f1, spec)
    return spec, f0, p0, f1, p1


_BUILT_IN = {random_policy: eng.POLICY_RANDOM, greedy_policy: eng.POLICY_GREEDY}


def policy_calls(f0, f1, spec):
    """``(kinds int64[2], fn0, fn1, search)``: how the engine of ``spec`` calls each player's policy
    (random directly, greedy and any other through its function pointer, a search by searching with
    its continuation's pointer; an unused pointer is the random policy), and the search it calls
    (:func:`~simkit.engine.compiled.search_function`: the engine's when a player searches)."""
    kinds = np.array([_kind_of(f0), _kind_of(f1)], np.int64)
    f0, f1 = (f.continuation if isinstance(f, SearchCall) else f for f in (f0, f1))
    for f in (f0, f1):
        if not is_jitted(f):  # the engine calls a policy from compiled code
            raise PolicyCompileError(
                f"policy {where_defined(f)} is a plain Python function; here the engine plays it in compiled "
                "code, so it must be jitted (simkit.jit)"
            )
    unused = eng.POLICY_RANDOM
    searching = bool((kinds == eng.POLICY_SEARCH).any())
    search = search_function(engine_for(spec, searching), spec, searching)
    return kinds, (random_policy if kinds[0] == unused else f0), (random_policy if kinds[1] == unused else f1), search


def searches(f0, f1) -> bool:
    """Whether a player searches (the engine instance with the search branch plays them)."""
    return isinstance(f0, SearchCall) or isinstance(f1, SearchCall)


def _kind_of(f) -> int:
    if isinstance(f, SearchCall):
        return eng.POLICY_SEARCH
    return _BUILT_IN.get(f, eng.POLICY_FUNCTION)


def engine_for(spec, searching: bool = False):
    """The compiled engine instance of a rule set (:func:`simkit.engine.compiled.engine_of`); with
    ``searching``, the instance for a run in which a player searches."""
    return engine_of(spec.settle, searching)


_pool = None
_pool_lock = threading.Lock()


def thread_count() -> int:
    """Threads that play matches: numba's thread count (``NUMBA_NUM_THREADS``, all cores by default)."""

    return max(1, int(numba.get_num_threads()))


def match_executor(n: int):
    global _pool
    with _pool_lock:
        if _pool is None or _pool._max_workers != n:
            _pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="simkit-engine")
        return _pool


def run_blocks(kernel, args_of, n: int, block: int, threads: int | None = None) -> None:
    """Run ``kernel(*args_of(a, b))`` over ``[0, n)`` in blocks of ``block`` items, on ``threads``
    threads (default :func:`thread_count`); each block writes its own slice of the outputs, so the
    result is the same whatever the thread count. An exception of a block is raised here."""
    n_threads = threads or thread_count()
    blocks = [(a, min(a + block, n)) for a in range(0, n, block)]
    if n_threads == 1 or len(blocks) == 1:
        for a, b in blocks:
            kernel(*args_of(a, b))
        return
    futures = [match_executor(n_threads).submit(lambda a=a, b=b: kernel(*args_of(a, b))) for a, b in blocks]
    for f in futures:
        f.result()


#: Decision-log rows a block's Table gets per match before any block of the rule set has been
#: played in this process (then: the most seen per match, with a margin). A block whose log overflows
#: is played again with room for all of its decisions (the games are deterministic).
#: What a run logs of each decision: nothing, the decision log, or the log with each decider's
#: observation and legal mask (``decisions=`` of :func:`simkit.simulate_matches` and ``simulate``).
DECISION_SETTINGS = (False, True, "observations")


def decisions_setting(value):
    """``value`` as one of :data:`DECISION_SETTINGS` (numpy's booleans too), else a one-line
    :class:`~simkit.errors.InputValueError` naming the choices."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, str) and value == "observations":
        return value
    raise InputValueError(f"decisions must be True, False or 'observations', got {show(value)}")


DECISION_ROWS_PER_MATCH = 512
_decision_rates: dict = {}  # rule set name -> most decisions per match seen in a block


def _decision_capacity(key, n_matches: int) -> int:
    """Rows of the decision log of a block of ``n_matches`` matches of rule set ``key``."""
    rate = _decision_rates.get(key, DECISION_ROWS_PER_MATCH)
    return max(64, int(n_matches * rate * 1.25))


def run_matches(spec, f0, p0, f1, p1, seed, start, n_matches, check, log_hand=-1, state=None, decisions=False):
    """Call the engine's match kernel (whole matches, or with ``state`` the hand of that Table
    from its decision); returns (rows, n_hands, errors, error_legal, wall, log, n_log), ``rows``
    the result arrays (ints, items, floats, hands, melds) of every hand played, match by match
    (:func:`_rows_played`), and with
    ``decisions`` (whole matches only; True, or ``"observations"``) an eighth item: the decision log
    as the columns of :func:`decision_columns`, in the order played (None if the engine stopped a
    match: :func:`raise_first_error` says why).

    Whole matches run in blocks on all threads: the kernel releases the GIL, each block plays on a
    Table of its own, and a match's rows depend only on (seed, match), so the split never changes them.
    With ``decisions`` each block's Table gets a decision log (:func:`_decision_capacity` rows); a
    block whose log overflows is played again, from a fresh Table, with room for every decision.
    The blocks' logs are written into the columns in parallel (:func:`decision_columns`); the
    built-in random and greedy policies never write their user counters, which are then zeros, not
    logged.
    """
    engine = engine_for(spec, searches(f0, f1))
    from_state = state is not None
    if from_state:
        log_hand = -1
        if n_matches != 1:
            raise InputValueError("a hand from a given state is played once")
    if decisions and (from_state or log_hand >= 0):
        raise InputValueError("decisions are logged for whole matches only")
    kinds, fn0, fn1, search = policy_calls(f0, f1, spec)
    per_match = 1 if from_state else spec.max_hands  # rows a match may need: a block's capacity
    bufs = result_buffers(spec, n_matches * per_match, empty=log_hand < 0 and not from_state)
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
            table,
            np.uint64(seed),
            int(start + a),
            int(b - a),
            template,
            tables,
            spec.game,
            spec.sp,
            kinds,
            fn0,
            fn1,
            p0,
            p1,
            search,
            int(log_hand),
            from_state,
            *(x[a * per_match : b * per_match] for x in bufs),
            n_hands[a:b],
            errors[a:b],
            error_legal[a:b],
            wall,
            log,
            n_log,
        )

    greedy = greedy_policy in (fn0, fn1)
    # on a cold start the helper starts first, on the other core, and compiles while this process
    # builds the hand tables (the helper needs only their types)
    ahead = (greedy_policy,) if greedy else ()
    with compile_ahead(engine.play_matches_kernel, spec.rules.name, ahead, prepare=lambda: hand_tables(spec.rules)):
        tables = hand_tables(spec.rules)
        kernel = prepared(
            engine.play_matches_kernel,
            args_of(0, 1),
            {9: policy_type(spec), 10: policy_type(spec), 13: search_type(spec)},
        )  # compiles or loads, once
        if greedy:  # greedy compiled on the other core meanwhile (on a cold start): loaded here
            greedy_policy.compile(policy_type(spec).signature.args)

    observing = decisions == "observations"
    # the built-in random and greedy policies never write their counters: zeros, not logged
    counting = bool(np.isin(kinds, (eng.POLICY_RANDOM, eng.POLICY_GREEDY), invert=True).any())

    def run(a: int, b: int):
        if not decisions:
            return kernel(*args_of(a, b))
        key = spec.rules.name
        capacity = _decision_capacity(key, b - a)
        while True:
            args = args_of(a, b)
            # uninitialised: the kernel writes every field of every row it logs, and the pages of
            # rows never logged are never touched
            table = args[0]._replace(
                decisions=np.empty((capacity, eng.N_DECISION_INT), np.int16),
                decision_counters=np.empty((capacity if counting else 0, eng.N_COUNTERS), np.float64),
                observed=np.empty((capacity if observing else 0, eng.N_OBSERVED), np.uint8),
            )
            table.sc[eng.S_DECISIONS] = 1
            kernel(table, *args[1:])
            count = int(table.sc[eng.S_N_DECISIONS])
            if count <= capacity:
                _decision_rates[key] = max(_decision_rates.get(key, 0), count / (b - a))
                return (
                    table.decisions[:count],
                    table.decision_counters[:count] if counting else None,
                    table.observed[:count] if observing else None,
                )
            capacity = count  # overflowed: the same games again, with room for every decision

    threads = thread_count()
    if n_matches == 1 or threads == 1 or log_hand >= 0 or from_state:
        starts = [0]
        logs = [run(0, n_matches)]
    else:
        # four blocks per thread, handed out in order: an even finish, and the per-call cost
        # (a Table, unboxing the arguments under the GIL) stays near 1% of a block
        size = max(16, -(-n_matches // (4 * threads)))
        starts = list(range(0, n_matches, size))
        futures = [
            match_executor(threads).submit(lambda a=a: run(a, min(a + size, n_matches)))
            for a in range(0, n_matches, size)
        ]
        logs = [future.result() for future in futures]
    out = (_rows_played(bufs, n_hands, per_match, starts), n_hands, errors, error_legal, wall, log, int(n_log[0]))
    if not decisions:
        return out
    if errors[:, 0].any():
        return out + (None,)  # a match stopped: nothing to convert (the caller raises)
    ints, counters, observed = ([part[j] for part in logs] for j in range(3))
    columns = decision_columns(
        out[0][0], ints, counters if counting else None, observed if observing else None, parallel=True
    )
    return out + (columns,)


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


def raise_first_error(errors, error_legal, n_hands, start, seed):
    bad = np.flatnonzero(errors[:, 0])
    if len(bad):
        i = int(bad[0])
        h = int(n_hands[i]) - 1
        code, action, player, phase, tile = (int(v) for v in errors[i])
        raise EngineError(
            error_text(code, action, f"match {start + i}, hand {h} (seed {seed})", player, phase, tile, error_legal[i])
        )


def result_buffers(spec, *shape, empty=False):
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


#: dtypes of the decision log's columns of :data:`~simkit.engine.table.DECISION_FIELDS`
_DECISION_DTYPES = {
    "player": np.int8,
    "phase": np.int8,
    "tile": np.int8,
    "action": np.int16,
    "n_legal": np.int16,
    "shanten_before": np.int8,
    "shanten_after": np.int8,
}


def decision_columns(rows, ints, counters=None, observed=None, parallel=False) -> dict:
    """The decision log as the columns :func:`simulate_matches` returns with ``decisions``, in the
    order played: ``ints`` (int16[n, N_DECISION_INT], the :data:`~simkit.engine.table.DECISION_FIELDS`),
    ``counters`` (float64[n, N_COUNTERS]; None: zeros) and, in a run with observations, ``observed``
    (uint8[n, N_OBSERVED], :data:`~simkit.engine.table.OBSERVED_FIELDS`: the columns ``view_<name>``
    and ``legal``) of the hands whose result rows are ``rows``
    (int64[h, N_RESULT_INT]): a hand's ``turns`` decisions are its rows of the log, in the order of
    the hands, which gives each decision its match and hand.

    ``ints``, ``counters`` and ``observed`` may each be a list of consecutive parts (the blocks of
    an engine call), written into the columns part by part, with ``parallel`` on the engine's
    threads: each byte of a column is written once, no part joined first."""
    rows = np.asarray(rows).reshape(-1, eng.N_RESULT_INT)
    ints = [np.asarray(part).reshape(-1, eng.N_DECISION_INT) for part in _parts(ints)]
    n = sum(len(part) for part in ints)
    turns = rows[:, eng.R_TURNS]
    if int(turns.sum()) != n:
        raise RuntimeError(f"the decision log has {n} rows, the hands' turns count {int(turns.sum())}")
    match = np.repeat(rows[:, eng.R_MATCH], turns)
    hand = np.repeat(rows[:, eng.R_HAND], turns)
    starts = np.cumsum(turns) - turns
    step = np.arange(n, dtype=np.int64) - np.repeat(starts, turns)
    out = {
        "deal_id": (match << 16) | hand,
        "match": match,
        "hand": hand.astype(np.int16),
        "step": step.astype(np.int16),
    }
    fields = {name: np.empty(n, _DECISION_DTYPES[name]) for name in eng.DECISION_FIELDS}
    out.update(fields)
    counted = None if counters is None else np.empty((eng.N_COUNTERS, n), np.float64)
    zeros = np.zeros((eng.N_COUNTERS, n), np.float64) if counters is None else counted
    for i in range(eng.N_COUNTERS):
        out[f"counter_{i}"] = zeros[i]
    seen = None if observed is None else _observed_outputs(n)
    bounds = np.cumsum([0] + [len(part) for part in ints])

    def fill(k: int) -> None:
        a, b = bounds[k], bounds[k + 1]
        for j, name in enumerate(eng.DECISION_FIELDS):
            fields[name][a:b] = ints[k][:, j]
        if counted is not None:
            counted[:, a:b] = np.asarray(_parts(counters)[k]).reshape(-1, eng.N_COUNTERS).T
        if seen is not None:
            _split_observed(_parts(observed)[k], seen, a, b)

    if parallel and len(ints) > 1:
        list(match_executor(thread_count()).map(fill, range(len(ints))))
    else:
        for k in range(len(ints)):
            fill(k)
    if seen is not None:
        out.update(_observed_columns(seen))
    return out


def _observed_outputs(n: int) -> tuple:
    """The arrays :func:`~simkit.engine.table.split_observed_kernel` fills for ``n`` decisions
    (:func:`_observed_columns` makes them the columns ``legal`` (uint8[n, 19], the mask's bits),
    ``view_hand`` (uint8[n, 34]), ``view_melds`` and ``view_opp_melds`` (int8[n, 8]),
    ``view_tiles_left`` and ``view_streak`` (int16[n]), ``view_skipped_win`` (int64[n]),
    ``view_score`` and ``view_opp_score`` (float64[n]) and the view's one-byte numbers
    ``view_<name>`` (int8[n]))."""
    return (
        np.empty((n, 34), np.uint8),
        np.empty((n, 8), np.uint8),
        np.empty((n, 8), np.uint8),
        np.empty((n, 19), np.uint8),
        np.empty((len(eng.OBSERVED_SMALL), n), np.int8),
        np.empty((3, n), np.int64),
        np.empty((2, n), np.float64),
    )


def _split_observed(part, seen, a: int, b: int) -> None:
    """Split the observed facts ``part`` into rows ``a:b`` of the outputs ``seen``."""
    hand, melds, opp_melds, legal, small, wide, floats = seen
    eng.split_observed_kernel(
        np.ascontiguousarray(part, np.uint8).reshape(-1, eng.N_OBSERVED),
        hand[a:b],
        melds[a:b],
        opp_melds[a:b],
        legal[a:b],
        small[:, a:b],
        wide[:, a:b],
        floats[:, a:b],
    )


def _observed_columns(seen) -> dict:
    """The columns of the split observed facts ``seen`` (:func:`_observed_outputs`)."""
    hand, melds, opp_melds, legal, small, wide, floats = seen
    out = {
        "view_hand": hand,
        "view_melds": melds.view(np.int8),
        "view_opp_melds": opp_melds.view(np.int8),
        "legal": legal,
        "view_tiles_left": wide[0].astype(np.int16),
        "view_streak": wide[1].astype(np.int16),
        "view_skipped_win": wide[2],
        "view_score": floats[0],
        "view_opp_score": floats[1],
    }
    for j, name in enumerate(eng.OBSERVED_SMALL):
        out[f"view_{name}"] = small[j]
    return out


def _parts(arrays) -> list:
    """``arrays`` as a list of arrays (an array: a list of it)."""
    return list(arrays) if isinstance(arrays, (list, tuple)) else [arrays]


def result_columns(ints, items, floats, hands, melds):
    out = {name: ints[:, i] for i, name in enumerate(eng.RESULT_FIELDS)}
    for i, name in enumerate(eng.FLOAT_FIELDS):
        out[name] = floats[:, i]
    out["items"] = items
    out["win_hand"] = hands
    out["win_melds"] = melds
    return out


@dataclass(frozen=True)
class HandRecord:
    """One hand's result row and its events, as replayed or played from a given wall."""

    row: (
        dict  #: the hand's columns, as :func:`simulate_matches` returns them (scalars; arrays for win_hand / win_melds)
    )
    events: list  #: (event name, player, tile kind or -1, extra)
    wall: np.ndarray  #: the hand's wall as dealt (kinds; in the layout of its wall design)
    items: dict  #: the winner's scored items
    rule_set: str = "douque"  #: name of the rule set played
    wall_design: int = eng.WALL_DEALER_FIRST  #: how the wall was dealt (``WALL_*`` of :mod:`simkit.engine.table`)

    def event_table(self):
        """The events as a DataFrame, with both players' tiles, melds, rivers, shanten and waits
        after each (:func:`simkit.engine.display.event_table` documents the columns)."""

        return event_table(self)

    def to_html(self, path=None) -> str:
        """The hand as a standalone HTML page (tiles drawn as SVG, one row per event); written to
        ``path`` when given. Returns the page."""

        page = render_html(self)
        if path is not None:
            _write_text(path, page)
        return page

    def _repr_html_(self) -> str:  # Jupyter shows a record as its hand
        return render_html(self, standalone=False)

    def lines(self) -> list[str]:
        """The events in tile notation, one per line, as ``simkit replay`` prints them."""

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


def hand_record(spec, row_ints, items_row, floats_row, hand_row, melds_row, log, n_log, wall) -> HandRecord:
    row = {name: int(row_ints[i]) for i, name in enumerate(eng.RESULT_FIELDS)}
    for i, name in enumerate(eng.FLOAT_FIELDS):
        row[name] = float(floats_row[i])
    row["win_hand"] = np.asarray(hand_row).copy()
    row["win_melds"] = np.asarray(melds_row).copy()
    events = [(eng.EVENT_NAMES[int(k)], int(p), int(t), int(e)) for k, p, t, e in log[:n_log]]
    cast = float if np.issubdtype(spec.item_dtype, np.floating) else int
    items = {name: cast(items_row[i]) for i, name in enumerate(spec.item_names) if items_row[i]}
    return HandRecord(
        row=row,
        events=events,
        wall=np.asarray(wall).copy(),
        items=items,
        rule_set=spec.rules.name,
        wall_design=int(spec.game.wall),
    )
