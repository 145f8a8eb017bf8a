#!/usr/bin/env python3
"""Benchmark harness: events per second and simulated packets per second of named scenarios.

    python benches/run.py                 # every scenario in benches/scenarios/
    python benches/run.py udp-dumbbell    # one, by file stem
    python benches/run.py --repeat 5
    python benches/run.py --flows 100,1000,10000   # S4 only: cost per packet against flow count

An *event* is one entry taken from the event queue (a transmission ending, a packet reaching
the end of a link, an agent's timer or start, a trace sample). A *simulated packet* is one
transmission of a packet over one link (so a packet crossing three links counts three times).
Times are wall-clock seconds of the whole run inside the core (building the network, the event
loop, and assembling results), best of --repeat runs.

The flows sweep (S4) runs benches/scenarios/scale.toml with its access links and TCP flows
overridden to each count and reports the event loop's time (`loop_wall_s` of the results: not
reading the scenario, building the network or assembling the results, which at 10000 flows adds
a fifth) per simulated packet, and its ratio to the smallest count's: the target is at most 3x
at the largest count (100000 flows by default) against 100.

The scale run (--scale, 100000 flows) times the same scenario as a user meets it: the whole
`aqmlab run` process, reading the scenario and printing the results' tables included, against
the event loop's time that its report gives (target: at most twice the loop), and the process's
peak memory (target: under 600 MB).

The reproduction run (--reproduce, by default one paper's 22 experiments) times what a user of
`aqmlab reproduce` waits on: the whole process, from its sweeps of 5 seeds on every core into a
fresh directory to every comparison, report and figure written.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from record import compare_and_record

from aqmlab import _core

HERE = Path(__file__).resolve().parent


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}"


def bench(path: Path, repeat: int) -> dict:
    scenario = _core.parse_scenario(path.read_text(), str(path), [])
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        results = json.loads(_core.run(scenario, None, None).json())
        wall = time.perf_counter() - t0
        if best is None or wall < best[0]:
            best = (wall, results)
    wall, results = best
    transmissions = sum(link["departures"] for link in results["links"])
    if results["measure_from_s"] > 0:
        raise SystemExit(f"{path}: benchmark scenarios must have no warmup, so every packet is counted")
    return {
        "scenario": path.stem,
        "sim_s": results["sim_time_s"],
        "events": results["events"],
        "packets": transmissions,
        "wall_s": wall,
        "events_per_s": results["events"] / wall,
        "packets_per_s": transmissions / wall,
    }


def s4_once(n: int) -> tuple[float, int]:
    """One S4 run with `n` flows: (ns per simulated packet in the event loop, packets)."""
    from array import array

    path = HERE / "scenarios" / "scale.toml"
    scenario = _core.parse_scenario(
        path.read_text(), str(path), [("link.s{i}->r1.count", str(n)), ("flow.tcp{i}.count", str(n))]
    )
    results = _core.run(scenario, None, None)
    # The two figures it needs, not the whole document (1.2 GB of JSON at 100,000 flows).
    loop_wall_s = json.loads(results.summary_json())["run"]["loop_wall_s"]
    ((_, _, departures),) = results.table("links", None, ["departures"])
    packets = sum(array("q", departures))
    return loop_wall_s * 1e9 / packets, packets


def flows_sweep(counts: list[int], repeat: int) -> list[dict]:
    """S4: ns per simulated packet of the scale scenario at each flow count (best of `repeat`,
    the counts interleaved so that a slow spell of the machine does not fall on one count).
    Each run has a fresh interpreter, so that the heap a large run leaves behind does not place
    the next run's allocations (in one process, the 10000-flow figure came out 5-10% higher)."""
    best: dict[int, tuple[float, int]] = {}
    every: dict[int, list[float]] = {n: [] for n in counts}
    for _ in range(repeat):
        for n in counts:
            child = subprocess.run(
                [sys.executable, __file__, "--s4-child", str(n)], capture_output=True, text=True, check=False
            )
            if child.returncode != 0:
                raise SystemExit(f"bench: the S4 run with {n} flows failed:\n{child.stderr.strip()}")
            ns, packets = json.loads(child.stdout)
            every[n].append(ns)
            if n not in best or ns < best[n][0]:
                best[n] = (ns, packets)
    base = best[counts[0]][0]
    base_median = statistics.median(every[counts[0]])
    return [
        {
            "flows": n,
            "packets": best[n][1],
            "ns_per_packet": best[n][0],
            "ratio": best[n][0] / base,
            # The spread shows how far one run strays on this machine: at 100,000 flows the loop's
            # first touches of new memory cost several times more in some runs than in others.
            "ns_median": statistics.median(every[n]),
            "ns_worst": max(every[n]),
            "ratio_median": statistics.median(every[n]) / base_median,
        }
        for n in counts
    ]


