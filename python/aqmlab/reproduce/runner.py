"""Running experiments: each becomes one sweep per scenario file, into a store of its own.

The store (``DIR/ID/runs.duckdb``) makes a reproduction resumable like any sweep: running it
again with more seeds only simulates the new ones.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
    if experiment.needs_series:
        tables_of_runs, failed, n_runs, run_wall = run_with_series(
            experiment, seeds, outdir, workers=workers, reduced=reduced
        )
        measured = experiment.measure(tables_of_runs)
        summary = summarise(measured)
        return Outcome(experiment, measured, summary, compare(experiment, summary), failed, n_runs, run_wall)
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


# ---------------------------------------------------------------------------------------------
# Experiments that measure time series: each run through aqmlab.run, its tables and the time
# averages of its traced columns kept in DIR/ID/series-runs/ (one small JSON per run, so that a
# second call only simulates what is missing).


@dataclass(frozen=True)
class SeriesJob:
    label: str
    scenario: str
    overrides: Mapping[str, str | int | float | bool]
    seed: int

    def key(self) -> str:
        """A name for the run's cache file: the compiled core, the scenario's text, the
        overrides and the seed (a rebuilt core or an edited scenario runs again)."""
        text = Path(self.scenario).read_text()
        overrides = sorted((k, str(v)) for k, v in self.overrides.items())
        blob = json.dumps([_core_digest(), text, overrides, self.seed])
        return hashlib.sha256(blob.encode()).hexdigest()[:20]


@functools.cache
def _core_digest() -> str:
    from aqmlab import _core

    return hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:16]


def series_means(results: Any) -> list[dict[str, Any]]:
    """Each traced column's time average over the measurement window (samples from the window's
    start on, the run's end excluded: each sample stands for the interval after it)."""
    start = float(results.raw["measure_from_s"])
    rows = []
    for probe, frame in results.series.items():
        if "t_s" not in frame or not len(frame):
            continue
        inside = frame[frame["t_s"] >= start - 1e-9]
        for column in inside.columns:
            if column == "t_s":
                continue
            values = pd.to_numeric(inside[column], errors="coerce").dropna()
            if len(values):
                rows.append({"probe": probe, "column": column, "mean": float(values.mean())})
    return rows


def _run_series_job(job: SeriesJob) -> dict[str, Any]:
    """One run (in a worker process): its three tables and its series means, as records."""
    import time

    import aqmlab

    started = time.perf_counter()
    try:
        results = aqmlab.run(job.scenario, seed=job.seed, overrides=dict(job.overrides))
    except (aqmlab.ScenarioError, aqmlab.SimulationError, ValueError) as error:  # reported, not fatal to the others
        return {"error": f"{type(error).__name__}: {error}"}
    window = {"sim_time_s": results.raw["sim_time_s"], "measure_from_s": results.raw["measure_from_s"]}
    return {
        "flows": results.flows.assign(**window).to_dict("records"),
        "links": results.links.assign(**window).to_dict("records"),
        "link_flows": results.link_flows.assign(**window).to_dict("records"),
        "series": series_means(results),
        "wall_s": time.perf_counter() - started,
    }


def run_with_series(
    experiment: Experiment, seeds: Sequence[int], outdir: Path, *, workers: int | None, reduced: bool
) -> tuple[dict[str, pd.DataFrame], list[str], int, float]:
    """Run every (condition, seed) of a series experiment, reusing cached runs."""
    cache = outdir / "series-runs"
    cache.mkdir(parents=True, exist_ok=True)
    jobs = [
        SeriesJob(
            c.label,
            str(experiment.scenario_path(c)),
            {**c.overrides, **(experiment.reduced if reduced else {})},
            int(seed),
        )
        for c in experiment.conditions()
        for seed in seeds
    ]
    keys = [job.key() for job in jobs]
    done: dict[str, dict[str, Any]] = {}
    todo = []
    for job, key in zip(jobs, keys):
        path = cache / f"{key}.json"
        if path.exists():
            done[key] = json.loads(path.read_text())
        elif key not in done:
            todo.append((job, key))
            done[key] = {}
    if todo:
        n = max(1, min(workers or os.cpu_count() or 1, len(todo)))
        with ProcessPoolExecutor(max_workers=n) as pool:
            for (job, key), record in zip(todo, pool.map(_run_series_job, [job for job, _ in todo])):
                done[key] = record
                if "error" not in record:
                    (cache / f"{key}.json").write_text(json.dumps(record))
    tables: dict[str, list[dict[str, Any]]] = {t: [] for t in (*TABLES, "series")}
    failures: list[str] = []
    wall = 0.0
    for job, key in zip(jobs, keys):
        record = done[key]
        if "error" in record:
            failures.append(f"{job.label} seed {job.seed}: {record['error']}")
            continue
        wall += float(record.get("wall_s", 0.0))
        for table in tables:
            tables[table] += [{**row, "condition": job.label, "seed": job.seed} for row in record[table]]
    merged = {t: pd.DataFrame(rows) for t, rows in tables.items()}
    return merged, failures, len(jobs), wall


def default_seeds(n: int) -> list[int]:
    return list(range(1, n + 1))


def fmt(x: float, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.{digits}g}"
