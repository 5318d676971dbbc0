"""The engine compiled once per rule set, cached on disk across processes.

:mod:`simkit.engine.step` calls the rule set's settle function through the module global
``SETTLE``. :func:`engine_of` makes an instance of that source with the global bound and returns it
as a module (``play_matches_kernel``, ``run_hand_kernel``, ``step_kernel``). The instance is a
generated file that imports the settle function by name, so numba caches its compiled code and a
new process (a later one, a ``--workers`` pool, a Dask worker) loads the engine in a second
or two instead of compiling it.

Policies are not part of the instance: the built-in random policy is called directly, greedy and
any other jitted policy through a function pointer (:func:`prepared`), so a new or edited policy
compiles only itself. On a cold start a helper process compiles greedy and parts the engine calls
(:func:`compile_ahead`) on the second core.

The generated files live in simkit's cache directory (``$SIMKIT_CACHE_DIR`` if set, else
``~/.cache/simkit``: :func:`simkit._cache.cache_dir`), never in the package; numba's compiled code of the
engine and of every kernel and policy goes into a ``numba`` directory beside them (or into
``$NUMBA_CACHE_DIR/simkit-<hash>``: :func:`simkit._cache.numba_cache_dir`). Each is in a directory
named after a hash of simkit's own sources, the numba and Python versions: a change to any of them
starts a new directory, so stale compiled code (an engine, or a kernel with an old version of a
function it calls) is never loaded. Directories not used for 30 days are removed. If the directory cannot be written, the engine is
compiled in memory with a warning.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import types
import warnings
from pathlib import Path

import numba
import numpy as np
from numba import types as nb_types
from numba.core.caching import NullCache
from numba.experimental.function_type import WrapperAddressProtocol, _get_wrapper_address

from .._cache import cache_root, engine_dir, numba_cache_dir, source_hash
from ..hand.shanten import shanten_kernel
from ..hand.tables import hand_tables_stand_in
from ..hand.waits import waits_kernel
from ..hand.win import is_win_kernel
from ..rules import resolve_rules
from . import table as game
from .actions import View
from .deal import wall_template
from .rulesets import engine_spec
from .table import new_table

__all__ = [
    "engine_of",
    "prepared",
    "search_type",
    "search_function",
    "function_pointer",
    "compile_ahead",
    "also_first",
    "ahead_of_the_engine",
    "first_of_the_engine",
    "cache_root",
    "source_hash",
    "start_up_message",
    "record_start_up",
]

_TEMPLATE = Path(__file__).with_name("step.py")
_PACKAGE = Path(__file__).resolve().parents[1]
_BIND_START = "# <bind>"
_BIND_END = "# </bind>"
_STALE_DAYS = 30

_lock = threading.RLock()  # re-entered: compile_ahead lists the engine instance through engine_of
_instances: dict = {}
_warned = False


def _importable(fn) -> tuple[str, str] | None:
    """``(module, name)`` when the jitted function ``fn`` can be imported by name, else None."""
    py = getattr(fn, "py_func", None)
    if py is None:
        return None
    module_name, name = getattr(py, "__module__", None), getattr(py, "__qualname__", "")
    module = sys.modules.get(module_name) if module_name else None
    if module is None or module_name == "__main__" or "." in name or not getattr(module, "__file__", None):
        return None
    if getattr(module, name, None) is not fn:
        return None
    return module_name, name


def _template_text() -> str:
    return _TEMPLATE.read_text()


def _bound_source(lines) -> str:
    """The template with its bind block replaced by ``lines``, padded with blank lines to the
    block's own length: every other line keeps its number, so a traceback or a profile that names
    a line of an instance names the same line of ``simkit/engine/step.py``."""
    text = _template_text()
    start, end = text.index(_BIND_START), text.index(_BIND_END)
    end = text.index("\n", end) + 1
    block = text[start:end].count("\n")
    if len(lines) > block:
        raise ValueError(f"the bind block of {_TEMPLATE.name} has {block} lines, fewer than {len(lines)}")
    return text[:start] + "\n".join(list(lines) + [""] * (block - len(lines))) + "\n" + text[end:]


def _generated_source(ref, searching: bool) -> str:
    module, name = ref
    return _bound_source(
        [
            "# a copy of simkit/engine/step.py, line for line, made by simkit.engine.compiled; do not edit",
            f"from {module} import {name} as SETTLE",
            "CACHE = True",
            f"SEARCHING = {bool(searching)}",
        ]
    )


def _digest(ref, searching: bool) -> str:
    return hashlib.sha256(f"{source_hash()} {ref[0]}:{ref[1]} {bool(searching)}".encode()).hexdigest()


def _prune(root: Path, keep: Path) -> None:
    """Remove engine directories of other source versions not used for ``_STALE_DAYS`` days."""
    cutoff = time.time() - _STALE_DAYS * 86400

    stale = list(root.glob("engine-*"))
    if os.environ.get("NUMBA_CACHE_DIR"):  # numba's caches of other source versions
        stale += [d for d in Path(os.environ["NUMBA_CACHE_DIR"]).glob("simkit-*") if d != numba_cache_dir()]
    for d in stale:
        try:
            if d != keep and d.is_dir() and d.stat().st_mtime < cutoff:
                shutil.rmtree(d, ignore_errors=True)
        except OSError:
            pass


def _file_instance(ref, searching: bool):
    digest = _digest(ref, searching)
    root = cache_root()
    directory = root / engine_dir().name
    kind = "search_" if searching else ""
    path = directory / f"engine_{kind}{ref[1]}_{digest[:12]}.py"
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(_generated_source(ref, searching))
        os.replace(tmp, path)  # the file never changes once written: numba's cache keys on its mtime
        _prune(root, directory)
    os.utime(directory)  # marks the directory as used
    name = f"_simkit_engine_{kind}{ref[1]}_{digest[:12]}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _memory_instance(settle, searching: bool):
    module = types.ModuleType(f"_simkit_engine_{'search_' if searching else ''}{id(settle):x}")
    module.__file__ = str(_TEMPLATE)
    module.__dict__.update(SETTLE=settle)
    lines = ["CACHE = False", f"SEARCHING = {bool(searching)}"]
    exec(compile(_bound_source(lines), str(_TEMPLATE), "exec"), module.__dict__)
    return module


def engine_of(settle, searching: bool = False):
    """The engine instance (a module) of a rule set, given its settle function: one per process,
    compiled once and cached on disk. ``searching``: the instance for runs in which a player
    searches (its hand loops hold the search branch; the other instance has none)."""
    global _warned
    with _lock:
        key = (settle, bool(searching))
        module = _instances.get(key)
        if module is not None:
            return module
        ref = _importable(settle)
        module = None
        if ref is not None:
            try:
                module = _file_instance(ref, searching)
            except OSError as exc:
                if not _warned:
                    _warned = True
                    warnings.warn(
                        f"simkit: cannot write the engine cache in {cache_root()} ({exc}); compiling the engine "
                        "in memory (set SIMKIT_CACHE_DIR to a writable directory)",
                        stacklevel=3,
                    )
        if module is None:
            module = _memory_instance(settle, searching)
        _instances[key] = module
        return module


def prepared(kernel, args, function_types):
    """``kernel`` compiled for the types of ``args`` with the arguments at the positions of
    ``function_types`` (``{position: first-class function type}``: a policy's, the search's) typed
    as those, and closed to other signatures: a jitted policy passed there is then called through
    a function pointer, so the kernel is compiled (or loaded from the cache) once for every policy."""

    with _lock:
        if not kernel.signatures:
            types_ = [numba.typeof(a) for a in args]
            for i, t in function_types.items():
                types_[i] = t
            kernel.compile(tuple(types_))
            kernel.disable_compile()
    return kernel


_policy_types: dict = {}
_search_types: dict = {}


def search_type(spec):
    """The numba first-class function type of the engine's search (:func:`simkit.engine.step._search_action`)
    for this rule set: ``int64(Table, HandTables, game, sp, policy, float64[::1], uint64[::1])``."""
    name = spec.rules.name
    if name not in _search_types:
        table = game.new_table(len(wall_template(spec.rules)), spec.items_proto)
        _search_types[name] = nb_types.FunctionType(
            nb_types.int64(
                numba.typeof(table),
                numba.typeof(hand_tables_stand_in(spec.rules)),
                numba.typeof(spec.game),
                numba.typeof(spec.sp),
                policy_type(spec),
                nb_types.float64[::1],
                nb_types.uint64[::1],
            )
        )
    return _search_types[name]


def search_function(engine, spec, searching: bool):
    """The ``search`` argument of the engine's kernels: the search compiled for this rule set when a
    player searches (compiled or loaded from the cache here, not with the engine: nobody else pays
    for it), else a stub of the same type."""
    fn = engine._search_action if searching else engine._no_search
    sig = search_type(spec).signature
    with _lock:
        if not any(s == sig.args for s in fn.signatures):
            fn.compile(sig.args)
    return fn


def policy_type(spec):
    """The numba first-class function type of a policy of this rule set's engine:
    ``int64(View, bool[::1], float64[::1], uint64[::1])``."""
    name = spec.rules.name
    if name not in _policy_types:
        # arrays of the types of the Table's rows the engine's views are made of (game.new_table:
        # hand uint8[2, 34], melds int8[2, 4, 2], river int8[2, MAX_RIVER], counters float64[2, N_COUNTERS]);
        # plain numpy here, so that the type costs no compile (the compile-ahead helper starts with it),
        # and the hand tables' stand-ins, so that it needs no tables built
        hand, melds = np.zeros(34, np.uint8), np.zeros((4, 2), np.int8)
        river, counters = np.zeros(game.MAX_RIVER, np.int8), np.zeros(game.N_COUNTERS, np.float64)
        claimed = np.zeros(game.MAX_RIVER, np.bool_)
        view = View(
            0,
            0,
            hand,
            melds,
            0,
            melds,
            0,
            river,
            0,
            river,
            0,
            0,
            0,
            0,
            27,
            27,
            True,
            0,
            0,
            hand_tables_stand_in(spec.rules),
            0,
            counters,
            0,
            0,
            claimed,
            claimed,
            0.0,
            0.0,
        )
        _policy_types[name] = nb_types.FunctionType(
            nb_types.int64(numba.typeof(view), nb_types.bool_[::1], nb_types.float64[::1], nb_types.uint64[::1])
        )
    return _policy_types[name]


# ---------------------------------------------------------------------------------------------
# compiling on two cores: what the engine calls without inlining (hand kernels, the settle function,
# small helpers) and the greedy policy, in a helper process while the engine compiles

_AHEAD = """
import sys
from simkit.engine.compiled import ahead_of_the_engine
for name, dispatcher, signature in ahead_of_the_engine(sys.argv[1], sys.argv[2:]):
    dispatcher.compile(signature)
    print(name, flush=True)
