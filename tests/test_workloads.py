"""Workloads from Python and the command line: the FCT summary against the connections table
(an independent computation with numpy), the table written as Parquet and CSV, and what a results
file can and cannot give back."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import aqmlab
from aqmlab import Results
from support import REPO_ROOT, run_cli

WEB = REPO_ROOT / "scenarios" / "examples" / "web-search.toml"
SHORT = {"simulation.duration": "12s", "simulation.warmup": "2s", "flow.web.sizes": "hadoop"}


@pytest.fixture(scope="module")
def run() -> Results:
    return aqmlab.run(WEB, overrides=SHORT)


def test_the_summary_is_the_percentiles_of_the_connections_table(run):
    table = run.connections
    assert len(table) > 200
    window = table[table["in_window"]]
    (workload,) = run.workloads
    assert workload["opened"] == len(window)
    assert workload["unfinished"] == window["finish_s"].isna().sum()
    finished = window.dropna(subset=["fct_s"])
    edges = [0, 10_000, 100_000, 1_000_000, None]
    for bucket, lo, hi in zip(workload["buckets"], edges, edges[1:]):
        rows = finished[(finished["bytes"] >= lo) & ((finished["bytes"] < hi) if hi else True)]
        assert bucket["finished"] == len(rows), bucket["bucket"]
        if len(rows):
            for q in (50, 95, 99):
                assert bucket[f"slowdown_p{q}"] == pytest.approx(np.percentile(rows["slowdown"], q), rel=1e-12)
                assert bucket[f"fct_p{q}_s"] == pytest.approx(np.percentile(rows["fct_s"], q), rel=1e-9)
    everything = workload["buckets"][-1]
    assert everything["bucket"] == "all"
    assert everything["slowdown_mean"] == pytest.approx(finished["slowdown"].mean(), rel=1e-12)
    assert (finished["slowdown"] >= 1.0 - 1e-9).all(), "nothing beats an empty network"


def test_the_workload_counts_as_one_flow_and_its_buckets_as_a_table(run):
    flows = run.flows
    assert list(flows["name"]) == ["web"]
    assert flows.loc[0, "kind"] == "workload"
    assert (flows.loc[0, "src"], flows.loc[0, "dst"]) == ("h*", "r*")
    buckets = run.workload_buckets
    assert list(buckets["bucket"]) == ["< 10KB", "10KB-100KB", "100KB-1MB", ">= 1MB", "all"]
    assert set(buckets["workload"]) == {"web"}


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_the_connections_table_is_written_whole(run, tmp_path, suffix):
    path = tmp_path / f"connections{suffix}"
    run.write_connections(path)
    back = _read_parquet(path) if suffix == ".parquet" else pd.read_csv(path)
    assert len(back) == len(run.connections)
    assert list(back.columns) == list(run.connections.columns)
    assert back["bytes"].sum() == run.connections["bytes"].sum()
    with pytest.raises(ValueError, match="must end in .parquet or .csv"):
        run.write_connections(tmp_path / "connections.txt")


def test_a_results_file_keeps_the_summary_but_not_the_table(run, tmp_path):
    path = tmp_path / "results.json"
    run.write_json(path)
    back = Results.read(path)
    assert back.workloads == json.loads(json.dumps(run.workloads))
    with pytest.raises(ValueError, match="--connections FILE.parquet"):
        _ = back.connections


def test_the_command_line_prints_the_buckets_and_writes_the_table(tmp_path):
    out = tmp_path / "c.parquet"
    sets = [arg for key, value in SHORT.items() for arg in ("--set", f"{key}={value}")]
    done = run_cli("run", WEB, *sets, "--connections", out)
    assert done.returncode == 0, done.stderr
    assert "Workload web:" in done.stdout
    assert "slowdown_p99" in done.stdout
    assert len(_read_parquet(out)) > 200
    bad = run_cli("run", WEB, *sets, "--connections", tmp_path / "c.txt")
    assert bad.returncode == 2
    assert "--connections" in bad.stderr and "must end in .parquet or .csv" in bad.stderr
    listed = run_cli("list")
    assert "workload" in listed.stdout


def _read_parquet(path) -> pd.DataFrame:
    import duckdb

    with duckdb.connect() as connection:
        return connection.execute("SELECT * FROM read_parquet(?)", [str(path)]).df()


def test_a_sweep_stores_the_buckets_and_plots_a_line_per_bucket(tmp_path):
    from aqmlab.plot import summarize

    spec = {
        "name": "fct",
        "base": str(WEB),
        "seeds": 2,
        "set": {"simulation.duration": "8s", "simulation.warmup": "1s", "flow.web.sizes": "hadoop"},
        "grid": {"flow.web.load": [0.3, 0.6]},
    }
    store = tmp_path / "fct.duckdb"
    frame = aqmlab.sweep(spec, store=store, table="workloads", progress=False, workers=1)
    assert len(frame) == 2 * 2 * 5, "a row per (point, seed, bucket)"
    assert set(frame["bucket"]) == {"< 10KB", "10KB-100KB", "100KB-1MB", ">= 1MB", "all"}
    assert (frame["opened"] == frame.groupby(["flow.web.load", "seed"])["flows"].transform("max")).all()
    summary = summarize(store, "slowdown_p99", "flow.web.load", workload="web")
    assert summary.attrs["by"] == "bucket"
    assert list(dict.fromkeys(summary["bucket"])) == ["< 10KB", "10KB-100KB", "100KB-1MB", ">= 1MB", "all"]
    assert (summary["n"] == 2).all()
    done = run_cli(
        "plot", store, "--workload", "web", "--metric", "fct_p50_s", "--x", "flow.web.load", "--out", tmp_path / "p.png"
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "p.png").stat().st_size > 0
