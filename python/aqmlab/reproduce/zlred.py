"""Kurata, Hasegawa and Murata, "More results on ZL-RED for fairness enhancement between TCP Reno
and Vegas" (IEICE technical report, c. 2000, in Japanese): SRED's estimate of the number of
flows (Fig. 2) and the throughput and loss of TCP Reno against TCP Vegas under SRED and ZL-RED
(Fig. 4: buffer size; Fig. 5: zombie list size; Fig. 6: the constant a of eq. (8)).

The paper prints no numbers: every row checks one of its qualitative claims
(Sec. 2.2 and 4.2) on the simulated means, by the rule stated in the row.
Scenarios: ``scenarios/papers/zlred/``; the number of connections, the discipline and its
parameters are conditions set by overrides.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import pairwise

import pandas as pd

from aqmlab.reproduce.base import Condition, Experiment, Reference, value_of
from aqmlab.reproduce.plots import half_width, save

PAPER = "Kurata, Hasegawa, Murata, More results on ZL-RED (IEICE tech. report, c. 2000)"

#: N_r = N_v: Reno (and as many Vegas) connections of Figs. 4-6 [UNSPEC: axis not legible].
NS = [5, 10, 20, 40, 80, 160, 320, 640]
#: Reno connections of Fig. 2 (stated: 10 to 1280).
FIG2_NS = [10, 20, 40, 80, 160, 320, 640, 1280]
BUFFERS = [1000, 5000, 10000]
ZOMBIES = [10, 100, 1000, 10000]
AS = [1, 2, 4]
DISCS = ("sred", "zl_red")
NAME = {"sred": "SRED", "zl_red": "ZL-RED"}

#: Short runs for the test suite: every condition, 3 s each.
REDUCED = {"simulation.duration": "3s", "simulation.warmup": "1s"}

SETUP = """Fig. 3 network: every sender on its own 45 Mbps / 20 ms access link into the router, whose
45 Mbps / 1 ms link to the receiver is the bottleneck with buffer B; 1000-byte packets; p_max
0.15, th_min 5 (ZL-RED), p_swap 0.25; runs of 100 s measured over [10 s, 100 s) [UNSPEC: the
first 10 s are the start-up]. Unstated choices (Vegas alpha/beta/gamma 1/3/1, no receiver
window, starts in [0, 1] s, P(t)'s gain 1/ZL, P_avg of eq. (6) as the running mean of the final
drop probability) are listed at the top of each scenario file. Throughput per connection is the
mean over the connections of a version of the bytes delivered per second; a version's loss rate
is its packets dropped / packets sent; the estimate of the number of flows (`flows_estimate`) is
1 / (time average of P(t) over the window) [UNSPEC: the paper does not say how it averages
1/P(t)]; the time average of 1/P(t) itself (`mean_of_inverse_hit_rate`, the core's
`gauges.flows_estimate`) is reported too, but it is dominated by the troughs of P(t): P(t) is an
EMA of gain 1/ZL, and between two hits it decays geometrically, so 1/P(t) spikes by orders of
magnitude whenever hits are rarer than one per ZL arrivals (small lists, many flows).

