"""ZL-RED report, Fig. 6: the constant a of eq. (8); side by side, Fig. 6 under each reading of eq. (8)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

from aqmlab.reproduce.base import Condition, Experiment, Reference, value_of
from aqmlab.reproduce.plots import save
from aqmlab.reproduce.zlred.common import (
    AS,
    EXPLAIN,
    NS,
    PAPER,
    REDUCED,
    SETUP,
    _series,
    counts,
    gap,
    mean_of,
    measure_versions,
    rule,
    throughput_and_loss,
)

# ---------------------------------------------------------------------------------------------
# Fig. 6


class Fig6(Experiment):
    id = "zlred-fig6"
    paper = PAPER
    title = "ZL-RED with the misbehaving test F > a T P(t), a = 1, 2, 4"
    source = "Fig. 6 (a), (b) and its text (Sec. 4.2, eq. (8))"
    scenario = "zlred/fig6.toml"
    reduced = REDUCED
    notes = (
        SETUP
        + """

Fig. 6: ZL-RED with eq. (8), a = 1 (ZL-RED itself), 2 and 4; B = 5000 packets and ZL = 1000
(stated); N_r = N_v = 5 to 640 [UNSPEC]. The text cites "Fig. 5(a)/(b)" for these claims, read
as Fig. 6(a)/(b). In eq. (8) a only raises the bar for being judged misbehaving; eq. (5)'s
factor F / (T P(t)) is unchanged."""
    )

    def __init__(self, ns: Sequence[int] = NS, a_values: Sequence[float] = AS):
        self.ns, self.a_values = list(ns), list(a_values)

    @staticmethod
    def label(a: float, n: int) -> str:
        return f"a={a:g} N={n}"

    def conditions(self):
        return [
            Condition(self.label(a, n), {**counts(n), "link.bottleneck.queue.a": a})
            for a in self.a_values
            for n in self.ns
        ]

    def measure(self, tables):
        return measure_versions(tables)

    def references(self):
        ns, L = self.ns, self.label
        refs = []
        for prev, a in zip(self.a_values, self.a_values[1:]):
            refs.append(
                Reference(
                    "log_tput_ratio",
                    L(a, ns[-1]),
                    math.nan,
                    "Fig. 6 text",
                    "text",
                    trend=rule(
                        f"a={a:g} gives a smaller Reno/Vegas gap (averaged over N) than a={prev:g}",
                        lambda s, a=a, prev=prev: (
                            mean_of([gap(s, L(a, n)) for n in ns]) < mean_of([gap(s, L(prev, n)) for n in ns])
                        ),
                    ),
                    explanation=EXPLAIN["fig6_fairer"],
                )
            )
            refs.append(
                Reference(
                    "loss",
                    L(a, ns[-1]),
                    math.nan,
                    "Fig. 6 text",
                    "text",
                    trend=rule(
                        f"a={a:g} gives a higher overall loss rate (averaged over N) than a={prev:g}",
                        lambda s, a=a, prev=prev: (
                            mean_of([value_of(s, "loss", L(a, n)) for n in ns])
                            > mean_of([value_of(s, "loss", L(prev, n)) for n in ns])
                        ),
                    ),
                    explanation=EXPLAIN["fig6_loss"],
                )
            )
        return refs

    def figures(self, measured, summary, outdir):
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 3, figsize=(13, 4))
        lines = [(f"a={a:g}", f"C{j}", lambda n, a=a: self.label(a, n)) for j, a in enumerate(self.a_values)]
        throughput_and_loss(axes[0], axes[1], axes[2], summary, lines, self.ns, title="B = 5000, ZL = 1000")
        fig.suptitle("Fig. 6: ZL-RED with eq. (8): throughput (a), loss rate (b), Reno/Vegas ratio")
        return save(fig, outdir / "fig6")


# ---------------------------------------------------------------------------------------------
# Fig. 6 under each reading of eq. (8)

#: How a applies (the core's a_reading) and whether eq. (6) normalises: the readings compared.
READINGS = {
    "as printed": ("threshold", True),
    "as printed, no eq. (6)": ("threshold", False),
    "a on eq. (5)": ("factor", True),
    "a on eq. (5), no eq. (6)": ("factor", False),
    "threshold / a": ("divided", True),
    "threshold / a, no eq. (6)": ("divided", False),
}


class Fig6Readings(Experiment):
    id = "zlred-fig6-readings"
    variant_of = "zlred-fig6"
    paper = PAPER
    title = "Fig. 6 under each reading of eq. (8): which give the paper's two claims"
    source = "Fig. 6 (a), (b) and its text (Sec. 4.2, eq. (8))"
    scenario = "zlred/fig6.toml"
    reduced = REDUCED
    notes = (
        SETUP
        + """

