"""The one place numba options live.

Every kernel in simkit is compiled through :func:`jit` (serial) or :func:`pjit` (``parallel=True``,
for batch kernels with ``prange``). ``cache=True`` writes compiled machine code to a directory of
this version of simkit's sources (:func:`simkit._cache.numba_cache_dir`, outside the package), so a
second process starts without recompiling and never loads code compiled from other sources; numba's
own settings are left as they are. ``fastmath`` stays off:
results must be bit-identical across machines and thread counts.
"""

import copy
import importlib
import inspect
import os
import re

import numba
import numpy as np
from llvmlite import binding
from numba.core import caching as _caching
from numba.core import cgutils, types
from numba.core import event as _event
from numba.core.itanium_mangler import mangle_identifier
from numba.extending import intrinsic, lower_builtin, type_callable

from ._cache import numba_cache_dir

__all__ = [
    "jit",
    "pjit",
    "prange",
    "threading_layer",
    "borrow",
    "stack_empty",
    "in_simkit_compile",
    "REFCOUNT_FREE",
    "INLINE_COPY",
    "LLVM_INLINE",
    "FLAGS_COMPARE",
    "INLINE_FRONTEND",
    "ERROR_MARKUP",
    "BY_SYMBOL",
]

_OPTIONS = dict(cache=True, nogil=True, fastmath=False, error_model="numpy")

prange = numba.prange


def jit(*args, refcounts=True, internal=False, inline_in_llvm=False, called_by_symbol=False, **kwargs):
    """Decorate a serial kernel (``@jit`` or ``@jit(inline="always")``).

    ``internal=True``: called only from other kernels, never from Python or through a function
    pointer, so numba builds neither entry point for it (its Python wrapper, which unboxes every
    argument, and its C wrapper): about half the compile of a small function, more for one taking a
    whole Table. Calling one from Python is an error. Only for private helpers of the engine.

    ``inline_in_llvm=True``: compiled as a function of its own (typed once, cached, compilable in
    the helper process) that LLVM inlines into every caller (:func:`_llvm_inline_patch`): the
    machine code of ``inline="always"`` without numba redoing the function's compile at each call
    site. For large functions the engine's loops call; combine with ``internal=True``.

    ``called_by_symbol=True``: other kernels call the function's own machine code (by its symbol)
    instead of linking a copy of its LLVM IR, which LLVM optimises and emits again in every
    caller's library (:func:`_called_by_symbol_patch`). For large functions that their callers
    call rather than inline (shanten, scoring, the table checks; not small ones called at every
    decision, which LLVM may inline into a copy); only in simkit's own
    modules (a cache load imports the module to load the function first).

    ``refcounts=False`` compiles the function without reference-count operations
    (:func:`_refcount_free_patch`). Only for a function that never owns an array: every array it
    touches (views included) must belong to a caller that outlives the call, and it must neither
    allocate one nor call a function that returns one, nor have such a function inlined into it
    (``inline="always"``). The engine's hand and match loops are such functions.
    """
    opts = dict(_OPTIONS, **kwargs)
    if internal:
        opts.update(no_cpython_wrapper=True, no_cfunc_wrapper=True)

    def wrap(fn):
        if not refcounts:
            _REFCOUNT_FREE.add(_llvm_name_prefix(fn))
        if inline_in_llvm:
            _LLVM_INLINE.add(_llvm_name_prefix(fn))
        if called_by_symbol:
            if inline_in_llvm or not fn.__module__.startswith("simkit."):
                raise ValueError("called_by_symbol is for functions of simkit's own modules that LLVM does not inline")
            _BY_SYMBOL.add(_llvm_name_prefix(fn))
        return _njit(fn, opts)

    if args and callable(args[0]):
        return wrap(args[0])
    if args:
        raise TypeError("jit takes its options as keywords")
    return wrap


def pjit(*args, **kwargs):
    """Decorate a batch kernel that uses ``prange`` over independent rows."""
    opts = dict(_OPTIONS, parallel=True, **kwargs)
    if args and callable(args[0]):
        return _njit(args[0], opts)
    if args:
        raise TypeError("pjit takes its options as keywords")
    return lambda fn: _njit(fn, opts)


def _is_simkit_kernel(fn) -> bool:
    """Whether ``fn`` is one of simkit's own kernels (its modules and its generated engine instances)."""
    module = getattr(fn, "__module__", "") or ""
    return module == "simkit" or module.startswith(("simkit.", "_simkit_engine"))