The paper prints no numbers, so every row is one of its claims checked by the rule in its
"trend" column on the means over seeds. The Reno/Vegas gap of a condition is |mean over seeds
of ln(Reno throughput / Vegas throughput)| (0 when both versions get the same)."""


def counts(n: int, vegas: bool = True) -> dict[str, int]:
    """Overrides that make N_r (= N_v) connections, each with its access link."""
    over = {"flow.reno{i}.count": n, "link.reno_access{i}.count": n}
    if vegas:
        over |= {"flow.vegas{i}.count": n, "link.vegas_access{i}.count": n}
    return over


def queue(disc: str, buffer: int = 5000, zombies: int = 1000, a: float = 1) -> str:
    if disc == "sred":
        return f'{{discipline = "sred", limit = {buffer}, p_max = 0.15, p_swap = 0.25, zombies = {zombies}}}'
    return (
        f'{{discipline = "zl_red", limit = {buffer}, p_max = 0.15, th_min = 5, p_swap = 0.25, '
        f"zombies = {zombies}, a = {a:g}}}"
    )


# ---------------------------------------------------------------------------------------------
# Measurement


def measure_versions(tables) -> pd.DataFrame:
    """Per run: throughput per connection and loss rate of each version, their ratio, the
    overall loss rate, and the bottleneck's estimate of the number of flows."""
    f = tables["flows"]
    links = tables["links"]
    b = links[links["name"] == "bottleneck"].set_index(["condition", "seed"])
    rows = []
    for (cond, seed), run in f.groupby(["condition", "seed"], sort=False):
        tput = {}
        for version in ("reno", "vegas"):
            v = run[run["group"] == version]
            if not len(v):
                continue
            tput[version] = float(v["throughput_bps"].mean()) / 1e6
            sent = float(v["sent_pkts"].sum())
            rows += [
                (cond, seed, f"{version}_tput_mbps", tput[version]),
                (cond, seed, f"{version}_loss", float(v["dropped_pkts"].sum()) / sent if sent else math.nan),
            ]
        if len(tput) == 2:
            reno, vegas = tput["reno"], tput["vegas"]
            rows += [
                (cond, seed, "tput_ratio", reno / vegas if vegas > 0 else math.nan),
                (cond, seed, "log_tput_ratio", math.log(reno / vegas) if reno > 0 and vegas > 0 else math.nan),
            ]
        sent = float(run["sent_pkts"].sum())
        rows.append((cond, seed, "loss", float(run["dropped_pkts"].sum()) / sent if sent else math.nan))
        # What 1/P(t) would read if every flow's share of the arrivals were its share of the
        # throughput: the hit frequency is then about the sum of the squared shares.
        shares = run["throughput_bps"].astype(float)
        total = float(shares.sum())
        squares = float(((shares / total) ** 2).sum()) if total > 0 else math.nan
        rows.append((cond, seed, "effective_flows", 1.0 / squares if squares > 0 else math.nan))
        if (cond, seed) in b.index:
            link = b.loc[(cond, seed)]
            p = float(link.get("gauges.hit_rate", math.nan))
            est = 1.0 / p if p > 0 else math.nan
            n = len(run)
            rows += [
                (cond, seed, "flows_estimate", est),
                (cond, seed, "flows_estimate_over_actual", est / n),
                (cond, seed, "mean_of_inverse_hit_rate", float(link.get("gauges.flows_estimate", math.nan))),
                (cond, seed, "mean_of_inverse_over_actual", float(link.get("gauges.flows_estimate", math.nan)) / n),
                (cond, seed, "utilization", float(link["utilization"])),
            ]
    return pd.DataFrame(rows, columns=["condition", "seed", "quantity", "value"])


# ---------------------------------------------------------------------------------------------
# Rules on the summary


def gap(s: pd.DataFrame, cond: str) -> float:
    """|ln(Reno / Vegas)| of a condition (its mean over seeds of the log ratio)."""
    return abs(value_of(s, "log_tput_ratio", cond))


def mean_of(values: Sequence[float]) -> float:
    values = [v for v in values if not math.isnan(v)]
    return sum(values) / len(values) if values else math.nan


def rule(description: str, check: Callable[[pd.DataFrame], bool]) -> tuple[str, Callable[[pd.DataFrame], bool]]:
    def safe(s: pd.DataFrame) -> bool:
        try:
            return bool(check(s))
        except (KeyError, IndexError, ValueError, ZeroDivisionError):
            return False

    return (description, safe)


# ---------------------------------------------------------------------------------------------
# Figures


def _series(summary, quantity, conds):
    ys = [value_of(summary, quantity, c) for c in conds]
    err = [half_width(summary, quantity, c) for c in conds]
    return ys, err


