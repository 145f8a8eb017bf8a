"""Parameter sweeps: one base scenario, many override sets and seeds, run in parallel into a store.

A sweep is described in TOML (or a dict of the same shape, or a :class:`SweepSpec`)::

    name = "choke-vs-red"                       # optional; default: the file's stem
    base = "../examples/dumbbell.toml"          # the base scenario, relative to this file
    seeds = [1, 2, 3, 4, 5]                     # or an integer N, meaning seeds 1..N

    [set]                                       # optional: overrides applied to every run
    "simulation.duration" = "50s"

    [grid]                                      # every combination (the last key varies fastest)
    "link.bottleneck.queue.discipline" = ["red", "choke"]
    "flow.udp.rate" = ["0.5Mbps", "1Mbps", "2Mbps"]

    [[point]]                                   # the "list" form: explicit override sets
    "link.bottleneck.queue.limit" = 100

Keys are ``--set`` keys and values mean what VALUE means in ``--set KEY=VALUE``. The points of a
sweep are the ``[[point]]`` entries crossed with the grid (only a grid: its combinations; only
points: the points; neither: the base scenario alone). A key may appear in only one of ``[set]``,
``[grid]`` and the points, and ``simulation.seed`` is not a key: seeds come from ``seeds``
(default: the base scenario's own seed). Each point runs once per seed; runs are ordered seed by
seed, so an interrupted sweep has covered every point with the first seeds.

**Identity.** A run is identified by ``(scenario_hash, seed)``. ``scenario_hash`` is the SHA-256 of
the expanded, validated scenario (``Scenario.to_json()``, overrides applied) without its ``path``
and ``seed`` fields, re-serialised with sorted keys: the seed is a separate key column, and the
path is excluded so that running from another directory, or spelling the base file's path another
way, resumes instead of starting over. (The scenario's name, the file's stem unless
``[simulation] name`` is set, is part of the hash.) Two override sets that expand to the same scenario (``1Mbps`` and
``1000kbps``) are the same run. A point whose overrides do not validate has no expanded scenario;
its runs are keyed by the hash of the base scenario's hash and the override pairs, and recorded
as failed with the ScenarioError message. When no point validates (a misspelt key in ``[set]`` or
``[grid]``), nothing would run: ``plan`` raises a SweepError naming the key and its line instead.

**Execution.** Runs go to a local process pool (default: one worker per core), run serially in
this process (``workers=1``), or go to a Dask cluster (``dask="tcp://HOST:8786"``, a
``distributed.Client``, or ``"local:N"`` for a LocalCluster of N worker processes). Workers get
the base scenario's text, the overrides and the seed, and return the results JSON; only this
process writes the store, one transaction per finished run (see :mod:`aqmlab.store`). Running the
same sweep again skips every ``(scenario_hash, seed)`` already stored, failed runs included
(``retry_failed=True`` runs those again). A sweep killed at any moment loses only its runs in flight.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import itertools
import json
import math
import multiprocessing
import os
import re
import sys
import threading
import time
import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

import tomli_w

from aqmlab import _core
from aqmlab._core import Scenario, ScenarioError, SimulationError
from aqmlab.scenario import override_pairs, read_scenario_text

if TYPE_CHECKING:
    import pandas as pd

    from aqmlab.store import PlanRow, Store

PathLike = str | os.PathLike[str]
Scalar = str | int | float | bool

SPEC_KEYS = ("name", "base", "seeds", "set", "grid", "point")
MAX_SEED = 2**64 - 1
# Lines on stderr when it is not a terminal (logs, CI): at most one every this many seconds.
LINE_INTERVAL_S = 10.0


class SweepError(ScenarioError):
    """A bad sweep description or option: 'SOURCE[:LINE]: KEY: what is wrong'.

    A ScenarioError (so a ValueError), as every refused input is: ``except ScenarioError``
    catches bad sweeps as well as bad scenarios, and the CLI answers both with status 2.
    """


class SweepAborted(RuntimeError):
    """The sweep could not go on (a worker process died, the cluster went away); stored runs are kept."""


# --------------------------------------------------------------------------------------------
# The description


@dataclass(frozen=True)
class SweepSpec:
    """What to run: a base scenario, override sets and seeds. See the module docs for the TOML form.

    ``base`` is a path to a scenario file (relative to the current directory here; relative to the
    sweep file in TOML) or a scenario dict. ``overrides`` is the TOML ``[set]`` table, ``grid``
    maps keys to lists of values, ``points`` is the ``[[point]]`` list. ``seeds`` is a list of
    seeds, an integer N (seeds 1..N), or None (the base scenario's seed). ``name`` labels the
    sweep in the store and messages (default: the sweep file's stem, or the base scenario's name).
    ``source`` names the description in error messages.
    """

    base: PathLike | Mapping[str, object]
    seeds: Sequence[int] | int | None = None
    grid: Mapping[str, Sequence[Scalar]] = field(default_factory=dict)
    points: Sequence[Mapping[str, Scalar]] = ()
    overrides: Mapping[str, Scalar] = field(default_factory=dict)
    name: str | None = None
    source: str = "<sweep>"

    def __post_init__(self) -> None:
        where = self.source
        if isinstance(self.base, Mapping):
            base: PathLike | Mapping[str, object] = dict(self.base)
        elif isinstance(self.base, (str, os.PathLike)) and os.fspath(self.base):
            base = os.fspath(self.base)
        else:
            raise SweepError(f"{where}: base: expected the path of a scenario file (or a scenario dict)")
        object.__setattr__(self, "base", base)
        object.__setattr__(self, "seeds", _check_seeds(self.seeds, where))
        object.__setattr__(self, "overrides", _check_table(self.overrides, f"{where}: set"))
        if not isinstance(self.grid, Mapping):
            raise SweepError(f"{where}: grid: expected a table of KEY = [values]")
        grid = {}
        for key, values in _check_table(self.grid, f"{where}: grid", lists=True).items():
            grid[key] = tuple(values)
        object.__setattr__(self, "grid", grid)
        if isinstance(self.points, (str, bytes, Mapping)) or not isinstance(self.points, Sequence):
            raise SweepError(f"{where}: point: expected a list of tables ([[point]] entries)")
        points = tuple(_check_table(point, f"{where}: point[{i + 1}]") for i, point in enumerate(self.points))
        object.__setattr__(self, "points", points)
        if self.name is not None:
            _check_name(self.name, where)

        # A key set in two places would be ambiguous; one of the sections would silently lose.
        seen: dict[str, str] = {}
        for section, keys in [("set", self.overrides), ("grid", self.grid)] + [
            (f"point[{i + 1}]", point) for i, point in enumerate(points)
        ]:
            for key in keys:
                other = seen.get(key)
                if other is not None and not (other.startswith("point[") and section.startswith("point[")):
                    raise SweepError(f"{where}: {section}: {key!r} is also set in {other}; set each key in one place")
                seen.setdefault(key, section)

    @classmethod
    def from_file(cls, path: PathLike) -> SweepSpec:
        """Read a sweep description from a TOML file; ``base`` is relative to the file."""
        path_text = os.fspath(path)
        try:
            text = read_scenario_text(path_text)
            if not text.strip() or all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines()):
                raise SweepError(f'{path_text}: the file is empty (a sweep needs at least base = "SCENARIO.toml")')
            data = tomllib.loads(text)
        except SweepError:
            raise
        except ScenarioError as error:
            raise SweepError(str(error)) from None
        except tomllib.TOMLDecodeError as error:
            message = str(error)
            found = re.search(r"\(at (?:line (\d+), column \d+|end of document)\)$", message)
            line = (found.group(1) or len(text.splitlines())) if found else None
            where = f"{path_text}:{line}" if line else path_text
            message = message[: found.start()].rstrip() if found else message
            raise SweepError(f"{where}: not valid TOML: {message}") from None
        try:
            return cls.from_dict(data, root=Path(path_text).parent, name=Path(path_text).stem, source=path_text)
        except SweepError as error:
            raise SweepError(_with_line(str(error), path_text, text)) from None

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        root: PathLike = ".",
        name: str | None = None,
        source: str = "<dict>",
    ) -> SweepSpec:
        """A description shaped like the TOML file; a relative ``base`` path is relative to ``root``."""
        if not isinstance(data, Mapping):
            raise SweepError(f"{source}: expected a table, not {type(data).__name__}")
        unknown = [key for key in data if key not in SPEC_KEYS]
        if unknown:
            raise SweepError(f"{source}: {unknown[0]}: unknown key (allowed: {', '.join(SPEC_KEYS)})")
        if "base" not in data:
            raise SweepError(f"{source}: base: missing (the scenario file the sweep starts from)")
        base = data["base"]
        if isinstance(base, str) and base and not os.path.isabs(base):
            base = os.path.normpath(os.path.join(os.fspath(root), base))
        points = data.get("point", ())
        return cls(
            base=base,
            seeds=data.get("seeds"),
            grid=data.get("grid", {}),
            points=points,
            overrides=data.get("set", {}),
            name=data.get("name", name),
            source=source,
        )

    def with_overrides(self, overrides: Mapping[str, Scalar] | Iterable[tuple[str, Scalar]]) -> SweepSpec:
        """This sweep with more ``[set]`` overrides (``aqmlab sweep --set``), replacing those of the same key.

        A key the grid or a point sweeps cannot be set for every run (SweepError).
        """
        extra = dict(overrides.items() if isinstance(overrides, Mapping) else overrides)
        return dataclasses.replace(self, overrides={**self.overrides, **extra})

    def override_sets(self) -> list[dict[str, Scalar]]:
        """The points, each as {key: value} in the order the overrides apply ([set], point, grid)."""
        combos = [dict(zip(self.grid, values)) for values in itertools.product(*self.grid.values())]
        points = self.points or ({},)
        return [{**self.overrides, **point, **combo} for point in points for combo in combos]


MAX_NAME_LENGTH = 100


def _check_name(name: object, where: str) -> None:
    """A sweep's name names its default store, results/NAME.duckdb: it must stay one file name there."""
    if not isinstance(name, str) or not name.strip():
        raise SweepError(f"{where}: name: expected a non-empty string")
    bad = next((ch for ch in name if ch in "/\\" or ord(ch) < 32 or ord(ch) == 127), None)
    if bad is not None or name in (".", "..") or name != name.strip() or len(name) > MAX_NAME_LENGTH:
        what = (
            f"contains {bad!r}"
            if bad is not None
            else f"is longer than {MAX_NAME_LENGTH} characters"
            if len(name) > MAX_NAME_LENGTH
            else "is not a file name"
        )
        raise SweepError(
            f"{where}: name: {escaped(name)} {what}; the name becomes the file results/NAME.duckdb, so it must be "
            f"a plain file name of at most {MAX_NAME_LENGTH} characters, without / \\ or control characters "
            '(name = "choke-vs-red")'
        )


def escaped(text: str, limit: int = 60) -> str:
    """``text`` quoted for a one-line message: control characters escaped, cut to ``limit`` characters."""
    shown = repr(text[:limit])
    return shown + (f"... ({len(text)} characters)" if len(text) > limit else "")


def _with_line(message: str, source: str, text: str) -> str:
    """'SOURCE: FIELD: ...' -> 'SOURCE:LINE: FIELD: ...' with the line FIELD (or its key) is on."""
    prefix = f"{source}: "
    if not message.startswith(prefix):
        return message
    rest = message[len(prefix) :]
    field, _, detail = rest.partition(": ")
    line = _line_of(text, field, detail)
    return f"{source}:{line}: {rest}" if line else message


def _line_of(text: str, field: str, detail: str) -> int | None:
    """The line of a sweep file that FIELD names: a top-level key, a [set]/[grid] key or the
    table, the n-th [[point]] or a key in it. ``detail`` (the rest of the message) may start with
    the key, bare or quoted."""
    point = re.fullmatch(r"point\[(\d+)\]", field)
    section = "point" if point else field if field in ("set", "grid") else None
    wanted_point = int(point.group(1)) if point else 0
    key_match = re.match(r"'([^']*)'|([^\s:']+)", detail)
    detail_key = next((g for g in key_match.groups() if g), None) if key_match else None
    table: str | None = None
    points = 0
    header_line = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if line.startswith("[[") and line.rstrip().endswith("]]"):
            table = line[2:-2].strip()
            points += table == "point"
            if section == "point" and table == "point" and points == wanted_point:
                header_line = number
            continue
        if line.startswith("["):
            table = line[1:].split("]")[0].strip()
            if section == table:
                header_line = number
            continue
        key = re.match(r'("([^"]*)"|[A-Za-z0-9_.-]+)\s*=', line)
        if not key:
            continue
        name = key.group(2) if key.group(2) is not None else key.group(1)
        if table is None and section is None and name == field:
            return number
        if table is None and section is not None and name == section:
            return number  # an inline table: set = {...}
        in_section = table == section and (section != "point" or points == wanted_point)
        if section is not None and in_section and name == detail_key:
            return number
    return header_line


def _check_seeds(seeds: object, where: str) -> tuple[int, ...] | None:
    if seeds is None:
        return None
    if isinstance(seeds, int) and not isinstance(seeds, bool):
        if not 1 <= seeds <= 100_000_000:
            raise SweepError(f"{where}: seeds: an integer N means seeds 1..N and must be at least 1, got {seeds}")
        return tuple(range(1, seeds + 1))
    if isinstance(seeds, (str, bytes, Mapping)) or not isinstance(seeds, Iterable):
        raise SweepError(f"{where}: seeds: expected a list of integers or an integer N (seeds 1..N)")
    checked = tuple(seeds)
    if not checked:
        raise SweepError(f"{where}: seeds: the list is empty")
    for seed in checked:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise SweepError(f"{where}: seeds: {seed!r} is not an integer from 0 to 2^64-1")
    duplicates = sorted({seed for seed in checked if checked.count(seed) > 1})
    if duplicates:
        raise SweepError(f"{where}: seeds: {duplicates[0]} appears more than once")
    return checked


def _check_table(table: object, where: str, lists: bool = False) -> dict[str, Any]:
    if not isinstance(table, Mapping):
        raise SweepError(f"{where}: expected a table of KEY = {'[values]' if lists else 'value'}")
    checked: dict[str, Any] = {}
    for key, value in table.items():
        if not isinstance(key, str) or not key.strip() or "=" in key or key != key.strip():
            raise SweepError(f"{where}: {key!r} is not a --set key (a dotted path such as flow.udp.rate)")
        if key == "simulation.seed":
            raise SweepError(f"{where}: simulation.seed: seeds are given by the sweep's `seeds`, not as an override")
        values = value if lists else [value]
        if lists and (isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Sequence) or not value):
            raise SweepError(f"{where}: {key}: expected a non-empty list of values")
        for item in values:
            if not isinstance(item, (str, int, float, bool, Mapping, list, tuple)):
                raise SweepError(
                    f"{where}: {key}: {item!r} is not a string, number, boolean, inline table or array "
                    '(for a table write it inline, as "link.b1.queue" = { discipline = "droptail", limit = 200 })'
                )
            try:
                override_pairs([(key, item)])
            except TypeError as error:
                raise SweepError(f"{where}: {key}: {error}") from None
        if lists:
            texts = [override_pairs([(key, item)])[0][1] for item in values]
            repeated = next((text for text in texts if texts.count(text) > 1), None)
            if repeated is not None:
                raise SweepError(f"{where}: {key}: the value {repeated!r} appears more than once")
        checked[key] = list(value) if lists else value
    return checked


