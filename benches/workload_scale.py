#!/usr/bin/env python3
"""Benchmark: a workload of a million flows, against long flows of the same packet count.

    python benches/workload_scale.py                 # 1,000,000 flows
    python benches/workload_scale.py --flows 100000  # a quicker look

The workload: Hadoop flow sizes (Roy et al. 2015, mean 120 KB) at 60% load of a 10 Gbps
bottleneck between 32 senders and 32 receivers on 10 Gbps access links (10 ms round trip), CUBIC,
run until the given number of flows has arrived. Web-search sizes (mean 1.7 MB) would make a
million flows 1.7 TB, over a billion packets: more than a benchmark's minutes on two cores; the
generator and the per-flow costs are the same whatever the sizes.

The comparison: 32 long-lived CUBIC flows through the same network, run for as long as it takes
them to make as many transmissions (a packet over a link) as the workload made. Each run is its
own process (`aqmlab run --out`, results included), whose peak resident memory is read from the
kernel; the event loop's time per transmission is `loop_wall_s` over the links' departures.
The target: the workload's time per packet within 2x of the long flows', and its peak memory
under 1 GB (memory follows the flows open at once, not the flows ever opened).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
# `aqmlab run` in a child that reports its own peak resident memory (ru_maxrss of the process
# itself: the children's figure would be the largest child's so far).
CHILD = """
import json, resource, sys
from aqmlab.cli import main
status = main(sys.argv[1:])
print(json.dumps({"maxrss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}), file=sys.stderr)
sys.exit(status)
"""

TOPOLOGY = """
[simulation]
duration = "{duration}"
seed = 1
max_events = 100000000000

[[link]]
between = ["h{{i}}", "s1"]
count = 32
rate = "10Gbps"
delay = "0.5ms"
queue = {{ discipline = "droptail", limit = 10000 }}

[[link]]
name = "bottleneck"
between = ["s1", "s2"]
rate = "10Gbps"
delay = "4ms"
queue = {{ discipline = "fq_codel" }}

[[link]]
between = ["s2", "r{{i}}"]
count = 32
rate = "10Gbps"
delay = "0.5ms"
queue = {{ discipline = "droptail", limit = 10000 }}
"""

WORKLOAD = """
[[flow]]
name = "web"
kind = "workload"
src = "h*"
dst = "r*"
sizes = "hadoop"
load = 0.6
load_link = "bottleneck"
cc = "cubic"
sack = true
stop = "{stop}"
"""

LONG = """
[[flow]]
name = "bulk{i}"
count = 32
src = "h{i}"
dst = "r{i}"
kind = "tcp"
cc = "cubic"
packet_size = 1500
header = 40
sack = true
"""

HADOOP_MEAN_BYTES = 120_420.75  # the mean of crates/aqmlab-core/data/workloads/hadoop.cdf


def run(text: str, directory: Path, name: str) -> dict:
    """One aqmlab run in its own process: its results summary, wall time and peak memory."""
    scenario = directory / f"{name}.toml"
    scenario.write_text(text)
    out = directory / f"{name}.json"
    started = time.perf_counter()
    command = [sys.executable, "-c", CHILD, "run", str(scenario), "--out", str(out)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"bench: {name} failed:\n{done.stderr.strip()}")
    peak_kb = json.loads(done.stderr.strip().splitlines()[-1])["maxrss_kb"]
    with out.open() as f:
        results = json.load(f)
    transmissions = sum(link["departures"] for link in results["links"])
    workloads = results.get("workloads", [])
    return {
        "name": name,
        "wall_s": wall,
        "loop_wall_s": results["loop_wall_s"],
        "transmissions": transmissions,
        "ns_per_packet": results["loop_wall_s"] * 1e9 / max(transmissions, 1),
        "peak_mb": peak_kb / 1024,
        "flows_opened": workloads[0]["opened"] if workloads else None,
        "flows_unfinished": workloads[0]["unfinished"] if workloads else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flows", type=int, default=1_000_000, help="flows to arrive (default: %(default)s)")
    args = parser.parse_args(argv)
    rate = 0.6 * 10e9 / (8 * HADOOP_MEAN_BYTES)  # flows per second
    stop = args.flows / rate
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        # The workload runs 10% past its last arrival, so that most flows finish.
        workload = run(
            TOPOLOGY.format(duration=f"{stop * 1.1:.3f}s") + WORKLOAD.format(stop=f"{stop:.3f}s"), directory, "workload"
        )
        # Long flows fill the 10 Gbps bottleneck where the workload loads it to 60%: first a short
        # run to learn their transmissions per second, then the run of the same packet count.
        probe = run(TOPOLOGY.format(duration="2s") + LONG, directory, "calibration")
        per_s = probe["transmissions"] / 2.0
        long = run(
            TOPOLOGY.format(duration=f"{workload['transmissions'] / per_s:.3f}s") + LONG, directory, "long flows"
        )
    ratio = workload["ns_per_packet"] / long["ns_per_packet"]
    print(f"machine: {os.cpu_count()} cores; {args.flows:,} flows of Hadoop sizes at 60% of 10 Gbps ({rate:.0f}/s)")
    print(f"{'run':<12}{'transmissions':>16}{'loop s':>9}{'ns/packet':>11}{'whole s':>9}{'peak MB':>9}")
    for r in (workload, long):
        print(
            f"{r['name']:<12}{r['transmissions']:>16,}{r['loop_wall_s']:>9.1f}{r['ns_per_packet']:>11.1f}"
            f"{r['wall_s']:>9.1f}{r['peak_mb']:>9.0f}"
        )
    print(
        f"workload: {workload['flows_opened']:,} flows opened in the window, {workload['flows_unfinished']:,} unfinished; "
        f"time per packet {ratio:.2f}x the long flows' (target <= 2), peak {workload['peak_mb']:.0f} MB (target < 1024)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
