"""CHOKe's analytic models (Pan, Prabhakar, Psounis 2000, Sec. IV): Table II (front CHOKe) and
Table III (back CHOKe with memory M), simulated as the paper's queues and set beside both the
paper's numbers and aqmlab.theory's solutions of the models."""

from __future__ import annotations

import pandas as pd

from aqmlab import theory
from aqmlab.reproduce.base import Condition, Experiment, Reference

PAPER = "Pan, Prabhakar, Psounis, CHOKe, INFOCOM 2000"
PPS = 1000.0  # packets per second in one unit of mu

# (lambda, paper simulation P0, paper simulation T, paper theory P0, paper theory T)
TABLE2 = [
    ([0.5, 1], 0.416, [0.251, 0.333], 0.417, [0.250, 0.333]),
    ([1, 2], 0.267, [0.333, 0.401], 0.267, [0.333, 0.400]),
    ([2, 3], 0.173, [0.399, 0.428], 0.171, [0.400, 0.429]),
    ([3, 4], 0.128, [0.428, 0.444], 0.127, [0.429, 0.444]),
    ([3, 5], 0.117, [0.429, 0.455], 0.117, [0.429, 0.455]),
    ([3, 6], 0.109, [0.429, 0.462], 0.110, [0.429, 0.462]),
    ([0.3, 0.6, 0.9], 0.219, [0.188, 0.274, 0.319], 0.218, [0.188, 0.273, 0.321]),
    ([0.5, 1, 1.5], 0.047, [0.253, 0.328, 0.373], 0.042, [0.250, 0.333, 0.375]),
]
# (M, lambda, paper T)
TABLE3 = [
    (0, [1, 1, 1, 7], [0.1, 0.1, 0.1, 0.7]),
    (1, [1, 1, 1, 7], [0.1875, 0.1875, 0.1875, 0.4375]),
    (2, [1, 1, 1, 7], [0.2273, 0.2273, 0.2273, 0.3182]),
    (3, [1, 1, 1, 7], [0.25, 0.25, 0.25, 0.25]),
    (1, [1, 2, 3, 4], [0.1286, 0.2286, 0.3000, 0.3429]),
    (2, [1, 2, 3, 4], [0.1733, 0.2533, 0.2800, 0.2933]),
    (3, [1, 2, 3, 4, 5], [0.1405, 0.1953, 0.2135, 0.2226, 0.2281]),
    (3, [1, 3, 5, 7, 9], [0.1101, 0.2034, 0.2220, 0.2300, 0.2345]),
]

ABSOLUTE = 0.01  # the yardstick for these models: within 0.01


def _window(frame: pd.DataFrame) -> pd.Series:
    return frame["sim_time_s"] - frame["measure_from_s"]


class Table2(Experiment):
    id = "choke-2000-table2"
    paper = PAPER
    title = "front CHOKe: the queue model against its formula"
    source = "Table II"
    scenario = "choke-2000/models/table2-row1.toml"
    reduced = {"simulation.duration": "40s", "simulation.warmup": "5s"}
    notes = """Each row is a scenario of its own (scenarios/papers/choke-2000/models/): Poisson flows,
exponential service, infinite FIFO buffer, and every arrival compared with the packet at the head,
which in this model is the packet in service: a match drops both, aborting the transmission.
P0 is the fraction of time the server is idle; T_i the goodput of flow i in units of mu. The
references are the paper's simulated values (tolerance 0.01 absolute, expressed relative) and
aqmlab.theory's solution of the model, p_i = lambda_i / (mu + 2 lambda_i)."""

    def conditions(self):
        return [
            Condition(f"row{k}", scenario=f"choke-2000/models/table2-row{k}.toml") for k in range(1, len(TABLE2) + 1)
        ]

    def measure(self, tables):
        rows = []
        f, links = tables["flows"], tables["links"]
        server = links[links["name"] == "server"]
        for _, r in server.iterrows():
            rows.append((r["condition"], r["seed"], "P0", 1.0 - float(r["utilization"])))
        f = f.assign(T=f["delivered_pkts"] / _window(f) / PPS)
        for _, r in f.iterrows():
            rows.append((r["condition"], r["seed"], f"T_{r['name'][1:]}", float(r["T"])))
        return pd.DataFrame(rows, columns=["condition", "seed", "quantity", "value"])

    def references(self):
        refs = []
        for k, (lam, sim_p0, sim_t, _th_p0, _th_t) in enumerate(TABLE2, 1):
            model = theory.front_choke(lam, 1.0)
            cond = f"row{k}"
            why = (
                (
                    "row 8 is close to instability (sum p_i = 0.958), so the queue is long and slow to mix; "
                    "see the theory column"
                )
                if k == 8
                else "sampling noise of a single run in the paper"
            )
            refs.append(
                Reference(
                    "P0", cond, sim_p0, "Table II (simulation)", "certain", tolerance=ABSOLUTE / sim_p0, explanation=why
                )
            )
            refs.append(
                Reference(
                    "P0",
                    cond,
                    float(model.p0),
                    "model (aqmlab.theory.front_choke; Table II theory)",
                    "derived",
                    tolerance=ABSOLUTE / float(model.p0),
                    explanation=why,
                )
            )
            for i, t in enumerate(sim_t, 1):
                refs.append(
                    Reference(
                        f"T_{i}", cond, t, "Table II (simulation)", "certain", tolerance=ABSOLUTE / t, explanation=why
                    )
                )
                th = float(model.goodput[i - 1])
                refs.append(
                    Reference(
                        f"T_{i}",
                        cond,
                        th,
                        "model (aqmlab.theory.front_choke; Table II theory)",
                        "derived",
                        tolerance=ABSOLUTE / th,
                        explanation=why,
                    )
                )
        return refs


class Table3(Experiment):
    id = "choke-2000-table3"
    paper = PAPER
    title = "back CHOKe with memory M: admitted shares against the Markov chain"
    source = "Table III"
    scenario = "choke-2000/models/table3-row1.toml"
    reduced = {"simulation.duration": "30s", "simulation.warmup": "5s"}
    notes = """Each row is a scenario of its own (scenarios/papers/choke-2000/models/). An arrival whose
flow is among the flows of the last M admitted packets is dropped (even into an empty queue), else
admitted. T_i is flow i's share of the admitted packets; the paper prints the model's values,
which aqmlab.theory.back_choke computes by solving the chain over ordered M-tuples exactly."""

    def conditions(self):
        return [
            Condition(f"M={m} row{k}", scenario=f"choke-2000/models/table3-row{k}.toml")
            for k, (m, _, _) in enumerate(TABLE3, 1)
        ]

    def measure(self, tables):
        f = tables["flows"]
        total = f.groupby(["condition", "seed"])["delivered_pkts"].transform("sum")
        return pd.DataFrame(
            {
                "condition": f["condition"],
                "seed": f["seed"],
                "quantity": "T_" + f["name"].str[1:],
                "value": f["delivered_pkts"] / total,
            }
        )

    def references(self):
        refs = []
        for k, (m, lam, paper_t) in enumerate(TABLE3, 1):
            cond = f"M={m} row{k}"
            for i, t in enumerate(paper_t, 1):
                refs.append(
                    Reference(
                        f"T_{i}",
                        cond,
                        t,
                        "Table III (model)",
                        "certain",
                        tolerance=ABSOLUTE / t,
                        explanation="the paper's value is the model's exact solution; see aqmlab.theory.back_choke",
                    )
                )
        return refs


EXPERIMENTS = [Table2(), Table3()]
