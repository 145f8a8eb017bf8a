"""Sweeps: the description, the run identity, the store, the executors, resuming, failures, plots."""

from __future__ import annotations

import hashlib
import json
import math
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import duckdb
import pandas as pd
import pytest

import aqmlab
from aqmlab.plot import quantity, summarize, t_interval
from aqmlab.sweep import SweepError, SweepSpec, build_identity, plan, scenario_hash
from aqmlab.sweep.store import RunRecord, Store, StoreError
from support import REPO_ROOT, run_cli

# A small UDP-only dumbbell with DropTail: fast, and independent of the TCP and AQM code. The
# Poisson sources make the seed matter; the CBR flow `udp` is the swept one.
BASE = """\
[simulation]
duration = "20s"
warmup = "2s"
seed = 1

[[link]]
between = ["s{i}", "r1"]
count = 4
rate = "10Mbps"
delay = "1ms"
queue = { discipline = "droptail", limit = 100 }

[[link]]
name = "bottleneck"
between = ["r1", "r2"]
rate = "1Mbps"
delay = "1ms"
queue = { discipline = "droptail", limit = 50 }

[[link]]
between = ["r2", "sink"]
rate = "10Mbps"
delay = "1ms"
queue = { discipline = "droptail", limit = 100 }

[[flow]]
name = "p{i}"
count = 3
src = "s{i}"
dst = "sink"
kind = "poisson"
rate = "300kbps"

[[flow]]
name = "udp"
src = "s4"
dst = "sink"
kind = "cbr"
rate = "0.5Mbps"
"""
FLOWS = 4  # p1, p2, p3, udp
LINK_DIRECTIONS = 12  # 4 access links, the bottleneck and the sink link, both ways

GRID_SPEC = """\
base = "base.toml"
seeds = [1, 2, 3]
[grid]
"link.bottleneck.queue.limit" = [10, 50]
"flow.udp.rate" = ["0.2Mbps", "0.8Mbps"]
"""
GRID_RUNS = 12

# Columns that say when and how fast a run went, not what it computed.
TIMING_COLUMNS = ["wall_s", "finished_at"]
RESULT_TABLES = ["runs", "flows", "links", "link_flows", "scenarios", "param_keys"]


@pytest.fixture
def sweep_dir(tmp_path: Path) -> Path:
    (tmp_path / "base.toml").write_text(BASE)
    (tmp_path / "grid.toml").write_text(GRID_SPEC)
    return tmp_path


def store_tables(path: Path) -> dict[str, pd.DataFrame]:
    with Store(path, read_only=True) as store:
        return {table: store.table(table).drop(columns=TIMING_COLUMNS, errors="ignore") for table in RESULT_TABLES}


def query(path: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(path), read_only=True) as con:
        return con.execute(sql).fetchall()


def assert_store_complete(path: Path, runs: int) -> None:
    """Exactly ``runs`` runs, each done with all its rows, and no key twice in any table."""
    assert query(path, "SELECT count(*), count(*) FILTER (status = 'done') FROM runs") == [(runs, runs)]
    for table, per_run in [("flows", FLOWS), ("links", LINK_DIRECTIONS)]:
        counts = query(
            path,
            f"SELECT r.scenario_hash, r.seed, count(t.seed) FROM runs r LEFT JOIN {table} t "
            "USING (scenario_hash, seed) GROUP BY ALL",
        )
        assert {count for _, _, count in counts} == {per_run}, table
    for table, key in [
        ("runs", "scenario_hash, seed"),
        ("flows", "scenario_hash, seed, name"),
        ("links", "scenario_hash, seed, name"),
        ("link_flows", "scenario_hash, seed, link, flow"),
    ]:
        assert query(path, f"SELECT {key}, count(*) FROM {table} GROUP BY ALL HAVING count(*) > 1") == [], table


# ---- the description


def test_grid_is_every_combination_last_key_fastest(sweep_dir: Path):
    spec = SweepSpec.from_file(sweep_dir / "grid.toml")
    assert spec.name == "grid"
    assert spec.base == str(sweep_dir / "base.toml")  # relative to the sweep file
    assert spec.override_sets() == [
        {"link.bottleneck.queue.limit": 10, "flow.udp.rate": "0.2Mbps"},
        {"link.bottleneck.queue.limit": 10, "flow.udp.rate": "0.8Mbps"},
        {"link.bottleneck.queue.limit": 50, "flow.udp.rate": "0.2Mbps"},
        {"link.bottleneck.queue.limit": 50, "flow.udp.rate": "0.8Mbps"},
    ]


