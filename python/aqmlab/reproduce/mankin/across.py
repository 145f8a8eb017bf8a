"""Mankin 1990's findings across its three experiments, each run again with RDCR on and off."""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import pairwise

import pandas as pd

from aqmlab.reproduce.base import Condition, Experiment, Reference, value_of
from aqmlab.reproduce.mankin.common import OFF, ON, PAPER, MankinExperiment
from aqmlab.reproduce.mankin.experiments import Exp1, Exp2, Exp3
from aqmlab.reproduce.mankin.explanations import DELAY_WHY, LR_THROUGHPUT_WHY, OVERFLOW_WHY

# ---------------------------------------------------------------------------------------------
# Findings across the three experiments: each is run again here, RDCR on and off.


class Across(Experiment):
    id = "mankin-1990-across"
    paper = PAPER
    title = "findings across the three testbeds: what changes as bottlenecks are added"
    source = "Sec. 5.2-5.4 and 6 (text), Tables 2-4"
    scenario = "mankin-1990/exp1.toml"
    reduced = MankinExperiment.reduced
    parts: tuple[MankinExperiment, ...] = (Exp1(), Exp2(), Exp3())
    notes = """The paper's findings that compare the experiments with one another: LR's arrivals in overflow
position rise with the number of bottlenecks (Sec. 5.2, Table 2), the SR connections' queueing
delay rises with it although each crosses one bottleneck (Sec. 5.3 and 6), and LR's throughput
falls (Sec. 5.4, Table 4). The three experiments are run again here under their own scenario
files (conditions `I random_drop`, `II droptail`, ...), measured as in their own reports; the
rows check the findings on the means over seeds (no number: each number is a row of its own
experiment). `path_overflow_pct:LR` is LR's overflow-position arrivals summed over its gateways;
`qdelay_mean_s:SR@GW1` the SR group's mean wait at GW1, the bottleneck every experiment has."""

    def conditions(self):
        return [
            Condition(f"{part.exp} {c.label}", c.overrides, scenario=part.scenario)
            for part in self.parts
            for c in part.conditions()
        ]

    def measure(self, tables):
        frames = []
        for part in self.parts:
            prefix = f"{part.exp} "
            mine = {
                name: t[t["condition"].str.startswith(prefix)].assign(
                    condition=lambda f, p=prefix: f["condition"].str.removeprefix(p)
                )
                for name, t in tables.items()
            }
            measured = part.measure(mine)
            frames.append(measured.assign(condition=prefix + measured["condition"]))
        return pd.concat(frames, ignore_index=True)

    def references(self):
        v = value_of
        exps = [part.exp for part in self.parts]

        def rising(q: str, cond: str) -> Callable[[pd.DataFrame], bool]:
            return lambda s: all(v(s, q, f"{a} {cond}") < v(s, q, f"{b} {cond}") for a, b in pairwise(exps))

        def falling(q: str, cond: str) -> Callable[[pd.DataFrame], bool]:
            return lambda s: all(v(s, q, f"{a} {cond}") > v(s, q, f"{b} {cond}") for a, b in pairwise(exps))

        rows = [
            (
                "path_overflow_pct:LR",
                ON,
                "LR arrives in overflow position more often as bottlenecks are added (I < II < III, RDCR on)",
                rising("path_overflow_pct:LR", ON),
                "Sec. 5.2 text, Table 2",
                "see the Table 2 rows of each experiment: " + OVERFLOW_WHY,
            ),
        ]
        for cond in (ON, OFF):
            rows.append(
                (
                    "qdelay_mean_s:SR@GW1",
                    cond,
                    f"the SR connections' queueing delay at GW1 rises with the number of bottlenecks ({cond})",
                    rising("qdelay_mean_s:SR@GW1", cond),
                    "Sec. 5.3 and 6 text, Table 3",
                    "see the Table 3 rows of each experiment: " + DELAY_WHY,
                )
            )
            rows.append(
                (
                    "throughput_Bps:LR",
                    cond,
                    f"LR's throughput falls as bottlenecks are added (I > II > III, {cond})",
                    falling("throughput_Bps:LR", cond),
                    "Sec. 5.4 text, Table 4",
                    "see the Table 4 rows of each experiment: " + LR_THROUGHPUT_WHY,
                )
            )
        return [
            Reference(q, f"{exps[-1]} {cond}", math.nan, source, "text", trend=(text, rule), explanation=why)
            for q, cond, text, rule, source, why in rows
        ]
