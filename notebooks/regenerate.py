"""Run the notebooks in place, so that the committed files carry their outputs (plots included).

    python notebooks/regenerate.py                          # every notebook of this folder
    python notebooks/regenerate.py 02_learning_curves.ipynb # one of them
    python notebooks/regenerate.py --check                  # say which are missing or stale

Each notebook runs from top to bottom with nbclient (a dependency of nbmake, in the `test`
extra) on the `python3` kernel, from this folder (the notebooks' data paths are relative to
it); a failing cell stops the script with that cell's error and leaves the file as it was. No
timings are recorded, so a rerun of unchanged code changes only what the code prints. The
digest of the code cells' sources is stored in the notebook's metadata (`lastwill`,
`sources_sha256`): `--check` and tests/tools/test_notebooks.py compare it with the sources, so
outputs left over from code that has since changed are found. `--check` exits with 1 and a
line per problem.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import nbclient
import nbformat

NOTEBOOKS = Path(__file__).resolve().parent
CELL_TIMEOUT_S = 120
KERNEL = "python3"


def notebook_paths(names: list[str] | None = None) -> list[Path]:
    """The notebooks named (file names in this folder), or all of them, in order."""
    if names:
        return [NOTEBOOKS / Path(name).name for name in names]
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def code_cells(nb) -> list:
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def sources_digest(nb) -> str:
    """sha256 of the code cells' sources, in order."""
    text = json.dumps([cell.source for cell in code_cells(nb)])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def execute(nb):
    """Run `nb` (a notebook node) from a fresh kernel in this folder; returns it with its
    outputs and the digest of the sources that made them."""
    client = nbclient.NotebookClient(
        nb,
        timeout=CELL_TIMEOUT_S,
        kernel_name=KERNEL,
        record_timing=False,
        resources={"metadata": {"path": str(NOTEBOOKS)}},
    )
    client.execute()  # raises CellExecutionError on the first failing cell
    nb.metadata["lastwill"] = {"sources_sha256": sources_digest(nb)}
    return nb


def problems(nb) -> list[str]:
    """Why `nb`'s stored outputs are not those of running its code now (empty when they are)."""
    cells = code_cells(nb)
    found = []
    counts = [cell.execution_count for cell in cells]
    if counts != list(range(1, len(cells) + 1)):
        found.append(f"execution counts {counts} are not 1..{len(cells)} in order")
    stored = nb.metadata.get("lastwill", {}).get("sources_sha256")
    if stored != sources_digest(nb):
        found.append("the code cells changed since the outputs were made")
    for i, cell in enumerate(cells):
        if any(out.output_type == "error" for out in cell.outputs):
            found.append(f"code cell {i + 1} holds an error")
    return found


def regenerate(path: Path) -> None:
    nb = execute(nbformat.read(path, as_version=4))
    nbformat.validate(nb)
    nbformat.write(nb, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="notebook file names (default: all)")
    parser.add_argument("--check", action="store_true", help="only report stale notebooks")
    args = parser.parse_args(argv)
    status = 0
    for path in notebook_paths(args.names):
        if args.check:
            for problem in problems(nbformat.read(path, as_version=4)):
                print(f"{path.name}: {problem}")
                status = 1
        else:
            regenerate(path)
            print(f"{path.name}: ran and written", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
