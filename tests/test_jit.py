"""simkit._jit: ``borrow`` (a reference-count-free view of an array) and ``jit(refcounts=False)``
(functions compiled without reference counts), and that the engine built with them frees
everything it allocates."""

from __future__ import annotations

import numpy as np
import pytest

from simkit._jit import borrow, jit, stack_empty


@jit
def _fill_through_borrowed(a, b):  # pragma: no cover - compiled
    v = borrow(a)
    w = borrow(b)
    v[0, 1] = 5
    row = v[1]  # a view of a borrowed array is borrowed too
    row[2] = 7
    return v.shape[0], v.shape[1], v.sum(), w[-1]


def test_borrowed_views_share_memory_and_shape():
    a = np.zeros((2, 3), np.int64)
    b = np.arange(4, dtype=np.uint8)
    n0, n1, total, last = _fill_through_borrowed(a, b)
    assert (n0, n1, total, last) == (2, 3, 12, 3)
    assert a[0, 1] == 5 and a[1, 2] == 7


_SHAPE_3D = (2, 3, 5)  # a global tuple: numba sees its dimensions as constants


@jit(cache=False)
def _stack_scratch():
    a = stack_empty(7, np.uint8)
    b = stack_empty(_SHAPE_3D, np.int16)
    c = stack_empty((4, 2), np.float64)
    for i in range(7):
        a[i] = i
    for i in range(2):
        for j in range(3):
            for k in range(5):
                b[i, j, k] = 100 * i + 10 * j + k
    for i in range(4):
        for j in range(2):
            c[i, j] = i - j / 2
    return a.sum(), b.shape, b.strides, b.sum(), b[1, 2, 4], c.shape, c.strides, c.sum(), b.flags.c_contiguous