def user_env() -> dict[str, str]:
    """The environment a user runs aqmlab in: bytecode caches written and used (a
    PYTHONDONTWRITEBYTECODE=1 shell would compile every module at every start, 40 ms more)."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def process_seconds(cmd: list[str], repeat: int) -> float:
    """Wall time of a whole process, start to exit, best of `repeat`. Its stderr is shown only
    if it fails."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        done = subprocess.run(
            cmd,
            check=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            cwd=HERE.parent,
            env=user_env(),
        )
        elapsed = time.perf_counter() - t0
        if done.returncode != 0:
            raise SystemExit(
                f"bench: {' '.join([Path(cmd[0]).name, *cmd[1:3]])} ... failed:\n{done.stderr.strip()[-2000:]}"
            )
        best = min(best, elapsed)
    return best


def whole_at_scale(n: int, repeat: int) -> dict:
    """S4 with `n` flows as a user runs it: the whole `aqmlab run` process (reading the scenario,
    building, the event loop, the results and their tables printed), against the event loop
    alone (the time its report gives), and the process's peak memory. Best of `repeat` by the
    whole process's time."""
    import re
    import tempfile

    path = str(HERE / "scenarios" / "scale.toml")
    cmd = [str(Path(sys.executable).parent / "aqmlab"), "run", path]
    cmd += ["--set", f"link.s{{i}}->r1.count={n}", "--set", f"flow.tcp{{i}}.count={n}"]
    best = None
    for _ in range(repeat):
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            t0 = time.perf_counter()
            child = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=HERE.parent, env=user_env())
            # wait4 gives this child's own peak memory (ru_maxrss, kB on Linux).
            _, status, usage = os.wait4(child.pid, 0)
            whole = time.perf_counter() - t0
            out.seek(0)
            err.seek(0)
            report, errors = out.read(), err.read()
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"bench: aqmlab run with {n} flows failed:\n{errors.strip()}")
        found = re.search(r"events in ([0-9.]+) s", report)
        if not found:
            raise SystemExit(f"bench: no event-loop time in the report of aqmlab run:\n{report[:500]}")
        if best is None or whole < best[0]:
            best = (whole, float(found.group(1)), usage.ru_maxrss / 1024)
    whole, loop, peak_mb = best
    return {"flows": n, "whole_s": whole, "loop_s": loop, "ratio": whole / loop, "peak_mb": peak_mb}


def reproduce_seconds(experiment: str, repeat: int) -> dict:
    """A whole `aqmlab reproduce EXPERIMENT --seeds 5` process into a fresh directory each time,
    results, report and figures included, best of `repeat`."""
    import tempfile

    aqmlab_cli = str(Path(sys.executable).parent / "aqmlab")
    best = float("inf")
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as out:
            cmd = [aqmlab_cli, "reproduce", experiment, "--seeds", "5", "--out", out, "--no-progress"]
            best = min(best, process_seconds(cmd, 1))
    return {"experiment": experiment, "s": best, "workers": os.cpu_count()}


