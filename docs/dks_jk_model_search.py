"""Which JK models, under DKS scenario 2's stated window cap of 5, give the paper's JK/FCFS row?

The paper's six JK/FCFS FTPs share the line (582-585 packets each) while both Telnets are shut
out (3 and 0 packets). aqmlab's JK locks three FTPs in instead. This diagnostic draws JK models at
random, each of aqmlab's Tahoe keys from its readings (4.3BSD-Tahoe's, RFC 6298's, ns-2's and the
others the docs discuss), applies each to every JK flow of the JK/FCFS condition (the Telnets'
treatment of a full window too), runs it on several seeds and counts the runs that have the
paper's row: the FTPs sharing (Jain's index at least 0.95) and each Telnet at most 20 packets.
Nothing here changes a reproduction; docs/reproductions.md quotes its summary.

    python docs/dks_jk_model_search.py --models 4000 --seeds 5 --workers 2 --out jk_models.jsonl

`--uncapped` lifts the FTPs' cap (max_window = 64) for a contrast; the paper states the cap.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
from collections import defaultdict
from multiprocessing import Pool
from pathlib import Path

#: Each key's readings; every model draws one value per key.
READINGS: dict[str, list[str | None]] = {
    "dupack_threshold": ["1", "2", "3"],
    "timers": ["one", "per_segment"],
    "rtt_timing": ["every_ack", "one_at_a_time"],
    "rto_k": ["2", "4"],
    "min_rto": ["0s", "200ms", "1s"],
    "max_rto": ["64s", "unbounded"],
    "backoff": ["true", "false"],
    "tick": ["0s", "500ms"],
    "tick_phase": ["aligned", "random"],
    "after_fast_retransmit": ["resume", "go_back"],
    "timeout_ssthresh": ["half_window", "half_flight"],
    "fast_retransmit_ssthresh": ["half_window", "half_flight"],
    "slow_start_at_ssthresh": ["true", "false"],
    "initial_ssthresh": [None, "2", "5"],
    "clear_srtt_after_backoffs": ["0", "4"],
    "delayed_ack": ["false", "true"],
}
#: Keys of the Telnets alone.
TELNET_READINGS: dict[str, list[str | None]] = {"on_full_window": ["queue", "skip", "hold_one"]}
#: The paper's row, run by run.
SHARING_JAIN = 0.95
SHUT_OUT_PACKETS = 20


def draw(rng: random.Random) -> dict[str, str | None]:
    model = {k: rng.choice(v) for k, v in READINGS.items()}
    model.update({k: rng.choice(v) for k, v in TELNET_READINGS.items()})
    if model["tick"] == "0s":
        model["tick_phase"] = None  # a phase means nothing without a tick
    return model


def overrides(base: dict[str, str], model: dict[str, str | None]) -> dict[str, str]:
    out = dict(base)
    for key, value in model.items():
        if value is None:
            continue
        flows = ("telnet{i}",) if key in TELNET_READINGS else ("ftp{i}", "telnet{i}")
        out.update({f"flow.{f}.{key}": value for f in flows})
    return out


def run_model(job: tuple[dict[str, str | None], list[int], bool]) -> dict:
    import aqmlab
    from aqmlab.reproduce.dks.scenario2 import Scenario2

    model, seeds, uncapped = job
    experiment = Scenario2()
    condition = {c.label: c for c in experiment.conditions()}["JK/FCFS"]
    base = dict(condition.overrides)
    if uncapped:
        base["flow.ftp{i}.max_window"] = "64"
    runs = []
    for seed in seeds:
        flows = aqmlab.run(
            experiment.scenario_path(condition), seed=seed, overrides=overrides(base, model)
        ).flows.set_index("name")
        ftp = [float(flows.loc[f"ftp{i}", "delivered_pkts"]) for i in range(1, 7)]
        telnets = [int(flows.loc[f"telnet{i}", "delivered_pkts"]) for i in (7, 8)]
        jain = sum(ftp) ** 2 / (6 * sum(x * x for x in ftp)) if any(ftp) else 0.0
        runs.append({"seed": seed, "jain": jain, "telnets": telnets, "ftp": sorted(int(x) for x in ftp)})
    return {"model": model, "runs": runs}


def paper_row(run: dict) -> bool:
    return run["jain"] >= SHARING_JAIN and max(run["telnets"]) <= SHUT_OUT_PACKETS


def summarise(results: list[dict]) -> str:
    by_threshold: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        by_threshold[str(r["model"]["dupack_threshold"])].append(r)
    header = (
        "threshold | models | sharing on average | their busier Telnet (median) | runs with the paper's row "
        "| models with it in a majority of seeds"
    )
    lines = [header]
    for threshold, rs in sorted(by_threshold.items()):
        sharing = [r for r in rs if statistics.mean(x["jain"] for x in r["runs"]) >= SHARING_JAIN]
        busier = [statistics.mean(max(x["telnets"]) for x in r["runs"]) for r in sharing]
        hits = sum(paper_row(x) for r in rs for x in r["runs"])
        runs = sum(len(r["runs"]) for r in rs)
        majority = sum(2 * sum(paper_row(x) for x in r["runs"]) > len(r["runs"]) for r in rs)
        median = f"{statistics.median(busier):.0f}" if busier else "-"
        lines.append(f"{threshold} | {len(rs)} | {len(sharing)} | {median} | {hits} of {runs} | {majority}")
    best = max(
        results,
        key=lambda r: (sum(paper_row(x) for x in r["runs"]), -statistics.mean(max(x["telnets"]) for x in r["runs"])),
    )
    lines.append(
        f"best: {sum(paper_row(x) for x in best['runs'])} of {len(best['runs'])} seeds, {json.dumps(best['model'])}"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=4000, help="JK models to draw (default 4000)")
    parser.add_argument("--seeds", type=int, default=5, help="seeds per model, 1..N (default 5)")
    parser.add_argument("--draw-seed", type=int, default=1, help="seed of the models' draw (default 1)")
    parser.add_argument("--workers", type=int, default=2, help="processes (default 2)")
    parser.add_argument(
        "--uncapped", action="store_true", help="the FTPs' windows uncapped (max_window = 64), as a contrast"
    )
    parser.add_argument("--out", type=Path, help="write every model and its runs here (JSON lines)")
    args = parser.parse_args()
    if args.models < 1 or args.seeds < 1 or args.workers < 1:
        parser.error("--models, --seeds and --workers must be at least 1")
    rng = random.Random(args.draw_seed)
    jobs = [(draw(rng), list(range(1, args.seeds + 1)), args.uncapped) for _ in range(args.models)]
    results = []
    with Pool(args.workers) as pool:
        for i, result in enumerate(pool.imap(run_model, jobs, chunksize=4), 1):
            results.append(result)
            if i % 200 == 0 or i == len(jobs):
                print(f"{i} of {len(jobs)} models", file=sys.stderr, flush=True)
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in results))
    print(summarise(results))


if __name__ == "__main__":
    main()
