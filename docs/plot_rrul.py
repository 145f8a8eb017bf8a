"""Draw Flent's RRUL figures for the three conditions of scenarios/sweeps/rrul.toml:
docs/rrul.png (download and upload throughput, and ping latency, over time) and
docs/rrul-cdf.png (the distribution of the ping's round-trip times).

Runs scenarios/examples/rrul.toml once per condition (seed 1) with the same overrides as the
sweep; throughput is the sum of the four flows of each direction, averaged over the trace interval
(200 ms), and latency every ping reply. Prints each condition's numbers.

    .venv/bin/python docs/plot_rrul.py [--out-dir docs]
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

import aqmlab

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "examples" / "rrul.toml"
SWEEP = ROOT / "scenarios" / "sweeps" / "rrul.toml"
LABELS = ["drop-tail (no SQM)", "fq_codel behind a 95% shaper", "CAKE shaping to 95%"]


def conditions() -> list[dict[str, object]]:
    """The sweep's points, as overrides."""
    return tomllib.loads(SWEEP.read_text())["point"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=ROOT / "docs")
    args = parser.parse_args(argv)
    runs = [aqmlab.run(SCENARIO, overrides=overrides) for overrides in conditions()]
    idle_rtt = idle_round_trip()

    figure, axes = plt.subplots(3, 1, figsize=(7, 7), sharex=True, constrained_layout=True)
    cdf_figure, cdf_axes = plt.subplots(figsize=(6, 3.6), constrained_layout=True)
    for label, results in zip(LABELS, runs):
        series = results.series
        t, down = _sum_throughput(series, "down")
        _, up = _sum_throughput(series, "up")
        rtt = series["rtt:ping"]
        times, rtts = rtt["t_s"].to_numpy(), rtt["rtt_s"].to_numpy() * 1e3
        (line,) = axes[0].plot(t, down / 1e6, label=label)
        axes[1].plot(t, up / 1e6, color=line.get_color())
        axes[2].plot(times, rtts, color=line.get_color(), marker=".", markersize=3, linewidth=0.8)
        ordered = np.sort(rtts)
        cdf_axes.step(ordered, np.arange(1, len(ordered) + 1) / len(ordered), where="post", label=label)
        print(
            f"{label}: download {down.mean() / 1e6:.1f} Mbps, upload {up.mean() / 1e6:.1f} Mbps, "
            f"ping median {np.median(rtts):.1f} ms, p99 {np.percentile(rtts, 99):.1f} ms"
        )
    axes[0].set_ylabel("download (Mbps)")
    axes[1].set_ylabel("upload (Mbps)")
    axes[2].set_ylabel("ping RTT (ms)")
    axes[2].set_yscale("log")
    axes[2].yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    axes[2].yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    axes[2].set_yticks([40, 100, 200, 400, 800])
    axes[2].axhline(idle_rtt * 1e3, color="grey", linestyle=":", label=f"idle RTT {idle_rtt * 1e3:.1f} ms")
    axes[2].set_xlabel("time (s)")
    axes[0].legend(loc="center right", fontsize="small")
    axes[2].legend(loc="center right", fontsize="small")
    figure.suptitle("RRUL: 4 TCP flows up and 4 down with a ping, 100/20 Mbps, 20 ms to the server", fontsize="medium")
    cdf_axes.set_xscale("log")
    cdf_axes.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    cdf_axes.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    cdf_axes.set_xticks([40, 100, 200, 400, 800])
    cdf_axes.set_xlabel("ping round-trip time (ms)")
    cdf_axes.set_ylabel("fraction of replies")
    cdf_axes.axvline(idle_rtt * 1e3, color="grey", linestyle=":", label="idle RTT")
    cdf_axes.legend(fontsize="small")
    args.out_dir.mkdir(parents=True, exist_ok=True)
    figure.savefig(args.out_dir / "rrul.png", dpi=110)
    cdf_figure.savefig(args.out_dir / "rrul-cdf.png", dpi=110)
    print(f"wrote {args.out_dir / 'rrul.png'} and {args.out_dir / 'rrul-cdf.png'}")
    return 0


def _sum_throughput(series, prefix: str) -> tuple[np.ndarray, np.ndarray]:
    frames = [frame for key, frame in series.items() if key.startswith(f"flow:{prefix}")]
    t = frames[0]["t_s"].to_numpy()
    return t, sum(frame["throughput_bps"].to_numpy() for frame in frames)


def idle_round_trip() -> float:
    """The ping's round trip over the empty path: propagation both ways plus each hop's time for
    an 84-byte echo, as a ping on an idle line measures it (checked in the core's tests)."""
    import json

    expanded = json.loads(aqmlab.load(SCENARIO).to_json())
    ping = next(flow for flow in expanded["flows"] if flow["name"] == "ping")
    links = expanded["links"]
    return sum(links[l]["delay_ns"] * 1e-9 + 84 * 8 / links[l]["rate_bps"] for l in ping["fwd"] + ping["rev"])


if __name__ == "__main__":
    sys.exit(main())