def throughput_and_loss(axes_t, axes_l, axes_r, summary, lines, ns, title=None):
    """One panel of each kind: ``lines`` = [(label prefix, color, condition of N)]."""
    positive = []  # log scales only for panels with something to show (a failed run leaves none)
    for prefix, color, cond_of in lines:
        conds = [cond_of(n) for n in ns]
        for version, style in (("reno", "o-"), ("vegas", "s--")):
            ys, err = _series(summary, f"{version}_tput_mbps", conds)
            positive += [y for y in ys if y > 0]
            axes_t.errorbar(
                ns, ys, yerr=err, fmt=style, color=color, ms=3, capsize=2, label=f"{prefix} {version.capitalize()}"
            )
            ys, err = _series(summary, f"{version}_loss", conds)
            axes_l.errorbar(
                ns, ys, yerr=err, fmt=style, color=color, ms=3, capsize=2, label=f"{prefix} {version.capitalize()}"
            )
        if axes_r is not None:
            ys = [value_of(summary, "log_tput_ratio", c) for c in conds]
            axes_r.plot(
                ns, [math.exp(y) if not math.isnan(y) else math.nan for y in ys], "o-", color=color, ms=3, label=prefix
            )
    if positive:
        axes_t.set_yscale("log")
    axes_t.set_ylabel("throughput per connection (Mbps)")
    axes_l.set_ylabel("packet loss rate")
    for ax in (axes_t, axes_l) + ((axes_r,) if axes_r is not None else ()):
        ax.set_xscale("log", base=2)
        ax.set_xticks(ns, [str(n) for n in ns], fontsize=7)
        ax.set_xlabel("number of connections N_r = N_v")
        ax.grid(alpha=0.3)
    if axes_r is not None:
        axes_r.axhline(1, color="k", lw=0.8)
        if positive:
            axes_r.set_yscale("log")
        axes_r.set_ylabel("Reno / Vegas throughput\n(geometric mean over seeds)")
    if title:
        axes_t.set_title(title)
    axes_t.legend(fontsize=6)


# ---------------------------------------------------------------------------------------------
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


def _increasing(values: Sequence[float]) -> bool:
    return all(not math.isnan(v) for v in values) and all(b > a for a, b in pairwise(values))


