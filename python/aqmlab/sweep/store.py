"""The sweep results store: a DuckDB database with one row per run, per flow, per link and per (link, flow).

Tables; every row of the first four carries the run's key ``(scenario_hash, seed)``:

``runs``
    One row per run: ``status`` (``done`` or ``failed``), ``error`` (the message of a failed run),
    ``sweep`` (the sweep that stored it), ``scenario`` (its name), ``aqmlab_version``, ``build``
    (the version and a hash of the core and Python package that computed it), ``wall_s``
    (seconds the worker spent on it), ``events``, ``sim_time_s``, ``measure_from_s``,
    ``finished_at`` (UTC, when it was stored), ``fairness.*``, and one VARCHAR column per override
    key ever swept (the ``--set`` VALUE text; NULL for a run that did not set that key).
``flows``, ``links``, ``link_flows``, ``workloads``
    One row per flow, link direction, (link direction, flow), and (workload, size bucket) of each
    finished run (the last: the flow completion times of the results' ``workloads``): the run's
    key, its parameter columns, ``scenario``, ``aqmlab_version``, ``wall_s`` and ``events``, then
    the fields of the results JSON (nested counters as dotted columns, ``drops_by_reason.early``;
    a reason a run did not see is 0). ``row_index`` is the position in the results.
``plans``
    The current plan of every sweep that wrote to the store: one row per point, keyed by
    ``(sweep, base, point)`` (``base`` is the base file's absolute path), with its
    ``scenario_hash`` and ``params`` (JSON). A sweep replaces its own rows when it starts, so a
    run whose scenario is in no plan belongs to an earlier version of a sweep or of its base file:
    *stale*. Plots leave stale runs out and say how many there are; ``aqmlab sweep --prune``
    deletes them.
``scenarios``
    One row per scenario hash: ``name``, ``base`` (the base file), ``overrides`` (JSON list of
    [key, value] pairs) and ``expanded`` (the core's ``Scenario.to_json()``; NULL for a point whose
    overrides do not validate). With a run's seed this is enough to run it again.
``param_keys``
    The override keys that have columns. ``meta``: ``format = aqmlab.store/1``.

Primary keys: ``runs (scenario_hash, seed)``, ``flows``/``links (scenario_hash, seed, name)``,
``link_flows (scenario_hash, seed, link, flow)``, ``workloads (scenario_hash, seed, workload, bucket)``. A run is written in one transaction (its rows in
every table, and any new columns), by the sweep's own process only, so a store never holds part
of a run or a run twice, whenever the writer is killed. Columns are added as results bring new
fields (a new drop reason, a new swept key); the stored rows get NULL, or 0 for a counter.

DuckDB lets one process at a time open a database for writing: a sweep keeps its store open while
it runs, so other processes (``aqmlab plot``) can read it once the sweep has finished.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import signal
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Self

if TYPE_CHECKING:
    import pandas as pd

STORE_FORMAT = "aqmlab.store/1"
RESULT_TABLES = ("flows", "links", "link_flows", "workloads")
TABLES = ("runs", *RESULT_TABLES)
# Copied from the run into every result row, so each table reads on its own.
RUN_COLUMNS_IN_RESULTS = ("scenario", "aqmlab_version", "wall_s", "events")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR);
CREATE TABLE IF NOT EXISTS runs (
    scenario_hash VARCHAR NOT NULL,
    seed UBIGINT NOT NULL,
    status VARCHAR NOT NULL CHECK (status IN ('done', 'failed')),
    error VARCHAR,
    sweep VARCHAR,
    scenario VARCHAR,
    aqmlab_version VARCHAR,
    build VARCHAR,
    wall_s DOUBLE,
    events BIGINT,
    sim_time_s DOUBLE,
    measure_from_s DOUBLE,
    finished_at TIMESTAMP,
    PRIMARY KEY (scenario_hash, seed)
);
CREATE TABLE IF NOT EXISTS flows (
    scenario_hash VARCHAR NOT NULL, seed UBIGINT NOT NULL, name VARCHAR NOT NULL, row_index INTEGER,
    scenario VARCHAR, aqmlab_version VARCHAR, wall_s DOUBLE, events BIGINT,
    PRIMARY KEY (scenario_hash, seed, name)
);
CREATE TABLE IF NOT EXISTS links (
    scenario_hash VARCHAR NOT NULL, seed UBIGINT NOT NULL, name VARCHAR NOT NULL, row_index INTEGER,
    scenario VARCHAR, aqmlab_version VARCHAR, wall_s DOUBLE, events BIGINT,
    PRIMARY KEY (scenario_hash, seed, name)
);
CREATE TABLE IF NOT EXISTS link_flows (
    scenario_hash VARCHAR NOT NULL, seed UBIGINT NOT NULL, link VARCHAR NOT NULL, flow VARCHAR NOT NULL,
    row_index INTEGER, scenario VARCHAR, aqmlab_version VARCHAR, wall_s DOUBLE, events BIGINT,
    PRIMARY KEY (scenario_hash, seed, link, flow)
);
CREATE TABLE IF NOT EXISTS workloads (
    scenario_hash VARCHAR NOT NULL, seed UBIGINT NOT NULL, workload VARCHAR NOT NULL, bucket VARCHAR NOT NULL,
    row_index INTEGER, scenario VARCHAR, aqmlab_version VARCHAR, wall_s DOUBLE, events BIGINT,
    PRIMARY KEY (scenario_hash, seed, workload, bucket)
);
CREATE TABLE IF NOT EXISTS scenarios (
    scenario_hash VARCHAR PRIMARY KEY, name VARCHAR, base VARCHAR, overrides VARCHAR, expanded VARCHAR
);
CREATE TABLE IF NOT EXISTS param_keys (key VARCHAR PRIMARY KEY);
"""
# Added after the first stores were written: an older store gets them when opened for writing.
_SCHEMA_ADDITIONS = """
ALTER TABLE runs ADD COLUMN IF NOT EXISTS build VARCHAR;
CREATE TABLE IF NOT EXISTS workloads (
    scenario_hash VARCHAR NOT NULL, seed UBIGINT NOT NULL, workload VARCHAR NOT NULL, bucket VARCHAR NOT NULL,
    row_index INTEGER, scenario VARCHAR, aqmlab_version VARCHAR, wall_s DOUBLE, events BIGINT,
    PRIMARY KEY (scenario_hash, seed, workload, bucket)
);
CREATE TABLE IF NOT EXISTS plans (
    sweep VARCHAR NOT NULL, base VARCHAR NOT NULL, point INTEGER NOT NULL, scenario_hash VARCHAR NOT NULL,
    params VARCHAR, PRIMARY KEY (sweep, base, point)
);
"""

