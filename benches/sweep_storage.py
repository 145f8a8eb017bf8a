"""Benchmark: is a sweep of short runs bound by its runs, or by storing them?

    .venv/bin/python benches/sweep_storage.py [--runs 1000] [--workers 2]

The sweep: --runs seeds of benches/scenarios/udp-dumbbell.toml (S1: 33 flows, about 20 ms a run
here) on a process pool, into a fresh store, timed from the call to the last stored row. The
ideal is the runs' own wall time (summed on the workers) over the workers, plus the pool's
start-up (a sweep of one run per worker, timed the same way); the ratio of the sweep's wall time
to the ideal is the figure (the target is at most 1.25). Also shown: the parent's cost per run
beyond the ideal.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import aqmlab

S1 = Path(__file__).resolve().parent / "scenarios" / "udp-dumbbell.toml"


def timed_sweep(runs: int, workers: int) -> tuple[float, float]:
    """(wall seconds, the runs' summed wall seconds) of a sweep of ``runs`` seeds of S1."""
    with tempfile.TemporaryDirectory(prefix="aqmlab-bench-") as directory:
        started = time.perf_counter()
        frame = aqmlab.sweep(
            {"base": str(S1), "seeds": runs}, store=Path(directory) / "s.duckdb", workers=workers,
            progress=False, table="runs",
        )  # fmt: skip
        wall = time.perf_counter() - started
    report = frame.attrs["sweep"]
    assert report.done == runs, report.format()
    return wall, report.run_wall_s


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    startup, _ = timed_sweep(args.workers, args.workers)
    wall, run_wall = timed_sweep(args.runs, args.workers)
    ideal = run_wall / args.workers + startup
    print(f"sweep of {args.runs} S1 runs on {args.workers} workers: {wall:.2f} s wall")
    print(
        f"  runs' own time {run_wall:.2f} s ({run_wall / args.runs * 1e3:.1f} ms a run), pool start-up {startup:.2f} s"
    )
    print(f"  ideal {ideal:.2f} s; wall / ideal = {wall / ideal:.2f} (target <= 1.25)")
    print(f"  beyond the ideal: {(wall - ideal) / args.runs * 1e3:.1f} ms a run")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