#: Why each kind of row may differ: what the runs show (see the figures and measured.csv).
EXPLAIN = {
    "fig2_below": (
        "with lists of 1000 and 10000 entries the estimate is below the real count at every N, but it falls "
        "furthest below at the smallest N, not the largest (1/4 to 2/3 of 10 connections, 0.8-0.93 of 1280): with "
        "10-40 Reno connections SRED hardly drops early (the factor 1/(256 P)^2 of eq. (2)), the 5000-packet "
        "buffer fills, and the queue grows faster than the RTO of the small connections follows, so they time out "
        "spuriously again and again while two or three connections take most of the link; 1/P(t) counts flows "
        "weighted by their rates and reads about 1/(sum of the squared throughput shares), about 3 for 10 "
        "connections (dashed line). The paper's small-N points must have had evener rates; its TCP timers are "
        "not stated"
    ),
    "fig2_below_small_list": (
        "with a list this small the estimate is far below the count at every N (a quarter of it or less): at "
        "large N because the list remembers only the last few bursts of packets (see the row on lists of 100 "
        "entries or more), at small N because the Reno connections' rates are very uneven (see the rows on 1000 "
        "and 10000 entries); for 100 entries the two effects are about equally strong, so estimate / real does "
        "not fall from N = 10 (0.24) to 1280 (0.26); for 10 entries it falls, as the paper says"
    ),
    "fig2_below_mean_inverse": (
        "the time average of 1/P(t) is dominated by the troughs of P(t): P(t) is an EMA of gain 1/ZL, and when "
        "hits are rarer than one per ZL arrivals (lists of 10-1000 entries against hundreds of connections) it "
        "decays geometrically between hits, so 1/P(t) spikes to 10^4-10^11 and its average overestimates; with "
        "10000 entries it reads close to the count at 1280 but, as 1/(mean P(t)), lowest relative to it at small N"
    ),
    "fig2_small": "claim checked on the simulated means",
    "fig2_same": (
        "a list of 100 entries reads about a third of what 1000 entries read at 640-1280 connections: a zombie "
        "lives about ZL / p_swap = 400 arrivals (70 ms of the 45 Mbps link), less than a round trip, so the list "
        "holds the flows of the last few bursts and an arrival often finds its own flow's earlier packets (TCP "
        "sends its window in bursts): more hits, a smaller estimate. With 1000 and 10000 entries a zombie "
        "outlives a round trip and the two agree within about 15% from 80 connections up"
    ),
    "sred_reno_ahead": (
        "Reno is far ahead under SRED at few connections (45-220 times Vegas's throughput at 5 per version), but "
        "the lead shrinks as N grows and is gone at 80 (B = 1000), 320 (B = 5000) and 640 (B = 10000) "
        "connections per version: each connection's share of the pipe and buffer is then a few packets, SRED "
        "works in its p_max region (loss 5-23%), both versions live on minimal windows and timeouts, and Vegas "
        "gets as much as Reno or more (ratio 0.7-1.0 at 640). The range of N is [UNSPEC]: up to 40 connections "
        "per version the claim holds at every B"
    ),
    "sred_worse_with_b": "claim checked on the simulated means",
    "zl_narrows": "claim checked on the simulated means",
    "zl_most_many": (
        "ZL-RED's gain is concentrated at 20-80 connections per version (B = 5000: Reno/Vegas ratio 24 -> 9 at "
        "20, 7 -> 1.8 at 40, 2.6 -> 1.6 at 80); from 160 per version on, SRED leaves little or no gap to "
        "close (ratio 0.7-1.8, see the SRED rows) and the two disciplines give close throughputs. There the "
        "zombie counts are almost all 0, T P(t) is far below 1, and the test F > T P(t) flags any flow with a "
        "single hit, which picks Reno and Vegas alike"
    ),
    "zl_little_few": "claim checked on the simulated means",
    "zl_size_little": "claim checked on the simulated means",
    "fig5_under": "claim checked on the simulated means",
    "fig5_less_loss": "claim checked on the simulated means",
    "fig5_more_unfair": "claim checked on the simulated means",
    "fig6_fairer": (
        "in eq. (8) as printed, a only raises the bar F > a T P(t) for being judged misbehaving (eq. (5)'s "
        "factor F / (T P(t)) and eq. (6) are unchanged), so a larger a flags fewer packets: averaged over N the "
        "Reno/Vegas gap |ln(Reno/Vegas)| grows, 1.58, 1.66, 1.80 for a = 1, 2, 4 (five seeds). The text says a "
        "larger a raises the misbehaving flows' drop rate; read so, with a multiplying eq. (5)'s increase, both "
        "of the paper's claims appear: the gap falls, 1.58, 1.54, 1.20, and the loss rises (zlred-fig6-readings, "
        "the condition 'a on eq. (5)')"
    ),
    "fig6_loss": (
        "with eq. (8) as printed a larger a flags fewer packets, so the overall loss rate falls, 4.03%, 3.88%, "
        "3.79% for a = 1, 2, 4 (averaged over N); with a multiplying eq. (5)'s increase, as the text describes "
        "a's effect, it rises, 4.03%, 4.10%, 4.23% (zlred-fig6-readings)"
    ),
    "readings": (
        "averaged over N, five seeds: as printed (F > a T P(t)) neither claim holds (gap 1.58, 1.66, 1.80; loss "
        "4.03%, 3.88%, 3.79% for a = 1, 2, 4), with or without eq. (6); with a on eq. (5)'s increase both hold "
        "(gap 1.58, 1.54, 1.20; loss 4.03%, 4.10%, 4.23%), and without eq. (6) too (1.64, 1.35, 1.04; 3.86%, "
        "4.07%, 4.35%); with the threshold divided by a, both hold from a = 1 to 2 by a hair and neither from 2 to "
        "4: from 80 connections per version on, T P(t) is below 1 and a flow with a single hit is flagged "
        "whatever a is. The paper's curves fit a multiplying eq. (5)'s increase, the effect its text gives a"
    ),
}

EXPERIMENTS = [Fig2(), Fig4(), Fig5(), Fig6(), Fig6Readings()]