def load_spec(spec: PathLike | Mapping[str, Any] | SweepSpec) -> SweepSpec:
    """A SweepSpec from a path to a TOML file, a dict shaped like one, or a SweepSpec."""
    if isinstance(spec, SweepSpec):
        return spec
    if isinstance(spec, Mapping):
        return SweepSpec.from_dict(spec)
    return SweepSpec.from_file(spec)


# --------------------------------------------------------------------------------------------
# The plan: every point expanded, validated and hashed, in the parent


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
    base_id: str = "<dict>"  # the base file's absolute path: with the name, what the store keys the plan by

    @property
    def param_keys(self) -> list[str]:
        return list(dict.fromkeys(key for point in self.points for key in point.params))

    @property
    def hashes(self) -> set[str]:
        return {point.scenario_hash for point in self.points}

    def plan_rows(self) -> list[PlanRow]:
        from aqmlab.store import PlanRow

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
            base_text = tomli_w.dumps(spec.base)
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
    # SweepSpec.__post_init__ has made seeds a tuple or None
    seeds = cast("tuple[int, ...]", spec.seeds) if spec.seeds is not None else (base.seed,)

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
    base_id = "<dict>" if isinstance(spec.base, Mapping) else os.path.abspath(os.fspath(spec.base))
    return Plan(spec.name or base.name, base_path, base_text, tuple(points), tuple(seeds), base_id)


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


