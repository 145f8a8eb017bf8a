"""Fixtures for the Python tests (they need `make install` to have built aqmlab._core)."""

from __future__ import annotations

import json

import pytest

from support import EXAMPLE, run_cli


@pytest.fixture(scope="session")
def example_results_raw() -> dict:
    """The example scenario's results JSON, run once per session through the CLI."""
    result = run_cli("run", EXAMPLE, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)
