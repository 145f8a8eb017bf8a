"""One call of a sweep against a store (:class:`SweepRun`), its report, and :func:`sweep`, the API."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TextIO

from aqmlab import _core
from aqmlab._args import check_flag, check_path, plain_number, shown
from aqmlab.sweep.build import build_identity
from aqmlab.sweep.executors import RunOutcome, RunTask, Serial, check_executor, make_executor
from aqmlab.sweep.plan import Plan, plan
from aqmlab.sweep.progress import Meter
from aqmlab.sweep.report import SweepReport
from aqmlab.sweep.spec import PathLike, SweepError, SweepSpec, load_spec
from aqmlab.sweep.store import TABLES, RunRecord, Store

if TYPE_CHECKING:
    import pandas as pd


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
        self._meter = Meter(self.report, len(self.todo), self.stream, progress, verbose)
        self._point_of = {(point.scenario_hash, seed): point for point, seed in self.todo}

    def run(self) -> SweepReport:
        started = time.monotonic()
        report = self.report
        tasks = [
            RunTask(point.scenario_hash, seed, self.plan.base_text, self.plan.base_path, tuple(point.overrides))
            for point, seed in self.todo
            if point.error is None
        ]
        executor = make_executor(self.workers, self.dask) if tasks else Serial()
        if tasks:
            report.executor = executor.description
        try:
            self._meter.start()
            # Points that do not validate fail here, without a worker.
            invalid = [
                RunOutcome(
                    point.scenario_hash,
                    seed,
                    "failed",
                    None,
                    f"ScenarioError: {point.error}",
                    0.0,
                    _core.version(),
                    build_identity(),
                )
                for point, seed in self.todo
                if point.error is not None
            ]
            if invalid:
                self._record(invalid, started)
            for outcomes in executor.outcomes(tasks):
                self._record(outcomes, started)
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

    def _record(self, outcomes: list[RunOutcome], started: float) -> None:
        """Store ``outcomes`` (the runs finished since the last call) in one transaction."""
        report = self.report
        points = [self._point_of[(outcome.scenario_hash, outcome.seed)] for outcome in outcomes]
        records = []
        for outcome, point in zip(outcomes, points):
            records.append(
                RunRecord(
                    scenario_hash=outcome.scenario_hash,
                    seed=outcome.seed,
                    status=outcome.status,
                    error=outcome.error,
                    sweep=self.plan.name,
                    scenario=point.scenario,
                    params=point.params,
                    aqmlab_version=outcome.aqmlab_version,
                    wall_s=outcome.wall_s,
                    results=None,
                    tables=outcome.tables,
                    base=self.plan.base_path,
                    expanded=point.expanded,
                    build=outcome.build,
                )
            )
        for outcome, point, written in zip(outcomes, points, self.store.record_many(records)):
            if written:
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
    if not isinstance(spec, (str, os.PathLike, Mapping, SweepSpec)):
        raise TypeError(
            "spec: expected the path of a sweep file, a dict shaped like one or a SweepSpec, "
            f"got {shown(spec)} ({type(spec).__name__})"
        )
    if isinstance(spec, (str, os.PathLike)):
        check_path(spec, "spec")
    if store is not None:
        check_path(store, "store")
    if table not in TABLES:
        raise SweepError(f"table: expected one of {', '.join(TABLES)}, got {shown(table)}")
    progress = check_flag(progress, "progress", allow_none=True)
    retry_failed = check_flag(retry_failed, "retry_failed")  # type: ignore[assignment]  # checked: a bool, an int
    allow_mixed_builds = check_flag(allow_mixed_builds, "allow_mixed_builds")  # type: ignore[assignment]  # checked: a bool, an int
    prune = check_flag(prune, "prune")  # type: ignore[assignment]  # checked: a bool, an int
    workers = plain_number(workers)  # type: ignore[assignment]  # checked: a bool, an int
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
