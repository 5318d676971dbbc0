"""The one place numba options live.

Every kernel in simkit is compiled through :func:`jit` (serial) or :func:`pjit` (``parallel=True``,
for batch kernels with ``prange``). ``cache=True`` writes compiled machine code next to the sources
(or to ``NUMBA_CACHE_DIR``), so a second process starts without recompiling. ``fastmath`` stays off:
results must be bit-identical across machines and thread counts.
"""

import numba

__all__ = ["jit", "pjit", "prange", "threading_layer", "borrow"]

_OPTIONS = dict(cache=True, nogil=True, fastmath=False, error_model="numpy")

prange = numba.prange


def jit(*args, **kwargs):
    """Decorate a serial kernel (``@jit`` or ``@jit(inline="always")``)."""
    opts = dict(_OPTIONS, **kwargs)
    if args and callable(args[0]):
        return numba.njit(**opts)(args[0])
    return numba.njit(*args, **opts)


def pjit(*args, **kwargs):
    """Decorate a batch kernel that uses ``prange`` over independent rows."""
    opts = dict(_OPTIONS, parallel=True, **kwargs)
    if args and callable(args[0]):
        return numba.njit(**opts)(args[0])
    return numba.njit(*args, **opts)


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


from numba.core import cgutils, types  # noqa: E402
from numba.extending import intrinsic  # noqa: E402


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


_NULL_CHECKED_IN = "_simkit_engine_"  #: functions of the generated engine instances (simkit.engine.compiled)


def _null_checked_refcounts() -> bool:
    """In the engine's policy-bound functions, emit each reference-count call behind an inline
    ``meminfo != NULL`` test.

    numba's ``NRT_incref`` / ``NRT_decref`` already return at once on a NULL meminfo, but they are
    out-of-line calls, so each of the many :func:`borrow` ed arrays put into a policy's View costs
    a call per decision. With the test inline those calls are skipped: about 25% more random vs
    random hands/s, same behaviour. Only the functions of the generated engine instances (LLVM
    names containing ``_simkit_engine_``) get it; elsewhere the branches hamper numba's
    reference-count pruning and cost more than they save (measured: the hand kernels compiled
    this way made the engine slower). Applied when simkit is imported, to code compiled
    afterwards; skipped (only speed is lost) if numba's internals differ or ``NUMBA_DEBUG_NRT``
    is set. Returns whether it is active.
    """
    try:
        from numba.core import config
        from numba.core.runtime import context
        from numba.core.runtime.nrtdynmod import incref_decref_ty
    except ImportError:  # pragma: no cover - another numba layout
        return False
    original = getattr(context.NRTContext, "_call_incref_decref", None)
    if original is None or config.DEBUG_NRT:
        return False
    if getattr(original, "_simkit_null_checked", False):
        return True

    def _call_incref_decref(self, builder, typ, value, funcname):
        if _NULL_CHECKED_IN not in builder.function.name:
            return original(self, builder, typ, value, funcname)
        global NULL_CHECKED_EMITTED
        NULL_CHECKED_EMITTED += 1
        self._require_nrt()
        for _, mi in self.get_meminfos(builder, typ, value):
            fn = cgutils.get_or_insert_function(builder.module, incref_decref_ty, funcname)
            fn.args[0].add_attribute("noalias")
            with builder.if_then(cgutils.is_not_null(builder, mi), likely=True):
                builder.call(fn, [mi])

    _call_incref_decref._simkit_null_checked = True
    context.NRTContext._call_incref_decref = _call_incref_decref
    return True


NULL_CHECKED_EMITTED = 0  #: reference-count operations emitted with the inline test so far (compile time)
NULL_CHECKED_REFCOUNTS = _null_checked_refcounts()  #: whether :func:`_null_checked_refcounts` is active
