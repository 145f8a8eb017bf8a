"""``aqmlab sweep SPEC``: run every (point, seed) of a sweep into a DuckDB store, resumably."""

from __future__ import annotations

import argparse
import json
import sys

from aqmlab.commands import Command, CommandError, UsageError, path_argument
from aqmlab.commands._common import parse_override

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

DESCRIPTION = """\
Run a parameter sweep: a base scenario, a grid or list of overrides, and seeds (see
scenarios/sweeps/ for examples). Every finished run is stored at once, in its own transaction,
in a DuckDB database (default: results/NAME.duckdb). Running the same sweep again skips the runs
already stored, so an interrupted sweep resumes where it stopped. A run that fails (a bad
override, a simulation that cannot finish) is stored as failed with its message and the sweep
goes on; the exit status is then 1.

Runs are keyed by their expanded scenario: after an edit of the sweep or of its base scenario,
the runs of the old scenarios stay in the store but are *stale*: plots and results leave them out
and say how many there are; --dry-run lists them and --prune deletes them. Each run records the
build of aqmlab that computed it; resuming with another build is refused unless
--allow-mixed-builds.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("spec", metavar="SPEC", help="sweep description (TOML)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--workers", type=_positive, metavar="N", help="local worker processes (default: every core; 1: no pool)"
    )
    where.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run on a Dask cluster: a scheduler address (tcp://HOST:8786), or local:N to start N worker processes",
    )
    parser.add_argument(
        "--store", metavar="PATH", type=path_argument, help="DuckDB file of results (default: results/NAME.duckdb)"
    )
    parser.add_argument(
        "--set",
        dest="overrides",
        metavar="KEY=VALUE",
        action="append",
        default=[],
        help="override a value in every run, as (and instead of) the sweep's [set] table (repeatable)",
    )
    parser.add_argument("--retry-failed", action="store_true", help="run the runs stored as failed again")
    parser.add_argument(
        "--prune",
        action="store_true",
        help="delete the stale runs: those of scenarios no sweep in the store runs any more (an edited base or grid)",
    )
    parser.add_argument(
        "--allow-mixed-builds",
        action="store_true",
        help="resume even though stored runs of this sweep were computed by another build of aqmlab",
    )
    parser.add_argument("--dry-run", action="store_true", help="list the points and what the store holds; run nothing")
    parser.add_argument("-v", "--verbose", action="store_true", help="a line on stderr for every finished run")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")


def handle(args: argparse.Namespace) -> int:
    from aqmlab.sweep import SweepAborted, SweepError, SweepRun, SweepSpec, check_executor, plan
    from aqmlab.sweep.store import NotAStoreError, Store, StoreError

    try:
        check_executor(args.workers, args.dask)
        spec = SweepSpec.from_file(args.spec)
        if args.overrides:
            spec = spec.with_overrides([parse_override(text) for text in args.overrides])
    except SweepError as error:
        raise UsageError(str(error)) from None

    store_path = args.store
    if store_path is None:
        from pathlib import Path

        store_path = Path("results") / f"{spec.name}.duckdb"
    elif store_path.is_dir():
        raise UsageError(f"{store_path}: is a directory, not a store")
    elif not store_path.parent.is_dir():
        raise UsageError(f"--store {store_path}: directory {store_path.parent} does not exist")

    the_plan = plan(spec)  # a bad base scenario fails here, before a store is created
    if args.dry_run:
        return _dry_run(the_plan, store_path)

    if args.store is None:
        try:
            store_path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UsageError(
                f"cannot create the default store directory {store_path.parent}: {error.strerror or error}; "
                "give --store PATH in a writable directory"
            ) from None
    try:
        store = Store(store_path)
    except NotAStoreError as error:
        raise UsageError(str(error)) from None
    except StoreError as error:
        raise CommandError(str(error)) from None
    with store:
        try:
            run = SweepRun(
                the_plan,
                store,
                workers=args.workers,
                dask=args.dask,
                progress=False if args.no_progress else None,
                verbose=args.verbose,
                retry_failed=args.retry_failed,
                allow_mixed_builds=args.allow_mixed_builds,
                prune=args.prune,
            )
        except SweepError as error:
            raise UsageError(str(error)) from None
        try:
            report = run.run()
        except KeyboardInterrupt:
            print(run.report.format(), file=sys.stderr)
            raise
        except (SweepAborted, StoreError) as error:
            print(run.report.format(), file=sys.stderr)
            message = f"sweep stopped: {error}; the runs stored so far are kept, run again to resume"
            raise CommandError(message) from None
        except SweepError as error:
            raise UsageError(str(error)) from None
    print(report.format())
    return 0 if report.failed_in_store == 0 else 1


def _dry_run(the_plan, store_path: Path) -> int:
    import pandas as pd

    from aqmlab.sweep.store import NotAStoreError, Store, StoreError

    runs = the_plan.runs()
    keys = [(point.scenario_hash, seed) for point, seed in runs]
    stored: set = set()
    failed: set = set()
    others = pd.DataFrame()
    current: set[str] = set()
    if store_path.exists() or store_path.is_symlink():
        try:
            with Store(store_path, read_only=True) as store:
                stored = store.keys(keys)
                failed = store.keys(keys, status="failed")
                others = store.runs_outside(the_plan.hashes)
                # After this sweep runs, its plan replaces the one the store holds for it.
                current = store.current_hashes((the_plan.name, the_plan.base_id), the_plan.hashes) or set()
        except NotAStoreError as error:
            raise UsageError(str(error)) from None
        except StoreError as error:
            raise CommandError(str(error)) from None
    print(
        f"sweep {the_plan.name}: base {the_plan.base_path}, {len(the_plan.points)} points x "
        f"{len(the_plan.seeds)} seeds = {len(runs)} runs; {len(stored)} stored in {store_path} "
        f"({len(failed)} failed), {len(runs) - len(stored)} to run"
    )
    for point in the_plan.points:
        done = sum((point.scenario_hash, seed) in stored for seed in the_plan.seeds)
        params = ", ".join(f"{key}={value}" for key, value in point.params.items()) or "(base scenario)"
        line = f"  {point.index + 1:>4}  {point.scenario_hash[:12]}  {done}/{len(the_plan.seeds)} stored  {params}"
        if point.error:
            line += f"\n        invalid: {point.error}"
        print(line)
    if len(others):
        stale = others[~others["scenario_hash"].isin(current)]
        print(
            f"the store also holds {len(others)} runs of other scenarios, not part of this sweep; "
            f"{len(stale)} of them are stale (in no sweep's plan once this one runs: plots leave them out, "
            "--prune deletes them):"
        )
        for hash_, group in others.groupby("scenario_hash", sort=False):
            what = "stale" if hash_ not in current else "another sweep's"
            overrides = group["overrides"].iloc[0]
            try:
                params = ", ".join(f"{key}={value}" for key, value in json.loads(overrides)) or "(base scenario)"
            except (TypeError, ValueError):
                params = "(overrides not recorded)"
            print(
                f"  {hash_[:12]}  {len(group)} runs  {what}, sweep {group['sweep'].iloc[0]}, "
                f"scenario {group['scenario'].iloc[0]}  {params}"
            )
    return 0


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


COMMAND = Command(
    name="sweep",
    summary="run a parameter sweep (many points and seeds) into a results store, resumably",
    add_arguments=add_arguments,
    handler=handle,
    description=DESCRIPTION,
)
