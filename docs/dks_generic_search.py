"""Does any reading of the generic flow control give DKS scenario 2's uneven G/FQ column?

The paper's six generic FTPs under FQ get 838 to 178 packets (largest over smallest 4.7), drop 631
packets between them and leave the useful bandwidth 12% below optimal; aqmlab's share more evenly
(1.38 on average over seeds) and drop about 800. This diagnostic draws models at random, each
open detail of the generic flow control (the estimator's gain and samples, beta, the timeout's
start, floor, ceiling and back-off, a coarse tick; its timers are one per packet) and push-out's
open choices from its readings, runs each on the G/FQ condition on several seeds and counts the
runs with the paper's column: its six throughputs, ranked, each within 10% (838, 621, 615, 600,
591, 178), total drops within 10% of 631 and a useful deficit within 10% of 12%. Nothing here changes a reproduction; docs/reproductions.md
quotes its summary.

    python docs/dks_generic_search.py --models 3000 --seeds 3 --workers 2 --out generic_models.jsonl
"""

from __future__ import annotations

import random
import statistics
from collections import Counter

from aqmlab.reproduce import search

GENERIC_READINGS: dict[str, list[str]] = {
    "gain": ["0.125", "0.25", "0.1"],
    "beta": ["2", "3"],
    "samples": ["per_ack", "per_packet"],
    "initial_rto": ["3s", "6s", "1s"],
    "min_rto": ["0s", "200ms", "1s"],
    "max_rto": ["unbounded", "64s"],
    "backoff": ["false", "true"],
    "tick": ["0s", "500ms"],
}
FQ_READINGS: dict[str, list[str]] = {
    "pushout_ties": ["random", "smaller_id", "larger_id", "arrival"],
    "pushout_arrival": ["counted", "admitted"],
}
#: The paper's column: the FTPs' throughputs (ranked), spread, drops and the useful bandwidth's deficit.
PAPER_RANKED = (838, 621, 615, 600, 591, 178)
PAPER_SPREAD = 3.0
PAPER_DROPS = 631
PAPER_DEFICIT = 0.12
LINE_PACKETS = 3500


def draw(rng: random.Random) -> dict[str, str]:
    return search.choose(rng, GENERIC_READINGS, "generic.") | search.choose(rng, FQ_READINGS, "fq.")


def overrides(base: dict[str, str], model: dict[str, str]) -> dict[str, str]:
    out = dict(base)
    for name, value in model.items():
        kind, _, key = name.partition(".")
        if kind == "fq":
            out[f"link.gateway.queue.{key}"] = value
        else:
            out.update({f"flow.{flow}.{key}": value for flow in ("ftp{i}", "telnet{i}")})
    return out


def run_model(job: tuple[dict[str, str], list[int]]) -> dict:
    import aqmlab
    from aqmlab.reproduce.dks.scenario2 import Scenario2

    model, seeds = job
    experiment = Scenario2()
    condition = {c.label: c for c in experiment.conditions()}["G/FQ"]
    runs = []
    for seed in seeds:
        result = aqmlab.run(
            experiment.scenario_path(condition), seed=seed, overrides=overrides(condition.overrides, model)
        )
        flows = result.flows.set_index("name")
        ftps = [f"ftp{i}" for i in range(1, 7)]
        packets = [int(flows.loc[f, "delivered_pkts"]) for f in ftps]
        useful = sum(float(flows.loc[f, "goodput_bytes"]) for f in ftps) / 1000.0
        runs.append(
            {
                "seed": seed,
                "packets": packets,
                "drops": int(sum(flows.loc[f, "dropped_pkts"] for f in ftps)),
                "deficit": 1.0 - useful / LINE_PACKETS,
            }
        )
    return {"model": model, "runs": runs}


def spread(run: dict) -> float:
    return max(run["packets"]) / max(min(run["packets"]), 1)


def ranked_within(run: dict) -> int:
    """How many of the run's throughputs, ranked, are within 10% of the paper's at the same rank."""
    ranked = sorted(run["packets"], reverse=True)
    return sum(map(search.near, ranked, PAPER_RANKED))


def paper_column(run: dict) -> bool:
    return (
        ranked_within(run) == len(PAPER_RANKED)
        and search.near(run["drops"], PAPER_DROPS)
        and search.near(run["deficit"], PAPER_DEFICIT)
    )


def summarise(results: list[dict]) -> str:
    runs = [x for r in results for x in r["runs"]]
    uneven = [x for x in runs if spread(x) >= PAPER_SPREAD]
    hits = sum(paper_column(x) for x in runs)
    majority = [r for r in results if 2 * sum(paper_column(x) for x in r["runs"]) > len(r["runs"])]
    first = (
        f"{len(results)} models, {len(runs)} runs: {len(uneven)} as uneven as the paper's (largest over smallest "
        f">= {PAPER_SPREAD:g}), {hits} with its whole column, {len(majority)} models with it in most of their seeds"
    )
    medians = (
        f"spread over the runs: median {statistics.median(spread(x) for x in runs):.2f}; drops median "
        f"{statistics.median(x['drops'] for x in runs):.0f}; deficit median "
        f"{statistics.median(x['deficit'] for x in runs):.3f}"
    )
    ranks = [(r["model"]["fq.pushout_ties"], ranked_within(x)) for r in results for x in r["runs"]]
    shaped = [k for _, k in ranks if k >= 5]
    ties = Counter(tie for tie, k in ranks if k >= 5)
    shape = (
        f"{len(shaped)} runs with five or six ranked throughputs within 10% ({shaped.count(6)} "
        f"with six), by push-out's tie rule: " + ", ".join(f"{k} {n}" for k, n in sorted(ties.items()))
    )
    lines = [first, medians, shape]
    if uneven:
        lines.append(
            f"the uneven runs: drops {min(x['drops'] for x in uneven)}-{max(x['drops'] for x in uneven)}, deficit "
            f"{min(x['deficit'] for x in uneven):.3f}-{max(x['deficit'] for x in uneven):.3f}"
        )
    return "\n".join(lines)


def main() -> None:
    search.main(
        __doc__,
        draw=draw,
        work=run_model,
        summarise=summarise,
        models=3000,
        seeds=3,
        draw_seed=5,
        label="generic models",
    )


if __name__ == "__main__":
    main()