# DuckDB type -> pandas dtype used to hand values over without a lossy guess.
_PANDAS_DTYPES = {
    "BIGINT": "Int64",
    "INTEGER": "Int64",
    "UBIGINT": "UInt64",
    "DOUBLE": "Float64",
    "BOOLEAN": "boolean",
    "TIMESTAMP": "datetime64[us]",
}


class PlanPoint(Protocol):
    """What :meth:`Store.sweep_frame` reads of a point of a sweep's plan."""

    @property
    def index(self) -> int: ...

    @property
    def params(self) -> Mapping[str, str]: ...

    @property
    def scenario_hash(self) -> str: ...


class SweepPlan(Protocol):
    """What :meth:`Store.sweep_frame` reads of a sweep's plan (:class:`aqmlab.sweep.plan.Plan` is one)."""

    @property
    def points(self) -> Sequence[PlanPoint]: ...

    @property
    def seeds(self) -> Sequence[int]: ...

    @property
    def param_keys(self) -> list[str]: ...


class StoreError(RuntimeError):
    """The store cannot be opened or written: in use, not a store, a column of another type."""


class NotAStoreError(StoreError):
    """The path is not an aqmlab store (missing, a directory, empty, corrupt, another database):
    the user's mistake, answered with exit status 2; the file is left as it is."""


