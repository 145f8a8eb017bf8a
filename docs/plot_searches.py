"""Draw where the papers' points sit among the searched models: docs/model-searches.png.

Left, DKS scenario 2 under JK/FCFS: every run of docs/dks_jk_model_search.py, the FTPs' sharing
(Jain's index) against the busier Telnet's packets, under the stated cap of 5 and with the FTPs
uncapped, with the paper's row and its region (Jain at least 0.95, both Telnets at most 20).
Right, CHOKe Table I: every model of docs/choke_table1_search.py, the UDP flow's throughput on
R2-R3 against its loss on R3-R4 (means over seeds), those with ns-2's 1998 timers and RED
defaults marked, with the paper's point and the 10% box around it.

    .venv/bin/python docs/dks_jk_model_search.py --out jk_capped.jsonl
    .venv/bin/python docs/dks_jk_model_search.py --uncapped --out jk_uncapped.jsonl
    .venv/bin/python docs/choke_table1_search.py --out choke.jsonl
    .venv/bin/python docs/plot_searches.py jk_capped.jsonl jk_uncapped.jsonl choke.jsonl [--out docs/model-searches.png]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from choke_table1_search import ns2_1998  # a sibling script: docs/ is on the path when this one runs

import aqmlab
from aqmlab.reproduce.dks.scenario2 import Scenario2
from aqmlab.theory import jain

SEEDS = range(1, 6)
CHOKE_TABLE1 = Path(__file__).resolve().parents[1] / "scenarios" / "papers" / "choke-2000" / "table1.toml"


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def reproduced_jk_fcfs() -> list[tuple[float, int]]:
    """The reproduction proper's JK/FCFS runs: (Jain's index over the FTPs, the busier Telnet's packets)."""
    experiment = Scenario2()
    condition = {c.label: c for c in experiment.conditions()}["JK/FCFS"]
    out = []
    for seed in SEEDS:
        flows = aqmlab.run(experiment.scenario_path(condition), seed=seed, overrides=condition.overrides).flows
        flows = flows.set_index("name")["delivered_pkts"]
        ftp = [float(flows[f"ftp{i}"]) for i in range(1, 7)]
        out.append((jain(ftp), int(max(flows["telnet7"], flows["telnet8"]))))
    return out


def reproduced_table1() -> tuple[float, float]:
    """The reproduction proper's Table I: the UDP flow's kbps on R2-R3 and % lost on R3-R4, means over seeds."""
    kbps, loss = [], []
    for seed in SEEDS:
        lf = aqmlab.run(CHOKE_TABLE1, seed=seed).link_flows
        udp = lf[lf["flow"] == "udp"].set_index("link")
        kbps.append(float(udp.loc["r2->r3", "departures"]) * 8 / 80)
        loss.append(100 * float(udp.loc["r3->r4", "drops"]) / float(udp.loc["r3->r4", "arrivals"]))
    return statistics.mean(kbps), statistics.mean(loss)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("jk_capped", type=Path, help="runs of dks_jk_model_search.py (JSON lines)")
    parser.add_argument("jk_uncapped", type=Path, help="runs of dks_jk_model_search.py --uncapped")
    parser.add_argument("choke", type=Path, help="runs of choke_table1_search.py")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "model-searches.png")
    args = parser.parse_args()
    for path in (args.jk_capped, args.jk_uncapped, args.choke):
        if not path.is_file():
            parser.error(f"{path}: no such file (run the searches with --out first)")

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 5.4))
    for path, colour, label in ((args.jk_capped, "0.45", "cap of 5"), (args.jk_uncapped, "tab:blue", "FTPs uncapped")):
        runs = [x for r in read(path) for x in r["runs"]]
        left.scatter(
            [x["jain"] for x in runs],
            [max(x["telnets"]) + 1 for x in runs],
            s=3,
            alpha=0.25,
            color=colour,
            label=f"{label} ({len(runs)} runs)",
            rasterized=True,
        )
    left.add_patch(plt.Rectangle((0.95, 1), 0.05, 20, fill=False, edgecolor="tab:red", linestyle="--"))
    left.scatter([1.0], [3 + 1], marker="*", s=220, color="tab:red", zorder=5, label="the paper (3 and 0)")
    proper = reproduced_jk_fcfs()
    left.scatter(
        [j for j, _ in proper],
        [t + 1 for _, t in proper],
        marker="X",
        s=70,
        color="black",
        zorder=5,
        label="as reproduced (seeds 1-5)",
    )
    left.set_yscale("log")
    left.set_xlabel("Jain's index over the six FTPs")
    left.set_ylabel("busier Telnet's packets + 1")
    left.set_title("DKS scenario 2, JK/FCFS: 4,000 JK models x 5 seeds")
    _legend(left)

    models = read(args.choke)
    points = [
        (
            statistics.mean(x["kbps_r2_r3"] for x in r["runs"]),
            100 * statistics.mean(x["loss_r3_r4"] for x in r["runs"]),
            ns2_1998(r["model"]),
        )
        for r in models
    ]
    other = [(x, y) for x, y, d in points if not d]
    default = [(x, y) for x, y, d in points if d]
    right.scatter(*zip(*other, strict=True), s=4, alpha=0.35, color="0.45", label=f"open details ({len(other)} models)")
    if default:
        right.scatter(
            *zip(*default, strict=True),
            s=30,
            color="tab:blue",
            label=f"ns-2 1998 timers and RED defaults ({len(default)})",
        )
    right.add_patch(plt.Rectangle((666.3, 49.5), 148.0, 11.0, fill=False, edgecolor="tab:red", linestyle="--"))
    right.scatter([740.3], [55], marker="*", s=220, color="tab:red", zorder=5, label="the paper (740 kbps, 55%)")
    kbps, loss = reproduced_table1()
    right.scatter(
        [kbps], [loss], marker="X", s=90, color="black", zorder=5, label=f"as reproduced ({kbps:.0f}, {loss:.1f}%)"
    )
    right.set_xlabel("UDP throughput on R2-R3 (kbps)")
    right.set_ylabel("UDP lost on R3-R4 (%)")
    right.set_title("CHOKe Table I: 3,000 models x 3 seeds")
    _legend(right)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(args.out)


def _legend(axes) -> None:
    # Below the axes, so that it hides no point; the clouds' tiny points shown at a readable size.
    legend = axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, fontsize=8, frameon=False)
    for handle in legend.legend_handles:
        sizes = handle.get_sizes() if hasattr(handle, "get_sizes") else []
        if len(sizes) and sizes[0] < 10:
            handle.set_sizes([20])
            handle.set_alpha(1)


if __name__ == "__main__":
    main()
