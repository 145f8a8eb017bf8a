"""`_core.pyi` must describe the compiled module: same public names, same Scenario members."""

from __future__ import annotations

import ast
from pathlib import Path

from aqmlab import _core

STUB = Path(__file__).resolve().parents[1] / "python" / "aqmlab" / "_core.pyi"


def stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text())


def public(names) -> set[str]:
    return {name for name in names if not name.startswith("_")}


def test_stub_names_match_the_module():
    stubbed = {node.name for node in stub_tree().body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    assert stubbed == public(dir(_core))


def test_scenario_members_match():
    scenario_stub = next(
        node for node in stub_tree().body if isinstance(node, ast.ClassDef) and node.name == "Scenario"
    )
    stubbed = {node.name for node in scenario_stub.body if isinstance(node, ast.FunctionDef)}
    assert stubbed == public(dir(_core.Scenario))


def test_exception_bases_match():
    assert issubclass(_core.ScenarioError, ValueError)
    assert issubclass(_core.SimulationError, RuntimeError)