@dataclass(frozen=True)
class RunRecord:
    """One finished run, as the sweep hands it to :meth:`Store.record`."""

    scenario_hash: str
    seed: int
    status: str  # "done" or "failed"
    error: str | None
    sweep: str
    scenario: str
    params: Mapping[str, str]  # override key -> --set VALUE text
    aqmlab_version: str
    wall_s: float
    results: Mapping[str, Any] | None  # the results JSON (format aqmlab.results/1) of a done run
    base: str = ""
    expanded: str | None = None
    build: str | None = None
    # result_tables(results), when the worker computed it; else it is computed from results
    tables: Mapping[str, tuple[int, dict[str, list[Any]]]] | None = None


@dataclass(frozen=True)
class PlanRow:
    """One point of a sweep's plan, as :meth:`Store.record_plan` and :meth:`Store.sweep_frame` take it."""

    point: int  # 0-based position in the sweep
    scenario_hash: str
    params: Mapping[str, str]  # override key -> --set VALUE text


def stale_warning(count: int) -> str:
    """What plots and sweeps say about stale runs."""
    return (
        f"{count} stored runs belong to scenarios that are in no sweep's current plan (an earlier version "
        "of a sweep or of its base scenario); they are left out of plots and sweep results; "
        "aqmlab sweep SPEC --prune deletes them"
    )


def quote(name: str) -> str:
    """A SQL identifier: column names hold dots (``flow.udp.rate``), so every one is quoted."""
    return '"' + name.replace('"', '""') + '"'


