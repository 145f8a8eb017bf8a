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
process writes the store, one transaction per finished run (see :mod:`aqmlab.sweep.store`). Running the
same sweep again skips every ``(scenario_hash, seed)`` already stored, failed runs included
(``retry_failed=True`` runs those again). A sweep killed at any moment loses only its runs in flight.

**Modules.** :mod:`~aqmlab.sweep.spec` (the description), :mod:`~aqmlab.sweep.plan` (points
expanded and hashed), :mod:`~aqmlab.sweep.executors` (serial, process pool, Dask),
:mod:`~aqmlab.sweep.store` (the DuckDB store: the one definition of the result tables; it
imports nothing from the sweep), :mod:`~aqmlab.sweep.progress`, :mod:`~aqmlab.sweep.build`
(the build identity of a run) and :mod:`~aqmlab.sweep.runner` (a sweep against a store, and
:func:`sweep`).
"""

import sys
import types
from typing import Any

from aqmlab.sweep.build import build_identity
from aqmlab.sweep.executors import (
    RunOutcome,
    RunTask,
    SweepAborted,
    check_executor,
    default_workers,
    execute_run,
)
from aqmlab.sweep.plan import Plan, Point, plan, scenario_hash
from aqmlab.sweep.report import SweepReport
from aqmlab.sweep.runner import MixedBuildsError, SweepRun, sweep
from aqmlab.sweep.spec import MAX_SEED, SPEC_KEYS, SweepError, SweepSpec, load_spec
from aqmlab.sweep.store import TABLES

__all__ = [
    "MAX_SEED",
    "SPEC_KEYS",
    "TABLES",
    "MixedBuildsError",
    "Plan",
    "Point",
    "RunOutcome",
    "RunTask",
    "SweepAborted",
    "SweepError",
    "SweepReport",
    "SweepRun",
    "SweepSpec",
    "build_identity",
    "check_executor",
    "default_workers",
    "execute_run",
    "load_spec",
    "plan",
    "scenario_hash",
    "sweep",
]


class _CallablePackage(types.ModuleType):
    """This package, callable as :func:`sweep`.

    ``aqmlab.sweep(...)`` is the sweep function, but ``aqmlab`` loads this package only when it
    is first used (``aqmlab run`` never pays for process pools and the store), and the import
    system then binds ``aqmlab.sweep`` to the package itself. Calling the package calls the
    function, so both readings of ``aqmlab.sweep`` work.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _CallablePackage