def test_points_are_crossed_with_the_grid_and_set_applies_to_all(sweep_dir: Path):
    spec = SweepSpec.from_dict(
        {
            "base": "base.toml",
            "seeds": 2,
            "set": {"simulation.duration": "5s"},
            "point": [{"link.bottleneck.queue.limit": 10}, {"link.bottleneck.rate": "2Mbps"}],
            "grid": {"flow.udp.rate": ["0.2Mbps", "0.8Mbps"]},
        },
        root=sweep_dir,
    )
    assert spec.seeds == (1, 2)
    assert spec.override_sets() == [
        {"simulation.duration": "5s", "link.bottleneck.queue.limit": 10, "flow.udp.rate": "0.2Mbps"},
        {"simulation.duration": "5s", "link.bottleneck.queue.limit": 10, "flow.udp.rate": "0.8Mbps"},
        {"simulation.duration": "5s", "link.bottleneck.rate": "2Mbps", "flow.udp.rate": "0.2Mbps"},
        {"simulation.duration": "5s", "link.bottleneck.rate": "2Mbps", "flow.udp.rate": "0.8Mbps"},
    ]
    # No grid, no points: the base scenario alone, with its own seed.
    alone = plan(SweepSpec(base=sweep_dir / "base.toml"))
    assert [point.params for point in alone.points] == [{}]
    assert alone.seeds == (1,)


def test_command_line_overrides_replace_set_but_not_swept_keys(sweep_dir: Path):
    spec = SweepSpec.from_dict({"base": "base.toml", "set": {"simulation.duration": "5s"},
                                "grid": {"flow.udp.rate": ["0.2Mbps"]}}, root=sweep_dir)  # fmt: skip
    shorter = spec.with_overrides([("simulation.duration", "2s"), ("simulation.warmup", "1s")])
    assert shorter.override_sets() == [
        {"simulation.duration": "2s", "simulation.warmup": "1s", "flow.udp.rate": "0.2Mbps"}
    ]
    with pytest.raises(SweepError, match="grid: 'flow.udp.rate' is also set in set"):
        spec.with_overrides({"flow.udp.rate": "1Mbps"})


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"grid": {}}, "base: missing"),
        ({"base": "b.toml", "sedes": [1]}, "sedes: unknown key"),
        ({"base": "b.toml", "seeds": []}, "seeds: the list is empty"),
        ({"base": "b.toml", "seeds": [1, 2, 1]}, "seeds: 1 appears more than once"),
        ({"base": "b.toml", "seeds": [-1]}, "is not an integer from 0 to 2^64-1"),
        ({"base": "b.toml", "seeds": "1..5"}, "seeds: expected a list of integers"),
        ({"base": "b.toml", "grid": {"flow.udp.rate": "1Mbps"}}, "flow.udp.rate: expected a non-empty list"),
        ({"base": "b.toml", "grid": {"flow.udp.rate": ["1Mbps", "1Mbps"]}}, "'1Mbps' appears more than once"),
        ({"base": "b.toml", "grid": {"simulation.seed": [1, 2]}}, "seeds are given by the sweep's `seeds`"),
        (
            {"base": "b.toml", "set": {"flow.udp.rate": "1Mbps"}, "grid": {"flow.udp.rate": ["2Mbps"]}},
            "grid: 'flow.udp.rate' is also set in set",
        ),
        ({"base": "b.toml", "point": {"flow.udp.rate": "1Mbps"}}, "point: expected a list of tables"),
        (
            {"base": "b.toml", "point": [{"flow.udp.rate": {1, 2}}]},
            "point[1]: flow.udp.rate: {1, 2} is not a string, number, boolean, inline table or array",
        ),
    ],
)
def test_bad_descriptions_are_refused_with_the_key(spec: dict, message: str):
    with pytest.raises(SweepError) as error:
        SweepSpec.from_dict(spec, source="s.toml")
    assert message in str(error.value)
    assert str(error.value).startswith("s.toml: ")


# ---- the run identity


