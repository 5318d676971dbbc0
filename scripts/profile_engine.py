"""Where a simulation's time goes, per compiled function, sampled with Linux ``perf``.

``perf`` cannot name numba's functions by itself (they live in memory the JIT filled). This script
compiles the engine and the policies in this process from a fresh, temporary cache directory (so
that every code library still holds its object code; libraries loaded from a cache do not), plays
a few matches to warm up, writes ``/tmp/perf-<pid>.map`` from the libraries' symbol tables
(``nm`` on each object), samples the timed run with ``perf record -p <pid>`` and prints the share
of samples per function (inlined code counts in its caller), with numba's mangled names shortened
to their qualified Python names. The map file is removed afterwards.

Needs ``perf`` and ``nm`` (binutils) and ``/proc/sys/kernel/perf_event_paranoid`` at 2 or less.
The compile takes about a minute on 2 cores. Usage::

    python3 scripts/profile_engine.py [--rules for_two] [--policies greedy,greedy] [--matches 3000] [--threads 1]
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def short_name(symbol: str) -> str:
    """A numba-mangled symbol (``_ZN6simkit4hand7shanten19discard_eval_kernelB4v229...``) as its
    qualified Python name (``simkit.hand.shanten.discard_eval_kernel``); other symbols unchanged.
    numba's wrappers keep a prefix: ``cpython.`` (called from Python) and ``cfunc.``."""
    prefix = ""
    if symbol.startswith("cfunc."):
        prefix, symbol = "cfunc ", symbol[len("cfunc.") :]
    if not symbol.startswith("_ZN"):
        return prefix + symbol
    parts = []
    i = 3
    while i < len(symbol) and symbol[i].isdigit():
        m = re.match(r"\d+", symbol[i:])
        n = int(m.group(0))
        i += len(m.group(0))
        parts.append(symbol[i : i + n])
        i += n
    name = ".".join(p for p in parts if p)
    return prefix + name.replace("_3clocals_3e", "<locals>")


def library_symbols(library, scratch: str) -> list[tuple[int, int, str]]:
    """``(address, size, symbol)`` of the functions in a finalized numba code library, from its
    object code (``nm``) and one symbol's address in memory; empty if the library has no object
    code (loaded from a cache) or none of its symbols resolves."""
    try:
        obj = library._get_compiled_object()
    except Exception:  # noqa: BLE001 - numba raises various errors for libraries without object code
        return []
    path = os.path.join(scratch, "lib.o")
    with open(path, "wb") as f:
        f.write(obj)
    out = subprocess.run(["nm", "-S", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    symbols = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "tT":
            symbols.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    for offset, _, name in symbols:
        try:
            address = library.get_pointer_to_function(name)
        except Exception:  # noqa: BLE001
            address = 0
        if address:
            base = address - offset  # one text section: offsets keep their distances when loaded
            return [(base + off, size, name) for off, size, name in symbols]
    return []


def write_perf_map(path: str) -> int:
    """Write a perf map of every compiled library of the live dispatchers; returns the symbols written."""
    import gc

    libraries = {}
    for obj in gc.get_objects():
        if type(obj).__name__ == "CPUDispatcher":
            for cres in obj.overloads.values():
                libraries[id(cres.library)] = cres.library
    lines = []
    with tempfile.TemporaryDirectory() as scratch:
        for library in libraries.values():
            for address, size, name in library_symbols(library, scratch):
                lines.append(f"{address:x} {size:x} {name}\n")
    with open(path, "w") as f:
        f.writelines(lines)
    return len(lines)


def _check_tools() -> None:
    for tool in ("perf", "nm"):
        if shutil.which(tool) is None:
            raise SystemExit(f"profile_engine: `{tool}` is not installed (perf: linux-perf; nm: binutils)")
    try:
        paranoid = int(open("/proc/sys/kernel/perf_event_paranoid").read())
    except OSError:
        paranoid = None
    if paranoid is not None and paranoid > 2:
        raise SystemExit(f"profile_engine: /proc/sys/kernel/perf_event_paranoid is {paranoid}; perf needs 2 or less")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="for_two")
    ap.add_argument("--policies", default="greedy,greedy", help="two built-in policy names, comma-separated")
    ap.add_argument("--matches", type=int, default=3000)
    ap.add_argument("--threads", type=int, default=1, help="numba threads (1: one core's profile)")
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args(argv)
    _check_tools()
    if "simkit" in sys.modules or "numba" in sys.modules:
        raise SystemExit("profile_engine: run it as a script (the cache and threads are set before numba is imported)")
    policies = tuple(args.policies.split(","))
    if len(policies) != 2:
        raise SystemExit(f"profile_engine: --policies needs two names, got {args.policies!r}")
    with tempfile.TemporaryDirectory(prefix="simkit-profile-") as work:
        os.environ["SIMKIT_CACHE_DIR"] = os.path.join(work, "cache")
        os.environ["SIMKIT_COMPILE_AHEAD"] = "0"  # every library compiled here, with its object code
        os.environ["NUMBA_NUM_THREADS"] = str(args.threads)
        from simkit.play.matches import simulate_matches

        print(f"compiling {args.rules} {policies[0]} vs {policies[1]} (fresh cache) ...", flush=True)
        simulate_matches(args.rules, policies, 64, seed=0)
        perf_map = f"/tmp/perf-{os.getpid()}.map"
        n_symbols = write_perf_map(perf_map)
        data = os.path.join(work, "perf.data")
        recorder = subprocess.Popen(
            ["perf", "record", "-F", "2000", "-p", str(os.getpid()), "-o", data],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            time.sleep(1.0)  # perf attaches
            t0 = time.perf_counter()
            rows = simulate_matches(args.rules, policies, args.matches, seed=1)
            seconds = time.perf_counter() - t0
        finally:
            recorder.send_signal(signal.SIGINT)
            recorder.wait()
        try:
            script = subprocess.run(
                ["perf", "script", "-i", data, "-F", "ip,sym"], capture_output=True, text=True, check=True
            ).stdout
        finally:
            os.unlink(perf_map)
    counts = collections.Counter()
    for line in script.splitlines():
        fields = line.split(None, 1)  # "address symbol" ("[unknown]" where nothing maps the address)
        if fields:
            counts[short_name(fields[1].strip()) if len(fields) > 1 else "[unknown]"] += 1
    total = sum(counts.values())
    hands = len(rows["match"])
    print(
        f"{hands:,} hands in {seconds:.2f} s ({hands / seconds:,.0f} hands/s, {args.threads} thread(s)); "
        f"{total:,} samples; {n_symbols} symbols mapped"
    )
    for name, n in counts.most_common(args.top):
        print(f"  {100 * n / total:6.2f}%  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
