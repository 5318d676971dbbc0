"""Where a cold start's compile time goes: per jitted function and per LLVM library.

Compiles a rule set's engine with two policies from a fresh, temporary cache directory, in this
one process (the compile-ahead helper is switched off, so every compile is seen), and prints:

* per function (``py_func.__qualname__``), its compile time *exclusive* of the functions it
  compiled on the way (numba's nested ``numba:compile`` events) and *inclusive*, in process time
  (CPU seconds: less noisy than wall time on a shared machine) -- the exclusive time includes the
  function's own LLVM work;
* per code library, the time of ``finalize`` (LLVM optimisation and machine code; the match
  kernel's library links in, and optimises again, everything the engine inlines);
* with ``--inlines``: the functions numba inlines (``inline="always"``) at more than one site,
  by sites times their size in IR statements: each site is typed and lowered again, which is
  what ``jit(inline_in_llvm=True)`` avoids;
* with ``--passes``: numba's pass times of the slowest functions.

Wall-clock figures of one run on a busy 2-core machine move by 10% or more: compare two versions
in alternating runs. Usage::

    python3 scripts/profile_compile.py [--rules douque] [--policies greedy,greedy] [--top 25] [--inlines] [--passes]
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time


class CompileProfile:
    """Exclusive and inclusive compile times per function, and LLVM finalize time per library, of
    the compiles made while it is :meth:`active`."""

    def __init__(self, inlines: bool = False):
        self.exclusive = collections.Counter()
        self.inclusive = collections.Counter()
        self.finalize = collections.Counter()
        self.inline_sites = collections.Counter()  # callee name -> sites
        self.inline_size = {}  # callee name -> IR statements
        self._inlines = inlines
        self._stack = []

    def _start(self, event):
        dispatcher = event.data.get("dispatcher")
        name = dispatcher.py_func.__qualname__ if dispatcher is not None else "?"
        self._stack.append([name, time.process_time(), 0.0])

    def _end(self, event):
        name, t0, children = self._stack.pop()
        spent = time.process_time() - t0
        self.exclusive[name] += spent - children
        self.inclusive[name] += spent
        if self._stack:
            self._stack[-1][2] += spent

    def active(self):
        """A context manager: listen to numba's compile events and time its libraries' finalize."""
        import contextlib

        from numba.core import codegen, event, inline_closurecall

        profile = self

        class _Listener(event.Listener):
            def on_start(self, ev):
                profile._start(ev)

            def on_end(self, ev):
                profile._end(ev)

        @contextlib.contextmanager
        def listening():
            listener = _Listener()
            library = codegen.CPUCodeLibrary
            original_finalize = library.finalize
            original_inline = inline_closurecall.InlineWorker.inline_ir

            def finalize(lib):
                t0 = time.process_time()
                try:
                    return original_finalize(lib)
                finally:
                    profile.finalize[lib.name] += time.process_time() - t0

            def inline_ir(worker, caller_ir, block, i, callee_ir, *args, **kwargs):
                name = callee_ir.func_id.func_qualname
                profile.inline_sites[name] += 1
                profile.inline_size[name] = sum(len(b.body) for b in callee_ir.blocks.values())
                return original_inline(worker, caller_ir, block, i, callee_ir, *args, **kwargs)

            event.register("numba:compile", listener)
            library.finalize = finalize
            if profile._inlines:
                inline_closurecall.InlineWorker.inline_ir = inline_ir
            try:
                yield profile
            finally:
                event.unregister("numba:compile", listener)
                library.finalize = original_finalize
                inline_closurecall.InlineWorker.inline_ir = original_inline

        return listening()

    def report(self, top: int) -> str:
        lines = [f"  {'exclusive':>10} {'inclusive':>10}  function (process seconds)"]
        for name, spent in self.exclusive.most_common(top):
            lines.append(f"  {spent:>10.2f} {self.inclusive[name]:>10.2f}  {name}")
        lines.append(f"\n  {'finalize':>10}  code library (LLVM optimisation and machine code)")
        for name, spent in self.finalize.most_common(min(top, 15)):
            lines.append(f"  {spent:>10.2f}  {name}")
        if self.inline_sites:
            lines.append(f"\n  {'statements':>10} {'sites':>6} {'size':>6}  inlined by numba at more than one site")
            weighed = sorted(
                ((self.inline_size[n] * s, n, s) for n, s in self.inline_sites.items() if s > 1), reverse=True
            )
            for total, name, sites in weighed[:top]:
                lines.append(f"  {total:>10} {sites:>6} {self.inline_size[name]:>6}  {name}")
        return "\n".join(lines)


def _pass_times(names, top: int = 8) -> str:
    """numba's pass times (seconds; nested compiles included) of the compiled functions ``names``."""
    import gc

    lines = []
    for obj in gc.get_objects():
        if type(obj).__name__ != "CPUDispatcher" or obj.py_func.__qualname__ not in names:
            continue
        for cres in obj.overloads.values():
            for pipeline, passes in cres.metadata.get("pipeline_times", {}).items():
                slowest = sorted(
                    ((v.init + v.run + v.finalize, k.split("_", 1)[-1]) for k, v in passes.items()), reverse=True
                )
                shown = ", ".join(f"{name} {t:.2f}" for t, name in slowest[:top])
                lines.append(f"  {obj.py_func.__qualname__} ({pipeline}): {shown}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="douque")
    ap.add_argument("--policies", default="greedy,greedy", help="two built-in policy names, comma-separated")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--inlines", action="store_true", help="count numba's inlining sites")
    ap.add_argument("--passes", action="store_true", help="numba's pass times of the slowest functions")
    args = ap.parse_args(argv)
    if "simkit" in sys.modules:
        raise SystemExit("profile_compile: run it as a script (simkit must be imported after the cache is set)")
    policies = tuple(args.policies.split(","))
    if len(policies) != 2:
        raise SystemExit(f"profile_compile: --policies needs two names, got {args.policies!r}")
    with tempfile.TemporaryDirectory(prefix="simkit-profile-") as cache:
        os.environ["SIMKIT_CACHE_DIR"] = cache
        os.environ["SIMKIT_COMPILE_AHEAD"] = "0"
        profile = CompileProfile(inlines=args.inlines)
        t0, c0 = time.perf_counter(), time.process_time()
        with profile.active():
            from simkit.play.matches import simulate_matches

            simulate_matches(args.rules, policies, 8, seed=0)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(
            f"cold compile of {args.rules} {policies[0]} vs {policies[1]} in one process: {wall:.1f} s wall, "
            f"{cpu:.1f} s process time; compiles {sum(profile.exclusive.values()):.1f} s, "
            f"of which LLVM finalize {sum(profile.finalize.values()):.1f} s\n"
        )
        print(profile.report(args.top))
        if args.passes:
            print("\n  numba's pass times (nested compiles included)")
            print(_pass_times({n for n, _ in profile.exclusive.most_common(6)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
