"""The plan of a sweep: every point expanded, validated and hashed by the core, in the sweep's process.

A run's identity is ``(scenario_hash, seed)``; :func:`scenario_hash` is the SHA-256 of the
expanded scenario without its ``path`` and ``seed`` (see :mod:`aqmlab.sweep`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import tomli_w

from aqmlab import _core
from aqmlab._args import plain_values
from aqmlab._core import Scenario, ScenarioError
from aqmlab.scenario import override_pairs, read_scenario_text
from aqmlab.sweep.spec import PathLike, SweepError, SweepSpec, _with_line

if TYPE_CHECKING:
    from aqmlab.sweep.store import PlanRow


def scenario_hash(scenario: Scenario) -> str:
    """SHA-256 (hex) of the expanded scenario without ``path`` and ``seed``: the run identity with the seed."""
    expanded = json.loads(scenario.to_json())
    expanded.pop("path", None)
    expanded.pop("seed", None)
    return _sha256_json(expanded)


def _sha256_json(value: object) -> str:
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Point:
    """One override set of a sweep, expanded by the core."""

    index: int  # 0-based position in the sweep
    params: dict[str, str]  # key -> --set VALUE text, in the order they apply
    scenario_hash: str
    scenario: str  # the scenario's name
    expanded: str | None  # Scenario.to_json(), None when the overrides do not validate
    error: str | None  # the ScenarioError message when they do not

    @property
    def overrides(self) -> list[tuple[str, str]]:
        return list(self.params.items())


@dataclass(frozen=True)
class Plan:
    name: str
    base_path: str  # as shown in messages ("<dict>" for a dict)
    base_text: str
    points: tuple[Point, ...]
    seeds: tuple[int, ...]
    # With the name, what the store keys the plan by: the base file's absolute path, or for a dict
    # "<dict HASH>" (its expanded scenario's hash).
    base_id: str = "<dict>"

    @property
    def param_keys(self) -> list[str]:
        return list(dict.fromkeys(key for point in self.points for key in point.params))

    @property
    def hashes(self) -> set[str]:
        return {point.scenario_hash for point in self.points}

    def plan_rows(self) -> list[PlanRow]:
        from aqmlab.sweep.store import PlanRow

        return [PlanRow(point.index, point.scenario_hash, point.params) for point in self.points]

    def runs(self) -> list[tuple[Point, int]]:
        """Every (point, seed), seed by seed; a scenario reached by two points runs once."""
        seen: set[tuple[str, int]] = set()
        runs = []
        for seed in self.seeds:
            for point in self.points:
                if (point.scenario_hash, seed) not in seen:
                    seen.add((point.scenario_hash, seed))
                    runs.append((point, seed))
        return runs


def plan(spec: SweepSpec) -> Plan:
    """Validate the base scenario and every point (ScenarioError for a bad base, SweepError when no point
    validates: nothing would run; a bad point among good ones is kept, to be recorded as failed)."""
    if isinstance(spec.base, Mapping):
        base_path = "<dict>"
        try:
            base_text = tomli_w.dumps(cast(Mapping[str, Any], plain_values(spec.base)))
        except (TypeError, ValueError) as error:
            raise ScenarioError(f"{base_path}: cannot convert to TOML: {error}") from None
        base = _core.parse_scenario(base_text, base_path, [])
    else:
        base_path = _display_path(spec.base)
        try:
            base_text = read_scenario_text(base_path)
            base = _core.parse_scenario(base_text, base_path, [])
        except ScenarioError as error:
            if not _is_file(spec.source):
                raise
            # Name the sweep file and its base line first, then the base scenario's own message.
            raise SweepError(_located(spec, f"{spec.source}: base: {error}")) from None
    base_hash = scenario_hash(base)
    seeds = spec.seeds if spec.seeds is not None else (base.seed,)

    points = []
    for index, values in enumerate(spec.override_sets()):
        pairs = override_pairs(values)
        params = dict(pairs)
        try:
            scenario = _core.parse_scenario(base_text, base_path, pairs)
        except ScenarioError as error:
            key = _sha256_json({"invalid_point": {"base": base_hash, "overrides": pairs}})
            points.append(Point(index, params, key, base.name, None, str(error)))
        else:
            points.append(Point(index, params, scenario_hash(scenario), scenario.name, scenario.to_json(), None))
    if points and all(point.error is not None for point in points):
        # A mistake shared by every point (a misspelt key in [set] or [grid]): nothing would run.
        first = points[0].error or ""
        found = re.search(r"--set ([^:]+):", first)
        section = _section_of(spec, found.group(1)) if found else None
        field = f"{section}: {found.group(1)}" if section and found else "point"
        message = f"{spec.source}: {field}: no point of the sweep is a valid scenario, so nothing would run; the first: {first}"
        raise SweepError(_located(spec, message))
    # A file base is identified by its path, so an edited file makes its earlier runs stale; a dict
    # has no path, so by its content: two dict sweeps of one name keep a plan each (an edited dict
    # is another sweep, whose earlier runs --prune does not remove).
    base_id = f"<dict {base_hash[:16]}>" if isinstance(spec.base, Mapping) else os.path.abspath(os.fspath(spec.base))
    return Plan(spec.name or base.name, base_path, base_text, tuple(points), tuple(cast(Sequence[int], seeds)), base_id)


def _is_file(source: str) -> bool:
    return not source.startswith("<") and os.path.isfile(source)


def _located(spec: SweepSpec, message: str) -> str:
    """``message`` with the line of the sweep file it is about, when the sweep came from a file."""
    if not _is_file(spec.source):
        return message
    try:
        text = Path(spec.source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return message
    return _with_line(message, spec.source, text)


def _section_of(spec: SweepSpec, key: str) -> str | None:
    """Where a sweep sets ``key``: 'set', 'grid' or 'point[N]'."""
    if key in spec.overrides:
        return "set"
    if key in spec.grid:
        return "grid"
    return next((f"point[{i + 1}]" for i, point in enumerate(spec.points) if key in point), None)


def _display_path(path: PathLike) -> str:
    text = os.fspath(path)
    try:
        relative = os.path.relpath(text)
    except ValueError:  # another drive on Windows
        return text
    return relative if not relative.startswith("..") else os.path.abspath(text)
