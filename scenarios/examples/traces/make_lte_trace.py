"""Write lte-downlink.mahimahi: a cellular-like downlink as a Mahimahi trace, from a random process
stated here (no measured trace ships with aqmlab; a public one, such as Mahimahi's or Pantheon's,
can be used the same way, with its own licence).

The process: the link's rate changes every 100 ms; its logarithm follows a random walk with
steps of standard deviation 0.3, pulled back towards log(12 Mbps) (a mean-reverting AR(1) with
coefficient 0.9), clipped to [0.5, 60] Mbps; within each 100 ms the delivery opportunities (one
1500-byte packet each) are a Poisson process at that rate, their times rounded to whole
milliseconds as Mahimahi's traces are. 60 s, numpy's PCG64 with seed 2026.

    python scenarios/examples/traces/make_lte_trace.py
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

SEED = 2026
DURATION_S = 60.0
STEP_S = 0.1
MEAN_MBPS, LOW_MBPS, HIGH_MBPS = 12.0, 0.5, 60.0
AR, SIGMA = 0.9, 0.3
MTU_BITS = 1500 * 8


def main() -> None:
    rng = np.random.Generator(np.random.PCG64(SEED))
    log_rate, times = math.log(MEAN_MBPS), []
    for step in range(int(DURATION_S / STEP_S)):
        log_rate = math.log(MEAN_MBPS) + AR * (log_rate - math.log(MEAN_MBPS)) + rng.normal(0.0, SIGMA)
        rate_bps = min(max(math.exp(log_rate), LOW_MBPS), HIGH_MBPS) * 1e6
        count = rng.poisson(rate_bps * STEP_S / MTU_BITS)
        start = step * STEP_S
        times.extend(np.sort(rng.uniform(start, start + STEP_S, count)))
    # Whole milliseconds, at least 1 (Mahimahi's first line is a time after 0), rising.
    lines = [max(1, math.ceil(t * 1000)) for t in times]
    out = Path(__file__).with_name("lte-downlink.mahimahi")
    out.write_text("\n".join(map(str, lines)) + "\n")
    print(f"wrote {out}: {len(lines)} opportunities over {lines[-1] / 1000:.1f} s, mean {len(lines) * MTU_BITS / (lines[-1] / 1000) / 1e6:.1f} Mbps")


if __name__ == "__main__":
    main()