def test_stack_empty_gives_c_ordered_arrays_of_any_constant_shape():
    expected = np.arange(30).reshape(_SHAPE_3D)
    b = 100 * (expected // 15) + 10 * (expected % 15 // 5) + expected % 5
    c = np.arange(4)[:, None] - np.arange(2)[None, :] / 2
    assert _stack_scratch() == (21, (2, 3, 5), (30, 10, 2), b.sum(), 124, (4, 2), (16, 8), c.sum(), True)
    assert stack_empty((2, 3), np.int8).shape == (2, 3)  # plain Python: np.empty


_REFCOUNT_BODY = """
def {name}(a, d):
    b = a[1:]
    pair = (a, b)
    s = 0.0
    for i in range(3):
        row = d[i]
        row[:] = pair[1][0] + i
        s += inner(row, pair) + inner(b, (b, row))
    return s
"""

_REFCOUNT_SOURCE = (
    """
import numpy as np
import pytest
from simkit._jit import jit


@jit(cache=False)
def inner(v, pair):
    return v.sum() + pair[1][0]

"""
    + _REFCOUNT_BODY.format(name="counted")
    + _REFCOUNT_BODY.format(name="free")
    + """
counted = jit(cache=False)(counted)
free = jit(cache=False, refcounts=False)(free)
"""
)


def _nrt_calls(dispatcher):
    """(NRT_incref, NRT_decref) calls the compiled function makes itself, in its LLVM definition.

    Calls that LLVM's inliner brought in with a callee (``inner``, which keeps its own counts) carry
    the alias-scope metadata (``!noalias``) the inliner attaches to an inlined call; whether LLVM
    inlines a callee depends on its cost model, so those calls are left out of the count."""
    import re

    from numba.core.itanium_mangler import mangle_identifier

    py = dispatcher.py_func
    marker = mangle_identifier(py.__module__) + mangle_identifier(py.__qualname__)
    ir = next(iter(dispatcher.inspect_llvm().values()))
    bodies = [chunk[: chunk.find("\n}")] for chunk in ir.split("\ndefine ")[1:]]
    own = [b for b in bodies if re.search(rf'@"?_ZN{marker}', b.split("\n", 1)[0])]
    assert len(own) == 1, [b.split("\n", 1)[0][:120] for b in bodies]
    calls = [line for line in own[0].split("\n") if "!noalias" not in line]
    return sum("@NRT_incref" in c for c in calls), sum("@NRT_decref" in c for c in calls)


def test_refcounts_false_emits_no_reference_counting():
    """A function compiled with ``refcounts=False`` has no NRT_incref / NRT_decref calls, the same
    body compiled normally has them, and both compute the same. Checked in a fresh process with
    numba's reference-count pruning limited to its per-block pass: with all its passes (numba
    0.68's default) this small body's counts are pruned away anyway, which would leave nothing
    to compare."""
    import os
    import subprocess
    import sys

    code = (
        "import sys, types, numpy as np; sys.path.insert(0, 'tests'); import test_jit as t\n"
        "from simkit import _jit; assert _jit.REFCOUNT_FREE\n"
        "m = types.ModuleType('refcount_test')\n"
        "exec(compile(t._REFCOUNT_SOURCE, '<refcount_test>', 'exec'), m.__dict__)\n"
        "a = np.arange(5.0); d1 = np.zeros((3, 5)); d2 = np.zeros((3, 5))\n"
        "assert m.counted(a, d1) == m.free(a, d2); np.testing.assert_array_equal(d1, d2)\n"
        "print(*t._nrt_calls(m.counted), *t._nrt_calls(m.free))\n"
    )
    env = dict(os.environ, NUMBA_LLVM_REFPRUNE_FLAGS="per_bb")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    inc, dec, free_inc, free_dec = (int(v) for v in out.stdout.split())
    assert inc > 0 and dec > 0
    assert (free_inc, free_dec) == (0, 0)


_NRT_CHECK = """
import sys
import numpy as np
import pytest
from numba.core.runtime import rtsys, _nrt_python
_nrt_python.memsys_enable_stats()
from simkit._jit import jit
from simkit.play.matches import simulate_matches

def delta(run):
    before = rtsys.get_allocation_stats()
    run()
    after = rtsys.get_allocation_stats()
    return after.alloc - before.alloc, after.free - before.free

if sys.argv[1] == "engine":
    from simkit.policies.basic import random_policy

    @jit(inline="always", cache=False)
    def inlined(view, legal, params, rng):  # allocates at every decision
        scratch = np.empty(legal.shape[0], np.int64)
        scratch[0] = 0
        return random_policy(view, legal, params, rng) + scratch[0]

    runs = [("douque", ("random", "random")), ("douque", ("greedy", "random")), ("douque", ("random", inlined))]
    runs += [("for_two", ("random", "random")), ("for_two", ("greedy", "random"))]
    for rules, pair in runs:
        simulate_matches(rules, pair, 2, seed=0)  # compile / load first
        alloc, free = delta(lambda: simulate_matches(rules, pair, 20, seed=1))
        print(rules, pair[0], getattr(pair[1], "__name__", pair[1]), alloc, free)
    # replay plays on a table it owns (not borrowed): views of it are taken without counts too
    from simkit.play.matches import replay
    replay(1, 0, 0, policies=("random", "random"))
    alloc, free = delta(lambda: [replay(1, m, 2, policies=("random", "random")) for m in range(5)])
    print("douque", "replay", "random", alloc, free)
    # a hand from a given state: the kernel plays a copy of the caller's table
    from simkit.engine.deal import wall_template
    from simkit.play.matches import play_hand
    from simkit.rules import resolve_rules
    wall = np.random.default_rng(0).permutation(wall_template(resolve_rules("douque")))
    play_hand(wall, policies=("random", "random"))
    alloc, free = delta(lambda: [play_hand(wall, policies=("random", "random"), seed=s) for s in range(5)])
    print("douque", "play_hand", "random", alloc, free)
else:
    # called from Python, a refcount-free function's wrapper still releases what it unboxes
    @jit(cache=False, refcounts=False)
    def total(a, b):
        return a.sum() + b[1:].sum()
    x, y = np.ones(4), np.ones(3)
    total(x, y)
    before = rtsys.get_allocation_stats()
    for _ in range(10):
        total(x, y)
    after = rtsys.get_allocation_stats()
    print("wrapper", "-", "-", after.mi_alloc - before.mi_alloc, after.mi_free - before.mi_free)
    # a planted violation: a refcount-free function that allocates leaks what it allocates
    @jit(cache=False, refcounts=False)
    def leaky(n):
        a = np.ones(n)
        return a.sum()
    leaky(3)
    alloc, free = delta(lambda: [leaky(3) for _ in range(10)])
    print("leaky", "-", "-", alloc, free)
    # scratch on the stack: a refcount-free function with stack_empty arrays allocates nothing
    from simkit._jit import stack_empty

    @jit(cache=False, refcounts=False)
    def on_stack(n):
        a = stack_empty(40, np.int64)
        s = 0
        for r in range(n):
            b = stack_empty(8, np.uint8)  # one slot per call site, reused by every iteration
            for i in range(40):
                a[i] = i + r
            for i in range(8):
                b[i] = i
            s += a.sum() + b.sum()
        return s
    on_stack(1)
    alloc, free = delta(lambda: [on_stack(5) for _ in range(10)])
    print("stack", on_stack(5), "-", alloc, free)
    # greedy (and the toolkit's discard table under it) keeps its scratch on the stack
    import simkit
    from simkit.policies.basic import GREEDY_DEFAULTS, greedy_policy

    @jit(cache=False)
    def ask(view, legal, params, rng, times):  # the decision asked `times` times from compiled code
        a = -1
        for _ in range(times):
            a = greedy_policy(view, legal, params, rng)
        return a

    for rules in ("douque", "for_two"):
        st = simkit.GameState.new_match(rules, seed=3)
        ask(st.view(), st.legal, GREEDY_DEFAULTS, st.policy_stream(), 1)  # compile / load first
        n = alloc = free = 0
        while not st.over:
            view, legal, stream = st.view(), st.legal, st.policy_stream()
            once = delta(lambda: ask(view, legal, GREEDY_DEFAULTS, stream, 1))  # the wrapper's unboxing
            more = delta(lambda: ask(view, legal, GREEDY_DEFAULTS, stream, 11))
            n, alloc, free = n + 1, alloc + more[0] - once[0], free + more[1] - once[1]
            st.apply(int(ask(view, legal, GREEDY_DEFAULTS, stream, 1)))
        print("greedy", rules, n, alloc, free)
"""


def _nrt_balance(what):
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _NRT_CHECK, what], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    return [line.split() for line in out.stdout.splitlines()]


