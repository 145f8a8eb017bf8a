"""Which JK models, under DKS scenario 2's stated window cap of 5, give the paper's JK rows?

The paper's six JK/FCFS FTPs share the line (582-585 packets each) while both Telnets are shut
out (3 and 0 packets); aqmlab's JK locks three FTPs in instead. Its JK/FQ FTPs retransmit at least
as often as they lose (60-83 retransmissions, 48-80 drops, round trips of 1.75-2.20 s); aqmlab's
lose more than they retransmit. This diagnostic draws JK models at random, each of aqmlab's Tahoe
keys from its readings (4.3BSD-Tahoe's, RFC 6298's, ns-2's and the others the docs discuss),
applies each to every JK flow of the condition (the Telnets' treatment of a full window too, and
under JK/FQ push-out's open choices at the gateway), runs it on several seeds and counts the runs
that have the paper's row:
- JK/FCFS: the FTPs sharing (Jain's index at least 0.95) and each Telnet at most 20 packets;
- JK/FQ: the FTPs sharing, with per FTP on average at least as many retransmissions (timeouts
  and fast retransmits) as drops, 60-83 retransmissions, 48-80 drops and a round trip (the
  sender's samples) of 1.75-2.20 s: the ranges of the paper's six.
Nothing here changes a reproduction; docs/reproductions.md quotes its summaries.

    python docs/dks_jk_model_search.py --models 4000 --seeds 5 --workers 2 --out jk_models.jsonl

`--policy JK/FQ` searches the FQ column; `--uncapped` lifts the FTPs' cap (max_window = 64) for a
contrast (the paper states the cap).
"""

from __future__ import annotations

import json
import math
import random
import statistics
from collections import defaultdict

from aqmlab.reproduce import search

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
#: Keys of the FQ gateway (drawn for the JK/FQ search only): push-out's open choices.
FQ_READINGS: dict[str, list[str | None]] = {
    "pushout_ties": ["random", "smaller_id", "larger_id", "arrival"],
    "pushout_arrival": ["counted", "admitted"],
}
#: The paper's rows, run by run.
SHARING_JAIN = 0.95
SHUT_OUT_PACKETS = 20
FQ_RETRANSMISSIONS = (60, 83)
FQ_DROPS = (48, 80)
FQ_RTT_S = (1.75, 2.20)
POLICIES = ("JK/FCFS", "JK/FQ")


def draw(rng: random.Random, policy: str = "JK/FCFS") -> dict[str, str | None]:
    model: dict[str, str | None] = {**search.choose(rng, READINGS), **search.choose(rng, TELNET_READINGS)}
    if policy == "JK/FQ":
        model.update(search.choose(rng, FQ_READINGS))
    if model["tick"] == "0s":
        model["tick_phase"] = None  # a phase means nothing without a tick
    return model


def overrides(base: dict[str, str], model: dict[str, str | None]) -> dict[str, str]:
    out = dict(base)
    for key, value in model.items():
        if value is None:
            continue
        if key in FQ_READINGS:
            out[f"link.gateway.queue.{key}"] = value
            continue
        flows = ("telnet{i}",) if key in TELNET_READINGS else ("ftp{i}", "telnet{i}")
        out.update({f"flow.{f}.{key}": value for f in flows})
    return out


def run_model(job: tuple[dict[str, str | None], list[int], bool, str]) -> dict:
    import aqmlab
    from aqmlab import theory
    from aqmlab.reproduce.dks.scenario2 import Scenario2

    model, seeds, uncapped, policy = job
    experiment = Scenario2()
    condition = {c.label: c for c in experiment.conditions()}[policy]
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
        jain = theory.jain(ftp) or 0.0  # no FTP packet at all: no sharing
        ftps = [f"ftp{i}" for i in range(1, 7)]
        rtts = [float(flows.loc[f, "mean_rtt_s"]) for f in ftps if not math.isnan(flows.loc[f, "mean_rtt_s"])]
        runs.append(
            {
                "seed": seed,
                "jain": jain,
                "telnets": telnets,
                "ftp": sorted(int(x) for x in ftp),
                "retx": statistics.mean(int(flows.loc[f, "timeouts"] + flows.loc[f, "fast_retransmits"]) for f in ftps),
                "drops": statistics.mean(int(flows.loc[f, "dropped_pkts"]) for f in ftps),
                "rtt_s": statistics.mean(rtts) if rtts else None,
            }
        )
    return {"model": model, "policy": policy, "runs": runs}


def within(value: float | None, bounds: tuple[float, float]) -> bool:
    return value is not None and bounds[0] <= value <= bounds[1]


def paper_row(run: dict, policy: str = "JK/FCFS") -> bool:
    if run["jain"] < SHARING_JAIN:
        return False
    if policy == "JK/FCFS":
        return max(run["telnets"]) <= SHUT_OUT_PACKETS
    return (
        run["retx"] >= run["drops"]
        and within(run["retx"], FQ_RETRANSMISSIONS)
        and within(run["drops"], FQ_DROPS)
        and within(run["rtt_s"], FQ_RTT_S)
    )


def summarise(results: list[dict]) -> str:
    """A line per duplicate threshold; under JK/FCFS the sharing models' busier Telnet, under JK/FQ
    their drops per retransmission (medians over the models)."""
    policy = results[0].get("policy", "JK/FCFS")
    by_threshold: dict[str, list[dict]] = defaultdict(list)
    for r in results:
        by_threshold[str(r["model"]["dupack_threshold"])].append(r)

    def hits(r: dict) -> int:
        return sum(paper_row(x, policy) for x in r["runs"])

    def telling(r: dict) -> float:
        if policy == "JK/FCFS":
            return statistics.mean(max(x["telnets"]) for x in r["runs"])
        return statistics.mean(x["drops"] / max(x["retx"], 1) for x in r["runs"])

    told = "their busier Telnet" if policy == "JK/FCFS" else "their drops per retransmission"
    header = (
        f"{policy}: threshold | models | sharing on average | {told} (median) | runs with the paper's row "
        "| models with it in a majority of seeds"
    )
    lines = [header]
    for threshold, rs in sorted(by_threshold.items()):
        sharing = [r for r in rs if statistics.mean(x["jain"] for x in r["runs"]) >= SHARING_JAIN]
        runs = sum(len(r["runs"]) for r in rs)
        majority = sum(2 * hits(r) > len(r["runs"]) for r in rs)
        median = f"{statistics.median(telling(r) for r in sharing):.2f}" if sharing else "-"
        lines.append(
            f"{threshold} | {len(rs)} | {len(sharing)} | {median} | {sum(hits(r) for r in rs)} of {runs} | {majority}"
        )
    best = max(results, key=hits)
    lines.append(f"best: {hits(best)} of {len(best['runs'])} seeds, {json.dumps(best['model'])}")
    return "\n".join(lines)


def main() -> None:
    parser = search.arguments(__doc__.split("\n\n")[0], models=4000, seeds=5, draw_seed=1)
    parser.add_argument("--policy", choices=POLICIES, default="JK/FCFS", help="the column searched (default JK/FCFS)")
    parser.add_argument(
        "--uncapped", action="store_true", help="the FTPs' windows uncapped (max_window = 64), as a contrast"
    )
    args = search.parse(parser)
    rng = random.Random(args.draw_seed)
    seeds = list(range(1, args.seeds + 1))
    jobs = [(draw(rng, args.policy), seeds, args.uncapped, args.policy) for _ in range(args.models)]
    results = search.run_models(run_model, jobs, workers=args.workers, out=args.out, label="JK models")
    print(summarise(results))


if __name__ == "__main__":
    main()
