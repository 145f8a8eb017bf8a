"""ZL-RED report, Fig. 2: SRED's estimate of the number of flows against the real number."""

from __future__ import annotations

import math
from collections.abc import Sequence

from aqmlab.reproduce.base import Condition, Experiment, Reference, value_of
from aqmlab.reproduce.plots import save
from aqmlab.reproduce.zlred.common import (
    EXPLAIN,
    FIG2_NS,
    PAPER,
    REDUCED,
    SETUP,
    ZOMBIES,
    _series,
    counts,
    mean_of,
    measure_versions,
    rule,
)

# Fig. 2


class Fig2(Experiment):
    id = "zlred-fig2"
    paper = PAPER
    title = "SRED's estimate of the number of connections, 1/P(t), against the real number"
    source = "Fig. 2 (and its text, Sec. 2.2 and 4.2)"
    scenario = "zlred/fig2.toml"
    reduced = REDUCED
    notes = (
        SETUP
        + """

Fig. 2: N = 10 to 1280 TCP Reno connections (no Vegas) through SRED with B = 5000 packets
[UNSPEC] and zombie lists of 10, 100, 1000 and 10000 entries [UNSPEC: "several sizes"; those of
Fig. 5]. The claim is checked on both readings of the estimate: 1 / (time average of P(t))
(`flows_estimate`, first rows) and the time average of 1/P(t) (`mean_of_inverse_hit_rate`, the
last rows). The figure also shows `effective_flows`, 1 / (sum of the squared throughput shares):
the number of equal flows that would give the same hit frequency, which is what 1/P(t) measures
when the flows' rates differ."""
    )

    def __init__(self, ns: Sequence[int] = FIG2_NS, zombies: Sequence[int] = ZOMBIES):
        self.ns, self.zombies = list(ns), list(zombies)

    @staticmethod
    def label(zl: int, n: int) -> str:
        return f"ZL={zl} N={n}"

    def conditions(self):
        return [
            Condition(self.label(zl, n), {**counts(n, vegas=False), "link.bottleneck.queue.zombies": zl})
            for zl in self.zombies
            for n in self.ns
        ]

    def measure(self, tables):
        return measure_versions(tables)

    def references(self):
        ns, big = self.ns, self.ns[-1]
        refs = []
        for zl in self.zombies:
            why = "fig2_below" if zl >= 1000 else "fig2_below_small_list"
            refs.append(self._below("flows_estimate", "flows_estimate_over_actual", "1/(mean P(t))", zl, why))
        small, large = self.zombies[0], [z for z in self.zombies if z >= 100]
        if large and small < 100:
            under = rule(
                f"a very small list (ZL={small}) estimates fewer connections than every list of 100 or more, at "
                f"each N from {ns[len(ns) // 2]} up",
                lambda s: all(
                    value_of(s, "flows_estimate", self.label(small, n))
                    < min(value_of(s, "flows_estimate", self.label(z, n)) for z in large)
                    for n in ns[len(ns) // 2 :]
                ),
            )
            refs.append(
                Reference(
                    "flows_estimate",
                    self.label(small, big),
                    math.nan,
                    "Sec. 4.2 text (citing Fig. 2)",
                    "text",
                    trend=under,
                    explanation=EXPLAIN["fig2_small"],
                )
            )
            same = rule(
                "lists of 100 entries or more give about the same estimate (within 25% of ZL=1000's) at every N",
                lambda s: all(
                    abs(
                        value_of(s, "flows_estimate", self.label(z, n))
                        / value_of(s, "flows_estimate", self.label(1000, n))
                        - 1
                    )
                    < 0.25
                    for z in large
                    for n in ns
                ),
            )
            refs.append(
                Reference(
                    "flows_estimate",
                    self.label(large[0], big),
                    math.nan,
                    "Sec. 4.2 text (citing Fig. 2)",
                    "text",
                    trend=same,
                    explanation=EXPLAIN["fig2_same"],
                )
            )
        for zl in self.zombies:
            refs.append(
                self._below(
                    "mean_of_inverse_hit_rate",
                    "mean_of_inverse_over_actual",
                    "mean of 1/P(t)",
                    zl,
                    "fig2_below_mean_inverse",
                )
            )
        return refs

    def _below(self, quantity: str, ratio: str, reading: str, zl: int, why: str) -> Reference:
        ns, big = self.ns, self.ns[-1]
        ratios = lambda s: [value_of(s, ratio, self.label(zl, n)) for n in ns]
        below = rule(
            f"ZL={zl}, estimate read as {reading}: it falls below the real count as connections grow: "
            f"estimate / real under 1 at N={big} and lower at N={big} than at N={ns[0]}",
            lambda s: ratios(s)[-1] < 1 and ratios(s)[-1] < ratios(s)[0],
        )
        return Reference(
            quantity,
            self.label(zl, big),
            math.nan,
            "Fig. 2 (text, Sec. 2.2)",
            "text",
            trend=below,
            explanation=EXPLAIN[why],
        )

    def figures(self, measured, summary, outdir):
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 4.5))
        for k, zl in enumerate(self.zombies):
            conds = [self.label(zl, n) for n in self.ns]
            ys, err = _series(summary, "flows_estimate", conds)
            ax.errorbar(
                self.ns, ys, yerr=err, fmt="o-", color=f"C{k}", ms=3, capsize=2, label=f"ZL={zl}: 1/(mean P(t))"
            )
            ys = [value_of(summary, "mean_of_inverse_hit_rate", c) for c in conds]
            ax.plot(self.ns, ys, "x:", color=f"C{k}", ms=4, alpha=0.6, label=f"ZL={zl}: mean of 1/P(t)")
        eff = [
            mean_of([value_of(summary, "effective_flows", self.label(zl, n)) for zl in self.zombies]) for n in self.ns
        ]
        ax.plot(self.ns, eff, "k--", lw=0.8, label="1 / sum of squared throughput shares")
        ax.plot(self.ns, self.ns, "k-", lw=0.8, label="estimate = real")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_ylim(0.5, 8 * max(self.ns))
        ticks = [2**k for k in range(0, int(math.log2(8 * max(self.ns))) + 1, 2)]
        ax.set_yticks(ticks, [str(t) for t in ticks], fontsize=7)
        ax.set_xticks(self.ns, [str(n) for n in self.ns], fontsize=7)
        ax.set_xlabel("real number of connections (TCP Reno)")
        ax.set_ylabel("estimated number of connections")
        ax.set_title("Fig. 2: SRED's flow estimate (B = 5000)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
        return save(fig, outdir / "fig2")
