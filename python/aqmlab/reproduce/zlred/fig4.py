"""ZL-RED report, Fig. 4: Reno against Vegas under SRED and ZL-RED as the buffer grows."""

from __future__ import annotations

import math
from collections.abc import Sequence

from aqmlab.reproduce.base import Condition, Experiment, Reference, value_of
from aqmlab.reproduce.plots import save
from aqmlab.reproduce.zlred.common import (
    BUFFERS,
    DISCS,
    EXPLAIN,
    NAME,
    NS,
    PAPER,
    REDUCED,
    SETUP,
    _increasing,
    counts,
    gap,
    mean_of,
    measure_versions,
    queue,
    rule,
    throughput_and_loss,
)

# ---------------------------------------------------------------------------------------------
# Fig. 4


class Fig4(Experiment):
    id = "zlred-fig4"
    paper = PAPER
    title = "TCP Reno against TCP Vegas under SRED and ZL-RED, for three buffer sizes"
    source = "Fig. 4 (a)-(f) and its text (Sec. 4.2)"
    scenario = "zlred/fig4.toml"
    reduced = REDUCED
    notes = (
        SETUP
        + """

Fig. 4: zombie list of 1000 entries; B = 1000, 5000 and 10000 packets; N_r = N_v = 5 to 640
[UNSPEC]. "Few connections" in the rules is the smallest N (5), "many" the largest four."""
    )

    def __init__(self, ns: Sequence[int] = NS, buffers: Sequence[int] = BUFFERS):
        self.ns, self.buffers = list(ns), list(buffers)

    @staticmethod
    def label(disc: str, buffer: int, n: int) -> str:
        return f"{disc} B={buffer} N={n}"

    def conditions(self):
        return [
            Condition(self.label(d, b, n), {**counts(n), "link.bottleneck.queue": queue(d, buffer=b)})
            for b in self.buffers
            for d in DISCS
            for n in self.ns
        ]

    def measure(self, tables):
        return measure_versions(tables)

    def references(self):
        ns, lo, hi = self.ns, self.ns[: max(1, len(self.ns) // 2)], self.ns[len(self.ns) // 2 :]
        L = self.label
        refs = []
        for b in self.buffers:
            log_r = lambda s, d, b=b: [value_of(s, "log_tput_ratio", L(d, b, n)) for n in ns]
            refs.append(
                Reference(
                    "tput_ratio",
                    L("sred", b, ns[-1]),
                    math.nan,
                    "Fig. 4 text",
                    "text",
                    trend=rule(
                        f"SRED, B={b}: Reno gets more than Vegas at every N, by a factor 2 or more on (geometric) average over N",
                        lambda s, f=log_r: all(x > 0 for x in f(s, "sred")) and mean_of(f(s, "sred")) >= math.log(2),
                    ),
                    explanation=EXPLAIN["sred_reno_ahead"],
                )
            )
        if len(self.buffers) > 1:
            refs.append(
                Reference(
                    "tput_ratio",
                    L("sred", self.buffers[-1], ns[-1]),
                    math.nan,
                    "Fig. 4 text",
                    "text",
                    trend=rule(
                        "SRED: the Reno/Vegas gap, averaged over N, grows with B ("
                        + " < ".join(f"B={b}" for b in self.buffers)
                        + ")",
                        lambda s: _increasing([mean_of([gap(s, L("sred", b, n)) for n in ns]) for b in self.buffers]),
                    ),
                    explanation=EXPLAIN["sred_worse_with_b"],
                )
            )
        for b in self.buffers:
            improvement = lambda s, n, b=b: gap(s, L("sred", b, n)) - gap(s, L("zl_red", b, n))
            refs.append(
                Reference(
                    "tput_ratio",
                    L("zl_red", b, ns[-1]),
                    math.nan,
                    "Fig. 4 text",
                    "text",
                    trend=rule(
                        f"B={b}: ZL-RED's Reno/Vegas gap, averaged over N, is smaller than SRED's",
                        lambda s, b=b: (
                            mean_of([gap(s, L("zl_red", b, n)) for n in ns])
                            < mean_of([gap(s, L("sred", b, n)) for n in ns])
                        ),
                    ),
                    explanation=EXPLAIN["zl_narrows"],
                )
            )
            refs.append(
                Reference(
                    "log_tput_ratio",
                    L("zl_red", b, ns[-1]),
                    math.nan,
                    "Fig. 4 text",
                    "text",
                    trend=rule(
                        f"B={b}: ZL-RED's improvement over SRED (gap reduction) is larger, on average, at the "
                        f"largest N ({', '.join(map(str, hi))}) than at the smallest ({', '.join(map(str, lo))})",
                        lambda s, imp=improvement: mean_of([imp(s, n) for n in hi]) > mean_of([imp(s, n) for n in lo]),
                    ),
                    explanation=EXPLAIN["zl_most_many"],
                )
            )
            refs.append(
                Reference(
                    "log_tput_ratio",
                    L("zl_red", b, ns[0]),
                    math.nan,
                    "Fig. 4 text",
                    "text",
                    trend=rule(
                        f"B={b}: at N={ns[0]} ZL-RED improves little: it changes the Reno/Vegas gap by less than "
                        f"a factor 2 (|gap_SRED - gap_ZL-RED| < ln 2)",
                        lambda s, imp=improvement: abs(imp(s, ns[0])) < math.log(2),
                    ),
                    explanation=EXPLAIN["zl_little_few"],
                )
            )
        return refs

    def figures(self, measured, summary, outdir):
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(3, len(self.buffers), figsize=(4.2 * len(self.buffers), 10), squeeze=False)
        for k, b in enumerate(self.buffers):
            lines = [(NAME[d], f"C{j}", lambda n, d=d, b=b: self.label(d, b, n)) for j, d in enumerate(DISCS)]
            throughput_and_loss(
                axes[0][k], axes[1][k], axes[2][k], summary, lines, self.ns, title=f"B = {b} packets, ZL = 1000"
            )
        fig.suptitle("Fig. 4: throughput per connection (top), loss rate (middle), Reno/Vegas ratio (bottom)")
        return save(fig, outdir / "fig4")
