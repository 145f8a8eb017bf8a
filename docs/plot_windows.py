"""Draw the traced congestion window of each TCP variant: docs/tcp-windows.png.

One flow alone on a dumbbell path: 100 Mbps access link (1 ms), 10 Mbps bottleneck (24 ms),
so a base round trip of about 51 ms and a bandwidth-delay product of 64 packets of 1000 bytes;
the bottleneck buffer is 64 packets (one BDP). Each variant runs for 20 s with its window and
slow-start threshold traced every 5 ms, with the bottleneck queue. Windows are unlimited except
for the variants that need one: generic is a fixed window of 70 packets (above the BDP, and
small enough that even sent back to back it fits the buffer: a larger one overflows it after
every timeout and its generic timer diverges), and decbit runs behind a DECbit gateway (its
signal) with a maximum window of 200.

    .venv/bin/python docs/plot_windows.py [--out docs/tcp-windows.png]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import aqmlab

BUFFER = 64

VARIANTS = [
    ("generic", 'cc = "generic"\nmax_window = 70', "droptail"),
    ("slowstart", 'cc = "slowstart"', "droptail"),
    ("tahoe", 'cc = "tahoe"', "droptail"),
    ("reno", 'cc = "reno"', "droptail"),
    ("newreno", 'cc = "newreno"', "droptail"),
    ("vegas", 'cc = "vegas"', "droptail"),
    ("decbit", 'cc = "decbit"\nmax_window = 200', "decbit"),
]


def scenario(keys: str, discipline: str) -> str:
    return f"""
[simulation]
duration = "20s"

[[link]]
between = ["s", "r"]
rate = "100Mbps"
delay = "1ms"
queue = {{ discipline = "droptail", limit = 1000 }}

[[link]]
name = "bottleneck"
between = ["r", "d"]
rate = "10Mbps"
delay = "24ms"
queue = {{ discipline = "{discipline}", limit = {BUFFER} }}

[[flow]]
name = "f"
src = "s"
dst = "d"
kind = "tcp"
packet_size = 1000
{keys}

[trace]
interval = "5ms"
flows = ["f"]
links = ["bottleneck"]
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).with_name("tcp-windows.png")))
    args = parser.parse_args()

    fig, axes = plt.subplots(len(VARIANTS), 1, figsize=(9, 2.0 * len(VARIANTS)), sharex=True)
    for ax, (name, keys, discipline) in zip(axes, VARIANTS):
        results = aqmlab.run(aqmlab.loads(scenario(keys, discipline), name=f"windows-{name}"))
        trace = results.series["flow:f"]
        queue = results.series["link:bottleneck"]
        link = results.links.set_index("name").loc["bottleneck"]
        ax.plot(trace["t_s"], trace["cwnd_pkts"], lw=1.0, label="cwnd")
        if trace["ssthresh_pkts"].notna().any():
            ax.plot(trace["t_s"], trace["ssthresh_pkts"], lw=0.8, ls="--", label="ssthresh")
        ax.plot(queue["t_s"], queue["qlen_pkts"], lw=0.6, color="0.6", label="bottleneck queue")
        gateway = "DECbit gateway" if discipline == "decbit" else "DropTail"
        ax.set_title(
            f"{name} ({gateway}, buffer {BUFFER}): utilization {link['utilization']:.3f}, "
            f"drops {int(link['dropped_pkts'])}, marks {int(link['marks'])}",
            fontsize=9,
            loc="left",
        )
        ax.set_ylabel("packets")
        ax.set_ylim(bottom=0)
        ax.legend(loc="upper right", fontsize=7, ncol=3)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("aqmlab: congestion window of one flow per variant (10 Mbps, 51 ms, buffer 1 BDP)", fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
