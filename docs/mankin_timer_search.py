"""Which readings of the hosts' TCP timers give Mankin's rows that differ?

Mankin's testbed ran BSD TCPs of 1988-89; aqmlab models their timers from 4.3BSD's sources (a
500 ms slow timer at each host's phase, one segment timed at a time, srtt + 2 rttvar, the count
from one tick, srtt cleared after four back-offs, delayed ACKs on a 200 ms clock, Tahoe's
threshold). This diagnostic draws timer models at random, each of those details from its
readings, sets it on every connection of Exps. I-III, runs the three reproductions (both
gateways, several seeds) and records every row's verdict, so that each row that differs as
reproduced can be seen across the readings. Nothing here changes a reproduction;
docs/reproductions.md quotes its summary.

    python docs/mankin_timer_search.py --models 300 --seeds 5 --workers 2 --out mankin_models.jsonl
"""

from __future__ import annotations

import json
import random
import tempfile
from collections import Counter
from pathlib import Path

from aqmlab.reproduce import search

READINGS: dict[str, list[str]] = {
    "rto_k": ["2", "4"],
    "min_rto": ["0s", "200ms", "1s"],
    "tick": ["500ms", "0s", "200ms"],
    "tick_phase": ["random", "aligned"],
    "rtt_timing": ["one_at_a_time", "every_ack"],
    "rtt_count_from": ["1", "0"],
    "clear_srtt_after_backoffs": ["4", "0"],
    "delayed_ack": ["true", "false"],
    "timeout_ssthresh": ["half_window", "half_flight"],
    "slow_start_at_ssthresh": ["true", "false"],
}
EXPERIMENTS = ("mankin-1990-exp1", "mankin-1990-exp2", "mankin-1990-exp3")
#: The rows with a number that differ as reproduced (experiment, quantity | condition).
DIFFERING = (
    ("mankin-1990-exp1", "drop_pct:LR@GW1|random_drop"),
    ("mankin-1990-exp1", "drop_pct:LR@GW1|droptail"),
    ("mankin-1990-exp1", "qdelay_mean_s:SR@GW1|random_drop"),
    ("mankin-1990-exp1", "qdelay_mean_s:SR@GW1|droptail"),
    ("mankin-1990-exp2", "qdelay_sd_s:LR@GW3|random_drop"),
    ("mankin-1990-exp2", "qdelay_sd_s:LR@GW3|droptail"),
    ("mankin-1990-exp3", "drop_pct:LR@GW3|random_drop"),
    ("mankin-1990-exp3", "drop_pct:LR@GW3|droptail"),
    ("mankin-1990-exp3", "qdelay_sd_s:LR@GW3|droptail"),
    ("mankin-1990-exp3", "qdelay_sd_s:LR@GW4|droptail"),
)


def draw(rng: random.Random) -> dict[str, str]:
    return search.choose(rng, READINGS)


def overrides(model: dict[str, str]) -> dict[str, str]:
    """The model on every connection; a phase or a count from one tick means nothing without a tick."""
    out = {}
    for key, value in model.items():
        if model["tick"] == "0s" and key in ("tick_phase", "rtt_count_from"):
            value = {"tick_phase": "aligned", "rtt_count_from": "0"}[key]
        out[f"flow.*.{key}"] = value
    return out


def run_model(job: tuple[dict[str, str], list[int]]) -> dict:
    from aqmlab.reproduce import EXPERIMENTS as REPRODUCTIONS
    from aqmlab.reproduce.base import Condition
    from aqmlab.reproduce.runner import run_experiment

    model, seeds = job
    extra = overrides(model)
    verdicts = {}
    for experiment_id in EXPERIMENTS:
        proper = REPRODUCTIONS[experiment_id]

        def conditions(self, proper=proper):
            return [Condition(c.label, {**c.overrides, **extra}) for c in type(proper).conditions(self)]

        variant = type("TimerModel", (type(proper),), {"conditions": conditions, "id": experiment_id + "-timers"})
        with tempfile.TemporaryDirectory() as out:
            comparison = run_experiment(variant(), seeds, Path(out), workers=1, progress=False).comparison
        rows = comparison[comparison["published"].fillna("").astype(str).str.len() > 0]
        for quantity, condition, verdict in zip(rows["quantity"], rows["condition"], rows["verdict"], strict=True):
            verdicts[f"{experiment_id}/{quantity}|{condition}"] = verdict
    return {"model": model, "verdicts": verdicts}


def summarise(results: list[dict]) -> str:
    lines = []
    for r in results:
        r["counts"] = Counter(r["verdicts"].values())
    best = max(results, key=lambda r: r["counts"]["match"] - r["counts"]["differs"])
    lines.append(
        f"{len(results)} models; the three experiments' rows with a number, matching {min(r['counts']['match'] for r in results)}"
        f"-{max(r['counts']['match'] for r in results)} and differing {min(r['counts']['differs'] for r in results)}"
        f"-{max(r['counts']['differs'] for r in results)} (as reproduced: 71 and 10)"
    )
    lines.append(f"best: {dict(best['counts'])} {json.dumps(best['model'])}")
    for experiment_id, row in DIFFERING:
        seen = Counter(r["verdicts"].get(f"{experiment_id}/{row}") for r in results)
        lines.append(f"  {experiment_id} {row}: " + ", ".join(f"{v} {n}" for v, n in seen.most_common()))
    return "\n".join(lines)


def main() -> None:
    search.main(
        __doc__, draw=draw, work=run_model, summarise=summarise, models=300, seeds=5, draw_seed=7, label="timer models"
    )


if __name__ == "__main__":
    main()