class Store:
    """A results store; ``Store(None)`` is an in-memory one. Use it as a context manager.

    ``read_only`` opens an existing store without locking out other readers.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None, *, read_only: bool = False):
        import duckdb

        self._duckdb = duckdb
        self.path = None if path is None else Path(path)
        self.read_only = read_only
        if self.path is not None:
            if self.path.is_dir():
                raise NotAStoreError(f"{self.path}: is a directory, not a store")
            if self.path.exists() and not self.path.is_file():
                raise NotAStoreError(f"{self.path}: not a regular file (a device or FIFO?), not a store")
            if read_only and not self.path.is_file():
                raise NotAStoreError(f"{self.path}: no such store")
            if not read_only and not self.path.parent.is_dir():
                raise NotAStoreError(f"{self.path}: directory {self.path.parent} does not exist")
        try:
            self.con = duckdb.connect(":memory:" if self.path is None else str(self.path), read_only=read_only)
        except duckdb.InterruptException:
            raise KeyboardInterrupt from None  # Ctrl-C while the store opens: exit 130, not an error
        except duckdb.IOException as error:
            text = str(error)
            if "lock" in text.lower():
                raise StoreError(
                    f"{self.path}: the store is open in another process (a sweep still running?): {text}"
                ) from None
            raise NotAStoreError(f"{self.path}: not an aqmlab store (DuckDB cannot read it: {text})") from None
        except duckdb.Error as error:
            raise NotAStoreError(f"{self.path}: not an aqmlab store (DuckDB cannot read it: {error})") from None
        except OSError as error:
            raise StoreError(f"{self.path}: cannot open: {error.strerror or error}") from None
        try:
            self._prepare()
        except duckdb.InterruptException:
            self.con.close()
            raise KeyboardInterrupt from None
        except duckdb.Error as error:
            self.con.close()
            raise NotAStoreError(f"{self.display_path}: not an aqmlab store (DuckDB cannot read it: {error})") from None
        except BaseException:
            self.con.close()
            raise

    def _prepare(self) -> None:
        tables = {row[0] for row in self.con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        if "meta" in tables:
            found = self.con.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
            if found is None or found[0] != STORE_FORMAT:
                raise NotAStoreError(
                    f"{self.display_path}: store format {found and found[0]!r}, expected {STORE_FORMAT!r}"
                )
        elif tables:
            raise NotAStoreError(f"{self.display_path}: a DuckDB database, but not an aqmlab store")
        elif not self.read_only:
            self.con.execute("BEGIN")
            self.con.execute(_SCHEMA)
            self.con.execute("INSERT INTO meta VALUES ('format', ?)", [STORE_FORMAT])
            self.con.execute("COMMIT")
        else:
            raise NotAStoreError(f"{self.display_path}: an empty database, not an aqmlab store")
        if not self.read_only:
            self.con.execute(_SCHEMA_ADDITIONS)
        self._has_plans = "plans" in tables or not self.read_only
        self._load_columns()
        self._known_scenarios = {row[0] for row in self.con.execute("SELECT scenario_hash FROM scenarios").fetchall()}
        self._known_params = set(self.param_keys())

    def _load_columns(self) -> None:
        self._columns: dict[str, dict[str, str]] = {table: {} for table in TABLES}
        for table, column, data_type in self.con.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns ORDER BY ordinal_position"
        ).fetchall():
            if table in self._columns:
                self._columns[table][column] = data_type

    @property
    def display_path(self) -> str:
        return "(in memory)" if self.path is None else str(self.path)

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # ---- reading

    def columns(self, table: str) -> dict[str, str]:
        """Column name -> DuckDB type, in table order."""
        return dict(self._columns[table])

    def param_keys(self) -> list[str]:
        return [row[0] for row in self.con.execute("SELECT key FROM param_keys ORDER BY key").fetchall()]

    def keys(self, among: Iterable[tuple[str, int]] | None = None, status: str | None = None) -> set[tuple[str, int]]:
        """The stored (scenario_hash, seed) keys, of any status or one; only those in ``among`` if given."""
        query = "SELECT scenario_hash, seed FROM runs" + (" WHERE status = ?" if status else "")
        found = {(row[0], int(row[1])) for row in self.con.execute(query, [status] if status else []).fetchall()}
        return found if among is None else found & set(among)

    def current_hashes(self, replacing: tuple[str, str] | None = None, by: Iterable[str] = ()) -> set[str] | None:
        """The scenario hashes of every sweep's current plan; None for a store that records no plan.

        ``replacing=(sweep, base)`` with ``by``: as if that sweep's plan were ``by`` (a sweep about
        to run, in a dry run).
        """
        if not self._has_plans:
            return None
        query, arguments = "SELECT DISTINCT scenario_hash FROM plans", []
        if replacing is not None:
            query += " WHERE NOT (sweep = ? AND base = ?)"
            arguments = list(replacing)
        found = {row[0] for row in self.con.execute(query, arguments).fetchall()} | set(by)
        if not found and replacing is None:
            return None
        return found

    def runs_outside(self, hashes: Iterable[str]) -> pd.DataFrame:
        """Stored runs whose scenario is not among ``hashes``: their key, sweep, scenario name,
        status, build and overrides (JSON), ordered by sweep, scenario and seed."""
        build = "r.build" if "build" in self._columns["runs"] else "NULL AS build"
        return self._with_hashes(
            hashes,
            f"SELECT r.scenario_hash, r.seed, r.sweep, r.scenario, r.status, {build}, s.overrides "
            "FROM runs r LEFT JOIN scenarios s USING (scenario_hash) "
            "WHERE r.scenario_hash NOT IN (SELECT scenario_hash FROM _aqmlab_hashes) "
            "ORDER BY r.sweep, r.scenario_hash, r.seed",
        )

    def stale_runs(self) -> pd.DataFrame:
        """Runs whose scenario is in no sweep's current plan (empty for a store that records no plan)."""
        current = self.current_hashes()
        if current is None:
            return self.runs_outside(self.keys_hashes())
        return self.runs_outside(current)

    def keys_hashes(self) -> set[str]:
        return {row[0] for row in self.con.execute("SELECT DISTINCT scenario_hash FROM runs").fetchall()}

    def builds(self, among: Iterable[tuple[str, int]]) -> dict[str | None, int]:
        """How many of the runs ``among`` (those stored) each build computed (None: not recorded)."""
        wanted = set(among)
        if not wanted:
            return {}
        build = "build" if "build" in self._columns["runs"] else "NULL"
        counts: dict[str | None, int] = {}
        for hash_, seed, found in self.con.execute(f"SELECT scenario_hash, seed, {build} FROM runs").fetchall():
            if (hash_, int(seed)) in wanted:
                counts[found] = counts.get(found, 0) + 1
        return counts

    def _with_hashes(self, hashes: Iterable[str], query: str) -> pd.DataFrame:
        import pandas as pd

        self.con.register("_aqmlab_hashes", pd.DataFrame({"scenario_hash": sorted(set(hashes))}, dtype=object))
        try:
            return self.con.execute(query).df()
        finally:
            self.con.unregister("_aqmlab_hashes")

    def table(self, name: str) -> pd.DataFrame:
        """A whole table, ordered by run key and position."""
        if name not in (*TABLES, "scenarios", "param_keys"):
            raise StoreError(f"no table {name!r} (tables: {', '.join(TABLES)}, scenarios, param_keys)")
        order = {"runs": "scenario_hash, seed", "scenarios": "scenario_hash", "param_keys": "key"}.get(
            name, "scenario_hash, seed, row_index"
        )
        return self.con.execute(f"SELECT * FROM {name} ORDER BY {order}").df()

    def sql(self, query: str, parameters: Sequence[object] | None = None) -> pd.DataFrame:
        return self.con.execute(query, parameters or []).df()

    def sweep_frame(self, table: str, plan: SweepPlan) -> pd.DataFrame:
        """One table restricted to a sweep's runs, with that sweep's parameters, in sweep order.

        A run reached by two sweeps carries, in the store, the parameters of the one that stored
        it; here it carries this plan's. Runs not stored yet have a row with a NULL status.
        """
        import pandas as pd

        keys = plan.param_keys
        rows = []
        for order, (point, seed) in enumerate((point, seed) for point in plan.points for seed in plan.seeds):
            rows.append(
                {
                    "_order": order,
                    "point": point.index,
                    **{key: point.params.get(key) for key in keys},
                    "seed": seed,
                    "scenario_hash": point.scenario_hash,
                }
            )
        frame = pd.DataFrame(rows, columns=["_order", "point", *keys, "seed", "scenario_hash"])
        frame["seed"] = frame["seed"].astype("UInt64")
        for key in keys:
            frame[key] = frame[key].astype(object)
        stored_params = set(self.param_keys())

        def rest(alias: str, table_name: str, also_skip: Iterable[str] = ()) -> str:
            skip = {"scenario_hash", "seed", *stored_params, *also_skip}
            return ", ".join(f"{alias}.{quote(column)}" for column in self._columns[table_name] if column not in skip)

        self.con.register("_aqmlab_plan", frame)
        try:
            if table == "runs":
                query = (
                    f"SELECT p.* EXCLUDE (_order), {rest('r', 'runs')} FROM _aqmlab_plan p "
                    "LEFT JOIN runs r USING (scenario_hash, seed) ORDER BY p._order"
                )
            else:
                run_part = ", ".join(f"r.{quote(c)}" for c in ("status", "error", *RUN_COLUMNS_IN_RESULTS))
                query = (
                    f"SELECT p.* EXCLUDE (_order), {run_part}, {rest('t', table, RUN_COLUMNS_IN_RESULTS)} "
                    f"FROM _aqmlab_plan p LEFT JOIN runs r USING (scenario_hash, seed) "
                    f"LEFT JOIN {table} t USING (scenario_hash, seed) ORDER BY p._order, t.row_index"
                )
            return self.con.execute(query).df()
        finally:
            self.con.unregister("_aqmlab_plan")

    # ---- writing

    def record(self, record: RunRecord) -> bool:
        """Store one run atomically; False (and nothing written) if its key is already stored."""
        return self.record_many([record])[0]

    def record_many(self, records: Sequence[RunRecord]) -> list[bool]:
        """Store runs in one transaction, all or none; per run, False where its key was already
        stored (that run is left out, the others are written).

        One transaction and one insert per table for many runs is what keeps a sweep of short
        runs bound by its runs rather than by the store (a commit costs about as much as a short
        run). A Ctrl-C meanwhile takes effect once the transaction is over (DuckDB would otherwise
        turn it into an error of its own half way through).
        """
        if self.read_only:
            raise StoreError(f"{self.display_path}: opened read-only")
        if not records:
            return []
        with _sigint_deferred():
            return self._record(records)

    def _record(self, records: Sequence[RunRecord]) -> list[bool]:
        duckdb = self._duckdb
        self.con.execute("BEGIN TRANSACTION")
        try:
            keys = [(record.scenario_hash, record.seed) for record in records]
            stored = self._stored_among(keys)
            fresh: list[RunRecord] = []
            taken: set[tuple[str, int]] = set()
            for record, key in zip(records, keys):
                if key not in stored and key not in taken:
                    fresh.append(record)
                    taken.add(key)
            parts: dict[str, list[tuple[int, Columns]]] = {}
            params: set[str] = set()
            for record in fresh:
                for table, part in _record_tables(record).items():
                    parts.setdefault(table, []).append(part)
                params.update(record.params)
            for table in TABLES:
                if table in parts:
                    self._insert(table, _concat(parts[table]), params)
            new_scenarios: dict[str, list[object]] = {}
            for record in fresh:
                if record.scenario_hash not in self._known_scenarios:
                    new_scenarios.setdefault(
                        record.scenario_hash,
                        [
                            record.scenario_hash,
                            record.scenario,
                            record.base,
                            json.dumps(list(record.params.items())),
                            record.expanded,
                        ],
                    )
            if new_scenarios:
                self.con.executemany(
                    "INSERT INTO scenarios VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", list(new_scenarios.values())
                )
            new_params = sorted(params - self._known_params)
            if new_params:
                self.con.executemany(
                    "INSERT INTO param_keys VALUES (?) ON CONFLICT DO NOTHING", [[param] for param in new_params]
                )
            self.con.execute("COMMIT")
            # Only now: a rolled-back transaction must not leave these caches ahead of the database.
            self._known_scenarios.update(new_scenarios)
            self._known_params.update(new_params)
        except duckdb.ConstraintException:
            self._rollback()
            return [False] * len(records)
        except duckdb.Error as error:
            self._rollback()
            first = records[0]
            runs = f"run {first.scenario_hash[:12]} seed {first.seed}" + (
                f" and {len(records) - 1} more" if len(records) > 1 else ""
            )
            raise StoreError(f"{self.display_path}: cannot store {runs}: {error}") from None
        except BaseException:
            self._rollback()
            raise
        written = {id(record) for record in fresh}
        return [id(record) in written for record in records]

    def _stored_among(self, keys: Sequence[tuple[str, int]]) -> set[tuple[str, int]]:
        """Which of ``keys`` the runs table already has."""
        rows = self.con.execute(
            "SELECT scenario_hash, seed FROM runs WHERE (scenario_hash, seed) IN "
            "(SELECT unnest(?::VARCHAR[]), unnest(?::UBIGINT[]))",
            [[key[0] for key in keys], [key[1] for key in keys]],
        ).fetchall()
        return {(scenario_hash, int(seed)) for scenario_hash, seed in rows}

    def record_plan(self, sweep: str, base: str, rows: Sequence[PlanRow]) -> None:
        """Make ``rows`` the current plan of the sweep ``(sweep, base)``, replacing its previous one."""
        if self.read_only:
            raise StoreError(f"{self.display_path}: opened read-only")
        with _sigint_deferred():
            self.con.execute("BEGIN TRANSACTION")
            try:
                self.con.execute("DELETE FROM plans WHERE sweep = ? AND base = ?", [sweep, base])
                self.con.executemany(
                    "INSERT INTO plans VALUES (?, ?, ?, ?, ?)",
                    [[sweep, base, row.point, row.scenario_hash, json.dumps(dict(row.params))] for row in rows],
                )
                self.con.execute("COMMIT")
            except BaseException:
                self._rollback()
                raise

    def prune(self) -> int:
        """Delete the stale runs (those of scenarios in no sweep's current plan); returns how many."""
        stale = self.stale_runs()
        keys = [(row.scenario_hash, int(row.seed)) for row in stale.itertuples()]
        return self.delete_runs(keys)

    def delete_runs(self, keys: Iterable[tuple[str, int]]) -> int:
        """Remove runs (and their rows in every table) in one transaction; returns how many."""
        keys = list(keys)
        if not keys:
            return 0
        self.con.execute("BEGIN TRANSACTION")
        try:
            for table in (*RESULT_TABLES, "runs"):
                self.con.executemany(
                    f"DELETE FROM {table} WHERE scenario_hash = ? AND seed = ?", [list(key) for key in keys]
                )
            self.con.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        return len(keys)

    def _rollback(self) -> None:
        try:
            self.con.execute("ROLLBACK")
        finally:
            self._load_columns()  # columns added in the transaction are gone again

    def _insert(self, table: str, rows: tuple[int, Columns], params: set[str]) -> None:
        import pandas as pd

        existing = self._columns[table]
        _, columns = rows
        data: dict[str, Any] = {}
        for name, values in columns.items():
            wanted = "VARCHAR" if name in params else _sql_type(values)
            current = existing.get(name)
            if current is None:
                if wanted is None:
                    continue  # all NULL: the column appears once some run has a value
                default = " DEFAULT 0" if _is_counter(name) and wanted == "BIGINT" else ""
                self.con.execute(f"ALTER TABLE {table} ADD COLUMN {quote(name)} {wanted}{default}")
                existing[name] = current = wanted
            elif wanted is not None and not _compatible(current, wanted):
                raise StoreError(
                    f"{self.display_path}: column {table}.{name} holds {current} values, this run has {wanted}"
                )
            if _is_counter(name):
                values = [0 if value is None else value for value in values]
            data[name] = _column(values, current)
        frame = pd.DataFrame(data)
        self.con.register("_aqmlab_rows", frame)
        try:
            self.con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM _aqmlab_rows")
        finally:
            self.con.unregister("_aqmlab_rows")


