"""The sweep description: base scenario, override sets and seeds, checked as a whole.

The TOML form and its meaning are in the package docs (:mod:`aqmlab.sweep`). Every mistake is a
:class:`SweepError` 'SOURCE[:LINE]: KEY: what is wrong', with the line of the key when the
description came from a file.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import re
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from aqmlab._args import check_tree, plain_number, plain_values, shown
from aqmlab._core import ScenarioError
from aqmlab.scenario import override_pairs, read_scenario_text

PathLike = str | os.PathLike[str]
Scalar = str | int | float | bool

# Budgets checked before a sweep is expanded: every point is validated by the core in the sweep's
# process, and every run is a row in the store.
MAX_POINTS = 100_000
MAX_RUNS = 1_000_000
SPEC_KEYS = ("name", "base", "seeds", "set", "grid", "point")
MAX_SEED = 2**64 - 1


class SweepError(ScenarioError):
    """A bad sweep description or option: 'SOURCE[:LINE]: KEY: what is wrong'.

    A ScenarioError (so a ValueError), as every refused input is: ``except ScenarioError``
    catches bad sweeps as well as bad scenarios, and the CLI answers both with status 2.
    """


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

        # Counted before anything is expanded: a grid of 10^7 combinations would exhaust memory first.
        points_count = math.prod(len(values) for values in grid.values()) * max(1, len(points))
        runs_count = points_count * (len(cast(Sequence[int], self.seeds)) if self.seeds is not None else 1)
        if points_count > MAX_POINTS or runs_count > MAX_RUNS:
            raise SweepError(
                f"{where}: the sweep has {points_count:,} points x {runs_count // points_count:,} seeds = "
                f"{runs_count:,} runs; at most {MAX_POINTS:,} points and {MAX_RUNS:,} runs are allowed "
                "(split it into several sweeps sharing a store)"
            )

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
        except RecursionError:
            raise SweepError(f"{path_text}: not valid TOML: nested too deeply for a sweep description") from None
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
        try:
            check_tree(data, "sweep", source)
        except ScenarioError as error:
            raise SweepError(str(error)) from None
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
    seeds = plain_number(seeds)
    if isinstance(seeds, int) and not isinstance(seeds, bool):
        if not 1 <= seeds <= MAX_RUNS:
            raise SweepError(
                f"{where}: seeds: an integer N means seeds 1..N and must be from 1 to {MAX_RUNS:,}, got {seeds}"
            )
        return tuple(range(1, seeds + 1))
    if isinstance(seeds, (str, bytes, Mapping)) or not isinstance(seeds, Iterable):
        raise SweepError(f"{where}: seeds: expected a list of integers or an integer N (seeds 1..N)")
    checked = tuple(plain_number(seed) for seed in itertools.islice(seeds, MAX_RUNS + 1))
    if not checked:
        raise SweepError(f"{where}: seeds: the list is empty")
    if len(checked) > MAX_RUNS:
        raise SweepError(f"{where}: seeds: more than {MAX_RUNS:,} seeds")
    for seed in checked:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise SweepError(f"{where}: seeds: {seed!r} is not an integer from 0 to 2^64-1")
    seen: set[object] = set()
    for seed in checked:
        if seed in seen:
            raise SweepError(f"{where}: seeds: {seed} appears more than once")
        seen.add(seed)
    return cast(tuple[int, ...], checked)


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
        values = [plain_values(item) for item in values]
        for item in values:
            if not isinstance(item, (str, int, float, bool, Mapping, list, tuple)):
                raise SweepError(
                    f"{where}: {key}: {shown(item)} is not a string, number, boolean, inline table or array "
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
        checked[key] = values if lists else values[0]
    return checked


def load_spec(spec: PathLike | Mapping[str, Any] | SweepSpec) -> SweepSpec:
    """A SweepSpec from a path to a TOML file, a dict shaped like one, or a SweepSpec."""
    if isinstance(spec, SweepSpec):
        return spec
    if isinstance(spec, Mapping):
        return SweepSpec.from_dict(spec)
    return SweepSpec.from_file(spec)