def test_engine_frees_everything_it_allocates():
    """The engine's hand and match loops run without reference counts (``refcounts=False``):
    whole matches of every policy pair allocate and free the same number of blocks (numba's
    allocation statistics, in a fresh process so that enabling them does not slow this one),
    also with a policy compiled ``inline="always"`` that allocates at every decision (the engine
    calls such a policy through its function pointer), when replaying, and when playing a hand
    from a given state (the kernel copies the caller's table).
    The same check passes for a refcount-free function called from Python (its wrapper keeps
    its reference counts) and catches a planted refcount-free function that allocates; arrays
    from ``stack_empty`` (in a loop too) hold their values and allocate nothing, and neither does
    ``greedy`` (compiled refcount-free, its scratch on the stack) at any decision of a hand."""
    rows = _nrt_balance("engine")
    assert len(rows) == 7
    for rules, p0, p1, alloc, free in rows:
        assert int(alloc) > 0 and int(alloc) == int(free), (rules, p0, p1, alloc, free)
    (_, _, _, mi_alloc, mi_free), (_, _, _, alloc, free), stack, *greedy = _nrt_balance("planted")
    assert int(mi_alloc) == int(mi_free) == 20  # the two arrays unboxed per call, released
    assert int(alloc) == 10 and int(free) == 0
    # stack_empty: the right values, nothing allocated (5 rounds of 780 + 40 r + 28)
    assert stack == ["stack", str(5 * 808 + 40 * 10), "-", "0", "0"]
    assert [row[1] for row in greedy] == ["douque", "for_two"]
    for _, rules, n, alloc, free in greedy:
        assert int(n) >= 20 and (int(alloc), int(free)) == (0, 0), (rules, n, alloc, free)