def _njit(fn, opts):
    """``numba.njit(**opts)(fn)``, its cache (``cache=True``) in simkit's own directory
    (:func:`_cache_in_simkit_dir`); with ``NUMBA_DISABLE_JIT=1`` simkit's own kernels are compiled all
    the same, so that a user's policy (decorated in their module) runs as plain Python -- asked from
    Python at every decision, where a debugger and ``print`` work -- against the compiled engine."""
    cache = opts.get("cache", False)
    opts = dict(opts, cache=False)
    if not (numba.config.DISABLE_JIT and _is_simkit_kernel(fn)):
        return _cache_in_simkit_dir(numba.njit(**opts)(fn), cache)
    numba.config.DISABLE_JIT = False
    try:
        return _cache_in_simkit_dir(numba.njit(**opts)(fn), cache)
    finally:
        numba.config.DISABLE_JIT = True


class _SimkitCacheLocator(_caching.UserProvidedCacheLocator):
    """Where numba caches a function compiled through :func:`jit`: simkit's directory of this
    version of its sources (:func:`simkit._cache.numba_cache_dir`), whatever numba's own
    ``config.CACHE_DIR`` says -- which simkit leaves alone, so a user's own ``@numba.njit(cache=True)``
    functions are cached where numba puts them."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(str(numba_cache_dir()), self.get_suitable_cache_subpath(py_file))

    @classmethod
    def from_function(cls, py_func, py_file):
        return super(_caching.UserProvidedCacheLocator, cls).from_function(
            py_func, py_file
        )  # skips numba's CACHE_DIR test


class _SimkitCacheImpl(_caching.CompileResultCacheImpl):
    _locator_classes = [_SimkitCacheLocator]


class _SimkitFunctionCache(_caching.FunctionCache):
    _impl_class = _SimkitCacheImpl


def _cache_in_simkit_dir(dispatcher, cache: bool):
    """Give ``dispatcher`` numba's on-disk cache in simkit's directory (what numba's
    ``enable_caching`` does, with simkit's locator); without a writable directory (or a source
    file) the function is compiled in memory at each start, as numba does then."""
    if cache and not numba.config.DISABLE_JIT:
        try:
            dispatcher._cache = _SimkitFunctionCache(dispatcher.py_func)
        except RuntimeError:  # no locator: no cache directory can be made
            pass
    return dispatcher


def threading_layer() -> str:
    """Name of the numba threading layer in use (runs a tiny parallel kernel first if needed)."""
    try:
        return numba.threading_layer()
    except ValueError:
        _touch_parallel(1)
        return numba.threading_layer()


@numba.njit(parallel=True, cache=False)
def _touch_parallel(n):
    s = 0
    for i in numba.prange(n):
        s += i
    return s


@intrinsic
def borrow(typingctx, arr):
    """A view of ``arr`` without a reference count (meminfo NULL): reference-count operations on it
    are free. Only for arrays whose owner outlives every use of the view (engine state and tables
    inside a kernel): passing many arrays between numba functions otherwise costs two atomic
    operations per array per call, contended across threads when the array is shared."""
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):
        src = context.make_array(arr)(context, builder, value=args[0])
        dst = context.make_array(arr)(context, builder)
        dst.meminfo = cgutils.get_null_value(dst.meminfo.type)
        dst.parent = cgutils.get_null_value(dst.parent.type)
        dst.nitems = src.nitems
        dst.itemsize = src.itemsize
        dst.data = src.data
        dst.shape = src.shape
        dst.strides = src.strides
        return dst._getvalue()

    return arr(arr), codegen


def stack_empty(shape, dtype):
    """``np.empty(shape, dtype)`` in the calling function's stack frame: an uninitialised C-ordered
    array (``shape`` an integer literal, or a tuple of them for an n-d array) that costs no
    allocation and no reference counts (meminfo NULL, as :func:`borrow`'s views).

    It lives until the jitted function that called ``stack_empty`` returns (one slot per call
    site, made at the function's entry: a call in a loop reuses it), so it must not escape: never
    return it, store it in an array or tuple that outlives the call, or keep a view of it. Scratch
    of a kernel called many times a second (a policy's tables of discards, the discard
    evaluation's buffer, the copies a policy's view is made of) is its use: such kernels then
    allocate nothing and may be compiled with ``refcounts=False``. Called from plain Python (a
    policy's source run without numba) it is ``np.empty``.
    """
    return np.empty(shape, dtype)


def _stack_shape(shape):
    """The dimensions of ``stack_empty(shape, ...)`` for this argument type (literal ints), or None."""
    dims = list(shape) if isinstance(shape, types.BaseTuple) else [shape]
    if not dims or not all(isinstance(d, types.IntegerLiteral) and d.literal_value >= 1 for d in dims):
        return None
    return [d.literal_value for d in dims]


def _stack_dtype(dtype):
    """The element type of ``stack_empty(..., dtype)`` for this argument type, or None."""
    if isinstance(dtype, types.NumberClass):
        return dtype.instance_type
    if isinstance(dtype, types.DType):
        return dtype.dtype
    return None


@type_callable(stack_empty)
def _type_stack_empty(context):
    def typer(shape, dtype):  # (numba asks again with literal types when this declines)
        dims, dt = _stack_shape(shape), _stack_dtype(dtype)
        return None if dims is None or dt is None else types.Array(dt, len(dims), "C")

    return typer


@lower_builtin(stack_empty, types.IntegerLiteral, types.Any)
@lower_builtin(stack_empty, types.BaseTuple, types.Any)
def _lower_stack_empty(context, builder, sig, args):
    # lowered at the call site, so the alloca is in the calling function's own frame
    dims = _stack_shape(sig.args[0])
    dt = sig.return_type.dtype
    llty = context.get_data_type(dt)
    size = context.get_abi_sizeof(llty)
    count = 1
    for d in dims:
        count *= d
    data = cgutils.alloca_once(builder, llty, size=context.get_constant(types.intp, count))  # entry block
    strides, step = [], size
    for d in reversed(dims):
        strides.insert(0, context.get_constant(types.intp, step))
        step *= d
    arr = context.make_array(sig.return_type)(context, builder)
    context.populate_array(
        arr,
        data=data,
        shape=[context.get_constant(types.intp, d) for d in dims],
        strides=strides,
        itemsize=context.get_constant(types.intp, size),
        meminfo=None,
    )
    return arr._getvalue()


def _llvm_name_prefix(fn) -> str:
    """The start of the LLVM name numba gives ``fn`` itself (Itanium-mangled ``_ZN``, then its
    module and its qualified name, each length-prefixed; its Python wrapper's name has "cpython" in
    front): how the ``refcounts=False`` and ``inline_in_llvm=True`` patches recognise it."""

    parts = f"{fn.__module__}.{fn.__qualname__}".split(".")
    return "_ZN" + "".join(mangle_identifier(part) for part in parts)


_REFCOUNT_FREE: set[str] = set()  #: LLVM name prefixes of the functions compiled with ``refcounts=False``


def _refcount_free_patch() -> bool:
    """Make numba emit no reference-count operations in the functions marked ``refcounts=False``.

    numba increments and decrements an array's reference count whenever a function takes a view
    of it, puts it in a tuple or passes it on. On :func:`borrow` ed arrays (meminfo NULL) these
    are out-of-line calls that return at once, but the engine's hand loop made thousands per hand:
    each decision builds a policy's View of a dozen arrays. A function compiled with
    ``refcounts=False`` gets none of them (its Python wrapper keeps its own); its callees keep
    theirs, which balance by themselves since numba passes arguments borrowed. With the hand loop
    compiled so and the legal-action scans inlined into it, random vs random went from 78 k to
    131 k hands/s on one thread. Applied when simkit is imported, to code compiled afterwards; if
    numba's internals differ, or ``NUMBA_DEBUG_NRT`` is set, the functions are compiled with their
    reference counts (slower, same results). Returns whether it is active.
    """
    try:
        from numba.core import config
        from numba.core.runtime import context
    except ImportError:  # pragma: no cover - another numba layout
        return False
    original = getattr(context.NRTContext, "_call_incref_decref", None)
    if original is None or config.DEBUG_NRT:
        return False
    if getattr(original, "_simkit_refcount_free", False):
        return True

    def _call_incref_decref(self, builder, typ, value, funcname):
        # the function itself (``_ZN<module><name>B...``), not its Python wrapper ("cpython" in
        # front), which must release the arrays it unboxes
        if _REFCOUNT_FREE and builder.function.name.startswith(tuple(_REFCOUNT_FREE)):
            return None
        return original(self, builder, typ, value, funcname)

    _call_incref_decref._simkit_refcount_free = True
    context.NRTContext._call_incref_decref = _call_incref_decref
    return True


REFCOUNT_FREE = _refcount_free_patch()  #: whether ``refcounts=False`` takes effect (see :func:`_refcount_free_patch`)

_LLVM_INLINE: set[str] = set()  #: LLVM name prefixes of the functions compiled with ``inline_in_llvm=True``


def _llvm_inline_patch() -> bool:
    """Give the functions marked ``inline_in_llvm=True`` LLVM's ``alwaysinline`` attribute.

    numba's ``inline="always"`` inlines a function's *numba IR* at every call site: the caller
    then translates, types, rewrites and lowers the inlined body itself, at each site, in one ever
    larger function (numba's passes cost more than linearly in a function's size). A function
    marked ``inline_in_llvm=True`` is compiled once as a function of its own (typed once, cached
    on disk, and compilable in another process: :func:`simkit.engine.compiled.compile_ahead`);
    numba links its LLVM IR into each caller's module, and with ``alwaysinline`` LLVM inlines it
    there, so the machine code is as if it had been written in the caller (no call, no arguments
    passed: a Table's 35 arrays cost nothing to hand over). The attribute is set when the
    function's own module is added to its code library, before numba optimises it, and travels
    with the IR that callers link (also from numba's cache). Applied when simkit is imported, to
    code compiled afterwards; if numba's internals differ the functions are called instead (same
    results). Returns whether it is active.
    """
    try:
        from numba.core import codegen
    except ImportError:  # pragma: no cover - another numba layout
        return False
    library = getattr(codegen, "CPUCodeLibrary", None)
    original = getattr(library, "add_ir_module", None)
    if original is None:  # pragma: no cover - another numba layout
        return False
    if getattr(original, "_simkit_llvm_inline", False):
        return True

    def add_ir_module(self, ir_module):
        if _LLVM_INLINE:
            for fn in getattr(ir_module, "functions", ()):
                if not fn.is_declaration and fn.name.startswith(tuple(_LLVM_INLINE)):
                    fn.attributes.add("alwaysinline")
        return original(self, ir_module)

    add_ir_module._simkit_llvm_inline = True
    add_ir_module.__wrapped__ = original
    library.add_ir_module = add_ir_module
    return True


LLVM_INLINE = _llvm_inline_patch()  #: whether ``inline_in_llvm=True`` takes effect (see :func:`_llvm_inline_patch`)


def _switched_on(variable: str) -> bool:
    """Whether the numba patch that environment ``variable`` switches is on (it is unless set to 0)."""

    return os.environ.get(variable, "1") != "0"


class _SimkitCompiles(_event.Listener):
    """Counts the compiles in progress (numba's ``numba:compile`` events, which nest as numba
    compiles a function's callees inside its own compile) that are of simkit's kernels. numba holds
    one global compiler lock, so there is one such nest at a time."""

    def __init__(self):
        self.stack = []

    def on_start(self, ev):
        dispatcher = (ev.data or {}).get("dispatcher")
        self.stack.append(_is_simkit_kernel(getattr(dispatcher, "py_func", None)))

    def on_end(self, ev):
        if self.stack:
            self.stack.pop()


_COMPILES = _SimkitCompiles()
_event.register("numba:compile", _COMPILES)


def in_simkit_compile() -> bool:
    """Whether numba is compiling one of simkit's kernels (or something such a compile pulls in:
    the overloads and callees it types): the compile-time patches below act only then, so numba
    compiles everything else -- a user's own functions and policies included -- as it would without
    simkit."""
    return True in _COMPILES.stack


def _inline_copy_patch() -> bool:
    """Copy a function's IR for ``inline="always"`` in time linear in its size, not quadratic.

    To inline a function numba deep-copies its IR block by block (``InlineWorker.inline_ir``'s
    ``copy_ir``), each block with a fresh memo; every variable refers to the function's one
    ``Scope``, which holds all its variables, so each block copied the whole scope again (numba
    issues #8989 and #9204; numba-cuda #688 and #689 cut the same copies). Here the blocks of one
    IR, copied within one ``inline_ir`` call, share one memo: the scope and anything else the
    blocks share is copied once, and the copies share it as the original blocks do. The inlined
    code is the same (the engine's frozen digests and every test pass either way); the engine's
    cold compile went from 52 to 42 s.

    ``inline_ir`` also copies its fresh copy once more, into a ``callee_ir_original`` it returns
    and both of numba's callers (the untyped and the overload inliner) discard: a block this
    ``inline_ir`` call made itself is returned as it is, not copied again. Active only while numba
    compiles simkit's kernels (:func:`in_simkit_compile`), unless ``SIMKIT_NUMBA_INLINE_COPY=0``; skipped if
    numba's internals differ. Returns whether it is active.
    """

    if not _switched_on("SIMKIT_NUMBA_INLINE_COPY"):
        return False
    try:
        from numba.core import inline_closurecall, ir
    except ImportError:  # pragma: no cover - another numba layout
        return False
    worker = getattr(inline_closurecall, "InlineWorker", None)
    original = getattr(worker, "inline_ir", None)
    if original is None or not hasattr(ir, "Block"):
        return False
    if getattr(original, "_simkit_inline_copy", False):
        return True
    if getattr(inline_closurecall, "copy", None) is not copy:
        return False  # pragma: no cover - numba copies differently now

    class _SharedMemoCopy:
        """The ``copy`` module as ``inline_closurecall`` sees it: ``deepcopy`` of an IR block
        shares one memo with the other blocks of its scope during one ``inline_ir`` call."""

        memos = None  # {id(scope): memo} during an inline_ir call
        made = None  # {id(block)} of the copies made during an inline_ir call (alive until it returns)

        def __getattr__(self, name):
            return getattr(copy, name)

        def deepcopy(self, x, memo=None):
            if memo is None and self.memos is not None and isinstance(x, ir.Block):
                if id(x) in self.made:  # inline_ir's copy of its own copy, for a result nobody reads
                    return x
                memo = self.memos.setdefault(id(x.scope), {})  # the scope outlives the call: its id is stable
                block = copy.deepcopy(x, memo)
                self.made.add(id(block))
                return block
            return copy.deepcopy(x, memo)

    shim = _SharedMemoCopy()

    def inline_ir(self, *args, **kwargs):
        if not in_simkit_compile():  # another compile: numba's own copies (shim.memos stays None)
            return original(self, *args, **kwargs)
        saved = shim.memos, shim.made
        shim.memos, shim.made = {}, set()  # fresh for every call: two inlines of one function get separate copies
        try:
            return original(self, *args, **kwargs)
        finally:
            shim.memos, shim.made = saved

    inline_ir._simkit_inline_copy = True
    inline_ir.__wrapped__ = original
    inline_closurecall.copy = shim
    worker.inline_ir = inline_ir
    return True


INLINE_COPY = _inline_copy_patch()  #: whether IR copies for inlining are linear (see :func:`_inline_copy_patch`)


def _flags_compare_patch() -> bool:
    """Compare and hash numba's compile flags without a Python property call per option.

    numba caches the implementation of every ``@overload`` ed call (numpy functions, ``len``,
    array methods ...) under a key that holds the compile's ``Flags``; each typing of such a call
    hashes the key and compares it with the cached ones. ``TargetConfig.__hash__`` and
    ``__eq__`` build a dict of all ~40 options through their properties each time, and the
    engine's cold compile makes tens of thousands of such lookups. Here ``values()`` reads the
    stored options with their defaults directly (what each property's getter does), ``__eq__``
    of two flags of one class compares only the options either of them stores (the others are
    at their defaults in both), and ``__hash__`` -- numba's
    is the hash of the sorted option *names* (``sorted`` of the dict), the same for every
    instance of a class -- is computed once per class. Same keys, same equality,
    same hashes; active only while numba compiles simkit's kernels (:func:`in_simkit_compile`; numba's
    own methods otherwise) unless ``SIMKIT_NUMBA_FLAGS_COMPARE=0``, and only
    if numba's internals are as expected (checked on a fresh ``Flags``). Returns whether it is
    active.
    """

    if not _switched_on("SIMKIT_NUMBA_FLAGS_COMPARE"):
        return False
    try:
        from numba.core import targetconfig
        from numba.core.compiler import Flags
    except ImportError:  # pragma: no cover - another numba layout
        return False
    config = getattr(targetconfig, "TargetConfig", None)
    original = getattr(config, "values", None)
    if original is None or not isinstance(getattr(config, "options", None), type(Flags.options)):
        return False  # pragma: no cover - another numba layout
    if getattr(original, "_simkit_flags_compare", False):
        return True
    hashes = {}

    original_eq, original_hash = config.__eq__, config.__hash__

    def fast_values(self):
        stored = self._values
        return {name: stored.get(name, option.default) for name, option in self.options.items()}

    def fast_eq(self, other):
        if self is other:
            return True
        if type(self) is type(other):  # options neither stores are at their defaults in both
            mine, theirs, options = self._values, other._values, self.options
            if mine.keys() == theirs.keys():
                return mine == theirs
            for name in mine.keys() | theirs.keys():
                default = options[name].default
                if mine.get(name, default) != theirs.get(name, default):
                    return False
            return True
        if isinstance(other, config):
            return fast_values(self) == fast_values(other)
        return NotImplemented

    def fast_hash(self):
        cls = type(self)
        h = hashes.get(cls)
        if h is None:
            h = hashes[cls] = hash(tuple(sorted(self.options)))
        return h

    def values(self):
        return fast_values(self) if in_simkit_compile() else original(self)

    def __eq__(self, other):
        return fast_eq(self, other) if in_simkit_compile() else original_eq(self, other)

    def __hash__(self):
        return fast_hash(self) if in_simkit_compile() else original_hash(self)

    probe = Flags()
    probe.nrt = True  # one option set, the others at their defaults
    if fast_values(probe) != original(probe) or fast_hash(probe) != original_hash(probe):
        return False  # pragma: no cover - numba's options behave otherwise now
    values._simkit_flags_compare = True
    values.__wrapped__ = original
    values.fast = fast_values
    __eq__.fast = fast_eq
    __hash__.fast = fast_hash
    config.values = values
    config.__eq__ = __eq__
    config.__hash__ = __hash__
    return True


FLAGS_COMPARE = _flags_compare_patch()  #: whether numba's flags compare fast (see :func:`_flags_compare_patch`)


def _inline_frontend_patch() -> bool:
    """Translate a function inlined with ``inline="always"`` once per compile, not at every call site.

    To inline a call numba runs its whole untyped pipeline on the callee -- bytecode to IR, SSA,
    rewrites, the callee's own inlining -- at every call site (``InlineWorker.inline_function``),
    then copies that IR into the caller; the engine inlines some small functions (the hand loop's
    ``_end``, the hand kernels' ``suit_code``) at a dozen sites or so. Here the
    callee's IR is kept after its first translation, for the rest of the outermost compile in progress (the
    ``numba:compile`` events' nesting; nothing a function refers to changes during one compile),
    keyed by the function and everything the pipeline reads (the typing context, the target
    context's and the compiler's kinds -- each compile has its own copies of them, made from its
    flags -- locals, flags); each site
    gets a copy (numba copies the IR before changing it in any case) under a fresh function
    identity, so the inlined variables get names of their own as before. Active only while numba
    compiles simkit's kernels (:func:`in_simkit_compile`), unless ``SIMKIT_NUMBA_INLINE_FRONTEND=0``; skipped if
    numba's internals differ. Returns whether it is active.
    """

    if not _switched_on("SIMKIT_NUMBA_INLINE_FRONTEND"):
        return False
    try:
        from numba.core import event, inline_closurecall
    except ImportError:  # pragma: no cover - another numba layout
        return False
    worker = getattr(inline_closurecall, "InlineWorker", None)
    original = getattr(worker, "inline_function", None)
    if original is None or not hasattr(worker, "run_untyped_passes") or not hasattr(event, "Listener"):
        return False  # pragma: no cover - another numba layout
    if getattr(original, "_simkit_inline_frontend", False):
        return True

    class _Outermost(event.Listener):
        """Keeps the translated IR for the duration of the outermost compile."""

        depth = 0
        translated: dict = {}

        def on_start(self, ev):
            self.depth += 1

        def on_end(self, ev):
            self.depth -= 1
            if self.depth <= 0:
                self.depth = 0
                self.translated.clear()

    outermost = _Outermost()
    event.register("numba:compile", outermost)

    def inline_function(self, caller_ir, block, i, function, arg_typs=None):
        if outermost.depth <= 0 or self.flags is None or not in_simkit_compile():  # as numba does
            return original(self, caller_ir, block, i, function, arg_typs=arg_typs)
        flags = self.flags.values()
        flags["enable_ssa"] = False  # what run_untyped_passes sets
        try:
            key = (
                # each compile has its own copy of the target context and pipeline, set from its flags
                function,
                id(self.typingctx),
                type(self.targetctx),
                type(self.pipeline),
                tuple(sorted((k, repr(v)) for k, v in (self.locals or {}).items())),
                tuple(sorted((k, repr(v)) for k, v in flags.items())),
            )
        except Exception:  # noqa: BLE001 -- an option without a repr: as numba does
            return original(self, caller_ir, block, i, function, arg_typs=arg_typs)
        callee_ir = outermost.translated.get(key)
        if callee_ir is None:
            callee_ir = outermost.translated[key] = self.run_untyped_passes(function)
        else:
            self.flags.enable_ssa = False  # run_untyped_passes's side effect on the caller's flags
            callee_ir = callee_ir.copy()  # new blocks list (inline_ir deep-copies the blocks)
            callee_ir.func_id = type(callee_ir.func_id).from_function(function)  # a fresh unique name
        return self.inline_ir(caller_ir, block, i, callee_ir, function.__code__.co_freevars, arg_typs=arg_typs)

    inline_function._simkit_inline_frontend = True
    inline_function.__wrapped__ = original
    worker.inline_function = inline_function
    return True


INLINE_FRONTEND = (
    _inline_frontend_patch()
)  #: whether inlined functions are translated once per compile (see :func:`_inline_frontend_patch`)


def _error_markup_patch() -> bool:
    """Mark up numba's error texts without colorama's stream wrapping.

    While it types a call numba tries candidate signatures and formats an error message for each
    one that does not fit, most of them never shown; with colorama installed each piece of such a
    message goes through ``HighlightColorScheme._markup``, which wraps and unwraps ``sys.stdout``
    and ``sys.stderr`` (colorama's ``init`` and ``deinit``) around a string concatenation: about
    34,000 times in the engine's cold compile. The text it returns is the colour, the style, the
    message and colorama's ``Style.RESET_ALL``; here that same text is made directly. Active only
    while numba compiles simkit's kernels (:func:`in_simkit_compile`), unless ``SIMKIT_NUMBA_ERROR_MARKUP=0``; skipped where numba does not use
    colorama. Returns whether it is active.
    """

    if not _switched_on("SIMKIT_NUMBA_ERROR_MARKUP"):
        return False
    try:
        from numba.core import errors
    except ImportError:  # pragma: no cover - another numba layout
        return False
    scheme = getattr(errors, "HighlightColorScheme", None)
    original = getattr(scheme, "_markup", None)
    style = getattr(errors, "Style", None)
    if original is None or style is None:
        return False  # no colorama: numba marks nothing up
    if getattr(original, "_simkit_error_markup", False):
        return True

    default_style = inspect.signature(original).parameters["style"].default

    def fast_markup(self, msg, color=None, style=default_style):
        return f"{color or ''}{style or ''}{msg}{errors.Style.RESET_ALL}"

    def _markup(self, msg, color=None, style=default_style):
        if in_simkit_compile():
            return fast_markup(self, msg, color, style)
        return original(self, msg, color, style)

    probe = scheme()
    if fast_markup(probe, "x", "c") != original(probe, "x", "c") or fast_markup(probe, "x") != original(probe, "x"):
        return False  # pragma: no cover - numba's markup is made otherwise now
    _markup.fast = fast_markup
    _markup._simkit_error_markup = True
    _markup.__wrapped__ = original
    scheme._markup = _markup
    return True


ERROR_MARKUP = (
    _error_markup_patch()
)  #: whether numba's error texts are marked up directly (see :func:`_error_markup_patch`)


_BY_SYMBOL: set[str] = set()  #: LLVM name prefixes of the functions compiled with ``called_by_symbol=True``


class _LoadFirst:
    """Compiles (or loads from numba's cache) one signature of a ``called_by_symbol`` function
    and makes its machine code known under the symbol a caller's code calls: run by numba before
    it loads a cached caller (numba's ``reload_init``). numba's symbols hold a per-process
    counter, so the function loaded now (perhaps compiled by another process since) may carry
    another name than the caller's declaration: its address is then added under that name too.
    Picklable: the module, the qualified name, the argument types and the caller's symbol."""

    def __init__(self, module: str, qualname: str, args: tuple, symbol: str):
        self.key = (module, qualname, tuple(args), symbol)

    def __eq__(self, other):
        return isinstance(other, _LoadFirst) and other.key == self.key

    def __hash__(self):
        return hash(self.key)

    def __repr__(self):
        return f"_LoadFirst{self.key[:2]}"

    def __call__(self):
        module, qualname, args, symbol = self.key
        dispatcher = importlib.import_module(module)
        for part in qualname.split("."):
            dispatcher = getattr(dispatcher, part)
        dispatcher.compile(args)
        cres = dispatcher.overloads[args]
        name = cres.fndesc.llvm_func_name
        if name != symbol:
            binding.add_symbol(symbol, cres.library.get_pointer_to_function(name))


_LOAD_FIRST: dict = {}  #: symbol of a compiled ``called_by_symbol`` function -> its :class:`_LoadFirst`
#: the same, keyed by the symbol without numba's per-process tag (``B<n>v<counter>``): a library
#: linked from the cache may declare the function under the name another process gave it
_LOAD_FIRST_ANY_TAG: dict = {}
_TAG = re.compile(r"B\d+v\d+")


def _untagged(symbol: str) -> str:
    """``symbol`` without numba's per-process tag (the first ``B<n>v<counter>``)."""
    return _TAG.sub("", symbol, count=1)


_BY_SYMBOL_LIBRARIES: dict = {}  #: id of such a function's code library -> the library


def _called_by_symbol_patch() -> bool:
    """Link the functions marked ``called_by_symbol=True`` into their callers by symbol.

    numba links the LLVM IR of every function a kernel calls (and of what those call) into the
    kernel's code library, where LLVM optimises it and emits its machine code again: the engine's
    cold compile optimised and emitted shanten, the scoring, the table checks and the discard
    evaluation three or four times each (the match kernel's library held 20,000 LLVM
    instructions, 5,900 of them its own). Here a caller's library links no copy of a marked
    function's library: the call stays a declaration, which the JIT resolves to the function's
    own machine code (compiled or loaded in this process before the caller, as numba compiles
    callees first). So that a cached caller finds the symbol defined when numba loads it, the
    caller's library gets, for each marked function it declares, a :class:`_LoadFirst` among
    numba's ``reload_init`` functions, which numba runs (and caches with the caller) before
    loading the caller's code; a declaration that comes from a library linked from the cache, under
    the name another process gave the function (numba's names carry a per-process counter), gets
    its :class:`_LoadFirst` too, found by the name without that tag. The machine code of each
    function is the same as in the copies;
    the calls were calls before too. Applied when simkit is imported, to code compiled
    afterwards, unless ``SIMKIT_NUMBA_BY_SYMBOL=0``; skipped if numba's internals differ.
    Returns whether it is active.
    """

    if not _switched_on("SIMKIT_NUMBA_BY_SYMBOL"):
        return False
    try:
        from numba.core import codegen, dispatcher
    except ImportError:  # pragma: no cover - another numba layout
        return False
    library = getattr(codegen, "CPUCodeLibrary", None)
    finalize = getattr(library, "finalize", None)
    add_overload = getattr(getattr(dispatcher, "Dispatcher", None), "add_overload", None)
    if finalize is None or add_overload is None:
        return False  # pragma: no cover - another numba layout
    if getattr(finalize, "_simkit_by_symbol", False):
        return True

    def patched_add_overload(self, cres):
        add_overload(self, cres)
        fndesc, lib = getattr(cres, "fndesc", None), getattr(cres, "library", None)
        name = getattr(fndesc, "mangled_name", "")
        if _BY_SYMBOL and lib is not None and name.startswith(tuple(_BY_SYMBOL)):
            fn = self.py_func
            _LOAD_FIRST[name] = _LoadFirst(fn.__module__, fn.__qualname__, cres.signature.args, name)
            _LOAD_FIRST_ANY_TAG[_untagged(name)] = _LOAD_FIRST[name]
            _BY_SYMBOL_LIBRARIES[id(lib)] = lib

    def patched_finalize(self):
        linked = getattr(self, "_linking_libraries", None)
        if _BY_SYMBOL_LIBRARIES and linked:
            by_symbol = [lib for lib in linked if _BY_SYMBOL_LIBRARIES.get(id(lib)) is lib]
            if by_symbol:
                self._linking_libraries = [lib for lib in linked if _BY_SYMBOL_LIBRARIES.get(id(lib)) is not lib]
                for lib in by_symbol:
                    self._reload_init.update(lib._reload_init)
        finalize(self)
        if _LOAD_FIRST:
            for fn in self._final_module.functions:
                if not fn.is_declaration:
                    continue
                if fn.name in _LOAD_FIRST:
                    self._reload_init.add(_LOAD_FIRST[fn.name])
                else:  # declared under the name another process gave it (a library from the cache)
                    known = _LOAD_FIRST_ANY_TAG.get(_untagged(fn.name))
                    if known is not None:
                        module, qualname, args, _ = known.key
                        self._reload_init.add(_LoadFirst(module, qualname, args, fn.name))

    patched_finalize._simkit_by_symbol = True
    patched_finalize.__wrapped__ = finalize
    patched_add_overload.__wrapped__ = add_overload
    library.finalize = patched_finalize
    dispatcher.Dispatcher.add_overload = patched_add_overload
    return True


BY_SYMBOL = (
    _called_by_symbol_patch()
)  #: whether ``called_by_symbol=True`` takes effect (see :func:`_called_by_symbol_patch`)