# --------------------------------------------------------------------------------------------
# One run, on whatever process executes it


@dataclass(frozen=True)
class RunTask:
    """Everything a worker needs for one run; small and picklable (no file access on the worker)."""

    scenario_hash: str
    seed: int
    base_text: str
    base_path: str
    overrides: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class RunOutcome:
    scenario_hash: str
    seed: int
    status: str  # "done" or "failed"
    results_json: str | None
    error: str | None
    wall_s: float  # time spent parsing and running, on the worker
    aqmlab_version: str
    build: str | None = None  # build_identity() of the process that ran it


def execute_run(task: RunTask) -> RunOutcome:
    """Run one (scenario, seed); a run that cannot finish comes back as a failed outcome, not an exception."""
    started = time.perf_counter()
    version = _core.version()
    build = build_identity()

    def failed(message: str) -> RunOutcome:
        wall_s = time.perf_counter() - started
        return RunOutcome(task.scenario_hash, task.seed, "failed", None, message, wall_s, version, build)

    try:
        scenario = _core.parse_scenario(task.base_text, task.base_path, list(task.overrides))
        found = scenario_hash(scenario)
        if found != task.scenario_hash:
            return failed(
                f"this worker (aqmlab {version}) expands the scenario differently from the sweep's process "
                f"(hash {found[:12]}, expected {task.scenario_hash[:12]}); install the same aqmlab everywhere"
            )
        results_json = _core.run(scenario, task.seed, None)
    except ScenarioError as error:
        return failed(f"ScenarioError: {error}")
    except SimulationError as error:
        return failed(f"SimulationError: {error}")
    except Exception as error:  # noqa: BLE001 -- a bug, not the user's; keep the sweep going and say what it was
        return failed(f"{type(error).__name__}: {error}")
    return RunOutcome(
        task.scenario_hash, task.seed, "done", results_json, None, time.perf_counter() - started, version, build
    )