_INLINE_BODY = """
import numpy as np
import pytest
from numba.core import inline_closurecall
from simkit import _jit
from simkit._jit import jit

translations = []
_translate = inline_closurecall.InlineWorker.run_untyped_passes
def counting(self, func, *args, **kwargs):
    translations.append(func.__name__)
    return _translate(self, func, *args, **kwargs)
inline_closurecall.InlineWorker.run_untyped_passes = counting

KERNELS = '''
@jit(inline="always", cache=False)
def _clip_sum(a, lo, hi):
    s = 0
    for i in range(a.shape[0]):
        x = a[i]
        if x < lo:
            x = lo
        elif x > hi:
            x = hi
        s += x
    return s

@jit(cache=False)
def three_sites(a):
    return _clip_sum(a, 0, 5) * 100 + _clip_sum(a, 2, 3) * 10 + _clip_sum(a[::2], -1, 9)
'''
import types
module = types.ModuleType("simkit._inline_probe")  # the patches act on simkit's own kernels only
module.jit = jit
exec(KERNELS, module.__dict__)
three_sites = module.three_sites

a = np.array([-3, 1, 4, 7, 2, 9, 0], np.int64)
print(_jit.INLINE_COPY, _jit.INLINE_FRONTEND, three_sites(a), len(translations))
"""


def _clip_sum(a, lo, hi):
    return sum(min(max(int(x), lo), hi) for x in a)


