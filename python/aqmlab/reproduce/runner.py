"""Running experiments: each becomes one sweep per scenario file, into a store of its own.

The store (``DIR/ID/runs.duckdb``) makes a reproduction resumable like any sweep: running it
again with more seeds only simulates the new ones.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from aqmlab.reproduce.base import Condition, Experiment, compare, summarise
from aqmlab.store import Store
from aqmlab.sweep import load_spec, plan

TABLES = ("flows", "links", "link_flows")


@dataclass
class Outcome:
    experiment: Experiment
    measured: pd.DataFrame
    summary: pd.DataFrame
    comparison: pd.DataFrame
    failures: list[str]
    runs: int
    wall_s: float


def sweep_specs(experiment: Experiment, seeds: Sequence[int], reduced: bool) -> list[tuple[dict, list[Condition]]]:
    """One sweep description per scenario file, with its conditions in point order."""
    by_file: dict[Path, list[Condition]] = {}
    for condition in experiment.conditions():
        by_file.setdefault(experiment.scenario_path(condition), []).append(condition)
    specs = []
    for path, conditions in by_file.items():
        points = [{**c.overrides, **(experiment.reduced if reduced else {})} for c in conditions]
        spec = {"name": experiment.id, "base": str(path), "seeds": list(seeds), "point": points}
        specs.append((spec, conditions))
    return specs


def run_experiment(
    experiment: Experiment,
    seeds: Sequence[int],
    outdir: Path,
    *,
    workers: int | None = None,
    dask: object = None,
    reduced: bool = False,
    progress: bool | None = None,
) -> Outcome:
    import aqmlab

    outdir.mkdir(parents=True, exist_ok=True)
    store = outdir / "runs.duckdb"
    tables: dict[str, list[pd.DataFrame]] = {t: [] for t in TABLES}
    failures: list[str] = []
    runs = 0
    wall = 0.0
    for spec, conditions in sweep_specs(experiment, seeds, reduced):
        labels = {i: c.label for i, c in enumerate(conditions)}
        # Run the sweep once (resuming what the store holds); its runs table has one row per run
        # with its status, wall time and measurement window.
        run_rows = aqmlab.sweep(spec, workers=workers, dask=dask, store=store, table="runs", progress=progress)
        run_rows["condition"] = run_rows["point"].map(labels)
        done = run_rows[run_rows["status"] == "done"]
        runs += len(run_rows)
        wall += float(done["wall_s"].fillna(0).sum())
        for _, row in run_rows[run_rows["status"] != "done"].iterrows():
            failures.append(f"{row['condition']} seed {row['seed']}: {row['error']}")
        # Every table gets the run's window (sim_time_s, measure_from_s) for rates.
        window = done[["point", "seed", "sim_time_s", "measure_from_s"]]
        the_plan = plan(load_spec(spec))
        with Store(store, read_only=True) as stored:
            for table in TABLES:
                frame = stored.sweep_frame(table, the_plan)
                frame = frame[frame["status"] == "done"]
                frame = frame.drop(columns=[c for c in ("sim_time_s", "measure_from_s") if c in frame])
                frame = frame.merge(window, on=["point", "seed"], how="left")
                frame["condition"] = frame["point"].map(labels)
                tables[table].append(frame)
    merged = {t: pd.concat(frames, ignore_index=True) if frames else pd.DataFrame() for t, frames in tables.items()}
    measured = experiment.measure(merged)
    summary = summarise(measured)
    comparison = compare(experiment, summary)
    return Outcome(experiment, measured, summary, comparison, failures, runs, wall)


def default_seeds(n: int) -> list[int]:
    return list(range(1, n + 1))


def fmt(x: float, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.{digits}g}"