def _worker_version() -> str:
    return build_identity()


@functools.cache
def build_identity() -> str:
    """'VERSION+HASH': the version and a SHA-256 (first 12 hex digits) of the compiled core and of
    every Python source of the package, so that two builds of one version are told apart."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    files = [Path(_core.__file__).resolve(), *sorted(package.rglob("*.py"))]
    for path in files:
        name = path.name if path.suffix != ".py" else path.relative_to(package).as_posix()
        digest.update(name.encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:  # unreadable: the name alone still counts
            pass
        digest.update(b"\0")
    return f"{_core.version()}+{digest.hexdigest()[:12]}"


# --------------------------------------------------------------------------------------------
# Executors: serial, process pool, Dask. Each yields outcomes as runs finish.


class _Serial:
    description = "serial (in this process)"

    def outcomes(self, tasks: Sequence[RunTask]) -> Iterator[RunOutcome]:
        for task in tasks:
            yield execute_run(task)

    def close(self, abort: bool = False) -> None:
        pass


def _windowed(submit, wait_first, result, tasks: Sequence[RunTask], window) -> Iterator[RunOutcome]:
    """Keep about ``window()`` runs submitted; yield outcomes as they finish, refilling first.

    A bounded window keeps the scheduler's queue short and memory flat for large sweeps, and an
    interrupted sweep has little to cancel.
    """
    queue = iter(tasks)
    pending: set = set()

    def fill() -> None:
        while len(pending) < window():
            task = next(queue, None)
            if task is None:
                return
            pending.add(submit(task))

    fill()
    while pending:
        done, not_done = wait_first(pending)
        pending.clear()
        pending.update(not_done)
        fill()  # before handing the finished runs over, so workers stay busy while they are stored
        for future in done:
            yield result(future)


class _ProcessPool:
    def __init__(self, workers: int):
        from concurrent.futures import ProcessPoolExecutor

        # spawn: workers start from a clean interpreter, not a fork of this process (which holds
        # the store's connection and threads), and are this process's children, so they can tell
        # when it dies. (forkserver workers are the fork server's children, and it outlives a
        # parent killed with SIGKILL as long as they live: they would wait for work forever.)
        context = multiprocessing.get_context("spawn")
        self.workers = workers
        self.description = f"process pool of {workers} workers"
        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_pool_worker)
        self._pending: set = set()

    def outcomes(self, tasks: Sequence[RunTask]) -> Iterator[RunOutcome]:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        broken = "a worker process died (killed, out of memory, crashed, or aqmlab failed to import in it)"

        def submit(task):
            try:
                future = self.pool.submit(execute_run, task)
            except BrokenProcessPool:
                raise SweepAborted(broken) from None
            self._pending.add(future)
            return future

        def wait_first(pending):
            return wait(pending, return_when=FIRST_COMPLETED)

        def result(future) -> RunOutcome:
            self._pending.discard(future)
            try:
                return future.result()
            except BrokenProcessPool:
                raise SweepAborted(broken) from None

        return _windowed(submit, wait_first, result, tasks, lambda: 2 * self.workers)

    def close(self, abort: bool = False) -> None:
        if abort:
            for future in self._pending:
                future.cancel()
            # The runs in flight would otherwise finish before shutdown returns; they would be lost
            # anyway (nobody stores them), so stop them now. Python 3.14 has terminate_workers().
            terminate = getattr(self.pool, "terminate_workers", None)
            if terminate is not None:
                terminate()
            else:
                for process in list(getattr(self.pool, "_processes", {}).values()):
                    process.terminate()
        self.pool.shutdown(wait=True, cancel_futures=True)


def _init_pool_worker() -> None:
    import signal

    # Ctrl-C is the parent's to handle (it stops the workers); a worker interrupted while idle
    # would only print a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A parent killed outright (SIGKILL) cannot stop its workers; they notice and exit.
    parent = os.getppid()
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True, name="aqmlab-orphan-watch").start()


def _exit_when_orphaned(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


class _Dask:
    def __init__(self, target: object):
        import logging

        from distributed import Client, LocalCluster

        self.cluster = None
        self._own_client = True
        if isinstance(target, str) and target.startswith("local:"):
            count = target.removeprefix("local:")
            # The worker processes inherit an ignored SIGINT: Ctrl-C is this process's to handle
            # (it closes the cluster), and interrupted workers would only print tracebacks.
            with _sigint_ignored():
                self.cluster = LocalCluster(
                    n_workers=int(count),
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    silence_logs=logging.ERROR,
                )
            self.client = Client(self.cluster)
            self.description = f"Dask LocalCluster of {count} worker processes"
        elif isinstance(target, str):
            try:
                self.client = Client(target, timeout="10s")
            except OSError as error:
                raise SweepAborted(f"cannot reach the Dask scheduler at {target}: {error}") from None
            self.description = f"Dask cluster at {target}"
        else:
            self.client = cast("Client", target)  # a distributed.Client the caller owns
            self._own_client = False
            self.description = (
                f"Dask cluster at {getattr(self.client, 'scheduler', None) and self.client.scheduler.address}"
            )
        self._pending: set = set()
        self._threads = 0
        self._threads_at = 0.0
        try:
            self._check_versions()
        except BaseException:
            self.close()
            raise

    def _check_versions(self) -> None:
        mine = build_identity()
        theirs = self.client.run(_worker_version)
        wrong = {worker: version for worker, version in theirs.items() if version != mine}
        if wrong:
            worker, version = next(iter(wrong.items()))
            raise SweepAborted(
                f"Dask worker {worker} has aqmlab {version}, this process has {mine}; install the same build everywhere"
            )

    def _window(self) -> int:
        now = time.monotonic()
        if now - self._threads_at > 2.0:  # clusters grow and shrink; ask again now and then
            self._threads = sum(self.client.nthreads().values())
            self._threads_at = now
        return max(4, 2 * self._threads)

    def outcomes(self, tasks: Sequence[RunTask]) -> Iterator[RunOutcome]:
        from distributed import KilledWorker, wait

        task_of: dict[str, RunTask] = {}

        def submit(task):
            future = self.client.submit(execute_run, task, pure=False)
            self._pending.add(future)
            task_of[future.key] = task
            return future

        def wait_first(pending):
            return wait(list(pending), return_when="FIRST_COMPLETED")

        def result(future) -> RunOutcome:
            self._pending.discard(future)
            task = task_of.pop(future.key)
            try:
                return future.result()
            except KilledWorker as error:
                # The scheduler gave up on this run after workers died running it: that is this
                # run's failure (memory, a crash), not the sweep's.
                return RunOutcome(
                    task.scenario_hash,
                    task.seed,
                    "failed",
                    None,
                    f"KilledWorker: Dask workers died running it ({error})",
                    0.0,
                    _core.version(),
                    build_identity(),
                )
            except Exception as error:  # noqa: BLE001 -- whatever the cluster raised ends the sweep, named
                raise SweepAborted(f"the Dask cluster failed: {type(error).__name__}: {error}") from None
            finally:
                future.release()

        return _windowed(submit, wait_first, result, tasks, self._window)

    def close(self, abort: bool = False) -> None:
        if self._pending:
            self.client.cancel(list(self._pending))
            self._pending.clear()
        if self._own_client:
            self.client.close()
        if self.cluster is not None:
            self.cluster.close()


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Ignore SIGINT meanwhile (a Ctrl-C then is lost); processes started meanwhile keep ignoring it."""
    import signal

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def default_workers() -> int:
    """Every core this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def check_executor(workers: object, dask: object) -> None:
    """SweepError unless ``workers`` and ``dask`` are valid options (checked before anything starts)."""
    if dask is not None and workers is not None:
        raise SweepError("workers applies to the local process pool; with Dask use local:N or size the cluster")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise SweepError(f"workers: expected a positive integer, got {workers!r}")
    if dask is not None and not isinstance(dask, str) and not hasattr(dask, "submit"):
        raise SweepError(f"dask: expected a scheduler address, 'local:N' or a distributed.Client, got {dask!r}")
    if isinstance(dask, str) and dask.startswith("local:"):
        count = dask.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise SweepError(f"dask {dask!r}: expected local:N, N a positive number of worker processes")


def _executor(workers: int | None, dask: object):
    check_executor(workers, dask)
    if dask is not None:
        return _Dask(dask)
    workers = default_workers() if workers is None else workers
    return _Serial() if workers == 1 else _ProcessPool(workers)


# --------------------------------------------------------------------------------------------
# The sweep


@dataclass
class SweepReport:
    """What a sweep did; ``format()`` is the summary ``aqmlab sweep`` prints."""

    name: str
    store: str
    executor: str
    points: int
    seeds: int
    total: int  # distinct runs in the sweep
    already_stored: int  # skipped because the store had them
    done: int = 0  # stored by this call
    failed: int = 0  # stored as failed by this call
    elapsed_s: float = 0.0
    run_wall_s: float = 0.0  # sum over this call's runs of their wall time
    failed_in_store: int = 0  # failed runs of this sweep in the store, from this call or earlier
    failures: list[tuple[Point, int, str]] = field(default_factory=list)  # (point, seed, error), this call
    varying_keys: tuple[str, ...] = ()  # keys whose value differs between points (shown in failures)
    interrupted: bool = False
    other_in_store: int = 0  # stored runs of scenarios not in this sweep (other sweeps, stale runs)
    stale_in_store: int = 0  # of those, runs of scenarios in no sweep's current plan
    pruned: int = 0  # stale runs deleted by this call (prune=True)

    @property
    def remaining(self) -> int:
        return self.total - self.already_stored - self.done - self.failed

    def format(self, max_failures: int = 5) -> str:
        lines = [
            f"sweep {self.name}: {self.total} runs ({self.points} points x {self.seeds} seeds)"
            + (f", {self.executor}" if self.executor else ""),
        ]
        ran = self.done + self.failed
        status = f"  this call: {self.done} done, {self.failed} failed"
        if self.already_stored:
            status += f"; {self.already_stored} already in the store"
        if self.remaining:
            status += f"; {self.remaining} not run (interrupted: run again to resume)"
        lines.append(status)
        if ran:
            rate = ran / self.elapsed_s if self.elapsed_s > 0 else math.inf
            busy = self.run_wall_s / self.elapsed_s if self.elapsed_s > 0 else math.nan
            lines.append(
                f"  {self.elapsed_s:.1f} s wall, {rate:.3g} runs/s; the runs took {self.run_wall_s:.1f} s "
                f"of worker time ({busy:.2g} running at a time on average)"
            )
        lines.append(f"  store: {self.store}")
        if self.failures:
            # One line per point and message: a bad override fails every seed the same way.
            grouped: dict[tuple[int, str], tuple[Point, list[int]]] = {}
            for point, seed, error in self.failures:
                grouped.setdefault((point.index, error), (point, []))[1].append(seed)
            lines.append("failed runs:")
            for (_, error), (point, seeds) in list(grouped.items())[:max_failures]:
                shown = {key: value for key, value in point.params.items() if key in self.varying_keys}
                which = "seed" if len(seeds) == 1 else "seeds"
                lines.append(
                    f"  point {point.index + 1} {_params_text(shown)} {which} "
                    f"{', '.join(map(str, sorted(seeds)))}: {error}"
                )
            if len(grouped) > max_failures:
                lines.append(f"  ... and {len(grouped) - max_failures} more (the runs table has them all)")
        if self.failed_in_store > self.failed:
            lines.append(
                f"  {self.failed_in_store - self.failed} runs of this sweep failed in an earlier call "
                "(see the runs table; --retry-failed runs them again)"
            )
        if self.pruned:
            lines.append(f"  pruned {self.pruned} stale runs (of scenarios no sweep in the store runs any more)")
        if self.other_in_store:
            lines.append(f"  the store also holds {self.other_in_store} runs of other scenarios, not in these results")
        if self.stale_in_store:
            from aqmlab.store import stale_warning

            lines.append(f"  warning: {stale_warning(self.stale_in_store)}")
        return "\n".join(lines)


class MixedBuildsError(SweepError):
    """Resuming would put runs of two builds of aqmlab into one sweep's results."""


