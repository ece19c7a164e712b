"""The notebooks are committed with the outputs of their current code (plots included), as
`notebooks/regenerate.py` writes them, and they run from top to bottom without a cell error.

Running them uses the script's own `execute` (nbclient, a dependency of nbmake, in the `test`
extra) on the `python3` kernel from the notebooks folder; the tournament report takes longer
than a few seconds, so running it is marked `slow`. `pytest --nbmake notebooks/` runs them too.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest
from paths import REPO

nbformat = pytest.importorskip("nbformat")
pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOKS = REPO / "notebooks"
NAMES = ("01_walkthrough.ipynb", "02_learning_curves.ipynb", "03_tournament_report.ipynb")
HEAVY = {"03_tournament_report.ipynb"}  # more than a few seconds to run


@pytest.fixture(scope="module")
def regen():
    spec = importlib.util.spec_from_file_location("regenerate", NOTEBOOKS / "regenerate.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["regenerate"] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules["regenerate"]


def images(nb) -> list:
    return [
        out
        for cell in nb.cells
        if cell.cell_type == "code"
        for out in cell.outputs
        if "image/png" in out.get("data", {})
    ]


def test_the_notebooks_are_all_here(regen):
    assert [p.name for p in regen.notebook_paths()] == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebook_holds_the_outputs_of_its_code(name, regen):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata["kernelspec"]["name"] == "python3"
    assert regen.problems(nb) == [], f"{name}: run python notebooks/regenerate.py {name}"
    assert images(nb), f"{name} shows no plot"


def test_an_edited_cell_or_a_missing_output_is_reported(regen):
    nb = nbformat.read(NOTEBOOKS / NAMES[0], as_version=4)
    cells = regen.code_cells(nb)
    cells[0].source += "\nSEED = 4"
    cells[1].execution_count = None
    cells[2].outputs = [nbformat.v4.new_output("error", ename="E", evalue="", traceback=[])]
    found = regen.problems(nb)
    assert len(found) == 3, found
    assert "changed since" in found[1] and "execution counts" in found[0]
    assert found[2] == "code cell 3 holds an error"


def test_check_mode_passes_the_committed_notebook_and_fails_a_stale_one(
    regen, tmp_path, monkeypatch, capsys
):
    nb = nbformat.read(NOTEBOOKS / NAMES[1], as_version=4)
    nbformat.write(nb, tmp_path / NAMES[1])
    monkeypatch.setattr(regen, "NOTEBOOKS", tmp_path)
    assert regen.main(["--check"]) == 0 and capsys.readouterr().out == ""
    regen.code_cells(nb)[0].source += "\n# edited"
    nbformat.write(nb, tmp_path / NAMES[1])
    assert regen.main(["--check"]) == 1
    assert capsys.readouterr().out.startswith(f"{NAMES[1]}: the code cells changed since")


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in HEAVY else n for n in NAMES]
)
def test_notebook_runs_without_errors_and_draws(name, regen):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    for cell in regen.code_cells(nb):
        cell.outputs, cell.execution_count = [], None
    regen.execute(nb)  # raises CellExecutionError on the first failing cell
    assert regen.problems(nb) == []
    assert images(nb), f"{name} drew no plot"
