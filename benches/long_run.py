#!/usr/bin/env python3
"""Long runs: peak memory must not grow with simulated time.

    python benches/long_run.py                         # the dumbbell (32 TCP + 1 CBR, CHOKe)
    python benches/long_run.py --durations 1000,100000 --scenario benches/scenarios/tcp-dumbbell.toml
    make long-run

Each duration runs in a fresh process (so each peak is its own) through the public API,
aqmlab.run, with a progress callback that samples the process's resident memory (VmRSS) as the
simulation goes. The table shows, per duration: events, wall time, the peak resident memory of
the whole process (ru_maxrss, Python and pandas included) and the resident memory sampled at
10%, 50% and 100% of the simulated time. The default durations are 1e6, 1e7 and 1e8+ events:
with no time series traced, the state of a run is its packets in flight, its queues and its
per-flow counters, none of which grows with time, so the three peaks should be equal within a
few MB. Exit status 1 when the longest run's peak exceeds the shortest's by more than --slack-mb.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_SCENARIO = HERE.parent / "scenarios" / "examples" / "dumbbell.toml"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(scenario: str, duration_s: float) -> None:
    """Run once and print a JSON line: events, wall time, RSS samples over simulated time."""
    import aqmlab

    samples: list[tuple[float, float]] = []

    def progress(sim_s: float, total_s: float, events: int) -> None:
        samples.append((sim_s / total_s, rss_mb()))

    before = rss_mb()
    t0 = time.perf_counter()
    results = aqmlab.run(scenario, overrides={"simulation.duration": f"{duration_s:g}s"}, progress=progress)
    wall = time.perf_counter() - t0

    def at(fraction: float) -> float:
        return next((mb for f, mb in samples if f >= fraction), samples[-1][1] if samples else float("nan"))

    print(json.dumps({
        "duration_s": duration_s,
        "events": results.raw["events"],
        "wall_s": wall,
        "rss_before_mb": before,
        "rss_10_mb": at(0.1),
        "rss_50_mb": at(0.5),
        "rss_100_mb": at(1.0),
    }))  # fmt: skip


def measure(scenario: str, duration_s: float) -> dict:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--child", scenario, str(duration_s)], stdout=subprocess.PIPE, text=True
    )
    out = proc.stdout.read() if proc.stdout else ""
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"long_run: the run of {duration_s:g} s failed (status {proc.returncode})")
    row = json.loads(out.strip().splitlines()[-1])
    row["peak_rss_mb"] = usage.ru_maxrss / 1024  # kilobytes on Linux
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default=str(DEFAULT_SCENARIO))
    parser.add_argument("--durations", default="500,5000,50000", help="simulated seconds, comma-separated")
    parser.add_argument(
        "--slack-mb", type=float, default=16.0, help="allowed growth of the peak (default: %(default)s)"
    )
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], float(args.child[1]))
        return 0

    rows = [measure(args.scenario, float(d)) for d in args.durations.split(",") if d]
    print(f"{Path(args.scenario).name}: peak resident memory against simulated time")
    print(
        f"{'sim s':>9}{'events':>14}{'wall s':>9}{'Mevents/s':>11}{'peak MB':>9}{'RSS@10%':>9}{'RSS@50%':>9}{'RSS@100%':>10}"
    )
    for r in rows:
        print(
            f"{r['duration_s']:>9g}{r['events']:>14,}{r['wall_s']:>9.1f}{r['events'] / r['wall_s'] / 1e6:>11.2f}"
            f"{r['peak_rss_mb']:>9.1f}{r['rss_10_mb']:>9.1f}{r['rss_50_mb']:>9.1f}{r['rss_100_mb']:>10.1f}"
        )
    growth = rows[-1]["peak_rss_mb"] - rows[0]["peak_rss_mb"]
    print(f"peak growth from {rows[0]['events']:,} to {rows[-1]['events']:,} events: {growth:+.1f} MB")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0 if growth <= args.slack_mb else 1


if __name__ == "__main__":
    sys.exit(main())
