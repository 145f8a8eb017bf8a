"""Speed-up of `aqmlab sweep` executors over a serial sweep.

    .venv/bin/python benches/sweep_speedup.py [--runs 20] [--run-seconds 1.0] [--repeat 2]

The sweep: scenarios/examples/udp-dumbbell.toml with its duration stretched so one run takes
about --run-seconds here, over 2 queue limits x N/2 seeds. Each executor (serial in-process,
a process pool of one worker per core, a Dask LocalCluster with as many worker processes)
runs it into a fresh store; times are wall clock from the call to the last stored row,
including starting the pool or the cluster. The best of --repeat is kept (the machine may be
shared).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import aqmlab
from aqmlab.sweep import default_workers

EXAMPLE = Path(__file__).resolve().parents[1] / "scenarios" / "examples" / "udp-dumbbell.toml"


def calibrate(run_seconds: float) -> str:
    """A simulated duration that makes one run last about ``run_seconds`` of wall time."""
    simulated = 1000.0
    for _ in range(4):
        scenario = aqmlab.load(EXAMPLE, {"simulation.duration": f"{simulated:.0f}s"})
        started = time.perf_counter()
        aqmlab.run(scenario)
        took = time.perf_counter() - started
        simulated *= run_seconds / took
    return f"{simulated:.0f}s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--run-seconds", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()

    workers = default_workers()
    duration = calibrate(args.run_seconds)
    spec = {
        "base": str(EXAMPLE),
        "seeds": args.runs // 2,
        "set": {"simulation.duration": duration},
        "grid": {"link.bottleneck.queue.limit": [30, 300]},
    }
    executors = {
        "serial": {"workers": 1},
        f"process pool ({workers} workers)": {"workers": workers},
        f"Dask LocalCluster ({workers} processes)": {"dask": f"local:{workers}"},
    }
    print(f"{args.runs} runs of udp-dumbbell for {duration} simulated, {os.cpu_count()} CPUs, {workers} usable")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    best: dict[str, float] = {}
    per_run: dict[str, float] = {}
    for name, options in executors.items():
        times = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as directory:
                started = time.perf_counter()
                frame = aqmlab.sweep(spec, store=Path(directory) / "s.duckdb", table="runs", progress=False, **options)
                times.append(time.perf_counter() - started)
            assert (frame["status"] == "done").all() and len(frame) == args.runs
        best[name] = min(times)
        per_run[name] = statistics.mean(frame["wall_s"])
    serial = best["serial"]
    print(f"{'executor':<34} {'wall s':>8} {'speed-up':>9} {'mean run s':>11}")
    for name in executors:
        print(f"{name:<34} {best[name]:>8.2f} {serial / best[name]:>8.2f}x {per_run[name]:>11.2f}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
