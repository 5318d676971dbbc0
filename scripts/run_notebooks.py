"""Execute the notebooks in ``notebooks/`` top to bottom and save them with their outputs.

At full size (the values in each notebook's parameter cell) this regenerates the figures in
``notebooks/figures/`` and the outputs shown on the repository; ``--set NAME=VALUE`` overrides a
parameter (a cell inserted after the one tagged ``parameters``, as ``tests/test_notebooks.py`` does at
reduced size), and ``--no-save`` runs without writing the notebooks back. Prints each notebook's
wall time::

    python3 scripts/run_notebooks.py                              # all three, full size, saved
    python3 scripts/run_notebooks.py exact_vs_simulated --set N_HANDS=1_000_000 --no-save
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def execute(path: Path, overrides: dict[str, str] | None = None, timeout: int = 900):
    """Execute the notebook at ``path`` (working directory: its folder) with ``overrides``
    (name -> Python expression) injected after its parameter cell; returns the executed notebook.

    Raises nbclient's ``CellExecutionError`` on the first cell that fails.
    """
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    if overrides:
        index = next((i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])), None)
        if index is None:
            raise SystemExit(f"{path.name} has no cell tagged 'parameters'")
        source = "# injected parameters\n" + "\n".join(f"{k} = {v}" for k, v in overrides.items())
        cell = nbformat.v4.new_code_cell(source, metadata={"tags": ["injected-parameters"]})
        nb.cells.insert(index + 1, cell)
    client = NotebookClient(
        nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    )
    # the kernel imports the simkit of this checkout (a worktree, or a clone next to an installed simkit)
    root = str(NOTEBOOKS.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, *filter(None, [os.environ.get("PYTHONPATH")])]))
    client.execute(env=env)
    return nb


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebook names (default: every notebook)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="override a parameter")
    parser.add_argument("--no-save", action="store_true", help="do not write the executed notebooks back")
    args = parser.parse_args(argv)
    import nbformat

    paths = [NOTEBOOKS / (n if n.endswith(".ipynb") else f"{n}.ipynb") for n in args.names] or sorted(
        NOTEBOOKS.glob("*.ipynb")
    )
    overrides = dict(item.split("=", 1) for item in args.set)
    for path in paths:
        start = time.perf_counter()
        nb = execute(path, overrides)
        seconds = time.perf_counter() - start
        if not args.no_save:
            nbformat.write(nb, path)
        print(f"{path.name}: {seconds:.1f} s{' (saved)' if not args.no_save else ''}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