@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """Hold SIGINT back for the duration of the block, then deliver it to the previous handler."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received:
            signal.raise_signal(signal.SIGINT)


Columns = dict[str, list[Any]]


def result_tables(results: Mapping[str, Any]) -> dict[str, tuple[int, Columns]]:
    """What a run's results add to each table, as (row count, columns): the run's own scalars
    (``runs``, one row) and its rows of ``flows``, ``links``, ``link_flows`` and ``workloads``,
    nested maps spread into dotted names (``drops_by_reason.early``).

    A pure function of the results, so a sweep's workers compute it beside the run and the
    process that stores the runs only concatenates columns.
    """
    run = {
        "events": results.get("events"),
        "sim_time_s": results.get("sim_time_s"),
        "measure_from_s": results.get("measure_from_s"),
        **_flatten({"fairness": results["fairness"]} if "fairness" in results else {}),
    }
    links = results.get("links", [])
    return {
        "runs": (1, {name: [value] for name, value in run.items()}),
        "flows": _columns([_flatten(flow) for flow in results.get("flows", [])]),
        "links": _columns([_flatten({k: v for k, v in link.items() if k != "flows"}) for link in links]),
        "link_flows": _columns(
            [{"link": link["name"], **_flatten(flow)} for link in links for flow in link.get("flows", [])]
        ),
        "workloads": _columns(
            [_workload_row(w, bucket) for w in results.get("workloads", []) for bucket in w["buckets"]]
        ),
    }


def _workload_row(workload: Mapping[str, Any], bucket: Mapping[str, Any]) -> dict[str, Any]:
    """A workload's row for one size bucket: its summary beside the bucket's statistics."""
    summary = {k: v for k, v in workload.items() if k not in ("name", "buckets")}
    return {"workload": workload["name"], **_flatten(summary), **_flatten(bucket)}


def _columns(rows: list[dict[str, Any]]) -> tuple[int, Columns]:
    """Rows as (count, columns), with a row_index column; a name some rows lack is None there."""
    names = dict.fromkeys(name for row in rows for name in row)
    columns: Columns = {"row_index": list(range(len(rows)))}
    for name in names:
        columns[name] = [row.get(name) for row in rows]
    return len(rows), columns


def _record_tables(record: RunRecord) -> dict[str, tuple[int, Columns]]:
    """What ``record`` adds to each table: its result tables (computed by the worker, or here from
    its results) with the run's key, the run columns every result row repeats, and its params."""
    tables = record.tables if record.tables is not None else result_tables(record.results or {})
    finished_at = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    run_fields = {
        "scenario_hash": record.scenario_hash,
        "seed": record.seed,
        "status": record.status,
        "error": record.error,
        "sweep": record.sweep,
        "scenario": record.scenario,
        "aqmlab_version": record.aqmlab_version,
        "build": record.build,
        "wall_s": record.wall_s,
        "finished_at": finished_at,
    }
    _, run_columns = tables.get("runs", (1, {}))
    events = run_columns.get("events", [None])[0]
    common = {
        "scenario_hash": record.scenario_hash,
        "seed": record.seed,
        "scenario": record.scenario,
        "aqmlab_version": record.aqmlab_version,
        "wall_s": record.wall_s,
        "events": events,
        **record.params,
    }
    run_row = {**run_fields, **{name: values[0] for name, values in run_columns.items()}, **record.params}
    out = {"runs": (1, {name: [value] for name, value in run_row.items()})}
    for table in RESULT_TABLES:
        count, columns = tables.get(table, (0, {}))
        if count:
            out[table] = (count, {**{name: [value] * count for name, value in common.items()}, **columns})
    return out


