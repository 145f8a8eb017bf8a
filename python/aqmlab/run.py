"""``aqmlab.run``: the one public entry point that simulates a scenario."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from aqmlab import _core
from aqmlab._core import Scenario
from aqmlab.progress import ProgressReporter
from aqmlab.results import Results
from aqmlab.scenario import Overrides, from_dict, load

ProgressCallback = Callable[[float, float, int], None]


def run(
    scenario_or_path: Scenario | str | os.PathLike[str] | Mapping[str, object],
    seed: int | None = None,
    overrides: Overrides | None = None,
    progress: ProgressCallback | bool | None = None,
) -> Results:
    """Simulate a scenario and return its results.

    ``scenario_or_path`` is a loaded Scenario, a path to a TOML file, or a dict shaped like one.
    ``seed`` replaces the scenario's master seed. ``overrides`` are ``--set KEY=VALUE`` pairs;
    they apply while loading, so they cannot be combined with an already-loaded Scenario.
    ``progress`` is a callback ``(sim_time_s, duration_s, events)``, or True for a report on stderr.
    Raises ScenarioError for a bad scenario and SimulationError for a run that cannot finish.
    """
    scenario = _as_scenario(scenario_or_path, overrides)
    if progress is True:
        with ProgressReporter(scenario.name) as reporter:
            return Results.from_json(_core.run(scenario, seed, reporter))
    return Results.from_json(_core.run(scenario, seed, progress or None))


def _as_scenario(
    scenario_or_path: Scenario | str | os.PathLike[str] | Mapping[str, object], overrides: Overrides | None
) -> Scenario:
    if isinstance(scenario_or_path, Scenario):
        if overrides:
            raise ValueError("overrides apply while loading: pass a path, or use aqmlab.load(path, overrides)")
        return scenario_or_path
    if isinstance(scenario_or_path, Mapping):
        return from_dict(scenario_or_path, overrides=overrides)
    return load(scenario_or_path, overrides)