def test_scenario_hash_is_the_expanded_scenario_without_path_and_seed(sweep_dir: Path):
    here = aqmlab.loads(BASE, "a.toml")
    elsewhere = aqmlab.loads(BASE, "b/a.toml", overrides={"simulation.seed": 9})
    assert scenario_hash(here) == scenario_hash(elsewhere)
    faster = aqmlab.loads(BASE, "a.toml", overrides={"flow.udp.rate": "0.8Mbps"})
    assert scenario_hash(faster) != scenario_hash(here)
    # The same scenario written another way is the same run.
    same = aqmlab.loads(BASE, "a.toml", overrides={"flow.udp.rate": "500kbps"})
    assert scenario_hash(same) == scenario_hash(here)

    expanded = json.loads(here.to_json())
    del expanded["path"], expanded["seed"]
    canonical = json.dumps(expanded, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert scenario_hash(here) == hashlib.sha256(canonical.encode()).hexdigest()


# ---- executors


def test_a_clusters_tasks_grow_to_a_quarter_second_of_short_runs(monkeypatch):
    # A Dask task costs the scheduler milliseconds: once runs are timed, short ones go several
    # to a task (TASK_S of work, at most MAX_BATCH), long ones one each. The grid sweep below
    # then stores the same results through such batches.
    from aqmlab.sweep import executors

    dask = object.__new__(executors._Dask)
    dask._finished = times = executors._RunTimes()
    assert dask._batch() == 1  # nothing timed yet
    times.runs, times.seconds = 10, 0.1  # 10 ms a run
    assert dask._batch() == math.ceil(executors.TASK_S / 0.01)
    times.runs, times.seconds = 4, 8.0  # 2 s a run
    assert dask._batch() == 1
    times.runs, times.seconds = 1000, 1e-3
    assert dask._batch() == executors.MAX_BATCH
    assert [o.seed for o in executors.execute_runs(())] == []


def test_serial_pool_and_dask_store_the_same_results(sweep_dir: Path):
    serial = run_cli("sweep", sweep_dir / "grid.toml", "--workers", "1", "--store", sweep_dir / "serial.duckdb")
    assert serial.returncode == 0, serial.stderr
    assert "12 done, 0 failed" in serial.stdout
    assert "serial (in this process)" in serial.stdout

    pool = aqmlab.sweep(sweep_dir / "grid.toml", workers=2, store=sweep_dir / "pool.duckdb", progress=False)
    assert pool.attrs["sweep"].executor == "process pool of 2 workers"
    dask = aqmlab.sweep(sweep_dir / "grid.toml", dask="local:2", store=sweep_dir / "dask.duckdb", progress=False)
    assert dask.attrs["sweep"].executor == "Dask LocalCluster of 2 worker processes"
    assert dask.attrs["sweep"].done == pool.attrs["sweep"].done == GRID_RUNS

    reference = store_tables(sweep_dir / "serial.duckdb")
    for other in ("pool.duckdb", "dask.duckdb"):
        tables = store_tables(sweep_dir / other)
        for table in RESULT_TABLES:
            pd.testing.assert_frame_equal(tables[table], reference[table], obj=f"{other} {table}")
    assert_store_complete(sweep_dir / "serial.duckdb", GRID_RUNS)

    # The comparison means something: the seed changes the Poisson flows' results.
    flows = reference["flows"]
    p1 = flows[(flows["name"] == "p1")].groupby("scenario_hash")["mean_delay_s"].nunique()
    assert len(p1) == 4 and (p1 == 3).all()
    assert set(reference["runs"]["aqmlab_version"]) == {aqmlab.__version__}


def test_sweep_returns_this_sweeps_rows_in_order_with_its_parameters(sweep_dir: Path):
    spec = {
        "base": str(sweep_dir / "base.toml"),
        "seeds": [4, 5],
        # 500kbps is the base rate written another way: the same scenario, run once.
        "grid": {"flow.udp.rate": ["0.5Mbps", "500kbps", "0.8Mbps"]},
    }
    frame = aqmlab.sweep(spec, workers=1, progress=False)
    report = frame.attrs["sweep"]
    assert (report.total, report.done) == (4, 4)  # 3 points x 2 seeds, two points the same scenario
    assert len(frame) == 3 * 2 * FLOWS
    assert list(frame.columns[:6]) == ["point", "flow.udp.rate", "seed", "scenario_hash", "status", "error"]
    assert frame["point"].tolist() == sorted(frame["point"])
    assert set(frame["status"]) == {"done"}
    same = frame[frame["point"] == 0].drop(columns=["point", "flow.udp.rate"]).reset_index(drop=True)
    again = frame[frame["point"] == 1].drop(columns=["point", "flow.udp.rate"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(same, again)
    udp = frame[(frame["name"] == "udp") & (frame["flow.udp.rate"] == "0.8Mbps")]
    assert udp["sent_pkts"].tolist() == [1800, 1800]  # 0.8 Mbit/s x 18 s measured / 8000 bit

    runs = aqmlab.sweep(spec, workers=1, progress=False, table="runs")
    assert len(runs) == 6 and runs["events"].gt(0).all()


# ---- resuming


def test_a_second_call_runs_nothing_and_changes_nothing(sweep_dir: Path):
    store = sweep_dir / "s.duckdb"
    first = run_cli("sweep", sweep_dir / "grid.toml", "--workers", "2", "--store", store)
    assert first.returncode == 0, first.stderr
    before = store_tables(store)
    with Store(store, read_only=True) as opened:
        stamps = opened.table("runs")[["scenario_hash", "seed", "finished_at"]]
    second = run_cli("sweep", sweep_dir / "grid.toml", "--workers", "2", "--store", store)
    assert second.returncode == 0, second.stderr
    assert "this call: 0 done, 0 failed; 12 already in the store" in second.stdout
    after = store_tables(store)
    for table in RESULT_TABLES:
        pd.testing.assert_frame_equal(after[table], before[table])
    with Store(store, read_only=True) as opened:
        pd.testing.assert_frame_equal(opened.table("runs")[["scenario_hash", "seed", "finished_at"]], stamps)


def _start_verbose_sweep(spec: Path, store: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "aqmlab", "sweep", str(spec), "--store", str(store), "--workers", "2", "-v"],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, to see that its workers go with it
    )


def _kill_after(process: subprocess.Popen, stored: int, then_wait_s: float = 0.0) -> None:
    """SIGKILL the sweep once it has reported ``stored`` more finished runs (and ``then_wait_s`` more)."""
    seen = 0
    for line in process.stderr:
        if "] point " in line:
            seen += 1
            if seen == stored:
                break
    else:
        pytest.fail(f"the sweep ended before {stored} runs: {process.wait()}")
    time.sleep(then_wait_s)
    process.kill()
    process.wait(timeout=30)
    process.stderr.close()
    # Its pool workers notice the parent is gone and exit (they would otherwise wait forever).
    deadline = time.monotonic() + 15
    while (alive := _live_processes_in_group(process.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    if alive:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail(f"processes outlived the killed sweep: {alive}")


def _live_processes_in_group(group: int) -> list[str]:
    """Command lines of the processes of a process group that are not zombies (dead, not yet reaped)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
            cmdline = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # gone meanwhile
        state, pgrp = fields[0], int(fields[2])
        if pgrp == group and state != "Z":
            alive.append(cmdline.strip())
    return alive


def test_a_killed_sweep_keeps_whole_runs_and_resumes_without_duplicates(sweep_dir: Path):
    # 24 runs of about 0.1 s each: long enough to be killed half way.
    (sweep_dir / "long.toml").write_text(GRID_SPEC.replace("seeds = [1, 2, 3]", "seeds = 6") + (
        '[set]\n"simulation.duration" = "2000s"\n'
    ))  # fmt: skip
    store = sweep_dir / "long.duckdb"
    total = 24

    process = _start_verbose_sweep(sweep_dir / "long.toml", store)
    _kill_after(process, stored=3)
    first = query(store, "SELECT count(*) FROM runs")[0][0]
    assert 3 <= first < total
    assert_store_complete(store, first)  # whatever was stored is whole

    process = _start_verbose_sweep(sweep_dir / "long.toml", store)
    _kill_after(process, stored=2, then_wait_s=0.03)  # this time not right after a commit
    second = query(store, "SELECT count(*) FROM runs")[0][0]
    assert first + 2 <= second < total
    assert_store_complete(store, second)

    finish = run_cli("sweep", sweep_dir / "long.toml", "--store", store, "--workers", "2")
    assert finish.returncode == 0, finish.stderr
    assert f"{second} already in the store" in finish.stdout
    assert_store_complete(store, total)

    # And the resumed store holds what an uninterrupted run computes.
    reference = sweep_dir / "reference.duckdb"
    aqmlab.sweep(sweep_dir / "long.toml", store=reference, workers=1, progress=False)
    resumed, clean = store_tables(store), store_tables(reference)
    for table in RESULT_TABLES:
        pd.testing.assert_frame_equal(resumed[table], clean[table], obj=table)


# ---- failures


def test_failed_runs_are_recorded_with_their_message_and_the_rest_complete(sweep_dir: Path):
    (sweep_dir / "failing.toml").write_text(
        """\
base = "base.toml"
seeds = [1, 2]
[[point]]
"link.bottleneck.queue.limit" = 20
[[point]]
"link.bottleneck.queue.limit" = -5
[[point]]
"simulation.max_events" = 100
[grid]
"flow.udp.rate" = ["0.2Mbps", "0.8Mbps"]
"""
    )
    store = sweep_dir / "failing.duckdb"
    result = run_cli("sweep", sweep_dir / "failing.toml", "--store", store, "--workers", "2")
    assert result.returncode == 1, result.stderr
    assert "this call: 4 done, 8 failed" in result.stdout
    assert "point 3 {link.bottleneck.queue.limit=-5, flow.udp.rate=0.2Mbps} seeds 1, 2: ScenarioError:" in result.stdout

    runs = query(
        store,
        'SELECT "link.bottleneck.queue.limit", "simulation.max_events", status, error, events FROM runs ORDER BY ALL',
    )
    by_point: dict = {}
    for limit, max_events, status, error, events in runs:
        by_point.setdefault((limit, max_events), []).append((status, error, events))
    assert [(status, error) for status, error, _ in by_point[("20", None)]] == [("done", None)] * 4
    assert all(events > 0 for _, _, events in by_point[("20", None)])
    for status, error, events in by_point[("-5", None)]:
        assert status == "failed" and events is None
        assert error.startswith("ScenarioError: ")
        assert "link[bottleneck].queue.limit: -5 packets is not a buffer" in error
    for status, error, _ in by_point[(None, "100")]:
        assert status == "failed"
        assert error.startswith("SimulationError: ") and "simulation.max_events" in error
    # Failed runs have no result rows.
    failed_rows = "SELECT count(*) FROM flows JOIN runs USING (scenario_hash, seed) WHERE status = 'failed'"
    assert query(store, failed_rows) == [(0,)]
    assert query(store, "SELECT count(*) FROM flows") == [(4 * FLOWS,)]

    # Failed runs count as stored; --retry-failed runs them again (and they fail again).
    again = run_cli("sweep", sweep_dir / "failing.toml", "--store", store)
    assert again.returncode == 1 and "12 already in the store" in again.stdout
    assert "8 runs of this sweep failed in an earlier call" in again.stdout
    retried = run_cli("sweep", sweep_dir / "failing.toml", "--store", store, "--retry-failed", "--workers", "1")
    assert retried.returncode == 1 and "this call: 0 done, 8 failed; 4 already in the store" in retried.stdout
    assert query(store, "SELECT count(*) FROM runs") == [(12,)]


def test_a_bad_base_scenario_or_description_stops_before_running(sweep_dir: Path):
    (sweep_dir / "nobase.toml").write_text('base = "missing.toml"\n')
    result = run_cli("sweep", sweep_dir / "nobase.toml", "--store", sweep_dir / "x.duckdb")
    assert result.returncode == 2
    assert "missing.toml: cannot read" in result.stderr
    (sweep_dir / "bad.toml").write_text('base = "base.toml"\nseeds = 0\n')
    result = run_cli("sweep", sweep_dir / "bad.toml", "--store", sweep_dir / "x.duckdb")
    assert result.returncode == 2
    assert "bad.toml:2: seeds: an integer N means seeds 1..N" in result.stderr
    assert not (sweep_dir / "x.duckdb").exists()


# ---- the store


def _record(seed: int, results: dict | None = None, **changes) -> RunRecord:
    fields = dict(  # noqa: C408 - keyword form mirrors RunRecord's fields
        scenario_hash="h" * 64, seed=seed, status="done", error=None, sweep="t", scenario="s",
        params={"flow.udp.rate": "1Mbps"}, aqmlab_version="0", wall_s=0.1, results=results,
    )  # fmt: skip
    fields.update(changes)
    return RunRecord(**fields)


@pytest.fixture(scope="module")
def example_results() -> dict:
    return json.loads(aqmlab._core.run(aqmlab.loads(BASE), 1, None).json())


def test_runs_stored_together_are_each_stored_once(tmp_path: Path, example_results: dict):
    # A batch (the runs that finished while the last one was written) is one transaction: a run
    # already stored, or twice in the batch, is written once; every table has each run's rows.
    with Store(tmp_path / "s.duckdb") as store:
        assert store.record(_record(2, example_results))
        written = store.record_many(
            [_record(1, example_results), _record(2, example_results), _record(3, None, status="failed", error="x")]
            + [_record(1, example_results)]
        )
        assert written == [True, False, True, False]
        assert sorted(store.sql("SELECT seed FROM runs")["seed"]) == [1, 2, 3]
        flows_per_run = store.sql("SELECT seed, count(*) AS n FROM flows GROUP BY seed ORDER BY seed")
        assert list(flows_per_run["seed"]) == [1, 2] and len(set(flows_per_run["n"])) == 1
        assert store.record_many([]) == []


def test_a_run_is_stored_whole_or_not_at_all(tmp_path: Path, example_results: dict, monkeypatch):
    path = tmp_path / "s.duckdb"
    with Store(path) as store:
        assert store.record(_record(1, example_results))
        assert not store.record(_record(1, example_results))  # the key is taken: nothing written

        # A failure after some tables were written (and new columns added) leaves nothing behind.
        original = Store._insert

        def insert_then_fail(self, table, rows, params):
            original(self, table, rows, params)
            if table == "links":
                raise RuntimeError("disk full")

        monkeypatch.setattr(Store, "_insert", insert_then_fail)
        with pytest.raises(RuntimeError, match="disk full"):
            store.record(_record(2, example_results, params={"flow.udp.rate": "1Mbps", "new.key": "x"}))
        monkeypatch.undo()
        assert store.keys() == {("h" * 64, 1)}
        assert "new.key" not in store.columns("runs") and "new.key" not in store.param_keys()
        assert store.record(_record(2, example_results))  # and the store is still usable
    for table, count in [("runs", 2), ("flows", 2 * FLOWS), ("links", 2 * LINK_DIRECTIONS), ("scenarios", 1)]:
        assert query(path, f"SELECT count(*) FROM {table}") == [(count,)], table


def test_new_fields_become_columns_and_missing_counters_are_zero(tmp_path: Path, example_results: dict):
    with Store(tmp_path / "s.duckdb") as store:
        store.record(_record(1, example_results))
        assert "drops_by_reason.early" not in store.columns("flows")
        later = json.loads(json.dumps(example_results))
        later["flows"][0]["drops_by_reason"]["early"] = 7
        later["flows"][0]["new_metric"] = 0.5
        store.record(_record(2, later))
        flows = store.table("flows")
    early = flows.set_index(["seed", "name"])["drops_by_reason.early"]
    assert early[(2, "p1")] == 7
    assert (early.drop((2, "p1")) == 0).all()  # earlier runs and other flows: zero, not NULL
    assert flows["new_metric"].isna().sum() == len(flows) - 1
    with Store(tmp_path / "s.duckdb") as store:
        clash = json.loads(json.dumps(example_results))
        clash["flows"][0]["sent_pkts"] = 1.5  # a float in an integer column
        with pytest.raises(StoreError, match="column flows.sent_pkts holds BIGINT values"):
            store.record(_record(3, clash))
        assert len(store.keys()) == 2


def test_a_store_in_use_or_of_another_kind_is_refused(tmp_path: Path):
    path = tmp_path / "s.duckdb"
    with Store(path):
        other = subprocess.run(
            [sys.executable, "-c", f"from aqmlab.sweep.store import Store; Store({str(path)!r})"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert other.returncode != 0 and "open in another process" in other.stderr
    with duckdb.connect(str(tmp_path / "other.duckdb")) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
    with pytest.raises(StoreError, match="not an aqmlab store"):
        Store(tmp_path / "other.duckdb")


# ---- plots


@pytest.fixture(scope="module")
def grid_store(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("plot")
    (directory / "base.toml").write_text(BASE)
    (directory / "grid.toml").write_text(GRID_SPEC)
    aqmlab.sweep(directory / "grid.toml", workers=2, store=directory / "grid.duckdb", progress=False)
    return directory / "grid.duckdb"


def test_t_interval_and_quantities():
    n, mean, sd, half = t_interval([1.0, 2.0, 3.0])
    assert (n, mean, sd) == (3, 2.0, 1.0)
    assert half == pytest.approx(4.302653 / math.sqrt(3), rel=1e-6)  # t(0.975, 2) = 4.302653
    assert t_interval([5.0])[:2] == (1, 5.0) and math.isnan(t_interval([5.0])[3])
    assert quantity("0.5Mbps") == 5e5 and quantity("64KB") == 64e3 and quantity("30") == 30.0
    assert quantity("10ms") == pytest.approx(0.01) and quantity("red") is None and quantity("3 parsecs") is None


def test_summary_is_the_mean_and_t_interval_over_seeds(grid_store: Path):
    summary = summarize(
        grid_store, "goodput_bps", "flow.udp.rate", by="link.bottleneck.queue.limit", flow="p*", agg="sum"
    )
    assert summary.attrs["table"] == "flows" and summary.attrs["warnings"] == []
    assert summary["flow.udp.rate"].tolist() == ["0.2Mbps", "0.8Mbps", "0.2Mbps", "0.8Mbps"]
    assert summary["x_value"].tolist() == [2e5, 8e5, 2e5, 8e5]
    with Store(grid_store, read_only=True) as store:
        flows = store.table("flows")
    chosen = flows[(flows["link.bottleneck.queue.limit"] == "10") & (flows["flow.udp.rate"] == "0.8Mbps")]
    per_seed = chosen[chosen["name"].str.startswith("p")].groupby("seed")["goodput_bps"].sum().tolist()
    n, mean, _, half = t_interval(per_seed)
    row = summary[(summary["link.bottleneck.queue.limit"] == "10") & (summary["flow.udp.rate"] == "0.8Mbps")]
    assert row["n"].item() == n == 3
    assert row["mean"].item() == pytest.approx(mean)
    assert row["half_width"].item() == pytest.approx(half) and half > 0

    # Without --by, the other swept key is pooled, and that is said.
    pooled = summarize(grid_store, "goodput_bps", "flow.udp.rate", flow="udp")
    assert pooled["n"].tolist() == [6, 6]
    assert any("link.bottleneck.queue.limit also varies" in warning for warning in pooled.attrs["warnings"])


def test_plot_command_writes_the_figure_and_prints_the_numbers(grid_store: Path, tmp_path: Path):
    out = tmp_path / "udp.png"
    result = run_cli(
        "plot", grid_store, "--metric", "dropped_pkts", "--x", "flow.udp.rate",
        "--by", "link.bottleneck.queue.limit", "--flow", "udp", "--out", out,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert out.read_bytes().startswith(b"\x89PNG")
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["link.bottleneck.queue.limit", "flow.udp.rate", "n", "mean", "±95%"]
    assert len(lines) == 1 + 4 + 1 and lines[-1] == f"wrote {out}"

    svg = tmp_path / "links.svg"
    result = run_cli(
        "plot", grid_store, "--metric", "mean_queue_pkts", "--x", "link.bottleneck.queue.limit",
        "--link", "bottleneck", "--where", "\"flow.udp.rate\" = '0.8Mbps'", "--out", svg,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "<svg" in svg.read_text()
    assert result.stderr == ""  # the --where removed the other swept key: nothing pooled


def test_plot_command_errors_name_the_problem(grid_store: Path, tmp_path: Path):
    result = run_cli("plot", grid_store, "--metric", "goodput", "--x", "flow.udp.rate", "--flow", "udp",
                     "--out", tmp_path / "x.png")  # fmt: skip
    assert result.returncode == 2
    assert "table flows has no column 'goodput' (columns: " in result.stderr and "goodput_bps" in result.stderr
    result = run_cli("plot", grid_store, "--metric", "goodput_bps", "--x", "flow.udp.rate", "--flow", "nope",
                     "--out", tmp_path / "x.png")  # fmt: skip
    assert result.returncode == 2 and "no finished runs match in table flows (flow 'nope')" in result.stderr
    result = run_cli("plot", grid_store, "--metric", "goodput_bps", "--x", "flow.udp.rate", "--out", tmp_path / "x.gif")
    assert result.returncode == 2 and "expected a file name ending in .png, .svg, .pdf" in result.stderr


def test_the_example_sweep_runs_and_plots_one_line_per_discipline(tmp_path: Path):
    store = tmp_path / "cvr.duckdb"
    sweep = REPO_ROOT / "scenarios" / "sweeps" / "choke-vs-red.toml"
    result = run_cli("sweep", sweep, "--store", store, "--set", "simulation.duration=30s", "--workers", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "sweep choke-vs-red: 30 runs (6 points x 5 seeds)" in result.stdout
    assert "this call: 30 done, 0 failed" in result.stdout
    result = run_cli("plot", store, "--metric", "goodput_bps", "--x", "flow.udp.rate", "--flow", "udp",
                     "--out", tmp_path / "udp.svg")  # fmt: skip
    assert result.returncode == 0, result.stderr
    table = [line.split() for line in result.stdout.splitlines()[1:-1]]
    assert [(row[0], row[1], row[2]) for row in table] == [
        (discipline, rate, "5") for discipline in ("choke", "red") for rate in ("0.5Mbps", "1Mbps", "2Mbps")
    ]


# ---- stale runs and builds


STALE_SPEC = """\
base = "base.toml"
seeds = [1, 2]
[set]
"simulation.duration" = "5s"
[grid]
"flow.udp.rate" = ["0.2Mbps", "0.8Mbps"]
"""


def test_an_edited_base_leaves_stale_runs_out_of_plots_and_says_so(tmp_path: Path):
    """The issue's scenario: sweep, edit the base (bottleneck delay 1 ms -> 30 ms), sweep again into
    the same store; the plot must average the 2 current runs per point, not 4, and warn."""
    (tmp_path / "base.toml").write_text(BASE)
    (tmp_path / "s.toml").write_text(STALE_SPEC)
    store = tmp_path / "s.duckdb"
    assert run_cli("sweep", "s.toml", "--store", store, "--workers", "1", cwd=tmp_path).returncode == 0
    old = query(store, "SELECT scenario_hash, seed FROM runs")
    (tmp_path / "base.toml").write_text(BASE.replace('rate = "1Mbps"\ndelay = "1ms"', 'rate = "1Mbps"\ndelay = "30ms"'))

    dry = run_cli("sweep", "s.toml", "--store", store, "--dry-run", cwd=tmp_path)
    assert dry.returncode == 0, dry.stderr
    assert "0 stored in" in dry.stdout and "4 to run" in dry.stdout
    assert "the store also holds 4 runs of other scenarios, not part of this sweep; 4 of them are stale" in dry.stdout
    listed = [line for line in dry.stdout.splitlines() if "2 runs  stale, sweep s" in line]
    assert sorted(line.split()[0] for line in listed) == sorted({h[:12] for h, _ in old})

    result = run_cli("sweep", "s.toml", "--store", store, "--workers", "1", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "the store also holds 4 runs of other scenarios" in result.stdout
    assert "warning: 4 stored runs belong to scenarios that are in no sweep's current plan" in result.stdout
    assert query(store, "SELECT count(*) FROM runs") == [(8,)]

    out = tmp_path / "q.png"
    plot = run_cli("plot", store, "--metric", "mean_qdelay_s", "--x", "flow.udp.rate", "--link", "bottleneck",
                   "--out", out, cwd=tmp_path)  # fmt: skip
    assert plot.returncode == 0, plot.stderr
    assert "aqmlab: warning: 4 stored runs belong to scenarios that are in no sweep's current plan" in plot.stderr
    header, *rows = [line.split() for line in plot.stdout.splitlines()[:-1]]
    assert header[:4] == ["discipline", "flow.udp.rate", "n", "mean"]
    assert [row[2] for row in rows] == ["2", "2"]  # n: the two seeds of the current scenario only
    # Independently: the plotted means are those of the current runs alone.
    current = {point.scenario_hash for point in plan(SweepSpec.from_file(tmp_path / "s.toml")).points}
    with Store(store, read_only=True) as opened:
        links = opened.table("links")
    links = links[(links["name"] == "bottleneck") & links["scenario_hash"].isin(current)]
    expected = links.groupby("flow.udp.rate")["mean_qdelay_s"].mean()
    assert [float(row[3]) for row in rows] == pytest.approx(expected.loc[["0.2Mbps", "0.8Mbps"]].tolist(), rel=1e-5)

    # The frame of aqmlab.sweep holds only this sweep's runs and counts the others.
    frame = aqmlab.sweep(tmp_path / "s.toml", workers=1, store=store, table="runs", progress=False)
    assert len(frame) == 4 and set(frame["scenario_hash"]) == current
    assert frame.attrs["sweep"].other_in_store == 4 and frame.attrs["sweep"].stale_in_store == 4

    pruned = run_cli("sweep", "s.toml", "--store", store, "--prune", cwd=tmp_path)
    assert pruned.returncode == 0 and "pruned 4 stale runs" in pruned.stdout
    assert set(query(store, "SELECT scenario_hash, seed FROM runs")).isdisjoint(old)
    assert query(store, "SELECT count(*) FROM runs") == [(4,)]
    plot = run_cli("plot", store, "--metric", "mean_qdelay_s", "--x", "flow.udp.rate", "--link", "bottleneck",
                   "--out", out, cwd=tmp_path)  # fmt: skip
    assert plot.returncode == 0 and plot.stderr == ""


def test_runs_of_another_sweep_in_the_store_are_not_stale(tmp_path: Path):
    (tmp_path / "base.toml").write_text(BASE)
    (tmp_path / "a.toml").write_text(STALE_SPEC)
    (tmp_path / "b.toml").write_text(STALE_SPEC.replace('["0.2Mbps", "0.8Mbps"]', '["0.4Mbps"]'))
    store = tmp_path / "ab.duckdb"
    for spec in ("a.toml", "b.toml"):
        assert run_cli("sweep", spec, "--store", store, "--workers", "1", cwd=tmp_path).returncode == 0
    result = run_cli("sweep", "a.toml", "--store", store, "--dry-run", cwd=tmp_path)
    assert "2 runs of other scenarios, not part of this sweep; 0 of them are stale" in result.stdout
    assert "another sweep's, sweep b" in result.stdout
    plot = run_cli("plot", store, "--metric", "events", "--x", "flow.udp.rate", "--out", tmp_path / "e.png")
    assert plot.returncode == 0 and plot.stderr == ""
    assert [line.split()[0] for line in plot.stdout.splitlines()[1:-1]] == ["0.2Mbps", "0.4Mbps", "0.8Mbps"]


def test_resuming_with_another_build_is_refused_unless_allowed(tmp_path: Path):
    (tmp_path / "base.toml").write_text(BASE)
    (tmp_path / "s.toml").write_text(STALE_SPEC)
    store = tmp_path / "s.duckdb"
    assert run_cli("sweep", "s.toml", "--store", store, "--workers", "1", cwd=tmp_path).returncode == 0
    builds = query(store, "SELECT DISTINCT build FROM runs")
    assert builds == [(build_identity(),)]
    assert builds[0][0].startswith(aqmlab.__version__ + "+")
    # Runs that another build computed (as if aqmlab had been rebuilt in between).
    with duckdb.connect(str(store)) as con:
        con.execute("UPDATE runs SET build = '0.0.1+000000000000' WHERE seed = 1")
    # The same runs again: nothing to do, so nothing mixed.
    assert run_cli("sweep", "s.toml", "--store", store, cwd=tmp_path).returncode == 0
    (tmp_path / "s.toml").write_text(STALE_SPEC.replace("seeds = [1, 2]", "seeds = [1, 2, 3]"))
    refused = run_cli("sweep", "s.toml", "--store", store, "--workers", "1", cwd=tmp_path)
    assert refused.returncode == 2
    assert error_line(refused) == (
        f"aqmlab: error: {store}: 2 stored runs of sweep s were computed by another build of aqmlab "
        f"(2 by 0.0.1+000000000000; this is {builds[0][0]}), so its results would mix two builds: "
        "sweep into a new store (--store), or allow it with --allow-mixed-builds"
    )
    assert query(store, "SELECT count(*) FROM runs") == [(4,)]  # nothing written
    allowed = run_cli("sweep", "s.toml", "--store", store, "--workers", "1", "--allow-mixed-builds", cwd=tmp_path)
    assert allowed.returncode == 0 and "this call: 2 done" in allowed.stdout


def error_line(result: subprocess.CompletedProcess[str]) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_the_build_identity_is_the_version_and_a_hash_of_the_compiled_core():
    # Only the core computes a run's numbers: an edited .py file must not block a resume.
    core = Path(aqmlab._core.__file__).read_bytes()
    assert build_identity() == f"{aqmlab.__version__}+{hashlib.sha256(core).hexdigest()[:12]}"


def test_two_dict_sweeps_of_one_name_keep_a_plan_each(tmp_path: Path):
    slow = tomllib.loads(BASE)
    fast = tomllib.loads(BASE.replace('rate = "1Mbps"', 'rate = "2Mbps"'))
    store = tmp_path / "s.duckdb"
    for base in (slow, fast):
        spec = {"name": "same", "base": base, "seeds": [1], "set": {"simulation.duration": "3s"}}
        frame = aqmlab.sweep(spec, store=store, workers=1, table="runs", progress=False)
        assert frame.attrs["sweep"].stale_in_store == 0
    plans = query(store, "SELECT sweep, count(DISTINCT base) FROM plans GROUP BY sweep")
    assert plans == [("same", 2)]
    again = aqmlab.sweep(
        {"name": "same", "base": slow, "seeds": [1], "set": {"simulation.duration": "3s"}},
        store=store,
        workers=1,
        table="runs",
        progress=False,
    )
    assert again.attrs["sweep"].stale_in_store == 0 and len(again) == 1
    assert query(store, "SELECT count(*) FROM runs") == [(2,)]