"""


def ahead_of_the_engine(rules_name: str, policies=()) -> list:
    """``[(name, dispatcher, signature)]``: what the helper of :func:`compile_ahead` compiles,
    for the argument types the engine calls it with, in about the order the engine's compile needs
    it: the hand kernels and small kernels of the legal-action checks (shanten, win, waits, ...),
    the rule set's settle function, the engine's :func:`~simkit.engine.step._advance` (the hand
    loop's set-up of each decision and its settling, which LLVM inlines into the loop), then the
    jitted ``policies`` (functions, or ``"module:name"`` references) for the engine's policy
    signature (their pointers are taken once the engine is compiled)."""
    return _engine_pieces(rules_name, policies)[0]


def first_of_the_engine(rules_name: str) -> list:
    """``[(name, dispatcher, signature)]``: what this process compiles first on a cold start while
    the helper compiles :func:`ahead_of_the_engine`'s list: the engine's
    :func:`~simkit.engine.step._apply` (the rules of every decision; LLVM inlines it into the hand
    loop), the largest piece, which needs only the helper's first items, then the decision log
    (:func:`~simkit.engine.table.record_decision`), which the helper would otherwise compile just
    before greedy, the last item it finishes, while this process waits for its ``_advance``."""
    return _engine_pieces(rules_name, ())[1]


def _engine_pieces(rules_name: str, policies) -> tuple[list, list]:
    """(the helper's items, this process's first items): see :func:`ahead_of_the_engine`."""

    spec = engine_spec(resolve_rules(rules_name), None, None)
    T = new_table(len(wall_template(spec.rules)), spec.items_proto)
    i, b = nb_types.int64, nb_types.boolean
    ty = numba.typeof
    t = ty(hand_tables_stand_in(spec.rules))  # (the tables themselves may not be built yet)
    row, table, scratch, game_t, sp = ty(T.hand[0]), ty(T), ty(T.swork), ty(spec.game), ty(spec.sp)
    settle_args = (  # settle(T, winner, win_type, win_tile, replacement, last_tile, last_discard, t, sp, row, floats)
        table,
        i,
        i,
        i,
        b,
        b,
        b,
        t,
        sp,
        ty(T.row),
        ty(T.row_floats),
    )
    engine = engine_of(spec.settle)  # the instance (a module) of the engine about to compile
    helper = [
        ("shanten", shanten_kernel, (row, i, t, scratch)),
        ("is_win", is_win_kernel, (row, i, t)),
        ("waits", waits_kernel, (row, i, row, t)),
        ("waits_without", game._waits_without, (row, i, row, i, t)),
        ("can_win_with", game._can_win_with, (row, i, row, i, t)),
        ("draw_replacement", game._draw_replacement, (table, i)),
        ("complete_added_kong", engine._complete_added_kong, (table, i, i)),
        ("settle", spec.settle, settle_args),
        ("advance", engine._advance, (table, t, game_t, sp)),
    ]
    for fn in map(_policy_function, policies):
        helper.append((fn.py_func.__name__.removesuffix("_policy"), fn, policy_type(spec).signature.args))
    here = [
        ("apply", engine._apply, (table, t, game_t, i)),
        (
            "record_decision",
            game.record_decision,
            (
                ty(T.sc),
                ty(T.hand),
                ty(T.n_melds),
                ty(T.legal),
                ty(T.decision_memo),
                ty(np.zeros(game.N_DECISION_INT, T.decisions.dtype)),  # a row of the log
                t,
                i,
            ),
        ),
    ]
    return helper, here


def _policy_function(policy):
    """The jitted policy function ``policy`` names: itself, or ``"module:name"`` imported."""
    if isinstance(policy, str):
        module, name = policy.split(":")
        return getattr(importlib.import_module(module), name)
    return policy


def _policy_reference(policy) -> str:
    """``"module:name"`` of a jitted policy function the helper process can import."""
    if isinstance(policy, str):
        return policy
    ref = _importable(policy)
    if ref is None:
        raise ValueError(f"{policy!r} cannot be imported by name in a helper process")
    return f"{ref[0]}:{ref[1]}"


_ALSO_FIRST: list = []  #: (name, dispatcher, signature) items added by :func:`also_first`


@contextlib.contextmanager
def also_first(items):
    """Within the context, a cold start's :func:`compile_ahead` also compiles ``items`` (``[(name,
    dispatcher, signature)]``) in this process, first: kernels the caller needs right after the
    engine (``simkit simulate``'s Parquet writer, :func:`simkit.datasets.writer_kernels`), compiled while
    this process would otherwise wait for the helper's first hand kernels. Without a cold start
    nothing is compiled here: each compiles or loads at its first call, as always."""
    items = list(items)
    with _lock:
        _ALSO_FIRST.extend(items)
    try:
        yield
    finally:
        with _lock:
            for item in items:
                _ALSO_FIRST.remove(item)


def _will_compile(kernel) -> bool:
    """Whether ``kernel`` is neither compiled in this process nor in numba's cache on disk (its index
    file missing): then its first call compiles."""
    if kernel.signatures:
        return False
    try:
        return not os.path.exists(kernel._cache._cache_file._index_path)
    except AttributeError:  # not cached, or numba's internals differ
        return False


def compile_ahead(kernel, rules_name: str, policies=(), prepare=None):
    """Before the engine ``kernel`` of ``rules_name`` compiles (on a machine with two or more
    cores): compile what :func:`ahead_of_the_engine` lists -- hand kernels, the rule set's settle
    function, small kernels of the hand loop, and the jitted ``policies`` given (functions
    importable by name, such as greedy) -- in a helper process at the same time. Use it as a
    context manager around the compile of the engine and then of the policies (for the engine's
    policy signature, ``fn.compile(policy_type(spec).signature.args)``):
    ``with compile_ahead(kernel, name, (greedy_policy,)): ...``.

    Inside the context this process first compiles what :func:`also_first` added, then calls
    ``prepare`` (work that needs none of the helper's items, such as building the hand tables,
    which the helper does not need: it types with :func:`~simkit.hand.tables.hand_tables_stand_in`),
    then compiles :func:`first_of_the_engine`'s pieces (the engine's
    :func:`~simkit.engine.step._apply` and decision log), so that the two cores share the work and
    the helper's first items are ready when ``_apply`` reaches them.
    The helper compiles each into numba's cache and says so on its output. When this process's
    compile reaches one of them (the engine's compile reaches all but the policies; a policy, called
    through its pointer, compiles after the engine), it waits for the helper to have finished that one and
    loads it from the cache; if the helper failed, it compiles it itself, as without a helper. The
    code is the same either way. Off with ``SIMKIT_COMPILE_AHEAD=0``, on one core, with
    ``NUMBA_DISABLE_JIT``, or when numba's internals differ (then the context does nothing).
    """

    if os.environ.get("SIMKIT_COMPILE_AHEAD", "1") == "0" or (os.cpu_count() or 1) < 2 or numba.config.DISABLE_JIT:
        return contextlib.nullcontext()
    with _lock:
        if not _will_compile(kernel):
            return contextlib.nullcontext()  # the engine loads from the cache
        try:
            items, first = _engine_pieces(rules_name, policies)
            refs = [_policy_reference(fn) for fn in policies]
        except Exception:  # noqa: BLE001 -- the helper is an optimisation: without it, compile here
            return contextlib.nullcontext()
        also_first_now = list(_ALSO_FIRST)

        caches = {name: getattr(dispatcher, "_cache", None) for name, dispatcher, _ in items}
        caches = {name: c for name, c in caches.items() if not isinstance(c, NullCache)}  # (an engine in memory)
        if any(getattr(c, "load_overload", None) is None or "load_overload" in vars(c) for c in caches.values()):
            return contextlib.nullcontext()  # numba's internals differ; a helper runs already
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(_PACKAGE.parent), *filter(None, [env.get("PYTHONPATH")])])
        try:
            helper = subprocess.Popen(
                [sys.executable, "-c", _AHEAD, rules_name, *refs],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
            )
        except OSError:
            return contextlib.nullcontext()
        done = {name: threading.Event() for name in caches}

        def listen():  # each line: the name of an item compiled and cached; the end: the helper exited
            for line in helper.stdout:
                if line.strip() in done:
                    done[line.strip()].set()
            helper.wait()
            for event in done.values():
                event.set()

        threading.Thread(target=listen, daemon=True).start()
        hooks = {}
        for name, cache in caches.items():

            def load_after_helper(sig, target_context, _event=done[name], _load=cache.load_overload):
                _event.wait()
                return _load(sig, target_context)

            cache.load_overload = hooks[name] = load_after_helper

    def compile_each(items):
        for _, dispatcher, signature in items:
            if not _will_compile(dispatcher):
                continue
            try:
                dispatcher.compile(signature)
            except Exception:  # noqa: BLE001 -- the engine's (or the caller's) own compile reports it
                continue

    @contextlib.contextmanager
    def compiling():
        try:  # meanwhile the helper compiles what these call
            compile_each(also_first_now)
            if prepare is not None:
                prepare()
            compile_each(first)
            yield
        finally:
            with _lock:
                for name, cache in caches.items():
                    if vars(cache).get("load_overload") is hooks[name]:
                        del cache.load_overload  # the class's own again

    return compiling()


def function_pointer(fn, function_type):
    """The jitted function ``fn`` as a first-class function value of ``function_type`` whose
    address is looked up once: a kernel called many times a second (the vector environment's step)
    takes it where a dispatcher would be looked up again at every call (tens of microseconds)."""

    class _Pointer(WrapperAddressProtocol):
        def __init__(self):
            self.fn = fn  # keeps the compiled code alive
            self._signature = function_type.signature
            self._address = _get_wrapper_address(fn, self._signature)

        def __wrapper_address__(self):
            return self._address

        def signature(self):
            return self._signature

    return _Pointer()


# ---------------------------------------------------------------------------------------------
# what a run says while it compiles: the last measured compile on this machine

_START_UP = "start_up.json"
#: A start-up shorter than this loaded the engine from the cache rather than compiling it.
COMPILED_AFTER_SECONDS = 5.0


def _start_up_records() -> dict:
    try:
        return json.loads((cache_root() / _START_UP).read_text())
    except (OSError, ValueError):
        return {}


def start_up_message(rules_name: str) -> str:
    """What the engine start-up of rule set ``rules_name`` is about to do, and how long its last
    compile took on this machine (:func:`record_start_up` keeps the measurements)."""
    record = _start_up_records().get(rules_name)
    if record is None:
        return (
            f"compiling the {rules_name} engine (numba compiles it once per rule set and simkit version, "
            "then loads it from its cache)..."
        )
    took = f"{record['compile_seconds']:.0f} s"
    if record.get("source") == source_hash():
        return f"loading the {rules_name} engine from the cache (compiling it took {took} on this machine)..."
    return (
        f"compiling the {rules_name} engine: simkit changed since its last compile, which took {took} "
        "on this machine..."
    )


def record_start_up(rules_name: str, seconds: float) -> None:
    """Keep the duration of an engine start-up that compiled (not one that loaded from the cache),
    for :func:`start_up_message`; a cache directory that cannot be written is left alone."""

    if seconds < COMPILED_AFTER_SECONDS:
        return  # loaded from the cache
    records = _start_up_records()
    records[rules_name] = {
        "compile_seconds": round(float(seconds), 1),
        "source": source_hash(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    try:
        root = cache_root()
        root.mkdir(parents=True, exist_ok=True)
        tmp = root / f".{_START_UP}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(records, indent=1, sort_keys=True))
        os.replace(tmp, root / _START_UP)
    except OSError:
        pass