def _check_builds(store: Store, stored: set[tuple[str, int]], name: str) -> None:
    """MixedBuildsError if runs of this sweep in the store were computed by another build than this one."""
    mine = build_identity()
    others = {build: count for build, count in store.builds(stored).items() if build != mine}
    if not others:
        return
    count = sum(others.values())
    shown = ", ".join(f"{count} by {build or 'a build that was not recorded'}" for build, count in others.items())
    raise MixedBuildsError(
        f"{store.display_path}: {count} stored runs of sweep {name} were computed by another build of aqmlab "
        f"({shown}; this is {mine}), so its results would mix two builds: sweep into a new store "
        "(--store), or allow it with --allow-mixed-builds"
    )


def _params_text(params: Mapping[str, str]) -> str:
    return "{" + ", ".join(f"{key}={value}" for key, value in params.items()) + "}"


class SweepRun:
    """One call of a sweep against a store: planned on construction, executed by :meth:`run`.

    The building block of :func:`sweep` and ``aqmlab sweep``. ``report`` is filled as runs
    finish, so it is up to date even when :meth:`run` ends in KeyboardInterrupt or SweepAborted
    (which propagate once the executor is stopped; everything finished before is stored).
    """

    def __init__(
        self,
        spec: PathLike | Mapping[str, Any] | SweepSpec | Plan,
        store: Store,
        *,
        workers: int | None = None,
        dask: object = None,
        progress: bool | None = None,
        verbose: bool = False,
        retry_failed: bool = False,
        allow_mixed_builds: bool = False,
        prune: bool = False,
        stream: TextIO | None = None,
    ):
        check_executor(workers, dask)
        self.store = store
        self.workers = workers
        self.dask = dask
        self.stream = stream if stream is not None else sys.stderr
        self.plan = spec if isinstance(spec, Plan) else plan(load_spec(spec))
        runs = self.plan.runs()
        self.keys = [(point.scenario_hash, seed) for point, seed in runs]
        self.retry_failed = retry_failed
        stored = store.keys(self.keys)
        self.todo = [(point, seed) for point, seed in runs if (point.scenario_hash, seed) not in stored]
        retried = store.keys(self.keys, status="failed") if retry_failed else set()
        if (self.todo or retried) and not allow_mixed_builds:
            _check_builds(store, stored - retried, self.plan.name)
        # This sweep's plan becomes the current one: the runs of its earlier versions are now stale.
        store.record_plan(self.plan.name, self.plan.base_id, self.plan.plan_rows())
        pruned = store.prune() if prune else 0
        if retried:
            store.delete_runs(retried)
            self.todo = [(point, seed) for point, seed in runs if (point.scenario_hash, seed) not in stored - retried]
        self.report = SweepReport(
            name=self.plan.name,
            store=store.display_path,
            executor="",
            varying_keys=tuple(
                key for key in self.plan.param_keys if len({point.params.get(key) for point in self.plan.points}) > 1
            ),
            points=len(self.plan.points),
            seeds=len(self.plan.seeds),
            total=len(runs),
            already_stored=len(runs) - len(self.todo),
            failed_in_store=len(store.keys(self.keys, status="failed")),
            other_in_store=len(store.runs_outside(self.plan.hashes)),
            stale_in_store=len(store.stale_runs()),
            pruned=pruned,
        )
        self._meter = _Meter(self.report, len(self.todo), self.stream, progress, verbose)
        self._point_of = {(point.scenario_hash, seed): point for point, seed in self.todo}

    def run(self) -> SweepReport:
        started = time.monotonic()
        report = self.report
        tasks = [
            RunTask(point.scenario_hash, seed, self.plan.base_text, self.plan.base_path, tuple(point.overrides))
            for point, seed in self.todo
            if point.error is None
        ]
        executor = _executor(self.workers, self.dask) if tasks else _Serial()
        if tasks:
            report.executor = executor.description
        try:
            self._meter.start()
            # Points that do not validate fail here, without a worker.
            for point, seed in self.todo:
                if point.error is not None:
                    self._record(
                        RunOutcome(
                            point.scenario_hash,
                            seed,
                            "failed",
                            None,
                            f"ScenarioError: {point.error}",
                            0.0,
                            _core.version(),
                            build_identity(),
                        ),
                        started,
                    )
            for outcome in executor.outcomes(tasks):
                self._record(outcome, started)
        except BaseException:
            report.interrupted = True
            executor.close(abort=True)
            raise
        else:
            executor.close()
        finally:
            self._meter.close()
            report.elapsed_s = time.monotonic() - started
            report.failed_in_store = len(self.store.keys(self.keys, status="failed"))
        return report

    def _record(self, outcome: RunOutcome, started: float) -> None:
        from aqmlab.store import RunRecord

        report = self.report
        point = self._point_of[(outcome.scenario_hash, outcome.seed)]
        results = json.loads(outcome.results_json) if outcome.results_json is not None else None
        record = RunRecord(
            scenario_hash=outcome.scenario_hash,
            seed=outcome.seed,
            status=outcome.status,
            error=outcome.error,
            sweep=self.plan.name,
            scenario=point.scenario,
            params=point.params,
            aqmlab_version=outcome.aqmlab_version,
            wall_s=outcome.wall_s,
            results=results,
            base=self.plan.base_path,
            expanded=point.expanded,
            build=outcome.build,
        )
        if self.store.record(record):
            if outcome.status == "done":
                report.done += 1
            else:
                report.failed += 1
                report.failures.append((point, outcome.seed, outcome.error or ""))
            report.run_wall_s += outcome.wall_s
        else:  # cannot happen while this process holds the store's lock; counted, never stored twice
            report.already_stored += 1
        report.elapsed_s = time.monotonic() - started
        self._meter.update(point, outcome)


