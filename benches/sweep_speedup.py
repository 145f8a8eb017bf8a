"""Speed-up of `aqmlab sweep` executors over a serial sweep.

    .venv/bin/python benches/sweep_speedup.py [--runs 20] [--run-seconds 1.0] [--repeat 2]

The sweep: scenarios/examples/udp-dumbbell.toml with its duration stretched so one run takes
about --run-seconds here, over 2 queue limits x N/2 seeds. Each executor (serial in-process,
a process pool of one worker per core, a Dask LocalCluster with as many worker processes)
runs it into a fresh store; times are wall clock from the call to the last stored row,
including starting the pool or the cluster. Rounds interleave the executors; the best and the
median of --repeat rounds are shown, with the mean wall time of one run (which grows when the
machine is shared with other work) and the CPU time the sweep used in all its processes.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

import aqmlab
from aqmlab.sweep import default_workers

EXAMPLE = Path(__file__).resolve().parents[1] / "scenarios" / "examples" / "udp-dumbbell.toml"


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished children (pool workers, Dask processes)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


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
    times: dict[str, list[float]] = {name: [] for name in executors}
    per_run: dict[str, list[float]] = {name: [] for name in executors}
    cpu: dict[str, list[float]] = {name: [] for name in executors}
    # Rounds interleave the executors, so that a machine shared with other work loads them alike.
    for _ in range(args.repeat):
        for name, options in executors.items():
            with tempfile.TemporaryDirectory() as directory:
                cpu_before = _cpu_seconds()
                started = time.perf_counter()
                frame = aqmlab.sweep(spec, store=Path(directory) / "s.duckdb", table="runs", progress=False, **options)
                times[name].append(time.perf_counter() - started)
                cpu[name].append(_cpu_seconds() - cpu_before)
            assert (frame["status"] == "done").all() and len(frame) == args.runs
            per_run[name].append(statistics.mean(frame["wall_s"]))
    serial_best, serial_median = min(times["serial"]), statistics.median(times["serial"])
    print(
        f"{'executor':<34} {'best s':>7} {'speed-up':>9} {'median s':>9} {'speed-up':>9} {'mean run s':>11} "
        f"{'CPU s':>7}"
    )
    for name in executors:
        best, median = min(times[name]), statistics.median(times[name])
        print(
            f"{name:<34} {best:>7.2f} {serial_best / best:>8.2f}x {median:>9.2f} {serial_median / median:>8.2f}x "
            f"{statistics.mean(per_run[name]):>11.2f} {statistics.median(cpu[name]):>7.1f}"
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
