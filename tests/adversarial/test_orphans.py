"""kill -9 of a sweep at random moments (workers starting, running, results being stored): no
worker outlives its parent, and the store then resumes with every run once."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import duckdb

BASE = """\
[simulation]
duration = "4s"
warmup = "1s"

[[link]]
name = "bottleneck"
between = ["a", "b"]
rate = "2Mbps"
delay = "5ms"
queue = { discipline = "red", limit = 60, min_th = 10, max_th = 30 }

[[flow]]
name = "p{i}"
count = 8
src = "a"
dst = "b"
kind = "poisson"
rate = "300kbps"
"""
SPEC = """\
base = "base.toml"
seeds = 6
[grid]
"link.bottleneck.queue.limit" = [40, 60, 80, 100]
"""
RUNS = 24
KILLS = {"process pool": (["--workers", "2"], 20), "Dask LocalCluster": (["--dask", "local:2"], 3)}
# How long a killed sweep's workers may take to go: the guards poll every 0.25 s.
GRACE_S = 5.0


def tagged_processes(tag: str) -> list[int]:
    """Live processes (not zombies) whose environment carries ``tag``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if tag.encode() not in (entry / "environ").read_bytes():
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.append(int(entry.name))
    return found


def _wait_for_children(sweep: subprocess.Popen, timeout: float) -> None:
    """Until the sweep has a child process, or has exited (a sweep that finds every run stored
    starts no workers: waiting out the timeout would cost a minute a kill)."""
    pid = sweep.pid
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and sweep.poll() is None:
        for entry in Path("/proc").iterdir():
            try:
                if entry.name.isdigit() and int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    return
            except (OSError, IndexError, ValueError):
                continue
        time.sleep(0.01)


def test_workers_die_with_a_killed_sweep_and_the_store_resumes(tmp_path: Path):
    (tmp_path / "base.toml").write_text(BASE)
    (tmp_path / "s.toml").write_text(SPEC)
    store = tmp_path / "s.duckdb"
    rng = random.Random(14)  # the moments are random but the same on every run of the test
    survivors = []
    kills = 0
    for name, (options, count) in KILLS.items():
        for _ in range(count):
            tag = uuid.uuid4().hex
            env = {**os.environ, "AQMLAB_KILL_TEST": tag}
            sweep = subprocess.Popen(
                [sys.executable, "-m", "aqmlab", "sweep", "s.toml", "--store", str(store), "--no-progress", *options],
                cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            if kills % 2 == 0:
                # While the workers start: they exist but are still importing, not yet serving.
                _wait_for_children(sweep, timeout=60)
                time.sleep(rng.uniform(0.0, 0.3))
            else:
                # Any moment: start-up, workers starting, runs running, results being stored.
                time.sleep(rng.uniform(0.3, 4.0))
            sweep.send_signal(signal.SIGKILL)
            sweep.wait()
            kills += 1
            deadline = time.monotonic() + GRACE_S
            while tagged_processes(tag) and time.monotonic() < deadline:
                time.sleep(0.1)
            left = tagged_processes(tag)
            if left:
                survivors.append((name, left))
                for pid in left:
                    os.kill(pid, signal.SIGKILL)
    assert kills == 23 and survivors == []

    finished = subprocess.run(
        [sys.executable, "-m", "aqmlab", "sweep", "s.toml", "--store", str(store), "--workers", "2"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    with duckdb.connect(str(store), read_only=True) as con:
        assert con.execute("SELECT count(*), count(DISTINCT (scenario_hash, seed)) FROM runs").fetchall() == [
            (RUNS, RUNS)
        ]
        assert con.execute("SELECT count(*) FROM runs WHERE status <> 'done'").fetchall() == [(0,)]
        per_run = con.execute(
            "SELECT r.scenario_hash, r.seed, count(f.name) FROM runs r LEFT JOIN flows f USING (scenario_hash, seed) "
            "GROUP BY ALL"
        ).fetchall()
        assert {count for _, _, count in per_run} == {8}
        assert con.execute(
            "SELECT count(*) FROM (SELECT scenario_hash, seed, name FROM flows GROUP BY ALL HAVING count(*) > 1)"
        ).fetchall() == [(0,)]