class _Meter:
    """Progress of a sweep on stderr: a tqdm bar on a terminal, a line every 10 s elsewhere."""

    def __init__(self, report: SweepReport, total: int, stream: TextIO, progress: bool | None, verbose: bool):
        self.report = report
        self.total = total
        self.stream = stream
        self.verbose = verbose
        self.interactive = _isatty(stream)
        self.enabled = progress is not False
        self.bar = None
        self.count = 0
        self.started = time.monotonic()
        self.next_line_at = self.started + LINE_INTERVAL_S

    def start(self) -> None:
        self.started = time.monotonic()
        if self.enabled and self.interactive and self.total:
            from tqdm import tqdm

            self.bar = tqdm(
                total=self.total,
                initial=self.count,
                desc=f"sweep {self.report.name}",
                unit="run",
                file=self.stream,
                dynamic_ncols=True,
                smoothing=0.05,
            )
        elif self.enabled and self.total:
            self._write(
                f"aqmlab: sweep {self.report.name}: {self.total} runs to do "
                f"({self.report.already_stored} already stored), {self.report.executor}"
            )

    def update(self, point: Point, outcome: RunOutcome) -> None:
        self.count += 1
        if self.verbose:
            what = "done" if outcome.status == "done" else f"failed: {outcome.error}"
            self._write(
                f"aqmlab: sweep {self.report.name}: [{self.count}/{self.total}] point {point.index + 1} "
                f"seed {outcome.seed}: {what} ({outcome.wall_s:.2f} s)"
            )
        if self.bar is not None:
            if self.report.failed:
                self.bar.set_postfix_str(f"{self.report.failed} failed", refresh=False)
            self.bar.update(1)
        elif self.enabled and self.total:
            now = time.monotonic()
            if now >= self.next_line_at or self.count == self.total:
                rate = self.count / max(now - self.started, 1e-9)
                left = (self.total - self.count) / rate if rate > 0 else math.inf
                self._write(
                    f"aqmlab: sweep {self.report.name}: {self.count}/{self.total} runs"
                    f" ({self.report.failed} failed), {rate:.3g} runs/s, ~{left:.0f} s left"
                )
                self.next_line_at = now + LINE_INTERVAL_S

    def _write(self, line: str) -> None:
        if self.bar is not None:
            self.bar.write(line, file=self.stream)
        else:
            self.stream.write(line + "\n")
            self.stream.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