@pytest.mark.parametrize("copy_setting", ["1", "0"])
@pytest.mark.parametrize("frontend_setting", ["1", "0"])
def test_inline_patches_give_the_same_code(copy_setting, frontend_setting):
    """simkit._jit's linear IR copy for inline="always" (on by default, off with
    SIMKIT_NUMBA_INLINE_COPY=0) and its one translation of an inlined function per compile
    (SIMKIT_NUMBA_INLINE_FRONTEND=0: numba's translation at every site) inline a many-block
    function at three sites as numba does."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, SIMKIT_NUMBA_INLINE_COPY=copy_setting, SIMKIT_NUMBA_INLINE_FRONTEND=frontend_setting)
    out = subprocess.run([sys.executable, "-c", _INLINE_BODY], env=env, capture_output=True, text=True, check=True)
    copy_active, frontend_active, value, translations = out.stdout.split()
    a = np.array([-3, 1, 4, 7, 2, 9, 0])
    assert copy_active == ("True" if copy_setting == "1" else "False")
    assert frontend_active == ("True" if frontend_setting == "1" else "False")
    assert int(value) == _clip_sum(a, 0, 5) * 100 + _clip_sum(a, 2, 3) * 10 + _clip_sum(a[::2], -1, 9)
    assert int(translations) == (1 if frontend_setting == "1" else 3)


def test_flags_compare_patch_keeps_numba_s_equality_and_hashes():
    """numba's compile flags compare and hash as numba's own code does (``values.__wrapped__``):
    equal stored options, equal defaults set explicitly, different options, another object."""
    from numba.core import targetconfig
    from numba.core.compiler import Flags

    from simkit import _jit

    assert _jit.FLAGS_COMPARE
    original = targetconfig.TargetConfig.values.__wrapped__
    a, b, c, d, e = Flags(), Flags(), Flags(), Flags(), Flags()
    a.nrt = b.nrt = True
    c.nrt = True
    c.boundscheck = False  # the default, set explicitly: equal to a
    d.nrt = False
    e.nrt = True
    e.boundscheck = True  # an option only e stores, not at its default: not equal to a
    for x in (a, b, c, d, e):
        assert x.values() == original(x)
        assert hash(x) == hash(tuple(sorted(original(x))))
        for y in (a, b, c, d, e):
            assert (x == y) == (original(x) == original(y))
    assert a == b == c and c == a and a != d and a != e and e != c and a != object()
    assert {a: 1}[b] == 1


def test_error_markup_patch_gives_numba_s_text():
    """numba's error texts are marked up as numba's own ``_markup`` does, for every part of a
    message and for the colour themes numba has (where numba uses colorama at all)."""
    import pytest
    from numba.core import errors

    from simkit import _jit

    scheme = getattr(errors, "HighlightColorScheme", None)
    if scheme is None:
        pytest.skip("numba marks nothing up without colorama")
    assert _jit.ERROR_MARKUP
    original = scheme._markup.__wrapped__
    for theme in errors.themes.values():
        s = scheme(theme)
        for part in ("code", "errmsg", "filename", "indicate", "highlight", "reset"):
            for msg in ("", "Unknown attribute 'foo' of type int64", "é\n[1m"):
                colour = getattr(s, "_" + part)
                assert getattr(s, part)(msg) == original(s, msg, colour)


def test_inline_copy_patch_copies_each_scope_once():
    """While the patch is active, the blocks of one inlined function are copied sharing one scope,
    and a block copied during the inlining is not copied again."""
    from numba.core import inline_closurecall, ir

    from simkit import _jit

    assert _jit.INLINE_COPY
    worker = inline_closurecall.InlineWorker
    assert getattr(worker.inline_ir, "_simkit_inline_copy", False)
    shim = inline_closurecall.copy
    scope = ir.Scope(None, ir.Loc("f", 1))
    blocks = []
    for i in range(3):
        b = ir.Block(scope, ir.Loc("f", i))
        v = scope.define(f"x{i}", ir.Loc("f", i))
        b.append(ir.Assign(ir.Const(i, ir.Loc("f", i)), v, ir.Loc("f", i)))
        blocks.append(b)
    shim.memos, shim.made = {}, set()
    try:
        copies = [shim.deepcopy(b) for b in blocks]
        again = [shim.deepcopy(c) for c in copies]  # inline_ir's unused "original": not copied twice
    finally:
        shim.memos, shim.made = None, None
    assert len({id(c.scope) for c in copies}) == 1 and copies[0].scope is not scope
    assert [c.body[0].value.value for c in copies] == [0, 1, 2]
    assert all(a is c for a, c in zip(again, copies))
    separate = [shim.deepcopy(b) for b in blocks]  # outside an inline_ir call: as copy.deepcopy
    assert len({id(c.scope) for c in separate}) == 3


def test_an_internal_kernel_has_no_entry_points_and_runs_inside_kernels():
    """``jit(internal=True)`` (the engine's private helpers): numba builds neither its Python nor its
    C entry point (they cost about half of a small function's compile), and a kernel calls it as any
    other."""

    @jit(internal=True, cache=False)
    def inner(a):  # pragma: no cover - compiled
        return a[0] + 1

    @jit(cache=False)
    def outer(a):  # pragma: no cover - compiled
        return inner(a) * 2

    assert outer(np.array([3], np.int64)) == 8
    (cres,) = inner.overloads.values()
    assert cres.library.get_pointer_to_function(cres.fndesc.llvm_cpython_wrapper_name) == 0
    assert cres.library.get_pointer_to_function(cres.fndesc.llvm_cfunc_wrapper_name) == 0
    (outer_cres,) = outer.overloads.values()
    assert outer_cres.library.get_pointer_to_function(outer_cres.fndesc.llvm_cpython_wrapper_name) != 0


@jit(internal=True, inline_in_llvm=True, cache=False)
def _clip_sum_in_llvm(a, lo, hi):  # pragma: no cover - compiled
    s = 0
    for i in range(a.shape[0]):
        s += min(max(a[i], lo), hi)
    return s


@jit(internal=True, cache=False)
def _clip_sum_called(a, lo, hi):  # pragma: no cover - compiled
    s = 0
    for i in range(a.shape[0]):
        s += min(max(a[i], lo), hi)
    return s


@jit(cache=False)
def _three_sites_in_llvm(a):  # pragma: no cover - compiled
    return _clip_sum_in_llvm(a, 0, 5) * 100 + _clip_sum_in_llvm(a, 2, 3) * 10 + _clip_sum_in_llvm(a[::2], -1, 9)


@jit(cache=False)
def _three_sites_called(a):  # pragma: no cover - compiled
    return _clip_sum_called(a, 0, 5) * 100 + _clip_sum_called(a, 2, 3) * 10 + _clip_sum_called(a[::2], -1, 9)


def _defined_in(llvm_ir: str, name_part: str) -> list[str]:
    """The lines of ``llvm_ir`` that define a function whose name contains ``name_part``."""
    return [line for line in llvm_ir.splitlines() if line.startswith("define") and name_part in line]


def test_inline_in_llvm_marks_the_function_and_llvm_inlines_it():
    """jit(inline_in_llvm=True): the function's own LLVM definition carries ``alwaysinline`` (an
    unmarked one does not), and the caller's optimised module neither calls nor keeps it; the
    results are the function's."""
    import re

    from simkit import _jit

    assert _jit.LLVM_INLINE
    a = np.array([-3, 1, 4, 7, 2, 9, 0], np.int64)
    expected = _clip_sum(a, 0, 5) * 100 + _clip_sum(a, 2, 3) * 10 + _clip_sum(a[::2], -1, 9)
    assert _three_sites_in_llvm(a) == expected == _three_sites_called(a)

    def attributes_of(dispatcher, name_part):
        text = next(iter(dispatcher.inspect_llvm().values()))
        groups = dict(re.findall(r"^attributes (#\d+) = \{([^}]*)\}", text, re.M))
        found = []
        for line in _defined_in(text, name_part):
            ref = re.search(r"\) (?:[a-z_ ]*)(#\d+)", line)
            found.append(groups.get(ref.group(1), "") if ref else line)
        return found

    marked = attributes_of(_clip_sum_in_llvm, "_clip_sum_in_llvm")
    unmarked = attributes_of(_clip_sum_called, "_clip_sum_called")
    assert marked and all("alwaysinline" in attrs for attrs in marked), marked
    assert unmarked and not any("alwaysinline" in attrs for attrs in unmarked), unmarked
    caller = next(iter(_three_sites_in_llvm.inspect_llvm().values())).splitlines()
    calls = [line for line in caller if re.search(r"\b(call|invoke)\b", line) or line.startswith("define")]
    assert not [line for line in calls if "_clip_sum_in_llvm" in line]  # inlined at its 3 sites, no copy kept
    other = next(iter(_three_sites_called.inspect_llvm().values())).splitlines()
    assert [line for line in other if "call" in line and "_clip_sum_called" in line]  # the control is called


_BY_SYMBOL_CALLER = """
import numba, numpy as np
from simkit.hand.shanten import shanten_kernel

@numba.njit(cache=True)
def ready_count(hands, n_melds, t):
    work = np.zeros(20, np.int64)
    n = 0
    for i in range(hands.shape[0]):
        n += shanten_kernel(hands[i], n_melds, t, work) == 0
    return n
"""

_BY_SYMBOL_RUN = """
import json, sys
import numba, numpy as np
from llvmlite import binding
from simkit import _jit
from simkit.hand.sample import random_ready_hands
from simkit.hand.tables import hand_tables
sys.path.insert(0, sys.argv[1])
if sys.argv[2] == "shift":  # another compile first: numba's symbols carry a per-process counter
    numba.njit(lambda x: x + 1)(1)
added = []
add_symbol = binding.add_symbol
binding.add_symbol = lambda name, address: (added.append(name), add_symbol(name, address))[1]
import probe_caller as m
t = hand_tables("douque")
hands = np.concatenate([random_ready_hands(50, seed=1, rules="douque")[0], np.zeros((7, 34), np.uint8)])
n = m.ready_count(hands, 0, t)
(sig,) = m.ready_count.signatures
module = m.ready_count.overloads[sig].library._get_module_for_linking()  # (the IR numba caches with the code)
declared = [f.name for f in module.functions if f.is_declaration and "shanten_kernel" in f.name]
defined = [f.name for f in module.functions if not f.is_declaration and "shanten_kernel" in f.name]
print(json.dumps({"n": int(n), "active": _jit.BY_SYMBOL, "hits": sum(m.ready_count.stats.cache_hits.values()),
                  "declared": declared, "defined": defined, "added": [a for a in added if "shanten_kernel" in a]}))
"""


_LINKED_CALLERS = """
import numba, numpy as np
from simkit.hand.shanten import shanten_kernel

@numba.njit(cache=True)
def ready_count(hands, n_melds, t):
    work = np.zeros(20, np.int64)
    n = 0
    for i in range(hands.shape[0]):
        n += shanten_kernel(hands[i], n_melds, t, work) == 0
    return n

@numba.njit(cache=True)
def ready_twice(hands, n_melds, t):
    return 2 * ready_count(hands, n_melds, t)
"""

_LINKED_RUN = """
import sys
import numba
from simkit.hand.sample import random_ready_hands
from simkit.hand.tables import hand_tables
sys.path.insert(0, sys.argv[1])
if sys.argv[3] == "shift":  # numba's symbols carry a per-process counter
    for i in range(7):
        numba.njit(lambda x: x + i)(1)
import linked_callers as m
hands = random_ready_hands(20, seed=2, rules="douque")[0]
fn = m.ready_count if sys.argv[2] == "inner" else m.ready_twice
print(fn(hands, 0, hand_tables("douque")))
"""


def test_a_caller_linking_a_cached_library_finds_the_callee_under_that_library_s_name(tmp_path):
    """A library from numba's cache may declare a ``called_by_symbol`` function under the name
    another process gave it (numba's symbols carry a per-process counter): ``ready_count`` is
    cached with shanten under one name; shanten is compiled again under another; ``ready_twice``,
    compiled then, links ``ready_count``'s library and so declares the first name. A third process
    loads ``ready_twice`` from the cache: it must find shanten under that name too (an LLVM
    "Symbol not found" abort otherwise)."""
    import os
    import subprocess
    import sys

    (tmp_path / "linked_callers.py").write_text(_LINKED_CALLERS)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))

    def run(which, shift):
        out = subprocess.run(
            [sys.executable, "-c", _LINKED_RUN, str(tmp_path), which, shift],
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert out.returncode == 0, out.stderr[-2000:]
        return int(out.stdout.split()[-1])

    n = run("inner", "-")
    assert n == 20
    for path in (tmp_path / "numba").rglob("shanten.shanten_kernel-*"):  # compiled again, under another name
        path.unlink()
    assert run("outer", "shift") == 2 * n
    assert run("outer", "-") == 2 * n  # ready_twice from the cache


def test_called_by_symbol_functions_are_called_not_copied_and_reload_under_another_name(tmp_path):
    """A kernel calling ``shanten_kernel`` (``called_by_symbol=True``) links no copy of it: its
    library only declares the symbol, and computes what shanten computes. A new process loads
    the kernel from numba's cache after shanten's own cache entry was compiled again (another
    symbol: numba's names carry a per-process counter): numba runs the kernel's ``_LoadFirst``,
    which loads shanten and adds its address under the declared name; same result. With
    ``SIMKIT_NUMBA_BY_SYMBOL=0`` the kernel links a copy, as numba does."""
    import json
    import os
    import subprocess
    import sys

    from simkit.hand.sample import random_ready_hands

    (tmp_path / "probe_caller.py").write_text(_BY_SYMBOL_CALLER)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))

    def run(shift, **extra):
        out = subprocess.run(
            [sys.executable, "-c", _BY_SYMBOL_RUN, str(tmp_path), shift],
            env=dict(env, **extra),
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    expected = 50  # the ready hands; the 7 empty ones are not (wrong size: -2)
    assert len(random_ready_hands(50, seed=1, rules="douque")[0]) == expected
    first = run("-")
    assert first["active"] and first["n"] == expected and first["hits"] == 0
    assert len(first["declared"]) == 1 and first["defined"] == []
    for path in (tmp_path / "numba").rglob("shanten.shanten_kernel-*"):  # compiled again, under another name
        path.unlink()
    second = run("shift")
    assert second["n"] == expected and second["hits"] == 1
    assert second["declared"] == first["declared"] and second["added"] == first["declared"]
    for path in (tmp_path / "numba").rglob("*"):
        if path.is_file():
            path.unlink()
    copied = run("-", SIMKIT_NUMBA_BY_SYMBOL="0")
    assert not copied["active"] and copied["n"] == expected and copied["declared"] == [] and len(copied["defined"]) == 1
