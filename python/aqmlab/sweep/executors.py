"""Where runs execute: in this process, in a local process pool, or on a Dask cluster.

Each executor yields :class:`RunOutcome`s as runs finish; only the sweep's own process writes the
store. Workers get everything a run needs in a small picklable :class:`RunTask` and check that
they expand the scenario to the same hash as the sweep's process.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import multiprocessing
import os
import re
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

from aqmlab import _core
from aqmlab._args import shown
from aqmlab._core import ScenarioError, SimulationError
from aqmlab.sweep.build import build_identity
from aqmlab.sweep.orphans import PARENT_PID_VARIABLE, die_with_parent
from aqmlab.sweep.plan import scenario_hash
from aqmlab.sweep.spec import SweepError
from aqmlab.sweep.store import result_tables


class SweepAborted(RuntimeError):
    """The sweep could not go on (a worker process died, the cluster went away); stored runs are kept."""


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
    # What the run adds to each table of the store (result_tables of its results), computed here
    # on the worker: the process that stores the runs only concatenates columns.
    tables: dict[str, tuple[int, dict[str, list[Any]]]] | None
    error: str | None
    wall_s: float  # time spent parsing and running, on the worker
    aqmlab_version: str
    build: str | None = None  # build_identity() of the process that ran it


# A Dask task of short runs lasts about this long (seconds), at most MAX_BATCH runs; a local pool
# keeps about as much work queued per worker.
TASK_S = 0.25
MAX_BATCH = 32


class _RunTimes:
    """The wall time of the runs finished so far: how many runs make TASK_S of work."""

    def __init__(self) -> None:
        self.runs = 0
        self.seconds = 0.0

    def add(self, outcomes: Sequence[RunOutcome]) -> None:
        self.runs += len(outcomes)
        self.seconds += sum(outcome.wall_s for outcome in outcomes)

    def runs_per_task(self, least: int) -> int:
        """Runs that last about TASK_S, from ``least`` to MAX_BATCH; ``least`` before any run."""
        if not self.runs:
            return least
        per_task = math.ceil(TASK_S / max(self.seconds / self.runs, 1e-6))
        return min(max(per_task, least), MAX_BATCH)


# The scenarios this process expanded lately, with their hashes: the seeds of one point come in
# a row, and expanding and hashing a small scenario costs a tenth of its run (a Scenario is
# immutable: a run copies what it changes).
_EXPANDED: dict[tuple[str, str, tuple[tuple[str, str], ...]], tuple[_core.Scenario, str]] = {}
_EXPANDED_KEPT = 16


def _expanded(task: RunTask) -> tuple[_core.Scenario, str]:
    key = (task.base_text, task.base_path, task.overrides)
    found = _EXPANDED.get(key)
    if found is None:
        scenario = _core.parse_scenario(task.base_text, task.base_path, list(task.overrides))
        found = (scenario, scenario_hash(scenario))
        if len(_EXPANDED) >= _EXPANDED_KEPT:
            _EXPANDED.pop(next(iter(_EXPANDED)))
        _EXPANDED[key] = found
    return found


def execute_run(task: RunTask) -> RunOutcome:
    """Run one (scenario, seed); a run that cannot finish comes back as a failed outcome, not an exception."""
    started = time.perf_counter()
    version = _core.version()
    build = build_identity()

    def failed(message: str) -> RunOutcome:
        wall_s = time.perf_counter() - started
        return RunOutcome(task.scenario_hash, task.seed, "failed", None, message, wall_s, version, build)

    try:
        scenario, found = _expanded(task)
        if found != task.scenario_hash:
            return failed(
                f"this worker (aqmlab {version}) expands the scenario differently from the sweep's process "
                f"(hash {found[:12]}, expected {task.scenario_hash[:12]}); install the same aqmlab everywhere"
            )
        tables = result_tables(json.loads(_core.run(scenario, task.seed, None).json()))
    except ScenarioError as error:
        return failed(f"ScenarioError: {error}")
    except SimulationError as error:
        return failed(f"SimulationError: {error}")
    except Exception as error:  # noqa: BLE001 - a bug, not the user's; keep the sweep going and say what it was
        return failed(f"{type(error).__name__}: {error}")
    return RunOutcome(
        task.scenario_hash, task.seed, "done", tables, None, time.perf_counter() - started, version, build
    )


def _worker_version() -> str:
    return build_identity()


class Serial:
    description = "serial (in this process)"

    def outcomes(self, tasks: Sequence[RunTask]) -> Iterator[list[RunOutcome]]:
        for task in tasks:
            yield [execute_run(task)]

    def close(self, abort: bool = False) -> None:
        pass


def execute_runs(tasks: Sequence[RunTask]) -> list[RunOutcome]:
    """Several runs as one task of a cluster (see :class:`_Dask`'s batches)."""
    return [execute_run(task) for task in tasks]


def _windowed(
    submit, wait_first, result, tasks: Sequence[RunTask], window, batch=lambda: 1
) -> Iterator[list[RunOutcome]]:
    """Keep about ``window()`` tasks submitted, each of ``batch()`` runs; yield the outcomes
    finished so far, as a list, refilling first.

    A bounded window keeps the scheduler's queue short and memory flat for large sweeps, and an
    interrupted sweep has little to cancel. Everything that finished while the caller stored the
    previous list comes as one list: the caller stores it in one transaction (group commit), so
    storing keeps up with short runs without holding any finished run back. ``submit`` takes a
    tuple of tasks and ``result`` gives the list of their outcomes.
    """
    queue = iter(tasks)
    pending: set = set()

    def fill() -> None:
        while len(pending) < window():
            chunk = tuple(itertools.islice(queue, batch()))
            if not chunk:
                return
            pending.add(submit(chunk))

    fill()
    while pending:
        done, not_done = wait_first(pending)
        pending.clear()
        pending.update(not_done)
        fill()  # before handing the finished runs over, so workers stay busy while they are stored
        yield [outcome for future in done for outcome in result(future)]


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
        self.pool = ProcessPoolExecutor(
            max_workers=workers, mp_context=context, initializer=_init_pool_worker, initargs=(os.getpid(),)
        )
        self._pending: set = set()

    def outcomes(self, tasks: Sequence[RunTask]) -> Iterator[list[RunOutcome]]:
        from concurrent.futures import FIRST_COMPLETED, wait
        from concurrent.futures.process import BrokenProcessPool

        broken = "a worker process died (killed, out of memory, crashed, or aqmlab failed to import in it)"

        def submit(chunk):
            (task,) = chunk  # one run per task: a local pool's overhead per task is small
            try:
                future = self.pool.submit(execute_run, task)
            except BrokenProcessPool:
                raise SweepAborted(broken) from None
            self._pending.add(future)
            return future

        def wait_first(pending):
            return wait(pending, return_when=FIRST_COMPLETED)

        finished = _RunTimes()

        def result(future) -> list[RunOutcome]:
            self._pending.discard(future)
            try:
                outcomes = [future.result()]
            except BrokenProcessPool:
                raise SweepAborted(broken) from None
            finished.add(outcomes)
            return outcomes

        def window() -> int:
            # About TASK_S of work queued per worker: short runs then finish in numbers while the
            # previous ones are stored, and each transaction stores many (2 a worker before, and
            # the parent spent most of its time storing four runs at a time).
            return self.workers * finished.runs_per_task(least=2)

        return _windowed(submit, wait_first, result, tasks, window)

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


def _init_pool_worker(parent_pid: int) -> None:
    import signal

    # Ctrl-C is the parent's to handle (it stops the workers); a worker interrupted while idle
    # would only print a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A parent killed outright (SIGKILL) cannot stop its workers; they notice and exit. The pool
    # starts its workers from the thread that submits, which outlives them (the pool is shut
    # down in it), so the parent-death signal is safe here.
    die_with_parent(parent_pid)


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
                    # Workers exit when this process dies (see aqmlab.sweep.orphans).
                    preload=["aqmlab.sweep.orphans"],
                    env={PARENT_PID_VARIABLE: str(os.getpid())},
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
            scheduler = getattr(target, "scheduler", None)
            self.description = f"Dask cluster at {scheduler and scheduler.address}"
        self._pending: set = set()
        self._finished = _RunTimes()
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

    def outcomes(self, tasks: Sequence[RunTask]) -> Iterator[list[RunOutcome]]:
        from distributed import KilledWorker, wait

        tasks_of: dict[str, tuple[RunTask, ...]] = {}

        def submit(chunk):
            future = self.client.submit(execute_runs, chunk, pure=False)
            self._pending.add(future)
            tasks_of[future.key] = chunk
            return future

        def wait_first(pending):
            return wait(list(pending), return_when="FIRST_COMPLETED")

        def result(future) -> list[RunOutcome]:
            self._pending.discard(future)
            chunk = tasks_of.pop(future.key)
            try:
                outcomes = future.result()
            except KilledWorker as error:
                # The scheduler gave up on this task after workers died running it: that is the
                # failure of its runs (memory, a crash), not the sweep's.
                which = "it" if len(chunk) == 1 else f"it or another of the {len(chunk)} runs of its task"
                return [
                    RunOutcome(
                        task.scenario_hash,
                        task.seed,
                        "failed",
                        None,
                        f"KilledWorker: Dask workers died running {which} ({error})",
                        0.0,
                        _core.version(),
                        build_identity(),
                    )
                    for task in chunk
                ]
            except Exception as error:  # noqa: BLE001 - whatever the cluster raised, one line
                raise SweepAborted(f"the Dask cluster failed: {type(error).__name__}: {error}") from None
            finally:
                future.release()
            self._finished.add(outcomes)
            return outcomes

        return _windowed(submit, wait_first, result, tasks, self._window, self._batch)

    def _batch(self) -> int:
        """Runs per task: enough that a task lasts about TASK_S once runs have been timed (a
        scheduler's cost per task is milliseconds, as much as a short run), one until then."""
        return self._finished.runs_per_task(least=1)

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


# A Dask scheduler address: PROTOCOL://HOST[:PORT] or HOST:PORT.
_SCHEDULER_ADDRESS = re.compile(r"(?:[a-z][a-z0-9+.-]*://[^\s/]+(?::\d+)?|[A-Za-z0-9_.-]+:\d+)/?")


def check_executor(workers: object, dask: object) -> None:
    """SweepError unless ``workers`` and ``dask`` are valid options (checked before anything starts)."""
    if dask is not None and workers is not None:
        raise SweepError("workers applies to the local process pool; with Dask use local:N or size the cluster")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise SweepError(f"workers: expected a positive integer, got {shown(workers)}")
    if dask is not None and not isinstance(dask, str) and not hasattr(dask, "submit"):
        raise SweepError(f"dask: expected a scheduler address, 'local:N' or a distributed.Client, got {shown(dask)}")
    if isinstance(dask, str) and not dask.startswith("local:") and not _SCHEDULER_ADDRESS.fullmatch(dask):
        raise SweepError(
            f"dask: expected local:N or a scheduler address such as tcp://HOST:8786 (or HOST:8786), got {shown(dask)}"
        )
    if isinstance(dask, str) and dask.startswith("local:"):
        count = dask.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise SweepError(f"dask {dask!r}: expected local:N, N a positive number of worker processes")


def make_executor(workers: int | None, dask: object):
    check_executor(workers, dask)
    if dask is not None:
        return _Dask(dask)
    workers = default_workers() if workers is None else workers
    return Serial() if workers == 1 else _ProcessPool(workers)