TABLES = ("runs", "flows", "links", "link_flows")


def sweep(
    spec: PathLike | Mapping[str, Any] | SweepSpec,
    *,
    workers: int | None = None,
    dask: object = None,
    store: PathLike | None = None,
    table: str = "flows",
    progress: bool | None = None,
    retry_failed: bool = False,
    allow_mixed_builds: bool = False,
    prune: bool = False,
) -> pd.DataFrame:
    """Run a sweep and return one of its tables as a DataFrame.

    ``spec`` is a sweep file, a dict shaped like one, or a :class:`SweepSpec`. ``workers`` is the
    size of the local process pool (default: every core; 1 runs in this process). ``dask`` sends
    the runs to a Dask cluster instead: a scheduler address, ``"local:N"`` or a
    ``distributed.Client``. ``store`` is the DuckDB file that keeps the results and makes the
    sweep resumable (default: an in-memory store, gone when this returns). ``progress``: a bar
    on a terminal, a line every 10 s otherwise; False for none. Worker processes are started
    with ``spawn`` and import the main module, so a script that sweeps with more than one
    worker needs the usual ``if __name__ == "__main__":`` guard.

    The frame has one row per run and flow (``table="flows"``; or ``"links"``, ``"link_flows"``,
    ``"runs"``), for this sweep's runs only, in sweep order: ``point`` (0-based), one column per
    override key of this sweep, ``seed``, ``scenario_hash``, ``status``, ``error``, then the run's
    metadata and results. Failed runs have one row with ``status == "failed"`` and no results.
    ``frame.attrs["sweep"]`` is the :class:`SweepReport`; its ``other_in_store`` counts the stored
    runs of other scenarios (never in the frame) and ``stale_in_store`` those of no current sweep.

    Resuming into a store whose runs of this sweep another build of aqmlab computed raises
    :class:`MixedBuildsError` unless ``allow_mixed_builds``. ``prune`` deletes the stale runs
    (of scenarios no sweep in the store runs any more: earlier versions of a sweep or its base).
    """
    from aqmlab.store import Store

    if table not in TABLES:
        raise SweepError(f"table: expected one of {', '.join(TABLES)}, got {table!r}")
    check_executor(workers, dask)
    the_plan = plan(load_spec(spec))  # a bad base scenario or description fails before the store is made
    with Store(store) as the_store:
        run = SweepRun(
            the_plan,
            the_store,
            workers=workers,
            dask=dask,
            progress=progress,
            retry_failed=retry_failed,
            allow_mixed_builds=allow_mixed_builds,
            prune=prune,
        )
        report = run.run()
        frame = the_store.sweep_frame(table, run.plan)
    frame.attrs["sweep"] = report
    return frame