def startup(repeat: int) -> list[dict]:
    """What a user waits on beyond the event loop: the interpreter and `import aqmlab`, and a
    whole `aqmlab run --json` process on S1 (whose simulation takes about 10 ms)."""
    s1 = str(HERE / "scenarios" / "udp-dumbbell.toml")
    bare = process_seconds([sys.executable, "-c", "pass"], repeat)
    return [
        {"what": "python -c pass (the interpreter alone)", "s": bare, "target_s": None},
        {
            "what": "python -c 'import aqmlab'",
            "s": process_seconds([sys.executable, "-c", "import aqmlab"], repeat),
            "target_s": 0.15,
        },
        {
            "what": "aqmlab run S1 --json (whole process)",
            # The console script a user types (`python -m aqmlab` adds runpy's imports, 3 ms).
            "s": process_seconds([str(Path(sys.executable).parent / "aqmlab"), "run", s1, "--json"], repeat),
            "target_s": None,
        },
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="scenario file stems in benches/scenarios (default: all)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per scenario; the best is kept")
    parser.add_argument("--json", action="store_true", help="print JSON rows instead of a table")
    parser.add_argument(
        "--flows",
        default="100,300,1000,3000,10000,100000",
        help="S4 flow counts, comma-separated, or 'none' to skip the sweep (default: %(default)s)",
    )
    parser.add_argument(
        "--scale",
        default="100000",
        help="flows of the whole-process S4 run (aqmlab run against its event loop), or 'none' (default: %(default)s)",
    )
    parser.add_argument(
        "--reproduce",
        default="dks-1989",
        help="what `aqmlab reproduce` is timed on, as a whole process (an experiment, a paper, headline, all), "
        "or 'none' (default: %(default)s, the 22 experiments of one paper)",
    )
    parser.add_argument(
        "--no-record", action="store_true", help="compare with benches/record.json but do not add this run to it"
    )
    parser.add_argument("--s4-child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.s4_child is not None:
        print(json.dumps(s4_once(args.s4_child)))
        return 0
    if args.repeat < 1:
        print(f"bench: error: --repeat must be at least 1 (got {args.repeat})", file=sys.stderr)
        return 2
    try:
        counts = [] if args.flows == "none" else [int(c) for c in args.flows.split(",")]
        if any(c < 1 for c in counts):
            raise ValueError
    except ValueError:
        print(
            f"bench: error: --flows must be positive integers separated by commas, or 'none' (got {args.flows!r})",
            file=sys.stderr,
        )
        return 2
    if args.scale != "none" and not (args.scale.isdigit() and int(args.scale) > 0):
        print(f"bench: error: --scale must be a positive integer or 'none' (got {args.scale!r})", file=sys.stderr)
        return 2
    if args.reproduce != "none":
        from aqmlab.reproduce import select

        try:
            select([args.reproduce])
        except ValueError as e:
            print(f"bench: error: --reproduce: {e}; or 'none'", file=sys.stderr)
            return 2
    available = {p.stem: p for p in sorted((HERE / "scenarios").glob("*.toml"))}
    names = args.names or list(available)
    unknown = [n for n in names if n not in available]
    if unknown:
        print(
            f"bench: error: unknown scenario(s) {', '.join(unknown)} (known: {', '.join(available)})", file=sys.stderr
        )
        return 2
    rows = [bench(available[n], args.repeat) for n in names]
    sweep = flows_sweep(counts, max(args.repeat, 5)) if counts else []
    scale = whole_at_scale(int(args.scale), max(args.repeat, 3)) if args.scale != "none" else None
    starts = startup(max(args.repeat, 5))
    repro = reproduce_seconds(args.reproduce, min(args.repeat, 2)) if args.reproduce != "none" else None
    if args.json:
        print(
            json.dumps(
                {"scenarios": rows, "flows_sweep": sweep, "scale": scale, "startup": starts, "reproduce": repro},
                indent=2,
            )
        )
        return 0
    print(f"machine: {machine()}")
    print(f"{'scenario':<28}{'sim s':>8}{'events':>12}{'packets':>11}{'wall s':>9}{'Mevents/s':>11}{'Mpkts/s':>9}")
    for r in rows:
        print(
            f"{r['scenario']:<28}{r['sim_s']:>8.0f}{r['events']:>12,}{r['packets']:>11,}{r['wall_s']:>9.3f}"
            f"{r['events_per_s'] / 1e6:>11.2f}{r['packets_per_s'] / 1e6:>9.2f}"
        )
    if sweep:
        print(f"\nS4 flows sweep (scale.toml, 20 s; event loop only, {max(args.repeat, 5)} runs each, interleaved)")
        vs = "vs " + str(sweep[0]["flows"])
        print(f"{'flows':>8}{'packets':>11}{'best ns':>9}{vs:>9}{'median':>9}{vs:>9}{'worst':>9}")
        for r in sweep:
            print(
                f"{r['flows']:>8}{r['packets']:>11,}{r['ns_per_packet']:>9.1f}{r['ratio']:>8.2f}x"
                f"{r['ns_median']:>9.1f}{r['ratio_median']:>8.2f}x{r['ns_worst']:>9.1f}"
            )
    if scale:
        print(f"\nS4 at {scale['flows']:,} flows as a whole process (aqmlab run, best of {max(args.repeat, 3)})")
        print(
            f"  whole {scale['whole_s']:.2f} s, its event loop {scale['loop_s']:.2f} s: {scale['ratio']:.2f}x "
            f"(target at most 2x: {'met' if scale['ratio'] <= 2 else 'NOT met'}); peak memory {scale['peak_mb']:.0f} MB "
            f"(target under 600 MB: {'met' if scale['peak_mb'] < 600 else 'NOT met'})"
        )
    print(f"\nStart-up (whole processes, best of {max(args.repeat, 5)})")
    for r in starts:
        target = (
            f"   target < {r['target_s']:.2f} s: {'met' if r['s'] < r['target_s'] else 'NOT met'}"
            if r["target_s"]
            else ""
        )
        print(f"  {r['what']:<42}{r['s']:>7.3f} s{target}")
    if repro:
        print(f"\nReproduction (whole process, best of {min(args.repeat, 2)})")
        print(
            f"  aqmlab reproduce {repro['experiment']} --seeds 5 ({repro['workers']} workers, fresh directory)"
            f"{repro['s']:>8.2f} s"
        )
    figures, targets = record_figures(rows, sweep, scale, starts, repro)
    compare_and_record(machine(), figures, targets, write=not args.no_record and not args.names)
    return 0


def record_figures(
    rows: list[dict], sweep: list[dict], scale: dict | None, starts: list[dict], repro: dict | None = None
) -> tuple[dict, dict]:
    """The figures kept in the speed record (each a cost: lower is better), and their targets."""
    figures: dict[str, float] = {}
    targets: dict[str, float] = {}
    for r in rows:
        figures[f"{r['scenario']}: wall s"] = r["wall_s"]
        figures[f"{r['scenario']}: events per transmission"] = r["events"] / r["packets"]
    targets["scale: events per transmission"] = 1.36
    for r in sweep:
        figures[f"S4 {r['flows']} flows: ns per transmission"] = r["ns_per_packet"]
    if sweep:
        largest = sweep[-1]
        figures[f"S4 {largest['flows']} flows: ns per transmission / {sweep[0]['flows']}"] = largest["ratio"]
        targets[f"S4 {largest['flows']} flows: ns per transmission / {sweep[0]['flows']}"] = 3.0
        figures[f"S4 {largest['flows']} flows: median ns per transmission / {sweep[0]['flows']}"] = largest[
            "ratio_median"
        ]
    if scale:
        name = f"S4 {scale['flows']} flows, aqmlab run"
        figures[f"{name}: whole s"] = scale["whole_s"]
        figures[f"{name}: whole / event loop"] = scale["ratio"]
        targets[f"{name}: whole / event loop"] = 2.0
        figures[f"{name}: peak MB"] = scale["peak_mb"]
        targets[f"{name}: peak MB"] = 600.0
    for r in starts:
        figures[f"start-up: {r['what']}"] = r["s"]
        if r["target_s"]:
            targets[f"start-up: {r['what']}"] = r["target_s"]
    if repro:
        figures[f"reproduce {repro['experiment']}, 5 seeds: whole s"] = repro["s"]
    return figures, targets


if __name__ == "__main__":
    sys.exit(main())