def _concat(parts: list[tuple[int, Columns]]) -> tuple[int, Columns]:
    """Several runs' columns of one table as one: a column a run lacks is None in its rows."""
    names = dict.fromkeys(name for _, columns in parts for name in columns)
    total = sum(count for count, _ in parts)
    joined: Columns = {}
    for name in names:
        values: list[Any] = []
        for count, columns in parts:
            values.extend(columns.get(name) or [None] * count)
        joined[name] = values
    return total, joined


def _flatten(mapping: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for name, value in mapping.items():
        # Results come from JSON: their maps are dicts (isinstance against the Mapping ABC costs
        # several times as much, on every value of every row).
        if type(value) is dict:
            flat.update(_flatten(value, f"{prefix}{name}."))
        else:
            flat[f"{prefix}{name}"] = value
    return flat


def _is_counter(name: str) -> bool:
    """``drops_by_reason.early``: a count per reason, where a missing reason means zero."""
    head, dot, _ = name.rpartition(".")
    return bool(dot) and head.rsplit(".", 1)[-1].endswith("_by_reason")


def _sql_type(values: Sequence[object]) -> str | None:
    kinds = {type(value) for value in values if value is not None}
    if not kinds:
        return None
    if kinds == {bool}:
        return "BOOLEAN"
    if kinds == {int}:
        return "BIGINT"
    if kinds <= {int, float}:
        return "DOUBLE"
    if kinds == {datetime.datetime}:
        return "TIMESTAMP"
    return "VARCHAR"


def _compatible(column_type: str, value_type: str) -> bool:
    if column_type == value_type or column_type == "VARCHAR":
        return True
    return (column_type, value_type) in {("DOUBLE", "BIGINT"), ("UBIGINT", "BIGINT"), ("INTEGER", "BIGINT")}


def _column(values: list[object], sql_type: str):
    import pandas as pd

    dtype = _PANDAS_DTYPES.get(sql_type)
    if dtype is None:  # VARCHAR: lists and the like as JSON
        return pd.Series(
            [value if value is None or isinstance(value, str) else json.dumps(value) for value in values], dtype=object
        )
    if sql_type == "DOUBLE":
        values = [None if value is None else float(value) for value in values]  # type: ignore[arg-type]  # numbers
    return pd.array(values, dtype=dtype)
