"""Draw the rival's share of the bottleneck against CUBIC: docs/cubic-vs-rival.png.

Reads the store of ``aqmlab sweep scenarios/sweeps/cubic-vs-rival.toml``: N CUBIC flows beside N
flows of a rival control (Reno, BBR) through each discipline, N = 1 ... 40. For every run, the
rival's share is the rival flows' goodput over all flows' goodput (0.5 is an even split); the
figure has one panel per rival, one line per discipline, the mean over seeds with a Student-t
95% interval. Runs of stale scenarios (an edited sweep or base file) are left out, as
``aqmlab plot`` leaves them out. Prints the plotted numbers.

    .venv/bin/python docs/plot_cubic_vs_rival.py results/cubic-vs-rival.duckdb [--out docs/cubic-vs-rival.png]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from aqmlab.plot import t_interval
from aqmlab.sweep.store import Store, stale_warning

COUNT = "flow.rival{i}.count"
RIVAL = "flow.rival{i}.cc"
QUEUE = "link.bottleneck.queue"
NAMES = {
    "droptail": "DropTail",
    "red": "RED",
    "choke": "CHOKe",
    "sred": "SRED",
    "zl_red": "ZL-RED",
    "fq_codel": "FQ-CoDel",
}


def discipline(queue_text: str) -> str:
    """The discipline named in a swept queue table's text."""
    for name in sorted(NAMES, key=len, reverse=True):
        if f'"{name}"' in queue_text:
            return name
    raise ValueError(f"no known discipline in {queue_text!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--out", type=Path, default=Path("docs/cubic-vs-rival.png"))
    args = parser.parse_args(argv)

    with Store(args.store, read_only=True) as store:
        current = store.current_hashes()
        stale = len(store.stale_runs())
        shares = store.sql(
            f'SELECT scenario_hash, seed, "{RIVAL}" AS rival, "{QUEUE}" AS queue, '
            f'CAST("{COUNT}" AS INTEGER) AS n, '
            "SUM(CASE WHEN name LIKE 'rival%' THEN goodput_bps ELSE 0 END) / SUM(goodput_bps) AS share "
            "FROM flows GROUP BY ALL"
        )
    if current is not None:
        shares = shares[shares["scenario_hash"].isin(current)]
    if stale:
        print(f"plot_cubic_vs_rival: warning: {stale_warning(stale)}", file=sys.stderr)
    if shares.empty:
        print(f"plot_cubic_vs_rival: {args.store}: no finished runs of the sweep", file=sys.stderr)
        return 1
    shares["discipline"] = shares["queue"].map(discipline)

    rivals = sorted(shares["rival"].unique(), key=lambda r: ["reno", "bbr"].index(r) if r in ("reno", "bbr") else 9)
    fig, axes = plt.subplots(1, len(rivals), figsize=(5.2 * len(rivals), 4.0), sharey=True, squeeze=False)
    print("rival  discipline    N  share  +-95%  seeds")
    for ax, rival in zip(axes[0], rivals):
        for name, label in NAMES.items():
            rows = shares[(shares["rival"] == rival) & (shares["discipline"] == name)]
            if rows.empty:
                continue
            xs, means, halves = [], [], []
            for n, group in sorted(rows.groupby("n")):
                count, mean, _, half = t_interval(group["share"].tolist(), 0.95)
                xs.append(n)
                means.append(mean)
                halves.append(0.0 if math.isnan(half) else half)  # nan with a single seed
                print(f"{rival:5}  {name:10} {n:3d}  {mean:.3f}  {halves[-1]:.3f}  {count}")
            ax.errorbar(xs, means, yerr=halves, marker="o", markersize=4, capsize=3, label=label)
        ax.axhline(0.5, color="grey", linestyle="--", linewidth=1)
        ax.set_xscale("log")
        ax.set_xticks([1, 2, 5, 10, 20, 40], labels=["1", "2", "5", "10", "20", "40"])
        ax.set_xlabel("flows of each control (N CUBIC + N rival)")
        ax.set_title(f"{'Reno' if rival == 'reno' else rival.upper()} against CUBIC")
        ax.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("rival's share of the goodput (0.5: even)")
    axes[0][0].set_ylim(0, 1)
    axes[0][-1].legend(fontsize=8)
    seeds = shares.groupby(["rival", "discipline", "n"])["seed"].nunique()
    seed_text = f"{seeds.min()}" if seeds.min() == seeds.max() else f"{seeds.min()}-{seeds.max()}"
    fig.text(
        0.5,
        0.005,
        f"45 Mbps, 42 ms, 1000-packet buffer; mean of {seed_text} seeds, 95% t interval",
        ha="center",
        fontsize=8,
    )
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
