"""Rebuild simkit's hand lookup tables and write them to the cache directory.

The tables are also built automatically at first use; run this after changing the table code, or to
place them in ``$SIMKIT_CACHE_DIR`` ahead of a cluster run. Prints what was written.
"""

from __future__ import annotations

import sys
import time


def main() -> int:
    from simkit.hand.tables import TABLES_VERSION, Tables, cache_dir, load_tables

    t0 = time.perf_counter()
    tables = load_tables(rebuild=True)
    dt = time.perf_counter() - t0
    print(f"built hand tables v{TABLES_VERSION} in {dt:.2f} s -> {cache_dir()}")
    for name in Tables._fields:
        arr = getattr(tables, name)
        print(f"  {name:<7} {str(arr.dtype):<7} {str(arr.shape):<14} {arr.nbytes / 2**20:7.2f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