Eq. (8) as printed, F > T P(t) a, only raises the bar a flow's zombie count must pass to be
judged misbehaving; eq. (5)'s increase F / (T P(t)) and eq. (6)'s normalisation p3 / P_avg(t)
are unchanged. Yet the text introduces a to raise the misbehaving flows' drop rate, and with it
the overall loss ("to improve fairness further with few connections, the overall drop rate must
be raised ... so eq. (4) is changed to eq. (8)"; "making a larger raises the misbehaving flows'
drop rate and improves fairness"; "a larger a raises the overall loss rate"). This experiment
runs Fig. 6 (B = 5000, ZL = 1000, a = 1, 2, 4) under three readings of how a applies, each with
and without eq. (6) (the core's `a_reading` and `normalise`):

- *as printed*: misbehaving when F > a T P(t);
- *a on eq. (5)*: eq. (4) unchanged, p4 = a p3 F / (T P(t));
- *threshold / a*: misbehaving when F > T P(t) / a (more flows judged misbehaving as a grows).

At a = 1 the three readings are the same algorithm, so a = 1 is run once with and once without
eq. (6). The rows check the paper's two claims under each reading, with the rules of Fig. 6: a
larger a gives a smaller Reno/Vegas gap (|ln(Reno/Vegas)| averaged over N), and a higher overall
loss rate. A reading that gives both is one the paper's curves can have come from."""
    )

    def __init__(self, ns: Sequence[int] = NS, a_values: Sequence[float] = AS):
        self.ns, self.a_values = list(ns), list(a_values)

    @staticmethod
    def label(reading: str, a: float, n: int) -> str:
        # a = 1 is one algorithm whatever the reading: only eq. (6) tells the variants apart.
        if a == 1:
            reading = "as printed" if READINGS[reading][1] else "as printed, no eq. (6)"
        return f"{reading}: a={a:g} N={n}"

    def conditions(self):
        seen = {}
        for reading, (how, normalise) in READINGS.items():
            for a in self.a_values:
                for n in self.ns:
                    label = self.label(reading, a, n)
                    seen[label] = Condition(
                        label,
                        {
                            **counts(n),
                            "link.bottleneck.queue.a": a,
                            "link.bottleneck.queue.a_reading": how,
                            "link.bottleneck.queue.normalise": normalise,
                        },
                    )
        return list(seen.values())

    def measure(self, tables):
        return measure_versions(tables)

    def references(self):
        ns, L = self.ns, self.label
        refs = []
        for reading in READINGS:
            for prev, a in pairwise(self.a_values):
                refs.append(
                    Reference(
                        "log_tput_ratio",
                        L(reading, a, ns[-1]),
                        math.nan,
                        "Fig. 6 text",
                        "text",
                        trend=rule(
                            f"{reading}: a={a:g} gives a smaller Reno/Vegas gap (averaged over N) than a={prev:g}",
                            lambda s, r=reading, a=a, prev=prev: (
                                mean_of([gap(s, L(r, a, n)) for n in ns]) < mean_of([gap(s, L(r, prev, n)) for n in ns])
                            ),
                        ),
                        explanation=EXPLAIN["readings"],
                    )
                )
                refs.append(
                    Reference(
                        "loss",
                        L(reading, a, ns[-1]),
                        math.nan,
                        "Fig. 6 text",
                        "text",
                        trend=rule(
                            f"{reading}: a={a:g} gives a higher overall loss rate (averaged over N) than a={prev:g}",
                            lambda s, r=reading, a=a, prev=prev: (
                                mean_of([value_of(s, "loss", L(r, a, n)) for n in ns])
                                > mean_of([value_of(s, "loss", L(r, prev, n)) for n in ns])
                            ),
                        ),
                        explanation=EXPLAIN["readings"],
                    )
                )
        return refs

    def figures(self, measured, summary, outdir):
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(2, len(READINGS), figsize=(3.3 * len(READINGS), 6.5), squeeze=False)
        for k, reading in enumerate(READINGS):
            for j, a in enumerate(self.a_values):
                conds = [self.label(reading, a, n) for n in self.ns]
                gaps, err = _series(summary, "log_tput_ratio", conds)
                axes[0][k].errorbar(self.ns, gaps, yerr=err, fmt="o-", color=f"C{j}", ms=3, capsize=2, label=f"a={a:g}")
                loss, err = _series(summary, "loss", conds)
                axes[1][k].errorbar(self.ns, loss, yerr=err, fmt="o-", color=f"C{j}", ms=3, capsize=2, label=f"a={a:g}")
            axes[0][k].set_title(reading, fontsize=9)
            for ax in axes[:, k]:
                ax.set_xscale("log", base=2)
                ax.grid(alpha=0.3)
                ax.set_xlabel("N_r = N_v")
        axes[0][0].set_ylabel("ln(Reno / Vegas throughput)")
        axes[1][0].set_ylabel("overall loss rate")
        axes[0][0].legend(fontsize=7)
        fig.suptitle("Fig. 6 under each reading of eq. (8): aqmlab means over seeds with 95% intervals")
        return save(fig, outdir / "fig6_readings")
