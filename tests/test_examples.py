"""examples/ and scenarios/: every scenario validates, every sweep plans, and every notebook runs end to end."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import aqmlab
from aqmlab.sweep import SweepSpec, plan
from support import REPO_ROOT

EXAMPLES = REPO_ROOT / "examples"
SCENARIOS = REPO_ROOT / "scenarios"


@pytest.mark.parametrize(
    "path", sorted([*EXAMPLES.glob("*.toml"), *(SCENARIOS / "examples").glob("*.toml")]), ids=lambda p: p.name
)
def test_example_scenarios_validate(path: Path):
    aqmlab.load(path)


@pytest.mark.parametrize(
    "path",
    sorted([*(EXAMPLES / "sweeps").glob("*.toml"), *(SCENARIOS / "sweeps").glob("*.toml")]),
    ids=lambda p: p.name,
)
def test_example_sweeps_have_only_valid_points(path: Path):
    points = plan(SweepSpec.from_file(path)).points
    assert points and all(point.error is None for point in points), [p.error for p in points]


@pytest.mark.parametrize("path", sorted((EXAMPLES / "notebooks").glob("*.ipynb")), ids=lambda p: p.name)
def test_notebooks_run_end_to_end(path: Path):
    notebook = nbformat.read(path, as_version=4)
    # Run where the notebook lives, as Jupyter would; any cell that raises fails the test.
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.get("outputs", [])]
    assert not [output for output in outputs if output.get("output_type") == "error"]
