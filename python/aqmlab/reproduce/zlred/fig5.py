"""ZL-RED report, Fig. 5: Reno against Vegas under ZL-RED as the zombie list grows."""

from __future__ import annotations

import math
from collections.abc import Sequence

from aqmlab.reproduce.base import Condition, Experiment, Reference, value_of
from aqmlab.reproduce.plots import save
from aqmlab.reproduce.zlred.common import (
    DISCS,
    EXPLAIN,
    NAME,
    NS,
    PAPER,
    REDUCED,
    SETUP,
    ZOMBIES,
    counts,
    gap,
    mean_of,
    measure_versions,
    queue,
    rule,
    throughput_and_loss,
)

# ---------------------------------------------------------------------------------------------
# Fig. 5


class Fig5(Experiment):
    id = "zlred-fig5"
    paper = PAPER
    title = "TCP Reno against TCP Vegas under SRED and ZL-RED, for four zombie list sizes"
    source = "Fig. 5 (a), (b) and its text (Sec. 4.2)"
    scenario = "zlred/fig5.toml"
    reduced = REDUCED
    notes = (
        SETUP
        + """

Fig. 5: zombie lists of 10, 100, 1000 and 10000 entries under SRED and ZL-RED; B = 5000 packets
[UNSPEC: not given for this figure]; N_r = N_v = 5 to 640 [UNSPEC]. The paper's causal chain for
the smallest list (it underestimates the number of flows, so drops less, so Reno gains) is
checked link by link."""
    )

    def __init__(self, ns: Sequence[int] = NS, zombies: Sequence[int] = ZOMBIES):
        self.ns, self.zombies = list(ns), list(zombies)

    @staticmethod
    def label(disc: str, zl: int, n: int) -> str:
        return f"{disc} ZL={zl} N={n}"

    def conditions(self):
        return [
            Condition(self.label(d, zl, n), {**counts(n), "link.bottleneck.queue": queue(d, zombies=zl)})
            for zl in self.zombies
            for d in DISCS
            for n in self.ns
        ]

    def measure(self, tables):
        return measure_versions(tables)

    def references(self):
        ns, L = self.ns, self.label
        small, large = self.zombies[0], [z for z in self.zombies if z >= 100]
        refs = []
        for d in DISCS:
            mean_gap = lambda s, zl, d=d: mean_of([gap(s, L(d, zl, n)) for n in ns])
            geo = lambda s, zl, d=d: mean_of([value_of(s, "log_tput_ratio", L(d, zl, n)) for n in ns])
            refs.append(
                Reference(
                    "tput_ratio",
                    L(d, large[0], ns[-1]),
                    math.nan,
                    "Fig. 5 text",
                    "text",
                    trend=rule(
                        f"{NAME[d]}: lists of 100 entries or more hardly change fairness: the Reno/Vegas ratio "
                        f"(geometric mean over N) of ZL={', '.join(map(str, large))} within a factor 1.25 of one another",
                        lambda s, g=geo: max(g(s, z) for z in large) - min(g(s, z) for z in large) < math.log(1.25),
                    ),
                    explanation=EXPLAIN["zl_size_little"],
                )
            )
            refs.append(
                Reference(
                    "flows_estimate",
                    L(d, small, ns[-1]),
                    math.nan,
                    "Fig. 5 text (citing Fig. 2)",
                    "text",
                    trend=rule(
                        f"{NAME[d]}: ZL={small} estimates fewer flows than ZL=1000 at every N from {ns[len(ns) // 2]} up",
                        lambda s, d=d: all(
                            value_of(s, "flows_estimate", L(d, small, n)) < value_of(s, "flows_estimate", L(d, 1000, n))
                            for n in ns[len(ns) // 2 :]
                        ),
                    ),
                    explanation=EXPLAIN["fig5_under"],
                )
            )
            refs.append(
                Reference(
                    "loss",
                    L(d, small, ns[-1]),
                    math.nan,
                    "Fig. 5 text",
                    "text",
                    trend=rule(
                        f"{NAME[d]}: ZL={small} drops less than ZL=1000 (overall loss rate, averaged over N)",
                        lambda s, d=d: (
                            mean_of([value_of(s, "loss", L(d, small, n)) for n in ns])
                            < mean_of([value_of(s, "loss", L(d, 1000, n)) for n in ns])
                        ),
                    ),
                    explanation=EXPLAIN["fig5_less_loss"],
                )
            )
            refs.append(
                Reference(
                    "log_tput_ratio",
                    L(d, small, ns[-1]),
                    math.nan,
                    "Fig. 5 text",
                    "text",
                    trend=rule(
                        f"{NAME[d]}: ZL={small} gives a larger Reno/Vegas gap (averaged over N) than every list of 100 or more",
                        lambda s, g=mean_gap: g(s, small) > max(g(s, z) for z in large),
                    ),
                    explanation=EXPLAIN["fig5_more_unfair"],
                )
            )
        return refs

    def figures(self, measured, summary, outdir):
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(3, 2, figsize=(9, 10), squeeze=False)
        for k, d in enumerate(DISCS):
            lines = [
                (f"ZL={zl}", f"C{j}", lambda n, d=d, zl=zl: self.label(d, zl, n)) for j, zl in enumerate(self.zombies)
            ]
            throughput_and_loss(
                axes[0][k], axes[1][k], axes[2][k], summary, lines, self.ns, title=f"{NAME[d]}, B = 5000"
            )
        fig.suptitle("Fig. 5: zombie list sizes: throughput (top), loss rate (middle), Reno/Vegas ratio (bottom)")
        return save(fig, outdir / "fig5")
